// The whole stack on TestEntropyV2 (the real Pyth Entropy v2 rules: gas-capped callback, a failed callback
// recorded and retried, hash-chain reveals) instead of MockEntropy. The test plays the provider: it registers a
// hash chain and answers every request with revealWithCallback sent with the node's gas estimate, unpadded, as
// Pyth's keeper does. Checks an honest draw end to end with the served verifier and --rpc, that tampered origin
// fields are refused, that a callback which fails for lack of gas is delivered again by the service's keeper
// through Entropy's retry path with the same value, never requested twice, and that a request the provider never
// reveals is re-requested once, in public, after the contract's timeout (its late reveal ignored).

import { afterAll, describe, expect, it } from "vitest";
import { createPublicClient, createWalletClient, encodeAbiParameters, http, keccak256, parseEventLogs, toHex, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { PrizeDrawAbi } from "../../api/src/chain/abis.js";
import { ANVIL_KEYS } from "../../api/src/config.js";
import { drawValue, drawingSlot, fingerprint, toCampaignId, userRandomNumber } from "../../api/src/draw/index.js";
import { combineRandomValues } from "../support/entropyProvider.js";
import { drawValueAt } from "../support/drawValue.js";
import { mineBlocks, until } from "../support/processes.js";
import { type Stack } from "../support/stack.js";
import { useStack } from "../support/suite.js";
import { TestEntropyV2Abi, localChain, registerTestProvider, startTestProvider, type RegisteredProvider, type TestProvider } from "../support/testProvider.js";
import {
  campaignWithOpenDrawing,
  getDrawing,
  postWinnersPastCutoff,
  proofUrl,
  verifyProofFile,
  verifyServedProof,
  waitForStatus as waitForStatusOf,
} from "../support/partner.js";

/** PrizeDraw's drawing status (contracts/PrizeDraw.sol Status). */
const STATUS = { Requested: 1, Revealed: 2, Settled: 3, Paid: 4 } as const;
/** The callback's gas cap the local deployment requests (api/src/chain/deploy.ts DEFAULT_CALLBACK_GAS_LIMIT). */
const CALLBACK_GAS_LIMIT = 2_000_000n;

let stack: Stack;
let key: string;
let accountId: string;
let registered: RegisteredProvider;
let provider: TestProvider;
let publicClient: PublicClient;

type ProofV3 = {
  proofVersion: number;
  campaign: { id: string };
  drawing: { id: string; number: number; slot?: string };
  winnerList: { winners: string[]; commitment: string };
  entropy: { provider: string; requestId: string; userContribution?: string; providerContribution?: string | null; value: string; revealedValue?: string };
  results: { position: number; randomValue: string }[];
  chain: { chainId: number; contract: string; entropy?: string; commitTx: string; revealTx: string };
};

type VerifierJson = { ok: boolean; checks: { id: string; status: "pass" | "fail" | "info"; message: string }[] };

const drawing = (slug: string, id: string) => getDrawing(stack, key, slug, id);
const newPushCampaign = (slug: string, winners: number) => campaignWithOpenDrawing(stack, { accountId, key }, slug, { winners });
const postWinnersAndPassCutoff = (slug: string, open: { id: string; cutoffAt: string }, winners: string[]) => postWinnersPastCutoff(stack, key, slug, open, winners);
const waitForStatus = (slug: string, id: string, status: string) => waitForStatusOf(stack, key, slug, id, status);

/** The proof from the public endpoint (404 until the indexer has the reveal). */
const fetchProof = (slug: string, id: string) =>
  until(`proof of ${id}`, async () => {
    const response = await fetch(proofUrl(stack, slug, id));
    return response.ok ? ((await response.json()) as ProofV3) : undefined;
  }, 30_000, 250);

/** The served verifier with --json on a proof written to a file; returns its exit code and checks. */
async function verifyFile(name: string, proof: unknown): Promise<{ code: number; result: VerifierJson }> {
  const { code, out } = await verifyProofFile(stack, name, JSON.stringify(proof, null, 2), "--json");
  return { code, result: JSON.parse(out) as VerifierJson };
}
const failedIds = (result: VerifierJson) => result.checks.filter((c) => c.status === "fail").map((c) => c.id);

/** Entropy's Requested events from the PrizeDraw contract (its only requester) since the deployment. */
const entropyRequests = () =>
  publicClient.getContractEvents({ address: stack.deployment.entropy, abi: TestEntropyV2Abi, eventName: "Requested", args: { caller: stack.deployment.prizeDraw }, fromBlock: BigInt(stack.deployment.deployBlock), toBlock: "latest" });
/** The block of Entropy's request `sequence` (a commit's or a re-request's): its hash is mixed into the drawing's value. */
const requestBlockOf = async (sequence: bigint) => {
  const request = (await entropyRequests()).find((l) => l.args.sequenceNumber === sequence);
  if (!request) throw new Error(`no Entropy request ${sequence} from PrizeDraw`);
  return request.blockNumber;
};
const entropyReveals = (sequence: bigint) =>
  publicClient.getContractEvents({ address: stack.deployment.entropy, abi: TestEntropyV2Abi, eventName: "Revealed", args: { provider: registered.address, sequenceNumber: sequence }, fromBlock: BigInt(stack.deployment.deployBlock), toBlock: "latest" });

useStack(
  "entropy-v2@example.com",
  (started) => {
    ({ stack, accountId, key } = started);
    expect(stack.deployment.mockEntropy).toBe(false);
    expect(stack.deployment.entropyProvider.toLowerCase()).toBe(registered.address.toLowerCase());
    publicClient = createPublicClient({ transport: http(stack.rpcUrl) }) as PublicClient;
    provider = startTestProvider({ rpcUrl: stack.rpcUrl, entropy: stack.deployment.entropy, provider: registered, fromBlock: BigInt(stack.deployment.deployBlock) });
  },
  {
    deploy: { randomness: "test-entropy-v2" },
    beforeService: async (deployment, rpcUrl) => {
      registered = await registerTestProvider(rpcUrl, deployment.entropy, { seed: keccak256(toHex("entropy-v2 stack test provider")), chainLength: 64, defaultGasLimit: 500_000 });
    },
  },
);

afterAll(async () => {
  await provider?.stop();
});

describe("the stack on Pyth Entropy v2 rules (TestEntropyV2), the test playing the provider", () => {
  let honest: { slug: string; id: string; proof: ProofV3 };

  it("an honest draw: paid, settled inside the provider's estimated reveal, and its proof verifies with --rpc including the origin", async () => {
    const slug = "v2-honest";
    const winners = ["h-1", "h-2", "h-3"];
    const open = await newPushCampaign(slug, winners.length);
    // The provider reveals two blocks after the request at the earliest, so the reveal simulated below on the
    // state just before it runs in a block that can read the request block's hash (in the request's own block
    // it cannot, and the callback would take the cheap too-late path).
    provider.setOnline(false);
    await postWinnersAndPassCutoff(slug, open, winners);
    const requested = await waitForStatus(slug, open.id, "entropy_requested");
    await mineBlocks(stack.rpcUrl, 2);
    provider.setOnline(true);
    const paid = await waitForStatus(slug, open.id, "paid");
    expect(paid.number).toBe(1);
    expect(paid.needsAttention).toBeNull();
    expect(paid.verification.entropyRequestId).toBe(requested.verification.entropyRequestId);
    expect(paid.verification.entropyProvider).toBe(registered.address.toLowerCase());
    const sequence = BigInt(paid.verification.entropyRequestId!);
    expect(sequence).toBeGreaterThan(registered.chainStart);

    // The provider's reveal: one transaction with exactly the node's estimate as its gas limit.
    const reveal = await provider.waitForReveal(sequence);
    const campaignId = toCampaignId(slug);
    const derivedUser = userRandomNumber({ campaignId, number: 1n, slot: drawingSlot(open.id), listCommitment: fingerprint(winners) });
    expect(reveal.userContribution).toBe(derivedUser);
    expect(reveal.requester.toLowerCase()).toBe(stack.deployment.prizeDraw.toLowerCase());
    const tx = await publicClient.getTransaction({ hash: reveal.hash });
    expect(tx.from.toLowerCase()).toBe(registered.address.toLowerCase());
    expect(tx.gas).toBe(reveal.estimate); // unpadded
    expect(reveal.estimate).toBeLessThan(CALLBACK_GAS_LIMIT); // it carries the callback's work, not the whole cap
    expect(reveal.receipt.status).toBe("success");
    expect(reveal.receipt.gasUsed).toBeLessThanOrEqual(tx.gas);
    // Below the estimate the reveal does not succeed with a callback that did less: the whole transaction fails
    // (InsufficientGas, or out of gas right after the starved callback), so the estimate is the callback's whole share.
    const revealBefore = (gas: bigint) =>
      publicClient.simulateContract({
        address: stack.deployment.entropy,
        abi: TestEntropyV2Abi,
        functionName: "revealWithCallback",
        args: [registered.address, sequence, reveal.userContribution, reveal.providerRevelation],
        account: registered.address,
        gas,
        blockNumber: reveal.receipt.blockNumber - 1n,
      });
    await expect(revealBefore(reveal.estimate)).resolves.toBeDefined();
    await expect(revealBefore(reveal.estimate - 20_000n)).rejects.toThrow(/InsufficientGas|OutOfGas|OOG|out of gas/i);

    // Inside that transaction: Entropy revealed with a successful callback, and the callback settled every prize.
    const value = combineRandomValues(derivedUser, registered.revelation(sequence));
    const entropyLogs = parseEventLogs({ abi: TestEntropyV2Abi, logs: reveal.receipt.logs, eventName: "Revealed" });
    expect(entropyLogs.map((l) => ({ seq: l.args.sequenceNumber, failed: l.args.callbackFailed, value: l.args.randomNumber }))).toEqual([{ seq: sequence, failed: false, value }]);
    const drawLogs = parseEventLogs({ abi: PrizeDrawAbi, logs: reveal.receipt.logs }).filter((l) => l.address.toLowerCase() === stack.deployment.prizeDraw.toLowerCase());
    const revealed = drawLogs.filter((l) => l.eventName === "EntropyRevealed");
    expect(revealed).toHaveLength(1);
    const drawn = await drawValueAt(publicClient, await requestBlockOf(sequence), value);
    expect(revealed[0]!.args).toMatchObject({ campaignId, number: 1n, sequence, entropyValue: value, randomValue: drawn });
    const awarded = drawLogs.filter((l) => l.eventName === "PrizeAwarded").map((l) => (l.args as { position: bigint }).position);
    expect(awarded).toEqual([0n, 1n, 2n]);
    const settled = drawLogs.filter((l) => l.eventName === "DrawingSettled");
    expect(settled).toHaveLength(1);
    expect((settled[0]!.args as { prizeCount: bigint }).prizeCount).toBe(3n);
    // No separate settle transaction: the only DrawingSettled of this drawing is the one in the reveal.
    const allSettled = await publicClient.getContractEvents({ address: stack.deployment.prizeDraw, abi: PrizeDrawAbi, eventName: "DrawingSettled", args: { campaignId, number: 1n }, fromBlock: BigInt(stack.deployment.deployBlock), toBlock: "latest" });
    expect(allSettled.map((l) => l.transactionHash)).toEqual([reveal.hash]);
    const onchain = await publicClient.readContract({ address: stack.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "getDrawing", args: [campaignId, 1n] });
    expect(Number(onchain.status)).toBe(STATUS.Paid);
    expect(onchain.randomValue).toBe(drawn);
    expect(paid.verification.entropy).toBe(drawn);

    // The public proof, checked by the served verifier against the chain.
    const proof = await fetchProof(slug, open.id);
    expect(proof.entropy.revealedValue).toBe(value);
    expect(proof.entropy.value).toBe(drawn);
    expect(proof.chain.revealTx).toBe(reveal.hash);
    const { code, out } = await verifyServedProof(stack, slug, open.id);
    expect(out).toMatch(/^PASS: \d+ checks passed/m);
    expect(code).toBe(0);
    expect(proof.proofVersion).toBe(6);
    expect(proof).toMatchObject({ drawing: { slot: drawingSlot(open.id) }, entropy: { userContribution: derivedUser }, chain: { entropy: stack.deployment.entropy.toLowerCase() } });
    expect(proof.entropy.providerContribution).toBe(registered.revelation(sequence)); // from Entropy's Revealed log
    expect(out).toContain(`revealed entropy.revealedValue for request ${sequence} of provider ${registered.address.toLowerCase()}`);
    expect(out).toContain("✔ entropy.revealedValue = keccak256(userContribution, providerContribution, 0)");
    expect(out).not.toContain("✘");
    honest = { slug, id: open.id, proof };
  });

  it("a proof with a tampered origin (user contribution, provider contribution, value) fails with --rpc", async () => {
    expect(honest).toBeDefined();
    const { proof } = honest;
    expect(proof.proofVersion).toBe(6);
    const untouched = await verifyFile("honest.json", proof);
    expect(untouched.code).toBe(0);
    expect(untouched.result.checks.find((c) => c.id === "rpc.entropy.origin")?.status).toBe("pass");

    const wrong = keccak256(toHex("not the contribution"));
    const user = await verifyFile("tampered-user.json", { ...proof, entropy: { ...proof.entropy, userContribution: wrong } });
    expect(user.code).toBe(1);
    expect(failedIds(user.result)).toEqual(expect.arrayContaining(["entropy.userContribution", "rpc.request.user"]));

    const providerSide = await verifyFile("tampered-provider.json", { ...proof, entropy: { ...proof.entropy, providerContribution: wrong } });
    expect(providerSide.code).toBe(1);
    expect(failedIds(providerSide.result)).toEqual(expect.arrayContaining(["entropy.revealedValue", "rpc.entropy.origin"]));

    // Values consistent with a made-up provider contribution (Entropy's, and the one mixed with the request block's
    // hash): offline the origin adds up; the chain refuses it.
    const forged = combineRandomValues(proof.entropy.userContribution as Hex, wrong);
    const requestBlock = (proof.entropy as unknown as { requestBlock: { hash: Hex } }).requestBlock;
    const value = await verifyFile("tampered-value.json", { ...proof, entropy: { ...proof.entropy, providerContribution: wrong, revealedValue: forged, value: drawValue(forged, requestBlock.hash) } });
    expect(value.code).toBe(1);
    for (const id of ["entropy.revealedValue", "entropy.value"]) expect(value.result.checks.find((c) => c.id === id)?.status, id).toBe("pass");
    expect(failedIds(value.result)).toEqual(expect.arrayContaining(["rpc.entropy.reveal", "rpc.entropy.origin"]));
  });

  it("a callback that fails for lack of gas is delivered again by the keeper with the same value, requested once", async () => {
    const slug = "v2-retry";
    const winners = ["r-1", "r-2"];
    const transport = http(stack.rpcUrl);
    const deployer = createWalletClient({ account: privateKeyToAccount(ANVIL_KEYS.admin), chain: localChain(stack.rpcUrl, stack.deployment.chainId), transport });
    const setShortfall = async (gas: number) => {
      const hash = await deployer.writeContract({ address: stack.deployment.entropy, abi: TestEntropyV2Abi, functionName: "setCallbackGasShortfall", args: [gas] });
      expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
      expect(await publicClient.readContract({ address: stack.deployment.entropy, abi: TestEntropyV2Abi, functionName: "callbackGasShortfall" })).toBe(gas);
    };
    const requestsBefore = (await entropyRequests()).length;

    const open = await newPushCampaign(slug, winners.length);
    // The capped first callback gets 10,000 gas of its 2,000,000: too little, so it fails with its whole cap "available".
    await setShortfall(Number(CALLBACK_GAS_LIMIT) - 10_000);
    let sequence: bigint;
    try {
      await postWinnersAndPassCutoff(slug, open, winners);
      const requested = await until("entropy requested", async () => {
        const d = await drawing(slug, open.id);
        return d.verification.entropyRequestId !== null ? d : undefined;
      }, 30_000, 250);
      sequence = BigInt(requested.verification.entropyRequestId!);
      const reveal = await provider.waitForReveal(sequence);
      // The provider's reveal succeeded as a transaction and recorded the callback as failed.
      expect(reveal.receipt.status).toBe("success");
      expect((await publicClient.getTransaction({ hash: reveal.hash })).gas).toBe(reveal.estimate);
      const first = parseEventLogs({ abi: TestEntropyV2Abi, logs: reveal.receipt.logs, eventName: "Revealed" });
      expect(first.map((l) => ({ seq: l.args.sequenceNumber, failed: l.args.callbackFailed }))).toEqual([{ seq: sequence, failed: true }]);
      const drawLogs = parseEventLogs({ abi: PrizeDrawAbi, logs: reveal.receipt.logs }).filter((l) => l.address.toLowerCase() === stack.deployment.prizeDraw.toLowerCase());
      expect(drawLogs).toEqual([]); // the callback's effects were reverted
    } finally {
      await setShortfall(0);
    }

    const paid = await waitForStatus(slug, open.id, "paid");
    expect(paid.number).toBe(1);
    expect(paid.needsAttention).toBeNull();
    expect(BigInt(paid.verification.entropyRequestId!)).toBe(sequence);

    const campaignId = toCampaignId(slug);
    const derivedUser = userRandomNumber({ campaignId, number: 1n, slot: drawingSlot(open.id), listCommitment: fingerprint(winners) });
    const value = combineRandomValues(derivedUser, registered.revelation(sequence));
    const drawn = await drawValueAt(publicClient, await requestBlockOf(sequence), value);
    expect(paid.verification.entropy).toBe(drawn);

    // Entropy: the failed reveal (the provider's), then one successful retry (the keeper's, from the operator) with the same value.
    const reveals = await entropyReveals(sequence);
    expect(reveals.map((l) => ({ failed: l.args.callbackFailed, value: l.args.randomNumber, user: l.args.userContribution, provider: l.args.providerContribution }))).toEqual([
      { failed: true, value, user: derivedUser, provider: registered.revelation(sequence) },
      { failed: false, value, user: derivedUser, provider: registered.revelation(sequence) },
    ]);
    const retryTx = await publicClient.getTransaction({ hash: reveals[1]!.transactionHash });
    expect(retryTx.from.toLowerCase()).toBe(stack.deployment.operator.toLowerCase());
    expect(provider.reveals.get(sequence)!.hash).not.toBe(reveals[1]!.transactionHash);

    // One request: one EntropyRequested for this campaign and number, one Entropy Requested with its contribution,
    // and no Entropy request beyond this drawing's.
    const drawRequests = await publicClient.getContractEvents({ address: stack.deployment.prizeDraw, abi: PrizeDrawAbi, eventName: "EntropyRequested", args: { campaignId }, fromBlock: BigInt(stack.deployment.deployBlock), toBlock: "latest" });
    expect(drawRequests.map((l) => ({ number: l.args.number, sequence: l.args.sequence }))).toEqual([{ number: 1n, sequence }]);
    const allRequests = await entropyRequests();
    expect(allRequests.length).toBe(requestsBefore + 1);
    expect(allRequests.filter((l) => l.args.userContribution === derivedUser).map((l) => l.args.sequenceNumber)).toEqual([sequence]);

    const onchain = await publicClient.readContract({ address: stack.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "getDrawing", args: [campaignId, 1n] });
    expect(Number(onchain.status)).toBe(STATUS.Paid);
    expect(onchain.randomValue).toBe(drawn);
    expect(paid.winners.map((w) => w.winner)).toEqual(winners);

    // The proof names the retry as the reveal and verifies against the chain, the failed callback included.
    const proof = await fetchProof(slug, open.id);
    expect(proof.entropy.revealedValue).toBe(value);
    expect(proof.entropy.value).toBe(drawn);
    expect(proof.chain.revealTx).toBe(reveals[1]!.transactionHash);
    const { code, out } = await verifyServedProof(stack, slug, open.id);
    expect(out).toMatch(/^PASS: \d+ checks passed/m);
    expect(code).toBe(0);
    expect(proof.proofVersion).toBe(6);
    expect(out).toContain(`of provider ${registered.address.toLowerCase()} (after 1 failed callback with the same value)`);
    expect(out).toContain("✔ entropy.revealedValue = keccak256(userContribution, providerContribution, 0)");
  });

  it("a request the provider never reveals is re-requested once, in public, after the contract's timeout; its late reveal is ignored and the proof (version 6) shows both", async () => {
    const slug = "v2-rerequest";
    const winners = ["q-1", "q-2"];
    const campaignId = toCampaignId(slug);
    const timeout = BigInt(stack.deployment.revealTimeoutBlocks!);
    expect(await publicClient.readContract({ address: stack.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "revealTimeoutBlocks" })).toBe(timeout);
    // The provider loses this request: an outage while it is made, then the sequence is never revealed.
    provider.setOnline(false);
    const open = await newPushCampaign(slug, winners.length);
    await postWinnersAndPassCutoff(slug, open, winners);
    const requested = await until("entropy requested", async () => {
      const d = await drawing(slug, open.id);
      return d.verification.entropyRequestId !== null ? d : undefined;
    }, 30_000, 250);
    const first = BigInt(requested.verification.entropyRequestId!);
    provider.withhold(first);
    const [commitEvent] = await publicClient.getContractEvents({ address: stack.deployment.prizeDraw, abi: PrizeDrawAbi, eventName: "EntropyRequested", args: { campaignId }, fromBlock: BigInt(stack.deployment.deployBlock), toBlock: "latest" });
    const commitBlock = commitEvent!.blockNumber;

    // Before the timeout nobody may ask again: the keeper keeps waiting, and the operator's own re-request is refused.
    const operatorReRequest = () =>
      publicClient.simulateContract({ address: stack.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "reRequest", args: [campaignId, 1n, 10n ** 16n], value: 10n ** 16n, account: stack.deployment.operator });
    await expect(operatorReRequest()).rejects.toThrow(/RevealNotTimedOut/);
    expect((await drawing(slug, open.id)).verification.entropyRequestId).toBe(String(first));
    // Past it (blocks mined one at a time, as Ponder needs), the keeper re-requests the batch once, in public.
    const head = await publicClient.getBlockNumber({ cacheTime: 0 });
    await mineBlocks(stack.rpcUrl, Math.max(0, Number(commitBlock + timeout + 1n - head)));
    const reRequested = await until("re-requested", async () => {
      const d = await drawing(slug, open.id);
      return d.verification.entropyRequestId !== String(first) ? d : undefined;
    }, 60_000, 250);
    const second = BigInt(reRequested.verification.entropyRequestId!);
    const [event] = await publicClient.getContractEvents({ address: stack.deployment.prizeDraw, abi: PrizeDrawAbi, eventName: "EntropyReRequested", args: { campaignId }, fromBlock: commitBlock, toBlock: "latest" });
    const reRequestUser = keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint64" }], [registered.address, first]));
    expect(event!.args).toMatchObject({ number: 1n, previousSequence: first, sequence: second, userRandomNumber: reRequestUser });
    expect(event!.args.previousProvider!.toLowerCase()).toBe(registered.address.toLowerCase());
    expect(event!.args.by!.toLowerCase()).toBe(stack.deployment.operator.toLowerCase());
    expect(event!.blockNumber).toBeGreaterThan(commitBlock + timeout);
    // Once only: a second re-request is refused (the provider, still offline, has not revealed the new one yet).
    await expect(operatorReRequest()).rejects.toThrow(/AlreadyReRequested/);
    provider.setOnline(true);

    const paid = await waitForStatus(slug, open.id, "paid");
    const value = combineRandomValues(reRequestUser, registered.revelation(second));
    // Mixed with the hash of the re-request's block.
    expect(await requestBlockOf(second)).toBe(event!.blockNumber);
    const drawn = await drawValueAt(publicClient, event!.blockNumber, value);
    expect(paid.verification.entropy).toBe(drawn);
    expect(BigInt(paid.verification.entropyRequestId!)).toBe(second);

    // The lost request, revealed late, is ignored: the drawing keeps the re-request's value.
    provider.release(first);
    const late = await provider.waitForReveal(first);
    expect(late.receipt.status).toBe("success");
    const ignored = parseEventLogs({ abi: PrizeDrawAbi, logs: late.receipt.logs, eventName: "EntropyCallbackIgnored" });
    expect(ignored.map((l) => l.args.sequence)).toEqual([first]);
    const onchain = await publicClient.readContract({ address: stack.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "getDrawing", args: [campaignId, 1n] });
    expect(Number(onchain.status)).toBe(STATUS.Paid);
    expect(onchain.randomValue).toBe(drawn);

    // The proof names both requests, and the served verifier checks them against the chain.
    const proof = (await fetchProof(slug, open.id)) as ProofV3 & { entropy: { reRequest?: { previousRequestId: string; previousProvider: string; timeoutBlocks: number; requestTx: string } } };
    expect(proof.proofVersion).toBe(6);
    expect(proof.entropy.requestId).toBe(String(second));
    expect(proof.entropy.userContribution).toBe(reRequestUser);
    expect(proof.entropy.reRequest).toMatchObject({ previousRequestId: String(first), previousProvider: registered.address.toLowerCase(), timeoutBlocks: Number(timeout), requestTx: event!.transactionHash });
    const { code, out } = await verifyServedProof(stack, slug, open.id);
    expect(out).toMatch(/^PASS: \d+ checks passed/m);
    expect(code).toBe(0);
    expect(out).not.toContain("✘");
  }, 240_000);

  it("the test provider met no errors it could not recover from", () => {
    // Every request got exactly one reveal from the provider (the lost one late); a transient error would have been retried.
    expect([...provider.reveals.keys()].length).toBe(4);
    expect(provider.errors.filter((e) => !/fetch failed|ECONNREFUSED/.test(e))).toEqual([]);
  });
});
