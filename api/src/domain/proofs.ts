import { toHex, type Address, type Hex } from "viem";
import type { DeploymentRecord } from "../chain/deployment.js";
import type { IndexerClient } from "../chain/indexer.js";
import { DrawInputError, ProofMismatchError, buildProofV6, toCampaignId, validatePrizeTable, winnerHash, type ProofInputV4, type ProofV6 } from "../draw/index.js";
import type { Campaign } from "../store/campaigns.js";
import type { Store } from "../store/index.js";
import { NotFoundError, ServiceError } from "./errors.js";
import { isDrawn } from "./publicDraws.js";

export const PROOF_MISMATCH = "the stored winner list does not hash to the onchain commitment; the proof is withheld";

/** The proof exists onchain but the indexer has not caught up with it yet. */
export class ProofNotReadyError extends ServiceError {
  override name = "ProofNotReadyError";
  constructor() {
    super(404, "not_found", "this draw's proof is not indexed yet; try again in a few seconds");
  }
}

/**
 * Proof format version 6 (docs/proof-format.md): every value a verifier recomputes comes from indexed chain
 * data (the commit's slot, the request's user contribution and batch, Entropy's Revealed log for the provider's
 * contribution); ids and names come from the store, and they must hash to the onchain commitment, or the proof is
 * refused and the drawing flagged. The batch's contributions are recomputed from the indexed members' commits.
 * `entropy.reRequest` names the commit's request and the re-request when the provider did not reveal the first in
 * time (null otherwise); the request, its reveal and contributions are then the re-request's. `entropy.requestBlock`
 * is that request's block (the commit's or the re-request's) with the hash the contract mixed into the value.
 */
export async function drawProof(store: Store, indexer: IndexerClient, deployment: DeploymentRecord, campaign: Campaign, drawingId: string): Promise<ProofV6> {
  const drawing = await store.drawings.byId(campaign.id, drawingId);
  if (!drawing || !isDrawn(drawing) || drawing.number === null) throw new NotFoundError("no drawn draw with this id: a proof exists once the draw is drawn");
  const campaignId = toCampaignId(campaign.slug);
  const indexed = await indexer.drawing(campaignId, BigInt(drawing.number));
  if (!indexed || indexed.drawing.randomValue === null || indexed.drawing.entropyValue === null || indexed.drawing.requestBlockHash === null || indexed.drawing.revealTimestamp === null || indexed.drawing.revealTx === null || indexed.drawing.sequence === null || indexed.drawing.winnersCommitment === null) {
    throw new ProofNotReadyError();
  }
  // Every member of a batch is committed in one transaction; a partial read is the indexer catching up.
  const { batchIndex, batchSize } = indexed.drawing;
  if (batchIndex === null || batchSize === null || indexed.batchMembers.length !== batchSize) throw new ProofNotReadyError();
  // A real provider's contribution goes into the proof; Entropy logs it right after the callback's own events.
  if (!deployment.mockEntropy && indexed.entropyReveal === null) throw new ProofNotReadyError();
  const onchainTable = await indexer.prizeTable(toHex(drawing.tableId, { size: 32 }), drawing.tableVersion);
  if (!onchainTable) throw new ProofNotReadyError();
  const table = validatePrizeTable({
    id: drawing.tableId,
    version: drawing.tableVersion,
    tiers: onchainTable.amountsCents.map((amountCents, i) => ({ amountCents, weight: onchainTable.weights[i]! })),
  });
  const winners = await store.drawings.winners(drawing.id);
  const reRequest = reRequestOf(indexed.drawing, deployment);
  try {
    const input: ProofInputV4 = {
      campaign: { slug: campaign.slug, name: campaign.name },
      drawing: { id: drawing.id, number: drawing.number, drawAt: drawing.drawAt, slot: indexed.drawing.slot },
      winners: winners.map((w) => ({ winner: w.winnerId, displayName: w.displayName })),
      commitment: indexed.drawing.winnersCommitment,
      lockedAt: drawing.lockedAt ?? new Date(Number(indexed.drawing.commitTimestamp) * 1_000).toISOString(),
      entropy: {
        provider: deployment.mockEntropy ? "mock" : ((indexed.drawing.provider ?? deployment.entropyProvider) as Address),
        requestId: indexed.drawing.sequence.toString(),
        value: indexed.drawing.entropyValue,
        revealedAt: new Date(Number(indexed.drawing.revealTimestamp) * 1_000).toISOString(),
        ...(indexed.drawing.userRandomNumber === null ? {} : { userContribution: indexed.drawing.userRandomNumber }),
        providerContribution: indexed.entropyReveal?.providerContribution ?? null,
      },
      table,
      results: indexed.prizes.map((p) => ({ position: p.position, randomValue: p.randomValue, roll: Number(p.roll), amountCents: Number(p.amountCents) })),
      entrants:
        campaign.mode === "entries"
          ? {
              count: indexed.drawing.entrantCount,
              totalWeight: Number(indexed.drawing.totalWeight),
              commitment: indexed.drawing.listCommitment,
              list: (await store.entries.all(drawing.id)).map((e) => ({ hash: winnerHash(e.entrantId), weight: e.weight })),
            }
          : null,
      chain: { chainId: deployment.chainId, contract: deployment.prizeDraw, entropy: deployment.entropy, commitTx: indexed.drawing.commitTx, revealTx: indexed.drawing.revealTx as Hex },
      batch: {
        index: batchIndex,
        size: batchSize,
        members: indexed.batchMembers.map((m) => ({
          campaignId: m.campaignId,
          number: m.number,
          slot: m.slot,
          listCommitment: m.listCommitment,
          ...(m.batchIndex === null ? {} : { batchIndex: m.batchIndex }),
        })),
      },
    };
    const requestBlock = { number: Number(indexed.drawing.reRequestBlock ?? indexed.drawing.commitBlock), hash: indexed.drawing.requestBlockHash };
    return buildProofV6({ ...input, reRequest, requestBlock, drawValue: indexed.drawing.randomValue });
  } catch (error) {
    // Malformed indexed data is a disagreement too: never a 500 on the public route.
    if (!(error instanceof ProofMismatchError) && !(error instanceof DrawInputError)) throw error;
    await store.tx(async () => {
      const current = await store.drawings.byId(campaign.id, drawing.id);
      if (current && current.needsAttention !== PROOF_MISMATCH) await store.drawings.update({ ...current, needsAttention: PROOF_MISMATCH });
    });
    throw new ServiceError(409, "proof_mismatch", PROOF_MISMATCH);
  }
}

type IndexedDrawing = NonNullable<Awaited<ReturnType<IndexerClient["drawing"]>>>["drawing"];

/** The re-request a proof (version 5 and later) names, from the indexed EntropyReRequested; null when the first request was revealed. */
function reRequestOf(drawing: IndexedDrawing, deployment: DeploymentRecord) {
  if (drawing.previousSequence === null) return null;
  if (drawing.previousProvider === null || drawing.reRequestTx === null || drawing.reRequestBlock === null || drawing.reRequestTimestamp === null) throw new ProofNotReadyError();
  // Only contracts of deployment record version 5 and later can re-request, and their records name the timeout.
  if (deployment.revealTimeoutBlocks === undefined) throw new Error("the deployment record names no revealTimeoutBlocks, yet a drawing was re-requested");
  return {
    previousProvider: drawing.previousProvider as Address,
    previousRequestId: drawing.previousSequence.toString(),
    timeoutBlocks: deployment.revealTimeoutBlocks,
    requestTx: drawing.reRequestTx,
    requestedAt: new Date(Number(drawing.reRequestTimestamp) * 1_000).toISOString(),
    ...(drawing.previousUserRandomNumber === null ? {} : { previousUserContribution: drawing.previousUserRandomNumber }),
  };
}
