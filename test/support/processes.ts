// Child processes for the tests that run real parts (anvil, Ponder, the stack): each spawned as the innermost
// process (the binary itself, never through npx), so the PID held here is the one to signal.

import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LOCAL_CHAIN_FINALITY_ARGS } from "../../api/src/config.js";
import { CLI_ENTRY, SERVICE_ENTRY } from "../../scripts/build-service.mjs";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const ANVIL_BIN = path.join(REPO_ROOT, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");
export const PONDER_BIN = path.join(REPO_ROOT, "node_modules/ponder/dist/esm/bin/ponder.js");
export const INDEXER_ROOT = path.join(REPO_ROOT, "indexer");

/**
 * Node's arguments to run the service (`node ...SERVICE_ARGS`) and the prizedraw CLI (`node ...CLI_ARGS, ...args`):
 * the bundles scripts/build-service.mjs makes from api/src, as `npm start` runs them (vitest's global setup,
 * test/support/globalSetup.ts, builds them once per run).
 */
export const SERVICE_ARGS: readonly string[] = [SERVICE_ENTRY];
export const CLI_ARGS: readonly string[] = [CLI_ENTRY];

/** A free TCP port on 127.0.0.1: bound to port 0, then released. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") return reject(new Error("no port"));
      server.close(() => resolve(address.port));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export type Proc = {
  name: string;
  child: ChildProcess;
  pid: number;
  log: string;
  exited: Promise<number | null>;
  output: () => string;
};

/** Spawns `command`, appending its output to `log` and keeping its last 20,000 characters for assertions. */
export function spawnProcess(
  name: string,
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; log: string; uid?: number; gid?: number },
): Proc {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, uid: options.uid, gid: options.gid, stdio: ["ignore", "pipe", "pipe"] });
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  const stream: WriteStream = createWriteStream(options.log, { flags: "a" });
  let tail = "";
  const onData = (d: Buffer) => {
    stream.write(d);
    tail = (tail + d.toString("utf8")).slice(-20_000);
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code, signal) => {
      stream.end();
      resolve(code ?? (signal ? -1 : null));
    });
  });
  return { name, child, pid: child.pid, log: options.log, exited, output: () => tail };
}

/** Stops a process by its PID: SIGTERM, then SIGKILL after `graceMs`. Returns its exit code. */
export async function stop(proc: Proc | undefined, graceMs = 10_000): Promise<number | null | "killed"> {
  if (proc === undefined || proc.child.exitCode !== null || proc.child.signalCode !== null) return null;
  try {
    process.kill(proc.pid, "SIGTERM");
  } catch {
    // It exited between the check and the signal; its exit is still awaited below.
  }
  const result = await Promise.race([proc.exited, sleep(graceMs).then(() => "timeout" as const)]);
  if (result !== "timeout") return result;
  try {
    process.kill(proc.pid, "SIGKILL");
  } catch {
    // already gone
  }
  await proc.exited;
  return "killed";
}

export function startAnvil(port: number, stateFile: string, log: string, extraArgs: string[] = []): Proc {
  return spawnProcess(
    "anvil",
    ANVIL_BIN,
    ["--host", "127.0.0.1", "--port", String(port), "--block-time", "1", "--mixed-mining", "--silent", "--state", stateFile, "--state-interval", "1", ...LOCAL_CHAIN_FINALITY_ARGS, ...extraArgs],
    { env: process.env, cwd: REPO_ROOT, log },
  );
}

/**
 * This process's environment for a child: without the test runner's variables (VITEST*, NODE_OPTIONS) and
 * without those in `drop`, each a name or a prefix ending in "*".
 */
export function inheritedEnv(drop: readonly string[]): NodeJS.ProcessEnv {
  const dropped = (key: string) => ["VITEST*", "NODE_OPTIONS", ...drop].some((d) => (d.endsWith("*") ? key.startsWith(d.slice(0, -1)) : key === d));
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!dropped(key)) env[key] = value;
  return env;
}

/** One JSON-RPC call (anvil's own methods included); throws on an error answer. */
export async function jsonRpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/**
 * Mines `count` blocks one at a time (evm_mine): under Ponder never `anvil_mine` with a count above 1, whose
 * blocks Ponder's realtime sync can skip. Used to move blocks past the local chain's finality depth.
 */
export async function mineBlocks(url: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await jsonRpc(url, "evm_mine");
}

/** The environment Ponder gets: the test's, without the database and service variables, plus `extra`. */
function ponderEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...inheritedEnv(["NODE_ENV", "DATABASE_*", "PRIZEDRAW_*"]), PONDER_TELEMETRY_DISABLED: "true", NO_COLOR: "1", ...extra };
}

export function startPonder(options: { port: number; schema: string; env: Record<string, string>; log: string }): Proc {
  return spawnProcess(
    "ponder",
    process.execPath,
    [PONDER_BIN, "start", "--schema", options.schema, "-H", "127.0.0.1", "-p", String(options.port)],
    { env: ponderEnv(options.env), cwd: INDEXER_ROOT, log: options.log },
  );
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function until<T>(label: string, check: () => Promise<T | undefined>, timeoutMs: number, everyMs = 10, proc?: Proc): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    if (proc !== undefined && (proc.child.exitCode !== null || proc.child.signalCode !== null)) {
      throw new Error(`${proc.name} exited while waiting for ${label}:\n${proc.output()}`);
    }
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (performance.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${label}${lastError ? `: ${String(lastError)}` : ""}`);
    }
    await sleep(everyMs);
  }
}
