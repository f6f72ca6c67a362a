// The partner loop's rules on a real SQLite store (no chain): which drawings draws.json lists and in what order,
// `before` as a date, `number` hidden until the random value is requested, GET drawings' order with a flagged
// drawing, the message for a list sent after a cutoff that had none, and what ending does to a drawing that never
// got its list. The real-stack side is test/api/partner-loop.test.ts.

import { beforeEach, describe, expect, it } from "vitest";
import { createCampaign, endIfFinished, transitionCampaign } from "../../api/src/domain/campaigns.js";
import { drawingView, listDrawings, submitWinners } from "../../api/src/domain/drawings.js";
import { ServiceError } from "../../api/src/domain/errors.js";
import { drawsPage, parseBefore, publicDrawings } from "../../api/src/domain/publicDraws.js";
import type { Campaign } from "../../api/src/store/campaigns.js";
import type { Drawing } from "../../api/src/store/drawings.js";
import { type Store } from "../../api/src/store/index.js";
import { drawingRow, newAccount, storeFilePerTest } from "../support/store.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const WALLET = "0x00000000000000000000000000000000000000a1";
const DEPLOYMENT = { chainId: 31337, token: "0x0000000000000000000000000000000000000b0b", tokenDecimals: 6, prizeDraw: "0x0000000000000000000000000000000000000c0c", deployBlock: 1 } as const;
/** Real time in these tests: drawings are placed around it (the campaign clock has no offset). */
const NOW = new Date(Math.floor(Date.now() / HOUR) * HOUR + 30 * MINUTE);

const files = storeFilePerTest("partner-loop");
let store: Store;
let accountId: string;

beforeEach(async () => {
  store = await files.open();
  accountId = await newAccount(store, NOW);
});

async function campaign(slug: string, mode: "push" | "entries", cadence: "hourly" | "daily" = "hourly"): Promise<Campaign> {
  await createCampaign(store, accountId, { slug, name: slug, mode, winnersPerDraw: 1, payoutWallet: WALLET, schedule: { cadence, timezone: "Europe/Berlin", startsAt: new Date(NOW.getTime() - 10 * 24 * HOUR).toISOString() } }, NOW);
  return transitionCampaign(store, slug, "activate", NOW);
}

/** A past drawing of the campaign at `drawAt` (before NOW), in the given state. */
async function pastDrawing(c: Campaign, drawAt: number, fields: Partial<Drawing>, winners: string[] = []): Promise<Drawing> {
  const d = drawingRow(c, { drawAt: new Date(drawAt).toISOString(), cutoffAt: new Date(drawAt - 5 * MINUTE).toISOString(), createdAt: NOW.toISOString(), ...fields });
  expect(await store.drawings.insertIfAbsent(d)).toBe(true);
  if (winners.length > 0) await store.drawings.replaceWinners(d.id, winners.map((winnerId) => ({ winnerId, displayName: null, avatarUrl: null })));
  return d;
}

async function refusal(fn: () => unknown): Promise<{ status: number; error: string; detail: string } | null> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof ServiceError) return { status: error.status, error: error.code, detail: error.detail };
    throw error;
  }
  return null;
}

describe("draws.json", () => {
  it("shows the latest results on its first page: past draws and the next drawing only, newest first", async () => {
    const c = await campaign("hourly-push", "push");
    const upcoming = await store.drawings.list(c.id, "open", 100);
    expect(upcoming.length).toBeGreaterThanOrEqual(47);
    const paid = await pastDrawing(c, NOW.getTime() - 30 * MINUTE, { status: "paid", number: 1, lockedAt: new Date(NOW.getTime() - 35 * MINUTE).toISOString() }, ["w-1"]);
    const flagged = await pastDrawing(c, NOW.getTime() - 90 * MINUTE, { needsAttention: "no winners at the cutoff" });

    const page = await drawsPage(store, c, DEPLOYMENT, "http://x", { limit: 30, before: null }, NOW);
    const next = upcoming[0]!;
    expect(page.draws.map((d) => d.id)).toEqual([next.id, paid.id, flagged.id]);
    expect(page.draws.map((d) => d.stage)).toEqual(["open", "paid", "open"]);
    expect(page.nextBefore).toBeNull();
    // The shared rule the campaign page uses too.
    const listed = await publicDrawings(store, c, { before: null, limit: 2 }, NOW);
    expect(listed.rows.map((d) => d.id)).toEqual([next.id, paid.id]);
    expect(listed.more).toBe(true);
  });

  it("lists no upcoming drawing once the campaign is paused or ended", async () => {
    const c = await campaign("paused-push", "push");
    const paid = await pastDrawing(c, NOW.getTime() - 30 * MINUTE, { status: "paid", number: 1 }, ["w-1"]);
    const paused = await transitionCampaign(store, c.slug, "pause", NOW);
    expect((await drawsPage(store, paused, DEPLOYMENT, "http://x", { limit: 30, before: null }, NOW)).draws.map((d) => d.id)).toEqual([paid.id]);
  });

  it("pages back with `before`: the response's nextBefore, or a date in the campaign's time zone", async () => {
    const c = await campaign("paging", "push", "daily");
    const days: Drawing[] = [];
    for (const n of [1, 2, 3, 4]) days.push(await pastDrawing(c, NOW.getTime() - n * 24 * HOUR, { status: "paid", number: 5 - n }, ["w"]));
    const first = await drawsPage(store, c, DEPLOYMENT, "http://x", { limit: 2, before: null }, NOW);
    expect(first.draws.map((d) => d.id)).toEqual([(await store.drawings.nextOpen(c.id, NOW.toISOString()))!.id, days[0]!.id]);
    const second = await drawsPage(store, c, DEPLOYMENT, "http://x", { limit: 2, before: parseBefore(first.nextBefore!, c.schedule.timezone) }, NOW);
    expect(second.draws.map((d) => d.id)).toEqual([days[1]!.id, days[2]!.id]);
    // A date: draws before that day began in the campaign's zone (Europe/Berlin).
    expect(parseBefore("2026-11-25", "Europe/Berlin")).toBe("2026-11-24T23:00:00.000Z");
    expect(parseBefore("2026-07-01", "Europe/Berlin")).toBe("2026-06-30T22:00:00.000Z");
    expect(parseBefore("2026-11-25T10:00:00+01:00", "Europe/Berlin")).toBe("2026-11-25T09:00:00.000Z");
    const dayOf = (ms: number) => new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Berlin" }).format(new Date(ms));
    const byDate = await drawsPage(store, c, DEPLOYMENT, "http://x", { limit: 30, before: parseBefore(dayOf(Date.parse(days[1]!.drawAt)), "Europe/Berlin") }, NOW);
    expect(byDate.draws.map((d) => d.id)).toEqual([days[2]!.id, days[3]!.id]);
    for (const bad of ["2026-13-01", "25.11.2026", "2026-11-25T10:00:00", "tomorrow"]) expect((await refusal(() => parseBefore(bad, "UTC")))?.error, bad).toBe("bad_request");
  });
});

describe("number", () => {
  it("is null until the random value is requested, in the partner API and in draws.json", async () => {
    const c = await campaign("numbers", "push");
    // The keeper fixes the number in the store before it sends the commit; a commit that fails leaves it locked.
    const locked = await pastDrawing(c, NOW.getTime() - 30 * MINUTE, { status: "locked", number: 1, lockedAt: new Date(NOW.getTime() - 35 * MINUTE).toISOString(), winnersCommitment: "0x01" }, ["w-1"]);
    expect((await drawingView(store, locked)).number).toBeNull();
    const item = (await drawsPage(store, c, DEPLOYMENT, "http://x", { limit: 30, before: null }, NOW)).draws.find((d) => d.id === locked.id)!;
    expect(item.number).toBeNull();
    await store.drawings.update({ ...locked, status: "entropy_requested", entropyRequestId: "4" });
    expect((await drawingView(store, (await store.drawings.byId(c.id, locked.id))!)).number).toBe(1);
    expect((await drawsPage(store, c, DEPLOYMENT, "http://x", { limit: 30, before: null }, NOW)).draws.find((d) => d.id === locked.id)!.number).toBe(1);
  });
});

describe("GET drawings?status=open", () => {
  it("puts drawings still taking a list first, in cutoff order; a drawing flagged at its cutoff comes after them", async () => {
    const c = await campaign("order", "push", "daily");
    const flagged = await pastDrawing(c, NOW.getTime() - 2 * HOUR, { needsAttention: "no winners at the cutoff" });
    const open = await listDrawings(store, c, "open", NOW);
    const taking = (await store.drawings.list(c.id, "open", 50)).filter((d) => d.cutoffAt > NOW.toISOString());
    expect(taking.length).toBeGreaterThanOrEqual(2);
    expect(open.map((d) => d.id)).toEqual([...taking.sort((a, b) => a.cutoffAt.localeCompare(b.cutoffAt)).map((d) => d.id), flagged.id]);
    // Without a filter: the same open drawings first, then the rest newest first.
    const paid = await pastDrawing(c, NOW.getTime() - 26 * HOUR, { status: "paid", number: 1 }, ["w"]);
    expect((await listDrawings(store, c, null, NOW)).map((d) => d.id)).toEqual([...open.map((d) => d.id), paid.id]);
  });
});

describe("a list sent after a cutoff that had none", () => {
  it("says what happened and what the partner can do, not that it differs from a locked list", async () => {
    const c = await campaign("late", "push", "daily");
    const flagged = await pastDrawing(c, NOW.getTime() - 2 * HOUR, { needsAttention: "no winners at the cutoff" });
    const next = (await store.drawings.nextOpen(c.id, NOW.toISOString()))!;
    const late = await refusal(() => submitWinners(store, c, flagged.id, [{ winner: "w-1", displayName: null, avatarUrl: null }], NOW));
    expect(late).toMatchObject({ status: 409, error: "locked" });
    expect(late!.detail).not.toMatch(/differs from the locked/);
    expect(late!.detail).toMatch(/no list/);
    expect(late!.detail).toContain("extend its cutoff in the partner portal");
    expect(late!.detail).not.toContain("prizedraw");
    expect(late!.detail).toContain(next.id);
    // A real difference from a stored list keeps its message.
    const listed = await pastDrawing(c, NOW.getTime() - 3 * HOUR, { status: "locked", lockedAt: new Date(NOW.getTime() - 4 * HOUR).toISOString() }, ["w-1"]);
    expect((await refusal(() => submitWinners(store, c, listed.id, [{ winner: "w-2", displayName: null, avatarUrl: null }], NOW)))?.detail).toMatch(/differs from the locked/);
  });
});

describe("ending and a drawing that never got its list", () => {
  it("ending removes it for good; a list past its cutoff still draws; guarantee checks are not held", async () => {
    const c = await campaign("ending", "push", "daily");
    const flagged = await pastDrawing(c, NOW.getTime() - 3 * HOUR, { needsAttention: "no winners at the cutoff" });
    const listed = await pastDrawing(c, NOW.getTime() - 2 * HOUR, {}, ["w-1"]);
    const ended = await transitionCampaign(store, c.slug, "end", NOW);
    expect(ended.status).toBe("ended");
    expect(await store.drawings.byId(c.id, flagged.id)).toBeNull();
    expect(await store.drawings.byId(c.id, listed.id)).toMatchObject({ status: "open" });
    expect((await listDrawings(store, ended, "open", NOW)).map((d) => d.id)).toEqual([listed.id]);
    expect(await refusal(() => submitWinners(store, ended, flagged.id, [{ winner: "w-9", displayName: null, avatarUrl: null }], NOW))).toMatchObject({ status: 409, error: "campaign_ended" });
  });

  it("an entries drawing with no entrants is removed too; one with entrants still draws", async () => {
    const c = await campaign("ending-entries", "entries", "daily");
    const empty = await pastDrawing(c, NOW.getTime() - 3 * HOUR, { needsAttention: "no entrants at the cutoff" });
    const full = await pastDrawing(c, NOW.getTime() - 2 * HOUR, { entrantCount: 2, totalWeight: 2 });
    await transitionCampaign(store, c.slug, "end", NOW);
    expect(await store.drawings.byId(c.id, empty.id)).toBeNull();
    expect(await store.drawings.byId(c.id, full.id)).not.toBeNull();
  });

  it("the end date passing ends the campaign and removes it the same way, once drawings with a list are drawn", async () => {
    const c = await campaign("end-date", "push", "daily");
    const flagged = await pastDrawing(c, NOW.getTime() - 3 * HOUR, { needsAttention: "no winners at the cutoff" });
    const locked = await pastDrawing(c, NOW.getTime() - 2 * HOUR, { status: "locked", lockedAt: NOW.toISOString() }, ["w-1"]);
    await store.campaigns.update({ ...c, schedule: { ...c.schedule, endsAt: new Date(NOW.getTime() - HOUR).toISOString() } });
    await store.drawings.deleteOpenAfterDrawAt(c.id, new Date(NOW.getTime() - HOUR).toISOString());
    expect(await endIfFinished(store, c.id, NOW)).toBe(false);
    expect((await store.campaigns.byId(c.id))?.status).toBe("active");
    await store.drawings.update({ ...locked, status: "paid", number: 1 });
    expect(await endIfFinished(store, c.id, NOW)).toBe(true);
    expect((await store.campaigns.byId(c.id))?.status).toBe("ended");
    expect(await store.drawings.byId(c.id, flagged.id)).toBeNull();
    expect(await store.drawings.byId(c.id, locked.id)).not.toBeNull();
  });

  it("waits for a drawing whose cutoff was extended past the end date", async () => {
    const c = await campaign("extended", "push", "daily");
    const endsAt = NOW.getTime() - HOUR;
    await pastDrawing(c, NOW.getTime() - 2 * HOUR, { cutoffAt: new Date(NOW.getTime() + 10 * MINUTE).toISOString() });
    await store.campaigns.update({ ...c, schedule: { ...c.schedule, endsAt: new Date(endsAt).toISOString() } });
    await store.drawings.deleteOpenAfterDrawAt(c.id, new Date(endsAt).toISOString());
    expect(await endIfFinished(store, c.id, NOW)).toBe(false);
    expect(await endIfFinished(store, c.id, new Date(NOW.getTime() + 11 * MINUTE))).toBe(true);
  });
});
