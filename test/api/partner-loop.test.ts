// The partner loop as partners and visitors meet it, on the real stack (anvil + contracts + Ponder + the service
// + the CLI), one hourly push campaign told as a story: a draw happens and draws.json's first page shows it
// with the next drawing, its times run forward on one clock, `before` takes a date; the next drawing is missed
// and flagged, yet GET drawings?status=open still offers the drawing that takes a list first, and a late list is
// told what happened and what to do; ending the campaign settles the flagged drawing for good. The rules
// themselves are unit-tested in test/domain/partner-loop-rules.test.ts.

import { describe, expect, it } from "vitest";
import { until } from "../support/processes.js";
import { api, type Stack } from "../support/stack.js";
import { activeCampaign, clockBy, clockPast, drawThroughPaid, type DrawingBody } from "../support/partner.js";
import { useStack } from "../support/suite.js";

let stack: Stack;
let key: string;
let accountId: string;

const SLUG = "loop-hourly";
const MINUTE = 60_000;

type DrawItem = { id: string; number: number | null; drawAt: string; cutoffAt: string; stage: string; lockedAt: string | null; settledAt: string | null; paidAt: string | null; proof: string | null };

async function openDrawings(): Promise<DrawingBody[]> {
  const r = await api(stack, "GET", `/api/v1/campaigns/${SLUG}/drawings?status=open`, { key });
  expect(r.status).toBe(200);
  return r.body.drawings as DrawingBody[];
}

async function drawing(id: string): Promise<{ status: number; drawing: DrawingBody }> {
  const r = await api(stack, "GET", `/api/v1/campaigns/${SLUG}/drawings/${id}`, { key });
  return { status: r.status, drawing: r.body.drawing as DrawingBody };
}

/** The campaign's clock now (a zero move of the test clock answers it). */
const campaignNow = async () => (await clockBy(stack, key, SLUG, "0s")).body.now as string;

async function draws(query = ""): Promise<{ status: number; draws: DrawItem[]; body: Record<string, unknown> }> {
  const r = await api(stack, "GET", `/campaigns/${SLUG}/draws.json${query}`);
  return { status: r.status, draws: (r.body.draws ?? []) as DrawItem[], body: r.body };
}

let drawn: DrawingBody;
let missed: DrawingBody;

useStack("owner@example.com", async (started) => {
  ({ stack, accountId, key } = started);
  await activeCampaign(stack, accountId, SLUG, { name: "Loop Hourly", cadence: "hourly", winners: 1, flags: ["--minute", "0", "--timezone", "UTC"] });
});

describe("a draw and the public list", () => {
  it("draws one: the first page of draws.json shows it, with the next drawing and none further ahead", async () => {
    const open = await openDrawings();
    expect(open.length).toBeGreaterThanOrEqual(47);
    // A drawing at least 10 minutes ahead, so that the test clock moves well ahead of the chain's time.
    const target = open.find((d) => Date.parse(d.cutoffAt) > Date.now() + 10 * MINUTE)!;
    drawn = await drawThroughPaid(stack, key, SLUG, target, [{ winner: "w-1", displayName: "Wyn" }]);

    const first = await draws();
    expect(first.status).toBe(200);
    const item = first.draws.find((d) => d.id === drawn.id);
    expect(item, "the draw that just happened is on the first page").toBeDefined();
    expect(item).toMatchObject({ stage: "paid", number: 1, proof: expect.stringMatching(/proof\.json$/) });
    // Upcoming: only the next drawing (the one taking a list now), listed first since it is the newest.
    const now = await campaignNow();
    const upcoming = first.draws.filter((d) => d.stage === "open" && d.cutoffAt > now);
    const next = (await openDrawings())[0]!;
    expect(upcoming.map((d) => d.id)).toEqual([next.id]);
    expect(first.draws[0]!.id).toBe(next.id);
    const times = first.draws.map((d) => d.drawAt);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it("keeps one clock per drawing: locked, revealed, settled and paid run forward from the cutoff", async () => {
    const v = drawn.verification;
    const cutoff = Date.parse(drawn.cutoffAt);
    const locked = Date.parse(v.lockedAt!);
    const revealed = Date.parse(v.entropyRevealedAt!);
    expect(locked).toBeGreaterThanOrEqual(cutoff);
    expect(revealed).toBeGreaterThanOrEqual(locked);
    const item = (await draws()).draws.find((d) => d.id === drawn.id)!;
    expect(item.lockedAt).toBe(v.lockedAt);
    const settled = Date.parse(item.settledAt!);
    const paid = Date.parse(item.paidAt!);
    expect(settled).toBeGreaterThanOrEqual(revealed);
    expect(paid).toBeGreaterThanOrEqual(settled);
    // All within the minute after the cutoff on the campaign's clock (the draw took seconds).
    expect(paid - cutoff).toBeLessThan(MINUTE);
  });

  it("pages with `before` as a date, in the campaign's time zone", async () => {
    const day = drawn.drawAt.slice(0, 10);
    const nextDay = new Date(Date.parse(`${day}T00:00:00Z`) + 24 * 60 * MINUTE).toISOString().slice(0, 10);
    const upToDay = await draws(`?before=${nextDay}`);
    expect(upToDay.status).toBe(200);
    expect(upToDay.draws.some((d) => d.id === drawn.id)).toBe(true);
    expect(upToDay.draws.every((d) => d.drawAt < `${nextDay}T00:00:00.000Z`)).toBe(true);
    const beforeDay = await draws(`?before=${day}`);
    expect(beforeDay.status).toBe(200);
    expect(beforeDay.draws.some((d) => d.id === drawn.id)).toBe(false);
    const bad = await draws("?before=2026-02-30");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("bad_request");
  });
});

describe("a missed cutoff", () => {
  it("a drawing flagged at its cutoff stays open but does not sort first: the partner loop posts to the next one", async () => {
    missed = (await openDrawings())[0]!;
    await clockPast(stack, key, SLUG, missed);
    const flagged = await until("flagged", async () => {
      const d = (await drawing(missed.id)).drawing;
      return d.needsAttention ? d : undefined;
    }, 20_000, 200);
    expect(flagged.status).toBe("open");
    const open = await openDrawings();
    expect(open[0]!.id).not.toBe(missed.id);
    expect(Date.parse(open[0]!.cutoffAt)).toBeGreaterThan(Date.parse(missed.cutoffAt));
    const taking = open.filter((d) => d.needsAttention === null);
    expect(open.slice(0, taking.length)).toEqual(taking);
    expect(taking.map((d) => d.cutoffAt)).toEqual([...taking.map((d) => d.cutoffAt)].sort());
    expect(open.some((d) => d.id === missed.id)).toBe(true);
    // The loop, as the spec suggests it: the first open drawing takes the list.
    const posted = await api(stack, "POST", `/api/v1/campaigns/${SLUG}/drawings/${open[0]!.id}/winners`, { key, body: { winners: ["w-2"] } });
    expect(posted.status).toBe(201);
  });

  it("a list sent after it is told what happened and what to do, not that it differs from a locked list", async () => {
    const late = await api(stack, "POST", `/api/v1/campaigns/${SLUG}/drawings/${missed.id}/winners`, { key, body: { winners: ["w-3"] } });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe("locked");
    const detail = late.body.detail as string;
    expect(detail).not.toMatch(/differs from the locked/);
    expect(detail).toMatch(/passed with no list/);
    expect(detail).toContain("extend its cutoff in the partner portal");
    expect(detail).not.toContain("prizedraw");
    expect(detail).toContain((await openDrawings())[0]!.id);
  });

  it("number is null until the random value is requested", async () => {
    expect((await drawing(missed.id)).drawing.number).toBeNull();
    const listed = (await draws()).draws;
    for (const d of listed) expect(d.number === null, `${d.id} ${d.stage}`).toBe(["open", "locked"].includes(d.stage));
  });
});

describe("ending the campaign", () => {
  it("removes a drawing that never got its list, for good; what was drawn stays", async () => {
    await stack.cli("campaign", "end", SLUG);
    const gone = await drawing(missed.id);
    expect(gone.status).toBe(404);
    expect(await openDrawings()).toEqual([]);
    const posted = await api(stack, "POST", `/api/v1/campaigns/${SLUG}/drawings/${missed.id}/winners`, { key, body: { winners: ["w-3"] } });
    expect(posted.status).toBe(409);
    expect(posted.body.error).toBe("campaign_ended");
    await expect(stack.cli("drawing", "extend-cutoff", SLUG, missed.id, "--to", new Date(Date.now() + 400 * 24 * 60 * MINUTE).toISOString())).rejects.toThrow(/no drawing/);
    const listed = await draws();
    expect(listed.body.campaign).toMatchObject({ status: "ended" });
    expect(listed.draws.map((d) => d.id)).toEqual([drawn.id]);
    expect((await drawing(drawn.id)).drawing.status).toBe("paid");
  });
});
