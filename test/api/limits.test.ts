// Lists at the spec's limits, on the real stack: the largest legal winner list (winnersPerDraw at its maximum, every
// id, name and avatar URL at its longest, written in the widest JSON a client library produces) and the largest
// legal entries request are taken, pushed or pulled; larger bodies are refused (413, with a length or chunked), a
// client that goes away mid-body is logged at info, not as an error; and every winner carries
// `heldForManualPayout`, from the posted list to the settled draw.
//
// Decisions (README, "Lists, keys and production"): a campaign whose winners are sent (push) or fetched (pull)
// takes at most 1,000 winners per draw (entries campaigns keep 100,000: their winners are drawn, never sent);
// POST winners, POST entries and pull responses take bodies up to 32 MiB, every other route 4 MiB.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { MAX_LISTED_WINNERS_PER_DRAW } from "../../api/src/domain/campaigns.js";
import { MAX_BODY_BYTES } from "../../api/src/http/schemas.js";
import { MAX_LIST_BODY_BYTES, MAX_WINNERS_PER_DRAW } from "../../api/src/lists/schemas.js";
import { fetchWinnerList } from "../../api/src/pull/fetcher.js";
import { until } from "../support/processes.js";
import { api, type Stack } from "../support/stack.js";
import { useStack } from "../support/suite.js";
import { clockPast, draftCampaign, getDrawing, type DrawingBody } from "../support/partner.js";
import { abortMidBody, postBody, requestLines } from "../support/rawBody.js";

let stack: Stack;
let accountId: string;
let key: string;


const MiB = 1024 * 1024;
const LARGE_PRIZE_THRESHOLD = 1_000;

// The longest legal values, every character a 4-byte UTF-8 code point (12 bytes as a JSON \u escape pair).
const astral = (n: number) => String.fromCodePoint(0x1f300 + n);
const longestId = (i: number) => "😀".repeat(198) + astral(Math.floor(i / 64)) + astral(i % 64);
const longestName = "😀".repeat(40);
const longestAvatar = "https://a/" + "😀".repeat(2_048 - 10);

/** JSON with every non-ASCII UTF-16 unit written as \uXXXX: what Python's json.dumps sends by default. */
const asciiJson = (value: unknown) => JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

const largestWinners = (n: number) => Array.from({ length: n }, (_, i) => ({ winner: longestId(i), displayName: longestName, avatarUrl: longestAvatar }));
const largestEntries = (n: number, offset = 0) => Array.from({ length: n }, (_, i) => ({ entrantId: longestId(i + offset), weight: 4_294_967_295, displayName: longestName, avatarUrl: longestAvatar }));

const campaign = (slug: string, mode: "push" | "pull" | "entries", winners: number, extra: string[] = []) =>
  draftCampaign(stack, accountId, slug, { name: `Limits ${slug}`, mode, winners, flags: ["--hour", "20", "--timezone", "UTC", ...extra] });

async function openDrawings(slug: string): Promise<DrawingBody[]> {
  return until(`${slug} open drawings`, async () => {
    const r = await api(stack, "GET", `/api/v1/campaigns/${slug}/drawings?status=open`, { key });
    const drawings = r.body.drawings as DrawingBody[] | undefined;
    return drawings && drawings.length >= 2 ? drawings : undefined;
  }, 30_000, 200);
}

const drawing = (slug: string, id: string) => getDrawing(stack, key, slug, id);

/** Posts a raw body, retrying a connection reset (the service may answer an oversized upload before reading it). */
async function postRaw(route: string, rawBody: string) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const r = await api(stack, "POST", route, { key, rawBody }).catch(() => undefined);
    if (r) return r;
  }
  throw new Error("every attempt was reset");
}

useStack("limits@example.com", (started) => ({ stack, accountId, key } = started));

describe("the largest legal lists", () => {
  it("fits the largest legal winners and entries bodies inside the list routes' limit", () => {
    const winners = Buffer.byteLength(asciiJson({ winners: largestWinners(MAX_LISTED_WINNERS_PER_DRAW) }));
    const entries = Buffer.byteLength(asciiJson({ entries: largestEntries(1_000) }));
    expect(winners).toBeGreaterThan(MAX_BODY_BYTES);
    expect(winners).toBeLessThan(MAX_LIST_BODY_BYTES);
    expect(entries).toBeLessThan(MAX_LIST_BODY_BYTES);
  });

  it("caps winnersPerDraw at 1,000 for push and pull campaigns and keeps 100,000 for entries campaigns", async () => {
    for (const [slug, mode, extra] of [["cap-push", "push", []], ["cap-pull", "pull", ["--pull-url", "https://partner.example/w/{drawingId}"]]] as const) {
      await expect(campaign(slug, mode, MAX_LISTED_WINNERS_PER_DRAW + 1, [...extra])).rejects.toMatchObject({ code: 2, result: { error: "bad_request", detail: expect.stringContaining("1000") } });
      await expect(campaign(slug, mode, MAX_LISTED_WINNERS_PER_DRAW, [...extra])).resolves.toMatchObject({ campaign: { winnersPerDraw: 1_000 } });
      await expect(stack.cli("campaign", "set", slug, "--winners", String(MAX_LISTED_WINNERS_PER_DRAW + 1))).rejects.toMatchObject({ code: 2 });
    }
    await expect(campaign("cap-entries", "entries", MAX_WINNERS_PER_DRAW)).resolves.toMatchObject({ campaign: { winnersPerDraw: 100_000 } });
    await expect(campaign("cap-entries-2", "entries", MAX_WINNERS_PER_DRAW + 1)).rejects.toMatchObject({ code: 2 });
  }, 180_000);

  it("takes 1,000 winners of the longest id, name and avatar URL, in UTF-8 and in \\u escapes; each has heldForManualPayout", async () => {
    await campaign("big-push", "push", MAX_LISTED_WINNERS_PER_DRAW, ["--large-prize-threshold", String(LARGE_PRIZE_THRESHOLD)]);
    await stack.cli("campaign", "activate", "big-push");
    const [first, second] = await openDrawings("big-push");
    const list = largestWinners(MAX_LISTED_WINNERS_PER_DRAW);
    const utf8 = JSON.stringify({ winners: list });
    const escaped = asciiJson({ winners: list });
    expect(Buffer.byteLength(utf8)).toBeGreaterThan(2 * MAX_BODY_BYTES);
    expect(Buffer.byteLength(escaped)).toBeGreaterThan(6 * MAX_BODY_BYTES);

    const posted = await postRaw(`/api/v1/campaigns/big-push/drawings/${first!.id}/winners`, utf8);
    expect(posted.body.error).toBeUndefined();
    expect(posted.status).toBe(201);
    const again = await postRaw(`/api/v1/campaigns/big-push/drawings/${second!.id}/winners`, escaped);
    expect(again.body.error).toBeUndefined();
    expect(again.status).toBe(201);

    for (const id of [first!.id, second!.id]) {
      const stored = await drawing("big-push", id);
      expect(stored.winners.map((w) => [w.winner, w.displayName, w.avatarUrl])).toEqual(list.map((w) => [w.winner, w.displayName, w.avatarUrl]));
      // The spec lists heldForManualPayout without "present once settled": false until a prize says otherwise.
      for (const w of stored.winners) expect(w.heldForManualPayout).toBe(false);
    }
  }, 180_000);

  it("keeps heldForManualPayout on every winner once the draw settles: true exactly at or above the threshold", async () => {
    const [first] = await openDrawings("big-push");
    const moved = await clockPast(stack, key, "big-push", first!, { check: false });
    expect(moved.status).toBe(200);
    const locked = await until("locked", async () => {
      const d = await drawing("big-push", first!.id);
      return d.status !== "open" ? d : undefined;
    }, 30_000, 200);
    if (locked.status !== "settled" && locked.status !== "paid") for (const w of locked.winners) expect(w.heldForManualPayout).toBe(false);
    const settled = await until("settled", async () => {
      const d = await drawing("big-push", first!.id);
      return d.status === "settled" || d.status === "paid" ? d : undefined;
    }, 120_000, 500);
    expect(settled.winners).toHaveLength(1_000);
    for (const w of settled.winners) {
      expect(typeof w.amountCents).toBe("number");
      expect(w.heldForManualPayout).toBe(w.amountCents! >= LARGE_PRIZE_THRESHOLD);
    }
    expect(settled.winners.some((w) => w.heldForManualPayout)).toBe(true);
    expect(settled.winners.some((w) => !w.heldForManualPayout)).toBe(true);
    // The list endpoint serializes winners the same way.
    const listed = await api(stack, "GET", "/api/v1/campaigns/big-push/drawings", { key });
    const same = (listed.body.drawings as DrawingBody[]).find((d) => d.id === first!.id)!;
    expect(same.winners.every((w) => typeof w.heldForManualPayout === "boolean")).toBe(true);
  }, 180_000);

  it("takes 1,000 entries of the longest id, name and avatar URL, in UTF-8 and in \\u escapes", async () => {
    await campaign("big-entries", "entries", 3);
    await stack.cli("campaign", "activate", "big-entries");
    await openDrawings("big-entries");
    const utf8 = await postRaw("/api/v1/campaigns/big-entries/entries", JSON.stringify({ entries: largestEntries(1_000) }));
    expect(utf8.body.error).toBeUndefined();
    expect(utf8.body).toMatchObject({ added: 1_000, count: 1_000 });
    const escaped = await postRaw("/api/v1/campaigns/big-entries/entries", asciiJson({ entries: largestEntries(1_000, 1_000) }));
    expect(escaped.body.error).toBeUndefined();
    expect(escaped.body).toMatchObject({ added: 1_000, count: 2_000 });
  }, 180_000);

  it("refuses a list body over 32 MiB, and any other body over 4 MiB, with 413 naming the limit, with a length or chunked", async () => {
    const [first] = await openDrawings("big-push");
    const over = JSON.stringify({ winners: ["a".repeat(MAX_LIST_BODY_BYTES)] });
    const json = { "content-type": "application/json", authorization: `Bearer ${key}` };
    for (const route of [`/api/v1/campaigns/big-push/drawings/${first!.id}/winners`, "/api/v1/campaigns/big-entries/entries"]) {
      for (const chunked of [false, true]) {
        const r = await postBody(stack, route, route.endsWith("entries") ? over.replace("winners", "entries") : over, { headers: json, chunked });
        expect(r.status, `${route} chunked: ${chunked}`).toBe(413);
        expect(JSON.parse(r.text)).toEqual({ error: "bad_request", detail: `the body is larger than ${MAX_LIST_BODY_BYTES} bytes` });
      }
    }
    for (const chunked of [false, true]) {
      const clock = await postBody(stack, "/api/v1/campaigns/big-push/test-clock", JSON.stringify({ advanceBy: "1s", pad: "a".repeat(MAX_BODY_BYTES) }), { headers: json, chunked });
      expect(clock.status, `chunked: ${chunked}`).toBe(413);
      expect(JSON.parse(clock.text)).toEqual({ error: "bad_request", detail: `the body is larger than ${MAX_BODY_BYTES} bytes` });
    }
  }, 180_000);

  it("logs a request whose client went away mid-body at info, as aborted, and none at error level", async () => {
    const [first] = await openDrawings("big-push");
    const routes = [`/api/v1/campaigns/big-push/drawings/${first!.id}/winners`, "/api/v1/campaigns/big-push/test-clock"];
    const ids = routes.map((_, i) => `aborted-mid-body-${i}`);
    for (const [i, route] of routes.entries()) {
      await abortMidBody(stack, route, { declared: 100_000, sent: 1_000, headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "request-id": ids[i]! } });
    }
    const lines = await requestLines(stack, ids);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    for (const id of ids) expect(lines.filter((l) => l.requestId === id).map((l) => [l.level, l.msg])).toContainEqual([30, "request aborted by the client"]);
  });
});

describe("the largest legal pulled list", () => {
  it("fetches 1,000 winners of the longest values from a partner URL, in \\u escapes", async () => {
    const body = asciiJson({ winners: largestWinners(MAX_LISTED_WINNERS_PER_DRAW) });
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/w`;
      const outcome = await fetchWinnerList(url, MAX_LISTED_WINNERS_PER_DRAW, { allowLoopback: true, timeoutMs: 30_000 });
      expect(outcome).toMatchObject({ kind: "list" });
      if (outcome.kind === "list") expect(outcome.winners.map((w) => w.winner)).toEqual(largestWinners(MAX_LISTED_WINNERS_PER_DRAW).map((w) => w.winner));
      expect(Buffer.byteLength(body)).toBeGreaterThan(8 * MiB); // the fetcher's former limit
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  }, 180_000);
});
