// `npm start` for real: anvil, the contracts, Ponder and the service on free ports in a temporary data folder.
// Fresh start (the first account, its key shown once and the next commands, run as printed), warm restarts
// reusing everything, a reset chain detected and rebuilt (the account kept), and start-up errors that end with
// one clear line. Prints the measured start-up times as JSON lines. The data folder lock, stopping through npm
// and a damaged index: lifecycle.test.ts.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeDeployment } from "../../api/src/chain/deployment.js";
import { startPostgres, type Postgres } from "../support/postgres.js";
import { REPO_ROOT, freePort, inheritedEnv, jsonRpc, spawnProcess, startAnvil, stop, until, type Proc } from "../support/processes.js";

type Ports = { PORT: string; CHAIN_PORT: string; INDEXER_PORT: string };

const dataDir = mkdtempSync(path.join(tmpdir(), "prizedraw-start-test-"));
let ports: Ports;
let running: Proc | undefined;
/** The first start's key: it outlives a chain reset (the account is carried over). */
let firstKey = "";

function startStack(extraEnv: Record<string, string> = {}): Proc {
  const env = inheritedEnv(["PRIZEDRAW_*", "RPC_URL", "DATABASE_URL"]);
  return spawnProcess("start", process.execPath, ["--import", "tsx", path.join(REPO_ROOT, "scripts/start.mts")], {
    env: { ...env, ...ports, PRIZEDRAW_DATA_DIR: dataDir, PONDER_SCHEMA: "start_test", ...extraEnv },
    cwd: REPO_ROOT,
    log: path.join(dataDir, "start.log"),
  });
}

/** Starts the stack and waits for its "ready in" line; returns the seconds the script reports. */
async function startAndWait(extraEnv: Record<string, string> = {}): Promise<{ proc: Proc; seconds: number }> {
  const started = performance.now();
  const proc = startStack(extraEnv);
  let seconds = 0;
  await until("the stack's ready line", async () => {
    if (seconds === 0 && /ready in [\d.]+ s/.test(proc.output())) seconds = (performance.now() - started) / 1000;
    return /\[start\] Ctrl-C .* stops everything/.test(proc.output()) ? true : undefined;
  }, 180_000, 100, proc);
  return { proc, seconds };
}

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  ports = { PORT: String(await freePort()), CHAIN_PORT: String(await freePort()), INDEXER_PORT: String(await freePort()) };
});

afterAll(async () => {
  await stop(running, 20_000);
  rmSync(dataDir, { recursive: true, force: true });
});

// Each test starts the whole stack; on a busy shared machine one start can take minutes.
describe("npm start", { timeout: 400_000 }, () => {
  it("starts everything on a fresh data folder, answers /health and /ready, and stops cleanly", async () => {
    const { proc, seconds } = await startAndWait();
    running = proc;
    console.log(JSON.stringify({ name: "start.fresh", value: Number(seconds.toFixed(2)), unit: "s" }));
    expect(proc.output()).toContain("deployed PrizeDraw at");
    expect(proc.output()).toContain(`http://127.0.0.1:${ports.PORT}`);
    // The first account, its key (printed this once, as a line to paste) and the next commands, with the real
    // port and data folder: run as printed, they make a campaign whose drawings the key reads and whose page shows.
    const output = proc.output();
    const accountId = /^\[start\] first account (acc_\w+) \(owner@localhost\); its API key, shown this once/m.exec(output)?.[1];
    const key = /^    export PRIZEDRAW_KEY=(pd_test_\S+)$/m.exec(output)?.[1];
    expect(accountId).toBeDefined();
    expect(key).toBeDefined();
    firstKey = key as string;
    expect(output.split(key as string)).toHaveLength(2);
    const commands = output.split("\n").filter((l) => l.startsWith("    ")).map((l) => l.trim());
    expect(commands).toEqual([
      `export PRIZEDRAW_KEY=${key}`,
      `PRIZEDRAW_DATA_DIR=${dataDir} npm run admin -- campaign create --account ${accountId} --slug summer-daily --name "Summer Daily" --mode push --cadence daily --hour 20 --winners 3 --payout-wallet 0xa0Ee7A142d267C1f36714E4a8F75612F20a79720`,
      `PRIZEDRAW_DATA_DIR=${dataDir} npm run admin -- campaign activate summer-daily`,
      `curl -H "Authorization: Bearer $PRIZEDRAW_KEY" http://127.0.0.1:${ports.PORT}/api/v1/campaigns/summer-daily/drawings`,
      `http://127.0.0.1:${ports.PORT}/campaigns/summer-daily`,
    ]);
    const shell = (line: string) => spawnSync("sh", ["-c", line], { cwd: REPO_ROOT, env: { ...inheritedEnv(["PRIZEDRAW_*", "PORT"]), PRIZEDRAW_KEY: key }, encoding: "utf8" });
    for (const line of commands.slice(1, 3)) expect(shell(line).status, line).toBe(0);
    const drawings = await until("the campaign's first drawings", async () => {
      const answer = shell(`${commands[3]} --silent --fail`);
      const body = answer.status === 0 ? (JSON.parse(answer.stdout) as { drawings: unknown[] }) : undefined;
      return body && body.drawings.length > 0 ? body.drawings : undefined;
    }, 60_000, 1_000);
    expect(drawings[0]).toMatchObject({ status: "open", winnersExpected: 3 });
    expect((await fetch(commands[4] as string)).status).toBe(200);
    expect((await getJson(`http://127.0.0.1:${ports.PORT}/health`)).body).toEqual({ ok: true });
    const ready = await getJson(`http://127.0.0.1:${ports.PORT}/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ ready: true, store: true, chain: { ok: true }, indexer: { ok: true } });
    const record = JSON.parse(readFileSync(path.join(dataDir, "deployment.json"), "utf8")) as { prizeDraw: string; mockEntropy: boolean };
    expect(record.mockEntropy).toBe(true);
    // Quiet: at most 25 lines up to "stops everything", and none for the requests since (the API read, the page,
    // /ready, the CLI's campaign): a partner API request is a line in the data folder's logs/service.log instead.
    const linesAtReady = output.trimEnd().split("\n");
    expect(linesAtReady.length, output).toBeLessThanOrEqual(25);
    expect(proc.output().trimEnd().split("\n").length, proc.output()).toBe(linesAtReady.length);
    const serviceLog = readFileSync(path.join(dataDir, "logs", "service.log"), "utf8");
    expect(serviceLog).toMatch(/"path":"\/api\/v1\/campaigns\/summer-daily\/drawings","status":200/);
    expect(await stop(proc, 20_000)).toBe(0);
    running = undefined;
    // Every child is gone: the ports are free again.
    for (const port of Object.values(ports)) await expect(canListen(Number(port))).resolves.toBe(true);
  });

  // Twice: anvil 1.7 mints a new block 0 each time it loads its state and dumps it beside the old one, so from
  // the second restart on block 0 may answer another hash on the same chain (start then took it for a reset and
  // set the store aside, accounts and keys with it).
  it("reuses the deployment, the indexer's data and the account on warm restarts, and never shows a stored key", async () => {
    const before = readFileSync(path.join(dataDir, "deployment.json"), "utf8");
    for (const restart of [1, 2]) {
      const { proc, seconds } = await startAndWait();
      running = proc;
      console.log(JSON.stringify({ name: "start.warm", value: Number(seconds.toFixed(2)), unit: "s", restart }));
      const output = proc.output();
      expect(output).toContain("reusing the deployment");
      expect(output).not.toContain("deployed PrizeDraw at");
      expect(output).not.toContain("pd_test_");
      expect(output).toMatch(new RegExp(`^\\[start\\] account acc_\\w+ \\(owner@localhost\\); keys are stored only as hashes, so none is shown again; a new key for it:\n    PRIZEDRAW_DATA_DIR=${dataDir} npm run admin -- key create --account acc_\\w+$`, "m"));
      expect(output).toContain(`[start] page      http://127.0.0.1:${ports.PORT}/campaigns/summer-daily`);
      expect(readFileSync(path.join(dataDir, "deployment.json"), "utf8")).toBe(before);
      expect((await getJson(`http://127.0.0.1:${ports.PORT}/ready`)).status).toBe(200);
      expect(await stop(proc, 20_000)).toBe(0);
      running = undefined;
    }
  });

  it("detects a reset chain, says so, redeploys and rebuilds the index", async () => {
    rmSync(path.join(dataDir, "anvil-state.json"));
    const { proc } = await startAndWait();
    running = proc;
    expect(proc.output()).toMatch(/the chain was reset \(genesis .* differs from the record's/);
    // The store goes aside with the old chain's campaigns, but the account and its keys come along.
    expect(proc.output()).toMatch(/the service's store described the old chain: moved to .*before-reset-\S+; its account, members and API keys are carried over/);
    expect(proc.output()).toContain("deployed PrizeDraw at");
    expect(proc.output()).not.toContain("pd_test_");
    expect((await fetch(`http://127.0.0.1:${ports.PORT}/api/v1/campaigns/summer-daily`, { headers: { authorization: `Bearer ${firstKey}` } })).status).toBe(404);
    expect((await getJson(`http://127.0.0.1:${ports.PORT}/ready`)).status).toBe(200);
    expect(await stop(proc, 20_000)).toBe(0);
    running = undefined;
  });

  it("ends with one clear line when a port is in use", async () => {
    const blocker = await listen(Number(ports.INDEXER_PORT));
    try {
      const proc = startStack();
      expect(await proc.exited).toBe(1);
      const lines = proc.output().split("\n").filter((l) => l.startsWith("[start]"));
      expect(lines).toEqual([
        `[start] port ${ports.INDEXER_PORT} (INDEXER_PORT) is in use: stop what is using it or set INDEXER_PORT to a free port`,
      ]);
      expect(proc.output()).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  it("ends with one clear line when RPC_URL cannot be reached or the configuration is wrong", async () => {
    const dead = await freePort();
    // A provider's URL carries its API key: the line names the origin only.
    const unreachable = startStack({ RPC_URL: `http://127.0.0.1:${dead}/v2/secret-api-key` });
    expect(await unreachable.exited).toBe(1);
    expect(unreachable.output()).toContain(`[start] cannot reach RPC_URL=http://127.0.0.1:${dead}: check the URL and that the node is up`);
    expect(unreachable.output()).not.toContain("secret-api-key");
    expect(unreachable.output()).not.toMatch(/\n\s+at /);

    const badPort = startStack({ PORT: "not-a-port" });
    expect(await badPort.exited).toBe(1);
    expect(badPort.output()).toMatch(/\[start\] PORT: /);
    expect(badPort.output()).not.toMatch(/\n\s+at /);
  });
});

describe("npm start against RPC_URL", { timeout: 120_000 }, () => {
  it("ends with one clear line when the recorded contract is missing on the chain", async () => {
    const chainPort = await freePort();
    const rpcUrl = `http://127.0.0.1:${chainPort}`;
    const otherDir = mkdtempSync(path.join(tmpdir(), "prizedraw-start-missing-"));
    const anvil = startAnvil(chainPort, path.join(otherDir, "anvil-state.json"), path.join(otherDir, "anvil.log"));
    try {
      const genesis = await until("anvil", async () => (await jsonRpc<{ hash: `0x${string}` }>(rpcUrl, "eth_getBlockByNumber", ["0x0", false])).hash, 20_000, 100, anvil);
      const nowhere = "0x00000000000000000000000000000000000000aa" as const;
      writeDeployment(otherDir, {
        chainId: 31337, rpcUrl, genesisHash: genesis, prizeDraw: nowhere, entropy: nowhere, entropyProvider: nowhere,
        mockEntropy: true, token: nowhere, tokenDecimals: 6, admin: nowhere, operator: nowhere, contractVersion: 3, deployBlock: 0, deployedAt: new Date().toISOString(),
      });
      const proc = startStack({ RPC_URL: rpcUrl, PRIZEDRAW_DATA_DIR: otherDir });
      expect(await proc.exited).toBe(1);
      expect(proc.output()).toContain(`[start] no contract at ${nowhere} on RPC_URL: fix RPC_URL or redeploy with npm run deploy`);
      expect(proc.output()).not.toMatch(/\n\s+at /);
    } finally {
      await stop(anvil);
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});

describe("npm start with DATABASE_URL", { timeout: 400_000 }, () => {
  let postgres: Postgres;
  const pgDataDir = mkdtempSync(path.join(tmpdir(), "prizedraw-start-pg-"));
  const schemaTables = async () =>
    (await postgres.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'start_test' order by 1")).map((r) => r.table_name);

  beforeAll(async () => {
    postgres = await startPostgres();
  }, 60_000);

  afterAll(async () => {
    await stop(running, 20_000);
    await postgres?.stop();
    rmSync(pgDataDir, { recursive: true, force: true });
  });

  it("keeps the index in Postgres and, when the chain was reset, drops the schema and rebuilds it", async () => {
    const env = { DATABASE_URL: postgres.url, PRIZEDRAW_DATA_DIR: pgDataDir };
    const first = await startAndWait(env);
    running = first.proc;
    expect((await getJson(`http://127.0.0.1:${ports.PORT}/ready`)).status).toBe(200);
    expect(await schemaTables()).toEqual(expect.arrayContaining(["_ponder_checkpoint", "_ponder_meta", "campaign", "drawing", "payout", "prize", "prize_table"]));
    expect(existsSync(path.join(pgDataDir, "ponder"))).toBe(false);
    expect(await stop(first.proc, 20_000)).toBe(0);

    // A table only this run has: gone after the reset if and only if the schema was dropped, not reused.
    await postgres.query("create table start_test.left_from_the_old_chain (x int)");
    rmSync(path.join(pgDataDir, "anvil-state.json"));
    const second = await startAndWait(env);
    running = second.proc;
    expect(second.proc.output()).toMatch(/the chain was reset/);
    expect((await getJson(`http://127.0.0.1:${ports.PORT}/ready`)).status).toBe(200);
    expect(await schemaTables()).not.toContain("left_from_the_old_chain");
    expect(await schemaTables()).toContain("_ponder_checkpoint");
    expect(await stop(second.proc, 20_000)).toBe(0);
    running = undefined;
  });

  it("ends with one clear line, the password masked, when DATABASE_URL cannot be reached", async () => {
    const dead = await freePort();
    const proc = startStack({ DATABASE_URL: `postgres://prizedraw:hunter2-secret@127.0.0.1:${dead}/postgres`, PRIZEDRAW_DATA_DIR: pgDataDir });
    expect(await proc.exited).toBe(1);
    const lines = proc.output().split("\n").filter((l) => l.startsWith("[start]"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^\\[start\\] cannot reach DATABASE_URL=postgres://prizedraw:\\*\\*\\*@127\\.0\\.0\\.1:${dead}/postgres \\(.+\\): check the URL and that Postgres is up`));
    expect(proc.output()).not.toContain("hunter2-secret");
    expect(proc.output()).not.toMatch(/\n\s+at /);
  });
});

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

async function canListen(port: number): Promise<boolean> {
  try {
    const server = await listen(port);
    await new Promise((r) => server.close(r));
    return true;
  } catch {
    return false;
  }
}
