// The campaign page's entrant lookup (api/public/verify/lookup-entry.mjs) under Node, on proofs from the independent
// generator: what it says per draw for an entrant who won, one who did not, an unknown id and a winner-list draw,
// that its answers are the checker's own `--entrant` facts, and that a proof failing its checks or unusable is said
// so. The module's page half does nothing without a document; the browser test drives it on the real page.

import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, clone, makeEntrants, makeEntriesProof, makeWinnersProof, type Proof } from "./fixtures.js";

type EntryView = {
  drawing: { id: string | null; number: string | null; drawAt: string | null };
  status: "won" | "entered" | "absent" | "error";
  headline: string;
  details: string[];
  trust: { ok: boolean; text: string } | null;
};
type LookupModule = {
  lookupEntry: (proof: Proof | string, id: string) => Promise<EntryView>;
  lookupSummary: (views: EntryView[], id: string) => string;
};
type EntrantFacts = { positions: number[]; weight: number | null; chance: number | null; winnerPositions: number[]; prizesCents: (number | null)[] };
type VerifierModule = { verifyDraw: (proof: Proof, options: { entrant: string }) => Promise<{ entrant?: EntrantFacts }> };

const LOOKUP = path.join(REPO_ROOT, "api/public/verify/lookup-entry.mjs");
const VERIFIER = path.join(REPO_ROOT, "api/public/verify/verify-draw.mjs");
let lookup: LookupModule;
let verifier: VerifierModule;

beforeAll(async () => {
  lookup = (await import(LOOKUP)) as LookupModule;
  verifier = (await import(VERIFIER)) as VerifierModule;
});

/** The test's own formatter: whole cents as US dollars with two decimals, as the page writes prizes. */
function usd(cents: number): string {
  return `$${Math.floor(cents / 100).toLocaleString("en-US")}.${String(cents % 100).padStart(2, "0")}`;
}

describe("looking an id up in an entries draw", () => {
  const { proof, entrants } = makeEntriesProof({ seed: "lookup", winnersExpected: 3, version: 6, drawingId: "drw_lookup", number: 4 });
  const winners = proof.winnerList.winners;
  const total = entrants.reduce((a, e) => a + e.weight, 0);
  const winner = winners[1]!;
  const loser = entrants.find((e) => !winners.includes(e.id))!;
  const positionOf = (id: string) => entrants.findIndex((e) => e.id === id);

  it("an entrant who won: their arrival position and weight, the chance, the winner position and prize", async () => {
    const view = await lookup.lookupEntry(proof, winner);
    const at = positionOf(winner);
    expect(view.drawing).toEqual({ id: "drw_lookup", number: "4", drawAt: proof.drawing.drawAt });
    expect(view.status).toBe("won");
    expect(view.headline).toBe(`Won: winner #2 of 3, prize ${usd(proof.results[1]!.amountCents)}.`);
    expect(view.details[0]).toBe(`In the locked entrant list at arrival position ${at + 1} of 60 (entrants.list[${at}] in the proof), weight ${entrants[at]!.weight} of ${total}.`);
    expect(view.details[1]).toMatch(/^Chance of winning: about \d+(\.\d+)?% \(3 winners drawn one at a time in proportion to weight; an approximation\)\.$/);
    expect(view.trust).toMatchObject({ ok: true });
    expect(view.trust!.text).toMatch(/^The proof passes its \d+ offline checks/);
  });

  it("says what the checker's --entrant facts say: the same positions, weight, chance and prizes", async () => {
    const facts = (await verifier.verifyDraw(clone(proof), { entrant: winner })).entrant!;
    const view = await lookup.lookupEntry(clone(proof), winner);
    expect(facts.positions).toEqual([positionOf(winner)]);
    expect(facts.winnerPositions).toEqual([1]);
    expect(view.details[0]).toContain(`weight ${facts.weight} of`);
    const percent = Number((facts.chance! * 100).toPrecision(3));
    expect(view.details[1]).toContain(`about ${percent}%`);
    expect(view.headline).toContain(usd(facts.prizesCents[0]!));
  });

  it("an entrant who did not win: in the list with position, weight and chance, not selected", async () => {
    const view = await lookup.lookupEntry(proof, loser.id);
    const at = positionOf(loser.id);
    expect(view.status).toBe("entered");
    expect(view.headline).toBe("In the list, not selected: not among the 3 winners.");
    expect(view.details[0]).toBe(`In the locked entrant list at arrival position ${at + 1} of 60 (entrants.list[${at}] in the proof), weight ${loser.weight} of ${total}.`);
    expect(view.details[1]).toMatch(/^Chance of winning: about /);
  });

  it("an unknown id: not in the list, no chance and no prize", async () => {
    const view = await lookup.lookupEntry(proof, "nobody-entered-this");
    expect(view.status).toBe("absent");
    expect(view.headline).toBe("Not in the entrant list: none of its 60 entries have this id's hash.");
    expect(view.details).toEqual([]);
  });

  it("one winner drawn: the chance is exactly weight in total weight; every entrant winning: certain", async () => {
    const list = makeEntrants(4, "lookup-one", 3);
    const one = makeEntriesProof({ seed: "lookup-one", entrants: list, winnersExpected: 1, version: 6 }).proof;
    const sum = list.reduce((a, e) => a + e.weight, 0);
    const e = list.find((x) => x.id !== one.winnerList.winners[0])!;
    const exact = await lookup.lookupEntry(one, e.id);
    expect(exact.details[1]).toBe(`Chance of winning: exactly ${e.weight} in ${sum} (${Number(((e.weight / sum) * 100).toPrecision(3))}%), one winner drawn in proportion to weight.`);
    const all = makeEntriesProof({ seed: "lookup-all", entrants: list, winnersExpected: 10, version: 6 }).proof;
    const certain = await lookup.lookupEntry(all, list[2]!.id);
    expect(certain.status).toBe("won");
    expect(certain.details[1]).toBe("Chance of winning: certain: 4 winners drawn from 4 entrants, so every entrant wins.");
  });

  it("a proof that fails its own checks: the answer is given and marked as not to be relied on", async () => {
    const tampered = clone(proof);
    tampered.results[1]!.amountCents += 100;
    const view = await lookup.lookupEntry(tampered, winner);
    expect(view.status).toBe("won");
    expect(view.trust).toEqual({ ok: false, text: expect.stringMatching(/^✘ This proof fails \d+ of its own checks: do not rely on this answer\./) as unknown as string });
  });

  it("an unusable proof: an error naming the field, no answer", async () => {
    const broken = clone(proof) as unknown as Record<string, unknown>;
    delete broken.winnerList;
    const view = await lookup.lookupEntry(broken as unknown as Proof, winner);
    expect(view.status).toBe("error");
    expect(view.headline).toMatch(/^Could not look in this draw's proof: proof field winnerList must be an object/);
    expect(view.trust).toBeNull();
  });
});

describe("looking an id up in a winner-list draw", () => {
  const proof = makeWinnersProof({ seed: "lookup-push", winners: ["u-ada", "u-bob", "u-ada"], version: 6 });

  it("a winner: every position it won at, with its prize", async () => {
    const view = await lookup.lookupEntry(proof, "u-ada");
    expect(view.status).toBe("won");
    expect(view.headline).toBe(`Won: winner #1 of 3, prize ${usd(proof.results[0]!.amountCents)}; winner #3 of 3, prize ${usd(proof.results[2]!.amountCents)}.`);
    expect(view.details).toEqual(["On the locked winner list at positions 1, 3 of 3 (winnerList.winners[0], winnerList.winners[2] in the proof)."]);
  });

  it("anyone else: not on the winner list", async () => {
    const view = await lookup.lookupEntry(proof, "u-carol");
    expect(view.status).toBe("absent");
    expect(view.headline).toBe("Not on the winner list: none of its 3 winners have this id.");
  });
});

describe("the summary over every draw", () => {
  const view = (status: EntryView["status"]): EntryView => ({ drawing: { id: null, number: null, drawAt: null }, status, headline: "", details: [], trust: null });

  it("counts the lists that held the id and the draws it won, and the proofs that could not be read", () => {
    expect(lookup.lookupSummary([view("won"), view("entered"), view("absent")], "e-1")).toBe("“e-1” is in the lists of 2 of the 3 draws looked up; it won in 1 draw.");
    expect(lookup.lookupSummary([view("entered")], "e-1")).toBe("“e-1” is in the list of the draw looked up; it did not win.");
    expect(lookup.lookupSummary([view("won")], "e-1")).toBe("“e-1” is in the list of the draw looked up; it won.");
    expect(lookup.lookupSummary([view("absent"), view("absent"), view("error")], "x")).toBe("“x” is not in the list of any of the 2 draws looked up. 1 proof could not be read.");
    expect(lookup.lookupSummary([view("error")], "x")).toBe("No draw's proof could be read: “x” was not looked up.");
  });

  it("shows an id's hidden characters visibly (a bidirectional override cannot reorder the line)", () => {
    expect(lookup.lookupSummary([view("absent")], "ab\u202ecd")).toBe("“ab\\u{202e}cd” is not in the list of the draw looked up.");
  });
});
