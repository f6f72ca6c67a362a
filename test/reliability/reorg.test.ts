// Chain reorganisations at each step of one drawing, on the real stack: anvil's `anvil_reorg` replaces
// the blocks from the step's transaction to the head with empty ones, dropping that transaction and every later
// one. Each case asserts:
//   1. no proof is served that the canonical chain contradicts (proof.json is either not served, or passes
//      `verify-draw.mjs --rpc` against the chain as it is after the reorg);
//   2. the drawing ends paid exactly once: status paid in the partner API, Paid onchain, one DrawingPaid event of it
//      on the canonical chain;
//   3. its final proof passes `verify-draw.mjs --rpc`.
// The keeper follows the chain (keeper.ts followChain/stepBack): a drawing whose step the chain no longer shows goes
// back to the status before it. Every wait is a liveness bound (60 s after the reorg), not a timing claim.
// A reorg deep enough to drop a paid drawing's commit is a case of its own, and so are the two payments outside a
// drawing's own steps: a guarantee (payGuarantee) and a held prize (payHeldPrize, sent by `prizedraw held pay`).
// For those, the end state is the same rule: the partner API, the contract's state and the canonical chain's
// events agree, with exactly one payment event. The deep case ends with finality: the partner API, draws.json and
// proof.json say the result is provisional while its blocks are near the head, and final once blocks are mined
// past them (that part waits until every other case is over: see caseEnds).
//
// The randomness provider is played by the test (PRIZEDRAW_HOLD_MOCK_REVEAL; TestProvider in support/reorg.ts): it
// answers every request of a watched drawing that is open on the canonical chain, again after a reorg dropped the
// reveal, as a provider does. Each case has its own campaign, and starts with a fresh service process (same store
// and chain), so what an earlier case left in the service's memory (its transaction counter, its cached proofs)
// does not decide the next case's setup. The same service going on across a reorg that drops several of its mined
// transactions (the port's counter then ahead of the account) is test/reliability/reorg-resend.test.ts.
// The cases run concurrently, but only their 60 s waits overlap: the part that drives the chain (setup, reorg, the
// checks right after it; for the second case all of it) runs one case at a time, in order (`serially`), so the
// first case's wait spans the later cases' restarts and reorgs.

import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { createWalletClient, http, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { TestStablecoinAbi } from "../../api/src/chain/abis.js";
import { BlacklistStablecoinAbi } from "../support/blacklistToken.js";
import { ANVIL_KEYS } from "../../api/src/config.js";
import { toCampaignId } from "../../api/src/draw/index.js";
import { mineBlocks, until } from "../support/processes.js";
import { TestProvider, chainDrawing, chainGuarantee, chainHeldPrize, publicClientFor, reorgFrom, type ChainDrawing } from "../support/reorg.js";
import { api, createAccount, startStack, type Stack } from "../support/stack.js";
import {
  campaignWithOpenDrawing,
  clockPast,
  clockTo as clockToOf,
  getDrawing,
  postWinners,
  proofUrl,
  verifyProofFile,
  waitFor as waitForOf,
  type DrawingBody,
} from "../support/partner.js";

let stack: Stack;
let key: string;
let accountId: string;
let provider: TestProvider;

const LIVENESS_MS = 60_000;

const drawing = (slug: string, id: string) => getDrawing(stack, key, slug, id, { check: false });
/**
 * One read of the service, tried again while it cannot be reached: a case's reads outside `serially` can fall
 * into another case's service restart (connection refused), which says nothing about either case.
 */
const whileUp = <T>(label: string, read: () => Promise<T>) => until(label, read, 30_000, 250);
const waitFor = <T>(label: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = LIVENESS_MS) => waitForOf(label, read, ok, ms);

/** A push campaign with one winner per draw, its first drawing's winners posted and the clock past its cutoff. */
async function drawFirst(slug: string): Promise<{ id: string; campaignId: Hex }> {
  const first = await campaignWithOpenDrawing(stack, { accountId, key }, slug, { winners: 1 });
  await postWinners(stack, key, slug, first.id, ["w1"]);
  const campaignId = toCampaignId(slug);
  provider.watch(campaignId, 1);
  await clockPast(stack, key, slug, first, { check: false });
  return { id: first.id, campaignId };
}

type Proof = { status: number; verdict: "passes" | "fails" | "not served"; out: string; finality: string | null };

/**
 * proof.json as a visitor gets it, and the served verifier's verdict with --rpc against the chain now on exactly
 * the body served (kept in a file: the verifier fetching the URL again could get another answer, e.g. a 404 once the
 * keeper has stepped the drawing back, and score that as a failure of the proof).
 */
let proofFiles = 0;
async function proof(slug: string, id: string): Promise<Proof> {
  return whileUp(`proof.json of ${slug}`, async () => {
    const response = await fetch(proofUrl(stack, slug, id));
    const body = await response.text();
    if (response.status !== 200) return { status: response.status, verdict: "not served", out: "", finality: null };
    const { code, out } = await verifyProofFile(stack, `proof-${slug}-${++proofFiles}.json`, body);
    const finality = (JSON.parse(body) as { finality?: string }).finality ?? null;
    return { status: 200, verdict: code === 0 ? "passes" : "fails", out, finality };
  });
}

type Indexed = { drawing: { status: string; randomValue: string | null } | null; payouts: number };

async function indexed(campaignId: Hex, number: number): Promise<Indexed> {
  const response = await fetch(`${stack.indexerUrl}/drawings/${campaignId}/${number}`);
  const body = response.ok ? ((await response.json()) as { drawing: { status: string; randomValue: string | null } }) : null;
  const payouts = (await (await fetch(`${stack.indexerUrl}/payouts?campaignId=${campaignId}`)).json()) as { payouts: { kind: string; number: string | null }[] };
  return {
    drawing: body ? { status: body.drawing.status, randomValue: body.drawing.randomValue } : null,
    payouts: payouts.payouts.filter((p) => p.kind === "drawing" && String(p.number) === String(number)).length,
  };
}

const chainOf = (campaignId: Hex) => chainDrawing(publicClientFor(stack.rpcUrl), stack.deployment, campaignId, 1);

/** Everything the case looks at, printed so a run shows what happened. */
async function observe(label: string, slug: string, id: string, campaignId: Hex) {
  const [service, chain, index] = [await drawing(slug, id), await chainOf(campaignId), await indexed(campaignId, 1)];
  const seen = {
    service: { status: service.status, number: service.number, entropy: service.verification.entropy, requestId: service.verification.entropyRequestId, needsAttention: service.needsAttention },
    chain: { lastNumber: chain.lastNumber, status: chain.status, randomValue: chain.randomValue, sequence: chain.sequence, paidEvents: chain.paidIn.length },
    indexer: index,
    provider: provider.log.get(`${campaignId}:1`) ?? null,
  };
  console.log(`[reorg] ${label}: ${JSON.stringify(seen)}`);
  return { service, chain, index };
}

/** The service's warnings and errors, each message once with its count (the log is JSON lines). */
function serviceWarnings(log: string): string {
  const counts = new Map<string, number>();
  for (const line of log.split("\n")) {
    let entry: { level?: number | string; msg?: string; err?: { message?: string } };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (typeof entry.level !== "number" || entry.level < 40) continue;
    const text = `${entry.msg ?? ""}: ${(entry.err?.message ?? "").split("\n")[0]!.slice(0, 160)}`;
    counts.set(text, (counts.get(text) ?? 0) + 1);
  }
  return [...counts].map(([text, n]) => `  ${n}x ${text}`).join("\n");
}

/** Requirement 2: paid exactly once, in the API and on the canonical chain. */
async function paidExactlyOnce(slug: string, id: string, campaignId: Hex): Promise<{ service: DrawingBody; chain: ChainDrawing }> {
  return waitFor(
    "paid exactly once on the canonical chain",
    async () => ({ service: await drawing(slug, id), chain: await chainOf(campaignId) }),
    ({ service, chain }) => service.status === "paid" && chain.status === "paid" && chain.paidIn.length === 1,
  );
}

/**
 * A case's end once its reorg is behind it: the proof served right after the reorg did not fail, the drawing is paid
 * exactly once on the canonical chain, and the proof served then passes. `expect`: the case's own (it runs concurrently).
 */
async function expectRecoveredOnce(expect: TestContext["expect"], label: string, slug: string, id: string, campaignId: Hex, servedAfter: Proof): Promise<void> {
  console.log(`[reorg] ${label}: proof right after the reorg: ${servedAfter.verdict}`);
  expect(servedAfter.verdict).not.toBe("fails");
  await paidExactlyOnce(slug, id, campaignId).finally(() => observe(`${label}: end`, slug, id, campaignId));
  const servedEnd = await proof(slug, id);
  console.log(`[reorg] ${label}: proof at the end: ${servedEnd.verdict}`);
  expect(servedEnd.verdict).toBe("passes");
}

beforeAll(async () => {
  // The blacklisting token (USDC's rules) lets a case freeze the prize vault.
  stack = await startStack({ extraEnv: { PRIZEDRAW_HOLD_MOCK_REVEAL: "true", PRIZEDRAW_TX_TIMEOUT_SECONDS: "3" }, deploy: { token: "blacklist" } });
  ({ accountId, key } = await createAccount(stack, "reorg@example.com"));
  provider = new TestProvider(stack.rpcUrl, stack.deployment);
  provider.start();
}, 240_000);

afterAll(async () => {
  provider?.stop();
  if (stack) console.log(`[reorg] service warnings (count, message):\n${serviceWarnings(readFileSync(path.join(stack.dataDir, "service.log"), "utf8"))}`);
  await stack?.stop();
});

/**
 * A fresh service process, the provider answering, and the slug's first drawing drawn and paid: its proof passes,
 * the indexer shows its one payout and the chain one DrawingPaid. Returns what `observe` saw then.
 */
async function paidAndIndexed(slug: string, label: string) {
  await stack.restartService();
  provider.enabled = true;
  const { id, campaignId } = await drawFirst(slug);
  await waitFor("paid", () => drawing(slug, id), (d) => d.status === "paid");
  expect((await proof(slug, id)).verdict).toBe("passes");
  const before = await waitFor("indexed as paid", () => observe(`${label}: before`, slug, id, campaignId), (o) => o.index.payouts === 1);
  expect(before.chain.paidIn.length).toBe(1);
  return { id, campaignId, before };
}

/** Runs the chain-driving part of a case after the previous case's, so two reorgs never interleave. */
let chainTurn: Promise<unknown> = Promise.resolve();
function serially<T>(work: () => Promise<T>): Promise<T> {
  const run = chainTurn.then(work, work);
  chainTurn = run.catch(() => undefined);
  return run;
}

/**
 * Each case's end, passed or failed. The finality part mines blocks, which makes every earlier block final: it
 * waits until every other case is over, so it never ends the reorg window of a step the keeper has yet to take
 * again (the keeper checks only what is not final yet).
 */
const caseEnds = new Map<string, { promise: Promise<void>; resolve: () => void }>();
function caseEnd(slug: string) {
  let end = caseEnds.get(slug);
  if (!end) {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    end = { promise, resolve };
    caseEnds.set(slug, end);
  }
  return end;
}
/** A case body that marks its end (caseEnd) however it ends. */
function tracked(slug: string, body: (context: TestContext) => Promise<void>): (context: TestContext) => Promise<void> {
  return async (context) => {
    try {
      await body(context);
    } finally {
      caseEnd(slug).resolve();
    }
  };
}

const CASE_TIMEOUT_MS = 200_000;
/** The later cases wait for the earlier cases' chain-driving parts before their own starts. */
const LATE_CASE_TIMEOUT_MS = 400_000;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Each money case pays its own wallet, so its balance shows that campaign's transfers only. */
const GUARANTEE_WALLET = "0x00000000000000000000000000000000000d20a1" as Address;
const HELD_WALLET = "0x00000000000000000000000000000000000d20a2" as Address;

type Guarantee = { id: string; period: number; status: string; amountCents: number };
type HeldView = { campaign: string; number: number; position: number; status: string };

const guarantees = async (slug: string) => (await api(stack, "GET", `/api/v1/campaigns/${slug}/guarantees`, { key })).body.guarantees as Guarantee[];
const winners = async (slug: string, id: string) => (await drawing(slug, id)).winners;
const balance = (wallet: Address) => publicClientFor(stack.rpcUrl).readContract({ address: stack.deployment.token, abi: TestStablecoinAbi, functionName: "balanceOf", args: [wallet] });
const clockTo = async (slug: string, ms: number) => {
  await clockToOf(stack, key, slug, ms);
};

/** Payouts of one kind of a campaign as the indexer has them. */
async function indexedPayouts(campaignId: Hex, kind: "guarantee" | "held"): Promise<{ period: number | null; position: number | null; txHash: string }[]> {
  const body = (await (await fetch(`${stack.indexerUrl}/payouts?campaignId=${campaignId}`)).json()) as { payouts: { kind: string; period: number | string | null; position: number | string | null; txHash: string }[] };
  return body.payouts
    .filter((p) => p.kind === kind)
    .map((p) => ({ period: p.period === null ? null : Number(p.period), position: p.position === null ? null : Number(p.position), txHash: p.txHash }));
}

/** A push campaign paying `wallet` with its own prize table, activated; its first drawing's winners posted. */
async function moneyCampaign(slug: string, wallet: Address, winnerIds: string[], tiers: { amountCents: number; weight: number }[], extra: string[]) {
  const table = path.join(stack.dataDir, `${slug}-table.json`);
  writeFileSync(table, JSON.stringify(tiers));
  const first = await campaignWithOpenDrawing(stack, { accountId, key }, slug, { winners: winnerIds.length, payoutWallet: wallet, flags: ["--prize-table", table, ...extra] });
  await postWinners(stack, key, slug, first.id, winnerIds);
  const campaignId = toCampaignId(slug);
  provider.watch(campaignId, 1);
  return { first, campaignId };
}

describe("reorgs during a drawing", () => {
  // The commit dropped: the chain has no drawing 1 and Ponder drops its row; the keeper finds no drawing onchain
  // and takes it back to locked with the same number, commits it again (a new request) and pays it.
  it.concurrent("after the commit (entropy_requested): the commit is dropped", tracked("reorg-commit", async ({ expect }) => {
    const slug = "reorg-commit";
    const { id, campaignId, servedAfter } = await serially(async () => {
      provider.enabled = false; // the request stays open until the reorg
      const { id, campaignId } = await drawFirst(slug);
      await waitFor("requested", () => drawing(slug, id), (d) => d.status === "entropy_requested");
      const before = await waitFor("indexed", () => observe("commit: before", slug, id, campaignId), (o) => o.index.drawing !== null);
      expect(before.chain.status).toBe("requested");
      const reorg = await reorgFrom(stack.rpcUrl, before.chain.committedIn[0]!);
      console.log(`[reorg] commit: anvil_reorg [${reorg.depth}, []] from block ${before.chain.committedIn[0]} (head ${reorg.head})`);
      provider.enabled = true;
      const after = await waitFor("the indexer reverted the commit", () => observe("commit: after", slug, id, campaignId), (o) => o.index.drawing === null);
      expect(after.chain.lastNumber).toBe(0);
      return { id, campaignId, servedAfter: await proof(slug, id) };
    });
    await expectRecoveredOnce(expect, "commit", slug, id, campaignId, servedAfter);
  }), CASE_TIMEOUT_MS);

  // The reveal and settle dropped while the payout waited (the token froze the vault): the chain is back at Requested; the keeper
  // takes the drawing back to entropy_requested (value, prizes and reveal cleared, so proof.json is not served from
  // the old value), the provider answers again with another value, and the drawing is settled and paid with it.
  it.concurrent("after the reveal and settle (settled): both are dropped", tracked("reorg-settle", async ({ expect }) => {
    const slug = "reorg-settle";
    // The whole case holds the chain: the next case's reorg drops every transaction from its first block on, this
    // case's own steps too, and would make its outcome depend on timing.
    const { end, servedAfter, servedEnd } = await serially(async () => {
      await stack.restartService();
      provider.enabled = true;
      // A frozen prize vault holds the drawing at settled (the token refuses the payout) until the reorg.
      const client = publicClientFor(stack.rpcUrl);
      const admin = createWalletClient({ account: privateKeyToAccount(ANVIL_KEYS.admin), chain: client.chain!, transport: http(stack.rpcUrl) });
      const vault = stack.deployment.vault!;
      await client.waitForTransactionReceipt({ hash: await admin.writeContract({ address: stack.deployment.token, abi: BlacklistStablecoinAbi, functionName: "blacklist", args: [vault] }) });
      const { id, campaignId } = await drawFirst(slug);
      await waitFor("settled, payout refused", () => drawing(slug, id), (d) => d.status === "settled" && d.needsAttention !== null);
      expect((await proof(slug, id)).verdict).toBe("passes"); // a visitor looks at the result
      const before = await observe("settle: before", slug, id, campaignId);
      expect(before.chain.status).toBe("settled");
      provider.enabled = false;
      const reorg = await reorgFrom(stack.rpcUrl, before.chain.revealedIn[0]!);
      console.log(`[reorg] settle: anvil_reorg [${reorg.depth}, []] from block ${before.chain.revealedIn[0]} (head ${reorg.head})`);
      await client.waitForTransactionReceipt({ hash: await admin.writeContract({ address: stack.deployment.token, abi: BlacklistStablecoinAbi, functionName: "unblacklist", args: [vault] }) });
      await waitFor("the indexer reverted the reveal", () => observe("settle: after", slug, id, campaignId), (o) => o.index.drawing?.randomValue === null);
      const servedAfter = await proof(slug, id);
      console.log(`[reorg] settle: proof right after the reorg: ${servedAfter.verdict}`);
      provider.enabled = true;
      const end = await paidExactlyOnce(slug, id, campaignId).finally(() => observe("settle: end", slug, id, campaignId));
      const servedEnd = await proof(slug, id);
      console.log(`[reorg] settle: proof at the end: ${servedEnd.verdict}`);
      return { end, servedAfter, servedEnd };
    });
    expect(servedAfter.verdict).not.toBe("fails");
    expect(end.service.verification.entropy).toBe(end.chain.randomValue);
    expect(servedEnd.verdict).toBe("passes");
  }), CASE_TIMEOUT_MS);

  // The payout dropped: the chain is back at Settled; the keeper, which checks paid drawings against the chain until
  // they are final, takes the drawing back to settled and pays it again, once.
  it.concurrent("after the payout (paid): the payout is dropped", tracked("reorg-payout", async ({ expect }) => {
    const slug = "reorg-payout";
    const { id, campaignId, servedAfter } = await serially(async () => {
      const { id, campaignId, before } = await paidAndIndexed(slug, "payout");
      expect(before.chain.settledIn[0]!).toBeLessThan(before.chain.paidIn[0]!); // the reorg drops the payout only
      const reorg = await reorgFrom(stack.rpcUrl, before.chain.paidIn[0]!);
      console.log(`[reorg] payout: anvil_reorg [${reorg.depth}, []] from block ${before.chain.paidIn[0]} (head ${reorg.head})`);
      await waitFor("the indexer reverted the payout", () => observe("payout: after", slug, id, campaignId), (o) => o.index.payouts === 0);
      return { id, campaignId, servedAfter: await proof(slug, id) };
    });
    await expectRecoveredOnce(expect, "payout", slug, id, campaignId, servedAfter);
  }), CASE_TIMEOUT_MS);

  // A reorg past the commit of a paid drawing: commit, reveal, settle and payout are all dropped, and the chain has
  // no drawing 1 again. The keeper's check of paid drawings not yet final finds no drawing onchain and takes it back to
  // locked with its number; it is committed, revealed, settled and paid again, once.
  it.concurrent("after the payout, reorganised past the commit: the whole drawing is dropped", tracked("reorg-deep", async ({ expect }) => {
    const slug = "reorg-deep";
    const { id, campaignId, servedAfter } = await serially(async () => {
      const { id, campaignId, before } = await paidAndIndexed(slug, "deep");
      expect(before.chain.committedIn[0]!).toBeLessThan(before.chain.paidIn[0]!); // the reorg spans every step
      const reorg = await reorgFrom(stack.rpcUrl, before.chain.committedIn[0]!);
      console.log(`[reorg] deep: anvil_reorg [${reorg.depth}, []] from the commit's block ${before.chain.committedIn[0]} past the payout's ${before.chain.paidIn[0]} (head ${reorg.head})`);
      const after = await waitFor("the indexer reverted the drawing", () => observe("deep: after", slug, id, campaignId), (o) => o.index.drawing === null);
      expect(after.chain.lastNumber).toBe(0);
      expect(after.index.payouts).toBe(0);
      const servedAfter = await proof(slug, id);
      await observe("deep: after the proof", slug, id, campaignId);
      return { id, campaignId, servedAfter };
    });
    console.log(`[reorg] deep: proof right after the reorg: ${servedAfter.verdict} (finality ${servedAfter.finality})${servedAfter.verdict === "fails" ? `\n${servedAfter.out}` : ""}`);
    // Soft: the rest of the case still runs and shows how the drawing ends.
    expect.soft(servedAfter.verdict).not.toBe("fails");
    const end = await paidExactlyOnce(slug, id, campaignId).finally(() => whileUp("the end", () => observe("deep: end", slug, id, campaignId)));
    const servedEnd = await proof(slug, id);
    console.log(`[reorg] deep: proof at the end: ${servedEnd.verdict} (finality ${servedEnd.finality})`);
    expect(servedEnd.verdict).toBe("passes");

    // Finality: not final while the drawing's blocks are within 30 blocks of the head (the finalized block is at
    // most head - 30 on the test chain), final once blocks are mined past them. The API is read before the head,
    // so the finalized block the service used is at most that head's.
    const newest = end.chain.paidIn[0]! > end.chain.revealedIn[0]! ? end.chain.paidIn[0]! : end.chain.revealedIn[0]!;
    const listed = async () => ((await (await fetch(`${stack.baseUrl}/campaigns/${slug}/draws.json`)).json()) as { draws: { id: string; final: boolean }[] }).draws.find((d) => d.id === id);
    const [provisional, provisionalItem] = [await whileUp("the drawing", () => drawing(slug, id)), await whileUp("draws.json", listed)];
    const head = await publicClientFor(stack.rpcUrl).getBlockNumber();
    console.log(`[reorg] deep: reveal in ${end.chain.revealedIn[0]}, payout in ${end.chain.paidIn[0]}, head ${head}: verification.final ${provisional.verification.final}, draws.json final ${provisionalItem?.final}, proof ${servedEnd.finality}`);
    if (head - newest < 30n) {
      expect(provisional.verification.final).toBe(false);
      expect(provisionalItem?.final).toBe(false);
      expect(servedEnd.finality).toBe("provisional");
    } else {
      console.log(`[reorg] deep: the payout is ${head - newest} blocks deep already; the not-final check is skipped`);
    }
    await Promise.all(["reorg-commit", "reorg-settle", "reorg-payout", "reorg-guarantee", "reorg-held"].filter((s) => s !== slug).map((s) => caseEnd(s).promise));
    await serially(() => mineBlocks(stack.rpcUrl, 40)); // one block at a time: Ponder can skip the blocks of one anvil_mine
    const final = await waitFor("final after 40 more blocks", () => drawing(slug, id), (d) => d.verification.final === true);
    const [servedFinal, finalItem] = [await proof(slug, id), await whileUp("draws.json", listed)];
    console.log(`[reorg] deep: after mining 40 blocks (head ${await publicClientFor(stack.rpcUrl).getBlockNumber()}): verification.final ${final.verification.final}, draws.json final ${finalItem?.final}, proof ${servedFinal.verdict} (finality ${servedFinal.finality})`);
    expect(finalItem?.final).toBe(true);
    expect(servedFinal.finality).toBe("final");
    expect(servedFinal.verdict).toBe("passes");
  }), LATE_CASE_TIMEOUT_MS);

  // A guarantee paid, then its payGuarantee dropped (the pick, in an earlier block, stays): the chain is back at
  // Picked and owes the payment again. The end: paid in the partner API and onchain, one GuaranteePaid of the period
  // on the canonical chain, and the wallet up by the guarantee once.
  it.concurrent("after a guarantee payment: the payGuarantee transfer is dropped", tracked("reorg-guarantee", async ({ expect }) => {
    const slug = "reorg-guarantee";
    const PERIOD = 1; // the service's first period; onchain period 0
    const onchain = (campaignId: Hex) => chainGuarantee(publicClientFor(stack.rpcUrl), stack.deployment, campaignId, PERIOD - 1);
    const look = async (label: string, campaignId: Hex) => {
      const [service, chain, indexer] = [(await guarantees(slug)).find((g) => g.period === PERIOD), await onchain(campaignId), await indexedPayouts(campaignId, "guarantee")];
      const seen = { service: service?.status ?? null, chain: { status: chain.status, pickedIn: chain.pickedIn.map(String), paidIn: chain.paidIn.map(String) }, indexer: indexer.length, balance: String(await balance(GUARANTEE_WALLET)) };
      console.log(`[reorg] ${label}: ${JSON.stringify(seen)}`);
      return { service, chain, indexer };
    };
    const { campaignId, before } = await serially(async () => {
      await stack.restartService();
      provider.enabled = true;
      // Periods of one day from the next full hour S (ahead of the real clock); the first draw at S+12h. Every
      // prize is 1 dollar, below the guarantee's 5-dollar threshold, so the first period needs its 20 dollars.
      const start = Math.ceil(Date.now() / HOUR) * HOUR + HOUR;
      const { first, campaignId } = await moneyCampaign(slug, GUARANTEE_WALLET, ["g-1"], [{ amountCents: 100, weight: 1 }, { amountCents: 100, weight: 1 }], [
        "--hour", String((new Date(start).getUTCHours() + 12) % 24), "--timezone", "UTC", "--starts-at", new Date(start).toISOString(), "--guarantee", "2000,500,1",
      ]);
      await clockTo(slug, new Date(first.cutoffAt).getTime() + 1_000);
      await waitFor("the first drawing paid", () => drawing(slug, first.id), (d) => d.status === "paid");
      await clockTo(slug, start + DAY + 60_000);
      const period = (await waitFor("the first period checked", () => guarantees(slug), (l) => l.some((g) => g.period === PERIOD))).find((g) => g.period === PERIOD)!;
      expect(period.status).toBe("awaiting_pick");
      const before = await balance(GUARANTEE_WALLET); // the drawing's prize only
      const picked = await api(stack, "POST", `/api/v1/campaigns/${slug}/guarantees/${period.id}/pick`, { key, body: { winner: "g-1", drawingId: first.id } });
      expect(picked.status, JSON.stringify(picked.body)).toBe(201);
      const paid = await waitFor("the guarantee paid", () => look("guarantee: before", campaignId), (o) => o.service?.status === "paid" && o.chain.status === "paid" && o.indexer.length === 1);
      expect(paid.chain.paidIn).toHaveLength(1);
      expect(paid.chain.pickedIn[0]!).toBeLessThan(paid.chain.paidIn[0]!); // the reorg drops the payment only
      expect(await balance(GUARANTEE_WALLET)).toBe(before + paid.chain.paidTokens[0]!);
      const reorg = await reorgFrom(stack.rpcUrl, paid.chain.paidIn[0]!);
      console.log(`[reorg] guarantee: anvil_reorg [${reorg.depth}, []] from the GuaranteePaid block ${paid.chain.paidIn[0]} (head ${reorg.head})`);
      const after = await waitFor("the indexer reverted the payment", () => look("guarantee: after", campaignId), (o) => o.indexer.length === 0);
      // The keeper may already have paid it again (it checks payments every cycle until final): once, never twice.
      const tokens = paid.chain.paidTokens[0]!;
      expect(after.chain.paidIn.length).toBeLessThanOrEqual(1);
      expect(after.chain.status).toBe(after.chain.paidIn.length === 0 ? "picked" : "paid");
      expect([before, before + tokens]).toContain(await balance(GUARANTEE_WALLET));
      return { campaignId, before: { balance: before, tokens } };
    });
    const end = await waitFor(
      "the guarantee paid exactly once on the canonical chain",
      () => look("guarantee: waiting", campaignId),
      (o) => o.service?.status === "paid" && o.chain.status === "paid" && o.chain.paidIn.length === 1 && o.indexer.length === 1,
    ).finally(() => whileUp("the end", () => look("guarantee: end", campaignId)));
    expect(end.chain.paidIn).toHaveLength(1);
    expect(await balance(GUARANTEE_WALLET)).toBe(before.balance + before.tokens);
  }), LATE_CASE_TIMEOUT_MS);

  // A held prize paid with `prizedraw held pay`, then its payHeldPrize dropped: the chain shows it open again. The
  // end: paid onchain, one HeldPrizePaid of the position on the canonical chain, paid in the partner API and in
  // `held list`, and the wallet up by the prize once.
  it.concurrent("after a held prize is paid: the payHeldPrize transfer is dropped", tracked("reorg-held", async ({ expect }) => {
    const slug = "reorg-held";
    const look = async (label: string, campaignId: Hex, id: string, position: number) => {
      const [service, chain, indexer] = [(await winners(slug, id)).find((w) => w.position === position), await chainHeldPrize(publicClientFor(stack.rpcUrl), stack.deployment, campaignId, 1, position), await indexedPayouts(campaignId, "held")];
      const seen = { service: service?.heldPayout ?? null, chain: { state: chain.state, paidIn: chain.paidIn.map(String) }, indexer: indexer.length, balance: String(await balance(HELD_WALLET)) };
      console.log(`[reorg] ${label}: ${JSON.stringify(seen)}`);
      return { service, chain, indexer };
    };
    const { campaignId, id, position, before } = await serially(async () => {
      await stack.restartService();
      provider.enabled = true;
      // The first top-tier roll pays 600 dollars, held (at or above the 500-dollar threshold); the other position
      // pays 5 dollars: the drawing holds exactly one prize.
      const { first, campaignId } = await moneyCampaign(slug, HELD_WALLET, ["h-1", "h-2"], [{ amountCents: 60_000, weight: 2_000_000_000 }, { amountCents: 500, weight: 1 }], ["--large-prize-threshold", "50000"]);
      await clockTo(slug, new Date(first.cutoffAt).getTime() + 1_000);
      const paidDrawing = await waitFor("the drawing paid", () => drawing(slug, first.id), (d) => d.status === "paid");
      const held = (await winners(slug, first.id)).filter((w) => w.heldForManualPayout === true);
      expect(held).toHaveLength(1);
      expect(held[0]).toMatchObject({ amountCents: 60_000, heldPayout: { status: "open", reason: null } });
      const position = held[0]!.position;
      expect(paidDrawing.number).toBe(1);
      const before = await balance(HELD_WALLET); // the 5-dollar prize only
      const paid = await stack.cli("held", "pay", slug, "1", String(position));
      expect(paid.heldPrize).toMatchObject({ status: "paid" });
      const seen = await waitFor("the held payment indexed", () => look("held: before", campaignId, first.id, position), (o) => o.chain.state === "paid" && o.indexer.length === 1);
      expect(seen.chain.paidIn).toHaveLength(1);
      const tokens = (await balance(HELD_WALLET)) - before;
      expect(tokens).toBeGreaterThan(0n);
      const reorg = await reorgFrom(stack.rpcUrl, seen.chain.paidIn[0]!);
      console.log(`[reorg] held: anvil_reorg [${reorg.depth}, []] from the HeldPrizePaid block ${seen.chain.paidIn[0]} (head ${reorg.head})`);
      const after = await waitFor("the indexer reverted the payment", () => look("held: after", campaignId, first.id, position), (o) => o.indexer.length === 0);
      // The keeper may already have sent the decision again (it checks sent decisions every cycle until final): the
      // wallet then holds the prize once more, never twice.
      expect(["open", "paid"]).toContain(after.chain.state);
      expect([before, before + tokens]).toContain(await balance(HELD_WALLET));
      return { campaignId, id: first.id, position, before: { balance: before, tokens } };
    });
    const end = await waitFor(
      "the held prize paid exactly once on the canonical chain",
      () => look("held: waiting", campaignId, id, position),
      (o) => o.service?.heldPayout?.status === "paid" && o.chain.state === "paid" && o.chain.paidIn.length === 1 && o.indexer.length === 1,
    ).finally(() => whileUp("the end", () => look("held: end", campaignId, id, position)));
    expect(end.chain.paidIn).toHaveLength(1);
    expect(await balance(HELD_WALLET)).toBe(before.balance + before.tokens);
    const listed = ((await stack.cli("held", "list", slug)).heldPrizes as HeldView[]).find((h) => h.number === 1 && h.position === position);
    expect(listed?.status).toBe("paid");
  }), LATE_CASE_TIMEOUT_MS);
});
