/**
 * Where the public reads spend their time (issue 23): the service under --cpu-prof, one profile per route, each
 * loaded by the same keep-alive generator as `npm run bench`. Prints each route's top self-time functions and the
 * share of a few layers (Hono, the request-id middleware, the access log, JSON, the store, rendering).
 * Usage: npx tsx api/scripts/profile-public.ts [seconds per route]
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO_ROOT, SERVICE_ARGS, spawnProcess, stop, until } from "../../test/support/processes.js";
import { buildService } from "../../scripts/build-service.mjs";
import { api, startStack } from "../../test/support/stack.js";
import { loadRoute } from "./loadGenerator.js";

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number };

/** Self time per function and per layer, over the samples taken between `from` and `to` (µs, monotonic clock). */
function summarise(file: string, from: number, to: number): { total: number; top: [string, number][]; layers: Record<string, number> } {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const layers: Record<string, number> = {};
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    if (at < from || at > to) return;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === "(idle)") return;
    total += dt;
    const f = node.callFrame;
    const name = `${f.functionName || "(anon)"} ${f.url.replace(/^.*node_modules\//, "").replace(/^.*\/api\/src\//, "src/")}:${f.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + dt);
    // Attribute the sample to the innermost layer on its stack.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const url = byId.get(cur)!.callFrame.url;
      const layer = /pino|sonic-boom/.test(url) ? "log" : /requestId/.test(url) ? "requestId" : /hono\/dist/.test(url) ? "hono" : /@hono\/node-server/.test(url) ? "node-server" : /better-sqlite3|\/store\//.test(url) ? "store" : /jsx|page/.test(url) ? "render" : /\/domain\//.test(url) ? "domain" : /node:(_http|http|net|stream)|^node:internal\/(http|streams|net)/.test(url) ? "node-http" : "";
      if (layer && !seen.has(layer)) {
        seen.add(layer);
        layers[layer] = (layers[layer] ?? 0) + dt;
      }
    }
  });
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15);
  return { total, top, layers };
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 4);
  const profDir = mkdtempSync(path.join(tmpdir(), "prizedraw-prof-"));
  await buildService(); // startStack and SERVICE_ARGS run the bundles in api/dist
  const stack = await startStack();
  try {
    const accountId = (await stack.cli("account", "create", "--email", "prof@example.com")).accountId as string;
    const key = (await stack.cli("key", "create", "--account", accountId)).key as string;
    await stack.cli("campaign", "create", "--account", accountId, "--slug", "prof", "--name", "Prof", "--mode", "push", "--cadence", "daily", "--winners", "10", "--payout-wallet", "0x00000000000000000000000000000000000000a1");
    await stack.cli("campaign", "activate", "prof");
    let proofUrl = "";
    for (let i = 0; i < 6; i++) {
      const open = ((await api(stack, "GET", "/api/v1/campaigns/prof/drawings?status=open", { key })).body.drawings as { id: string; drawAt: string }[])[0]!;
      await api(stack, "POST", `/api/v1/campaigns/prof/drawings/${open.id}/winners`, { key, body: { winners: Array.from({ length: 10 }, (_, w) => `p-${i}-${w}`) } });
      await api(stack, "POST", "/api/v1/campaigns/prof/test-clock", { key, body: { advanceTo: new Date(Date.parse(open.drawAt) + 1_000).toISOString() } });
      proofUrl = `${stack.baseUrl}/campaigns/prof/draws/${open.id}/proof.json`;
      while ((await fetch(proofUrl)).status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    // Wait until final (30 blocks on the local chain) so proof.json is the cached one.
    while (!(await (await fetch(proofUrl)).text()).includes('"finality":"final"')) await new Promise((r) => setTimeout(r, 500));
    const pageUrl = `${stack.baseUrl}/campaigns/prof`;
    const pageEtag = (await fetch(pageUrl)).headers.get("etag");
    const routes: [string, string, Record<string, string>?][] = [
      ["proof.json", proofUrl],
      ["draws.json", `${stack.baseUrl}/campaigns/prof/draws.json`],
      ["page", pageUrl],
      ["page 304", pageUrl, pageEtag ? { "If-None-Match": pageEtag } : {}],
      ["health", `${stack.baseUrl}/health`],
    ];
    // --cpu-prof is refused in NODE_OPTIONS: the stack's service makes way for one started here with the flag.
    await stop(stack.service);
    for (const [name, url, headers] of routes) {
      const dir = path.join(profDir, name.replace(/\W+/g, "-"));
      const okStatus = name.endsWith("304") ? 304 : 200;
      const service = spawnProcess("service", process.execPath, [`--cpu-prof`, `--cpu-prof-dir=${dir}`, ...SERVICE_ARGS], { env: stack.env, cwd: REPO_ROOT, log: path.join(stack.dataDir, `service-${name}.log`) });
      await until("service", async () => ((await fetch(`${stack.baseUrl}/health`).catch(() => null))?.ok ? true : undefined), 30_000, 100, service);
      await loadRoute(url, 1_000, { headers, okStatus }); // warm-up
      // V8 stamps samples with the same monotonic clock as hrtime: only the measured load counts, not start-up.
      const from = Number(process.hrtime.bigint() / 1000n);
      const result = await loadRoute(url, seconds * 1_000, { headers, okStatus });
      const to = Number(process.hrtime.bigint() / 1000n);
      await stop(service);
      const file = readdirSync(dir).map((f) => path.join(dir, f)).sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
      const s = summarise(file, from, to);
      console.log(`\n== ${name}: ${result.rps.toFixed(0)} req/s, p99 ${result.p99.toFixed(1)} ms; profile ${file}`);
      for (const [layer, us] of Object.entries(s.layers).sort((a, b) => b[1] - a[1])) console.log(`  layer ${layer.padEnd(12)} ${((100 * us) / s.total).toFixed(1)}%`);
      for (const [fn, us] of s.top) console.log(`  ${((100 * us) / s.total).toFixed(1).padStart(5)}%  ${fn}`);
    }
  } finally {
    await stack.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
