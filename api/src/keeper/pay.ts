import { OnchainDrawingStatus, type DrawingRef } from "../chain/port.js";
import { paid } from "../domain/drawingLife.js";
import { drawToPaid } from "../metrics/registry.js";
import { toCampaignId } from "../draw/index.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing } from "../store/drawings.js";
import { inParallel } from "./batches.js";
import { fitsOneBlock } from "./commit.js";
import { CAMPAIGN_CONCURRENCY, type KeeperContext } from "./context.js";
import { followChain } from "./follow.js";

/** Payouts tried in one transaction at most; a larger set goes out as several, all in flight at once. */
const MAX_PAYOUT_BATCH = 200;

type Payable = { campaign: Campaign; ref: DrawingRef; drawing: Drawing };

/**
 * Pays every settled drawing the chain shows unpaid, of all campaigns together (payoutMany, as many
 * transactions as the block gas allows, all in flight at once), then marks paid what the indexer shows paid.
 */
export async function paySettled(ctx: KeeperContext, campaignIds: readonly string[]): Promise<void> {
  const { store } = ctx.deps;
  const payable: Payable[] = [];
  await inParallel(campaignIds, CAMPAIGN_CONCURRENCY, (id) =>
    ctx.guard(id, async () => {
      const campaign = await store.campaigns.byId(id);
      const settled = (await store.drawings.unfinished(id)).filter((d) => d.status === "settled");
      if (!campaign || settled.length === 0) return;
      const campaignId = toCampaignId(campaign.slug);
      let walletChecked = false;
      for (const drawing of settled) {
        await ctx.attempt(campaign, drawing, async () => {
          const onchain = await followChain(ctx, campaign, drawing);
          if (onchain?.status !== OnchainDrawingStatus.Settled) return;
          // The drawing pays the wallet its commit recorded; a wallet change still reaches the chain first,
          // for the commits that follow.
          if (!walletChecked) await ctx.ensureCampaignOnchain(campaign, campaignId);
          walletChecked = true;
          payable.push({ campaign, drawing, ref: { campaignId, number: BigInt(drawing.number!) } });
        });
      }
    }),
  );
  const batches: Payable[][] = [];
  for (let i = 0; i < payable.length; i += MAX_PAYOUT_BATCH) batches.push(payable.slice(i, i + MAX_PAYOUT_BATCH));
  await Promise.all(batches.map((batch) => payBatch(ctx, batch)));
  await inParallel(campaignIds, CAMPAIGN_CONCURRENCY, (id) => ctx.guard(id, () => mirrorPaid(ctx, id)));
}

/** Pays a batch in one transaction; split to fit the block, or paid one by one when the contract refuses it. */
async function payBatch(ctx: KeeperContext, batch: readonly Payable[]): Promise<void> {
  const { chain } = ctx.deps;
  if (batch.length === 1) {
    const [only] = batch;
    await ctx.attempt(only!.campaign, only!.drawing, () => chain.payout(only!.ref.campaignId, only!.ref.number));
    return;
  }
  const fits = await fitsOneBlock(ctx, () => chain.estimatePayout(batch.map((b) => b.ref)));
  if (fits === null) {
    await Promise.all(batch.map((one) => payBatch(ctx, [one])));
    return;
  }
  if (!fits) {
    const half = Math.ceil(batch.length / 2);
    await Promise.all([payBatch(ctx, batch.slice(0, half)), payBatch(ctx, batch.slice(half))]);
    return;
  }
  const first = batch[0]!;
  await ctx.attempt(first.campaign, first.drawing, () => chain.payoutMany(batch.map((b) => b.ref)));
}

/** Marks paid the settled drawings the indexer shows paid (the chain, cheaper to ask, first). */
async function mirrorPaid(ctx: KeeperContext, campaignId: string): Promise<void> {
  const { store, chain } = ctx.deps;
  const campaign = await store.campaigns.byId(campaignId);
  if (!campaign) return;
  for (const drawing of await store.drawings.unfinished(campaignId)) {
    if (drawing.status !== "settled") continue;
    const onchain = await chain.getDrawing(toCampaignId(campaign.slug), BigInt(drawing.number!));
    if (onchain.status !== OnchainDrawingStatus.Paid) continue;
    const indexed = await ctx.indexed(toCampaignId(campaign.slug), BigInt(drawing.number!));
    if (!indexed || indexed.drawing.status !== "paid") continue;
    const next = paid(campaign, drawing, indexed.drawing);
    await store.drawings.update(next);
    // Both times are on the campaign's clock (a test clock included); a reorg's repeated payout is observed again.
    if (next.paidAt !== null) drawToPaid.observe({ mode: campaign.mode }, Math.max(0, (Date.parse(next.paidAt) - Date.parse(next.drawAt)) / 1_000));
  }
}
