// The public verifier (api/public/verify/verify-draw.mjs), run as a child process on proofs from an independent
// generator (./fixtures.ts).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak_256 } from "@noble/hashes/sha3";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  REAL_PROVIDER,
  DEFAULT_TABLE,
  TWO_TIER_TABLE,
  VERIFIER,
  clone,
  makeEntrants,
  makeEntriesProof,
  makeWinnersProof,
  refingerprint,
  entrantsCommitment,
  idToBytes32,
  keccakHex,
  type Proof,
} from "./fixtures.js";
import { closedPort, expectFails, hasStackTrace, proofFolder, runVerifier, serve } from "./run.js";

type VerifierModule = {
  keccak256: (data: Uint8Array | string) => Uint8Array;
  keccakSelfTest: () => { ok: boolean };
  toHex: (bytes: Uint8Array) => string;
};

const { tmp, verify: verifyFile } = proofFolder();
let verifier: VerifierModule;

beforeAll(async () => {
  verifier = (await import(VERIFIER)) as VerifierModule;
});

type JsonReport = {
  ok: boolean;
  proof: string;
  error?: string;
  checks: { id: string; status: "pass" | "fail" | "info"; message: string; details?: string[] }[];
};

/** An entries proof's checks of its inputs, in the verifier's order: the table, the list's fingerprint, the entrants. */
const ENTRIES_INPUT_CHECKS = [
  "keccak",
  "table.tiers",
  "table.weights",
  "table.amounts",
  "table.thresholds",
  "fingerprint",
  "entrants.count",
  "entrants.weights",
  "entrants.commitment",
  "entrants.unique",
  "entrants.selection",
];
/** The checks of a proof's results, last in every version. */
const RESULT_CHECKS = ["results.list", "results.prizes", "top-prize-once", "entropy.origin"];

async function verifyJson(proof: unknown): Promise<{ code: number | null; report: JsonReport }> {
  const run = await verifyFile(proof, "--json");
  return { code: run.code, report: JSON.parse(run.stdout) as JsonReport };
}

function expectUnusable(run: { code: number | null; stdout: string; stderr: string; output: string }, pattern: RegExp) {
  expect(run.code, run.output).toBe(2);
  expect(run.stderr).toMatch(pattern);
  expect(run.stderr.trim().split("\n")).toHaveLength(1);
  expect(hasStackTrace(run.output)).toBe(false);
}

describe("keccak256", () => {
  it("passes its own self-test", () => {
    expect(verifier.keccakSelfTest().ok).toBe(true);
  });

  it("equals @noble/hashes keccak_256 on random inputs of every length 0..1000", () => {
    for (let length = 0; length <= 1000; length++) {
      const data = randomBytes(length);
      expect(verifier.toHex(verifier.keccak256(data)), `length ${length}`).toBe(keccakHex(data));
    }
  });

  it("hashes strings as UTF-8 and is not SHA3-256", () => {
    const text = "prize draw ✓ ünïcode";
    expect(verifier.toHex(verifier.keccak256(text))).toBe(keccakHex(new TextEncoder().encode(text)));
    expect(verifier.toHex(verifier.keccak256(""))).toBe("0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
    expect(verifier.toHex(verifier.keccak256(""))).not.toBe("0xa7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
  });

  it("a broken keccak256 fails its self-test: one fail line, exit 1, nothing else checked", async () => {
    // A copy of the verifier with one round constant changed.
    const source = readFileSync(VERIFIER, "utf8");
    expect(source).toContain("0x00008082, 0x00000000");
    const broken = tmp.write(source.replace("0x00008082, 0x00000000", "0x00008083, 0x00000000"), "broken-verify-draw.mjs");
    const run = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [broken, tmp.write(makeWinnersProof())], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (out += d.toString()));
      child.on("close", (code) => resolve({ code, out }));
    });
    expect(run.code, run.out).toBe(1);
    expect(run.out).toMatch(/^✘ keccak256 self-test failed: keccak256 of 0-byte text gave [0-9a-f]{64}, expected c5d246/m);
    expect(run.out).not.toMatch(/✔/);
  });

  it("agrees with noble on large inputs (1 MiB)", () => {
    const data = randomBytes(1 << 20);
    expect(verifier.toHex(verifier.keccak256(data))).toBe("0x" + Buffer.from(keccak_256(data)).toString("hex"));
  });
});

describe("valid proofs pass", () => {
  it.each([1, 10, 50])("winners draw with %i winners: exit 0, mock provider reported as information", async (count) => {
    const run = await verifyFile(makeWinnersProof({ winners: count, seed: `valid-${count}` }));
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ keccak256 self-test/m);
    expect(run.stdout).toMatch(/^ℹ test randomness \(mock provider\): cannot be checked independently; never used by real campaigns$/m);
    expect(run.stdout).toMatch(/^PASS: \d+ checks passed, 1 informational$/m);
    expect(run.stdout).not.toMatch(/✘/);
    expect(run.stderr).toBe("");
  });

  it("entries draw: exit 0 with the entrant checks", async () => {
    const { proof } = makeEntriesProof({ entrants: makeEntrants(200, "valid-entries", 9), winnersExpected: 50, seed: "valid-entries" });
    const run = await verifyFile(proof);
    expect(run.code, run.output).toBe(0);
    for (const line of [
      /^✔ entrant count 200 matches the list$/m,
      /^✔ entrant weights are whole numbers .* matches entrants\.totalWeight$/m,
      /^✔ entrant list commitment .* matches entrants\.commitment/m,
      /^✔ the 50 winners are the entrants the random value selects, in order \(sequential-weighted-v1\)$/m,
      /^✔ every random value, roll and prize recomputes \(50 positions/m,
    ]) {
      expect(run.stdout).toMatch(line);
    }
  });

  it("entries draw with fewer entrants than winners expected: every entrant wins", async () => {
    const { proof } = makeEntriesProof({ entrants: makeEntrants(4, "few"), winnersExpected: 10, seed: "few" });
    expect(proof.winnerList.winners).toHaveLength(4);
    const run = await verifyFile(proof);
    expect(run.code, run.output).toBe(0);
  });

  it("entries draw with one heavy entrant among many", async () => {
    const entrants = makeEntrants(30, "heavy");
    entrants[17]!.weight = 4_294_967_295;
    const { proof } = makeEntriesProof({ entrants, winnersExpected: 3, seed: "heavy" });
    const run = await verifyFile(proof);
    expect(run.code, run.output).toBe(0);
  });

  it("a non-mock provider is reported as information that --rpc can check", async () => {
    const proof = makeWinnersProof({ provider: "0x52deaa1c84233f7bb8c8a45baede41091c616506", seed: "provider" });
    const run = await verifyFile(proof);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^ℹ random value from provider 0x52deaa1c84233f7bb8c8a45baede41091c616506; run with --rpc to check it against the chain$/m);
  });

  it("top-prize-once: later top-tier rolls pay the second tier", async () => {
    const proof = makeWinnersProof({ winners: 20, table: TWO_TIER_TABLE, seed: "top-once" });
    const topRolls = proof.results.filter((r) => r.roll < 9).length;
    expect(topRolls).toBeGreaterThan(1); // the fixture really exercises the rule
    expect(proof.results.filter((r) => r.amountCents === 5000)).toHaveLength(1);
    const run = await verifyFile(proof);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^✔ top prize won at most once: at position \\d+; ${topRolls - 1} later top-tier rolls paid the second tier$`, "m"));
  });

  it("top-prize-once: a proof paying the top prize to every top-tier roll fails", async () => {
    const proof = makeWinnersProof({ winners: 20, table: TWO_TIER_TABLE, seed: "top-once" });
    for (const r of proof.results) if (r.roll < 9) r.amountCents = 5000;
    const run = await verifyFile(proof);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ the top prize \$50 appears \d+ times in the results; it is won at most once per draw$/m);
    expect(run.stdout).toMatch(/position \d+: amountCents 5000 in proof, 100 recomputed \(tier 1\)/);
  });

  it("reads file:// URLs too", async () => {
    const file = tmp.write(makeWinnersProof({ seed: "file-url" }));
    const run = await runVerifier([`file://${file}`]);
    expect(run.code, run.output).toBe(0);
  });
});

describe("tampered proofs fail (exit 1) naming what is wrong", () => {
  const winners = () => makeWinnersProof({ winners: 8, seed: "tamper" });
  const entries = () => makeEntriesProof({ entrants: makeEntrants(120, "tamper-list", 7), winnersExpected: 12, seed: "tamper-entries" });

  const cases: [string, () => Proof, RegExp][] = [
    [
      "a roll",
      () => {
        const p = winners();
        p.results[3]!.roll = (p.results[3]!.roll + 1) % 100_000;
        return p;
      },
      /^ {4}- position 3: roll \d+ in proof, \d+ recomputed$|^✘ position 3: roll \d+ in proof, \d+ recomputed$/m,
    ],
    [
      "an amount",
      () => {
        const p = winners();
        p.results[2]!.amountCents += 100;
        return p;
      },
      /position 2: amountCents \d+ in proof, \d+ recomputed/,
    ],
    [
      "a random value",
      () => {
        const p = winners();
        p.results[1]!.randomValue = keccakHex("forged");
        return p;
      },
      /position 1: randomValue 0x[0-9a-f]{8}…[0-9a-f]{6} in proof, 0x[0-9a-f]{8}…[0-9a-f]{6} recomputed/,
    ],
    [
      "entropy.value",
      () => {
        const p = winners();
        p.entropy.value = keccakHex("other entropy");
        return p;
      },
      /^✘ 8 of 8 positions do not recompute$/m,
    ],
    [
      "winner order (two swapped)",
      () => {
        const p = winners();
        const w = p.winnerList.winners;
        [w[0], w[1]] = [w[1]!, w[0]!];
        return p;
      },
      /^✘ fingerprint of the 8 winners is 0x[0-9a-f]{64}, winnerList\.commitment is 0x[0-9a-f]{64}$/m,
    ],
    [
      "a table weight",
      () => {
        const p = winners();
        p.prizeTable.tiers[2]!.weight = 401;
        return p;
      },
      /^✘ tier weights add up to 100,001, the denominator is 100,000$/m,
    ],
    [
      "a table threshold",
      () => {
        const p = winners();
        p.prizeTable.tiers[0]!.threshold = 2;
        return p;
      },
      /tier 0: threshold 2 in proof, cumulative weight is 1/,
    ],
    [
      "drawing.number",
      () => {
        const p = winners();
        p.drawing.number = 8;
        return p;
      },
      /^✘ 8 of 8 positions do not recompute$/m,
    ],
    [
      "the campaign id",
      () => {
        const p = winners();
        p.campaign.id = "summer-weekly";
        return p;
      },
      /^✘ 8 of 8 positions do not recompute$/m,
    ],
    [
      "a result's winner",
      () => {
        const p = winners();
        p.results[4]!.winner = "someone-else";
        return p;
      },
      /position 4: winner "someone-else" in results, "w-[^"]+" in the winner list/,
    ],
    [
      "a missing result",
      () => {
        const p = winners();
        p.results.pop();
        return p;
      },
      /^✘ 7 results for 8 winners$/m,
    ],
    [
      "an entrant weight",
      () => {
        const { proof } = entries();
        proof.entrants!.list[5]!.weight += 1;
        return proof;
      },
      /^✘ entrant weights add up to \d+, entrants\.totalWeight is \d+$/m,
    ],
    [
      "an entrant weight, with totalWeight adjusted",
      () => {
        const { proof } = entries();
        proof.entrants!.list[5]!.weight += 1;
        proof.entrants!.totalWeight += 1;
        return proof;
      },
      /^✘ entrant list commitment is 0x[0-9a-f]{64}, entrants\.commitment is 0x[0-9a-f]{64}$/m,
    ],
    [
      "a selected winner replaced by another entrant (fingerprint recomputed)",
      () => {
        const { proof, entrants } = entries();
        const other = entrants.find((e) => !proof.winnerList.winners.includes(e.id))!;
        proof.winnerList.winners[2] = other.id;
        proof.results[2]!.winner = other.id;
        return refingerprint(proof);
      },
      /winner 2: "e-[^"]+" \(hash 0x[0-9a-f]{8}…[0-9a-f]{6}\) in proof, the draw selects entrant \d+/,
    ],
    [
      "entry winners swapped (fingerprint recomputed)",
      () => {
        const { proof } = entries();
        const w = proof.winnerList.winners;
        [w[0], w[1]] = [w[1]!, w[0]!];
        proof.results[0]!.winner = w[0]!;
        proof.results[1]!.winner = w[1]!;
        return refingerprint(proof);
      },
      /^✘ 2 of 12 winners are not the entrants the random value selects$/m,
    ],
    [
      "an entrant removed (count, weight and commitment recomputed)",
      () => {
        const { proof, entrants } = entries();
        // Drop an entrant that did not win: everything about the list is consistent but the draw is not.
        const i = entrants.findIndex((e) => !proof.winnerList.winners.includes(e.id));
        const list = proof.entrants!.list;
        list.splice(i, 1);
        proof.entrants!.count -= 1;
        proof.entrants!.totalWeight = list.reduce((a, e) => a + e.weight, 0);
        proof.entrants!.commitment = entrantsCommitment(
          list.map((e) => e.hash),
          list.map((e) => e.weight),
        );
        return proof;
      },
      /winners? (is|are) not the entrants? the random value selects/,
    ],
    [
      "an unknown selection method",
      () => {
        const { proof } = entries();
        proof.entrants!.selection = "sequential-weighted-v9";
        return proof;
      },
      /^✘ entrants\.selection is "sequential-weighted-v9"; this verifier checks sequential-weighted-v1$/m,
    ],
  ];

  it.each(cases)("%s", async (_name, make, expected) => {
    const run = await verifyFile(make());
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(expected);
    expect(run.stdout).toMatch(/^FAIL: \d+ of \d+ checks failed \(.+\); \d+ passed, 1 informational$/m);
    expect(hasStackTrace(run.output)).toBe(false);
  });

  it("names each mismatching position, capped at about 20 lines", async () => {
    const p = makeWinnersProof({ winners: 50, seed: "many" });
    for (const r of p.results) r.roll = (r.roll + 1) % 100_000;
    const run = await verifyFile(p);
    expect(run.code).toBe(1);
    const detailLines = run.stdout.split("\n").filter((l) => l.startsWith("    - "));
    expect(detailLines.length).toBeLessThanOrEqual(21);
    expect(run.stdout).toMatch(/^ {4}- \.\.\. and \d+ more$/m);
    expect(run.stdout).toMatch(/^✘ 50 of 50 positions do not recompute$/m);
  });

  it("--json reports ok:false with the failing check", async () => {
    const p = makeWinnersProof({ seed: "json" });
    p.results[0]!.roll += 1;
    const { code, report } = await verifyJson(p);
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.proof).toMatch(/proof-\d+\.json$/);
    const failed = report.checks.filter((c) => c.status === "fail");
    expect(failed.map((c) => c.id)).toEqual(["results.prizes"]);
    expect(failed[0]!.message + (failed[0]!.details ?? []).join("\n")).toMatch(/position 0: roll/);
  });

  it("--json reports ok:true and every check on a valid proof", async () => {
    const { proof } = makeEntriesProof({ seed: "json-ok" });
    const { code, report } = await verifyJson(proof);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.error).toBeUndefined();
    for (const c of report.checks) {
      expect(["pass", "info"]).toContain(c.status);
      expect(typeof c.id).toBe("string");
      expect(typeof c.message).toBe("string");
    }
    expect(report.checks.map((c) => c.id)).toEqual([...ENTRIES_INPUT_CHECKS, ...RESULT_CHECKS]);
  });

  it("a table breaking the spec's rules fails", async () => {
    const p = makeWinnersProof({ seed: "rules" });
    p.prizeTable.tiers = [{ amountCents: 200_000_000, weight: 100_000, threshold: 100_000 }];
    const run = await verifyFile(p);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/has 1 tier; at least 2 are required/);
    expect(run.stdout).toMatch(/tier 0: amountCents 200,000,000 is above 100,000,000/);
  });
});


describe("proof format version 3: slot and origin of the random value", () => {
  const real = () => makeWinnersProof({ winners: 8, seed: "v3-real", provider: REAL_PROVIDER, version: 3 });
  const mock = () => makeWinnersProof({ winners: 8, seed: "v3-mock", version: 3 });
  const entries = () => makeEntriesProof({ seed: "v3-entries", winnersExpected: 6, provider: REAL_PROVIDER, version: 3 }).proof;

  it("a real provider's proof passes: slot, user contribution and the combined value", async () => {
    const run = await verifyFile(real());
    expect(run.code, run.output).toBe(0);
    for (const line of [
      /^ {2}proof: summer-daily drawing #7 \(drw_test_7\), 8 winners, format version 3$/m,
      /^✔ drawing\.slot is keccak256 of the drawing id "drw_test_7" \(0x[0-9a-f]{8}…[0-9a-f]{6}\)$/m,
      /^✔ entropy\.userContribution is derived from the commit: keccak256\(campaign id, number, slot, winnerList\.commitment\) = 0x[0-9a-f]{8}…[0-9a-f]{6}$/m,
      /^✔ entropy\.value = keccak256\(userContribution, providerContribution, 0\): the random value combines the commit's contribution with the provider's$/m,
      /^ℹ random value from provider 0x52deaa1c84233f7bb8c8a45baede41091c616506; run with --rpc to check that the provider revealed this contribution onchain$/m,
      /^PASS: \d+ checks passed, 1 informational$/m,
    ]) {
      expect(run.stdout).toMatch(line);
    }
  });

  it("a mock provider's proof passes; its origin is informational", async () => {
    const p = mock();
    expect(p.entropy.providerContribution).toBeNull();
    const run = await verifyFile(p);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ entropy\.userContribution is derived from the commit/m);
    expect(run.stdout).not.toMatch(/entropy\.value = keccak256/);
    expect(run.stdout).toMatch(/^ℹ test randomness \(mock provider\): cannot be checked independently; never used by real campaigns$/m);
    expect(run.stdout).toMatch(/^PASS: \d+ checks passed, 1 informational$/m);
  });

  it("a mock provider's proof with a provider contribution still gets no combination check", async () => {
    const p = mock();
    p.entropy.providerContribution = keccakHex("anything");
    const run = await verifyFile(p);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).not.toMatch(/entropy\.value = keccak256/);
  });

  it("a real provider's proof without its contribution: the value is left to --rpc", async () => {
    const p = real();
    p.entropy.providerContribution = null;
    const run = await verifyFile(p);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^ℹ random value from provider 0x52deaa1c84233f7bb8c8a45baede41091c616506; run with --rpc to check it against the chain$/m);
  });

  it("an entries proof passes: the user contribution binds the entrant commitment", async () => {
    const run = await verifyFile(entries());
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ entropy\.userContribution is derived from the commit: keccak256\(campaign id, number, slot, entrants\.commitment\)/m);
  });

  const cases: [string, () => Proof, RegExp][] = [
    [
      "entropy.userContribution",
      () => {
        const p = real();
        p.entropy.userContribution = keccakHex("chosen after seeing the list");
        return p;
      },
      /^✘ keccak256\(campaign id, number, slot, winnerList\.commitment\) is 0x[0-9a-f]{64}, entropy\.userContribution is 0x[0-9a-f]{64}$/m,
    ],
    [
      "entropy.providerContribution",
      () => {
        const p = real();
        p.entropy.providerContribution = keccakHex("another revelation");
        return p;
      },
      /^✘ keccak256\(userContribution, providerContribution, 0\) is 0x[0-9a-f]{64}, entropy\.value is 0x[0-9a-f]{64}$/m,
    ],
    [
      "drawing.slot",
      () => {
        const p = real();
        p.drawing.slot = keccakHex("drw_other");
        return p;
      },
      /^✘ keccak256 of the drawing id "drw_test_7" is 0x[0-9a-f]{64}, drawing\.slot is 0x[0-9a-f]{64}$/m,
    ],
    [
      "drawing.id",
      () => {
        const p = real();
        p.drawing.id = "drw_other";
        return p;
      },
      /^✘ keccak256 of the drawing id "drw_other" is 0x[0-9a-f]{64}, drawing\.slot is 0x[0-9a-f]{64}$/m,
    ],
    [
      "drawing.slot (both the slot and the user contribution derived from it)",
      () => {
        const p = real();
        p.drawing.slot = keccakHex("drw_other");
        return p;
      },
      /^FAIL: \d+ of \d+ checks failed \(drawing\.slot, entropy\.userContribution\)/m,
    ],
    [
      "the winner list of a mock draw (the user contribution no longer derives)",
      () => {
        const p = mock();
        p.winnerList.winners[0] = "someone-else";
        p.results[0]!.winner = "someone-else";
        return refingerprint(p);
      },
      /^✘ keccak256\(campaign id, number, slot, winnerList\.commitment\) is 0x[0-9a-f]{64}, entropy\.userContribution is 0x[0-9a-f]{64}$/m,
    ],
    [
      "entropy.value with the results recomputed",
      () => {
        const p = real();
        p.entropy.value = keccakHex("a value the operator liked better");
        return p;
      },
      /entropy\.value is 0x[0-9a-f]{64}$/m,
    ],
  ];

  it.each(cases)("fails when %s is altered", async (_name, make, expected) => {
    const run = await verifyFile(make());
    expectFails(run, expected);
    expect(hasStackTrace(run.output)).toBe(false);
  });

  it("--json lists the version 3 checks in order", async () => {
    const { code, report } = await verifyJson(entries());
    expect(code).toBe(0);
    expect(report.checks.map((c) => c.id)).toEqual([...ENTRIES_INPUT_CHECKS, "drawing.slot", "entropy.userContribution", "entropy.value", ...RESULT_CHECKS]);
  });

  it("the verifier's own derivations equal the independent generator's", async () => {
    const v = verifier as unknown as {
      drawingSlot: (id: string) => string;
      userRandomNumber: (x: { campaignId: string; number: bigint; slot: string; listCommitment: string }) => string;
      combineRandomValues: (u: string, p: string) => string;
    };
    const p = real();
    expect(v.drawingSlot(p.drawing.id)).toBe(p.drawing.slot);
    expect(v.userRandomNumber({ campaignId: idToBytes32("summer-daily"), number: 7n, slot: p.drawing.slot!, listCommitment: p.winnerList.commitment })).toBe(
      p.entropy.userContribution,
    );
    expect(v.combineRandomValues(p.entropy.userContribution!, p.entropy.providerContribution!)).toBe(p.entropy.value);
  });
});

describe("unusable input exits 2 with one line and no stack trace", () => {
  it("invalid JSON", async () => {
    expectUnusable(await runVerifier([tmp.write("{ not json")]), /^✘ error: the proof is not valid JSON: /);
  });

  it("a missing field", async () => {
    const p = clone(makeWinnersProof({ seed: "missing" })) as unknown as { results: Record<string, unknown>[] };
    delete p.results[0]!.roll;
    expectUnusable(await verifyFile(p), /proof field results\[0\]\.roll must be a whole number 0 or above \(missing\)/);
  });

  it("a missing section", async () => {
    const p = clone(makeWinnersProof({ seed: "missing" })) as unknown as Record<string, unknown>;
    delete p.entropy;
    expectUnusable(await verifyFile(p), /proof field entropy must be an object \(missing\)/);
  });

  it("a wrongly typed field", async () => {
    const p = clone(makeWinnersProof({ seed: "typed" })) as unknown as { drawing: { number: unknown } };
    p.drawing.number = 7.5;
    expectUnusable(await verifyFile(p), /proof field drawing\.number must be a whole number from 0 to 2\^64-1 \(a decimal string above 2\^53\) \(got 7\.5\)/);
  });

  it("a non-hex value", async () => {
    const p = makeWinnersProof({ seed: "hex" });
    p.entropy.value = ("0x" + "zz".repeat(32)) as `0x${string}`;
    expectUnusable(await verifyFile(p), /proof field entropy\.value must be a 0x-prefixed 32-byte hex string/);
  });

  it("a non-hex entrant hash", async () => {
    const { proof } = makeEntriesProof({ seed: "hex-entrant" });
    proof.entrants!.list[3]!.hash = "0x1234";
    expectUnusable(await verifyFile(proof), /proof field entrants\.list\[3\]\.hash must be a 0x-prefixed 32-byte hex string \(got "0x1234"\)/);
  });

  it("proofVersion 1", async () => {
    const p = makeWinnersProof({ seed: "v1" });
    p.proofVersion = 1;
    expectUnusable(await verifyFile(p), /proof field proofVersion is 1: this verifier checks proof format versions 2, 3, 4, 5 and 6$/m);
    p.proofVersion = 7;
    expectUnusable(await verifyFile(p), /proof field proofVersion is 7: this verifier checks proof format versions 2, 3, 4, 5 and 6$/m);
  });

  it("a version 3 proof without its version 3 fields", async () => {
    for (const [remove, pattern] of [
      [(p: Proof) => delete p.drawing.slot, /proof field drawing\.slot must be a 0x-prefixed 32-byte hex string \(missing\)/],
      [(p: Proof) => delete p.entropy.userContribution, /proof field entropy\.userContribution must be a 0x-prefixed 32-byte hex string \(missing\)/],
      [(p: Proof) => delete p.entropy.providerContribution, /proof field entropy\.providerContribution must be a 0x-prefixed 32-byte hex string or null \(missing\)/],
      [(p: Proof) => ((p.entropy as Record<string, unknown>).providerContribution = "0x12"), /proof field entropy\.providerContribution \(a 32-byte hex string or null\) must be a 0x-prefixed 32-byte hex string \(got "0x12"\)/],
      [(p: Proof) => ((p.drawing as Record<string, unknown>).id = null), /proof field drawing\.id must be a string \(got null\)/],
    ] as const) {
      const p = makeWinnersProof({ seed: "v3-fields", version: 3, provider: "0x52deaa1c84233f7bb8c8a45baede41091c616506" });
      remove(p);
      expectUnusable(await verifyFile(p), pattern);
    }
  });

  it("a campaign id longer than 32 bytes", async () => {
    const p = makeWinnersProof({ seed: "long-id" });
    p.campaign.id = "x".repeat(33);
    expectUnusable(await verifyFile(p), /campaign\.id must be 1 to 32 bytes/);
  });

  it("a missing file", async () => {
    expectUnusable(await runVerifier(["/nonexistent/proof.json"]), /cannot read the proof file \/nonexistent\/proof\.json: no such file/);
  });

  it("an unreachable URL", async () => {
    const port = await closedPort();
    expectUnusable(await runVerifier([`http://127.0.0.1:${port}/x`]), new RegExp(`cannot fetch the proof from http://127\\.0\\.0\\.1:${port}/x: ECONNREFUSED`));
  });

  it("no argument, or an unknown option", async () => {
    expectUnusable(await runVerifier([]), /no proof given\. usage: node verify-draw\.mjs/);
    expectUnusable(await runVerifier(["proof.json", "--frobnicate"]), /unknown option --frobnicate/);
  });

  it("--json prints a JSON object with the error", async () => {
    const run = await runVerifier([tmp.write("[1,2"), "--json"]);
    expect(run.code).toBe(2);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(report.ok).toBe(false);
    expect(report.error).toMatch(/not valid JSON/);
  });
});

describe("proof served over HTTP", () => {
  let server: Awaited<ReturnType<typeof serve>>;
  const proof = makeEntriesProof({ seed: "http" }).proof;
  beforeAll(async () => {
    server = await serve((req, res) => {
      if (req.url === "/campaigns/summer-daily/draws/drw_1/proof.json") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(proof));
      } else if (req.url === "/broken.json") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("<html>");
      } else {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "not_found", detail: "no such draw" }));
      }
    });
  });
  afterAll(() => server.close());

  it("verifies a proof by URL", async () => {
    const run = await runVerifier([`${server.url}/campaigns/summer-daily/draws/drw_1/proof.json`]);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^PASS: /m);
  });

  it("a 404 is unusable input", async () => {
    expectUnusable(await runVerifier([`${server.url}/campaigns/summer-daily/draws/nope/proof.json`]), /answered HTTP 404/);
  });

  it("a non-JSON body is unusable input", async () => {
    expectUnusable(await runVerifier([`${server.url}/broken.json`]), /the proof is not valid JSON/);
  });
});

describe("performance", () => {
  it("verifies a 100,000-entrant, 1,000-winner proof", async () => {
    const started = performance.now();
    const { proof } = makeEntriesProof({ entrants: makeEntrants(100_000, "perf", 1000), winnersExpected: 1000, seed: "perf" });
    const generated = performance.now() - started;
    const file = tmp.write(proof, "big.json");
    const run = await runVerifier([file]);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ the 1,000 winners are the entrants the random value selects/m);
    const size = readFileSync(file).length;
    console.log(
      `100,000 entrants / 1,000 winners (${(size / 1e6).toFixed(1)} MB proof): verified in ${run.ms.toFixed(0)} ms wall (child process), generated in ${generated.toFixed(0)} ms`,
    );
    // Its time is a figure (printed here, measured by `npm run bench`), never a timed assertion.
  });

  it("verifies a 1,000-winner winners draw", async () => {
    const proof = makeWinnersProof({ winners: 1000, seed: "perf-winners", table: DEFAULT_TABLE });
    const run = await verifyFile(proof);
    expect(run.code, run.output).toBe(0);
    console.log(`1,000-winner winners draw: verified in ${run.ms.toFixed(0)} ms wall`);
  });
});
