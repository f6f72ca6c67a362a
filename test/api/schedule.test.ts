// Weekly and monthly entries campaigns on the real stack: drawings used to exist only 48 hours ahead,
// so POST entries answered no_open_drawing about five days in seven and nextDrawing was null. The next drawing of
// an active campaign always exists, and the one after it too, so entries keep being taken right after a cutoff,
// before the keeper's next cycle. The schedule rule is unit-tested in test/domain/schedule.test.ts.

import { describe, expect, it } from "vitest";
import { TEST_WALLET, api, type Stack } from "../support/stack.js";
import { useStack } from "../support/suite.js";
import { clockPast } from "../support/partner.js";

let stack: Stack;
let key: string;
let accountId: string;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

type NextDrawing = { id: string; drawAt: string; cutoffAt: string; winnersPerDraw: number; averagePrizeCents: number } | null;
type EntriesResponse = { drawing: { id: string; drawAt: string; cutoffAt: string }; added: number; count: number };

async function nextDrawing(slug: string): Promise<NextDrawing> {
  const r = await api(stack, "GET", `/api/v1/campaigns/${slug}`, { key });
  expect(r.status).toBe(200);
  return (r.body.campaign as { nextDrawing: NextDrawing }).nextDrawing;
}

const postEntries = (slug: string, entries: unknown[]) => api(stack, "POST", `/api/v1/campaigns/${slug}/entries`, { key, body: { entries } });

useStack("owner@example.com", (started) => ({ stack, accountId, key } = started));

describe("weekly and monthly entries campaigns", () => {
  it("weekly: the next drawing exists days ahead, takes entries, and the one after it takes them right after its cutoff", async () => {
    // The weekday four days from now (UTC), so the next draw is 3 to 4 days away: beyond the 48-hour lead.
    const weekday = (new Date().getUTCDay() + 4) % 7;
    await stack.cli("campaign", "create", "--account", accountId, "--slug", "weekly-raffle", "--name", "Weekly", "--mode", "entries", "--cadence", "weekly", "--weekday", String(weekday), "--hour", "12", "--timezone", "UTC", "--winners", "2", "--payout-wallet", TEST_WALLET);
    await stack.cli("campaign", "activate", "weekly-raffle");
    const next = await nextDrawing("weekly-raffle");
    expect(next).not.toBeNull();
    expect(Date.parse(next!.drawAt) - Date.now()).toBeGreaterThan(48 * HOUR);
    expect(new Date(next!.drawAt).getUTCDay()).toBe(weekday);

    const first = await postEntries("weekly-raffle", ["e-1", { entrantId: "e-2", weight: 2 }]);
    expect(first.status).toBeLessThan(300);
    expect((first.body as EntriesResponse).drawing.id).toBe(next!.id);

    const open = (await api(stack, "GET", "/api/v1/campaigns/weekly-raffle/drawings?status=open", { key })).body.drawings as { id: string; cutoffAt: string }[];
    expect(open.map((d) => d.id)[0]).toBe(next!.id);
    expect(open.length).toBeGreaterThanOrEqual(2);
    expect(Date.parse(open[1]!.cutoffAt) - Date.parse(open[0]!.cutoffAt)).toBe(7 * DAY);

    // Past the cutoff: the next entry goes to the following drawing at once, whenever the keeper runs.
    const moved = await clockPast(stack, key, "weekly-raffle", next!, { check: false });
    expect(moved.status).toBe(200);
    const after = await postEntries("weekly-raffle", ["e-3"]);
    expect(after.status, JSON.stringify(after.body)).toBeLessThan(300);
    expect((after.body as EntriesResponse).drawing.id).toBe(open[1]!.id);
    const following = await nextDrawing("weekly-raffle");
    expect(following?.id).toBe(open[1]!.id);
  });

  it("monthly: the next drawing exists weeks ahead and takes entries", async () => {
    // Ten days from today's date (wrapping within 1-28), so the next draw is more than 48 hours away.
    const day = ((new Date().getUTCDate() + 9) % 28) + 1;
    await stack.cli("campaign", "create", "--account", accountId, "--slug", "monthly-raffle", "--name", "Monthly", "--mode", "entries", "--cadence", "monthly", "--day-of-month", String(day), "--hour", "18", "--timezone", "Europe/Berlin", "--winners", "1", "--payout-wallet", TEST_WALLET);
    await stack.cli("campaign", "activate", "monthly-raffle");
    const next = await nextDrawing("monthly-raffle");
    expect(next).not.toBeNull();
    expect(Date.parse(next!.drawAt) - Date.now()).toBeGreaterThan(48 * HOUR);
    const posted = await postEntries("monthly-raffle", ["m-1"]);
    expect(posted.status).toBeLessThan(300);
    expect((posted.body as EntriesResponse).drawing.id).toBe(next!.id);
  });
});
