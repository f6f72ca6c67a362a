import { OnchainDrawingStatus } from "../chain/port.js";
import { steppedBack, type StepBackTo } from "../domain/drawingLife.js";
import { toCampaignId } from "../draw/index.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing } from "../store/drawings.js";
import type { KeeperContext } from "./context.js";

/**
 * The chain's view of a settled or paid drawing, after stepping the drawing back where a reorg took the chain
 * back: no drawing (the commit dropped: locked again, same number), not yet settled or another random value (the
 * reveal dropped: requested again, its mirrored value and prizes cleared), settled while the store says paid
 * (the payout dropped: settled again, paid once more). Null when the drawing was stepped back to before settled.
 */
export async function followChain(ctx: KeeperContext, campaign: Campaign, drawing: Drawing) {
  const onchain = await ctx.drawingOnchain(toCampaignId(campaign.slug), BigInt(drawing.number!));
  if (onchain === null) {
    await stepBack(ctx, campaign, drawing, "locked", "the commit is no longer on the chain");
    return null;
  }
  if (onchain.status < OnchainDrawingStatus.Settled || onchain.randomValue.toLowerCase() !== drawing.entropyValue?.toLowerCase()) {
    await stepBack(ctx, campaign, drawing, "entropy_requested", "the reveal is no longer on the chain, or another one is");
    return null;
  }
  if (drawing.status === "paid" && onchain.status === OnchainDrawingStatus.Settled) {
    await stepBack(ctx, campaign, drawing, "settled", "the payout is no longer on the chain");
    return onchain;
  }
  if (drawing.status === "paid" && (drawing.revealBlock === null || drawing.paidBlock === null)) await recordBlocks(ctx, campaign, drawing);
  return onchain;
}

/**
 * Paid drawings not yet final (their reveal or payout above the chain's finalized block), checked against the
 * chain every cycle (followChain) until they are. Before the first finality read nothing is checked.
 */
export async function recheckPaid(ctx: KeeperContext, campaignId: string): Promise<void> {
  const { store } = ctx.deps;
  const campaign = await store.campaigns.byId(campaignId);
  const finalized = await store.finality.get();
  if (!campaign || !finalized) return;
  for (const drawing of await store.drawings.paidNotFinal(campaignId, finalized.block)) await ctx.attempt(campaign, drawing, () => followChain(ctx, campaign, drawing));
}

/** A paid drawing without its blocks (paid before they were recorded): the indexer has them. */
async function recordBlocks(ctx: KeeperContext, campaign: Campaign, drawing: Drawing): Promise<void> {
  const { store } = ctx.deps;
  const indexed = await ctx.indexed(toCampaignId(campaign.slug), BigInt(drawing.number!));
  if (indexed?.drawing.status !== "paid" || indexed.drawing.randomValue?.toLowerCase() !== drawing.entropyValue?.toLowerCase()) return;
  const { revealBlock, paidBlock } = indexed.drawing;
  await store.tx(async () => {
    const fresh = await store.drawings.byId(campaign.id, drawing.id);
    if (fresh?.status === "paid") await store.drawings.update({ ...fresh, revealBlock: revealBlock === null ? null : Number(revealBlock), paidBlock: paidBlock === null ? null : Number(paidBlock) });
  });
}

/** Moves a drawing back because the chain no longer shows a step the store recorded (domain/drawingLife.ts). */
export async function stepBack(ctx: KeeperContext, campaign: Campaign, drawing: Drawing, to: StepBackTo, reason: string): Promise<void> {
  const { store, logger } = ctx.deps;
  logger.warn({ alert: "reorg", campaign: campaign.slug, drawingId: drawing.id, number: drawing.number, from: drawing.status, to }, `${reason}: the drawing goes back to ${to}`);
  await store.tx(async () => {
    if (to !== "settled") await store.drawings.clearPrizes(drawing.id);
    await store.drawings.update(steppedBack(drawing, to, campaign.mode));
  });
}

/**
 * Held prizes are paid or refused by an operator (prizedraw held pay|refuse); their state comes from the
 * indexed HeldPrizePaid / HeldPrizeRefused events, so the partner API shows what the chain says.
 */
export async function mirrorHeldPrizes(ctx: KeeperContext, campaignId: string): Promise<void> {
  const { store } = ctx.deps;
  const campaign = await store.campaigns.byId(campaignId);
  if (!campaign) return;
  for (const open of await store.drawings.openHeldPrizes(campaignId)) {
    const indexed = await ctx.indexed(toCampaignId(campaign.slug), BigInt(open.number));
    if (!indexed) continue;
    for (const prize of indexed.prizes) {
      if (prize.position !== open.position || prize.heldStatus === null || prize.heldStatus === "open") continue;
      await store.drawings.setHeldStatus(open.drawingId, open.position, prize.heldStatus, prize.heldReason);
    }
  }
}
