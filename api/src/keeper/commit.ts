import { toHex, type Hex } from "viem";
import type { CommitInput } from "../chain/port.js";
import { numbered, requested } from "../domain/drawingLife.js";
import { drawingSlot, toCampaignId } from "../draw/index.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing } from "../store/drawings.js";
import { batchGroups, fitsBlock, inParallel, maxCommitBatch } from "./batches.js";
import { CAMPAIGN_CONCURRENCY, type KeeperContext } from "./context.js";

type Committable = { campaign: Campaign; campaignId: Hex; drawing: Drawing & { number: number }; commit: CommitInput };

/**
 * Commits every locked drawing that can go: campaigns and tables are put onchain first (side by side), each
 * drawing gets its number in the store before any transaction (a retry targets the same number), and the
 * drawings of all campaigns go out together in batches, each under one randomness request.
 */
export async function commitLocked(ctx: KeeperContext, campaignIds: readonly string[]): Promise<void> {
  const { store, chain } = ctx.deps;
  const groups: Committable[][] = [];
  await inParallel(campaignIds, CAMPAIGN_CONCURRENCY, (id) =>
    ctx.guard(id, async () => {
      const campaign = await store.campaigns.byId(id);
      const locked = (await store.drawings.unfinished(id)).filter((d) => d.status === "locked");
      if (!campaign || locked.length === 0) return;
      const group = await readyToCommit(ctx, campaign, locked);
      if (group.length > 0) groups.push(group);
    }),
  );
  if (groups.length === 0) return;
  const maxSize = maxCommitBatch(await chain.callbackBudget());
  await Promise.all(batchGroups(groups, maxSize).map((batch) => commitBatch(ctx, batch)));
}

/**
 * A campaign's locked drawings, in number order, that are ready for a commit. One committed by an earlier,
 * interrupted run is moved on here instead; one that cannot go stops the drawings after it (the contract takes
 * numbers and draw times in order).
 */
async function readyToCommit(ctx: KeeperContext, campaign: Campaign, locked: readonly Drawing[]): Promise<Committable[]> {
  const { store, chain } = ctx.deps;
  const campaignId = toCampaignId(campaign.slug);
  await ctx.ensureCampaignOnchain(campaign, campaignId);
  const ready: Committable[] = [];
  for (const start of locked) {
    const outcome = await ctx.attempt(campaign, start, async () => {
      const table = await store.prizeTables.get(start.tableId, start.tableVersion);
      if (!table) throw new Error(`prize table ${start.tableId} v${start.tableVersion} missing`);
      await ctx.ensureTableOnchain(table);
      const drawing = await numberOf(ctx, campaign, campaignId, start);
      const entrants = campaign.mode === "entries";
      const listCommitment = (entrants ? drawing.entrantsCommitment : drawing.winnersCommitment) as Hex;
      const onchain = await ctx.drawingOnchain(campaignId, BigInt(drawing.number));
      if (onchain !== null) {
        if (onchain.listCommitment.toLowerCase() !== listCommitment.toLowerCase()) {
          throw new Error(`drawing ${drawing.id}: number ${drawing.number} is committed onchain with another list`);
        }
        // Committed by a run that stopped before recording it: the random value is requested either way.
        const provider = chain.deployment.mockEntropy ? "mock" : await requestProvider(ctx, campaignId, BigInt(drawing.number)).catch(() => null);
        await store.drawings.update(requested(drawing, { provider, requestId: onchain.sequence.toString() }));
        return "committed" as const;
      }
      const commit: CommitInput = {
        campaignId,
        number: BigInt(drawing.number),
        slot: drawingSlot(drawing.id),
        drawAt: Math.floor(Date.parse(drawing.drawAt) / 1_000),
        kind: entrants ? 1 : 0,
        listCommitment,
        winnersExpected: drawing.winnersExpected,
        entrantCount: entrants ? drawing.entrantCount : 0,
        totalWeight: entrants ? BigInt(drawing.totalWeight) : 0n,
        tableId: toHex(table.id, { size: 32 }),
        tableVersion: table.version,
      };
      return { campaign, campaignId, drawing, commit };
    });
    if (outcome === null) break;
    if (outcome !== "committed") ready.push(outcome);
  }
  return ready;
}

/** Fixes a drawing's number in the store (once): the next after every number this service or the chain gave. */
async function numberOf(ctx: KeeperContext, campaign: Campaign, campaignId: Hex, drawing: Drawing): Promise<Drawing & { number: number }> {
  const { store, chain, logger } = ctx.deps;
  if (drawing.number !== null) return { ...drawing, number: drawing.number };
  const ours = await store.drawings.maxNumber(campaign.id);
  const onchainLast = Number((await chain.getCampaign(campaignId)).lastNumber);
  const next = numbered(drawing, ours, onchainLast);
  if (next.foreignCommit) {
    logger.warn({ alert: "foreign_commit", campaign: campaign.slug, drawingId: drawing.id, numbers: [ours + 1, onchainLast] }, "numbers committed onchain outside this service");
  }
  await store.drawings.update(next.drawing);
  return next.drawing;
}

/**
 * Commits a batch in one transaction. A batch too large for its share of a block is split; a batch the
 * contract refuses is sent drawing by drawing, so only the drawing at fault is flagged and the rest go on.
 */
async function commitBatch(ctx: KeeperContext, batch: readonly Committable[]): Promise<void> {
  const { chain, store } = ctx.deps;
  if (batch.length > 1) {
    const fits = await fitsOneBlock(ctx, () => chain.estimateCommit(batch.map((b) => b.commit)));
    if (fits === null) {
      for (const one of batch) await commitBatch(ctx, [one]);
      return;
    }
    if (!fits) {
      const half = Math.ceil(batch.length / 2);
      await commitBatch(ctx, batch.slice(0, half));
      await commitBatch(ctx, batch.slice(half));
      return;
    }
  }
  const first = batch[0]!;
  const receipt = await ctx.attempt(first.campaign, first.drawing, () => chain.commitAndRequest(batch.map((b) => b.commit)));
  if (receipt === null) return;
  const events = chain.events(receipt).flatMap((e) => (e.eventName === "EntropyRequested" ? [e.args] : []));
  for (const { campaign, campaignId, drawing } of batch) {
    const event = events.find((e) => e.campaignId.toLowerCase() === campaignId.toLowerCase() && e.number === BigInt(drawing.number));
    const current = (await store.drawings.byId(campaign.id, drawing.id)) ?? drawing;
    await store.drawings.update(
      requested(
        { ...current, number: drawing.number },
        {
          provider: chain.deployment.mockEntropy ? "mock" : (event?.provider.toLowerCase() ?? null),
          requestId: event ? event.sequence.toString() : null,
          commitTx: receipt.transactionHash,
        },
      ),
    );
  }
}

/** Whether a call's gas fits the share of a block one batch may take; null when the contract refuses it. */
export async function fitsOneBlock(ctx: KeeperContext, estimate: () => Promise<bigint>): Promise<boolean | null> {
  try {
    const [gas, block] = await Promise.all([estimate(), ctx.deps.chain.blockGasLimit()]);
    return fitsBlock(gas, block);
  } catch {
    return null;
  }
}

/** The provider a drawing's randomness was requested from (EntropyRequested, as indexed); null until indexed. */
export async function requestProvider(ctx: KeeperContext, campaignId: Hex, number: bigint): Promise<string | null> {
  const indexed = await ctx.indexed(campaignId, number);
  return indexed?.drawing.provider ?? null;
}
