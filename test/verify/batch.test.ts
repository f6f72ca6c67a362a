// Proof format version 4: the randomness request's batch. The verifier recomputes this drawing's contribution from
// the proof's own fields, finds it at entropy.batch.index, and derives entropy.userContribution from the batch's
// contributions (a batch of one: its only contribution; more: keccak256 of them all in order). Proofs come from the
// independent generator (./fixtures.ts); --rpc runs against the fake chain (./fake-chain.ts), whose commit
// transaction holds every member's DrawingCommitted and EntropyRequested.

import { describe, expect, it } from "vitest";
import { FakeChain } from "./fake-chain.js";
import {
  REAL_PROVIDER,
  DEFAULT_BATCH_OTHERS,
  batchUserRandomNumber,
  clone,
  combine,
  contributionOf,
  drawingSlot,
  keccakHex,
  makeEntriesProof,
  makeWinnersProof,
  type Proof,
} from "./fixtures.js";
import { proofFolder, runVerifier, serve, verifyWithChain, type JsonReport } from "./run.js";

const { tmp, verify } = proofFolder();


const v4Winners = (opts: Parameters<typeof makeWinnersProof>[0] = {}) =>
  makeWinnersProof({ winners: 6, seed: "batch-winners", provider: REAL_PROVIDER, version: 4, ...opts });



/** A forger's edit that keeps the proof consistent offline: userContribution and (real provider) value follow the batch. */
function rebatch(proof: Proof, contributions: `0x${string}`[], index: number): Proof {
  proof.entropy.batch = { index, size: contributions.length, contributions };
  proof.entropy.userContribution = batchUserRandomNumber(contributions);
  return proof;
}

describe("proof format version 4: the request's batch", () => {
  it("a valid version 4 proof passes: this drawing's contribution at its index, the request's derived from the batch", async () => {
    const proof = v4Winners();
    expect(proof.entropy.batch).toMatchObject({ index: 1, size: 3 });
    const run = await verify(proof);
    expect(run.code, run.output).toBe(0);
    for (const line of [
      /^ {2}proof: summer-daily drawing #7 \(drw_test_7\), 6 winners, format version 4$/m,
      /^✔ drawing\.slot is keccak256 of the drawing id "drw_test_7"/m,
      /^✔ this drawing's contribution keccak256\(campaign id, number, slot, winnerList\.commitment\) = 0x[0-9a-f]{8}…[0-9a-f]{6} is member 1 of the request's batch of 3$/m,
      /^✔ entropy\.userContribution is derived from the batch \(keccak256 of the batch's 3 contributions in batch order\) = 0x[0-9a-f]{8}…[0-9a-f]{6}$/m,
      /^✔ entropy\.value = keccak256\(userContribution, providerContribution, 0\)/m,
      /^PASS: /m,
    ]) {
      expect(run.stdout).toMatch(line);
    }
  });

  it("a batch of one passes: its contribution is the request's, as in version 3", async () => {
    const proof = v4Winners({ batchOthers: [], batchIndex: 0 });
    expect(proof.entropy.batch).toEqual({ index: 0, size: 1, contributions: [proof.entropy.userContribution] });
    const run = await verify(proof);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ .* is member 0 of the request's batch of 1$/m);
    expect(run.stdout).toMatch(/^✔ entropy\.userContribution is derived from the batch \(a batch of one uses its drawing's contribution as is\)/m);
  });

  it("entries draws and the first and last places of a batch pass; --json names the checks", async () => {
    const { proof } = makeEntriesProof({ seed: "batch-entries", winnersExpected: 5, provider: REAL_PROVIDER, version: 4, batchIndex: 2 });
    expect(proof.entropy.batch!.index).toBe(2);
    const first = v4Winners({ batchIndex: 0 });
    for (const p of [proof, first]) {
      const run = await verify(p, "--json");
      expect(run.code, run.output).toBe(0);
      const report = JSON.parse(run.stdout) as JsonReport;
      const ids = report.checks.map((c) => c.id);
      expect(ids.indexOf("entropy.batch")).toBeGreaterThan(ids.indexOf("drawing.slot"));
      expect(ids.indexOf("entropy.userContribution")).toBe(ids.indexOf("entropy.batch") + 1);
      expect(report.checks.filter((c) => c.id.startsWith("entropy.") && c.status !== "info").map((c) => [c.id, c.status])).toEqual([
        ["entropy.batch", "pass"],
        ["entropy.userContribution", "pass"],
        ["entropy.value", "pass"],
      ]);
    }
  });

  it("fails when another member's contribution is changed", async () => {
    const proof = v4Winners();
    proof.entropy.batch!.contributions[0] = keccakHex("another drawing");
    const run = await verify(proof);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✔ .* is member 1 of the request's batch of 3$/m);
    expect(run.stdout).toMatch(
      /^✘ the batch's contributions give 0x[0-9a-f]{64} \(keccak256 of the batch's 3 contributions in batch order\), entropy\.userContribution is 0x[0-9a-f]{64}$/m,
    );
  });

  it("fails when this drawing's own contribution is changed, even with userContribution and value made to follow", async () => {
    const proof = v4Winners({ provider: "mock" });
    const contributions = [...proof.entropy.batch!.contributions];
    contributions[1] = keccakHex("a list that was never committed");
    const run = await verify(rebatch(proof, contributions, 1));
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(
      /^✘ this drawing's contribution keccak256\(campaign id, number, slot, winnerList\.commitment\) is 0x[0-9a-f]{64}, entropy\.batch\.contributions\[1\] is 0x[0-9a-f]{64} \(this drawing's contribution is not in the batch\)$/m,
    );
    expect(run.stdout).toMatch(/^✔ entropy\.userContribution is derived from the batch/m);
  });

  it("fails when the index is changed", async () => {
    const proof = v4Winners();
    proof.entropy.batch!.index = 0;
    const run = await verify(proof);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ this drawing's contribution .* entropy\.batch\.contributions\[0\] is 0x[0-9a-f]{64} \(this drawing's contribution is at 1\)$/m);

    const outside = v4Winners();
    outside.entropy.batch!.index = 3;
    const run2 = await verify(outside);
    expect(run2.code, run2.output).toBe(1);
    expect(run2.stdout).toMatch(/^✘ entropy\.batch\.index 3 is outside the 3 contributions \(0 to 2\)$/m);
  });

  it("fails when a member is removed: the size disagrees, or the request's contribution does", async () => {
    const proof = v4Winners();
    proof.entropy.batch!.contributions.splice(2, 1);
    const run = await verify(proof);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ entropy\.batch\.contributions has 2 entries, entropy\.batch\.size is 3$/m);
    expect(run.stdout).toMatch(/^✘ the batch's contributions give 0x[0-9a-f]{64} \(keccak256 of the batch's 2 contributions in batch order\), entropy\.userContribution is/m);

    // Size fixed too: the request's contribution no longer follows.
    const resized = v4Winners();
    resized.entropy.batch!.contributions.splice(2, 1);
    resized.entropy.batch!.size = 2;
    const run2 = await verify(resized);
    expect(run2.code, run2.output).toBe(1);
    expect(run2.stdout).toMatch(/^✔ .* is member 1 of the request's batch of 2$/m);
    expect(run2.stdout).toMatch(/^✘ the batch's contributions give/m);

    // userContribution made to follow too: a real provider's value no longer combines.
    const forged = rebatch(v4Winners(), v4Winners().entropy.batch!.contributions.slice(0, 2), 1);
    const run3 = await verify(forged);
    expect(run3.code, run3.output).toBe(1);
    expect(run3.stdout).toMatch(/^✔ entropy\.userContribution is derived from the batch/m);
    expect(run3.stdout).toMatch(/^✘ keccak256\(userContribution, providerContribution, 0\) is 0x[0-9a-f]{64}, entropy\.value is 0x[0-9a-f]{64}$/m);
  });

  it("a version 4 proof without entropy.batch, or with a non-hex contribution, cannot be used (exit 2)", async () => {
    const missing = clone(v4Winners());
    delete missing.entropy.batch;
    const run = await verify(missing);
    expect(run.code, run.output).toBe(2);
    expect(run.stderr).toMatch(/proof field entropy\.batch must be an object/);

    const bad = v4Winners();
    bad.entropy.batch!.contributions[2] = "0x1234" as `0x${string}`;
    const run2 = await verify(bad);
    expect(run2.code, run2.output).toBe(2);
    expect(run2.stderr).toMatch(/proof field entropy\.batch\.contributions\[2\] must be a 0x-prefixed 32-byte hex string/);
  });

  it("the generator's batch is the verifier's: DEFAULT_BATCH_OTHERS' contributions around this drawing's", () => {
    const proof = v4Winners();
    const own = proof.entropy.batch!.contributions[1]!;
    expect(proof.entropy.batch!.contributions).toEqual([contributionOf(DEFAULT_BATCH_OTHERS[0]!), own, contributionOf(DEFAULT_BATCH_OTHERS[1]!)]);
    expect(proof.entropy.value).toBe(combine(proof.entropy.userContribution!, proof.entropy.providerContribution!));
    expect(proof.drawing.slot).toBe(drawingSlot("drw_test_7"));
  });
});

describe("proof format version 4 with --rpc", () => {
  it("the commit transaction's requests are the batch: size, index and every member's contribution", async () => {
    const run = await verifyWithChain(tmp, v4Winners());
    expect(run.code, run.output).toBe(0);
    for (const line of [
      /^✔ the request's user contribution is the one derived from the batch and entropy\.userContribution \(0x[0-9a-f]{8}…[0-9a-f]{6}\)$/m,
      /^✔ request 12 served 3 drawings committed in the same transaction; this drawing is member 1, and every member's contribution is the proof's$/m,
      /^✔ Entropy 0x41c9e395…830d4c recorded request 12 of provider 0x[0-9a-f]{40} with the user contribution derived from the batch$/m,
      /^✔ the random value is keccak256 of the batch's contribution and provider/m,
    ]) {
      expect(run.stdout).toMatch(line);
    }
  });

  it("a batch of one and a mock provider pass too", async () => {
    const alone = await verifyWithChain(tmp, v4Winners({ batchOthers: [], batchIndex: 0 }), { batchOthers: [] });
    expect(alone.code, alone.output).toBe(0);
    expect(alone.stdout).toMatch(/^✔ request 12 served 1 drawing committed in the same transaction; this drawing is member 0/m);
    const mock = await verifyWithChain(tmp, v4Winners({ provider: "mock", seed: "batch-mock" }));
    expect(mock.code, mock.output).toBe(0);
  });

  it("a member removed from a mock proof (consistent offline) fails against the chain", async () => {
    const proof = v4Winners({ provider: "mock", seed: "batch-mock-forged" });
    const honest = clone(proof);
    const forged = rebatch(proof, proof.entropy.batch!.contributions.slice(0, 2), 1);
    expect((await verify(forged)).code).toBe(0); // offline the forgery is self-consistent
    // The chain holds the honest batch of three.
    const chain = new FakeChain(honest);
    const server = await serve(chain.handler);
    try {
      const run = await runVerifier([tmp.write(forged), "--rpc", server.url]);
      expect(run.code, run.output).toBe(1);
      expect(run.stdout).toMatch(/^✘ onchain user contribution 0x[0-9a-f]{64}, derived from the batch 0x[0-9a-f]{64}$/m);
      expect(run.stdout).toMatch(/^✘ onchain the request's batch has 3 drawings, entropy\.batch\.size is 2$/m);
      expect(run.stdout).toMatch(/^ {4}- the commit transaction requested randomness for 3 drawings under request 12, entropy\.batch\.size is 2$/m);
    } finally {
      await server.close();
    }
  });

  it("fails when another member's commit onchain gives another contribution", async () => {
    const others = [{ ...DEFAULT_BATCH_OTHERS[0]!, listCommitment: keccakHex("another list") }, DEFAULT_BATCH_OTHERS[1]!];
    const run = await verifyWithChain(tmp, v4Winners(), { batchOthers: others });
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/member 0 \(campaign 0x7765656b…000000 #3\): its commit gives contribution 0x[0-9a-f]{64}, entropy\.batch\.contributions\[0\] is 0x[0-9a-f]{64}/);
  });

  it("fails when the onchain index or size differ from the proof's", async () => {
    const moved = await verifyWithChain(tmp, v4Winners(), { batchIndex: 0 });
    expect(moved.code, moved.output).toBe(1);
    expect(moved.stdout).toMatch(/onchain this drawing is member 0 of its request's batch, entropy\.batch\.index is 1/);
    const sized = await verifyWithChain(tmp, v4Winners(), { batchSizeEvent: 4 });
    expect(sized.code, sized.output).toBe(1);
    expect(sized.stdout).toMatch(/^✘ onchain the request's batch has 4 drawings, entropy\.batch\.size is 3$/m);
  });

  it("a version 4 proof needs the current EntropyRequested (with the batch fields)", async () => {
    const proof = v4Winners();
    // A version 3 proof of the same drawing against a contract before batches still passes (rpc.test.ts); a
    // version 4 proof against events without batch fields finds no request.
    const chain = new FakeChain({ ...clone(proof), proofVersion: 3 });
    const server = await serve(chain.handler);
    try {
      const run = await runVerifier([tmp.write(proof), "--rpc", server.url]);
      expect(run.code, run.output).toBe(1);
      expect(run.stdout).toMatch(/^✘ no EntropyRequested event of this drawing in the commit transaction 0x[0-9a-f]{64}$/m);
    } finally {
      await server.close();
    }
  });
});
