// The service's chain port against real parts: anvil (with a state file), the deployed contracts and Ponder.
// A full commit/request/reveal/settle/payout through ChainPort, every step read back through IndexerClient
// as it happens; named reverts; anvil restarted from its state file with chain and indexer agreeing afterwards.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256, toHex } from "viem";
import { PrizeDrawAbi } from "../../api/src/chain/abis.js";
import { deployLocal } from "../../api/src/chain/deploy.js";
import type { DeploymentRecord } from "../../api/src/chain/deployment.js";
import { IndexerClient } from "../../api/src/chain/indexer.js";
import { ChainPort, ChainRevertError, type CommitInput } from "../../api/src/chain/port.js";
import { ANVIL_KEYS } from "../../api/src/config.js";
import { DEFAULT_PRIZE_TABLE, computePrizes, drawingSlot, fingerprint, toCampaignId, userRandomNumber } from "../../api/src/draw/index.js";
import { drawValueAt } from "../support/drawValue.js";
import { freePort, jsonRpc, startAnvil, startPonder, stop, until, type Proc } from "../support/processes.js";
import { reorgFrom } from "../support/reorg.js";

const dataDir = mkdtempSync(path.join(tmpdir(), "prizedraw-port-test-"));
const stateFile = path.join(dataDir, "anvil-state.json");
let anvil: Proc | undefined;
let ponder: Proc | undefined;
let rpcUrl: string;
let chainPort: number;
let deployment: DeploymentRecord;
let port: ChainPort;
let indexer: IndexerClient;

const campaignId = toCampaignId("port-test");
const tableId = toHex("default", { size: 32 });
const winners = ["w-1", "w-2", "w-3", "w-4", "w-5"];
const payoutWallet = toHex(1n, { size: 20 });
/** Draw times strictly increase per campaign: drawing n is drawn n hours from the test's start. */
const startedAt = Math.floor(Date.now() / 1000);

/** A winner draw's commit: each drawing its own id (slot) and a later draw time than the one before. */
function winnerCommit(number: bigint, listCommitment: `0x${string}`, winnersExpected: number): CommitInput {
  return {
    campaignId, number, slot: drawingSlot(`drw_port_${number}`), drawAt: startedAt + Number(number) * 3600,
    kind: 0, listCommitment, winnersExpected, entrantCount: 0, totalWeight: 0n, tableId, tableVersion: 1,
  };
}

/** Polls the indexer until `check` accepts what it mirrors (a liveness bound, not a speed target: see npm run bench). */
async function indexed<T>(label: string, read: () => Promise<T | null>, check: (value: T) => boolean): Promise<T> {
  return until(label, async () => {
    const value = await read();
    return value !== null && check(value) ? value : undefined;
  }, 60_000, 50);
}

beforeAll(async () => {
  chainPort = await freePort();
  rpcUrl = `http://127.0.0.1:${chainPort}`;
  anvil = startAnvil(chainPort, stateFile, path.join(dataDir, "anvil.log"));
  await until("anvil", async () => ((await jsonRpc<string>(rpcUrl, "eth_chainId")) ? true : undefined), 20_000, 100, anvil);
  deployment = await deployLocal({ rpcUrl, dataDir });
  const indexerPort = await freePort();
  ponder = startPonder({ port: indexerPort, schema: "port_test", env: { PRIZEDRAW_DATA_DIR: dataDir }, log: path.join(dataDir, "ponder.log") });
  indexer = new IndexerClient(`http://127.0.0.1:${indexerPort}`);
  await until("ponder ready", async () => ((await indexer.head()).ready ? true : undefined), 120_000, 200, ponder);
  port = new ChainPort({ rpcUrl, deployment, operatorKey: ANVIL_KEYS.operator });
}, 180_000);

afterAll(async () => {
  await stop(ponder);
  await stop(anvil);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("ChainPort and IndexerClient on a real chain and indexer", () => {
  it("runs commit, request, reveal, settle and payout, each visible through the indexer", async () => {
    const amounts = DEFAULT_PRIZE_TABLE.tiers.map((t) => BigInt(t.amountCents));
    const weights = DEFAULT_PRIZE_TABLE.tiers.map((t) => BigInt(t.weight));
    await port.publishPrizeTable(tableId, 1, amounts, weights);
    await port.registerCampaign(campaignId, payoutWallet, 50_000n, { cents: 0n, periodSeconds: 0n });

    const commitment = fingerprint(winners);
    const commit1 = winnerCommit(1n, commitment, winners.length);
    const commitReceipt = await port.commitAndRequest([commit1]);
    const requested = port.events(commitReceipt).find((e) => e.eventName === "EntropyRequested");
    expect(requested?.eventName).toBe("EntropyRequested");
    const sequence = requested!.eventName === "EntropyRequested" ? requested!.args.sequence : 0n;
    const provider = requested!.eventName === "EntropyRequested" ? requested!.args.provider : "0x";
    expect(provider.toLowerCase()).toBe(deployment.entropyProvider.toLowerCase());
    const committed = await indexed("commit indexed", () => indexer.drawing(campaignId, 1n), (d) => d.drawing.sequence !== null);
    expect(committed.drawing).toMatchObject({
      status: "requested", listCommitment: commitment, winnersExpected: 5, sequence, commitTx: commitReceipt.transactionHash,
      slot: commit1.slot, drawAt: BigInt(commit1.drawAt), payoutWallet, provider: provider.toLowerCase(),
      userRandomNumber: userRandomNumber({ campaignId, number: 1n, slot: commit1.slot, listCommitment: commitment }),
    });
    const onchain = await port.getDrawing(campaignId, 1n);
    expect(onchain.payoutWallet.toLowerCase()).toBe(payoutWallet);

    // A retried commit is refused by name, not sent twice.
    await expect(port.commitAndRequest([winnerCommit(1n, commitment, 5)]))
      .rejects.toMatchObject({ code: "chain_revert", errorName: "NumberOutOfSequence" });

    const randomValue = keccak256(toHex("port-test-entropy"));
    const revealReceipt = await port.revealMock(sequence, randomValue);
    expect(revealReceipt.status).toBe("success");
    const settled = await indexed("settlement indexed", () => indexer.drawing(campaignId, 1n), (d) => d.drawing.status === "settled");
    // The prizes follow from Entropy's value mixed with the hash of the commit's block.
    const value = await drawValueAt(port.publicClient, commitReceipt.blockNumber, randomValue);
    const expected = computePrizes({ entropy: value, campaignId, number: 1n, table: DEFAULT_PRIZE_TABLE, count: 5, largePrizeThresholdCents: 50_000 });
    expect(settled.drawing).toMatchObject({ entropyValue: randomValue, randomValue: value });
    expect(settled.drawing.revealTx).toBe(revealReceipt.transactionHash);
    expect(settled.prizes.map((p) => ({ position: p.position, randomValue: p.randomValue, roll: Number(p.roll), tier: p.tier, amountCents: Number(p.amountCents), held: p.held }))).toEqual(expected);

    await expect(port.settle(campaignId, 1n, 10n)).rejects.toMatchObject({ errorName: "NothingToSettle" });
    const payoutReceipt = await port.payout(campaignId, 1n);
    const paid = await indexed("payout indexed", () => indexer.drawing(campaignId, 1n), (d) => d.drawing.status === "paid");
    const cents = expected.filter((p) => !p.held).reduce((a, p) => a + p.amountCents, 0);
    expect(paid.drawing.payoutCents).toBe(BigInt(cents));
    expect(paid.drawing.payoutTx).toBe(payoutReceipt.transactionHash);
  });

  it("finishes a settlement the callback budget did not cover with settle()", async () => {
    const count = 400; // beyond what the 2,000,000-gas callback budget settles
    const receipt = await port.commitAndRequest([winnerCommit(2n, fingerprint(Array.from({ length: count }, (_, i) => `w-${i}`)), count)]);
    const requested = port.events(receipt).find((e) => e.eventName === "EntropyRequested");
    const sequence = requested?.eventName === "EntropyRequested" ? requested.args.sequence : 0n;
    await port.revealMock(sequence, keccak256(toHex("budget")));
    const partial = await port.getDrawing(campaignId, 2n);
    // The callback settles exactly the positions its commit paid gas for: (callbackGasLimit - 70,000) / 8,000 for
    // a batch of one with more prizes than that.
    const gasLimit = await port.publicClient.readContract({ address: deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "callbackGasLimit" });
    expect(partial.callbackPositions).toBe(Math.floor((gasLimit - 70_000) / 8_000));
    expect(partial.settledCount).toBe(partial.callbackPositions);
    expect(partial.settledCount).toBeGreaterThan(0);
    expect(partial.settledCount).toBeLessThan(count);
    expect(partial.status).toBe(2); // Revealed
    await port.settle(campaignId, 2n, 1_000n);
    const done = await indexed("settled by settle()", () => indexer.drawing(campaignId, 2n), (d) => d.drawing.status === "settled");
    expect(done.prizes).toHaveLength(count);
    expect(done.prizes.map((p) => p.position)).toEqual(Array.from({ length: count }, (_, i) => i));
  });

  it("names the contract's error for a refused call and keeps sending afterwards", async () => {
    const error = await port.payout(campaignId, 99n).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainRevertError);
    expect(error).toMatchObject({ errorName: "DrawingNotFound", functionName: "payout" });
    // The queue is not stuck behind the failure.
    await expect(port.setLargePrizeThreshold(campaignId, 60_000n)).resolves.toMatchObject({ status: "success" });
  });

  it("two processes' ports sharing the operator key both get their transactions through (nonce taken: sent again)", async () => {
    // The CLI signs held-prize decisions with the operator key while the service's keeper does too; each has its
    // own ChainPort, so both can take the same pending nonce at once.
    const other = new ChainPort({ rpcUrl, deployment, operatorKey: ANVIL_KEYS.operator });
    const amounts = DEFAULT_PRIZE_TABLE.tiers.map((t) => BigInt(t.amountCents));
    const weights = DEFAULT_PRIZE_TABLE.tiers.map((t) => BigInt(t.weight));
    const ids = [0, 1, 2, 3].map((i) => toHex(`nonce-race-${i}`, { size: 32 }));
    const receipts = await Promise.all(ids.map((id, i) => (i % 2 === 0 ? port : other).publishPrizeTable(id, 1, amounts, weights)));
    expect(receipts.map((r) => r.status)).toEqual(["success", "success", "success", "success"]);
    for (const id of ids) {
      const [, published] = await port.publicClient.readContract({ address: deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "getPrizeTable", args: [id, 1] });
      expect(published).toEqual(amounts);
    }
  });

  it("keeps several transactions in flight in one block, and none waits forever behind one the node dropped", async () => {
    const operator = port.operatorAddress;
    const threshold = async () => (await port.getCampaign(campaignId)).largePrizeThresholdCents;
    const quick = new ChainPort({ rpcUrl, deployment, operatorKey: ANVIL_KEYS.operator, receiptTimeoutMs: 3_000 });
    const inMempool = (count: number) =>
      until(`${count} transactions in the mempool`, async () => (Number((await jsonRpc<{ pending: string }>(rpcUrl, "txpool_status")).pending) >= count ? true : undefined), 20_000, 50);
    // Mining paused: three sends go out without waiting for each other's receipts (nonces n, n+1, n+2).
    const pause = async () => {
      await jsonRpc(rpcUrl, "evm_setAutomine", [false]);
      await jsonRpc(rpcUrl, "evm_setIntervalMining", [0]);
    };
    const resume = async () => {
      await jsonRpc(rpcUrl, "evm_setAutomine", [true]);
      await jsonRpc(rpcUrl, "evm_setIntervalMining", [1]);
    };
    await pause();
    let receipts: { blockNumber: bigint; status: string }[];
    try {
      const sends = [70_001n, 70_002n, 70_003n].map((cents) => quick.setLargePrizeThreshold(campaignId, cents));
      await inMempool(3);
      await jsonRpc(rpcUrl, "evm_mine");
      receipts = await Promise.all(sends);
    } finally {
      await resume();
    }
    expect(receipts.map((r) => r.status)).toEqual(["success", "success", "success"]);
    expect(new Set(receipts.map((r) => r.blockNumber)).size).toBe(1);
    // Independent sends take nonces in the order their simulations finish, not the order of the calls.
    expect([70_001n, 70_002n, 70_003n]).toContain(await threshold());

    await pause();
    let outcomes: unknown[] = [];
    try {
      const first = Number(await jsonRpc<string>(rpcUrl, "eth_getTransactionCount", [operator, "latest"]));
      const sends = [70_004n, 70_005n, 70_006n].map((cents) => quick.setLargePrizeThreshold(campaignId, cents).catch((e: unknown) => e));
      await inMempool(3);
      const content = await jsonRpc<{ pending: Record<string, Record<string, { hash: string }>> }>(rpcUrl, "txpool_content");
      const mine = Object.entries(content.pending).find(([from]) => from.toLowerCase() === operator.toLowerCase())?.[1] ?? {};
      expect(Object.keys(mine).map(Number).sort()).toEqual([first, first + 1, first + 2]);
      // The node drops the lowest nonce's transaction (anvil drops the two queued behind it with it).
      await jsonRpc(rpcUrl, "anvil_dropTransaction", [mine[String(first)]!.hash]);
      await resume();
      outcomes = await Promise.all(sends);
    } finally {
      await resume();
    }
    // Every wait ends: the dropped ones give up after their timeout (the keeper sends each step again next
    // cycle, reading the chain first), and none leaves a gap that later transactions wait behind.
    expect(outcomes[0]).toMatchObject({ code: "chain_unavailable" });
    for (const outcome of outcomes) expect(outcome).toSatisfy((o: { code?: string; status?: string }) => o.code === "chain_unavailable" || o.status === "success");
    await expect(quick.setLargePrizeThreshold(campaignId, 70_007n)).resolves.toMatchObject({ status: "success" });
    expect(await threshold()).toBe(70_007n);
    await expect(port.setLargePrizeThreshold(campaignId, 70_008n)).resolves.toMatchObject({ status: "success" });
  });

  it("after a reorg takes back several of its mined transactions, the next send is mined, not queued behind the gap", async () => {
    // The default receipt timeout (180 s): a send numbered from before the reorg would outwait this test.
    const sender = new ChainPort({ rpcUrl, deployment, operatorKey: ANVIL_KEYS.operator });
    const operator = sender.operatorAddress;
    const mined = async () => Number(await jsonRpc<string>(rpcUrl, "eth_getTransactionCount", [operator, "latest"]));
    const receipts = [];
    for (const cents of [71_001n, 71_002n, 71_003n]) receipts.push(await sender.setLargePrizeThreshold(campaignId, cents));
    const before = await mined();
    // anvil does not put a reorg's transactions back in its pool: the account's count goes back by all three.
    const reorg = await reorgFrom(rpcUrl, receipts[0]!.blockNumber);
    expect(await mined()).toBe(before - 3);
    const receipt = await sender.setLargePrizeThreshold(campaignId, 71_004n);
    expect(receipt.status).toBe("success");
    expect(receipt.blockNumber).toBeGreaterThan(reorg.head);
    expect((await port.getCampaign(campaignId)).largePrizeThresholdCents).toBe(71_004n);
    expect(await mined()).toBe(before - 2);
    // The port's next sends go on from there.
    await expect(sender.setLargePrizeThreshold(campaignId, 71_005n)).resolves.toMatchObject({ status: "success" });
    await expect(port.setLargePrizeThreshold(campaignId, 71_006n)).resolves.toMatchObject({ status: "success" });
  });

  it("after anvil restarts from its state file, the chain and the indexer still agree", async () => {
    const before = await port.getDrawing(campaignId, 1n);
    const blockBefore = await port.blockNumber();
    await stop(anvil);
    anvil = startAnvil(chainPort, stateFile, path.join(dataDir, "anvil2.log"));
    await until("anvil back", async () => ((await port.blockNumber()) >= 0n ? true : undefined), 20_000, 100, anvil);
    expect(await port.blockNumber()).toBeGreaterThanOrEqual(blockBefore);
    const after = await port.getDrawing(campaignId, 1n);
    expect(after.randomValue).toBe(before.randomValue);
    expect(after.status).toBe(4); // Paid

    // New activity after the restart reaches the indexer, and its view of drawing 1 matches the chain's.
    const receipt = await port.setPayoutWallet(campaignId, toHex(2n, { size: 20 }));
    expect(receipt.status).toBe("success");
    const head = await until("indexer past the restart", async () => {
      const h = await indexer.head();
      return h.blockNumber !== null && h.blockNumber >= receipt.blockNumber ? h : undefined;
    }, 30_000, 200);
    expect(head.ready).toBe(true);
    const mirrored = await indexer.drawing(campaignId, 1n);
    expect(mirrored?.drawing.randomValue).toBe(after.randomValue);
    expect(mirrored?.drawing.status).toBe("paid");
    expect(mirrored?.drawing.payoutCents).toBe(BigInt(after.payoutCents));
    // The campaign's new wallet applies to later commits: drawing 1 keeps the wallet of its commit.
    expect(mirrored?.drawing.payoutWallet).toBe(payoutWallet);
    expect((await port.getDrawing(campaignId, 1n)).payoutWallet.toLowerCase()).toBe(payoutWallet);
  });
});

