import { campaignNow } from "../domain/campaigns.js";
import { applyWinnerList } from "../domain/drawings.js";
import { localDrawDate } from "../domain/schedule.js";
import type { Logger } from "../logger.js";
import { fetchWinnerList, type PullOutcome } from "../pull/fetcher.js";
import { pullUrlFor } from "../pull/url.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing } from "../store/drawings.js";
import type { Store } from "../store/index.js";
import type { FetchOutcome } from "../store/pull.js";
import { SerialRun } from "./serialRun.js";
import { pullFetchFailures } from "../metrics/registry.js";

/**
 * Spec, "Pull mode": every 5 minutes during the 2 hours before each cutoff; the last fetch may be up to 5 minutes
 * before it; a URL still failing in the last 5 minutes alerts staff.
 *
 * Fetches happen at fixed slots counted back from the cutoff, 4, 9, 14, ... 119 minutes before it (24 fetches,
 * 5 minutes apart, the last inside the final 5 minutes, where a failure alerts staff, with time left for the
 * 8-second fetch). A timer of their own (PullTimer) fires at each slot, so the times do not depend on the keeper's
 * cycle: with a gate of "5 minutes since the last fetch" checked by a 300-second keeper, a cycle a second early
 * skipped a fetch (10-minute gaps, the last fetch up to 10 minutes before the cutoff, no alert).
 * The keeper's cycle still calls pullIfDue, which catches up a slot missed while the service was down.
 */
export const PULL_WINDOW_MS = 2 * 60 * 60_000;
export const PULL_EVERY_MS = 5 * 60_000;
/** The last slot's distance from the cutoff. */
export const PULL_LAST_SLOT_MS = 4 * 60_000;
export const PULL_SLOT_COUNT = PULL_WINDOW_MS / PULL_EVERY_MS;
/** A URL still failing this close to the cutoff alerts staff. */
export const PULL_ALERT_WINDOW_MS = 5 * 60_000;
export const PULL_ALERT_KIND = "pull_url_failing";
/** The timer never sleeps longer than this (setTimeout's limit is about 24 days; a re-check costs little). */
const MAX_SLEEP_MS = 60 * 60_000;
/** After the store could not be read, the timer looks again this much later (well within a slot's 5 minutes). */
const UNREADABLE_RETRY_MS = 10_000;

/** The fetch slots (ms, the campaign's clock) of a drawing whose cutoff is `cutoffMs`, earliest first. */
export function pullSlots(cutoffMs: number): number[] {
  const first = firstSlot(cutoffMs);
  return Array.from({ length: PULL_SLOT_COUNT }, (_, i) => first + i * PULL_EVERY_MS);
}

function firstSlot(cutoffMs: number): number {
  return cutoffMs - PULL_LAST_SLOT_MS - (PULL_SLOT_COUNT - 1) * PULL_EVERY_MS;
}

/** The latest slot at or before `nowMs`, or null before the first slot and from the cutoff on. */
export function latestPullSlot(cutoffMs: number, nowMs: number): number | null {
  const first = firstSlot(cutoffMs);
  if (nowMs < first || nowMs >= cutoffMs) return null;
  return first + Math.min(Math.floor((nowMs - first) / PULL_EVERY_MS), PULL_SLOT_COUNT - 1) * PULL_EVERY_MS;
}

/** The first slot after `nowMs`, or null when none is left. */
export function nextPullSlot(cutoffMs: number, nowMs: number): number | null {
  const first = firstSlot(cutoffMs);
  if (nowMs < first) return first;
  const next = first + (Math.floor((nowMs - first) / PULL_EVERY_MS) + 1) * PULL_EVERY_MS;
  return next <= cutoffMs - PULL_LAST_SLOT_MS ? next : null;
}

/** A fetch is due when a slot has come and no fetch was made at or after it (one catch-up for missed slots). */
export function isPullDue(cutoffMs: number, lastFetchMs: number | null, nowMs: number): boolean {
  const slot = latestPullSlot(cutoffMs, nowMs);
  return slot !== null && (lastFetchMs === null || lastFetchMs < slot);
}

export type PullDeps = {
  store: Store;
  logger: Logger;
  allowLoopback: boolean;
  fetchList?: (url: string, expected: number) => Promise<PullOutcome>;
};

/**
 * Fetches a pull campaign's list for an open drawing when due (campaign clock): nothing is stored until a full
 * valid list arrives; a changed list before the cutoff replaces the earlier one; every fetch is recorded with
 * its outcome (never the URL). At the cutoff the keeper locks whatever list is stored, as if posted.
 */
export async function pullIfDue(deps: PullDeps, campaign: Campaign, drawing: Drawing, realNow: Date = new Date()): Promise<void> {
  const { store, logger } = deps;
  if (campaign.mode !== "pull" || !campaign.pullUrl || drawing.status !== "open") return;
  const now = campaignNow(campaign, realNow).getTime();
  const cutoff = new Date(drawing.cutoffAt).getTime();
  const last = await store.pull.lastFetchAt(drawing.id);
  if (!isPullDue(cutoff, last === null ? null : Date.parse(last), now)) return;

  const url = pullUrlFor(campaign.pullUrl, drawing, localDrawDate(new Date(drawing.drawAt), campaign.schedule.timezone));
  const fetchList = deps.fetchList ?? ((u: string, n: number) => fetchWinnerList(u, n, { allowLoopback: deps.allowLoopback }));
  const outcome = await fetchList(url, drawing.winnersExpected);
  const at = new Date(now).toISOString();

  let recorded: FetchOutcome = outcome.kind === "list" ? "stored" : outcome.kind;
  let reason = outcome.kind === "list" ? null : outcome.reason;
  if (outcome.kind === "list") {
    try {
      await store.tx(async () => {
        const current = await store.drawings.byId(campaign.id, drawing.id);
        if (!current || current.status !== "open") throw new Error("the drawing is no longer open");
        const result = await applyWinnerList(store, campaign, current, outcome.winners, realNow, outcome.round);
        recorded = result.changed ? "stored" : "unchanged";
        await store.pull.recordFetch(drawing.id, at, recorded, null);
      });
      return;
    } catch (error) {
      recorded = "invalid";
      reason = error instanceof Error ? error.message : String(error);
    }
  }
  await store.pull.recordFetch(drawing.id, at, recorded, reason);
  if (recorded === "error" || recorded === "invalid") pullFetchFailures.inc({ outcome: recorded });
  if ((recorded === "error" || recorded === "invalid") && cutoff - now <= PULL_ALERT_WINDOW_MS) {
    const detail = `the winners URL still fails ${Math.ceil((cutoff - now) / 60_000)} min before the cutoff: ${reason ?? "unknown"}`;
    if (await store.pull.raiseAlert({ at, kind: PULL_ALERT_KIND, campaignSlug: campaign.slug, drawingId: drawing.id, detail })) {
      // A structured alert for staff; the URL is a secret and never logged.
      logger.warn({ alert: PULL_ALERT_KIND, campaign: campaign.slug, drawingId: drawing.id, reason }, "staff alert: pull URL failing before the cutoff");
    }
  }
}

/**
 * Fires at each pull slot (on each campaign's clock: real time plus its test-clock offset) and fetches every
 * drawing that is due then, in parallel, so one slow partner URL delays no other. One fetch per drawing at a time:
 * the keeper's cycle goes through `pull` too. `arm` is called again after every keeper cycle (new drawings, an
 * extended cutoff, a moved test clock) and after each firing.
 *
 * Arming and choosing the drawings due read the store (asynchronous): two arms never run at once (one asked for
 * meanwhile runs after the one under way), and a firing that comes while another is still choosing is left to it
 * (it arms again once it has chosen). A store that cannot be read is logged, and the timer tries again
 * UNREADABLE_RETRY_MS later; nothing here rejects.
 */
export class PullTimer {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private readonly inFlight = new Map<string, Promise<void>>();
  /** The slot each drawing was last tried at, so a fetch that could not even be recorded is not retried in a loop. */
  private readonly tried = new Map<string, number>();
  /** Arms run one at a time (they read the store); one asked for meanwhile runs after the one under way. */
  private readonly arms = new SerialRun(() =>
    this.running
      ? this.schedule().catch((error: unknown) => {
          this.deps.logger.warn({ err: message(error) }, "pull timer: open drawings not readable; retrying");
          this.setTimer(Date.now() + UNREADABLE_RETRY_MS);
        })
      : Promise.resolve(),
  );
  /** A firing is choosing its drawings, and whether a firing came meanwhile. */
  private choosing = false;
  private firedWhileChoosing = false;

  constructor(private readonly deps: PullDeps) {}

  start(): void {
    this.running = true;
    // arm() never rejects (it logs what fails).
    void this.arm();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Fetches the drawing's list if a slot is due (see pullIfDue); joins a fetch of it already under way. */
  pull(campaign: Campaign, drawing: Drawing): Promise<void> {
    const current = this.inFlight.get(drawing.id);
    if (current) return current;
    const slot = latestPullSlot(Date.parse(drawing.cutoffAt), campaignNow(campaign).getTime());
    if (slot !== null) this.tried.set(drawing.id, slot);
    const run = pullIfDue(this.deps, campaign, drawing).finally(() => this.inFlight.delete(drawing.id));
    this.inFlight.set(drawing.id, run);
    return run;
  }

  /**
   * Sets the timer to the earliest slot to come (or due now) among the open drawings of pull campaigns. Resolves
   * when the arm under way has set it; never rejects.
   */
  arm(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return this.arms.run();
  }

  private async schedule(): Promise<void> {
    const realNow = Date.now();
    let wake = realNow + MAX_SLEEP_MS;
    const seen = new Set<string>();
    for (const { campaign, drawing } of await this.candidates(realNow)) {
      seen.add(drawing.id);
      const now = realNow + campaign.clockOffsetMs;
      const cutoff = Date.parse(drawing.cutoffAt);
      const slot = (await this.dueSlot(drawing, now)) !== null ? now : nextPullSlot(cutoff, now);
      if (slot !== null) wake = Math.min(wake, slot - campaign.clockOffsetMs);
    }
    for (const id of this.tried.keys()) if (!seen.has(id)) this.tried.delete(id);
    this.setTimer(wake);
  }

  /** Sets the timer to fire at `wake` (real time), unless the timer was stopped meanwhile. */
  private setTimer(wake: number): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.fire(), Math.max(0, wake - Date.now()));
    this.timer.unref?.();
  }

  private async fire(): Promise<void> {
    this.timer = undefined;
    if (this.choosing) {
      this.firedWhileChoosing = true;
      return;
    }
    this.choosing = true;
    const pulls: Promise<void>[] = [];
    try {
      const realNow = Date.now();
      for (const { campaign, drawing } of await this.candidates(realNow)) {
        if ((await this.dueSlot(drawing, realNow + campaign.clockOffsetMs)) !== null) pulls.push(this.pull(campaign, drawing));
      }
    } catch (error) {
      this.deps.logger.warn({ err: message(error) }, "pull timer: open drawings not readable; retrying");
    } finally {
      this.choosing = false;
    }
    // A firing left to this one: the drawings due since are looked at now, not after this one's fetches.
    if (this.firedWhileChoosing) {
      this.firedWhileChoosing = false;
      void this.arm();
    }
    const results = await Promise.allSettled(pulls);
    for (const r of results) {
      if (r.status === "rejected") this.deps.logger.warn({ err: message(r.reason) }, "pull fetch failed; retried at the next slot");
    }
    await this.arm();
  }

  /** The slot due for a drawing at `now` (its campaign's clock), unless it was tried at that slot already. */
  private async dueSlot(drawing: Drawing, now: number): Promise<number | null> {
    const cutoff = Date.parse(drawing.cutoffAt);
    const last = await this.deps.store.pull.lastFetchAt(drawing.id);
    if (!isPullDue(cutoff, last === null ? null : Date.parse(last), now)) return null;
    const slot = latestPullSlot(cutoff, now);
    return slot !== null && this.tried.get(drawing.id) === slot && !this.inFlight.has(drawing.id) ? null : slot;
  }

  /** Open drawings of pull campaigns whose fetch window has not closed. */
  private async candidates(realNow: number): Promise<{ campaign: Campaign; drawing: Drawing }[]> {
    const out: { campaign: Campaign; drawing: Drawing }[] = [];
    for (const campaign of await this.deps.store.campaigns.drawable()) {
      if (campaign.mode !== "pull" || !campaign.pullUrl) continue;
      const now = realNow + campaign.clockOffsetMs;
      // Slots more than a sleep ahead need not be looked at now; the timer wakes by then anyway.
      const upTo = new Date(now + PULL_WINDOW_MS + MAX_SLEEP_MS).toISOString();
      for (const drawing of await this.deps.store.drawings.openWithCutoffBetween(campaign.id, new Date(now).toISOString(), upTo)) out.push({ campaign, drawing });
    }
    return out;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
