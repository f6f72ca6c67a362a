// The stack's life as `npm start` lives it: the data folder lock (a second start on the same folder refused with
// one line naming the holder, the first stack unharmed; a stale lock taken over, one left by processes that still
// run refused), stopping by SIGTERM and by SIGINT sent to the npm process (everything stopped, ports free, anvil's
// state written, one "stopped" line, exit 0) and a damaged Ponder index rebuilt from the chain without traces,
// the service's store untouched; a start waits for a stack that is stopping. Everything runs on free ports in temporary folders; only processes started here
// are signalled, by PID.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataDirInUseError, acquireDataDirLock, lockPath, processStartTicks, readDataDirLock, type LockHolder } from "../../api/src/store/dataDirLock.js";
import { REPO_ROOT, freePort, inheritedEnv, jsonRpc, sleep, spawnProcess, stop, until, type Proc } from "../support/processes.js";

type Ports = { PORT: string; CHAIN_PORT: string; INDEXER_PORT: string };

const dataDir = mkdtempSync(path.join(tmpdir(), "prizedraw-lifecycle-"));
const started: Proc[] = [];

/** `npm start` itself (the npm process, as a user or a process supervisor runs it) on this test's folder. */
function npmStart(ports: Ports, name = "npm start"): Proc {
  const proc = spawnProcess(name, "npm", ["start"], {
    env: { ...inheritedEnv(["PRIZEDRAW_*", "RPC_URL", "DATABASE_URL", "npm_*"]), ...ports, PRIZEDRAW_DATA_DIR: dataDir, PONDER_SCHEMA: "lifecycle_test" },
    cwd: REPO_ROOT,
    log: path.join(dataDir, `${name.replace(/\W+/g, "-")}.log`),
  });
  started.push(proc);
  return proc;
}

async function ready(proc: Proc): Promise<void> {
  await until("the stack's ready line", async () => (/\[start\] Ctrl-C .* stops everything/.test(proc.output()) ? true : undefined), 180_000, 100, proc);
}

/** The lines the script printed: npm's own banner ("> prize-draw-service@... start", "> exec node ...") left out. */
function scriptLines(proc: Proc): string[] {
  return proc.output().split("\n").filter((l) => l.trim() !== "" && !l.startsWith("> "));
}

function lockHolder(): LockHolder {
  return JSON.parse(readFileSync(lockPath(dataDir), "utf8")) as LockHolder;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

async function status(url: string, key?: string): Promise<number> {
  return (await fetch(url, key ? { headers: { authorization: `Bearer ${key}` } } : {})).status;
}

/**
 * Signals the npm process and checks the whole stack went: exit 0, one "stopped" line, every child gone, every
 * port free, the lock removed, and anvil's state file holding at least the head the chain had just before.
 */
async function signalAndCheckStopped(proc: Proc, signal: NodeJS.Signals, ports: Ports): Promise<void> {
  const holder = lockHolder();
  const pids = [holder.pid, ...holder.children.map((c) => c.pid)];
  expect(holder.children.map((c) => c.name)).toEqual(["anvil", "indexer", "service"]);
  const head = Number.parseInt(await jsonRpc<string>(`http://127.0.0.1:${ports.CHAIN_PORT}`, "eth_blockNumber"), 16);
  process.kill(proc.pid, signal);
  const code = await Promise.race([proc.exited, sleep(60_000).then(() => "timeout" as const)]);
  expect(code).toBe(0);
  const lines = scriptLines(proc);
  expect(lines.filter((l) => /^\[start\] stopped/.test(l))).toHaveLength(1);
  expect(lines.at(-1)).toMatch(/^\[start\] stopped/);
  expect(lines).toContain(`[start] stopping (${signal})`);
  for (const pid of pids) expect(alive(pid), `pid ${pid} still runs`).toBe(false);
  for (const port of Object.values(ports)) expect(await canListen(Number(port)), `port ${port} still taken`).toBe(true);
  expect(existsSync(lockPath(dataDir))).toBe(false);
  const state = JSON.parse(readFileSync(path.join(dataDir, "anvil-state.json"), "utf8")) as { best_block_number: string | number };
  expect(Number(state.best_block_number)).toBeGreaterThanOrEqual(head);
}

afterAll(async () => {
  for (const proc of started.reverse()) await stop(proc, 30_000);
  rmSync(dataDir, { recursive: true, force: true });
});

// Each test starts the whole stack; on a busy shared machine one start can take minutes.
describe("npm start on one data folder", { timeout: 400_000 }, () => {
  let ports: Ports;
  let key: string;

  beforeAll(async () => {
    ports = { PORT: String(await freePort()), CHAIN_PORT: String(await freePort()), INDEXER_PORT: String(await freePort()) };
  });

  it("refuses a second stack on the folder with one line naming the holder, leaves the first unharmed, and stops on SIGTERM to npm", async () => {
    const first = npmStart(ports);
    await ready(first);
    key = /export PRIZEDRAW_KEY=(pd_test_\S+)/.exec(first.output())?.[1] ?? "";
    expect(key).not.toBe("");
    const holder = lockHolder();
    expect(holder).toMatchObject({ command: "npm start", host: hostname(), state: "running", ports: { service: Number(ports.PORT) } });
    const deployment = readFileSync(path.join(dataDir, "deployment.json"), "utf8");

    // Other ports, same folder: refused before anything starts.
    const otherPorts = { PORT: String(await freePort()), CHAIN_PORT: String(await freePort()), INDEXER_PORT: String(await freePort()) };
    const second = npmStart(otherPorts, "second npm start");
    expect(await second.exited).toBe(1);
    expect(scriptLines(second)).toEqual([
      `[start] data folder ${dataDir} is in use by npm start (pid ${holder.pid}, started ${holder.startedAt}, port ${ports.PORT}); stop it first (Ctrl-C in its terminal, or kill ${holder.pid})`,
    ]);
    for (const port of Object.values(otherPorts)) expect(await canListen(Number(port))).toBe(true);

    // The first stack is untouched: same lock, same deployment, ready, its key still works.
    expect(lockHolder()).toEqual(holder);
    expect(readFileSync(path.join(dataDir, "deployment.json"), "utf8")).toBe(deployment);
    expect(await status(`http://127.0.0.1:${ports.PORT}/ready`)).toBe(200);
    expect(await status(`http://127.0.0.1:${ports.PORT}/api/v1/campaigns/none`, key)).toBe(404);
    expect(readDataDirLock(dataDir)?.pid).toBe(holder.pid);

    await signalAndCheckStopped(first, "SIGTERM", ports);
  });

  it("rebuilds a Ponder index that cannot be opened without printing traces, keeps the store, and stops on SIGINT to npm", async () => {
    expect(key).toBeDefined();
    // A PGlite folder whose write-ahead log was cut off (as a crash mid-write or a second writer leaves it).
    const wal = path.join(dataDir, "ponder", "pg_wal");
    for (const file of readdirSync(wal)) if (statSync(path.join(wal, file)).isFile()) truncateSync(path.join(wal, file), 0);
    const storeFile = statSync(path.join(dataDir, "prizedraw.sqlite")).ino;

    const proc = npmStart(ports, "npm start after damage");
    await ready(proc);
    const output = proc.output();
    expect(output).toMatch(/\[start\] the indexer's data could not be opened \(PGlite: RuntimeError: Aborted\(\)\): moved to .*ponder\.damaged-.* rebuilding the index from the chain, the service's store is untouched/);
    expect(output).not.toMatch(/\n\s+at /);
    expect(output.split("RuntimeError")).toHaveLength(2); // only in the one line
    expect(output).not.toContain("shown this once");
    expect(output).toContain("reusing the deployment");
    const aside = readdirSync(dataDir).filter((f) => f.startsWith("ponder.damaged-"));
    expect(aside.sort()).toEqual([expect.stringMatching(/^ponder\.damaged-[^.]+$/), expect.stringMatching(/^ponder\.damaged-.*\.log$/)]);
    expect(readdirSync(dataDir).filter((f) => f.includes("before-reset"))).toEqual([]);

    // The store was never set aside: the same file, the first start's key still works.
    expect(statSync(path.join(dataDir, "prizedraw.sqlite")).ino).toBe(storeFile);
    expect(await status(`http://127.0.0.1:${ports.PORT}/api/v1/campaigns/none`, key)).toBe(404);
    expect(await status(`http://127.0.0.1:${ports.PORT}/ready`)).toBe(200);

    await signalAndCheckStopped(proc, "SIGINT", ports);
  });
});

describe("the data folder lock", { timeout: 120_000 }, () => {
  const folder = mkdtempSync(path.join(tmpdir(), "prizedraw-lock-"));
  const request = { dataDir: folder, command: "npm start", ports: { service: 1, indexer: 2, chain: 3 }, publicBaseUrl: "http://127.0.0.1:1" };
  const staleHolder = (pid: number, children: LockHolder["children"] = []): LockHolder => ({
    ...request, pid, startTicks: null, host: hostname(), bootId: null, startedAt: "2026-01-01T00:00:00.000Z", state: "running", children,
  });

  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("takes over a lock whose stack is gone, and refuses one whose children still run", async () => {
    // A pid that is surely gone: a process started and waited for here.
    const gone = spawnProcess("gone", process.execPath, ["-e", ""], { env: process.env, cwd: folder, log: path.join(folder, "gone.log") });
    await gone.exited;
    writeFileSync(lockPath(folder), JSON.stringify(staleHolder(gone.pid)));
    const taken = acquireDataDirLock(request);
    expect(taken.tookOver?.pid).toBe(gone.pid);
    expect(readDataDirLock(folder)?.pid).toBe(process.pid);
    expect(() => acquireDataDirLock(request)).toThrow(DataDirInUseError);
    taken.release();
    expect(existsSync(lockPath(folder))).toBe(false);

    // The holder died (SIGKILL) but an anvil it started still runs: the folder is still in use.
    const left = spawnProcess("left", process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { env: process.env, cwd: folder, log: path.join(folder, "left.log") });
    started.push(left);
    writeFileSync(lockPath(folder), JSON.stringify(staleHolder(gone.pid, [{ name: "anvil", pid: left.pid, startTicks: processStartTicks(left.pid) }])));
    expect(() => acquireDataDirLock(request)).toThrow(
      `data folder ${folder} is still used by processes a stopped npm start (pid ${gone.pid}, started 2026-01-01T00:00:00.000Z) left running: anvil pid ${left.pid}; stop them first (kill ${left.pid})`,
    );
    // A recorded start time that differs is another process that got the pid since: not the recorded one.
    writeFileSync(lockPath(folder), JSON.stringify(staleHolder(gone.pid, [{ name: "anvil", pid: left.pid, startTicks: "1" }])));
    acquireDataDirLock(request).release();
    await stop(left);
  });

  it("makes a start wait for a stack that is stopping, then name it if it does not go", async () => {
    const holder = spawnProcess("holder", process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { env: process.env, cwd: folder, log: path.join(folder, "holder.log") });
    started.push(holder);
    const lock: LockHolder = { ...staleHolder(holder.pid), startTicks: processStartTicks(holder.pid), startedAt: new Date().toISOString(), state: "stopping" };
    writeFileSync(lockPath(folder), JSON.stringify(lock));
    const ports = { PORT: String(await freePort()), CHAIN_PORT: String(await freePort()), INDEXER_PORT: String(await freePort()) };
    const start = spawnProcess("start", process.execPath, ["--import", "tsx", path.join(REPO_ROOT, "scripts/start.mts")], {
      env: { ...inheritedEnv(["PRIZEDRAW_*", "RPC_URL", "DATABASE_URL", "npm_*"]), ...ports, PRIZEDRAW_DATA_DIR: folder },
      cwd: REPO_ROOT,
      log: path.join(folder, "start.log"),
    });
    started.push(start);
    await until("the waiting line", async () => (start.output().includes("[start] waiting for the stack that is stopping") ? true : undefined), 60_000, 100, start);
    // The holder says it runs again (it will not stop): the start gives way with the usual line.
    writeFileSync(lockPath(folder), JSON.stringify({ ...lock, state: "running" }));
    expect(await start.exited).toBe(1);
    expect(start.output().trim().split("\n")).toEqual([
      `[start] waiting for the stack that is stopping on ${folder} (pid ${holder.pid})`,
      `[start] data folder ${folder} is in use by npm start (pid ${holder.pid}, started ${lock.startedAt}, port 1); stop it first (Ctrl-C in its terminal, or kill ${holder.pid})`,
    ]);
    expect(JSON.parse(readFileSync(lockPath(folder), "utf8"))).toEqual({ ...lock, state: "running" });
    await stop(holder);
    rmSync(lockPath(folder));
  });

  it("lets exactly one of several starts racing for a stale lock take the folder", async () => {
    const gone = spawnProcess("gone", process.execPath, ["-e", ""], { env: process.env, cwd: folder, log: path.join(folder, "gone.log") });
    await gone.exited;
    writeFileSync(lockPath(folder), JSON.stringify(staleHolder(gone.pid)));
    const script = `
      import { acquireDataDirLock } from ${JSON.stringify(path.join(REPO_ROOT, "api/src/store/dataDirLock.ts"))};
      const at = Number(process.argv[1]);
      while (Date.now() < at) {}
      try { acquireDataDirLock(${JSON.stringify(request)}); console.log("took"); setTimeout(() => {}, 20000); }
      catch (e) { console.log(e.name); }`;
    const at = Date.now() + 10_000; // every racer loaded (tsx takes seconds on a busy machine), then all at once
    const racers = Array.from({ length: 4 }, (_, i) =>
      spawnProcess(`racer${i}`, process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, String(at)], { env: inheritedEnv([]), cwd: REPO_ROOT, log: path.join(folder, `racer${i}.log`) }),
    );
    started.push(...racers);
    const results = await Promise.all(racers.map((r) => until(`${r.name}'s result`, async () => r.output().trim() || undefined, 60_000, 50)));
    // The losers end on their own; the winner holds the folder until stopped here.
    for (const [i, racer] of racers.entries()) await (results[i] === "took" ? stop(racer) : racer.exited);
    expect(results.filter((r) => r === "took")).toHaveLength(1);
    expect(results.filter((r) => r === "DataDirInUseError")).toHaveLength(3);
  });
});
