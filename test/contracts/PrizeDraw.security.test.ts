import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, mine, time } from "@nomicfoundation/hardhat-network-helpers";
import { anyUint } from "@nomicfoundation/hardhat-chai-matchers/withArgs";
import { encodeBytes32String, keccak256, toUtf8Bytes, ZeroHash } from "ethers";
import type { BlacklistStablecoin, MockEntropy } from "../../typechain-types";
import {
  ADMIN_DELAY,
  CALLBACK_GAS_LIMIT,
  DEFAULT_TABLE,
  DRAW_EPOCH,
  HELD,
  LARGE_DAILY_LIMIT,
  STATUS,
  UNITS_PER_CENT,
  awarded,
  campaignIdOf,
  commit,
  commitAndReveal,
  commitArgs,
  deployFixture,
  deployPrizeDraw,
  randomBytes32,
  reveal,
  sendCommit,
  slotOf,
  userRandomNumberOf,
  winnersFingerprint,
  type Fixture,
} from "./helpers";

const MAX_UINT64 = 2n ** 64n - 1n;
const ADMIN_ROLE = ZeroHash;
const OPERATOR_ROLE = ethers.id("OPERATOR_ROLE");
const GUARDIAN_ROLE = ethers.id("GUARDIAN_ROLE");

/** Tiers 0 and 1 are at or above 1,000 cents (held with threshold 1,000), tier 2 is not. */
const MIXED = { id: encodeBytes32String("mixed"), amounts: [5_000n, 1_000n, 100n], weights: [3n, 3n, 4n] };

describe("PrizeDraw security", () => {
  describe("a rogue operator re-drawing a list", () => {
    it("is refused under the same slot or an earlier draw time; under a made-up slot and a later time it goes through, on the record", async () => {
      const f = await loadFixture(deployFixture);
      const list = winnersFingerprint(["w-1", "w-2", "w-3"]);
      const first = commitArgs(f.campaignId, 1, { listCommitment: list });
      await commit(f, first);

      // The same list again under the same slot (a retried or replayed drawing).
      await expect(sendCommit(f, commitArgs(f.campaignId, 2, { listCommitment: list, slot: first.slot as string })))
        .to.be.revertedWithCustomError(f.draw, "SlotAlreadyUsed")
        .withArgs(f.campaignId, first.slot, 1);
      // Under a new slot but not later than the last commit (back-dating a drawing).
      for (const drawAt of [BigInt(first.drawAt), BigInt(first.drawAt) - 1n]) {
        await expect(sendCommit(f, commitArgs(f.campaignId, 2, { listCommitment: list, slot: slotOf("drw_made_up"), drawAt })))
          .to.be.revertedWithCustomError(f.draw, "DrawTimeNotLater")
          .withArgs(f.campaignId, first.drawAt, drawAt);
      }
      expect(await f.draw.numberOfSlot(f.campaignId, slotOf("drw_made_up"))).to.equal(0n);

      // A made-up slot with a later draw time is accepted: the offchain campaign audit catches a slot the
      // service never scheduled. The commit puts the slot and the draw time on the record.
      const madeUp = slotOf("drw_made_up");
      const rogueAt = BigInt(first.drawAt) + 60n;
      const rogue = commitArgs(f.campaignId, 2, { listCommitment: list, slot: madeUp, drawAt: rogueAt });
      const tx = sendCommit(f, rogue);
      await expect(tx)
        .to.emit(f.draw, "DrawingCommitted")
        .withArgs(f.campaignId, 2, madeUp, rogueAt, 0, list, 3, 0, 0, DEFAULT_TABLE.id, 1, 50_000, f.wallet.address);
      const user = userRandomNumberOf(f.campaignId, 2, madeUp, list);
      await expect(tx).to.emit(f.draw, "EntropyRequested").withArgs(f.campaignId, 2, f.provider.address, 2, 0, user, 0, 1);
      // Its random value is requested with another user number than the first drawing's.
      expect(user).to.not.equal(userRandomNumberOf(f.campaignId, 1, first.slot as string, list));
      expect(await f.draw.numberOfSlot(f.campaignId, madeUp)).to.equal(2n);
      expect((await f.draw.getCampaignTerms(f.campaignId)).lastDrawAt).to.equal(rogueAt);
      // The slot is indexed: an auditor finds the commit of any slot directly.
      const bySlot = await f.draw.queryFilter(f.draw.filters.DrawingCommitted(f.campaignId, undefined, madeUp));
      expect(bySlot.map((e) => [e.args.number, e.args.drawAt])).to.deep.equal([[2n, rogueAt]]);
    });
  });

  describe("a thief holding the operator key", () => {
    const LIMIT = 1_000_000n; // cents per 24 hours: at most 500,000 at once
    const GENEROUS = { id: encodeBytes32String("generous"), amounts: [100_000n, 100_000n], weights: [1n, 1n] };
    const LOOT = campaignIdOf("thief-cash");

    async function thiefFixture() {
      const f = await deployFixture();
      await f.draw.connect(f.admin).setDailyLimit(LIMIT);
      return f;
    }

    it("registers a campaign paying itself with a generous table: payouts stop at the overall limit", async () => {
      const f = await loadFixture(thiefFixture);
      const op = f.draw.connect(f.operator);
      await op.registerCampaign(LOOT, f.thief.address, MAX_UINT64, 0, 0); // nothing held for manual checks
      await op.publishPrizeTable(GENEROUS.id, 1, GENEROUS.amounts, GENEROUS.weights);
      let num = 0;
      const drawOne = async (winners: number) => {
        num++;
        await commitAndReveal(f, LOOT, num, randomBytes32(), { tableId: GENEROUS.id, winnersExpected: winners });
        return num;
      };
      // Five payouts of 100,000 cents use the 500,000 available at once; the sixth exceeds it.
      for (let i = 0; i < 5; i++) await f.draw.connect(f.thief).payout(LOOT, await drawOne(1));
      const sixth = await drawOne(1);
      await expect(f.draw.connect(f.thief).payout(LOOT, sixth))
        .to.be.revertedWithCustomError(f.draw, "LimitExceeded")
        .withArgs(ZeroHash, 100_000n, anyUint);
      expect(await f.token.balanceOf(f.thief.address)).to.equal(500_000n * UNITS_PER_CENT);
      // A drawing worth more than half the limit can never be paid, however long the thief waits.
      const big = await drawOne(6);
      await time.increase(3 * 24 * 3600);
      expect((await f.draw.paymentState()).availableCents).to.equal(LIMIT / 2n);
      await expect(f.draw.connect(f.thief).payout(LOOT, big))
        .to.be.revertedWithCustomError(f.draw, "LimitExceeded")
        .withArgs(ZeroHash, 600_000n, LIMIT / 2n);
      // The guardian stops what is left; the admin can then lower the limit before resuming.
      await f.draw.connect(f.guardian).pause();
      await expect(f.draw.connect(f.thief).payout(LOOT, sixth)).to.be.revertedWithCustomError(f.draw, "PaymentsArePaused");
      expect(await f.token.balanceOf(f.thief.address)).to.equal(500_000n * UNITS_PER_CENT);
    });

    it("repeated guarantees: exactly the registered amount, once per period, only for periods with a committed drawing, and within the limit", async () => {
      const f = await loadFixture(thiefFixture);
      const op = f.draw.connect(f.operator);
      const id = campaignIdOf("thief-guarantee");
      const winner = keccak256(toUtf8Bytes("accomplice"));
      await expect(op.registerCampaign(id, f.thief.address, 50_000, 100_000_001n, 24 * 3600))
        .to.be.revertedWithCustomError(f.draw, "InvalidGuaranteeTerms")
        .withArgs(100_000_001n, 24 * 3600);
      await op.registerCampaign(id, f.thief.address, 50_000, 100_000_000n, 24 * 3600);
      await expect(op.pickGuarantee(id, 0, winner)).to.be.revertedWithCustomError(f.draw, "GuaranteePeriodNotDrawn").withArgs(id, 0, 0);
      await commit(f, commitArgs(id, 1));
      await expect(op.pickGuarantee(id, 0, winner))
        .to.emit(f.draw, "GuaranteePicked")
        .withArgs(id, 0, winner, f.thief.address, 100_000_000n);
      await expect(op.pickGuarantee(id, 0, winner)).to.be.revertedWithCustomError(f.draw, "GuaranteeAlreadyPicked").withArgs(id, 0);
      await expect(op.pickGuarantee(id, 0, keccak256(toUtf8Bytes("someone else"))))
        .to.be.revertedWithCustomError(f.draw, "GuaranteeAlreadyPicked")
        .withArgs(id, 0);
      await expect(op.pickGuarantee(id, 1, winner)).to.be.revertedWithCustomError(f.draw, "GuaranteePeriodNotDrawn").withArgs(id, 1, 1);
      await expect(op.pickGuarantee(id, 4_000_000_000, winner))
        .to.be.revertedWithCustomError(f.draw, "GuaranteePeriodNotDrawn")
        .withArgs(id, 4_000_000_000, 1);
      expect(await f.draw.getGuarantee(id, 0)).to.deep.equal([1n, f.thief.address, 100_000_000n]);
      // Every commit opens one more period, and draw times need only increase, so the limit is what bounds it.
      await commit(f, commitArgs(id, 2));
      await expect(op.pickGuarantee(id, 1, winner)).to.emit(f.draw, "GuaranteePicked").withArgs(id, 1, winner, f.thief.address, 100_000_000n);
      expect((await f.draw.balances()).owedCents).to.equal(200_000_000n);
      for (const period of [0, 1]) {
        await expect(f.draw.connect(f.thief).payGuarantee(id, period))
          .to.be.revertedWithCustomError(f.draw, "LimitExceeded")
          .withArgs(ZeroHash, 100_000_000n, anyUint);
      }
      expect(await f.token.balanceOf(f.thief.address)).to.equal(0n);
    });

    it("changing the campaign's wallet after a commit does not redirect the drawing's prizes", async () => {
      const f = await loadFixture(thiefFixture);
      await f.draw.connect(f.operator).publishPrizeTable(MIXED.id, 1, MIXED.amounts, MIXED.weights);
      await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, 1_000);
      const sequence = await commit(f, commitArgs(f.campaignId, 1, { winnersExpected: 10, tableId: MIXED.id }));
      await expect(f.draw.connect(f.operator).setPayoutWallet(f.campaignId, f.thief.address))
        .to.emit(f.draw, "PayoutWalletChanged")
        .withArgs(f.campaignId, f.wallet.address, f.thief.address);
      const prizes = awarded(f, await reveal(f, sequence, keccak256(toUtf8Bytes("redirect"))));
      const d = await f.draw.getDrawing(f.campaignId, 1);
      expect(d.payoutWallet).to.equal(f.wallet.address);
      expect(d.payoutCents).to.be.greaterThan(0n);
      const held = prizes.find((p) => p.held)!;
      expect(held).to.not.equal(undefined);
      const payout = f.draw.connect(f.thief).payout(f.campaignId, 1);
      await expect(payout).to.emit(f.draw, "DrawingPaid").withArgs(f.campaignId, 1, f.wallet.address, d.payoutCents, d.payoutCents * UNITS_PER_CENT);
      await expect(payout).to.changeTokenBalances(f.token, [f.wallet, f.thief], [d.payoutCents * UNITS_PER_CENT, 0n]);
      await expect(f.draw.connect(f.operator).payHeldPrize(f.campaignId, 1, held.position)).to.changeTokenBalances(
        f.token,
        [f.wallet, f.thief],
        [held.amountCents * UNITS_PER_CENT, 0n],
      );
      // Only the next commit uses the new wallet.
      const next = commitArgs(f.campaignId, 2);
      await expect(sendCommit(f, next)).to.emit(f.draw, "DrawingCommitted").withArgs(
        f.campaignId, 2, next.slot, next.drawAt, 0, next.listCommitment, 3, 0, 0, DEFAULT_TABLE.id, 1, 1_000, f.thief.address,
      );
    });

    it("cannot withdraw, move a drawing's wallet, change limits, resume payments or add accomplices", async () => {
      const f = await loadFixture(thiefFixture);
      await commitAndReveal(f, f.campaignId, 1, randomBytes32());
      await f.draw.connect(f.operator).setPayoutWallet(f.campaignId, f.thief.address);
      const op = f.draw.connect(f.operator);
      const unauthorized = (call: Promise<unknown>) =>
        expect(call).to.be.revertedWithCustomError(f.draw, "AccessControlUnauthorizedAccount").withArgs(f.operator.address, ADMIN_ROLE);
      await unauthorized(op.withdrawTokens(f.thief.address, 1));
      await unauthorized(op.withdrawNative(f.thief.address, 0));
      await unauthorized(op.moveDrawingWallet(f.campaignId, 1, f.thief.address));
      await unauthorized(op.moveGuaranteeWallet(f.campaignId, 0, f.thief.address));
      await unauthorized(op.setDailyLimit(LARGE_DAILY_LIMIT));
      await unauthorized(op.setCampaignLimit(f.campaignId, 0));
      await unauthorized(op.grantRole(OPERATOR_ROLE, f.thief.address));
      await unauthorized(op.revokeRole(GUARDIAN_ROLE, f.guardian.address));
      await unauthorized(op.beginAdminTransfer(f.thief.address));
      await unauthorized(op.setCallbackGasLimit(CALLBACK_GAS_LIMIT));
      await f.draw.connect(f.guardian).pause();
      await unauthorized(op.unpause());
      await expect(op.pause()).to.be.revertedWithCustomError(f.draw, "AccessControlUnauthorizedAccount").withArgs(f.operator.address, GUARDIAN_ROLE);
      expect((await f.draw.getDrawing(f.campaignId, 1)).payoutWallet).to.equal(f.wallet.address);
      expect(await f.draw.hasRole(OPERATOR_ROLE, f.thief.address)).to.equal(false);
    });
  });

  describe("the admin's withdrawals", () => {
    it("can never take owed money: exactly the free balance leaves, one unit more is refused", async () => {
      const f = await loadFixture(deployFixture);
      await commitAndReveal(f, f.campaignId, 1, randomBytes32(), { winnersExpected: 20 });
      const [balance, owedCents, owedUnits, free] = await f.draw.balances();
      expect(owedCents).to.be.greaterThan(0n);
      expect(free).to.equal(balance - owedUnits);
      await expect(f.draw.connect(f.admin).withdrawTokens(f.admin.address, free + 1n))
        .to.be.revertedWithCustomError(f.draw, "WithdrawalExceedsFree")
        .withArgs(free + 1n, free);
      await expect(f.draw.connect(f.admin).withdrawTokens(ethers.ZeroAddress, 1)).to.be.revertedWithCustomError(f.draw, "ZeroAddress");
      const tx = f.draw.connect(f.admin).withdrawTokens(f.other.address, free);
      await expect(tx).to.emit(f.draw, "TokensWithdrawn").withArgs(f.other.address, free);
      await expect(tx).to.changeTokenBalances(f.token, [f.draw, f.other], [-free, free]);
      expect(await f.draw.balances()).to.deep.equal([owedUnits, owedCents, owedUnits, 0n]);
      await expect(f.draw.connect(f.admin).withdrawTokens(f.admin.address, 1))
        .to.be.revertedWithCustomError(f.draw, "WithdrawalExceedsFree")
        .withArgs(1, 0);
      // What is owed is still paid.
      await f.draw.connect(f.stranger).payout(f.campaignId, 1);
      const [, owedAfter, owedUnitsAfter, freeAfter] = await f.draw.balances();
      expect(freeAfter).to.equal(0n);
      expect(await f.token.balanceOf(await f.draw.getAddress())).to.equal(owedUnitsAfter);
      expect(owedAfter).to.equal((await f.draw.getDrawing(f.campaignId, 1)).heldCents);
    });
  });

  describe("pause", () => {
    const GUARANTEED = campaignIdOf("paused-guarantee");

    async function pausableFixture() {
      const f = await deployFixture();
      await f.draw.connect(f.operator).publishPrizeTable(MIXED.id, 1, MIXED.amounts, MIXED.weights);
      await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, 1_000);
      const prizes = awarded(f, await commitAndReveal(f, f.campaignId, 1, keccak256(toUtf8Bytes("pause")), { winnersExpected: 10, tableId: MIXED.id }));
      await f.draw.connect(f.operator).registerCampaign(GUARANTEED, f.wallet.address, 50_000, 2_500, 24 * 3600);
      await commit(f, commitArgs(GUARANTEED, 1));
      await f.draw.connect(f.operator).pickGuarantee(GUARANTEED, 0, keccak256(toUtf8Bytes("w")));
      const held = prizes.filter((p) => p.held).map((p) => p.position);
      expect(held.length).to.be.greaterThan(1);
      return { ...f, held };
    }

    it("the guardian's pause stops every payment and the operator's actions on what is owed from the very next block; only the admin resumes", async () => {
      const f = await loadFixture(pausableFixture);
      const pause = await f.draw.connect(f.guardian).pause();
      await expect(pause).to.emit(f.draw, "PaymentsPaused").withArgs(f.guardian.address);
      expect((await f.draw.paymentState()).paused).to.equal(true);
      const pausedIn = (await pause.wait())!.blockNumber;
      const payout = f.draw.connect(f.stranger).payout(f.campaignId, 1);
      await expect(payout).to.be.revertedWithCustomError(f.draw, "PaymentsArePaused");
      expect(await ethers.provider.getBlockNumber()).to.equal(pausedIn + 1); // the failed payout was mined in the next block
      await expect(f.draw.connect(f.operator).payHeldPrize(f.campaignId, 1, f.held[0])).to.be.revertedWithCustomError(f.draw, "PaymentsArePaused");
      await expect(f.draw.connect(f.stranger).payGuarantee(GUARANTEED, 0)).to.be.revertedWithCustomError(f.draw, "PaymentsArePaused");
      // Nor can the operator key create, release or redirect what is owed: a refusal, a commit, a pick, a new
      // campaign, a threshold. A wallet change is allowed (it moves nothing owed) and so is publishing a table.
      const op = f.draw.connect(f.operator);
      const pausedForOperator = [
        () => op.refuseHeldPrize(f.campaignId, 1, f.held[1], "failed checks"),
        () => sendCommit(f, commitArgs(GUARANTEED, 2)),
        () => op.pickGuarantee(GUARANTEED, 1, keccak256(toUtf8Bytes("w"))),
        () => op.registerCampaign(campaignIdOf("thief-campaign"), f.stranger.address, 50_000, 0, 0),
        () => op.setLargePrizeThreshold(f.campaignId, MAX_UINT64),
      ];
      for (const call of pausedForOperator) await expect(call()).to.be.revertedWithCustomError(f.draw, "EnforcedPause");
      // The role is checked before the pause: others still learn they are not the operator.
      await expect(f.draw.connect(f.stranger).pickGuarantee(GUARANTEED, 1, keccak256(toUtf8Bytes("w"))))
        .to.be.revertedWithCustomError(f.draw, "AccessControlUnauthorizedAccount")
        .withArgs(f.stranger.address, OPERATOR_ROLE);
      await expect(op.setPayoutWallet(GUARANTEED, f.other.address)).to.emit(f.draw, "PayoutWalletChanged");
      await op.setPayoutWallet(GUARANTEED, f.wallet.address);

      await expect(f.draw.connect(f.guardian).unpause())
        .to.be.revertedWithCustomError(f.draw, "AccessControlUnauthorizedAccount")
        .withArgs(f.guardian.address, ADMIN_ROLE);
      await expect(f.draw.connect(f.stranger).pause())
        .to.be.revertedWithCustomError(f.draw, "AccessControlUnauthorizedAccount")
        .withArgs(f.stranger.address, GUARDIAN_ROLE);
      await mine(100);
      await expect(f.draw.connect(f.stranger).payout(f.campaignId, 1)).to.be.revertedWithCustomError(f.draw, "PaymentsArePaused");
      await expect(f.draw.connect(f.admin).unpause()).to.emit(f.draw, "PaymentsResumed").withArgs(f.admin.address);
      await expect(f.draw.connect(f.admin).unpause()).to.be.revertedWithCustomError(f.draw, "NotPaused");
      await expect(f.draw.connect(f.stranger).payout(f.campaignId, 1)).to.emit(f.draw, "DrawingPaid");
      await expect(f.draw.connect(f.operator).payHeldPrize(f.campaignId, 1, f.held[0])).to.emit(f.draw, "HeldPrizePaid");
      await expect(f.draw.connect(f.stranger).payGuarantee(GUARANTEED, 0)).to.emit(f.draw, "GuaranteePaid");
      // Resumed, the operator goes on where it stopped.
      await expect(op.refuseHeldPrize(f.campaignId, 1, f.held[1], "failed checks")).to.emit(f.draw, "HeldPrizeRefused");
      await commit(f, commitArgs(GUARANTEED, 2));
      await expect(op.pickGuarantee(GUARANTEED, 1, keccak256(toUtf8Bytes("w")))).to.emit(f.draw, "GuaranteePicked");
    });

    it("the admin may pause too", async () => {
      const f = await loadFixture(pausableFixture);
      await expect(f.draw.connect(f.admin).pause()).to.emit(f.draw, "PaymentsPaused").withArgs(f.admin.address);
      await expect(f.draw.connect(f.stranger).payout(f.campaignId, 1)).to.be.revertedWithCustomError(f.draw, "PaymentsArePaused");
    });
  });

  describe("24-hour limits", () => {
    it("an allowance holds half the limit and refills half per day; a campaign limit applies on top", async () => {
      const f = await loadFixture(deployFixture);
      await expect(f.draw.connect(f.admin).setDailyLimit(1_000_000n)).to.emit(f.draw, "LimitChanged").withArgs(ZeroHash, LARGE_DAILY_LIMIT, 1_000_000n);
      expect(await f.draw.paymentState()).to.deep.equal([1_000_000n, 500_000n, false]);
      await expect(f.draw.connect(f.admin).setDailyLimit(1)).to.be.revertedWithCustomError(f.draw, "InvalidLimit").withArgs(1);
      await expect(f.draw.connect(f.admin).setCampaignLimit(f.campaignId, 20_000n))
        .to.emit(f.draw, "LimitChanged")
        .withArgs(f.campaignId, 0, 20_000n);
      expect(await f.draw.campaignAllowance(f.campaignId)).to.deep.equal([20_000n, 10_000n]);
      const FLAT = { id: encodeBytes32String("flat"), amounts: [3_000n, 3_000n], weights: [1n, 1n] };
      await f.draw.connect(f.operator).publishPrizeTable(FLAT.id, 1, FLAT.amounts, FLAT.weights);
      for (let num = 1; num <= 5; num++) await commitAndReveal(f, f.campaignId, num, randomBytes32(), { winnersExpected: 1, tableId: FLAT.id });
      // Three payouts of 3,000 fit the campaign's 10,000; the fourth does not, though the overall limit allows it.
      for (let num = 1; num <= 3; num++) await f.draw.payout(f.campaignId, num);
      await expect(f.draw.payout(f.campaignId, 4))
        .to.be.revertedWithCustomError(f.draw, "LimitExceeded")
        .withArgs(f.campaignId, 3_000n, anyUint);
      expect((await f.draw.paymentState()).availableCents).to.be.greaterThan(100_000n);
      // After 12 hours, a quarter of the limit more is available (half the limit per day).
      await time.increase(12 * 3600);
      expect((await f.draw.campaignAllowance(f.campaignId)).availableCents).to.be.greaterThanOrEqual(6_000n);
      await f.draw.payout(f.campaignId, 4);
      await expect(f.draw.connect(f.admin).setCampaignLimit(f.campaignId, 0)).to.emit(f.draw, "LimitChanged").withArgs(f.campaignId, 20_000n, 0);
      expect(await f.draw.campaignAllowance(f.campaignId)).to.deep.equal([0n, 0n]);
      await f.draw.payout(f.campaignId, 5);
    });
  });

  describe("24-hour limits, exactly", () => {
    it("an emptied allowance refills at exactly half the limit per day, never above half: any 24 hours pay at most the limit", async () => {
      const f = await loadFixture(deployFixture);
      const LIMIT = 1_000_000n;
      const FLAT = { id: encodeBytes32String("flat"), amounts: [100_000n, 100_000n], weights: [1n, 1n] };
      await f.draw.connect(f.admin).setDailyLimit(LIMIT);
      await f.draw.connect(f.operator).publishPrizeTable(FLAT.id, 1, FLAT.amounts, FLAT.weights);
      await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, MAX_UINT64); // nothing held
      const BIG = 16; // 3 winners: 300,000
      for (let n = 1; n <= BIG; n++) await commitAndReveal(f, f.campaignId, n, randomBytes32(), { winnersExpected: n === BIG ? 3 : 1, tableId: FLAT.id });
      // Empty the allowance: five payouts of 100,000, the first at t0.
      const first = await f.draw.payout(f.campaignId, 1);
      const t0 = (await ethers.provider.getBlock(first.blockNumber!))!.timestamp;
      for (let n = 2; n <= 5; n++) await f.draw.payout(f.campaignId, n);
      const t1 = (await ethers.provider.getBlock("latest"))!.timestamp;
      const [, availableAfter] = await f.draw.paymentState();
      expect(availableAfter).to.be.lessThan(1_000n); // a few seconds of refill
      // From the last payment, the refill is linear at LIMIT / 2 per 86,400 seconds.
      for (const after of [3_600, 21_600]) {
        await time.increaseTo(t1 + after);
        expect((await f.draw.paymentState()).availableCents, `${after} s after`).to.equal(availableAfter + (BigInt(after) * LIMIT) / 2n / 86_400n);
      }
      // Twelve hours after t0 a quarter of the limit is back: two more payouts fit, a third does not.
      await time.setNextBlockTimestamp(t0 + 43_200);
      await f.draw.payout(f.campaignId, 6);
      await f.draw.payout(f.campaignId, 7);
      await expect(f.draw.payout(f.campaignId, 8)).to.be.revertedWithCustomError(f.draw, "LimitExceeded");
      // At the end of the 24 hours from t0, pay whatever fits, one payout a second up to t0 + 86,400.
      await time.setNextBlockTimestamp(t0 + 86_397);
      let n = 8;
      while (n < BIG) {
        try {
          await f.draw.payout(f.campaignId, n);
          n++;
        } catch {
          break;
        }
      }
      expect((await ethers.provider.getBlock("latest"))!.timestamp).to.be.lessThanOrEqual(t0 + 86_400);
      const paidEvents = await f.draw.queryFilter(f.draw.filters.DrawingPaid(f.campaignId));
      let inWindow = 0n;
      for (const e of paidEvents) {
        const ts = (await e.getBlock()).timestamp;
        if (ts >= t0 && ts <= t0 + 86_400) inWindow += e.args.amountCents;
      }
      // Half the limit at once plus half refilled over the day: the whole limit, less what rounding keeps.
      expect(inWindow).to.be.lessThanOrEqual(LIMIT);
      expect(inWindow).to.be.greaterThanOrEqual(LIMIT - 100_000n);
      // However long nothing is paid, at most half the limit leaves at once: a 300,000 drawing waits forever
      // next to 100,000 ones that pay.
      await time.increase(30 * 86_400);
      expect((await f.draw.paymentState()).availableCents).to.equal(LIMIT / 2n);
      for (const single of [n, n + 1, n + 2]) await f.draw.payout(f.campaignId, single);
      await expect(f.draw.payout(f.campaignId, BIG))
        .to.be.revertedWithCustomError(f.draw, "LimitExceeded")
        .withArgs(ZeroHash, 300_000n, anyUint);
      expect((await f.draw.paymentState()).availableCents).to.be.lessThan(LIMIT / 2n - 200_000n + 100n);
    });
  });

  describe("roles", () => {
    async function rolesFixture() {
      const f = await deployFixture();
      const factory = await ethers.getContractFactory("PrizeDraw");
      return { ...f, factory };
    }

    it("keeps admin, operator and guardian on distinct accounts, at construction and on every grant", async () => {
      const f = await loadFixture(rolesFixture);
      const [entropy, token] = [await f.mock.getAddress(), await f.token.getAddress()];
      const deploy = (admin: string, operator: string, guardian: string) =>
        f.factory.deploy(entropy, token, admin, operator, guardian, ADMIN_DELAY, CALLBACK_GAS_LIMIT, LARGE_DAILY_LIMIT);
      await expect(deploy(f.admin.address, f.admin.address, f.guardian.address))
        .to.be.revertedWithCustomError(f.draw, "RoleConflict")
        .withArgs(f.admin.address, ADMIN_ROLE);
      await expect(deploy(f.admin.address, f.operator.address, f.operator.address))
        .to.be.revertedWithCustomError(f.draw, "RoleConflict")
        .withArgs(f.operator.address, OPERATOR_ROLE);
      await expect(deploy(f.admin.address, f.operator.address, f.admin.address))
        .to.be.revertedWithCustomError(f.draw, "RoleConflict")
        .withArgs(f.admin.address, ADMIN_ROLE);

      const asAdmin = f.draw.connect(f.admin);
      await expect(asAdmin.grantRole(OPERATOR_ROLE, f.guardian.address)).to.be.revertedWithCustomError(f.draw, "RoleConflict").withArgs(f.guardian.address, GUARDIAN_ROLE);
      await expect(asAdmin.grantRole(OPERATOR_ROLE, f.admin.address)).to.be.revertedWithCustomError(f.draw, "RoleConflict").withArgs(f.admin.address, ADMIN_ROLE);
      await expect(asAdmin.grantRole(GUARDIAN_ROLE, f.operator.address)).to.be.revertedWithCustomError(f.draw, "RoleConflict").withArgs(f.operator.address, OPERATOR_ROLE);
      await expect(asAdmin.grantRole(GUARDIAN_ROLE, f.admin.address)).to.be.revertedWithCustomError(f.draw, "RoleConflict").withArgs(f.admin.address, ADMIN_ROLE);
      await expect(asAdmin.grantRole(OPERATOR_ROLE, ethers.ZeroAddress)).to.be.revertedWithCustomError(f.draw, "ZeroAddress");
      // A second operator on a fresh account is fine; rotating the guardian too.
      await expect(asAdmin.grantRole(OPERATOR_ROLE, f.other.address)).to.emit(f.draw, "RoleGranted").withArgs(OPERATOR_ROLE, f.other.address, f.admin.address);
      await asAdmin.revokeRole(GUARDIAN_ROLE, f.guardian.address);
      await asAdmin.grantRole(GUARDIAN_ROLE, f.stranger.address);
      await expect(f.draw.connect(f.guardian).pause()).to.be.revertedWithCustomError(f.draw, "AccessControlUnauthorizedAccount");
      await expect(f.draw.connect(f.stranger).pause()).to.emit(f.draw, "PaymentsPaused");
    });

    it("moves the admin role only in two steps, after the delay; the old admin loses it", async () => {
      const f = await loadFixture(rolesFixture);
      const asAdmin = f.draw.connect(f.admin);
      for (const call of [
        () => asAdmin.grantRole(ADMIN_ROLE, f.newAdmin.address),
        () => asAdmin.revokeRole(ADMIN_ROLE, f.admin.address),
        () => asAdmin.renounceRole(ADMIN_ROLE, f.admin.address),
      ]) {
        await expect(call()).to.be.revertedWithCustomError(f.draw, "AdminTransferRequired");
      }
      await expect(f.draw.connect(f.newAdmin).acceptAdminTransfer()).to.be.revertedWithCustomError(f.draw, "NoAdminTransfer");
      await expect(asAdmin.cancelAdminTransfer()).to.be.revertedWithCustomError(f.draw, "NoAdminTransfer");

      const begin = await asAdmin.beginAdminTransfer(f.newAdmin.address);
      const acceptableAt = (await ethers.provider.getBlock(begin.blockNumber!))!.timestamp + ADMIN_DELAY;
      await expect(begin).to.emit(f.draw, "AdminTransferStarted").withArgs(f.newAdmin.address, acceptableAt);
      expect([await f.draw.pendingAdmin(), await f.draw.pendingAdminAcceptableAt()]).to.deep.equal([f.newAdmin.address, BigInt(acceptableAt)]);
      await expect(f.draw.connect(f.stranger).acceptAdminTransfer()).to.be.revertedWithCustomError(f.draw, "NoAdminTransfer");
      await expect(f.draw.connect(f.newAdmin).acceptAdminTransfer())
        .to.be.revertedWithCustomError(f.draw, "AdminTransferNotReady")
        .withArgs(acceptableAt);
      // The old admin still acts during the delay.
      await asAdmin.setDailyLimit(LARGE_DAILY_LIMIT);
      await time.setNextBlockTimestamp(acceptableAt - 1);
      await expect(f.draw.connect(f.newAdmin).acceptAdminTransfer())
        .to.be.revertedWithCustomError(f.draw, "AdminTransferNotReady")
        .withArgs(acceptableAt);

      await time.setNextBlockTimestamp(acceptableAt);
      const accept = f.draw.connect(f.newAdmin).acceptAdminTransfer();
      await expect(accept).to.emit(f.draw, "RoleRevoked").withArgs(ADMIN_ROLE, f.admin.address, f.newAdmin.address);
      await expect(accept).to.emit(f.draw, "RoleGranted").withArgs(ADMIN_ROLE, f.newAdmin.address, f.newAdmin.address);
      expect(await f.draw.hasRole(ADMIN_ROLE, f.admin.address)).to.equal(false);
      expect(await f.draw.hasRole(ADMIN_ROLE, f.newAdmin.address)).to.equal(true);
      expect(await f.draw.admin()).to.equal(f.newAdmin.address);
      expect(await f.draw.pendingAdmin()).to.equal(ethers.ZeroAddress);
      await expect(asAdmin.setDailyLimit(10))
        .to.be.revertedWithCustomError(f.draw, "AccessControlUnauthorizedAccount")
        .withArgs(f.admin.address, ADMIN_ROLE);
      await expect(f.draw.connect(f.newAdmin).setDailyLimit(10)).to.emit(f.draw, "LimitChanged");
      await expect(f.draw.connect(f.newAdmin).grantRole(ADMIN_ROLE, f.admin.address)).to.be.revertedWithCustomError(f.draw, "AdminTransferRequired");
      await expect(f.draw.connect(f.newAdmin).renounceRole(ADMIN_ROLE, f.newAdmin.address)).to.be.revertedWithCustomError(f.draw, "AdminTransferRequired");
    });

    it("a transfer can be canceled or replaced, and never lands on the operator or the guardian", async () => {
      const f = await loadFixture(rolesFixture);
      const asAdmin = f.draw.connect(f.admin);
      await asAdmin.beginAdminTransfer(f.stranger.address);
      await expect(asAdmin.cancelAdminTransfer()).to.emit(f.draw, "AdminTransferCanceled").withArgs(f.stranger.address);
      await time.increase(ADMIN_DELAY);
      await expect(f.draw.connect(f.stranger).acceptAdminTransfer()).to.be.revertedWithCustomError(f.draw, "NoAdminTransfer");

      await asAdmin.beginAdminTransfer(f.stranger.address);
      await asAdmin.beginAdminTransfer(f.operator.address); // replaces the first
      await time.increase(ADMIN_DELAY);
      await expect(f.draw.connect(f.stranger).acceptAdminTransfer()).to.be.revertedWithCustomError(f.draw, "NoAdminTransfer");
      await expect(f.draw.connect(f.operator).acceptAdminTransfer())
        .to.be.revertedWithCustomError(f.draw, "RoleConflict")
        .withArgs(f.operator.address, OPERATOR_ROLE);
      expect(await f.draw.admin()).to.equal(f.admin.address);
      expect(await f.draw.hasRole(ADMIN_ROLE, f.admin.address)).to.equal(true);
    });
  });

  describe("held prizes", () => {
    async function heldFixture() {
      const f = await deployFixture();
      await f.draw.connect(f.operator).publishPrizeTable(MIXED.id, 1, MIXED.amounts, MIXED.weights);
      await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, 1_000);
      const prizes = awarded(f, await commitAndReveal(f, f.campaignId, 1, keccak256(toUtf8Bytes("held")), { winnersExpected: 10, tableId: MIXED.id }));
      const held = prizes.filter((p) => p.held);
      const notHeld = prizes.filter((p) => !p.held);
      expect(held.length).to.be.greaterThanOrEqual(3);
      expect(notHeld.length).to.be.greaterThanOrEqual(1);
      return { ...f, held, notHeld };
    }

    it("pays or refuses each held prize once, with its events, and refusal lowers what is owed", async () => {
      const f = await loadFixture(heldFixture);
      const op = f.draw.connect(f.operator);
      const [a, b] = f.held;
      let d = await f.draw.getDrawing(f.campaignId, 1);
      expect(d.heldCount).to.equal(BigInt(f.held.length));
      expect(d.heldClosed).to.equal(0n);
      expect(d.heldCents).to.equal(f.held.reduce((s, p) => s + p.amountCents, 0n));
      expect(await f.draw.heldPrizeState(f.campaignId, 1, a.position)).to.equal(HELD.Open);

      const pay = op.payHeldPrize(f.campaignId, 1, a.position);
      await expect(pay)
        .to.emit(f.draw, "HeldPrizePaid")
        .withArgs(f.campaignId, 1, a.position, f.wallet.address, a.amountCents, a.amountCents * UNITS_PER_CENT);
      await expect(pay).to.changeTokenBalance(f.token, f.wallet, a.amountCents * UNITS_PER_CENT);
      expect(await f.draw.heldPrizeState(f.campaignId, 1, a.position)).to.equal(HELD.Paid);

      await expect(op.refuseHeldPrize(f.campaignId, 1, b.position, "")).to.be.revertedWithCustomError(f.draw, "ReasonRequired");
      const [, owedBefore] = await f.draw.balances();
      const refuse = op.refuseHeldPrize(f.campaignId, 1, b.position, "winner failed identity checks");
      await expect(refuse)
        .to.emit(f.draw, "HeldPrizeRefused")
        .withArgs(f.campaignId, 1, b.position, b.amountCents, "winner failed identity checks");
      await expect(refuse).to.changeTokenBalances(f.token, [f.draw, f.wallet], [0n, 0n]);
      expect((await f.draw.balances()).owedCents).to.equal(owedBefore - b.amountCents);
      expect(await f.draw.heldPrizeState(f.campaignId, 1, b.position)).to.equal(HELD.Refused);

      for (const p of [a, b]) {
        await expect(op.payHeldPrize(f.campaignId, 1, p.position)).to.be.revertedWithCustomError(f.draw, "HeldPrizeClosed").withArgs(f.campaignId, 1, p.position);
        await expect(op.refuseHeldPrize(f.campaignId, 1, p.position, "again")).to.be.revertedWithCustomError(f.draw, "HeldPrizeClosed").withArgs(f.campaignId, 1, p.position);
      }
      const n = f.notHeld[0].position;
      await expect(op.payHeldPrize(f.campaignId, 1, n)).to.be.revertedWithCustomError(f.draw, "NotHeldPrize").withArgs(f.campaignId, 1, n);
      await expect(op.refuseHeldPrize(f.campaignId, 1, n, "no")).to.be.revertedWithCustomError(f.draw, "NotHeldPrize").withArgs(f.campaignId, 1, n);
      d = await f.draw.getDrawing(f.campaignId, 1);
      expect(d.heldClosed).to.equal(2n);
      // The drawing's payout is unaffected by held prizes.
      await expect(f.draw.payout(f.campaignId, 1)).to.emit(f.draw, "DrawingPaid").withArgs(f.campaignId, 1, f.wallet.address, d.payoutCents, d.payoutCents * UNITS_PER_CENT);
      const rest = f.held.slice(2);
      for (const p of rest) await op.refuseHeldPrize(f.campaignId, 1, p.position, "unclaimed");
      expect((await f.draw.getDrawing(f.campaignId, 1)).heldClosed).to.equal(BigInt(f.held.length));
      expect((await f.draw.balances()).owedCents).to.equal(0n);
    });

    it("refuses closing a held prize before settlement", async () => {
      const f = await loadFixture(deployFixture);
      await f.draw.connect(f.admin).setCallbackGasLimit(100_000); // 5 positions in the callback
      await commitAndReveal(f, f.campaignId, 1, randomBytes32(), { winnersExpected: 10 });
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(STATUS.Revealed);
      await expect(f.draw.connect(f.operator).payHeldPrize(f.campaignId, 1, 0)).to.be.revertedWithCustomError(f.draw, "NotSettled").withArgs(f.campaignId, 1);
      await expect(f.draw.connect(f.operator).refuseHeldPrize(f.campaignId, 1, 0, "x")).to.be.revertedWithCustomError(f.draw, "NotSettled");
      await expect(f.draw.connect(f.operator).payHeldPrize(f.campaignId, 2, 0)).to.be.revertedWithCustomError(f.draw, "DrawingNotFound");
    });

    it("the admin moves an unpaid drawing to the campaign's new wallet; payouts stay permissionless and go to the recorded wallet", async () => {
      const f = await loadFixture(heldFixture);
      const [a] = f.held;
      await expect(f.draw.connect(f.admin).moveDrawingWallet(f.campaignId, 1, f.wallet.address))
        .to.be.revertedWithCustomError(f.draw, "NothingToMove")
        .withArgs(f.campaignId, 1);
      // The destination must be the campaign's wallet, which the operator sets: the admin alone cannot choose it.
      await expect(f.draw.connect(f.admin).moveDrawingWallet(f.campaignId, 1, f.other.address))
        .to.be.revertedWithCustomError(f.draw, "MoveDestinationMismatch")
        .withArgs(f.campaignId, f.other.address, f.wallet.address);
      await expect(f.draw.connect(f.admin).moveDrawingWallet(f.campaignId, 1, ethers.ZeroAddress)).to.be.revertedWithCustomError(f.draw, "ZeroAddress");
      await f.draw.connect(f.operator).setPayoutWallet(f.campaignId, f.other.address);
      await expect(f.draw.connect(f.admin).moveDrawingWallet(f.campaignId, 1, f.other.address))
        .to.emit(f.draw, "DrawingWalletMoved")
        .withArgs(f.campaignId, 1, f.wallet.address, f.other.address);
      expect((await f.draw.getDrawing(f.campaignId, 1)).payoutWallet).to.equal(f.other.address);
      await expect(f.draw.connect(f.admin).moveDrawingWallet(f.campaignId, 1, f.other.address)).to.be.revertedWithCustomError(f.draw, "NothingToMove");
      await expect(f.draw.connect(f.admin).moveDrawingWallet(f.campaignId, 2, f.other.address)).to.be.revertedWithCustomError(f.draw, "DrawingNotFound");

      const d = await f.draw.getDrawing(f.campaignId, 1);
      const payout = f.draw.connect(f.stranger).payout(f.campaignId, 1);
      await expect(payout).to.emit(f.draw, "DrawingPaid").withArgs(f.campaignId, 1, f.other.address, d.payoutCents, d.payoutCents * UNITS_PER_CENT);
      await expect(payout).to.changeTokenBalances(
        f.token,
        [f.other, f.wallet, f.stranger],
        [d.payoutCents * UNITS_PER_CENT, 0n, 0n],
      );
      await expect(f.draw.connect(f.operator).payHeldPrize(f.campaignId, 1, a.position)).to.changeTokenBalance(f.token, f.other, a.amountCents * UNITS_PER_CENT);
      // Paid, with held prizes still open: it can still move. Once everything is closed, nothing is left to move.
      await f.draw.connect(f.operator).setPayoutWallet(f.campaignId, f.wallet.address);
      await f.draw.connect(f.admin).moveDrawingWallet(f.campaignId, 1, f.wallet.address);
      for (const p of f.held.slice(1)) await f.draw.connect(f.operator).refuseHeldPrize(f.campaignId, 1, p.position, "done");
      await f.draw.connect(f.operator).setPayoutWallet(f.campaignId, f.other.address);
      await expect(f.draw.connect(f.admin).moveDrawingWallet(f.campaignId, 1, f.other.address)).to.be.revertedWithCustomError(f.draw, "NothingToMove");
    });
  });

  describe("a stablecoin that blacklists a wallet", () => {
    const A = campaignIdOf("campaign-a");
    const B = campaignIdOf("campaign-b");

    async function blacklistFixture() {
      const [admin, operator, guardian, stranger, walletA, walletB, provider, fresh] = await ethers.getSigners();
      const token = (await (await ethers.getContractFactory("BlacklistStablecoin")).deploy()) as unknown as BlacklistStablecoin;
      const mock = (await (await ethers.getContractFactory("MockEntropy")).deploy(provider.address)) as unknown as MockEntropy;
      const draw = await deployPrizeDraw({ entropy: await mock.getAddress(), token, admin, operator, guardian });
      await draw.connect(operator).registerCampaign(A, walletA.address, 50_000, 0, 0);
      await draw.connect(operator).registerCampaign(B, walletB.address, 50_000, 0, 0);
      const f = { admin, operator, guardian, stranger, wallet: walletA, provider, other: fresh, token, mock, draw, campaignId: A } as unknown as Fixture;
      for (const id of [A, B]) await commitAndReveal(f, id, 1, keccak256(toUtf8Bytes(`blacklist-${id}`)), { winnersExpected: 20 });
      await token.blacklist(walletA.address);
      return { admin, operator, stranger, walletA, walletB, fresh, token, draw };
    }

    it("one campaign's refused wallet does not block another's payout; the admin moves it to the new wallet", async () => {
      const f = await loadFixture(blacklistFixture);
      const centsA = (await f.draw.getDrawing(A, 1)).payoutCents;
      const centsB = (await f.draw.getDrawing(B, 1)).payoutCents;
      const stateBefore = [await f.draw.balances(), await f.draw.paymentState()];
      await expect(f.draw.connect(f.stranger).payout(A, 1)).to.be.revertedWithCustomError(f.token, "Blacklisted").withArgs(f.walletA.address);
      // Nothing was recorded by the failed payout.
      expect([await f.draw.balances(), await f.draw.paymentState()]).to.deep.equal(stateBefore);
      expect((await f.draw.getDrawing(A, 1)).status).to.equal(STATUS.Settled);

      await expect(f.draw.connect(f.stranger).payout(B, 1)).to.changeTokenBalance(f.token, f.walletB, centsB * UNITS_PER_CENT);

      // A new wallet for the campaign alone does not move the committed drawing...
      await f.draw.connect(f.operator).setPayoutWallet(A, f.fresh.address);
      await expect(f.draw.connect(f.stranger).payout(A, 1)).to.be.revertedWithCustomError(f.token, "Blacklisted");
      // ...the admin does.
      await expect(f.draw.connect(f.admin).moveDrawingWallet(A, 1, f.fresh.address))
        .to.emit(f.draw, "DrawingWalletMoved")
        .withArgs(A, 1, f.walletA.address, f.fresh.address);
      const pay = f.draw.connect(f.stranger).payout(A, 1);
      await expect(pay).to.emit(f.draw, "DrawingPaid").withArgs(A, 1, f.fresh.address, centsA, centsA * UNITS_PER_CENT);
      await expect(pay).to.changeTokenBalances(f.token, [f.fresh, f.walletA], [centsA * UNITS_PER_CENT, 0n]);
    });
  });

  it("commit times are only required to increase (documents the rule a stolen key could abuse)", async () => {
    const f = await loadFixture(deployFixture);
    // A draw time far in the future is accepted; every later commit must then be later still.
    const far = 2n ** 40n - 2n;
    await commit(f, commitArgs(f.campaignId, 1, { drawAt: far }));
    await expect(sendCommit(f, commitArgs(f.campaignId, 2, { drawAt: DRAW_EPOCH + 7200 })))
      .to.be.revertedWithCustomError(f.draw, "DrawTimeNotLater")
      .withArgs(f.campaignId, far, DRAW_EPOCH + 7200);
    await commit(f, commitArgs(f.campaignId, 2, { drawAt: far + 1n }));
    await expect(sendCommit(f, commitArgs(f.campaignId, 3, { drawAt: far + 1n }))).to.be.revertedWithCustomError(f.draw, "DrawTimeNotLater");
  });
});
