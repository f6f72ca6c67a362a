// verify-draw.mjs --rpc against a fake JSON-RPC endpoint serving the drawing's contract events.

import { describe, expect, it } from "vitest";
import { REAL_PROVIDER, ENTROPY_CONTRACT, keccakHex, makeEntriesProof, makeWinnersProof, type Proof } from "./fixtures.js";
import { FakeChain, type ChainKnobs } from "./fake-chain.js";
import { closedPort, expectFails, hasStackTrace, proofFolder, runVerifier, serve } from "./run.js";

const { tmp } = proofFolder();


async function verifyWithChain(proof: Proof, knobs: ChainKnobs = {}, ...flags: string[]) {
  const chain = new FakeChain(proof, knobs);
  const server = await serve(chain.handler);
  try {
    const run = await runVerifier([tmp.write(proof), "--rpc", server.url, ...flags]);
    return { ...run, calls: chain.calls, ranges: chain.getLogsRanges };
  } finally {
    await server.close();
  }
}

const winnersProof = () => makeWinnersProof({ winners: 6, seed: "rpc-winners", provider: REAL_PROVIDER });
const entriesProof = () => makeEntriesProof({ seed: "rpc-entries", winnersExpected: 8, provider: REAL_PROVIDER }).proof;

describe("--rpc", () => {
  it("winners draw: the chain confirms commitment, request, reveal, table and prizes", async () => {
    const run = await verifyWithChain(winnersProof());
    expect(run.code, run.output).toBe(0);
    for (const line of [
      /^✔ the RPC serves chain 31337, the proof's chain$/m,
      /^✔ winnerList\.commitment was committed onchain in transaction 0x[0-9a-f]{8}…[0-9a-f]{6} \(block 100\)$/m,
      /^✔ onchain: 6 winners expected; the proof lists 6$/m,
      /^✔ the drawing committed prize table default v1$/m,
      /^✔ random value requested after the list was committed, in the same transaction \(request 12 to provider 0x52deaa1c84233f7bb8c8a45baede41091c616506\)$/m,
      /^✔ entropy\.value was revealed onchain by provider 0x52deaa1c84233f7bb8c8a45baede41091c616506/m,
      /^✔ prize table default v1 equals the one published onchain$/m,
      /^✔ the contract's 6 PrizeAwarded events match the results/m,
      /^PASS: \d+ checks passed, 1 informational$/m,
      /^ℹ the reveal \(block \d+\) is (final|not final yet)/m,
    ]) {
      expect(run.stdout).toMatch(line);
    }
    expect(run.stdout).not.toMatch(/run with --rpc/);
  });

  it("entries draw: also the recorded winners and the entrant counts", async () => {
    const run = await verifyWithChain(entriesProof());
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ entrants\.commitment was committed onchain/m);
    expect(run.stdout).toMatch(/^✔ onchain: 60 entrants, total weight \d+, 8 winners expected; the proof agrees$/m);
    expect(run.stdout).toMatch(/^✔ winnerList\.commitment was recorded onchain \(WinnersRecorded, block 103\)$/m);
  });

  it("mock provider: the chain checks still run, and the mock stays informational", async () => {
    const run = await verifyWithChain(makeWinnersProof({ seed: "rpc-mock" }));
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^ℹ test randomness \(mock provider\): revealed onchain by the test service itself, so its origin cannot be checked independently; never used by real campaigns$/m);
    expect(run.stdout).toMatch(/^PASS: \d+ checks passed, 2 informational$/m);
  });

  it("reports whether the reveal is final, as information that never fails the proof", async () => {
    const notFinal = await verifyWithChain(winnersProof(), { finalizedBlock: 50 });
    expect(notFinal.code, notFinal.output).toBe(0);
    expect(notFinal.stdout).toMatch(/^ℹ the reveal \(block \d+\) is not final yet \(the chain's finalized block is 50\): a chain reorganisation could still drop it$/m);
    const final = await verifyWithChain(winnersProof(), { finalizedBlock: 4_000 });
    expect(final.stdout).toMatch(/^ℹ the reveal \(block \d+\) is final: the chain's finalized block is 4000$/m);
    const unknown = await verifyWithChain(winnersProof(), { finalizedBlock: null });
    expect(unknown.code, unknown.output).toBe(0);
    expect(unknown.stdout).toMatch(/^ℹ the node does not say which block is finalized, so whether the reveal is final is unknown$/m);
    const json = await verifyWithChain(winnersProof(), { finalizedBlock: 50 }, "--json");
    const check = (JSON.parse(json.stdout) as { checks: { id: string; status: string }[] }).checks.find((c) => c.id === "rpc.finality");
    expect(check?.status).toBe("info");
  });

  it("falls back to smaller block windows when eth_getLogs refuses a long range", async () => {
    const run = await verifyWithChain(entriesProof(), { getLogsRangeLimit: 1000 });
    expect(run.code, run.output).toBe(0);
    expect(run.ranges.some(([from, to]) => to - from + 1 > 1000)).toBe(true); // refused, then split
    expect(run.ranges.some(([from, to]) => to - from + 1 <= 1000)).toBe(true);
  });

  it("reads events from the receipts and asks eth_getLogs for at most 10,000 blocks at once", async () => {
    const run = await verifyWithChain(entriesProof(), { latestBlock: 2_000_000 });
    expect(run.code, run.output).toBe(0);
    expect(run.ranges.length).toBeGreaterThan(0);
    for (const [from, to] of run.ranges) expect(to - from + 1).toBeLessThanOrEqual(10_000);
    // The prizes are all in the reveal transaction: only the recorded winners are looked for with eth_getLogs.
    expect(run.ranges).toHaveLength(1);
  });

  it("finds prizes settled after the reveal transaction", async () => {
    const proof = winnersProof();
    const run = await verifyWithChain(proof, { laterPrizes: 2, latestBlock: 30_000 });
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ the contract's 6 PrizeAwarded events match the results/m);
  });

  const failures: [string, () => Proof, ChainKnobs, RegExp][] = [
    ["another chain", winnersProof, { chainId: 1 }, /^✘ the RPC serves chain 1, the proof says chain 31337; use an RPC of chain 31337$/m],
    ["another list commitment onchain", winnersProof, { listCommitment: keccakHex("other list") }, /^✘ onchain list commitment is 0x[0-9a-f]{64}, winnerList\.commitment is 0x[0-9a-f]{64}$/m],
    ["another random value onchain", winnersProof, { randomValue: keccakHex("other value") }, /^✘ onchain random value 0x[0-9a-f]{64}, entropy\.value 0x[0-9a-f]{64}$/m],
    ["randomness requested before the commitment", winnersProof, { requestBeforeCommit: true }, /^✘ the random value was requested before the list was committed$/m],
    ["another request id", winnersProof, { sequence: 13n }, /onchain request id 13, entropy\.requestId 12/],
    ["another provider", winnersProof, { provider: "0x1111111111111111111111111111111111111111" }, /onchain provider 0x1111111111111111111111111111111111111111, entropy\.provider 0x52deaa1c/],
    ["another winner count", winnersProof, { winnersExpected: 7 }, /^✘ onchain winner count 7, the proof lists 6$/m],
    ["another table version", winnersProof, { tableVersion: 2 }, /^✘ onchain table version 2, the proof's is 1$/m],
    ["another table id", winnersProof, { tableId: "promo" }, /onchain table id 0x70726f6d6f0{54}, the proof's is "default"/],
    ["another onchain table", winnersProof, { tableWeights: [1, 10, 401, 3999, 50000, 45589] }, /tier 2: onchain weight 401, the proof's 400/],
    ["no such table onchain", winnersProof, { tableMissing: true }, /^✘ getPrizeTable\(default, 1\) failed onchain: execution reverted: PrizeTableNotFound$/m],
    ["another prize onchain", winnersProof, { prizeAmounts: { 2: 1 } }, /position 2: amountCents \d+ in proof, 1 onchain/],
    ["prizes missing onchain", winnersProof, { missingPrizes: 2 }, /4 PrizeAwarded events onchain, 6 results in the proof/],
    ["the reveal before the commit", winnersProof, { revealBlock: 99 }, /the reveal transaction is not after the commit transaction/],
    ["no commit receipt", winnersProof, { commitReceiptMissing: true }, /^✘ commit transaction 0x[0-9a-f]{64} not found on chain 31337$/m],
    ["a reverted commit", winnersProof, { commitReverted: true }, /^✘ commit transaction 0x[0-9a-f]{64} reverted$/m],
    ["another entrant count", entriesProof, { entrantCount: 61 }, /onchain entrant count 61, entrants\.count 60/],
    ["fewer winners than the drawing takes", entriesProof, { winnersExpected: 9 }, /the proof lists 8 winners; the draw takes min\(9 expected, 60 entrants\) = 9/],
    ["other winners recorded", entriesProof, { winnersCommitment: keccakHex("other winners") }, /onchain winners commitment 0x[0-9a-f]{64}, winnerList\.commitment 0x[0-9a-f]{64}/],
    ["no winners recorded", entriesProof, { winnersCommitment: null }, /^✘ no WinnersRecorded event of this drawing onchain$/m],
  ];

  it.each(failures)("fails on %s", async (_name, make, knobs, expected) => {
    const run = await verifyWithChain(make(), knobs);
    expectFails(run, expected);
  });

  it("--json carries the rpc checks", async () => {
    const run = await verifyWithChain(winnersProof(), { randomValue: keccakHex("x") }, "--json");
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { ok: boolean; checks: { id: string; status: string }[] };
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.id === "rpc.reveal")?.status).toBe("fail");
    expect(report.checks.find((c) => c.id === "rpc.commit")?.status).toBe("pass");
  });

  it("an unreachable RPC exits 2 with one line", async () => {
    const port = await closedPort();
    const run = await runVerifier([tmp.write(winnersProof()), "--rpc", `http://127.0.0.1:${port}`]);
    expect(run.code, run.output).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`^✘ error: cannot reach the RPC http://127\\.0\\.0\\.1:${port}: ECONNREFUSED`));
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(hasStackTrace(run.output)).toBe(false);
  });

  it("a proof without chain data cannot be checked with --rpc (exit 2)", async () => {
    const proof = winnersProof() as unknown as Record<string, unknown>;
    proof.chain = null;
    const run = await runVerifier([tmp.write(proof), "--rpc", "http://127.0.0.1:1"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/proof field chain must be an object \(needed by --rpc\)/);
  });

  it("--rpc without a URL is a usage error", async () => {
    const run = await runVerifier([tmp.write(winnersProof()), "--rpc"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--rpc needs an http\(s\) JSON-RPC URL/);
  });
});

describe("--rpc on a version 2 proof from a contract of the previous version (events without slots)", () => {
  it("still verifies", async () => {
    const run = await verifyWithChain(winnersProof(), { legacyEvents: true });
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ winnerList\.commitment was committed onchain/m);
    expect(run.stdout).toMatch(/^✔ random value requested after the list was committed, in the same transaction/m);
  });

  it("a version 3 proof needs the current events", async () => {
    const proof = makeWinnersProof({ winners: 3, seed: "rpc-v3-legacy", provider: REAL_PROVIDER, version: 3 });
    const run = await verifyWithChain(proof, { legacyEvents: true });
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ no DrawingCommitted event of summer-daily #7 from contract 0x[0-9a-f]{40} in transaction 0x[0-9a-f]{64}$/m);
  });
});

describe("--rpc on version 3 proofs: slot, draw time and the origin of the random value", () => {
  const v3Winners = () => makeWinnersProof({ winners: 6, seed: "rpc-v3-winners", provider: REAL_PROVIDER, version: 3 });
  const v3Entries = () => makeEntriesProof({ seed: "rpc-v3-entries", winnersExpected: 8, provider: REAL_PROVIDER, version: 3 }).proof;

  it("winners draw, real provider: PrizeDraw's and Entropy's events confirm the slot, the request and the reveal", async () => {
    const run = await verifyWithChain(v3Winners());
    expect(run.code, run.output).toBe(0);
    for (const line of [
      /^✔ the list was committed under the drawing's slot 0x[0-9a-f]{8}…[0-9a-f]{6} and draw time 2026-11-25T20:00:00\.000Z$/m,
      /^✔ the request's user contribution is the one derived from the commit and entropy\.userContribution \(0x[0-9a-f]{8}…[0-9a-f]{6}\)$/m,
      new RegExp(`^✔ the contract requests its random values from the Entropy contract ${ENTROPY_CONTRACT}, chain\\.entropy$`, "m"),
      /^✔ Entropy 0x41c9e395…830d4c recorded request 12 of provider 0x52deaa1c84233f7bb8c8a45baede41091c616506 with the user contribution derived from the commit$/m,
      /^✔ Entropy 0x41c9e395…830d4c revealed entropy\.value for request 12 of provider 0x52deaa1c84233f7bb8c8a45baede41091c616506$/m,
      /^✔ the random value is keccak256 of the commit's contribution and provider 0x52deaa1c84233f7bb8c8a45baede41091c616506's revelation 0x[0-9a-f]{8}…[0-9a-f]{6}, as Entropy revealed them$/m,
      /^PASS: \d+ checks passed, 1 informational$/m,
      /^ℹ the reveal \(block \d+\) is (final|not final yet)/m,
    ]) {
      expect(run.stdout).toMatch(line);
    }
  });

  it("entries draw, real provider: the user contribution binds the entrant commitment", async () => {
    const run = await verifyWithChain(v3Entries());
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ the random value is keccak256 of the commit's contribution/m);
  });

  it("mock provider: the request and reveal are checked, the origin stays informational", async () => {
    const run = await verifyWithChain(makeWinnersProof({ seed: "rpc-v3-mock", version: 3 }));
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ Entropy 0x41c9e395…830d4c revealed entropy\.value/m);
    expect(run.stdout).not.toMatch(/keccak256 of the commit's contribution and provider/);
    expect(run.stdout).toMatch(/^ℹ test randomness \(mock provider\)/m);
    expect(run.stdout).toMatch(/^PASS: \d+ checks passed, 2 informational$/m);
  });

  it("a failed callback retried with the same value passes: the non-failed Revealed counts", async () => {
    const proof = v3Winners();
    const run = await verifyWithChain(proof, { failedReveal: proof.entropy.value });
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/revealed entropy\.value for request 12 of provider 0x[0-9a-f]{40} \(after 1 failed callback with the same value\)$/m);
  });

  const failures: [string, () => Proof, ChainKnobs, RegExp][] = [
    ["another user contribution in Entropy's Requested event", v3Winners, { entropyUserContribution: keccakHex("chosen by the operator") },
      /^✘ Entropy recorded the user contribution 0x[0-9a-f]{64} for request 12 of provider 0x[0-9a-f]{40}; the commit derives 0x[0-9a-f]{64}$/m],
    ["another provider contribution in Entropy's Revealed event", v3Winners, { revealedProvider: keccakHex("another revelation") },
      /^✘ keccak256\(userContribution, providerContribution, 0\) of the Revealed event is 0x[0-9a-f]{64}, its random number 0x[0-9a-f]{64}$/m],
    ["another user contribution in Entropy's Revealed event", v3Winners, { revealedUser: keccakHex("another user") },
      /the Revealed user contribution is 0x[0-9a-f]{64}, the commit derives 0x[0-9a-f]{64}/],
    ["another random number revealed by Entropy", v3Winners, { revealedRandomNumber: keccakHex("another number") },
      /Entropy revealed 0x[0-9a-f]{64}, entropy\.value is 0x[0-9a-f]{64}/],
    ["a failed callback with another random number", v3Winners, { failedReveal: keccakHex("first try") },
      /the Revealed events of request 12 of provider 0x[0-9a-f]{40} carry 2 different random numbers/],
    ["no Entropy events", v3Winners, { noEntropyEvents: true },
      /^✘ no Requested event of Entropy 0x[0-9a-f]{40} for request 12 of provider 0x[0-9a-f]{40} in the commit transaction 0x[0-9a-f]{64}$/m],
    ["another Entropy contract named by the PrizeDraw contract", v3Winners, { entropyGetter: "0x2222222222222222222222222222222222222222" },
      /^✘ the contract's entropy\(\) is 0x2222222222222222222222222222222222222222, chain\.entropy is 0x41c9e39574f40ad34c79f1c99b66a45efb830d4c; the checks below use 0x2{40}$/m],
    ["another userRandomNumber in EntropyRequested", v3Winners, { userRandomNumber: keccakHex("x") },
      /^✘ onchain user contribution 0x[0-9a-f]{64}, derived from the commit 0x[0-9a-f]{64}$/m],
    ["another slot onchain", v3Winners, { slot: keccakHex("drw_other") },
      /^✘ onchain slot 0x[0-9a-f]{64}, drawing\.slot 0x[0-9a-f]{64}$/m],
    ["another draw time onchain", v3Winners, { drawAt: Date.parse("2026-11-26T20:00:00Z") / 1000 },
      /^✘ onchain draw time 2026-11-26T20:00:00\.000Z \(\d+\), drawing\.drawAt 2026-11-25T20:00:00\.000Z \(\d+\)$/m],
  ];

  it.each(failures)("fails on %s", async (_name, make, knobs, expected) => {
    const run = await verifyWithChain(make(), knobs);
    expectFails(run, expected);
  });

  it("a proof whose user contribution differs from the chain's fails offline and with --rpc", async () => {
    const proof = v3Winners();
    proof.entropy.userContribution = keccakHex("forged");
    const run = await verifyWithChain(proof);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/onchain user contribution 0x[0-9a-f]{64}, entropy\.userContribution 0x[0-9a-f]{64}/);
  });

  it("a version 3 proof without chain.entropy cannot be checked with --rpc (exit 2)", async () => {
    const proof = v3Winners();
    delete proof.chain.entropy;
    const run = await runVerifier([tmp.write(proof), "--rpc", "http://127.0.0.1:1"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/proof field chain\.entropy must be a 0x-prefixed 20-byte address \(missing\)/);
  });
});

