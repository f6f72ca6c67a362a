import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { anyValue } from "@nomicfoundation/hardhat-chai-matchers/withArgs";
import { encodeBytes32String, ZeroHash, type ContractTransactionReceipt } from "ethers";
import type { TestStablecoin } from "../../typechain-types";
import {
  CALLBACK_BASE_GAS,
  CALLBACK_GAS_LIMIT,
  POSITION_GAS,
  DEFAULT_TABLE,
  STATUS,
  awarded,
  batchShareOf,
  callbackPositionsOf,
  campaignIdOf,
  commitArgs,
  deployPrizeDraw,
  blockHashOf,
  drawValueOf,
  expectedPrizes,
  findEvents,
  revealedDrawValue,
  sendCommit,
  userRandomNumberOf,
  withoutFee,
  worstCaseOf,
  type CommitOverrides,
} from "./helpers";
import { combineRandomValues, deployTestEntropy } from "./entropyV2";

const FEE = 1_000n;
const PYTH_FEE = 7n;
const DEFAULT_GAS = 100_000;
const CALLBACK_FAILED = 3n;

/** PrizeDraw against TestEntropyV2, which follows the real Entropy v2 rules (fees by gas, capped callbacks, retries). */
async function v2Fixture() {
  const [admin, operator, guardian, stranger, wallet, deployer] = await ethers.getSigners();
  const t = await deployTestEntropy(deployer, { feeInWei: FEE, pythFeeInWei: PYTH_FEE, defaultGasLimit: DEFAULT_GAS });
  const token = (await (await ethers.getContractFactory("TestStablecoin")).deploy()) as unknown as TestStablecoin;
  const { draw, vault, manager } = await deployPrizeDraw({ entropy: await t.entropy.getAddress(), token, admin, operator, guardian });
  const campaignId = campaignIdOf("summer-daily");
  await draw.connect(operator).registerCampaign(campaignId, wallet.address, 50_000, 0, 0);
  const fee = await t.entropy["getFeeV2(address,uint32)"](t.providerAddress, CALLBACK_GAS_LIMIT);
  return { ...t, admin, operator, guardian, stranger, wallet, deployer, token, draw, vault, manager, campaignId, fee };
}
type V2 = Awaited<ReturnType<typeof v2Fixture>>;

/**
 * Commits drawing `num` paying exactly the quoted fee; returns the request's sequence and user random number, and
 * the commit's block (the request's, whose hash the callback mixes into Entropy's value).
 */
async function commitV2(f: V2, num: number, overrides: CommitOverrides = {}) {
  const args = commitArgs(f.campaignId, num, { maxFee: f.fee, ...overrides });
  const receipt = (await (await sendCommit(f, args)).wait())!;
  const requested = findEvents(f, receipt, "EntropyRequested")[0];
  const user = requested.args.userRandomNumber as string;
  expect(user).to.equal(userRandomNumberOf(f.campaignId, num, args.slot as string, args.listCommitment as string));
  return { sequence: requested.args.sequence as bigint, user, args, requestBlock: receipt.blockNumber };
}

function revealedOf(f: V2, receipt: ContractTransactionReceipt) {
  for (const log of receipt.logs) {
    const parsed = f.entropy.interface.parseLog(log);
    if (parsed?.name === "Revealed") return parsed.args;
  }
  throw new Error("no Revealed event");
}

describe("PrizeDraw with an Entropy v2 provider (TestEntropyV2)", () => {
  describe("fee cap", () => {
    it("refuses a quote above maxFee and a msg.value below the fee; the excess is refunded", async () => {
      const f = await loadFixture(v2Fixture);
      // 1,000 at the default 100,000 gas, scaled to 2,000,000 gas, plus the protocol fee. The request asks for
      // the gas its batch needs: 300 winners take all the positions the limit pays for (CALLBACK_BASE_GAS plus
      // those positions' gas, which is 2,000,000 once rounded up to 10k).
      expect(f.fee).to.equal(20_000n + PYTH_FEE);
      const big = { winnersExpected: 300 };
      const positions = callbackPositionsOf(CALLBACK_GAS_LIMIT);
      expect(positions).to.be.lessThan(300);
      const requestGas = CALLBACK_BASE_GAS + positions * POSITION_GAS;
      expect(batchShareOf(CALLBACK_GAS_LIMIT, [300]).requestGas).to.equal(requestGas);
      expect(requestGas).to.be.lessThan(CALLBACK_GAS_LIMIT);
      expect(Math.ceil(requestGas / 10_000) * 10_000).to.equal(CALLBACK_GAS_LIMIT);
      await expect(sendCommit(f, commitArgs(f.campaignId, 1, { ...big, maxFee: f.fee - 1n })))
        .to.be.revertedWithCustomError(f.draw, "FeeAboveCap")
        .withArgs(f.fee, f.fee - 1n);
      await expect(f.draw.connect(f.operator).commitAndRequest([withoutFee(commitArgs(f.campaignId, 1, big))], f.fee, { value: f.fee - 1n }))
        .to.be.revertedWithCustomError(f.draw, "InsufficientFee")
        .withArgs(f.fee, f.fee - 1n);
      await expect(f.draw.connect(f.operator).commitAndRequest([withoutFee(commitArgs(f.campaignId, 1, big))], f.fee, { value: 0 }))
        .to.be.revertedWithCustomError(f.draw, "InsufficientFee")
        .withArgs(f.fee, 0);

      // A higher fee quoted later is refused by the same cap.
      await f.entropy.connect(f.provider).setProviderFee(FEE * 2n);
      const doubled = await f.entropy["getFeeV2(address,uint32)"](f.providerAddress, CALLBACK_GAS_LIMIT);
      await expect(sendCommit(f, commitArgs(f.campaignId, 1, { ...big, maxFee: f.fee })))
        .to.be.revertedWithCustomError(f.draw, "FeeAboveCap")
        .withArgs(doubled, f.fee);
      await f.entropy.connect(f.provider).setProviderFee(FEE);

      const value = f.fee + 10n ** 15n;
      const before = await ethers.provider.getBalance(f.operator.address);
      const entropyBefore = await ethers.provider.getBalance(await f.entropy.getAddress());
      const tx = await f.draw.connect(f.operator).commitAndRequest([withoutFee(commitArgs(f.campaignId, 1, big))], 10n ** 16n, { value });
      const receipt = (await tx.wait())!;
      await expect(tx).to.emit(f.draw, "EntropyRequested").withArgs(f.campaignId, 1, f.providerAddress, 1, f.fee, anyValue, 0, 1);
      const gas = receipt.gasUsed * receipt.gasPrice;
      expect(before - (await ethers.provider.getBalance(f.operator.address))).to.equal(f.fee + gas);
      expect(await ethers.provider.getBalance(await f.entropy.getAddress())).to.equal(entropyBefore + f.fee);
      expect(await ethers.provider.getBalance(await f.draw.getAddress())).to.equal(0n);
      expect((await f.entropy.getProviderInfoV2(f.providerAddress)).accruedFeesInWei).to.equal(20_000n);
      expect(await f.entropy.getAccruedPythFees()).to.equal(PYTH_FEE);
    });
  });

  describe("callback", () => {
    it("a reveal sent with an unpadded eth_estimateGas settles the callback's full share of positions", async () => {
      const f = await loadFixture(v2Fixture);
      const perCallback = callbackPositionsOf(CALLBACK_GAS_LIMIT);
      expect(perCallback).to.equal(Math.floor((CALLBACK_GAS_LIMIT - CALLBACK_BASE_GAS) / POSITION_GAS));
      const winners = 300;
      expect(perCallback).to.be.lessThan(winners); // the rest is left for settle()
      const { sequence, user, requestBlock } = await commitV2(f, 1, { winnersExpected: winners });
      expect((await f.entropy.getRequestV2(f.providerAddress, sequence)).gasLimit10k).to.equal(200n);
      const revelation = f.revelation(sequence);
      const estimate = await f.entropy.connect(f.stranger).revealWithCallback.estimateGas(f.providerAddress, sequence, user, revelation);
      const receipt = (await (await f.reveal(sequence, user, { from: f.stranger, gasLimit: estimate })).wait())!;
      expect(revealedOf(f, receipt).callbackFailed).to.equal(false);
      const random = await revealedDrawValue(f, receipt, combineRandomValues(user, revelation), requestBlock);
      const prizes = awarded(f, receipt);
      expect(prizes).to.have.length(perCallback);
      const expected = expectedPrizes(random, f.campaignId, 1n, winners, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, 50_000n);
      expect(prizes).to.deep.equal(expected.slice(0, perCallback));
      let d = await f.draw.getDrawing(f.campaignId, 1);
      expect([d.status, d.settledCount, d.randomValue]).to.deep.equal([STATUS.Revealed, BigInt(perCallback), random]);
      // Anyone finishes the rest.
      const rest = (await (await f.draw.connect(f.stranger).settle(f.campaignId, 1, 1_000)).wait())!;
      expect([...prizes, ...awarded(f, rest)]).to.deep.equal(expected);
      d = await f.draw.getDrawing(f.campaignId, 1);
      expect(d.status).to.equal(STATUS.Settled);
    });

    it("a drawing smaller than the callback's share settles in the callback, with an unpadded estimate", async () => {
      const f = await loadFixture(v2Fixture);
      const { sequence, user } = await commitV2(f, 1, { winnersExpected: 25 });
      const revelation = f.revelation(sequence);
      const estimate = await f.entropy.revealWithCallback.estimateGas(f.providerAddress, sequence, user, revelation);
      const receipt = (await (await f.reveal(sequence, user, { gasLimit: estimate })).wait())!;
      expect(revealedOf(f, receipt).callbackFailed).to.equal(false);
      expect(awarded(f, receipt)).to.have.length(25);
      expect(findEvents(f, receipt, "DrawingSettled")).to.have.length(1);
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(STATUS.Settled);
    });

    it("the callback's share fits the gas it requested in the worst case (16 tiers, the last one rolled, every prize held)", async () => {
      const f = await loadFixture(v2Fixture);
      const worst = { id: encodeBytes32String("worst"), amounts: Array.from({ length: 16 }, (_, i) => BigInt(16 - i) * 100n), weights: [...Array(15).fill(1n), 2_147_483_632n] };
      await f.draw.connect(f.operator).publishPrizeTable(worst.id, 1, worst.amounts, worst.weights);
      await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, 1); // every prize held
      const { sequence, user } = await commitV2(f, 1, { winnersExpected: 1_000, tableId: worst.id });
      // Plenty of gas for the transaction: the callback itself gets exactly its cap.
      const receipt = (await (await f.reveal(sequence, user, { gasLimit: 10_000_000 })).wait())!;
      const revealed = revealedOf(f, receipt);
      expect(revealed.callbackFailed).to.equal(false);
      expect(revealed.callbackGasUsed).to.be.lessThanOrEqual(BigInt(CALLBACK_GAS_LIMIT));
      const prizes = awarded(f, receipt);
      expect(prizes).to.have.length(callbackPositionsOf(CALLBACK_GAS_LIMIT));
      expect(prizes.filter((p) => p.tier === 15n).length).to.be.greaterThan(230);
      expect(prizes.every((p) => p.held)).to.equal(true);
    });

    it("a callback failed with its full cap stays Requested; a stranger's retry with the same values settles it with the same random value, one request only", async () => {
      const f = await loadFixture(v2Fixture);
      const { sequence, user, requestBlock } = await commitV2(f, 1, { winnersExpected: 20 });
      const revelation = f.revelation(sequence);
      const entropyValue = combineRandomValues(user, revelation);
      // The retry mixes in the hash of the commit's block, as the failed attempt would have: the same value.
      const requestBlockHash = await blockHashOf(requestBlock);
      const random = drawValueOf(entropyValue, requestBlockHash);
      const draw = await f.draw.getAddress();
      // The callback gets 10,000 gas of its 2,000,000 cap while the transaction could give it the whole cap.
      await f.entropy.connect(f.deployer).setCallbackGasShortfall(CALLBACK_GAS_LIMIT - 10_000);
      const failed = await f.reveal(sequence, user, { gasLimit: 5_000_000 });
      await expect(failed)
        .to.emit(f.entropy, "CallbackFailed")
        .withArgs(f.providerAddress, draw, sequence, user, revelation, entropyValue, "0x");
      expect(revealedOf(f, (await failed.wait())!).callbackFailed).to.equal(true);
      await expect(failed).to.not.emit(f.draw, "EntropyRevealed");
      expect((await f.entropy.getRequestV2(f.providerAddress, sequence)).callbackStatus).to.equal(CALLBACK_FAILED);
      let d = await f.draw.getDrawing(f.campaignId, 1);
      expect([d.status, d.randomValue, d.settledCount]).to.deep.equal([STATUS.Requested, ZeroHash, 0n]);
      // What is owed is still the commit's reserve of the drawing's worst case: the failed callback settled nothing.
      const worst = worstCaseOf(DEFAULT_TABLE.amounts, 50_000n, 20).totalCents;
      expect((await f.vault.balances()).owedCents).to.equal(worst);
      await expect(f.draw.settle(f.campaignId, 1, 10)).to.be.revertedWithCustomError(f.draw, "NotRevealed");

      // The retry: anyone, the same user number and revelation, no cap.
      const retry = await f.entropy.connect(f.stranger).revealWithCallback(f.providerAddress, sequence, user, revelation);
      await expect(retry)
        .to.emit(f.draw, "EntropyRevealed")
        .withArgs(f.campaignId, 1, f.providerAddress, sequence, entropyValue, requestBlockHash, random);
      const receipt = (await retry.wait())!;
      expect(await revealedDrawValue(f, receipt, entropyValue, requestBlock)).to.equal(random);
      expect(revealedOf(f, receipt).callbackFailed).to.equal(false);
      const prizes = expectedPrizes(random, f.campaignId, 1n, 20, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, 50_000n);
      expect(awarded(f, receipt)).to.deep.equal(prizes);
      d = await f.draw.getDrawing(f.campaignId, 1);
      expect([d.status, d.randomValue, d.settledCount]).to.deep.equal([STATUS.Settled, random, 20n]);
      // Settled, it still owes its worst case until its payout (below).
      expect((await f.vault.balances()).owedCents).to.equal(worst);

      // One request only: one EntropyRequested, the provider's sequence moved once, the request is gone.
      expect(await f.draw.queryFilter(f.draw.filters.EntropyRequested(f.campaignId, 1))).to.have.length(1);
      expect((await f.entropy.getProviderInfoV2(f.providerAddress)).sequenceNumber).to.equal(sequence + 1n);
      expect((await f.entropy.getRequestV2(f.providerAddress, sequence)).sequenceNumber).to.equal(0n);
      await expect(f.reveal(sequence, user, { from: f.stranger })).to.be.revertedWithCustomError(f.entropy, "NoSuchRequest");
      await expect(f.draw.connect(f.stranger).payout(f.campaignId, 1)).to.emit(f.draw, "DrawingPaid");
      expect((await f.vault.balances()).owedCents).to.equal(prizes.filter((p) => p.held).reduce((a, p) => a + p.amountCents, 0n));
    });
  });
});
