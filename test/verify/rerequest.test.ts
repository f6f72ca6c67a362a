// Proof format version 5: a drawing whose randomness request was not revealed within the deployment's timeout, and
// was requested again, once, in public (PrizeDraw.reRequest). Offline the verifier derives the request the commit
// made from the batch (entropy.reRequest.previousUserContribution), the new request's user contribution from the
// previous request (keccak256(abi.encode(previousProvider, previousRequestId))) and the value from that; with --rpc
// it checks the commit against the previous request, the re-request transaction's EntropyReRequested, the contract's
// timeout and the new request's reveal. Proofs come from the independent generator (./fixtures.ts); --rpc runs
// against the fake chain (./fake-chain.ts), which commits, re-requests and reveals them.

import { describe, expect, it } from "vitest";
import { MOCK_PROVIDER, type ChainKnobs } from "./fake-chain.js";
import { REAL_PROVIDER, clone, combine, keccakHex, makeEntriesProof, makeWinnersProof, reRequestUserRandomNumber, type Proof } from "./fixtures.js";
import { expectFails, hasStackTrace, proofFolder, verifyWithChain, type JsonReport } from "./run.js";

const { tmp, verify } = proofFolder();

const OTHER_PROVIDER = "0x1111111111111111111111111111111111111111";

const v5Winners = (opts: Parameters<typeof makeWinnersProof>[0] = {}) =>
  makeWinnersProof({ winners: 6, seed: "rerequest-winners", provider: REAL_PROVIDER, version: 5, ...opts });



/** A forger's edit of the previous request that keeps the proof consistent offline (mock provider: no combination to break). */
function renamePrevious(proof: Proof, previousRequestId: string): Proof {
  proof.entropy.reRequest!.previousRequestId = previousRequestId;
  proof.entropy.userContribution = reRequestUserRandomNumber(proof.entropy.reRequest!.previousProvider, previousRequestId);
  return proof;
}

describe("proof format version 5: a re-requested random value, offline", () => {
  it("a valid version 5 proof passes: the batch derives the previous request's contribution, the previous request the new one's", async () => {
    const proof = v5Winners();
    const r = proof.entropy.reRequest!;
    expect(r).toMatchObject({ previousProvider: REAL_PROVIDER, previousRequestId: "11", timeoutBlocks: 256 });
    expect(proof.entropy.userContribution).toBe(reRequestUserRandomNumber(REAL_PROVIDER, 11n));
    expect(proof.entropy.value).toBe(combine(proof.entropy.userContribution!, proof.entropy.providerContribution!));
    const run = await verify(proof);
    expect(run.code, run.output).toBe(0);
    for (const line of [
      /^ {2}proof: summer-daily drawing #7 \(drw_test_7\), 6 winners, format version 5$/m,
      /^✔ this drawing's contribution keccak256\(campaign id, number, slot, winnerList\.commitment\) = 0x[0-9a-f]{8}…[0-9a-f]{6} is member 1 of the request's batch of 3$/m,
      /^✔ entropy\.reRequest\.previousUserContribution is derived from the batch \(keccak256 of the batch's 3 contributions in batch order\) = 0x[0-9a-f]{8}…[0-9a-f]{6}$/m,
      /^ℹ the random value was re-requested, once, in transaction 0x[0-9a-f]{8}…[0-9a-f]{6} \(2026-11-25T19:30:30\.000Z\): request 11 of provider 0x52deaa1c84233f7bb8c8a45baede41091c616506 was not revealed within 256 blocks; request 12 replaced it$/m,
      /^✔ entropy\.userContribution is the re-request's: keccak256\(abi\.encode\(previous provider, previous request id\)\) = 0x[0-9a-f]{8}…[0-9a-f]{6}$/m,
      /^✔ entropy\.value = keccak256\(userContribution, providerContribution, 0\): the random value combines the re-request's contribution with the provider's$/m,
      /^PASS: \d+ checks passed, 2 informational$/m,
    ]) {
      expect(run.stdout).toMatch(line);
    }
  });

  it("--json names the checks in order; entries draws, a batch of one and the mock provider pass too", async () => {
    const { proof: entries } = makeEntriesProof({ seed: "rerequest-entries", winnersExpected: 5, provider: REAL_PROVIDER, version: 5, batchIndex: 2 });
    const alone = v5Winners({ batchOthers: [], batchIndex: 0 });
    expect(alone.entropy.reRequest!.previousUserContribution).toBe(alone.entropy.batch!.contributions[0]);
    for (const p of [entries, alone]) {
      const run = await verify(p, "--json");
      expect(run.code, run.output).toBe(0);
      const report = JSON.parse(run.stdout) as JsonReport;
      expect(report.checks.filter((c) => c.id.startsWith("entropy.")).map((c) => [c.id, c.status])).toEqual([
        ["entropy.batch", "pass"],
        ["entropy.reRequest.previousUserContribution", "pass"],
        ["entropy.reRequest", "info"],
        ["entropy.userContribution", "pass"],
        ["entropy.value", "pass"],
        ["entropy.origin", "info"],
      ]);
    }

    const mock = v5Winners({ provider: "mock", seed: "rerequest-mock" });
    // The previous provider is an address even with the mock: the one PrizeDraw's events name.
    expect(mock.entropy.reRequest!.previousProvider).toBe(MOCK_PROVIDER);
    const run = await verify(mock);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^ℹ the random value was re-requested, once, .*request 11 of provider 0x6cc14824ea2918f5de5c2f75a9da968ad4bd6344 was not revealed within 256 blocks/m);
    expect(run.stdout).toMatch(/^ℹ test randomness \(mock provider\): cannot be checked independently/m);
    expect(run.stdout).not.toMatch(/entropy\.value = keccak256/);
  });

  it("fails with another previous sequence: the user contribution no longer derives", async () => {
    const proof = v5Winners();
    proof.entropy.reRequest!.previousRequestId = "10";
    const run = await verify(proof);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(
      /^✘ keccak256\(abi\.encode\(0x52deaa1c84233f7bb8c8a45baede41091c616506, 10\)\) is 0x[0-9a-f]{64}, entropy\.userContribution is 0x[0-9a-f]{64}$/m,
    );
    // With the user contribution made to follow, a real provider's value no longer combines.
    const forged = renamePrevious(v5Winners(), "10");
    const run2 = await verify(forged);
    expect(run2.code, run2.output).toBe(1);
    expect(run2.stdout).toMatch(/^✔ entropy\.userContribution is the re-request's/m);
    expect(run2.stdout).toMatch(/^✘ keccak256\(userContribution, providerContribution, 0\) is 0x[0-9a-f]{64}, entropy\.value is 0x[0-9a-f]{64}$/m);
  });

  it("fails with another previous provider", async () => {
    const proof = v5Winners();
    proof.entropy.reRequest!.previousProvider = OTHER_PROVIDER;
    const run = await verify(proof);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ keccak256\(abi\.encode\(0x1{40}, 11\)\) is 0x[0-9a-f]{64}, entropy\.userContribution is 0x[0-9a-f]{64}$/m);
  });

  it("fails with another user contribution, e.g. the request the commit made (the batch's)", async () => {
    const proof = v5Winners({ provider: "mock", seed: "rerequest-user" });
    proof.entropy.userContribution = proof.entropy.reRequest!.previousUserContribution;
    const run = await verify(proof);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ keccak256\(abi\.encode\(0x[0-9a-f]{40}, 11\)\) is 0x[0-9a-f]{64}, entropy\.userContribution is 0x[0-9a-f]{64}$/m);
  });

  it("fails when the previous user contribution is not the batch's", async () => {
    const proof = v5Winners();
    proof.entropy.reRequest!.previousUserContribution = keccakHex("another batch");
    const run = await verify(proof);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(
      /^✘ the batch's contributions give 0x[0-9a-f]{64} \(keccak256 of the batch's 3 contributions in batch order\), entropy\.reRequest\.previousUserContribution is 0x[0-9a-f]{64}$/m,
    );
    // The rest still holds: the new request's contribution depends on the previous request, not on the batch.
    expect(run.stdout).toMatch(/^✔ entropy\.userContribution is the re-request's/m);
  });

  it("fails when the re-request names itself as the previous request", async () => {
    const proof = renamePrevious(v5Winners({ provider: "mock", seed: "rerequest-self", previousProvider: MOCK_PROVIDER }), "12");
    proof.entropy.provider = MOCK_PROVIDER;
    const run = await verify(proof);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ entropy\.requestId 12 of provider 0x6cc14824ea2918f5de5c2f75a9da968ad4bd6344 is the previous request itself: a re-request is another request$/m);
  });

  it("a version 5 proof relabelled version 4 (re-request removed) fails: its value is not the commit's request's", async () => {
    const proof = clone(v5Winners());
    delete proof.entropy.reRequest;
    proof.proofVersion = 4;
    const run = await verify(proof);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ the batch's contributions give 0x[0-9a-f]{64} \(keccak256 of the batch's 3 contributions in batch order\), entropy\.userContribution is 0x[0-9a-f]{64}$/m);
  });

  it("a version 5 proof without entropy.reRequest, or a version 4 proof with one, cannot be used (exit 2)", async () => {
    const missing = clone(v5Winners());
    delete missing.entropy.reRequest;
    const run = await verify(missing);
    expect(run.code, run.output).toBe(2);
    expect(run.stderr).toMatch(/^✘ error: proof field entropy\.reRequest must be an object \(missing\)$/m);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(hasStackTrace(run.output)).toBe(false);

    const v4 = makeWinnersProof({ winners: 6, seed: "rerequest-v4", provider: REAL_PROVIDER, version: 4 });
    v4.entropy.reRequest = clone(v5Winners().entropy.reRequest!);
    const run2 = await verify(v4);
    expect(run2.code, run2.output).toBe(2);
    expect(run2.stderr).toMatch(/^✘ error: proof field entropy\.reRequest is in a version 4 proof: only a version 5 proof describes a re-requested random value$/m);
  });

  it("a version 5 proof with entropy.reRequest null is checked as version 4: it passes for a value revealed at the commit's request, and fails when its value came from a re-request", async () => {
    const plain = makeWinnersProof({ winners: 6, seed: "rerequest-null", provider: REAL_PROVIDER, version: 4 });
    const asV5 = { ...plain, proofVersion: 5, entropy: { ...plain.entropy, reRequest: null } };
    const run = await verify(asV5);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).not.toMatch(/re-requested/);

    // Hiding a re-request (null, with the re-request's contribution and value kept) breaks the batch rule.
    const hidden = clone(v5Winners()) as unknown as { entropy: { reRequest: unknown } };
    hidden.entropy.reRequest = null;
    const run2 = await verify(hidden);
    expect(run2.code, run2.output).toBe(1);
  });

  it.each([
    ["previousProvider", "mock", /proof field entropy\.reRequest\.previousProvider must be a 0x-prefixed 20-byte address \(got "mock"\)/],
    ["previousRequestId", "0x0b", /proof field entropy\.reRequest\.previousRequestId must be a whole number from 0 to 2\^64-1/],
    ["previousUserContribution", "0x1234", /proof field entropy\.reRequest\.previousUserContribution must be a 0x-prefixed 32-byte hex string/],
    ["timeoutBlocks", "256", /proof field entropy\.reRequest\.timeoutBlocks must be a whole number 0 or above \(got "256"\)/],
    ["requestTx", undefined, /proof field entropy\.reRequest\.requestTx must be a 0x-prefixed 32-byte hex string \(missing\)/],
    ["requestedAt", 1_700_000_000, /proof field entropy\.reRequest\.requestedAt must be a string/],
  ])("a re-request with a bad %s cannot be used (exit 2)", async (field, value, expected) => {
    const proof = clone(v5Winners()) as unknown as { entropy: { reRequest: Record<string, unknown> } };
    if (value === undefined) delete proof.entropy.reRequest[field];
    else proof.entropy.reRequest[field] = value;
    const run = await verify(proof);
    expect(run.code, run.output).toBe(2);
    expect(run.stderr).toMatch(expected);
  });
});

describe("proof format version 5 with --rpc", () => {
  it("the commit's request is the previous one, the re-request replaced it after the timeout, and the new request was revealed", async () => {
    const run = await verifyWithChain(tmp, v5Winners());
    expect(run.code, run.output).toBe(0);
    for (const line of [
      /^✔ random value requested after the list was committed, in the same transaction \(request 11 to provider 0x52deaa1c84233f7bb8c8a45baede41091c616506\)$/m,
      /^✔ the request's user contribution is the one derived from the batch and entropy\.reRequest\.previousUserContribution \(0x[0-9a-f]{8}…[0-9a-f]{6}\)$/m,
      /^✔ request 11 served 3 drawings committed in the same transaction; this drawing is member 1, and every member's contribution is the proof's$/m,
      /^✔ the value was re-requested in transaction 0x[0-9a-f]{8}…[0-9a-f]{6} \(block 357\) by 0x[0-9a-f]{40}: request 11 of provider 0x52deaa1c84233f7bb8c8a45baede41091c616506 replaced by request 12 of provider 0x52deaa1c84233f7bb8c8a45baede41091c616506, with the user contribution derived from the previous request$/m,
      /^✔ the contract's revealTimeoutBlocks\(\) is 256, entropy\.reRequest\.timeoutBlocks, and the re-request \(block 357\) came after the commit's block 100 \+ 256 = 356$/m,
      /^✔ entropy\.value was revealed onchain by provider 0x52deaa1c84233f7bb8c8a45baede41091c616506 in transaction 0x[0-9a-f]{8}…[0-9a-f]{6} \(block 359\)$/m,
      /^✔ Entropy 0x41c9e395…830d4c recorded request 11 of provider 0x52deaa1c84233f7bb8c8a45baede41091c616506 with the user contribution derived from the batch$/m,
      /^✔ Entropy 0x41c9e395…830d4c recorded request 12 of provider 0x52deaa1c84233f7bb8c8a45baede41091c616506 with the user contribution derived from the previous request$/m,
      /^✔ Entropy 0x41c9e395…830d4c revealed entropy\.value for request 12 of provider 0x52deaa1c84233f7bb8c8a45baede41091c616506$/m,
      /^✔ the random value is keccak256 of the re-request's contribution and provider 0x52deaa1c84233f7bb8c8a45baede41091c616506's revelation 0x[0-9a-f]{8}…[0-9a-f]{6}, as Entropy revealed them$/m,
      /^PASS: \d+ checks passed, 2 informational$/m,
    ]) {
      expect(run.stdout).toMatch(line);
    }
  });

  it("another provider for the new request, the mock provider, an entries draw and a longer timeout pass too", async () => {
    const moved = v5Winners({ previousProvider: OTHER_PROVIDER, seed: "rerequest-moved" });
    const run = await verifyWithChain(tmp, moved);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/request 11 of provider 0x1{40} replaced by request 12 of provider 0x52deaa1c84233f7bb8c8a45baede41091c616506/);

    const mock = await verifyWithChain(tmp, v5Winners({ provider: "mock", seed: "rerequest-rpc-mock" }));
    expect(mock.code, mock.output).toBe(0);
    expect(mock.stdout).toMatch(/^✔ Entropy 0x41c9e395…830d4c revealed entropy\.value for request 12 of provider 0x6cc14824ea2918f5de5c2f75a9da968ad4bd6344$/m);
    expect(mock.stdout).toMatch(/^ℹ test randomness \(mock provider\): revealed onchain by the test service itself/m);

    const entries = makeEntriesProof({ seed: "rerequest-rpc-entries", winnersExpected: 4, provider: REAL_PROVIDER, version: 5 }).proof;
    const run2 = await verifyWithChain(tmp, entries);
    expect(run2.code, run2.output).toBe(0);
    expect(run2.stdout).toMatch(/^✔ winnerList\.commitment was recorded onchain \(WinnersRecorded, block 360\)$/m);

    const base = v5Winners({ timeoutBlocks: 43_200, seed: "rerequest-base" });
    const run3 = await verifyWithChain(tmp, base);
    expect(run3.code, run3.output).toBe(0);
    expect(run3.stdout).toMatch(/^✔ the contract's revealTimeoutBlocks\(\) is 43,200, entropy\.reRequest\.timeoutBlocks, and the re-request \(block 43301\) came after the commit's block 100 \+ 43200 = 43300$/m);
  });

  it("a late reveal of the previous request (ignored by the contract) does not count", async () => {
    const run = await verifyWithChain(tmp, v5Winners(), { latePreviousReveal: keccakHex("too late") });
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ Entropy 0x41c9e395…830d4c revealed entropy\.value for request 12 /m);
  });

  const failures: [string, () => Proof, ChainKnobs, RegExp][] = [
    ["no re-request transaction", v5Winners, { reRequestReceiptMissing: true }, /^✘ re-request transaction 0x[0-9a-f]{64} not found on chain 31337$/m],
    ["a reverted re-request transaction", v5Winners, { reRequestReverted: true }, /^✘ re-request transaction 0x[0-9a-f]{64} reverted$/m],
    ["no EntropyReRequested event", v5Winners, { reRequestEventMissing: true },
      /^✘ no EntropyReRequested event of summer-daily #7 from contract 0x[0-9a-f]{40} in the re-request transaction 0x[0-9a-f]{64}$/m],
    ["another previous sequence in EntropyReRequested", v5Winners, { reRequestPreviousSequence: 10n },
      /^✘ onchain the re-request replaced request 10, entropy\.reRequest\.previousRequestId is 11$/m],
    ["another previous provider in EntropyReRequested", v5Winners, { reRequestPreviousProvider: OTHER_PROVIDER },
      /the re-request replaced request 11 of provider 0x1{40}, the commit requested 11 of provider 0x52deaa1c84233f7bb8c8a45baede41091c616506/],
    ["another new request", v5Winners, { reRequestSequence: 13n }, /^✘ onchain the new request is 13, entropy\.requestId is 12$/m],
    ["another new provider", v5Winners, { reRequestProvider: OTHER_PROVIDER }, /^✘ onchain the new request's provider is 0x1{40}, entropy\.provider is 0x52deaa1c84233f7bb8c8a45baede41091c616506$/m],
    ["another user contribution in EntropyReRequested", v5Winners, { reRequestUserRandomNumber: keccakHex("chosen") },
      /^✘ onchain re-request user contribution 0x[0-9a-f]{64}, keccak256\(abi\.encode\(previous provider, previous request id\)\) is 0x[0-9a-f]{64}$/m],
    ["another user contribution in Entropy's Requested of the new request", v5Winners, { reRequestEntropyUserContribution: keccakHex("chosen") },
      /^✘ Entropy recorded the user contribution 0x[0-9a-f]{64} for request 12 of provider 0x[0-9a-f]{40}; the previous request derives 0x[0-9a-f]{64}$/m],
    ["another timeout in the contract", v5Winners, { revealTimeoutBlocks: 43_200 }, /^✘ the contract's revealTimeoutBlocks\(\) is 43200, entropy\.reRequest\.timeoutBlocks is 256$/m],
    ["a re-request before the timeout", v5Winners, { reRequestBlock: 356 },
      /^✘ the re-request is in block 356, not after the commit's block 100 \+ 256 = 356: the contract re-requests only a request not revealed within its revealTimeoutBlocks$/m],
    ["a contract without revealTimeoutBlocks()", v5Winners, { revealTimeoutBlocks: null }, /^✘ revealTimeoutBlocks\(\) failed on contract 0x[0-9a-f]{40}: execution reverted$/m],
    ["a commit whose request is not the previous one", v5Winners, { sequence: 10n }, /^✘ onchain request id 10, entropy\.reRequest\.previousRequestId 11$/m],
    ["a commit to another provider than the previous one", v5Winners, { provider: OTHER_PROVIDER }, /onchain provider 0x1{40}, entropy\.reRequest\.previousProvider 0x52deaa1c/],
    ["a reveal before the re-request", v5Winners, { revealBlock: 300 }, /the reveal transaction is not after the re-request transaction/],
    ["another value revealed", v5Winners, { revealedRandomNumber: keccakHex("another number") }, /Entropy revealed 0x[0-9a-f]{64}, entropy\.value is 0x[0-9a-f]{64}/],
  ];

  it.each(failures)("fails on %s", async (_name, make, knobs, expected) => {
    const run = await verifyWithChain(tmp, make(), knobs);
    expectFails(run, expected);
  });

  it("a mock proof naming another previous request (consistent offline) fails against the chain", async () => {
    const honest = v5Winners({ provider: "mock", seed: "rerequest-forged" });
    const forged = renamePrevious(clone(honest), "10");
    expect((await verify(forged)).code).toBe(0); // offline the forgery is self-consistent
    const run = await verifyWithChain(tmp, forged, {}, honest);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ onchain request id 11, entropy\.reRequest\.previousRequestId 10$/m);
    expect(run.stdout).toMatch(/onchain the re-request replaced request 11, entropy\.reRequest\.previousRequestId is 10/);
    expect(run.stdout).toMatch(/onchain re-request user contribution 0x[0-9a-f]{64}, entropy\.userContribution 0x[0-9a-f]{64}/);
  });

  it("a version 4 proof of a re-requested drawing (the new request under the commit's) fails against the chain", async () => {
    const honest = v5Winners({ provider: "mock", seed: "rerequest-as-v4" });
    const v4 = clone(honest);
    delete v4.entropy.reRequest;
    v4.proofVersion = 4;
    v4.entropy.userContribution = honest.entropy.reRequest!.previousUserContribution;
    expect((await verify(v4)).code).toBe(0); // mock: consistent offline
    const run = await verifyWithChain(tmp, v4, {}, honest);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ onchain request id 11, entropy\.requestId 12$/m);
    expect(run.stdout).toMatch(/revealed for request 12, the drawing requested 11/);
  });

  it("--json carries the re-request checks", async () => {
    const run = await verifyWithChain(tmp, v5Winners(), { reRequestBlock: 300 }, undefined, "--json");
    expect(run.code, run.output).toBe(1);
    const report = JSON.parse(run.stdout) as JsonReport;
    const status = (id: string) => report.checks.find((c) => c.id === id)?.status;
    expect([status("rpc.reRequest"), status("rpc.reRequest.timeout"), status("rpc.entropy.reRequest"), status("rpc.entropy.reveal")]).toEqual(["pass", "fail", "pass", "pass"]);
  });
});
