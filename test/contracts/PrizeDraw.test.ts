import { expect } from "chai";
import { ethers, network } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { encodeBytes32String, keccak256, toUtf8Bytes, ZeroAddress, ZeroHash, type Interface } from "ethers";
import type { PrizeDraw, PrizeDrawManager } from "../../typechain-types";
import {
  ADMIN_DELAY,
  CALLBACK_GAS_LIMIT,
  DEFAULT_TABLE,
  DRAW_EPOCH,
  GUARANTEE,
  HELD,
  KIND_ENTRANTS,
  LARGE_DAILY_LIMIT,
  MAX_FEE,
  STATUS,
  UNITS_PER_CENT,
  CALLBACK_BASE_GAS,
  POSITION_GAS,
  ROLE,
  asAdmin,
  awarded,
  batchShareOf,
  callData,
  callbackPositionsOf,
  campaignIdOf,
  commit,
  commitArgs,
  deployFixture,
  redeployFixture,
  executeAsAdmin,
  expectedPrizes,
  expectedRoll,
  findEvents,
  findVaultEvents,
  randomBytes32,
  reveal,
  revealedDrawValue,
  scheduleAsAdmin,
  sendAsAdmin,
  sendBatch,
  sendCommit,
  slotOf,
  userRandomNumberOf,
  winnersFingerprint,
  withoutFee,
  REVEAL_TIMEOUT_BLOCKS,
  timestampOf,
  untilGuaranteePeriodEnd,
  worstCaseOf,
  type CommitOverrides,
  type Fixture,
} from "./helpers";

const LIKELY_TOP = { id: encodeBytes32String("likely-top"), amounts: [5_000n, 100n], weights: [9n, 1n] };
const DAY = 24 * 3600;

async function withLikelyTopTable(f: Fixture) {
  await f.draw.connect(f.operator).publishPrizeTable(LIKELY_TOP.id, 1, LIKELY_TOP.amounts, LIKELY_TOP.weights);
}

describe("PrizeDraw", () => {
  describe("deployment", () => {
    it("creates its vault, which holds the tokens and the limits, and derives token units per cent from the token's decimals", async () => {
      const f = await loadFixture(deployFixture);
      const draw = await f.draw.getAddress();
      const vault = await f.vault.getAddress();
      expect(await f.draw.vault()).to.equal(vault);
      expect(await f.vault.engine()).to.equal(draw);
      expect(await f.vault.token()).to.equal(await f.token.getAddress());
      expect(await f.draw.tokenUnitsPerCent()).to.equal(UNITS_PER_CENT);
      expect(await f.vault.tokenUnitsPerCent()).to.equal(UNITS_PER_CENT);
      // Both ask the same manager who may call what.
      expect(await f.draw.authority()).to.equal(await f.manager.getAddress());
      expect(await f.vault.authority()).to.equal(await f.manager.getAddress());
      // The pool is the vault's; the engine holds nothing.
      expect(await f.token.balanceOf(vault)).to.equal(10n ** 15n);
      expect(await f.token.balanceOf(draw)).to.equal(0n);
      expect(await f.vault.balances()).to.deep.equal([10n ** 15n, 0n, 0n, 10n ** 15n]);
      expect(await f.vault.paymentState()).to.deep.equal([LARGE_DAILY_LIMIT, LARGE_DAILY_LIMIT / 2n, false]);
      expect(await f.vault.paused()).to.equal(false);
      expect(await f.draw.callbackGasLimit()).to.equal(BigInt(CALLBACK_GAS_LIMIT));
    });

    it("the manager grants the three roles to three accounts, the admin's with its delay, and wire maps every function to its role", async () => {
      const f = await loadFixture(deployFixture);
      const delay = BigInt(ADMIN_DELAY);
      expect(await f.manager.hasRole(ROLE.Admin, f.admin.address)).to.deep.equal([true, delay]);
      expect(await f.manager.hasRole(ROLE.Governor, f.admin.address)).to.deep.equal([true, delay]);
      expect(await f.manager.hasRole(ROLE.Operator, f.operator.address)).to.deep.equal([true, 0n]);
      expect(await f.manager.hasRole(ROLE.Guardian, f.guardian.address)).to.deep.equal([true, 0n]);
      for (const [role, holder] of [
        [ROLE.Admin, f.admin],
        [ROLE.Operator, f.operator],
        [ROLE.Guardian, f.guardian],
      ] as const) {
        for (const who of [f.admin, f.operator, f.guardian, f.stranger]) {
          if (who !== holder) expect(await f.manager.hasRole(role, who.address), `${role} of ${who.address}`).to.deep.equal([false, 0n]);
        }
      }
      // A new holder of any of the roles waits out the admin's delay; the guardian cancels admin and operator calls.
      for (const role of Object.values(ROLE)) expect(await f.manager.getRoleGrantDelay(role)).to.equal(delay);
      expect(await f.manager.getRoleGuardian(ROLE.Governor)).to.equal(ROLE.Guardian);
      expect(await f.manager.getRoleGuardian(ROLE.Operator)).to.equal(ROLE.Guardian);

      expect(await f.manager.engine()).to.equal(await f.draw.getAddress());
      expect(await f.manager.deployer()).to.equal(ZeroAddress);
      const draw = await f.draw.getAddress();
      const vault = await f.vault.getAddress();
      const roleOf = (target: string, selector: string) => f.manager.getTargetFunctionRole(target, selector);
      // The manager's lists name exactly these functions, and wire gave each its role on its own contract.
      const selectorsOf = (abi: Interface, names: readonly string[]) => names.map((name) => abi.getFunction(name)!.selector);
      const engineFunctions = (names: readonly string[]) => selectorsOf(f.draw.interface, names);
      const vaultFunctions = (names: readonly string[]) => selectorsOf(f.vault.interface, names);
      const wiring: [Promise<string[]>, string[], string, bigint][] = [
        [
          f.manager.operatorSelectors(),
          engineFunctions(["publishPrizeTable", "registerCampaign", "setPayoutWallet", "setLargePrizeThreshold", "commitAndRequest", "recordWinners", "reRequest"]),
          draw,
          ROLE.Operator,
        ],
        [f.manager.adminSelectors(), engineFunctions(["setCallbackGasLimit", "moveDrawingWallet"]), draw, ROLE.Governor],
        [f.manager.vaultOperatorSelectors(), vaultFunctions(["payHeldPrize", "refuseHeldPrize", "pickGuarantee"]), vault, ROLE.Operator],
        [
          f.manager.vaultAdminSelectors(),
          vaultFunctions(["setDailyLimit", "setCampaignLimit", "unpause", "withdrawTokens", "withdrawNative", "moveGuaranteeWallet"]),
          vault,
          ROLE.Governor,
        ],
        [f.manager.vaultGuardianSelectors(), vaultFunctions(["pause"]), vault, ROLE.Guardian],
      ];
      for (const [listed, expected, target, role] of wiring) {
        expect(await listed).to.deep.equal(expected);
        for (const selector of expected) expect(await roleOf(target, selector), `${target} ${selector}`).to.equal(role);
      }
      // The held-prize and guarantee functions are the vault's alone: the engine has none of them to map.
      for (const name of ["payHeldPrize", "refuseHeldPrize", "pickGuarantee", "payGuarantee", "moveGuaranteeWallet"]) {
        expect((f.draw.interface as Interface).getFunction(name), name).to.equal(null);
      }
    });

    it("wire is called once, by the account that deployed the manager, and until then the operator can do nothing", async () => {
      const f = await loadFixture(deployFixture);
      // The stranger deploys: its wire alone counts.
      const manager = (await (await ethers.getContractFactory("PrizeDrawManager", f.stranger)).deploy(
        f.admin.address,
        f.operator.address,
        f.guardian.address,
        ADMIN_DELAY,
      )) as unknown as PrizeDrawManager;
      const managerAddress = await manager.getAddress();
      const factory = await ethers.getContractFactory("PrizeDraw");
      const draw = (await factory.deploy(await f.mock.getAddress(), await f.token.getAddress(), managerAddress, CALLBACK_GAS_LIMIT, LARGE_DAILY_LIMIT, REVEAL_TIMEOUT_BLOCKS)) as unknown as PrizeDraw;
      const drawAddress = await draw.getAddress();
      expect(await manager.deployer()).to.equal(f.stranger.address);
      await expect(draw.connect(f.operator).publishPrizeTable(LIKELY_TOP.id, 1, LIKELY_TOP.amounts, LIKELY_TOP.weights))
        .to.be.revertedWithCustomError(draw, "AccessManagedUnauthorized")
        .withArgs(f.operator.address);
      for (const who of [f.admin, f.operator, f.guardian]) {
        await expect(manager.connect(who).wire(drawAddress)).to.be.revertedWithCustomError(manager, "NotDeployer");
      }
      await expect(manager.connect(f.stranger).wire(ZeroAddress)).to.be.revertedWithCustomError(manager, "ZeroAddress");
      await expect(manager.connect(f.stranger).wire(drawAddress)).to.emit(manager, "Wired").withArgs(drawAddress, await draw.vault());
      expect(await manager.engine()).to.equal(drawAddress);
      expect(await manager.deployer()).to.equal(ZeroAddress);
      await draw.connect(f.operator).publishPrizeTable(LIKELY_TOP.id, 1, LIKELY_TOP.amounts, LIKELY_TOP.weights);
      // Wiring happens once: a second wire, to this engine or another, by the deployer or anyone, is AlreadyWired.
      for (const who of [f.stranger, f.admin]) {
        for (const engine of [drawAddress, await f.draw.getAddress()]) {
          await expect(manager.connect(who).wire(engine)).to.be.revertedWithCustomError(manager, "AlreadyWired");
        }
      }
      expect(await manager.engine()).to.equal(drawAddress);
    });

    it("the manager refuses one account two roles, a zero account and an admin delay outside 1 to 30 days", async () => {
      const f = await loadFixture(deployFixture);
      const factory = await ethers.getContractFactory("PrizeDrawManager");
      const manager = f.manager;
      const deploy = (o: Partial<{ admin: string; operator: string; guardian: string; delay: number }>) =>
        factory.deploy(o.admin ?? f.admin.address, o.operator ?? f.operator.address, o.guardian ?? f.guardian.address, o.delay ?? ADMIN_DELAY);
      await expect(deploy({ operator: f.admin.address })).to.be.revertedWithCustomError(manager, "RoleConflict").withArgs(f.admin.address, ROLE.Admin);
      await expect(deploy({ guardian: f.admin.address })).to.be.revertedWithCustomError(manager, "RoleConflict").withArgs(f.admin.address, ROLE.Admin);
      await expect(deploy({ guardian: f.operator.address }))
        .to.be.revertedWithCustomError(manager, "RoleConflict")
        .withArgs(f.operator.address, ROLE.Operator);
      await expect(deploy({ admin: ZeroAddress })).to.be.revertedWithCustomError(manager, "AccessManagerInvalidInitialAdmin").withArgs(ZeroAddress);
      for (const bad of [{ operator: ZeroAddress }, { guardian: ZeroAddress }]) {
        await expect(deploy(bad), JSON.stringify(bad)).to.be.revertedWithCustomError(manager, "ZeroAddress");
      }
      await expect(deploy({ delay: DAY - 1 })).to.be.revertedWithCustomError(manager, "AdminDelayOutOfRange").withArgs(DAY - 1);
      await expect(deploy({ delay: 30 * DAY + 1 })).to.be.revertedWithCustomError(manager, "AdminDelayOutOfRange").withArgs(30 * DAY + 1);
      for (const delay of [DAY, 30 * DAY]) {
        const edge = (await deploy({ delay })) as unknown as PrizeDrawManager;
        expect(await edge.hasRole(ROLE.Admin, f.admin.address)).to.deep.equal([true, BigInt(delay)]);
      }
    });

    it("the engine refuses zero addresses, an out-of-range callback gas limit or reveal timeout, and its vault a bad daily limit", async () => {
      const f = await loadFixture(deployFixture);
      const factory = await ethers.getContractFactory("PrizeDraw");
      const entropy = await f.mock.getAddress();
      const token = await f.token.getAddress();
      const manager = await f.manager.getAddress();
      const deploy = (o: Partial<{ entropy: string; token: string; manager: string; gas: number; limit: bigint; timeout: number }>) =>
        factory.deploy(o.entropy ?? entropy, o.token ?? token, o.manager ?? manager, o.gas ?? 500_000, o.limit ?? LARGE_DAILY_LIMIT, o.timeout ?? REVEAL_TIMEOUT_BLOCKS);
      for (const bad of [{ entropy: ZeroAddress }, { manager: ZeroAddress }]) {
        await expect(deploy(bad), JSON.stringify(bad)).to.be.revertedWithCustomError(f.draw, "ZeroAddress");
      }
      // The vault's own checks, from inside the engine's constructor.
      await expect(deploy({ token: ZeroAddress })).to.be.revertedWithCustomError(f.vault, "ZeroAddress");
      await expect(deploy({ gas: 99_999 })).to.be.revertedWithCustomError(f.draw, "InvalidCallbackGasLimit").withArgs(99_999);
      for (const timeout of [255, 1_000_001]) {
        await expect(deploy({ timeout })).to.be.revertedWithCustomError(f.draw, "InvalidRevealTimeout").withArgs(timeout);
      }
      for (const timeout of [256, 1_000_000]) expect(await ((await deploy({ timeout })) as unknown as PrizeDraw).revealTimeoutBlocks()).to.equal(BigInt(timeout));
      await expect(deploy({ gas: 15_000_001 })).to.be.revertedWithCustomError(f.draw, "InvalidCallbackGasLimit").withArgs(15_000_001);
      await expect(deploy({ limit: 1n })).to.be.revertedWithCustomError(f.vault, "InvalidLimit").withArgs(1n);
      await expect(deploy({ limit: 2n ** 64n })).to.be.revertedWithCustomError(f.vault, "InvalidLimit").withArgs(2n ** 64n);
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
      const registered = reg("weekly", 2_500n, 7 * DAY);
      await expect(registered)
        .to.emit(f.draw, "CampaignRegistered")
        .withArgs(campaignIdOf("weekly"), f.wallet.address, 50_000, 2_500, 7 * DAY);
      // Its periods are counted from the registration's block time.
      const registeredAt = BigInt(await timestampOf((await (await registered).wait())!));
      expect(await f.draw.getCampaignTerms(campaignIdOf("weekly"))).to.deep.equal([2_500n, BigInt(7 * DAY), 0n, registeredAt]);
      expect(await f.vault.guaranteePeriodEnd(campaignIdOf("weekly"), 0)).to.equal(registeredAt + BigInt(7 * DAY));
      expect(await f.vault.guaranteePeriodEnd(campaignIdOf("weekly"), 2)).to.equal(registeredAt + BigInt(21 * DAY));
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
          const committedIn = await ethers.provider.getBlockNumber();
          const receipt = await reveal(f, sequence, entropy);
          // Every roll follows from Entropy's value mixed with the hash of the commit's block.
          const value = await revealedDrawValue(f, receipt, entropy, committedIn);
          const expected = expectedPrizes(value, id, num, 12, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, 50_000n);
          expect(awarded(f, receipt)).to.deep.equal(expected);
          const revealed = findEvents(f, receipt, "EntropyRevealed")[0];
          expect(revealed.args.randomValue).to.equal(value);
          expect(revealed.args.sequence).to.equal(sequence);
          const settledEvent = findEvents(f, receipt, "DrawingSettled")[0];
          const payoutCents = expected.filter((p) => !p.held).reduce((a, p) => a + p.amountCents, 0n);
          expect(settledEvent.args.payoutCents).to.equal(payoutCents);
          const d = await f.draw.getDrawing(id, num);
          expect(d.status).to.equal(STATUS.Settled);
          expect(d.randomValue).to.equal(value);
          expect(d.settledCount).to.equal(12n);
          expect(d.payoutCents).to.equal(payoutCents);
          expect(d.revealedAt).to.equal(BigInt((await ethers.provider.getBlock(receipt.blockNumber))!.timestamp));
          for (const p of [0n, 5n, 11n]) {
            const independent = expectedRoll(value, id, num, p, 100_000n);
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
      const receipt = await reveal(f, sequence, entropy);
      const prizes = awarded(f, receipt);
      const rolledTop = prizes.filter((p) => p.roll < 9n);
      expect(rolledTop.length).to.be.greaterThan(1); // the rule is exercised
      expect(prizes.filter((p) => p.tier === 0n)).to.have.length(1);
      expect(prizes.find((p) => p.tier === 0n)!.position).to.equal(rolledTop[0].position);
      for (const p of rolledTop.slice(1)) expect([p.tier, p.amountCents]).to.deep.equal([1n, 100n]);
      expect(prizes).to.deep.equal(
        expectedPrizes(await revealedDrawValue(f, receipt, entropy), f.campaignId, 1n, 30, LIKELY_TOP.amounts, LIKELY_TOP.weights, 50_000n),
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
      const value = await revealedDrawValue(f, await reveal(f, sequence, entropy), entropy);
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
      expect((await f.draw.getDrawing(f.campaignId, 1)).randomValue).to.equal(value);
    });

    it("the callback settles exactly the positions its commit paid for, and settle() finishes the rest", async () => {
      const f = await loadFixture(deployFixture);
      await asAdmin(f, f.draw, "setCallbackGasLimit", [150_000]);
      const perCallback = callbackPositionsOf(150_000); // 11
      const winners = 60;
      const entropy = randomBytes32();
      const sequence = await commit(f, commitArgs(f.campaignId, 1, { winnersExpected: winners }));
      expect((await f.draw.getDrawing(f.campaignId, 1)).callbackPositions).to.equal(BigInt(perCallback));
      const first = await reveal(f, sequence, entropy);
      const value = await revealedDrawValue(f, first, entropy);
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
        expectedPrizes(value, f.campaignId, 1n, winners, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, 50_000n),
      );
      expect(findEvents(f, rest, "DrawingSettled")).to.have.length(1);
      d = await f.draw.getDrawing(f.campaignId, 1);
      expect(d.status).to.equal(STATUS.Settled);
      await expect(f.draw.settle(f.campaignId, 1, 1)).to.be.revertedWithCustomError(f.draw, "NothingToSettle");
    });

    it("keeps the callback positions of the gas limit in force at the commit", async () => {
      const f = await loadFixture(deployFixture);
      const sequence = await commit(f, commitArgs(f.campaignId, 1, { winnersExpected: 20 }));
      await expect(asAdmin(f, f.draw, "setCallbackGasLimit", [100_000]))
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
      await expect(asAdmin(f, f.draw, "setCallbackGasLimit", [15_000_001]))
        .to.be.revertedWithCustomError(f.draw, "InvalidCallbackGasLimit")
        .withArgs(15_000_001);
    });

    it("refuses settle before the reveal and for an unknown drawing", async () => {
      const f = await loadFixture(deployFixture);
      await expect(f.draw.settle(f.campaignId, 1, 10)).to.be.revertedWithCustomError(f.draw, "DrawingNotFound");
      await commit(f, commitArgs(f.campaignId, 1));
      await expect(f.draw.settle(f.campaignId, 1, 10))
        .to.be.revertedWithCustomError(f.draw, "NotRevealed")
        .withArgs(f.campaignId, 1);
    });

    it("once settled, a drawing still owes its worst case; once paid, exactly its held prizes", async () => {
      const f = await loadFixture(deployFixture);
      const worst = worstCaseOf(DEFAULT_TABLE.amounts, 50_000n, 25).totalCents;
      const prizes = awarded(f, await reveal(f, await commit(f, commitArgs(f.campaignId, 1, { winnersExpected: 25 })), randomBytes32()));
      expect(prizes).to.have.length(25);
      const [balance, owedCents, owedUnits, freeUnits] = await f.vault.balances();
      expect(owedCents).to.equal(worst);
      expect(owedUnits).to.equal(worst * UNITS_PER_CENT);
      expect(freeUnits).to.equal(balance - owedUnits);
      await f.draw.connect(f.stranger).payout(f.campaignId, 1);
      const held = prizes.filter((p) => p.held).reduce((a, p) => a + p.amountCents, 0n);
      expect((await f.vault.balances()).owedCents).to.equal(held);
    });
  });

  describe("what is owed: each drawing's worst case from its commit to its payout, then its open held prizes", () => {
    /** A table whose top prize is below another tier's: its worst case is the larger tier at every position. */
    const TOP_BELOW = { id: encodeBytes32String("top-below"), amounts: [300n, 500n, 100n], weights: [1n, 1n, 1n] };
    const TABLES = { default: DEFAULT_TABLE, likelyTop: LIKELY_TOP, topBelow: TOP_BELOW };
    const entrants = (winnersExpected: number, entrantCount: number): CommitOverrides => ({
      kind: KIND_ENTRANTS,
      listCommitment: keccak256(toUtf8Bytes("entrants-list")),
      winnersExpected,
      entrantCount,
      totalWeight: BigInt(entrantCount) * 2n,
    });
    const cases: { what: string; table: keyof typeof TABLES; threshold: bigint; overrides: CommitOverrides; prizeCount: number }[] = [
      { what: "a winner draw of 3", table: "default", threshold: 50_000n, overrides: {}, prizeCount: 3 },
      { what: "a winner draw of 25", table: "default", threshold: 50_000n, overrides: { winnersExpected: 25 }, prizeCount: 25 },
      // An entrant draw has min(winnersExpected, entrantCount) prizes.
      { what: "an entrant draw of 5 winners among 3 entrants", table: "default", threshold: 50_000n, overrides: entrants(5, 3), prizeCount: 3 },
      { what: "an entrant draw of 2 winners among 7 entrants", table: "default", threshold: 50_000n, overrides: entrants(2, 7), prizeCount: 2 },
      { what: "a winner draw of 4 under a table whose top prize is below another tier", table: "topBelow", threshold: 400n, overrides: { winnersExpected: 4 }, prizeCount: 4 },
      { what: "a winner draw of 10 whose prizes are all held", table: "likelyTop", threshold: 100n, overrides: { winnersExpected: 10 }, prizeCount: 10 },
    ];
    for (const c of cases) {
      it(`${c.what}: the commit reserves the worst case, the payout releases what the draw did not award`, async () => {
        const f = await loadFixture(deployFixture);
        const table = TABLES[c.table];
        if (c.table !== "default") await f.draw.connect(f.operator).publishPrizeTable(table.id, 1, table.amounts, table.weights);
        if (c.threshold !== 50_000n) await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, c.threshold);
        const worst = worstCaseOf(table.amounts, c.threshold, c.prizeCount).totalCents;

        const committed = (await (await sendCommit(f, commitArgs(f.campaignId, 1, { tableId: table.id, ...c.overrides }))).wait())!;
        expect((await f.draw.getDrawing(f.campaignId, 1)).prizeCount).to.equal(BigInt(c.prizeCount));
        expect(findVaultEvents(f, committed, "OwedChanged").map((e) => [...e.args])).to.deep.equal([[worst, 0n, worst]]);
        expect((await f.vault.balances()).owedCents).to.equal(worst);

        const entropy = keccak256(toUtf8Bytes(`owed: ${c.what}`));
        const sequence = findEvents(f, committed, "EntropyRequested")[0].args.sequence as bigint;
        const settledReceipt = await reveal(f, sequence, entropy);
        const value = await revealedDrawValue(f, settledReceipt, entropy, committed.blockNumber);
        const prizes = expectedPrizes(value, f.campaignId, 1n, c.prizeCount, table.amounts, table.weights, c.threshold);
        expect(awarded(f, settledReceipt)).to.deep.equal(prizes);
        const awardedCents = prizes.reduce((a, p) => a + p.amountCents, 0n);
        const settled = findEvents(f, settledReceipt, "DrawingSettled")[0];
        expect((settled.args.payoutCents as bigint) + (settled.args.heldCents as bigint)).to.equal(awardedCents);
        expect(awardedCents).to.be.lessThanOrEqual(worst);
        // The settlement leaves the vault alone: the whole reserve stays owed until the payout.
        expect(findVaultEvents(f, settledReceipt, "OwedChanged")).to.have.length(0);
        expect((await f.vault.balances()).owedCents).to.equal(worst);

        if (c.overrides.kind === KIND_ENTRANTS) {
          await f.draw.connect(f.operator).recordWinners(f.campaignId, 1, keccak256(toUtf8Bytes("winners")));
        }
        const heldCents = prizes.filter((p) => p.held).reduce((a, p) => a + p.amountCents, 0n);
        const paid = (await (await f.draw.connect(f.stranger).payout(f.campaignId, 1)).wait())!;
        // A drawing that awards its worst case (the likely-top table does: the top once, tier 1 for the rest)
        // has nothing to release; otherwise one change releases the rest, leaving its open held prizes owed.
        const released = worst === awardedCents ? [] : [[0n, worst - awardedCents, heldCents]];
        expect(findVaultEvents(f, paid, "OwedChanged").map((e) => [...e.args])).to.deep.equal(released);
        expect((await f.vault.balances()).owedCents).to.equal(heldCents);
      });
    }

    it("the worst case formula on hand-checked numbers", () => {
      // Default table, prizes of 100,000 and more held: 2 x 100,000 + 10,000,000 in all, 3 x 10,000 automatic.
      expect(worstCaseOf(DEFAULT_TABLE.amounts, 50_000n, 3)).to.deep.equal({ totalCents: 10_200_000n, automaticCents: 30_000n });
      // The top prize below another tier: the largest tier everywhere; the top automatic when below the threshold.
      expect(worstCaseOf(TOP_BELOW.amounts, 400n, 4)).to.deep.equal({ totalCents: 2_000n, automaticCents: 600n });
      expect(worstCaseOf(LIKELY_TOP.amounts, 50_000n, 10)).to.deep.equal({ totalCents: 5_900n, automaticCents: 5_900n });
      expect(worstCaseOf(LIKELY_TOP.amounts, 100n, 10)).to.deep.equal({ totalCents: 5_900n, automaticCents: 0n });
    });

    it("a settlement in several steps keeps the whole reserve through its last step; the payout releases the rest once", async () => {
      const f = await loadFixture(deployFixture);
      await asAdmin(f, f.draw, "setCallbackGasLimit", [100_000]);
      const winners = 20;
      expect(callbackPositionsOf(100_000)).to.be.lessThan(winners - 5);
      const worst = worstCaseOf(DEFAULT_TABLE.amounts, 50_000n, winners).totalCents;
      const entropy = keccak256(toUtf8Bytes("owed-in-steps"));
      const first = await reveal(f, await commit(f, commitArgs(f.campaignId, 1, { winnersExpected: winners })), entropy);
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(STATUS.Revealed);
      const middle = (await (await f.draw.connect(f.stranger).settle(f.campaignId, 1, 5)).wait())!;
      expect((await f.vault.balances()).owedCents).to.equal(worst);
      const last = (await (await f.draw.connect(f.stranger).settle(f.campaignId, 1, 100)).wait())!;
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(STATUS.Settled);
      for (const step of [first, middle, last]) expect(findVaultEvents(f, step, "OwedChanged")).to.have.length(0);
      expect((await f.vault.balances()).owedCents).to.equal(worst);
      const value = await revealedDrawValue(f, first, entropy);
      const prizes = expectedPrizes(value, f.campaignId, 1n, winners, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, 50_000n);
      expect(awarded(f, first)).to.deep.equal(prizes.slice(0, callbackPositionsOf(100_000)));
      const awardedCents = prizes.reduce((a, p) => a + p.amountCents, 0n);
      const heldCents = prizes.filter((p) => p.held).reduce((a, p) => a + p.amountCents, 0n);
      expect(awardedCents).to.be.lessThan(worst);
      const paid = (await (await f.draw.connect(f.stranger).payout(f.campaignId, 1)).wait())!;
      expect(findVaultEvents(f, paid, "OwedChanged").map((e) => [...e.args])).to.deep.equal([[0n, worst - awardedCents, heldCents]]);
      expect((await f.vault.balances()).owedCents).to.equal(heldCents);
    });

    it("a batch reserves every drawing's worst case in one change; its callback changes nothing owed; each payout releases what its drawing did not award", async () => {
      const f = await loadFixture(deployFixture);
      const second = campaignIdOf("second");
      await f.draw.connect(f.operator).registerCampaign(second, f.wallet.address, 5_000, 0, 0);
      const batch = [commitArgs(f.campaignId, 1, { winnersExpected: 4 }), commitArgs(second, 1, { winnersExpected: 2, slot: slotOf("drw_second_1") })];
      const worstFirst = worstCaseOf(DEFAULT_TABLE.amounts, 50_000n, 4).totalCents;
      const worstSecond = worstCaseOf(DEFAULT_TABLE.amounts, 5_000n, 2).totalCents;
      const worst = worstFirst + worstSecond;
      const committed = (await (await sendBatch(f, batch)).wait())!;
      expect(findVaultEvents(f, committed, "OwedChanged").map((e) => [...e.args])).to.deep.equal([[worst, 0n, worst]]);
      const entropy = keccak256(toUtf8Bytes("owed-batch"));
      const receipt = await reveal(f, findEvents(f, committed, "EntropyRequested")[0].args.sequence as bigint, entropy);
      expect(findVaultEvents(f, receipt, "OwedChanged")).to.have.length(0);
      expect((await f.vault.balances()).owedCents).to.equal(worst);
      const sum = (prizes: readonly { amountCents: bigint }[]) => prizes.reduce((a, p) => a + p.amountCents, 0n);
      // One request, one value for the batch: Entropy's mixed with the hash of the commit's block.
      const value = await revealedDrawValue(f, receipt, entropy, committed.blockNumber);
      const first = expectedPrizes(value, f.campaignId, 1n, 4, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, 50_000n);
      const other = expectedPrizes(value, second, 1n, 2, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, 5_000n);
      expect(awarded(f, receipt, { campaignId: f.campaignId, num: 1n })).to.deep.equal(first);
      expect(awarded(f, receipt, { campaignId: second, num: 1n })).to.deep.equal(other);
      const heldFirst = sum(first.filter((p) => p.held));
      const heldSecond = sum(other.filter((p) => p.held));
      // One payoutMany, one release per drawing, each in its own payment's vault call.
      const paid = (await (await f.draw.connect(f.stranger).payoutMany([
        { campaignId: f.campaignId, number: 1 },
        { campaignId: second, number: 1 },
      ])).wait())!;
      expect(findVaultEvents(f, paid, "OwedChanged").map((e) => [...e.args])).to.deep.equal([
        [0n, worstFirst - sum(first), worstSecond + heldFirst],
        [0n, worstSecond - sum(other), heldFirst + heldSecond],
      ]);
      expect((await f.vault.balances()).owedCents).to.equal(heldFirst + heldSecond);
    });

    it("a held prize refused or paid before the payout is no longer owed; the payout releases the rest", async () => {
      const f = await loadFixture(deployFixture);
      await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, 500); // every prize of the default table held
      const winners = 3;
      const worst = worstCaseOf(DEFAULT_TABLE.amounts, 500n, winners).totalCents;
      const sequence = await commit(f, commitArgs(f.campaignId, 1, { winnersExpected: winners }));
      const prizes = awarded(f, await reveal(f, sequence, keccak256(toUtf8Bytes("owed-held"))));
      expect(prizes.every((p) => p.held)).to.equal(true);
      const awardedCents = prizes.reduce((a, p) => a + p.amountCents, 0n);
      expect((await f.vault.balances()).owedCents).to.equal(worst);
      await expect(f.vault.connect(f.operator).refuseHeldPrize(f.campaignId, 1, 0, "failed identity checks"))
        .to.emit(f.vault, "OwedChanged")
        .withArgs(0, prizes[0].amountCents, worst - prizes[0].amountCents);
      // A paid held prize leaves with its payment, no OwedChanged of its own.
      const heldPaid = f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, 1);
      await expect(heldPaid).to.changeTokenBalance(f.token, f.wallet, prizes[1].amountCents * UNITS_PER_CENT);
      await expect(heldPaid).not.to.emit(f.vault, "OwedChanged");
      const open = prizes[2].amountCents;
      expect((await f.vault.balances()).owedCents).to.equal(worst - prizes[0].amountCents - prizes[1].amountCents);
      // The payout (of nothing: every prize is held) releases what the draw did not award; the open one stays owed.
      const paid = (await (await f.draw.connect(f.stranger).payout(f.campaignId, 1)).wait())!;
      expect(awardedCents).to.be.lessThan(worst);
      expect(findVaultEvents(f, paid, "OwedChanged").map((e) => [...e.args])).to.deep.equal([[0n, worst - awardedCents, open]]);
      expect((await f.vault.balances()).owedCents).to.equal(open);
      await f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, 2);
      expect((await f.vault.balances()).owedCents).to.equal(0n);
    });

    describe("backed by the pool", () => {
      /** The default deployment, but with a pool of exactly a 3-winner drawing's worst case (default table). */
      const POOL_CENTS = worstCaseOf(DEFAULT_TABLE.amounts, 50_000n, 3).totalCents;
      async function smallPoolFixture() {
        return redeployFixture(await deployFixture(), { pool: POOL_CENTS * UNITS_PER_CENT });
      }

      it("refuses a commit the pool cannot back, changing nothing; a payout's release makes room again", async () => {
        const f = await loadFixture(smallPoolFixture);
        // Exactly the pool: backed.
        const sequence = await commit(f, commitArgs(f.campaignId, 1));
        expect(await f.vault.balances()).to.deep.equal([POOL_CENTS * UNITS_PER_CENT, POOL_CENTS, POOL_CENTS * UNITS_PER_CENT, 0n]);

        const single = worstCaseOf(DEFAULT_TABLE.amounts, 50_000n, 1).totalCents; // the top prize
        const providerSequence = (await f.mock.getProviderInfoV2(f.provider.address)).sequenceNumber;
        await expect(sendCommit(f, commitArgs(f.campaignId, 2, { winnersExpected: 1 })))
          .to.be.revertedWithCustomError(f.vault, "ObligationNotBacked")
          .withArgs(POOL_CENTS + single, POOL_CENTS);
        // Nothing of it is on the record.
        expect((await f.draw.getCampaign(f.campaignId)).lastNumber).to.equal(1n);
        expect((await f.draw.getCampaignTerms(f.campaignId)).lastDrawAt).to.equal(BigInt(DRAW_EPOCH + 3600));
        expect(await f.draw.numberOfSlot(f.campaignId, slotOf("drw_2"))).to.equal(0n);
        await expect(f.draw.getDrawing(f.campaignId, 2)).to.be.revertedWithCustomError(f.draw, "DrawingNotFound");
        expect((await f.vault.balances()).owedCents).to.equal(POOL_CENTS);
        expect((await f.mock.getProviderInfoV2(f.provider.address)).sequenceNumber).to.equal(providerSequence);

        // Settled but unpaid, drawing 1 still owes its worst case: still no room.
        const entropy = keccak256(toUtf8Bytes("small-pool"));
        const prizes = awarded(f, await reveal(f, sequence, entropy));
        expect((await f.vault.balances()).owedCents).to.equal(POOL_CENTS);
        await expect(sendCommit(f, commitArgs(f.campaignId, 2, { winnersExpected: 1 })))
          .to.be.revertedWithCustomError(f.vault, "ObligationNotBacked")
          .withArgs(POOL_CENTS + single, POOL_CENTS);
        // Paid, it owes its held prizes only; what is left of the pool backs drawing 2.
        await f.draw.connect(f.stranger).payout(f.campaignId, 1);
        const payoutCents = prizes.filter((p) => !p.held).reduce((a, p) => a + p.amountCents, 0n);
        const heldCents = prizes.filter((p) => p.held).reduce((a, p) => a + p.amountCents, 0n);
        expect((await f.vault.balances()).owedCents).to.equal(heldCents);
        expect(heldCents + single).to.be.lessThanOrEqual(POOL_CENTS - payoutCents);
        await commit(f, commitArgs(f.campaignId, 2, { winnersExpected: 1 }));
        expect((await f.vault.balances()).owedCents).to.equal(heldCents + single);
      });

      it("refuses a guarantee pick the pool cannot back", async () => {
        const f = await loadFixture(smallPoolFixture);
        const guaranteed = campaignIdOf("guaranteed");
        await f.draw.connect(f.operator).registerCampaign(guaranteed, f.wallet.address, 50_000, 2_500, DAY);
        await commit(f, commitArgs(guaranteed, 1)); // owes the whole pool until paid
        await untilGuaranteePeriodEnd(f.vault, guaranteed, 0);
        await expect(f.vault.connect(f.operator).pickGuarantee(guaranteed, 0, keccak256(toUtf8Bytes("w-1"))))
          .to.be.revertedWithCustomError(f.vault, "ObligationNotBacked")
          .withArgs(POOL_CENTS + 2_500n, POOL_CENTS);
        expect(await f.vault.getGuarantee(guaranteed, 0)).to.deep.equal([GUARANTEE.None, ZeroAddress, 0n]);
        expect((await f.vault.balances()).owedCents).to.equal(POOL_CENTS);
      });
    });

    describe("payable under the limits", () => {
      // The default table at the 50,000-cent threshold: the top prize and the 100,000 tier are held, so 3 prizes
      // pay at most 3 x 10,000 automatically.
      const AUTOMATIC = worstCaseOf(DEFAULT_TABLE.amounts, 50_000n, 3).automaticCents;

      it("refuses a commit whose automatic payout could exceed half the campaign's limit; exactly half passes", async () => {
        const f = await loadFixture(deployFixture);
        expect(AUTOMATIC).to.equal(30_000n);
        // An odd limit's half rounds down.
        for (const limit of [2n * AUTOMATIC - 2n, 2n * AUTOMATIC - 1n]) {
          await asAdmin(f, f.vault, "setCampaignLimit", [f.campaignId, limit]);
          expect(await f.vault.maxPaymentCents(f.campaignId)).to.equal(AUTOMATIC - 1n);
          await expect(sendCommit(f, commitArgs(f.campaignId, 1)))
            .to.be.revertedWithCustomError(f.draw, "PayoutAboveLimit")
            .withArgs(f.campaignId, 1, AUTOMATIC, AUTOMATIC - 1n);
          expect((await f.draw.getCampaign(f.campaignId)).lastNumber).to.equal(0n);
          expect((await f.vault.balances()).owedCents).to.equal(0n);
        }
        // Another campaign is bound by the overall limit only.
        const other = campaignIdOf("other");
        await f.draw.connect(f.operator).registerCampaign(other, f.wallet.address, 50_000, 0, 0);
        expect(await f.vault.maxPaymentCents(other)).to.equal(LARGE_DAILY_LIMIT / 2n);
        await commit(f, commitArgs(other, 1));

        await asAdmin(f, f.vault, "setCampaignLimit", [f.campaignId, 2n * AUTOMATIC]);
        expect(await f.vault.maxPaymentCents(f.campaignId)).to.equal(AUTOMATIC);
        await commit(f, commitArgs(f.campaignId, 1));
        // Held prizes do not count: at a 10,000-cent threshold the 10,000 tier is held too, so 15 prizes pay at
        // most 15 x 2,000 automatically, although their worst case in all is far above the limit.
        await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, 10_000);
        expect(worstCaseOf(DEFAULT_TABLE.amounts, 10_000n, 15).automaticCents).to.equal(AUTOMATIC);
        await commit(f, commitArgs(f.campaignId, 2, { winnersExpected: 15 }));
        await expect(sendCommit(f, commitArgs(f.campaignId, 3, { winnersExpected: 16 })))
          .to.be.revertedWithCustomError(f.draw, "PayoutAboveLimit")
          .withArgs(f.campaignId, 3, AUTOMATIC + 2_000n, AUTOMATIC);
      });

      it("a batch holds each drawing to its own campaign's cap: the overall one, or the campaign's while any campaign has a limit", async () => {
        const f = await loadFixture(deployFixture);
        const other = campaignIdOf("other");
        const third = campaignIdOf("third");
        for (const id of [other, third]) await f.draw.connect(f.operator).registerCampaign(id, f.wallet.address, 50_000, 0, 0);
        const batch = (n: number) => [
          commitArgs(other, n, { slot: slotOf(`drw_other_${n}`) }),
          commitArgs(f.campaignId, n),
        ];
        expect(await f.vault.paymentCaps()).to.deep.equal([LARGE_DAILY_LIMIT / 2n, false]);
        await asAdmin(f, f.vault, "setCampaignLimit", [f.campaignId, 2n * AUTOMATIC - 2n]);
        await asAdmin(f, f.vault, "setCampaignLimit", [third, 10n * AUTOMATIC]);
        expect(await f.vault.paymentCaps()).to.deep.equal([LARGE_DAILY_LIMIT / 2n, true]);
        // The limited campaign's drawing is refused, whatever comes before it in the batch; nothing is committed.
        await expect(sendBatch(f, batch(1)))
          .to.be.revertedWithCustomError(f.draw, "PayoutAboveLimit")
          .withArgs(f.campaignId, 1, AUTOMATIC, AUTOMATIC - 1n);
        expect((await f.draw.getCampaign(other)).lastNumber).to.equal(0n);
        // One campaign limit removed, another still set: each drawing is still asked about its own campaign.
        await asAdmin(f, f.vault, "setCampaignLimit", [third, 0n]);
        expect(await f.vault.paymentCaps()).to.deep.equal([LARGE_DAILY_LIMIT / 2n, true]);
        await expect(sendBatch(f, batch(1))).to.be.revertedWithCustomError(f.draw, "PayoutAboveLimit");
        // The last one removed: the overall cap alone applies, to every drawing.
        await asAdmin(f, f.vault, "setCampaignLimit", [f.campaignId, 0n]);
        expect(await f.vault.paymentCaps()).to.deep.equal([LARGE_DAILY_LIMIT / 2n, false]);
        expect(await f.vault.maxPaymentCents(f.campaignId)).to.equal(LARGE_DAILY_LIMIT / 2n);
        await sendBatch(f, batch(1));
        expect((await f.draw.getCampaign(f.campaignId)).lastNumber).to.equal(1n);
        expect((await f.draw.getCampaign(other)).lastNumber).to.equal(1n);
      });

      it("refuses a commit whose automatic payout could exceed half the overall limit; exactly half passes", async () => {
        const f = await loadFixture(deployFixture);
        await asAdmin(f, f.vault, "setDailyLimit", [2n * AUTOMATIC - 2n]);
        expect(await f.vault.maxPaymentCents(f.campaignId)).to.equal(AUTOMATIC - 1n);
        await expect(sendCommit(f, commitArgs(f.campaignId, 1)))
          .to.be.revertedWithCustomError(f.draw, "PayoutAboveLimit")
          .withArgs(f.campaignId, 1, AUTOMATIC, AUTOMATIC - 1n);
        expect((await f.draw.getCampaign(f.campaignId)).lastNumber).to.equal(0n);
        // A campaign limit above the overall one does not raise the bound.
        await asAdmin(f, f.vault, "setCampaignLimit", [f.campaignId, 10n * AUTOMATIC]);
        expect(await f.vault.maxPaymentCents(f.campaignId)).to.equal(AUTOMATIC - 1n);
        await asAdmin(f, f.vault, "setDailyLimit", [2n * AUTOMATIC]);
        expect(await f.vault.maxPaymentCents(f.campaignId)).to.equal(AUTOMATIC);
        await commit(f, commitArgs(f.campaignId, 1));
        // A top prize below the threshold is automatic: 9 x 100 + 5,000 for 10 prizes of the likely-top table.
        await withLikelyTopTable(f);
        const likelyTop = worstCaseOf(LIKELY_TOP.amounts, 50_000n, 10).automaticCents;
        await asAdmin(f, f.vault, "setDailyLimit", [2n * likelyTop - 2n]);
        await expect(sendCommit(f, commitArgs(f.campaignId, 2, { winnersExpected: 10, tableId: LIKELY_TOP.id })))
          .to.be.revertedWithCustomError(f.draw, "PayoutAboveLimit")
          .withArgs(f.campaignId, 2, likelyTop, likelyTop - 1n);
      });
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
      const worst = worstCaseOf(DEFAULT_TABLE.amounts, 50_000n, 40).totalCents;
      expect((await f.vault.balances()).owedCents).to.equal(worst);
      const tx = f.draw.connect(f.operator).payout(f.campaignId, 1);
      await expect(tx).to.emit(f.draw, "DrawingPaid").withArgs(f.campaignId, 1, f.wallet.address, cents, cents * UNITS_PER_CENT);
      await expect(tx).to.changeTokenBalances(f.token, [f.vault, f.wallet], [-cents * UNITS_PER_CENT, cents * UNITS_PER_CENT]);
      const receipt = (await (await tx).wait())!;
      const transfers = receipt.logs.filter((l) => f.token.interface.parseLog(l)?.name === "Transfer");
      expect(transfers).to.have.length(1);
      expect((await f.draw.getDrawing(f.campaignId, 1)).status).to.equal(STATUS.Paid);
      // The payment and the release of what the draw did not award leave the held prizes owed.
      const held = prizes.filter((p) => p.held).reduce((a, p) => a + p.amountCents, 0n);
      expect(findVaultEvents(f, receipt, "OwedChanged").map((e) => [...e.args])).to.deep.equal([[0n, worst - cents - held, held]]);
      expect((await f.vault.balances()).owedCents).to.equal(held);
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

      await expect(f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, held[0].position)).to.changeTokenBalance(
        f.token,
        f.wallet,
        5_000n * UNITS_PER_CENT,
      );
      await expect(f.draw.connect(f.operator).payout(f.campaignId, 1)).to.changeTokenBalance(f.token, f.wallet, 900n * UNITS_PER_CENT);
      const notHeld = prizes.find((p) => !p.held)!.position;
      await expect(f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, notHeld))
        .to.be.revertedWithCustomError(f.draw, "NotHeldPrize")
        .withArgs(f.campaignId, 1, notHeld);
      await expect(f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, 10))
        .to.be.revertedWithCustomError(f.draw, "PositionNotSettled")
        .withArgs(f.campaignId, 1, 10);
      await expect(f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, held[0].position))
        .to.be.revertedWithCustomError(f.vault, "HeldPrizeClosed")
        .withArgs(f.campaignId, 1, held[0].position);
      expect(await f.vault.heldPrizeState(f.campaignId, 1, held[0].position)).to.equal(1n); // Paid
      expect((await f.vault.balances()).owedCents).to.equal(0n);
    });

    /** The likely-top table's drawing of 10 settled at a 5,000-cent threshold: one held prize (the top), the rest paid automatically. */
    async function oneHeldDraw(f: Fixture) {
      await withLikelyTopTable(f);
      await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, 5_000);
      const { prizes } = await settledDraw(f, 10, LIKELY_TOP.id);
      const held = prizes.filter((p) => p.held);
      expect(held).to.have.length(1);
      return { held: held[0], notHeld: prizes.find((p) => !p.held)! };
    }

    it("the vault pays a held prize as the engine reports it: by the operator alone, once, and counts it closed", async () => {
      const f = await loadFixture(deployFixture);
      const { held, notHeld } = await oneHeldDraw(f);
      // The vault pays what the engine reports: the drawing's wallet and the prize's amount.
      expect(await f.draw.heldPrize(f.campaignId, 1, held.position)).to.deep.equal([f.wallet.address, held.amountCents]);
      expect(await f.vault.heldClosed(f.campaignId, 1)).to.equal(0n);
      await expect(f.vault.connect(f.stranger).payHeldPrize(f.campaignId, 1, held.position))
        .to.be.revertedWithCustomError(f.vault, "AccessManagedUnauthorized")
        .withArgs(f.stranger.address);
      // A position the engine does not hold is refused by the engine's check, and closes nothing.
      await expect(f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, notHeld.position))
        .to.be.revertedWithCustomError(f.draw, "NotHeldPrize")
        .withArgs(f.campaignId, 1, notHeld.position);
      expect(await f.vault.heldClosed(f.campaignId, 1)).to.equal(0n);

      const pay = f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, held.position);
      await expect(pay)
        .to.emit(f.vault, "HeldPrizePaid")
        .withArgs(f.campaignId, 1, held.position, f.wallet.address, held.amountCents, held.amountCents * UNITS_PER_CENT);
      await expect(pay).to.changeTokenBalances(f.token, [f.vault, f.wallet], [-held.amountCents * UNITS_PER_CENT, held.amountCents * UNITS_PER_CENT]);
      expect(await f.vault.heldPrizeState(f.campaignId, 1, held.position)).to.equal(HELD.Paid);
      expect(await f.vault.heldClosed(f.campaignId, 1)).to.equal(1n);
      // Paid once: neither a second payment nor a refusal closes it again.
      await expect(f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, held.position))
        .to.be.revertedWithCustomError(f.vault, "HeldPrizeClosed")
        .withArgs(f.campaignId, 1, held.position);
      await expect(f.vault.connect(f.operator).refuseHeldPrize(f.campaignId, 1, held.position, "too late"))
        .to.be.revertedWithCustomError(f.vault, "HeldPrizeClosed")
        .withArgs(f.campaignId, 1, held.position);
      expect(await f.vault.heldClosed(f.campaignId, 1)).to.equal(1n);
      expect(await f.vault.heldPrizeState(f.campaignId, 1, held.position)).to.equal(HELD.Paid);
    });

    it("a refused held prize is released from what is owed, moves no token and is counted closed", async () => {
      const f = await loadFixture(deployFixture);
      const { held } = await oneHeldDraw(f);
      const owedBefore = (await f.vault.balances()).owedCents;
      const refuse = f.vault.connect(f.operator).refuseHeldPrize(f.campaignId, 1, held.position, "failed identity checks");
      await expect(refuse)
        .to.emit(f.vault, "HeldPrizeRefused")
        .withArgs(f.campaignId, 1, held.position, held.amountCents, "failed identity checks");
      await expect(refuse).to.changeTokenBalances(f.token, [f.vault, f.wallet], [0n, 0n]);
      expect((await f.vault.balances()).owedCents).to.equal(owedBefore - held.amountCents);
      expect(await f.vault.heldPrizeState(f.campaignId, 1, held.position)).to.equal(HELD.Refused);
      expect(await f.vault.heldClosed(f.campaignId, 1)).to.equal(1n);
      await expect(f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, held.position))
        .to.be.revertedWithCustomError(f.vault, "HeldPrizeClosed")
        .withArgs(f.campaignId, 1, held.position);
      // The payout then releases the rest of the reserve: nothing of the drawing is owed any more.
      await f.draw.connect(f.stranger).payout(f.campaignId, 1);
      expect((await f.vault.balances()).owedCents).to.equal(0n);
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
      const receipt = await reveal(f, 1n, entropy);
      const prizes = awarded(f, receipt);
      const value = await revealedDrawValue(f, receipt, entropy);
      expect(prizes).to.deep.equal(expectedPrizes(value, f.campaignId, 1n, 3, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights, 50_000n));
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
      await expect(f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, 0))
        .to.be.revertedWithCustomError(f.draw, "WinnersNotRecorded")
        .withArgs(f.campaignId, 1);
      await expect(f.vault.connect(f.operator).refuseHeldPrize(f.campaignId, 1, 0, "checks failed"))
        .to.be.revertedWithCustomError(f.draw, "WinnersNotRecorded")
        .withArgs(f.campaignId, 1);
      await f.draw.connect(f.operator).recordWinners(f.campaignId, 1, winnersFingerprint(["e-1", "e-0"]));
      await expect(f.vault.connect(f.operator).payHeldPrize(f.campaignId, 1, 0)).to.emit(f.vault, "HeldPrizePaid");
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
      if (drawings > 0) await untilGuaranteePeriodEnd(f.vault, GUARANTEED, drawings - 1);
    }

    it("picks exactly the registered amount once per period that holds a committed drawing, and pays it once, to the wallet of the pick", async () => {
      const f = await loadFixture(deployFixture);
      await guaranteed(f, 0);
      await expect(f.vault.connect(f.operator).pickGuarantee(GUARANTEED, 0, winnerHash))
        .to.be.revertedWithCustomError(f.vault, "GuaranteePeriodNotDrawn")
        .withArgs(GUARANTEED, 0, 0);
      await commit(f, commitArgs(GUARANTEED, 1));
      // Not before the period's end in block time.
      await expect(f.vault.connect(f.operator).pickGuarantee(GUARANTEED, 0, winnerHash))
        .to.be.revertedWithCustomError(f.vault, "GuaranteePeriodNotEnded")
        .withArgs(GUARANTEED, 0, await f.vault.guaranteePeriodEnd(GUARANTEED, 0));
      await untilGuaranteePeriodEnd(f.vault, GUARANTEED, 0);
      // What is owed besides the guarantee: the committed drawing's reserve.
      const owedBefore = (await f.vault.balances()).owedCents;
      const pick = f.vault.connect(f.operator).pickGuarantee(GUARANTEED, 0, winnerHash);
      await expect(pick).to.emit(f.vault, "GuaranteePicked").withArgs(GUARANTEED, 0, winnerHash, f.wallet.address, 2_500);
      await expect(pick).to.emit(f.vault, "OwedChanged").withArgs(2_500, 0, owedBefore + 2_500n);
      expect(await f.vault.getGuarantee(GUARANTEED, 0)).to.deep.equal([GUARANTEE.Picked, f.wallet.address, 2_500n]);
      expect((await f.vault.balances()).owedCents).to.equal(owedBefore + 2_500n);
      await expect(f.vault.connect(f.operator).pickGuarantee(GUARANTEED, 0, winnerHash))
        .to.be.revertedWithCustomError(f.vault, "GuaranteeAlreadyPicked")
        .withArgs(GUARANTEED, 0);
      await expect(f.vault.connect(f.operator).pickGuarantee(GUARANTEED, 1, winnerHash))
        .to.be.revertedWithCustomError(f.vault, "GuaranteePeriodNotDrawn")
        .withArgs(GUARANTEED, 1, 1);

      // A wallet change after the pick does not redirect it; paying is permissionless.
      await f.draw.connect(f.operator).setPayoutWallet(GUARANTEED, f.other.address);
      const pay = f.vault.connect(f.stranger).payGuarantee(GUARANTEED, 0);
      await expect(pay).to.emit(f.vault, "GuaranteePaid").withArgs(GUARANTEED, 0, f.wallet.address, 2_500, 2_500n * UNITS_PER_CENT);
      await expect(pay).to.changeTokenBalances(f.token, [f.wallet, f.other, f.stranger], [2_500n * UNITS_PER_CENT, 0n, 0n]);
      expect(await f.vault.getGuarantee(GUARANTEED, 0)).to.deep.equal([GUARANTEE.Paid, f.wallet.address, 2_500n]);
      expect((await f.vault.balances()).owedCents).to.equal(owedBefore);
      await expect(f.vault.payGuarantee(GUARANTEED, 0)).to.be.revertedWithCustomError(f.vault, "GuaranteeAlreadyPaid").withArgs(GUARANTEED, 0);
      await expect(f.vault.payGuarantee(GUARANTEED, 1)).to.be.revertedWithCustomError(f.vault, "GuaranteeNotPicked").withArgs(GUARANTEED, 1);
      await expect(f.vault.connect(f.operator).pickGuarantee(GUARANTEED, 0, winnerHash)).to.be.revertedWithCustomError(
        f.vault,
        "GuaranteeAlreadyPicked",
      );
      // The next period needs the next drawing and its own end; the pick goes to the wallet of that moment.
      await commit(f, commitArgs(GUARANTEED, 2));
      await untilGuaranteePeriodEnd(f.vault, GUARANTEED, 1);
      await expect(f.vault.connect(f.operator).pickGuarantee(GUARANTEED, 1, winnerHash))
        .to.emit(f.vault, "GuaranteePicked")
        .withArgs(GUARANTEED, 1, winnerHash, f.other.address, 2_500);
    });

    it("refuses campaigns without a guarantee, unknown campaigns and a zero winner hash", async () => {
      const f = await loadFixture(deployFixture);
      await guaranteed(f, 1);
      await commit(f, commitArgs(f.campaignId, 1));
      await expect(f.vault.connect(f.operator).pickGuarantee(f.campaignId, 0, winnerHash))
        .to.be.revertedWithCustomError(f.vault, "NoGuarantee")
        .withArgs(f.campaignId);
      await expect(f.vault.connect(f.operator).pickGuarantee(campaignIdOf("ghost"), 0, winnerHash))
        .to.be.revertedWithCustomError(f.draw, "CampaignNotRegistered")
        .withArgs(campaignIdOf("ghost"));
      await expect(f.vault.connect(f.operator).pickGuarantee(GUARANTEED, 0, ZeroHash)).to.be.revertedWithCustomError(
        f.vault,
        "InvalidWinnerHash",
      );
      expect(await f.vault.getGuarantee(GUARANTEED, 0)).to.deep.equal([GUARANTEE.None, ZeroAddress, 0n]);
    });

    it("refuses a pick larger than one payment may be under the limits (half the campaign's or the overall limit); exactly half passes", async () => {
      const f = await loadFixture(deployFixture);
      await guaranteed(f, 2);
      const owed = (await f.vault.balances()).owedCents;
      const refused = async (period: number, maxCents: bigint) => {
        const owedBefore = (await f.vault.balances()).owedCents;
        expect(await f.vault.maxPaymentCents(GUARANTEED)).to.equal(maxCents);
        await expect(f.vault.connect(f.operator).pickGuarantee(GUARANTEED, period, winnerHash))
          .to.be.revertedWithCustomError(f.vault, "PayoutAboveLimit")
          .withArgs(GUARANTEED, period, 2_500, maxCents);
        expect(await f.vault.getGuarantee(GUARANTEED, period)).to.deep.equal([GUARANTEE.None, ZeroAddress, 0n]);
        expect((await f.vault.balances()).owedCents).to.equal(owedBefore);
      };
      // The campaign's own limit: an odd one's half rounds down, one cent short of the guarantee.
      await asAdmin(f, f.vault, "setCampaignLimit", [GUARANTEED, 4_999n]);
      await refused(0, 2_499n);
      await asAdmin(f, f.vault, "setCampaignLimit", [GUARANTEED, 5_000n]);
      await expect(f.vault.connect(f.operator).pickGuarantee(GUARANTEED, 0, winnerHash)).to.emit(f.vault, "GuaranteePicked");
      // The overall limit binds too, whatever the campaign's.
      await asAdmin(f, f.vault, "setDailyLimit", [4_999n]);
      await refused(1, 2_499n);
      await asAdmin(f, f.vault, "setDailyLimit", [5_000n]);
      await expect(f.vault.connect(f.operator).pickGuarantee(GUARANTEED, 1, winnerHash)).to.emit(f.vault, "GuaranteePicked");
      expect((await f.vault.balances()).owedCents).to.equal(owed + 5_000n);
    });

    it("the admin moves a picked, unpaid guarantee to the campaign's current wallet, named in the call", async () => {
      const f = await loadFixture(deployFixture);
      await guaranteed(f, 1);
      // The admin's call, scheduled and executed after its delay (a failed attempt stays scheduled for a retry).
      const move = (to: string) => sendAsAdmin(f, f.vault, "moveGuaranteeWallet", [GUARANTEED, 0, to]);
      await expect(move(f.wallet.address)).to.be.revertedWithCustomError(f.vault, "GuaranteeNotPicked").withArgs(GUARANTEED, 0);
      await f.vault.connect(f.operator).pickGuarantee(GUARANTEED, 0, winnerHash);
      // Moving to the wallet it already has is a no-op, refused.
      await expect(move(f.wallet.address)).to.be.revertedWithCustomError(f.vault, "NothingToMove").withArgs(GUARANTEED, 0);
      // A destination other than the campaign's wallet is refused: the admin alone cannot choose where it goes.
      await expect(move(f.other.address))
        .to.be.revertedWithCustomError(f.vault, "MoveDestinationMismatch")
        .withArgs(GUARANTEED, f.other.address, f.wallet.address);
      await f.draw.connect(f.operator).setPayoutWallet(GUARANTEED, f.other.address);
      await expect(f.vault.connect(f.operator).moveGuaranteeWallet(GUARANTEED, 0, f.other.address))
        .to.be.revertedWithCustomError(f.vault, "AccessManagedUnauthorized")
        .withArgs(f.operator.address);
      await expect(move(f.other.address))
        .to.emit(f.vault, "GuaranteeWalletMoved")
        .withArgs(GUARANTEED, 0, f.wallet.address, f.other.address);
      await expect(f.vault.payGuarantee(GUARANTEED, 0)).to.changeTokenBalance(f.token, f.other, 2_500n * UNITS_PER_CENT);
      await expect(move(f.other.address)).to.be.revertedWithCustomError(f.vault, "GuaranteeNotPicked");
    });
  });

  describe("roles", () => {
    it("refuses every operator function to anyone without the operator role", async () => {
      const f = await loadFixture(deployFixture);
      for (const who of [f.stranger, f.admin, f.guardian]) {
        const contract = f.draw.connect(who); // the admin and the guardian are not operators either
        const calls = [
          () => contract.publishPrizeTable(LIKELY_TOP.id, 1, LIKELY_TOP.amounts, LIKELY_TOP.weights),
          () => contract.registerCampaign(campaignIdOf("x"), f.wallet.address, 50_000, 0, 0),
          () => contract.setPayoutWallet(f.campaignId, f.other.address),
          () => contract.setLargePrizeThreshold(f.campaignId, 1),
          () => contract.commitAndRequest([withoutFee(commitArgs(f.campaignId, 1))], MAX_FEE, { value: MAX_FEE }),
          () => contract.recordWinners(f.campaignId, 1, randomBytes32()),
          () => contract.reRequest(f.campaignId, 1, 0),
        ];
        for (const call of calls) {
          await expect(call()).to.be.revertedWithCustomError(f.draw, "AccessManagedUnauthorized").withArgs(who.address);
        }
        // The operator's held-prize decisions and guarantee picks are the vault's.
        const vault = f.vault.connect(who);
        for (const call of [
          () => vault.payHeldPrize(f.campaignId, 1, 0),
          () => vault.refuseHeldPrize(f.campaignId, 1, 0, "no"),
          () => vault.pickGuarantee(f.campaignId, 0, randomBytes32()),
        ]) {
          await expect(call()).to.be.revertedWithCustomError(f.vault, "AccessManagedUnauthorized").withArgs(who.address);
        }
      }
    });

    it("refuses every admin function to the operator, the guardian and a stranger, and to the admin itself without its delay", async () => {
      const f = await loadFixture(deployFixture);
      const draw = await f.draw.getAddress();
      for (const who of [f.operator, f.guardian, f.stranger]) {
        const engine = f.draw.connect(who);
        for (const call of [
          () => engine.setCallbackGasLimit(300_000),
          () => engine.moveDrawingWallet(f.campaignId, 1, f.wallet.address),
        ]) {
          await expect(call()).to.be.revertedWithCustomError(f.draw, "AccessManagedUnauthorized").withArgs(who.address);
        }
        const vault = f.vault.connect(who);
        for (const call of [
          () => vault.withdrawTokens(who.address, 1),
          () => vault.withdrawNative(who.address, 0),
          () => vault.setDailyLimit(10),
          () => vault.setCampaignLimit(f.campaignId, 10),
          () => vault.unpause(),
          () => vault.moveGuaranteeWallet(f.campaignId, 0, f.wallet.address),
        ]) {
          await expect(call()).to.be.revertedWithCustomError(f.vault, "AccessManagedUnauthorized").withArgs(who.address);
        }
        // Nor can they grant roles or schedule the admin's calls.
        const manager = f.manager.connect(who);
        await expect(manager.grantRole(ROLE.Admin, who.address, ADMIN_DELAY))
          .to.be.revertedWithCustomError(f.manager, "AccessManagerUnauthorizedAccount")
          .withArgs(who.address, ROLE.Admin);
        await expect(manager.grantRole(ROLE.Operator, f.other.address, 0))
          .to.be.revertedWithCustomError(f.manager, "AccessManagerUnauthorizedAccount")
          .withArgs(who.address, ROLE.Admin);
        const setGas = callData(f.draw, "setCallbackGasLimit", [300_000]);
        await expect(manager.schedule(draw, setGas, 0))
          .to.be.revertedWithCustomError(f.manager, "AccessManagerUnauthorizedCall")
          .withArgs(who.address, draw, setGas.slice(0, 10));
      }

      // The admin itself: never directly, only scheduled and after its delay.
      await expect(f.draw.connect(f.admin).setCallbackGasLimit(300_000)).to.be.revertedWithCustomError(f.manager, "AccessManagerNotScheduled");
      await expect(f.vault.connect(f.admin).withdrawTokens(f.admin.address, 5)).to.be.revertedWithCustomError(f.manager, "AccessManagerNotScheduled");
      await scheduleAsAdmin(f, f.draw, "setCallbackGasLimit", [300_000]);
      await expect(executeAsAdmin(f, f.draw, "setCallbackGasLimit", [300_000])).to.be.revertedWithCustomError(f.manager, "AccessManagerNotReady");
      await time.increase(ADMIN_DELAY);
      await expect(executeAsAdmin(f, f.draw, "setCallbackGasLimit", [300_000]))
        .to.emit(f.draw, "CallbackGasLimitChanged")
        .withArgs(2_000_000, 300_000);
      await expect(sendAsAdmin(f, f.vault, "withdrawTokens", [f.admin.address, 5])).to.changeTokenBalances(f.token, [f.admin, f.vault], [5, -5]);
    });

    it("only the guardian pauses", async () => {
      const f = await loadFixture(deployFixture);
      for (const who of [f.admin, f.operator, f.stranger]) {
        await expect(f.vault.connect(who).pause()).to.be.revertedWithCustomError(f.vault, "AccessManagedUnauthorized").withArgs(who.address);
      }
      await expect(f.vault.connect(f.guardian).pause()).to.emit(f.vault, "PaymentsPaused").withArgs(f.guardian.address);
      expect(await f.vault.paused()).to.equal(true);
      expect((await f.vault.paymentState()).isPaused).to.equal(true);
    });

    it("the admin withdraws native currency sent to the vault", async () => {
      const f = await loadFixture(deployFixture);
      await f.stranger.sendTransaction({ to: await f.vault.getAddress(), value: 1_000n });
      await expect(asAdmin(f, f.vault, "withdrawNative", [f.other.address, 1_000n]))
        .to.emit(f.vault, "NativeWithdrawn")
        .withArgs(f.other.address, 1_000n);
      expect(await ethers.provider.getBalance(await f.vault.getAddress())).to.equal(0n);
      await expect(asAdmin(f, f.vault, "withdrawNative", [f.other.address, 1n]))
        .to.be.revertedWithCustomError(f.vault, "NativeTransferFailed")
        .withArgs(f.other.address, 1n);
      await expect(asAdmin(f, f.vault, "withdrawNative", [ZeroAddress, 0])).to.be.revertedWithCustomError(f.vault, "ZeroAddress");
    });
  });
});
