/**
 * Entries ingest benchmark for `npm run bench`, as JSON lines { name, value, unit, baseline?, ratio? }:
 * 100,000 entrants as 100 HTTP requests of 1,000 on loopback into the real service app and a real SQLite file,
 * then the same requests again (all unchanged), against the floor: a bare better-sqlite3 insert of the same
 * rows in one transaction, measured in the same run.
 *
 * The same ingest (same bodies, same repetitions) also runs on a PostgreSQL store: a private server
 * (test/support/postgres.ts: a throwaway cluster on loopback, fsync off), one database. The repetitions of the two
 * engines alternate, so drift on the shared machine falls on both alike. Every `.postgres.` figure's baseline is the
 * same figure on SQLite in this run, and its ratio is PostgreSQL / SQLite.
 *
 * Each store's service runs in a worker thread of its own (as it would in its own process), so the load
 * generator's work does not queue behind it on one thread. It always works in its own temporary folder.
 * BENCH_DATA_DIR may name another (empty) folder for the SQLite store; one that holds a store already (real data)
 * is refused. The PostgreSQL server and the temporary folder are removed at the end, on failure too.
 */
import { serve } from "@hono/node-server";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { startPostgres, type Postgres } from "../../test/support/postgres.js";
import { IndexerClient } from "../src/chain/indexer.js";
import type { DeploymentRecord } from "../src/chain/deployment.js";
import { run as cli } from "../src/cli/prizedraw.js";
import { createApp } from "../src/http/app.js";
import { openStore, storePath } from "../src/store/index.js";
import { loadSqliteDriver } from "../src/store/sqliteDriver.js";
import { outboxMailer } from "../src/mail/mailer.js";
import { logger } from "../src/logger.js";
import { emit, percentile } from "./benchOutput.js";

const REQUESTS = 100;
const PER_REQUEST = 1_000;
/** Each figure is the median of this many repetitions (a fresh drawing each): the machine is shared and noisy. */
const REPETITIONS = 3;

type Sent = { totalMs: number; times: number[] };
/** The service on one store, in a worker thread: its port, an API key of the account whose campaigns take the entries. */
type Target = { worker: Worker; port: number; key: string };

function batches(): string[] {
  return Array.from({ length: REQUESTS }, (_, r) =>
    JSON.stringify({ entries: Array.from({ length: PER_REQUEST }, (_, i) => ({ entrantId: `ent-${r}-${i}-${"x".repeat(24)}`, weight: 1 + ((r + i) % 7) })) }),
  );
}

/**
 * Prepares the store at `location` (an account, its key, one active entries campaign per repetition) and starts
 * the service on it in a worker thread.
 */
async function startTarget(location: string): Promise<Target> {
  const store = await openStore(location);
  let key: string;
  try {
    const config = { env: "test" as const, publicBaseUrl: "http://127.0.0.1" };
    const { accountId } = (await cli(["account", "create", "--email", "bench@example.com"], store, config)) as { accountId: string };
    ({ key } = (await cli(["key", "create", "--account", accountId], store, config)) as { key: string });
    for (let rep = 0; rep < REPETITIONS; rep++) {
      await cli(["campaign", "create", "--account", accountId, "--slug", `bench-${rep}`, "--name", "Bench", "--mode", "entries", "--cadence", "daily", "--payout-wallet", "0x00000000000000000000000000000000000000a1"], store, config);
      await cli(["campaign", "activate", `bench-${rep}`], store, config);
    }
  } finally {
    await store.close();
  }
  // The service's access lines (one per request, JSON on stdout) would pass for figures in `npm run bench`: warnings only.
  const env = { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "warn" };
  const worker = new Worker(new URL("./tsWorker.mjs", import.meta.url), { workerData: { location, entry: import.meta.url }, env });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      worker.once("message", (m: { port: number }) => resolve(m.port));
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the service's worker exited (${code}) before listening`)));
    });
    return { worker, port, key };
  } catch (error) {
    await worker.terminate();
    throw error;
  }
}

/** Posts every body, one after the other, to repetition `rep`'s campaign; the total and each request's time. */
async function send(target: Target, rep: number, bodies: readonly string[]): Promise<Sent> {
  const url = `http://127.0.0.1:${target.port}/api/v1/campaigns/bench-${rep}/entries`;
  const times: number[] = [];
  const start = performance.now();
  for (const body of bodies) {
    const t = performance.now();
    const response = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${target.key}`, "content-type": "application/json" }, body });
    if (response.status !== 200) throw new Error(`ingest answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
    times.push(performance.now() - t);
  }
  return { totalMs: performance.now() - start, times: times.sort((a, b) => a - b) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The medians over the repetitions: ingest total, p50 and p99, resend total and p99. */
function summary(runs: { ingest: Sent; resend: Sent }[]) {
  return {
    ingest: { totalMs: median(runs.map((r) => r.ingest.totalMs)), p50: median(runs.map((r) => percentile(r.ingest.times, 50))), p99: median(runs.map((r) => percentile(r.ingest.times, 99))) },
    resend: { totalMs: median(runs.map((r) => r.resend.totalMs)), p99: median(runs.map((r) => percentile(r.resend.times, 99))) },
  };
}

async function main(): Promise<void> {
  const requested = process.env.BENCH_DATA_DIR;
  if (requested && existsSync(storePath(requested))) {
    console.error(`bench: ${requested} holds a store (real data?); the benchmark only runs in an empty or temporary folder`);
    process.exit(1);
  }
  const dir = requested ?? mkdtempSync(join(tmpdir(), "prizedraw-bench-"));
  let postgres: Postgres | undefined;
  const targets: Target[] = [];
  try {
    postgres = await startPostgres();
    await postgres.query("CREATE DATABASE bench_ingest");
    const sqlite = await startTarget(storePath(dir));
    targets.push(sqlite);
    const pg = await startTarget(postgres.url.replace(/\/postgres$/, "/bench_ingest"));
    targets.push(pg);
    const bodies = batches();
    const rows = bodies.flatMap((b) => (JSON.parse(b) as { entries: { entrantId: string; weight: number }[] }).entries);

    const sqliteRuns: { ingest: Sent; resend: Sent; floorMs: number }[] = [];
    const pgRuns: { ingest: Sent; resend: Sent }[] = [];
    const onSqlite = async (rep: number) => {
      const ingest = await send(sqlite, rep, bodies);
      const resend = await send(sqlite, rep, bodies);
      // The floor: the same rows inserted with bare better-sqlite3 in one transaction.
      const Database = loadSqliteDriver();
      const floorDb = new Database(join(dir, `floor-${rep}.sqlite`));
      try {
        floorDb.pragma("journal_mode = WAL");
        floorDb.exec("CREATE TABLE entries (seq INTEGER PRIMARY KEY, drawing_id TEXT NOT NULL, entrant_id TEXT NOT NULL, weight INTEGER NOT NULL, display_name TEXT, avatar_url TEXT, position INTEGER, UNIQUE (drawing_id, entrant_id)) STRICT");
        const insert = floorDb.prepare("INSERT INTO entries (drawing_id, entrant_id, weight, display_name, avatar_url) VALUES (?, ?, ?, NULL, NULL)");
        const floorStart = performance.now();
        floorDb.transaction(() => {
          for (const row of rows) insert.run("drw_bench", row.entrantId, row.weight);
        })();
        sqliteRuns.push({ ingest, resend, floorMs: performance.now() - floorStart });
      } finally {
        floorDb.close();
      }
    };
    const onPostgres = async (rep: number) => {
      const ingest = await send(pg, rep, bodies);
      const resend = await send(pg, rep, bodies);
      pgRuns.push({ ingest, resend });
    };
    // The engines alternate, and which goes first alternates too: the machine's speed drifts within a run.
    for (let rep = 0; rep < REPETITIONS; rep++) {
      if (rep % 2 === 0) {
        await onSqlite(rep);
        await onPostgres(rep);
      } else {
        await onPostgres(rep);
        await onSqlite(rep);
      }
    }
    const { ingest, resend } = summary(sqliteRuns);
    const floorMs = median(sqliteRuns.map((r) => r.floorMs));
    const onPg = summary(pgRuns);

    // ratio: how many times the floor the HTTP ingest takes (target under 4).
    emit({ name: "entries.ingest.100000as100x1000.total", value: ingest.totalMs, unit: "ms", baseline: floorMs, ratio: ingest.totalMs / floorMs });
    emit({ name: "entries.ingest.request.p50", value: ingest.p50, unit: "ms" });
    emit({ name: "entries.ingest.request.p99", value: ingest.p99, unit: "ms" });
    emit({ name: "entries.resendUnchanged.100000.total", value: resend.totalMs, unit: "ms", baseline: ingest.totalMs, ratio: resend.totalMs / ingest.totalMs });
    emit({ name: "entries.resendUnchanged.request.p99", value: resend.p99, unit: "ms" });
    emit({ name: "entries.floor.betterSqlite3.oneTransaction", value: floorMs, unit: "ms" });
    // PostgreSQL: baseline = the same figure on SQLite in this run, ratio = PostgreSQL / SQLite.
    const vsSqlite = (name: string, value: number, sqliteValue: number) => emit({ name, value, unit: "ms", baseline: sqliteValue, ratio: value / sqliteValue });
    vsSqlite("entries.ingest.postgres.100000as100x1000.total", onPg.ingest.totalMs, ingest.totalMs);
    vsSqlite("entries.ingest.postgres.request.p50", onPg.ingest.p50, ingest.p50);
    vsSqlite("entries.ingest.postgres.request.p99", onPg.ingest.p99, ingest.p99);
    vsSqlite("entries.resendUnchanged.postgres.100000.total", onPg.resend.totalMs, resend.totalMs);
    vsSqlite("entries.resendUnchanged.postgres.request.p99", onPg.resend.p99, resend.p99);
  } finally {
    // The workers first (their pools hold connections to the server), then the server and the folder.
    for (const target of targets) await target.worker.terminate();
    await postgres?.stop();
    if (!requested) rmSync(dir, { recursive: true, force: true });
  }
}

/** The worker: the real service app on the benchmark's store (a SQLite file's path or a PostgreSQL URL), on a free loopback port. */
async function serveInWorker(location: string): Promise<void> {
  const store = await openStore(location);
  const config = { env: "test" as const, publicBaseUrl: "http://127.0.0.1" };
  // The ingest path needs neither the chain nor the indexer: they are never called here.
  const deployment = { chainId: 31337 } as DeploymentRecord;
  const app = createApp({ store, indexer: new IndexerClient("http://127.0.0.1:9"), deployment, config, mailer: outboxMailer(store, logger), readiness: async () => ({ ready: true, store: true, chain: { ok: true, block: 0 }, indexer: { ok: true, block: 0, lagBlocks: 0 }, keeper: { leaseHeld: false } }), runCampaign: () => undefined });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise((r) => server.once("listening", r));
  parentPort!.postMessage({ port: (server.address() as AddressInfo).port });
}

if (!isMainThread) {
  void serveInWorker((workerData as { location: string }).location);
} else void main().catch((error: unknown) => {
  console.error(`bench-ingest: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
