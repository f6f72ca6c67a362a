// verify-draw.mjs prints what a stranger's proof says (ids, the slug, the drawing id, values in error messages), and
// a proof may be older than the service's character rule or forged. Whatever it holds, the verifier's output to a
// terminal carries no control or invisible format character: each is shown as \u{...} (text) or a \u escape (JSON,
// which a JSON reader decodes back to the id). The ids are hashed as they are: the checks pass as before.

import { afterAll, describe, expect, it } from "vitest";
import { findRefusedCharacter } from "../../api/src/lists/characters.js";
import { VERIFIER, clone, makeEntrants, makeEntriesProof, makeWinnersProof } from "./fixtures.js";
import { TempDir, runVerifier } from "./run.js";

const tmp = new TempDir();
afterAll(() => tmp.remove());

/** The penetration test's entrant id: CSI sequences (clear the screen, red text) in C1 controls, then NEL. */
const PEN_TEST_ID = "\u009b2J\u009b31mPWNED\u0085";
const PEN_TEST_SHOWN = "\\u{9b}2J\\u{9b}31mPWNED\\u{85}";
/** Other hidden ids: a right-to-left override (Trojan Source), a zero-width space, C0 escape and newline. */
const RLO_ID = "rlo-\u202Egpj.exe";
const ZW_ID = "zw-\u200B-sp";
const FAKE_LINE_ID = "x\n✔ all good\u001b[0m";

/** The printed lines (split at the newline that ends each) holding a character the service refuses in ids and names. */
function hiddenIn(output: string): string[] {
  return output
    .split("\n")
    .filter((line) => findRefusedCharacter(line) !== null)
    .map((line) => JSON.stringify(line));
}

/** Text the service refuses, and text it takes (emoji sequences use U+200D and tag characters legitimately). */
const REFUSED_TEXT = [PEN_TEST_ID, RLO_ID, ZW_ID, FAKE_LINE_ID, "\u2028", "\u2029", "\uFEFF", "\u00AD", "\u061C", "a\u200Db", "\u{E0041}", "\uD800", "\u007F", "🏴\u{E0067}"];
const ACCEPTED_TEXT = ["fam-👨‍👩‍👧-1", "🏳️‍🌈", "👩🏽‍💻", "🏴󠁧󠁢󠁥󠁮󠁧󠁿", "Ölçü-漢字-رابح", "e\u0301", "plain ascii"];

describe("printable(text)", () => {
  it("shows each control and format character as \\u{...}, and keeps emoji sequences", async () => {
    const { printable } = (await import(VERIFIER)) as { printable: (text: string) => string };
    expect(printable(PEN_TEST_ID)).toBe(PEN_TEST_SHOWN);
    expect(printable(RLO_ID)).toBe("rlo-\\u{202e}gpj.exe");
    expect(printable("a\u2028b\u2029c\uFEFF\u00AD\u061C\u200E\u200F")).toBe("a\\u{2028}b\\u{2029}c\\u{feff}\\u{ad}\\u{61c}\\u{200e}\\u{200f}");
    expect(printable(FAKE_LINE_ID)).toBe("x\\u{a}✔ all good\\u{1b}[0m");
    expect(printable("lone \uD800 surrogate")).toBe("lone \\u{d800} surrogate");
    expect(printable("a\u{E0041}")).toBe("a\\u{e0041}");
    for (const kept of ACCEPTED_TEXT) expect(printable(kept)).toBe(kept);
  });

  it("escapes exactly the characters the service refuses in ids and names", async () => {
    const { printable } = (await import(VERIFIER)) as { printable: (text: string) => string };
    for (const text of REFUSED_TEXT) {
      expect(findRefusedCharacter(text), JSON.stringify(text)).not.toBeNull();
      expect(printable(text), JSON.stringify(text)).not.toBe(text);
      expect(findRefusedCharacter(printable(text)), JSON.stringify(text)).toBeNull();
    }
    for (const text of ACCEPTED_TEXT) expect(findRefusedCharacter(text), text).toBeNull();
  });
});

describe("--entrant and the checks on a proof with hidden characters in its ids", () => {
  const winners = [PEN_TEST_ID, RLO_ID, ZW_ID, FAKE_LINE_ID, "fam-👨‍👩‍👧-1"];
  const proof = makeWinnersProof({ seed: "escape", winners });
  // Labels the math does not read: the slug and the drawing id (format version 2 hashes neither).
  proof.campaign.slug = "summer\u009b2J";
  proof.drawing.id = "drw-\u202Etxt";

  it("text output: every id is escaped, no raw control or format character reaches the terminal, and the checks pass", async () => {
    const run = await runVerifier([tmp.write(proof), "--entrant", PEN_TEST_ID]);
    expect(run.code, run.output).toBe(0);
    expect(hiddenIn(run.output)).toEqual([]);
    expect(run.stdout).toContain(`"${PEN_TEST_SHOWN}" is on the committed winner list: position 0`);
    expect(run.stdout).toContain("proof: summer\\u{9b}2J drawing #7 (drw-\\u{202e}txt)");
    expect(run.stdout).toMatch(/^PASS: /m);
  });

  it("an id written with emoji sequences is printed as it is", async () => {
    const run = await runVerifier([tmp.write(proof), "--entrant", "fam-👨‍👩‍👧-1"]);
    expect(run.code, run.output).toBe(0);
    expect(hiddenIn(run.output)).toEqual([]);
    expect(run.stdout).toContain('"fam-👨‍👩‍👧-1" is on the committed winner list: position 4');
  });

  it("--json output: valid JSON whose strings decode to the ids, with every hidden character written as a \\u escape", async () => {
    const run = await runVerifier([tmp.write(proof), "--entrant", PEN_TEST_ID, "--json"]);
    expect(run.code, run.output).toBe(0);
    expect(hiddenIn(run.stdout)).toEqual([]);
    expect(run.stdout).toContain("\\u009b2J\\u009b31mPWNED\\u0085");
    const report = JSON.parse(run.stdout) as { ok: boolean; entrant: { id: string; won: boolean } };
    expect(report.ok).toBe(true);
    expect(report.entrant).toMatchObject({ id: PEN_TEST_ID, won: true });
  });

  it("a check that fails on a forged list escapes the ids it names", async () => {
    const forged = clone(proof);
    // A replaced winner, fingerprint left as it was: the fingerprint and the winner's own checks fail and name it.
    forged.winnerList.winners[1] = "evil-\u009b31m";
    const run = await runVerifier([tmp.write(forged)]);
    expect(run.code, run.output).toBe(1);
    expect(hiddenIn(run.output)).toEqual([]);
    expect(run.stdout).toMatch(/^FAIL: /m);
  });

  it("an unusable proof's error message escapes the value it quotes", async () => {
    const broken = clone(proof) as unknown as Record<string, unknown>;
    broken.proofVersion = "\u009b2J\u2028";
    const run = await runVerifier([tmp.write(broken)]);
    expect(run.code, run.output).toBe(2);
    expect(hiddenIn(run.output)).toEqual([]);
    expect(run.stderr).toContain("\\u{9b}2J\\u{2028}");
  });
});

describe("an entries proof whose entrant ids hold C1 controls", () => {
  it("--entrant finds the id in the committed list (hashed as it is) and prints it escaped", async () => {
    const entrants = makeEntrants(30, "escape/entrants");
    entrants[4]!.id = PEN_TEST_ID;
    entrants[9]!.id = ZW_ID;
    const { proof } = makeEntriesProof({ seed: "escape-entries", entrants, winnersExpected: 3 });
    const run = await runVerifier([tmp.write(proof), "--entrant", PEN_TEST_ID]);
    expect(run.code, run.output).toBe(0);
    expect(hiddenIn(run.output)).toEqual([]);
    expect(run.stdout).toContain(`"${PEN_TEST_SHOWN}" is in the committed entrant list at position 4 of 30`);
    expect(run.stdout).toMatch(/^PASS: /m);
  });
});
