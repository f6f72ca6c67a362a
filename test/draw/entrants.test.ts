import fc from "fast-check";
import { encodeAbiParameters, keccak256, stringToBytes, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import {
  DrawInputError,
  ENTRANTS_SELECTION,
  entrantsCommitment,
  selectWinners,
  selectWinnersLinear,
  toCampaignId,
  winnerHash,
} from "../../api/src/draw/index.js";

const campaignId = toCampaignId("entries-weekly");
const entropyOf = (seed: number | string): Hex => keccak256(stringToBytes(`entrants-${seed}`));
const MAX_WEIGHT = 4_294_967_295n;

describe("entrantsCommitment", () => {
  it("is keccak256(abi.encode(bytes32[] idHashes, uint256[] weights))", () => {
    const entrants = ["a", "b", "c", "d"].map((id, i) => ({ idHash: winnerHash(id), weight: BigInt(i * 1000 + 1) }));
    entrants.push({ idHash: winnerHash("max"), weight: MAX_WEIGHT });
    const expected = keccak256(
      encodeAbiParameters(
        [{ type: "bytes32[]" }, { type: "uint256[]" }],
        [entrants.map((e) => e.idHash), entrants.map((e) => e.weight)],
      ),
    );
    expect(entrantsCommitment(entrants)).toBe(expected);
    expect(entrantsCommitment([])).toBe(keccak256(encodeAbiParameters([{ type: "bytes32[]" }, { type: "uint256[]" }], [[], []])));
  });

  it("changes with a weight or the order", () => {
    const a = { idHash: winnerHash("a"), weight: 1n };
    const b = { idHash: winnerHash("b"), weight: 2n };
    expect(entrantsCommitment([a, b])).not.toBe(entrantsCommitment([b, a]));
    expect(entrantsCommitment([a, b])).not.toBe(entrantsCommitment([a, { ...b, weight: 3n }]));
  });
});

describe("selectWinners", () => {
  it("names its selection rule", () => {
    expect(ENTRANTS_SELECTION).toBe("sequential-weighted-v1");
  });

  it("equals the linear scan over seeded random cases", () => {
    const weight = fc.oneof(
      fc.bigInt({ min: 1n, max: 10n }),
      fc.bigInt({ min: 1n, max: MAX_WEIGHT }),
      fc.constant(MAX_WEIGHT),
      fc.constant(1n),
    );
    fc.assert(
      fc.property(
        fc.array(weight, { minLength: 0, maxLength: 150 }),
        fc.integer({ min: 0, max: 160 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.bigInt({ min: 1n, max: (1n << 64n) - 1n }),
        (weights, count, seed, number) => {
          const p = { entropy: entropyOf(seed), campaignId, number, weights, count };
          const fast = selectWinners(p);
          expect(fast).toEqual(selectWinnersLinear(p));
          expect(fast).toHaveLength(Math.min(count, weights.length));
          expect(new Set(fast).size).toBe(fast.length);
        },
      ),
      { seed: 5, numRuns: 200 },
    );
  });

  it("equals the linear scan on a larger list with mixed weights", () => {
    const weights = Array.from({ length: 3_000 }, (_, i) => (i % 97 === 0 ? MAX_WEIGHT : BigInt((i * 7919) % 1000) + 1n));
    const p = { entropy: entropyOf("large"), campaignId, number: 12n, weights, count: 150 };
    expect(selectWinners(p)).toEqual(selectWinnersLinear(p));
  });

  it("selects every entrant exactly once when count >= entrants", () => {
    const weights = [5n, 1n, 1n, 100n, 3n, 2n, 9n];
    for (const count of [7, 8, 1000]) {
      const selected = selectWinners({ entropy: entropyOf(count), campaignId, number: 1n, weights, count });
      expect([...selected].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    }
    expect(selectWinners({ entropy: entropyOf(0), campaignId, number: 1n, weights: [], count: 3 })).toEqual([]);
    expect(selectWinners({ entropy: entropyOf(0), campaignId, number: 1n, weights, count: 0 })).toEqual([]);
  });

  it("follows the weights: weight 3 wins first about three times as often as weight 1", () => {
    let heavy = 0;
    const runs = 3_000;
    for (let i = 0; i < runs; i++) {
      const [first] = selectWinners({ entropy: entropyOf(`ratio-${i}`), campaignId, number: 1n, weights: [1n, 3n], count: 1 });
      if (first === 1) heavy++;
    }
    // Expected 2,250, standard deviation about 24.
    expect(Math.abs(heavy - 2_250)).toBeLessThan(120);
  });

  it("depends on the entropy, the campaign and the number", () => {
    const weights = Array.from({ length: 1_000 }, () => 1n);
    const p = { entropy: entropyOf("dep"), campaignId, number: 1n, weights, count: 10 };
    const base = selectWinners(p);
    expect(selectWinners({ ...p, entropy: entropyOf("dep2") })).not.toEqual(base);
    expect(selectWinners({ ...p, campaignId: toCampaignId("other") })).not.toEqual(base);
    expect(selectWinners({ ...p, number: 2n })).not.toEqual(base);
  });

  it("refuses weights outside 1..2^32-1 and bad counts", () => {
    const p = { entropy: entropyOf("bad"), campaignId, number: 1n, weights: [1n, 2n], count: 1 };
    expect(() => selectWinners({ ...p, weights: [1n, 0n] })).toThrow(DrawInputError);
    expect(() => selectWinners({ ...p, weights: [MAX_WEIGHT + 1n] })).toThrow(DrawInputError);
    expect(() => selectWinners({ ...p, weights: [1n << 80n] })).toThrow(DrawInputError);
    expect(() => selectWinners({ ...p, count: -1 })).toThrow(DrawInputError);
    expect(() => selectWinnersLinear({ ...p, weights: [0n] })).toThrow(DrawInputError);
  });

  // Its speed is a figure of `npm run bench` (against the linear scan), never a timed assertion here.
  it("selects 1,000 distinct of 100,000 weighted entrants, the same as the linear scan", () => {
    let state = 42;
    const next = (): number => {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      return state;
    };
    const weights = Array.from({ length: 100_000 }, () => BigInt(1 + (next() % 4_294_967_295)));
    const p = { entropy: entropyOf("bench"), campaignId, number: 3n, weights, count: 1_000 };
    const selected = selectWinners(p);
    expect(new Set(selected).size).toBe(1_000);
    expect(selectWinnersLinear({ ...p, count: 20 })).toEqual(selected.slice(0, 20));
  });
});
