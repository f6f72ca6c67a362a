// The outside audit's findings, each re-run against the contracts as the auditor ran it, named after what the fix
// proves: the exploit's transaction is refused (or, where the finding was about an order of operations, the runbook's
// order leaves nothing to take). One test per finding.
import { expect } from "chai";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { ethers } from "hardhat";
import { ZeroAddress, ZeroHash, encodeBytes32String, keccak256, toUtf8Bytes } from "ethers";
import type { MockEntropy, TestStablecoin } from "../../typechain-types";
import {
  ADMIN_DELAY,
  DEFAULT_TABLE,
  GUARANTEE,
  HELD,
  ROLE,
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
  scheduleAsAdmin,
  sendBatch,
  sendCommit,
  type Fixture,
  refusedAsAdmin,
  operationId,
  timestampOf,
  untilGuaranteePeriodEnd,
} from "./helpers";

const DAY = 86_400;
const MAX_UINT64 = 2n ** 64n - 1n;
/** Tiers 0 and 1 are at or above 1,000 cents (held with threshold 1,000), tier 2 is not. */
const MIXED = { id: encodeBytes32String("mixed"), amounts: [5_000n, 1_000n, 100n], weights: [3n, 3n, 4n] };
const GUARANTEED = campaignIdOf("weekly-guaranteed");


/**
 * A settled, unpaid drawing with open held prizes on "summer-daily", and a picked, unpaid guarantee on
 * "weekly-guaranteed", both owed to the partner's wallet (`wallet`). `thief` holds nothing yet.
 */
async function owedFixture() {
  const f = await deployFixture();
  const op = f.draw.connect(f.operator);
  await op.publishPrizeTable(MIXED.id, 1, MIXED.amounts, MIXED.weights);
  await op.setLargePrizeThreshold(f.campaignId, 1_000);
  const prizes = awarded(f, await commitAndReveal(f, f.campaignId, 1, keccak256(toUtf8Bytes("owed")), { winnersExpected: 10, tableId: MIXED.id }));
  const held = prizes.filter((p) => p.held);
  expect(held.length).to.be.greaterThan(0);
  await op.registerCampaign(GUARANTEED, f.wallet.address, 50_000, 2_500, DAY);
  await commit(f, commitArgs(GUARANTEED, 1));
  await untilGuaranteePeriodEnd(f.vault, GUARANTEED, 0);
  await f.vault.connect(f.operator).pickGuarantee(GUARANTEED, 0, keccak256(toUtf8Bytes("u-1")));
  return { ...f, held };
}

/** 3,000,000 dollars in the pool (6-decimal units): room for two of the largest guarantees, not three. */
const POOL = 3_000_000n * 1_000_000n;

/** deployFixture's parties and contracts, with POOL in the vault and no campaign. */
async function smallPoolFixture() {
  const [admin, operator, guardian, stranger, wallet, provider, other, thief, newAdmin] = await ethers.getSigners();
  const token = (await (await ethers.getContractFactory("TestStablecoin")).deploy()) as unknown as TestStablecoin;
  const mock = (await (await ethers.getContractFactory("MockEntropy")).deploy(provider.address)) as unknown as MockEntropy;
  const { draw, vault, manager } = await deployPrizeDraw({ entropy: await mock.getAddress(), token, admin, operator, guardian, pool: POOL });
  return { admin, operator, guardian, stranger, wallet, provider, other, thief, newAdmin, token, mock, draw, vault, manager };
}

/** The token balances of `addresses`, or (given `since`) how much each grew since then. */
async function balancesOf(f: Fixture, addresses: string[], since?: bigint[]): Promise<bigint[]> {
  const now = await Promise.all(addresses.map((a) => f.token.balanceOf(a)));
  return since === undefined ? now : now.map((b, i) => b - since[i]!);
}

describe("PrizeDraw: the audit's findings, re-run", () => {
  it("M-1: the admin alone cannot take owed money: its grant of the operator role waits in public and the guardian cancels it; its withdrawals take only free money, scheduled, paused and limited like payments", async () => {
    const f = await loadFixture(owedFixture);
    const accomplice = f.thief; // a second address the admin controls
    const managerAddress = await f.manager.getAddress();
    const grant = [ROLE.Operator, accomplice.address, 0] as const;
    const grantData = callData(f.manager, "grantRole", grant);
    const grantId = await operationId(f, f.admin.address, f.manager, "grantRole", grant);
    // The auditor's first step, an operator role for the accomplice, is refused at once: it must be scheduled.
    await expect(f.manager.connect(f.admin).grantRole(...grant))
      .to.be.revertedWithCustomError(f.manager, "AccessManagerNotScheduled")
      .withArgs(grantId);
    // Scheduled, it is on the record for the admin's delay...
    const scheduled = await scheduleAsAdmin(f, f.manager, "grantRole", grant);
    await expect(scheduled)
      .to.emit(f.manager, "OperationScheduled")
      .withArgs(grantId, 1, (await timestampOf(scheduled)) + ADMIN_DELAY, f.admin.address, managerAddress, grantData);
    // ...and the guardian cancels it.
    await expect(f.manager.connect(f.guardian).cancel(f.admin.address, managerAddress, grantData))
      .to.emit(f.manager, "OperationCanceled")
      .withArgs(grantId, 1);
    await time.increase(ADMIN_DELAY);
    await expect(executeAsAdmin(f, f.manager, "grantRole", grant)).to.be.revertedWithCustomError(f.manager, "AccessManagerNotScheduled").withArgs(grantId);
    expect((await f.manager.hasRole(ROLE.Operator, accomplice.address)).isMember).to.equal(false);
    // Even uncancelled, the grant makes an operator only after the role's grant delay (the admin's): the accomplice
    // can release nothing owed until then, and the guardian, seeing the grant, pauses.
    const granted = await asAdmin(f, f.manager, "grantRole", grant);
    await expect(granted)
      .to.emit(f.manager, "RoleGranted")
      .withArgs(ROLE.Operator, accomplice.address, 0, (await timestampOf(granted)) + ADMIN_DELAY, true);
    expect((await f.manager.hasRole(ROLE.Operator, accomplice.address)).isMember).to.equal(false);
    const refuseAll = f.held.map((p) => () => f.vault.connect(accomplice).refuseHeldPrize(f.campaignId, 1, p.position, "not eligible"));
    for (const refuse of refuseAll) {
      await expect(refuse()).to.be.revertedWithCustomError(f.vault, "AccessManagedUnauthorized").withArgs(accomplice.address);
    }
    await f.vault.connect(f.guardian).pause();
    await time.increase(ADMIN_DELAY);
    expect((await f.manager.hasRole(ROLE.Operator, accomplice.address)).isMember).to.equal(true);
    for (const refuse of refuseAll) await expect(refuse()).to.be.revertedWithCustomError(f.vault, "EnforcedPause");
    for (const p of f.held) expect(await f.vault.heldPrizeState(f.campaignId, 1, p.position)).to.equal(HELD.Open);

    // The second route, from the same start (loadFixture returns to it): the admin's own withdrawals.
    const g = await loadFixture(owedFixture);
    const LIMIT = 1_000_000n; // cents per 24 hours: at most 500,000 at once
    await asAdmin(g, g.vault, "setDailyLimit", [LIMIT]);
    const [balance, owedCents, owedUnits, free] = await g.vault.balances();
    expect(owedCents).to.be.greaterThan(0n);
    // Owed money never leaves, however the call comes.
    await expect(g.vault.connect(g.admin).withdrawTokens(g.admin.address, balance)).to.be.revertedWithCustomError(g.manager, "AccessManagerNotScheduled");
    await refusedAsAdmin(g, g.vault, "withdrawTokens", [g.admin.address, balance], (tx) =>
      expect(tx).to.be.revertedWithCustomError(g.vault, "WithdrawalExceedsFree").withArgs(balance, free),
    );
    // Free money, scheduled: it waits while the guardian's pause holds...
    const takeFree = [g.admin.address, free] as const;
    await scheduleAsAdmin(g, g.vault, "withdrawTokens", takeFree);
    await g.vault.connect(g.guardian).pause();
    await time.increase(ADMIN_DELAY);
    await expect(executeAsAdmin(g, g.vault, "withdrawTokens", takeFree)).to.be.revertedWithCustomError(g.vault, "PaymentsArePaused");
    // ...and after the resume, it draws on the 24-hour limit like any payment: at most half of it at once.
    await asAdmin(g, g.vault, "unpause", []);
    await expect(executeAsAdmin(g, g.vault, "withdrawTokens", takeFree))
      .to.be.revertedWithCustomError(g.vault, "LimitExceeded")
      .withArgs(ZeroHash, free / UNITS_PER_CENT, LIMIT / 2n);
    const most = (LIMIT / 2n) * UNITS_PER_CENT;
    await expect(asAdmin(g, g.vault, "withdrawTokens", [g.admin.address, most]))
      .to.emit(g.vault, "TokensWithdrawn")
      .withArgs(g.admin.address, most, LIMIT / 2n);
    expect(await g.vault.balances()).to.deep.equal([balance - most, owedCents, owedUnits, free - most]);
  });

  it("M-2: a stolen operator key that changes the campaign's wallet before the admin's move runs gets nothing (the move names its destination)", async () => {
    const f = await loadFixture(owedFixture);
    const { thief, other: newWallet } = f;
    const moveDrawing = [f.campaignId, 1, newWallet.address] as const;
    const moveGuarantee = [GUARANTEED, 0, newWallet.address] as const;
    // The recovery the README gives for a refused wallet: the service sets the partner's new wallet and the admin
    // schedules the moves, naming it...
    await f.draw.connect(f.operator).setPayoutWallet(f.campaignId, newWallet.address);
    await f.draw.connect(f.operator).setPayoutWallet(GUARANTEED, newWallet.address);
    await scheduleAsAdmin(f, f.draw, "moveDrawingWallet", moveDrawing);
    await scheduleAsAdmin(f, f.vault, "moveGuaranteeWallet", moveGuarantee);
    // ...and during the admin's delay the thief, holding the operator key, points both campaigns at itself.
    await f.draw.connect(f.operator).setPayoutWallet(f.campaignId, thief.address);
    await f.draw.connect(f.operator).setPayoutWallet(GUARANTEED, thief.address);
    await time.increase(ADMIN_DELAY);
    // The admin's moves name the wallet the admin checked; they revert instead of following the thief's.
    await expect(executeAsAdmin(f, f.draw, "moveDrawingWallet", moveDrawing))
      .to.be.revertedWithCustomError(f.draw, "MoveDestinationMismatch")
      .withArgs(f.campaignId, newWallet.address, thief.address);
    await expect(executeAsAdmin(f, f.vault, "moveGuaranteeWallet", moveGuarantee))
      .to.be.revertedWithCustomError(f.vault, "MoveDestinationMismatch")
      .withArgs(GUARANTEED, newWallet.address, thief.address);
    // Everything owed still goes to the wallet recorded at the commit and the pick, whoever triggers it.
    expect((await f.draw.getDrawing(f.campaignId, 1)).payoutWallet).to.equal(f.wallet.address);
    expect(await f.vault.getGuarantee(GUARANTEED, 0)).to.deep.equal([GUARANTEE.Picked, f.wallet.address, 2_500n]);
    const owed = (await f.draw.getDrawing(f.campaignId, 1)).payoutCents + f.held[0]!.amountCents + 2_500n;
    const before = await balancesOf(f, [f.wallet.address, thief.address]);
    await f.draw.connect(thief).payout(f.campaignId, 1);
    await f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, f.held[0]!.position);
    await f.vault.connect(thief).payGuarantee(GUARANTEED, 0);
    expect(await balancesOf(f, [f.wallet.address, thief.address], before)).to.deep.equal([owed * UNITS_PER_CENT, 0n]);
  });

  it("M-3: guarantees are bounded in time and obligations are backed: a stolen operator key picks no period before its end, and its picks and commits beyond the pool are refused", async () => {
    const f = await loadFixture(smallPoolFixture);
    const op = f.draw.connect(f.operator);
    const opVault = f.vault.connect(f.operator);
    const LOOT = campaignIdOf("thief-guarantee");
    const GUARANTEE_CENTS = 100_000_000n; // the largest guarantee a campaign may register: 1,000,000 dollars a day
    const winner = keccak256(toUtf8Bytes("accomplice"));
    const POOL_CENTS = POOL / UNITS_PER_CENT;
    /** Owed never exceeds the pool; returns what is owed. */
    const backed = async (): Promise<bigint> => {
      const [tokenBalance, owedCents] = await f.vault.balances();
      expect(tokenBalance).to.equal(POOL); // nothing was paid: the pool only backs
      expect(owedCents).to.be.lessThanOrEqual(tokenBalance / UNITS_PER_CENT);
      return owedCents;
    };
    await op.registerCampaign(LOOT, f.thief.address, 50_000, GUARANTEE_CENTS, DAY);
    // Each commit opens a period to pick: ten drawings of a table of one- and two-cent prizes, in one batch.
    const TINY = { id: encodeBytes32String("tiny"), amounts: [2n, 1n], weights: [1n, 1n] };
    await op.publishPrizeTable(TINY.id, 1, TINY.amounts, TINY.weights);
    await sendBatch(f, Array.from({ length: 10 }, (_, i) => commitArgs(LOOT, i + 1, { tableId: TINY.id, winnersExpected: 1 })));
    const committed = await backed();
    expect(committed).to.equal(10n * 2n); // each reserves its worst case until it is paid
    // The audit's exploit (a guarantee for every committed drawing within seconds) is refused: a period can be
    // picked only once it has ended in block time, counted from the registration.
    const registeredAt = (await f.draw.getCampaignTerms(LOOT)).guaranteeStart;
    for (const period of [0, 1, 9]) {
      await expect(opVault.pickGuarantee(LOOT, period, winner))
        .to.be.revertedWithCustomError(f.vault, "GuaranteePeriodNotEnded")
        .withArgs(LOOT, period, registeredAt + BigInt((period + 1) * DAY));
    }
    expect(await backed()).to.equal(committed);
    // One day on, period 0 alone has ended.
    await untilGuaranteePeriodEnd(f.vault, LOOT, 0);
    await expect(opVault.pickGuarantee(LOOT, 1, winner)).to.be.revertedWithCustomError(f.vault, "GuaranteePeriodNotEnded");
    // Ten days on, every committed period has ended: two guarantees fit in the pool of 3,000,000 dollars; every
    // further pick is refused.
    await untilGuaranteePeriodEnd(f.vault, LOOT, 9);
    for (const period of [0, 1]) {
      await expect(opVault.pickGuarantee(LOOT, period, winner)).to.emit(f.vault, "GuaranteePicked");
      expect(await backed()).to.equal(committed + BigInt(period + 1) * GUARANTEE_CENTS);
    }
    const owed = await backed();
    for (let period = 2; period < 10; period++) {
      await expect(opVault.pickGuarantee(LOOT, period, winner))
        .to.be.revertedWithCustomError(f.vault, "ObligationNotBacked")
        .withArgs(owed + GUARANTEE_CENTS, POOL_CENTS);
      expect(await backed()).to.equal(owed);
      expect((await f.vault.getGuarantee(LOOT, period)).status).to.equal(GUARANTEE.None);
    }
    // A commit is refused when its worst case (here 999 x 100,000 + the top 10,000,000) exceeds what is free...
    const free = POOL_CENTS - owed;
    const worst = (winners: bigint) => (winners - 1n) * DEFAULT_TABLE.amounts[1]! + DEFAULT_TABLE.amounts[0]!;
    expect(worst(1_000n)).to.be.greaterThan(free);
    await expect(sendCommit(f, commitArgs(LOOT, 11, { winnersExpected: 1_000 })))
      .to.be.revertedWithCustomError(f.vault, "ObligationNotBacked")
      .withArgs(owed + worst(1_000n), POOL_CENTS);
    expect(await backed()).to.equal(owed);
    // ...and accepted when it fits.
    expect(worst(900n)).to.be.lessThanOrEqual(free);
    await sendCommit(f, commitArgs(LOOT, 11, { winnersExpected: 900 }));
    expect(await backed()).to.equal(owed + worst(900n));
    // And the guardian's pause stops every pick.
    await f.vault.connect(f.guardian).pause();
    await expect(opVault.pickGuarantee(LOOT, 2, winner)).to.be.revertedWithCustomError(f.vault, "EnforcedPause");
  });

  it("M-4: after the guardian's pause a stolen operator key can neither release, add nor redirect what is owed, and after rotation nothing it tried is left", async () => {
    const f = await loadFixture(owedFixture);
    const { thief } = f;
    const owedBefore = (await f.vault.balances()).owedCents;
    await f.vault.connect(f.guardian).pause();
    // The audit's sequence with the stolen key: refuse every open held prize, raise the threshold so later prizes
    // skip the manual check, register a campaign paying the thief, commit to it and pick its guarantee.
    const stolen = f.draw.connect(f.operator);
    const stolenVault = f.vault.connect(f.operator);
    const THIEF_CAMPAIGN = campaignIdOf("thief-pays-thief");
    // Each contract refuses with its own EnforcedPause: the refusals and the pick are the vault's.
    const attempts = [
      ...f.held.map((p) => [f.vault, () => stolenVault.refuseHeldPrize(f.campaignId, 1, p.position, "not eligible")] as const),
      [f.draw, () => stolen.setLargePrizeThreshold(f.campaignId, MAX_UINT64)] as const,
      [f.draw, () => stolen.registerCampaign(THIEF_CAMPAIGN, thief.address, 50_000, 100_000_000, DAY)] as const,
      [f.draw, () => sendCommit(f, commitArgs(GUARANTEED, 2))] as const,
      [f.vault, () => stolenVault.pickGuarantee(GUARANTEED, 1, keccak256(toUtf8Bytes("thief")))] as const,
    ];
    for (const [contract, attempt] of attempts) await expect(attempt()).to.be.revertedWithCustomError(contract, "EnforcedPause");
    // The admin rotates the key and resumes, all scheduled together and run in that order after its delay: what was
    // owed is still owed, to the partner's wallet, held prizes open.
    const rotation = [
      [f.manager, "revokeRole", [ROLE.Operator, f.operator.address]],
      [f.manager, "grantRole", [ROLE.Operator, f.newAdmin.address, 0]],
      [f.vault, "unpause", []],
    ] as const;
    for (const [target, method, args] of rotation) await scheduleAsAdmin(f, target, method, args);
    await time.increase(ADMIN_DELAY);
    for (const [target, method, args] of rotation) await executeAsAdmin(f, target, method, args);
    expect(await f.vault.paused()).to.equal(false);
    expect((await f.vault.balances()).owedCents).to.equal(owedBefore);
    for (const p of f.held) expect(await f.vault.heldPrizeState(f.campaignId, 1, p.position)).to.equal(HELD.Open);
    expect((await f.draw.getCampaign(f.campaignId)).largePrizeThresholdCents).to.equal(1_000n);
    expect(await f.vault.getGuarantee(GUARANTEED, 1)).to.deep.equal([GUARANTEE.None, ZeroAddress, 0n]);
    await expect(f.vault.connect(thief).payGuarantee(GUARANTEED, 1)).to.be.revertedWithCustomError(f.vault, "GuaranteeNotPicked");
    await expect(f.vault.connect(f.operator).refuseHeldPrize(f.campaignId, 1, f.held[0]!.position, "x"))
      .to.be.revertedWithCustomError(f.vault, "AccessManagedUnauthorized")
      .withArgs(f.operator.address);
  });

  it("L-1: with the guardian's pause first, a stranger cannot front-run the admin's move away from a leaked partner wallet", async () => {
    const f = await loadFixture(owedFixture);
    const { stranger, other: newWallet } = f;
    // The partner's wallet key leaked. The runbook: pause (the guardian, at once), then set the new wallet and move.
    await f.vault.connect(f.guardian).pause();
    await expect(f.draw.connect(stranger).payout(f.campaignId, 1)).to.be.revertedWithCustomError(f.vault, "PaymentsArePaused");
    await expect(f.vault.connect(stranger).payGuarantee(GUARANTEED, 0)).to.be.revertedWithCustomError(f.vault, "PaymentsArePaused");
    await f.draw.connect(f.operator).setPayoutWallet(f.campaignId, newWallet.address);
    await f.draw.connect(f.operator).setPayoutWallet(GUARANTEED, newWallet.address);
    // The moves and the resume are scheduled together and run in that order after the admin's delay; the pause
    // holds throughout.
    const recovery = [
      [f.draw, "moveDrawingWallet", [f.campaignId, 1, newWallet.address]],
      [f.vault, "moveGuaranteeWallet", [GUARANTEED, 0, newWallet.address]],
      [f.vault, "unpause", []],
    ] as const;
    for (const [target, method, args] of recovery) await scheduleAsAdmin(f, target, method, args);
    await time.increase(ADMIN_DELAY);
    await expect(f.draw.connect(stranger).payout(f.campaignId, 1)).to.be.revertedWithCustomError(f.vault, "PaymentsArePaused");
    for (const [target, method, args] of recovery) await executeAsAdmin(f, target, method, args);
    const owed = (await f.draw.getDrawing(f.campaignId, 1)).payoutCents + 2_500n;
    const before = await balancesOf(f, [newWallet.address, f.wallet.address]);
    await f.draw.connect(stranger).payout(f.campaignId, 1);
    await f.vault.connect(stranger).payGuarantee(GUARANTEED, 0);
    expect(await balancesOf(f, [newWallet.address, f.wallet.address], before)).to.deep.equal([owed * UNITS_PER_CENT, 0n]);
  });

  it("L-2: a drawing whose automatic payout could exceed the largest payment the limits allow is refused at its commit, not left unpayable", async () => {
    const f = await loadFixture(deployFixture);
    const LIMIT = 1_000_000n; // cents per 24 hours: no payment above 500,000, ever
    await asAdmin(f, f.vault, "setDailyLimit", [LIMIT]);
    expect(await f.vault.maxPaymentCents(f.campaignId)).to.equal(LIMIT / 2n);
    const op = f.draw.connect(f.operator);
    const FLAT = { id: encodeBytes32String("flat"), amounts: [100_000n, 100_000n], weights: [1n, 1n] };
    await op.publishPrizeTable(FLAT.id, 1, FLAT.amounts, FLAT.weights);
    await op.setLargePrizeThreshold(f.campaignId, MAX_UINT64); // every prize paid automatically
    // The auditor's drawing: six prizes of 100,000 in one automatic payout, more than an allowance ever holds.
    await expect(sendCommit(f, commitArgs(f.campaignId, 1, { tableId: FLAT.id, winnersExpected: 6 })))
      .to.be.revertedWithCustomError(f.draw, "PayoutAboveLimit")
      .withArgs(f.campaignId, 1, 600_000n, LIMIT / 2n);
    // Five fit, and are paid.
    await commitAndReveal(f, f.campaignId, 1, randomBytes32(), { tableId: FLAT.id, winnersExpected: 5 });
    await expect(f.draw.payout(f.campaignId, 1))
      .to.emit(f.draw, "DrawingPaid")
      .withArgs(f.campaignId, 1, f.wallet.address, 500_000n, 500_000n * UNITS_PER_CENT);
    // Held prizes are paid one by one, so the same six prizes are accepted under a threshold that holds them.
    await op.setLargePrizeThreshold(f.campaignId, 100_000);
    await commit(f, commitArgs(f.campaignId, 2, { tableId: FLAT.id, winnersExpected: 6 }));
    // A campaign limit bounds the campaign's payments to half of it.
    await asAdmin(f, f.vault, "setCampaignLimit", [f.campaignId, 200_000n]);
    expect(await f.vault.maxPaymentCents(f.campaignId)).to.equal(100_000n);
    await op.setLargePrizeThreshold(f.campaignId, MAX_UINT64);
    await expect(sendCommit(f, commitArgs(f.campaignId, 3, { tableId: FLAT.id, winnersExpected: 2 })))
      .to.be.revertedWithCustomError(f.draw, "PayoutAboveLimit")
      .withArgs(f.campaignId, 3, 200_000n, 100_000n);
    await commit(f, commitArgs(f.campaignId, 3, { tableId: FLAT.id, winnersExpected: 1 }));
  });
});

