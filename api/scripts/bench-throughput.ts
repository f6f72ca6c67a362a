/**
 * Drawings at scale (issue 19): how fast one operator key gets many simultaneous drawings paid on a chain with a
 * real block time. `npx tsx api/scripts/bench-throughput.ts`; part of `npm run bench`; JSON lines on stdout
 * ({ name, value, unit }), everything else on stderr.
 *
 * The real stack (anvil mining only every BLOCK_TIME_SECONDS, no instant mining, as on Base; the contracts;
 * Ponder; the service process with its keeper, KEEPER_INTERVAL_SECONDS=1 as in the stack tests) in a temporary
 * folder on free ports. BENCH_CAMPAIGNS (default 1000; 30 for a quick run) push campaigns are created through
 * the operator CLI's own code against the service's store (as `npm start` creates its first account), all with
 * the same daily draw time, the next whole minute after the setup's estimated end, and a cutoff of 0 minutes (so
 * the list locks at the draw time); each takes 1 winner before it through submitWinners, the partner API's own
 * function (in this process: see the setup below). The setup time goes to stderr. From the moment
 * the draw time passes, the store is polled until every drawing is `paid`, or until BENCH_TIME_LIMIT_SECONDS
 * (default 1200) have passed, in which case the number paid by then is the figure (exit 0: a slow keeper is a
 * result, not an error; a setup that overran the draw time, or a failure, exits 1).
 *
 * Figures: throughput.blockTimeSeconds; throughput.simultaneous.N.firstPaidSeconds, .medianPaidSeconds,
 * .lastPaidSeconds (all paid) or .paidWithinLimit and .limitSeconds (not all); throughput.drawingsPerHourPerKey
 * (N / lastPaidSeconds * 3600, or paid / limit * 3600 when the limit was hit); .transactions and
 * .transactionsPerBlock (every transaction mined from the draw time to the end of the measurement).
 *
 * Baseline, 2026-11-26, before batching (commit a81855c's contract and keeper: one operator transaction at a time,
 * each waiting for its receipt; 2 s blocks; keeper interval 1 s; this shared 2-core machine at load average 6 to 11):
 *   N = 30:  first paid 13.1 s, median 123.0 s, last paid 243.0 s: 444 drawings/hour/key; 121 transactions in
 *            122 blocks (0.99 per block, about 4 per drawing); the run took 6.1 min (stack start 45.5 s; that run
 *            still posted the winners over HTTP, in 0.8 s)
 *   N = 200: the 1,200 s limit hit with 112 of 200 paid (first 16.7 s, median of the paid 640.8 s): 336
 *            drawings/hour/key; 545 transactions in 600 blocks (0.91 per block); at the limit 60 still open, 16
 *            waiting for their random value, 12 settled and unpaid; the run took 22.7 min (setup 2.4 s)
 *   N = 1000 (the default): not run; at this rate it would take about 3 hours, so it ends at the 20-minute limit
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { buildService } from "../../scripts/build-service.mjs";
import { startStack, type Stack } from "../../test/support/stack.js";
import { run as runCli } from "../src/cli/prizedraw.js";
import { submitWinners } from "../src/domain/drawings.js";
import { openStore, storePath, type Store } from "../src/store/index.js";
import { emit } from "./benchOutput.js";

const BLOCK_TIME_SECONDS = 2;
const POLL_MS = 250;
const WALLET = "0x00000000000000000000000000000000000000a1";

function log(line: string): void {
  process.stderr.write(`[bench-throughput] ${line}\n`);
}

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name]?.trim() ?? "";
  if (raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name}=${raw}: must be a whole number of at least 1`);
  return Number(raw);
}

/** Runs `work` on every item with at most `limit` at a time. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index]!, index);
      }
    }),
  );
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** The first block whose timestamp is at or after `seconds` (binary search; the chain is short). */
async function firstBlockAtOrAfter(rpcUrl: string, seconds: number, head: number): Promise<number> {
  let lo = 0;
  let hi = head + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const block = await rpc<{ timestamp: string }>(rpcUrl, "eth_getBlockByNumber", [`0x${mid.toString(16)}`, false]);
    if (Number(BigInt(block.timestamp)) >= seconds) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Transactions mined in blocks [from, to]. */
async function countTransactions(rpcUrl: string, from: number, to: number): Promise<number> {
  let total = 0;
  const numbers = Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
  await pool(numbers, 8, async (n) => {
    const count = await rpc<string>(rpcUrl, "eth_getBlockTransactionCountByNumber", [`0x${n.toString(16)}`]);
    total += Number(BigInt(count));
  });
  return total;
}

async function main(): Promise<void> {
  const n = positiveInteger("BENCH_CAMPAIGNS", 1000);
  const limitSeconds = positiveInteger("BENCH_TIME_LIMIT_SECONDS", 1200);
  const runStarted = performance.now();
  log(`${n} campaigns, ${BLOCK_TIME_SECONDS} s blocks, time limit ${limitSeconds} s; starting the stack`);
  await buildService(); // startStack runs the bundles in api/dist
  const stack: Stack = await startStack({ blockTimeSeconds: BLOCK_TIME_SECONDS });
  let store: Store | undefined;
  const stopOnSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the stack`);
    void stack.stop().finally(() => process.exit(130));
  };
  process.once("SIGINT", stopOnSignal);
  process.once("SIGTERM", stopOnSignal);
  try {
    log(`stack up in ${((performance.now() - runStarted) / 1000).toFixed(1)} s (${stack.baseUrl}, chain ${stack.rpcUrl}, data ${stack.dataDir})`);
    store = await openStore(storePath(stack.dataDir));
    const q = store.conn.q();
    const cliConfig = { env: "test" as const, publicBaseUrl: stack.baseUrl };
    const cli = async (...args: string[]): Promise<Record<string, unknown>> => runCli(args, store!, cliConfig);

    // One shared draw time: the next whole minute after the setup's estimated end (a setup that overran it is
    // refused below, since the lists would miss their cutoff).
    const setupStarted = performance.now();
    const leadMs = 20_000 + n * 30;
    const drawAtMs = Math.ceil((Date.now() + leadMs) / 60_000) * 60_000;
    const drawAt = new Date(drawAtMs);
    log(`draw time ${drawAt.toISOString()} (in ${((drawAtMs - Date.now()) / 1000).toFixed(0)} s)`);

    // In this process, through the service's own code: the operator CLI's commands create and activate each
    // campaign (activation creates its drawings), and its first drawing takes one winner through submitWinners,
    // the function behind POST .../drawings/{id}/winners. Not over HTTP: with 200 campaigns active the service
    // (keeper interval 1 s, before batching) stopped answering for minutes (408s, dropped connections, /health
    // silent for over 20 s), and the lists missed their cutoff.
    const accountId = ((await cli("account", "create", "--email", "bench-throughput@example.com")) as { accountId: string }).accountId;
    const slugs = Array.from({ length: n }, (_, i) => `tp-${String(i).padStart(4, "0")}`);
    const drawingIds: string[] = [];
    const firstOpen = (campaignId: string) =>
      q.selectFrom("drawings").select(["id", "draw_at as drawAt"]).where("campaign_id", "=", campaignId).where("status", "=", "open").orderBy("draw_at").limit(1).executeTakeFirst();
    for (const slug of slugs) {
      await cli(
        "campaign", "create", "--account", accountId, "--slug", slug, "--name", `Throughput ${slug}`, "--mode", "push",
        "--cadence", "daily", "--hour", String(drawAt.getUTCHours()), "--minute", String(drawAt.getUTCMinutes()),
        "--timezone", "UTC", "--cutoff-minutes", "0", "--winners", "1", "--payout-wallet", WALLET,
      );
      await cli("campaign", "activate", slug);
      const campaign = await store.campaigns.bySlug(slug);
      const first = campaign ? await firstOpen(campaign.id) : undefined;
      if (!campaign || !first) throw new Error(`${slug}: no open drawing after activation`);
      if (Date.parse(first.drawAt) !== drawAtMs) throw new Error(`${slug}: first open drawing is at ${first.drawAt}, not ${drawAt.toISOString()}`);
      await submitWinners(store, campaign, first.id, [{ winner: `winner-${slug}`, displayName: null, avatarUrl: null }]);
      drawingIds.push(first.id);
    }
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    log(`setup took ${setupSeconds.toFixed(1)} s (${n} campaigns created, activated and given their winner)`);
    if (Date.now() >= drawAtMs) throw new Error(`the setup overran the draw time ${drawAt.toISOString()}: the measurement would start late`);

    const waitMs = drawAtMs - Date.now();
    log(`waiting ${(waitMs / 1000).toFixed(1)} s for the draw time`);
    await new Promise((r) => setTimeout(r, waitMs));

    // From the draw time: when each drawing is first seen paid (the store, polled every POLL_MS).
    const ours = new Set(drawingIds);
    const drawAtStored = (await q.selectFrom("drawings").select("draw_at").where("id", "=", drawingIds[0]!).executeTakeFirst())?.draw_at ?? drawAt.toISOString();
    const statusQuery = () => q.selectFrom("drawings").select(["id", "status", "needs_attention as note"]).where("draw_at", "=", drawAtStored).execute();
    const paidAfter = new Map<string, number>();
    const deadline = drawAtMs + limitSeconds * 1_000;
    let lastReport = 0;
    let counts: Record<string, number> = {};
    let attention = 0;
    for (;;) {
      const now = Date.now();
      counts = {};
      attention = 0;
      for (const row of await statusQuery()) {
        if (!ours.has(row.id)) continue;
        counts[row.status] = (counts[row.status] ?? 0) + 1;
        if (row.note !== null) attention++;
        if (row.status === "paid" && !paidAfter.has(row.id)) paidAfter.set(row.id, (now - drawAtMs) / 1000);
      }
      if (paidAfter.size === n || now >= deadline) break;
      if (now - lastReport >= 15_000) {
        lastReport = now;
        log(`${((now - drawAtMs) / 1000).toFixed(0)} s after the draw time: ${JSON.stringify(counts)}${attention ? `, ${attention} need attention` : ""}`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const endedMs = Date.now();
    const times = [...paidAfter.values()].sort((a, b) => a - b);
    const all = times.length === n;
    log(`${all ? "all paid" : `time limit reached: ${times.length} of ${n} paid`} (${JSON.stringify(counts)}${attention ? `, ${attention} need attention` : ""})`);

    // Transactions the chain mined over the measurement.
    const head = Number(BigInt(await rpc<string>(stack.rpcUrl, "eth_blockNumber")));
    const fromBlock = await firstBlockAtOrAfter(stack.rpcUrl, Math.floor(drawAtMs / 1000), head);
    const toBlock = Math.max(fromBlock, (await firstBlockAtOrAfter(stack.rpcUrl, Math.ceil(endedMs / 1000), head)) - 1);
    const transactions = await countTransactions(stack.rpcUrl, fromBlock, toBlock);
    const blocks = toBlock - fromBlock + 1;

    emit({ name: "throughput.blockTimeSeconds", value: BLOCK_TIME_SECONDS, unit: "s" });
    if (times.length > 0) {
      emit({ name: `throughput.simultaneous.${n}.firstPaidSeconds`, value: times[0]!, unit: "s" });
      emit({ name: `throughput.simultaneous.${n}.medianPaidSeconds`, value: times[Math.floor((times.length - 1) / 2)]!, unit: "s" });
    }
    if (all) {
      const last = times[times.length - 1]!;
      emit({ name: `throughput.simultaneous.${n}.lastPaidSeconds`, value: last, unit: "s" });
      emit({ name: "throughput.drawingsPerHourPerKey", value: (n / last) * 3600, unit: "drawings/h" });
    } else {
      emit({ name: `throughput.simultaneous.${n}.paidWithinLimit`, value: times.length, unit: "drawings" });
      emit({ name: `throughput.simultaneous.${n}.limitSeconds`, value: limitSeconds, unit: "s" });
      emit({ name: "throughput.drawingsPerHourPerKey", value: (times.length / limitSeconds) * 3600, unit: "drawings/h" });
    }
    emit({ name: `throughput.simultaneous.${n}.transactions`, value: transactions, unit: "tx" });
    emit({ name: `throughput.simultaneous.${n}.transactionsPerBlock`, value: transactions / blocks, unit: "tx/block" });
    log(`${transactions} transactions in blocks ${fromBlock} to ${toBlock} (${blocks} blocks); the run took ${((performance.now() - runStarted) / 60_000).toFixed(1)} min`);
  } finally {
    await store?.close();
    logWarnings(stack.dataDir);
    await stack.stop();
  }
}

/** The service's warnings during the run, counted by message (a stall has a cause worth reading). */
function logWarnings(dataDir: string): void {
  const counts = new Map<string, number>();
  for (const line of readFileSync(path.join(dataDir, "service.log"), "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } };
    if ((entry.level ?? 0) < 40) continue;
    const key = `${entry.msg}: ${entry.err?.message?.slice(0, 160) ?? ""}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const [message, count] of counts) log(`service warning x${count}: ${message}`);
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
