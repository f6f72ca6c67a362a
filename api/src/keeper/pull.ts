import { campaignNow } from "../domain/campaigns.js";
import { applyWinnerList } from "../domain/drawings.js";
import type { Logger } from "../logger.js";
import { fetchWinnerList, type PullOutcome } from "../pull/fetcher.js";
import { pullUrlFor } from "../pull/url.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing } from "../store/drawings.js";
import type { Store } from "../store/index.js";
import type { FetchOutcome } from "../store/pull.js";

/** Spec, "Pull mode": every 5 minutes during the 2 hours before each cutoff. */
export const PULL_WINDOW_MS = 2 * 60 * 60_000;
export const PULL_EVERY_MS = 5 * 60_000;
/** A URL still failing this close to the cutoff alerts staff. */
export const PULL_ALERT_WINDOW_MS = 5 * 60_000;
export const PULL_ALERT_KIND = "pull_url_failing";

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
  if (now >= cutoff || now < cutoff - PULL_WINDOW_MS) return;
  const last = store.pull.lastFetchAt(drawing.id);
  if (last !== null && now - new Date(last).getTime() < PULL_EVERY_MS) return;

  const url = pullUrlFor(campaign.pullUrl, drawing, campaign.schedule.timezone);
  const fetchList = deps.fetchList ?? ((u: string, n: number) => fetchWinnerList(u, n, { allowLoopback: deps.allowLoopback }));
  const outcome = await fetchList(url, drawing.winnersExpected);
  const at = new Date(now).toISOString();

  let recorded: FetchOutcome = outcome.kind === "list" ? "stored" : outcome.kind;
  let reason = outcome.kind === "list" ? null : outcome.reason;
  if (outcome.kind === "list") {
    try {
      store.tx(() => {
        const current = store.drawings.byId(campaign.id, drawing.id);
        if (!current || current.status !== "open") throw new Error("the drawing is no longer open");
        const result = applyWinnerList(store, campaign, current, outcome.winners, realNow, outcome.round);
        recorded = result.changed ? "stored" : "unchanged";
        store.pull.recordFetch(drawing.id, at, recorded, null);
      });
      return;
    } catch (error) {
      recorded = "invalid";
      reason = error instanceof Error ? error.message : String(error);
    }
  }
  store.pull.recordFetch(drawing.id, at, recorded, reason);
  if ((recorded === "error" || recorded === "invalid") && cutoff - now <= PULL_ALERT_WINDOW_MS) {
    const detail = `the winners URL still fails ${Math.ceil((cutoff - now) / 60_000)} min before the cutoff: ${reason ?? "unknown"}`;
    if (store.pull.raiseAlert({ at, kind: PULL_ALERT_KIND, campaignSlug: campaign.slug, drawingId: drawing.id, detail })) {
      // A structured alert for staff; the URL is a secret and never logged.
      logger.warn({ alert: PULL_ALERT_KIND, campaign: campaign.slug, drawingId: drawing.id, reason }, "staff alert: pull URL failing before the cutoff");
    }
  }
}
