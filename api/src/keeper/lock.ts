import { campaignNow, planDrawings } from "../domain/campaigns.js";
import { cutoffReached, lockEntrantList, lockWinnerList } from "../domain/drawingLife.js";
import { toCampaignId } from "../draw/index.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing } from "../store/drawings.js";
import type { KeeperContext } from "./context.js";
import type { PullTimer } from "./pull.js";

/** A cycle's first phase, per campaign: plans drawings ahead, pulls lists due, locks lists at their cutoff. */
export async function prepare(ctx: KeeperContext, pulls: PullTimer, campaignId: string): Promise<void> {
  const { store } = ctx.deps;
  const campaign = await store.campaigns.byId(campaignId);
  if (!campaign || campaign.status === "draft") return;
  // Planned from the campaign as it is inside the transaction: an edit committed since the read above (a pause,
  // an end, an earlier end date) has deleted drawings that a stale copy would create again.
  await store.tx(async () => {
    const current = await store.campaigns.byId(campaignId);
    if (current) await planDrawings(store, current);
  });
  const unfinished = await store.drawings.unfinished(campaign.id);
  for (const drawing of unfinished) {
    if (drawing.status !== "open") continue;
    await pulls.pull(campaign, drawing);
    const fresh = await store.drawings.byId(campaign.id, drawing.id);
    if (fresh?.status === "open") await lock(ctx, (await store.campaigns.byId(campaignId))!, fresh);
  }
  // A new campaign is registered and its table published ahead of its first commit, so its draw time does not
  // wait two blocks for them (each commit still checks the chain first).
  if (campaign.status === "active" && campaign.onchainWallet === null) {
    await ctx.ensureCampaignOnchain(campaign, toCampaignId(campaign.slug));
    const next = unfinished.find((d) => d.status === "open");
    const table = next ? await store.prizeTables.get(next.tableId, next.tableVersion) : null;
    if (table) await ctx.ensureTableOnchain(table);
  }
}

/**
 * At the cutoff: locks a full list (a winner list's fingerprint, or an entrant list in arrival order with its
 * commitment) or flags the drawing (domain/drawingLife.ts).
 */
async function lock(ctx: KeeperContext, campaign: Campaign, drawing: Drawing): Promise<void> {
  const { store } = ctx.deps;
  const now = campaignNow(campaign);
  if (!cutoffReached(drawing, now)) return;
  const flagged = await store.tx(async () => {
    const current = await store.drawings.byId(campaign.id, drawing.id);
    if (!current || current.status !== "open") return null;
    let step;
    if (campaign.mode === "entries") {
      if (current.entrantCount > 0) await store.entries.assignPositions(current.id);
      step = lockEntrantList(current, current.entrantCount === 0 ? [] : await store.entries.all(current.id), now);
    } else {
      step = lockWinnerList(current, (await store.drawings.winners(current.id)).map((w) => w.winnerId), now);
    }
    if (step.kind === "moved") await store.drawings.update(step.drawing);
    else if (current.needsAttention !== step.note) {
      await store.drawings.update({ ...current, needsAttention: step.note });
      return step.note;
    }
    return null;
  });
  // Logged once the flag is stored: the partner's note names the portal; the operator's way is the CLI.
  if (flagged !== null) {
    ctx.deps.logger.info(
      { campaign: campaign.slug, drawingId: drawing.id, note: flagged },
      `drawing flagged at its cutoff; an operator can extend it: prizedraw drawing extend-cutoff ${campaign.slug} ${drawing.id} --to <time>`,
    );
  }
}
