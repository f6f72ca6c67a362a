// The shared draw vectors (test/vectors/draw-vectors.json, data only) turned into version 2 to 5 proofs:
// the verifier must pass each one, and fail it once a value is changed; its slot, user contribution, batch
// contribution, re-request contribution and Entropy combination must reproduce the vectors' `slot`,
// `userRandomNumber`, `batches`, `reRequest` and `combine`. This keeps the verifier equal to the other two
// implementations of the draw math (contract and service) without importing either.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT, VERIFIER, batchUserRandomNumber, combine, fingerprint, keccakHex, reRequestUserRandomNumber, userRandomNumber } from "./fixtures.js";
import { TempDir, runVerifier } from "./run.js";

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
const vectors = existsSync(VECTORS)
  ? (JSON.parse(readFileSync(VECTORS, "utf8")) as { cases: VectorCase[]; combine: CombineVector[]; batches: BatchVector[]; reRequest: ReRequestVector[] })
  : { cases: [], combine: [], batches: [], reRequest: [] };
const cases = vectors.cases;

type Derivations = {
  drawingSlot: (id: string) => string;
  userRandomNumber: (x: { campaignId: string; number: bigint; slot: string; listCommitment: string }) => string;
  combineRandomValues: (user: string, provider: string) => string;
  batchUserRandomNumber: (contributions: string[]) => string;
  reRequestUserRandomNumber: (previousProvider: string, previousSequence: bigint) => string;
};
let verifier: Derivations;
beforeAll(async () => {
  verifier = (await import(VERIFIER)) as Derivations;
});
const tmp = new TempDir();
afterAll(() => tmp.remove());

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
