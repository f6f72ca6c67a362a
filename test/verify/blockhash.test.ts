// Proof format version 6: the contract mixes the hash of the block that holds the revealed request (the commit's,
// or the re-request's) into Entropy's value (entropy.revealedValue): entropy.value = keccak256(abi.encode(
// revealedValue, requestBlock.hash)), which every result follows. Offline the verifier recomputes that value and
// every result from it; with
// --rpc it reads the reveal's EntropyRevealed (entropy value, request block hash, drawing value), the request block
// (eth_getBlockByNumber), the block the request transaction was mined in, and the reveal's distance from it; and
// a re-request the contract allowed at once because it discarded a reveal that came too late. Proofs come from the
// independent generator (./fixtures.ts); --rpc runs against the fake chain (./fake-chain.ts).

import { describe, expect, it } from "vitest";
import { type ChainKnobs } from "./fake-chain.js";
import {
  REAL_PROVIDER,
  chainBlockHash,
  clone,
  computeResults,
  DEFAULT_TABLE,
  drawValue,
  fingerprint,
  keccakHex,
  makeEntriesProof,
  makeWinnersProof,
  selectEntrantsLinear,
  type Proof,
} from "./fixtures.js";
import { hasStackTrace, proofFolder, verifyWithChain, type JsonReport } from "./run.js";

const { tmp, verify } = proofFolder();

const ZERO32 = `0x${"00".repeat(32)}` as const;

const v6Winners = (opts: Parameters<typeof makeWinnersProof>[0] = {}) =>
  makeWinnersProof({ winners: 6, seed: "blockhash-winners", provider: REAL_PROVIDER, version: 6, ...opts });
const v6Entries = (opts: Parameters<typeof makeEntriesProof>[0] = {}) =>
  makeEntriesProof({ seed: "blockhash-entries", winnersExpected: 5, provider: REAL_PROVIDER, version: 6, ...opts }).proof;


async function verifyJson(proof: unknown, ...flags: string[]) {
  const run = await verify(proof, "--json", ...flags);
  return { run, report: JSON.parse(run.stdout) as JsonReport };
}


/** A forger's consistent edit: another request block (hash) with the drawing value and results made to follow. */
function moveToBlock(proof: Proof, number: number, hash = chainBlockHash(number)): Proof {
  proof.entropy.requestBlock = { number, hash };
  proof.entropy.value = drawValue(proof.entropy.revealedValue!, hash);
  proof.results = computeResults(proof.entropy.value, proof.campaign.id, proof.drawing.number, DEFAULT_TABLE, proof.winnerList.winners);
  return proof;
}

const statusOf = (report: JsonReport, id: string) => report.checks.find((c) => c.id === id)?.status;

describe("proof format version 6 offline: the request block's hash mixed in", () => {
  it("a valid version 6 proof passes: the mixed value recomputes and every result follows from it", async () => {
    const proof = v6Winners();
    expect(Object.keys(proof.entropy)).toEqual([
      "provider", "requestId", "batch", "userContribution", "providerContribution", "revealedValue", "requestBlock", "value", "revealedAt", "reRequest",
    ]);
    expect(proof.entropy.value).toBe(drawValue(proof.entropy.revealedValue!, proof.entropy.requestBlock!.hash));
    const run = await verify(proof);
    expect(run.code, run.output).toBe(0);
    for (const line of [
      /^ {2}proof: summer-daily drawing #7 \(drw_test_7\), 6 winners, format version 6$/m,
      /^✔ entropy\.revealedValue = keccak256\(userContribution, providerContribution, 0\): the random value combines the commit's contribution with the provider's$/m,
      /^✔ the request's block \(the commit's\) is block 100, hash 0x[0-9a-f]{8}…[0-9a-f]{6}$/m,
      /^✔ entropy\.value = keccak256\(abi\.encode\(entropy\.revealedValue, entropy\.requestBlock\.hash\)\) = 0x[0-9a-f]{8}…[0-9a-f]{6}: Entropy's value mixed with the request block's hash, which every result follows from$/m,
      /^✔ every random value, roll and prize recomputes from entropy\.value \(6 positions, /m,
      /^PASS: \d+ checks passed, 1 informational$/m,
    ]) {
      expect(run.stdout).toMatch(line);
    }
  });

  it("--json names the new checks; an entries draw selects its winners from the mixed value", async () => {
    const proof = v6Entries();
    // The generator selected from the mixed value; from Entropy's value alone it would select others.
    const weights = proof.entrants!.list.map((e) => e.weight);
    const fromValue = selectEntrantsLinear(proof.entropy.revealedValue!, proof.campaign.id, proof.drawing.number, weights, 5);
    const fromDrawValue = selectEntrantsLinear(proof.entropy.value, proof.campaign.id, proof.drawing.number, weights, 5);
    expect(fromValue).not.toEqual(fromDrawValue);
    const { run, report } = await verifyJson(proof);
    expect(run.code, run.output).toBe(0);
    expect(report.checks.filter((c) => c.id.startsWith("entropy.")).map((c) => [c.id, c.status])).toEqual([
      ["entropy.batch", "pass"],
      ["entropy.userContribution", "pass"],
      ["entropy.revealedValue", "pass"],
      ["entropy.requestBlock", "pass"],
      ["entropy.value", "pass"],
      ["entropy.origin", "info"],
    ]);
    expect(report.checks.find((c) => c.id === "entrants.selection")?.message).toBe(
      "the 5 winners are the entrants entropy.value selects, in order (sequential-weighted-v1)",
    );
  });

  it("a re-requested value passes; the re-request may follow a reveal that came too late", async () => {
    const proof = v6Winners({ reRequested: true, seed: "blockhash-re" });
    expect(proof.entropy.requestBlock!.number).toBe(357);
    const run = await verify(proof);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(
      /^ℹ the random value was re-requested, once, in transaction 0x[0-9a-f]{8}…[0-9a-f]{6} \(2026-11-25T19:30:30\.000Z\): request 11 of provider 0x52deaa1c84233f7bb8c8a45baede41091c616506 was not revealed within 256 blocks, or its reveal came more than 256 blocks after it and was discarded; request 12 replaced it$/m,
    );
    expect(run.stdout).toMatch(/^✔ the request's block \(the re-request's\) is block 357, hash /m);
  });

  it("fails when the mixed value is changed: entropy.value names it, and the results no longer follow", async () => {
    const proof = v6Winners();
    proof.entropy.value = keccakHex("a drawing value the service liked better");
    const { run, report } = await verifyJson(proof);
    expect(run.code, run.output).toBe(1);
    const check = report.checks.find((c) => c.id === "entropy.value")!;
    expect(check.status).toBe("fail");
    expect(check.message).toBe(
      `keccak256(abi.encode(entropy.revealedValue, entropy.requestBlock.hash)) is ${drawValue(proof.entropy.revealedValue!, proof.entropy.requestBlock!.hash)}, entropy.value is ${proof.entropy.value}`,
    );
    expect(statusOf(report, "results.prizes")).toBe("fail");
  });

  it("fails when the mixed value and the results follow a changed value: the results check alone cannot tell, entropy.value does", async () => {
    const proof = v6Winners();
    proof.entropy.value = keccakHex("chosen");
    proof.results = computeResults(proof.entropy.value, proof.campaign.id, proof.drawing.number, DEFAULT_TABLE, proof.winnerList.winners);
    const { run, report } = await verifyJson(proof);
    expect(run.code, run.output).toBe(1);
    expect(report.checks.filter((c) => c.status === "fail").map((c) => c.id)).toEqual(["entropy.value"]);
  });

  it("fails when requestBlock.hash is changed", async () => {
    const proof = v6Winners();
    proof.entropy.requestBlock!.hash = chainBlockHash(101);
    const run = await verify(proof);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ keccak256\(abi\.encode\(entropy\.revealedValue, entropy\.requestBlock\.hash\)\) is 0x[0-9a-f]{64}, entropy\.value is 0x[0-9a-f]{64}$/m);
    expect(run.stdout).toMatch(/^FAIL: 1 of \d+ checks failed \(entropy\.value\)/m);
  });

  it("fails when the results follow Entropy's value instead of the mixed one, and says so", async () => {
    const proof = v6Winners();
    proof.results = computeResults(proof.entropy.revealedValue!, proof.campaign.id, proof.drawing.number, DEFAULT_TABLE, proof.winnerList.winners);
    const { run, report } = await verifyJson(proof);
    expect(run.code, run.output).toBe(1);
    const check = report.checks.find((c) => c.id === "results.prizes")!;
    expect(check.status).toBe("fail");
    expect(check.message).toBe("6 of 6 positions do not recompute");
    expect(check.details![0]).toBe(
      "these follow from entropy.revealedValue instead of entropy.value: a version 6 draw follows Entropy's value mixed with the request block's hash, entropy.value = keccak256(abi.encode(entropy.revealedValue, entropy.requestBlock.hash))",
    );
    expect(report.checks.filter((c) => c.status === "fail").map((c) => c.id)).toEqual(["results.prizes"]);
  });

  it("fails when an entries draw selected its winners from Entropy's value, and says so", async () => {
    const { proof, entrants } = makeEntriesProof({ seed: "blockhash-entries", winnersExpected: 5, provider: REAL_PROVIDER, version: 6 });
    const weights = entrants.map((e) => e.weight);
    const winners = selectEntrantsLinear(proof.entropy.revealedValue!, proof.campaign.id, proof.drawing.number, weights, 5).map((i) => entrants[i]!.id);
    proof.winnerList = { ...proof.winnerList, winners, commitment: fingerprint(winners) };
    proof.results = computeResults(proof.entropy.value, proof.campaign.id, proof.drawing.number, DEFAULT_TABLE, proof.winnerList.winners);
    const { run, report } = await verifyJson(proof);
    expect(run.code, run.output).toBe(1);
    const check = report.checks.find((c) => c.id === "entrants.selection")!;
    expect(check.status).toBe("fail");
    expect(check.message).toMatch(/^\d of 5 winners (is|are) not the entrants? entropy\.value selects$/);
    expect(check.details![0]).toMatch(/^these follow from entropy\.revealedValue instead of entropy\.value/);
  });

  it("a version 6 proof relabelled version 5 fails: its value is not Entropy's, and (mock provider) the chain says so", async () => {
    // Version 5 reads entropy.value as Entropy's value: a real provider's does not combine.
    const proof = clone(v6Winners()) as Proof;
    proof.proofVersion = 5;
    const run = await verify(proof);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ keccak256\(userContribution, providerContribution, 0\) is 0x[0-9a-f]{64}, entropy\.value is 0x[0-9a-f]{64}$/m);
    // The mock's value is not checked offline; the contract's reveal shows the block hash was mixed in.
    const mock = v6Winners({ provider: "mock", seed: "blockhash-relabel" });
    const relabelled = clone(mock);
    relabelled.proofVersion = 5;
    expect((await verify(relabelled)).code).toBe(0);
    const online = await verifyWithChain(tmp, relabelled, {}, mock);
    expect(online.code, online.output).toBe(1);
    expect(online.stdout).toMatch(/^✘ no EntropyRevealed event of this drawing in the reveal transaction 0x[0-9a-f]{64}: it holds the EntropyRevealed of a contract that mixes the request block's hash in, whose prizes follow the mixed value \(a version 6 proof\)$/m);
  });

  it("fails on a request block that cannot hold a request: block 0, or a zero hash", async () => {
    const genesis = moveToBlock(v6Winners(), 0);
    const run = await verify(genesis);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ entropy\.requestBlock\.number is 0: the genesis block holds no request$/m);
    const zero = moveToBlock(v6Winners(), 100, ZERO32);
    const run2 = await verify(zero);
    expect(run2.code, run2.output).toBe(1);
    expect(run2.stdout).toMatch(/^✘ entropy\.requestBlock\.hash is zero: the contract never mixes a zero hash in/m);
    // Everything else of the forgery holds together.
    expect(run2.stdout).toMatch(/^FAIL: 1 of \d+ checks failed \(entropy\.requestBlock\)/m);
  });

  it("accepts a request block number above 2^53 as a decimal string", async () => {
    const proof = v6Winners();
    proof.entropy.requestBlock!.number = "9007199254740993";
    const run = await verify(proof);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ the request's block \(the commit's\) is block 9007199254740993, /m);
  });

  it.each([
    ["requestBlock missing", (e: Record<string, unknown>) => delete e.requestBlock, /proof field entropy\.requestBlock must be an object \(missing\)/],
    ["requestBlock.number as hex", (e: Record<string, unknown>) => ((e.requestBlock as Record<string, unknown>).number = "0x64"), /proof field entropy\.requestBlock\.number must be a whole number from 0 to 2\^64-1/],
    ["requestBlock.number negative", (e: Record<string, unknown>) => ((e.requestBlock as Record<string, unknown>).number = -1), /proof field entropy\.requestBlock\.number must be a whole number/],
    ["requestBlock.hash short", (e: Record<string, unknown>) => ((e.requestBlock as Record<string, unknown>).hash = "0x1234"), /proof field entropy\.requestBlock\.hash must be a 0x-prefixed 32-byte hex string \(got "0x1234"\)/],
    ["revealedValue missing", (e: Record<string, unknown>) => delete e.revealedValue, /proof field entropy\.revealedValue must be a 0x-prefixed 32-byte hex string \(missing\)/],
    ["value missing", (e: Record<string, unknown>) => delete e.value, /proof field entropy\.value must be a 0x-prefixed 32-byte hex string \(missing\)/],
    ["reRequest missing", (e: Record<string, unknown>) => delete e.reRequest, /proof field entropy\.reRequest must be an object \(missing\)/],
  ])("a proof with %s cannot be used (exit 2)", async (_name, edit, expected) => {
    const proof = clone(v6Winners()) as unknown as { entropy: Record<string, unknown> };
    edit(proof.entropy);
    const run = await verify(proof);
    expect(run.code, run.output).toBe(2);
    expect(run.stderr).toMatch(expected);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(hasStackTrace(run.output)).toBe(false);
  });
});

describe("proof format version 6 with --rpc", () => {
  it("the reveal carries the request block's hash and the drawing value; the block is the commit's; the reveal came within 256 blocks", async () => {
    const run = await verifyWithChain(tmp, v6Winners(), {}, undefined, "--json");
    expect(run.code, run.output).toBe(0);
    const report = JSON.parse(run.stdout) as JsonReport;
    const ids = report.checks.map((c) => c.id);
    expect(ids.slice(ids.indexOf("rpc.reveal"), ids.indexOf("rpc.requestBlock.window") + 1)).toEqual(["rpc.reveal", "rpc.reveal.value", "rpc.requestBlock", "rpc.requestBlock.window"]);
    const text = await verifyWithChain(tmp, v6Winners());
    for (const line of [
      /^✔ entropy\.revealedValue was revealed onchain by provider 0x52deaa1c84233f7bb8c8a45baede41091c616506 in transaction 0x[0-9a-f]{8}…[0-9a-f]{6} \(block 102\)$/m,
      /^✔ the contract mixed entropy\.revealedValue with the request block's hash 0x[0-9a-f]{8}…[0-9a-f]{6} into entropy\.value 0x[0-9a-f]{8}…[0-9a-f]{6} \(EntropyRevealed\)$/m,
      /^✔ entropy\.requestBlock is block 100 of chain 31337 \(hash 0x[0-9a-f]{8}…[0-9a-f]{6}\), which holds the commit transaction 0x[0-9a-f]{8}…[0-9a-f]{6}$/m,
      /^✔ the reveal \(block 102\) came 2 blocks after the request block 100, within the 256 whose hash the contract can read$/m,
      /^PASS: \d+ checks passed, 1 informational$/m,
    ]) {
      expect(text.stdout).toMatch(line);
    }
  });

  it("an entries draw and a re-requested value pass; a re-requested value's block is the re-request's", async () => {
    const entries = await verifyWithChain(tmp, v6Entries());
    expect(entries.code, entries.output).toBe(0);
    const re = await verifyWithChain(tmp, v6Winners({ reRequested: true, seed: "blockhash-rpc-re" }));
    expect(re.code, re.output).toBe(0);
    expect(re.stdout).toMatch(/^✔ entropy\.requestBlock is block 357 of chain 31337 \(hash 0x[0-9a-f]{8}…[0-9a-f]{6}\), which holds the re-request transaction /m);
    expect(re.stdout).toMatch(/^✔ the reveal \(block 359\) came 2 blocks after the request block 357/m);
    expect(re.stdout).not.toMatch(/EntropyRevealTooLate/);
  });

  it("the reveal exactly 256 blocks after the request passes", async () => {
    const run = await verifyWithChain(tmp, v6Winners(), { revealBlock: 356 });
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ the reveal \(block 356\) came 256 blocks after the request block 100, within the 256/m);
  });

  const failures: [string, () => Proof, ChainKnobs, string, RegExp][] = [
    ["another hash of the request block on chain", v6Winners, { blockHashes: { 100: keccakHex("the chain's block 100") } }, "rpc.requestBlock",
      /^✘ block 100's hash is 0x[0-9a-f]{64} onchain, entropy\.requestBlock\.hash is 0x[0-9a-f]{64}$/m],
    ["a commit mined in another block", v6Winners, { commitBlock: 101 }, "rpc.requestBlock",
      /^✘ the commit transaction 0x[0-9a-f]{8}…[0-9a-f]{6} was mined in block 101, entropy\.requestBlock\.number is 100$/m],
    ["a reveal 257 blocks after the request", v6Winners, { revealBlock: 357 }, "rpc.requestBlock.window",
      /^✘ the reveal \(block 357\) is 257 blocks after the request block 100, more than 256: the contract cannot read that block's hash then and discards such a reveal \(EntropyRevealTooLate\), so entropy\.requestBlock is not the block it used$/m],
    ["a reveal that mixed in another block hash", v6Winners, { revealedRequestBlockHash: chainBlockHash(99) }, "rpc.reveal.value",
      /^✘ onchain the reveal mixed in the request block hash 0x[0-9a-f]{64}, entropy\.requestBlock\.hash is 0x[0-9a-f]{64}$/m],
    ["a reveal reporting another mixed value", v6Winners, { revealedDrawValue: keccakHex("another mixed value") }, "rpc.reveal.value",
      /^✘ onchain the value the prizes follow is 0x[0-9a-f]{64}, entropy\.value is 0x[0-9a-f]{64}$/m],
    ["the reveal of a contract before the block hash", v6Winners, { entropyValueEvent: true }, "rpc.reveal",
      /^✘ no EntropyRevealed event of this drawing in the reveal transaction 0x[0-9a-f]{64}: it holds the EntropyRevealed of a contract that does not mix the request block's hash in, whose prizes follow Entropy's value \(a version 5 proof or earlier\)$/m],
    ["a re-requested value naming the commit's block", () => moveToBlock(v6Winners({ reRequested: true, seed: "blockhash-re-commit" }), 100), {}, "rpc.requestBlock",
      /^✘ the re-request transaction 0x[0-9a-f]{8}…[0-9a-f]{6} was mined in block 357, entropy\.requestBlock\.number is 100$/m],
  ];

  it.each(failures)("fails on %s", async (_name, make, knobs, id, expected) => {
    const run = await verifyWithChain(tmp, make(), knobs, undefined, "--json");
    expect(run.code, run.output).toBe(1);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(statusOf(report, id)).toBe("fail");
    const text = await verifyWithChain(tmp, make(), knobs);
    expect(text.stdout).toMatch(expected);
  });

  it("a forged request block, consistent offline, fails against the chain", async () => {
    const honest = v6Winners();
    const forged = moveToBlock(clone(honest), 101);
    expect((await verify(forged)).code).toBe(0);
    const run = await verifyWithChain(tmp, forged, {}, honest, "--json");
    expect(run.code, run.output).toBe(1);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(report.checks.filter((c) => c.status === "fail").map((c) => c.id)).toEqual(["rpc.reveal.value", "rpc.requestBlock", "rpc.prizes"]);
    expect(report.checks.find((c) => c.id === "rpc.requestBlock")!.message).toMatch(/^the commit transaction 0x[0-9a-f]{8}…[0-9a-f]{6} was mined in block 100, entropy\.requestBlock\.number is 101$/);
  });
});

describe("proof format version 6 with --rpc: a re-request after a reveal that came too late", () => {
  // A deployment with a long timeout (Base's day of blocks): the too-late rule is what allows the early re-request.
  const late = (opts: Parameters<typeof makeWinnersProof>[0] = {}) =>
    v6Winners({ reRequested: true, timeoutBlocks: 43_200, requestBlockNumber: 401, seed: "blockhash-late", ...opts });

  it("the contract discarded the previous request's reveal (block 400): the re-request at once passes, said as information", async () => {
    const run = await verifyWithChain(tmp, late(), { tooLate: [{ of: "commit", block: 400 }] });
    expect(run.code, run.output).toBe(0);
    for (const line of [
      /^ℹ the reveal of request 11 of provider 0x52deaa1c84233f7bb8c8a45baede41091c616506 came in block 400, 300 blocks after its request \(block 100\), too late to read that block's hash: the contract discarded its value 0x[0-9a-f]{8}…[0-9a-f]{6} unused \(EntropyRevealTooLate\), and the re-request followed$/m,
      /^✔ the contract's revealTimeoutBlocks\(\) is 43,200, entropy\.reRequest\.timeoutBlocks; the re-request \(block 401\) came before the commit's block 100 \+ 43200 = 43300, which the contract allows once it discarded the previous request's reveal as too late \(block 400\)$/m,
      /^✔ entropy\.requestBlock is block 401 of chain 31337 .*which holds the re-request transaction/m,
      /^PASS: \d+ checks passed, 3 informational$/m,
    ]) {
      expect(run.stdout).toMatch(line);
    }
  });

  it("--json carries rpc.reRequest.tooLate as information", async () => {
    const run = await verifyWithChain(tmp, late(), { tooLate: [{ of: "commit", block: 400 }] }, undefined, "--json");
    expect(run.code, run.output).toBe(0);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect([statusOf(report, "rpc.reRequest"), statusOf(report, "rpc.reRequest.tooLate"), statusOf(report, "rpc.reRequest.timeout")]).toEqual(["pass", "info", "pass"]);
  });

  const failures: [string, ChainKnobs, RegExp][] = [
    ["no discarded reveal before an early re-request", { reRequestBlock: 401 },
      /^✘ the re-request is in block 401, not after the commit's block 100 \+ 43200 = 43300: the contract re-requests only a request not revealed within its revealTimeoutBlocks, or one whose reveal it discarded as too late \(no EntropyRevealTooLate of it before the re-request\)$/m],
    ["a discarded reveal that names another request block", { tooLate: [{ of: "commit", block: 400, requestBlock: 150 }] },
      /^✘ the contract's EntropyRevealTooLate of request 11 of provider 0x52deaa1c84233f7bb8c8a45baede41091c616506 names request block 150, the commit's block is 100$/m],
    ["a reveal discarded as too late only 200 blocks after its request", { tooLate: [{ of: "commit", block: 300 }], reRequestBlock: 401 },
      /^✘ the contract discarded a reveal of request 11 of provider 0x52deaa1c84233f7bb8c8a45baede41091c616506 as too late in block 300, only 200 blocks after its request \(block 100\)$/m],
    ["a discarded reveal after the re-request", { tooLate: [{ of: "commit", block: 402 }], reRequestBlock: 401 },
      /^✘ the re-request is in block 401, not after the commit's block 100 \+ 43200 = 43300/m],
  ];

  it.each(failures)("fails on %s", async (_name, knobs, expected) => {
    const run = await verifyWithChain(tmp, late(), knobs);
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(expected);
  });

  it("a version 5 proof gets no such allowance: the too-late rule is version 6's contract's", async () => {
    const v5 = makeWinnersProof({ winners: 6, seed: "blockhash-late-v5", provider: REAL_PROVIDER, version: 5, timeoutBlocks: 43_200 });
    const run = await verifyWithChain(tmp, v5, { tooLate: [{ of: "commit", block: 400 }], reRequestBlock: 401 });
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ the re-request is in block 401, not after the commit's block 100 \+ 43200 = 43300: the contract re-requests only a request not revealed within its revealTimeoutBlocks$/m);
  });
});
