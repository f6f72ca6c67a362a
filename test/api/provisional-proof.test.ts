// A drawing's proof on the real stack is built once per state of what it shows, never per request: once when the
// result is known (provisional), once when it is final. Counted by the service's own metric,
// prizedraw_proof_builds_total on GET /metrics. Concurrent requests share the build, later ones are answered from it
// (the kept body is checked against the indexer meanwhile, which rebuilds nothing while the chain shows the same
// result), a write that changes nothing the proof shows keeps it, a fresh process builds the same bytes, and the
// proof is never answered under another campaign's URL.
//
// Interval mining is paused once the drawing is paid (the mock provider reveals only in a later block, so it runs
// until then): blocks then come only with transactions, none of which follow, so the result stays provisional until
// the test mines past the local chain's 30-block finality depth.

import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { jsonRpc, mineBlocks, until } from "../support/processes.js";
import { parseExposition } from "../support/prometheus.js";
import { TEST_WALLET, api, type Stack } from "../support/stack.js";
import { clockPast, getDrawing } from "../support/partner.js";
import { useStack } from "../support/suite.js";

const OWN = "proof-own";
const OTHER = "proof-other";
const ENTRANTS = 3_000;
const CONCURRENT = 16;
const SEQUENTIAL = 16;

let stack: Stack;
let key: string;
let accountId: string;
let drawingId: string;
/** The provisional body as first served. */
let provisional: string;

useStack("proofs-owner@example.com", (started) => ({ stack, key, accountId } = started));

type Answer = { status: number; etag: string | null; cacheControl: string | null; text: string };

async function get(slug: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${stack.baseUrl}/campaigns/${slug}/draws/${drawingId}/proof.json`, { headers });
  return { status: response.status, etag: response.headers.get("etag"), cacheControl: response.headers.get("cache-control"), text: await response.text() };
}

/**
 * A counter of the service process, summed over the series whose labels include `labels` (0 while it has none).
 * Only its own lines are parsed: two scrapes in a row can show the event loop gauges as "Nan" (prom-client resets
 * their histogram at each scrape), which the strict parser of test/support/prometheus.ts refuses.
 */
async function counter(name: string, labels: Record<string, string> = {}): Promise<number> {
  const own = (await (await fetch(`${stack.baseUrl}/metrics`)).text()).split("\n").filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
  const family = parseExposition(`# HELP ${name} -\n# TYPE ${name} counter\n${own.join("\n")}\n`).get(name);
  const matching = family?.samples.filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v)) ?? [];
  return matching.reduce((sum, s) => sum + s.value, 0);
}
const builds = (finality: "provisional" | "final") => counter("prizedraw_proof_builds_total", { finality });

const finalityOf = (text: string) => (JSON.parse(text) as { finality: string }).finality;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  await stack.cli("campaign", "create", "--account", accountId, "--slug", OWN, "--name", "Proof Own", "--mode", "entries", "--cadence", "daily", "--winners", "3", "--payout-wallet", TEST_WALLET);
  await stack.cli("campaign", "activate", OWN);
  await stack.cli("campaign", "create", "--account", accountId, "--slug", OTHER, "--name", "Proof Other", "--mode", "push", "--cadence", "daily", "--payout-wallet", TEST_WALLET);
  await stack.cli("campaign", "activate", OTHER);
  for (let batch = 0; batch < ENTRANTS / 1_000; batch++) {
    const entries = Array.from({ length: 1_000 }, (_, i) => ({ entrantId: `pp-${batch}-${i}`, weight: 1 + (i % 4) }));
    expect((await api(stack, "POST", `/api/v1/campaigns/${OWN}/entries`, { key, body: { entries } })).status).toBe(200);
  }
  const open = ((await api(stack, "GET", `/api/v1/campaigns/${OWN}/drawings?status=open`, { key })).body.drawings as { id: string; cutoffAt: string }[])[0]!;
  drawingId = open.id;
  await clockPast(stack, key, OWN, open);
  await until("the drawing paid", async () => ((await getDrawing<{ status: string }>(stack, key, OWN, drawingId)).status === "paid" ? true : undefined), 90_000, 250);
  await jsonRpc(stack.rpcUrl, "evm_setIntervalMining", [0]);
  expect((await getDrawing<{ verification: { final: boolean } }>(stack, key, OWN, drawingId)).verification.final).toBe(false);
}, 180_000);

describe("a provisional proof", () => {
  it("is built once for N concurrent and N sequential requests, and never answered under another campaign's URL", async () => {
    const before = await builds("provisional");
    // Under both URLs at once, so that those under the other campaign's arrive while the proof is being built.
    const replies = await Promise.all(Array.from({ length: 2 * CONCURRENT }, (_, i) => get(i % 2 === 0 ? OWN : OTHER)));
    const own = replies.filter((_, i) => i % 2 === 0);
    expect(replies.filter((_, i) => i % 2 === 1).map((r) => r.status)).toEqual(Array.from({ length: CONCURRENT }, () => 404));
    expect(own.map((r) => r.status)).toEqual(Array.from({ length: CONCURRENT }, () => 200));
    provisional = own[0]!.text;
    expect(finalityOf(provisional)).toBe("provisional");
    expect((JSON.parse(provisional) as { entrants: { count: number } }).entrants.count).toBe(ENTRANTS);
    for (const r of own) {
      expect(r.text).toBe(provisional);
      expect(r.cacheControl).toBe("public, no-cache");
    }
    const checksBefore = await counter("prizedraw_proof_state_checks_total");
    // Spread over more than two seconds: the kept body is checked against the indexer meanwhile (at most once a
    // second), which must find the same chain state and rebuild nothing.
    for (let i = 0; i < SEQUENTIAL; i++) {
      const r = await get(OWN);
      expect(r.status).toBe(200);
      expect(r.text).toBe(provisional);
      expect((await get(OTHER)).status).toBe(404);
      await sleep(150);
    }
    expect(await builds("provisional")).toBe(before + 1);
    expect(await counter("prizedraw_proof_state_checks_total")).toBeGreaterThanOrEqual(checksBefore + 2);
    // Built in the proof worker, not on the event loop (the service warns when it has to).
    expect(readFileSync(stack.service.log, "utf8")).not.toContain("built on the service's event loop");
  });

  it("is kept across a write that changes nothing it shows (the test clock), with its ETag and 304s", async () => {
    const before = await builds("provisional");
    const kept = await get(OWN);
    expect((await api(stack, "POST", `/api/v1/campaigns/${OWN}/test-clock`, { key, body: { advanceBy: "1s" } })).status).toBe(200);
    const after = await get(OWN);
    expect(after.text).toBe(provisional);
    expect(after.etag).toBe(kept.etag);
    const notModified = await get(OWN, { "if-none-match": kept.etag! });
    expect(notModified.status).toBe(304);
    expect(await builds("provisional")).toBe(before);
  });

  it("is byte for byte what a fresh process builds", async () => {
    await stack.restartService();
    const fresh = await get(OWN);
    expect(fresh.status).toBe(200);
    expect(fresh.text).toBe(provisional);
    expect(await builds("provisional")).toBe(1);
  });
});

describe("once the result is final", () => {
  it("is built once more, final, for N concurrent and N sequential requests, and a fresh process builds the same bytes", async () => {
    const [provisionalBefore, finalBefore] = [await builds("provisional"), await builds("final")];
    await mineBlocks(stack.rpcUrl, 40); // past the 30-block finality depth, one block at a time (Ponder follows each)
    await until("the keeper's read of the finalized block", async () => ((await getDrawing<{ verification: { final: boolean } }>(stack, key, OWN, drawingId)).verification.final ? true : undefined), 60_000, 100);
    const concurrent = await Promise.all(Array.from({ length: CONCURRENT }, () => get(OWN)));
    const final = concurrent[0]!.text;
    expect(finalityOf(final)).toBe("final");
    // Everything but the finality is the provisional body's.
    expect(JSON.parse(final)).toEqual({ ...(JSON.parse(provisional) as object), finality: "final" });
    for (let i = 0; i < SEQUENTIAL; i++) concurrent.push(await get(OWN));
    for (const r of concurrent) {
      expect(r.status).toBe(200);
      expect(r.text).toBe(final);
      expect(r.cacheControl).toBe("public, max-age=86400");
    }
    expect((await get(OTHER)).status).toBe(404);
    expect([await builds("provisional"), await builds("final")]).toEqual([provisionalBefore, finalBefore + 1]);

    await stack.restartService();
    expect((await get(OWN)).text).toBe(final);
    expect(await builds("final")).toBe(1);
  });
});
