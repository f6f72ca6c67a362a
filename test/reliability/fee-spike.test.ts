// Fees that spike after a send, on a chain that mines every 2 seconds (no instant mining), as Base does: the chain
// port prices every operator transaction with explicit EIP-1559 fees under MAX_FEE_PER_GAS_GWEI (api/src/chain/fees.ts).
//
// The base fee is held by the test (anvil_setNextBlockBaseFeePerGas before every block): 1 gwei normally, then, from
// the moment a drawing's commit is seen waiting in the node's pool (priced for 1 gwei), 20x or 60x. Anvil drops a
// waiting transaction whose fee cap falls below the base fee (geth would keep it: then the port replaces it at its
// nonce, test/chain/fee-replacement.test.ts) and refuses a new one below it, so here the commit is sent again at its
// nonce at the new price. Under the cap (30 gwei) the drawing is paid within 150 s; above it the drawing is flagged
// (never a silent wait) and paid once the fees fall. Either way: committed once, no transaction priced above the cap,
// the proof verified against the chain.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toFunctionSelector, toHex, type AbiFunction, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { PrizeDrawAbi } from "../../api/src/chain/abis.js";
import { ANVIL_KEYS } from "../../api/src/config.js";
import { FEES_ABOVE_CAP } from "../../api/src/domain/drawingLife.js";
import { jsonRpc, sleep } from "../support/processes.js";
import { publicClientFor } from "../support/reorg.js";
import { campaignWithOpenDrawing, getDrawing, postWinnersPastCutoff, verifyServedProof, waitFor, waitForStatus } from "../support/partner.js";
import { useStack } from "../support/suite.js";
import type { Stack } from "../support/stack.js";

const GWEI = 1_000_000_000n;
const NORMAL = 1n * GWEI;
const CAP = 30n * GWEI;
/** The Done-when's spike: 20 times the normal base fee, under the cap. */
const SPIKE = 20n * NORMAL;
/** Above the cap: nothing the operator allows can be mined. */
const ABOVE_CAP = 60n * NORMAL;
/** The bound the service must meet with the fee held at 20x (a liveness bound of the requirement, not a benchmark). */
const PAID_WITHIN_MS = 150_000;

let stack: Stack;
let key: string;
let accountId: string;
useStack("fees@example.com", (started) => ({ stack, key, accountId } = started), {
  blockTimeSeconds: 2,
  extraEnv: { MAX_FEE_PER_GAS_GWEI: "30", PRIZEDRAW_TX_REPLACE_SECONDS: "4", PRIZEDRAW_TX_TIMEOUT_SECONDS: "12" },
});

const operator = privateKeyToAccount(ANVIL_KEYS.operator).address.toLowerCase();
const COMMIT_SELECTOR = toFunctionSelector((PrizeDrawAbi as readonly { type: string; name?: string }[]).find((x) => x.type === "function" && x.name === "commitAndRequest") as AbiFunction);

/**
 * Holds every next block's base fee at `wei` (set again every 100 ms: a block is mined every 2 s) until changed;
 * `stop` ends the holding.
 */
function baseFeeHolder(rpcUrl: string) {
  let wei = NORMAL;
  let running = true;
  const loop = (async () => {
    while (running) {
      await jsonRpc(rpcUrl, "anvil_setNextBlockBaseFeePerGas", [toHex(wei)]).catch(() => undefined);
      await sleep(100);
    }
  })();
  return {
    set: (next: bigint) => {
      wei = next;
      return jsonRpc(rpcUrl, "anvil_setNextBlockBaseFeePerGas", [toHex(next)]);
    },
    stop: async () => {
      running = false;
      await loop;
    },
  };
}
let fees: ReturnType<typeof baseFeeHolder>;

type PoolTx = { hash: Hex; from: string; input: Hex; maxFeePerGas?: Hex; gasPrice?: Hex };

/** The operator's commits waiting in anvil's pool (txpool_content), polled every 20 ms until one shows. */
async function pendingCommit(): Promise<PoolTx> {
  return waitFor(
    "a commit waiting in the pool",
    async () => {
      const pool = await jsonRpc<{ pending: Record<string, Record<string, PoolTx>> }>(stack.rpcUrl, "txpool_content");
      const mine = Object.entries(pool.pending).find(([from]) => from.toLowerCase() === operator)?.[1] ?? {};
      return Object.values(mine).find((tx) => tx.input.startsWith(COMMIT_SELECTOR)) ?? null;
    },
    (tx) => tx !== null,
    60_000,
  ) as Promise<PoolTx>;
}

/** Every operator transaction mined from block `from` on: its fee cap per gas and whether it is a commit. */
async function operatorTransactions(from: bigint) {
  const client = publicClientFor(stack.rpcUrl);
  const latest = await client.getBlockNumber();
  const out: { hash: Hex; maxFee: bigint; commit: boolean; status: string; effectiveGasPrice: bigint }[] = [];
  for (let n = from; n <= latest; n++) {
    const block = await client.getBlock({ blockNumber: n, includeTransactions: true });
    for (const tx of block.transactions) {
      if (tx.from.toLowerCase() !== operator) continue;
      const receipt = await client.getTransactionReceipt({ hash: tx.hash });
      out.push({ hash: tx.hash, maxFee: tx.maxFeePerGas ?? tx.gasPrice ?? 0n, commit: tx.input.startsWith(COMMIT_SELECTOR), status: receipt.status, effectiveGasPrice: receipt.effectiveGasPrice });
    }
  }
  return out;
}

beforeAll(async () => {
  fees = baseFeeHolder(stack.rpcUrl);
  await fees.set(NORMAL);
}, 30_000);

afterAll(async () => {
  await fees?.stop();
});

describe("fees that spike after the commit is sent", () => {
  it("prices the commit again at 20x the base fee, under the cap, and pays the drawing within 150 s, committed once", async () => {
    const slug = "fees-under-cap";
    const from = await publicClientFor(stack.rpcUrl).getBlockNumber();
    const open = await campaignWithOpenDrawing(stack, { accountId, key }, slug, { winners: 1 });
    await postWinnersPastCutoff(stack, key, slug, open, ["w-under"]);
    const waiting = await pendingCommit();
    await fees.set(SPIKE);
    const spikedAt = Date.now();
    // Priced for the normal base fee: it cannot be mined while the spike holds.
    expect(BigInt(waiting.maxFeePerGas ?? waiting.gasPrice ?? "0x0")).toBeLessThan(SPIKE);

    const paid = await waitForStatus(stack, key, slug, open.id, "paid", PAID_WITHIN_MS);
    expect(paid.status).toBe("paid");
    console.log(`fee spike 20x: paid ${((Date.now() - spikedAt) / 1000).toFixed(1)} s after the spike began`);

    const txs = await operatorTransactions(from);
    const commits = txs.filter((t) => t.commit);
    expect(commits, "one commit mined, the replacement").toHaveLength(1);
    expect(commits[0]!.status).toBe("success");
    // The one priced for 1 gwei never ran: the commit mined is the one priced for the spike.
    expect(commits[0]!.hash.toLowerCase()).not.toBe(waiting.hash.toLowerCase());
    expect(commits[0]!.effectiveGasPrice).toBeGreaterThanOrEqual(SPIKE);
    for (const t of txs) expect(t.maxFee, `${t.hash} priced under the cap`).toBeLessThanOrEqual(CAP);
    await fees.set(NORMAL);
    const verified = await verifyServedProof(stack, slug, open.id);
    expect(verified.code, verified.out).toBe(0);
  }, 240_000);

  it("flags the drawing while the network asks more than the cap, then pays it once when fees fall", async () => {
    const slug = "fees-above-cap";
    const from = await publicClientFor(stack.rpcUrl).getBlockNumber();
    const open = await campaignWithOpenDrawing(stack, { accountId, key }, slug, { winners: 1 });
    await postWinnersPastCutoff(stack, key, slug, open, ["w-above"]);
    await pendingCommit();
    await fees.set(ABOVE_CAP);

    const flagged = await waitFor("the drawing flagged at the fee cap", () => getDrawing(stack, key, slug, open.id, { check: false }), (d) => d.needsAttention === FEES_ABOVE_CAP, 90_000);
    expect(flagged.status).toBe("locked");
    for (const t of await operatorTransactions(from)) expect(t.maxFee, `${t.hash} priced under the cap`).toBeLessThanOrEqual(CAP);

    await fees.set(NORMAL);
    const paid = await waitForStatus(stack, key, slug, open.id, "paid", PAID_WITHIN_MS);
    expect(paid.needsAttention).toBeNull();
    const txs = await operatorTransactions(from);
    expect(txs.filter((t) => t.commit), "committed once: the retry waited for the capped commit instead of sending another").toHaveLength(1);
    for (const t of txs) expect(t.maxFee, `${t.hash} priced under the cap`).toBeLessThanOrEqual(CAP);
    const verified = await verifyServedProof(stack, slug, open.id);
    expect(verified.code, verified.out).toBe(0);
  }, 300_000);
});
