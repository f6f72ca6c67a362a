// PrizeDraw.reRequest: the public, one-time re-request of a drawing whose random value was not revealed in time.
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, mine, takeSnapshot } from "@nomicfoundation/hardhat-network-helpers";
import { AbiCoder, keccak256, type ContractTransactionReceipt, type Interface, type Log } from "ethers";
import type { TestStablecoin } from "../../typechain-types";
import {
  CALLBACK_GAS_LIMIT,
  DEFAULT_TABLE,
  REVEAL_TIMEOUT_BLOCKS,
  STATUS,
  asAdmin,
  awarded,
  batchShareOf,
  callbackPositionsOf,
  campaignIdOf,
  commitArgs,
  deployFixture,
  deployPrizeDraw,
  redeployFixture,
  blockHashOf,
  drawValueOf,
  expectedPrizes,
  findEvents,
  randomBytes32,
  revealedDrawValue,
  sendBatch,
  sendCommit,
  slotOf,
  type CommitArgs,
  type ExpectedPrize,
  type Fixture,
} from "./helpers";
import { combineRandomValues, deployTestEntropy } from "./entropyV2";

const coder = AbiCoder.defaultAbiCoder();
const THRESHOLD = 50_000n; // the campaigns' large-prize threshold (cents)
const TIMEOUT = BigInt(REVEAL_TIMEOUT_BLOCKS);
/** TestEntropyV2's provider fee at its default gas limit, the protocol fee, and that default gas limit. */
const FEE = 1_000n;
const PYTH_FEE = 7n;
const DEFAULT_GAS = 100_000n;
const CALLBACK_FAILED = 3n;

/** DrawMath.reRequestUserRandomNumber, computed here: keccak256(abi.encode(address, uint64)). */
function reRequestUserRandomNumberOf(previousProvider: string, previousSequence: bigint): string {
  return keccak256(coder.encode(["address", "uint64"], [previousProvider, previousSequence]));
}

/** Mines empty blocks until `block` is the latest, so the next transaction is mined in `block + 1`. */
async function mineTo(block: bigint): Promise<void> {
  const latest = BigInt(await ethers.provider.getBlockNumber());
  if (block > latest) await mine(block - latest);
}

type EntropyLike = { interface: Interface; getAddress(): Promise<string> };
type EntropyRequest = { provider: string; caller: string; sequence: bigint; userContribution: string; gasLimit: bigint };

/** Entropy's own Requested events of a receipt: what the provider was asked for, as Entropy recorded it. */
async function entropyRequests(entropy: EntropyLike, receipt: { logs: readonly Log[] }): Promise<EntropyRequest[]> {
  const address = await entropy.getAddress();
  const out: EntropyRequest[] = [];
  for (const log of receipt.logs) {
    if (log.address !== address) continue;
    const parsed = entropy.interface.parseLog(log);
    if (parsed?.name !== "Requested") continue;
    out.push({
      provider: parsed.args.provider as string,
      caller: parsed.args.caller as string,
      sequence: parsed.args.sequenceNumber as bigint,
      userContribution: parsed.args.userContribution as string,
      gasLimit: parsed.args.gasLimit as bigint,
    });
  }
  return out;
}

function prizesOf(random: string, campaignId: string, num: bigint, count: number): ExpectedPrize[] {
  return expectedPrizes(random, campaignId, num, count, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, THRESHOLD);
}

// ---------------------------------------------------------------------------------------------- fixtures

/** MockEntropy (fee 0) with a second campaign, so a batch can span two campaigns. */
async function mockFixture() {
  const f = await deployFixture();
  const campaignB = campaignIdOf("winter-weekly");
  await f.draw.connect(f.operator).registerCampaign(campaignB, f.other.address, THRESHOLD, 0, 0);
  return { ...f, campaignB };
}
type Mock = Awaited<ReturnType<typeof mockFixture>>;

/** Commits one drawing on MockEntropy; returns its sequence, the commit's receipt and the due block. */
async function commitOne(f: Mock, num: number, winnersExpected = 3) {
  const receipt = (await (await sendCommit(f, commitArgs(f.campaignId, num, { winnersExpected }))).wait())!;
  const sequence = findEvents(f, receipt, "EntropyRequested")[0].args.sequence as bigint;
  const dueBlock = (await f.mock.getRequestV2(f.provider.address, sequence)).blockNumber + TIMEOUT;
  return { sequence, receipt, dueBlock };
}

type Member = { campaignId: string; num: bigint; winners: number };

/** A batch of three drawings of two campaigns (in this order), committed in one request and timed out. */
async function timedOutBatchFixture() {
  const f = await mockFixture();
  const members: Member[] = [
    { campaignId: f.campaignId, num: 1n, winners: 5 },
    { campaignId: f.campaignB, num: 1n, winners: 2 },
    { campaignId: f.campaignId, num: 2n, winners: 4 },
  ];
  const batch: CommitArgs[] = members.map((m) =>
    commitArgs(m.campaignId, m.num, { winnersExpected: m.winners, slot: slotOf(`${m.campaignId}:${m.num}`) }),
  );
  const commitReceipt = (await (await sendBatch(f, batch)).wait())!;
  const sequence = findEvents(f, commitReceipt, "EntropyRequested")[0].args.sequence as bigint;
  const dueBlock = (await f.mock.getRequestV2(f.provider.address, sequence)).blockNumber + TIMEOUT;
  await mineTo(dueBlock);
  return { ...f, members, commitReceipt, sequence, dueBlock };
}

/** The batch above re-requested by the operator through its middle member. */
async function reRequestedBatchFixture() {
  const f = await timedOutBatchFixture();
  const receipt = (await (await f.draw.connect(f.operator).reRequest(f.campaignB, 1, 0)).wait())!;
  const newSequence = findEvents(f, receipt, "EntropyReRequested")[0].args.sequence as bigint;
  return { ...f, receipt, newSequence };
}

/** TestEntropyV2: Entropy v2's fees (by gas), hash-chain revelations and failed-callback records. */
async function v2Fixture() {
  const [admin, operator, guardian, stranger, wallet, deployer] = await ethers.getSigners();
  const t = await deployTestEntropy(deployer, { feeInWei: FEE, pythFeeInWei: PYTH_FEE, defaultGasLimit: Number(DEFAULT_GAS) });
  const token = (await (await ethers.getContractFactory("TestStablecoin")).deploy()) as unknown as TestStablecoin;
  const { draw, vault, manager } = await deployPrizeDraw({ entropy: await t.entropy.getAddress(), token, admin, operator, guardian });
  const campaignId = campaignIdOf("summer-daily");
  await draw.connect(operator).registerCampaign(campaignId, wallet.address, THRESHOLD, 0, 0);
  return { ...t, admin, operator, guardian, stranger, wallet, deployer, token, draw, vault, manager, campaignId };
}
type V2 = Awaited<ReturnType<typeof v2Fixture>>;

/** TestEntropyV2's quote: the provider fee scaled by the gas rounded up to 10k above the default, plus the protocol fee. */
function v2FeeOf(gas: number): bigint {
  const rounded = BigInt(Math.ceil(gas / 10_000) * 10_000);
  return (rounded > DEFAULT_GAS ? FEE + ((rounded - DEFAULT_GAS) * FEE) / DEFAULT_GAS : FEE) + PYTH_FEE;
}

/** Commits drawing `num` on TestEntropyV2 paying the quote; returns its sequence, user contribution and due block. */
async function commitV2(f: V2, num: number, winnersExpected: number) {
  const gas = batchShareOf(CALLBACK_GAS_LIMIT, [winnersExpected]).requestGas;
  const fee = v2FeeOf(gas);
  const args = commitArgs(f.campaignId, num, { winnersExpected, maxFee: fee });
  const receipt = (await (await sendCommit(f, args)).wait())!;
  const requested = findEvents(f, receipt, "EntropyRequested")[0];
  const sequence = requested.args.sequence as bigint;
  const dueBlock = (await f.entropy.getRequestV2(f.providerAddress, sequence)).blockNumber + TIMEOUT;
  return { sequence, user: requested.args.userRandomNumber as string, receipt, dueBlock, gas, fee };
}

// ---------------------------------------------------------------------------------------------- tests

describe("PrizeDraw.reRequest", () => {
  describe("timeout", () => {
    it("is refused with RevealNotTimedOut(request block + revealTimeoutBlocks) up to and at that due block, and allowed in the next", async () => {
      const f = await loadFixture(mockFixture);
      expect(await f.draw.revealTimeoutBlocks()).to.equal(TIMEOUT);
      const { sequence, receipt, dueBlock } = await commitOne(f, 1);
      // Entropy keeps the request's block: the commit's.
      expect(dueBlock).to.equal(BigInt(receipt.blockNumber) + TIMEOUT);

      await expect(f.draw.connect(f.operator).reRequest(f.campaignId, 1, 0))
        .to.be.revertedWithCustomError(f.draw, "RevealNotTimedOut")
        .withArgs(f.campaignId, 1, dueBlock);
      await mineTo(dueBlock - 1n);
      // An explicit gas limit skips the estimate, so the refused transaction is really mined, in dueBlock.
      await expect(f.draw.connect(f.operator).reRequest(f.campaignId, 1, 0, { gasLimit: 1_000_000 }))
        .to.be.revertedWithCustomError(f.draw, "RevealNotTimedOut")
        .withArgs(f.campaignId, 1, dueBlock);
      expect(BigInt(await ethers.provider.getBlockNumber())).to.equal(dueBlock);

      const tx = await f.draw.connect(f.operator).reRequest(f.campaignId, 1, 0);
      expect(BigInt((await tx.wait())!.blockNumber)).to.equal(dueBlock + 1n);
      await expect(tx)
        .to.emit(f.draw, "EntropyReRequested")
        .withArgs(f.campaignId, 1, f.provider.address, sequence, f.provider.address, sequence + 1n, 0, reRequestUserRandomNumberOf(f.provider.address, sequence), f.operator.address);
    });

    it("counts the deployment's revealTimeoutBlocks, not a constant", async () => {
      const f = await loadFixture(mockFixture);
      const timeout = 1_000n;
      const { draw } = await redeployFixture(f, { revealTimeoutBlocks: Number(timeout) });
      const receipt = (await (await sendCommit({ draw, operator: f.operator }, commitArgs(f.campaignId, 1))).wait())!;
      const dueBlock = BigInt(receipt.blockNumber) + timeout;
      await mineTo(BigInt(receipt.blockNumber) + TIMEOUT + 1n); // past the default timeout, not this one
      await expect(draw.connect(f.operator).reRequest(f.campaignId, 1, 0))
        .to.be.revertedWithCustomError(draw, "RevealNotTimedOut")
        .withArgs(f.campaignId, 1, dueBlock);
      await mineTo(dueBlock);
      await expect(draw.connect(f.operator).reRequest(f.campaignId, 1, 0)).to.emit(draw, "EntropyReRequested");
    });
  });

  describe("fee and caller", () => {
    it("the operator pays the current quote for the commit's callback gas, under its cap and from msg.value, and gets the excess back; the new request asks the commit's gas", async () => {
      const f = await loadFixture(v2Fixture);
      // 50 winners: the callback settles all of them, so the commit asked CALLBACK_BASE_GAS + 50 x POSITION_GAS.
      const { sequence, receipt: commitReceipt, dueBlock, gas, fee: commitFee } = await commitV2(f, 1, 50);
      expect(gas).to.equal(470_000);
      // The admin lowers the limit afterwards: the re-request must still ask what the commit paid for.
      await asAdmin(f, f.draw, "setCallbackGasLimit", [100_000]);
      await mineTo(dueBlock);

      const fee = await f.entropy["getFeeV2(address,uint32)"](f.providerAddress, gas);
      expect(fee).to.equal(commitFee);
      expect(fee).to.equal(4_707n); // 1,000 + 370,000 x 1,000 / 100,000 + 7
      const operator = f.draw.connect(f.operator);
      await expect(operator.reRequest(f.campaignId, 1, fee - 1n, { value: fee }))
        .to.be.revertedWithCustomError(f.draw, "FeeAboveCap")
        .withArgs(fee, fee - 1n);
      await expect(operator.reRequest(f.campaignId, 1, fee, { value: fee - 1n }))
        .to.be.revertedWithCustomError(f.draw, "InsufficientFee")
        .withArgs(fee, fee - 1n);

      const value = fee + 10n ** 15n;
      const [before, entropyBefore] = await Promise.all([
        ethers.provider.getBalance(f.operator.address),
        ethers.provider.getBalance(await f.entropy.getAddress()),
      ]);
      const tx = await operator.reRequest(f.campaignId, 1, 10n ** 16n, { value });
      const receipt = (await tx.wait())!;
      const user = reRequestUserRandomNumberOf(f.providerAddress, sequence);
      await expect(tx)
        .to.emit(f.draw, "EntropyReRequested")
        .withArgs(f.campaignId, 1, f.providerAddress, sequence, f.providerAddress, sequence + 1n, fee, user, f.operator.address);
      expect(before - (await ethers.provider.getBalance(f.operator.address))).to.equal(fee + receipt.gasUsed * receipt.gasPrice);
      expect(await ethers.provider.getBalance(await f.entropy.getAddress())).to.equal(entropyBefore + fee);
      expect(await ethers.provider.getBalance(await f.draw.getAddress())).to.equal(0n);

      // Same gas asked of Entropy by both requests (TestEntropyV2 rounds it up to 10k: 47 x 10k).
      const [first] = await entropyRequests(f.entropy, commitReceipt);
      const [second] = await entropyRequests(f.entropy, receipt);
      expect(second).to.deep.equal({ provider: f.providerAddress, caller: await f.draw.getAddress(), sequence: sequence + 1n, userContribution: user, gasLimit: 470_000n });
      expect(first.gasLimit).to.equal(second.gasLimit);
      // The first request is still pending at Entropy: compare the stored limits too.
      const [old, renewed] = await Promise.all([
        f.entropy.getRequestV2(f.providerAddress, sequence),
        f.entropy.getRequestV2(f.providerAddress, sequence + 1n),
      ]);
      expect([old.sequenceNumber, renewed.sequenceNumber]).to.deep.equal([sequence, sequence + 1n]);
      expect([old.gasLimit10k, renewed.gasLimit10k]).to.deep.equal([47n, 47n]);
    });
  });

  describe("a batch", () => {
    it("one call re-requests all three drawings of two campaigns: one EntropyReRequested per member in batch order, naming both requests and the derived contribution, and requestOf shows the new request", async () => {
      const f = await loadFixture(timedOutBatchFixture);
      const draw = await f.draw.getAddress();
      const [committed] = await entropyRequests(f.mock, f.commitReceipt);
      // MockEntropy records the exact gas asked: the batch's share of the callback.
      const requestGas = BigInt(batchShareOf(CALLBACK_GAS_LIMIT, f.members.map((m) => m.winners)).requestGas);
      expect(committed.gasLimit).to.equal(requestGas);
      for (const m of f.members) {
        expect(await f.draw.requestOf(m.campaignId, m.num)).to.deep.equal([f.provider.address, f.sequence, false]);
      }

      // Through the middle member: the request index, not the drawing, is what is re-requested.
      const receipt = (await (await f.draw.connect(f.operator).reRequest(f.campaignB, 1, 0)).wait())!;
      const user = reRequestUserRandomNumberOf(f.provider.address, f.sequence);
      const newSequence = f.sequence + 1n;
      const events = findEvents(f, receipt, "EntropyReRequested").map((e) => [...e.args]);
      expect(events).to.deep.equal(
        f.members.map((m) => [m.campaignId, m.num, f.provider.address, f.sequence, f.provider.address, newSequence, 0n, user, f.operator.address]),
      );
      expect(findEvents(f, receipt, "EntropyRequested")).to.have.length(0);
      // Exactly one new Entropy request for the whole batch, with the commit's gas.
      expect(await entropyRequests(f.mock, receipt)).to.deep.equal([
        { provider: f.provider.address, caller: draw, sequence: newSequence, userContribution: user, gasLimit: requestGas },
      ]);
      for (const m of f.members) {
        expect(await f.draw.requestOf(m.campaignId, m.num)).to.deep.equal([f.provider.address, newSequence, true]);
        const d = await f.draw.getDrawing(m.campaignId, m.num);
        expect([d.status, d.sequence, d.randomValue]).to.deep.equal([STATUS.Requested, newSequence, ethers.ZeroHash]);
      }
    });

    it("the first request's late reveal is ignored (EntropyCallbackIgnored, still Requested, no prize); the new request's reveal settles every member with rolls from the new value", async () => {
      const f = await loadFixture(reRequestedBatchFixture);
      const [late, fresh] = [randomBytes32(), randomBytes32()];

      const lateTx = await f.mock.mockReveal(f.provider.address, f.sequence, late);
      await expect(lateTx).to.emit(f.draw, "EntropyCallbackIgnored").withArgs(f.provider.address, f.sequence, late);
      const lateReceipt = (await lateTx.wait())!;
      expect(findEvents(f, lateReceipt, "EntropyRevealed")).to.have.length(0);
      expect(findEvents(f, lateReceipt, "PrizeAwarded")).to.have.length(0);
      for (const m of f.members) {
        const d = await f.draw.getDrawing(m.campaignId, m.num);
        expect([d.status, d.settledCount, d.randomValue]).to.deep.equal([STATUS.Requested, 0n, ethers.ZeroHash]);
        await expect(f.draw.settle(m.campaignId, m.num, 10)).to.be.revertedWithCustomError(f.draw, "NotRevealed");
      }

      const receipt = (await (await f.mock.mockReveal(f.provider.address, f.newSequence, fresh)).wait())!;
      expect(findEvents(f, receipt, "EntropyCallbackIgnored")).to.have.length(0);
      // The new value mixes in the hash of the re-request's block, not the commit's.
      const reRequestBlockHash = await blockHashOf(f.receipt.blockNumber);
      const value = drawValueOf(fresh, reRequestBlockHash);
      expect(value).to.not.equal(drawValueOf(fresh, await blockHashOf(f.commitReceipt.blockNumber)));
      expect(await revealedDrawValue(f, receipt, fresh, f.receipt.blockNumber)).to.equal(value);
      expect(findEvents(f, receipt, "EntropyRevealed").map((e) => [...e.args])).to.deep.equal(
        f.members.map((m) => [m.campaignId, m.num, f.provider.address, f.newSequence, fresh, reRequestBlockHash, value]),
      );
      for (const m of f.members) {
        expect(awarded(f, receipt, { campaignId: m.campaignId, num: m.num })).to.deep.equal(prizesOf(value, m.campaignId, m.num, m.winners));
        const d = await f.draw.getDrawing(m.campaignId, m.num);
        expect([d.status, d.settledCount, d.randomValue]).to.deep.equal([STATUS.Settled, BigInt(m.winners), value]);
        // Settled: nothing left to re-request.
        await expect(f.draw.connect(f.operator).reRequest(m.campaignId, m.num, 0))
          .to.be.revertedWithCustomError(f.draw, "NotAwaitingReveal")
          .withArgs(m.campaignId, m.num);
      }
    });

    it("a late reveal of the first request after the new one settled changes nothing", async () => {
      const f = await loadFixture(reRequestedBatchFixture);
      const [late, fresh] = [randomBytes32(), randomBytes32()];
      const value = await revealedDrawValue(f, (await (await f.mock.mockReveal(f.provider.address, f.newSequence, fresh)).wait())!, fresh, f.receipt.blockNumber);
      const late1 = await f.mock.mockReveal(f.provider.address, f.sequence, late);
      await expect(late1).to.emit(f.draw, "EntropyCallbackIgnored").withArgs(f.provider.address, f.sequence, late);
      await expect(late1).to.not.emit(f.draw, "PrizeAwarded");
      for (const m of f.members) {
        const d = await f.draw.getDrawing(m.campaignId, m.num);
        expect([d.status, d.randomValue]).to.deep.equal([STATUS.Settled, value]);
        expect((await f.draw.prizeAt(m.campaignId, m.num, 0)).randomValue).to.equal(prizesOf(value, m.campaignId, m.num, 1)[0].randomValue);
      }
    });
  });

  describe("once only", () => {
    it("a second re-request is refused with AlreadyReRequested for every member of the batch, before and after the new request's own timeout", async () => {
      const f = await loadFixture(reRequestedBatchFixture);
      const callers = [f.operator];
      for (const m of f.members) {
        for (const caller of callers) {
          await expect(f.draw.connect(caller).reRequest(m.campaignId, m.num, 0))
            .to.be.revertedWithCustomError(f.draw, "AlreadyReRequested")
            .withArgs(m.campaignId, m.num);
        }
      }
      const newDue = (await f.mock.getRequestV2(f.provider.address, f.newSequence)).blockNumber + TIMEOUT;
      await mineTo(newDue + 10n);
      for (const m of f.members) {
        for (const caller of callers) {
          await expect(f.draw.connect(caller).reRequest(m.campaignId, m.num, 0))
            .to.be.revertedWithCustomError(f.draw, "AlreadyReRequested")
            .withArgs(m.campaignId, m.num);
        }
        expect(await f.draw.requestOf(m.campaignId, m.num)).to.deep.equal([f.provider.address, f.newSequence, true]);
      }
      // No third request was made: the provider's next sequence is the one after the re-request's.
      expect((await f.mock.getProviderInfoV2(f.provider.address)).sequenceNumber).to.equal(f.newSequence + 1n);
    });
  });

  describe("only a drawing awaiting its value", () => {
    it("NotAwaitingReveal once revealed (partly settled), settled or paid, even after the timeout; DrawingNotFound for an unknown drawing", async () => {
      const f = await loadFixture(mockFixture);
      // More winners than the callback settles: left Revealed for settle().
      const revealed = await commitOne(f, 1, 300);
      await f.mock.mockReveal(f.provider.address, revealed.sequence, randomBytes32());
      expect((await f.draw.getDrawing(f.campaignId, 1)).settledCount).to.equal(BigInt(callbackPositionsOf(CALLBACK_GAS_LIMIT)));
      const settled = await commitOne(f, 2);
      await f.mock.mockReveal(f.provider.address, settled.sequence, randomBytes32());
      const paid = await commitOne(f, 3);
      await f.mock.mockReveal(f.provider.address, paid.sequence, randomBytes32());
      await f.draw.connect(f.stranger).payout(f.campaignId, 3);
      await mineTo(paid.dueBlock + 1n);

      for (const [num, status] of [[1n, STATUS.Revealed], [2n, STATUS.Settled], [3n, STATUS.Paid]] as const) {
        expect((await f.draw.getDrawing(f.campaignId, num)).status).to.equal(status);
        await expect(f.draw.connect(f.operator).reRequest(f.campaignId, num, 0))
          .to.be.revertedWithCustomError(f.draw, "NotAwaitingReveal")
          .withArgs(f.campaignId, num);
      }
      for (const [campaignId, num] of [[f.campaignId, 4n], [f.campaignId, 0n], [f.campaignB, 1n], [campaignIdOf("never-registered"), 1n]] as const) {
        await expect(f.draw.connect(f.operator).reRequest(campaignId, num, 0))
          .to.be.revertedWithCustomError(f.draw, "DrawingNotFound")
          .withArgs(campaignId, num);
      }
    });
  });

  describe("a failed callback", () => {
    it("is refused with CallbackFailedRetryIt before and after the timeout; a retry within BLOCKHASH_WINDOW blocks settles it with the original value, a later one is discarded (EntropyRevealTooLate) and the drawing may then be re-requested", async () => {
      const f = await loadFixture(v2Fixture);
      const { sequence, user, dueBlock, receipt: commitReceipt } = await commitV2(f, 1, 20);
      const revelation = f.revelation(sequence);
      const entropyValue = combineRandomValues(user, revelation);
      const requestBlockHash = await blockHashOf(commitReceipt.blockNumber);
      const random = drawValueOf(entropyValue, requestBlockHash);
      // The callback gets 10,000 gas of its cap though the transaction could give it all: Entropy records the
      // failure (a reveal whose transaction lacks gas reverts with InsufficientGas instead, recording nothing).
      const cap = Number((await f.entropy.getRequestV2(f.providerAddress, sequence)).gasLimit10k) * 10_000;
      await f.entropy.connect(f.deployer).setCallbackGasShortfall(cap - 10_000);
      await expect(f.reveal(sequence, user, { gasLimit: 5_000_000 })).to.emit(f.entropy, "CallbackFailed");
      await f.entropy.connect(f.deployer).setCallbackGasShortfall(0);
      expect((await f.entropy.getRequestV2(f.providerAddress, sequence)).callbackStatus).to.equal(CALLBACK_FAILED);
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(STATUS.Requested);

      const fee = v2FeeOf(batchShareOf(CALLBACK_GAS_LIMIT, [20]).requestGas);
      await expect(f.draw.connect(f.operator).reRequest(f.campaignId, 1, fee, { value: fee }))
        .to.be.revertedWithCustomError(f.draw, "CallbackFailedRetryIt")
        .withArgs(f.campaignId, 1);

      // A retry in time: anyone, the same value, mixed with the commit's block hash.
      const inTime = await takeSnapshot();
      const retry = await f.entropy.connect(f.stranger).revealWithCallback(f.providerAddress, sequence, user, revelation);
      await expect(retry)
        .to.emit(f.draw, "EntropyRevealed")
        .withArgs(f.campaignId, 1, f.providerAddress, sequence, entropyValue, requestBlockHash, random);
      expect(awarded(f, (await retry.wait())!, { campaignId: f.campaignId, num: 1n })).to.deep.equal(prizesOf(random, f.campaignId, 1n, 20));
      const d = await f.draw.getDrawing(f.campaignId, 1);
      expect([d.status, d.randomValue, d.settledCount]).to.deep.equal([STATUS.Settled, random, 20n]);
      expect(await f.draw.requestOf(f.campaignId, 1)).to.deep.equal([f.providerAddress, sequence, false]);
      await expect(f.draw.connect(f.operator).reRequest(f.campaignId, 1, fee, { value: fee }))
        .to.be.revertedWithCustomError(f.draw, "NotAwaitingReveal")
        .withArgs(f.campaignId, 1);
      // One request only: the provider's sequence moved once.
      expect((await f.entropy.getProviderInfoV2(f.providerAddress)).sequenceNumber).to.equal(sequence + 1n);
      await inTime.restore();

      // Past the timeout, still refused: a failed callback is retried, not replaced.
      await mineTo(dueBlock + 100n);
      await expect(f.draw.connect(f.operator).reRequest(f.campaignId, 1, fee, { value: fee }))
        .to.be.revertedWithCustomError(f.draw, "CallbackFailedRetryIt")
        .withArgs(f.campaignId, 1);
      // The timeout (revealTimeoutBlocks, at least 256) outlasts the commit block's hash: a retry now is too late,
      // discarded in public, and Entropy forgets the request since the callback returned.
      const late = await f.entropy.connect(f.stranger).revealWithCallback(f.providerAddress, sequence, user, revelation);
      await expect(late)
        .to.emit(f.draw, "EntropyRevealTooLate")
        .withArgs(f.providerAddress, sequence, commitReceipt.blockNumber, entropyValue);
      await expect(late).to.not.emit(f.draw, "EntropyRevealed");
      await expect(late).to.not.emit(f.draw, "PrizeAwarded");
      expect((await f.entropy.getRequestV2(f.providerAddress, sequence)).sequenceNumber).to.equal(0n);
      const stillRequested = await f.draw.getDrawing(f.campaignId, 1);
      expect([stillRequested.status, stillRequested.randomValue, stillRequested.settledCount]).to.deep.equal([STATUS.Requested, ethers.ZeroHash, 0n]);
      await expect(f.draw.connect(f.operator).reRequest(f.campaignId, 1, fee, { value: fee }))
        .to.emit(f.draw, "EntropyReRequested")
        .withArgs(f.campaignId, 1, f.providerAddress, sequence, f.providerAddress, sequence + 1n, fee, reRequestUserRandomNumberOf(f.providerAddress, sequence), f.operator.address);
    });
  });

  describe("the guardian's pause", () => {
    it("does not stop a re-request (the commit is stopped), and the drawing settles when the new request is revealed", async () => {
      const f = await loadFixture(mockFixture);
      const { sequence, dueBlock } = await commitOne(f, 1);
      await f.vault.connect(f.guardian).pause();
      expect(await f.vault.paused()).to.equal(true);
      await expect(sendCommit(f, commitArgs(f.campaignId, 2))).to.be.revertedWithCustomError(f.draw, "EnforcedPause");
      await mineTo(dueBlock);

      const reRequest = f.draw.connect(f.operator).reRequest(f.campaignId, 1, 0);
      await expect(reRequest)
        .to.emit(f.draw, "EntropyReRequested")
        .withArgs(f.campaignId, 1, f.provider.address, sequence, f.provider.address, sequence + 1n, 0, reRequestUserRandomNumberOf(f.provider.address, sequence), f.operator.address);
      const entropyValue = randomBytes32();
      const receipt = (await (await f.mock.mockReveal(f.provider.address, sequence + 1n, entropyValue)).wait())!;
      const value = await revealedDrawValue(f, receipt, entropyValue, (await (await reRequest).wait())!.blockNumber);
      expect(awarded(f, receipt, { campaignId: f.campaignId, num: 1n })).to.deep.equal(prizesOf(value, f.campaignId, 1n, 3));
      const d = await f.draw.getDrawing(f.campaignId, 1);
      expect([d.status, d.randomValue]).to.deep.equal([STATUS.Settled, value]);
      // Still paused for money: the payout waits for the admin's resume.
      await expect(f.draw.connect(f.stranger).payout(f.campaignId, 1)).to.be.revertedWithCustomError(f.vault, "PaymentsArePaused");
    });
  });

  describe("nobody chooses the value", () => {
    it("only the operator may re-request (a provider that withheld a reveal cannot pick its sequence), and its fee cap and value change nothing but its block: one request, a contribution fixed since the commit, the same Entropy value, mixed with the re-request block's hash", async () => {
      const f = await loadFixture(v2Fixture);
      const { sequence, dueBlock, gas, fee } = await commitV2(f, 1, 3);
      // Fixed since the commit, before anyone re-requests: it depends on the previous request only.
      const user = reRequestUserRandomNumberOf(f.providerAddress, sequence);
      // The operator cannot withhold-and-redraw early either.
      await expect(f.draw.connect(f.operator).reRequest(f.campaignId, 1, fee, { value: fee }))
        .to.be.revertedWithCustomError(f.draw, "RevealNotTimedOut")
        .withArgs(f.campaignId, 1, dueBlock);
      await mineTo(dueBlock);
      expect(await f.entropy["getFeeV2(address,uint32)"](f.providerAddress, gas)).to.equal(fee);
      // Past the timeout, nobody but the operator: not the provider (which knows its future values), the admin,
      // the guardian or a stranger.
      for (const caller of [f.stranger, f.admin, f.guardian]) {
        await expect(f.draw.connect(caller).reRequest(f.campaignId, 1, fee, { value: fee }))
          .to.be.revertedWithCustomError(f.draw, "AccessManagedUnauthorized")
          .withArgs(caller.address);
      }
      await expect(f.draw.connect(f.provider).reRequest(f.campaignId, 1, fee, { value: fee }))
        .to.be.revertedWithCustomError(f.draw, "AccessManagedUnauthorized")
        .withArgs(f.providerAddress);

      type Outcome = {
        sequence: bigint;
        user: string;
        requests: EntropyRequest[];
        entropyValue: string;
        requestBlockHash: string;
        randomValue: string;
        prizes: ExpectedPrize[];
      };
      async function reRequestWith(maxFee: bigint, value: bigint): Promise<Outcome> {
        const providerNext = (await f.entropy.getProviderInfoV2(f.providerAddress)).sequenceNumber;
        const receipt = (await (await f.draw.connect(f.operator).reRequest(f.campaignId, 1, maxFee, { value })).wait())!;
        const [event] = findEvents(f, receipt, "EntropyReRequested");
        const newSequence = event.args.sequence as bigint;
        // Exactly one new request: the provider's counter moved by one.
        expect((await f.entropy.getProviderInfoV2(f.providerAddress)).sequenceNumber).to.equal(providerNext + 1n);
        const reveal = (await (await f.reveal(newSequence, event.args.userRandomNumber as string, { from: f.stranger })).wait())!;
        const [revealed] = findEvents(f, reveal, "EntropyRevealed");
        expect(await revealedDrawValue(f, reveal, revealed.args.entropyValue as string, receipt.blockNumber)).to.equal(revealed.args.randomValue);
        return {
          sequence: newSequence,
          user: event.args.userRandomNumber as string,
          requests: await entropyRequests(f.entropy, receipt),
          entropyValue: revealed.args.entropyValue as string,
          requestBlockHash: await blockHashOf(receipt.blockNumber),
          randomValue: (await f.draw.getDrawing(f.campaignId, 1)).randomValue,
          prizes: awarded(f, reveal, { campaignId: f.campaignId, num: 1n }),
        };
      }
      const snapshot = await takeSnapshot();
      const generous = await reRequestWith(10n ** 16n, 10n ** 15n);
      await snapshot.restore();
      const exact = await reRequestWith(fee, fee);

      // Everything the operator's call could steer is the same; the value differs only through the hash of the
      // block the re-request landed in (the two calls differ, so their blocks do), which nobody knew when signing.
      const steerable = (o: Outcome) => [o.sequence, o.user, o.requests, o.entropyValue];
      expect(steerable(exact)).to.deep.equal(steerable(generous));
      expect(exact.requestBlockHash).to.not.equal(generous.requestBlockHash);
      for (const o of [exact, generous]) {
        expect(o.randomValue).to.equal(drawValueOf(o.entropyValue, o.requestBlockHash));
        expect(o.prizes).to.deep.equal(prizesOf(o.randomValue, f.campaignId, 1n, 3));
      }
      expect(exact.user).to.equal(user);
      expect(exact.requests).to.deep.equal([
        { provider: f.providerAddress, caller: await f.draw.getAddress(), sequence: sequence + 1n, userContribution: user, gasLimit: 100_000n },
      ]);
      // Entropy's value is its combination of that contribution and the provider's committed revelation.
      expect(exact.entropyValue).to.equal(combineRandomValues(user, f.revelation(sequence + 1n)));
      // reRequest takes no contribution: its inputs are the drawing, a fee cap and the fee.
      expect(f.draw.interface.getFunction("reRequest")!.inputs.map((p) => p.type)).to.deep.equal(["bytes32", "uint64", "uint256"]);
    });
  });
});
