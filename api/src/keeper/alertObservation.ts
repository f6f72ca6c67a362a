/**
 * What the alert rules (domain/alerts.ts) look at, read once per alert check: every unfinished drawing at or past
 * its cutoff (or within the pull alert window of it) with its campaign's clock and, for pull campaigns, the URL's
 * latest fetch; the pool's free balance beside what the active campaigns pay out in a day; the operator's balance.
 * The chain is asked at most once per `chainEveryMs` (its readings are kept between), and a failed read leaves the
 * pool and gas unjudged and starts the clock of a chain outage.
 */
import type { ChainPort } from "../chain/port.js";
import { campaignNow } from "../domain/campaigns.js";
import { dailyPrizeCents, type AlertObservation, type ObservedDrawing } from "../domain/alerts.js";
import { averagePrizeCents } from "../draw/index.js";
import type { Campaign } from "../store/campaigns.js";
import type { Store } from "../store/index.js";

/** The chain reads the rules need. */
export type AlertChainReads = Pick<ChainPort, "poolBalances" | "operatorBalance">;

export type AlertObserverDeps = {
  store: Store;
  chain: AlertChainReads;
  /** The chain is read at most this often. */
  chainEveryMs: number;
  /** How close to its cutoff an open drawing's pull fetches matter (the spec's 5 minutes). */
  pullWindowMs: number;
};

type ChainReading = { freeCents: bigint; operatorBalanceWei: bigint } | null;

export class AlertObserver {
  private reading: ChainReading = null;
  private readAt = 0;
  private failingSince: string | null = null;
  /** Average prize per winner by table, version and winners a draw: a stored table version never changes. */
  private readonly averages = new Map<string, number>();

  constructor(private readonly deps: AlertObserverDeps) {}

  async observe(realNow: Date): Promise<AlertObservation> {
    const campaigns = await this.deps.store.campaigns.drawable();
    const drawings: ObservedDrawing[] = [];
    for (const campaign of campaigns) drawings.push(...(await this.drawingsOf(campaign, realNow)));
    await this.readChain(realNow);
    const daily = await this.dailyPrizes(campaigns);
    return {
      drawings,
      pool: this.reading === null ? null : { freeCents: this.reading.freeCents, dailyPrizeCents: daily },
      operatorBalanceWei: this.reading?.operatorBalanceWei ?? null,
      chainFailingSince: this.failingSince,
      now: realNow.toISOString(),
    };
  }

  /** The campaign's unfinished drawings whose cutoff has come or is within the pull window (later ones need no one yet). */
  private async drawingsOf(campaign: Campaign, realNow: Date): Promise<ObservedDrawing[]> {
    const { store, pullWindowMs } = this.deps;
    const now = campaignNow(campaign, realNow);
    const horizon = now.getTime() + pullWindowMs;
    const out: ObservedDrawing[] = [];
    for (const drawing of await store.drawings.unfinished(campaign.id)) {
      if (Date.parse(drawing.cutoffAt) > horizon) continue;
      const pulled = campaign.mode === "pull" && drawing.status === "open";
      const last = pulled ? ((await store.pull.history(drawing.id)).at(-1) ?? null) : null;
      out.push({ campaignSlug: campaign.slug, mode: campaign.mode, drawing, campaignNow: now.toISOString(), lastFetch: last });
    }
    return out;
  }

  /** The pool and the operator's balance, read again once the last try is `chainEveryMs` old. */
  private async readChain(realNow: Date): Promise<void> {
    if (this.readAt !== 0 && realNow.getTime() - this.readAt < this.deps.chainEveryMs) return;
    this.readAt = realNow.getTime();
    try {
      const [pool, operatorBalanceWei] = await Promise.all([this.deps.chain.poolBalances(), this.deps.chain.operatorBalance()]);
      this.reading = { freeCents: pool.freeCents, operatorBalanceWei };
      this.failingSince = null;
    } catch {
      this.reading = null;
      this.failingSince ??= realNow.toISOString();
    }
  }

  /** What the active campaigns pay out in a day on average (cents). */
  private async dailyPrizes(campaigns: readonly Campaign[]): Promise<bigint> {
    let total = 0n;
    for (const campaign of campaigns) {
      if (campaign.status !== "active") continue;
      const average = await this.averagePrize(campaign);
      if (average !== null) total += dailyPrizeCents({ cadence: campaign.schedule.cadence, winnersPerDraw: campaign.winnersPerDraw, averagePrizeCents: average });
    }
    return total;
  }

  private async averagePrize(campaign: Campaign): Promise<number | null> {
    const key = `${campaign.tableId}:${campaign.tableVersion}:${campaign.winnersPerDraw}`;
    const known = this.averages.get(key);
    if (known !== undefined) return known;
    const table = await this.deps.store.prizeTables.get(campaign.tableId, campaign.tableVersion);
    if (!table) return null;
    const average = averagePrizeCents(table, campaign.winnersPerDraw);
    this.averages.set(key, average);
    return average;
  }
}
