import type { ChainPort } from "../chain/port.js";
import { heldDecisionToResend } from "../domain/guaranteeLife.js";
import { toCampaignId } from "../draw/index.js";
import type { Logger } from "../logger.js";
import type { Store } from "../store/index.js";

export type HeldKeeperDeps = { store: Store; chain: ChainPort; logger: Logger };

/**
 * An operator's held-prize decision (pay or refuse) that a reorg dropped is sent again, once (the rule:
 * domain/guaranteeLife.ts heldDecisionToResend), checked against the chain until its block is final. A drawing whose reveal was dropped has no held prizes left to check (its prizes are cleared,
 * and the new reveal's held prizes wait for a new decision).
 */
export async function recheckHeldDecisions(deps: HeldKeeperDeps, campaignId: string): Promise<void> {
  const { store, chain, logger } = deps;
  const campaign = await store.campaigns.byId(campaignId);
  const finalized = await store.finality.get();
  if (!campaign || !finalized) return;
  const onchainId = toCampaignId(campaign.slug);
  for (const held of await store.drawings.heldDecisionsNotFinal(campaignId, finalized.block)) {
    const where = { campaign: campaign.slug, number: held.number, position: held.position, decision: held.status };
    try {
      const resend = heldDecisionToResend(held.status, await chain.heldPrizeState(onchainId, BigInt(held.number), BigInt(held.position)));
      if (resend === null) continue;
      logger.warn({ alert: "reorg", ...where }, "a held prize's decision is no longer on the chain: sending it again");
      const receipt =
        resend === "paid"
          ? await chain.payHeldPrize(onchainId, BigInt(held.number), BigInt(held.position))
          : await chain.refuseHeldPrize(onchainId, BigInt(held.number), BigInt(held.position), held.reason ?? "");
      await store.drawings.setHeldStatus(held.drawingId, held.position, held.status, held.reason, Number(receipt.blockNumber));
    } catch (error) {
      logger.warn({ ...where, err: error instanceof Error ? { name: error.name, message: error.message } : String(error) }, "held prize recheck failed; retrying next cycle");
    }
  }
}
