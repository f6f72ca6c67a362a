/**
 * Guarantees (spec: "Guarantee period", "Guarantee status", "POST guarantee pick"): a campaign may promise at
 * least one prize at or above a threshold per period; when a period ends without one, the partner picks which
 * of the period's winners receives the guaranteed amount, paid onchain as its own transfer by the keeper.
 *
 * Decisions where the spec is silent:
 * - Periods run back to back from `schedule.startsAt` in the campaign's clock (real time plus the test-clock
 *   offset). A period holds `periodDays` x 24 hours of unpaused time: its end is its start plus its length plus
 *   the paused time inside it, so a week's pause moves the end a week. A pause still running holds the end back.
 * - A campaign with an end date: its last period ends at the end date (it may be shorter), and no period starts
 *   at or after it. Ending a campaign sets the end date to now, so its last period is checked right away.
 * - A drawing belongs to the period holding its drawAt (start <= drawAt < end). A period is checked once its end
 *   has passed and every drawing in it is drawn (settled or paid); an open, flagged, locked or requested drawing
 *   holds the check (and every later one: periods are checked in order).
 * - A period without any winner is `not_needed`: there is no one to pick.
 * - Picking a `not_needed` period is 409 rejected, like a second pick: the guarantee's state refuses it.
 * - A `drawingId` that is not a drawing of the campaign is 404 not_found; a drawing of the campaign where the
 *   winner did not win in the period is 400 rejected.
 */
import type { Campaign, Guarantee } from "../store/campaigns.js";
import type { GuaranteePeriod, GuaranteeStatus } from "../store/guarantees.js";
import type { Store } from "../store/index.js";
import type { Pause } from "../store/pauses.js";
import { campaignNow } from "./campaigns.js";
import { ConflictError, NotFoundError, RejectedError } from "./errors.js";
import { newId } from "../store/ids.js";

const DAY_MS = 86_400_000;
/** Periods checked in one go at most (a long test-clock jump catches up over a few keeper cycles). */
const MAX_PERIODS_PER_CHECK = 400;

/** A period's bounds in ms of the campaign's clock; `end` is Infinity while a pause inside it lasts. */
export type PeriodBounds = { period: number; start: number; end: number };

/** The guarantee period resource (spec, Guarantee period). */
export type GuaranteeView = { id: string; period: number; periodStart: string; periodEnd: string; status: GuaranteeStatus; amountCents: number };

/** The pick request, already shape-checked by the HTTP schema. */
export type GuaranteePick = { winner: string; drawingId?: string | undefined };

/**
 * The end of a period that starts at `start` and lasts `lengthMs` of unpaused time: walks the pauses in order,
 * counting only the time outside them. A pause without `resumedAt` lasts for ever (the end is Infinity).
 */
export function periodEndMs(start: number, lengthMs: number, pauses: readonly Pause[]): number {
  const intervals = pauses
    .map((p) => ({ from: Date.parse(p.pausedAt), to: p.resumedAt === null ? Infinity : Date.parse(p.resumedAt) }))
    .filter((p) => p.to > start && p.to > p.from)
    .sort((a, b) => a.from - b.from);
  let t = start;
  let remaining = lengthMs;
  for (const pause of intervals) {
    if (pause.from > t) {
      if (remaining <= pause.from - t) return t + remaining;
      remaining -= pause.from - t;
    }
    t = Math.max(t, pause.to);
    if (t === Infinity) return Infinity;
  }
  return t + remaining;
}

/** The period after `last` (or the first), or null when the campaign's end date leaves no room for it. */
export function nextPeriod(campaign: Pick<Campaign, "schedule">, terms: Guarantee, pauses: readonly Pause[], last: Pick<GuaranteePeriod, "period" | "periodEnd"> | null): PeriodBounds | null {
  const start = Date.parse(last ? last.periodEnd : campaign.schedule.startsAt);
  const endsAt = campaign.schedule.endsAt === null ? null : Date.parse(campaign.schedule.endsAt);
  if (endsAt !== null && start >= endsAt) return null;
  const end = periodEndMs(start, terms.periodDays * DAY_MS, pauses);
  return { period: (last?.period ?? 0) + 1, start, end: endsAt !== null && endsAt < end ? endsAt : end };
}

/**
 * Checks every period that is due: its end has passed on the campaign's clock and all its drawings are drawn.
 * Creates one row per checked period, `not_needed` when a prize in it met the threshold (or it had no winner),
 * else `awaiting_pick`. Stops at the first period not due. Returns the rows created.
 */
export async function checkDuePeriods(store: Store, campaignId: string, realNow: Date = new Date()): Promise<GuaranteePeriod[]> {
  return store.tx(async () => {
    const campaign = await store.campaigns.byId(campaignId);
    const terms = campaign?.guarantee;
    if (!campaign || !terms || campaign.status === "draft") return [];
    const now = campaignNow(campaign, realNow).getTime();
    const pauses = await store.pauses.list(campaign.id);
    const created: GuaranteePeriod[] = [];
    let last: Pick<GuaranteePeriod, "period" | "periodEnd"> | null = await store.guarantees.last(campaign.id);
    for (let i = 0; i < MAX_PERIODS_PER_CHECK; i++) {
      const bounds = nextPeriod(campaign, terms, pauses, last);
      if (!bounds || bounds.end > now) break;
      const periodStart = new Date(bounds.start).toISOString();
      const periodEnd = new Date(bounds.end).toISOString();
      const drawings = await store.guarantees.periodDrawings(campaign.id, periodStart, periodEnd);
      if (drawings.some((d) => d.status !== "settled" && d.status !== "paid")) break;
      const wins = await store.guarantees.periodWins(campaign.id, periodStart, periodEnd);
      const met = wins.some((w) => w.amountCents !== null && w.amountCents >= terms.thresholdCents);
      const row: GuaranteePeriod = {
        id: newId("gtd"),
        campaignId: campaign.id,
        period: bounds.period,
        periodStart,
        periodEnd,
        status: met || wins.length === 0 ? "not_needed" : "awaiting_pick",
        amountCents: terms.amountCents,
        thresholdCents: terms.thresholdCents,
        pickedWinner: null,
        pickedDrawingId: null,
        pickedAt: null,
        payoutId: null,
        pickTx: null,
        paidAt: null,
        createdAt: realNow.toISOString(),
      };
      await store.guarantees.insert(row);
      created.push(row);
      last = row;
    }
    return created;
  });
}

/**
 * POST guarantee pick: the winner must have won in the period (once, or `drawingId` says which win). One
 * transaction: of concurrent picks exactly one moves `awaiting_pick` to `picked`; the rest are 409 rejected.
 */
export async function pickGuarantee(store: Store, campaign: Campaign, guaranteeId: string, pick: GuaranteePick, realNow: Date = new Date(), by: string = `account:${campaign.accountId}`): Promise<{ payoutId: string }> {
  return store.tx(async () => {
    const guarantee = await store.guarantees.byId(campaign.id, guaranteeId);
    if (!guarantee) throw new NotFoundError(`no guarantee ${guaranteeId.slice(0, 64)} in campaign ${campaign.slug}`);
    if (guarantee.status === "picked" || guarantee.status === "paid") {
      throw new ConflictError("rejected", `guarantee ${guarantee.id} was already picked; a guarantee is picked once`);
    }
    if (guarantee.status === "not_needed") {
      throw new ConflictError("rejected", `period ${guarantee.period} had a prize at or above the threshold: there is no guarantee to pick`);
    }
    const fresh = await store.campaigns.byId(campaign.id);
    if (!fresh?.payoutWallet) throw new ConflictError("rejected", "the campaign has no payout wallet to pay the guarantee to");
    if (pick.drawingId !== undefined && !(await store.drawings.byId(campaign.id, pick.drawingId))) {
      throw new NotFoundError(`no drawing ${pick.drawingId.slice(0, 64)} in campaign ${campaign.slug}`);
    }
    const wins = (await store.guarantees.periodWins(campaign.id, guarantee.periodStart, guarantee.periodEnd)).filter(
      (w) => w.winnerId === pick.winner && (pick.drawingId === undefined || w.drawingId === pick.drawingId),
    );
    const win = wins[0];
    if (!win) {
      throw new RejectedError(pick.drawingId === undefined ? `the winner did not win in period ${guarantee.period}` : `the winner did not win drawing ${pick.drawingId} in period ${guarantee.period}`);
    }
    if (wins.length > 1) throw new RejectedError(`the winner won ${wins.length} times in period ${guarantee.period}: send drawingId to say which win`);
    const payoutId = newId("pay");
    if (!(await store.guarantees.pick(guarantee.id, { winner: pick.winner, drawingId: win.drawingId, payoutId, at: realNow.toISOString() }))) {
      throw new ConflictError("rejected", `guarantee ${guarantee.id} was already picked; a guarantee is picked once`);
    }
    await store.audit.record(by, "guarantee.pick", campaign.slug, { guaranteeId: guarantee.id, payoutId, drawingId: win.drawingId });
    return { payoutId };
  });
}

export function guaranteeView(g: GuaranteePeriod): GuaranteeView {
  return { id: g.id, period: g.period, periodStart: g.periodStart, periodEnd: g.periodEnd, status: g.status, amountCents: g.amountCents };
}
