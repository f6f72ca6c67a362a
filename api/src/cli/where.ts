/**
 * Where the CLI works: the service's data folder (and its store), and the service's URL for the links it prints.
 *
 * The CLI must act on the store the running service uses, never quietly on another. So:
 * - the data folder is PRIZEDRAW_DATA_DIR when set, else the one `npm start` uses by default (`.data` in the
 *   repository, whatever folder the CLI is run from);
 * - the CLI never creates a store: with no `prizedraw.sqlite` in that folder it refuses, saying which folder it
 *   looked in and how to point it at the service's (the service creates the store when it starts);
 * - every command that changes something names the store first (on stderr, so `--json` output stays one object);
 * - links use PUBLIC_BASE_URL, else PORT, else the URL the running stack recorded in the data folder, else the
 *   default port 8787 that `npm start` uses.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../chain/artifacts.js";
import { loadConfig, type Config } from "../config.js";
import { storePath } from "../store/index.js";

/** The data folder `npm start` uses when PRIZEDRAW_DATA_DIR is unset (it runs from the repository root). */
export const DEFAULT_DATA_DIR = join(REPO_ROOT, ".data");

export type Workplace = {
  dataDir: string;
  /** How the folder was chosen: the variable, or the `npm start` default. */
  dataDirFrom: "PRIZEDRAW_DATA_DIR" | "default";
  storeFile: string;
  storeExists: boolean;
  publicBaseUrl: string;
  /** Where the URL came from. */
  urlFrom: "PUBLIC_BASE_URL" | "PORT" | "recorded" | "default";
};

/**
 * The service's URL as the running stack recorded it in the data folder: `npm start` holds `stack.lock` there
 * for its whole life, naming its pid and ports (and its public URL when it records one). A lock whose holder is
 * gone says nothing.
 */
export function recordedServiceUrl(dataDir: string): string | null {
  try {
    const lock = JSON.parse(readFileSync(join(dataDir, "stack.lock"), "utf8")) as { pid?: unknown; publicBaseUrl?: unknown; ports?: { service?: unknown } };
    if (typeof lock.pid !== "number" || !running(lock.pid)) return null;
    if (typeof lock.publicBaseUrl === "string" && /^https?:\/\//.test(lock.publicBaseUrl)) return lock.publicBaseUrl.replace(/\/+$/, "");
    if (typeof lock.ports?.service === "number" && lock.ports.service > 0) return `http://127.0.0.1:${lock.ports.service}`;
  } catch {
    // no lock, or one being rewritten: fall back to the default
  }
  return null;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Reads the configuration with the CLI's data folder and URL rules (above). */
export function locate(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): { config: Config; where: Workplace } {
  const set = (name: string) => env[name] !== undefined && env[name] !== "";
  const dataDirFrom = set("PRIZEDRAW_DATA_DIR") ? "PRIZEDRAW_DATA_DIR" : "default";
  const withDir = dataDirFrom === "default" ? { ...env, PRIZEDRAW_DATA_DIR: DEFAULT_DATA_DIR } : env;
  let config = loadConfig(withDir, cwd);
  let urlFrom: Workplace["urlFrom"] = set("PUBLIC_BASE_URL") ? "PUBLIC_BASE_URL" : set("PORT") ? "PORT" : "default";
  if (urlFrom === "default") {
    const recorded = recordedServiceUrl(config.dataDir);
    if (recorded) {
      config = { ...config, publicBaseUrl: recorded };
      urlFrom = "recorded";
    }
  }
  const storeFile = storePath(config.dataDir);
  return {
    config,
    where: { dataDir: config.dataDir, dataDirFrom, storeFile, storeExists: existsSync(storeFile), publicBaseUrl: config.publicBaseUrl, urlFrom },
  };
}

/** Why there is no store to work on, and what to do: one message for the CLI to print. */
export function noStoreMessage(where: Workplace): string {
  const folder =
    where.dataDirFrom === "default"
      ? `${where.dataDir} (the folder npm start uses when PRIZEDRAW_DATA_DIR is unset)`
      : `${where.dataDir} (PRIZEDRAW_DATA_DIR)`;
  return (
    `no store in ${folder}: nothing was created. Start the service first (npm start creates the store), ` +
    `or set PRIZEDRAW_DATA_DIR to the data folder the running service uses`
  );
}

/** The line a changing command prints first: which store it writes to, and which URL its links use. */
export function storeLine(where: Workplace): string {
  const from = where.dataDirFrom === "default" ? "npm start's default folder; set PRIZEDRAW_DATA_DIR for another" : "PRIZEDRAW_DATA_DIR";
  return `prizedraw: store ${where.storeFile} (${from}); links use ${where.publicBaseUrl}`;
}
