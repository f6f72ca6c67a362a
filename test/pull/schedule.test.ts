// When the pull fetcher asks a partner's URL (spec, "Pull mode": every 5 minutes during the 2 hours before each
// cutoff; the last fetch may be up to 5 minutes before it; a URL still failing in the last 5 minutes alerts
// staff). The times must not depend on the keeper's cycle. The keeper runs here with the production
// interval of 300 s on a fake clock, on a real SQLite store, with another pull campaign whose slow URL delays
// each cycle by up to 8 s (the fetch timeout), as a slow partner does in production.

import { afterEach, describe, expect, it, vi } from "vitest";
import { createCampaign, transitionCampaign } from "../../api/src/domain/campaigns.js";
import { PULL_ALERT_KIND, isPullDue, pullSlots } from "../../api/src/keeper/pull.js";
import type { PullOutcome } from "../../api/src/pull/fetcher.js";
import { keeperWithoutChain } from "../support/keeper.js";
import { newAccount, storeFilePerTest } from "../support/store.js";

const MINUTE = 60_000;
const WALLET = "0x00000000000000000000000000000000000000a1";
/** The production keeper interval (README, KEEPER_INTERVAL_SECONDS). */
const PRODUCTION_INTERVAL_SECONDS = 300;

describe("pull slots", () => {
  const cutoff = Date.parse("2026-05-04T19:00:00.000Z");

  it("are 24 times 5 minutes apart inside the 2 hours before the cutoff, the last within its final 5 minutes", () => {
    const slots = pullSlots(cutoff);
    expect(slots).toHaveLength(24);
    expect(slots[0]).toBeGreaterThan(cutoff - 120 * MINUTE);
    expect(slots.at(-1)).toBeGreaterThan(cutoff - 5 * MINUTE);
    expect(slots.at(-1)).toBeLessThan(cutoff);
    for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBe(5 * MINUTE);
  });

  it("a fetch is due once per slot: at the slot, or later when the slot was missed (a restart)", () => {
    const [first, second] = pullSlots(cutoff) as [number, number];
    expect(isPullDue(cutoff, null, first - 1)).toBe(false);
    expect(isPullDue(cutoff, null, first)).toBe(true);
    expect(isPullDue(cutoff, first, first + 1_000)).toBe(false);
    expect(isPullDue(cutoff, first, second - 1)).toBe(false);
    expect(isPullDue(cutoff, first, second)).toBe(true);
    // A missed slot is caught up once, then the next slot counts.
    expect(isPullDue(cutoff, first, second + 3 * MINUTE)).toBe(true);
    expect(isPullDue(cutoff, second + 3 * MINUTE, second + 4 * MINUTE)).toBe(false);
    expect(isPullDue(cutoff, null, cutoff)).toBe(false);
    expect(isPullDue(cutoff, null, cutoff + MINUTE)).toBe(false);
  });
});

describe("the keeper's pull fetches on the production interval", () => {
  const files = storeFilePerTest("pull-schedule");

  afterEach(() => {
    vi.useRealTimers();
  });

  it("fetches at every slot whatever the keeper's timing, and alerts on a failure in the last 5 minutes", async () => {
    // 4 hours and an odd 17.3 s before the first drawing's cutoff: keeper ticks fall between slots.
    const cutoffAt = Date.parse("2026-05-04T19:00:00.000Z");
    const start = cutoffAt - 4 * 60 * MINUTE - 17_300;
    vi.useFakeTimers({ now: start, toFake: ["Date", "setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    const store = await files.open();
    const accountId = await newAccount(store, new Date(start));
    const schedule = { cadence: "daily" as const, drawHour: 20, timezone: "UTC", startsAt: new Date(start - 60 * MINUTE).toISOString() };
    // The slow campaign is created first, so the keeper's cycle reaches it first and its fetch delays the other's.
    for (const slug of ["slow", "watched"]) {
      await createCampaign(store, accountId, { slug, name: slug, mode: "pull", winnersPerDraw: 2, payoutWallet: WALLET, schedule, pullUrl: `https://${slug}.example/winners/{drawingId}` }, new Date(start));
      await transitionCampaign(store, slug, "activate", new Date(start));
    }
    const watched = (await store.campaigns.bySlug("watched"))!;
    const drawing = (await store.drawings.nextOpen(watched.id, new Date(start).toISOString()))!;
    expect(drawing.cutoffAt).toBe(new Date(cutoffAt).toISOString());

    const fetchedAt: number[] = [];
    let seed = 7;
    const jitter = () => ((seed = (seed * 48_271) % 2_147_483_647) % 8_000);
    const fetchList = async (url: string): Promise<PullOutcome> => {
      if (url.startsWith("https://slow.example/")) {
        await new Promise((resolve) => setTimeout(resolve, jitter()));
        return { kind: "not_ready", reason: "HTTP 404" };
      }
      if (url.includes(drawing.id)) fetchedAt.push(Date.now());
      return { kind: "error", reason: "HTTP 503" };
    };

    const keeper = keeperWithoutChain(store, PRODUCTION_INTERVAL_SECONDS, fetchList);
    keeper.start();
    try {
      // Up to a minute past the cutoff, in steps that let the keeper's promises run.
      while (Date.now() < cutoffAt + MINUTE) await vi.advanceTimersByTimeAsync(1_000);
    } finally {
      await keeper.stop();
    }

    expect(fetchedAt.map((t) => (t - cutoffAt) / MINUTE)).toEqual(pullSlots(cutoffAt).map((t) => (t - cutoffAt) / MINUTE));
    expect(await store.pull.history(drawing.id)).toHaveLength(24);
    const alerts = (await store.pull.alerts()).filter((a) => a.drawingId === drawing.id);
    expect(alerts).toEqual([expect.objectContaining({ kind: PULL_ALERT_KIND, campaignSlug: "watched" })]);
  });
});
