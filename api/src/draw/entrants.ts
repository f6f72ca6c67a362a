/**
 * Entrant draws (DESIGN.md section 6): the entrant list commitment and the sequential weighted selection,
 * "sequential-weighted-v1".
 */
import { encodeAbiParameters, keccak256, type Hex } from "viem";
import { encodeBytes32AndUint256Arrays, wordToBigInt, writeBytes32 } from "./abi.js";
import { DrawInputError } from "./errors.js";
import { asciiBytes32 } from "./hash.js";
import { assertSafeIndex, counterHasher, drawPrefix, rejectionFloor, rejectionSample } from "./rolls.js";

export const ENTRANTS_SELECTION = "sequential-weighted-v1";
/** Spec: weights are whole numbers from 1 to 2^32 - 1. */
export const MAX_ENTRANT_WEIGHT = 0xffff_ffffn;

export type EntrantRef = { idHash: Hex; weight: bigint };

/** keccak256(abi.encode(bytes32[] idHashes, uint256[] weights)), recorded onchain at the lock. */
export function entrantsCommitment(entrants: readonly EntrantRef[]): Hex {
  return keccak256(
    encodeBytes32AndUint256Arrays(
      entrants.map((e) => e.idHash),
      entrants.map((e) => e.weight),
      "entrants",
    ),
  );
}

export type SelectWinnersParameters = {
  entropy: Hex;
  campaignId: Hex;
  number: bigint;
  /** Entrant weights in position (arrival) order. */
  weights: readonly bigint[];
  /** Winners wanted; min(count, weights.length) are drawn. */
  count: number;
};

/** The bytes32 tag that separates selection hashes from prize-roll hashes. */
const ENTRANTS_TAG = asciiBytes32("entrants");

/**
 * Checks the weights (1..2^32-1, total below 2^53 so every Fenwick sum is exact as a double) and returns them
 * as doubles with their total. Checking the doubles is exact: a bigint up to 2^53 converts exactly, a larger
 * one converts to a double above 2^32 - 1 and is refused.
 */
function checkWeights(weights: readonly bigint[]): { values: Float64Array; total: bigint } {
  const values = new Float64Array(weights.length);
  const max = Number(MAX_ENTRANT_WEIGHT);
  let total = 0;
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i];
    const x = typeof w === "bigint" ? Number(w) : Number.NaN;
    if (!(x >= 1 && x <= max && Number.isInteger(x))) {
      throw new DrawInputError("bad_weight", `weights[${i}] must be a bigint from 1 to ${MAX_ENTRANT_WEIGHT}, got ${String(w)}`);
    }
    values[i] = x;
    // Exact while the running total stays below 2^53; the first sum past it rounds to at least 2^53.
    total += x;
  }
  if (total > Number.MAX_SAFE_INTEGER) {
    throw new DrawInputError("bad_weight", `total weight ${total} is above 2^53 - 1`);
  }
  return { values, total: BigInt(total) };
}

/** v for winner j and retry k: keccak256(abi.encode(entropy, campaignId, uint64 number, "entrants", j, k)). */
function selectionHasher(p: SelectWinnersParameters): (j: number, k: number) => Uint8Array {
  const prefix = drawPrefix(p.entropy, p.campaignId, p.number, 1);
  writeBytes32(prefix, 96, ENTRANTS_TAG);
  return counterHasher(prefix);
}

/**
 * Selected entrant positions in winner order j = 0..n-1, n = min(count, weights.length).
 * A Fenwick tree over the weights gives O(count + n log count). Its sums are held in a Float64Array: every
 * partial sum is an integer at most the total (< 2^53), so each is exact. u and T come from bigint.
 */
export function selectWinners(p: SelectWinnersParameters): number[] {
  const count = assertSafeIndex(p.count, "count", "bad_count");
  const checked = checkWeights(p.weights);
  const weight = checked.values;
  let total = checked.total;
  const size = weight.length;
  const n = Math.min(count, size);
  const hash = selectionHasher(p);

  // tree[i] (1-based) holds the sum of weights (i - lowbit(i), i]. Built in O(size) by pushing each node
  // into its parent.
  const tree = new Float64Array(size + 1);
  tree.set(weight, 1);
  for (let i = 1; i <= size; i++) {
    const parent = i + (i & -i);
    if (parent <= size) tree[parent] = (tree[parent] as number) + (tree[i] as number);
  }
  let topStep = 1;
  while (topStep * 2 <= size) topStep *= 2;

  const selected: number[] = [];
  for (let j = 0; j < n; j++) {
    const sample = rejectionSample((k) => hash(j, k), total, rejectionFloor(total));
    // Descend to the largest prefix whose sum is <= u; the next position is the first whose running sum
    // exceeds u. Removed entrants weigh 0 in the tree, so they are never that position.
    let rest = Number(sample.reduced);
    let index = 0;
    for (let step = topStep; step > 0; step >>= 1) {
      const next = index + step;
      if (next <= size && (tree[next] as number) <= rest) {
        index = next;
        rest -= tree[next] as number;
      }
    }
    const position = index; // the winner is 1-based tree index `index + 1`, i.e. 0-based position `index`
    const w = weight[position] as number;
    for (let i = position + 1; i <= size; i += i & -i) tree[i] = (tree[i] as number) - w;
    weight[position] = 0;
    total -= BigInt(w);
    selected.push(position);
  }
  return selected;
}

/**
 * The same selection by a plain scan, O(count * n), hashing through viem's ABI encoder: the readable
 * statement of the rule, used as a test oracle and benchmark baseline.
 */
export function selectWinnersLinear(p: SelectWinnersParameters): number[] {
  const count = assertSafeIndex(p.count, "count", "bad_count");
  checkWeights(p.weights);
  const remaining = [...p.weights];
  const drawn = remaining.map(() => false);
  const n = Math.min(count, remaining.length);
  const selected: number[] = [];
  for (let j = 0; j < n; j++) {
    let T = 0n;
    remaining.forEach((w, i) => {
      if (!drawn[i]) T += w;
    });
    const floor = rejectionFloor(T);
    let v = 0n;
    for (let k = 0n; ; k++) {
      const encoded = encodeAbiParameters(
        [
          { type: "bytes32" },
          { type: "bytes32" },
          { type: "uint64" },
          { type: "bytes32" },
          { type: "uint256" },
          { type: "uint256" },
        ],
        [p.entropy, p.campaignId, p.number, ENTRANTS_TAG, BigInt(j), k],
      );
      v = wordToBigInt(keccak256(encoded, "bytes"));
      if (v >= floor) break;
    }
    const u = v % T;
    let running = 0n;
    for (let i = 0; i < remaining.length; i++) {
      if (drawn[i]) continue;
      running += remaining[i] as bigint;
      if (running > u) {
        drawn[i] = true;
        selected.push(i);
        break;
      }
    }
  }
  return selected;
}
