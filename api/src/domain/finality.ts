/**
 * Finality (README, "Reorgs and finality"): a drawing's result (its random value and prizes) and its
 * payout are final once the blocks that carry them are at or below the chain's finalized block, which the keeper
 * reads once a cycle (CHAIN_FINALITY: `finalized` or `safe`). Until then a reorg can drop them: the partner API,
 * draws.json, the page and proof.json say the result is provisional, and the keeper checks it against the chain.
 */
import type { Drawing } from "../store/drawings.js";
import type { FinalizedBlock } from "../store/finality.js";

export type Finality = "provisional" | "final";

/**
 * Null before the drawing has a result; "final" once its reveal (and, once paid, its payout) is in a finalized
 * block; otherwise "provisional". Nothing is final before the keeper's first read of the finalized block.
 */
export function drawingFinality(drawing: Pick<Drawing, "status" | "revealBlock" | "paidBlock">, finalized: FinalizedBlock | null): Finality | null {
  if (drawing.status !== "settled" && drawing.status !== "paid") return null;
  const isFinal = (block: number | null) => block !== null && finalized !== null && block <= finalized.block;
  if (!isFinal(drawing.revealBlock)) return "provisional";
  return drawing.status === "paid" && !isFinal(drawing.paidBlock) ? "provisional" : "final";
}
