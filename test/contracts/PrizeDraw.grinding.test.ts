// Anti-grinding: a drawing's value is Entropy's value mixed with the hash of the block that holds its request
// (DrawMath.drawValue), so an operator that knows the provider's future values cannot pick the outcome by choosing
// a slot, a moment or a sequence number; a reveal that comes too late to read that hash is discarded in public.
import { expect } from "chai";
import { ethers, network } from "hardhat";
import { loadFixture, mine, takeSnapshot, time } from "@nomicfoundation/hardhat-network-helpers";
import { AbiCoder, keccak256, ZeroHash, type ContractTransactionReceipt } from "ethers";
import type { DrawMathHarness, TestStablecoin } from "../../typechain-types";
import {
  BLOCKHASH_WINDOW,
  DEFAULT_TABLE,
  STATUS,
  awarded,
  blockHashOf,
  commitArgs,
  deployFixture,
  deployPrizeDraw,
  redeployFixture,
  drawValueOf,
  expectedPrizes,
  expectedRoll,
  findEvents,
  randomBytes32,
  revealedDrawValue,
  sendCommit,
  campaignIdOf,
  worstCaseOf,
  type CommitArgs,
} from "./helpers";
import { combineRandomValues, deployTestEntropy } from "./entropyV2";

const THRESHOLD = 50_000n; // the fixture campaign's large-prize threshold (cents)
/** A reveal timeout well beyond BLOCKHASH_WINDOW, so a re-request allowed by a discarded reveal shows as such. */
const LONG_TIMEOUT = 1_000;

function prizesOf(value: string, campaignId: string, num: bigint, count: number) {
  return expectedPrizes(value, campaignId, num, count, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, THRESHOLD);
}

/** Mines empty blocks so that the next transaction is mined in block `block` (which must be in the future). */
async function nextTransactionIn(block: number): Promise<void> {
  const latest = await ethers.provider.getBlockNumber();
  expect(block, "the target block is in the future").to.be.greaterThan(latest);
  if (block - 1 > latest) await mine(block - 1 - latest);
}

/** MockEntropy, PrizeDraw and DrawMathHarness (for DrawMath.drawValue itself). */
async function mockFixture() {
  const f = await deployFixture();
  const harness = (await (await ethers.getContractFactory("DrawMathHarness")).deploy()) as unknown as DrawMathHarness;
  return { ...f, harness };
}
type Mock = Awaited<ReturnType<typeof mockFixture>>;

/** The same, with a reveal timeout of LONG_TIMEOUT blocks. */
async function longTimeoutFixture() {
  return redeployFixture(await deployFixture(), { revealTimeoutBlocks: LONG_TIMEOUT });
}

type WithMock = Pick<Mock, "draw" | "operator" | "campaignId" | "mock" | "stranger" | "provider">;

/** Commits drawing `num` of the fixture's campaign as the operator; returns its sequence and the commit's receipt. */
async function commitOne(f: WithMock, num: number, args?: CommitArgs) {
  const receipt = (await (await sendCommit(f, args ?? commitArgs(f.campaignId, num))).wait())!;
  const sequence = findEvents(f, receipt, "EntropyRequested")[0].args.sequence as bigint;
  return { receipt, sequence };
}

/** MockEntropy reveals `sequence` with `value` (sent by a stranger: anyone may). */
async function mockReveal(f: WithMock, sequence: bigint, value: string): Promise<ContractTransactionReceipt> {
  return (await (await f.mock.connect(f.stranger).mockReveal(f.provider.address, sequence, value)).wait())!;
}

describe("PrizeDraw against grinding: the value mixes in the hash of the request's block", () => {
  describe("the value", () => {
    it("is drawValue(Entropy's value, hash of the commit's block), whatever block the reveal comes in; every prize, getDrawing and prizeAt follow from it", async () => {
      const f = await loadFixture(mockFixture);
      const { receipt: committed, sequence } = await commitOne(f, 1, commitArgs(f.campaignId, 1, { winnersExpected: 12 }));
      const commitBlockHash = (await ethers.provider.getBlock(committed.blockNumber))!.hash!;
      // The reveal comes 100 blocks later: neither its block's hash nor its parent's counts, only the commit's.
      await mine(100);
      const entropyValue = randomBytes32();
      const revealed = await mockReveal(f, sequence, entropyValue);
      expect(revealed.blockNumber).to.equal(committed.blockNumber + 101);

      const value = drawValueOf(entropyValue, commitBlockHash);
      expect(value).to.equal(keccak256(AbiCoder.defaultAbiCoder().encode(["bytes32", "bytes32"], [entropyValue, commitBlockHash])));
      expect(await f.harness.drawValue(entropyValue, commitBlockHash)).to.equal(value);
      expect(value).to.not.equal(entropyValue);
      expect(findEvents(f, revealed, "EntropyRevealed").map((e) => [...e.args])).to.deep.equal([
        [f.campaignId, 1n, f.provider.address, sequence, entropyValue, commitBlockHash, value],
      ]);
      expect(await revealedDrawValue(f, revealed, entropyValue, committed.blockNumber)).to.equal(value);
      const revealBlock = (await ethers.provider.getBlock(revealed.blockNumber))!;
      expect([revealBlock.hash, revealBlock.parentHash]).to.not.include(commitBlockHash);

      const prizes = prizesOf(value, f.campaignId, 1n, 12);
      expect(awarded(f, revealed)).to.deep.equal(prizes);
      // Entropy's value alone would have drawn other rolls.
      expect(prizesOf(entropyValue, f.campaignId, 1n, 12).map((p) => p.randomValue)).to.not.deep.equal(prizes.map((p) => p.randomValue));
      const d = await f.draw.getDrawing(f.campaignId, 1);
      expect([d.status, d.randomValue, d.settledCount]).to.deep.equal([STATUS.Settled, value, 12n]);
      for (const p of [0n, 7n, 11n]) {
        const prize = await f.draw.prizeAt(f.campaignId, 1, p);
        expect([prize.randomValue, prize.roll]).to.deep.equal([expectedRoll(value, f.campaignId, 1n, p, 100_000n).randomValue, prizes[Number(p)].roll]);
      }
    });

    it("of a re-requested drawing is drawValue(the new request's Entropy value, hash of the re-request's block), not the commit's", async () => {
      const f = await loadFixture(mockFixture);
      const { receipt: committed, sequence } = await commitOne(f, 1);
      await nextTransactionIn(committed.blockNumber + Number(await f.draw.revealTimeoutBlocks()) + 1);
      const reRequested = (await (await f.draw.connect(f.operator).reRequest(f.campaignId, 1, 0)).wait())!;
      const newSequence = findEvents(f, reRequested, "EntropyReRequested")[0].args.sequence as bigint;
      expect(newSequence).to.equal(sequence + 1n);
      await mine(3);
      const entropyValue = randomBytes32();
      const revealed = await mockReveal(f, newSequence, entropyValue);

      const reRequestBlockHash = (await ethers.provider.getBlock(reRequested.blockNumber))!.hash!;
      const value = drawValueOf(entropyValue, reRequestBlockHash);
      expect(value).to.not.equal(drawValueOf(entropyValue, await blockHashOf(committed.blockNumber)));
      expect(findEvents(f, revealed, "EntropyRevealed").map((e) => [...e.args])).to.deep.equal([
        [f.campaignId, 1n, f.provider.address, newSequence, entropyValue, reRequestBlockHash, value],
      ]);
      expect(awarded(f, revealed)).to.deep.equal(prizesOf(value, f.campaignId, 1n, 3));
      expect((await f.draw.getDrawing(f.campaignId, 1)).randomValue).to.equal(value);
    });
  });

  describe("an operator that knows the provider's value", () => {
    /** PrizeDraw on TestEntropyV2: Entropy's value is keccak256(user contribution, provider's hash-chain value). */
    async function v2Fixture() {
      const [admin, operator, guardian, stranger, wallet, deployer] = await ethers.getSigners();
      const t = await deployTestEntropy(deployer, { feeInWei: 1_000n });
      const token = (await (await ethers.getContractFactory("TestStablecoin")).deploy()) as unknown as TestStablecoin;
      const { draw } = await deployPrizeDraw({ entropy: await t.entropy.getAddress(), token, admin, operator, guardian });
      const campaignId = campaignIdOf("summer-daily");
      await draw.connect(operator).registerCampaign(campaignId, wallet.address, THRESHOLD, 0, 0);
      return { ...t, operator, stranger, draw, campaignId };
    }

    it("cannot fix the outcome by choosing the slot's moment: the same commit (slot, list, sequence, Entropy value) in another block, or in the same block number at another time, draws another value", async () => {
      const f = await loadFixture(v2Fixture);
      // One commit, always the same: the operator knows its user contribution and, colluding with the provider,
      // the provider's value for the sequence it will get, so it knows Entropy's value before signing.
      const args = commitArgs(f.campaignId, 1, { winnersExpected: 8, maxFee: 10n ** 16n });
      const start = await takeSnapshot();
      const latest = await time.latest();

      type Outcome = { block: number; hash: string; sequence: bigint; user: string; entropyValue: string; value: string; rolls: string[] };
      async function commitAndReveal(): Promise<Outcome> {
        const committed = (await (await sendCommit(f, args)).wait())!;
        const [requested] = findEvents(f, committed, "EntropyRequested");
        const [sequence, user] = [requested.args.sequence as bigint, requested.args.userRandomNumber as string];
        const revealed = (await (await f.reveal(sequence, user, { from: f.stranger })).wait())!;
        const entropyValue = combineRandomValues(user, f.revelation(sequence));
        const value = await revealedDrawValue(f, revealed, entropyValue, committed.blockNumber);
        const rolls = awarded(f, revealed).map((p) => p.randomValue);
        expect(rolls).to.deep.equal(prizesOf(value, f.campaignId, 1n, 8).map((p) => p.randomValue));
        return { block: committed.blockNumber, hash: (await ethers.provider.getBlock(committed.blockNumber))!.hash!, sequence, user, entropyValue, value, rolls };
      }

      await time.setNextBlockTimestamp(latest + 10);
      const first = await commitAndReveal();
      // The same block number, ten seconds later.
      await start.restore();
      await time.setNextBlockTimestamp(latest + 20);
      const later = await commitAndReveal();
      // One block further: a stranger's transaction first.
      await start.restore();
      await time.setNextBlockTimestamp(latest + 10);
      await (await f.stranger.sendTransaction({ to: f.stranger.address, value: 1n })).wait();
      const nextBlock = await commitAndReveal();

      expect(later.block).to.equal(first.block);
      expect(nextBlock.block).to.equal(first.block + 1);
      const outcomes = [first, later, nextBlock];
      // What the operator and the provider control or know in advance is the same each time...
      for (const o of outcomes) expect([o.sequence, o.user, o.entropyValue]).to.deep.equal([first.sequence, first.user, first.entropyValue]);
      // ... what they do not (the block's hash) differs, and so do the value and every roll.
      expect(new Set(outcomes.map((o) => o.hash)).size).to.equal(3);
      expect(new Set(outcomes.map((o) => o.value)).size).to.equal(3);
      for (let p = 0; p < 8; p++) expect(new Set(outcomes.map((o) => o.rolls[p])).size).to.equal(3);
    });
  });

  describe(`a reveal more than BLOCKHASH_WINDOW (${BLOCKHASH_WINDOW}) blocks after its request`, () => {
    it("the window is 256 blocks: a reveal in the 256th block after the request settles it with the request block's hash; in the 257th it is discarded (EntropyRevealTooLate), nothing used or stored", async () => {
      const f = await loadFixture(longTimeoutFixture);
      expect(await f.draw.BLOCKHASH_WINDOW()).to.equal(BigInt(BLOCKHASH_WINDOW));
      const { receipt: committed, sequence } = await commitOne(f, 1);
      const requestBlock = committed.blockNumber;
      const owed = (await f.vault.balances()).owedCents;
      expect(owed).to.equal(worstCaseOf(DEFAULT_TABLE.amounts, THRESHOLD, 3).totalCents);
      const entropyValue = randomBytes32();
      const beforeReveal = await takeSnapshot();

      // The last block that can read the request block's hash.
      await nextTransactionIn(requestBlock + BLOCKHASH_WINDOW);
      const inTime = await mockReveal(f, sequence, entropyValue);
      expect(inTime.blockNumber).to.equal(requestBlock + 256);
      const value = await revealedDrawValue(f, inTime, entropyValue, requestBlock);
      expect(value).to.equal(drawValueOf(entropyValue, await blockHashOf(requestBlock)));
      expect(awarded(f, inTime)).to.deep.equal(prizesOf(value, f.campaignId, 1n, 3));
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(STATUS.Settled);

      // One block later: blockhash is zero, the reveal is discarded.
      await beforeReveal.restore();
      await nextTransactionIn(requestBlock + BLOCKHASH_WINDOW + 1);
      const late = await f.mock.connect(f.stranger).mockReveal(f.provider.address, sequence, entropyValue);
      await expect(late).to.emit(f.draw, "EntropyRevealTooLate").withArgs(f.provider.address, sequence, requestBlock, entropyValue);
      const lateReceipt = (await late.wait())!;
      expect(lateReceipt.blockNumber).to.equal(requestBlock + 257);
      for (const name of ["EntropyRevealed", "PrizeAwarded", "DrawingSettled", "EntropyCallbackIgnored"]) {
        expect(findEvents(f, lateReceipt, name), name).to.have.length(0);
      }
      const d = await f.draw.getDrawing(f.campaignId, 1);
      expect([d.status, d.randomValue, d.settledCount, d.sequence]).to.deep.equal([STATUS.Requested, ZeroHash, 0n, sequence]);
      await expect(f.draw.settle(f.campaignId, 1, 10)).to.be.revertedWithCustomError(f.draw, "NotRevealed").withArgs(f.campaignId, 1);
      // Still owed its worst case: nothing was drawn.
      expect((await f.vault.balances()).owedCents).to.equal(owed);
      // Entropy forgot the request (the callback returned): it cannot be revealed again.
      expect((await f.mock.getRequestV2(f.provider.address, sequence)).sequenceNumber).to.equal(0n);
      await expect(f.mock.mockReveal(f.provider.address, sequence, entropyValue)).to.be.revertedWith("Request not found");
    });

    it("a reveal in the request's own block cannot read its hash either (blockhash of the current block is zero): discarded the same way, with that block as requestBlock", async () => {
      const f = await loadFixture(longTimeoutFixture);
      const sequence = (await f.mock.getProviderInfoV2(f.provider.address)).sequenceNumber; // the one the commit will get
      const entropyValue = randomBytes32();
      await network.provider.send("evm_setAutomine", [false]);
      try {
        // Explicit gas limits: an estimate would run the reveal before the request exists.
        await sendCommit(f, { ...commitArgs(f.campaignId, 1), maxFee: 10n ** 16n });
        await f.mock.connect(f.stranger).mockReveal(f.provider.address, sequence, entropyValue, { gasLimit: 2_000_000 });
        await mine(1);
      } finally {
        await network.provider.send("evm_setAutomine", [true]);
      }
      const block = await ethers.provider.getBlock("latest", true);
      expect(block!.prefetchedTransactions).to.have.length(2);
      const [commitReceipt, revealReceipt] = await Promise.all(block!.prefetchedTransactions.map((tx) => ethers.provider.getTransactionReceipt(tx.hash)));
      expect([commitReceipt!.status, revealReceipt!.status]).to.deep.equal([1, 1]);
      expect(findEvents(f, commitReceipt!, "EntropyRequested")[0].args.sequence).to.equal(sequence);
      expect(findEvents(f, revealReceipt!, "EntropyRevealTooLate").map((e) => [...e.args])).to.deep.equal([
        [f.provider.address, sequence, BigInt(block!.number), entropyValue],
      ]);
      expect(findEvents(f, revealReceipt!, "EntropyRevealed")).to.have.length(0);
      const d = await f.draw.getDrawing(f.campaignId, 1);
      expect([d.status, d.randomValue]).to.deep.equal([STATUS.Requested, ZeroHash]);
      // Entropy forgot it: the re-request is allowed at once.
      await expect(f.draw.connect(f.operator).reRequest(f.campaignId, 1, 0)).to.emit(f.draw, "EntropyReRequested");
    });

    it("after a discarded reveal the operator's re-request is accepted at once (long before revealTimeoutBlocks), and the new request's reveal in time settles the drawing with drawValue(its value, the re-request block's hash)", async () => {
      const f = await loadFixture(longTimeoutFixture);
      const { receipt: committed, sequence } = await commitOne(f, 1);
      const requestBlock = committed.blockNumber;
      const dueBlock = BigInt(requestBlock + LONG_TIMEOUT);
      // Past the window but not the timeout, and Entropy still holds the request: refused.
      await nextTransactionIn(requestBlock + BLOCKHASH_WINDOW + 1);
      await expect(f.draw.connect(f.operator).reRequest(f.campaignId, 1, 0))
        .to.be.revertedWithCustomError(f.draw, "RevealNotTimedOut")
        .withArgs(f.campaignId, 1, dueBlock);
      const lateValue = randomBytes32();
      await expect(f.mock.connect(f.stranger).mockReveal(f.provider.address, sequence, lateValue))
        .to.emit(f.draw, "EntropyRevealTooLate")
        .withArgs(f.provider.address, sequence, requestBlock, lateValue);

      const reRequest = await f.draw.connect(f.operator).reRequest(f.campaignId, 1, 0);
      const reRequested = (await reRequest.wait())!;
      expect(BigInt(reRequested.blockNumber)).to.be.lessThan(dueBlock);
      const newSequence = sequence + 1n;
      const user = keccak256(AbiCoder.defaultAbiCoder().encode(["address", "uint64"], [f.provider.address, sequence]));
      await expect(reRequest)
        .to.emit(f.draw, "EntropyReRequested")
        .withArgs(f.campaignId, 1, f.provider.address, sequence, f.provider.address, newSequence, 0, user, f.operator.address);
      expect(await f.draw.requestOf(f.campaignId, 1)).to.deep.equal([f.provider.address, newSequence, true]);

      await mine(10);
      const entropyValue = randomBytes32();
      const revealed = await mockReveal(f, newSequence, entropyValue);
      const reRequestBlockHash = await blockHashOf(reRequested.blockNumber);
      const value = drawValueOf(entropyValue, reRequestBlockHash);
      expect(findEvents(f, revealed, "EntropyRevealed").map((e) => [...e.args])).to.deep.equal([
        [f.campaignId, 1n, f.provider.address, newSequence, entropyValue, reRequestBlockHash, value],
      ]);
      expect(awarded(f, revealed)).to.deep.equal(prizesOf(value, f.campaignId, 1n, 3));
      const d = await f.draw.getDrawing(f.campaignId, 1);
      expect([d.status, d.randomValue, d.sequence]).to.deep.equal([STATUS.Settled, value, newSequence]);
    });

    it("a late reveal of the re-request too is discarded: the drawing stays Requested, in public, and a second re-request is refused (AlreadyReRequested), after the timeout as well", async () => {
      const f = await loadFixture(longTimeoutFixture);
      const { receipt: committed, sequence } = await commitOne(f, 1);
      const owed = (await f.vault.balances()).owedCents;
      await nextTransactionIn(committed.blockNumber + BLOCKHASH_WINDOW + 1);
      await expect(f.mock.mockReveal(f.provider.address, sequence, randomBytes32())).to.emit(f.draw, "EntropyRevealTooLate");
      const reRequested = (await (await f.draw.connect(f.operator).reRequest(f.campaignId, 1, 0)).wait())!;
      const newSequence = findEvents(f, reRequested, "EntropyReRequested")[0].args.sequence as bigint;

      await nextTransactionIn(reRequested.blockNumber + BLOCKHASH_WINDOW + 1);
      const entropyValue = randomBytes32();
      const late = await f.mock.connect(f.stranger).mockReveal(f.provider.address, newSequence, entropyValue);
      await expect(late).to.emit(f.draw, "EntropyRevealTooLate").withArgs(f.provider.address, newSequence, reRequested.blockNumber, entropyValue);
      await expect(late).to.not.emit(f.draw, "EntropyRevealed");
      await expect(late).to.not.emit(f.draw, "PrizeAwarded");
      const d = await f.draw.getDrawing(f.campaignId, 1);
      expect([d.status, d.randomValue, d.settledCount, d.sequence]).to.deep.equal([STATUS.Requested, ZeroHash, 0n, newSequence]);

      await expect(f.draw.connect(f.operator).reRequest(f.campaignId, 1, 0))
        .to.be.revertedWithCustomError(f.draw, "AlreadyReRequested")
        .withArgs(f.campaignId, 1);
      await nextTransactionIn(reRequested.blockNumber + LONG_TIMEOUT + 10);
      await expect(f.draw.connect(f.operator).reRequest(f.campaignId, 1, 0))
        .to.be.revertedWithCustomError(f.draw, "AlreadyReRequested")
        .withArgs(f.campaignId, 1);
      // No third request; the drawing keeps its reserve (it may never be drawn).
      expect((await f.mock.getProviderInfoV2(f.provider.address)).sequenceNumber).to.equal(newSequence + 1n);
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(STATUS.Requested);
      expect((await f.vault.balances()).owedCents).to.equal(owed);
    });

    it("the first request's reveal arriving after its re-request is ignored (EntropyCallbackIgnored), not discarded as late, and the re-request's reveal settles the drawing", async () => {
      const f = await loadFixture(longTimeoutFixture);
      const { receipt: committed, sequence } = await commitOne(f, 1);
      await nextTransactionIn(committed.blockNumber + LONG_TIMEOUT + 1);
      const reRequested = (await (await f.draw.connect(f.operator).reRequest(f.campaignId, 1, 0)).wait())!;
      const newSequence = findEvents(f, reRequested, "EntropyReRequested")[0].args.sequence as bigint;

      const stale = randomBytes32();
      const ignored = await f.mock.connect(f.stranger).mockReveal(f.provider.address, sequence, stale);
      await expect(ignored).to.emit(f.draw, "EntropyCallbackIgnored").withArgs(f.provider.address, sequence, stale);
      for (const name of ["EntropyRevealTooLate", "EntropyRevealed", "PrizeAwarded"]) await expect(ignored).to.not.emit(f.draw, name);
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(STATUS.Requested);

      const entropyValue = randomBytes32();
      const revealed = await mockReveal(f, newSequence, entropyValue);
      const value = await revealedDrawValue(f, revealed, entropyValue, reRequested.blockNumber);
      expect(awarded(f, revealed)).to.deep.equal(prizesOf(value, f.campaignId, 1n, 3));
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(STATUS.Settled);
    });
  });
});
