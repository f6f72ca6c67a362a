// A rogue operator on the real stack (anvil + PrizeDraw with MockEntropy + Ponder + the service): someone holding the
// operator key draws a list again behind the service's back. The contract refuses the drawing's own slot; under a
// made-up slot the commit goes through, and the campaign audit (`verify-draw.mjs --campaign`, the copy the service
// serves) names the number no published draw accounts for. Also what the service does with the campaign afterwards.

import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  http,
  keccak256,
  parseEventLogs,
  toHex,
  type Hex,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { MockEntropyAbi, PrizeDrawAbi } from "../../api/src/chain/abis.js";
import { ANVIL_KEYS } from "../../api/src/config.js";
import { drawingSlot, fingerprint, toCampaignId } from "../../api/src/draw/index.js";
import { createAccount, runServedVerifier, startStack, type Stack } from "../support/stack.js";
import { activeCampaign, clockPast as clockPastOf, getDrawing, openDrawings as openDrawingsOf, postWinners as postWinnersOf, waitFor, type DrawingBody } from "../support/partner.js";

const SLUG = "rogue-watch";
const CAMPAIGN_ID = toCampaignId(SLUG);
const DEFAULT_TABLE_ID = toHex("default", { size: 32 });

let stack: Stack;
let key: string;

const drawing = (id: string) => getDrawing(stack, key, SLUG, id);
const openDrawings = () => openDrawingsOf(stack, key, SLUG);
const postWinners = async (id: string, winners: string[]) => {
  await postWinnersOf(stack, key, SLUG, id, winners);
};
const clockPast = async (d: DrawingBody) => {
  await clockPastOf(stack, key, SLUG, d);
};

const drawsJsonUrl = () => `${stack.baseUrl}/campaigns/${SLUG}/draws.json`;
const audit = () => runServedVerifier(stack, ["--campaign", drawsJsonUrl(), "--rpc", stack.rpcUrl]);
const unixSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1_000);

/** The operator key, used straight on the contract (not through the service). */
function rogue() {
  const transport = http(stack.rpcUrl);
  const chain = { id: stack.deployment.chainId, name: "anvil", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [stack.rpcUrl] } } };
  const publicClient = createPublicClient({ chain, transport }) as PublicClient;
  const wallet = createWalletClient({ account: privateKeyToAccount(ANVIL_KEYS.operator), chain, transport });
  return { publicClient, wallet };
}

/** The Entropy fee at the contract's callback gas limit: at least what any batch's request costs (the rest is refunded). */
async function entropyFee(publicClient: PublicClient): Promise<bigint> {
  const limit = await publicClient.readContract({ address: stack.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "callbackGasLimit" });
  return publicClient.readContract({ address: stack.deployment.entropy, abi: MockEntropyAbi, functionName: "getFeeV2", args: [stack.deployment.entropyProvider, limit] });
}

const lastNumberOnchain = async (publicClient: PublicClient) =>
  (await publicClient.readContract({ address: stack.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "getCampaign", args: [CAMPAIGN_ID] }))[2];

/** A re-commit of `of`'s list (its own winners commitment, count and the default table) as `number`. */
function recommit(of: DrawingBody, number: bigint, slot: Hex, drawAt: number) {
  return {
    campaignId: CAMPAIGN_ID,
    number,
    slot,
    drawAt,
    kind: 0,
    listCommitment: of.verification.winnersCommitment as Hex,
    winnersExpected: of.winnersExpected,
    entrantCount: 0,
    totalWeight: 0n,
    tableId: DEFAULT_TABLE_ID,
    tableVersion: 1,
  } as const;
}

/** The contract's custom error in a viem error (name and arguments), or null. */
function revertOf(error: unknown): { errorName: string; args: readonly unknown[] } | null {
  if (!(error instanceof BaseError)) return null;
  const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(revert instanceof ContractFunctionRevertedError) || !revert.data) return null;
  return { errorName: revert.data.errorName, args: revert.data.args ?? [] };
}

beforeAll(async () => {
  stack = await startStack();
  const account = await createAccount(stack, "rogue-watch@example.com");
  key = account.key;
  await activeCampaign(stack, account.accountId, SLUG, { name: "Rogue watch", winners: 2 });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

describe("the campaign audit against a rogue operator", () => {
  let first: DrawingBody;
  let second: DrawingBody;

  it("an honest campaign: two paid drawings, every commit accounted for", async () => {
    const [a, b] = await openDrawings();
    expect(a && b).toBeTruthy();
    await postWinners(a!.id, ["alice", "bob"]);
    await postWinners(b!.id, ["carol", "dave"]);
    await clockPast(b!); // both cutoffs pass: they lock and commit in order
    first = await waitFor("drawing 1 paid", () => drawing(a!.id), (d) => d.status === "paid");
    second = await waitFor("drawing 2 paid", () => drawing(b!.id), (d) => d.status === "paid");
    expect([first.number, second.number]).toEqual([1, 2]);
    expect(second.verification.winnersCommitment).toBe(fingerprint(["carol", "dave"]));

    const draws = (await (await fetch(drawsJsonUrl())).json()) as { campaign: { campaignId: string }; draws: { id: string; number: number | null; slot: string }[] };
    expect(draws.campaign.campaignId).toBe(CAMPAIGN_ID);
    expect(draws.draws.find((d) => d.number === 2)?.slot).toBe(drawingSlot(second.id));

    const { code, out } = await audit();
    expect(out).toMatch(/^2 of 2 commits accounted for$/m);
    expect(out).not.toMatch(/✘/);
    expect(code).toBe(0);
  });

  it("refuses the last drawing's list again under its own slot (SlotAlreadyUsed)", async () => {
    const { publicClient, wallet } = rogue();
    const fee = await entropyFee(publicClient);
    const slot = drawingSlot(second.id);
    const args = [[recommit(second, 3n, slot, unixSeconds(second.drawAt) + 1)], fee] as const;
    const error = await wallet.writeContract({ address: stack.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "commitAndRequest", args, value: fee }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).not.toBeNull();
    expect(revertOf(error)).toEqual({ errorName: "SlotAlreadyUsed", args: [CAMPAIGN_ID, slot, 2n] });
    expect(await lastNumberOnchain(publicClient)).toBe(2n);
  });

  it("takes it under a made-up slot onchain, and the audit names the number no draw accounts for", async () => {
    const { publicClient, wallet } = rogue();
    const fee = await entropyFee(publicClient);
    const slot = keccak256(toHex(`drw_rogue_${second.id}`));
    const hash = await wallet.writeContract({
      address: stack.deployment.prizeDraw,
      abi: PrizeDrawAbi,
      functionName: "commitAndRequest",
      args: [[recommit(second, 3n, slot, unixSeconds(second.drawAt) + 1)], fee],
      value: fee,
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    const events = parseEventLogs({ abi: PrizeDrawAbi, logs: receipt.logs });
    const committed = events.find((e) => e.eventName === "DrawingCommitted");
    expect(committed?.args).toMatchObject({ campaignId: CAMPAIGN_ID, number: 3n, slot });
    const requested = events.find((e) => e.eventName === "EntropyRequested");
    expect(requested?.args).toMatchObject({ number: 3n, fee });
    expect(await lastNumberOnchain(publicClient)).toBe(3n);

    const { code, out } = await audit();
    expect(out).toMatch(/✘ #3: committed onchain \(slot [^)]*\) but draws\.json lists no draw #3/);
    expect(out).toMatch(/^2 of 3 commits accounted for$/m);
    expect(out).not.toMatch(/✘ #[12]:/);
    expect(code).toBe(1);

    // The public page says so too, once the indexer has the rogue commit.
    const pageText = async () => (await (await fetch(`${stack.baseUrl}/campaigns/${SLUG}`)).text()).replace(/<[^>]+>/g, "");
    const text = await waitFor("the page counting 3 commits", pageText, (t) => t.includes("3 drawings were committed onchain"));
    expect(text).toContain("3 drawings were committed onchain, 2 are published here.");
    expect(text).toContain("1 onchain commit is not published here.");
  });

  // After the rogue #3 (draw time just after #2's), the keeper numbers its next drawing max(own last, chain's last) + 1
  // = 4 and commits it: the contract takes it (number in sequence, own slot, later draw time). What shows: the
  // number 3 missing from draws.json, the audit naming #3 while #4 passes, and the service flagging the drawing
  // (needsAttention names number 3) with a foreign_commit alert in its log.
  it("the service draws its next drawing as #4 around the rogue #3; draws.json shows the gap and the audit stays red", async () => {
    const [next] = await openDrawings();
    expect(next).toBeTruthy();
    await postWinners(next!.id, ["erin", "frank"]);
    await clockPast(next!);
    const paid = await waitFor("the next drawing paid", () => drawing(next!.id), (d) => d.status === "paid");
    expect(paid.number).toBe(4);
    expect(paid.needsAttention).toBe("number 3 was committed onchain outside this service: the operator key may be in other hands (rotate it); the campaign audit names them");
    expect(readFileSync(path.join(stack.dataDir, "service.log"), "utf8")).toMatch(/"alert":"foreign_commit".*"numbers":\[3,3\]/);

    const draws = (await (await fetch(drawsJsonUrl())).json()) as { draws: { id: string; number: number | null; stage: string }[] };
    expect(draws.draws.filter((d) => d.number !== null).map((d) => d.number).sort()).toEqual([1, 2, 4]);

    const { code, out } = await audit();
    expect(out).toMatch(/✘ #3: committed onchain \(slot [^)]*\) but draws\.json lists no draw #3/);
    expect(out).toContain(`✔ #4 ${next!.id}: proof (version 6) verified with --rpc`);
    expect(out).toMatch(/^3 of 4 commits accounted for$/m);
    expect(code).toBe(1);
  });

  // A rogue commit with a draw time beyond the service's next drawing: the service's commit is refused
  // (DrawTimeNotLater) and the drawing is flagged, not silently skipped or renumbered into the rogue's place.
  it("a rogue commit dated after the next drawing: the service's commit is refused and the drawing flagged", async () => {
    const [next] = await openDrawings();
    expect(next).toBeTruthy();
    const { publicClient, wallet } = rogue();
    const fee = await entropyFee(publicClient);
    const lastPaid = await waitFor("draws.json's #4", async () => {
      const draws = (await (await fetch(drawsJsonUrl())).json()) as { draws: { id: string; number: number | null }[] };
      return draws.draws.find((d) => d.number === 4);
    }, (d) => d !== undefined);
    const of = await drawing(lastPaid!.id);
    const hash = await wallet.writeContract({
      address: stack.deployment.prizeDraw,
      abi: PrizeDrawAbi,
      functionName: "commitAndRequest",
      args: [[recommit(of, 5n, keccak256(toHex(`drw_rogue_${of.id}`)), unixSeconds(next!.drawAt) + 60)], fee],
      value: fee,
    });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
    expect(await lastNumberOnchain(publicClient)).toBe(5n);

    await postWinners(next!.id, ["grace", "heidi"]);
    await clockPast(next!);
    const flagged = await waitFor("the next drawing flagged", () => drawing(next!.id), (d) => d.needsAttention !== null);
    expect(flagged.needsAttention).toMatch(/^chain: commitAndRequest refused by the contract \(DrawTimeNotLater\)/);
    expect(flagged.status).toBe("locked");
    expect(await lastNumberOnchain(publicClient)).toBe(5n);

    const { code, out } = await audit();
    expect(out).toMatch(/✘ #3: committed onchain .* but draws\.json lists no draw #3/);
    expect(out).toMatch(/✘ #5: committed onchain .* but draws\.json lists no draw #5/);
    expect(out).toMatch(/^3 of 5 commits accounted for$/m);
    expect(code).toBe(1);
  });
});
