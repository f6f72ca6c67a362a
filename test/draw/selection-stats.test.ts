// Sequential weighted selection (DESIGN.md section 6) draws each entrant with its exact inclusion probability:
// over many seeded draws of a small case, every entrant's win frequency stays within 4.5 standard errors of the
// probability computed exactly here by enumerating the orders of selection.

import { describe, expect, it } from "vitest";
import { keccak256, toHex } from "viem";
import { selectWinners, toCampaignId } from "../../api/src/draw/index.js";

/** P(entrant i is among the first `n` drawn), summed over every ordered prefix, as exact fractions in floats. */
function inclusionProbabilities(weights: number[], n: number): number[] {
  const result = weights.map(() => 0);
  const walk = (taken: number[], p: number) => {
    if (taken.length === n) {
      for (const i of taken) result[i]! += p;
      return;
    }
    const remaining = weights.reduce((sum, w, i) => (taken.includes(i) ? sum : sum + w), 0);
    weights.forEach((w, i) => {
      if (!taken.includes(i)) walk([...taken, i], (p * w) / remaining);
    });
  };
  walk([], 1);
  return result;
}

describe("selection statistics", () => {
  it("matches the exact inclusion probabilities of a small weighted case", () => {
    const weights = [1, 2, 3, 4, 10];
    const winners = 2;
    const exact = inclusionProbabilities(weights, winners);
    expect(exact.reduce((a, b) => a + b, 0)).toBeCloseTo(winners, 12);
    const draws = 6_000;
    const wins = weights.map(() => 0);
    const campaignId = toCampaignId("stats");
    for (let d = 0; d < draws; d++) {
      const picked = selectWinners({ entropy: keccak256(toHex(`seed-${d}`)), campaignId, number: BigInt(d + 1), weights: weights.map(BigInt), count: winners });
      expect(new Set(picked).size).toBe(winners);
      for (const i of picked) wins[i]!++;
    }
    weights.forEach((_, i) => {
      const p = exact[i]!;
      const standardError = Math.sqrt((p * (1 - p)) / draws);
      expect(Math.abs(wins[i]! / draws - p), `entrant ${i}: ${wins[i]! / draws} vs ${p}`).toBeLessThan(4.5 * standardError);
    });
    // Heavier entrants win more often, as the weights say.
    expect(wins[4]!).toBeGreaterThan(wins[3]!);
    expect(wins[3]!).toBeGreaterThan(wins[0]!);
  });
});
