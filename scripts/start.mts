/**
 * `npm start`: the whole stack in one command (DESIGN.md section 3).
 *
 * 1. anvil on CHAIN_PORT with its state in PRIZEDRAW_DATA_DIR (unless RPC_URL points at a real network);
 * 2. the contracts, deployed on first run (the deployment record is reused afterwards); a chain whose genesis
 *    differs from the record was reset: the record and the indexer's data are rebuilt, not served stale;
 * 3. Ponder on INDEXER_PORT; 4. the service on PORT. Ctrl-C or SIGTERM stops all of them, anvil last so it
 *    writes its state. Every start-up failure ends with one line saying what to fix.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import pg from "pg";
import { ConfigError, loadConfig, type Config } from "../api/src/config.js";
import { REPO_ROOT } from "../api/src/chain/artifacts.js";
import { deployLocal } from "../api/src/chain/deploy.js";
import { CONTRACT_VERSION, readDeployment, deploymentPath, type DeploymentRecord } from "../api/src/chain/deployment.js";
import { run as runCli } from "../api/src/cli/prizedraw.js";
import { openStore, storePath } from "../api/src/store/index.js";

const ANVIL_BIN = join(REPO_ROOT, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");
const PONDER_BIN = join(REPO_ROOT, "node_modules/ponder/dist/esm/bin/ponder.js");
/** The Postgres schema Ponder writes its tables to (with PGlite it only names the app). */
const PONDER_SCHEMA = process.env.PONDER_SCHEMA ?? "prizedraw";

/** A start-up failure with the one line to print. */
class StartError extends Error {}

type Child = { name: string; process: ChildProcess; recentOutput: string[]; expectedExit?: boolean };
const children: Child[] = [];
let stopping = false;

function say(line: string): void {
  console.log(`[start] ${line}`);
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(3_000),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result as T;
}

async function waitFor(what: string, seconds: number, check: () => Promise<boolean>, exited?: Child): Promise<void> {
  const deadline = Date.now() + seconds * 1_000;
  while (Date.now() < deadline) {
    if (exited && exited.process.exitCode !== null) throw new StartError(`${exited.name} exited (code ${exited.process.exitCode}) before ${what}; see its output above`);
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new StartError(`${what} did not happen within ${seconds} s`);
}

function startChild(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, cwd = REPO_ROOT): Child {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const entry: Child = { name, process: child, recentOutput: [] };
  const prefix = (chunk: Buffer) => {
    const lines = chunk.toString().split("\n").filter(Boolean);
    entry.recentOutput = [...entry.recentOutput, ...lines].slice(-50);
    return lines.map((l) => `[${name}] ${l}`).join("\n") + "\n";
  };
  child.stdout?.on("data", (c: Buffer) => process.stdout.write(prefix(c)));
  child.stderr?.on("data", (c: Buffer) => process.stderr.write(prefix(c)));
  child.on("exit", (code, signal) => {
    if (!stopping && !entry.expectedExit) {
      console.error(`[start] ${name} stopped unexpectedly (${signal ?? `code ${code}`}); stopping the stack`);
      void stopAll(1);
    }
  });
  children.push(entry);
  return entry;
}

async function stopAll(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Reverse start order: the service, then Ponder, then anvil (which writes its state on SIGTERM).
  for (const child of [...children].reverse()) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) continue;
    const exited = new Promise((r) => child.process.once("exit", r));
    child.process.kill("SIGTERM");
    const timeout = new Promise((r) => setTimeout(r, 10_000, "timeout"));
    if ((await Promise.race([exited, timeout])) === "timeout") child.process.kill("SIGKILL");
  }
  process.exit(exitCode);
}

async function checkPorts(config: Config): Promise<void> {
  const ports: [number, string][] = [
    [config.port, "PORT"],
    [config.indexerPort, "INDEXER_PORT"],
  ];
  if (config.localChain) ports.unshift([config.chainPort, "CHAIN_PORT"]);
  for (const [port, variable] of ports) {
    if (!(await portFree(port))) throw new StartError(`port ${port} (${variable}) is in use: stop what is using it or set ${variable} to a free port`);
  }
}

async function startChain(config: Config): Promise<void> {
  if (!config.localChain) {
    try {
      await rpc(config.rpcUrl, "eth_chainId");
    } catch {
      throw new StartError(`cannot reach RPC_URL=${rpcOrigin(config.rpcUrl)}: check the URL and that the node is up`);
    }
    return;
  }
  if (!existsSync(ANVIL_BIN)) throw new StartError(`anvil is missing (${ANVIL_BIN}): run npm install`);
  const anvil = startChild("anvil", ANVIL_BIN, [
    "--host", "127.0.0.1",
    "--port", String(config.chainPort),
    "--state", join(config.dataDir, "anvil-state.json"),
    "--state-interval", "5",
    "--block-time", "1",
    "--mixed-mining",
    "--silent",
  ], process.env);
  await waitFor("the local chain answering", 20, async () => (await rpc<string>(config.rpcUrl, "eth_chainId")).startsWith("0x"), anvil);
}

/** An RPC URL for messages: a provider's URL often carries its API key in the path or query. */
function rpcOrigin(url: string): string {
  return new URL(url).origin;
}

/** DATABASE_URL for messages: the password (in the authority or a `password` parameter) never reaches a log. */
function maskedDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "(not a URL)";
  }
  if (parsed.password !== "") parsed.password = "***";
  if (parsed.searchParams.has("password")) parsed.searchParams.set("password", "***");
  return parsed.toString().replace("%2A%2A%2A", "***");
}

/** One statement against DATABASE_URL on a short-lived connection. */
async function withDatabase<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on("error", () => {}); // a dropped connection surfaces as the query's own error
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

async function checkDatabase(config: Config): Promise<void> {
  if (config.databaseUrl === undefined) return;
  try {
    await withDatabase(config.databaseUrl, (client) => client.query("select 1"));
  } catch (error) {
    throw new StartError(`cannot reach DATABASE_URL=${maskedDatabaseUrl(config.databaseUrl)} (${(error as Error).message}): check the URL and that Postgres is up, or unset it to use the embedded store`);
  }
}

/**
 * Forgets everything the indexer wrote, so that Ponder rebuilds it from the chain: the PGlite folder, or with
 * DATABASE_URL the app's schema (other schemas in the database are left alone). The local chain runs with
 * Ponder's RPC cache off (indexer/ponder.config.ts), so no cached block of the old chain survives either.
 */
async function wipeIndexerData(config: Config): Promise<void> {
  rmSync(join(config.dataDir, "ponder"), { recursive: true, force: true });
  rmSync(join(REPO_ROOT, "indexer", ".ponder"), { recursive: true, force: true });
  if (config.databaseUrl !== undefined) {
    await withDatabase(config.databaseUrl, (client) => client.query(`drop schema if exists ${client.escapeIdentifier(PONDER_SCHEMA)} cascade`));
  }
}

/**
 * The service's store describes drawings on the old chain (numbers, commitments, payouts) that the new chain
 * does not have: it is moved aside, not deleted, and a fresh one starts.
 */
function setStoreAside(config: Config): void {
  const path = storePath(config.dataDir);
  if (!existsSync(path)) return;
  const aside = `${path}.before-reset-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  for (const suffix of ["", "-wal", "-shm"]) if (existsSync(path + suffix)) renameSync(path + suffix, aside + suffix);
  say(`the service's store described the old chain: moved to ${aside}`);
}

/** The deployment to run against: the record's when it still matches the chain, else a fresh one (local). */
async function ensureDeployment(config: Config): Promise<DeploymentRecord> {
  const record = readDeployment(config.dataDir);
  const genesis = (await rpc<{ hash: string }>(config.rpcUrl, "eth_getBlockByNumber", ["0x0", false])).hash;
  if (record) {
    const code = await rpc<string>(config.rpcUrl, "eth_getCode", [record.prizeDraw, "latest"]);
    const current = record.contractVersion === CONTRACT_VERSION;
    if (record.genesisHash === genesis && code !== "0x" && current) {
      say(`reusing the deployment at ${record.prizeDraw} (block ${record.deployBlock})`);
      return record;
    }
    if (!config.localChain) {
      throw new StartError(
        !current && record.genesisHash === genesis && code !== "0x"
          ? `${deploymentPath(config.dataDir)} records PrizeDraw version ${record.contractVersion}; this service needs version ${CONTRACT_VERSION}: deploy it with npm run deploy into a new PRIZEDRAW_DATA_DIR`
          : record.genesisHash !== genesis
          ? `RPC_URL is a different chain than ${deploymentPath(config.dataDir)} records (genesis differs): fix RPC_URL or PRIZEDRAW_DATA_DIR`
          : `no contract at ${record.prizeDraw} on RPC_URL: fix RPC_URL or redeploy with npm run deploy`,
      );
    }
    say(
      !current && record.genesisHash === genesis && code !== "0x"
        ? `the local contract is PrizeDraw version ${record.contractVersion} and this code needs version ${CONTRACT_VERSION}: redeploying and rebuilding the indexer's data`
        : record.genesisHash !== genesis
        ? `the chain was reset (genesis ${genesis.slice(0, 10)}... differs from the record's ${record.genesisHash.slice(0, 10)}...): redeploying and rebuilding the indexer's data`
        : `no contract at the recorded address ${record.prizeDraw}: redeploying and rebuilding the indexer's data`,
    );
    setStoreAside(config); // the indexer's data goes with the fresh deployment below
  } else if (!config.localChain) {
    throw new StartError(`no deployment record in ${config.dataDir}: run npm run deploy -- --network NAME first`);
  }
  if (!existsSync(join(REPO_ROOT, "artifacts/contracts/PrizeDraw.sol/PrizeDraw.json"))) {
    say("compiling the contracts");
    const compiled = spawnSync("npx", ["hardhat", "compile", "--quiet"], { cwd: REPO_ROOT, stdio: "inherit", env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: "true" } });
    if (compiled.status !== 0) throw new StartError("npx hardhat compile failed; see its output above");
  }
  await wipeIndexerData(config);
  const fresh = await deployLocal({ rpcUrl: config.rpcUrl, dataDir: config.dataDir });
  say(`deployed PrizeDraw at ${fresh.prizeDraw}, MockEntropy at ${fresh.entropy}, test stablecoin at ${fresh.token}`);
  return fresh;
}

/** First run: an account and a test API key, printed once (only its hash is stored). */
function createFirstAccount(config: Config): void {
  const store = openStore(storePath(config.dataDir));
  try {
    if (store.accounts.count() > 0) return;
    const { accountId } = runCli(["account", "create", "--email", "owner@localhost"], store, config) as { accountId: string };
    const { key } = runCli(["key", "create", "--account", accountId], store, config) as { key: string };
    say(`first account ${accountId} (owner@localhost); its API key, shown once: ${key}`);
  } finally {
    store.db.close();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const config = loadConfig();
  mkdirSync(config.dataDir, { recursive: true });
  await checkPorts(config);
  await checkDatabase(config);
  await startChain(config);
  const deployment = await ensureDeployment(config);

  const indexerEnv = {
    ...process.env,
    PONDER_TELEMETRY_DISABLED: "true",
    NO_COLOR: "1",
    PRIZEDRAW_DATA_DIR: config.dataDir,
    PRIZEDRAW_RPC_URL: config.rpcUrl,
    PRIZEDRAW_CHAIN_ID: String(deployment.chainId),
    PRIZEDRAW_ADDRESS: deployment.prizeDraw,
    PRIZEDRAW_START_BLOCK: String(deployment.deployBlock),
    // Ponder reads PORT itself and it would win over -p: give it its own.
    PORT: String(config.indexerPort),
  };
  const ponderArgs = [PONDER_BIN, "--log-level", process.env.PONDER_LOG_LEVEL ?? "warn", "start", "--schema", PONDER_SCHEMA, "-H", "127.0.0.1", "-p", String(config.indexerPort)];
  const startPonder = () => startChild("indexer", process.execPath, ponderArgs, indexerEnv, join(REPO_ROOT, "indexer"));
  let ponder = startPonder();
  ponder.expectedExit = config.localChain; // a local index can be rebuilt from the chain (below)
  try {
    await waitFor("the indexer becoming ready", 120, async () => (await fetch(`${config.indexerUrl}/ready`)).ok, ponder);
  } catch (error) {
    // Ponder refuses data written by a different build of the indexer (after an upgrade), and data ahead of
    // a chain that lost its last blocks (anvil killed between state dumps). On the local chain the index is
    // rebuilt from the chain; against a real network the operator decides.
    const reason = ponder.recentOutput.find((l) => l.includes("different Ponder app") || l.includes("cannot move backwards"));
    if (!config.localChain || reason === undefined) throw error;
    say(`the indexer's data does not fit this chain or this indexer (${reason.trim()}): rebuilding it from the chain`);
    children.splice(children.indexOf(ponder), 1);
    await wipeIndexerData(config);
    ponder = startPonder();
    await waitFor("the indexer becoming ready", 120, async () => (await fetch(`${config.indexerUrl}/ready`)).ok, ponder);
  }
  ponder.expectedExit = false;

  const service = startChild("service", process.execPath, ["--import", "tsx", join(REPO_ROOT, "api/src/main.ts")], {
    ...process.env,
    PRIZEDRAW_DATA_DIR: config.dataDir,
  });
  await waitFor("the service answering /health", 30, async () => (await fetch(`http://127.0.0.1:${config.port}/health`)).ok, service);
  await waitFor("the service reporting ready", 60, async () => (await fetch(`http://127.0.0.1:${config.port}/ready`)).ok, service);

  say(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s (${config.env} environment, data in ${config.dataDir})`);
  createFirstAccount(config);
  say(`service   ${config.publicBaseUrl}  (GET /health, GET /ready)`);
  say(`indexer   ${config.indexerUrl}`);
  say(`chain     ${rpcOrigin(config.rpcUrl)}  (chain id ${deployment.chainId}, PrizeDraw ${deployment.prizeDraw})`);
  say("Ctrl-C stops everything");
}

process.on("SIGINT", () => void stopAll(0));
process.on("SIGTERM", () => void stopAll(0));

main().catch((error: unknown) => {
  const known = error instanceof StartError || error instanceof ConfigError || (error instanceof Error && "code" in error);
  console.error(`[start] ${known ? (error as Error).message : `failed: ${error instanceof Error ? error.message : String(error)}`}`);
  void stopAll(1);
});
