/**
 * Draw math benchmarks for `npm run bench`, as JSON lines { name, value, unit, baseline?, ratio? } on stdout.
 * - selection: 1,000 winners from 100,000 weighted entrants, Fenwick tree vs the linear scan (same run).
 * - average: averagePrizeCents(default table, 100,000) via the interval enclosure vs the full exact rational.
 * Run: npx tsx api/scripts/bench-selection.ts
 */
import { keccak256, stringToBytes } from "viem";
import {
  averagePrizeCents,
  DEFAULT_PRIZE_TABLE,
  selectWinners,
  selectWinnersLinear,
  toCampaignId,
} from "../src/draw/index.js";
import { emit } from "./benchOutput.js";
import { averagePrizeCentsExact } from "../src/draw/average.js";

/** ratio = baseline / value: how many times faster than the baseline measured in the same run. */
function line(name: string, value: number, unit: string, baseline?: number): void {
  emit(baseline === undefined ? { name, value, unit } : { name, value, unit, baseline, ratio: baseline / value });
}

/** Milliseconds of each of `runs` calls. */
function time(runs: number, f: () => unknown): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    f();
    times.push(performance.now() - start);
  }
  return times;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

// Deterministic weights over the full range 1..2^32-1.
let state = 12_345;
const weights = Array.from({ length: 100_000 }, () => {
  state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
  return BigInt(1 + (state % 4_294_967_295));
});
const p = {
  entropy: keccak256(stringToBytes("bench-selection")),
  campaignId: toCampaignId("bench"),
  number: 1n,
  weights,
  count: 1_000,
};

const fenwick = time(11, () => selectWinners(p));
const linear = time(2, () => selectWinnersLinear(p));
line("draw.selectWinners.1000of100000.firstCall", fenwick[0] as number, "ms", median(linear));
line("draw.selectWinners.1000of100000", median(fenwick.slice(1)), "ms", median(linear));

const fast = time(5, () => averagePrizeCents(DEFAULT_PRIZE_TABLE, 100_000));
const exact = time(3, () => averagePrizeCentsExact(DEFAULT_PRIZE_TABLE, 100_000));
line("draw.averagePrizeCents.default.100000", median(fast), "ms", median(exact));
