/**
 * Held prizes (spec, "What the service does" 5): prizes at or above a campaign's large-prize threshold are not in
 * the drawing's automatic transfer. An operator checks each one, then pays it or refuses it with a reason; both
 * are onchain events (HeldPrizePaid, HeldPrizeRefused), and the partner API shows each one's state.
 */
import type { ChainPort } from "../chain/port.js";
import { toCampaignId } from "../draw/index.js";
import type { HeldStatus } from "../store/drawings.js";
import type { Store } from "../store/index.js";
import { BadRequestError, ConflictError, NotFoundError } from "./errors.js";

/** One held prize as `prizedraw held list` shows it. */
export type HeldPrizeView = {
  campaign: string;
  drawingId: string;
  number: number;
  position: number;
  winner: string;
  amountCents: number;
  status: HeldStatus;
  reason: string | null;
};

/** Held prizes of one campaign, or of every campaign, oldest drawing first. */
export async function listHeldPrizes(store: Store, slug?: string): Promise<HeldPrizeView[]> {
  const campaigns = slug ? [(await store.campaigns.bySlug(slug)) ?? notFound(slug)] : await store.campaigns.drawable();
  const views: HeldPrizeView[] = [];
  for (const campaign of campaigns) {
    for (const w of await store.drawings.heldPrizes(campaign.id)) {
      views.push({
        campaign: campaign.slug,
        drawingId: w.drawingId,
        number: w.number,
        position: w.position,
        winner: w.winnerId,
        amountCents: w.amountCents ?? 0,
        status: w.heldStatus ?? "open",
        reason: w.heldReason,
      });
    }
  }
  return views;
}

export type HeldDecision = { pay: true } | { pay: false; reason: string };

/** Pays or refuses one open held prize onchain, then records the decision (the keeper mirrors it too). */
export async function decideHeldPrize(store: Store, chain: ChainPort, slug: string, number: number, position: number, decision: HeldDecision): Promise<HeldPrizeView> {
  const held = (await listHeldPrizes(store, slug)).find((h) => h.number === number && h.position === position);
  if (!held) throw new NotFoundError(`no held prize at drawing ${number}, position ${position} of ${slug}`);
  if (held.status !== "open") throw new ConflictError("rejected", `this held prize is already ${held.status}`);
  const campaignId = toCampaignId(slug);
  const reason = decision.pay ? null : decision.reason.trim();
  if (reason !== null && (reason.length === 0 || reason.length > 200)) throw new BadRequestError("a refusal needs a reason of 1 to 200 characters");
  const receipt =
    reason === null
      ? await chain.payHeldPrize(campaignId, BigInt(number), BigInt(position))
      : await chain.refuseHeldPrize(campaignId, BigInt(number), BigInt(position), reason);
  const status: HeldStatus = decision.pay ? "paid" : "refused";
  // The block lets the keeper check the decision against the chain until it is final (keeper/heldPrizes.ts).
  await store.drawings.setHeldStatus(held.drawingId, position, status, reason, Number(receipt.blockNumber));
  return { ...held, status, reason };
}

function notFound(slug: string): never {
  throw new NotFoundError(`no campaign ${slug.slice(0, 64)}`);
}
