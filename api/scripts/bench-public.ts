/**
 * End-to-end and public-read benchmarks for `npm run bench`, as JSON lines { name, value, unit, baseline?, ratio? },
 * on the real stack (anvil, contracts, Ponder, the service process) in a temporary folder:
 * - seconds from the test clock passing a draw time to the drawing's proof being served;
 * - proof.json (cached) and draws.json under bounded concurrent load on loopback: requests/s and p99, from a
 *   keep-alive load generator in this process (the service runs in its own).
 */
import http from "node:http";
import { startStack, api } from "../../test/support/stack.js";
import { emit, percentile } from "./benchOutput.js";

const CONCURRENCY = 32;
const DURATION_MS = 5_000;
const E2E_DRAWINGS = 5;

/** GETs `url` from CONCURRENCY keep-alive loops for DURATION_MS; returns requests/s and latency percentiles. */
async function load(url: string): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const target = new URL(url);
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + DURATION_MS;
  const one = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = http.get({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, agent }, (res) => {
        res.on("data", () => undefined);
        res.on("end", () => {
          if (res.statusCode === 200) latencies.push(performance.now() - started);
          else errors++;
          resolve();
        });
      });
      req.on("error", () => {
        errors++;
        resolve();
      });
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) await one();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

async function main(): Promise<void> {
  const stack = await startStack();
  try {
    const accountId = (await stack.cli("account", "create", "--email", "bench@example.com")).accountId as string;
    const key = (await stack.cli("key", "create", "--account", accountId)).key as string;
    await stack.cli("campaign", "create", "--account", accountId, "--slug", "bench", "--name", "Bench", "--mode", "push", "--cadence", "daily", "--winners", "10", "--payout-wallet", "0x00000000000000000000000000000000000000a1");
    await stack.cli("campaign", "activate", "bench");
    // Five drawings one after another; the median is the figure (one sample moved by 2x between runs here).
    const seconds: number[] = [];
    let proofUrl = "";
    for (let i = 0; i < E2E_DRAWINGS; i++) {
      const open = ((await api(stack, "GET", "/api/v1/campaigns/bench/drawings?status=open", { key })).body.drawings as { id: string; drawAt: string }[])[0]!;
      await api(stack, "POST", `/api/v1/campaigns/bench/drawings/${open.id}/winners`, { key, body: { winners: Array.from({ length: 10 }, (_, w) => `b-${i}-${w}`) } });
      proofUrl = `${stack.baseUrl}/campaigns/bench/draws/${open.id}/proof.json`;
      const started = performance.now();
      await api(stack, "POST", "/api/v1/campaigns/bench/test-clock", { key, body: { advanceTo: new Date(new Date(open.drawAt).getTime() + 1_000).toISOString() } });
      for (;;) {
        if ((await fetch(proofUrl)).status === 200) break;
        if (performance.now() - started > 60_000) throw new Error("the proof was not served within 60 s");
        await new Promise((r) => setTimeout(r, 50));
      }
      seconds.push((performance.now() - started) / 1000);
    }
    seconds.sort((a, b) => a - b);
    emit({ name: `e2e.testClockPastDrawTime.toProofServed.median${E2E_DRAWINGS}`, value: percentile(seconds, 50), unit: "s" });
    emit({ name: `e2e.testClockPastDrawTime.toProofServed.max${E2E_DRAWINGS}`, value: seconds[seconds.length - 1]!, unit: "s" });

    const proof = await load(proofUrl);
    emit({ name: "public.proofJson.cached.throughput", value: proof.rps, unit: "req/s" });
    emit({ name: "public.proofJson.cached.p99", value: proof.p99, unit: "ms" });
    const draws = await load(`${stack.baseUrl}/campaigns/bench/draws.json`);
    emit({ name: "public.drawsJson.throughput", value: draws.rps, unit: "req/s", baseline: proof.rps, ratio: draws.rps / proof.rps });
    emit({ name: "public.drawsJson.p99", value: draws.p99, unit: "ms" });
    const health = await load(`${stack.baseUrl}/health`);
    // The ceiling of this process pair: the cheapest route, measured the same way in the same run.
    emit({ name: "public.proofJson.cached.vsHealth", value: proof.rps, unit: "req/s", baseline: health.rps, ratio: proof.rps / health.rps });
    if (proof.errors + draws.errors + health.errors > 0) console.error(`bench-public: ${proof.errors + draws.errors + health.errors} failed requests`);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`bench-public: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
