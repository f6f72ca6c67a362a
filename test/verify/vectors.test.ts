// The shared draw vectors (test/vectors/draw-vectors.json, data only) turned into version 2 to 6 proofs:
// the verifier must pass each one, and fail it once a value is changed; its slot, user contribution, batch
// contribution, re-request contribution, Entropy combination and drawing value must reproduce the vectors' `slot`,
// `userRandomNumber`, `batches`, `reRequest`, `combine` and `drawValue`. Version 6 proofs are built for the cases
// whose value is a drawing value (drawValue's caseName), end to end. This keeps the verifier equal to the other two
// implementations of the draw math (contract and service) without importing either.

import { beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT, VERIFIER, batchUserRandomNumber, combine, drawValue, fingerprint, keccakHex, reRequestUserRandomNumber, userRandomNumber } from "./fixtures.js";
import { proofFolder, runVerifier } from "./run.js";

const VECTORS = path.join(REPO_ROOT, "test/vectors/draw-vectors.json");

type VectorCase = {
  name: string;
  drawingId: string;
  slot: string;
  listCommitment: string;
  userRandomNumber: string;
  inputs: {
    entropy: string;
    slug: string;
    campaignId: string;
    number: string;
    table: { id: string; version: number; denominator: number; amountsCents: number[]; weights: number[]; thresholds: number[] };
  };
  winners: { ids: string[]; winnerHashes: string[]; fingerprint: string };
  entrants: null | {
    ids: string[];
    idHashes: string[];
    weights: number[];
    count: number;
    totalWeight: number | string;
    entrantsCommitment: string;
    selection: string;
    selectedPositions: number[];
  };
  expected: { prizeCount: number; results: { position: number; randomValue: string; roll: number; amountCents: number }[] };
};

type CombineVector = { user: string; provider: string; randomNumber: string };
type BatchVector = {
  name: string;
  members: { slug: string; campaignId: string; number: string; drawingId: string; slot: string; listCommitment: string; userRandomNumber: string }[];
  userRandomNumber: string;
};
type ReRequestVector = { name: string; previousProvider: string; previousSequence: string; userRandomNumber: string };
type DrawValueVector = { name: string; entropyValue: string; requestBlockHash: string; drawValue: string; caseName: string | null };
const vectors = existsSync(VECTORS)
  ? (JSON.parse(readFileSync(VECTORS, "utf8")) as { cases: VectorCase[]; combine: CombineVector[]; batches: BatchVector[]; reRequest: ReRequestVector[]; drawValue: DrawValueVector[] })
  : { cases: [], combine: [], batches: [], reRequest: [], drawValue: [] };
const cases = vectors.cases;

type Derivations = {
  drawingSlot: (id: string) => string;
  userRandomNumber: (x: { campaignId: string; number: bigint; slot: string; listCommitment: string }) => string;
  combineRandomValues: (user: string, provider: string) => string;
  batchUserRandomNumber: (contributions: string[]) => string;
  reRequestUserRandomNumber: (previousProvider: string, previousSequence: bigint) => string;
  drawValue: (entropyValue: string, requestBlockHash: string) => string;
};
let verifier: Derivations;
beforeAll(async () => {
  verifier = (await import(VERIFIER)) as Derivations;
});
const { tmp } = proofFolder();

function proofOf(c: VectorCase) {
  const t = c.inputs.table;
  const number = BigInt(c.inputs.number) <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(c.inputs.number) : c.inputs.number;
  return {
    proofVersion: 2,
    campaign: { id: c.inputs.slug, slug: c.inputs.slug, name: c.name },
    drawing: { id: c.drawingId, number, drawAt: "2026-01-01T00:00:00.000Z" },
    winnerList: { winners: c.winners.ids, commitment: c.winners.fingerprint, lockedAt: "2026-01-01T00:00:00.000Z" },
    entropy: { provider: "mock", requestId: "1", value: c.inputs.entropy, revealedAt: "2026-01-01T00:00:00.000Z" },
    prizeTable: {
      id: t.id,
      version: t.version,
      denominator: t.denominator,
      tiers: t.amountsCents.map((amountCents, i) => ({ amountCents, weight: t.weights[i], threshold: t.thresholds[i] })),
    },
    results: c.expected.results.map((r) => ({
      position: r.position,
      winner: c.winners.ids[r.position],
      displayName: null,
      randomValue: r.randomValue,
      roll: r.roll,
      amountCents: r.amountCents,
    })),
    entrants: c.entrants && {
      count: c.entrants.count,
      totalWeight: Number(c.entrants.totalWeight),
      commitment: c.entrants.entrantsCommitment,
      selection: c.entrants.selection,
      list: c.entrants.idHashes.map((hash, i) => ({ hash, weight: c.entrants!.weights[i] })),
    },
    chain: null,
  };
}

/** The same case as a version 3 proof with the mock provider (the vectors' entropy is not a combination). */
function proofV3Of(c: VectorCase) {
  const p = proofOf(c);
  return {
    ...p,
    proofVersion: 3,
    drawing: { ...p.drawing, slot: c.slot },
    entropy: { provider: "mock", requestId: "1", userContribution: c.userRandomNumber, providerContribution: null, value: c.inputs.entropy, revealedAt: "2026-01-01T00:00:00.000Z" },
  };
}

/** The same case as member 0 of a version 4 batch with the last batch vector's last member after it (mock provider). */
function proofV4Of(c: VectorCase) {
  const p = proofV3Of(c);
  const other = vectors.batches.at(-1)!.members.at(-1)!.userRandomNumber;
  const contributions = [c.userRandomNumber, other];
  return {
    ...p,
    proofVersion: 4,
    entropy: {
      provider: "mock",
      requestId: "1",
      batch: { index: 0, size: 2, contributions },
      userContribution: verifier.batchUserRandomNumber(contributions),
      providerContribution: null,
      value: c.inputs.entropy,
      revealedAt: "2026-01-01T00:00:00.000Z",
    },
  };
}

/**
 * The same case re-requested (mock provider): version 4's batch derives the previous request's contribution, and
 * the last re-request vector is the previous request, so the new request's contribution is that vector's.
 */
function proofV5Of(c: VectorCase) {
  const p = proofV4Of(c);
  const previous = vectors.reRequest.at(-1)!;
  return {
    ...p,
    proofVersion: 5,
    entropy: {
      ...p.entropy,
      requestId: "2",
      userContribution: previous.userRandomNumber,
      reRequest: {
        previousProvider: previous.previousProvider,
        previousRequestId: previous.previousSequence,
        previousUserContribution: p.entropy.userContribution,
        timeoutBlocks: 256,
        requestTx: keccakHex(`re-request of ${c.name}`),
        requestedAt: "2026-01-01T00:00:00.000Z",
      },
    },
  };
}

/**
 * A case whose value is a drawing value (`origin`, its drawValue vector) as a version 6 proof: version 4's batch
 * (mock provider), Entropy's value (revealedValue) and the request block's hash from the vector, and the case's own
 * value (the mixed one) and results.
 */
function proofV6Of(c: VectorCase, origin: DrawValueVector) {
  const p = proofV4Of(c);
  const { provider, requestId, batch, userContribution, providerContribution, revealedAt } = p.entropy;
  return {
    ...p,
    proofVersion: 6,
    entropy: {
      provider,
      requestId,
      batch,
      userContribution,
      providerContribution,
      revealedValue: origin.entropyValue,
      requestBlock: { number: 1_234_567, hash: origin.requestBlockHash },
      value: c.inputs.entropy,
      revealedAt,
      reRequest: null,
    },
  };
}

/** The cases whose value is a drawing value, with that vector. */
const v6Cases = vectors.drawValue.flatMap((d) => {
  const c = cases.find((x) => x.name === d.caseName);
  return c ? [[c.name, c, d] as const] : [];
});

describe.skipIf(cases.length === 0)("shared draw vectors", () => {
  it("the vectors agree with this suite's own generator on hashes and fingerprints", () => {
    for (const c of cases) {
      expect(c.winners.winnerHashes).toEqual(c.winners.ids.map((id) => keccakHex(id)));
      expect(fingerprint(c.winners.ids)).toBe(c.winners.fingerprint);
      if (c.entrants) expect(c.winners.ids).toEqual(c.entrants.selectedPositions.map((p) => c.entrants!.ids[p]));
    }
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s: the verifier passes the vector's proof", async (_name, c) => {
    const run = await runVerifier([tmp.write(proofOf(c))]);
    expect(run.code, run.output).toBe(0);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s: the verifier fails it with the last roll changed", async (_name, c) => {
    const proof = proofOf(c);
    const last = proof.results[proof.results.length - 1]!;
    last.roll = (last.roll + 1) % proof.prizeTable.denominator;
    const run = await runVerifier([tmp.write(proof)]);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`position ${last.position}: roll ${last.roll} in proof`));
  });

  it("the vectors' slots and user contributions agree with this suite's generator and with the verifier", () => {
    for (const c of cases) {
      expect(c.slot).toBe(keccakHex(c.drawingId));
      expect(verifier.drawingSlot(c.drawingId)).toBe(c.slot);
      expect(c.listCommitment).toBe(c.entrants ? c.entrants.entrantsCommitment : c.winners.fingerprint);
      expect(userRandomNumber(c.inputs.slug, BigInt(c.inputs.number), c.slot as `0x${string}`, c.listCommitment as `0x${string}`)).toBe(c.userRandomNumber);
      expect(
        verifier.userRandomNumber({ campaignId: c.inputs.campaignId, number: BigInt(c.inputs.number), slot: c.slot, listCommitment: c.listCommitment }),
      ).toBe(c.userRandomNumber);
    }
  });

  it("the vectors' Entropy combinations agree with this suite's generator and with the verifier", () => {
    expect(vectors.combine.length).toBeGreaterThan(0);
    for (const v of vectors.combine) {
      expect(combine(v.user as `0x${string}`, v.provider as `0x${string}`)).toBe(v.randomNumber);
      expect(verifier.combineRandomValues(v.user, v.provider)).toBe(v.randomNumber);
    }
  });

  it("the vectors' batch contributions (1, 2 and 5 drawings) agree with this suite's generator and with the verifier", () => {
    expect(vectors.batches.map((b) => b.members.length)).toEqual([1, 2, 5]);
    for (const b of vectors.batches) {
      for (const m of b.members) {
        expect(m.slot).toBe(keccakHex(m.drawingId));
        expect(userRandomNumber(m.slug, BigInt(m.number), m.slot as `0x${string}`, m.listCommitment as `0x${string}`)).toBe(m.userRandomNumber);
        expect(verifier.userRandomNumber({ campaignId: m.campaignId, number: BigInt(m.number), slot: m.slot, listCommitment: m.listCommitment })).toBe(m.userRandomNumber);
      }
      const contributions = b.members.map((m) => m.userRandomNumber);
      expect(batchUserRandomNumber(contributions as `0x${string}`[])).toBe(b.userRandomNumber);
      expect(verifier.batchUserRandomNumber(contributions)).toBe(b.userRandomNumber);
    }
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s: the verifier passes the vector's version 4 proof (member 0 of a batch of two)", async (_name, c) => {
    const run = await runVerifier([tmp.write(proofV4Of(c))]);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ this drawing's contribution .* is member 0 of the request's batch of 2$/m);
    expect(run.stdout).toMatch(/^✔ entropy\.userContribution is derived from the batch/m);
  });

  it("the vectors' re-request contributions agree with this suite's generator and with the verifier", () => {
    expect(vectors.reRequest.length).toBeGreaterThanOrEqual(4);
    for (const v of vectors.reRequest) {
      expect(reRequestUserRandomNumber(v.previousProvider, v.previousSequence)).toBe(v.userRandomNumber);
      expect(verifier.reRequestUserRandomNumber(v.previousProvider, BigInt(v.previousSequence))).toBe(v.userRandomNumber);
    }
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s: the verifier passes the vector's version 5 proof (re-requested after the last re-request vector's request)", async (_name, c) => {
    const run = await runVerifier([tmp.write(proofV5Of(c))]);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ entropy\.reRequest\.previousUserContribution is derived from the batch/m);
    expect(run.stdout).toMatch(/^✔ entropy\.userContribution is the re-request's/m);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s: the verifier fails the version 5 proof with another previous sequence", async (_name, c) => {
    const proof = proofV5Of(c);
    proof.entropy.reRequest.previousRequestId = "1";
    const run = await runVerifier([tmp.write(proof)]);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ keccak256\(abi\.encode\(0x[0-9a-f]{40}, 1\)\) is 0x[0-9a-f]{64}, entropy\.userContribution is /m);
  });

  it("the vectors' drawing values agree with this suite's generator and with the verifier", () => {
    expect(vectors.drawValue.length).toBeGreaterThanOrEqual(5);
    for (const v of vectors.drawValue) {
      expect(drawValue(v.entropyValue as `0x${string}`, v.requestBlockHash as `0x${string}`)).toBe(v.drawValue);
      expect(verifier.drawValue(v.entropyValue, v.requestBlockHash)).toBe(v.drawValue);
    }
    // A winners case and an entrant case follow a drawing value, so both kinds run end to end below.
    expect(v6Cases.map(([, c]) => c.entrants === null)).toEqual([true, false]);
  });

  it.each(v6Cases)("%s: the verifier passes the vector's version 6 proof (its value a drawing value)", async (_name, c, origin) => {
    const run = await runVerifier([tmp.write(proofV6Of(c, origin))]);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ entropy\.value = keccak256\(abi\.encode\(entropy\.revealedValue, entropy\.requestBlock\.hash\)\)/m);
    expect(run.stdout).toMatch(/^✔ every random value, roll and prize recomputes from entropy\.value/m);
  });

  it.each(v6Cases)("%s: the verifier fails the version 6 proof with another request block hash, or with the case's value taken for Entropy's", async (_name, c, origin) => {
    const moved = proofV6Of(c, origin);
    // Another vector's block hash, not the zero one (which fails a check of its own).
    moved.entropy.requestBlock.hash = vectors.drawValue.find((d) => d.requestBlockHash !== origin.requestBlockHash && !/^0x0{64}$/.test(d.requestBlockHash))!.requestBlockHash;
    const run = await runVerifier([tmp.write(moved)]);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^FAIL: 1 of \d+ checks failed \(entropy\.value\)/m);
    // The case's value taken for Entropy's, and mixed again: the results (and an entrant draw's winners) no longer
    // follow the proof's value, but do follow its revealedValue.
    const skipped = proofV6Of(c, origin);
    skipped.entropy.revealedValue = c.inputs.entropy;
    skipped.entropy.value = drawValue(c.inputs.entropy as `0x${string}`, origin.requestBlockHash as `0x${string}`);
    const run2 = await runVerifier([tmp.write(skipped)]);
    expect(run2.code, run2.output).toBe(1);
    expect(run2.stdout).toMatch(/^✘ \d+ of \d+ positions? (does|do) not recompute$/m);
    expect(run2.stdout).toMatch(/^ {4}- these follow from entropy\.revealedValue instead of entropy\.value/m);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s: the verifier passes the vector's version 3 proof", async (_name, c) => {
    const run = await runVerifier([tmp.write(proofV3Of(c))]);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ drawing\.slot is keccak256 of the drawing id /m);
    expect(run.stdout).toMatch(/^✔ entropy\.userContribution is derived from the commit/m);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s: the verifier fails the version 3 proof with another drawing id", async (_name, c) => {
    const proof = proofV3Of(c);
    proof.drawing.id = `${c.drawingId}x`;
    const run = await runVerifier([tmp.write(proof)]);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ keccak256 of the drawing id /m);
  });
});
