// Guarantee periods and picks on a real SQLite store (no chain): period bounds with pauses and end dates,
// the check's rules, and the pick's refusals, including the 409 for a campaign without a payout wallet that the
// API cannot reach (a started campaign's wallet cannot be removed).

import { beforeEach, describe, expect, it } from "vitest";
import { createCampaign, transitionCampaign } from "../../api/src/domain/campaigns.js";
import { ServiceError } from "../../api/src/domain/errors.js";
import { checkDuePeriods, nextPeriod, periodEndMs, pickGuarantee } from "../../api/src/domain/guarantees.js";
import type { Campaign } from "../../api/src/store/campaigns.js";
import type { Drawing, DrawingStatus } from "../../api/src/store/drawings.js";
import { type Store } from "../../api/src/store/index.js";
import { drawingRow, newAccount, storeFilePerTest } from "../support/store.js";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const START = "2026-03-01T00:00:00.000Z";
const T0 = Date.parse(START);
const WALLET = "0x00000000000000000000000000000000000000a1";

describe("periodEndMs", () => {
  const at = (ms: number) => new Date(T0 + ms).toISOString();
  it("is start + length without pauses, and ignores pauses outside the period", () => {
    expect(periodEndMs(T0, DAY, [])).toBe(T0 + DAY);
    expect(periodEndMs(T0, DAY, [{ pausedAt: at(-3 * DAY), resumedAt: at(-DAY) }, { pausedAt: at(2 * DAY), resumedAt: at(3 * DAY) }])).toBe(T0 + DAY);
    // A pause starting exactly at the end does not move it.
    expect(periodEndMs(T0, DAY, [{ pausedAt: at(DAY), resumedAt: at(2 * DAY) }])).toBe(T0 + DAY);
  });

  it("moves the end by the paused time inside the period", () => {
    expect(periodEndMs(T0, 7 * DAY, [{ pausedAt: at(2 * DAY), resumedAt: at(9 * DAY) }])).toBe(T0 + 14 * DAY);
    // A pause that began before the period counts from the period's start.
    expect(periodEndMs(T0, DAY, [{ pausedAt: at(-HOUR), resumedAt: at(2 * HOUR) }])).toBe(T0 + DAY + 2 * HOUR);
    // The moved end reaches a later pause, which moves it again.
    expect(periodEndMs(T0, 10 * HOUR, [{ pausedAt: at(8 * HOUR), resumedAt: at(12 * HOUR) }, { pausedAt: at(13 * HOUR), resumedAt: at(20 * HOUR) }])).toBe(T0 + 21 * HOUR);
    // Overlapping rows count once.
    expect(periodEndMs(T0, DAY, [{ pausedAt: at(HOUR), resumedAt: at(3 * HOUR) }, { pausedAt: at(2 * HOUR), resumedAt: at(4 * HOUR) }])).toBe(T0 + DAY + 3 * HOUR);
  });

  it("has no end while a pause inside the period lasts", () => {
    expect(periodEndMs(T0, DAY, [{ pausedAt: at(HOUR), resumedAt: null }])).toBe(Infinity);
  });
});

describe("nextPeriod", () => {
  const terms = { amountCents: 2_000, thresholdCents: 500, periodDays: 2 };
  it("runs periods back to back from startsAt and cuts the last one at the end date", () => {
    const schedule = { startsAt: START, endsAt: new Date(T0 + 3 * DAY).toISOString() } as Campaign["schedule"];
    const first = nextPeriod({ schedule }, terms, [], null);
    expect(first).toEqual({ period: 1, start: T0, end: T0 + 2 * DAY });
    const second = nextPeriod({ schedule }, terms, [], { period: 1, periodEnd: new Date(first!.end).toISOString() });
    expect(second).toEqual({ period: 2, start: T0 + 2 * DAY, end: T0 + 3 * DAY });
    expect(nextPeriod({ schedule }, terms, [], { period: 2, periodEnd: new Date(second!.end).toISOString() })).toBeNull();
  });
});

describe("checking periods and picking", () => {
  const files = storeFilePerTest("guarantees");
  let store: Store;
  let campaign: Campaign;

  beforeEach(async () => {
    store = await files.open();
    const accountId = await newAccount(store, new Date(START));
    const created = await createCampaign(
      store,
      accountId,
      { slug: "gtd", name: "Guarantees", mode: "push", winnersPerDraw: 2, payoutWallet: WALLET, schedule: { cadence: "daily", drawHour: 12, timezone: "UTC", startsAt: START }, guarantee: { amountCents: 2_000, thresholdCents: 500, periodDays: 2 } },
      new Date(T0 - DAY),
    );
    campaign = { ...created, status: "active" };
    await store.campaigns.update(campaign);
  });

  /** A drawing at `drawAt` with these winners and prizes, in `status`. */
  async function drawing(drawAt: number, status: DrawingStatus, winners: [string, number][]): Promise<Drawing> {
    const d = drawingRow(campaign, { drawAt: new Date(drawAt).toISOString(), cutoffAt: new Date(drawAt - HOUR).toISOString(), status, winnersExpected: winners.length, createdAt: START });
    await store.drawings.insertIfAbsent(d);
    await store.drawings.replaceWinners(d.id, winners.map(([winnerId]) => ({ winnerId, displayName: null, avatarUrl: null })));
    if (status === "settled" || status === "paid") {
      await store.drawings.setPrizes(d.id, winners.map(([, amountCents], position) => ({ position, randomValue: "0x01", roll: 0, amountCents, held: false })));
    }
    return d;
  }

  /** Real time at which the campaign clock (offset 0 here) reads `ms`. */
  const at = (ms: number) => new Date(ms);
  const refusal = async (fn: () => unknown): Promise<{ status: number; error: string } | null> => {
    try {
      await fn();
    } catch (error) {
      if (error instanceof ServiceError) return { status: error.status, error: error.code };
      throw error;
    }
    return null;
  };

  it("checks a period once its end passed and its drawings are drawn; open drawings hold it", async () => {
    const d1 = await drawing(T0 + 12 * HOUR, "paid", [["alice", 100], ["bob", 100]]);
    const d2 = await drawing(T0 + 36 * HOUR, "locked", [["alice", 100], ["carol", 100]]);
    expect(await checkDuePeriods(store, campaign.id, at(T0 + 2 * DAY - 1))).toEqual([]);
    expect(await checkDuePeriods(store, campaign.id, at(T0 + 2 * DAY + HOUR))).toEqual([]); // d2 not drawn yet
    await store.drawings.update({ ...d2, status: "settled" });
    await store.drawings.setPrizes(d2.id, [{ position: 0, randomValue: "0x01", roll: 0, amountCents: 100, held: false }, { position: 1, randomValue: "0x01", roll: 0, amountCents: 100, held: false }]);
    const [period] = await checkDuePeriods(store, campaign.id, at(T0 + 2 * DAY + HOUR));
    expect(period).toMatchObject({ period: 1, periodStart: START, periodEnd: new Date(T0 + 2 * DAY).toISOString(), status: "awaiting_pick", amountCents: 2_000 });
    expect(await checkDuePeriods(store, campaign.id, at(T0 + 2 * DAY + HOUR))).toEqual([]); // checked once

    expect(await refusal(() => pickGuarantee(store, campaign, period!.id, { winner: "dave" }))).toEqual({ status: 400, error: "rejected" });
    expect(await refusal(() => pickGuarantee(store, campaign, period!.id, { winner: "alice" }))).toEqual({ status: 400, error: "rejected" });
    expect(await refusal(() => pickGuarantee(store, campaign, period!.id, { winner: "bob", drawingId: d2.id }))).toEqual({ status: 400, error: "rejected" });
    expect(await refusal(() => pickGuarantee(store, campaign, period!.id, { winner: "alice", drawingId: "drw_nope" }))).toEqual({ status: 404, error: "not_found" });
    expect(await refusal(() => pickGuarantee(store, campaign, "gtd_nope", { winner: "alice" }))).toEqual({ status: 404, error: "not_found" });
    const picked = await pickGuarantee(store, campaign, period!.id, { winner: "alice", drawingId: d1.id });
    expect(picked.payoutId).toMatch(/^pay_/);
    expect(await store.guarantees.byId(campaign.id, period!.id)).toMatchObject({ status: "picked", pickedWinner: "alice", pickedDrawingId: d1.id, payoutId: picked.payoutId });
    expect(await refusal(() => pickGuarantee(store, campaign, period!.id, { winner: "alice", drawingId: d1.id }))).toEqual({ status: 409, error: "rejected" });
  });

  it("is not_needed when a prize met the threshold or nobody won; several due periods are checked in order", async () => {
    await drawing(T0 + 12 * HOUR, "paid", [["alice", 100], ["bob", 500]]);
    const checked = await checkDuePeriods(store, campaign.id, at(T0 + 6 * DAY + 1));
    expect(checked.map((g) => [g.period, g.status, g.periodStart])).toEqual([
      [1, "not_needed", START],
      [2, "not_needed", new Date(T0 + 2 * DAY).toISOString()],
      [3, "not_needed", new Date(T0 + 4 * DAY).toISOString()],
    ]);
    expect(await refusal(() => pickGuarantee(store, campaign, checked[0]!.id, { winner: "alice" }))).toEqual({ status: 409, error: "rejected" });
  });

  it("does not count paused time, and ending the campaign closes its last period at the end", async () => {
    await drawing(T0 + 12 * HOUR, "paid", [["alice", 100], ["bob", 100]]);
    await transitionCampaign(store, "gtd", "pause", at(T0 + DAY));
    await transitionCampaign(store, "gtd", "resume", at(T0 + 4 * DAY));
    // Resuming created the drawings of the next 48 hours; the one inside period 1 is drawn here.
    for (const open of (await store.drawings.list(campaign.id, "open", 50)).filter((d) => d.drawAt < new Date(T0 + 5 * DAY).toISOString())) {
      await store.drawings.replaceWinners(open.id, [{ winnerId: "carol", displayName: null, avatarUrl: null }, { winnerId: "dave", displayName: null, avatarUrl: null }]);
      await store.drawings.setPrizes(open.id, [0, 1].map((position) => ({ position, randomValue: "0x01", roll: 0, amountCents: 100, held: false })));
      await store.drawings.update({ ...open, status: "paid" });
    }
    expect(await store.pauses.list(campaign.id)).toEqual([{ pausedAt: new Date(T0 + DAY).toISOString(), resumedAt: new Date(T0 + 4 * DAY).toISOString() }]);
    expect(await checkDuePeriods(store, campaign.id, at(T0 + 5 * DAY - 1))).toEqual([]);
    const [first] = await checkDuePeriods(store, campaign.id, at(T0 + 5 * DAY));
    expect(first).toMatchObject({ period: 1, periodEnd: new Date(T0 + 5 * DAY).toISOString(), status: "awaiting_pick" });
    await transitionCampaign(store, "gtd", "pause", at(T0 + 5 * DAY + HOUR));
    await transitionCampaign(store, "gtd", "end", at(T0 + 6 * DAY));
    const [last] = await checkDuePeriods(store, campaign.id, at(T0 + 6 * DAY));
    expect(last).toMatchObject({ period: 2, periodStart: new Date(T0 + 5 * DAY).toISOString(), periodEnd: new Date(T0 + 6 * DAY).toISOString(), status: "not_needed" });
    expect(await checkDuePeriods(store, campaign.id, at(T0 + 30 * DAY))).toEqual([]);
  });

  it("refuses a pick with 409 rejected when the campaign has no payout wallet", async () => {
    await drawing(T0 + 12 * HOUR, "paid", [["alice", 100], ["bob", 100]]);
    const [period] = await checkDuePeriods(store, campaign.id, at(T0 + 2 * DAY));
    await store.campaigns.update({ ...campaign, payoutWallet: null });
    expect(await refusal(() => pickGuarantee(store, campaign, period!.id, { winner: "alice" }))).toEqual({ status: 409, error: "rejected" });
    expect((await store.guarantees.byId(campaign.id, period!.id))?.status).toBe("awaiting_pick");
  });
});
