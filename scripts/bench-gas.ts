/**
 * Gas of the PrizeDraw drawing cycle on Hardhat's in-process chain (deterministic), as JSON lines
 * { name, value, unit }. Run with `npm run bench:gas` (also part of `npm run bench`).
 *
 * callback.fixed is the intercept and callback.perWinner the slope of a least-squares line through the
 * callback's own gas for 1, 10 and 100 winners. The callback's own gas is the reveal transaction's gas minus
 * the same MockEntropy reveal without a callback (a request made by an account, which has no code). With the
 * default callback gas limit (2,000,000) the callback settles up to (2,000,000 - 60,000) / 8,000 = 242
 * positions, so 100 winners settle in it.
 *
 * commitAndRequest is measured paying exactly the quoted fee (no refund), as the service does; the figure with
 * an excess refunded to the operator is printed as commitAndRequest.withRefund.
 */
import { ethers } from "hardhat";
import { id, type ContractTransactionResponse } from "ethers";
import { campaignIdOf, commit, commitArgs, deployFixture, reveal, type Fixture } from "../test/contracts/helpers";

/**
 * Fixed "random" values: gas depends on them (rejection sampling, held prizes, zero bytes in calldata), so
 * fresh ones would move the figures by a few hundred gas from run to run.
 */
function fixed(label: string): string {
  return id(`bench-gas:${label}`);
}

/**
 * Figures of the contract before the version 3 revision (slots, fee cap, treasury limits), measured the same way;
 * issue 16 bounds commit, callback and payout at 110% of them. Gas is exact, so a fixed baseline is a fair ratio.
 */
const BEFORE_V3: Record<string, number> = {
  "gas.commitAndRequest": 288_914,
  "gas.callback.1winners": 52_286,
  "gas.callback.10winners": 98_871,
  "gas.callback.100winners": 569_753,
  "gas.payout": 70_225,
};

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
  const args = commitArgs(f.campaignId, nextNumber, { maxFee: fee });
  const commitGas = await gasOf(f.draw.connect(f.operator).commitAndRequest(args, { value: fee }));
  line("gas.commitAndRequest", commitGas);
  await reveal(f, (await f.draw.getDrawing(f.campaignId, nextNumber)).sequence, fixed(`reveal-${nextNumber++}`));
  const refunded = commitArgs(f.campaignId, nextNumber, { maxFee: 10n ** 16n });
  line("gas.commitAndRequest.withRefund", await gasOf(f.draw.connect(f.operator).commitAndRequest(refunded, { value: 10n ** 16n })));
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

  // settle: a drawing whose callback settled only its share (5 positions at a 100,000 gas limit), finished by
  // settle() in batches of 100 and 10.
  await f.draw.connect(f.admin).setCallbackGasLimit(100_000);
  const { num } = await revealedDraw(f, 250);
  const settled = Number((await f.draw.getDrawing(f.campaignId, num)).settledCount);
  const settle100 = await gasOf(f.draw.settle(f.campaignId, num, 100));
  const settle10 = await gasOf(f.draw.settle(f.campaignId, num, 10));
  line("gas.callback.positionsAt100k", settled, "positions");
  line("gas.settle.perWinner", (settle100 - settle10) / 90);
  line("gas.settle.100winners", settle100);
  await gasOf(f.draw.settle(f.campaignId, num, 1_000));
  await f.draw.connect(f.admin).setCallbackGasLimit(2_000_000);

  // payout: the first transfer to the campaign's wallet (its token balance goes from zero), by anyone.
  line("gas.payout", await gasOf(f.draw.connect(f.stranger).payout(f.campaignId, num)));

  // Held prizes: a drawing whose prizes of 1,000 cents and more are held (over half of the default table's).
  await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, 1_000);
  const held = await revealedDraw(f, 20);
  const positions: bigint[] = [];
  for (let p = 0n; p < 20n; p++) if ((await f.draw.prizeAt(f.campaignId, held.num, p)).held) positions.push(p);
  line("gas.payHeldPrize", await gasOf(f.draw.connect(f.operator).payHeldPrize(f.campaignId, held.num, positions[0])));
  line(
    "gas.refuseHeldPrize",
    await gasOf(f.draw.connect(f.operator).refuseHeldPrize(f.campaignId, held.num, positions[1], "failed identity checks")),
  );

  // Guarantees: picked by the operator (a period needs a committed drawing), then paid by anyone.
  const guaranteed = campaignIdOf("bench-guarantee");
  await (await f.draw.connect(f.operator).registerCampaign(guaranteed, f.wallet.address, 50_000, 2_500, 24 * 3600)).wait();
  await commit(f, commitArgs(guaranteed, 1));
  const pick = await gasOf(f.draw.connect(f.operator).pickGuarantee(guaranteed, 0, fixed("guarantee-winner")));
  const pay = await gasOf(f.draw.connect(f.stranger).payGuarantee(guaranteed, 0));
  line("gas.pickGuarantee", pick);
  line("gas.payGuarantee", pay);
  line("gas.guarantee.total", pick + pay);

  const artifact = await ethers.provider.getCode(await f.draw.getAddress());
  line("size.PrizeDraw.deployed", (artifact.length - 2) / 2, "bytes");
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
