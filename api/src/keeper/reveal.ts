import { randomBytes } from "node:crypto";
import { toHex, type Hex } from "viem";
import { ChainRevertError, OnchainDrawingStatus } from "../chain/port.js";
import { campaignNow } from "../domain/campaigns.js";
import { ENTROPY_LATE, settled } from "../domain/drawingLife.js";
import { fingerprint, selectWinners, toCampaignId } from "../draw/index.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing } from "../store/drawings.js";
import { requestProvider } from "./commit.js";
import type { KeeperContext } from "./context.js";
import { stepBack } from "./follow.js";

/** Positions per settle() transaction. */
const SETTLE_BATCH = 1_000n;
/** PrizeDraw.reRequest's refusals that mean "not now" (or "never again"), not a fault. */
const NOT_DUE_FOR_REREQUEST = new Set(["RevealNotTimedOut", "AlreadyReRequested", "CallbackFailedRetryIt", "NotAwaitingReveal"]);

/**
 * Randomness requests still open onchain, each once (a batch's drawings share one): one past the contract's
 * reveal timeout is re-requested; the test environment's MockEntropy is revealed by the keeper; a real
 * provider's failed callback is delivered again.
 */
export async function revealRequests(ctx: KeeperContext, campaignIds: readonly string[]): Promise<void> {
  const { store, chain, config } = ctx.deps;
  const requests = new Map<string, { campaign: Campaign; drawing: Drawing }>();
  for (const id of campaignIds) {
    const campaign = await store.campaigns.byId(id);
    if (!campaign) continue;
    for (const drawing of await store.drawings.unfinished(id)) {
      if (drawing.status !== "entropy_requested" || drawing.entropyRequestId === null) continue;
      const key = `${drawing.entropyProvider}:${drawing.entropyRequestId}`;
      if (!requests.has(key)) requests.set(key, { campaign, drawing });
    }
  }
  await Promise.all(
    [...requests.values()].map(({ campaign, drawing }) =>
      ctx.attempt(campaign, drawing, async () => {
        const onchain = await chain.getDrawing(toCampaignId(campaign.slug), BigInt(drawing.number!));
        if (onchain.status !== OnchainDrawingStatus.Requested) return;
        // First, as the contract allows: past the timeout, or after a reveal that came too late to use (more
        // than 256 blocks after the request, when its block hash was gone: say a service stopped that long).
        if (await reRequestIfDue(ctx, campaign, drawing)) return;
        // The test environment's mock is revealed at once.
        if (chain.deployment.mockEntropy && !config.holdMockReveal) {
          await chain.revealMock(onchain.sequence, toHex(randomBytes(32)));
          return;
        }
        if (!chain.deployment.mockEntropy) await retryFailedCallback(ctx, drawing);
      }),
    ),
  );
}

/**
 * A request the provider has not revealed within the contract's `revealTimeoutBlocks` is re-requested, once, in
 * public (PrizeDraw.reRequest, for the whole batch). The contract decides when: before the timeout, after a
 * re-request (by this keeper or anyone) and for a failed callback it refuses, and that refusal only means "not
 * now". Returns whether this call re-requested it.
 */
async function reRequestIfDue(ctx: KeeperContext, campaign: Campaign, drawing: Drawing): Promise<boolean> {
  try {
    const receipt = await ctx.deps.chain.reRequest(toCampaignId(campaign.slug), BigInt(drawing.number!));
    ctx.deps.logger.warn(
      { alert: "entropy_rerequested", campaign: campaign.slug, drawingId: drawing.id, previousSequence: drawing.entropyRequestId, tx: receipt.transactionHash },
      "randomness re-requested in public: the provider did not reveal within the contract's timeout",
    );
    return true;
  } catch (error) {
    if (error instanceof ChainRevertError && NOT_DUE_FOR_REREQUEST.has(error.errorName)) return false;
    throw error;
  }
}

/**
 * A callback that failed (Entropy recorded it with callbackFailed) is delivered again through Entropy's retry
 * path with the same user and provider contributions, so the random value is the same one; the drawing is
 * never requested a second time. Returns whether a retry was sent.
 */
async function retryFailedCallback(ctx: KeeperContext, drawing: Drawing): Promise<boolean> {
  const { chain, logger } = ctx.deps;
  if (chain.deployment.mockEntropy || !drawing.entropyProvider || drawing.entropyRequestId === null) return false;
  const events = await chain.revealedEvents(drawing.entropyProvider as Hex, BigInt(drawing.entropyRequestId), BigInt(chain.deployment.deployBlock));
  const failed = events.find((e) => e.args.callbackFailed === true);
  if (!failed || events.some((e) => e.args.callbackFailed === false)) return false;
  await chain.retryCallback(drawing.entropyProvider as Hex, BigInt(drawing.entropyRequestId), failed.args.userContribution!, failed.args.providerContribution!);
  logger.info({ drawingId: drawing.id, sequence: drawing.entropyRequestId }, "failed randomness callback delivered again");
  return true;
}

/** A campaign's requested drawings: settled onchain, winners selected (entries), and mirrored from the indexer. */
export async function settleRequested(ctx: KeeperContext, campaignId: string): Promise<void> {
  const { store } = ctx.deps;
  const campaign = await store.campaigns.byId(campaignId);
  if (!campaign) return;
  for (const drawing of await store.drawings.unfinished(campaignId)) {
    if (drawing.status === "entropy_requested") await ctx.attempt(campaign, drawing, () => settle(ctx, campaign, drawing));
  }
}

/** Finishes settlement onchain once revealed, and copies the prizes from the indexer. */
async function settle(ctx: KeeperContext, campaign: Campaign, requestedDrawing: Drawing): Promise<void> {
  const { store, chain, config, logger } = ctx.deps;
  const campaignId = toCampaignId(campaign.slug);
  const number = BigInt(requestedDrawing.number!);
  let drawing = requestedDrawing;
  if (drawing.entropyProvider === null) {
    const provider = await requestProvider(ctx, campaignId, number).catch(() => null);
    if (provider !== null) {
      drawing = { ...drawing, entropyProvider: provider };
      await store.drawings.update(drawing);
    }
  }
  let onchain = await ctx.drawingOnchain(campaignId, number);
  if (onchain === null) {
    await stepBack(ctx, campaign, drawing, "locked", "the commit is no longer on the chain");
    return;
  }
  if (onchain.status === OnchainDrawingStatus.Requested && String(onchain.sequence) !== drawing.entropyRequestId) {
    // Re-requested (by this keeper or anyone): the drawing now waits for the new request.
    const { provider } = await chain.requestOf(campaignId, number);
    drawing = {
      ...drawing,
      entropyRequestId: String(onchain.sequence),
      entropyProvider: chain.deployment.mockEntropy ? drawing.entropyProvider : provider.toLowerCase(),
    };
    await store.drawings.update(drawing);
  }
  if (onchain.status === OnchainDrawingStatus.Requested) {
    // The provider's callback has not come (yet). Past the timeout the drawing is flagged; it stays requested
    // until the contract's reveal timeout allows its one public re-request (revealRequests): asking for another
    // value at will would let whoever asks choose among outcomes. The commit came after the
    // lock, so the indexer (which knows the commit's time) is asked only once the lock is that old.
    const sinceLock = (campaignNow(campaign).getTime() - Date.parse(drawing.lockedAt ?? drawing.cutoffAt)) / 1000;
    if (sinceLock <= config.entropyTimeoutSeconds) return;
    const committed = await ctx.indexed(campaignId, number);
    const waited = committed ? Date.now() / 1000 - Number(committed.drawing.commitTimestamp) : 0;
    if (waited > config.entropyTimeoutSeconds && drawing.needsAttention !== ENTROPY_LATE) {
      await store.drawings.update({ ...drawing, needsAttention: ENTROPY_LATE });
      logger.warn({ alert: "entropy_late", campaign: campaign.slug, drawingId: drawing.id, waitedSeconds: Math.round(waited) }, "randomness callback overdue");
    }
    return;
  }
  while (onchain.status === OnchainDrawingStatus.Revealed) {
    await chain.settle(campaignId, number, SETTLE_BATCH);
    onchain = await chain.getDrawing(campaignId, number);
  }
  let current = drawing;
  if (campaign.mode === "entries") current = await selectAndRecord(ctx, drawing, campaignId, number, onchain.randomValue, onchain.winnersCommitment);
  const indexed = await ctx.indexed(campaignId, number);
  if (!indexed || indexed.prizes.length !== indexed.drawing.prizeCount || indexed.drawing.randomValue === null || indexed.drawing.winnersCommitment === null) return;
  // The indexer may still show a reveal a reorg dropped (Ponder reverts it on its next poll): mirror only what
  // the chain says now.
  if (indexed.drawing.randomValue.toLowerCase() !== onchain.randomValue.toLowerCase()) return;
  const next = settled(campaign, current, { ...indexed.drawing, randomValue: indexed.drawing.randomValue });
  await store.tx(async () => {
    await store.drawings.setPrizes(
      drawing.id,
      indexed.prizes.map((p) => ({ position: p.position, randomValue: p.randomValue, roll: Number(p.roll), amountCents: Number(p.amountCents), held: p.held })),
    );
    await store.drawings.update(next);
  });
}

/**
 * Entries campaigns, once the random value is known: the winners are selected exactly as DESIGN.md section 6
 * says (the verifier repeats it), stored as the drawing's winner list, and their commitment recorded onchain.
 */
async function selectAndRecord(ctx: KeeperContext, drawing: Drawing, campaignId: Hex, number: bigint, randomValue: Hex, recorded: Hex): Promise<Drawing> {
  const { store, chain } = ctx.deps;
  let current = drawing;
  if (current.winnersCommitment === null) {
    const entrants = await store.entries.all(drawing.id);
    const positions = selectWinners({ entropy: randomValue, campaignId, number, weights: entrants.map((e) => BigInt(e.weight)), count: drawing.winnersExpected });
    const winners = positions.map((p) => entrants[p]!);
    current = { ...drawing, winnersCommitment: fingerprint(winners.map((w) => w.entrantId)) };
    await store.tx(async () => {
      await store.drawings.replaceWinners(drawing.id, winners.map((w) => ({ winnerId: w.entrantId, displayName: w.displayName, avatarUrl: w.avatarUrl })));
      await store.drawings.update(current);
    });
  }
  if (/^0x0+$/.test(recorded)) await chain.recordWinners(campaignId, number, current.winnersCommitment as Hex);
  else if (recorded.toLowerCase() !== current.winnersCommitment?.toLowerCase()) throw new Error(`drawing ${drawing.id}: another winners commitment is recorded onchain`);
  return current;
}
