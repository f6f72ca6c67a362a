import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, mine, time } from "@nomicfoundation/hardhat-network-helpers";
import { anyUint } from "@nomicfoundation/hardhat-chai-matchers/withArgs";
import { encodeBytes32String, keccak256, toUtf8Bytes, ZeroAddress, ZeroHash } from "ethers";
import type { BlacklistStablecoin, MockEntropy } from "../../typechain-types";
import {
  ADMIN_DELAY,
  CALLBACK_GAS_LIMIT,
  DEFAULT_TABLE,
  DRAW_EPOCH,
  HELD,
  LARGE_DAILY_LIMIT,
  ROLE,
  STATUS,
  UNITS_PER_CENT,
  asAdmin,
  awarded,
  callData,
  campaignIdOf,
  commit,
  commitAndReveal,
  commitArgs,
  deployFixture,
  deployPrizeDraw,
  executeAsAdmin,
  randomBytes32,
  reveal,
  scheduleAsAdmin,
  sendCommit,
  slotOf,
  userRandomNumberOf,
  winnersFingerprint,
  worstCaseOf,
  type Fixture,
  refusedAsAdmin,
  operationId,
  timestampOf,
  untilGuaranteePeriodEnd,
} from "./helpers";

const MAX_UINT64 = 2n ** 64n - 1n;
const DAY = 24 * 3600;
const MIN_ADMIN_DELAY = DAY;
const MAX_ADMIN_DELAY = 30 * DAY;

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
      await asAdmin(f, f.vault, "setDailyLimit", [LIMIT]);
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
        .to.be.revertedWithCustomError(f.vault, "LimitExceeded")
        .withArgs(ZeroHash, 100_000n, anyUint);
      expect(await f.token.balanceOf(f.thief.address)).to.equal(500_000n * UNITS_PER_CENT);
      // A drawing worth more than half the limit (what an allowance ever holds) is refused at its commit.
      await expect(sendCommit(f, commitArgs(LOOT, sixth + 1, { tableId: GENEROUS.id, winnersExpected: 6 })))
        .to.be.revertedWithCustomError(f.draw, "PayoutAboveLimit")
        .withArgs(LOOT, sixth + 1, 600_000n, LIMIT / 2n);
      // The guardian stops what is left; the admin can then lower the limit before resuming.
      await f.vault.connect(f.guardian).pause();
      await time.increase(3 * DAY);
      await expect(f.draw.connect(f.thief).payout(LOOT, sixth)).to.be.revertedWithCustomError(f.vault, "PaymentsArePaused");
      expect(await f.token.balanceOf(f.thief.address)).to.equal(500_000n * UNITS_PER_CENT);
    });

    it("repeated guarantees: exactly the registered amount, once per period, only for periods with a committed drawing, and within the limit", async () => {
      const f = await loadFixture(thiefFixture);
      const op = f.draw.connect(f.operator);
      const opVault = f.vault.connect(f.operator);
      const winner = keccak256(toUtf8Bytes("accomplice"));
      const MAX_PAYMENT = LIMIT / 2n; // what one allowance ever holds
      // The largest guarantee the terms allow is refused at its pick: it could never be paid under the limit.
      const huge = campaignIdOf("thief-huge");
      await expect(op.registerCampaign(huge, f.thief.address, 50_000, 100_000_001n, DAY))
        .to.be.revertedWithCustomError(f.draw, "InvalidGuaranteeTerms")
        .withArgs(100_000_001n, DAY);
      await op.registerCampaign(huge, f.thief.address, 50_000, 100_000_000n, DAY);
      await commit(f, commitArgs(huge, 1));
      await untilGuaranteePeriodEnd(f.vault, huge, 0);
      const owedBefore = (await f.vault.balances()).owedCents;
      await expect(opVault.pickGuarantee(huge, 0, winner))
        .to.be.revertedWithCustomError(f.vault, "PayoutAboveLimit")
        .withArgs(huge, 0, 100_000_000n, MAX_PAYMENT);
      expect(await f.vault.getGuarantee(huge, 0)).to.deep.equal([0n, ZeroAddress, 0n]);
      expect((await f.vault.balances()).owedCents).to.equal(owedBefore);

      // One exactly at the cap: picked once per period, only for periods with a committed drawing that have ended
      // in block time.
      const id = campaignIdOf("thief-guarantee");
      await op.registerCampaign(id, f.thief.address, 50_000, MAX_PAYMENT, DAY);
      await expect(opVault.pickGuarantee(id, 0, winner)).to.be.revertedWithCustomError(f.vault, "GuaranteePeriodNotDrawn").withArgs(id, 0, 0);
      await commit(f, commitArgs(id, 1));
      const periodEnd = await f.vault.guaranteePeriodEnd(id, 0);
      await expect(opVault.pickGuarantee(id, 0, winner)).to.be.revertedWithCustomError(f.vault, "GuaranteePeriodNotEnded").withArgs(id, 0, periodEnd);
      await time.increaseTo(periodEnd - 2n); // the pick's block is one second later: still inside the period
      await expect(opVault.pickGuarantee(id, 0, winner)).to.be.revertedWithCustomError(f.vault, "GuaranteePeriodNotEnded").withArgs(id, 0, periodEnd);
      await expect(opVault.pickGuarantee(id, 0, winner))
        .to.emit(f.vault, "GuaranteePicked")
        .withArgs(id, 0, winner, f.thief.address, MAX_PAYMENT);
      await expect(opVault.pickGuarantee(id, 0, winner)).to.be.revertedWithCustomError(f.vault, "GuaranteeAlreadyPicked").withArgs(id, 0);
      await expect(opVault.pickGuarantee(id, 0, keccak256(toUtf8Bytes("someone else"))))
        .to.be.revertedWithCustomError(f.vault, "GuaranteeAlreadyPicked")
        .withArgs(id, 0);
      await expect(opVault.pickGuarantee(id, 1, winner)).to.be.revertedWithCustomError(f.vault, "GuaranteePeriodNotDrawn").withArgs(id, 1, 1);
      await expect(opVault.pickGuarantee(id, 4_000_000_000, winner))
        .to.be.revertedWithCustomError(f.vault, "GuaranteePeriodNotDrawn")
        .withArgs(id, 4_000_000_000, 1);
      expect(await f.vault.getGuarantee(id, 0)).to.deep.equal([1n, f.thief.address, MAX_PAYMENT]);
      // Every commit opens one more period once a day more has passed: time, the pool (every pick must be backed)
      // and the limit are what bound it.
      await commit(f, commitArgs(id, 2));
      await expect(opVault.pickGuarantee(id, 1, winner)).to.be.revertedWithCustomError(f.vault, "GuaranteePeriodNotEnded").withArgs(id, 1, periodEnd + BigInt(DAY));
      await untilGuaranteePeriodEnd(f.vault, id, 1);
      await expect(opVault.pickGuarantee(id, 1, winner)).to.emit(f.vault, "GuaranteePicked").withArgs(id, 1, winner, f.thief.address, MAX_PAYMENT);
      // The three drawings are unrevealed: each still holds its worst case (3 winners of the default table).
      const reservedByCommits = 3n * worstCaseOf(DEFAULT_TABLE.amounts, 0n, 3n).totalCents;
      expect((await f.vault.balances()).owedCents).to.equal(2n * MAX_PAYMENT + reservedByCommits);
      // The first payment takes the whole allowance; the second waits for it to refill.
      await f.vault.connect(f.thief).payGuarantee(id, 0);
      await expect(f.vault.connect(f.thief).payGuarantee(id, 1))
        .to.be.revertedWithCustomError(f.vault, "LimitExceeded")
        .withArgs(ZeroHash, MAX_PAYMENT, anyUint);
      expect(await f.token.balanceOf(f.thief.address)).to.equal(MAX_PAYMENT * UNITS_PER_CENT);
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
      await expect(f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, held.position)).to.changeTokenBalances(
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
      const opVault = f.vault.connect(f.operator);
      const opManager = f.manager.connect(f.operator);
      const refused = (contract: typeof f.draw | typeof f.vault, call: Promise<unknown>) =>
        expect(call).to.be.revertedWithCustomError(contract, "AccessManagedUnauthorized").withArgs(f.operator.address);
      await refused(f.vault, opVault.withdrawTokens(f.thief.address, 1));
      await refused(f.vault, opVault.withdrawNative(f.thief.address, 0));
      await refused(f.draw, op.moveDrawingWallet(f.campaignId, 1, f.thief.address));
      await refused(f.vault, opVault.moveGuaranteeWallet(f.campaignId, 0, f.thief.address));
      await refused(f.vault, opVault.setDailyLimit(LARGE_DAILY_LIMIT));
      await refused(f.vault, opVault.setCampaignLimit(f.campaignId, 0));
      await refused(f.draw, op.setCallbackGasLimit(CALLBACK_GAS_LIMIT));
      // Only the engine changes or pays what is owed.
      await expect(opVault.pay(f.campaignId, f.thief.address, 1, 0)).to.be.revertedWithCustomError(f.vault, "NotEngine").withArgs(f.operator.address);
      await expect(opVault.pay(f.campaignId, f.thief.address, 0, 1)).to.be.revertedWithCustomError(f.vault, "NotEngine").withArgs(f.operator.address);
      await expect(opVault.adjustOwed(0, 1)).to.be.revertedWithCustomError(f.vault, "NotEngine").withArgs(f.operator.address);
      // The manager's own functions are the admin's: no roles, grant delays or function mappings for the thief.
      const vaultAddress = await f.vault.getAddress();
      const withdrawSelector = f.vault.interface.getFunction("withdrawTokens").selector;
      for (const call of [
        () => opManager.grantRole(ROLE.Operator, f.thief.address, 0),
        () => opManager.grantRole(ROLE.Admin, f.thief.address, ADMIN_DELAY),
        () => opManager.revokeRole(ROLE.Guardian, f.guardian.address),
        () => opManager.setGrantDelay(ROLE.Operator, ADMIN_DELAY),
        () => opManager.setTargetFunctionRole(vaultAddress, [withdrawSelector], ROLE.Operator),
        () => opManager.updateAuthority(vaultAddress, f.thief.address),
      ]) {
        await expect(call()).to.be.revertedWithCustomError(f.manager, "AccessManagerUnauthorizedAccount").withArgs(f.operator.address, ROLE.Admin);
      }
      // Nor schedule or execute an admin call through the manager.
      const withdraw = callData(f.vault, "withdrawTokens", [f.thief.address, 1]);
      await expect(opManager.schedule(vaultAddress, withdraw, 0))
        .to.be.revertedWithCustomError(f.manager, "AccessManagerUnauthorizedCall")
        .withArgs(f.operator.address, vaultAddress, withdrawSelector);
      await expect(opManager.execute(vaultAddress, withdraw))
        .to.be.revertedWithCustomError(f.manager, "AccessManagerUnauthorizedCall")
        .withArgs(f.operator.address, vaultAddress, withdrawSelector);
      await f.vault.connect(f.guardian).pause();
      await refused(f.vault, opVault.unpause());
      await refused(f.vault, opVault.pause());
      expect((await f.draw.getDrawing(f.campaignId, 1)).payoutWallet).to.equal(f.wallet.address);
      expect((await f.manager.hasRole(ROLE.Operator, f.thief.address)).isMember).to.equal(false);
    });
  });

  describe("the admin's withdrawals", () => {
    it("can never take owed money: exactly the free balance leaves, one unit more is refused", async () => {
      const f = await loadFixture(deployFixture);
      await commitAndReveal(f, f.campaignId, 1, randomBytes32(), { winnersExpected: 20 });
      const [balance, owedCents, owedUnits, free] = await f.vault.balances();
      expect(owedCents).to.be.greaterThan(0n);
      expect(free).to.equal(balance - owedUnits);
      // Not even the free balance leaves at once: every withdrawal is scheduled.
      await expect(f.vault.connect(f.admin).withdrawTokens(f.admin.address, 1))
        .to.be.revertedWithCustomError(f.manager, "AccessManagerNotScheduled")
        .withArgs(await operationId(f, f.admin.address, f.vault, "withdrawTokens", [f.admin.address, 1]));
      await refusedAsAdmin(f, f.vault, "withdrawTokens", [f.admin.address, free + 1n], (tx) =>
        expect(tx).to.be.revertedWithCustomError(f.vault, "WithdrawalExceedsFree").withArgs(free + 1n, free),
      );
      await refusedAsAdmin(f, f.vault, "withdrawTokens", [ZeroAddress, 1], (tx) =>
        expect(tx).to.be.revertedWithCustomError(f.vault, "ZeroAddress"),
      );
      const [vaultBefore, otherBefore] = [await f.token.balanceOf(await f.vault.getAddress()), await f.token.balanceOf(f.other.address)];
      await expect(asAdmin(f, f.vault, "withdrawTokens", [f.other.address, free]))
        .to.emit(f.vault, "TokensWithdrawn")
        .withArgs(f.other.address, free, free / UNITS_PER_CENT);
      expect(await f.token.balanceOf(await f.vault.getAddress())).to.equal(vaultBefore - free);
      expect(await f.token.balanceOf(f.other.address)).to.equal(otherBefore + free);
      expect(await f.vault.balances()).to.deep.equal([owedUnits, owedCents, owedUnits, 0n]);
      await refusedAsAdmin(f, f.vault, "withdrawTokens", [f.admin.address, 1], (tx) =>
        expect(tx).to.be.revertedWithCustomError(f.vault, "WithdrawalExceedsFree").withArgs(1, 0),
      );
      // What is owed is still paid; the payout releases what the draw did not award, which only then is free.
      expect(owedCents).to.equal(worstCaseOf(DEFAULT_TABLE.amounts, 0n, 20n).totalCents);
      await f.draw.connect(f.stranger).payout(f.campaignId, 1);
      const d = await f.draw.getDrawing(f.campaignId, 1);
      const [balanceAfter, owedAfter, owedUnitsAfter, freeAfter] = await f.vault.balances();
      expect(balanceAfter).to.equal(owedUnits - d.payoutCents * UNITS_PER_CENT);
      expect(owedAfter).to.equal(d.heldCents);
      expect(freeAfter).to.equal((owedCents - d.payoutCents - d.heldCents) * UNITS_PER_CENT);
      expect(balanceAfter).to.equal(owedUnitsAfter + freeAfter);
    });

    it("wait for the guardian's pause and draw on the 24-hour limit like payments, in cents rounded up", async () => {
      const f = await loadFixture(deployFixture);
      const LIMIT = 1_000_000n;
      const HALF = LIMIT / 2n;
      await asAdmin(f, f.vault, "setDailyLimit", [LIMIT]);
      const to = f.other.address;
      // Scheduled before the guardian's pause, a withdrawal cannot run while it holds.
      const small = [to, 100n * UNITS_PER_CENT + 1n] as const; // 101 cents, rounded up
      await scheduleAsAdmin(f, f.vault, "withdrawTokens", small);
      await f.vault.connect(f.guardian).pause();
      await time.increase(ADMIN_DELAY);
      await expect(executeAsAdmin(f, f.vault, "withdrawTokens", small)).to.be.revertedWithCustomError(f.vault, "PaymentsArePaused");
      await asAdmin(f, f.vault, "unpause", []);
      // Still scheduled (a refused execution consumes nothing), it runs after the resume.
      await expect(executeAsAdmin(f, f.vault, "withdrawTokens", small))
        .to.emit(f.vault, "TokensWithdrawn")
        .withArgs(to, small[1], 101n);
      // Two withdrawals scheduled together and executed back to back: the first takes the whole allowance (half
      // the limit: the clock moved past the delay, refilling it), the second is refused.
      const all = [to, HALF * UNITS_PER_CENT] as const;
      const more = [to, 10_000n * UNITS_PER_CENT] as const;
      await scheduleAsAdmin(f, f.vault, "withdrawTokens", all);
      await scheduleAsAdmin(f, f.vault, "withdrawTokens", more);
      await time.increase(ADMIN_DELAY);
      expect((await f.vault.paymentState()).availableCents).to.equal(HALF);
      await expect(executeAsAdmin(f, f.vault, "withdrawTokens", all)).to.emit(f.vault, "TokensWithdrawn").withArgs(to, all[1], HALF);
      await expect(executeAsAdmin(f, f.vault, "withdrawTokens", more))
        .to.be.revertedWithCustomError(f.vault, "LimitExceeded")
        .withArgs(ZeroHash, 10_000n, anyUint);
      // One unit over the allowance is a cent over it.
      await refusedAsAdmin(f, f.vault, "withdrawTokens", [to, HALF * UNITS_PER_CENT + 1n], (tx) =>
        expect(tx).to.be.revertedWithCustomError(f.vault, "LimitExceeded").withArgs(ZeroHash, HALF + 1n, HALF),
      );
    });
  });

  describe("pause", () => {
    const GUARANTEED = campaignIdOf("paused-guarantee");

    async function pausableFixture() {
      const f = await deployFixture();
      await f.draw.connect(f.operator).publishPrizeTable(MIXED.id, 1, MIXED.amounts, MIXED.weights);
      await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, 1_000);
      const prizes = awarded(f, await commitAndReveal(f, f.campaignId, 1, keccak256(toUtf8Bytes("pause")), { winnersExpected: 10, tableId: MIXED.id }));
      await f.draw.connect(f.operator).registerCampaign(GUARANTEED, f.wallet.address, 50_000, 2_500, DAY);
      await commit(f, commitArgs(GUARANTEED, 1));
      await untilGuaranteePeriodEnd(f.vault, GUARANTEED, 0);
      await f.vault.connect(f.operator).pickGuarantee(GUARANTEED, 0, keccak256(toUtf8Bytes("w")));
      const held = prizes.filter((p) => p.held).map((p) => p.position);
      expect(held.length).to.be.greaterThan(1);
      return { ...f, held };
    }

    it("the guardian's pause stops every payment and the operator's actions on what is owed from the very next block; only the admin resumes", async () => {
      const f = await loadFixture(pausableFixture);
      const pause = await f.vault.connect(f.guardian).pause();
      await expect(pause).to.emit(f.vault, "PaymentsPaused").withArgs(f.guardian.address);
      expect((await f.vault.paymentState()).isPaused).to.equal(true);
      expect(await f.vault.paused()).to.equal(true);
      const pausedIn = (await pause.wait())!.blockNumber;
      const payout = f.draw.connect(f.stranger).payout(f.campaignId, 1);
      await expect(payout).to.be.revertedWithCustomError(f.vault, "PaymentsArePaused");
      expect(await ethers.provider.getBlockNumber()).to.equal(pausedIn + 1); // the failed payout was mined in the next block
      await expect(f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, f.held[0])).to.be.revertedWithCustomError(f.vault, "PaymentsArePaused");
      await expect(f.vault.connect(f.stranger).payGuarantee(GUARANTEED, 0)).to.be.revertedWithCustomError(f.vault, "PaymentsArePaused");
      // Nor can the operator key create, release or redirect what is owed: a refusal, a commit, a pick, a new
      // campaign, a threshold. A wallet change is allowed (it moves nothing owed) and so is publishing a table.
      const op = f.draw.connect(f.operator);
      const opVault = f.vault.connect(f.operator);
      // Each contract refuses with its own EnforcedPause: the refusal and the pick are the vault's.
      const pausedForOperator = [
        [f.vault, () => opVault.refuseHeldPrize(f.campaignId, 1, f.held[1], "failed checks")],
        [f.draw, () => sendCommit(f, commitArgs(GUARANTEED, 2))],
        [f.vault, () => opVault.pickGuarantee(GUARANTEED, 1, keccak256(toUtf8Bytes("w")))],
        [f.draw, () => op.registerCampaign(campaignIdOf("thief-campaign"), f.stranger.address, 50_000, 0, 0)],
        [f.draw, () => op.setLargePrizeThreshold(f.campaignId, MAX_UINT64)],
      ] as const;
      for (const [contract, call] of pausedForOperator) await expect(call()).to.be.revertedWithCustomError(contract, "EnforcedPause");
      // The role is checked before the pause: others still learn they are not the operator.
      await expect(f.vault.connect(f.stranger).pickGuarantee(GUARANTEED, 1, keccak256(toUtf8Bytes("w"))))
        .to.be.revertedWithCustomError(f.vault, "AccessManagedUnauthorized")
        .withArgs(f.stranger.address);
      await expect(op.setPayoutWallet(GUARANTEED, f.other.address)).to.emit(f.draw, "PayoutWalletChanged");
      await op.setPayoutWallet(GUARANTEED, f.wallet.address);

      await expect(f.vault.connect(f.guardian).unpause())
        .to.be.revertedWithCustomError(f.vault, "AccessManagedUnauthorized")
        .withArgs(f.guardian.address);
      await expect(f.vault.connect(f.stranger).pause())
        .to.be.revertedWithCustomError(f.vault, "AccessManagedUnauthorized")
        .withArgs(f.stranger.address);
      await mine(100);
      await expect(f.draw.connect(f.stranger).payout(f.campaignId, 1)).to.be.revertedWithCustomError(f.vault, "PaymentsArePaused");
      // The admin resumes only through its delay, and the guardian can cancel a resume while the cause is not fixed.
      await expect(f.vault.connect(f.admin).unpause())
        .to.be.revertedWithCustomError(f.manager, "AccessManagerNotScheduled")
        .withArgs(await operationId(f, f.admin.address, f.vault, "unpause", []));
      await scheduleAsAdmin(f, f.vault, "unpause", []);
      await f.manager.connect(f.guardian).cancel(f.admin.address, await f.vault.getAddress(), callData(f.vault, "unpause", []));
      await time.increase(ADMIN_DELAY);
      await expect(executeAsAdmin(f, f.vault, "unpause", [])).to.be.revertedWithCustomError(f.manager, "AccessManagerNotScheduled");
      expect(await f.vault.paused()).to.equal(true);
      // The vault sees the manager as the caller of an executed admin call.
      await expect(asAdmin(f, f.vault, "unpause", [])).to.emit(f.vault, "PaymentsResumed").withArgs(await f.manager.getAddress());
      await expect(asAdmin(f, f.vault, "unpause", [])).to.be.revertedWithCustomError(f.vault, "NotPaused");
      await expect(f.draw.connect(f.stranger).payout(f.campaignId, 1)).to.emit(f.draw, "DrawingPaid");
      await expect(f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, f.held[0])).to.emit(f.vault, "HeldPrizePaid");
      await expect(f.vault.connect(f.stranger).payGuarantee(GUARANTEED, 0)).to.emit(f.vault, "GuaranteePaid");
      // Resumed, the operator goes on where it stopped.
      await expect(opVault.refuseHeldPrize(f.campaignId, 1, f.held[1], "failed checks")).to.emit(f.vault, "HeldPrizeRefused");
      await commit(f, commitArgs(GUARANTEED, 2));
      await expect(opVault.pickGuarantee(GUARANTEED, 1, keccak256(toUtf8Bytes("w")))).to.emit(f.vault, "GuaranteePicked");
    });

    it("the admin's pause is refused, at once and scheduled; the guardian's works", async () => {
      const f = await loadFixture(pausableFixture);
      const vaultAddress = await f.vault.getAddress();
      const pauseSelector = f.vault.interface.getFunction("pause").selector;
      await expect(f.vault.connect(f.admin).pause()).to.be.revertedWithCustomError(f.vault, "AccessManagedUnauthorized").withArgs(f.admin.address);
      for (const call of [
        () => f.manager.connect(f.admin).schedule(vaultAddress, callData(f.vault, "pause", []), 0),
        () => f.manager.connect(f.admin).execute(vaultAddress, callData(f.vault, "pause", [])),
      ]) {
        await expect(call())
          .to.be.revertedWithCustomError(f.manager, "AccessManagerUnauthorizedCall")
          .withArgs(f.admin.address, vaultAddress, pauseSelector);
      }
      expect(await f.vault.paused()).to.equal(false);
      await expect(f.vault.connect(f.guardian).pause()).to.emit(f.vault, "PaymentsPaused").withArgs(f.guardian.address);
      await expect(f.draw.connect(f.stranger).payout(f.campaignId, 1)).to.be.revertedWithCustomError(f.vault, "PaymentsArePaused");
    });
  });

  describe("24-hour limits", () => {
    it("an allowance holds half the limit and refills half per day; a campaign limit applies on top", async () => {
      const f = await loadFixture(deployFixture);
      await expect(asAdmin(f, f.vault, "setDailyLimit", [1_000_000n]))
        .to.emit(f.vault, "LimitChanged")
        .withArgs(ZeroHash, LARGE_DAILY_LIMIT, 1_000_000n);
      expect(await f.vault.paymentState()).to.deep.equal([1_000_000n, 500_000n, false]);
      await refusedAsAdmin(f, f.vault, "setDailyLimit", [1], (tx) => expect(tx).to.be.revertedWithCustomError(f.vault, "InvalidLimit").withArgs(1));
      await expect(asAdmin(f, f.vault, "setCampaignLimit", [f.campaignId, 20_000n]))
        .to.emit(f.vault, "LimitChanged")
        .withArgs(f.campaignId, 0, 20_000n);
      expect(await f.vault.campaignAllowance(f.campaignId)).to.deep.equal([20_000n, 10_000n]);
      const FLAT = { id: encodeBytes32String("flat"), amounts: [3_000n, 3_000n], weights: [1n, 1n] };
      await f.draw.connect(f.operator).publishPrizeTable(FLAT.id, 1, FLAT.amounts, FLAT.weights);
      for (let num = 1; num <= 5; num++) await commitAndReveal(f, f.campaignId, num, randomBytes32(), { winnersExpected: 1, tableId: FLAT.id });
      // Three payouts of 3,000 fit the campaign's 10,000; the fourth does not, though the overall limit allows it.
      for (let num = 1; num <= 3; num++) await f.draw.payout(f.campaignId, num);
      await expect(f.draw.payout(f.campaignId, 4))
        .to.be.revertedWithCustomError(f.vault, "LimitExceeded")
        .withArgs(f.campaignId, 3_000n, anyUint);
      expect((await f.vault.paymentState()).availableCents).to.be.greaterThan(100_000n);
      // After 12 hours, a quarter of the limit more is available (half the limit per day).
      await time.increase(12 * 3600);
      expect((await f.vault.campaignAllowance(f.campaignId)).availableCents).to.be.greaterThanOrEqual(6_000n);
      await f.draw.payout(f.campaignId, 4);
      await expect(asAdmin(f, f.vault, "setCampaignLimit", [f.campaignId, 0]))
        .to.emit(f.vault, "LimitChanged")
        .withArgs(f.campaignId, 20_000n, 0);
      expect(await f.vault.campaignAllowance(f.campaignId)).to.deep.equal([0n, 0n]);
      await f.draw.payout(f.campaignId, 5);
    });
  });

  describe("24-hour limits, exactly", () => {
    it("an emptied allowance refills at exactly half the limit per day, never above half: any 24 hours pay at most the limit", async () => {
      const f = await loadFixture(deployFixture);
      const LIMIT = 1_000_000n;
      const FLAT = { id: encodeBytes32String("flat"), amounts: [100_000n, 100_000n], weights: [1n, 1n] };
      // Set first: the admin's delay moves the clock, and everything below is timed from the payouts.
      await asAdmin(f, f.vault, "setDailyLimit", [LIMIT]);
      await f.draw.connect(f.operator).publishPrizeTable(FLAT.id, 1, FLAT.amounts, FLAT.weights);
      await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, MAX_UINT64); // nothing held
      const BIG = 16; // 3 winners: 300,000
      for (let n = 1; n <= BIG; n++) await commitAndReveal(f, f.campaignId, n, randomBytes32(), { winnersExpected: n === BIG ? 3 : 1, tableId: FLAT.id });
      // Empty the allowance: five payouts of 100,000, the first at t0.
      const first = await f.draw.payout(f.campaignId, 1);
      const t0 = (await ethers.provider.getBlock(first.blockNumber!))!.timestamp;
      for (let n = 2; n <= 5; n++) await f.draw.payout(f.campaignId, n);
      const t1 = (await ethers.provider.getBlock("latest"))!.timestamp;
      const [, availableAfter] = await f.vault.paymentState();
      expect(availableAfter).to.be.lessThan(1_000n); // a few seconds of refill
      // From the last payment, the refill is linear at LIMIT / 2 per 86,400 seconds.
      for (const after of [3_600, 21_600]) {
        await time.increaseTo(t1 + after);
        expect((await f.vault.paymentState()).availableCents, `${after} s after`).to.equal(availableAfter + (BigInt(after) * LIMIT) / 2n / 86_400n);
      }
      // Twelve hours after t0 a quarter of the limit is back: two more payouts fit, a third does not.
      await time.setNextBlockTimestamp(t0 + 43_200);
      await f.draw.payout(f.campaignId, 6);
      await f.draw.payout(f.campaignId, 7);
      await expect(f.draw.payout(f.campaignId, 8)).to.be.revertedWithCustomError(f.vault, "LimitExceeded");
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
      // However long nothing is paid, at most half the limit leaves at once: a 300,000 drawing waits next to
      // 100,000 ones that pay.
      await time.increase(30 * 86_400);
      expect((await f.vault.paymentState()).availableCents).to.equal(LIMIT / 2n);
      for (const single of [n, n + 1, n + 2]) await f.draw.payout(f.campaignId, single);
      await expect(f.draw.payout(f.campaignId, BIG))
        .to.be.revertedWithCustomError(f.vault, "LimitExceeded")
        .withArgs(ZeroHash, 300_000n, anyUint);
      expect((await f.vault.paymentState()).availableCents).to.be.lessThan(LIMIT / 2n - 200_000n + 100n);
    });
  });

  describe("roles", () => {
    async function rolesFixture() {
      const f = await deployFixture();
      const factory = await ethers.getContractFactory("PrizeDrawManager");
      return { ...f, factory, managerAddress: await f.manager.getAddress() };
    }

    it("keeps admin, operator and guardian on distinct accounts, at construction and on every grant", async () => {
      const f = await loadFixture(rolesFixture);
      const deploy = (admin: string, operator: string, guardian: string) => f.factory.deploy(admin, operator, guardian, ADMIN_DELAY);
      await expect(deploy(f.admin.address, f.admin.address, f.guardian.address))
        .to.be.revertedWithCustomError(f.manager, "RoleConflict")
        .withArgs(f.admin.address, ROLE.Admin);
      await expect(deploy(f.admin.address, f.operator.address, f.operator.address))
        .to.be.revertedWithCustomError(f.manager, "RoleConflict")
        .withArgs(f.operator.address, ROLE.Operator);
      await expect(deploy(f.admin.address, f.operator.address, f.admin.address))
        .to.be.revertedWithCustomError(f.manager, "RoleConflict")
        .withArgs(f.admin.address, ROLE.Admin);
      await expect(deploy(f.admin.address, ZeroAddress, f.guardian.address)).to.be.revertedWithCustomError(f.manager, "ZeroAddress");

      // The admin's grants, all scheduled together, each refused when it runs.
      const conflicts: [bigint, string, number, bigint][] = [
        [ROLE.Operator, f.guardian.address, 0, ROLE.Guardian],
        [ROLE.Operator, f.admin.address, 0, ROLE.Admin],
        [ROLE.Guardian, f.operator.address, 0, ROLE.Operator],
        [ROLE.Guardian, f.admin.address, 0, ROLE.Admin],
        [ROLE.Admin, f.operator.address, ADMIN_DELAY, ROLE.Operator],
        [ROLE.Governor, f.guardian.address, ADMIN_DELAY, ROLE.Guardian],
      ];
      for (const [role, account, delay] of conflicts) await scheduleAsAdmin(f, f.manager, "grantRole", [role, account, delay]);
      await scheduleAsAdmin(f, f.manager, "grantRole", [ROLE.Operator, ZeroAddress, 0]);
      await time.increase(ADMIN_DELAY);
      for (const [role, account, delay, held] of conflicts) {
        await expect(executeAsAdmin(f, f.manager, "grantRole", [role, account, delay]), `role ${role} to ${account}`)
          .to.be.revertedWithCustomError(f.manager, "RoleConflict")
          .withArgs(account, held);
      }
      await expect(executeAsAdmin(f, f.manager, "grantRole", [ROLE.Operator, ZeroAddress, 0])).to.be.revertedWithCustomError(f.manager, "ZeroAddress");

      // A second operator on a fresh account is fine, after the role's grant delay; rotating the guardian too.
      const granted = await asAdmin(f, f.manager, "grantRole", [ROLE.Operator, f.other.address, 0]);
      const since = (await timestampOf(granted)) + ADMIN_DELAY;
      await expect(granted).to.emit(f.manager, "RoleGranted").withArgs(ROLE.Operator, f.other.address, 0, since, true);
      expect((await f.manager.hasRole(ROLE.Operator, f.other.address)).isMember).to.equal(false);
      await scheduleAsAdmin(f, f.manager, "revokeRole", [ROLE.Guardian, f.guardian.address]);
      await scheduleAsAdmin(f, f.manager, "grantRole", [ROLE.Guardian, f.stranger.address, 0]);
      await time.increase(ADMIN_DELAY);
      expect((await f.manager.hasRole(ROLE.Operator, f.other.address)).isMember).to.equal(true);
      await expect(executeAsAdmin(f, f.manager, "revokeRole", [ROLE.Guardian, f.guardian.address]))
        .to.emit(f.manager, "RoleRevoked")
        .withArgs(ROLE.Guardian, f.guardian.address);
      await executeAsAdmin(f, f.manager, "grantRole", [ROLE.Guardian, f.stranger.address, 0]);
      await expect(f.vault.connect(f.guardian).pause()).to.be.revertedWithCustomError(f.vault, "AccessManagedUnauthorized").withArgs(f.guardian.address);
      await expect(f.vault.connect(f.stranger).pause()).to.be.revertedWithCustomError(f.vault, "AccessManagedUnauthorized").withArgs(f.stranger.address);
      await time.increase(ADMIN_DELAY);
      await expect(f.vault.connect(f.stranger).pause()).to.emit(f.vault, "PaymentsPaused").withArgs(f.stranger.address);
    });

    it("counts a granted role not yet in effect: two grants executed together cannot put two roles on one account", async () => {
      const f = await loadFixture(rolesFixture);
      // Both grants wait out the admin's delay side by side; when the second runs, the first is granted but its
      // grant delay has not passed, so the account is not a member yet. It still holds that role in waiting.
      await scheduleAsAdmin(f, f.manager, "grantRole", [ROLE.Operator, f.other.address, 0]);
      await scheduleAsAdmin(f, f.manager, "grantRole", [ROLE.Guardian, f.other.address, 0]);
      await time.increase(ADMIN_DELAY);
      await executeAsAdmin(f, f.manager, "grantRole", [ROLE.Operator, f.other.address, 0]);
      await expect(executeAsAdmin(f, f.manager, "grantRole", [ROLE.Guardian, f.other.address, 0]))
        .to.be.revertedWithCustomError(f.manager, "RoleConflict")
        .withArgs(f.other.address, ROLE.Operator);
      await time.increase(ADMIN_DELAY);
      expect((await f.manager.hasRole(ROLE.Guardian, f.other.address)).isMember).to.equal(false);
    });

    it("counts GOVERNOR_ROLE as the admin's: an account left with it alone cannot become operator or guardian", async () => {
      const f = await loadFixture(rolesFixture);
      const next = { manager: f.manager, admin: f.newAdmin };
      // A new admin with both roles...
      await scheduleAsAdmin(f, f.manager, "grantRole", [ROLE.Admin, f.newAdmin.address, ADMIN_DELAY]);
      await scheduleAsAdmin(f, f.manager, "grantRole", [ROLE.Governor, f.newAdmin.address, ADMIN_DELAY]);
      await time.increase(ADMIN_DELAY);
      await executeAsAdmin(f, f.manager, "grantRole", [ROLE.Admin, f.newAdmin.address, ADMIN_DELAY]);
      await executeAsAdmin(f, f.manager, "grantRole", [ROLE.Governor, f.newAdmin.address, ADMIN_DELAY]);
      await time.increase(ADMIN_DELAY);
      // ...revokes only the old admin's ADMIN_ROLE: the old admin still holds GOVERNOR_ROLE (the vault's withdrawals).
      await asAdmin(next, f.manager, "revokeRole", [ROLE.Admin, f.admin.address]);
      expect((await f.manager.hasRole(ROLE.Governor, f.admin.address)).isMember).to.equal(true);
      for (const role of [ROLE.Operator, ROLE.Guardian]) {
        await refusedAsAdmin(next, f.manager, "grantRole", [role, f.admin.address, 0], (tx) =>
          expect(tx).to.be.revertedWithCustomError(f.manager, "RoleConflict").withArgs(f.admin.address, ROLE.Governor),
        );
      }
    });

    it("refuses renouncing the admin's roles, to the admin and anyone else; the operator and the guardian may renounce theirs", async () => {
      const f = await loadFixture(rolesFixture);
      // Leaving would strand the engine and the vault without an admin: the admin leaves only by a transfer.
      for (const role of [ROLE.Admin, ROLE.Governor]) {
        for (const who of [f.admin, f.stranger]) {
          await expect(f.manager.connect(who).renounceRole(role, who.address), `role ${role} by ${who.address}`)
            .to.be.revertedWithCustomError(f.manager, "AdminRenounceRefused");
        }
        expect(await f.manager.hasRole(role, f.admin.address)).to.deep.equal([true, BigInt(ADMIN_DELAY)]);
      }
      // Nor when the admin schedules it through the manager.
      await refusedAsAdmin(f, f.manager, "renounceRole", [ROLE.Governor, f.admin.address], (tx) =>
        expect(tx).to.be.revertedWithCustomError(f.manager, "AdminRenounceRefused"),
      );
      expect((await f.manager.hasRole(ROLE.Admin, f.admin.address)).isMember).to.equal(true);
      // The other parties' roles are AccessManager's as usual: renounced by their holder alone.
      await expect(f.manager.connect(f.stranger).renounceRole(ROLE.Operator, f.operator.address))
        .to.be.revertedWithCustomError(f.manager, "AccessManagerBadConfirmation");
      for (const [role, holder] of [
        [ROLE.Operator, f.operator],
        [ROLE.Guardian, f.guardian],
      ] as const) {
        await expect(f.manager.connect(holder).renounceRole(role, holder.address)).to.emit(f.manager, "RoleRevoked").withArgs(role, holder.address);
        expect((await f.manager.hasRole(role, holder.address)).isMember).to.equal(false);
      }
    });

    it("keeps the admin's delay within one to thirty days: at construction, on granting the admin's roles and on grant delays", async () => {
      const f = await loadFixture(rolesFixture);
      expect([await f.manager.MIN_ADMIN_DELAY(), await f.manager.MAX_ADMIN_DELAY()]).to.deep.equal([BigInt(MIN_ADMIN_DELAY), BigInt(MAX_ADMIN_DELAY)]);
      const outOfRange = [0, MIN_ADMIN_DELAY - 1, MAX_ADMIN_DELAY + 1];
      for (const delay of outOfRange) {
        await expect(f.factory.deploy(f.admin.address, f.operator.address, f.guardian.address, delay))
          .to.be.revertedWithCustomError(f.manager, "AdminDelayOutOfRange")
          .withArgs(delay);
      }
      for (const delay of [MIN_ADMIN_DELAY, MAX_ADMIN_DELAY]) {
        const manager = await (await f.factory.deploy(f.admin.address, f.operator.address, f.guardian.address, delay)).waitForDeployment();
        expect((await manager.hasRole(ROLE.Admin, f.admin.address)).executionDelay).to.equal(BigInt(delay));
        expect(await manager.getRoleGrantDelay(ROLE.Operator)).to.equal(BigInt(delay));
      }
      // Granting the admin's roles (the admin's own included) and setting a grant delay of the three parties'
      // roles: scheduled together, each refused when it runs.
      const calls: [string, readonly unknown[], number][] = [];
      for (const role of [ROLE.Admin, ROLE.Governor]) {
        for (const delay of outOfRange) {
          calls.push(["grantRole", [role, f.newAdmin.address, delay], delay]);
          calls.push(["grantRole", [role, f.admin.address, delay], delay]);
        }
      }
      for (const role of [ROLE.Admin, ROLE.Operator, ROLE.Guardian, ROLE.Governor]) {
        for (const delay of outOfRange) calls.push(["setGrantDelay", [role, delay], delay]);
      }
      for (const [method, args] of calls) await scheduleAsAdmin(f, f.manager, method, args);
      await time.increase(ADMIN_DELAY);
      for (const [method, args, delay] of calls) {
        await expect(executeAsAdmin(f, f.manager, method, args), `${method}(${args.join(", ")})`)
          .to.be.revertedWithCustomError(f.manager, "AdminDelayOutOfRange")
          .withArgs(delay);
      }
      // Within the range, both go through; the operator's own execution delay is not bounded (it has none).
      await scheduleAsAdmin(f, f.manager, "grantRole", [ROLE.Admin, f.admin.address, MIN_ADMIN_DELAY]);
      await scheduleAsAdmin(f, f.manager, "setGrantDelay", [ROLE.Operator, MAX_ADMIN_DELAY]);
      await time.increase(ADMIN_DELAY);
      await expect(executeAsAdmin(f, f.manager, "grantRole", [ROLE.Admin, f.admin.address, MIN_ADMIN_DELAY])).to.emit(f.manager, "RoleGranted");
      await expect(executeAsAdmin(f, f.manager, "setGrantDelay", [ROLE.Operator, MAX_ADMIN_DELAY])).to.emit(f.manager, "RoleGrantDelayChanged");
    });

    it("moves the admin's roles only by scheduled grants and revocations, after the delays; the old admin loses both", async () => {
      const f = await loadFixture(rolesFixture);
      const next = { manager: f.manager, admin: f.newAdmin };
      const grants = [
        [ROLE.Admin, f.newAdmin.address, ADMIN_DELAY],
        [ROLE.Governor, f.newAdmin.address, ADMIN_DELAY],
      ] as const;
      // At once, the grant is refused: the admin's calls wait out its delay in public.
      await expect(f.manager.connect(f.admin).grantRole(...grants[0]))
        .to.be.revertedWithCustomError(f.manager, "AccessManagerNotScheduled")
        .withArgs(await operationId(f, f.admin.address, f.manager, "grantRole", grants[0]));
      const scheduled = await scheduleAsAdmin(f, f.manager, "grantRole", grants[0]);
      const readyAt = (await timestampOf(scheduled)) + ADMIN_DELAY;
      await expect(scheduled)
        .to.emit(f.manager, "OperationScheduled")
        .withArgs(
          await operationId(f, f.admin.address, f.manager, "grantRole", grants[0]),
          1,
          readyAt,
          f.admin.address,
          f.managerAddress,
          callData(f.manager, "grantRole", grants[0]),
        );
      await scheduleAsAdmin(f, f.manager, "grantRole", grants[1]);
      await expect(executeAsAdmin(f, f.manager, "grantRole", grants[0])).to.be.revertedWithCustomError(f.manager, "AccessManagerNotReady");
      await time.increaseTo(readyAt);
      for (const grant of grants) {
        await expect(executeAsAdmin(f, f.manager, "grantRole", grant))
          .to.emit(f.manager, "RoleGranted")
          .withArgs(grant[0], f.newAdmin.address, ADMIN_DELAY, anyUint, true);
      }
      // Granted, the new admin is not one yet: the role's grant delay keeps it waiting, in public, too.
      expect((await f.manager.hasRole(ROLE.Admin, f.newAdmin.address)).isMember).to.equal(false);
      await expect(scheduleAsAdmin(next, f.vault, "setDailyLimit", [10]))
        .to.be.revertedWithCustomError(f.manager, "AccessManagerUnauthorizedCall")
        .withArgs(f.newAdmin.address, await f.vault.getAddress(), f.vault.interface.getFunction("setDailyLimit").selector);
      // Meanwhile the old admin still acts (and schedules a withdrawal it will not get to execute).
      await expect(asAdmin(f, f.vault, "setDailyLimit", [LARGE_DAILY_LIMIT / 2n])).to.emit(f.vault, "LimitChanged");
      await scheduleAsAdmin(f, f.vault, "withdrawTokens", [f.admin.address, 1]);
      for (const role of [ROLE.Admin, ROLE.Governor]) {
        expect(await f.manager.hasRole(role, f.newAdmin.address)).to.deep.equal([true, BigInt(ADMIN_DELAY)]);
      }
      // The new admin revokes the old one's roles, through its own delay.
      await scheduleAsAdmin(next, f.manager, "revokeRole", [ROLE.Admin, f.admin.address]);
      await scheduleAsAdmin(next, f.manager, "revokeRole", [ROLE.Governor, f.admin.address]);
      await time.increase(ADMIN_DELAY);
      for (const role of [ROLE.Admin, ROLE.Governor]) {
        await expect(executeAsAdmin(next, f.manager, "revokeRole", [role, f.admin.address]))
          .to.emit(f.manager, "RoleRevoked")
          .withArgs(role, f.admin.address);
        expect((await f.manager.hasRole(role, f.admin.address)).isMember).to.equal(false);
      }
      // The old admin can neither execute what it scheduled, nor schedule anything, nor grant itself back.
      await expect(executeAsAdmin(f, f.vault, "withdrawTokens", [f.admin.address, 1]))
        .to.be.revertedWithCustomError(f.manager, "AccessManagerUnauthorizedCall")
        .withArgs(f.admin.address, await f.vault.getAddress(), f.vault.interface.getFunction("withdrawTokens").selector);
      await expect(scheduleAsAdmin(f, f.vault, "setDailyLimit", [10])).to.be.revertedWithCustomError(f.manager, "AccessManagerUnauthorizedCall");
      await expect(scheduleAsAdmin(f, f.manager, "grantRole", [ROLE.Admin, f.admin.address, ADMIN_DELAY]))
        .to.be.revertedWithCustomError(f.manager, "AccessManagerUnauthorizedCall")
        .withArgs(f.admin.address, f.managerAddress, f.manager.interface.getFunction("grantRole").selector);
      await expect(asAdmin(next, f.vault, "setDailyLimit", [10])).to.emit(f.vault, "LimitChanged").withArgs(ZeroHash, LARGE_DAILY_LIMIT / 2n, 10);
    });

    it("a transfer can be canceled by the guardian or the admin, and never lands on the operator or the guardian", async () => {
      const f = await loadFixture(rolesFixture);
      const grant = [ROLE.Admin, f.stranger.address, ADMIN_DELAY] as const;
      const data = callData(f.manager, "grantRole", grant);
      const id = await operationId(f, f.admin.address, f.manager, "grantRole", grant);
      const grantSelector = f.manager.interface.getFunction("grantRole").selector;
      await scheduleAsAdmin(f, f.manager, "grantRole", grant);
      // Nobody else cancels it...
      for (const signer of [f.operator, f.stranger]) {
        await expect(f.manager.connect(signer).cancel(f.admin.address, f.managerAddress, data))
          .to.be.revertedWithCustomError(f.manager, "AccessManagerUnauthorizedCancel")
          .withArgs(signer.address, f.admin.address, f.managerAddress, grantSelector);
      }
      // ...the guardian does.
      await expect(f.manager.connect(f.guardian).cancel(f.admin.address, f.managerAddress, data)).to.emit(f.manager, "OperationCanceled").withArgs(id, 1);
      await time.increase(ADMIN_DELAY);
      await expect(executeAsAdmin(f, f.manager, "grantRole", grant)).to.be.revertedWithCustomError(f.manager, "AccessManagerNotScheduled").withArgs(id);
      // Scheduled again, the admin may cancel its own.
      await scheduleAsAdmin(f, f.manager, "grantRole", grant);
      await expect(f.manager.connect(f.admin).cancel(f.admin.address, f.managerAddress, data)).to.emit(f.manager, "OperationCanceled").withArgs(id, 2);
      expect(await f.manager.getSchedule(id)).to.equal(0n);

      for (const [role, account, held] of [
        [ROLE.Admin, f.operator.address, ROLE.Operator],
        [ROLE.Governor, f.operator.address, ROLE.Operator],
        [ROLE.Admin, f.guardian.address, ROLE.Guardian],
        [ROLE.Governor, f.guardian.address, ROLE.Guardian],
      ] as const) {
        await refusedAsAdmin(f, f.manager, "grantRole", [role, account, ADMIN_DELAY], (tx) =>
          expect(tx).to.be.revertedWithCustomError(f.manager, "RoleConflict").withArgs(account, held),
        );
      }
      expect((await f.manager.hasRole(ROLE.Admin, f.admin.address)).isMember).to.equal(true);
      expect((await f.manager.hasRole(ROLE.Admin, f.stranger.address)).isMember).to.equal(false);
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
      const op = f.vault.connect(f.operator);
      const [a, b] = f.held;
      let d = await f.draw.getDrawing(f.campaignId, 1);
      expect(d.heldCount).to.equal(BigInt(f.held.length));
      expect(await f.vault.heldClosed(f.campaignId, 1)).to.equal(0n);
      expect(d.heldCents).to.equal(f.held.reduce((s, p) => s + p.amountCents, 0n));
      expect(await f.vault.heldPrizeState(f.campaignId, 1, a.position)).to.equal(HELD.Open);

      const pay = op.payHeldPrize(f.campaignId, 1, a.position);
      await expect(pay)
        .to.emit(f.vault, "HeldPrizePaid")
        .withArgs(f.campaignId, 1, a.position, f.wallet.address, a.amountCents, a.amountCents * UNITS_PER_CENT);
      await expect(pay).to.changeTokenBalance(f.token, f.wallet, a.amountCents * UNITS_PER_CENT);
      expect(await f.vault.heldPrizeState(f.campaignId, 1, a.position)).to.equal(HELD.Paid);

      await expect(op.refuseHeldPrize(f.campaignId, 1, b.position, "")).to.be.revertedWithCustomError(f.vault, "ReasonRequired");
      const [, owedBefore] = await f.vault.balances();
      const refuse = op.refuseHeldPrize(f.campaignId, 1, b.position, "winner failed identity checks");
      await expect(refuse)
        .to.emit(f.vault, "HeldPrizeRefused")
        .withArgs(f.campaignId, 1, b.position, b.amountCents, "winner failed identity checks");
      await expect(refuse).to.emit(f.vault, "OwedChanged").withArgs(0, b.amountCents, owedBefore - b.amountCents);
      await expect(refuse).to.changeTokenBalances(f.token, [f.vault, f.wallet], [0n, 0n]);
      expect((await f.vault.balances()).owedCents).to.equal(owedBefore - b.amountCents);
      expect(await f.vault.heldPrizeState(f.campaignId, 1, b.position)).to.equal(HELD.Refused);

      for (const p of [a, b]) {
        await expect(op.payHeldPrize(f.campaignId, 1, p.position)).to.be.revertedWithCustomError(f.vault, "HeldPrizeClosed").withArgs(f.campaignId, 1, p.position);
        await expect(op.refuseHeldPrize(f.campaignId, 1, p.position, "again")).to.be.revertedWithCustomError(f.vault, "HeldPrizeClosed").withArgs(f.campaignId, 1, p.position);
      }
      const n = f.notHeld[0].position;
      await expect(op.payHeldPrize(f.campaignId, 1, n)).to.be.revertedWithCustomError(f.draw, "NotHeldPrize").withArgs(f.campaignId, 1, n);
      await expect(op.refuseHeldPrize(f.campaignId, 1, n, "no")).to.be.revertedWithCustomError(f.draw, "NotHeldPrize").withArgs(f.campaignId, 1, n);
      d = await f.draw.getDrawing(f.campaignId, 1);
      expect(await f.vault.heldClosed(f.campaignId, 1)).to.equal(2n);
      // The drawing's payout is unaffected by held prizes.
      await expect(f.draw.payout(f.campaignId, 1)).to.emit(f.draw, "DrawingPaid").withArgs(f.campaignId, 1, f.wallet.address, d.payoutCents, d.payoutCents * UNITS_PER_CENT);
      const rest = f.held.slice(2);
      for (const p of rest) await op.refuseHeldPrize(f.campaignId, 1, p.position, "unclaimed");
      expect(await f.vault.heldClosed(f.campaignId, 1)).to.equal(BigInt(f.held.length));
      expect((await f.vault.balances()).owedCents).to.equal(0n);
    });

    it("refuses closing a held prize before settlement", async () => {
      const f = await loadFixture(deployFixture);
      await asAdmin(f, f.draw, "setCallbackGasLimit", [100_000]); // 3 positions in the callback
      await commitAndReveal(f, f.campaignId, 1, randomBytes32(), { winnersExpected: 10 });
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(STATUS.Revealed);
      await expect(f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, 0)).to.be.revertedWithCustomError(f.draw, "NotSettled").withArgs(f.campaignId, 1);
      await expect(f.vault.connect(f.operator).refuseHeldPrize(f.campaignId, 1, 0, "x")).to.be.revertedWithCustomError(f.draw, "NotSettled");
      await expect(f.vault.connect(f.operator).payHeldPrize(f.campaignId, 2, 0)).to.be.revertedWithCustomError(f.draw, "DrawingNotFound");
    });

    it("the admin moves an unpaid drawing to the campaign's new wallet; payouts stay permissionless and go to the recorded wallet", async () => {
      const f = await loadFixture(heldFixture);
      const [a] = f.held;
      const move = (to: string, num = 1) => [f.campaignId, num, to] as const;
      await refusedAsAdmin(f, f.draw, "moveDrawingWallet", move(f.wallet.address), (tx) =>
        expect(tx).to.be.revertedWithCustomError(f.draw, "NothingToMove").withArgs(f.campaignId, 1),
      );
      // The destination must be the campaign's wallet, which the operator sets: the admin alone cannot choose it.
      await refusedAsAdmin(f, f.draw, "moveDrawingWallet", move(f.other.address), (tx) =>
        expect(tx).to.be.revertedWithCustomError(f.draw, "MoveDestinationMismatch").withArgs(f.campaignId, f.other.address, f.wallet.address),
      );
      await refusedAsAdmin(f, f.draw, "moveDrawingWallet", move(ZeroAddress), (tx) => expect(tx).to.be.revertedWithCustomError(f.draw, "ZeroAddress"));
      await f.draw.connect(f.operator).setPayoutWallet(f.campaignId, f.other.address);
      await expect(asAdmin(f, f.draw, "moveDrawingWallet", move(f.other.address)))
        .to.emit(f.draw, "DrawingWalletMoved")
        .withArgs(f.campaignId, 1, f.wallet.address, f.other.address);
      expect((await f.draw.getDrawing(f.campaignId, 1)).payoutWallet).to.equal(f.other.address);
      await refusedAsAdmin(f, f.draw, "moveDrawingWallet", move(f.other.address), (tx) => expect(tx).to.be.revertedWithCustomError(f.draw, "NothingToMove"));
      await refusedAsAdmin(f, f.draw, "moveDrawingWallet", move(f.other.address, 2), (tx) =>
        expect(tx).to.be.revertedWithCustomError(f.draw, "DrawingNotFound"),
      );

      const d = await f.draw.getDrawing(f.campaignId, 1);
      const payout = f.draw.connect(f.stranger).payout(f.campaignId, 1);
      await expect(payout).to.emit(f.draw, "DrawingPaid").withArgs(f.campaignId, 1, f.other.address, d.payoutCents, d.payoutCents * UNITS_PER_CENT);
      await expect(payout).to.changeTokenBalances(
        f.token,
        [f.other, f.wallet, f.stranger],
        [d.payoutCents * UNITS_PER_CENT, 0n, 0n],
      );
      await expect(f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, a.position)).to.changeTokenBalance(f.token, f.other, a.amountCents * UNITS_PER_CENT);
      // Paid, with held prizes still open: it can still move. Once everything is closed, nothing is left to move.
      await f.draw.connect(f.operator).setPayoutWallet(f.campaignId, f.wallet.address);
      await asAdmin(f, f.draw, "moveDrawingWallet", move(f.wallet.address));
      for (const p of f.held.slice(1)) await f.vault.connect(f.operator).refuseHeldPrize(f.campaignId, 1, p.position, "done");
      await f.draw.connect(f.operator).setPayoutWallet(f.campaignId, f.other.address);
      await refusedAsAdmin(f, f.draw, "moveDrawingWallet", move(f.other.address), (tx) => expect(tx).to.be.revertedWithCustomError(f.draw, "NothingToMove"));
    });
  });

  describe("a stablecoin that blacklists a wallet", () => {
    const A = campaignIdOf("campaign-a");
    const B = campaignIdOf("campaign-b");

    async function blacklistFixture() {
      const [admin, operator, guardian, stranger, walletA, walletB, provider, fresh] = await ethers.getSigners();
      const token = (await (await ethers.getContractFactory("BlacklistStablecoin")).deploy()) as unknown as BlacklistStablecoin;
      const mock = (await (await ethers.getContractFactory("MockEntropy")).deploy(provider.address)) as unknown as MockEntropy;
      const { draw, vault, manager } = await deployPrizeDraw({ entropy: await mock.getAddress(), token, admin, operator, guardian });
      await draw.connect(operator).registerCampaign(A, walletA.address, 50_000, 0, 0);
      await draw.connect(operator).registerCampaign(B, walletB.address, 50_000, 0, 0);
      const f = { admin, operator, guardian, stranger, wallet: walletA, provider, other: fresh, token, mock, draw, vault, manager, campaignId: A } as unknown as Fixture;
      for (const id of [A, B]) await commitAndReveal(f, id, 1, keccak256(toUtf8Bytes(`blacklist-${id}`)), { winnersExpected: 20 });
      await token.blacklist(walletA.address);
      return { admin, operator, stranger, walletA, walletB, fresh, token, draw, vault, manager };
    }

    it("one campaign's refused wallet does not block another's payout; the admin moves it to the new wallet", async () => {
      const f = await loadFixture(blacklistFixture);
      const centsA = (await f.draw.getDrawing(A, 1)).payoutCents;
      const centsB = (await f.draw.getDrawing(B, 1)).payoutCents;
      const stateBefore = [await f.vault.balances(), await f.vault.paymentState()];
      await expect(f.draw.connect(f.stranger).payout(A, 1)).to.be.revertedWithCustomError(f.token, "Blacklisted").withArgs(f.walletA.address);
      // Nothing was recorded by the failed payout.
      expect([await f.vault.balances(), await f.vault.paymentState()]).to.deep.equal(stateBefore);
      expect((await f.draw.getDrawing(A, 1)).status).to.equal(STATUS.Settled);

      await expect(f.draw.connect(f.stranger).payout(B, 1)).to.changeTokenBalance(f.token, f.walletB, centsB * UNITS_PER_CENT);

      // A new wallet for the campaign alone does not move the committed drawing...
      await f.draw.connect(f.operator).setPayoutWallet(A, f.fresh.address);
      await expect(f.draw.connect(f.stranger).payout(A, 1)).to.be.revertedWithCustomError(f.token, "Blacklisted");
      // ...the admin does.
      await expect(asAdmin(f, f.draw, "moveDrawingWallet", [A, 1, f.fresh.address]))
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
