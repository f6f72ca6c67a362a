// Chain faults on the real stack: the RPC unreachable for a while, the indexer down, a transaction the contract
// refuses (an empty prize pool), a transaction the node drops, and a randomness callback that does not arrive. The service reports itself not
// ready, keeps accepting what it can, flags what needs attention, and catches up without duplicates.

import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, createWalletClient, http, keccak256, toFunctionSelector, toHex, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { MockEntropyAbi } from "../../api/src/chain/abis.js";
import { BlacklistStablecoinAbi } from "../support/blacklistToken.js";
import { ANVIL_KEYS } from "../../api/src/config.js";
import { toCampaignId } from "../../api/src/draw/index.js";
import { drawValueAt } from "../support/drawValue.js";
import { jsonRpc, until } from "../support/processes.js";
import { api, createAccount, startStack, type Stack } from "../support/stack.js";
import { activeCampaign, clockPast as clockPastOf, getDrawing, openDrawings as openDrawingsOf, postWinners as postWinnersOf, waitFor, type DrawingBody } from "../support/partner.js";

let stack: Stack;
let key: string;

const drawing = (slug: string, id: string) => getDrawing(stack, key, slug, id, { check: false });
const openDrawings = (slug: string) => openDrawingsOf(stack, key, slug);
const postWinners = (slug: string, id: string, winners: string[]) => postWinnersOf(stack, key, slug, id, winners, { check: false });
const clockPast = (slug: string, d: DrawingBody) => clockPastOf(stack, key, slug, d, { check: false });

async function newCampaign(slug: string): Promise<void> {
  const account = await createAccount(stack, `${slug}@example.com`);
  key = account.key;
  await activeCampaign(stack, account.accountId, slug, { winners: 2 });
}

/** Drawings and payouts the chain has for a campaign (through the indexer). */
async function onchain(slug: string): Promise<{ numbers: string[]; payouts: number }> {
  const campaignId = toCampaignId(slug);
  const drawings = (await (await fetch(`${stack.indexerUrl}/campaigns/${campaignId}/drawings`)).json()) as { drawings: { number: string }[] };
  const payouts = (await (await fetch(`${stack.indexerUrl}/payouts?campaignId=${campaignId}`)).json()) as { payouts: { kind: string }[] };
  return { numbers: drawings.drawings.map((d) => d.number).sort(), payouts: payouts.payouts.filter((p) => p.kind === "drawing").length };
}

/** A JSON-RPC call straight to anvil (its own methods included). */
const rpc = <T = unknown>(method: string, params: unknown[] = []) => jsonRpc<T>(stack.rpcUrl, method, params);

beforeAll(async () => {
  // The blacklisting token (USDC's rules) lets a test freeze the prize vault.
  stack = await startStack({ extraEnv: { PRIZEDRAW_ENTROPY_TIMEOUT_SECONDS: "2", PRIZEDRAW_TX_TIMEOUT_SECONDS: "3" }, deploy: { token: "blacklist" } });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

describe("chain faults", () => {
  it("with the RPC unreachable: not ready, still takes winners, and catches up once the chain is back", async () => {
    await newCampaign("rpc-down");
    const [first, second] = await openDrawings("rpc-down");
    await postWinners("rpc-down", first!.id, ["a", "b"]);
    await stack.stopChain();
    const ready = await waitFor("not ready", () => api(stack, "GET", "/ready"), (r) => r.status === 503, 20_000);
    expect(ready.body).toMatchObject({ ready: false, chain: { ok: false } });
    expect((await postWinners("rpc-down", second!.id, ["c", "d"])).status).toBe(201);
    await clockPast("rpc-down", first!);
    // The lock needs no chain: it happens; the commit waits for the chain.
    const locked = await waitFor("locked while the chain is down", () => drawing("rpc-down", first!.id), (d) => d.status === "locked", 20_000);
    expect(locked.number).toBeNull(); // numbers are assigned with the request, which needs the chain
    await new Promise((r) => setTimeout(r, 2_500)); // a few keeper cycles fail meanwhile
    expect((await drawing("rpc-down", first!.id)).status).toBe("locked");
    await stack.startChain();
    const paid = await waitFor("paid after the chain came back", () => drawing("rpc-down", first!.id), (d) => d.status === "paid");
    expect(paid.number).toBe(1);
    await waitFor("ready again", () => api(stack, "GET", "/ready"), (r) => r.status === 200, 30_000);
    expect(await onchain("rpc-down")).toEqual({ numbers: ["1"], payouts: 1 });
  });

  it("with the indexer down: not ready, draws onchain, and fills the drawing in once the indexer is back", async () => {
    const [next] = await openDrawings("rpc-down");
    await postWinners("rpc-down", next!.id, ["e", "f"]);
    await stack.stopIndexer();
    const ready = await waitFor("not ready", () => api(stack, "GET", "/ready"), (r) => r.status === 503, 20_000);
    expect(ready.body).toMatchObject({ ready: false, chain: { ok: true }, indexer: { ok: false } });
    await clockPast("rpc-down", next!);
    const requested = await waitFor("requested onchain", () => drawing("rpc-down", next!.id), (d) => d.status === "entropy_requested", 20_000);
    expect(requested.number).toBe(2);
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await drawing("rpc-down", next!.id)).status).toBe("entropy_requested"); // prizes come from the index
    await stack.startIndexer();
    const paid = await waitFor("paid after the indexer came back", () => drawing("rpc-down", next!.id), (d) => d.status === "paid");
    expect(paid.needsAttention).toBeNull();
    expect(await onchain("rpc-down")).toEqual({ numbers: ["1", "2"], payouts: 2 });
  });

  // The pool always backs what is owed (a commit is refused otherwise), so a payout fails only when the token refuses
  // it: here the token's issuer freezes the vault, as Circle can freeze any USDC account.
  it("flags a payout the token refuses (a frozen prize vault) and pays once the vault is released", async () => {
    const transport = http(stack.rpcUrl);
    const publicClient = createPublicClient({ transport });
    const chain = { id: 31337, name: "anvil", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [stack.rpcUrl] } } };
    const admin = createWalletClient({ account: privateKeyToAccount(ANVIL_KEYS.admin), chain, transport });
    const vault = stack.deployment.vault!;
    await publicClient.waitForTransactionReceipt({ hash: await admin.writeContract({ address: stack.deployment.token, abi: BlacklistStablecoinAbi, functionName: "blacklist", args: [vault] }) });

    const [next] = await openDrawings("rpc-down");
    await postWinners("rpc-down", next!.id, ["g", "h"]);
    await clockPast("rpc-down", next!);
    const flagged = await waitFor("payout refused", () => drawing("rpc-down", next!.id), (d) => d.needsAttention !== null);
    expect(flagged.status).toBe("settled");
    // The token's own error, which the engine's ABI does not declare, is named by its selector.
    expect(flagged.needsAttention).toBe(`chain: payout refused by the contract (unknown error ${toFunctionSelector("Blacklisted(address)")}); retried every cycle`);

    await publicClient.waitForTransactionReceipt({ hash: await admin.writeContract({ address: stack.deployment.token, abi: BlacklistStablecoinAbi, functionName: "unblacklist", args: [vault] }) });
    const paid = await waitFor("paid after refill", () => drawing("rpc-down", next!.id), (d) => d.status === "paid");
    expect(paid.needsAttention).toBeNull();
    expect(await onchain("rpc-down")).toEqual({ numbers: ["1", "2", "3"], payouts: 3 });
  });

  it("sends again with the same nonce when the node drops a transaction, and completes with one number", async () => {
    const otherKey = key;
    await newCampaign("dropped");
    const [first, second] = await openDrawings("dropped");
    // A first drawing registers the campaign and gives the operator a transaction history (a nonce above 0).
    await postWinners("dropped", first!.id, ["k", "l"]);
    await clockPast("dropped", first!);
    await waitFor("the first drawing paid", () => drawing("dropped", first!.id), (d) => d.status === "paid");
    await postWinners("dropped", second!.id, ["m", "n"]);
    // Mining paused: the keeper's commitAndRequest waits in the mempool, where the node then drops it.
    await rpc("evm_setAutomine", [false]);
    await rpc("evm_setIntervalMining", [0]);
    try {
      await clockPast("dropped", second!);
      await until("the commit waiting in the mempool", async () => (Number((await rpc<{ pending: string }>("txpool_status")).pending) > 0 ? true : undefined), 20_000, 50);
      await rpc("anvil_dropAllTransactions");
    } finally {
      await rpc("evm_setAutomine", [true]);
      await rpc("evm_setIntervalMining", [1]);
    }
    // Its receipt never comes: after PRIZEDRAW_TX_TIMEOUT_SECONDS the keeper sends again with the same nonce (a
    // local nonce counter would have skipped it and left every later transaction queued behind the gap).
    const paid = await waitFor("paid after the dropped commit", () => drawing("dropped", second!.id), (d) => d.status === "paid");
    expect(paid.number).toBe(2);
    expect(paid.needsAttention).toBeNull();
    expect(await onchain("dropped")).toEqual({ numbers: ["1", "2"], payouts: 2 });
    const log = readFileSync(path.join(stack.dataDir, "service.log"), "utf8");
    expect(log).toMatch(/commitAndRequest: Timed out while waiting for transaction/);
    key = otherKey;
  });

  it("flags a randomness callback that does not arrive, keeps the request, and completes when it comes", async () => {
    stack.env.PRIZEDRAW_HOLD_MOCK_REVEAL = "true"; // the test plays the provider
    await stack.restartService();
    const [next] = await openDrawings("rpc-down");
    await postWinners("rpc-down", next!.id, ["i", "j"]);
    await clockPast("rpc-down", next!);
    const late = await waitFor("flagged as late", () => drawing("rpc-down", next!.id), (d) => d.needsAttention !== null, 30_000);
    expect(late.status).toBe("entropy_requested");
    expect(late.needsAttention).toMatch(/no random value yet from the randomness provider/);
    const sequence = BigInt(late.verification.entropyRequestId!);

    const transport = http(stack.rpcUrl);
    const chain = { id: 31337, name: "anvil", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [stack.rpcUrl] } } };
    const provider = createWalletClient({ account: privateKeyToAccount(ANVIL_KEYS.provider), chain, transport });
    const value: Hex = keccak256(toHex("late randomness"));
    const reader = createPublicClient({ transport });
    const { blockNumber: requestBlock } = await reader.readContract({ address: stack.deployment.entropy, abi: MockEntropyAbi, functionName: "getRequestV2", args: [stack.deployment.entropyProvider, sequence] });
    await reader.waitForTransactionReceipt({
      hash: await provider.writeContract({ address: stack.deployment.entropy, abi: MockEntropyAbi, functionName: "mockReveal", args: [stack.deployment.entropyProvider, sequence, value], gas: 3_000_000n }),
    });
    const paid = await waitFor("paid after the late callback", () => drawing("rpc-down", next!.id), (d) => d.status === "paid");
    expect(paid.needsAttention).toBeNull();
    // The value the prizes follow from: the provider's, mixed with the hash of the request's block.
    expect((paid as DrawingBody & { verification: { entropy: string } }).verification.entropy).toBe(await drawValueAt(reader, requestBlock, value));
    expect(await onchain("rpc-down")).toEqual({ numbers: ["1", "2", "3", "4"], payouts: 4 });
  });
});
