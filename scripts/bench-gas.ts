/**
 * Gas of the PrizeDraw drawing cycle on Hardhat's in-process chain (deterministic), as JSON lines
 * { name, value, unit }. Run with `npm run bench:gas` (also part of `npm run bench`).
 *
 * callback.fixed is the intercept and callback.perWinner the slope of a least-squares line through the
 * callback's own gas for 1, 10 and 100 winners. The callback's own gas is the reveal transaction's gas minus
 * the same MockEntropy reveal without a callback (a request made by an account, which has no code). With the
 * default callback gas limit (2,000,000) the callback settles up to (2,000,000 - CALLBACK_BASE_GAS) / POSITION_GAS
 * = (2,000,000 - 70,000) / 8,000 = 241 positions, so 100 winners settle in it.
 *
 * commitAndRequest is measured paying exactly the quoted fee (no refund), as the service does; the figure with
 * an excess refunded to the operator is printed as commitAndRequest.withRefund.
 *
 * The callback gas limit is the admin's to change: scheduled through PrizeDrawManager and executed after its
 * delay (asAdmin), so each change moves the chain's clock by ADMIN_DELAY.
 *
 * Batches: gas.batch.N.* for one commitAndRequest of N drawings (1 winner each, N campaigns, each its
 * first drawing and its own wallet, as the single-drawing figures are measured), its callback (measured as above),
 * and one payoutMany of the N; perDrawing = (commit + callback + payoutMany) / N against BASELINE_SINGLE_DRAWING.
 * For 100 drawings the callback gas limit is raised to what 100 drawings of 1 winner need (from the contract's
 * constants). A large commit can go above Osaka's per-transaction gas cap (EIP-7825, 2^24 = 16,777,216; 100
 * first drawings took about 18.5M gas before a commit wrote four drawing slots instead of six, about 14.2M
 * after, about 14.9M since each drawing's worst case is checked against the vault's limits and reserved in it),
 * so this script turns that cap off (below) to measure any size;
 * gas.batch.maxDrawingsUnderTxCap is the largest such batch one transaction can commit under the cap.
 *
 * gas.reRequest is the operator's reRequest of a drawing (3 winners) whose request timed out, paying exactly the
 * quoted fee; gas.reRequest.batch10 the same for a batch of 10 such drawings (one call re-requests them all).
 * gas.callback.tooLate is the callback's own gas (as above) for a reveal more than BLOCKHASH_WINDOW blocks after its
 * request, discarded with EntropyRevealTooLate.
 *
 * Every block's time is fixed (pinBlockTimes): a drawing's value mixes in its request block's hash, which depends
 * on every block's time before it, so the wall clock would move the callbacks' gas from run to run.
 */
import hre, { ethers } from "hardhat";
import type { RequestArguments } from "hardhat/types";
import { mine } from "@nomicfoundation/hardhat-network-helpers";
import { dataSlice, getAddress, id, type ContractTransactionResponse } from "ethers";
import type { HardhatNetworkConfig } from "hardhat/types";
import {
  asAdmin,
  campaignIdOf,
  commit,
  commitArgs,
  deployFixture,
  findEvents,
  reveal,
  sendBatch,
  slotOf,
  untilGuaranteePeriodEnd,
  withoutFee,
  type Fixture,
} from "../test/contracts/helpers";

// Hardhat 2 turns Osaka's per-transaction gas cap (EIP-7825) off for this block gas limit, which
// solidity-coverage uses; it is read when the in-process chain starts, so it is set before any request. Gas used
// does not depend on the block gas limit.
const EIP7825_TX_GAS_CAP = 16_777_216;
(hre.network.config as HardhatNetworkConfig).blockGasLimit = 0x1fffffffffffff;
// The genesis block's time, read when the chain starts too; pinBlockTimes fixes every later block's.
(hre.network.config as HardhatNetworkConfig).initialDate = "2030-01-01T00:00:00Z";

/** Requests that mine a block (Hardhat mines each transaction at once). */
const MINING = new Set(["eth_sendTransaction", "eth_sendRawTransaction", "evm_mine", "hardhat_mine"]);

/**
 * Mines every block one second after the previous one, unless the script set its time (time.increase and
 * time.increaseTo do, through evm_setNextBlockTimestamp), instead of at the wall clock's time.
 */
function pinBlockTimes(): void {
  const provider = hre.network.provider;
  const request = provider.request.bind(provider);
  let timeSet = false;
  provider.request = async (args: RequestArguments): Promise<unknown> => {
    if (args.method === "evm_setNextBlockTimestamp") timeSet = true;
    else if (MINING.has(args.method)) {
      if (!timeSet) {
        const latest = (await request({ method: "eth_getBlockByNumber", params: ["latest", false] })) as { timestamp: string };
        await request({ method: "evm_setNextBlockTimestamp", params: [Number(latest.timestamp) + 1] });
      }
      timeSet = false;
    }
    return request(args);
  };
}
pinBlockTimes();

/**
 * Fixed "random" values: gas depends on them (rejection sampling, held prizes, zero bytes in calldata), so
 * fresh ones would move the figures by a few hundred gas from run to run.
 */
function fixed(label: string): string {
  return id(`bench-gas:${label}`);
}

/**
 * Figures of the contract before the version 3 revision (slots, fee cap, treasury limits), measured the same way;
 * commit, callback and payout must stay under 110% of them. Gas is exact, so a fixed baseline is a fair ratio.
 */
const BEFORE_V3: Record<string, number> = {
  "gas.commitAndRequest": 288_914,
  "gas.callback.1winners": 52_286,
  "gas.callback.10winners": 98_871,
  "gas.callback.100winners": 569_753,
  "gas.payout": 70_225,
};

/**
 * Gas of one drawing from commit to payout before batches, from this script's figures of v3:
 * commitAndRequest 315,505 + callback with 1 winner 55,516 + payout 76,595. The batch target: a drawing of a
 * batch of 100 costs at most half of it (gas.batch.100.perDrawing ratio <= 0.5).
 */
const BASELINE_SINGLE_DRAWING = 315_505 + 55_516 + 76_595; // 447,616
const BATCH_TARGET = 0.5;

function line(name: string, value: number, unit = "gas"): void {
  const baseline = BEFORE_V3[name];
  const ratio = baseline === undefined ? {} : { baseline, ratio: Number((value / baseline).toFixed(3)), target: "< 1.10" };
  console.log(JSON.stringify({ name, value: Math.round(value), unit, ...ratio }));
}

async function gasOf(tx: Promise<ContractTransactionResponse>): Promise<number> {
  const receipt = await (await tx).wait();
  return Number(receipt!.gasUsed);
}

let nextNumber = 1n;
async function revealedDraw(f: Fixture, winners: number): Promise<{ num: bigint; revealGas: number }> {
  const num = nextNumber++;
  const sequence = await commit(f, commitArgs(f.campaignId, num, { winnersExpected: winners }));
  const receipt = await reveal(f, sequence, fixed(`reveal-${num}`));
  return { num, revealGas: Number(receipt.gasUsed) };
}

async function main(): Promise<void> {
  const f = await deployFixture();

  // MockEntropy's own reveal cost: a request by an account (no code) gets no callback.
  const accountSequence = (await f.mock.getProviderInfoV2(f.provider.address)).sequenceNumber;
  await (await f.mock.connect(f.other)["requestV2()"]()).wait();
  const mockOnly = await gasOf(f.mock.mockReveal(f.provider.address, accountSequence, fixed("mock-only")));

  // The fee is the quote for the callback gas limit (0 on MockEntropy); paying exactly it, nothing is refunded.
  const fee = await f.mock["getFeeV2(address,uint32)"](f.provider.address, await f.draw.callbackGasLimit());
  const args = commitArgs(f.campaignId, nextNumber);
  const commitGas = await gasOf(f.draw.connect(f.operator).commitAndRequest([withoutFee(args)], fee, { value: fee }));
  line("gas.commitAndRequest", commitGas);
  await reveal(f, (await f.draw.getDrawing(f.campaignId, nextNumber)).sequence, fixed(`reveal-${nextNumber++}`));
  const refunded = commitArgs(f.campaignId, nextNumber);
  line(
    "gas.commitAndRequest.withRefund",
    await gasOf(f.draw.connect(f.operator).commitAndRequest([withoutFee(refunded)], 10n ** 16n, { value: 10n ** 16n })),
  );
  await reveal(f, (await f.draw.getDrawing(f.campaignId, nextNumber)).sequence, fixed(`reveal-${nextNumber++}`));

  const points: [number, number][] = [];
  for (const winners of [1, 10, 100]) {
    const { revealGas } = await revealedDraw(f, winners);
    const callbackGas = revealGas - mockOnly;
    points.push([winners, callbackGas]);
    line(`gas.callback.${winners}winners`, callbackGas);
  }
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const slope = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  line("gas.callback.fixed", my - slope * mx);
  line("gas.callback.perWinner", slope);

  // settle: a drawing whose callback settled only its share ((100,000 - CALLBACK_BASE_GAS) / POSITION_GAS positions
  // at a 100,000 gas limit: gas.callback.positionsAt100k), finished by
  // settle() in batches of 100 and 10.
  await asAdmin(f, f.draw, "setCallbackGasLimit", [100_000]);
  const { num } = await revealedDraw(f, 250);
  const settled = Number((await f.draw.getDrawing(f.campaignId, num)).settledCount);
  const settle100 = await gasOf(f.draw.settle(f.campaignId, num, 100));
  const settle10 = await gasOf(f.draw.settle(f.campaignId, num, 10));
  line("gas.callback.positionsAt100k", settled, "positions");
  line("gas.settle.perWinner", (settle100 - settle10) / 90);
  line("gas.settle.100winners", settle100);
  await gasOf(f.draw.settle(f.campaignId, num, 1_000));
  await asAdmin(f, f.draw, "setCallbackGasLimit", [2_000_000]);

  // payout: the first transfer to the campaign's wallet (its token balance goes from zero), by anyone.
  line("gas.payout", await gasOf(f.draw.connect(f.stranger).payout(f.campaignId, num)));

  // Held prizes (the vault's, checked against the engine's facts): a drawing whose prizes of 1,000 cents and more are held (over half of the default table's).
  await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, 1_000);
  const held = await revealedDraw(f, 20);
  const positions: bigint[] = [];
  for (let p = 0n; p < 20n; p++) if ((await f.draw.prizeAt(f.campaignId, held.num, p)).held) positions.push(p);
  line("gas.payHeldPrize", await gasOf(f.vault.connect(f.operator).payHeldPrize(f.campaignId, held.num, positions[0])));
  line(
    "gas.refuseHeldPrize",
    await gasOf(f.vault.connect(f.operator).refuseHeldPrize(f.campaignId, held.num, positions[1], "failed identity checks")),
  );

  // Guarantees: picked by the operator (a period needs a committed drawing and its end in block time), then paid by anyone.
  const guaranteed = campaignIdOf("bench-guarantee");
  await (await f.draw.connect(f.operator).registerCampaign(guaranteed, f.wallet.address, 50_000, 2_500, 24 * 3600)).wait();
  await commit(f, commitArgs(guaranteed, 1));
  await untilGuaranteePeriodEnd(f.vault, guaranteed, 0);
  const pick = await gasOf(f.vault.connect(f.operator).pickGuarantee(guaranteed, 0, fixed("guarantee-winner")));
  const pay = await gasOf(f.vault.connect(f.stranger).payGuarantee(guaranteed, 0));
  line("gas.pickGuarantee", pick);
  line("gas.payGuarantee", pay);
  line("gas.guarantee.total", pick + pay);

  // The engine, and since the split the vault it creates and the manager of both.
  for (const [name, contract] of [
    ["PrizeDraw", f.draw],
    ["PrizeVault", f.vault],
    ["PrizeDrawManager", f.manager],
  ] as const) {
    const code = await ethers.provider.getCode(await contract.getAddress());
    line(`size.${name}.deployed`, (code.length - 2) / 2, "bytes");
  }

  const commits = new Map<number, number>();
  for (const size of [1, 10, 100]) commits.set(size, await batchFigures(size, mockOnly));
  // Commit gas is linear in the batch size: the largest batch of first drawings under the transaction gas cap.
  const perCommit = (commits.get(100)! - commits.get(10)!) / 90;
  const fixedCommit = commits.get(10)! - 10 * perCommit;
  line("gas.batch.commit.perDrawing", perCommit);
  line("gas.batch.maxDrawingsUnderTxCap", Math.floor((EIP7825_TX_GAS_CAP - fixedCommit) / perCommit), "drawings");

  await reRequestFigures(mockOnly);
}

/**
 * reRequest of a single drawing and of a batch of 10 (3 winners each), on a fresh deployment so the figures
 * above are untouched: both requests are left unrevealed past revealTimeoutBlocks, then the operator re-requests;
 * then the single drawing's new request is revealed too late.
 */
async function reRequestFigures(mockOnly: number): Promise<void> {
  const f = await deployFixture();
  await commit(f, commitArgs(f.campaignId, 1));
  const batch = Array.from({ length: 10 }, (_, i) => commitArgs(f.campaignId, i + 2));
  await (await sendBatch(f, batch)).wait();
  await mine(Number(await f.draw.revealTimeoutBlocks()) + 1);
  // MockEntropy quotes 0 whatever the gas; paying exactly the quote, nothing is refunded (as in main()).
  const fee = await f.mock["getFeeV2(address,uint32)"](f.provider.address, await f.draw.callbackGasLimit());
  const reRequestGas = (num: number) => gasOf(f.draw.connect(f.operator).reRequest(f.campaignId, num, fee, { value: fee }));
  line("gas.reRequest", await reRequestGas(1));
  line("gas.reRequest.batch10", await reRequestGas(2));

  // A reveal of drawing 1's re-request more than BLOCKHASH_WINDOW blocks after it: discarded.
  await mine(Number(await f.draw.BLOCKHASH_WINDOW()) + 1);
  const { sequence } = await f.draw.getDrawing(f.campaignId, 1);
  const late = await reveal(f, sequence, fixed("too-late"));
  if (findEvents(f, late, "EntropyRevealTooLate").length !== 1) throw new Error("the late reveal was not discarded");
  line("gas.callback.tooLate", Number(late.gasUsed) - mockOnly);
}

/**
 * One batch of `size` drawings (1 winner each) of `size` new campaigns, each paying its own new wallet, on a fresh
 * deployment: the commit, the callback and one payoutMany of them all. Returns the commit's gas.
 */
async function batchFigures(size: number, mockOnly: number): Promise<number> {
  const f = await deployFixture();
  const [base, perDrawing, perPosition] = (
    await Promise.all([f.draw.CALLBACK_BASE_GAS(), f.draw.DRAWING_CALLBACK_GAS(), f.draw.POSITION_GAS()])
  ).map(Number);
  // The gas a callback of `size` drawings of 1 winner each needs; the default limit covers up to
  // 1 + (2,000,000 - CALLBACK_BASE_GAS) / DRAWING_CALLBACK_GAS drawings (39 at 70,000 and 50,000).
  const needed = base + (size - 1) * perDrawing + size * perPosition;
  if (needed > Number(await f.draw.callbackGasLimit())) await asAdmin(f, f.draw, "setCallbackGasLimit", [needed]);

  const batch = [];
  for (let i = 0; i < size; i++) {
    const campaignId = campaignIdOf(`bench-batch-${size}-${i}`);
    const wallet = getAddress(dataSlice(id(`bench-batch-wallet-${size}-${i}`), 12));
    await (await f.draw.connect(f.operator).registerCampaign(campaignId, wallet, 50_000, 0, 0)).wait();
    batch.push(withoutFee(commitArgs(campaignId, 1, { slot: slotOf(`drw_bench_${size}_${i}`), winnersExpected: 1 })));
  }
  const fee = await f.mock["getFeeV2(address,uint32)"](f.provider.address, needed);
  // An explicit gas limit: Hardhat's default transaction gas is the 2^24 cap.
  const commitTx = f.draw.connect(f.operator).commitAndRequest(batch, fee, { value: fee, gasLimit: 30_000_000 });
  const commitReceipt = (await (await commitTx).wait())!;
  const commitGas = Number(commitReceipt.gasUsed);
  const sequence = findEvents(f, commitReceipt, "EntropyRequested")[0].args.sequence as bigint;
  const revealReceipt = await reveal(f, sequence, fixed(`batch-${size}`));
  const callbackGas = Number(revealReceipt.gasUsed) - mockOnly;
  const settled = findEvents(f, revealReceipt, "DrawingSettled").length;
  if (settled !== size) throw new Error(`the callback of a batch of ${size} settled ${settled} drawings`);
  const refs = batch.map((c) => ({ campaignId: c.campaignId, number: c.number }));
  const payoutGas = await gasOf(f.draw.connect(f.stranger).payoutMany(refs));

  line(`gas.batch.${size}.commit`, commitGas);
  line(`gas.batch.${size}.callback`, callbackGas);
  line(`gas.batch.${size}.payoutMany`, payoutGas);
  const value = (commitGas + callbackGas + payoutGas) / size;
  const ratio = Number((value / BASELINE_SINGLE_DRAWING).toFixed(3));
  const target = size === 100 ? { target: `<= ${BATCH_TARGET}` } : {};
  console.log(
    JSON.stringify({ name: `gas.batch.${size}.perDrawing`, value: Math.round(value), unit: "gas", baseline: BASELINE_SINGLE_DRAWING, ratio, ...target }),
  );
  return commitGas;
}

void main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
