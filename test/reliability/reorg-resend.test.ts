// A reorg that drops several of the operator's mined transactions while the service keeps running: the operator's
// report (npm start, one push campaign, its first drawing paid, then `anvil_reorg` past the commit: the commit, the
// reveal and the payout gone). Unlike test/reliability/reorg.test.ts, the service is not restarted before the reorg
// and runs as `npm start` runs it: the keeper reveals MockEntropy itself (so the reveal is the operator's too) and
// the receipt timeout is the default 180 s. The chain port numbers the operator's transactions itself; anvil does
// not put a reorg's dropped transactions back in its pool, so the account's count goes back by all of them, and a
// send numbered from before the reorg waits in anvil's queue behind the gap (observed: the drawing stepped back to
// locked and stayed there, never committed again). The port must notice the chain no longer backs its count.
//
// The end asserted: the drawing committed, revealed, settled and paid again, once on the canonical chain (one
// DrawingCommitted, one DrawingPaid), within a liveness bound well under the receipt timeout (not a timing claim).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ANVIL_KEYS } from "../../api/src/config.js";
import { toCampaignId } from "../../api/src/draw/index.js";
import { jsonRpc } from "../support/processes.js";
import { chainDrawing, publicClientFor, reorgFrom } from "../support/reorg.js";
import { createAccount, startStack, type Stack } from "../support/stack.js";
import { campaignWithOpenDrawing, drawThroughPaid, getDrawing, waitFor } from "../support/partner.js";

let stack: Stack;
let key: string;
let accountId: string;

/** Half the default receipt timeout: a send stuck behind a nonce gap cannot end within it. */
const LIVENESS_MS = 90_000;
/** The local chain finalizes 30 blocks back (LOCAL_CHAIN_FINALITY_ARGS): a deeper reorg would rewrite final blocks. */
const FINALITY_DEPTH = 30;

const drawing = (slug: string, id: string) => getDrawing(stack, key, slug, id, { check: false });
const chainOf = (campaignId: Hex) => chainDrawing(publicClientFor(stack.rpcUrl), stack.deployment, campaignId, 1);
const operator = privateKeyToAccount(ANVIL_KEYS.operator).address;
const operatorCount = () => publicClientFor(stack.rpcUrl).getTransactionCount({ address: operator, blockTag: "latest" });

beforeAll(async () => {
  // No PRIZEDRAW_TX_TIMEOUT_SECONDS and no PRIZEDRAW_HOLD_MOCK_REVEAL: the service as npm start runs it.
  stack = await startStack();
  ({ accountId, key } = await createAccount(stack, "reorg-resend@example.com"));
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

describe("a reorg drops several of the operator's mined transactions while the service runs", () => {
  it("the drawing is committed, revealed, settled and paid again, once, without waiting out the receipt timeout", async () => {
    const slug = "reorg-resend";
    const first = await campaignWithOpenDrawing(stack, { accountId, key }, slug, { winners: 1 });
    const campaignId = toCampaignId(slug);
    await drawThroughPaid(stack, key, slug, first, ["w1"]);
    const before = await waitFor("paid on the chain", () => chainOf(campaignId), (c) => c.status === "paid");
    expect(before.committedIn).toHaveLength(1);
    expect(before.committedIn[0]!).toBeLessThan(before.paidIn[0]!);

    const countBefore = await operatorCount();
    const reorg = await reorgFrom(stack.rpcUrl, before.committedIn[0]!);
    const countAfter = await operatorCount();
    console.log(`[reorg-resend] anvil_reorg [${reorg.depth}, []] from the commit's block ${before.committedIn[0]} (head ${reorg.head}); operator transactions mined: ${countBefore} -> ${countAfter}`);
    // Within finality, and past the commit, the reveal and the payout: three operator transactions at least.
    expect(reorg.depth).toBeLessThan(FINALITY_DEPTH);
    expect(countBefore - countAfter).toBeGreaterThanOrEqual(3);
    const after = await chainOf(campaignId);
    expect(after).toMatchObject({ lastNumber: 0, status: "none", committedIn: [], paidIn: [] });

    const end = await waitFor(
      "paid again, once, on the canonical chain",
      async () => ({ service: await drawing(slug, first.id), chain: await chainOf(campaignId) }),
      ({ service, chain }) => service.status === "paid" && chain.status === "paid" && chain.paidIn.length === 1,
      LIVENESS_MS,
    ).catch(async (error: unknown) => {
      const pool = await jsonRpc<{ pending: Record<string, Record<string, unknown>>; queued: Record<string, Record<string, unknown>> }>(stack.rpcUrl, "txpool_content");
      const operatorPool = (part: Record<string, Record<string, unknown>>) => Object.keys(Object.entries(part).find(([from]) => from.toLowerCase() === operator.toLowerCase())?.[1] ?? {});
      const client = publicClientFor(stack.rpcUrl);
      const pending = await client.getTransactionCount({ address: operator, blockTag: "pending" });
      console.log(`[reorg-resend] at the bound: service ${JSON.stringify(await drawing(slug, first.id))}; chain ${JSON.stringify(await chainOf(campaignId), (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}; operator count latest ${await operatorCount()}, pending ${pending}; operator nonces in the node's pool: pending [${operatorPool(pool.pending)}], queued [${operatorPool(pool.queued)}]`);
      throw error;
    });
    expect(end.service).toMatchObject({ number: 1, needsAttention: null });
    expect(end.chain.committedIn).toHaveLength(1);
    expect(end.chain.revealedIn).toHaveLength(1);
    expect(end.chain.paidIn).toHaveLength(1);
    expect(end.chain.committedIn[0]!).toBeGreaterThan(reorg.head); // committed anew, in a block after the reorg's empty ones
  }, 360_000);
});
