/**
 * Two service processes against one, for `npm run bench`, as JSON lines { name, value, unit, baseline?, ratio? }:
 * the real stack (anvil, contracts, Ponder, service A) with its store in PostgreSQL (a private server, STORE_URL),
 * plus a second service process B on the same store, as two instances behind a load balancer would run. One final
 * drawing's proof.json (the cached public read: each process keeps its own render, checked against the campaign's
 * version in the shared store on every request) under 32 keep-alive connections on loopback:
 * (a) all 32 against A alone, (b) 16 against A and 16 against B at once (the rates summed, the worse p99),
 * alternating a/b twice in one run. Baseline = one process, ratio = two / one.
 *
 * The load generator runs in this process, on the same machine as both services, PostgreSQL, anvil and Ponder: on a
 * 2-core machine the ratio stays well under 2 (the cores, not the service, are what runs out).
 */
import path from "node:path";
import { buildService } from "../../scripts/build-service.mjs";
import { startPostgres, type Postgres } from "../../test/support/postgres.js";
import { REPO_ROOT, SERVICE_ARGS, freePort, mineBlocks, spawnProcess, stop, until, type Proc } from "../../test/support/processes.js";
import { api, startStack, type Stack } from "../../test/support/stack.js";
import { emit } from "./benchOutput.js";
import { loadRoute, type LoadResult } from "./loadGenerator.js";

/** Each measurement lasts this long; two of each kind, alternating. */
const ROUND_MS = 2_500;
const ROUNDS = 2;
const CONNECTIONS = 32;

async function main(): Promise<void> {
  let postgres: Postgres | undefined;
  let stack: Stack | undefined;
  let serviceB: Proc | undefined;
  try {
    // SERVICE_ARGS (and startStack's service and CLI) run the bundles in api/dist: built from the source first,
    // as vitest's global setup does, so the benchmark never measures an older build.
    await buildService();
    postgres = await startPostgres();
    await postgres.query("CREATE DATABASE bench_processes");
    const storeUrl = postgres.url.replace(/\/postgres$/, "/bench_processes");
    // stack.env carries STORE_URL to service A, to the CLI and to service B.
    stack = await startStack({ extraEnv: { STORE_URL: storeUrl } });
    const bPort = await freePort();
    const b = { baseUrl: `http://127.0.0.1:${bPort}` };
    serviceB = spawnProcess("service B", process.execPath, [...SERVICE_ARGS], { env: { ...stack.env, PORT: String(bPort) }, cwd: REPO_ROOT, log: path.join(stack.dataDir, "service-b.log") });
    await until("service B", async () => ((await fetch(`${b.baseUrl}/health`)).ok ? true : undefined), 30_000, 100, serviceB);

    // One final drawing: a push campaign, its winners, the test clock past the draw time, the proof served.
    const accountId = (await stack.cli("account", "create", "--email", "bench@example.com")).accountId as string;
    const key = (await stack.cli("key", "create", "--account", accountId)).key as string;
    await stack.cli("campaign", "create", "--account", accountId, "--slug", "bench", "--name", "Bench", "--mode", "push", "--cadence", "daily", "--winners", "10", "--payout-wallet", "0x00000000000000000000000000000000000000a1");
    await stack.cli("campaign", "activate", "bench");
    const open = ((await api(stack, "GET", "/api/v1/campaigns/bench/drawings?status=open", { key })).body.drawings as { id: string; drawAt: string }[])[0]!;
    const winners = await api(stack, "POST", `/api/v1/campaigns/bench/drawings/${open.id}/winners`, { key, body: { winners: Array.from({ length: 10 }, (_, w) => `w-${w}`) } });
    if (winners.status !== 201) throw new Error(`winners answered ${winners.status}`);
    const moved = await api(stack, "POST", "/api/v1/campaigns/bench/test-clock", { key, body: { advanceTo: new Date(Date.parse(open.drawAt) + 1_000).toISOString() } });
    if (moved.status !== 200) throw new Error(`test clock answered ${moved.status}`);
    const proofPath = `/campaigns/bench/draws/${open.id}/proof.json`;
    await until("the proof served", async () => ((await fetch(`${stack!.baseUrl}${proofPath}`)).status === 200 ? true : undefined), 120_000, 200);
    // Final: past the local chain's 30-block finality depth, one block at a time (Ponder follows each), then the
    // keeper's next read of the finalized block. Both processes serve it final, from their own kept render.
    await mineBlocks(stack.rpcUrl, 40);
    for (const s of [stack, b]) {
      await until(`the proof final (${s.baseUrl})`, async () => ((await (await fetch(`${s.baseUrl}${proofPath}`)).text()).includes('"finality":"final"') ? true : undefined), 120_000, 250);
    }
    const [bodyA, bodyB] = await Promise.all([stack, b].map(async (s) => (await fetch(`${s.baseUrl}${proofPath}`)).text()));
    if (bodyA !== bodyB) throw new Error("the two processes serve different proofs");

    // (a) one process, 32 connections; (b) two processes, 16 connections each, at once. Alternating, twice.
    const one: LoadResult[] = [];
    const two: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      one.push(await loadRoute(`${stack.baseUrl}${proofPath}`, ROUND_MS, { concurrency: CONNECTIONS }));
      const [onA, onB] = await Promise.all([stack.baseUrl, b.baseUrl].map((u) => loadRoute(`${u}${proofPath}`, ROUND_MS, { concurrency: CONNECTIONS / 2 })));
      two.push({ rps: onA!.rps + onB!.rps, p50: Math.max(onA!.p50, onB!.p50), p99: Math.max(onA!.p99, onB!.p99), errors: onA!.errors + onB!.errors });
    }
    const rps = (rs: LoadResult[]) => rs.reduce((sum, r) => sum + r.rps, 0) / rs.length;
    const p99 = (rs: LoadResult[]) => Math.max(...rs.map((r) => r.p99));
    emit({ name: "public.proofJson.twoProcesses.throughput", value: rps(two), unit: "req/s", baseline: rps(one), ratio: rps(two) / rps(one) });
    emit({ name: "public.proofJson.twoProcesses.p99", value: p99(two), unit: "ms", baseline: p99(one) });
    const errors = [...one, ...two].reduce((sum, r) => sum + r.errors, 0);
    if (errors > 0) console.error(`bench-processes: ${errors} failed requests`);
  } finally {
    await stop(serviceB);
    await stack?.stop();
    await postgres?.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(`bench-processes: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
