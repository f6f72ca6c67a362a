// Entries campaigns on the real stack: POST/GET entries, routing across a cutoff, counters, the 100,000 cap under
// concurrent writers, bad input that stores nothing, and a 100,000-entrant drawing from lock to a verified proof.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../support/processes.js";
import { api, createAccount, runServedVerifier, startStack, type Stack } from "../support/stack.js";
import { activeCampaign, clockPast, firstOpenDrawing, proofUrl, verifyServedProof } from "../support/partner.js";

let stack: Stack;
let key: string;
let accountId: string;

type EntriesResponse = { drawing: { id: string; drawAt: string; cutoffAt: string }; added: number; updated: number; unchanged: number; count: number; totalWeight: number };
type EntriesPage = { count: number; totalWeight: number; entries: { entrantId: string; weight: number; displayName: string | null; position: number | null }[]; next: string | null };

const createEntriesCampaign = (slug: string, winners = 3) => activeCampaign(stack, accountId, slug, { name: `Entries ${slug}`, mode: "entries", winners });

const post = (slug: string, entries: unknown[]) => api(stack, "POST", `/api/v1/campaigns/${slug}/entries`, { key, body: { entries } });

beforeAll(async () => {
  stack = await startStack();
  ({ accountId, key } = await createAccount(stack, "owner@example.com"));
  await createEntriesCampaign("raffle");
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

describe("POST and GET entries", () => {
  it("adds, updates and leaves unchanged, with running count and total weight", async () => {
    const first = await post("raffle", ["e-1", { entrantId: "e-2", weight: 3 }, { entrantId: "e-3", weight: 2, displayName: "Cy", avatarUrl: "https://example.com/c.png" }]);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ added: 3, updated: 0, unchanged: 0, count: 3, totalWeight: 6 });
    const again = await post("raffle", ["e-1", { entrantId: "e-2", weight: 3 }, { entrantId: "e-3", weight: 2, displayName: "Cy", avatarUrl: "https://example.com/c.png" }]);
    expect(again.body).toMatchObject({ added: 0, updated: 0, unchanged: 3, count: 3, totalWeight: 6 });
    // A running total can be sent; no weight resets to 1; a new name is an update.
    const changed = await post("raffle", [{ entrantId: "e-2", weight: 7 }, "e-3", { entrantId: "e-4" }]);
    expect(changed.body).toMatchObject({ added: 1, updated: 2, unchanged: 0, count: 4, totalWeight: 1 + 7 + 1 + 1 });
    const page = (await api(stack, "GET", "/api/v1/campaigns/raffle/entries", { key })).body as EntriesPage;
    expect(page.entries.map((e) => [e.entrantId, e.weight, e.displayName, e.position])).toEqual([
      ["e-1", 1, null, null],
      ["e-2", 7, null, null],
      ["e-3", 1, null, null],
      ["e-4", 1, null, null],
    ]);
    expect(page).toMatchObject({ count: 4, totalWeight: 10, next: null });
  });

  it("pages in arrival order with a cursor that is stable while entries keep arriving", async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let first = true;
    do {
      const query: string = `?limit=3${after ? `&after=${after}` : ""}`;
      const r = await api(stack, "GET", `/api/v1/campaigns/raffle/entries${query}`, { key });
      expect(r.status).toBe(200);
      const body = r.body as EntriesPage;
      seen.push(...body.entries.map((e) => e.entrantId));
      after = body.next;
      if (first) {
        await post("raffle", ["late-1", "late-2"]); // arrives while paging
        first = false;
      }
    } while (after !== null);
    expect(seen).toEqual(["e-1", "e-2", "e-3", "e-4", "late-1", "late-2"]);
  });

  const bad: [string, unknown, RegExp][] = [
    ["weight 0", [{ entrantId: "x", weight: 0 }], /entries\[0\]\.weight/],
    ["a negative weight", [{ entrantId: "x", weight: -1 }], /entries\[0\]\.weight/],
    ["a fractional weight", [{ entrantId: "x", weight: 1.5 }], /entries\[0\]\.weight/],
    ["a weight over the maximum", [{ entrantId: "x", weight: 4_294_967_296 }], /entries\[0\]\.weight/],
    ["a weight as a string", [{ entrantId: "x", weight: "3" }], /entries\[0\]\.weight/],
    ["an empty id", [""], /entries\[0\]/],
    ["an id over 200 characters", ["x".repeat(201)], /entries\[0\]/],
    ["a name over 40 characters", [{ entrantId: "x", displayName: "n".repeat(41) }], /entries\[0\]\.displayName/],
    ["a non-https avatar", [{ entrantId: "x", avatarUrl: "http://example.com/a.png" }], /entries\[0\]\.avatarUrl/],
    ["no entries", [], /entries: must have at least one entry/],
    ["1,001 entries", Array.from({ length: 1_001 }, (_, i) => `bulk-${i}`), /at most 1,000/],
    ["a repeated entrant", ["x", "y", "x"], /entries\[2\]\.entrantId repeats/],
    ["an unknown field", [{ entrantId: "x", score: 2 }], /entries\[0\]/],
  ];
  for (const [what, entries, detail] of bad) {
    it(`refuses ${what} with 400 bad_request naming the field, storing nothing`, async () => {
      const before = (await api(stack, "GET", "/api/v1/campaigns/raffle/entries?limit=1000", { key })).body as EntriesPage;
      const r = await post("raffle", entries as unknown[]);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("bad_request");
      expect(r.body.detail).toMatch(detail);
      const after = (await api(stack, "GET", "/api/v1/campaigns/raffle/entries?limit=1000", { key })).body as EntriesPage;
      expect(after).toEqual(before);
    });
  }

  it("answers the spec's 409s: not_entrants_campaign, no_open_drawing, campaign_ended", async () => {
    await activeCampaign(stack, accountId, "winners-only", { name: "W" });
    const wrong = await post("winners-only", ["a"]);
    expect(wrong.status).toBe(409);
    expect(wrong.body.error).toBe("not_entrants_campaign");

    await createEntriesCampaign("pausable");
    await stack.cli("campaign", "pause", "pausable");
    const paused = await post("pausable", ["a"]);
    expect(paused.status).toBe(409);
    expect(paused.body.error).toBe("no_open_drawing");
    await stack.cli("campaign", "end", "pausable");
    const ended = await post("pausable", ["a"]);
    expect(ended.status).toBe(409);
    expect(ended.body.error).toBe("campaign_ended");

    const open = ((await api(stack, "GET", "/api/v1/campaigns/raffle/drawings?status=open", { key })).body.drawings as { id: string }[])[0]!;
    const winners = await api(stack, "POST", `/api/v1/campaigns/raffle/drawings/${open.id}/winners`, { key, body: { winners: ["a", "b", "c"] } });
    expect(winners.status).toBe(409);
    expect(winners.body.error).toBe("entries_campaign");
  });
});

describe("the drawing cycle of an entries campaign", () => {
  it("routes entries after a cutoff to the next drawing, locks the list in arrival order, selects, records and pays", async () => {
    const drawings = (await api(stack, "GET", "/api/v1/campaigns/raffle/drawings?status=open", { key })).body.drawings as { id: string; cutoffAt: string }[];
    const [first, second] = drawings;
    await clockPast(stack, key, "raffle", first!, { check: false });
    const routed = await post("raffle", ["next-1"]);
    expect(routed.status).toBe(200);
    expect((routed.body as EntriesResponse).drawing.id).toBe(second!.id);
    const paid = await until("entries drawing paid", async () => {
      const d = (await api(stack, "GET", `/api/v1/campaigns/raffle/drawings/${first!.id}`, { key })).body.drawing as { status: string; winners: { winner: string; amountCents?: number }[]; verification: { winnersCommitment: string } };
      return d.status === "paid" ? d : undefined;
    }, 60_000, 250);
    expect(paid.winners).toHaveLength(3);
    expect(new Set(paid.winners.map((w) => w.winner)).size).toBe(3);
    for (const w of paid.winners) expect(["e-1", "e-2", "e-3", "e-4", "late-1", "late-2"]).toContain(w.winner);
    expect(paid.winners.every((w) => typeof w.amountCents === "number")).toBe(true);
    const locked = (await api(stack, "GET", `/api/v1/campaigns/raffle/entries?drawing=${first!.id}`, { key })).body as EntriesPage;
    expect(locked.entries.map((e) => e.position)).toEqual([0, 1, 2, 3, 4, 5]);
    // Entries for a locked drawing are refused... by routing them to the next one; the locked list is unchanged.
    expect(locked.count).toBe(6);

    const proof = (await api(stack, "GET", `/campaigns/raffle/draws/${first!.id}/proof.json`)).body as { entrants: { count: number; totalWeight: number; selection: string; list: { hash: string; weight: number }[] } };
    expect(proof.entrants).toMatchObject({ count: 6, totalWeight: 12, selection: "sequential-weighted-v1" });
    expect(proof.entrants.list.map((e) => e.weight)).toEqual([1, 7, 1, 1, 1, 1]);
    const verified = await verifyServedProof(stack, "raffle", first!.id);
    expect(verified.out).toMatch(/PASS/);
    expect(verified.code).toBe(0);
  });

  it("never passes 100,000 entrants under concurrent writers, then draws the full drawing and its proof verifies", async () => {
    await createEntriesCampaign("big", 10);
    for (let r = 0; r < 99; r++) {
      const res = await post("big", Array.from({ length: 1_000 }, (_, i) => ({ entrantId: `big-${r}-${i}`, weight: 1 + ((r * 1_000 + i) % 5) })));
      expect(res.status).toBe(200);
    }
    // 99,000 stored: two concurrent requests of 600 new entrants; only one fits.
    const racers = await Promise.all([0, 1].map((k) => post("big", Array.from({ length: 600 }, (_, i) => `race-${k}-${i}`))));
    expect(racers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(racers.find((r) => r.status === 409)!.body.error).toBe("too_many_entrants");
    const page = (await api(stack, "GET", "/api/v1/campaigns/big/entries?limit=1", { key })).body as EntriesPage;
    expect(page.count).toBe(99_600);
    const fill = await post("big", Array.from({ length: 400 }, (_, i) => `fill-${i}`));
    expect(fill.body).toMatchObject({ count: 100_000 });
    const over = await post("big", ["one-too-many"]);
    expect(over.status).toBe(409);
    expect(over.body.error).toBe("too_many_entrants");

    const open = await firstOpenDrawing(stack, key, "big");
    await clockPast(stack, key, "big", open, { check: false });
    await until("100,000-entrant drawing paid", async () => {
      const d = (await api(stack, "GET", `/api/v1/campaigns/big/drawings/${open.id}`, { key })).body.drawing as { status: string };
      return d.status === "paid" ? true : undefined;
    }, 120_000, 500);
    const verified = await runServedVerifier(stack, [proofUrl(stack, "big", open.id)]);
    expect(verified.out).toMatch(/PASS/);
    expect(verified.code).toBe(0);
  }, 240_000);
});
