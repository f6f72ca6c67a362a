import { describe, expect, it } from "vitest";
import {
  DEFAULT_PRIZE_TABLE,
  DrawInputError,
  PrizeTableError,
  tierOf,
  validatePrizeTable,
  type PrizeTableInput,
} from "../../api/src/draw/index.js";

const base = (tiers: PrizeTableInput["tiers"], over: Partial<PrizeTableInput> = {}): PrizeTableInput => ({
  id: "t",
  version: 1,
  tiers,
  ...over,
});

function errorOf(input: PrizeTableInput): PrizeTableError {
  try {
    validatePrizeTable(input);
  } catch (e) {
    if (e instanceof PrizeTableError) return e;
    throw e;
  }
  throw new Error("expected a PrizeTableError");
}

describe("validatePrizeTable", () => {
  it("computes thresholds and odds", () => {
    const t = validatePrizeTable(base([{ amountCents: 100, weight: 1 }, { amountCents: 0, weight: 3 }]));
    expect(t.denominator).toBe(4);
    expect(t.tiers).toEqual([
      { amountCents: 100, weight: 1, threshold: 1, odds: 0.25 },
      { amountCents: 0, weight: 3, threshold: 4, odds: 0.75 },
    ]);
  });

  it("gives the spec's default table", () => {
    expect(DEFAULT_PRIZE_TABLE.id).toBe("default");
    expect(DEFAULT_PRIZE_TABLE.version).toBe(1);
    expect(DEFAULT_PRIZE_TABLE.denominator).toBe(100_000);
    expect(DEFAULT_PRIZE_TABLE.tiers.map((t) => t.amountCents)).toEqual([10_000_000, 100_000, 10_000, 2_000, 1_000, 500]);
    expect(DEFAULT_PRIZE_TABLE.tiers.map((t) => t.weight)).toEqual([1, 10, 400, 4_000, 50_000, 45_589]);
    expect(DEFAULT_PRIZE_TABLE.tiers.map((t) => t.threshold)).toEqual([1, 11, 411, 4_411, 54_411, 100_000]);
    expect(Object.isFrozen(DEFAULT_PRIZE_TABLE.tiers[0])).toBe(true);
  });

  it("accepts the limits: 16 tiers, denominator 2,147,483,647, prize 100,000,000", () => {
    const sixteen = Array.from({ length: 16 }, () => ({ amountCents: 1, weight: 1 }));
    expect(validatePrizeTable(base(sixteen)).denominator).toBe(16);
    const big = validatePrizeTable(base([{ amountCents: 100_000_000, weight: 1 }, { amountCents: 0, weight: 2_147_483_646 }]));
    expect(big.denominator).toBe(2_147_483_647);
    expect(validatePrizeTable(base([{ amountCents: 1, weight: 1 }, { amountCents: 1, weight: 1 }], { id: "x".repeat(32) })).id).toHaveLength(32);
  });

  const two = (a: { amountCents: number; weight: number }) => [{ amountCents: 100, weight: 1 }, a];
  it.each<[string, PrizeTableInput, number | null]>([
    ["too_few_tiers", base([{ amountCents: 100, weight: 1 }]), null],
    ["too_few_tiers", base([]), null],
    ["too_many_tiers", base(Array.from({ length: 17 }, () => ({ amountCents: 1, weight: 1 }))), null],
    ["zero_weight", base(two({ amountCents: 1, weight: 0 })), 1],
    ["bad_weight", base(two({ amountCents: 1, weight: -2 })), 1],
    ["bad_weight", base(two({ amountCents: 1, weight: 1.5 })), 1],
    ["bad_weight", base(two({ amountCents: 1, weight: Number.NaN })), 1],
    ["denominator_too_large", base(two({ amountCents: 1, weight: 2_147_483_647 })), 1],
    ["denominator_too_large", base([{ amountCents: 1, weight: 4_000_000_000 }, { amountCents: 1, weight: 1 }]), 0],
    ["prize_too_large", base(two({ amountCents: 100_000_001, weight: 1 })), 1],
    ["bad_amount", base(two({ amountCents: -1, weight: 1 })), 1],
    ["bad_amount", base(two({ amountCents: 10.5, weight: 1 })), 1],
    ["bad_id", base(two({ amountCents: 1, weight: 1 }), { id: "" }), null],
    ["bad_id", base(two({ amountCents: 1, weight: 1 }), { id: "x".repeat(33) }), null],
    ["bad_id", base(two({ amountCents: 1, weight: 1 }), { id: "tablé" }), null],
    ["bad_version", base(two({ amountCents: 1, weight: 1 }), { version: 0 }), null],
    ["bad_version", base(two({ amountCents: 1, weight: 1 }), { version: 1.5 }), null],
    ["bad_version", base(two({ amountCents: 1, weight: 1 }), { version: 2 ** 32 }), null],
  ])("refuses with %s", (code, input, tier) => {
    const error = errorOf(input);
    expect(error.code).toBe(code);
    expect(error.tier).toBe(tier);
    if (tier !== null) expect(error.message).toContain(`Tier ${tier}`);
  });
});

describe("tierOf", () => {
  it("maps each roll to the first tier whose threshold exceeds it", () => {
    const cases: [number, number][] = [
      [0, 0],
      [1, 1],
      [10, 1],
      [11, 2],
      [410, 2],
      [411, 3],
      [4_410, 3],
      [4_411, 4],
      [54_410, 4],
      [54_411, 5],
      [99_999, 5],
    ];
    for (const [roll, tier] of cases) expect(tierOf(DEFAULT_PRIZE_TABLE, roll)).toBe(tier);
  });

  it("counts each tier's run of rolls as wide as its weight", () => {
    const t = validatePrizeTable(base([{ amountCents: 9, weight: 3 }, { amountCents: 5, weight: 2 }, { amountCents: 1, weight: 4 }]));
    const counts = [0, 0, 0];
    for (let roll = 0; roll < t.denominator; roll++) counts[tierOf(t, roll)]! += 1;
    expect(counts).toEqual([3, 2, 4]);
  });

  it("refuses rolls outside 0..denominator-1", () => {
    expect(() => tierOf(DEFAULT_PRIZE_TABLE, 100_000)).toThrow(DrawInputError);
    expect(() => tierOf(DEFAULT_PRIZE_TABLE, -1)).toThrow(DrawInputError);
    expect(() => tierOf(DEFAULT_PRIZE_TABLE, 0.5)).toThrow(DrawInputError);
  });
});
