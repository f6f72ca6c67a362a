import type { Campaign } from "../store/campaigns.js";
import type { Store } from "../store/index.js";
import { BadRequestError, NotFoundError } from "./errors.js";
import { latestAhead } from "./times.js";

/** A test-clock step like 90m, 2h, 1d or 30s (the API's and the CLI's `advanceBy`) in milliseconds. */
export function durationMs(value: string): number {
  const n = Number(value.slice(0, -1));
  const unit = value.slice(-1);
  return n * (unit === "s" ? 1_000 : unit === "m" ? 60_000 : unit === "h" ? 3_600_000 : 86_400_000);
}

/**
 * Moves a campaign's test clock forward to `target` (never back: drawings already moved on), at most 100 years
 * ahead of real time (domain/times.ts: drawings past year 9999 would get times that no longer order as text in the
 * store). The one rule behind every door: the partner API's test-clock route and `prizedraw clock advance`, which
 * read a typed target with the rule for typed times (parseTime).
 */
export async function advanceClock(store: Store, campaignId: string, target: Date, realNow: Date = new Date()): Promise<Campaign> {
  if (Number.isNaN(target.getTime())) throw new BadRequestError("the test clock needs a valid time");
  if (target.getTime() > latestAhead(realNow)) throw new BadRequestError("the test clock moves at most 100 years ahead of real time");
  return store.tx(async () => {
    const campaign = await store.campaigns.byId(campaignId);
    if (!campaign) throw new NotFoundError("no such campaign");
    const offset = Math.max(campaign.clockOffsetMs, target.getTime() - realNow.getTime());
    const next = { ...campaign, clockOffsetMs: offset, updatedAt: realNow.toISOString() };
    await store.campaigns.update(next);
    await store.audit.record("test-clock", "clock.advance", campaign.slug, { to: new Date(realNow.getTime() + offset).toISOString() });
    return next;
  });
}
