/**
 * Average prize per winner with the top-prize-once rule (DESIGN.md section 5):
 *
 *   avg = (n*EV - (n*p1 - (1 - (1-p1)^n)) * (a1 - a2)) / n, rounded half up to a whole cent.
 *
 * Rearranged, with D the denominator, w1 the top weight, S = sum of amount*weight, c = a1 - a2 and
 * q = ((D - w1) / D)^n:
 *
 *   avg = (S - c*w1) / D  +  c * (1 - q) / n
 *
 * Only q is expensive exactly: (D - w1)^n has about n*log2(D) bits (1.7 million for the default table at
 * n = 100,000; about 60 ms to compute and divide). So q is first enclosed in a 192-bit fixed-point interval
 * with directed rounding (floor for the lower bound, ceiling for the upper), which gives a rigorous interval for
 * avg. Rounding half up is monotone, so when both ends round to the same cent that cent is the exact answer.
 * Otherwise (a half-cent boundary lies within about 2^-160 cent of avg, or exactly on it) the full rational is
 * computed. No floats in the result.
 */
import { DrawInputError, PrizeTableError } from "./errors.js";
import type { PrizeTable, PrizeTier } from "./prizeTable.js";

/** Fixed-point fraction bits of the interval for q; far more than the rounding needs. */
const INTERVAL_BITS = 192;
/** Below this size of D^n the exact rational is cheaper than bothering with intervals. */
const EXACT_BELOW_BITS = 4096;

type Terms = { D: bigint; w1: bigint; S: bigint; c: bigint; n: bigint };

function terms(table: PrizeTable, winners: number): Terms {
  if (!Number.isSafeInteger(winners) || winners < 1) {
    throw new DrawInputError("bad_count", `winners must be a positive integer, got ${String(winners)}`);
  }
  const [top, second] = table.tiers as [PrizeTier, PrizeTier | undefined];
  if (second === undefined) throw new PrizeTableError("too_few_tiers", "A prize table needs at least 2 tiers");
  let S = 0n;
  for (const tier of table.tiers) S += BigInt(tier.amountCents) * BigInt(tier.weight);
  return {
    D: BigInt(table.denominator),
    w1: BigInt(top.weight),
    S,
    c: BigInt(top.amountCents) - BigInt(second.amountCents),
    n: BigInt(winners),
  };
}

/** floor(num / den + 1/2) for den > 0, any sign of num (bigint division truncates toward zero). */
function roundHalfUp(num: bigint, den: bigint): bigint {
  const twice = 2n * num + den;
  const q = twice / (2n * den);
  return twice < 0n && q * 2n * den !== twice ? q - 1n : q;
}

/** avg for q = Q / 2^bits, rounded: ((S - c*w1)*n*2^bits + c*(2^bits - Q)*D) / (D*n*2^bits). */
function roundedAt(t: Terms, Q: bigint, bits: number): bigint {
  const one = 1n << BigInt(bits);
  return roundHalfUp((t.S - t.c * t.w1) * t.n * one + t.c * (one - Q) * t.D, t.D * t.n * one);
}

/** Exact: (S*n*D^(n-1) - c*(n*w1*D^(n-1) - D^n + (D-w1)^n)) / (n*D^n), rounded half up. */
export function averagePrizeCentsExact(table: PrizeTable, winners: number): number {
  const t = terms(table, winners);
  const Dn1 = t.D ** (t.n - 1n);
  const Dn = Dn1 * t.D;
  const num = t.S * t.n * Dn1 - t.c * (t.n * t.w1 * Dn1 - Dn + (t.D - t.w1) ** t.n);
  return Number(roundHalfUp(num, t.n * Dn));
}

/** x^n in `bits`-bit fixed point, rounded down (up = false) or up at every step. x, the result in [0, 2^bits]. */
function fixedPow(x: bigint, n: bigint, bits: number, up: boolean): bigint {
  const shift = BigInt(bits);
  const mask = (1n << shift) - 1n;
  const mul = (a: bigint, b: bigint): bigint => {
    const p = a * b;
    return up && (p & mask) !== 0n ? (p >> shift) + 1n : p >> shift;
  };
  let result = 1n << shift;
  let base = x;
  for (let e = n; e > 0n; e >>= 1n) {
    if (e & 1n) result = mul(result, base);
    if (e > 1n) base = mul(base, base);
  }
  return result;
}

/**
 * The rounded average from a `bits`-bit enclosure of q, or null when the enclosure straddles a half-cent
 * boundary (the caller then needs the exact rational). Exported for tests.
 */
export function averagePrizeCentsBounded(table: PrizeTable, winners: number, bits: number): number | null {
  const t = terms(table, winners);
  const shift = BigInt(bits);
  const r = (t.D - t.w1) << shift; // (D - w1) / D in fixed point, before the division
  const qLow = fixedPow(r / t.D, t.n, bits, false);
  const qHigh = fixedPow(r % t.D === 0n ? r / t.D : r / t.D + 1n, t.n, bits, true);
  // avg moves with -c*q: whatever the sign of c, the two ends are the two extreme values.
  const a = roundedAt(t, qLow, bits);
  const b = roundedAt(t, qHigh, bits);
  return a === b ? Number(a) : null;
}

/** Average prize per winner for `winners` winners per draw, top-prize-once applied; exact, in cents. */
export function averagePrizeCents(table: PrizeTable, winners: number): number {
  // A float only picks the strategy; both strategies give the exact answer.
  const bitsOfDn = winners * Math.log2(table.denominator);
  if (bitsOfDn <= EXACT_BELOW_BITS) return averagePrizeCentsExact(table, winners);
  return averagePrizeCentsBounded(table, winners, INTERVAL_BITS) ?? averagePrizeCentsExact(table, winners);
}
