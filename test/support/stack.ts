// The whole stack for service tests: anvil, the deployed contracts, Ponder and the service as real processes
// on free ports in a temporary data folder, plus the prizedraw CLI run as a process against the same store.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { deployLocal, type DeployLocalOptions } from "../../api/src/chain/deploy.js";
import type { DeploymentRecord } from "../../api/src/chain/deployment.js";
import { LOCAL_CHAIN_FINALITY_ARGS } from "../../api/src/config.js";
import { storePath } from "../../api/src/store/index.js";
import { startPostgres, type Postgres } from "./postgres.js";
import { ANVIL_BIN, CLI_ARGS, REPO_ROOT, SERVICE_ARGS, freePort, inheritedEnv, jsonRpc, spawnProcess, startAnvil, startPonder, stop, until, type Proc } from "./processes.js";

export type Stack = {
  dataDir: string;
  baseUrl: string;
  rpcUrl: string;
  indexerUrl: string;
  deployment: DeploymentRecord;
  /** Where the service keeps its store: the PostgreSQL URL (STORE_URL) or its SQLite file in dataDir. */
  storeLocation: string;
  service: Proc;
  env: NodeJS.ProcessEnv;
  /** Runs `prizedraw ...` with `--json` and returns its parsed output (throws with its output on failure). */
  cli: (...args: string[]) => Promise<Record<string, unknown>>;
  /** Stops and starts the service process (same data). */
  restartService: (signal?: NodeJS.Signals) => Promise<void>;
  /** Stops anvil (it writes its state) / starts it again from its state file on the same port. */
  stopChain: () => Promise<void>;
  startChain: () => Promise<void>;
  /** Stops Ponder / starts it again on the same data and port. */
  stopIndexer: () => Promise<void>;
  startIndexer: () => Promise<void>;
  stop: () => Promise<void>;
};

/**
 * `databaseUrl`: Ponder writes its index to this Postgres database (schema stack_test) instead of PGlite.
 * `deploy`: test contracts instead of the local defaults (TestEntropyV2 for the randomness, a blacklisting token).
 * `beforeService`: runs after the deployment, before Ponder and the service start (e.g. the test provider registers).
 * `blockTimeSeconds`: anvil mines only every that many seconds (interval mining, no instant mining), like a real
 * network (Base: 2), so every transaction waits for the next block; as `CHAIN_BLOCK_TIME` does for `npm start`.
 * Unset: the usual test chain (each transaction mined at once, plus a block every second).
 *
 * The store: the SQLite file in the data folder, unless `extraEnv.STORE_URL` names one, or the environment says
 * `TEST_STORE=postgres` (vitest's "postgres" project): then a private PostgreSQL server of the stack's own, stopped
 * with it, so the same suites run on both engines.
 */
export async function startStack(
  options: {
    extraEnv?: Record<string, string>;
    databaseUrl?: string;
    deploy?: Pick<DeployLocalOptions, "randomness" | "token">;
    beforeService?: (deployment: DeploymentRecord, rpcUrl: string) => Promise<void>;
    blockTimeSeconds?: number;
  } = {},
): Promise<Stack> {
  const { blockTimeSeconds } = options;
  if (blockTimeSeconds !== undefined && !(Number.isInteger(blockTimeSeconds) && blockTimeSeconds >= 1 && blockTimeSeconds <= 60)) {
    throw new Error(`blockTimeSeconds must be whole seconds from 1 to 60, not ${blockTimeSeconds}`);
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), "prizedraw-stack-"));
  const [chainPort, indexerPort, port] = [await freePort(), await freePort(), await freePort()];
  const rpcUrl = `http://127.0.0.1:${chainPort}`;
  const indexerUrl = `http://127.0.0.1:${indexerPort}`;
  const baseUrl = `http://127.0.0.1:${port}`;
  const launchAnvil = (): Proc => {
    const state = path.join(dataDir, "anvil-state.json");
    const log = path.join(dataDir, "anvil.log");
    if (blockTimeSeconds === undefined) return startAnvil(chainPort, state, log);
    // startAnvil's flags with interval mining only (no --mixed-mining): a transaction waits for the next block.
    return spawnProcess(
      "anvil",
      ANVIL_BIN,
      ["--host", "127.0.0.1", "--port", String(chainPort), "--block-time", String(blockTimeSeconds), "--silent", "--state", state, "--state-interval", "1", ...LOCAL_CHAIN_FINALITY_ARGS],
      { env: process.env, cwd: REPO_ROOT, log },
    );
  };
  let anvil: Proc = launchAnvil();
  let ponder: Proc | undefined;
  let service: Proc | undefined;
  let postgres: Postgres | undefined;
  try {
    let storeUrl = options.extraEnv?.STORE_URL;
    if (storeUrl === undefined && process.env.TEST_STORE === "postgres") {
      postgres = await startPostgres();
      storeUrl = postgres.url;
    }
    const chainUp = () => until("anvil", async () => ((await jsonRpc<string>(rpcUrl, "eth_chainId")) ? true : undefined), 20_000, 100, anvil);
    await chainUp();
    const deployment = await deployLocal({ rpcUrl, dataDir, ...options.deploy });
    await options.beforeService?.(deployment, rpcUrl);
    const launchPonder = async () => {
      const proc = startPonder({ port: indexerPort, schema: "stack_test", env: { PRIZEDRAW_DATA_DIR: dataDir, ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}) }, log: path.join(dataDir, "ponder.log") });
      await until("ponder", async () => ((await fetch(`${indexerUrl}/ready`)).ok ? true : undefined), 120_000, 200, proc);
      return proc;
    };
    ponder = await launchPonder();

    const env: NodeJS.ProcessEnv = {
      // STORE_URL too: the stack chooses its store (above), never the runner's.
      ...inheritedEnv(["PRIZEDRAW_*", "RPC_URL", "DATABASE_URL", "STORE_URL", "PORT"]),
      PRIZEDRAW_ENV: "test",
      PRIZEDRAW_DATA_DIR: dataDir,
      PORT: String(port),
      CHAIN_PORT: String(chainPort),
      INDEXER_PORT: String(indexerPort),
      KEEPER_INTERVAL_SECONDS: "1",
      LOG_LEVEL: "info",
      // Suites and benchmarks drive one key from one address far harder than a partner does (five writers racing a
      // cutoff flat out, load generators on the public reads); test/api/rate-limits.test.ts turns the limits on.
      RATE_LIMITS: "off",
      ...options.extraEnv,
      ...(storeUrl === undefined ? {} : { STORE_URL: storeUrl }),
    };
    const startService = async () => {
      const proc = spawnProcess("service", process.execPath, [...SERVICE_ARGS], { env, cwd: REPO_ROOT, log: path.join(dataDir, "service.log") });
      await until("service", async () => ((await fetch(`${baseUrl}/health`)).ok ? true : undefined), 30_000, 100, proc);
      return proc;
    };
    service = await startService();

    const stack: Stack = {
      dataDir,
      baseUrl,
      rpcUrl,
      indexerUrl,
      deployment,
      storeLocation: storeUrl ?? storePath(dataDir),
      service,
      env,
      cli: async (...args) => {
        const proc = spawnProcess("cli", process.execPath, [...CLI_ARGS, ...args, "--json"], { env, cwd: REPO_ROOT, log: path.join(dataDir, "cli.log") });
        const code = await proc.exited;
        const out = proc.output().trim().split("\n").filter((l) => l.startsWith("{")).pop() ?? "";
        const parsed = out ? (JSON.parse(out) as Record<string, unknown>) : {};
        if (code !== 0) throw Object.assign(new Error(`prizedraw ${args.join(" ")} exited ${code}: ${proc.output()}`), { result: parsed, code });
        return parsed;
      },
      restartService: async (signal = "SIGTERM") => {
        if (signal === "SIGKILL") {
          process.kill(stack.service.pid, "SIGKILL");
          await stack.service.exited;
        } else {
          await stop(stack.service);
        }
        stack.service = await startService();
      },
      stopChain: async () => {
        await stop(anvil);
      },
      startChain: async () => {
        anvil = launchAnvil();
        await chainUp();
      },
      stopIndexer: async () => {
        await stop(ponder);
      },
      startIndexer: async () => {
        ponder = await launchPonder();
      },
      stop: async () => {
        await stop(stack.service);
        await stop(ponder);
        await stop(anvil);
        await postgres?.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
    return stack;
  } catch (error) {
    await stop(service);
    await stop(ponder);
    await stop(anvil);
    await postgres?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** A JSON request to the service (with any further `headers`); returns status, headers and parsed body. */
export async function api(
  stack: Pick<Stack, "baseUrl">,
  method: string,
  route: string,
  options: { key?: string; body?: unknown; rawBody?: string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined || options.rawBody !== undefined) headers["content-type"] = options.contentType ?? "application/json";
  const response = await fetch(`${stack.baseUrl}${route}`, {
    method,
    headers,
    body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { raw: text };
  }
  return { status: response.status, headers: response.headers, body };
}

/** A payout wallet for test campaigns (any non-zero address: the test stablecoin lands there). */
export const TEST_WALLET = "0x00000000000000000000000000000000000000a1";

/** An account with its owner and an API key, through the CLI. */
export async function createAccount(stack: Stack, email: string): Promise<{ accountId: string; key: string }> {
  const accountId = (await stack.cli("account", "create", "--email", email)).accountId as string;
  const key = (await stack.cli("key", "create", "--account", accountId)).key as string;
  return { accountId, key };
}

/** Downloads the verifier the service serves and runs it on `args` (a proof URL and flags). */
export async function runServedVerifier(stack: Stack, args: string[]): Promise<{ code: number; out: string }> {
  const file = path.join(stack.dataDir, "verify-draw.mjs");
  writeFileSync(file, await (await fetch(`${stack.baseUrl}/verify/verify-draw.mjs`)).text());
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("close", (code) => resolve({ code: code ?? 1, out }));
  });
}
