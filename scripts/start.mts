/**
 * `npm start`: the whole stack in one command (DESIGN.md section 3).
 *
 * 0. the data folder is locked for the stack's whole life (`<data>/stack.lock`): a second start on it ends with
 *    one line naming the holder, and a stack that is still stopping is waited for;
 * 1. anvil on CHAIN_PORT with its state in PRIZEDRAW_DATA_DIR (unless RPC_URL points at a real network); instant
 *    mining, or with CHAIN_BLOCK_TIME a block every that many seconds and no instant mining;
 * 2. the contracts, deployed on first run (the deployment record is reused afterwards); a chain whose genesis
 *    differs from the record was reset: the record and the indexer's data are rebuilt, not served stale;
 * 3. Ponder on INDEXER_PORT; an index it refuses or cannot open is rebuilt from the chain (the service's store is
 *    never touched for an index problem); 4. the service on PORT; on first run, the first account and its key.
 *
 * SIGINT (Ctrl-C), SIGTERM, SIGHUP or the parent process going away (npm killed) stop all of
 * them in reverse order, anvil last so it writes its state, then release the lock and print one "stopped" line
 * (exit 0). The children run in their own process groups, so a terminal's Ctrl-C reaches them only in this order.
 * Every start-up failure ends with one line saying what to fix.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync, writeFileSync, type WriteStream } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type pg from "pg";
import { ConfigError, LOCAL_CHAIN_FINALITY_ARGS, loadConfig, storeLabel, type Config } from "../api/src/config.js";
import { REPO_ROOT } from "../api/src/paths.js";
import { buildService } from "./build-service.mjs";
import { CONTRACT_VERSION, readDeployment, deploymentPath, writeDeployment, type DeploymentRecord } from "../api/src/chain/deployment.js";
import { DataDirInUseError, acquireDataDirLock, liveProcesses, processStartTicks, type DataDirLock } from "../api/src/store/dataDirLock.js";
// Loaded when needed (the deployer, the CLI and the store's modules take seconds to load on a busy machine, and a
// warm start needs none of them before it is ready): see deployLocal, runCli and openServiceStore below.
const deployLocal: typeof import("../api/src/chain/deploy.js").deployLocal = async (...args) => (await import("../api/src/chain/deploy.js")).deployLocal(...args);
const ANVIL_BIN = join(REPO_ROOT, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");
const PONDER_BIN = join(REPO_ROOT, "node_modules/ponder/dist/esm/bin/ponder.js");
/** The Postgres schema Ponder writes its tables to (with PGlite it only names the app). */
const PONDER_SCHEMA = process.env.PONDER_SCHEMA ?? "prizedraw";
/** The account `npm start` creates on a fresh data folder; the README's quick start uses it. */
const FIRST_ACCOUNT_EMAIL = "owner@localhost";
/** The quick start's campaign, and a payout wallet for it: anvil's well-known account 9 (test money only). */
const QUICK_START_SLUG = "summer-daily";
const QUICK_START_WALLET = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720";

/** A start-up failure with the one line to print. */
class StartError extends Error {}
/** Start-up work cut short because the stack is stopping (a signal arrived while it started). */
class Stopping extends Error {}
/** A wait ended early: a child's output showed a failure it would only give up on much later. */
class GiveUp extends Error {}

type Child = {
  name: string;
  process: ChildProcess;
  recentOutput: string[];
  expectedExit?: boolean;
  /** While set, output is kept here instead of printed (Ponder while it opens its data: see startIndexer). */
  held?: string[];
  /** Seconds to wait after SIGTERM before SIGKILL. */
  graceSeconds: number;
};
const children: Child[] = [];
let stopping = false;
let ready = false;
let lock: DataDirLock | undefined;
let loadedDataDir: string | undefined;

function say(line: string): void {
  console.log(`[start] ${line}`);
}

/** The process's own output must never end it: a reader that went away (EPIPE) is ignored. */
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});

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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `check` until it is true. Ends early when `exited` exits, or when `giveUp` returns a reason (a failure
 * recognised in a child's output before the child itself gives up).
 */
async function waitFor(what: string, seconds: number, check: () => Promise<boolean>, exited?: Child, giveUp?: () => string | undefined): Promise<void> {
  const deadline = Date.now() + seconds * 1_000;
  while (Date.now() < deadline) {
    if (stopping) throw new Stopping();
    const reason = giveUp?.();
    if (reason !== undefined) throw new GiveUp(reason);
    if (exited && !running(exited)) throw new StartError(`${exited.name} exited (${exited.process.signalCode ?? `code ${exited.process.exitCode}`}) before ${what}; see its output above`);
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    await sleep(200);
  }
  throw new StartError(`${what} did not happen within ${seconds} s`);
}

/** Ponder's own shutdown chatter, not worth a line of the user's screen. */
const QUIET_WHEN_STOPPING = /Received SIG(TERM|INT)|Started shutdown sequence|Finished shutdown sequence/;

/**
 * START_OUTPUT=all shows every line the children write (as before logs went to files); otherwise the terminal gets
 * this script's own lines, the service's warnings and errors, the test outbox's sign-in links and Ponder's warnings,
 * and every child's whole output goes to `<data>/logs/<child>.log`.
 */
const SHOW_ALL = process.env.START_OUTPUT === "all";
/** Lines kept from a child to print when it stops unexpectedly (its log file has them all). */
const LAST_LINES_ON_FAILURE = 20;

/** What the terminal shows of one line of a child's output, or null (the line is in the child's log file only). */
function terminalLine(name: string, line: string): string | null {
  if (SHOW_ALL) return line;
  if (name === "service") {
    let entry: { level?: number; msg?: string; alert?: string };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      return line; // not the logger's: a crash trace or a runtime warning, shown
    }
    if (typeof entry.msg === "string" && entry.msg.startsWith("mail to ")) return entry.msg;
    if ((entry.level ?? 0) < 40) return null;
    return `${(entry.level ?? 0) >= 50 ? "error" : "warning"}: ${entry.msg ?? ""}${entry.alert ? ` (alert ${entry.alert})` : ""}`;
  }
  if (name === "indexer") return /\b(WARN|ERROR|FATAL)\b/.test(line) ? line : null;
  return null; // anvil: every transaction and block
}

/** The log file of a child in the data folder, appended to across starts. */
function logFileOf(name: string): WriteStream | undefined {
  if (loadedDataDir === undefined) return undefined;
  mkdirSync(join(loadedDataDir, "logs"), { recursive: true });
  const stream = createWriteStream(join(loadedDataDir, "logs", `${name}.log`), { flags: "a" });
  stream.on("error", () => {}); // a full disk must not end the stack
  return stream;
}

function startChild(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, options: { cwd?: string; graceSeconds?: number; hold?: boolean } = {}): Child {
  if (stopping) throw new Stopping();
  // Its own process group: a terminal's Ctrl-C reaches this script (and npm), which stops the children in order.
  const child = spawn(command, args, { cwd: options.cwd ?? REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const entry: Child = { name, process: child, recentOutput: [], graceSeconds: options.graceSeconds ?? 10, ...(options.hold ? { held: [] } : {}) };
  const log = SHOW_ALL ? undefined : logFileOf(name);
  log?.write(`--- ${new Date().toISOString()} ${name} started (pid ${child.pid ?? "?"})\n`);
  child.on("exit", () => log?.end());
  const onData = (to: NodeJS.WriteStream) => (chunk: Buffer) => {
    log?.write(chunk);
    const lines = chunk.toString().split("\n").filter(Boolean);
    entry.recentOutput = [...entry.recentOutput, ...lines].slice(-50);
    if (entry.held) {
      entry.held.push(...lines);
      return;
    }
    const shown = (stopping ? lines.filter((l) => !QUIET_WHEN_STOPPING.test(l)) : lines).map((l) => terminalLine(name, l)).filter((l) => l !== null);
    if (shown.length > 0) to.write(shown.map((l) => `[${name}] ${l}`).join("\n") + "\n");
  };
  child.stdout?.on("data", onData(process.stdout));
  child.stderr?.on("data", onData(process.stderr));
  child.on("error", () => {}); // a failed spawn shows as an exit (code -2) below
  child.on("exit", (code, signal) => {
    if (!stopping && !entry.expectedExit) {
      if (entry.held) printHeld(entry);
      else if (!SHOW_ALL) {
        const last = entry.recentOutput.slice(-LAST_LINES_ON_FAILURE);
        if (last.length > 0) process.stderr.write(`[start] ${name}'s last lines (all of them: ${join(loadedDataDir ?? ".", "logs", `${name}.log`)}):\n${last.map((l) => `[${name}] ${l}`).join("\n")}\n`);
      }
      console.error(`[start] ${name} stopped unexpectedly (${signal ?? `code ${code}`}); stopping the stack`);
      void stopAll(1);
    }
  });
  children.push(entry);
  recordChildren();
  return entry;
}

/** Prints what a child said while its output was held. */
function printHeld(child: Child): void {
  const held = child.held ?? [];
  delete child.held;
  if (held.length > 0) process.stderr.write(held.map((l) => `[${child.name}] ${l}`).join("\n") + "\n");
}

function running(child: Child): boolean {
  return child.process.exitCode === null && child.process.signalCode === null;
}

/** The lock names the running children, so that a later start refuses while any of them still runs. */
function recordChildren(): void {
  lock?.update({
    children: children.filter((c) => running(c) && c.process.pid !== undefined).map((c) => ({ name: c.name, pid: c.process.pid as number, startTicks: processStartTicks(c.process.pid as number) })),
  });
}

async function stopChild(child: Child): Promise<void> {
  if (!running(child)) return;
  const exited = new Promise((r) => child.process.once("exit", r));
  child.process.kill("SIGTERM");
  if ((await Promise.race([exited, sleep(child.graceSeconds * 1_000).then(() => "timeout")])) === "timeout") {
    // Its whole process group: nothing it started outlives it.
    try {
      process.kill(-(child.process.pid as number), "SIGKILL");
    } catch {
      child.process.kill("SIGKILL");
    }
    await exited;
  }
}

/**
 * Stops every child, last started first (the service, then Ponder, then anvil, which writes its state on
 * SIGTERM), releases the data folder and exits. `why`: the signal or event that asked for it; without it this is
 * a failure, already explained by the line before.
 */
async function stopAll(exitCode: number, why?: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  lock?.update({ state: "stopping" });
  if (why !== undefined) say(`stopping (${why})`);
  for (;;) {
    const next = [...children].reverse().find(running);
    if (next === undefined) break;
    await stopChild(next);
  }
  lock?.release();
  if (why !== undefined || ready) {
    const chain = children.some((c) => c.name === "anvil") ? `; the chain's state is in ${join(loadedDataDir ?? ".", "anvil-state.json")}` : "";
    say(`stopped${chain}`);
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

/**
 * CHAIN_BLOCK_TIME: unset or empty, the local chain mines each transaction at once (plus an empty block every
 * second); 1 to 60, it mines only every that many seconds, like a real network (Base: 2), so a transaction waits
 * for the next block. Anything else ends start-up with one line.
 */
function chainBlockTime(): number | undefined {
  const raw = process.env.CHAIN_BLOCK_TIME?.trim() ?? "";
  if (raw === "") return undefined;
  const seconds = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(seconds >= 1 && seconds <= 60)) {
    throw new StartError(`CHAIN_BLOCK_TIME=${raw}: must be whole seconds from 1 to 60 (the local chain then mines only every that many seconds), or unset for instant mining`);
  }
  return seconds;
}

async function startChain(config: Config, blockTime: number | undefined): Promise<void> {
  if (!config.localChain) {
    if (blockTime !== undefined) say(`CHAIN_BLOCK_TIME=${blockTime} is ignored: RPC_URL points at a real network, which keeps its own block time`);
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
    ...LOCAL_CHAIN_FINALITY_ARGS,
    // Interval mining alone (no --mixed-mining): a transaction is mined only with the next block, as on Base.
    ...(blockTime === undefined ? ["--block-time", "1", "--mixed-mining"] : ["--block-time", String(blockTime)]),
    "--silent",
  ], process.env, { graceSeconds: 30 });
  await waitFor("the local chain answering", 60, async () => (await rpc<string>(config.rpcUrl, "eth_chainId")).startsWith("0x"), anvil);
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
  const { default: pgModule } = await import("pg");
  const client = new pgModule.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on("error", () => {}); // a dropped connection surfaces as the query's own error
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

async function checkDatabase(config: Config): Promise<void> {
  if (config.databaseUrl !== undefined) {
    try {
      await withDatabase(config.databaseUrl, (client) => client.query("select 1"));
    } catch (error) {
      throw new StartError(`cannot reach DATABASE_URL=${maskedDatabaseUrl(config.databaseUrl)} (${(error as Error).message}): check the URL and that Postgres is up, or unset it to use the embedded store`);
    }
  }
  // The service's own store, when it is in PostgreSQL: named by engine and host only (its URL holds a password).
  if (config.storeUrl !== undefined) {
    try {
      await withDatabase(config.storeUrl, (client) => client.query("select 1"));
    } catch (error) {
      throw new StartError(`cannot reach STORE_URL (${storeLabel(config.storeUrl)}: ${(error as Error).message}): check the URL and that Postgres is up, or unset it to use the SQLite file in the data folder`);
    }
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
 * does not have: it is moved aside, not deleted, and a fresh one starts. What does not depend on the chain
 * (accounts, their members and API keys) is carried over, so the partner's key keeps working; campaigns, drawings
 * and entries stay in the file set aside. A PostgreSQL store (STORE_URL) cannot be moved aside: start-up stops
 * before anything is redeployed, and the operator chooses.
 */
async function setStoreAside(config: Config): Promise<void> {
  if (config.storeUrl !== undefined) {
    throw new StartError(
      `the local chain's deployment is being rebuilt, and the service's store (STORE_URL, ${storeLabel(config.storeUrl)}) describes the old one: ` +
        "point STORE_URL at an empty database (or empty this one), or unset it to use a SQLite file in the data folder",
    );
  }
  const [{ storePath }, { openServiceStore }] = await Promise.all([import("../api/src/store/index.js"), import("../api/src/serviceStore.js")]);
  const path = storePath(config.dataDir);
  if (!existsSync(path)) return;
  const aside = `${path}.before-reset-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  for (const suffix of ["", "-wal", "-shm"]) if (existsSync(path + suffix)) renameSync(path + suffix, aside + suffix);
  let carried = "";
  const store = await openServiceStore(path);
  try {
    // SQLite's own tools (ATTACH, pragma_table_info), on the raw file: this copy is for the SQLite store only.
    const db = store.sqlite;
    if (db === null) throw new Error("setting the store aside needs the SQLite store");
    db.prepare("ATTACH DATABASE ? AS old").run(aside);
    const copy = db.transaction(() => {
      let accounts = 0;
      for (const table of ["accounts", "members", "api_keys"]) {
        const columns = (db.prepare(`SELECT name FROM pragma_table_info('${table}', 'old')`).pluck().all() as string[])
          .filter((c) => (db.prepare(`SELECT name FROM pragma_table_info('${table}', 'main')`).pluck().all() as string[]).includes(c))
          .map((c) => `"${c}"`)
          .join(", ");
        const copied = db.prepare(`INSERT INTO main.${table} (${columns}) SELECT ${columns} FROM old.${table}`).run().changes;
        if (table === "accounts") accounts = copied;
      }
      return accounts;
    });
    const accounts = copy.immediate();
    carried = accounts > 0 ? `; its ${accounts === 1 ? "account" : `${accounts} accounts`}, members and API keys are carried over (campaigns, drawings and entries stay there)` : "";
  } catch (error) {
    carried = `; its accounts could not be carried over (${(error as Error).message}): they stay there`;
  } finally {
    await store.close();
  }
  say(`the service's store described the old chain: moved to ${aside}${carried}`);
}

/**
 * The chain's identity: the hash of its genesis block, read as block 1's parent where there is a block 1. anvil
 * 1.7 mints a new block 0 each time it loads its state file and keeps both in the next dump, so a restarted
 * anvil may answer block 0 with a new hash although it is the same chain; block 1 still names the original.
 */
async function genesisOf(rpcUrl: string): Promise<string> {
  const first = await rpc<{ parentHash: string } | null>(rpcUrl, "eth_getBlockByNumber", ["0x1", false]);
  if (first !== null) return first.parentHash;
  return (await rpc<{ hash: string }>(rpcUrl, "eth_getBlockByNumber", ["0x0", false])).hash;
}

/**
 * anvil 1.7 may answer block 0 with a new hash after a state load, while block 1 still names the original (see
 * genesisOf). While the chain is shorter than its finality depth (30 blocks here), its finalized block is that new
 * block 0, and Ponder meets block 1's parent as a reorg beyond the finalized block and exits ("unrecoverable 'chain'
 * reorg beyond finalized block 0"), a rebuilt index too: seen on a second quick restart. Before Ponder starts, the
 * local chain is mined past its finality depth (one call: no indexer is watching yet), so the finalized block is a
 * later one, and the index is rebuilt from the chain (a few dozen blocks). Returns whether it had to.
 */
async function finalizePastReplacedGenesis(config: Config): Promise<boolean> {
  const block = (tag: string) => rpc<{ hash: string; number: string } | null>(config.rpcUrl, "eth_getBlockByNumber", [tag, false]);
  const [zero, finalized] = await Promise.all([block("0x0"), block("finalized")]);
  if (zero === null || finalized === null || Number(finalized.number) > 0 || zero.hash === (await genesisOf(config.rpcUrl))) return false;
  // An epoch at a time (LOCAL_CHAIN_FINALITY_ARGS: 15 slots; finalized is 2 epochs back), until finalized moves.
  for (let round = 0; Number((await block("finalized"))?.number ?? 0) === 0; round++) {
    if (round === 8) throw new StartError("the local chain has no finalized block past block 0 after 120 more blocks");
    await rpc(config.rpcUrl, "anvil_mine", ["0xf"]);
  }
  await wipeIndexerData(config);
  return true;
}

/** The deployment to run against: the record's when it still matches the chain, else a fresh one (local). */
async function ensureDeployment(config: Config): Promise<DeploymentRecord> {
  const record = readDeployment(config.dataDir);
  const genesis = await genesisOf(config.rpcUrl);
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
    await setStoreAside(config); // the indexer's data goes with the fresh deployment below
  } else if (!config.localChain) {
    throw new StartError(`no deployment record in ${config.dataDir}: run npm run deploy -- --network NAME first`);
  }
  if (!existsSync(join(REPO_ROOT, "artifacts/contracts/PrizeDraw.sol/PrizeDraw.json"))) {
    say("compiling the contracts");
    const compiled = spawnSync("npx", ["hardhat", "compile", "--quiet"], { cwd: REPO_ROOT, stdio: "inherit", env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: "true" } });
    if (compiled.status !== 0) throw new StartError("npx hardhat compile failed; see its output above");
  }
  await wipeIndexerData(config);
  let fresh = await deployLocal({ rpcUrl: config.rpcUrl, dataDir: config.dataDir });
  const deployedOn = await genesisOf(config.rpcUrl);
  if (fresh.genesisHash !== deployedOn) {
    fresh = { ...fresh, genesisHash: deployedOn as DeploymentRecord["genesisHash"] }; // see genesisOf
    writeDeployment(config.dataDir, fresh);
  }
  say(`deployed PrizeDraw at ${fresh.prizeDraw}, MockEntropy at ${fresh.entropy}, test stablecoin at ${fresh.token}`);
  return fresh;
}

/** A value for a copy-pasteable shell line. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

/** Lines by which Ponder refuses data it did not write for this app or this chain (it exits on them). */
const INDEX_MISMATCH = /different Ponder app|cannot move backwards/;
/**
 * Lines by which PGlite shows that its files are damaged: it aborts while opening them (after a crash mid-write,
 * or two processes writing one folder) and Ponder retries for about a minute, printing a stack trace each time.
 */
const INDEX_DAMAGED = /RuntimeError: Aborted\(\)|could not locate a valid checkpoint record|invalid checkpoint record|database files are incompatible with server/;

/**
 * Starts Ponder and waits until it serves. Its output is held meanwhile: an index that does not fit this chain
 * or indexer (Ponder exits) is wiped, a PGlite folder that cannot be opened (seen in the output at once) is moved
 * aside with Ponder's output beside it, and either is rebuilt from the local chain, with one line instead of
 * Ponder's traces. Against a real network the operator decides: Ponder's output is shown and start-up ends.
 */
async function startIndexer(config: Config, deployment: DeploymentRecord): Promise<Child> {
  const env = {
    ...process.env,
    PONDER_TELEMETRY_DISABLED: "true",
    NO_COLOR: "1",
    PRIZEDRAW_DATA_DIR: config.dataDir,
    PRIZEDRAW_RPC_URL: config.rpcUrl,
    PRIZEDRAW_CHAIN_ID: String(deployment.chainId),
    PRIZEDRAW_ADDRESS: deployment.prizeDraw,
    ...(deployment.vault === undefined ? {} : { PRIZEDRAW_VAULT_ADDRESS: deployment.vault }),
    PRIZEDRAW_START_BLOCK: String(deployment.deployBlock),
    // Ponder reads PORT itself and it would win over -p: give it its own.
    PORT: String(config.indexerPort),
  };
  const args = [PONDER_BIN, "--log-level", process.env.PONDER_LOG_LEVEL ?? "warn", "start", "--schema", PONDER_SCHEMA, "-H", "127.0.0.1", "-p", String(config.indexerPort)];
  const pglite = config.databaseUrl === undefined;
  const damaged = (child: Child) => (pglite ? child.held?.map((l) => INDEX_DAMAGED.exec(l)?.[0]).find((m) => m !== undefined) : undefined);
  for (let attempt = 1; ; attempt++) {
    const ponder = startChild("indexer", process.execPath, args, env, { cwd: join(REPO_ROOT, "indexer"), hold: true });
    ponder.expectedExit = config.localChain; // a local index can be rebuilt from the chain (below)
    try {
      await waitFor("the indexer becoming ready", 300, async () => (await fetch(`${config.indexerUrl}/ready`)).ok, ponder, () => damaged(ponder));
      printHeld(ponder);
      ponder.expectedExit = false;
      return ponder;
    } catch (error) {
      if (error instanceof Stopping) throw error;
      const damage = error instanceof GiveUp ? error.message : undefined;
      const mismatch = damage === undefined ? ponder.recentOutput.find((l) => INDEX_MISMATCH.test(l)) : undefined;
      if (!config.localChain || attempt > 1 || (damage === undefined && mismatch === undefined)) {
        printHeld(ponder);
        if (error instanceof GiveUp) throw new StartError(`the indexer could not open its data in ${join(config.dataDir, "ponder")}; see its output above`);
        throw error;
      }
      ponder.process.kill("SIGKILL"); // its data is being replaced: nothing of it to save
      await new Promise((r) => (running(ponder) ? ponder.process.once("exit", r) : r(null)));
      children.splice(children.indexOf(ponder), 1);
      recordChildren();
      if (damage !== undefined) {
        const aside = join(config.dataDir, `ponder.damaged-${new Date().toISOString().replace(/[:.]/g, "-")}`);
        renameSync(join(config.dataDir, "ponder"), aside);
        writeFileSync(`${aside}.log`, `${(ponder.held ?? []).join("\n")}\n`);
        say(`the indexer's data could not be opened (PGlite: ${damage}): moved to ${aside} (Ponder's output in ${aside}.log); rebuilding the index from the chain, the service's store is untouched`);
      } else {
        say(`the indexer's data does not fit this chain or this indexer (${(mismatch ?? "").trim()}): rebuilding it from the chain`);
        await wipeIndexerData(config);
      }
    }
  }
}

/** How to run the CLI against this stack's store (`npm run admin` finds `./.data` by itself). */
function cliCommand(config: Config): string {
  const prefix = config.dataDir === join(REPO_ROOT, ".data") ? "" : `PRIZEDRAW_DATA_DIR=${shellWord(config.dataDir)} `;
  return `${prefix}npm run admin --`;
}

/** Where the portal is and how to sign in to it (without SMTP_URL the link shows here and in the outbox). */
function portalLine(config: Config, email: string): string {
  const mail = config.smtpUrl ? "the link comes by mail" : `the link shows here ("mail to ...") and at ${config.publicBaseUrl}/portal/outbox`;
  return `portal    ${config.publicBaseUrl}/portal (sign in as ${email}; ${mail})`;
}

/**
 * The way in: on a fresh data folder the first account and a test API key (printed this once: only its hash is
 * stored) and the commands to create a campaign for it, read its drawings and open its page; on later starts the
 * account again, how to make a new key, and the pages of active campaigns.
 */
async function greet(config: Config): Promise<void> {
  const [{ storePath }, { openServiceStore }, { run: runCli }] = await Promise.all([import("../api/src/store/index.js"), import("../api/src/serviceStore.js"), import("../api/src/cli/prizedraw.js")]);
  const store = await openServiceStore(config.storeUrl ?? storePath(config.dataDir));
  const service = `http://127.0.0.1:${config.port}`;
  const admin = cliCommand(config);
  const show = (line: string) => console.log(`    ${line}`);
  try {
    if ((await store.accounts.count()) === 0) {
      const { accountId } = (await runCli(["account", "create", "--email", FIRST_ACCOUNT_EMAIL], store, config)) as { accountId: string };
      const { key } = (await runCli(["key", "create", "--account", accountId], store, config)) as { key: string };
      say(`first account ${accountId} (${FIRST_ACCOUNT_EMAIL}); its API key, shown this once (only its hash is stored):`);
      show(`export PRIZEDRAW_KEY=${key}`);
      say("next: a campaign for this account, its drawings through the partner API, and its public page:");
      show(`${admin} campaign create --account ${accountId} --slug ${QUICK_START_SLUG} --name "Summer Daily" --mode push --cadence daily --hour 20 --winners 3 --payout-wallet ${QUICK_START_WALLET}`);
      show(`${admin} campaign activate ${QUICK_START_SLUG}`);
      show(`curl -H "Authorization: Bearer $PRIZEDRAW_KEY" ${service}/api/v1/campaigns/${QUICK_START_SLUG}/drawings`);
      show(`${config.publicBaseUrl}/campaigns/${QUICK_START_SLUG}`);
      say("then post winners, move the test clock and check a proof: docs/partner-guide.md");
      say(portalLine(config, FIRST_ACCOUNT_EMAIL));
      return;
    }
    const owner = await store.conn.q().selectFrom("members").select(["account_id as accountId", "email"]).where("role", "=", "owner").orderBy("created_at").limit(1).executeTakeFirst();
    if (owner !== undefined) {
      say(`account ${owner.accountId} (${owner.email}); keys are stored only as hashes, so none is shown again; a new key for it:`);
      show(`${admin} key create --account ${owner.accountId}`);
      say(portalLine(config, owner.email));
    }
    const active = await store.conn.q().selectFrom("campaigns").select("slug").where("status", "=", "active").orderBy("created_at").limit(5).execute();
    for (const { slug } of active) say(`page      ${config.publicBaseUrl}/campaigns/${slug}`);
  } finally {
    await store.close();
  }
}

/**
 * Takes the data folder, or ends start-up with the one line naming who has it. A stack that is still stopping
 * (its anvil writing its state, say) is waited for, up to 60 s: stop-then-start in a hurry just works.
 */
async function takeDataDir(config: Config): Promise<DataDirLock> {
  const request = {
    dataDir: config.dataDir,
    command: process.env.npm_lifecycle_event === "start" ? "npm start" : "scripts/start.mts",
    ports: { service: config.port, indexer: config.indexerPort, chain: config.localChain ? config.chainPort : null },
    publicBaseUrl: config.publicBaseUrl,
  };
  const deadline = Date.now() + 60_000;
  let waiting = false;
  for (;;) {
    if (stopping) throw new Stopping();
    try {
      const taken = acquireDataDirLock(request);
      if (taken.tookOver) say(`the data folder's lock was left by a stack that did not stop (pid ${taken.tookOver.pid}, started ${taken.tookOver.startedAt}): taken over`);
      return taken;
    } catch (error) {
      if (!(error instanceof DataDirInUseError)) throw error;
      const alive = liveProcesses(error.holder);
      if (error.holder.state !== "stopping" || alive.length === 0 || Date.now() > deadline) throw new StartError(error.message);
      if (!waiting) say(`waiting for the stack that is stopping on ${config.dataDir} (pid ${error.holder.pid})`);
      waiting = true;
      await sleep(200);
    }
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const config = loadConfig();
  loadedDataDir = config.dataDir;
  const blockTime = chainBlockTime();
  mkdirSync(config.dataDir, { recursive: true });
  lock = await takeDataDir(config);
  await checkPorts(config);
  await checkDatabase(config);
  await startChain(config, blockTime);
  const deployment = await ensureDeployment(config);
  if (config.localChain && (await finalizePastReplacedGenesis(config))) {
    say("the local chain answers block 0 with a new hash and had no finalized block past it: mined past its finality depth, rebuilding the indexer's data");
  }
  await startIndexer(config, deployment);

  const { service: serviceEntry } = await buildService();
  const service = startChild("service", process.execPath, [serviceEntry], {
    ...process.env,
    PRIZEDRAW_DATA_DIR: config.dataDir,
  });
  await waitFor("the service answering /health", 30, async () => (await fetch(`http://127.0.0.1:${config.port}/health`)).ok, service);
  await waitFor("the service reporting ready", 60, async () => (await fetch(`http://127.0.0.1:${config.port}/ready`)).ok, service);

  ready = true;
  lock.update({ state: "running" });
  say(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s (${config.env} environment, data in ${config.dataDir}${config.storeUrl === undefined ? "" : `, store in ${storeLabel(config.storeUrl)}`})`);
  say(`service   http://127.0.0.1:${config.port}  (GET /health, GET /ready${config.publicBaseUrl === `http://127.0.0.1:${config.port}` ? "" : `; public links use ${config.publicBaseUrl}`})`);
  say(`indexer   ${config.indexerUrl}`);
  if (!SHOW_ALL) say(`logs      ${join(config.dataDir, "logs")} (service.log: every request and the keeper's steps; START_OUTPUT=all prints them here)`);
  say(`chain     ${rpcOrigin(config.rpcUrl)}  (chain id ${deployment.chainId}, PrizeDraw ${deployment.prizeDraw}${config.localChain && blockTime !== undefined ? `; a block every ${blockTime} s, CHAIN_BLOCK_TIME` : ""})`);
  await greet(config);
  say(`Ctrl-C (or kill ${process.pid}) stops everything`);
}

// SIGHUP: the terminal closed. Without a handler it would end this script at once and leave the children, in their
// own process groups, running.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void stopAll(0, signal));
// If npm is killed (SIGKILL) this script is left behind, reparented, with the stack running unseen: a start whose
// parent goes away stops the stack.
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid !== parentPid) void stopAll(0, `its parent process ${parentPid} went away`);
}, 500).unref();
process.on("uncaughtException", (error) => {
  if (stopping) return;
  console.error(`[start] failed: ${error.message}`);
  void stopAll(1);
});

void main().catch((error: unknown) => {
  if (error instanceof Stopping || stopping) return;
  const known = error instanceof StartError || error instanceof ConfigError || (error instanceof Error && "code" in error);
  console.error(`[start] ${known ? (error as Error).message : `failed: ${error instanceof Error ? error.message : String(error)}`}`);
  void stopAll(1);
});
