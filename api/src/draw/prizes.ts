/** A draw's prizes per position, with the top-prize-once rule exactly as PrizeDraw._settlePosition applies it. */
import type { Hex } from "viem";
import { DrawInputError, PrizeTableError } from "./errors.js";
import { type PrizeTable, tierOf } from "./prizeTable.js";
import { assertSafeIndex, positionRoller } from "./rolls.js";

export type PrizeResult = {
  position: number;
  /** The accepted random value (after rejection). */
  randomValue: Hex;
  roll: number;
  /** Tier actually paid: 1 for a second top roll in the same draw. */
  tier: number;
  amountCents: number;
  /** At or above the campaign's large-prize threshold: paid manually after checks. */
  held: boolean;
};

export type ComputePrizesParameters = {
  entropy: Hex;
  campaignId: Hex;
  number: bigint;
  table: PrizeTable;
  /** Positions 0..count-1 get a prize (for entrant draws, min(winnersExpected, entrantCount)). */
  count: number;
  largePrizeThresholdCents: number;
};

export function computePrizes(p: ComputePrizesParameters): PrizeResult[] {
  const count = assertSafeIndex(p.count, "count", "bad_count");
  if (!Number.isSafeInteger(p.largePrizeThresholdCents) || p.largePrizeThresholdCents < 1) {
    // The contract refuses 0 (everything would be held).
    throw new DrawInputError("bad_threshold", `largePrizeThresholdCents must be a positive integer, got ${String(p.largePrizeThresholdCents)}`);
  }
  const { table } = p;
  const second = table.tiers[1];
  if (second === undefined) throw new PrizeTableError("too_few_tiers", "A prize table needs at least 2 tiers");
  const roll = positionRoller(p.entropy, p.campaignId, p.number, table.denominator);

  const results: PrizeResult[] = [];
  let topAwarded = false;
  for (let position = 0; position < count; position++) {
    const r = roll(position);
    let tier = tierOf(table, r.roll);
    if (tier === 0) {
      // Top-prize-once: only the first top roll of the draw pays the top prize; later ones pay tier 1.
      if (topAwarded) tier = 1;
      else topAwarded = true;
    }
    const amountCents = (table.tiers[tier] ?? second).amountCents;
    results.push({
      position,
      randomValue: r.randomValue,
      roll: r.roll,
      tier,
      amountCents,
      held: amountCents >= p.largePrizeThresholdCents,
    });
  }
  return results;
}
