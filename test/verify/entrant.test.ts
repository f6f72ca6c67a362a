// verify-draw.mjs --entrant ID: is the id in the committed list, what chance did it have, did it win.

import { beforeAll, describe, expect, it } from "vitest";
import { REAL_PROVIDER, VERIFIER, makeEntrants, makeEntriesProof, makeWinnersProof, type EntrantSpec, type Proof } from "./fixtures.js";
import { proofFolder, runVerifier } from "./run.js";

type WinChance = (weights: ArrayLike<number>, index: number, n: number) => { value: number; exact: boolean; weight: number; total: number };
let winChance: WinChance;
const { tmp } = proofFolder();
beforeAll(async () => {
  winChance = ((await import(VERIFIER)) as { winChance: WinChance }).winChance;
});


async function entrant(proof: Proof, id: string, ...flags: string[]) {
  return runVerifier([tmp.write(proof), "--entrant", id, ...flags]);
}

/** Exact inclusion probability of entrant `i` among n winners drawn without replacement in proportion to weight. */
function exactChance(weights: number[], i: number, n: number): number {
  const go = (remaining: number[], left: number): number => {
    if (left === 0) return 0;
    const total = remaining.reduce((a, b) => a + b, 0);
    let p = remaining[i]! / total;
    remaining.forEach((w, j) => {
      if (j === i || w === 0) return;
      const next = remaining.slice();
      next[j] = 0;
      p += (w / total) * go(next, left - 1);
    });
    return p;
  };
  return go(weights.slice(), n);
}

describe("--entrant on an entries proof", () => {
  const made = makeEntriesProof({ seed: "entrant", winnersExpected: 5, version: 3, provider: REAL_PROVIDER });
  const { proof, entrants } = made;
  const winner = proof.winnerList.winners[1]!;
  const loser = entrants.find((e) => !proof.winnerList.winners.includes(e.id))!;
  const positionOf = (id: string) => entrants.findIndex((e) => e.id === id);

  it("an entrant who won: position in the list, weight, approximate chance, winner position and prize", async () => {
    const run = await entrant(proof, winner);
    expect(run.code, run.output).toBe(0);
    const e = entrants[positionOf(winner)]!;
    const total = entrants.reduce((a, x) => a + x.weight, 0);
    expect(run.stdout).toMatch(new RegExp(`^✔ "${winner}" is in the committed entrant list at position ${positionOf(winner)} of 60, weight ${e.weight} of ${total}$`, "m"));
    expect(run.stdout).toMatch(/^ℹ chance of winning: about \d+(\.\d+)?% \(5 winners drawn one at a time from 60 entrants in proportion to weight, without replacement; an approximation\)$/m);
    const prize = proof.results[1]!.amountCents;
    expect(run.stdout).toMatch(new RegExp(`^✔ "${winner}" won: winner position 1, prize \\$${prize / 100}`, "m"));
    expect(run.stdout).toMatch(/^PASS: /m);
  });

  it("an entrant who did not win", async () => {
    const run = await entrant(proof, loser.id);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^✔ "${loser.id}" is in the committed entrant list at position ${positionOf(loser.id)} of 60`, "m"));
    expect(run.stdout).toMatch(new RegExp(`^ℹ "${loser.id}" did not win: not among the 5 winners$`, "m"));
  });

  it("an id that is not in the list: information, exit 0", async () => {
    const run = await entrant(proof, "not-an-entrant");
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^ℹ "not-an-entrant" is not in the committed entrant list \(no entrant has its hash 0x[0-9a-f]{8}…[0-9a-f]{6}\)$/m);
    expect(run.stdout).not.toMatch(/chance of winning/);
  });

  it("one winner drawn: the chance is exactly weight / total weight", async () => {
    const list: EntrantSpec[] = makeEntrants(10, "one-winner", 9);
    const one = makeEntriesProof({ seed: "one-winner", entrants: list, winnersExpected: 1, version: 3 }).proof;
    const e = list[4]!;
    const total = list.reduce((a, x) => a + x.weight, 0);
    const run = await entrant(one, e.id);
    expect(run.code, run.output).toBe(0);
    const percent = Number(((e.weight / total) * 100).toPrecision(3));
    expect(run.stdout).toMatch(new RegExp(`^ℹ chance of winning: exactly ${e.weight} in ${total} \\(${String(percent).replace(".", "\\.")}%\\), one winner drawn in proportion to weight$`, "m"));
  });

  it("as many winners as entrants: certain", async () => {
    const few = makeEntriesProof({ seed: "few-entrant", entrants: makeEntrants(4, "few-entrant"), winnersExpected: 10, version: 3 });
    const run = await entrant(few.proof, few.entrants[2]!.id);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^ℹ chance of winning: certain, 4 winners drawn from 4 entrants \(every entrant wins\)$/m);
    expect(run.stdout).toMatch(/ won: winner position \d, prize /);
  });

  it("--json carries the entrant's facts", async () => {
    const run = await entrant(proof, winner, "--json");
    expect(run.code, run.output).toBe(0);
    const out = JSON.parse(run.stdout) as { ok: boolean; entrant: Record<string, unknown>; checks: { id: string; status: string }[] };
    expect(out.ok).toBe(true);
    expect(out.entrant).toMatchObject({ id: winner, inList: true, positions: [positionOf(winner)], won: true, winnerPositions: [1], chanceExact: false });
    expect(out.entrant.chance).toBeGreaterThan(0);
    expect(out.checks.filter((c) => c.id.startsWith("entrant.")).map((c) => [c.id, c.status])).toEqual([
      ["entrant.list", "pass"],
      ["entrant.chance", "info"],
      ["entrant.won", "pass"],
    ]);
  });

  it("a tampered proof still fails (exit 1) with --entrant", async () => {
    const bad = JSON.parse(JSON.stringify(proof)) as Proof;
    bad.results[0]!.amountCents += 1;
    const run = await entrant(bad, winner);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✔ "[^"]+" won: /m);
    expect(run.stdout).toMatch(/^FAIL: /m);
  });

  it("works on version 2 proofs too", async () => {
    const v2 = makeEntriesProof({ seed: "entrant-v2", winnersExpected: 3 });
    const run = await entrant(v2.proof, v2.proof.winnerList.winners[0]!);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/ won: winner position 0, prize /);
  });
});

describe("--entrant on a winner-list proof", () => {
  const proof = makeWinnersProof({ winners: ["alice", "bob", "carol", "bob"], seed: "winner-list", version: 3 });

  it("an id on the list: every position and prize", async () => {
    const run = await entrant(proof, "bob");
    expect(run.code, run.output).toBe(0);
    const prize = (i: number) => `\\$${(proof.results[i]!.amountCents / 100).toLocaleString("en-US")}`;
    expect(run.stdout).toMatch(new RegExp(`^✔ "bob" is on the committed winner list: position 1, prize ${prize(1)}(\\.\\d\\d)?; position 3, prize ${prize(3)}(\\.\\d\\d)?$`, "m"));
  });

  it("an id not on the list: information, exit 0", async () => {
    const run = await entrant(proof, "dave");
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^ℹ "dave" is not on this draw's winner list$/m);
  });

  it("--entrant without an id is a usage error", async () => {
    const run = await runVerifier([tmp.write(proof), "--entrant"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--entrant needs an entrant or winner id/);
  });
});

describe("winChance", () => {
  it("is exact for one winner, for everyone winning, and for equal weights", () => {
    expect(winChance([1, 2, 3, 4], 3, 1)).toMatchObject({ value: 0.4, exact: true });
    expect(winChance([1, 2, 3, 4], 0, 4)).toMatchObject({ value: 1, exact: true });
    expect(winChance([1, 2, 3, 4], 0, 7)).toMatchObject({ value: 1, exact: true });
    const equal = winChance(new Array(50).fill(7), 3, 12);
    expect(equal.exact).toBe(false);
    expect(equal.value).toBeCloseTo(12 / 50, 9);
  });

  it("is close to the exact inclusion probability for uneven weights", () => {
    const weights = [1, 2, 3, 4, 10, 1, 5];
    for (const n of [2, 3, 5]) {
      let sum = 0;
      weights.forEach((_, i) => {
        const approx = winChance(weights, i, n).value;
        expect(Math.abs(approx - exactChance(weights, i, n)), `entrant ${i}, ${n} winners`).toBeLessThan(0.05);
        sum += approx;
      });
      expect(sum).toBeCloseTo(n, 6); // the chances add up to the number of winners
    }
  });

  it("handles 100,000 entrants with extreme weights quickly", () => {
    const weights = Array.from({ length: 100_000 }, (_, i) => (i === 0 ? 4_294_967_295 : 1 + (i % 1000)));
    const started = performance.now();
    const heavy = winChance(weights, 0, 1000);
    const light = winChance(weights, 1, 1000);
    expect(heavy.value).toBeGreaterThan(0.999);
    expect(light.value).toBeGreaterThan(0);
    expect(light.value).toBeLessThan(0.01);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
