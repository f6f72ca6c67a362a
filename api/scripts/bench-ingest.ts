/**
 * Entries ingest benchmark for `npm run bench`, as JSON lines { name, value, unit, baseline?, ratio? }:
 * 100,000 entrants as 100 HTTP requests of 1,000 on loopback into the real service app and a real SQLite file,
 * then the same requests again (all unchanged), against the floor: a bare better-sqlite3 insert of the same
 * rows in one transaction, measured in the same run.
 *
 * The service runs in a worker thread (as it would in its own process), so the load generator's work does not
 * queue behind it on one thread. It always works in its own temporary folder. BENCH_DATA_DIR may name another (empty) folder; one that holds
 * a store already (real data) is refused.
 */
import { serve } from "@hono/node-server";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { IndexerClient } from "../src/chain/indexer.js";
import type { DeploymentRecord } from "../src/chain/deployment.js";
import { run as cli } from "../src/cli/prizedraw.js";
import { createApp } from "../src/http/app.js";
import { openStore, storePath } from "../src/store/index.js";
import { outboxMailer } from "../src/mail/mailer.js";
import { logger } from "../src/logger.js";
import { emit, percentile } from "./benchOutput.js";

const REQUESTS = 100;
const PER_REQUEST = 1_000;
/** Each figure is the median of this many repetitions (a fresh drawing each): the machine is shared and noisy. */
const REPETITIONS = 3;

function batches(): string[] {
  return Array.from({ length: REQUESTS }, (_, r) =>
    JSON.stringify({ entries: Array.from({ length: PER_REQUEST }, (_, i) => ({ entrantId: `ent-${r}-${i}-${"x".repeat(24)}`, weight: 1 + ((r + i) % 7) })) }),
  );
}

async function main(): Promise<void> {
  const requested = process.env.BENCH_DATA_DIR;
  if (requested && existsSync(storePath(requested))) {
    console.error(`bench: ${requested} holds a store (real data?); the benchmark only runs in an empty or temporary folder`);
    process.exit(1);
  }
  const dir = requested ?? mkdtempSync(join(tmpdir(), "prizedraw-bench-"));
  const store = await openStore(storePath(dir));
  const config = { env: "test" as const, publicBaseUrl: "http://127.0.0.1" };
  const { accountId } = (await cli(["account", "create", "--email", "bench@example.com"], store, config)) as { accountId: string };
  const { key } = (await cli(["key", "create", "--account", accountId], store, config)) as { key: string };
  for (let rep = 0; rep < REPETITIONS; rep++) {
    await cli(["campaign", "create", "--account", accountId, "--slug", `bench-${rep}`, "--name", "Bench", "--mode", "entries", "--cadence", "daily", "--payout-wallet", "0x00000000000000000000000000000000000000a1"], store, config);
    await cli(["campaign", "activate", `bench-${rep}`], store, config);
  }

  await store.close();
  const worker = new Worker(new URL("./tsWorker.mjs", import.meta.url), { workerData: { dir, entry: import.meta.url } });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once("message", (m: { port: number }) => resolve(m.port));
    worker.once("error", reject);
  });
  const bodies = batches();

  const send = async (url: string): Promise<{ totalMs: number; times: number[] }> => {
    const times: number[] = [];
    const start = performance.now();
    for (const body of bodies) {
      const t = performance.now();
      const response = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body });
      if (response.status !== 200) throw new Error(`ingest answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
      times.push(performance.now() - t);
    }
    return { totalMs: performance.now() - start, times: times.sort((a, b) => a - b) };
  };

  const runs: { ingest: { totalMs: number; times: number[] }; resend: { totalMs: number; times: number[] }; floorMs: number }[] = [];
  const rows = bodies.flatMap((b) => (JSON.parse(b) as { entries: { entrantId: string; weight: number }[] }).entries);
  for (let rep = 0; rep < REPETITIONS; rep++) {
    const url = `http://127.0.0.1:${port}/api/v1/campaigns/bench-${rep}/entries`;
    const ingest = await send(url);
    const resend = await send(url);
    // The floor: the same rows inserted with bare better-sqlite3 in one transaction.
    const floorDb = new Database(join(dir, `floor-${rep}.sqlite`));
    floorDb.pragma("journal_mode = WAL");
    floorDb.exec("CREATE TABLE entries (seq INTEGER PRIMARY KEY, drawing_id TEXT NOT NULL, entrant_id TEXT NOT NULL, weight INTEGER NOT NULL, display_name TEXT, avatar_url TEXT, position INTEGER, UNIQUE (drawing_id, entrant_id)) STRICT");
    const insert = floorDb.prepare("INSERT INTO entries (drawing_id, entrant_id, weight, display_name, avatar_url) VALUES (?, ?, ?, NULL, NULL)");
    const floorStart = performance.now();
    floorDb.transaction(() => {
      for (const row of rows) insert.run("drw_bench", row.entrantId, row.weight);
    })();
    runs.push({ ingest, resend, floorMs: performance.now() - floorStart });
    floorDb.close();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ingest = { totalMs: median(runs.map((r) => r.ingest.totalMs)), p50: median(runs.map((r) => percentile(r.ingest.times, 50))), p99: median(runs.map((r) => percentile(r.ingest.times, 99))) };
  const resend = { totalMs: median(runs.map((r) => r.resend.totalMs)), p99: median(runs.map((r) => percentile(r.resend.times, 99))) };
  const floorMs = median(runs.map((r) => r.floorMs));

  // ratio: how many times the floor the HTTP ingest takes (target under 4).
  emit({ name: "entries.ingest.100000as100x1000.total", value: ingest.totalMs, unit: "ms", baseline: floorMs, ratio: ingest.totalMs / floorMs });
  emit({ name: "entries.ingest.request.p50", value: ingest.p50, unit: "ms" });
  emit({ name: "entries.ingest.request.p99", value: ingest.p99, unit: "ms" });
  emit({ name: "entries.resendUnchanged.100000.total", value: resend.totalMs, unit: "ms", baseline: ingest.totalMs, ratio: resend.totalMs / ingest.totalMs });
  emit({ name: "entries.resendUnchanged.request.p99", value: resend.p99, unit: "ms" });
  emit({ name: "entries.floor.betterSqlite3.oneTransaction", value: floorMs, unit: "ms" });

  await worker.terminate();
  if (!requested) rmSync(dir, { recursive: true, force: true });
}

/** The worker: the real service app on the benchmark's store, on a free loopback port. */
async function serveInWorker(dir: string): Promise<void> {
  const store = await openStore(storePath(dir));
  const config = { env: "test" as const, publicBaseUrl: "http://127.0.0.1" };
  // The ingest path needs neither the chain nor the indexer: they are never called here.
  const deployment = { chainId: 31337 } as DeploymentRecord;
  const app = createApp({ store, indexer: new IndexerClient("http://127.0.0.1:9"), deployment, config, mailer: outboxMailer(store, logger), readiness: async () => ({ ready: true, store: true, chain: { ok: true, block: 0 }, indexer: { ok: true, block: 0, lagBlocks: 0 }, keeper: { leaseHeld: false } }), runCampaign: () => undefined });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise((r) => server.once("listening", r));
  parentPort!.postMessage({ port: (server.address() as AddressInfo).port });
}

if (!isMainThread) {
  void serveInWorker((workerData as { dir: string }).dir);
} else void main().catch((error: unknown) => {
  console.error(`bench-ingest: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
