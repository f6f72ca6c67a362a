import { keccak256, stringToBytes } from "viem";
import { describe, expect, it } from "vitest";
import {
  computePrizes,
  DEFAULT_PRIZE_TABLE,
  DrawInputError,
  rollFor,
  tierOf,
  toCampaignId,
  validatePrizeTable,
} from "../../api/src/draw/index.js";

const campaignId = toCampaignId("likely-top");
// Top tier weight 9 of 10: almost every roll lands in tier 0.
const likelyTop = validatePrizeTable({
  id: "likely-top",
  version: 1,
  tiers: [
    { amountCents: 500_000, weight: 9 },
    { amountCents: 300, weight: 1 },
  ],
});

describe("computePrizes", () => {
  it("pays the top prize only for the first top roll of a draw", () => {
    let drawsWithRepeats = 0;
    for (let seed = 0; seed < 20; seed++) {
      const entropy = keccak256(stringToBytes(`top-once-${seed}`));
      const results = computePrizes({ entropy, campaignId, number: 1n, table: likelyTop, count: 40, largePrizeThresholdCents: 100_000 });
      expect(results).toHaveLength(40);
      const topRolls = results.filter((r) => r.roll < 9).map((r) => r.position);
      const firstTop = topRolls[0];
      expect(firstTop).toBeDefined();
      if (topRolls.length > 1) drawsWithRepeats++;
      for (const r of results) {
        const paidTop = r.position === firstTop;
        expect(r.tier).toBe(paidTop ? 0 : 1);
        expect(r.amountCents).toBe(paidTop ? 500_000 : 300);
        expect(r.held).toBe(paidTop);
      }
      expect(results.filter((r) => r.tier === 0)).toHaveLength(1);
    }
    expect(drawsWithRepeats).toBe(20);
  });

  it("sends a repeated top roll to tier 1, not to the tier the roll would otherwise skip to", () => {
    const table = validatePrizeTable({
      id: "three",
      version: 1,
      tiers: [
        { amountCents: 2_500, weight: 3 },
        { amountCents: 700, weight: 2 },
        { amountCents: 50, weight: 1 },
      ],
    });
    const entropy = keccak256(stringToBytes("three-tiers"));
    const results = computePrizes({ entropy, campaignId, number: 9n, table, count: 30, largePrizeThresholdCents: 1_000 });
    const tops = results.filter((r) => r.roll < 3);
    expect(tops.length).toBeGreaterThan(2);
    expect(tops.slice(1).every((r) => r.tier === 1 && r.amountCents === 700)).toBe(true);
    expect(results.filter((r) => r.roll >= 5).every((r) => r.tier === 2 && r.amountCents === 50)).toBe(true);
  });

  it("agrees with rollFor and tierOf position by position, and sets held from the threshold", () => {
    const entropy = keccak256(stringToBytes("default-20"));
    const results = computePrizes({ entropy, campaignId, number: 5n, table: DEFAULT_PRIZE_TABLE, count: 50, largePrizeThresholdCents: 1_000 });
    results.forEach((r, position) => {
      const roll = rollFor(entropy, campaignId, 5n, position, DEFAULT_PRIZE_TABLE.denominator);
      expect(r.position).toBe(position);
      expect(r.randomValue).toBe(roll.randomValue);
      expect(r.roll).toBe(roll.roll);
      expect(r.tier).toBe(tierOf(DEFAULT_PRIZE_TABLE, roll.roll));
      expect(r.amountCents).toBe(DEFAULT_PRIZE_TABLE.tiers[r.tier]?.amountCents);
      expect(r.held).toBe(r.amountCents >= 1_000);
    });
    expect(results.some((r) => r.held)).toBe(true);
    expect(results.some((r) => !r.held)).toBe(true);
  });

  it("returns nothing for count 0 and refuses bad counts and thresholds", () => {
    const entropy = keccak256(stringToBytes("x"));
    const p = { entropy, campaignId, number: 1n, table: DEFAULT_PRIZE_TABLE, count: 0, largePrizeThresholdCents: 1 };
    expect(computePrizes(p)).toEqual([]);
    expect(() => computePrizes({ ...p, count: -1 })).toThrow(DrawInputError);
    expect(() => computePrizes({ ...p, count: 1, largePrizeThresholdCents: 0 })).toThrow(DrawInputError);
  });
});
