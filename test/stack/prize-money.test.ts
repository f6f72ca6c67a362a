// Prize money on the real stack (anvil + contracts + Ponder + the service process + the CLI), with a token that
// blacklists wallets (contracts/test/BlacklistStablecoin.sol) as the prize token:
// - a wallet the token refuses stalls only its own campaign's drawing (flagged, retried every cycle) while another
//   campaign is paid in the same cycles; the way out is a new campaign wallet, synced onchain by the keeper, and the
//   admin's moveDrawingWallet (the operator key cannot move it);
// - held prizes stay on the record next to a `paid` drawing until the operator pays or refuses each one with the
//   `prizedraw held` commands; a decision is taken once, and bad input changes nothing;
// - the guardian's pause holds a drawing's commit (the keeper flags it and retries) until the admin resumes.

import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BaseError, ContractFunctionRevertedError, createPublicClient, createWalletClient, http, toFunctionSelector, type Address, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { PrizeDrawAbi, PrizeVaultAbi } from "../../api/src/chain/abis.js";
import { ANVIL_KEYS } from "../../api/src/config.js";
import { toCampaignId } from "../../api/src/draw/index.js";
import { asAdmin } from "../support/admin.js";
import { BlacklistStablecoinAbi } from "../support/blacklistToken.js";
import { createAccount, startStack, type Stack } from "../support/stack.js";
import { activeCampaign, clockPast as clockPastOf, getDrawing, openDrawings as openDrawingsOf, postWinners as postWinnersOf, waitFor as waitForOf, type DrawingBody, type WinnerBody } from "../support/partner.js";

/** Token units per cent of the 6-decimal test token. */
const UNITS_PER_CENT = 10_000n;
/** PrizeDraw.Status / PrizeDraw.HeldState. */
const STATUS = { Settled: 3, Paid: 4 } as const;
const HELD = { Open: 0, Paid: 1, Refused: 2 } as const;

const WALLET_A = "0x00000000000000000000000000000000000a11a1" as Address;
const WALLET_B = "0x00000000000000000000000000000000000b22b2" as Address;
const WALLET_A_NEW = "0x00000000000000000000000000000000000a33a3" as Address;
const WALLET_H = "0x00000000000000000000000000000000000c44c4" as Address;
const WALLET_P = "0x00000000000000000000000000000000000d55d5" as Address;

type HeldView = { campaign: string; drawingId: string; number: number; position: number; winner: string; amountCents: number; status: string; reason: string | null };

let stack: Stack;
let key: string;
let accountId: string;
let publicClient: PublicClient;

const drawing = (slug: string, id: string) => getDrawing(stack, key, slug, id);
const openDrawings = (slug: string) => openDrawingsOf(stack, key, slug);
async function postWinners(slug: string, id: string, winners: string[]): Promise<void> {
  await postWinnersOf(stack, key, slug, id, winners);
}
async function clockPast(slug: string, d: DrawingBody): Promise<void> {
  await clockPastOf(stack, key, slug, d);
}
const waitFor = <T>(label: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000) => waitForOf(label, read, ok, ms, stack.service);

/** A push campaign paying `wallet`, with its own prize table, activated. */
async function newCampaign(slug: string, wallet: Address, winners: number, tiers: { amountCents: number; weight: number }[], extra: string[] = []): Promise<void> {
  const file = path.join(stack.dataDir, `${slug}-table.json`);
  writeFileSync(file, JSON.stringify(tiers));
  await activeCampaign(stack, accountId, slug, { winners, payoutWallet: wallet, flags: ["--prize-table", file, ...extra] });
}

const balance = (wallet: Address) => publicClient.readContract({ address: stack.deployment.token, abi: BlacklistStablecoinAbi, functionName: "balanceOf", args: [wallet] });
const onchainDrawing = (slug: string, number: number) => publicClient.readContract({ address: stack.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "getDrawing", args: [toCampaignId(slug), BigInt(number)] });
const onchainCampaign = (slug: string) => publicClient.readContract({ address: stack.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "getCampaign", args: [toCampaignId(slug)] });
const heldState = (slug: string, number: number, position: number) =>
  publicClient.readContract({ address: stack.deployment.vault!, abi: PrizeVaultAbi, functionName: "heldPrizeState", args: [toCampaignId(slug), BigInt(number), BigInt(position)] });
/** Drawing payouts of a campaign as the indexer has them. */
type IndexedPayout = { kind: string; wallet: string; amountCents: string | number; number: string | number; position: string | number | null };
async function indexedPayouts(slug: string): Promise<IndexedPayout[]> {
  const body = (await (await fetch(`${stack.indexerUrl}/payouts?campaignId=${toCampaignId(slug)}`)).json()) as { payouts: IndexedPayout[] };
  return body.payouts;
}

/** Runs the CLI expecting a failure; returns its exit code and `{ error, detail }`. */
async function cliFails(...args: string[]): Promise<{ code: number; error: string; detail: string }> {
  try {
    await stack.cli(...args);
  } catch (e) {
    const failure = e as Error & { code?: number; result?: { error?: string; detail?: string } };
    return { code: failure.code ?? -1, error: failure.result?.error ?? "", detail: failure.result?.detail ?? failure.message };
  }
  throw new Error(`prizedraw ${args.join(" ")} succeeded; expected a failure`);
}

beforeAll(async () => {
  stack = await startStack({ deploy: { token: "blacklist" } });
  ({ accountId, key } = await createAccount(stack, "money@example.com"));
  publicClient = createPublicClient({ transport: http(stack.rpcUrl) }) as PublicClient;
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

describe("a wallet the token refuses", () => {
  // Two tiers of the same amount: every winner gets 10 dollars, below the default 500-dollar threshold.
  const TABLE = [
    { amountCents: 1_000, weight: 1 },
    { amountCents: 1_000, weight: 1 },
  ];
  const DRAW_UNITS = 2n * 1_000n * UNITS_PER_CENT; // two winners a drawing

  it("stalls only its own campaign; a new wallet and the admin's moveDrawingWallet get it paid", async () => {
    const chain = { id: stack.deployment.chainId, name: "anvil", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [stack.rpcUrl] } } };
    const admin = createWalletClient({ account: privateKeyToAccount(ANVIL_KEYS.admin), chain, transport: http(stack.rpcUrl) });
    const operator = privateKeyToAccount(ANVIL_KEYS.operator);

    await Promise.all([newCampaign("money-a", WALLET_A, 2, TABLE), newCampaign("money-b", WALLET_B, 2, TABLE)]);
    const [a1] = await openDrawings("money-a");
    const [b1, b2] = await openDrawings("money-b");
    await postWinners("money-a", a1!.id, ["a-1", "a-2"]);
    await postWinners("money-b", b1!.id, ["b-1", "b-2"]);

    await publicClient.waitForTransactionReceipt({ hash: await admin.writeContract({ address: stack.deployment.token, abi: BlacklistStablecoinAbi, functionName: "blacklist", args: [WALLET_A] }) });
    expect(await publicClient.readContract({ address: stack.deployment.token, abi: BlacklistStablecoinAbi, functionName: "isBlacklisted", args: [WALLET_A] })).toBe(true);
    const bBefore = await balance(WALLET_B);
    expect(bBefore).toBe(0n);

    // Both campaigns reach their cutoff; the keeper runs them in the same cycles.
    await clockPast("money-a", a1!);
    await clockPast("money-b", b1!);

    const bPaid = await waitFor("B's first drawing paid", () => drawing("money-b", b1!.id), (d) => d.status === "paid");
    expect(bPaid.needsAttention).toBeNull();
    expect(bPaid.winners.map((w) => w.amountCents)).toEqual([1_000, 1_000]);
    expect(await balance(WALLET_B)).toBe(bBefore + DRAW_UNITS);

    const aStuck = await waitFor("A's drawing flagged", () => drawing("money-a", a1!.id), (d) => d.needsAttention !== null);
    expect(aStuck.status).toBe("settled");
    // The token's own error, which PrizeDraw's ABI does not declare, is named by its selector.
    expect(aStuck.needsAttention).toBe(`chain: payout refused by the contract (unknown error ${toFunctionSelector("Blacklisted(address)")}); retried every cycle`);
    expect(aStuck.winners.map((w) => w.amountCents)).toEqual([1_000, 1_000]);
    const aOnchain = await onchainDrawing("money-a", aStuck.number!);
    expect(aOnchain.status).toBe(STATUS.Settled);
    expect(aOnchain.payoutWallet.toLowerCase()).toBe(WALLET_A);
    expect(await balance(WALLET_A)).toBe(0n);

    // A later drawing of B is paid too while A stays stuck.
    await postWinners("money-b", b2!.id, ["b-3", "b-4"]);
    await clockPast("money-b", b2!);
    const b2Paid = await waitFor("B's second drawing paid", () => drawing("money-b", b2!.id), (d) => d.status === "paid");
    expect(b2Paid.number).toBe(2);
    expect(b2Paid.needsAttention).toBeNull();
    expect(await balance(WALLET_B)).toBe(bBefore + 2n * DRAW_UNITS);
    expect((await indexedPayouts("money-b")).filter((p) => p.kind === "drawing")).toHaveLength(2);
    const aStill = await drawing("money-a", a1!.id);
    expect(aStill.status).toBe("settled");
    expect(aStill.needsAttention).toMatch(/^chain: payout refused by the contract/);
    expect((await onchainDrawing("money-a", aStill.number!)).status).toBe(STATUS.Settled);
    expect((await indexedPayouts("money-a")).filter((p) => p.kind === "drawing")).toHaveLength(0);

    // The way out: a new campaign wallet (the CLI; the partner API has no wallet setting), which the keeper syncs
    // onchain before its next payout attempt. The drawing keeps the wallet of its commit until the admin moves it.
    await stack.cli("campaign", "set", "money-a", "--payout-wallet", WALLET_A_NEW);
    await waitFor("the new wallet onchain", () => onchainCampaign("money-a"), (c) => c[1].toLowerCase() === WALLET_A_NEW, 30_000);
    expect((await onchainDrawing("money-a", aStill.number!)).payoutWallet.toLowerCase()).toBe(WALLET_A);
    expect((await drawing("money-a", a1!.id)).status).toBe("settled");

    // The operator key cannot move a drawing's wallet: only the admin can.
    const refused = await publicClient
      .simulateContract({ address: stack.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "moveDrawingWallet", args: [toCampaignId("money-a"), BigInt(aStill.number!), WALLET_A_NEW], account: operator })
      .then(() => null, (error: unknown) => error);
    expect(refused).toBeInstanceOf(BaseError);
    const revert = (refused as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    expect(revert?.data?.errorName).toBe("AccessManagedUnauthorized");
    expect((revert?.data?.args?.[0] as string).toLowerCase()).toBe(operator.address.toLowerCase());
    expect((await onchainDrawing("money-a", aStill.number!)).payoutWallet.toLowerCase()).toBe(WALLET_A);

    // The admin's move, scheduled and executed after the admin delay (anvil's clock is moved past it).
    const moved = await asAdmin(stack.deployment, stack.rpcUrl, {
      address: stack.deployment.prizeDraw,
      abi: PrizeDrawAbi,
      functionName: "moveDrawingWallet",
      args: [toCampaignId("money-a"), BigInt(aStill.number!), WALLET_A_NEW],
    });
    expect(moved.status).toBe("success");
    expect((await onchainDrawing("money-a", aStill.number!)).payoutWallet.toLowerCase()).toBe(WALLET_A_NEW);

    const aPaid = await waitFor("A's drawing paid to the new wallet", () => drawing("money-a", a1!.id), (d) => d.status === "paid");
    expect(aPaid.needsAttention).toBeNull();
    expect(aPaid.number).toBe(aStill.number);
    expect(await balance(WALLET_A_NEW)).toBe(DRAW_UNITS);
    expect(await balance(WALLET_A)).toBe(0n);
    expect((await onchainDrawing("money-a", aPaid.number!)).status).toBe(STATUS.Paid);
    const aPayouts = (await indexedPayouts("money-a")).filter((p) => p.kind === "drawing");
    expect(aPayouts).toHaveLength(1);
    expect(aPayouts[0]!.wallet.toLowerCase()).toBe(WALLET_A_NEW);
    expect(Number(aPayouts[0]!.amountCents)).toBe(2_000);
    expect(await balance(WALLET_B)).toBe(bBefore + 2n * DRAW_UNITS); // B untouched by A's recovery
  });
});

describe("held prizes on the record", () => {
  const SLUG = "money-held";
  // The first top-tier roll pays 600 dollars (held: at or above the 500-dollar threshold); every other position
  // pays 5 dollars (a later top-tier roll pays tier 1), so each drawing of three winners holds exactly one prize.
  const TABLE = [
    { amountCents: 60_000, weight: 2_000_000_000 },
    { amountCents: 500, weight: 1 },
  ];
  const HELD_UNITS = 60_000n * UNITS_PER_CENT;
  const AUTO_UNITS = 2n * 500n * UNITS_PER_CENT;
  let first: DrawingBody;
  let second: DrawingBody;
  let paidHeld: WinnerBody;
  let refusedHeld: WinnerBody;

  const heldOf = (d: DrawingBody) => d.winners.filter((w) => w.heldForManualPayout === true);
  const heldList = async () => (await stack.cli("held", "list", SLUG)).heldPrizes as HeldView[];

  it("shows held prizes open next to a paid drawing, in the partner API and `held list`", async () => {
    await newCampaign(SLUG, WALLET_H, 3, TABLE, ["--large-prize-threshold", "50000"]);
    const [d1, d2] = await openDrawings(SLUG);
    await postWinners(SLUG, d1!.id, ["h-1", "h-2", "h-3"]);
    await postWinners(SLUG, d2!.id, ["h-4", "h-5", "h-6"]);
    await clockPast(SLUG, d2!); // both cutoffs pass: the keeper draws them in order
    first = await waitFor("first held drawing paid", () => drawing(SLUG, d1!.id), (d) => d.status === "paid");
    second = await waitFor("second held drawing paid", () => drawing(SLUG, d2!.id), (d) => d.status === "paid");

    for (const d of [first, second]) {
      expect(d.needsAttention).toBeNull();
      const held = heldOf(d);
      expect(held).toHaveLength(1);
      expect(held[0]).toMatchObject({ amountCents: 60_000, heldForManualPayout: true, heldPayout: { status: "open", reason: null } });
      // `paid` is the automatic transfer of the other prizes; the held one is counted apart.
      expect(d.heldPrizesOpen).toBe(1);
      for (const w of d.winners.filter((x) => x.heldForManualPayout !== true)) {
        expect(w).toMatchObject({ amountCents: 500, heldForManualPayout: false });
        expect(w).not.toHaveProperty("heldPayout");
      }
      expect(await heldState(SLUG, d.number!, held[0]!.position)).toBe(HELD.Open);
    }
    // Only the automatic transfers (two 5-dollar prizes a drawing) reached the wallet.
    expect(await balance(WALLET_H)).toBe(2n * AUTO_UNITS);
    paidHeld = heldOf(first)[0]!;
    refusedHeld = heldOf(second)[0]!;

    const [listed, everyCampaign] = await Promise.all([heldList(), stack.cli("held", "list")]);
    expect(listed).toEqual([
      { campaign: SLUG, drawingId: first.id, number: first.number, position: paidHeld.position, winner: paidHeld.winner, amountCents: 60_000, status: "open", reason: null },
      { campaign: SLUG, drawingId: second.id, number: second.number, position: refusedHeld.position, winner: refusedHeld.winner, amountCents: 60_000, status: "open", reason: null },
    ]);
    // Without a slug: every campaign's, this one's included.
    const all = everyCampaign.heldPrizes as HeldView[];
    expect(all.filter((h) => h.campaign === SLUG)).toEqual(listed);
  });

  it("refuses bad `held` input with a clear message and changes nothing", async () => {
    const before = await balance(WALLET_H);
    const notHeld = first.winners.find((w) => w.heldForManualPayout !== true)!;
    const [n2, p2] = [String(second.number), String(refusedHeld.position)];
    // Failures change nothing, so they run side by side (each CLI run is a process start).
    const cases: [string[], RegExp][] = [
      [["held", "pay", SLUG, "99", "0"], /^not_found: no held prize at drawing 99, position 0 of money-held$/],
      [["held", "pay", "no-such-campaign", "1", "0"], /^not_found: no campaign no-such-campaign$/],
      [["held", "pay", SLUG, String(first.number), String(notHeld.position)], new RegExp(`^not_found: no held prize at drawing ${first.number}, position ${notHeld.position} of money-held$`)],
      [["held", "pay", SLUG, "one", "0"], /^--NUMBER must be an integer$/],
      [["held", "refuse", SLUG, n2, p2], /^held refuse needs --reason TEXT$/],
      [["held", "refuse", SLUG, n2, p2, "--reason", "   "], /^bad_request: a refusal needs a reason of 1 to 200 characters$/],
    ];
    const results = await Promise.all(cases.map(([args]) => cliFails(...args)));
    results.forEach((result, i) => {
      const [args, detail] = cases[i]!;
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.detail, args.join(" ")).toMatch(detail);
    });

    expect(await balance(WALLET_H)).toBe(before);
    expect(await heldState(SLUG, first.number!, paidHeld.position)).toBe(HELD.Open);
    expect(await heldState(SLUG, second.number!, refusedHeld.position)).toBe(HELD.Open);
    expect((await heldList()).map((h) => h.status)).toEqual(["open", "open"]);
    expect((await drawing(SLUG, second.id)).heldPrizesOpen).toBe(1);
  });

  it("`held pay` pays a held prize once", async () => {
    const before = await balance(WALLET_H);
    const paid = await stack.cli("held", "pay", SLUG, String(first.number), String(paidHeld.position));
    expect(paid.heldPrize).toMatchObject({ campaign: SLUG, drawingId: first.id, number: first.number, position: paidHeld.position, amountCents: 60_000, status: "paid", reason: null });
    expect(await balance(WALLET_H)).toBe(before + HELD_UNITS);
    expect(await heldState(SLUG, first.number!, paidHeld.position)).toBe(HELD.Paid);

    const view = await drawing(SLUG, first.id);
    expect(view.status).toBe("paid");
    expect(view.heldPrizesOpen).toBe(0);
    expect(view.winners.find((w) => w.position === paidHeld.position)).toMatchObject({ heldForManualPayout: true, amountCents: 60_000, heldPayout: { status: "paid", reason: null } });
    // The indexer has the HeldPrizePaid transfer to the drawing's wallet.
    const indexed = await waitFor("the held payment indexed", () => indexedPayouts(SLUG), (p) => p.some((x) => x.kind === "held"), 20_000);
    const heldPayouts = indexed.filter((x) => x.kind === "held");
    expect(heldPayouts).toHaveLength(1);
    expect(heldPayouts[0]!.wallet.toLowerCase()).toBe(WALLET_H);
    expect(Number(heldPayouts[0]!.amountCents)).toBe(60_000);
    expect(Number(heldPayouts[0]!.position)).toBe(paidHeld.position);

    // A second decision on the same prize fails and changes nothing.
    const [again, refuseAfterPay] = await Promise.all([
      cliFails("held", "pay", SLUG, String(first.number), String(paidHeld.position)),
      cliFails("held", "refuse", SLUG, String(first.number), String(paidHeld.position), "--reason", "too late"),
    ]);
    expect(again.code).toBe(2);
    expect(again.detail).toMatch(/^rejected: this held prize is already paid$/);
    expect(refuseAfterPay.code).toBe(2);
    expect(refuseAfterPay.detail).toMatch(/this held prize is already paid/);
    expect(await balance(WALLET_H)).toBe(before + HELD_UNITS);
    expect(await heldState(SLUG, first.number!, paidHeld.position)).toBe(HELD.Paid);
    expect((await drawing(SLUG, first.id)).winners.find((w) => w.position === paidHeld.position)!.heldPayout).toEqual({ status: "paid", reason: null });
  });

  it("`held refuse` records the refusal and its reason once", async () => {
    const before = await balance(WALLET_H);
    const refused = await stack.cli("held", "refuse", SLUG, String(second.number), String(refusedHeld.position), "--reason", "failed KYC");
    expect(refused.heldPrize).toMatchObject({ campaign: SLUG, drawingId: second.id, number: second.number, position: refusedHeld.position, amountCents: 60_000, status: "refused", reason: "failed KYC" });
    expect(await heldState(SLUG, second.number!, refusedHeld.position)).toBe(HELD.Refused);
    expect(await balance(WALLET_H)).toBe(before);

    const view = await drawing(SLUG, second.id);
    expect(view.status).toBe("paid");
    expect(view.heldPrizesOpen).toBe(0);
    expect(view.winners.find((w) => w.position === refusedHeld.position)!.heldPayout).toEqual({ status: "refused", reason: "failed KYC" });

    const [again, payAfterRefuse] = await Promise.all([
      cliFails("held", "refuse", SLUG, String(second.number), String(refusedHeld.position), "--reason", "second thoughts"),
      cliFails("held", "pay", SLUG, String(second.number), String(refusedHeld.position)),
    ]);
    expect(again.code).toBe(2);
    expect(again.detail).toMatch(/^rejected: this held prize is already refused$/);
    expect(payAfterRefuse.code).toBe(2);
    expect(payAfterRefuse.detail).toMatch(/this held prize is already refused/);
    expect(await balance(WALLET_H)).toBe(before);
    expect(await heldState(SLUG, second.number!, refusedHeld.position)).toBe(HELD.Refused);

    // The record after the keeper mirrored the chain's events: the reason is the one sent, nothing reopened.
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await drawing(SLUG, second.id)).winners.find((w) => w.position === refusedHeld.position)!.heldPayout).toEqual({ status: "refused", reason: "failed KYC" });
    expect(await heldList()).toEqual([
      { campaign: SLUG, drawingId: first.id, number: first.number, position: paidHeld.position, winner: paidHeld.winner, amountCents: 60_000, status: "paid", reason: null },
      { campaign: SLUG, drawingId: second.id, number: second.number, position: refusedHeld.position, winner: refusedHeld.winner, amountCents: 60_000, status: "refused", reason: "failed KYC" },
    ]);
  });
});

describe("the guardian's pause onchain", () => {
  const SLUG = "money-paused";
  const TABLE = [
    { amountCents: 1_000, weight: 1 },
    { amountCents: 1_000, weight: 1 },
  ];

  it("holds a drawing's commit (flagged EnforcedPause) until the admin resumes; then it is drawn and paid", async () => {
    const chain = { id: stack.deployment.chainId, name: "anvil", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [stack.rpcUrl] } } };
    const signer = (key: Hex) => createWalletClient({ account: privateKeyToAccount(key), chain, transport: http(stack.rpcUrl) });
    const pause = async () =>
      publicClient.waitForTransactionReceipt({ hash: await signer(ANVIL_KEYS.guardian).writeContract({ address: stack.deployment.vault!, abi: PrizeVaultAbi, functionName: "pause" }) });

    await newCampaign(SLUG, WALLET_P, 2, TABLE);
    const [d] = await openDrawings(SLUG);
    await postWinners(SLUG, d!.id, ["p-1", "p-2"]);
    await waitFor("the campaign registered onchain", () => onchainCampaign(SLUG), (c) => c[0]);

    expect((await pause()).status).toBe("success");
    try {
      await clockPast(SLUG, d!);
      const waiting = await waitFor("the drawing flagged by the pause", () => drawing(SLUG, d!.id), (x) => x.needsAttention !== null);
      expect(waiting.status).toBe("locked");
      expect(waiting.number).toBeNull();
      expect(waiting.needsAttention).toMatch(/^chain: \w+ refused by the contract \(EnforcedPause\); retried every cycle$/);
      expect((await onchainCampaign(SLUG))[2]).toBe(0n); // nothing committed
    } finally {
      // The admin's resume waits out the admin delay like every admin call.
      expect((await asAdmin(stack.deployment, stack.rpcUrl, { address: stack.deployment.vault!, abi: PrizeVaultAbi, functionName: "unpause" })).status).toBe("success");
    }

    const paid = await waitFor("the drawing paid after the resume", () => drawing(SLUG, d!.id), (x) => x.status === "paid");
    expect(paid.needsAttention).toBeNull();
    expect(paid.number).toBe(1);
    expect(await balance(WALLET_P)).toBe(2n * 1_000n * UNITS_PER_CENT);
  });
});
