// Public reads on the real stack: the page, draws.json and final proofs are rendered once per change and kept, yet every
// change shows on the very next GET, with no sleep and no retry: winners posted, the test clock moved, a result
// turning final when the keeper reads a new finalized block, a winner renamed after the draw, and a change made by
// another process (the CLI). Waits are only for the keeper or the chain to take a step; each read after a change
// is one request. Also the headers: strong ETags, Cache-Control, 304 on If-None-Match (exact, weak, in a list).

import { describe, expect, it } from "vitest";
import { storePath } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import { mineBlocks, until } from "../support/processes.js";
import { api, type Stack } from "../support/stack.js";
import { activeCampaign, clockBy, clockPast, getDrawing, openDrawings, type DrawingBody } from "../support/partner.js";
import { useStack } from "../support/suite.js";

const SLUG = "cached-daily";
const LIST_CACHE_CONTROL = "public, max-age=15, stale-while-revalidate=60";
const STRONG_ETAG = /^"[A-Za-z0-9_-]{43}"$/;

type DrawItem = { id: string; drawAt: string; stage: string; winners: number; final: boolean; proof: string | null };
type Draws = { campaign: { status: string; name: string }; draws: DrawItem[] };

let stack: Stack;
let key: string;
let first: DrawingBody;
let second: DrawingBody;

/** One GET; its status, headers and text. */
async function get(route: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${stack.baseUrl}${route}`, { headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}
const drawsJson = async () => {
  const r = await get(`/campaigns/${SLUG}/draws.json`);
  expect(r.status).toBe(200);
  return { ...r, body: JSON.parse(r.text) as Draws };
};
const page = async () => {
  const r = await get(`/campaigns/${SLUG}`);
  expect(r.status).toBe(200);
  return r;
};
const proofRoute = () => `/campaigns/${SLUG}/draws/${first.id}/proof.json`;
const proof = async () => {
  const r = await get(proofRoute());
  expect(r.status).toBe(200);
  return { ...r, body: JSON.parse(r.text) as { finality: string; results: { winner: string; displayName: string | null }[] } };
};
const partner = (id: string) => getDrawing(stack, key, SLUG, id, { check: false });
const item = (draws: Draws, id: string) => draws.draws.find((d) => d.id === id);
/** The page's "Next drawing" paragraph. */
const nextDrawingText = (html: string) => /<h3>Next drawing<\/h3>\s*<p>([\s\S]*?)<\/p>/.exec(html)?.[1] ?? null;
/** The campaign's public version, read from the store file as any other process would. */
async function storeVersion(): Promise<number> {
  const store = await openServiceStore(storePath(stack.dataDir));
  try {
    return await store.publicVersions.get((await store.campaigns.bySlug(SLUG))!.id);
  } finally {
    await store.close();
  }
}

useStack("cache-owner@example.com", async (started) => {
  ({ stack, key } = started);
  await activeCampaign(stack, started.accountId, SLUG, { name: "Cached Daily", winners: 2 });
  const open = await openDrawings(stack, key, SLUG);
  [first, second] = [open[0]!, open[1]!];
  expect(second.drawAt > first.drawAt).toBe(true);
});

describe("public reads after each change", () => {
  it("winners posted for the open drawing show on the next draws.json", async () => {
    const before = await drawsJson();
    expect(item(before.body, first.id)).toMatchObject({ stage: "open", winners: 0 });
    expect((await drawsJson()).headers.get("etag")).toBe(before.headers.get("etag")); // kept: the same bytes
    const pageBefore = await page();
    expect(nextDrawingText(pageBefore.text)).toContain(`datetime="${first.drawAt}"`);

    const posted = await api(stack, "POST", `/api/v1/campaigns/${SLUG}/drawings/${first.id}/winners`, { key, body: { winners: [{ winner: "u-1", displayName: "Ada" }, "u-2"] } });
    expect(posted.status).toBe(201);
    const after = await drawsJson();
    expect(item(after.body, first.id)).toMatchObject({ stage: "open", winners: 2 });
    expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"));
    // The page lists no open drawing's winners (only drawn ones), so it has nothing to change here; it still answers.
    expect((await page()).text).toContain("Cached Daily");
  });

  it("a moved test clock shows on the next draws.json and page: the second drawing becomes the next", async () => {
    const before = await drawsJson();
    // draws.json lists up to the next drawing: the second is not listed yet.
    expect(item(before.body, second.id)).toBeUndefined();
    const pageBefore = await page();
    expect(nextDrawingText(pageBefore.text)).toContain(`datetime="${first.drawAt}"`);
    expect(pageBefore.text).not.toContain(`id="draw-${first.id}"`);

    const moved = await clockPast(stack, key, SLUG, first, { check: false });
    expect(moved.status).toBe(200);
    const after = await drawsJson();
    expect(item(after.body, second.id)).toMatchObject({ stage: "open", winners: 0 });
    expect(item(after.body, first.id)).toBeDefined();
    const pageAfter = await page();
    expect(nextDrawingText(pageAfter.text)).toContain(`datetime="${second.drawAt}"`);
    expect(nextDrawingText(pageAfter.text)).not.toContain(`datetime="${first.drawAt}"`);
    // The first drawing moved from the schedule section into the list of draws.
    expect(pageAfter.text).toContain(`id="draw-${first.id}"`);
  });

  it("a paid result is provisional, then final on the next reads once the keeper has read a finalized block past it", async () => {
    await until("the first drawing paid", async () => ((await partner(first.id)).status === "paid" ? true : undefined), 90_000, 100);
    const provisional = await drawsJson();
    expect(item(provisional.body, first.id)).toMatchObject({ stage: "paid", winners: 2, final: false });
    const p = await proof();
    expect(p.body.finality).toBe("provisional");
    expect(p.headers.get("cache-control")).toBe("public, no-cache");
    expect(p.headers.get("etag")).toMatch(STRONG_ETAG);
    expect((await page()).text).toContain("provisional: not yet final onchain");
    expect((await drawsJson()).headers.get("etag")).toBe(provisional.headers.get("etag")); // kept
    const versionProvisional = await storeVersion();

    // Past the local chain's 30-block finality depth, one block at a time (Ponder follows each); then the keeper's
    // next cycle reads the new finalized block, which the partner API shows as verification.final.
    await mineBlocks(stack.rpcUrl, 40);
    await until("the keeper's read of the finalized block", async () => ((await partner(first.id)).verification.final ? true : undefined), 60_000, 100);
    const final = await drawsJson();
    expect(item(final.body, first.id)).toMatchObject({ stage: "paid", final: true });
    expect(final.headers.get("etag")).not.toBe(provisional.headers.get("etag"));
    const f = await proof();
    expect(f.body.finality).toBe("final");
    expect(f.headers.get("cache-control")).toBe("public, max-age=86400");
    expect((await page()).text).not.toContain("provisional: not yet final onchain");
    // No write marked it: the kept draws.json was dropped because the finalized block reached its finalAt.
    expect(await storeVersion()).toBe(versionProvisional);
  });

  it("a final proof keeps its ETag and answers 304; a winner renamed after the draw shows at once with a new ETag", async () => {
    const a = await proof();
    const b = await proof();
    expect(a.body.finality).toBe("final");
    const etag = a.headers.get("etag")!;
    expect(etag).toMatch(STRONG_ETAG);
    expect(b.headers.get("etag")).toBe(etag);
    expect(b.text).toBe(a.text);
    const notModified = await get(proofRoute(), { "if-none-match": etag });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe("");
    expect(notModified.headers.get("etag")).toBe(etag);
    expect(notModified.headers.get("cache-control")).toBe("public, max-age=86400");
    expect(a.body.results.map((r) => r.displayName)).toEqual(["Ada", null]);
    expect((await page()).text).not.toContain("Ada Lovelace");

    const renamed = await api(stack, "POST", `/api/v1/campaigns/${SLUG}/drawings/${first.id}/winners`, { key, body: { winners: [{ winner: "u-1", displayName: "Ada Lovelace" }, "u-2"] } });
    expect(renamed.status).toBe(200);
    const c = await proof();
    expect(c.body.finality).toBe("final");
    expect(c.body.results.map((r) => [r.winner, r.displayName])).toEqual([["u-1", "Ada Lovelace"], ["u-2", null]]);
    expect(c.headers.get("etag")).toMatch(STRONG_ETAG);
    expect(c.headers.get("etag")).not.toBe(etag);
    // The old ETag no longer matches: the new bytes come back.
    const stale = await get(proofRoute(), { "if-none-match": etag });
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(c.text);
    expect((await page()).text).toContain("Ada Lovelace");
    expect((await partner(first.id)).winners.map((w) => w.displayName)).toEqual(["Ada Lovelace", null]);
  });

  it("a change made by another process (the CLI pausing the campaign) shows on the next draws.json and page", async () => {
    const before = await drawsJson();
    expect(before.body.campaign.status).toBe("active");
    expect((await drawsJson()).headers.get("etag")).toBe(before.headers.get("etag"));
    const pageBefore = await page();
    expect(nextDrawingText(pageBefore.text)).toContain(`datetime="${second.drawAt}"`);

    await stack.cli("campaign", "pause", SLUG);
    const after = await drawsJson();
    expect(after.body.campaign.status).toBe("paused");
    expect(item(after.body, second.id)).toBeUndefined(); // pausing removed the drawings ahead
    expect(nextDrawingText((await page()).text)).toContain("the campaign is paused.");
  });

  it("a kept render, answered before Hono (http/publicFastPath.ts), carries the route's headers and bytes", async () => {
    // A write (the test clock) makes the next read of each route a miss, rendered by Hono; the read after it is a hit.
    await clockBy(stack, key, SLUG, "1s");
    const perResponse = new Set(["date", "request-id", "connection", "keep-alive"]);
    const comparable = (h: Headers) => [...h.entries()].filter(([name]) => !perResponse.has(name)).sort();
    for (const route of [`/campaigns/${SLUG}/draws.json`, `/campaigns/${SLUG}`, proofRoute()]) {
      const miss = await get(route);
      const hit = await get(route, { "Request-Id": "support-case-4711" });
      expect(hit.status, route).toBe(200);
      expect(hit.text, route).toBe(miss.text);
      expect(comparable(hit.headers), route).toEqual(comparable(miss.headers));
      expect(hit.headers.get("request-id"), route).toBe("support-case-4711");
      expect(miss.headers.get("request-id"), route).toMatch(/^req_[0-9a-z]{26}$/);
      const notModified = await get(route, { "if-none-match": miss.headers.get("etag")! });
      expect(notModified.status, route).toBe(304);
      expect(notModified.headers.get("access-control-allow-origin"), route).toBe("*");
    }
  });

  it("draws.json and the page carry a strong ETag and the list Cache-Control, and answer 304 to exact, weak and listed tags", async () => {
    for (const route of [`/campaigns/${SLUG}/draws.json`, `/campaigns/${SLUG}`]) {
      const r = await get(route);
      expect(r.status, route).toBe(200);
      const etag = r.headers.get("etag")!;
      expect(etag, route).toMatch(STRONG_ETAG);
      expect(r.headers.get("cache-control"), route).toBe(LIST_CACHE_CONTROL);
      for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, `W/"nope",W/${etag}`, "*"]) {
        const n = await get(route, { "if-none-match": header });
        expect(n.status, `${route} If-None-Match: ${header}`).toBe(304);
        expect(n.text).toBe("");
        expect(n.headers.get("etag"), route).toBe(etag);
        expect(n.headers.get("cache-control"), route).toBe(LIST_CACHE_CONTROL);
      }
      for (const header of ['"nope"', `W/"nope"`, etag.slice(0, -2) + '"']) {
        const other = await get(route, { "if-none-match": header });
        expect(other.status, `${route} If-None-Match: ${header}`).toBe(200);
        expect(other.text, route).toBe(r.text);
      }
    }
  });
});
