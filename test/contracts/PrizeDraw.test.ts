import { expect } from "chai";
import { ethers, network } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { encodeBytes32String, keccak256, toUtf8Bytes, ZeroAddress, ZeroHash } from "ethers";
import {
  ADMIN_DELAY,
  CALLBACK_GAS_LIMIT,
  DEFAULT_TABLE,
  DRAW_EPOCH,
  GUARANTEE,
  KIND_ENTRANTS,
  LARGE_DAILY_LIMIT,
  MAX_FEE,
  STATUS,
  UNITS_PER_CENT,
  CALLBACK_BASE_GAS,
  POSITION_GAS,
  awarded,
  batchShareOf,
  callbackPositionsOf,
  campaignIdOf,
  commit,
  commitArgs,
  deployFixture,
  expectedPrizes,
  expectedRoll,
  findEvents,
  randomBytes32,
  reveal,
  sendCommit,
  slotOf,
  userRandomNumberOf,
  winnersFingerprint,
  withoutFee,
  type Fixture,
} from "./helpers";

const LIKELY_TOP = { id: encodeBytes32String("likely-top"), amounts: [5_000n, 100n], weights: [9n, 1n] };
const DAY = 24 * 3600;

async function withLikelyTopTable(f: Fixture) {
  await f.draw.connect(f.operator).publishPrizeTable(LIKELY_TOP.id, 1, LIKELY_TOP.amounts, LIKELY_TOP.weights);
}

describe("PrizeDraw", () => {
  describe("deployment", () => {
    it("derives token units per cent from the token's decimals and grants the three roles", async () => {
      const f = await loadFixture(deployFixture);
      expect(await f.draw.tokenUnitsPerCent()).to.equal(UNITS_PER_CENT);
      expect(await f.draw.hasRole(await f.draw.OPERATOR_ROLE(), f.operator.address)).to.equal(true);
      expect(await f.draw.hasRole(await f.draw.GUARDIAN_ROLE(), f.guardian.address)).to.equal(true);
      expect(await f.draw.hasRole(await f.draw.DEFAULT_ADMIN_ROLE(), f.admin.address)).to.equal(true);
      expect(await f.draw.admin()).to.equal(f.admin.address);
      expect(await f.draw.adminDelay()).to.equal(BigInt(ADMIN_DELAY));
      expect(await f.draw.hasRole(await f.draw.OPERATOR_ROLE(), f.stranger.address)).to.equal(false);
      expect(await f.draw.callbackGasLimit()).to.equal(BigInt(CALLBACK_GAS_LIMIT));
      expect(await f.draw.paymentState()).to.deep.equal([LARGE_DAILY_LIMIT, LARGE_DAILY_LIMIT / 2n, false]);
    });

    it("refuses zero addresses, an out-of-range callback gas limit and a bad daily limit", async () => {
      const f = await loadFixture(deployFixture);
      const factory = await ethers.getContractFactory("PrizeDraw");
      const entropy = await f.mock.getAddress();
      const token = await f.token.getAddress();
      const deploy = (o: Partial<{ entropy: string; token: string; admin: string; operator: string; guardian: string; gas: number; limit: bigint }>) =>
        factory.deploy(
          o.entropy ?? entropy,
          o.token ?? token,
          o.admin ?? f.admin.address,
          o.operator ?? f.operator.address,
          o.guardian ?? f.guardian.address,
          ADMIN_DELAY,
          o.gas ?? 500_000,
          o.limit ?? LARGE_DAILY_LIMIT,
        );
      for (const bad of [{ entropy: ZeroAddress }, { token: ZeroAddress }, { admin: ZeroAddress }, { operator: ZeroAddress }, { guardian: ZeroAddress }]) {
        await expect(deploy(bad), JSON.stringify(bad)).to.be.revertedWithCustomError(f.draw, "ZeroAddress");
      }
      await expect(deploy({ gas: 99_999 })).to.be.revertedWithCustomError(f.draw, "InvalidCallbackGasLimit").withArgs(99_999);
      await expect(deploy({ gas: 15_000_001 })).to.be.revertedWithCustomError(f.draw, "InvalidCallbackGasLimit").withArgs(15_000_001);
      await expect(deploy({ limit: 1n })).to.be.revertedWithCustomError(f.draw, "InvalidLimit").withArgs(1n);
      await expect(deploy({ limit: 2n ** 64n })).to.be.revertedWithCustomError(f.draw, "InvalidLimit").withArgs(2n ** 64n);
    });
  });

  describe("prize tables", () => {
    it("publishes a table with cumulative thresholds and reads it back", async () => {
      const f = await loadFixture(deployFixture);
      const [denominator, amounts, weights, thresholds] = await f.draw.getPrizeTable(DEFAULT_TABLE.id, 1);
      expect(denominator).to.equal(100_000n);
      expect(amounts).to.deep.equal(DEFAULT_TABLE.amounts);
      expect(weights).to.deep.equal(DEFAULT_TABLE.weights);
      expect(thresholds).to.deep.equal([1n, 11n, 411n, 4_411n, 54_411n, 100_000n]);
      await expect(f.draw.connect(f.operator).publishPrizeTable(LIKELY_TOP.id, 3, LIKELY_TOP.amounts, LIKELY_TOP.weights))
        .to.emit(f.draw, "PrizeTablePublished")
        .withArgs(LIKELY_TOP.id, 3, 10n, LIKELY_TOP.amounts, LIKELY_TOP.weights, [9n, 10n]);
    });

    it("accepts the largest denominator and prize the spec allows", async () => {
      const f = await loadFixture(deployFixture);
      const id = encodeBytes32String("edge");
      await f.draw.connect(f.operator).publishPrizeTable(id, 1, [100_000_000n, 0n], [1n, 2_147_483_646n]);
      const [denominator] = await f.draw.getPrizeTable(id, 1);
      expect(denominator).to.equal(2_147_483_647n);
    });

    const refused: [string, bigint[], bigint[], string, unknown[]][] = [
      ["a single tier", [100n], [10n], "TooFewTiers", [1]],
      ["no tiers", [], [], "TooFewTiers", [0]],
      ["17 tiers", Array(17).fill(1n), Array(17).fill(1n), "TooManyTiers", [17]],
      ["mismatched lengths", [100n, 50n], [1n], "TierLengthMismatch", [2, 1]],
      ["a zero weight", [100n, 50n], [1n, 0n], "ZeroWeight", [1]],
      ["a denominator above 2,147,483,647", [100n, 50n], [2n, 2_147_483_646n], "DenominatorTooLarge", [2_147_483_648n]],
      ["a weight above the cap", [100n, 50n], [1n, 2n ** 255n], "DenominatorTooLarge", [2_147_483_648n]],
      ["a prize above 100,000,000 cents", [100_000_001n, 50n], [1n, 1n], "PrizeTooLarge", [0, 100_000_001n]],
    ];
    for (const [what, amounts, weights, error, args] of refused) {
      it(`refuses ${what} with ${error}`, async () => {
        const f = await loadFixture(deployFixture);
        const id = encodeBytes32String("bad");
        await expect(f.draw.connect(f.operator).publishPrizeTable(id, 1, amounts, weights))
          .to.be.revertedWithCustomError(f.draw, error)
          .withArgs(...args);
        await expect(f.draw.getPrizeTable(id, 1)).to.be.revertedWithCustomError(f.draw, "PrizeTableNotFound");
      });
    }

    it("refuses a zero id, version 0 and republishing a version", async () => {
      const f = await loadFixture(deployFixture);
      const publish = (id: string, version: number) =>
        f.draw.connect(f.operator).publishPrizeTable(id, version, LIKELY_TOP.amounts, LIKELY_TOP.weights);
      await expect(publish(ZeroHash, 1)).to.be.revertedWithCustomError(f.draw, "InvalidTableId");
      await expect(publish(LIKELY_TOP.id, 0)).to.be.revertedWithCustomError(f.draw, "InvalidTableVersion");
      await expect(publish(DEFAULT_TABLE.id, 1))
        .to.be.revertedWithCustomError(f.draw, "PrizeTableExists")
        .withArgs(DEFAULT_TABLE.id, 1);
      const [, amounts] = await f.draw.getPrizeTable(DEFAULT_TABLE.id, 1);
      expect(amounts).to.deep.equal(DEFAULT_TABLE.amounts);
    });

    it("reads the tier of a roll (before the top-prize-once rule)", async () => {
      const f = await loadFixture(deployFixture);
      expect(await f.draw.tierOf(DEFAULT_TABLE.id, 1, 0)).to.deep.equal([0n, 10_000_000n]);
      expect(await f.draw.tierOf(DEFAULT_TABLE.id, 1, 54_410)).to.deep.equal([4n, 1_000n]);
      expect(await f.draw.tierOf(DEFAULT_TABLE.id, 1, 54_411)).to.deep.equal([5n, 500n]);
      expect(await f.draw.tierOf(DEFAULT_TABLE.id, 1, 99_999)).to.deep.equal([5n, 500n]);
      await expect(f.draw.tierOf(DEFAULT_TABLE.id, 2, 0))
        .to.be.revertedWithCustomError(f.draw, "PrizeTableNotFound")
        .withArgs(DEFAULT_TABLE.id, 2);
    });
  });

  describe("campaign registry", () => {
    it("registers once, changes the payout wallet but never removes it", async () => {
      const f = await loadFixture(deployFixture);
      const id = campaignIdOf("draft-one");
      await expect(f.draw.connect(f.operator).registerCampaign(id, ZeroAddress, 50_000, 0, 0))
        .to.emit(f.draw, "CampaignRegistered")
        .withArgs(id, ZeroAddress, 50_000, 0, 0);
      await expect(f.draw.connect(f.operator).registerCampaign(id, f.wallet.address, 50_000, 0, 0))
        .to.be.revertedWithCustomError(f.draw, "CampaignAlreadyRegistered")
        .withArgs(id);
      await expect(f.draw.connect(f.operator).setPayoutWallet(id, f.wallet.address))
        .to.emit(f.draw, "PayoutWalletChanged")
        .withArgs(id, ZeroAddress, f.wallet.address);
      await expect(f.draw.connect(f.operator).setPayoutWallet(id, ZeroAddress))
        .to.be.revertedWithCustomError(f.draw, "PayoutWalletRequired")
        .withArgs(id);
      await f.draw.connect(f.operator).setPayoutWallet(id, f.other.address);
      const [registered, wallet, lastNumber, threshold] = await f.draw.getCampaign(id);
      expect([registered, wallet, lastNumber, threshold]).to.deep.equal([true, f.other.address, 0n, 50_000n]);
    });

    it("validates ids and thresholds", async () => {
      const f = await loadFixture(deployFixture);
      await expect(f.draw.connect(f.operator).registerCampaign(ZeroHash, f.wallet.address, 1, 0, 0)).to.be.revertedWithCustomError(
        f.draw,
        "InvalidCampaignId",
      );
      await expect(f.draw.connect(f.operator).registerCampaign(campaignIdOf("x"), f.wallet.address, 0, 0, 0))
        .to.be.revertedWithCustomError(f.draw, "InvalidLargePrizeThreshold")
        .withArgs(0);
      await expect(f.draw.connect(f.operator).registerCampaign(campaignIdOf("x"), f.wallet.address, 2n ** 64n, 0, 0))
        .to.be.revertedWithCustomError(f.draw, "InvalidLargePrizeThreshold")
        .withArgs(2n ** 64n);
      await expect(f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, 1_000))
        .to.emit(f.draw, "LargePrizeThresholdChanged")
        .withArgs(f.campaignId, 50_000, 1_000);
      await expect(f.draw.connect(f.operator).setPayoutWallet(campaignIdOf("nobody"), f.wallet.address))
        .to.be.revertedWithCustomError(f.draw, "CampaignNotRegistered")
        .withArgs(campaignIdOf("nobody"));
      await expect(f.draw.connect(f.operator).setLargePrizeThreshold(campaignIdOf("nobody"), 1))
        .to.be.revertedWithCustomError(f.draw, "CampaignNotRegistered")
        .withArgs(campaignIdOf("nobody"));
    });

    it("registers guarantee terms and validates them", async () => {
      const f = await loadFixture(deployFixture);
      const reg = (slug: string, cents: bigint, period: number) =>
        f.draw.connect(f.operator).registerCampaign(campaignIdOf(slug), f.wallet.address, 50_000, cents, period);
      await expect(reg("weekly", 2_500n, 7 * DAY))
        .to.emit(f.draw, "CampaignRegistered")
        .withArgs(campaignIdOf("weekly"), f.wallet.address, 50_000, 2_500, 7 * DAY);
      expect(await f.draw.getCampaignTerms(campaignIdOf("weekly"))).to.deep.equal([2_500n, BigInt(7 * DAY), 0n]);
      // Without a guarantee, the period is ignored.
      await expect(reg("none", 0n, 5)).to.emit(f.draw, "CampaignRegistered").withArgs(campaignIdOf("none"), f.wallet.address, 50_000, 0, 0);
      for (const [cents, period] of [
        [100_000_001n, DAY],
        [1n, DAY - 1],
        [1n, 366 * DAY + 1],
      ] as [bigint, number][]) {
        await expect(reg("bad", cents, period))
          .to.be.revertedWithCustomError(f.draw, "InvalidGuaranteeTerms")
          .withArgs(cents, period);
      }
      await reg("max", 100_000_000n, 366 * DAY);
      await reg("min", 1n, DAY);
    });
  });

  describe("commit and request", () => {
    it("records the commitment under its slot and draw time and requests randomness in one transaction", async () => {
      const f = await loadFixture(deployFixture);
      const args = commitArgs(f.campaignId, 1);
      const user = userRandomNumberOf(f.campaignId, 1, args.slot as string, args.listCommitment as string);
      const tx = sendCommit(f, args);
      await expect(tx)
        .to.emit(f.draw, "DrawingCommitted")
        .withArgs(f.campaignId, 1, slotOf("drw_1"), DRAW_EPOCH + 3600, 0, args.listCommitment, 3, 0, 0, DEFAULT_TABLE.id, 1, 50_000, f.wallet.address);
      // A batch of one: member 0 of 1, and the request's user number is the drawing's own.
      await expect(tx).to.emit(f.draw, "EntropyRequested").withArgs(f.campaignId, 1, f.provider.address, 1, 0, user, 0, 1);
      // The request asks for the gas the drawing's callback needs: the base and its 3 positions.
      const requestGas = batchShareOf(CALLBACK_GAS_LIMIT, [3]).requestGas;
      expect(requestGas).to.equal(CALLBACK_BASE_GAS + 3 * POSITION_GAS);
      await expect(tx).to.emit(f.mock, "Requested").withArgs(f.provider.address, await f.draw.getAddress(), 1, user, requestGas, "0x");
      // The whole msg.value comes back when the fee is 0.
      await expect(tx).to.changeEtherBalances([f.operator, f.draw], [0n, 0n]);
      const d = await f.draw.getDrawing(f.campaignId, 1);
      expect(d.status).to.equal(STATUS.Requested);
      expect(d.sequence).to.equal(1n);
      expect(d.winnersCommitment).to.equal(args.listCommitment);
      expect(d.randomValue).to.equal(ZeroHash);
      expect(d.prizeCount).to.equal(3n);
      expect(d.payoutWallet).to.equal(f.wallet.address);
      // The gas limit pays for (limit - CALLBACK_BASE_GAS) / POSITION_GAS positions; a drawing's callback
      // settles at most its own prizes (3).
      expect(callbackPositionsOf(CALLBACK_GAS_LIMIT)).to.equal(Math.floor((CALLBACK_GAS_LIMIT - CALLBACK_BASE_GAS) / POSITION_GAS));
      expect(callbackPositionsOf(CALLBACK_GAS_LIMIT)).to.be.greaterThan(3);
      expect(d.callbackPositions).to.equal(BigInt(Math.min(3, callbackPositionsOf(CALLBACK_GAS_LIMIT))));
      expect(d.callbackPositions).to.equal(3n);
      expect(await f.draw.numberOfSlot(f.campaignId, slotOf("drw_1"))).to.equal(1n);
      expect(await f.draw.numberOfSlot(f.campaignId, slotOf("drw_2"))).to.equal(0n);
      expect((await f.draw.getCampaignTerms(f.campaignId)).lastDrawAt).to.equal(BigInt(DRAW_EPOCH + 3600));
      const request = await f.mock.getRequestV2(f.provider.address, 1);
      expect(request.requester).to.equal(await f.draw.getAddress());
      // requestGas / 10k, as MockEntropy stores it (rounded down)
      expect(request.gasLimit10k).to.equal(BigInt(Math.floor(requestGas / 10_000)));
    });

    it("numbers drawings 1, 2, 3 without gaps and refuses a replayed or skipped number", async () => {
      const f = await loadFixture(deployFixture);
      await expect(sendCommit(f, commitArgs(f.campaignId, 2)))
        .to.be.revertedWithCustomError(f.draw, "NumberOutOfSequence")
        .withArgs(f.campaignId, 1, 2);
      await commit(f, commitArgs(f.campaignId, 1));
      await expect(sendCommit(f, commitArgs(f.campaignId, 1, { slot: slotOf("drw_other") })))
        .to.be.revertedWithCustomError(f.draw, "NumberOutOfSequence")
        .withArgs(f.campaignId, 2, 1);
      await commit(f, commitArgs(f.campaignId, 2));
      await commit(f, commitArgs(f.campaignId, 3));
      const [, , lastNumber] = await f.draw.getCampaign(f.campaignId);
      expect(lastNumber).to.equal(3n);
      // Numbers, slots and draw times are per campaign.
      const second = campaignIdOf("second");
      await f.draw.connect(f.operator).registerCampaign(second, f.wallet.address, 50_000, 0, 0);
      await commit(f, commitArgs(second, 1));
    });

    it("refuses a zero slot, a used slot and a draw time not later than the last commit's", async () => {
      const f = await loadFixture(deployFixture);
      await expect(sendCommit(f, commitArgs(f.campaignId, 1, { slot: ZeroHash }))).to.be.revertedWithCustomError(f.draw, "InvalidSlot");
      await expect(sendCommit(f, commitArgs(f.campaignId, 1, { drawAt: 0 })))
        .to.be.revertedWithCustomError(f.draw, "DrawTimeNotLater")
        .withArgs(f.campaignId, 0, 0);
      await commit(f, commitArgs(f.campaignId, 1));
      await expect(sendCommit(f, commitArgs(f.campaignId, 2, { slot: slotOf("drw_1") })))
        .to.be.revertedWithCustomError(f.draw, "SlotAlreadyUsed")
        .withArgs(f.campaignId, slotOf("drw_1"), 1);
      await expect(sendCommit(f, commitArgs(f.campaignId, 2, { drawAt: DRAW_EPOCH + 3600 })))
        .to.be.revertedWithCustomError(f.draw, "DrawTimeNotLater")
        .withArgs(f.campaignId, DRAW_EPOCH + 3600, DRAW_EPOCH + 3600);
      await commit(f, commitArgs(f.campaignId, 2, { drawAt: DRAW_EPOCH + 3601 }));
    });

    it("refuses an unregistered campaign, a campaign without a wallet, a missing table, zero winners, an empty commitment and bad kinds or counts", async () => {
      const f = await loadFixture(deployFixture);
      const c = (o: Parameters<typeof commitArgs>[2]) => sendCommit(f, commitArgs(f.campaignId, 1, o));
      await expect(sendCommit(f, commitArgs(campaignIdOf("ghost"), 1)))
        .to.be.revertedWithCustomError(f.draw, "CampaignNotRegistered")
        .withArgs(campaignIdOf("ghost"));
      const draft = campaignIdOf("no-wallet");
      await f.draw.connect(f.operator).registerCampaign(draft, ZeroAddress, 50_000, 0, 0);
      await expect(sendCommit(f, commitArgs(draft, 1)))
        .to.be.revertedWithCustomError(f.draw, "PayoutWalletRequired")
        .withArgs(draft);
      await expect(c({ tableVersion: 2 }))
        .to.be.revertedWithCustomError(f.draw, "PrizeTableNotFound")
        .withArgs(DEFAULT_TABLE.id, 2);
      await expect(c({ winnersExpected: 0 })).to.be.revertedWithCustomError(f.draw, "NoWinners");
      await expect(c({ winnersExpected: 100_001 })).to.be.revertedWithCustomError(f.draw, "TooManyWinners").withArgs(100_001);
      await expect(c({ listCommitment: ZeroHash })).to.be.revertedWithCustomError(f.draw, "EmptyCommitment");
      await expect(c({ kind: 2 })).to.be.revertedWithCustomError(f.draw, "InvalidKind").withArgs(2);
      await expect(c({ entrantCount: 1 })).to.be.revertedWithCustomError(f.draw, "InvalidEntrantCounts").withArgs(1, 0);
      await expect(c({ kind: KIND_ENTRANTS, entrantCount: 0 })).to.be.revertedWithCustomError(f.draw, "InvalidEntrantCounts");
      await expect(c({ kind: KIND_ENTRANTS, entrantCount: 3, totalWeight: 2n })).to.be.revertedWithCustomError(
        f.draw,
        "InvalidEntrantCounts",
      );
      await expect(c({ kind: KIND_ENTRANTS, entrantCount: 2, totalWeight: 2n * 4_294_967_295n + 1n })).to.be.revertedWithCustomError(
        f.draw,
        "InvalidEntrantCounts",
      );
      await expect(c({ kind: KIND_ENTRANTS, entrantCount: 100_001, totalWeight: 100_001n })).to.be.revertedWithCustomError(
        f.draw,
        "InvalidEntrantCounts",
      );
      // Nothing was half-written: number 1 is still the next one, no drawing exists, the slot is unused.
      const [, , lastNumber] = await f.draw.getCampaign(f.campaignId);
      expect(lastNumber).to.equal(0n);
      expect(await f.draw.numberOfSlot(f.campaignId, slotOf("drw_1"))).to.equal(0n);
      await expect(f.draw.getDrawing(f.campaignId, 1)).to.be.revertedWithCustomError(f.draw, "DrawingNotFound");
    });
  });

  describe("randomness callback and settlement", () => {
    it("stores the random value and computes every roll as the spec's formula does", async () => {
      const f = await loadFixture(deployFixture);
      const slugs = ["summer-daily", "a", "exactly-thirty-two-bytes-long-id"];
      for (const slug of slugs) {
        const id = campaignIdOf(slug);
        if (slug !== "summer-daily") await f.draw.connect(f.operator).registerCampaign(id, f.wallet.address, 50_000, 0, 0);
        for (const num of [1n, 2n]) {
          const entropy = randomBytes32();
          const sequence = await commit(f, commitArgs(id, num, { winnersExpected: 12 }));
          const receipt = await reveal(f, sequence, entropy);
          const expected = expectedPrizes(entropy, id, num, 12, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, 50_000n);
          expect(awarded(f, receipt)).to.deep.equal(expected);
          const revealed = findEvents(f, receipt, "EntropyRevealed")[0];
          expect(revealed.args.randomValue).to.equal(entropy);
          expect(revealed.args.sequence).to.equal(sequence);
          const settledEvent = findEvents(f, receipt, "DrawingSettled")[0];
          const payoutCents = expected.filter((p) => !p.held).reduce((a, p) => a + p.amountCents, 0n);
          expect(settledEvent.args.payoutCents).to.equal(payoutCents);
          const d = await f.draw.getDrawing(id, num);
          expect(d.status).to.equal(STATUS.Settled);
          expect(d.randomValue).to.equal(entropy);
          expect(d.settledCount).to.equal(12n);
          expect(d.payoutCents).to.equal(payoutCents);
          expect(d.revealedAt).to.equal(BigInt((await ethers.provider.getBlock(receipt.blockNumber))!.timestamp));
          for (const p of [0n, 5n, 11n]) {
            const independent = expectedRoll(entropy, id, num, p, 100_000n);
            const prize = await f.draw.prizeAt(id, num, p);
            expect(prize.randomValue).to.equal(independent.randomValue);
            expect(prize.roll).to.equal(independent.roll);
            expect(prize.amountCents).to.equal(expected[Number(p)].amountCents);
            expect(prize.tier).to.equal(expected[Number(p)].tier);
            expect(prize.held).to.equal(expected[Number(p)].held);
          }
          await expect(f.draw.prizeAt(id, num, 12)).to.be.revertedWithCustomError(f.draw, "PositionNotSettled").withArgs(id, num, 12);
        }
      }
    });

    it("awards the top prize at most once per draw", async () => {
      const f = await loadFixture(deployFixture);
      await withLikelyTopTable(f);
      const entropy = keccak256(toUtf8Bytes("top-prize-once"));
      const sequence = await commit(f, commitArgs(f.campaignId, 1, { winnersExpected: 30, tableId: LIKELY_TOP.id }));
      const prizes = awarded(f, await reveal(f, sequence, entropy));
      const rolledTop = prizes.filter((p) => p.roll < 9n);
      expect(rolledTop.length).to.be.greaterThan(1); // the rule is exercised
      expect(prizes.filter((p) => p.tier === 0n)).to.have.length(1);
      expect(prizes.find((p) => p.tier === 0n)!.position).to.equal(rolledTop[0].position);
      for (const p of rolledTop.slice(1)) expect([p.tier, p.amountCents]).to.deep.equal([1n, 100n]);
      expect(prizes).to.deep.equal(
        expectedPrizes(entropy, f.campaignId, 1n, 30, LIKELY_TOP.amounts, LIKELY_TOP.weights, 50_000n),
      );
      const top = prizes.find((p) => p.tier === 0n)!;
      expect((await f.draw.prizeAt(f.campaignId, 1, top.position)).tier).to.equal(0n);
      expect((await f.draw.prizeAt(f.campaignId, 1, rolledTop[1].position)).tier).to.equal(1n);
      expect((await f.draw.getDrawing(f.campaignId, 1)).topPosition).to.equal(top.position + 1n);
    });

    it("refuses a callback from anyone but the entropy contract", async () => {
      const f = await loadFixture(deployFixture);
      const sequence = await commit(f, commitArgs(f.campaignId, 1));
      await expect(f.draw.connect(f.stranger)._entropyCallback(sequence, f.provider.address, randomBytes32())).to.be.revertedWith(
        "Only Entropy can call this function",
      );
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(STATUS.Requested);
    });

    it("ignores, without reverting, a repeated callback and one for an unknown request", async () => {
      const f = await loadFixture(deployFixture);
      const sequence = await commit(f, commitArgs(f.campaignId, 1));
      const entropy = randomBytes32();
      await reveal(f, sequence, entropy);
      const mockAddress = await f.mock.getAddress();
      await network.provider.request({ method: "hardhat_impersonateAccount", params: [mockAddress] });
      await network.provider.request({ method: "hardhat_setBalance", params: [mockAddress, "0x56BC75E2D63100000"] });
      const asEntropy = await ethers.getSigner(mockAddress);
      const other = randomBytes32();
      await expect(f.draw.connect(asEntropy)._entropyCallback(sequence, f.provider.address, other))
        .to.emit(f.draw, "EntropyCallbackIgnored")
        .withArgs(f.provider.address, sequence, other);
      await expect(f.draw.connect(asEntropy)._entropyCallback(999, f.provider.address, other))
        .to.emit(f.draw, "EntropyCallbackIgnored")
        .withArgs(f.provider.address, 999, other);
      // The right sequence number from another provider is unknown too.
      await expect(f.draw.connect(asEntropy)._entropyCallback(sequence, f.stranger.address, other))
        .to.emit(f.draw, "EntropyCallbackIgnored")
        .withArgs(f.stranger.address, sequence, other);
      await network.provider.request({ method: "hardhat_stopImpersonatingAccount", params: [mockAddress] });
      expect((await f.draw.getDrawing(f.campaignId, 1)).randomValue).to.equal(entropy);
    });

    it("the callback settles exactly the positions its commit paid for, and settle() finishes the rest", async () => {
      const f = await loadFixture(deployFixture);
      await f.draw.connect(f.admin).setCallbackGasLimit(150_000);
      const perCallback = callbackPositionsOf(150_000); // 11
      const winners = 60;
      const entropy = randomBytes32();
      const sequence = await commit(f, commitArgs(f.campaignId, 1, { winnersExpected: winners }));
      expect((await f.draw.getDrawing(f.campaignId, 1)).callbackPositions).to.equal(BigInt(perCallback));
      const first = await reveal(f, sequence, entropy);
      const firstBatch = awarded(f, first);
      expect(firstBatch.length).to.equal(perCallback);
      expect(findEvents(f, first, "DrawingSettled")).to.have.length(0);
      let d = await f.draw.getDrawing(f.campaignId, 1);
      expect(d.status).to.equal(STATUS.Revealed);
      expect(d.settledCount).to.equal(BigInt(perCallback));
      await expect(f.draw.connect(f.operator).payout(f.campaignId, 1)).to.be.revertedWithCustomError(f.draw, "NotSettled");
      await expect(f.draw.connect(f.stranger).settle(f.campaignId, 1, 0))
        .to.be.revertedWithCustomError(f.draw, "NothingToSettle")
        .withArgs(f.campaignId, 1);

      // Anyone can continue, in batches of their choosing; a batch settles exactly min(asked, remaining).
      const second = (await (await f.draw.connect(f.stranger).settle(f.campaignId, 1, 7)).wait())!;
      const secondBatch = awarded(f, second);
      expect(secondBatch.map((p) => p.position)).to.deep.equal(Array.from({ length: 7 }, (_, i) => BigInt(perCallback + i)));
      expect(await f.draw.connect(f.stranger).settle.staticCall(f.campaignId, 1, 10_000)).to.equal(BigInt(winners - perCallback - 7));
      const rest = (await (await f.draw.connect(f.stranger).settle(f.campaignId, 1, 10_000)).wait())!;
      const all = [...firstBatch, ...secondBatch, ...awarded(f, rest)];
      expect(all).to.deep.equal(
        expectedPrizes(entropy, f.campaignId, 1n, winners, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, 50_000n),
      );
      expect(findEvents(f, rest, "DrawingSettled")).to.have.length(1);
      d = await f.draw.getDrawing(f.campaignId, 1);
      expect(d.status).to.equal(STATUS.Settled);
      await expect(f.draw.settle(f.campaignId, 1, 1)).to.be.revertedWithCustomError(f.draw, "NothingToSettle");
    });

    it("keeps the callback positions of the gas limit in force at the commit", async () => {
      const f = await loadFixture(deployFixture);
      const sequence = await commit(f, commitArgs(f.campaignId, 1, { winnersExpected: 20 }));
      await expect(f.draw.connect(f.admin).setCallbackGasLimit(100_000))
        .to.emit(f.draw, "CallbackGasLimitChanged")
        .withArgs(CALLBACK_GAS_LIMIT, 100_000);
      const receipt = await reveal(f, sequence, randomBytes32());
      expect(awarded(f, receipt)).to.have.length(20);
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(STATUS.Settled);
      // The next commit settles (100,000 - CALLBACK_BASE_GAS) / POSITION_GAS in its callback, fewer than its 20.
      const lowPositions = callbackPositionsOf(100_000);
      expect(lowPositions).to.be.greaterThan(0).and.lessThan(20);
      const next = await commit(f, commitArgs(f.campaignId, 2, { winnersExpected: 20 }));
      expect(awarded(f, await reveal(f, next, randomBytes32()))).to.have.length(lowPositions);
      await expect(f.draw.connect(f.admin).setCallbackGasLimit(15_000_001)).to.be.revertedWithCustomError(f.draw, "InvalidCallbackGasLimit");
    });

    it("refuses settle before the reveal and for an unknown drawing", async () => {
      const f = await loadFixture(deployFixture);
      await expect(f.draw.settle(f.campaignId, 1, 10)).to.be.revertedWithCustomError(f.draw, "DrawingNotFound");
      await commit(f, commitArgs(f.campaignId, 1));
      await expect(f.draw.settle(f.campaignId, 1, 10))
        .to.be.revertedWithCustomError(f.draw, "NotRevealed")
        .withArgs(f.campaignId, 1);
    });

    it("makes settled prizes owed", async () => {
      const f = await loadFixture(deployFixture);
      const prizes = awarded(f, await reveal(f, await commit(f, commitArgs(f.campaignId, 1, { winnersExpected: 25 })), randomBytes32()));
      const total = prizes.reduce((a, p) => a + p.amountCents, 0n);
      const [balance, owedCents, owedUnits, freeUnits] = await f.draw.balances();
      expect(owedCents).to.equal(total);
      expect(owedUnits).to.equal(total * UNITS_PER_CENT);
      expect(freeUnits).to.equal(balance - owedUnits);
    });
  });

  describe("payout", () => {
    async function settledDraw(f: Fixture, winners: number, tableId = DEFAULT_TABLE.id) {
      const entropy = keccak256(toUtf8Bytes(`payout-${winners}`));
      const sequence = await commit(f, commitArgs(f.campaignId, 1, { winnersExpected: winners, tableId }));
      return { entropy, prizes: awarded(f, await reveal(f, sequence, entropy)) };
    }

    it("refuses a payout before settlement", async () => {
      const f = await loadFixture(deployFixture);
      await expect(f.draw.connect(f.operator).payout(f.campaignId, 1)).to.be.revertedWithCustomError(f.draw, "DrawingNotFound");
      await commit(f, commitArgs(f.campaignId, 1));
      await expect(f.draw.connect(f.operator).payout(f.campaignId, 1))
        .to.be.revertedWithCustomError(f.draw, "NotSettled")
        .withArgs(f.campaignId, 1);
    });

    it("transfers exactly the sum of non-held prizes in one transfer, once", async () => {
      const f = await loadFixture(deployFixture);
      const { prizes } = await settledDraw(f, 40);
      const cents = prizes.filter((p) => !p.held).reduce((a, p) => a + p.amountCents, 0n);
      expect(cents).to.be.greaterThan(0n);
      const [, owedBefore] = await f.draw.balances();
      const tx = f.draw.connect(f.operator).payout(f.campaignId, 1);
      await expect(tx).to.emit(f.draw, "DrawingPaid").withArgs(f.campaignId, 1, f.wallet.address, cents, cents * UNITS_PER_CENT);
      await expect(tx).to.changeTokenBalances(f.token, [f.draw, f.wallet], [-cents * UNITS_PER_CENT, cents * UNITS_PER_CENT]);
      const receipt = (await (await tx).wait())!;
      const transfers = receipt.logs.filter((l) => f.token.interface.parseLog(l)?.name === "Transfer");
      expect(transfers).to.have.length(1);
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(STATUS.Paid);
      expect((await f.draw.balances()).owedCents).to.equal(owedBefore - cents);
      await expect(f.draw.connect(f.operator).payout(f.campaignId, 1))
        .to.be.revertedWithCustomError(f.draw, "AlreadyPaid")
        .withArgs(f.campaignId, 1);
    });

    it("holds prizes at or above the threshold out of the payout and pays each once", async () => {
      const f = await loadFixture(deployFixture);
      await withLikelyTopTable(f);
      await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, 5_000);
      const { prizes } = await settledDraw(f, 10, LIKELY_TOP.id);
      const held = prizes.filter((p) => p.held);
      expect(held).to.have.length(1);
      expect(held[0].amountCents).to.equal(5_000n);
      const d = await f.draw.getDrawing(f.campaignId, 1);
      expect([d.heldCount, d.heldCents, d.payoutCents, d.largePrizeThresholdCents]).to.deep.equal([1n, 5_000n, 900n, 5_000n]);

      await expect(f.draw.connect(f.operator).payHeldPrize(f.campaignId, 1, held[0].position)).to.changeTokenBalance(
        f.token,
        f.wallet,
        5_000n * UNITS_PER_CENT,
      );
      await expect(f.draw.connect(f.operator).payout(f.campaignId, 1)).to.changeTokenBalance(f.token, f.wallet, 900n * UNITS_PER_CENT);
      const notHeld = prizes.find((p) => !p.held)!.position;
      await expect(f.draw.connect(f.operator).payHeldPrize(f.campaignId, 1, notHeld))
        .to.be.revertedWithCustomError(f.draw, "NotHeldPrize")
        .withArgs(f.campaignId, 1, notHeld);
      await expect(f.draw.connect(f.operator).payHeldPrize(f.campaignId, 1, 10))
        .to.be.revertedWithCustomError(f.draw, "PositionNotSettled")
        .withArgs(f.campaignId, 1, 10);
      await expect(f.draw.connect(f.operator).payHeldPrize(f.campaignId, 1, held[0].position))
        .to.be.revertedWithCustomError(f.draw, "HeldPrizeClosed")
        .withArgs(f.campaignId, 1, held[0].position);
      expect(await f.draw.heldPrizeState(f.campaignId, 1, held[0].position)).to.equal(1n); // Paid
      expect((await f.draw.balances()).owedCents).to.equal(0n);
    });

    it("a threshold change applies to later commits only", async () => {
      const f = await loadFixture(deployFixture);
      await withLikelyTopTable(f);
      const sequence = await commit(f, commitArgs(f.campaignId, 1, { winnersExpected: 10, tableId: LIKELY_TOP.id }));
      await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, 100);
      const prizes = awarded(f, await reveal(f, sequence, keccak256(toUtf8Bytes("threshold-at-commit"))));
      expect(prizes.every((p) => !p.held)).to.equal(true); // 50,000 was in force at the commit
    });
  });

  describe("entrant draws", () => {
    const entrantsCommitment = keccak256(toUtf8Bytes("entrants-list"));

    it("computes prizes for min(winners, entrants) positions and needs the winners recorded before payout", async () => {
      const f = await loadFixture(deployFixture);
      const args = commitArgs(f.campaignId, 1, {
        kind: KIND_ENTRANTS,
        listCommitment: entrantsCommitment,
        winnersExpected: 5,
        entrantCount: 3,
        totalWeight: 7n,
      });
      await expect(sendCommit(f, args))
        .to.emit(f.draw, "DrawingCommitted")
        .withArgs(f.campaignId, 1, args.slot, args.drawAt, KIND_ENTRANTS, entrantsCommitment, 5, 3, 7, DEFAULT_TABLE.id, 1, 50_000, f.wallet.address);
      const winners = winnersFingerprint(["e-2", "e-0", "e-1"]);
      await expect(f.draw.connect(f.operator).recordWinners(f.campaignId, 1, winners))
        .to.be.revertedWithCustomError(f.draw, "NotRevealed")
        .withArgs(f.campaignId, 1);
      const entropy = randomBytes32();
      const prizes = awarded(f, await reveal(f, 1n, entropy));
      expect(prizes).to.deep.equal(expectedPrizes(entropy, f.campaignId, 1n, 3, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, 50_000n));
      await expect(f.draw.connect(f.stranger).payout(f.campaignId, 1))
        .to.be.revertedWithCustomError(f.draw, "WinnersNotRecorded")
        .withArgs(f.campaignId, 1);
      await expect(f.draw.connect(f.operator).recordWinners(f.campaignId, 1, ZeroHash)).to.be.revertedWithCustomError(
        f.draw,
        "EmptyCommitment",
      );
      await expect(f.draw.connect(f.operator).recordWinners(f.campaignId, 1, winners))
        .to.emit(f.draw, "WinnersRecorded")
        .withArgs(f.campaignId, 1, winners, 3);
      await expect(f.draw.connect(f.operator).recordWinners(f.campaignId, 1, winners))
        .to.be.revertedWithCustomError(f.draw, "WinnersAlreadyRecorded")
        .withArgs(f.campaignId, 1);
      const d = await f.draw.getDrawing(f.campaignId, 1);
      expect([d.listCommitment, d.winnersCommitment, d.entrantCount, d.totalWeight]).to.deep.equal([
        entrantsCommitment,
        winners,
        3n,
        7n,
      ]);
      await expect(f.draw.connect(f.stranger).payout(f.campaignId, 1)).to.emit(f.draw, "DrawingPaid");
    });

    it("needs the winners recorded before a held prize is paid or refused", async () => {
      const f = await loadFixture(deployFixture);
      await withLikelyTopTable(f);
      await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, 100); // every prize held
      const args = commitArgs(f.campaignId, 1, { kind: KIND_ENTRANTS, listCommitment: entrantsCommitment, winnersExpected: 2, entrantCount: 2, totalWeight: 2n, tableId: LIKELY_TOP.id });
      await reveal(f, await commit(f, args), randomBytes32());
      await expect(f.draw.connect(f.operator).payHeldPrize(f.campaignId, 1, 0))
        .to.be.revertedWithCustomError(f.draw, "WinnersNotRecorded")
        .withArgs(f.campaignId, 1);
      await expect(f.draw.connect(f.operator).refuseHeldPrize(f.campaignId, 1, 0, "checks failed"))
        .to.be.revertedWithCustomError(f.draw, "WinnersNotRecorded")
        .withArgs(f.campaignId, 1);
      await f.draw.connect(f.operator).recordWinners(f.campaignId, 1, winnersFingerprint(["e-1", "e-0"]));
      await expect(f.draw.connect(f.operator).payHeldPrize(f.campaignId, 1, 0)).to.emit(f.draw, "HeldPrizePaid");
    });

    it("refuses recordWinners on a winner draw", async () => {
      const f = await loadFixture(deployFixture);
      const sequence = await commit(f, commitArgs(f.campaignId, 1));
      await reveal(f, sequence, randomBytes32());
      await expect(f.draw.connect(f.operator).recordWinners(f.campaignId, 1, randomBytes32()))
        .to.be.revertedWithCustomError(f.draw, "NotEntrantDrawing")
        .withArgs(f.campaignId, 1);
    });
  });

  describe("guarantee payouts", () => {
    const GUARANTEED = campaignIdOf("guaranteed");
    const winnerHash = keccak256(toUtf8Bytes("w-1"));

    /** A campaign with a 2,500-cent daily guarantee and `drawings` committed drawings. */
    async function guaranteed(f: Fixture, drawings: number) {
      await f.draw.connect(f.operator).registerCampaign(GUARANTEED, f.wallet.address, 50_000, 2_500, DAY);
      for (let n = 1; n <= drawings; n++) await commit(f, commitArgs(GUARANTEED, n));
    }

    it("picks exactly the registered amount once per period that holds a committed drawing, and pays it once, to the wallet of the pick", async () => {
      const f = await loadFixture(deployFixture);
      await guaranteed(f, 0);
      await expect(f.draw.connect(f.operator).pickGuarantee(GUARANTEED, 0, winnerHash))
        .to.be.revertedWithCustomError(f.draw, "GuaranteePeriodNotDrawn")
        .withArgs(GUARANTEED, 0, 0);
      await commit(f, commitArgs(GUARANTEED, 1));
      const pick = f.draw.connect(f.operator).pickGuarantee(GUARANTEED, 0, winnerHash);
      await expect(pick).to.emit(f.draw, "GuaranteePicked").withArgs(GUARANTEED, 0, winnerHash, f.wallet.address, 2_500);
      expect(await f.draw.getGuarantee(GUARANTEED, 0)).to.deep.equal([GUARANTEE.Picked, f.wallet.address, 2_500n]);
      expect((await f.draw.balances()).owedCents).to.equal(2_500n);
      await expect(f.draw.connect(f.operator).pickGuarantee(GUARANTEED, 0, winnerHash))
        .to.be.revertedWithCustomError(f.draw, "GuaranteeAlreadyPicked")
        .withArgs(GUARANTEED, 0);
      await expect(f.draw.connect(f.operator).pickGuarantee(GUARANTEED, 1, winnerHash))
        .to.be.revertedWithCustomError(f.draw, "GuaranteePeriodNotDrawn")
        .withArgs(GUARANTEED, 1, 1);

      // A wallet change after the pick does not redirect it; paying is permissionless.
      await f.draw.connect(f.operator).setPayoutWallet(GUARANTEED, f.other.address);
      const pay = f.draw.connect(f.stranger).payGuarantee(GUARANTEED, 0);
      await expect(pay).to.emit(f.draw, "GuaranteePaid").withArgs(GUARANTEED, 0, f.wallet.address, 2_500, 2_500n * UNITS_PER_CENT);
      await expect(pay).to.changeTokenBalances(f.token, [f.wallet, f.other, f.stranger], [2_500n * UNITS_PER_CENT, 0n, 0n]);
      expect(await f.draw.getGuarantee(GUARANTEED, 0)).to.deep.equal([GUARANTEE.Paid, f.wallet.address, 2_500n]);
      expect((await f.draw.balances()).owedCents).to.equal(0n);
      await expect(f.draw.payGuarantee(GUARANTEED, 0)).to.be.revertedWithCustomError(f.draw, "GuaranteeAlreadyPaid").withArgs(GUARANTEED, 0);
      await expect(f.draw.payGuarantee(GUARANTEED, 1)).to.be.revertedWithCustomError(f.draw, "GuaranteeNotPicked").withArgs(GUARANTEED, 1);
      await expect(f.draw.connect(f.operator).pickGuarantee(GUARANTEED, 0, winnerHash)).to.be.revertedWithCustomError(
        f.draw,
        "GuaranteeAlreadyPicked",
      );
      // The next period needs the next drawing; the pick goes to the wallet of that moment.
      await commit(f, commitArgs(GUARANTEED, 2));
      await expect(f.draw.connect(f.operator).pickGuarantee(GUARANTEED, 1, winnerHash))
        .to.emit(f.draw, "GuaranteePicked")
        .withArgs(GUARANTEED, 1, winnerHash, f.other.address, 2_500);
    });

    it("refuses campaigns without a guarantee, unknown campaigns and a zero winner hash", async () => {
      const f = await loadFixture(deployFixture);
      await guaranteed(f, 1);
      await commit(f, commitArgs(f.campaignId, 1));
      await expect(f.draw.connect(f.operator).pickGuarantee(f.campaignId, 0, winnerHash))
        .to.be.revertedWithCustomError(f.draw, "NoGuarantee")
        .withArgs(f.campaignId);
      await expect(f.draw.connect(f.operator).pickGuarantee(campaignIdOf("ghost"), 0, winnerHash))
        .to.be.revertedWithCustomError(f.draw, "CampaignNotRegistered")
        .withArgs(campaignIdOf("ghost"));
      await expect(f.draw.connect(f.operator).pickGuarantee(GUARANTEED, 0, ZeroHash)).to.be.revertedWithCustomError(
        f.draw,
        "InvalidWinnerHash",
      );
      expect(await f.draw.getGuarantee(GUARANTEED, 0)).to.deep.equal([GUARANTEE.None, ZeroAddress, 0n]);
    });

    it("the admin moves a picked, unpaid guarantee to the campaign's current wallet, named in the call", async () => {
      const f = await loadFixture(deployFixture);
      await guaranteed(f, 1);
      await expect(f.draw.connect(f.admin).moveGuaranteeWallet(GUARANTEED, 0, f.wallet.address))
        .to.be.revertedWithCustomError(f.draw, "GuaranteeNotPicked")
        .withArgs(GUARANTEED, 0);
      await f.draw.connect(f.operator).pickGuarantee(GUARANTEED, 0, winnerHash);
      // Moving to the wallet it already has is a no-op, refused.
      await expect(f.draw.connect(f.admin).moveGuaranteeWallet(GUARANTEED, 0, f.wallet.address))
        .to.be.revertedWithCustomError(f.draw, "NothingToMove")
        .withArgs(GUARANTEED, 0);
      // A destination other than the campaign's wallet is refused: the admin alone cannot choose where it goes.
      await expect(f.draw.connect(f.admin).moveGuaranteeWallet(GUARANTEED, 0, f.other.address))
        .to.be.revertedWithCustomError(f.draw, "MoveDestinationMismatch")
        .withArgs(GUARANTEED, f.other.address, f.wallet.address);
      await f.draw.connect(f.operator).setPayoutWallet(GUARANTEED, f.other.address);
      await expect(f.draw.connect(f.operator).moveGuaranteeWallet(GUARANTEED, 0, f.other.address)).to.be.revertedWithCustomError(
        f.draw,
        "AccessControlUnauthorizedAccount",
      );
      await expect(f.draw.connect(f.admin).moveGuaranteeWallet(GUARANTEED, 0, f.other.address))
        .to.emit(f.draw, "GuaranteeWalletMoved")
        .withArgs(GUARANTEED, 0, f.wallet.address, f.other.address);
      await expect(f.draw.payGuarantee(GUARANTEED, 0)).to.changeTokenBalance(f.token, f.other, 2_500n * UNITS_PER_CENT);
      await expect(f.draw.connect(f.admin).moveGuaranteeWallet(GUARANTEED, 0, f.other.address)).to.be.revertedWithCustomError(f.draw, "GuaranteeNotPicked");
    });
  });

  describe("roles", () => {
    it("refuses every operator function to anyone without the operator role", async () => {
      const f = await loadFixture(deployFixture);
      const role = await f.draw.OPERATOR_ROLE();
      for (const who of [f.stranger, f.admin, f.guardian]) {
        const contract = f.draw.connect(who); // the admin and the guardian are not operators either
        const calls = [
          () => contract.publishPrizeTable(LIKELY_TOP.id, 1, LIKELY_TOP.amounts, LIKELY_TOP.weights),
          () => contract.registerCampaign(campaignIdOf("x"), f.wallet.address, 50_000, 0, 0),
          () => contract.setPayoutWallet(f.campaignId, f.other.address),
          () => contract.setLargePrizeThreshold(f.campaignId, 1),
          () => contract.commitAndRequest([withoutFee(commitArgs(f.campaignId, 1))], MAX_FEE, { value: MAX_FEE }),
          () => contract.recordWinners(f.campaignId, 1, randomBytes32()),
          () => contract.payHeldPrize(f.campaignId, 1, 0),
          () => contract.refuseHeldPrize(f.campaignId, 1, 0, "no"),
          () => contract.pickGuarantee(f.campaignId, 0, randomBytes32()),
        ];
        for (const call of calls) {
          await expect(call()).to.be.revertedWithCustomError(f.draw, "AccessControlUnauthorizedAccount").withArgs(who.address, role);
        }
      }
    });

    it("refuses every admin function to the operator, the guardian and a stranger", async () => {
      const f = await loadFixture(deployFixture);
      const adminRole = await f.draw.DEFAULT_ADMIN_ROLE();
      for (const who of [f.operator, f.guardian, f.stranger]) {
        const as = f.draw.connect(who);
        for (const call of [
          () => as.setCallbackGasLimit(300_000),
          () => as.withdrawTokens(who.address, 1),
          () => as.withdrawNative(who.address, 0),
          () => as.grantRole(adminRole, who.address),
          () => as.grantRole(ethers.id("OPERATOR_ROLE"), f.other.address),
          () => as.setDailyLimit(10),
          () => as.setCampaignLimit(f.campaignId, 10),
          () => as.unpause(),
          () => as.moveDrawingWallet(f.campaignId, 1, f.wallet.address),
          () => as.moveGuaranteeWallet(f.campaignId, 0, f.wallet.address),
          () => as.beginAdminTransfer(who.address),
          () => as.cancelAdminTransfer(),
        ]) {
          await expect(call()).to.be.revertedWithCustomError(f.draw, "AccessControlUnauthorizedAccount").withArgs(who.address, adminRole);
        }
      }
      await expect(f.draw.connect(f.admin).setCallbackGasLimit(300_000))
        .to.emit(f.draw, "CallbackGasLimitChanged")
        .withArgs(2_000_000, 300_000);
      await expect(f.draw.connect(f.admin).withdrawTokens(f.admin.address, 5)).to.changeTokenBalance(f.token, f.admin, 5);
    });

    it("the admin withdraws native currency sent to the contract", async () => {
      const f = await loadFixture(deployFixture);
      await f.stranger.sendTransaction({ to: await f.draw.getAddress(), value: 1_000n });
      await expect(f.draw.connect(f.admin).withdrawNative(f.other.address, 1_000n))
        .to.emit(f.draw, "NativeWithdrawn")
        .withArgs(f.other.address, 1_000n);
      await expect(f.draw.connect(f.admin).withdrawNative(f.other.address, 1n))
        .to.be.revertedWithCustomError(f.draw, "NativeTransferFailed")
        .withArgs(f.other.address, 1n);
      await expect(f.draw.connect(f.admin).withdrawNative(ZeroAddress, 0)).to.be.revertedWithCustomError(f.draw, "ZeroAddress");
    });
  });
});
