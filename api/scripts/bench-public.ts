/**
 * End-to-end and public-read benchmarks for `npm run bench`, as JSON lines { name, value, unit, baseline?, ratio? },
 * on the real stack (anvil, contracts, Ponder, the service process) in a temporary folder:
 * - seconds from the test clock passing a draw time to the drawing's proof being served;
 * - the public reads (a final proof.json, draws.json, the campaign page) under 32 keep-alive connections on loopback:
 *   requests/s and p99, and the same with If-None-Match (304), each beside a bare node:http server answering the
 *   same bytes with the same headers (bareServer.mjs, a process of its own, as the service), alternating twice in
 *   one run; the ratio is service / bare (issue 23's target: 0.7). The load generator runs in this process.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { spawnProcess, stop, until, type Proc } from "../../test/support/processes.js";
import { buildService } from "../../scripts/build-service.mjs";
import { startStack, api } from "../../test/support/stack.js";
import { emit, percentile } from "./benchOutput.js";
import { loadRoute } from "./loadGenerator.js";

const DURATION_MS = 5_000;
const E2E_DRAWINGS = 5;
/** Headers the bare server must not copy: they describe one connection or one response, not the content. */
const PER_RESPONSE = new Set(["date", "connection", "keep-alive", "content-length", "transfer-encoding", "request-id"]);

/** Starts the bare node:http server (bareServer.mjs) on what the service answered for each path. */
async function bareServer(dataDir: string, answers: Record<string, { headers: Record<string, string>; body: Buffer }>): Promise<{ proc: Proc; baseUrl: string }> {
  const file = path.join(dataDir, "bare-routes.json");
  writeFileSync(file, JSON.stringify(Object.fromEntries(Object.entries(answers).map(([p, a]) => [p, { headers: a.headers, body: a.body.toString("base64") }]))));
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "bareServer.mjs");
  const proc = spawnProcess("bare", process.execPath, [script, file], { env: process.env, cwd: dataDir, log: path.join(dataDir, "bare.log") });
  const port = await until("bare server", async () => /port (\d+)/.exec(proc.output())?.[1], 10_000, 50, proc);
  return { proc, baseUrl: `http://127.0.0.1:${port}` };
}

/** What the service answers for `url` (headers lower-cased, less the per-response ones). */
async function answerOf(url: string): Promise<{ headers: Record<string, string>; body: Buffer }> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!PER_RESPONSE.has(name)) headers[name] = value;
  });
  return { headers, body: Buffer.from(await res.arrayBuffer()) };
}

async function main(): Promise<void> {
  await buildService(); // startStack runs the bundles in api/dist
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

    // The proof as most visitors get it: final (cached for a day), 30 blocks after its reveal on the local chain.
    await until("the proof final", async () => ((await (await fetch(proofUrl)).text()).includes('"finality":"final"') ? true : undefined), 120_000, 500);
    const routes: [string, string][] = [
      ["proofJson", new URL(proofUrl).pathname],
      ["drawsJson", "/campaigns/bench/draws.json"],
      ["page", "/campaigns/bench"],
    ];
    const answers = Object.fromEntries(await Promise.all(routes.map(async ([, p]) => [p, await answerOf(`${stack.baseUrl}${p}`)] as const)));
    const bare = await bareServer(stack.dataDir, answers);
    try {
      let errors = 0;
      for (const [name, p] of routes) {
        const etag = answers[p]!.headers.etag;
        // Side by side, twice each, alternating: the machine is shared and its speed drifts within a run.
        const service = [];
        const baseline = [];
        for (let round = 0; round < 2; round++) {
          service.push(await loadRoute(`${stack.baseUrl}${p}`, DURATION_MS / 2));
          baseline.push(await loadRoute(`${bare.baseUrl}${p}`, DURATION_MS / 2));
        }
        const rps = (rs: { rps: number }[]) => rs.reduce((a, r) => a + r.rps, 0) / rs.length;
        const p99 = (rs: { p99: number }[]) => Math.max(...rs.map((r) => r.p99));
        emit({ name: `public.${name}.throughput`, value: rps(service), unit: "req/s", baseline: rps(baseline), ratio: rps(service) / rps(baseline) });
        emit({ name: `public.${name}.p99`, value: p99(service), unit: "ms", baseline: p99(baseline) });
        errors += [...service, ...baseline].reduce((a, r) => a + r.errors, 0);
        if (etag) {
          const conditional = { headers: { "If-None-Match": etag }, okStatus: 304 };
          const s304 = [];
          const b304 = [];
          for (let round = 0; round < 2; round++) {
            s304.push(await loadRoute(`${stack.baseUrl}${p}`, DURATION_MS / 2, conditional));
            b304.push(await loadRoute(`${bare.baseUrl}${p}`, DURATION_MS / 2, conditional));
          }
          emit({ name: `public.${name}.notModified.throughput`, value: rps(s304), unit: "req/s", baseline: rps(b304), ratio: rps(s304) / rps(b304) });
          emit({ name: `public.${name}.notModified.p99`, value: p99(s304), unit: "ms", baseline: p99(b304) });
          errors += [...s304, ...b304].reduce((a, r) => a + r.errors, 0);
        }
      }
      if (errors > 0) console.error(`bench-public: ${errors} failed requests`);
    } finally {
      await stop(bare.proc);
    }
  } finally {
    await stack.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(`bench-public: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
