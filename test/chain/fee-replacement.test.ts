// The chain port's fee discipline against a node that keeps a transaction it has not mined (as geth and Base's
// sequencer do, where anvil under a base-fee spike drops it: test/reliability/fee-spike.test.ts): anvil with mining
// stopped holds every transaction in its pool. The port replaces one not mined within `replaceAfterMs` at its nonce
// with fees 12.5 % higher and answers whichever version is mined; at the cap it stops replacing, says so
// (FeeCapReachedError) after the receipt timeout, and the same call sent again waits for the one left in the pool
// (for one more replacement period, then says so again) instead of sending a second.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { toHex, type Hex } from "viem";
import { deployLocal } from "../../api/src/chain/deploy.js";
import type { DeploymentRecord } from "../../api/src/chain/deployment.js";
import { FeeCapReachedError, bumped } from "../../api/src/chain/fees.js";
import { ChainPort } from "../../api/src/chain/port.js";
import { ANVIL_KEYS } from "../../api/src/config.js";
import { toCampaignId } from "../../api/src/draw/index.js";
import { chainTransactionReplacements } from "../../api/src/metrics/registry.js";
import { freePort, jsonRpc, sleep, startAnvil, stop, until, type Proc } from "../support/processes.js";
import { publicClientFor } from "../support/reorg.js";

const dataDir = mkdtempSync(path.join(tmpdir(), "prizedraw-fee-replacement-"));
let anvil: Proc | undefined;
let rpcUrl: string;
let deployment: DeploymentRecord;
const payoutWallet = toHex(1n, { size: 20 });

type PoolTx = { hash: Hex; nonce: Hex; maxFeePerGas: Hex; maxPriorityFeePerGas: Hex };

/** The operator's transactions in anvil's pool, by nonce. */
async function pooled(port: ChainPort): Promise<PoolTx[]> {
  const pool = await jsonRpc<{ pending: Record<string, Record<string, PoolTx>> }>(rpcUrl, "txpool_content");
  const mine = Object.entries(pool.pending).find(([from]) => from.toLowerCase() === port.operatorAddress.toLowerCase())?.[1] ?? {};
  return Object.values(mine);
}

async function replacementsCounted(): Promise<number> {
  return (await chainTransactionReplacements.get()).values.find((v) => v.labels.function === "registerCampaign")?.value ?? 0;
}

beforeAll(async () => {
  const chainPort = await freePort();
  rpcUrl = `http://127.0.0.1:${chainPort}`;
  anvil = startAnvil(chainPort, path.join(dataDir, "anvil-state.json"), path.join(dataDir, "anvil.log"));
  await until("anvil", async () => ((await jsonRpc<string>(rpcUrl, "eth_chainId")) ? true : undefined), 20_000, 100, anvil);
  deployment = await deployLocal({ rpcUrl, dataDir });
}, 120_000);

beforeEach(async () => {
  // Nothing is mined until a test says so: every transaction waits in the pool.
  await jsonRpc(rpcUrl, "evm_setAutomine", [false]);
  await jsonRpc(rpcUrl, "evm_setIntervalMining", [0]);
});

afterAll(async () => {
  await stop(anvil);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a transaction the node holds unmined", () => {
  it("is replaced at its nonce with 12.5 % higher fees, and the version mined is the answer", async () => {
    const port = new ChainPort({ rpcUrl, deployment, operatorKey: ANVIL_KEYS.operator, fees: { replaceAfterMs: 1_000 } });
    const before = await replacementsCounted();
    const sending = port.registerCampaign(toCampaignId("fee-replaced"), payoutWallet, 50_000n, { cents: 0n, periodSeconds: 0n });
    const first = (await until("the first version in the pool", async () => (await pooled(port))[0], 20_000, 50))!;
    const replaced = await until("a replacement at the same nonce", async () => (await pooled(port)).find((t) => t.hash !== first.hash), 20_000, 100);
    expect(replaced.nonce).toBe(first.nonce);
    const floor = bumped({ maxFeePerGas: BigInt(first.maxFeePerGas), maxPriorityFeePerGas: BigInt(first.maxPriorityFeePerGas) });
    expect(BigInt(replaced.maxFeePerGas)).toBeGreaterThanOrEqual(floor.maxFeePerGas);
    expect(BigInt(replaced.maxPriorityFeePerGas)).toBeGreaterThanOrEqual(floor.maxPriorityFeePerGas);
    expect(await pooled(port), "the node keeps one version a nonce").toHaveLength(1);
    // The latest version when the block comes is the one mined and answered.
    const latest = (await pooled(port))[0]!;
    await jsonRpc(rpcUrl, "evm_mine");
    const receipt = await sending;
    expect(receipt.status).toBe("success");
    expect(receipt.transactionHash).toBe(latest.hash);
    expect(await replacementsCounted()).toBeGreaterThan(before);
  }, 60_000);

  it("stops at the cap, says so after the receipt timeout, and the same call again waits for the one left in the pool", async () => {
    const estimate = await publicClientFor(rpcUrl).estimateFeesPerGas();
    // The cap is the first price: no replacement 12.5 % higher fits under it.
    const port = new ChainPort({ rpcUrl, deployment, operatorKey: ANVIL_KEYS.operator, receiptTimeoutMs: 3_000, fees: { replaceAfterMs: 1_000, maxFeePerGasWei: estimate.maxFeePerGas } });
    const campaignId = toCampaignId("fee-capped");
    const register = () => port.registerCampaign(campaignId, payoutWallet, 50_000n, { cents: 0n, periodSeconds: 0n });
    const error = await register().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error, String(error)).toBeInstanceOf(FeeCapReachedError);
    const left = await pooled(port);
    expect(left).toHaveLength(1);
    expect(BigInt(left[0]!.maxFeePerGas)).toBeLessThanOrEqual(estimate.maxFeePerGas);

    // Sent again (the keeper's next try): it waits one replacement period for the one in the pool, sending nothing.
    const again = register();
    await sleep(300);
    expect(await pooled(port), "the retry sent nothing new").toEqual(left);
    await jsonRpc(rpcUrl, "evm_mine");
    const receipt = await again;
    expect(receipt.transactionHash).toBe(left[0]!.hash);
    expect((await port.getCampaign(campaignId)).registered).toBe(true);
  }, 60_000);
});
