/**
 * A large drawing's provisional proof under load, for `npm run bench` (JSON lines { name, value, unit, baseline?,
 * ratio? }), on the real stack (anvil, contracts, Ponder, the service process) in a temporary folder. Alone:
 * `npx tsx api/scripts/bench-provisional-proof.ts`, or `npm run bench -- provisional-proof`.
 *
 * An entries drawing of 100,000 entrants (posted in 100 requests of 1,000) is drawn and kept provisional: once it
 * is paid, anvil's interval mining is paused, so no block follows and its result never reaches the finalized block.
 * Then CLIENTS clients (keep-alive, in a worker thread of this process so that taking in their 9 MB answers does not
 * delay the probes) request its proof.json one after another, while two probes here request GET /health and the
 * partner read GET /api/v1/campaigns/{slug}, each one request at a time, PROBE_GAP_MS apart. Three windows:
 * - idle: IDLE_SECONDS of the probes alone, before any client: what this shared machine gives now, to compare with;
 * - firstBuild: from the first request to the first proof served (the one build; the clients wait for it);
 * - load: BENCH_PROOF_SECONDS (default 20) from then on.
 * Figures per window: p50 and p99 of /health and of the partner read, and the longest event loop delay the service
 * saw (its prizedraw_process_nodejs_eventloop_lag_max_seconds: perf_hooks.monitorEventLoopDelay, reset at each scrape,
 * scraped at each window's start and end); for the load window also proof.json's p50, p99 and throughput, and the
 * builds and state checks made (prizedraw_proof_builds_total, prizedraw_proof_state_checks_total) and the service
 * process's CPU (cores, from its process_cpu_seconds_total). The machine's load average is printed beside them: the
 * clients share this machine's cores with the service (taking in 9 MB answers as fast as they come), and so does
 * whatever else runs on it. The service runs with RATE_LIMITS=off: one address drives it flat out, the worst case.
 *
 * Target (the finding this answers: two clients pushed /health to a median of 2.5 s): p99 of /health and of the
 * partner read under 100 ms while the clients run; those figures carry it as their baseline, and value / target as
 * their ratio (under 1: met). A target, not an assertion: the machine is shared and its speed drifts.
 */
import http from "node:http";
import { loadavg } from "node:os";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { buildService } from "../../scripts/build-service.mjs";
import { jsonRpc, until } from "../../test/support/processes.js";
import { TEST_WALLET, api, createAccount, startStack, type Stack } from "../../test/support/stack.js";
import { emit, percentile } from "./benchOutput.js";

const ENTRANTS = 100_000;
const PER_REQUEST = 1_000;
const CLIENTS = 8;
const PROBE_GAP_MS = 20;
const IDLE_SECONDS = 5;
const TARGET_P99_MS = 100;
const SLUG = "bench-proof";

function log(line: string): void {
  process.stderr.write(`[bench-provisional-proof] ${line}\n`);
}

function loadSeconds(): number {
  const raw = process.env.BENCH_PROOF_SECONDS?.trim() ?? "";
  if (raw === "") return 20;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`BENCH_PROOF_SECONDS=${raw}: must be a whole number of seconds, at least 1`);
  return Number(raw);
}

/** One GET over `agent`; its status and milliseconds, the body read to its end. */
function timedGet(url: URL, agent: http.Agent, headers: Record<string, string> = {}): Promise<{ status: number; ms: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = http.get({ host: url.hostname, port: url.port, path: url.pathname, agent, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on("error", () => resolve({ status: 0, ms: performance.now() - started }));
  });
}

type ClientsReport = { cold: number[]; warm: number[]; errors: number; warmSeconds: number };

/**
 * The worker: CLIENTS loops requesting the proof until told to stop. Posts "first" when the first 200 arrives;
 * latencies before it are the first build's, after it the load's.
 */
async function runClients(proofUrl: string): Promise<void> {
  const url = new URL(proofUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const report: ClientsReport = { cold: [], warm: [], errors: 0, warmSeconds: 0 };
  let firstAt: number | null = null;
  let stopping = false;
  parentPort!.on("message", () => (stopping = true));
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (!stopping) {
        const { status, ms } = await timedGet(url, agent);
        if (status !== 200) {
          report.errors++;
          continue;
        }
        if (firstAt === null) {
          firstAt = performance.now();
          parentPort!.postMessage({ first: true });
        }
        (performance.now() - ms < firstAt ? report.cold : report.warm).push(ms);
      }
    }),
  );
  report.warmSeconds = firstAt === null ? 0 : (performance.now() - firstAt) / 1000;
  agent.destroy();
  parentPort!.postMessage(report);
}

/** A probe: `url` requested one request at a time, PROBE_GAP_MS apart, until `stop()`; each answer's time and latency. */
function probe(url: string, headers: Record<string, string> = {}): { stop: () => Promise<{ at: number; ms: number; status: number }[]> } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const seen: { at: number; ms: number; status: number }[] = [];
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      const at = performance.now();
      seen.push({ at, ...(await timedGet(new URL(url), agent, headers)) });
      await new Promise((r) => setTimeout(r, PROBE_GAP_MS));
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      await loop;
      agent.destroy();
      return seen;
    },
  };
}

/** One sample of the service's metrics by exact series name (labels included); 0 when absent. */
async function scrape(stack: Stack): Promise<(series: string) => number> {
  const text = await (await fetch(`${stack.baseUrl}/metrics`)).text();
  return (series) => {
    const sums = text
      .split("\n")
      .filter((line) => line.startsWith(`${series} `) || line.startsWith(`${series}{`))
      .map((line) => Number(line.slice(line.lastIndexOf(" ") + 1)));
    return sums.reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
  };
}
const MAX_LAG = "prizedraw_process_nodejs_eventloop_lag_max_seconds";
const CPU = "prizedraw_process_process_cpu_seconds_total";

async function main(): Promise<void> {
  await buildService(); // startStack runs the bundles in api/dist
  const seconds = loadSeconds();
  const stack = await startStack({ extraEnv: { RATE_LIMITS: "off" } });
  try {
    const { accountId, key } = await createAccount(stack, "bench-proof@example.com");
    await stack.cli("campaign", "create", "--account", accountId, "--slug", SLUG, "--name", "Bench proof", "--mode", "entries", "--cadence", "daily", "--winners", "10", "--payout-wallet", TEST_WALLET);
    await stack.cli("campaign", "activate", SLUG);
    const posting = performance.now();
    for (let r = 0; r < ENTRANTS / PER_REQUEST; r++) {
      const entries = Array.from({ length: PER_REQUEST }, (_, i) => ({ entrantId: `bench-${r}-${i}-${"x".repeat(16)}`, weight: 1 + ((r + i) % 7) }));
      const posted = await api(stack, "POST", `/api/v1/campaigns/${SLUG}/entries`, { key, body: { entries } });
      if (posted.status !== 200) throw new Error(`POST entries answered ${posted.status}: ${JSON.stringify(posted.body)}`);
    }
    log(`${ENTRANTS} entrants posted in ${((performance.now() - posting) / 1000).toFixed(1)} s`);
    const open = ((await api(stack, "GET", `/api/v1/campaigns/${SLUG}/drawings?status=open`, { key })).body.drawings as { id: string; cutoffAt: string }[])[0]!;
    const drawing = () => api(stack, "GET", `/api/v1/campaigns/${SLUG}/drawings/${open.id}`, { key }).then((r) => r.body.drawing as { status: string; verification: { final: boolean } });
    const drawingStarted = performance.now();
    await api(stack, "POST", `/api/v1/campaigns/${SLUG}/test-clock`, { key, body: { advanceTo: new Date(Date.parse(open.cutoffAt) + 1_000).toISOString() } });
    await until("the drawing paid", async () => ((await drawing()).status === "paid" ? true : undefined), 600_000, 500);
    // No block from here on: the result stays above the finalized block, provisional.
    await jsonRpc(stack.rpcUrl, "evm_setIntervalMining", [0]);
    if ((await drawing()).verification.final) throw new Error("the drawing is final already: no provisional proof to measure");
    log(`drawn and paid in ${((performance.now() - drawingStarted) / 1000).toFixed(1)} s; the result is provisional`);

    const proofUrl = `${stack.baseUrl}/campaigns/${SLUG}/draws/${open.id}/proof.json`;
    const healthUrl = `${stack.baseUrl}/health`;
    const partnerUrl = `${stack.baseUrl}/api/v1/campaigns/${SLUG}`;
    const partnerHeaders = { authorization: `Bearer ${key}` };
    await scrape(stack); // resets the event loop histogram: the next scrape's maximum is the idle window's
    const idleStarted = performance.now();
    const [idleHealth, idlePartner] = [probe(healthUrl), probe(partnerUrl, partnerHeaders)];
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1_000));
    const [idleHealthSeen, idlePartnerSeen] = [await idleHealth.stop(), await idlePartner.stop()];
    const atIdleEnd = await scrape(stack);

    const started = performance.now();
    const clients = new Worker(new URL("./tsWorker.mjs", import.meta.url), { workerData: { entry: import.meta.url, proofUrl } });
    const health = probe(healthUrl);
    const partner = probe(partnerUrl, partnerHeaders);
    const report = new Promise<ClientsReport>((resolve, reject) => {
      clients.on("message", (m: ClientsReport | { first: true }) => {
        if (!("first" in m)) resolve(m);
      });
      clients.once("error", reject);
    });
    await new Promise<void>((resolve, reject) => {
      clients.on("message", (m: { first?: true }) => m.first && resolve());
      clients.once("error", reject);
      setTimeout(() => reject(new Error("no proof served within 10 minutes")), 600_000).unref();
    });
    const firstAt = performance.now();
    const atFirst = await scrape(stack);
    log(`first proof served after ${((firstAt - started) / 1000).toFixed(1)} s`);
    await new Promise((r) => setTimeout(r, seconds * 1_000));
    const atEnd = await scrape(stack);
    const loadAverage = loadavg()[0]!;
    clients.postMessage("stop");
    const [clientsReport, healthSeen, partnerSeen] = [await report, await health.stop(), await partner.stop()];
    await clients.terminate();

    const inWindow = (seen: { at: number; ms: number; status: number }[], from: number, to: number) => {
      const kept = seen.filter((s) => s.at >= from && s.at < to);
      return { ms: kept.filter((s) => s.status === 200).map((s) => s.ms).sort((a, b) => a - b), errors: kept.filter((s) => s.status !== 200).length };
    };
    const end = firstAt + seconds * 1_000;
    const base = `provisionalProof.${ENTRANTS}entrants.${CLIENTS}clients`;
    const probes = (phase: string, from: number, to: number, seenBy = { health: healthSeen, partnerRead: partnerSeen }) => {
      for (const [name, seen] of Object.entries(seenBy)) {
        const { ms, errors } = inWindow(seen, from, to);
        emit({ name: `${base}.${phase}.${name}.p50`, value: percentile(ms, 50), unit: "ms" });
        emit({ name: `${base}.${phase}.${name}.p99`, value: percentile(ms, 99), unit: "ms", baseline: TARGET_P99_MS, ratio: percentile(ms, 99) / TARGET_P99_MS });
        if (errors > 0) log(`${phase} ${name}: ${errors} answers other than 200`);
      }
    };
    probes("idle", idleStarted, started, { health: idleHealthSeen, partnerRead: idlePartnerSeen });
    emit({ name: `${base}.idle.eventLoopMaxDelay`, value: atIdleEnd(MAX_LAG) * 1000, unit: "ms" });
    emit({ name: `${base}.firstBuild.seconds`, value: (firstAt - started) / 1000, unit: "s" });
    emit({ name: `${base}.firstBuild.eventLoopMaxDelay`, value: atFirst(MAX_LAG) * 1000, unit: "ms" });
    probes("firstBuild", started, firstAt);
    probes("load", firstAt, end);
    const proofMs = clientsReport.warm.sort((a, b) => a - b);
    emit({ name: `${base}.load.proofJson.p50`, value: percentile(proofMs, 50), unit: "ms" });
    emit({ name: `${base}.load.proofJson.p99`, value: percentile(proofMs, 99), unit: "ms" });
    emit({ name: `${base}.load.proofJson.throughput`, value: proofMs.length / clientsReport.warmSeconds, unit: "req/s" });
    emit({ name: `${base}.load.eventLoopMaxDelay`, value: atEnd(MAX_LAG) * 1000, unit: "ms" });
    emit({ name: `${base}.load.serviceCpu`, value: (atEnd(CPU) - atFirst(CPU)) / seconds, unit: "cores" });
    emit({ name: `${base}.load.machineLoadAverage`, value: loadAverage, unit: "runnable" });
    const builds = (s: (series: string) => number) => s("prizedraw_proof_builds_total");
    emit({ name: `${base}.builds.firstBuild`, value: builds(atFirst), unit: "builds" });
    emit({ name: `${base}.builds.load`, value: builds(atEnd) - builds(atFirst), unit: "builds" });
    emit({ name: `${base}.load.stateChecks`, value: atEnd("prizedraw_proof_state_checks_total") - atFirst("prizedraw_proof_state_checks_total"), unit: "reads" });
    if (clientsReport.errors > 0) log(`proof.json: ${clientsReport.errors} answers other than 200`);
  } finally {
    await stack.stop();
  }
}

if (isMainThread) {
  void main().catch((error: unknown) => {
    console.error(`bench-provisional-proof: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  });
} else {
  void runClients((workerData as { proofUrl: string }).proofUrl);
}
