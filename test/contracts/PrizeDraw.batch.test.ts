/**
 * Drawings at scale: commitAndRequest commits a batch of drawings, of one campaign or many, under ONE
 * randomness request; the callback reveals every member and settles positions from a shared gas budget; payoutMany
 * pays several settled drawings at once. Every test runs against the SDK's MockEntropy and against TestEntropyV2
 * (the real Entropy v2 rules: fees by gas, callbacks capped at the requested gas, retries); the exact-gas test
 * needs the real rules and runs against TestEntropyV2 only.
 *
 * Expectations are computed without the contract: the user contribution with ethers (AbiCoder for each drawing's,
 * solidityPackedKeccak256 for the batch's), the prizes with the service's TypeScript draw library
 * (api/src/draw computePrizes), the gas shares with batchShareOf (helpers.ts).
 */
import { expect } from "chai";
import { ethers, network } from "hardhat";
import { loadFixture, setBalance } from "@nomicfoundation/hardhat-network-helpers";
import { concat, encodeBytes32String, id, keccak256, solidityPackedKeccak256, type ContractTransactionReceipt, type Log } from "ethers";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import type { MockEntropy, TestEntropyV2, TestStablecoin } from "../../typechain-types";
import {
  CALLBACK_BASE_GAS,
  CALLBACK_GAS_LIMIT,
  DEFAULT_TABLE,
  DRAWING_CALLBACK_GAS,
  MAX_BATCH,
  MAX_FEE,
  POSITION_GAS,
  STATUS,
  UNITS_PER_CENT,
  asAdmin,
  batchShareOf,
  campaignIdOf,
  commitArgs,
  deployPrizeDraw,
  findEvents,
  maxBatchOf,
  sendBatch,
  sendCommit,
  slotOf,
  userRandomNumberOf,
  withoutFee,
  blockHashOf,
  drawValueOf,
  revealedDrawValue,
  worstCaseOf,
  findVaultEvents,
  type CommitArgs,
  type CommitOverrides,
} from "./helpers";
import { combineRandomValues, deployTestEntropy } from "./entropyV2";

// ------------------------------------------------------------------ the TypeScript draw library

/** The parts of api/src/draw used here (an ES module of the service, loaded through tsx). */
type LibTable = { id: string; version: number; denominator: number; tiers: { amountCents: number; weight: number }[] };
type LibPrize = { position: number; randomValue: string; roll: number; tier: number; amountCents: number; held: boolean };
type DrawLibrary = {
  validatePrizeTable(input: { id: string; version: number; tiers: { amountCents: number; weight: number }[] }): LibTable;
  computePrizes(p: {
    entropy: string;
    campaignId: string;
    number: bigint;
    table: LibTable;
    count: number;
    largePrizeThresholdCents: number;
  }): LibPrize[];
};

// A real dynamic import (ts-node compiles `import()` to require(), which cannot load the service's ES modules).
const nativeImport = new Function("specifier", "return import(specifier)") as (specifier: string) => Promise<unknown>;

async function loadDrawLibrary(): Promise<DrawLibrary> {
  const { tsImport } = (await nativeImport("tsx/esm/api")) as { tsImport: (specifier: string, parent: string) => Promise<unknown> };
  return (await tsImport(pathToFileURL(join(__dirname, "../../api/src/draw/index.ts")).href, __filename)) as DrawLibrary;
}

// ------------------------------------------------------------------ fixtures

const ENTROPY_FEE = 1_000n;
const PYTH_FEE = 7n;

/** Tables published besides the default one: a likely top prize (the top-prize-once rule shows) and a flat one. */
const TABLES = {
  default: DEFAULT_TABLE,
  likelyTop: { id: encodeBytes32String("likely-top"), amounts: [5_000n, 100n], weights: [9n, 1n] },
  flat: { id: encodeBytes32String("flat"), amounts: [300n, 200n, 100n], weights: [1n, 1n, 1n] },
};
type TableName = keyof typeof TABLES;

/**
 * Campaigns of the fixture, registered after two others so their indexes (3..6) are not 1, 2, 3, 4: a batch lists
 * its members by index. Each pays its own wallet and has its own large-prize threshold.
 */
const CAMPAIGNS = [
  { slug: "alpha", table: "default" as TableName, threshold: 50_000n },
  { slug: "beta", table: "likelyTop" as TableName, threshold: 1_000n }, // its top prize (5,000) is held
  { slug: "gamma", table: "flat" as TableName, threshold: 50_000n },
  { slug: "delta", table: "default" as TableName, threshold: 5_000n },
];
const [A, B, C, D] = CAMPAIGNS.map((c) => campaignIdOf(c.slug));
const CAMPAIGN_OF = new Map(CAMPAIGNS.map((c) => [campaignIdOf(c.slug), c]));

type ProviderKind = "MockEntropy" | "TestEntropyV2";

async function batchFixture(kind: ProviderKind) {
  const signers = await ethers.getSigners();
  const [admin, operator, guardian, stranger] = signers;
  const wallets = signers.slice(10, 10 + CAMPAIGNS.length);
  const token = (await (await ethers.getContractFactory("TestStablecoin")).deploy()) as unknown as TestStablecoin;

  let entropy: MockEntropy | TestEntropyV2;
  let providerAddress: string;
  /** Reveals `sequence` (the provider's part is fixed by the provider: a label for MockEntropy, its hash chain for v2). */
  let revealAs: (sequence: bigint, user: string, opts?: { gasLimit?: number }) => Promise<{ receipt: ContractTransactionReceipt; entropyValue: string }>;
  if (kind === "MockEntropy") {
    const provider = signers[9];
    const mock = (await (await ethers.getContractFactory("MockEntropy")).deploy(provider.address)) as unknown as MockEntropy;
    entropy = mock;
    providerAddress = provider.address;
    revealAs = async (sequence) => {
      const entropyValue = id(`batch-reveal-${sequence}`);
      const receipt = (await (await mock.connect(stranger).mockReveal(provider.address, sequence, entropyValue)).wait())!;
      return { receipt, entropyValue };
    };
  } else {
    const t = await deployTestEntropy(signers[8], { feeInWei: ENTROPY_FEE, pythFeeInWei: PYTH_FEE, defaultGasLimit: 100_000 });
    entropy = t.entropy;
    providerAddress = t.providerAddress;
    revealAs = async (sequence, user, opts = {}) => {
      const receipt = (await (await t.reveal(sequence, user, { from: stranger, gasLimit: opts.gasLimit })).wait())!;
      return { receipt, entropyValue: combineRandomValues(user, t.revelation(sequence)) };
    };
  }

  const { draw, vault, manager } = await deployPrizeDraw({ entropy: await entropy.getAddress(), token, admin, operator, guardian });
  /**
   * Reveals `sequence`; `random` is the value the drawings follow from: Entropy's value mixed with the hash of the
   * block Entropy recorded the request in (read before the reveal), checked against every EntropyRevealed of it
   * (none when the callback failed).
   */
  const revealWith = async (sequence: bigint, user: string, opts: { gasLimit?: number } = {}) => {
    const requestBlock = (await entropy.getRequestV2(providerAddress, sequence)).blockNumber;
    const { receipt, entropyValue } = await revealAs(sequence, user, opts);
    const random = drawValueOf(entropyValue, await blockHashOf(requestBlock));
    if (findEvents({ draw }, receipt, "EntropyRevealed").length > 0) {
      expect(await revealedDrawValue({ draw }, receipt, entropyValue, requestBlock)).to.equal(random);
    }
    return { receipt, entropyValue, random, requestBlockHash: await blockHashOf(requestBlock) };
  };
  for (const name of ["likelyTop", "flat"] as const) {
    await draw.connect(operator).publishPrizeTable(TABLES[name].id, 1, TABLES[name].amounts, TABLES[name].weights);
  }
  for (const filler of ["filler-1", "filler-2"]) await draw.connect(operator).registerCampaign(campaignIdOf(filler), wallets[0].address, 50_000, 0, 0);
  for (const [i, c] of CAMPAIGNS.entries()) {
    await draw.connect(operator).registerCampaign(campaignIdOf(c.slug), wallets[i].address, c.threshold, 0, 0);
  }
  return { kind, admin, operator, guardian, stranger, wallets, token, entropy, providerAddress, draw, vault, manager, revealWith };
}
type F = Awaited<ReturnType<typeof batchFixture>>;

const mockFixture = () => batchFixture("MockEntropy");
const v2Fixture = () => batchFixture("TestEntropyV2");

// ------------------------------------------------------------------ helpers

/** Drawing `num` of a campaign with `winners` winners, under the campaign's table, slot and list of its own. */
function drawing(campaignId: string, num: number, winners: number, overrides: CommitOverrides = {}): CommitArgs {
  const c = CAMPAIGN_OF.get(campaignId)!;
  return commitArgs(campaignId, num, {
    slot: slotOf(`drw_${c.slug}_${num}`),
    listCommitment: keccak256(concat([campaignId, ethers.toBeHex(num, 32)])),
    winnersExpected: winners,
    tableId: TABLES[c.table].id,
    ...overrides,
  });
}

/** Each drawing's own user contribution (DrawMath.userRandomNumber), with AbiCoder. */
function contributionOf(c: CommitArgs): string {
  return userRandomNumberOf(c.campaignId as string, c.number as bigint, c.slot as string, c.listCommitment as string);
}

/** The request's user contribution for a batch: a batch of one its drawing's, a larger one keccak256 of them all. */
function batchContributionOf(batch: readonly CommitArgs[]): string {
  const contributions = batch.map(contributionOf);
  if (contributions.length === 1) return contributions[0];
  return solidityPackedKeccak256(contributions.map(() => "bytes32"), contributions);
}

function entropyEvents(f: F, receipt: { logs: readonly Log[] }, name: string) {
  const target = (f.entropy.target as string).toLowerCase();
  return receipt.logs
    .filter((log) => log.address.toLowerCase() === target)
    .map((log) => f.entropy.interface.parseLog(log))
    .filter((parsed) => parsed?.name === name)
    .map((parsed) => parsed!.args);
}

/** Commits a batch (as the operator, the fee paid from MAX_FEE and the rest refunded); returns what it requested. */
async function commitBatch(f: F, batch: readonly CommitArgs[]) {
  const entropyBefore = await ethers.provider.getBalance(f.entropy.target);
  const receipt = (await (await sendBatch(f, batch)).wait())!;
  const requests = entropyEvents(f, receipt, "Requested");
  expect(requests, "one randomness request per batch").to.have.length(1);
  const fee = (await ethers.provider.getBalance(f.entropy.target)) - entropyBefore;
  return { receipt, sequence: requests[0].sequenceNumber as bigint, user: requests[0].userContribution as string, gasLimit: Number(requests[0].gasLimit), fee };
}

/** The prizes the TypeScript library computes for a drawing of the fixture's campaigns. */
function libraryPrizes(lib: DrawLibrary, random: string, campaignId: string, num: number, count: number, threshold?: bigint): LibPrize[] {
  const c = CAMPAIGN_OF.get(campaignId)!;
  const t = TABLES[c.table];
  const table = lib.validatePrizeTable({
    id: ethers.decodeBytes32String(t.id),
    version: 1,
    tiers: t.amounts.map((amount, i) => ({ amountCents: Number(amount), weight: Number(t.weights[i]) })),
  });
  return lib.computePrizes({ entropy: random, campaignId, number: BigInt(num), table, count, largePrizeThresholdCents: Number(threshold ?? c.threshold) });
}

/** A drawing's PrizeAwarded events of some receipts, in the library's shape. */
function awardedOf(f: F, receipts: { logs: readonly Log[] }[], campaignId: string, num: number): LibPrize[] {
  return receipts
    .flatMap((r) => findEvents(f, r, "PrizeAwarded"))
    .filter((e) => e.args.campaignId === campaignId && Number(e.args.number) === num)
    .map((e) => ({
      position: Number(e.args.position),
      randomValue: e.args.randomValue as string,
      roll: Number(e.args.roll),
      tier: Number(e.args.tier),
      amountCents: Number(e.args.amountCents),
      held: e.args.held as boolean,
    }));
}

async function providerSequence(f: F): Promise<bigint> {
  return (await f.entropy.getProviderInfoV2(f.providerAddress)).sequenceNumber;
}

/** A callback for `sequence` sent as the Entropy contract (both providers clear a request once its callback ran). */
async function callbackAgain(f: F, sequence: bigint, value: string) {
  const entropyAddress = await f.entropy.getAddress();
  await network.provider.request({ method: "hardhat_impersonateAccount", params: [entropyAddress] });
  await setBalance(entropyAddress, 10n ** 18n);
  const asEntropy = await ethers.getSigner(entropyAddress);
  try {
    return await (await f.draw.connect(asEntropy)._entropyCallback(sequence, f.providerAddress, value)).wait();
  } finally {
    await network.provider.request({ method: "hardhat_stopImpersonatingAccount", params: [entropyAddress] });
  }
}

function revealedOf(f: F, receipt: ContractTransactionReceipt) {
  const revealed = entropyEvents(f, receipt, "Revealed");
  expect(revealed).to.have.length(1);
  return revealed[0];
}

// ------------------------------------------------------------------ tests

describe("PrizeDraw batches of drawings", function () {
  let lib: DrawLibrary;
  before(async function () {
    lib = await loadDrawLibrary();
  });

  it("shares the callback gas with the contract's constants", async () => {
    const f = await loadFixture(mockFixture);
    expect(await f.draw.CALLBACK_BASE_GAS()).to.equal(BigInt(CALLBACK_BASE_GAS));
    expect(await f.draw.DRAWING_CALLBACK_GAS()).to.equal(BigInt(DRAWING_CALLBACK_GAS));
    expect(await f.draw.POSITION_GAS()).to.equal(BigInt(POSITION_GAS));
    expect(await f.draw.MAX_BATCH()).to.equal(BigInt(MAX_BATCH));
    // The model the tests check against, on a few numbers: a limit takes one drawing for CALLBACK_BASE_GAS and
    // one more for each whole DRAWING_CALLBACK_GAS above it (a gas short of one is one drawing fewer)...
    expect(maxBatchOf(CALLBACK_BASE_GAS)).to.equal(1);
    expect(maxBatchOf(CALLBACK_BASE_GAS + 3 * DRAWING_CALLBACK_GAS)).to.equal(4);
    expect(maxBatchOf(CALLBACK_BASE_GAS + 3 * DRAWING_CALLBACK_GAS - 1)).to.equal(3);
    // ... at most MAX_BATCH (the highest limit would take more).
    expect(1 + Math.floor((15_000_000 - CALLBACK_BASE_GAS) / DRAWING_CALLBACK_GAS)).to.be.greaterThan(MAX_BATCH);
    expect(maxBatchOf(15_000_000)).to.equal(MAX_BATCH);
    // Positions go in batch order until the budget runs out (5 positions' gas for 3 + 5 + 6 + 4 prizes)...
    const tight = CALLBACK_BASE_GAS + 3 * DRAWING_CALLBACK_GAS + 5 * POSITION_GAS;
    expect(batchShareOf(tight, [3, 5, 6, 4])).to.deep.equal({ positions: [3, 2, 0, 0], requestGas: tight });
    expect(batchShareOf(tight + POSITION_GAS - 1, [3, 5, 6, 4])).to.deep.equal({ positions: [3, 2, 0, 0], requestGas: tight });
    // ... and a batch whose prizes all fit asks for only the gas it needs.
    expect(batchShareOf(2_000_000, [3, 2])).to.deep.equal({
      positions: [3, 2],
      requestGas: CALLBACK_BASE_GAS + DRAWING_CALLBACK_GAS + 5 * POSITION_GAS,
    });
  });

  for (const [kind, fixture] of [
    ["MockEntropy", mockFixture],
    ["TestEntropyV2", v2Fixture],
  ] as const) {
    describe(`against ${kind}`, () => {
      it("one request for a batch of drawings of three campaigns and two consecutive numbers of one: same sequence, the batch's user contribution, every prize as the TS library computes", async () => {
        const f = await loadFixture(fixture);

        // A batch of one first: its request's user contribution is the drawing's own.
        const single = drawing(A, 1, 3);
        const one = await commitBatch(f, [single]);
        expect(one.user).to.equal(contributionOf(single));
        expect(findEvents(f, one.receipt, "EntropyRequested").map((e) => [...e.args])).to.deep.equal([
          [A, 1n, f.providerAddress, one.sequence, one.fee, contributionOf(single), 0n, 1n],
        ]);

        // Three drawings of three campaigns, then numbers 2 and 3 of the first campaign.
        const batch = [drawing(B, 1, 4), drawing(C, 1, 2), drawing(D, 1, 1), drawing(A, 2, 3), drawing(A, 3, 5)];
        const counts = batch.map((c) => Number(c.winnersExpected));
        const { receipt, sequence, user, gasLimit, fee } = await commitBatch(f, batch);
        expect(sequence).to.equal(one.sequence + 1n);
        const contributions = batch.map(contributionOf);
        const expectedUser = solidityPackedKeccak256(["bytes32", "bytes32", "bytes32", "bytes32", "bytes32"], contributions);
        expect(expectedUser).to.equal(keccak256(concat(contributions)));
        expect(user).to.equal(expectedUser);
        expect(user).to.equal(batchContributionOf(batch));
        for (const c of contributions) expect(user).to.not.equal(c);

        // Every drawing gets the request's sequence, fee and user contribution, and its place in the batch.
        const requested = findEvents(f, receipt, "EntropyRequested").map((e) => [...e.args]);
        expect(requested).to.deep.equal(
          batch.map((c, i) => [c.campaignId, BigInt(c.number), f.providerAddress, sequence, fee, user, BigInt(i), 5n]),
        );
        // The request asks for the gas the batch needs (the default limit has room for every position).
        const share = batchShareOf(CALLBACK_GAS_LIMIT, counts);
        expect(share.positions).to.deep.equal(counts);
        if (kind === "MockEntropy") {
          expect(gasLimit).to.equal(share.requestGas);
          expect(fee).to.equal(0n);
        } else {
          expect(gasLimit).to.equal(Math.ceil(Math.max(share.requestGas, 100_000) / 10_000) * 10_000);
          expect(fee).to.equal(await f.entropy["getFeeV2(address,uint32)"](f.providerAddress, share.requestGas));
          expect(fee).to.be.greaterThan(0n);
        }
        for (const [i, c] of batch.entries()) {
          const d = await f.draw.getDrawing(c.campaignId, c.number);
          expect([d.status, d.sequence, d.callbackPositions, d.prizeCount]).to.deep.equal([STATUS.Requested, sequence, BigInt(counts[i]), BigInt(counts[i])]);
        }
        expect((await f.draw.getCampaign(A)).lastNumber).to.equal(3n);

        // One reveal for the batch; the single drawing's request is its own.
        const first = await f.revealWith(one.sequence, one.user);
        expect(findEvents(f, first.receipt, "EntropyRevealed")).to.have.length(1);
        const { receipt: revealed, random, entropyValue, requestBlockHash } = await f.revealWith(sequence, user);
        if (kind === "TestEntropyV2") expect(revealedOf(f, revealed).callbackFailed).to.equal(false);
        // The batch's one value: Entropy's mixed with the hash of the commit's block.
        expect(requestBlockHash).to.equal((await ethers.provider.getBlock(receipt.blockNumber))!.hash);
        expect(findEvents(f, revealed, "EntropyRevealed").map((e) => [...e.args])).to.deep.equal(
          batch.map((c) => [c.campaignId, BigInt(c.number), f.providerAddress, sequence, entropyValue, requestBlockHash, random]),
        );
        expect(findEvents(f, revealed, "DrawingSettled")).to.have.length(5);
        for (const [i, c] of batch.entries()) {
          const num = Number(c.number);
          const d = await f.draw.getDrawing(c.campaignId, num);
          expect([d.status, d.randomValue, d.settledCount]).to.deep.equal([STATUS.Settled, random, BigInt(counts[i])]);
          const expected = libraryPrizes(lib, random, c.campaignId as string, num, counts[i]);
          expect(awardedOf(f, [revealed], c.campaignId as string, num)).to.deep.equal(expected);
          expect(d.payoutCents).to.equal(BigInt(expected.filter((p) => !p.held).reduce((a, p) => a + p.amountCents, 0)));
        }
        // The same random value, yet every drawing rolls its own: numbers 2 and 3 of one campaign differ too.
        const firstRolls = batch.map((c) => awardedOf(f, [revealed], c.campaignId as string, Number(c.number))[0].randomValue);
        expect(new Set(firstRolls).size).to.equal(5);
        // The single drawing kept its own random value.
        expect((await f.draw.getDrawing(A, 1)).randomValue).to.equal(first.random);
        expect(first.random).to.not.equal(random);
      });

      it("shares the callback's positions in batch order: a budget that runs out mid-batch leaves later drawings partly or not settled, and settle() finishes them", async () => {
        const f = await loadFixture(fixture);
        // Room for 4 drawings and 10 positions: 3 + 5, then 2 of 6, then none of 4.
        const limit = CALLBACK_BASE_GAS + 3 * DRAWING_CALLBACK_GAS + 10 * POSITION_GAS;
        await asAdmin(f, f.draw, "setCallbackGasLimit", [limit]);
        const batch = [drawing(A, 1, 3), drawing(B, 1, 5), drawing(C, 1, 6), drawing(D, 1, 4)];
        const counts = batch.map((c) => Number(c.winnersExpected));
        const share = batchShareOf(limit, counts);
        expect(share.positions).to.deep.equal([3, 5, 2, 0]);
        const { sequence, user, gasLimit } = await commitBatch(f, batch);
        expect(gasLimit).to.equal(limit); // the whole budget is used, exactly a multiple of 10k
        for (const [i, c] of batch.entries()) {
          expect((await f.draw.getDrawing(c.campaignId, c.number)).callbackPositions).to.equal(BigInt(share.positions[i]));
        }

        // The callback (under TestEntropyV2 capped at exactly the limit) settles exactly those positions.
        const { receipt, random } = await f.revealWith(sequence, user);
        if (kind === "TestEntropyV2") {
          const revealed = revealedOf(f, receipt);
          expect(revealed.callbackFailed).to.equal(false);
          expect(revealed.callbackGasUsed).to.be.lessThanOrEqual(BigInt(limit));
        }
        expect(findEvents(f, receipt, "EntropyRevealed")).to.have.length(4);
        const settledIn = batch.map((c) => awardedOf(f, [receipt], c.campaignId as string, Number(c.number)).length);
        expect(settledIn).to.deep.equal(share.positions);
        const states = [];
        for (const c of batch) {
          const d = await f.draw.getDrawing(c.campaignId, c.number);
          states.push([d.status, d.settledCount, d.randomValue]);
        }
        expect(states).to.deep.equal([
          [STATUS.Settled, 3n, random],
          [STATUS.Settled, 5n, random],
          [STATUS.Revealed, 2n, random],
          [STATUS.Revealed, 0n, random],
        ]);
        await expect(f.draw.payout(C, 1)).to.be.revertedWithCustomError(f.draw, "NotSettled").withArgs(C, 1);
        await expect(f.draw.payoutMany([{ campaignId: D, number: 1 }])).to.be.revertedWithCustomError(f.draw, "NotSettled").withArgs(D, 1);

        // Anyone finishes them; every prize, from the callback or from settle(), is the library's.
        const rest = [];
        for (const c of [batch[2], batch[3]]) rest.push((await (await f.draw.connect(f.stranger).settle(c.campaignId, c.number, 100)).wait())!);
        for (const [i, c] of batch.entries()) {
          const num = Number(c.number);
          expect(awardedOf(f, [receipt, ...rest], c.campaignId as string, num)).to.deep.equal(libraryPrizes(lib, random, c.campaignId as string, num, counts[i]));
          expect((await f.draw.getDrawing(c.campaignId, num)).status).to.equal(STATUS.Settled);
        }
      });

      it("refuses an empty batch and one drawing more than the gas limit or MAX_BATCH takes", async () => {
        const f = await loadFixture(fixture);
        await expect(f.draw.connect(f.operator).commitAndRequest([], MAX_FEE, { value: MAX_FEE })).to.be.revertedWithCustomError(f.draw, "EmptyBatch");

        // At the default 2,000,000 gas: 1 + (2,000,000 - CALLBACK_BASE_GAS) / DRAWING_CALLBACK_GAS drawings.
        const maxSize = maxBatchOf(CALLBACK_GAS_LIMIT);
        expect(maxSize).to.equal(1 + Math.floor((CALLBACK_GAS_LIMIT - CALLBACK_BASE_GAS) / DRAWING_CALLBACK_GAS));
        expect(maxSize).to.be.lessThan(MAX_BATCH);
        const many = Array.from({ length: maxSize + 1 }, (_, i) => drawing(D, i + 1, 1));
        await expect(sendBatch(f, many)).to.be.revertedWithCustomError(f.draw, "BatchTooLarge").withArgs(maxSize + 1, maxSize);
        // Exactly the largest batch goes through; the gas left for its positions settles the first few drawings
        // (1 winner each) and leaves the rest Revealed.
        const largest = many.slice(0, maxSize);
        const settledFirst = Math.floor((CALLBACK_GAS_LIMIT - CALLBACK_BASE_GAS - (maxSize - 1) * DRAWING_CALLBACK_GAS) / POSITION_GAS);
        expect(settledFirst).to.be.greaterThan(0).and.lessThan(maxSize);
        const share = batchShareOf(CALLBACK_GAS_LIMIT, largest.map(() => 1));
        expect(share.positions).to.deep.equal([...Array(settledFirst).fill(1), ...Array(maxSize - settledFirst).fill(0)]);
        const { sequence, user } = await commitBatch(f, largest);
        expect((await f.draw.getCampaign(D)).lastNumber).to.equal(BigInt(maxSize));
        const { receipt, random } = await f.revealWith(sequence, user);
        if (kind === "TestEntropyV2") expect(revealedOf(f, receipt).callbackFailed).to.equal(false);
        expect(findEvents(f, receipt, "EntropyRevealed")).to.have.length(maxSize);
        expect(findEvents(f, receipt, "DrawingSettled").map((e) => Number(e.args.number))).to.deep.equal(
          Array.from({ length: settledFirst }, (_, i) => i + 1),
        );
        const last = await f.draw.getDrawing(D, maxSize);
        expect([last.status, last.randomValue, last.settledCount]).to.deep.equal([STATUS.Revealed, random, 0n]);

        // A lower limit takes fewer drawings, a higher one more, up to MAX_BATCH.
        const lowLimit = 100_000; // MIN_CALLBACK_GAS_LIMIT
        const lowSize = maxBatchOf(lowLimit);
        expect(lowSize).to.be.lessThan(maxSize);
        await asAdmin(f, f.draw, "setCallbackGasLimit", [lowLimit]);
        await expect(sendBatch(f, Array.from({ length: lowSize + 1 }, (_, i) => drawing(A, i + 1, 1))))
          .to.be.revertedWithCustomError(f.draw, "BatchTooLarge")
          .withArgs(lowSize + 1, lowSize);
        await asAdmin(f, f.draw, "setCallbackGasLimit", [15_000_000]);
        expect(maxBatchOf(15_000_000)).to.equal(MAX_BATCH);
        const tooMany = Array.from({ length: MAX_BATCH + 1 }, (_, i) => drawing(A, i + 1, 1));
        await expect(sendBatch(f, tooMany)).to.be.revertedWithCustomError(f.draw, "BatchTooLarge").withArgs(MAX_BATCH + 1, MAX_BATCH);
        expect((await f.draw.getCampaign(A)).lastNumber).to.equal(0n);
      });

      it("a batch whose second drawing is invalid reverts entirely and leaves nothing committed", async () => {
        const f = await loadFixture(fixture);
        const used = drawing(B, 1, 2);
        await sendCommit(f, used);
        const sequenceBefore = await providerSequence(f);
        const first = drawing(A, 1, 3);
        const cases: [CommitArgs[], string, unknown[]][] = [
          // A number out of order: A#1 then A#3.
          [[first, drawing(A, 3, 2)], "NumberOutOfSequence", [A, 2, 3]],
          // Another campaign's wrong number.
          [[first, drawing(C, 2, 2)], "NumberOutOfSequence", [C, 1, 2]],
          // A used slot: B's slot of drawing 1 again under B#2.
          [[first, drawing(B, 2, 2, { slot: used.slot as string })], "SlotAlreadyUsed", [B, used.slot, 1]],
          // The first member's slot again, in the same batch.
          [[first, drawing(A, 2, 2, { slot: first.slot as string })], "SlotAlreadyUsed", [A, first.slot, 1]],
          // A draw time not later than the member before it.
          [[first, drawing(A, 2, 2, { drawAt: BigInt(first.drawAt) })], "DrawTimeNotLater", [A, first.drawAt, first.drawAt]],
        ];
        for (const [batch, error, args] of cases) {
          await expect(sendBatch(f, batch), error).to.be.revertedWithCustomError(f.draw, error).withArgs(...args);
          // Nothing of the batch is on the record: not the first drawing, its slot, its number, nor a request.
          await expect(f.draw.getDrawing(A, 1)).to.be.revertedWithCustomError(f.draw, "DrawingNotFound").withArgs(A, 1);
          expect((await f.draw.getCampaign(A)).lastNumber).to.equal(0n);
          expect((await f.draw.getCampaignTerms(A)).lastDrawAt).to.equal(0n);
          expect(await f.draw.numberOfSlot(A, first.slot as string)).to.equal(0n);
          expect((await f.draw.getCampaign(B)).lastNumber).to.equal(1n);
          expect(await providerSequence(f)).to.equal(sequenceBefore);
        }
        // The corrected batch goes through under the next sequence number, both members in it.
        const fixed = [first, drawing(B, 2, 2)];
        const { sequence, user } = await commitBatch(f, fixed);
        expect(sequence).to.equal(sequenceBefore);
        expect(user).to.equal(batchContributionOf(fixed));
        expect((await f.draw.getDrawing(A, 1)).sequence).to.equal(sequence);
        expect((await f.draw.getDrawing(B, 2)).sequence).to.equal(sequence);
      });

      it("ignores a repeated callback and one for an unknown request, without touching the batch", async () => {
        const f = await loadFixture(fixture);
        // The last drawing's callback share runs out, so it stays Revealed with nothing settled.
        await asAdmin(f, f.draw, "setCallbackGasLimit", [CALLBACK_BASE_GAS + 2 * DRAWING_CALLBACK_GAS + 5 * POSITION_GAS]);
        const batch = [drawing(A, 1, 3), drawing(B, 1, 2), drawing(C, 1, 2)];
        const { sequence, user } = await commitBatch(f, batch);
        const { random } = await f.revealWith(sequence, user);
        const snapshot = async () => {
          const out = [];
          for (const c of batch) {
            const d = await f.draw.getDrawing(c.campaignId, c.number);
            out.push([d.status, d.randomValue, d.settledCount, d.payoutCents]);
          }
          return out;
        };
        const before = await snapshot();
        expect(before.map((s) => s[0])).to.deep.equal([STATUS.Settled, STATUS.Settled, STATUS.Revealed]);
        expect(before.every((s) => s[1] === random)).to.equal(true);
        const owed = (await f.vault.balances()).owedCents;

        const other = id("another value");
        for (const seq of [sequence, sequence + 100n]) {
          const receipt = (await callbackAgain(f, seq, other))!;
          expect(findEvents(f, receipt, "EntropyCallbackIgnored").map((e) => [...e.args])).to.deep.equal([[f.providerAddress, seq, other]]);
          expect(findEvents(f, receipt, "EntropyRevealed")).to.have.length(0);
          expect(findEvents(f, receipt, "PrizeAwarded")).to.have.length(0);
        }
        // Entropy itself cleared the request after its callback: no second reveal through it.
        if (kind === "TestEntropyV2") await expect(f.revealWith(sequence, user)).to.be.revertedWithCustomError(f.entropy, "NoSuchRequest");
        else await expect(f.revealWith(sequence, user)).to.be.revertedWith("Request not found");
        expect(await snapshot()).to.deep.equal(before);
        expect((await f.vault.balances()).owedCents).to.equal(owed);
      });

      it("payoutMany pays settled drawings of several campaigns, each to its wallet, and reverts entirely if one is not settled or already paid", async () => {
        const f = await loadFixture(fixture);
        const batch = [drawing(A, 1, 4), drawing(B, 1, 3), drawing(C, 1, 3), drawing(A, 2, 2)];
        const { sequence, user } = await commitBatch(f, batch);
        await f.revealWith(sequence, user);
        const pending = await commitBatch(f, [drawing(D, 1, 2)]); // committed, not revealed
        const refs = batch.map((c) => ({ campaignId: c.campaignId as string, number: BigInt(c.number) }));
        const cents: bigint[] = [];
        /** What each payout releases besides its payment: the part of its worst case the draw did not award. */
        const releases: bigint[] = [];
        for (const r of refs) {
          const d = await f.draw.getDrawing(r.campaignId, r.number);
          expect(d.status).to.equal(STATUS.Settled);
          cents.push(d.payoutCents);
          const campaign = CAMPAIGN_OF.get(r.campaignId)!;
          releases.push(worstCaseOf(TABLES[campaign.table].amounts, campaign.threshold, d.prizeCount).totalCents - d.payoutCents - d.heldCents);
        }
        expect(cents.every((c) => c > 0n)).to.equal(true);
        const [wA, wB, wC, wD] = f.wallets;

        // One drawing not settled (D#1, last or first): nothing is paid.
        for (const list of [[...refs, { campaignId: D, number: 1n }], [{ campaignId: D, number: 1n }, ...refs]]) {
          await expect(f.draw.connect(f.stranger).payoutMany(list)).to.be.revertedWithCustomError(f.draw, "NotSettled").withArgs(D, 1);
        }
        await expect(f.draw.connect(f.stranger).payoutMany([refs[0], { campaignId: A, number: 9n }]))
          .to.be.revertedWithCustomError(f.draw, "DrawingNotFound")
          .withArgs(A, 9);
        for (const r of refs) expect((await f.draw.getDrawing(r.campaignId, r.number)).status).to.equal(STATUS.Settled);

        // Anyone pays them all at once, each drawing to the wallet of its commit.
        const owedBefore = (await f.vault.balances()).owedCents;
        const tx = f.draw.connect(f.stranger).payoutMany(refs);
        await expect(tx).to.changeTokenBalances(
          f.token,
          [wA, wB, wC, wD, f.vault],
          [
            (cents[0] + cents[3]) * UNITS_PER_CENT,
            cents[1] * UNITS_PER_CENT,
            cents[2] * UNITS_PER_CENT,
            0n,
            -(cents[0] + cents[1] + cents[2] + cents[3]) * UNITS_PER_CENT,
          ],
        );
        const paid = findEvents(f, (await (await tx).wait())!, "DrawingPaid").map((e) => [...e.args]);
        expect(paid).to.deep.equal(
          refs.map((r, i) => [r.campaignId, r.number, f.wallets[[A, B, C].indexOf(r.campaignId)].address, cents[i], cents[i] * UNITS_PER_CENT]),
        );
        for (const r of refs) expect((await f.draw.getDrawing(r.campaignId, r.number)).status).to.equal(STATUS.Paid);
        // Each payout releases what its draw did not award (an event when there is some): what stays owed is their
        // held prizes (and D#1's reserve).
        const released = findVaultEvents(f, (await (await tx).wait())!, "OwedChanged").map((e) => e.args.releasedCents as bigint);
        expect(released).to.deep.equal(releases.filter((r) => r !== 0n));
        const sum = (values: readonly bigint[]) => values.reduce((a, c) => a + c, 0n);
        expect((await f.vault.balances()).owedCents).to.equal(owedBefore - sum(cents) - sum(releases));

        // One already paid (or the same drawing twice): the whole call reverts, the other one stays unpaid.
        await f.revealWith(pending.sequence, pending.user);
        const dRef = { campaignId: D, number: 1n };
        await expect(f.draw.payoutMany([dRef, refs[1]])).to.be.revertedWithCustomError(f.draw, "AlreadyPaid").withArgs(B, 1);
        await expect(f.draw.payoutMany([dRef, dRef])).to.be.revertedWithCustomError(f.draw, "AlreadyPaid").withArgs(D, 1);
        expect((await f.draw.getDrawing(D, 1)).status).to.equal(STATUS.Settled);
        await expect(f.draw.payoutMany([dRef])).to.emit(f.draw, "DrawingPaid");
        // An empty list pays nothing.
        await expect(f.draw.payoutMany([])).to.not.emit(f.draw, "DrawingPaid");
      });

      it("only the operator commits a batch", async () => {
        const f = await loadFixture(fixture);
        const batch = [drawing(A, 1, 1), drawing(B, 1, 1)].map(withoutFee);
        for (const who of [f.stranger, f.admin, f.guardian] as HardhatEthersSigner[]) {
          await expect(f.draw.connect(who).commitAndRequest(batch, MAX_FEE, { value: MAX_FEE }))
            .to.be.revertedWithCustomError(f.draw, "AccessManagedUnauthorized")
            .withArgs(who.address);
        }
        expect((await f.draw.getCampaign(A)).lastNumber).to.equal(0n);
        await sendBatch(f, [drawing(A, 1, 1), drawing(B, 1, 1)]);
        expect((await f.draw.getCampaign(B)).lastNumber).to.equal(1n);
      });
    });
  }

  describe("against TestEntropyV2: the batch callback within exactly its gas", () => {
    /**
     * A batch of `size` drawings of `winners` winners each, one campaign each, every drawing settled in the
     * callback, which gets exactly the gas the batch's share documents (from the contract's constants):
     * CALLBACK_BASE_GAS + (size - 1) x DRAWING_CALLBACK_GAS + positions x POSITION_GAS. The provider's cap is that
     * rounded up to 10k (the real rules); TestEntropyV2's shortfall hook takes the rounding off, so the callback
     * gets the share itself. Tables: "default" (the default table, 6 tiers), "shared16" (one 16-tier table whose
     * last tier is nearly always rolled, the longest tier scan, every prize held), "own16" (the same, but a
     * table of its own for every drawing: cold storage for each).
     */
    async function exactShare(size: number, winners: number, tables: "default" | "shared16" | "own16") {
      const f = await loadFixture(v2Fixture);
      const tiers = 16;
      const amounts = Array.from({ length: tiers }, (_, i) => BigInt(tiers - i) * 100n);
      const weights = [...Array(tiers - 1).fill(1n), 2_147_483_647n - BigInt(tiers - 1)];
      const batch: CommitArgs[] = [];
      for (let i = 0; i < size; i++) {
        const campaignId = campaignIdOf(`exact-${i}`);
        let tableId = DEFAULT_TABLE.id;
        if (tables !== "default") {
          tableId = encodeBytes32String(tables === "own16" ? `sixteen-${i}` : "sixteen");
          if (tables === "own16" || i === 0) await f.draw.connect(f.operator).publishPrizeTable(tableId, 1, amounts, weights);
        }
        const threshold = tables === "default" ? 50_000 : 1; // 1: every prize held
        await f.draw.connect(f.operator).registerCampaign(campaignId, f.wallets[i % f.wallets.length].address, threshold, 0, 0);
        batch.push(commitArgs(campaignId, 1, { slot: slotOf(`exact_${i}`), winnersExpected: winners, tableId }));
      }
      const [base, perDrawing, perPosition] = (await Promise.all([f.draw.CALLBACK_BASE_GAS(), f.draw.DRAWING_CALLBACK_GAS(), f.draw.POSITION_GAS()])).map(Number);
      const share = base + (size - 1) * perDrawing + size * winners * perPosition;
      expect(batchShareOf(share, batch.map(() => winners))).to.deep.equal({ positions: batch.map(() => winners), requestGas: share });
      await asAdmin(f, f.draw, "setCallbackGasLimit", [share]);
      const { sequence, user } = await commitBatch(f, batch);
      const cap = Number((await f.entropy.getRequestV2(f.providerAddress, sequence)).gasLimit10k) * 10_000;
      expect(cap).to.equal(Math.ceil(share / 10_000) * 10_000);
      await (f.entropy as TestEntropyV2).connect((await ethers.getSigners())[8]).setCallbackGasShortfall(cap - share);
      // Plenty of gas for the transaction: the callback itself gets exactly the share.
      const { receipt, random } = await f.revealWith(sequence, user, { gasLimit: 10_000_000 });
      const revealed = revealedOf(f, receipt);
      expect(revealed.callbackFailed, `the callback of ${size} drawings x ${winners} (${tables}) failed with ${share} gas`).to.equal(false);
      const prizes = findEvents(f, receipt, "PrizeAwarded");
      expect(prizes).to.have.length(size * winners);
      if (tables !== "default") {
        expect(prizes.every((p) => p.args.held === true)).to.equal(true);
        expect(prizes.filter((p) => p.args.tier === 15n).length).to.be.greaterThan((size * winners * 9) / 10);
      }
      expect(findEvents(f, receipt, "DrawingSettled")).to.have.length(size);
      for (const c of batch) {
        const d = await f.draw.getDrawing(c.campaignId, 1);
        expect([d.status, d.randomValue]).to.deep.equal([STATUS.Settled, random]);
      }
      return { share, used: Number(revealed.callbackGasUsed) };
    }

    it("a batch of 10 drawings of 1 winner each (default table) settles with exactly CALLBACK_BASE_GAS + 9 x DRAWING_CALLBACK_GAS + 10 x POSITION_GAS", async () => {
      const { share } = await exactShare(10, 1, "default");
      expect(share).to.equal(CALLBACK_BASE_GAS + 9 * DRAWING_CALLBACK_GAS + 10 * POSITION_GAS);
    });

    // 80: chosen when a commit of 100 first drawings (about 18.5M gas) was above Osaka's per-transaction gas cap
    // (EIP-7825, 2^24); it took about 14.2M once a commit wrote four drawing slots instead of six, about 14.9M once
    // each drawing's worst case was also checked against the vault's limits and reserved, and about 14.4M since the
    // limits are read once per batch and a table keeps its top and largest amounts (bench:gas).
    it("a batch of 80 drawings of 1 winner each (default table) settles with exactly its share", async () => {
      const { share } = await exactShare(80, 1, "default");
      expect(share).to.equal(CALLBACK_BASE_GAS + 79 * DRAWING_CALLBACK_GAS + 80 * POSITION_GAS);
    });

    it("a batch of 40 drawings of 2 winners each sharing a 16-tier table (last tier, every prize held) settles with exactly its share", async () => {
      const { share } = await exactShare(40, 2, "shared16");
      expect(share).to.equal(CALLBACK_BASE_GAS + 39 * DRAWING_CALLBACK_GAS + 80 * POSITION_GAS);
    });

    // The worst case the constants are sized for: a 16-tier table of its own per drawing (cold storage for each),
    // the last tier rolled, every prize held. When measured (commit 1c2149d's contract) the callback of these 10
    // drawings used about 502,800 gas of its 600,000 share: about 48,300 gas for each further drawing with its
    // one position (DRAWING_CALLBACK_GAS + POSITION_GAS is 58,000). The callback does not call the vault (what a
    // drawing did not award is released at its payout); it used about 492,100, and uses about 498,600 since the
    // callback reads the request block's hash, mixes it in and emits both values in EntropyRevealed.
    it("a batch of 10 drawings of 1 winner each, each with a 16-tier table of its own (cold), settles with exactly its share", async () => {
      const { share } = await exactShare(10, 1, "own16");
      expect(share).to.equal(CALLBACK_BASE_GAS + 9 * DRAWING_CALLBACK_GAS + 10 * POSITION_GAS);
    });

    it("a batch given less than its cap fails as a whole, stays Requested, and a retry settles every member", async () => {
      const f = await loadFixture(v2Fixture);
      const batch = [drawing(A, 1, 3), drawing(B, 1, 3), drawing(C, 1, 3)];
      const { sequence, user } = await commitBatch(f, batch);
      const signer = (await ethers.getSigners())[8];
      // The callback gets 20,000 gas less than its cap while the transaction could give it all.
      const cap = Number((await f.entropy.getRequestV2(f.providerAddress, sequence)).gasLimit10k) * 10_000;
      await (f.entropy as TestEntropyV2).connect(signer).setCallbackGasShortfall(cap - 20_000);
      const failed = await f.revealWith(sequence, user, { gasLimit: 5_000_000 });
      expect(revealedOf(f, failed.receipt).callbackFailed).to.equal(true);
      for (const c of batch) expect((await f.draw.getDrawing(c.campaignId, c.number)).status).to.equal(STATUS.Requested);
      await (f.entropy as TestEntropyV2).connect(signer).setCallbackGasShortfall(0);
      const retry = await f.revealWith(sequence, user);
      expect(findEvents(f, retry.receipt, "EntropyRevealed")).to.have.length(3);
      for (const c of batch) {
        const d = await f.draw.getDrawing(c.campaignId, c.number);
        expect([d.status, d.randomValue]).to.deep.equal([STATUS.Settled, failed.random]);
      }
    });
  });
});
