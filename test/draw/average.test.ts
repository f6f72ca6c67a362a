import fc from "fast-check";
import { keccak256, stringToBytes } from "viem";
import { describe, expect, it } from "vitest";
import {
  averagePrizeCents,
  computePrizes,
  DEFAULT_PRIZE_TABLE,
  DrawInputError,
  toCampaignId,
  validatePrizeTable,
  type PrizeTable,
} from "../../api/src/draw/index.js";
import { averagePrizeCentsBounded, averagePrizeCentsExact } from "../../api/src/draw/average.js";

const table = (amounts: number[], weights: number[]): PrizeTable =>
  validatePrizeTable({ id: "t", version: 1, tiers: amounts.map((amountCents, i) => ({ amountCents, weight: weights[i] as number })) });

/** floor(num / den + 1/2) for num, den > 0. */
const roundHalfUp = (num: bigint, den: bigint): number => Number((2n * num + den) / (2n * den));

/**
 * Independent of the closed form: sums each position's expected prize. Position i (0-based) rolls the top tier
 * with chance p1; it is paid a1 if no earlier position did ((1-p1)^i), else a2. Exact over the denominator D^n.
 */
function averageByPositions(t: PrizeTable, n: number): number {
  const D = BigInt(t.denominator);
  const [top, second, ...rest] = t.tiers;
  if (!top || !second) throw new Error("two tiers");
  const w1 = BigInt(top.weight);
  const others = [second, ...rest].reduce((s, tier) => s + BigInt(tier.amountCents) * BigInt(tier.weight), 0n);
  const Dn = D ** BigInt(n);
  let total = 0n; // expected total prize, times D^(n+1)
  for (let i = 0; i < n; i++) {
    const noTopBefore = (D - w1) ** BigInt(i) * D ** BigInt(n - i); // (1-p1)^i, times D^n
    const topPay = BigInt(top.amountCents) * noTopBefore + BigInt(second.amountCents) * (Dn - noTopBefore);
    // (others + w1 * topPay / D^n) / D, times D^(n+1)
    total += others * Dn + w1 * topPay;
  }
  return roundHalfUp(total, Dn * D * BigInt(n));
}

/** Brute force: every sequence of n rolls, the rule applied literally. Only for tiny D^n. */
function averageByEnumeration(t: PrizeTable, n: number): number {
  const D = t.denominator;
  const amountOf = (roll: number): [number, number] => {
    const tier = t.tiers.findIndex((x) => roll < x.threshold);
    return [tier, (t.tiers[tier] as { amountCents: number }).amountCents];
  };
  let sum = 0n;
  const rolls = new Array<number>(n).fill(0);
  for (let seq = 0; seq < D ** n; seq++) {
    let x = seq;
    for (let i = 0; i < n; i++) {
      rolls[i] = x % D;
      x = Math.floor(x / D);
    }
    let topPaid = false;
    for (const roll of rolls) {
      const [tier, amount] = amountOf(roll);
      if (tier === 0 && topPaid) sum += BigInt((t.tiers[1] as { amountCents: number }).amountCents);
      else {
        if (tier === 0) topPaid = true;
        sum += BigInt(amount);
      }
    }
  }
  return roundHalfUp(sum, BigInt(D ** n * n));
}

describe("averagePrizeCents", () => {
  it("is 958 for the default table and one winner", () => {
    expect(averagePrizeCents(DEFAULT_PRIZE_TABLE, 1)).toBe(958);
  });

  it("matches a literal enumeration of every roll sequence (tiny tables)", () => {
    const tables = [
      table([1_000, 10], [1, 1]),
      table([700, 100, 0], [2, 1, 2]),
      table([10, 1_000], [3, 1]), // top amount below the second: the rule raises the average
      table([3, 0], [1, 5]),
    ];
    for (const t of tables) {
      for (let n = 1; n <= 5; n++) expect(averagePrizeCents(t, n)).toBe(averageByEnumeration(t, n));
    }
  });

  it("matches a position-by-position exact sum", () => {
    const cases: [PrizeTable, number][] = [
      [DEFAULT_PRIZE_TABLE, 1],
      [DEFAULT_PRIZE_TABLE, 7],
      [DEFAULT_PRIZE_TABLE, 120],
      [table([100_000_000, 1, 0], [1, 2, 3]), 50],
      [table([50_000, 200, 10], [30, 20, 50]), 200],
      [table([1, 99_999_999], [9, 1]), 33],
    ];
    for (const [t, n] of cases) expect(averagePrizeCents(t, n)).toBe(averageByPositions(t, n));
  });

  it("agrees with the closed form computed fully exactly, for random tables and sizes", () => {
    const arb = fc.record({
      tiers: fc.array(fc.record({ amountCents: fc.integer({ min: 0, max: 100_000_000 }), weight: fc.integer({ min: 1, max: 5_000 }) }), {
        minLength: 2,
        maxLength: 6,
      }),
      n: fc.integer({ min: 1, max: 3_000 }),
    });
    fc.assert(
      fc.property(arb, ({ tiers, n }) => {
        const t = validatePrizeTable({ id: "r", version: 1, tiers });
        return averagePrizeCents(t, n) === averagePrizeCentsExact(t, n);
      }),
      { seed: 3, numRuns: 150 },
    );
  });

  it("uses the enclosure only when it decides, and then decides right", () => {
    // At n = 1 the average is S/D = (3 + 0*5)/6 = 0.5 exactly: the enclosure of 5/6 straddles the half cent.
    const half = table([3, 0], [1, 5]);
    expect(averagePrizeCentsBounded(half, 1, 192)).toBeNull();
    expect(averagePrizeCents(half, 1)).toBe(1);
    // With a tiny precision the enclosure may give up, but it never gives a wrong answer.
    fc.assert(
      fc.property(
        fc.array(fc.record({ amountCents: fc.integer({ min: 0, max: 1_000_000 }), weight: fc.integer({ min: 1, max: 100 }) }), {
          minLength: 2,
          maxLength: 4,
        }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 4, max: 64 }),
        (tiers, n, bits) => {
          const t = validatePrizeTable({ id: "r", version: 1, tiers });
          const bounded = averagePrizeCentsBounded(t, n, bits);
          return bounded === null || bounded === averagePrizeCentsExact(t, n);
        },
      ),
      { seed: 4, numRuns: 300 },
    );
    expect(averagePrizeCentsBounded(DEFAULT_PRIZE_TABLE, 100_000, 192)).toBe(averagePrizeCentsExact(DEFAULT_PRIZE_TABLE, 100_000));
  });

  // Its speed is a figure of `npm run bench`, never a timed assertion here.
  it("is exact at 100,000 winners", () => {
    const fast = averagePrizeCents(DEFAULT_PRIZE_TABLE, 100_000);
    expect(fast).toBe(averagePrizeCentsExact(DEFAULT_PRIZE_TABLE, 100_000));
    expect(fast).toBe(922);
    const max = table([100_000_000, 0], [1, 2_147_483_646]);
    expect(averagePrizeCents(max, 100_000)).toBe(averagePrizeCentsExact(max, 100_000));
  });

  it("is close to a Monte-Carlo run of computePrizes", () => {
    // A table where the rule matters a lot: the plain expectation is 2,525 per winner, at 8 winners the rule brings it to 1,164.
    const t = table([10_000, 100, 0], [1, 1, 2]);
    const n = 8;
    const draws = 2_500;
    const campaignId = toCampaignId("monte-carlo");
    const averages: number[] = [];
    for (let i = 0; i < draws; i++) {
      const entropy = keccak256(stringToBytes(`mc-${i}`));
      const results = computePrizes({ entropy, campaignId, number: 1n, table: t, count: n, largePrizeThresholdCents: 1_000_000 });
      averages.push(results.reduce((s, r) => s + r.amountCents, 0) / n);
    }
    const mean = averages.reduce((a, b) => a + b, 0) / draws;
    const variance = averages.reduce((s, a) => s + (a - mean) ** 2, 0) / (draws - 1);
    const standardError = Math.sqrt(variance / draws);
    const exact = averagePrizeCents(t, n);
    expect(exact).toBe(1_164);
    const plain = (10_000 + 100) / 4;
    expect(Math.abs(mean - exact)).toBeLessThan(5 * standardError);
    // The check can tell the rule apart from the plain expectation.
    expect(Math.abs(mean - plain)).toBeGreaterThan(5 * standardError);
  });

  it("refuses a winner count below 1", () => {
    expect(() => averagePrizeCents(DEFAULT_PRIZE_TABLE, 0)).toThrow(DrawInputError);
    expect(() => averagePrizeCents(DEFAULT_PRIZE_TABLE, 2.5)).toThrow(DrawInputError);
  });
});
