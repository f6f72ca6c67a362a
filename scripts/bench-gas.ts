/**
 * Gas of the PrizeDraw drawing cycle on Hardhat's in-process chain (deterministic), as JSON lines
 * { name, value, unit }. Run with `npm run bench:gas` (also part of `npm run bench`).
 *
 * callback.fixed is the intercept and callback.perWinner the slope of a least-squares line through the
 * callback's own gas for 1, 10 and 100 winners. The callback's own gas is the reveal transaction's gas minus
 * the same MockEntropy reveal without a callback (a request made by an account, which has no code).
 */
import { id, type ContractTransactionResponse } from "ethers";
import { commit, commitArgs, deployFixture, reveal, type Fixture } from "../test/contracts/helpers";

/**
 * Fixed "random" values: gas depends on them (rejection sampling, held prizes, zero bytes in calldata), so
 * fresh ones would move the figures by a few hundred gas from run to run.
 */
function fixed(label: string): string {
  return id(`bench-gas:${label}`);
}

function line(name: string, value: number, unit = "gas"): void {
  console.log(JSON.stringify({ name, value: Math.round(value), unit }));
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
  await f.draw.connect(f.admin).setCallbackGasLimit(15_000_000);

  // MockEntropy's own reveal cost: a request by an account (no code) gets no callback.
  const accountSequence = (await f.mock.getProviderInfoV2(f.provider.address)).sequenceNumber;
  await (await f.mock.connect(f.other)["requestV2()"]()).wait();
  const mockOnly = await gasOf(f.mock.mockReveal(f.provider.address, accountSequence, fixed("mock-only")));

  const commitGas = await gasOf(f.draw.connect(f.operator).commitAndRequest(commitArgs(f.campaignId, nextNumber)));
  line("gas.commitAndRequest", commitGas);
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

  // settle: a drawing whose callback budget covered only part of it, finished by settle() in two batches.
  await f.draw.connect(f.admin).setCallbackGasLimit(100_000);
  const { num } = await revealedDraw(f, 250);
  const settled = Number((await f.draw.getDrawing(f.campaignId, num)).settledCount);
  const settle100 = await gasOf(f.draw.settle(f.campaignId, num, 100));
  const settle10 = await gasOf(f.draw.settle(f.campaignId, num, 10));
  line("gas.callback.positionsWithin100k", settled, "positions");
  line("gas.settle.perWinner", (settle100 - settle10) / 90);
  line("gas.settle.100winners", settle100);
  await gasOf(f.draw.settle(f.campaignId, num, 1_000));

  line("gas.payout", await gasOf(f.draw.connect(f.operator).payout(f.campaignId, num)));
  line(
    "gas.payGuarantee",
    await gasOf(f.draw.connect(f.operator).payGuarantee(f.campaignId, fixed("guarantee-id"), fixed("guarantee-winner"), 2_500)),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
