import { expect } from "chai";
import { ethers, network } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { encodeBytes32String, keccak256, toUtf8Bytes, ZeroAddress, ZeroHash } from "ethers";
import {
  DEFAULT_TABLE,
  KIND_ENTRANTS,
  awarded,
  campaignIdOf,
  commit,
  commitArgs,
  deployFixture,
  expectedPrizes,
  expectedRoll,
  findEvents,
  randomBytes32,
  reveal,
  winnersFingerprint,
  type Fixture,
} from "./helpers";

const UNITS_PER_CENT = 10_000n; // 6-decimal test stablecoin
const LIKELY_TOP = { id: encodeBytes32String("likely-top"), amounts: [5_000n, 100n], weights: [9n, 1n] };

async function withLikelyTopTable(f: Fixture) {
  await f.draw.connect(f.operator).publishPrizeTable(LIKELY_TOP.id, 1, LIKELY_TOP.amounts, LIKELY_TOP.weights);
}

describe("PrizeDraw", () => {
  describe("deployment", () => {
    it("derives token units per cent from the token's decimals and grants the roles", async () => {
      const f = await loadFixture(deployFixture);
      expect(await f.draw.tokenUnitsPerCent()).to.equal(UNITS_PER_CENT);
      expect(await f.draw.hasRole(await f.draw.OPERATOR_ROLE(), f.operator.address)).to.equal(true);
      expect(await f.draw.hasRole(await f.draw.DEFAULT_ADMIN_ROLE(), f.admin.address)).to.equal(true);
      expect(await f.draw.hasRole(await f.draw.OPERATOR_ROLE(), f.stranger.address)).to.equal(false);
    });

    it("refuses zero addresses and an out-of-range callback gas limit", async () => {
      const f = await loadFixture(deployFixture);
      const factory = await ethers.getContractFactory("PrizeDraw");
      const entropy = await f.mock.getAddress();
      const token = await f.token.getAddress();
      await expect(factory.deploy(ZeroAddress, token, f.admin, f.operator, 500_000)).to.be.revertedWithCustomError(
        f.draw,
        "ZeroAddress",
      );
      await expect(factory.deploy(entropy, token, f.admin, ZeroAddress, 500_000)).to.be.revertedWithCustomError(
        f.draw,
        "ZeroAddress",
      );
      await expect(factory.deploy(entropy, token, f.admin, f.operator, 99_999))
        .to.be.revertedWithCustomError(f.draw, "InvalidCallbackGasLimit")
        .withArgs(99_999);
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
  });

  describe("campaign registry", () => {
    it("registers once, changes the payout wallet but never removes it", async () => {
      const f = await loadFixture(deployFixture);
      const id = campaignIdOf("draft-one");
      await expect(f.draw.connect(f.operator).registerCampaign(id, ZeroAddress, 50_000))
        .to.emit(f.draw, "CampaignRegistered")
        .withArgs(id, ZeroAddress, 50_000);
      await expect(f.draw.connect(f.operator).registerCampaign(id, f.wallet.address, 50_000))
        .to.be.revertedWithCustomError(f.draw, "CampaignAlreadyRegistered")
        .withArgs(id);
      await expect(f.draw.connect(f.operator).setPayoutWallet(id, f.wallet.address))
        .to.emit(f.draw, "PayoutWalletChanged")
        .withArgs(id, ZeroAddress, f.wallet.address);
      await expect(f.draw.connect(f.operator).setPayoutWallet(id, ZeroAddress))
        .to.be.revertedWithCustomError(f.draw, "PayoutWalletRequired")
        .withArgs(id);
      await f.draw.connect(f.operator).setPayoutWallet(id, f.other.address);
      const [registered, wallet] = await f.draw.getCampaign(id);
      expect(registered).to.equal(true);
      expect(wallet).to.equal(f.other.address);
    });

    it("validates ids and thresholds", async () => {
      const f = await loadFixture(deployFixture);
      await expect(f.draw.connect(f.operator).registerCampaign(ZeroHash, f.wallet.address, 1)).to.be.revertedWithCustomError(
        f.draw,
        "InvalidCampaignId",
      );
      await expect(f.draw.connect(f.operator).registerCampaign(campaignIdOf("x"), f.wallet.address, 0))
        .to.be.revertedWithCustomError(f.draw, "InvalidLargePrizeThreshold")
        .withArgs(0);
      await expect(f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, 1_000))
        .to.emit(f.draw, "LargePrizeThresholdChanged")
        .withArgs(f.campaignId, 50_000, 1_000);
      await expect(f.draw.connect(f.operator).setPayoutWallet(campaignIdOf("nobody"), f.wallet.address))
        .to.be.revertedWithCustomError(f.draw, "CampaignNotRegistered")
        .withArgs(campaignIdOf("nobody"));
    });
  });

  describe("commit and request", () => {
    it("records the commitment and requests randomness in one transaction", async () => {
      const f = await loadFixture(deployFixture);
      const args = commitArgs(f.campaignId, 1);
      const tx = f.draw.connect(f.operator).commitAndRequest(args);
      await expect(tx)
        .to.emit(f.draw, "DrawingCommitted")
        .withArgs(f.campaignId, 1, 0, args.listCommitment, 3, 0, 0, DEFAULT_TABLE.id, 1, 50_000);
      await expect(tx).to.emit(f.draw, "EntropyRequested").withArgs(f.campaignId, 1, f.provider.address, 1, 0);
      await expect(tx).to.emit(f.mock, "Requested");
      const d = await f.draw.getDrawing(f.campaignId, 1);
      expect(d.status).to.equal(1n); // Requested
      expect(d.sequence).to.equal(1n);
      expect(d.winnersCommitment).to.equal(args.listCommitment);
      expect(d.prizeCount).to.equal(3n);
      const request = await f.mock.getRequestV2(f.provider.address, 1);
      expect(request.requester).to.equal(await f.draw.getAddress());
      expect(request.gasLimit10k).to.equal(200n); // CALLBACK_GAS_LIMIT / 10k
    });

    it("numbers drawings 1, 2, 3 without gaps and refuses a replayed or skipped number", async () => {
      const f = await loadFixture(deployFixture);
      await expect(f.draw.connect(f.operator).commitAndRequest(commitArgs(f.campaignId, 2)))
        .to.be.revertedWithCustomError(f.draw, "NumberOutOfSequence")
        .withArgs(f.campaignId, 1, 2);
      await commit(f, commitArgs(f.campaignId, 1));
      await expect(f.draw.connect(f.operator).commitAndRequest(commitArgs(f.campaignId, 1)))
        .to.be.revertedWithCustomError(f.draw, "NumberOutOfSequence")
        .withArgs(f.campaignId, 2, 1);
      await commit(f, commitArgs(f.campaignId, 2));
      await commit(f, commitArgs(f.campaignId, 3));
      const [, , lastNumber] = await f.draw.getCampaign(f.campaignId);
      expect(lastNumber).to.equal(3n);
      // Numbers are per campaign.
      const second = campaignIdOf("second");
      await f.draw.connect(f.operator).registerCampaign(second, f.wallet.address, 50_000);
      await commit(f, commitArgs(second, 1));
    });

    it("refuses an unregistered campaign, a missing table, zero winners, an empty commitment and bad kinds or counts", async () => {
      const f = await loadFixture(deployFixture);
      const c = (o: Parameters<typeof commitArgs>[2]) => f.draw.connect(f.operator).commitAndRequest(commitArgs(f.campaignId, 1, o));
      await expect(f.draw.connect(f.operator).commitAndRequest(commitArgs(campaignIdOf("ghost"), 1)))
        .to.be.revertedWithCustomError(f.draw, "CampaignNotRegistered")
        .withArgs(campaignIdOf("ghost"));
      await expect(c({ tableVersion: 2 }))
        .to.be.revertedWithCustomError(f.draw, "PrizeTableNotFound")
        .withArgs(DEFAULT_TABLE.id, 2);
      await expect(c({ winnersExpected: 0 })).to.be.revertedWithCustomError(f.draw, "NoWinners");
      await expect(c({ winnersExpected: 100_001 })).to.be.revertedWithCustomError(f.draw, "TooManyWinners");
      await expect(c({ listCommitment: ZeroHash })).to.be.revertedWithCustomError(f.draw, "EmptyCommitment");
      await expect(c({ kind: 2 })).to.be.revertedWithCustomError(f.draw, "InvalidKind").withArgs(2);
      await expect(c({ entrantCount: 1 })).to.be.revertedWithCustomError(f.draw, "InvalidEntrantCounts");
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
      // Nothing was half-written: number 1 is still the next one and no drawing exists.
      const [, , lastNumber] = await f.draw.getCampaign(f.campaignId);
      expect(lastNumber).to.equal(0n);
      await expect(f.draw.getDrawing(f.campaignId, 1)).to.be.revertedWithCustomError(f.draw, "DrawingNotFound");
    });
  });

  describe("randomness callback and settlement", () => {
    it("stores the random value and computes every roll as the spec's formula does", async () => {
      const f = await loadFixture(deployFixture);
      const slugs = ["summer-daily", "a", "exactly-thirty-two-bytes-long-id"];
      for (const slug of slugs) {
        const id = campaignIdOf(slug);
        if (slug !== "summer-daily") await f.draw.connect(f.operator).registerCampaign(id, f.wallet.address, 50_000);
        for (const num of [1n, 2n]) {
          const entropy = randomBytes32();
          const sequence = await commit(f, commitArgs(id, num, { winnersExpected: 12 }));
          const receipt = await reveal(f, sequence, entropy);
          const expected = expectedPrizes(entropy, id, num, 12, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, 50_000n);
          expect(awarded(f, receipt)).to.deep.equal(expected);
          const revealed = findEvents(f, receipt, "EntropyRevealed")[0];
          expect(revealed.args.randomValue).to.equal(entropy);
          expect(revealed.args.sequence).to.equal(sequence);
          const d = await f.draw.getDrawing(id, num);
          expect(d.status).to.equal(3n); // Settled
          expect(d.randomValue).to.equal(entropy);
          expect(d.settledCount).to.equal(12n);
          expect(d.payoutCents).to.equal(expected.filter((p) => !p.held).reduce((a, p) => a + p.amountCents, 0n));
          for (const p of [0n, 5n, 11n]) {
            const onchain = await f.draw.computeRoll(entropy, id, num, p, 100_000);
            const independent = expectedRoll(entropy, id, num, p, 100_000n);
            expect(onchain.randomValue).to.equal(independent.randomValue);
            expect(onchain.roll).to.equal(independent.roll);
            const prize = await f.draw.prizeAt(id, num, p);
            expect(prize.amountCents).to.equal(expected[Number(p)].amountCents);
            expect(prize.tier).to.equal(expected[Number(p)].tier);
          }
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
    });

    it("refuses a callback from anyone but the entropy contract", async () => {
      const f = await loadFixture(deployFixture);
      const sequence = await commit(f, commitArgs(f.campaignId, 1));
      await expect(f.draw.connect(f.stranger)._entropyCallback(sequence, f.provider.address, randomBytes32())).to.be.revertedWith(
        "Only Entropy can call this function",
      );
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(1n);
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
      await network.provider.request({ method: "hardhat_stopImpersonatingAccount", params: [mockAddress] });
      expect((await f.draw.getDrawing(f.campaignId, 1)).randomValue).to.equal(entropy);
    });

    it("never reverts when settlement exceeds the callback budget, and settle() finishes the rest", async () => {
      const f = await loadFixture(deployFixture);
      await f.draw.connect(f.admin).setCallbackGasLimit(150_000);
      const winners = 60;
      const entropy = randomBytes32();
      const sequence = await commit(f, commitArgs(f.campaignId, 1, { winnersExpected: winners }));
      const first = await reveal(f, sequence, entropy);
      const firstBatch = awarded(f, first);
      expect(firstBatch.length).to.be.greaterThan(0);
      expect(firstBatch.length).to.be.lessThan(winners);
      let d = await f.draw.getDrawing(f.campaignId, 1);
      expect(d.status).to.equal(2n); // Revealed, not settled
      expect(d.settledCount).to.equal(BigInt(firstBatch.length));
      await expect(f.draw.connect(f.operator).payout(f.campaignId, 1)).to.be.revertedWithCustomError(f.draw, "NotSettled");

      // Anyone can continue, in batches of their choosing.
      const second = (await (await f.draw.connect(f.stranger).settle(f.campaignId, 1, 7)).wait())!;
      const secondBatch = awarded(f, second);
      expect(secondBatch.map((p) => p.position)).to.deep.equal(
        Array.from({ length: 7 }, (_, i) => BigInt(firstBatch.length + i)),
      );
      const rest = (await (await f.draw.connect(f.stranger).settle(f.campaignId, 1, 10_000)).wait())!;
      const all = [...firstBatch, ...secondBatch, ...awarded(f, rest)];
      expect(all).to.deep.equal(
        expectedPrizes(entropy, f.campaignId, 1n, winners, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, 50_000n),
      );
      expect(findEvents(f, rest, "DrawingSettled")).to.have.length(1);
      d = await f.draw.getDrawing(f.campaignId, 1);
      expect(d.status).to.equal(3n);
      await expect(f.draw.settle(f.campaignId, 1, 1)).to.be.revertedWithCustomError(f.draw, "NothingToSettle");
    });

    it("refuses settle before the reveal and for an unknown drawing", async () => {
      const f = await loadFixture(deployFixture);
      await expect(f.draw.settle(f.campaignId, 1, 10)).to.be.revertedWithCustomError(f.draw, "DrawingNotFound");
      await commit(f, commitArgs(f.campaignId, 1));
      await expect(f.draw.settle(f.campaignId, 1, 10))
        .to.be.revertedWithCustomError(f.draw, "NotRevealed")
        .withArgs(f.campaignId, 1);
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
      const tx = f.draw.connect(f.operator).payout(f.campaignId, 1);
      await expect(tx).to.emit(f.draw, "DrawingPaid").withArgs(f.campaignId, 1, f.wallet.address, cents, cents * UNITS_PER_CENT);
      await expect(tx).to.changeTokenBalances(f.token, [f.draw, f.wallet], [-cents * UNITS_PER_CENT, cents * UNITS_PER_CENT]);
      const receipt = (await (await tx).wait())!;
      const transfers = receipt.logs.filter((l) => f.token.interface.parseLog(l)?.name === "Transfer");
      expect(transfers).to.have.length(1);
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(4n); // Paid
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
      expect([d.heldCount, d.heldCents, d.payoutCents]).to.deep.equal([1n, 5_000n, 900n]);

      await expect(f.draw.connect(f.operator).payout(f.campaignId, 1)).to.changeTokenBalance(f.token, f.wallet, 900n * UNITS_PER_CENT);
      const notHeld = prizes.find((p) => !p.held)!.position;
      await expect(f.draw.connect(f.operator).payHeldPrize(f.campaignId, 1, notHeld))
        .to.be.revertedWithCustomError(f.draw, "NotHeldPrize")
        .withArgs(f.campaignId, 1, notHeld);
      await expect(f.draw.connect(f.operator).payHeldPrize(f.campaignId, 1, 10))
        .to.be.revertedWithCustomError(f.draw, "PositionNotSettled")
        .withArgs(f.campaignId, 1, 10);
      const pay = f.draw.connect(f.operator).payHeldPrize(f.campaignId, 1, held[0].position);
      await expect(pay)
        .to.emit(f.draw, "HeldPrizePaid")
        .withArgs(f.campaignId, 1, held[0].position, f.wallet.address, 5_000n, 5_000n * UNITS_PER_CENT);
      await expect(pay).to.changeTokenBalance(f.token, f.wallet, 5_000n * UNITS_PER_CENT);
      await expect(f.draw.connect(f.operator).payHeldPrize(f.campaignId, 1, held[0].position))
        .to.be.revertedWithCustomError(f.draw, "HeldPrizeAlreadyPaid")
        .withArgs(f.campaignId, 1, held[0].position);
      expect(await f.draw.heldPrize(f.campaignId, 1, held[0].position)).to.deep.equal([5_000n, true]);
    });

    it("refuses to pay a campaign that has no payout wallet", async () => {
      const f = await loadFixture(deployFixture);
      const id = campaignIdOf("no-wallet");
      await f.draw.connect(f.operator).registerCampaign(id, ZeroAddress, 50_000);
      const sequence = await commit(f, commitArgs(id, 1));
      await reveal(f, sequence, randomBytes32());
      await expect(f.draw.connect(f.operator).payout(id, 1)).to.be.revertedWithCustomError(f.draw, "PayoutWalletRequired");
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
      await expect(f.draw.connect(f.operator).commitAndRequest(args))
        .to.emit(f.draw, "DrawingCommitted")
        .withArgs(f.campaignId, 1, KIND_ENTRANTS, entrantsCommitment, 5, 3, 7, DEFAULT_TABLE.id, 1, 50_000);
      const winners = winnersFingerprint(["e-2", "e-0", "e-1"]);
      await expect(f.draw.connect(f.operator).recordWinners(f.campaignId, 1, winners))
        .to.be.revertedWithCustomError(f.draw, "NotRevealed")
        .withArgs(f.campaignId, 1);
      const entropy = randomBytes32();
      const prizes = awarded(f, await reveal(f, 1n, entropy));
      expect(prizes).to.deep.equal(expectedPrizes(entropy, f.campaignId, 1n, 3, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, 50_000n));
      await expect(f.draw.connect(f.operator).payout(f.campaignId, 1))
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
      await expect(f.draw.connect(f.operator).payout(f.campaignId, 1)).to.emit(f.draw, "DrawingPaid");
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
    it("pays a guarantee as its own transfer, once per guarantee id", async () => {
      const f = await loadFixture(deployFixture);
      const guaranteeId = keccak256(toUtf8Bytes("gtd_1"));
      const winnerHash = keccak256(toUtf8Bytes("w-1"));
      const pay = f.draw.connect(f.operator).payGuarantee(f.campaignId, guaranteeId, winnerHash, 2_500);
      await expect(pay)
        .to.emit(f.draw, "GuaranteePaid")
        .withArgs(f.campaignId, guaranteeId, winnerHash, f.wallet.address, 2_500, 2_500n * UNITS_PER_CENT);
      await expect(pay).to.changeTokenBalance(f.token, f.wallet, 2_500n * UNITS_PER_CENT);
      expect(await f.draw.isGuaranteePaid(f.campaignId, guaranteeId)).to.equal(true);
      await expect(f.draw.connect(f.operator).payGuarantee(f.campaignId, guaranteeId, winnerHash, 2_500))
        .to.be.revertedWithCustomError(f.draw, "GuaranteeAlreadyPaid")
        .withArgs(f.campaignId, guaranteeId);
    });

    it("refuses invalid guarantees and campaigns without a wallet", async () => {
      const f = await loadFixture(deployFixture);
      const g = randomBytes32();
      const w = randomBytes32();
      const pay = (id: string, cents: bigint) => f.draw.connect(f.operator).payGuarantee(id, g, w, cents);
      await expect(pay(f.campaignId, 0n)).to.be.revertedWithCustomError(f.draw, "InvalidGuarantee");
      await expect(pay(f.campaignId, 100_000_001n)).to.be.revertedWithCustomError(f.draw, "InvalidGuarantee");
      await expect(f.draw.connect(f.operator).payGuarantee(f.campaignId, ZeroHash, w, 1)).to.be.revertedWithCustomError(
        f.draw,
        "InvalidGuarantee",
      );
      await expect(pay(campaignIdOf("ghost"), 1n)).to.be.revertedWithCustomError(f.draw, "CampaignNotRegistered");
      const id = campaignIdOf("no-wallet");
      await f.draw.connect(f.operator).registerCampaign(id, ZeroAddress, 50_000);
      await expect(pay(id, 1n)).to.be.revertedWithCustomError(f.draw, "PayoutWalletRequired");
      expect(await f.draw.isGuaranteePaid(id, g)).to.equal(false);
    });
  });

  describe("roles", () => {
    it("refuses every operator function to anyone without the operator role", async () => {
      const f = await loadFixture(deployFixture);
      const role = await f.draw.OPERATOR_ROLE();
      const asStranger = f.draw.connect(f.stranger);
      const asAdmin = f.draw.connect(f.admin); // the admin is not an operator either
      for (const contract of [asStranger, asAdmin]) {
        const who = contract === asStranger ? f.stranger.address : f.admin.address;
        const calls = [
          () => contract.publishPrizeTable(LIKELY_TOP.id, 1, LIKELY_TOP.amounts, LIKELY_TOP.weights),
          () => contract.registerCampaign(campaignIdOf("x"), f.wallet.address, 50_000),
          () => contract.setPayoutWallet(f.campaignId, f.other.address),
          () => contract.setLargePrizeThreshold(f.campaignId, 1),
          () => contract.commitAndRequest(commitArgs(f.campaignId, 1)),
          () => contract.recordWinners(f.campaignId, 1, randomBytes32()),
          () => contract.payout(f.campaignId, 1),
          () => contract.payHeldPrize(f.campaignId, 1, 0),
          () => contract.payGuarantee(f.campaignId, randomBytes32(), randomBytes32(), 1),
        ];
        for (const call of calls) {
          await expect(call()).to.be.revertedWithCustomError(f.draw, "AccessControlUnauthorizedAccount").withArgs(who, role);
        }
      }
    });

    it("refuses every admin function to the operator", async () => {
      const f = await loadFixture(deployFixture);
      const adminRole = await f.draw.DEFAULT_ADMIN_ROLE();
      const asOperator = f.draw.connect(f.operator);
      for (const call of [
        () => asOperator.setCallbackGasLimit(300_000),
        () => asOperator.withdrawTokens(f.operator.address, 1),
        () => asOperator.withdrawNative(f.operator.address, 0),
        () => asOperator.grantRole(adminRole, f.operator.address),
      ]) {
        await expect(call()).to.be.revertedWithCustomError(f.draw, "AccessControlUnauthorizedAccount").withArgs(f.operator.address, adminRole);
      }
      await expect(f.draw.connect(f.admin).setCallbackGasLimit(300_000))
        .to.emit(f.draw, "CallbackGasLimitChanged")
        .withArgs(2_000_000, 300_000);
      await expect(f.draw.connect(f.admin).withdrawTokens(f.admin.address, 5)).to.changeTokenBalance(f.token, f.admin, 5);
    });
  });

  describe("pure helpers", () => {
    it("encodes campaign ids and fingerprints winner lists like the spec", async () => {
      const f = await loadFixture(deployFixture);
      expect(await f.draw.toCampaignId("summer-daily")).to.equal(campaignIdOf("summer-daily"));
      await expect(f.draw.toCampaignId("")).to.be.revertedWithCustomError(f.draw, "InvalidCampaignId");
      await expect(f.draw.toCampaignId("x".repeat(33))).to.be.revertedWithCustomError(f.draw, "InvalidCampaignId");
      const ids = ["w-1", "w-2", "ünïcödé 🎉"];
      expect(await f.draw.winnersFingerprint(ids)).to.equal(winnersFingerprint(ids));
      expect(await f.draw.winnersFingerprint([...ids].reverse())).to.not.equal(winnersFingerprint(ids));
      expect(await f.draw.tierOf(DEFAULT_TABLE.id, 1, 0)).to.deep.equal([0n, 10_000_000n]);
      expect(await f.draw.tierOf(DEFAULT_TABLE.id, 1, 54_410)).to.deep.equal([4n, 1_000n]);
      expect(await f.draw.tierOf(DEFAULT_TABLE.id, 1, 54_411)).to.deep.equal([5n, 500n]);
      expect(await f.draw.tierOf(DEFAULT_TABLE.id, 1, 99_999)).to.deep.equal([5n, 500n]);
    });
  });
});
