/** Prize tables: the spec's rules, the contract's tier cap, and roll-to-tier lookup. */
import { DrawInputError, PrizeTableError } from "./errors.js";
import { bytes32TextProblem } from "./hash.js";

/** Limits shared with contracts/PrizeDraw.sol. */
export const MIN_TIERS = 2;
export const MAX_TIERS = 16;
export const MAX_DENOMINATOR = 2_147_483_647;
export const MAX_PRIZE_CENTS = 100_000_000;

export type PrizeTierInput = { amountCents: number; weight: number };
export type PrizeTableInput = { id: string; version: number; tiers: PrizeTierInput[] };

/**
 * A validated tier. `threshold` is the cumulative weight up to and including this tier: the tier owns rolls
 * previous threshold .. threshold-1. `odds` = weight / denominator, informational only (never used in math).
 */
export type PrizeTier = { amountCents: number; weight: number; threshold: number; odds: number };
export type PrizeTable = { id: string; version: number; denominator: number; tiers: PrizeTier[] };

/** Checks a table against the spec's rules (and MAX_TIERS, the onchain cap) and adds thresholds and odds. */
export function validatePrizeTable(input: PrizeTableInput): PrizeTable {
  const idProblem = bytes32TextProblem(input.id);
  // The id goes onchain as bytes32, so it follows the campaign id rules.
  if (idProblem !== null) throw new PrizeTableError("bad_id", `Prize table id ${JSON.stringify(input.id)}: ${idProblem}`);
  if (!Number.isSafeInteger(input.version) || input.version < 1 || input.version > 0xffff_ffff) {
    // uint32 onchain, and 0 means "no table" there.
    throw new PrizeTableError("bad_version", `Prize table version must be an integer from 1 to 4294967295, got ${String(input.version)}`);
  }
  const tiers = input.tiers;
  if (!Array.isArray(tiers) || tiers.length < MIN_TIERS) {
    throw new PrizeTableError("too_few_tiers", `A prize table needs at least ${MIN_TIERS} tiers, got ${Array.isArray(tiers) ? tiers.length : 0}`);
  }
  if (tiers.length > MAX_TIERS) {
    throw new PrizeTableError("too_many_tiers", `A prize table has at most ${MAX_TIERS} tiers, got ${tiers.length}`);
  }

  let sum = 0;
  const thresholds: number[] = [];
  tiers.forEach(({ amountCents, weight }, i) => {
    if (!Number.isSafeInteger(amountCents) || amountCents < 0) {
      throw new PrizeTableError("bad_amount", `Tier ${i}: amountCents must be a whole number of cents, got ${String(amountCents)}`, i);
    }
    if (amountCents > MAX_PRIZE_CENTS) {
      throw new PrizeTableError("prize_too_large", `Tier ${i}: amountCents ${amountCents} is above ${MAX_PRIZE_CENTS}`, i);
    }
    if (weight === 0) throw new PrizeTableError("zero_weight", `Tier ${i}: weight must be above 0`, i);
    if (!Number.isSafeInteger(weight) || weight < 0) {
      throw new PrizeTableError("bad_weight", `Tier ${i}: weight must be a whole number above 0, got ${String(weight)}`, i);
    }
    sum += weight; // exact: at most 16 safe integers, each checked below before the next is added
    if (sum > MAX_DENOMINATOR) {
      throw new PrizeTableError("denominator_too_large", `Tier ${i}: weights add up to ${sum}, above ${MAX_DENOMINATOR}`, i);
    }
    thresholds.push(sum);
  });

  const denominator = sum;
  return {
    id: input.id,
    version: input.version,
    denominator,
    tiers: tiers.map(({ amountCents, weight }, i) => ({
      amountCents,
      weight,
      threshold: thresholds[i] as number,
      odds: weight / denominator,
    })),
  };
}

function deepFreeze(table: PrizeTable): PrizeTable {
  table.tiers.forEach((tier) => Object.freeze(tier));
  Object.freeze(table.tiers);
  return Object.freeze(table);
}

/** The spec's default table (rule 6), frozen because it is shared. */
export const DEFAULT_PRIZE_TABLE: PrizeTable = deepFreeze(
  validatePrizeTable({
    id: "default",
    version: 1,
    tiers: [
      { amountCents: 10_000_000, weight: 1 },
      { amountCents: 100_000, weight: 10 },
      { amountCents: 10_000, weight: 400 },
      { amountCents: 2_000, weight: 4_000 },
      { amountCents: 1_000, weight: 50_000 },
      { amountCents: 500, weight: 45_589 },
    ],
  }),
);

/** The tier whose run contains `roll`: the first whose threshold is above it (DrawMath.tierOf). */
export function tierOf(table: PrizeTable, roll: number): number {
  if (!Number.isSafeInteger(roll) || roll < 0 || roll >= table.denominator) {
    throw new DrawInputError("bad_roll", `roll must be an integer in 0..${table.denominator - 1}, got ${String(roll)}`);
  }
  const tiers = table.tiers;
  for (let i = 0; i < tiers.length; i++) {
    if (roll < (tiers[i] as PrizeTier).threshold) return i;
  }
  // Unreachable for a validated table: the last threshold equals the denominator.
  throw new DrawInputError("bad_roll", `roll ${roll} is past the last tier threshold`);
}
