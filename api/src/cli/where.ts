/**
 * Where the CLI works: the service's data folder (and its store), and the service's URL for the links it prints.
 *
 * The CLI must act on the store the running service uses, never quietly on another. So:
 * - the data folder is PRIZEDRAW_DATA_DIR when set, else the one `npm start` uses by default (`.data` in the
 *   repository, whatever folder the CLI is run from);
 * - the store is STORE_URL's PostgreSQL database when set (as for the service), else the SQLite file in that folder;
 * - the CLI never creates a store: with no `prizedraw.sqlite` in that folder it refuses, saying which folder it
 *   looked in and how to point it at the service's (the service creates the store when it starts). A database
 *   named by STORE_URL is taken as given: an unreachable one is an error when the CLI opens it;
 * - every command that changes something names the store first, and whether a running stack uses it (on stderr,
 *   so `--json` output stays one object);
 * - links use PUBLIC_BASE_URL, else PORT, else the URL the stack holding the data folder recorded in its lock
 *   (`stack.lock`, written by `npm start`), else the default port 8787 that `npm start` uses. The chain for
 *   `held pay|refuse` likewise: RPC_URL, else CHAIN_PORT, else the stack's recorded chain port.
 */
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../paths.js";
import { loadConfig, storeLabel, type Config } from "../config.js";
import { readDataDirLock, type LockHolder } from "../store/dataDirLock.js";
import { storePath } from "../store/index.js";

/** The data folder `npm start` uses when PRIZEDRAW_DATA_DIR is unset (it runs from the repository root). */
export const DEFAULT_DATA_DIR = join(REPO_ROOT, ".data");

/** The stack that holds the data folder, as its lock names it. */
export type RunningStack = Pick<LockHolder, "command" | "pid" | "host" | "ports" | "publicBaseUrl">;

export type Workplace = {
  dataDir: string;
  /** How the folder was chosen: the variable, or the `npm start` default. */
  dataDirFrom: "PRIZEDRAW_DATA_DIR" | "default";
  /** What openStore opens: STORE_URL (a PostgreSQL URL, with its password: print `storeLabel(store)`), else the file. */
  store: string;
  /** Where the store was named: STORE_URL, or the SQLite file in the data folder. */
  storeFrom: "STORE_URL" | "dataDir";
  storeExists: boolean;
  /** The stack running on the folder now, or null. */
  stack: RunningStack | null;
  publicBaseUrl: string;
  /** Where the URL came from. */
  urlFrom: "PUBLIC_BASE_URL" | "PORT" | "stack" | "default";
};

/** The running stack's lock on `dataDir`, or null (none, stale, or unreadable). */
export function runningStack(dataDir: string): RunningStack | null {
  try {
    return readDataDirLock(dataDir);
  } catch {
    return null;
  }
}

/** The service's URL as the running stack recorded it: its public URL, else its port on this machine. */
function stackUrl(stack: RunningStack): string | null {
  if (typeof stack.publicBaseUrl === "string" && /^https?:\/\//.test(stack.publicBaseUrl)) return stack.publicBaseUrl.replace(/\/+$/, "");
  return stack.ports.service > 0 ? `http://127.0.0.1:${stack.ports.service}` : null;
}

/** Reads the configuration with the CLI's data folder, URL and chain rules (above). */
export function locate(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): { config: Config; where: Workplace } {
  const set = (name: string) => env[name] !== undefined && env[name] !== "";
  const dataDirFrom = set("PRIZEDRAW_DATA_DIR") ? "PRIZEDRAW_DATA_DIR" : "default";
  let config = loadConfig(dataDirFrom === "default" ? { ...env, PRIZEDRAW_DATA_DIR: DEFAULT_DATA_DIR } : env, cwd);
  const stack = runningStack(config.dataDir);
  let urlFrom: Workplace["urlFrom"] = set("PUBLIC_BASE_URL") ? "PUBLIC_BASE_URL" : set("PORT") ? "PORT" : "default";
  const recorded = stack ? stackUrl(stack) : null;
  if (urlFrom === "default" && recorded) {
    config = { ...config, publicBaseUrl: recorded };
    urlFrom = "stack";
  }
  if (config.localChain && !set("CHAIN_PORT") && stack?.ports.chain && stack.host === hostname()) {
    config = { ...config, chainPort: stack.ports.chain, rpcUrl: `http://127.0.0.1:${stack.ports.chain}` };
  }
  const store = config.storeUrl ?? storePath(config.dataDir);
  const storeFrom = config.storeUrl === undefined ? "dataDir" : "STORE_URL";
  return {
    config,
    where: { dataDir: config.dataDir, dataDirFrom, store, storeFrom, storeExists: storeFrom === "STORE_URL" || existsSync(store), stack, publicBaseUrl: config.publicBaseUrl, urlFrom },
  };
}

/** Why there is no store to work on, and what to do: one message for the CLI to print. */
export function noStoreMessage(where: Workplace): string {
  if (where.storeFrom === "STORE_URL") {
    return `no store in ${storeLabel(where.store)} (STORE_URL): nothing was created. Start the service with this STORE_URL first (it creates the tables), or set STORE_URL to the database the running service uses`;
  }
  const folder =
    where.dataDirFrom === "default"
      ? `${where.dataDir} (the folder npm start uses when PRIZEDRAW_DATA_DIR is unset)`
      : `${where.dataDir} (PRIZEDRAW_DATA_DIR)`;
  return (
    `no store in ${folder}: nothing was created. Start the service first (npm start creates the store), ` +
    `or set PRIZEDRAW_DATA_DIR to the data folder the running service uses`
  );
}

/** The line a changing command prints first: which store it writes to, who runs on it, which URL links use. */
export function storeLine(where: Workplace): string {
  const from =
    where.storeFrom === "STORE_URL"
      ? "STORE_URL"
      : where.dataDirFrom === "default"
        ? "npm start's default folder; set PRIZEDRAW_DATA_DIR for another"
        : "PRIZEDRAW_DATA_DIR";
  const running = where.stack
    ? `used by the running ${where.stack.command} (${where.stack.host === hostname() ? "" : `host ${where.stack.host}, `}pid ${where.stack.pid}${where.stack.ports.service ? `, port ${where.stack.ports.service}` : ""})`
    : "no running stack uses it";
  return `prizedraw: store ${storeLabel(where.store)} (${from}), ${running}; links use ${where.publicBaseUrl}`;
}
