/**
 * A drawing's proof.json: what it is built from (readProofSources: a few store rows and the indexer's drawing, and the
 * state they make) and its body (renderProof: the entrant list read from the store a page at a time, the body built in
 * the proof worker). http/proofRenders.ts keeps one body per state.
 */
import { createHash } from "node:crypto";
import { setImmediate as nextTurn } from "node:timers/promises";
import { toHex, type Address, type Hex } from "viem";
import type { DeploymentRecord } from "../chain/deployment.js";
import type { IndexerClient } from "../chain/indexer.js";
import { DrawInputError, ProofMismatchError, toCampaignId, validatePrizeTable, type ProofInputV6 } from "../draw/index.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing } from "../store/drawings.js";
import type { Store } from "../store/index.js";
import { NotFoundError, ServiceError } from "./errors.js";
import { drawingFinality, type Finality } from "./finality.js";
import type { ProofBuilder } from "./proofBuilder.js";
import type { EntrantPage, ProofBytes } from "./proofRender.js";
import { isDrawn } from "./publicDraws.js";

export const PROOF_MISMATCH = "the stored winner list does not hash to the onchain commitment; the proof is withheld";

/** Entrants read per store query while a body is built: each query is one short slice of the event loop. */
const ENTRANT_PAGE = 2_000;

/** The proof exists onchain but the indexer has not caught up with it yet. */
export class ProofNotReadyError extends ServiceError {
  override name = "ProofNotReadyError";
  constructor() {
    super(404, "not_found", "this draw's proof is not indexed yet; try again in a few seconds");
  }
}

/**
 * What a drawing's proof body is built from, read from the store and the indexer without its entrant list (the
 * expensive part, read only when a body is built: renderProof).
 */
export type ProofSources = {
  campaign: Campaign;
  drawing: Drawing;
  /** The proof's input; an entries drawing's `entrants.list` is empty here and filled from the store by renderProof. */
  input: ProofInputV6;
  finality: Finality;
  /** The finalized block from which a provisional result is final with no write (null: final, or only a write can make it). */
  finalAt: number | null;
  /**
   * The state the body follows from, as a digest: the input (every indexed value, the ids and names from the store)
   * and the finality. The entrant list is fixed at the lock; the drawing's entrants commitment, computed from it
   * then, stands for it. Equal states give byte-identical bodies, so a body is built once per state.
   */
  state: string;
};

/**
 * Proof format version 6 (docs/proof-format.md): every value a verifier recomputes comes from indexed chain
 * data (the commit's slot, the request's user contribution and batch, Entropy's Revealed log for the provider's
 * contribution); ids and names come from the store, and they must hash to the onchain commitment, or the proof is
 * refused and the drawing flagged. The batch's contributions are recomputed from the indexed members' commits.
 * `entropy.reRequest` names the commit's request and the re-request when the provider did not reveal the first in
 * time (null otherwise); the request, its reveal and contributions are then the re-request's. `entropy.requestBlock`
 * is that request's block (the commit's or the re-request's) with the hash the contract mixed into the value.
 *
 * Reads a few rows of the store and two routes of the indexer: cheap enough to check a kept body against the chain.
 */
export async function readProofSources(store: Store, indexer: IndexerClient, deployment: DeploymentRecord, campaign: Campaign, drawingId: string): Promise<ProofSources> {
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
  const input: ProofInputV6 = {
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
        ? { count: indexed.drawing.entrantCount, totalWeight: Number(indexed.drawing.totalWeight), commitment: indexed.drawing.listCommitment, list: [] }
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
    reRequest,
    requestBlock: { number: Number(indexed.drawing.reRequestBlock ?? indexed.drawing.commitBlock), hash: indexed.drawing.requestBlockHash },
    drawValue: indexed.drawing.randomValue,
  };
  const finality = drawingFinality(drawing, await store.finality.get()) ?? "provisional";
  return { campaign, drawing, input, finality, finalAt: finality === "final" ? null : finalAtOf(drawing), state: stateOf(input, drawing, finality) };
}

/**
 * The body of `sources`: built by `builder` (in its worker thread), with an entries drawing's list read from the
 * store a page at a time. A body the draw rules refuse (the store's ids or names do not hash to the onchain
 * commitments, or the indexed data is malformed) is withheld and the drawing flagged: 409, never a 500.
 */
export async function renderProof(store: Store, builder: ProofBuilder, sources: ProofSources): Promise<ProofBytes> {
  const { campaign, drawing, input, finality } = sources;
  try {
    return await builder.build({ input, finality, entrants: input.entrants === null ? null : storedEntrants(store, drawing.id) });
  } catch (error) {
    if (!(error instanceof ProofMismatchError) && !(error instanceof DrawInputError)) throw error;
    await store.tx(async () => {
      const current = await store.drawings.byId(campaign.id, drawing.id);
      if (current && current.needsAttention !== PROOF_MISMATCH) await store.drawings.update({ ...current, needsAttention: PROOF_MISMATCH });
    });
    throw new ServiceError(409, "proof_mismatch", PROOF_MISMATCH);
  }
}

/** The drawing's entrants in list order (arrival order, as the lock fixed them), a page per store query. */
async function* storedEntrants(store: Store, drawingId: string): AsyncGenerator<EntrantPage> {
  let after = -1;
  for (;;) {
    const rows = await store.entries.page(drawingId, after, ENTRANT_PAGE);
    if (rows.length > 0) yield { ids: rows.map((r) => r.entrantId), weights: rows.map((r) => r.weight) };
    if (rows.length < ENTRANT_PAGE) return;
    after = rows[rows.length - 1]!.seq;
    // SQLite answers synchronously: without a turn of the event loop, the pages would be one long slice.
    await nextTurn();
  }
}

/** The finalized block at which the result and (once paid) the payout are final (domain/finality.ts); null if one is not recorded. */
function finalAtOf(drawing: Pick<Drawing, "status" | "revealBlock" | "paidBlock">): number | null {
  const blocks = drawing.status === "paid" ? [drawing.revealBlock, drawing.paidBlock] : [drawing.revealBlock];
  return blocks.every((b): b is number => b !== null) ? Math.max(...blocks) : null;
}

function stateOf(input: ProofInputV6, drawing: Pick<Drawing, "entrantCount" | "entrantsCommitment">, finality: Finality): string {
  // The batch members' numbers are bigints: written as decimal strings.
  const json = JSON.stringify([input, drawing.entrantCount, drawing.entrantsCommitment, finality], (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
  return createHash("sha256").update(json).digest("base64url");
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
