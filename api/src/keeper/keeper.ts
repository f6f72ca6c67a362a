import { randomBytes } from "node:crypto";
import { toHex, type Hex } from "viem";
import type { Config } from "../config.js";
import type { IndexerClient } from "../chain/indexer.js";
import { ChainRevertError, OnchainDrawingStatus, type ChainPort, type CommitInput, type DrawingRef } from "../chain/port.js";
import { campaignNow, endIfFinished, planDrawings } from "../domain/campaigns.js";
import { drawingSlot, entrantsCommitment, fingerprint, selectWinners, toCampaignId, winnerHash, type PrizeTable } from "../draw/index.js";
import type { Logger } from "../logger.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing } from "../store/drawings.js";
import type { Store } from "../store/index.js";
import { Limiter, batchGroups, fitsBlock, inParallel, maxCommitBatch } from "./batches.js";
import { runGuarantees } from "./guarantees.js";
import { pruneExpired } from "./housekeeping.js";
import { recheckHeldDecisions } from "./heldPrizes.js";
import { KeeperLease } from "./lease.js";
import { PullTimer, type PullDeps } from "./pull.js";
import { SerialRun } from "./serialRun.js";
import { WebhookTimer } from "./webhooks.js";

/** Positions per settle() transaction. */
const SETTLE_BATCH = 1_000n;
export const NO_WINNERS_AT_CUTOFF = "no winners at the cutoff: extend the cutoff (prizedraw drawing extend-cutoff) and send the list";
/** Flags set by chain faults; cleared by the keeper once the drawing moves on again. */
export const CHAIN_FAULT_PREFIX = "chain: ";
export const ENTROPY_LATE = `${CHAIN_FAULT_PREFIX}no random value yet from the randomness provider; waiting for its callback (a failed callback is delivered again through Entropy's revealWithCallback; a value not revealed within the contract's reveal timeout is re-requested once, in public)`;
const SECONDS_PER_DAY = 86_400n;
/** PrizeDraw.reRequest's refusals that mean "not now" (or "never again"), not a fault. */
const NOT_DUE_FOR_REREQUEST = new Set(["RevealNotTimedOut", "AlreadyReRequested", "CallbackFailedRetryIt", "NotAwaitingReveal"]);
/**
 * The chain's last number is ahead of every number this service gave out: someone committed with the operator key
 * outside the service (or the store was restored from an older copy). Kept on the drawing (not a chain fault, so
 * never cleared automatically); the campaign audit (verify-draw.mjs --campaign) names the numbers.
 */
export const foreignCommitNote = (first: number, last: number): string =>
  `number${first === last ? ` ${first} was` : `s ${first} to ${last} were`} committed onchain outside this service: the operator key may be in other hands (rotate it); the campaign audit names them`;
export const NO_ENTRANTS_AT_CUTOFF = "no entrants at the cutoff: extend the cutoff (prizedraw drawing extend-cutoff) and send entries";

export type KeeperDeps = {
  store: Store;
  chain: ChainPort;
  indexer: IndexerClient;
  config: Pick<Config, "env" | "keeperIntervalSeconds" | "pullAllowHttpLoopback" | "entropyTimeoutSeconds" | "holdMockReveal" | "chainFinality" | "localChain"> &
    Partial<Pick<Config, "webhookRetryBaseMs">>;
  logger: Logger;
  /** Tests: fetches a pull URL instead of the real fetcher. */
  pullFetch?: PullDeps["fetchList"];
};

/**
 * Campaigns prepared, settled or finished side by side. Their chain sends are pipelined by the port, so this
 * bounds the reads in flight (store, node, indexer) rather than the transactions: a registration waits a block
 * for its receipt, and a thousand campaigns due at once must not wait in rows of a few.
 */
const CAMPAIGN_CONCURRENCY = 512;
/** Questions to the indexer in flight at once (see Limiter). */
const INDEXER_CONCURRENCY = 8;
/** Payouts tried in one transaction at most; a larger set goes out as several, all in flight at once. */
const MAX_PAYOUT_BATCH = 200;

/** Thrown between a cycle's phases when this process no longer holds the keeper lease: the cycle stops there. */
class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

type Committable = { campaign: Campaign; campaignId: Hex; drawing: Drawing & { number: number }; commit: CommitInput };
type Payable = { campaign: Campaign; ref: DrawingRef; drawing: Drawing };

/**
 * Moves drawings on: creates them ahead, locks lists at the cutoff, commits and requests randomness, reveals
 * (MockEntropy in test), settles, pays, and mirrors the results from indexed chain data. Every step reads the
 * chain first, so a step interrupted at any point (crash, restart) resumes without a second number or payout.
 *
 * A cycle covers every campaign at once, in phases: lists are locked campaign by campaign (side by side); the
 * locked drawings of all campaigns are committed together, in as few transactions as the callback's gas budget
 * and the block gas limit allow, each under one randomness request; requested drawings are revealed, settled and
 * mirrored campaign by campaign; settled drawings are paid together (payoutMany). The port keeps several
 * transactions in flight, so a cycle's sends share blocks instead of waiting one block each.
 *
 * Only the holder of the keeper lease (keeper/lease.ts) does any of this: several service processes may share one
 * store, and the others stand by. Cycles, pull fetches and webhook sends start when the lease is taken and stop
 * when it is lost; a cycle confirms the lease between its phases and each drawing's step checks it first.
 */
export class Keeper {
  private timer: NodeJS.Timeout | undefined;
  /** Cycles run one at a time; a request during one queues exactly one more after it. */
  private readonly cycles = new SerialRun(() =>
    this.lease.holds()
      ? this.cycle().catch((error: unknown) => {
          if (error instanceof LeaseLostError) this.deps.logger.warn("keeper cycle stopped: this process no longer holds the keeper lease");
          else this.deps.logger.error({ err: describe(error) }, "keeper cycle failed");
        })
      : Promise.resolve(),
  );
  /** Pull fetches run on their own slots, not on this cycle (see keeper/pull.ts). */
  private readonly pulls: PullTimer;
  /** Webhook deliveries run on their own timer too (see keeper/webhooks.ts). */
  private readonly webhooks: WebhookTimer;
  private readonly indexerCalls = new Limiter(INDEXER_CONCURRENCY);
  /** Tables published onchain (or being published) by this process, by id and version. */
  private readonly tablesOnchain = new Map<string, Promise<void>>();
  /** The keeper lease: this process works only while it holds it. */
  private readonly lease: KeeperLease;

  constructor(private readonly deps: KeeperDeps) {
    const { store, logger, config, pullFetch } = deps;
    this.pulls = new PullTimer({ store, logger, allowLoopback: config.pullAllowHttpLoopback, ...(pullFetch ? { fetchList: pullFetch } : {}) });
    const testBaseMs = config.env === "test" ? (config.webhookRetryBaseMs ?? null) : null;
    this.webhooks = new WebhookTimer({ store, logger, allowLoopback: config.env === "test" && config.pullAllowHttpLoopback, retry: { testBaseMs } });
    this.lease = new KeeperLease({ store, logger, onAcquired: () => this.startWork(), onLost: () => this.stopWork() });
  }

  /** Starts the lease loop: the work starts once this process holds the lease (at once when it is free). */
  start(): void {
    // The lease's tries never reject (keeper/lease.ts): they log their failures.
    void this.lease.start();
  }

  /**
   * Stops the work and releases the lease, so a standby process takes over at its next try. A cycle under way is
   * not waited for: it stops at its next step, which finds the lease gone.
   */
  async stop(): Promise<void> {
    this.stopWork();
    await this.lease.stop();
  }

  /** Whether this process holds the keeper lease (and so runs the keeper); shown by /ready. */
  holdsLease(): boolean {
    return this.lease.holds();
  }

  private startWork(): void {
    if (this.timer) return;
    const tick = () => void this.runAll();
    this.timer = setInterval(tick, this.deps.config.keeperIntervalSeconds * 1_000);
    tick();
    this.pulls.start();
    this.webhooks.start();
  }

  private stopWork(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.pulls.stop();
    this.webhooks.stop();
  }

  /**
   * One cycle over every campaign; a request while one runs queues exactly one more after it. Nothing when this
   * process does not hold the keeper lease (the holder's own cycles cover every campaign).
   */
  runAll(): Promise<void> {
    if (!this.lease.holds()) return Promise.resolve();
    return this.cycles.run();
  }

  /** A campaign changed (a list arrived, the clock moved): the next cycle covers it with the others. */
  runCampaign(_campaignId: string): Promise<void> {
    return this.runAll();
  }

  /** Between phases: the lease is checked against the store, and a cycle that lost it stops here. */
  private async confirmLease(): Promise<void> {
    if (!(await this.lease.confirm())) throw new LeaseLostError();
  }

  private async cycle(): Promise<void> {
    await this.confirmLease();
    const campaigns = (await this.deps.store.campaigns.drawable()).map((c) => c.id);
    await this.readFinality();
    const pruned = await pruneExpired(this.deps.store);
    if (pruned.idempotencyKeys + pruned.portalRows + pruned.webhookEvents > 0) this.deps.logger.info(pruned, "deleted records past their retention");
    await this.confirmLease();
    await inParallel(campaigns, CAMPAIGN_CONCURRENCY, (id) => this.guard(id, () => this.prepare(id)));
    await this.confirmLease();
    await this.commitLocked(campaigns);
    await this.confirmLease();
    await this.revealRequests(campaigns);
    await this.confirmLease();
    await inParallel(campaigns, CAMPAIGN_CONCURRENCY, (id) => this.guard(id, () => this.settleRequested(id)));
    await this.confirmLease();
    await this.paySettled(campaigns);
    await this.confirmLease();
    await inParallel(campaigns, CAMPAIGN_CONCURRENCY, (id) => this.guard(id, () => this.finish(id)));
    // New drawings, an extended cutoff or a moved test clock change when the next pull slot comes.
    await this.pulls.arm();
    // Events the cycle wrote go out now rather than at the timer's next look.
    await this.webhooks.arm();
  }

  private async guard(campaignId: string, work: () => Promise<void>): Promise<void> {
    if (!this.lease.holds()) return;
    try {
      await work();
    } catch (error) {
      this.deps.logger.warn({ campaignId, err: describe(error) }, "campaign cycle stopped; retrying next cycle");
    }
  }

  /**
   * Runs one drawing's step: a contract refusal is flagged on the drawing until a step succeeds; any failure is
   * logged and retried next cycle, and the other drawings go on.
   */
  private async attempt<T>(campaign: Campaign, drawing: Drawing, step: () => Promise<T>): Promise<T | null> {
    if (!this.lease.holds()) return null;
    try {
      return await step();
    } catch (error) {
      await this.flagChainFault(campaign, drawing, error);
      this.deps.logger.warn({ campaignId: campaign.id, drawingId: drawing.id, err: describe(error) }, "drawing step failed; retrying next cycle");
      return null;
    }
  }

  /** Plans drawings ahead, pulls lists due, locks lists at their cutoff. */
  private async prepare(campaignId: string): Promise<void> {
    const { store } = this.deps;
    const campaign = await store.campaigns.byId(campaignId);
    if (!campaign || campaign.status === "draft") return;
    // Planned from the campaign as it is inside the transaction: an edit committed since the read above (a pause,
    // an end, an earlier end date) has deleted drawings that a stale copy would create again.
    await store.tx(async () => {
      const current = await store.campaigns.byId(campaignId);
      if (current) await planDrawings(store, current);
    });
    const unfinished = await store.drawings.unfinished(campaign.id);
    for (const drawing of unfinished) {
      if (drawing.status !== "open") continue;
      await this.pulls.pull(campaign, drawing);
      const fresh = await store.drawings.byId(campaign.id, drawing.id);
      if (fresh?.status === "open") await this.lock((await store.campaigns.byId(campaignId))!, fresh);
    }
    // A new campaign is registered and its table published ahead of its first commit, so its draw time does not
    // wait two blocks for them (each commit still checks the chain first).
    if (campaign.status === "active" && campaign.onchainWallet === null) {
      await this.ensureCampaignOnchain(campaign, toCampaignId(campaign.slug));
      const next = unfinished.find((d) => d.status === "open");
      const table = next ? await store.prizeTables.get(next.tableId, next.tableVersion) : null;
      if (table) await this.ensureTableOnchain(table);
    }
  }

  /** Held prizes, guarantees and the campaign's end, after the drawings moved. */
  private async finish(campaignId: string): Promise<void> {
    await this.recheckPaid(campaignId);
    await this.mirrorHeldPrizes(campaignId);
    await recheckHeldDecisions(this.deps, campaignId);
    await runGuarantees(this.deps, campaignId);
    await endIfFinished(this.deps.store, campaignId);
  }

  /**
   * Reads the chain's finalized (or safe) block once a cycle: what is at or below it is final, and what is above
   * it is checked against the chain each cycle. A failed read keeps the last one (finality never moves ahead of
   * what the node said).
   */
  private async readFinality(): Promise<void> {
    const { store, chain, config, logger } = this.deps;
    try {
      const block = await chain.finalizedBlock(config.chainFinality);
      await store.finality.set(Number(block), new Date().toISOString());
    } catch (error) {
      logger.warn({ err: describe(error), tag: config.chainFinality }, "could not read the chain's finalized block; keeping the last one");
    }
  }

  /** A contract refusal (e.g. the prize pool cannot cover a payout) shows on the drawing until the step succeeds. */
  private async flagChainFault(campaign: Campaign, drawing: Drawing, error: unknown): Promise<void> {
    if (!(error instanceof ChainRevertError)) return;
    const note = `${CHAIN_FAULT_PREFIX}${error.functionName} refused by the contract (${error.errorName}); retried every cycle`;
    await this.deps.store.tx(async () => {
      const current = await this.deps.store.drawings.byId(campaign.id, drawing.id);
      if (current && current.needsAttention !== note) await this.deps.store.drawings.update({ ...current, needsAttention: note });
    });
  }

  /** Stores a drawing that moved on; a chain fault flagged on it is over. */
  private async moved(next: Drawing): Promise<Drawing> {
    const cleared = next.needsAttention?.startsWith(CHAIN_FAULT_PREFIX) ? { ...next, needsAttention: null } : next;
    await this.deps.store.drawings.update(cleared);
    return cleared;
  }

  /** At the cutoff: lock a full list (fingerprint recorded, table fixed) or flag the drawing. */
  private async lock(campaign: Campaign, drawing: Drawing): Promise<Drawing | null> {
    const { store } = this.deps;
    const now = campaignNow(campaign);
    if (now.toISOString() < drawing.cutoffAt) return null;
    if (campaign.mode === "entries") return this.lockEntrants(campaign, drawing, now);
    return store.tx(async () => {
      const current = await store.drawings.byId(campaign.id, drawing.id);
      if (!current || current.status !== "open") return current;
      const winners = await store.drawings.winners(current.id);
      if (winners.length !== current.winnersExpected) {
        if (current.needsAttention !== NO_WINNERS_AT_CUTOFF) await store.drawings.update({ ...current, needsAttention: NO_WINNERS_AT_CUTOFF });
        return null;
      }
      const locked: Drawing = {
        ...current,
        status: "locked",
        lockedAt: now.toISOString(),
        winnersCommitment: fingerprint(winners.map((w) => w.winnerId)),
        needsAttention: null,
      };
      await store.drawings.update(locked);
      return locked;
    });
  }

  /** Entries campaigns: the entrant list locks in arrival order and its commitment is fixed. */
  private lockEntrants(campaign: Campaign, drawing: Drawing, now: Date): Promise<Drawing | null> {
    const { store } = this.deps;
    return store.tx(async () => {
      const current = await store.drawings.byId(campaign.id, drawing.id);
      if (!current || current.status !== "open") return current;
      if (current.entrantCount === 0) {
        if (current.needsAttention !== NO_ENTRANTS_AT_CUTOFF) await store.drawings.update({ ...current, needsAttention: NO_ENTRANTS_AT_CUTOFF });
        return null;
      }
      await store.entries.assignPositions(current.id);
      const entrants = await store.entries.all(current.id);
      const locked: Drawing = {
        ...current,
        status: "locked",
        lockedAt: now.toISOString(),
        entrantsCommitment: entrantsCommitment(entrants.map((e) => ({ idHash: winnerHash(e.entrantId), weight: BigInt(e.weight) }))),
        needsAttention: null,
      };
      await store.drawings.update(locked);
      return locked;
    });
  }

  /**
   * Entries campaigns, once the random value is known: the winners are selected exactly as DESIGN.md section 6
   * says (the verifier repeats it), stored as the drawing's winner list, and their commitment recorded onchain.
   */
  private async selectAndRecord(campaign: Campaign, drawing: Drawing, campaignId: Hex, number: bigint, randomValue: Hex, recorded: Hex): Promise<Drawing> {
    const { store, chain } = this.deps;
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

  /**
   * Commits every locked drawing that can go: campaigns and tables are put onchain first (side by side), each
   * drawing gets its number in the store before any transaction (a retry targets the same number), and the
   * drawings of all campaigns go out together in batches, each under one randomness request.
   */
  private async commitLocked(campaignIds: readonly string[]): Promise<void> {
    const { store } = this.deps;
    const groups: Committable[][] = [];
    await inParallel(campaignIds, CAMPAIGN_CONCURRENCY, (id) =>
      this.guard(id, async () => {
        const campaign = await store.campaigns.byId(id);
        const locked = (await store.drawings.unfinished(id)).filter((d) => d.status === "locked");
        if (!campaign || locked.length === 0) return;
        const group = await this.readyToCommit(campaign, locked);
        if (group.length > 0) groups.push(group);
      }),
    );
    if (groups.length === 0) return;
    const maxSize = maxCommitBatch(await this.deps.chain.callbackBudget());
    await Promise.all(batchGroups(groups, maxSize).map((batch) => this.commitBatch(batch)));
  }

  /**
   * A campaign's locked drawings, in number order, that are ready for a commit. One committed by an earlier,
   * interrupted run is moved on here instead; one that cannot go stops the drawings after it (the contract takes
   * numbers and draw times in order).
   */
  private async readyToCommit(campaign: Campaign, locked: readonly Drawing[]): Promise<Committable[]> {
    const { store, chain } = this.deps;
    const campaignId = toCampaignId(campaign.slug);
    await this.ensureCampaignOnchain(campaign, campaignId);
    const ready: Committable[] = [];
    for (const start of locked) {
      const outcome = await this.attempt(campaign, start, async () => {
        const table = await store.prizeTables.get(start.tableId, start.tableVersion);
        if (!table) throw new Error(`prize table ${start.tableId} v${start.tableVersion} missing`);
        await this.ensureTableOnchain(table);
        const drawing = await this.numbered(campaign, campaignId, start);
        const entrants = campaign.mode === "entries";
        const listCommitment = (entrants ? drawing.entrantsCommitment : drawing.winnersCommitment) as Hex;
        const onchain = await this.drawingOnchain(campaignId, BigInt(drawing.number));
        if (onchain !== null) {
          if (onchain.listCommitment.toLowerCase() !== listCommitment.toLowerCase()) {
            throw new Error(`drawing ${drawing.id}: number ${drawing.number} is committed onchain with another list`);
          }
          // Committed by a run that stopped before recording it: the random value is requested either way.
          const provider = chain.deployment.mockEntropy ? "mock" : await this.requestProvider(campaignId, BigInt(drawing.number)).catch(() => null);
          await this.moved({ ...drawing, status: "entropy_requested", entropyProvider: provider, entropyRequestId: onchain.sequence.toString() });
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
  private async numbered(campaign: Campaign, campaignId: Hex, drawing: Drawing): Promise<Drawing & { number: number }> {
    const { store, chain } = this.deps;
    if (drawing.number !== null) return { ...drawing, number: drawing.number };
    const ours = await store.drawings.maxNumber(campaign.id);
    const onchainLast = Number((await chain.getCampaign(campaignId)).lastNumber);
    const number = Math.max(ours, onchainLast) + 1;
    const needsAttention = onchainLast > ours ? foreignCommitNote(ours + 1, onchainLast) : drawing.needsAttention;
    if (onchainLast > ours) {
      this.deps.logger.warn({ alert: "foreign_commit", campaign: campaign.slug, drawingId: drawing.id, numbers: [ours + 1, onchainLast] }, "numbers committed onchain outside this service");
    }
    const next = { ...drawing, number, needsAttention };
    await store.drawings.update(next);
    return next;
  }

  /**
   * Commits a batch in one transaction. A batch too large for its share of a block is split; a batch the
   * contract refuses is sent drawing by drawing, so only the drawing at fault is flagged and the rest go on.
   */
  private async commitBatch(batch: readonly Committable[]): Promise<void> {
    const { chain, store } = this.deps;
    if (batch.length > 1) {
      const fits = await this.fitsBlock(() => chain.estimateCommit(batch.map((b) => b.commit)));
      if (fits === null) {
        for (const one of batch) await this.commitBatch([one]);
        return;
      }
      if (!fits) {
        const half = Math.ceil(batch.length / 2);
        await this.commitBatch(batch.slice(0, half));
        await this.commitBatch(batch.slice(half));
        return;
      }
    }
    const first = batch[0]!;
    const receipt = await this.attempt(first.campaign, first.drawing, () => chain.commitAndRequest(batch.map((b) => b.commit)));
    if (receipt === null) return;
    const requested = chain.events(receipt).flatMap((e) => (e.eventName === "EntropyRequested" ? [e.args] : []));
    for (const { campaign, campaignId, drawing } of batch) {
      const event = requested.find((e) => e.campaignId.toLowerCase() === campaignId.toLowerCase() && e.number === BigInt(drawing.number));
      const current = (await store.drawings.byId(campaign.id, drawing.id)) ?? drawing;
      await this.moved({
        ...current,
        number: drawing.number,
        status: "entropy_requested",
        entropyProvider: chain.deployment.mockEntropy ? "mock" : (event?.provider.toLowerCase() ?? null),
        entropyRequestId: event ? event.sequence.toString() : null,
        commitTx: receipt.transactionHash,
      });
    }
  }

  /** Whether a call's gas fits the share of a block one batch may take; null when the contract refuses it. */
  private async fitsBlock(estimate: () => Promise<bigint>): Promise<boolean | null> {
    try {
      const [gas, block] = await Promise.all([estimate(), this.deps.chain.blockGasLimit()]);
      return fitsBlock(gas, block);
    } catch {
      return null;
    }
  }

  /** A drawing as the chain has it; null when the chain has no such drawing (never committed, or a reorg dropped it). */
  private drawingOnchain(campaignId: Hex, number: bigint) {
    return this.deps.chain.getDrawing(campaignId, number).catch((error: unknown) => {
      if (isDrawingNotFound(error)) return null;
      throw error;
    });
  }

  /** A drawing as the indexer has it (null: not indexed yet), one of at most INDEXER_CONCURRENCY questions. */
  private indexed(campaignId: Hex, number: bigint) {
    return this.indexerCalls.run(() => this.deps.indexer.drawing(campaignId, number));
  }

  /** The provider a drawing's randomness was requested from (EntropyRequested, as indexed); null until indexed. */
  private async requestProvider(campaignId: Hex, number: bigint): Promise<string | null> {
    const indexed = await this.indexed(campaignId, number);
    return indexed?.drawing.provider ?? null;
  }

  /**
   * A callback that failed (Entropy recorded it with callbackFailed) is delivered again through Entropy's retry
   * path with the same user and provider contributions, so the random value is the same one; the drawing is
   * never requested a second time. Returns whether a retry was sent.
   */
  private async retryFailedCallback(drawing: Drawing): Promise<boolean> {
    const { chain } = this.deps;
    if (chain.deployment.mockEntropy || !drawing.entropyProvider || drawing.entropyRequestId === null) return false;
    const events = await chain.revealedEvents(drawing.entropyProvider as Hex, BigInt(drawing.entropyRequestId), BigInt(chain.deployment.deployBlock));
    const failed = events.find((e) => e.args.callbackFailed === true);
    if (!failed || events.some((e) => e.args.callbackFailed === false)) return false;
    await chain.retryCallback(drawing.entropyProvider as Hex, BigInt(drawing.entropyRequestId), failed.args.userContribution!, failed.args.providerContribution!);
    this.deps.logger.info({ drawingId: drawing.id, sequence: drawing.entropyRequestId }, "failed randomness callback delivered again");
    return true;
  }

  /**
   * A request the provider has not revealed within the contract's `revealTimeoutBlocks` is re-requested, once, in
   * public (PrizeDraw.reRequest, for the whole batch). The contract decides when: before the timeout, after a
   * re-request (by this keeper or anyone) and for a failed callback it refuses, and that refusal only means "not
   * now". Returns whether this call re-requested it.
   */
  private async reRequestIfDue(campaign: Campaign, drawing: Drawing): Promise<boolean> {
    try {
      const receipt = await this.deps.chain.reRequest(toCampaignId(campaign.slug), BigInt(drawing.number!));
      this.deps.logger.warn(
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
   * Randomness requests still open onchain, each once (a batch's drawings share one): one past the contract's
   * reveal timeout is re-requested; the test environment's MockEntropy is revealed by the keeper; a real
   * provider's failed callback is delivered again.
   */
  private async revealRequests(campaignIds: readonly string[]): Promise<void> {
    const { store, chain, config } = this.deps;
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
        this.attempt(campaign, drawing, async () => {
          const onchain = await chain.getDrawing(toCampaignId(campaign.slug), BigInt(drawing.number!));
          if (onchain.status !== OnchainDrawingStatus.Requested) return;
          // First, as the contract allows: past the timeout, or after a reveal that came too late to use (more
          // than 256 blocks after the request, when its block hash was gone: say a service stopped that long).
          if (await this.reRequestIfDue(campaign, drawing)) return;
          // The test environment's mock is revealed at once.
          if (chain.deployment.mockEntropy && !config.holdMockReveal) {
            await chain.revealMock(onchain.sequence, toHex(randomBytes(32)));
            return;
          }
          if (!chain.deployment.mockEntropy) await this.retryFailedCallback(drawing);
        }),
      ),
    );
  }

  /** A campaign's requested drawings: settled onchain, winners selected (entries), and mirrored from the indexer. */
  private async settleRequested(campaignId: string): Promise<void> {
    const { store } = this.deps;
    const campaign = await store.campaigns.byId(campaignId);
    if (!campaign) return;
    for (const drawing of await store.drawings.unfinished(campaignId)) {
      if (drawing.status === "entropy_requested") await this.attempt(campaign, drawing, () => this.settle(campaign, drawing));
    }
  }

  /** Finishes settlement onchain once revealed, and copies the prizes from the indexer. */
  private async settle(campaign: Campaign, requestedDrawing: Drawing): Promise<void> {
    const { store, chain } = this.deps;
    const campaignId = toCampaignId(campaign.slug);
    const number = BigInt(requestedDrawing.number!);
    let drawing = requestedDrawing;
    if (drawing.entropyProvider === null) {
      const provider = await this.requestProvider(campaignId, number).catch(() => null);
      if (provider !== null) {
        drawing = { ...drawing, entropyProvider: provider };
        await store.drawings.update(drawing);
      }
    }
    let onchain = await this.drawingOnchain(campaignId, number);
    if (onchain === null) {
      await this.stepBack(campaign, drawing, "locked", "the commit is no longer on the chain");
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
      if (sinceLock <= this.deps.config.entropyTimeoutSeconds) return;
      const committed = await this.indexed(campaignId, number);
      const waited = committed ? Date.now() / 1000 - Number(committed.drawing.commitTimestamp) : 0;
      if (waited > this.deps.config.entropyTimeoutSeconds && drawing.needsAttention !== ENTROPY_LATE) {
        await store.drawings.update({ ...drawing, needsAttention: ENTROPY_LATE });
        this.deps.logger.warn({ alert: "entropy_late", campaign: campaign.slug, drawingId: drawing.id, waitedSeconds: Math.round(waited) }, "randomness callback overdue");
      }
      return;
    }
    while (onchain.status === OnchainDrawingStatus.Revealed) {
      await chain.settle(campaignId, number, SETTLE_BATCH);
      onchain = await chain.getDrawing(campaignId, number);
    }
    let current = drawing;
    if (campaign.mode === "entries") current = await this.selectAndRecord(campaign, drawing, campaignId, number, onchain.randomValue, onchain.winnersCommitment);
    const indexed = await this.indexed(campaignId, number);
    if (!indexed || indexed.prizes.length !== indexed.drawing.prizeCount || indexed.drawing.randomValue === null || indexed.drawing.winnersCommitment === null) return;
    // The indexer may still show a reveal a reorg dropped (Ponder reverts it on its next poll): mirror only what
    // the chain says now.
    if (indexed.drawing.randomValue.toLowerCase() !== onchain.randomValue.toLowerCase()) return;
    const entropyRevealedAt = onCampaignClock(campaign, indexed.drawing.revealTimestamp, current.lockedAt);
    const next: Drawing = {
      ...current,
      status: "settled",
      entropyProvider: current.entropyProvider ?? indexed.drawing.provider ?? null,
      entropyValue: indexed.drawing.randomValue,
      entropyRevealedAt,
      settledAt: onCampaignClock(campaign, indexed.drawing.settleTimestamp, entropyRevealedAt ?? current.lockedAt),
      revealTx: indexed.drawing.revealTx,
      revealBlock: indexed.drawing.revealBlock === null ? null : Number(indexed.drawing.revealBlock),
    };
    await store.tx(async () => {
      await store.drawings.setPrizes(
        drawing.id,
        indexed.prizes.map((p) => ({ position: p.position, randomValue: p.randomValue, roll: Number(p.roll), amountCents: Number(p.amountCents), held: p.held })),
      );
      await this.moved(next);
    });
  }

  /**
   * Pays every settled drawing the chain shows unpaid, of all campaigns together (payoutMany, as many
   * transactions as the block gas allows, all in flight at once), then marks paid what the indexer shows paid.
   */
  private async paySettled(campaignIds: readonly string[]): Promise<void> {
    const { store } = this.deps;
    const payable: Payable[] = [];
    await inParallel(campaignIds, CAMPAIGN_CONCURRENCY, (id) =>
      this.guard(id, async () => {
        const campaign = await store.campaigns.byId(id);
        const settled = (await store.drawings.unfinished(id)).filter((d) => d.status === "settled");
        if (!campaign || settled.length === 0) return;
        const campaignId = toCampaignId(campaign.slug);
        let walletChecked = false;
        for (const drawing of settled) {
          await this.attempt(campaign, drawing, async () => {
            const onchain = await this.followChain(campaign, drawing);
            if (onchain?.status !== OnchainDrawingStatus.Settled) return;
            // The drawing pays the wallet its commit recorded; a wallet change still reaches the chain first,
            // for the commits that follow.
            if (!walletChecked) await this.ensureCampaignOnchain(campaign, campaignId);
            walletChecked = true;
            payable.push({ campaign, drawing, ref: { campaignId, number: BigInt(drawing.number!) } });
          });
        }
      }),
    );
    const batches: Payable[][] = [];
    for (let i = 0; i < payable.length; i += MAX_PAYOUT_BATCH) batches.push(payable.slice(i, i + MAX_PAYOUT_BATCH));
    await Promise.all(batches.map((batch) => this.payBatch(batch)));
    await inParallel(campaignIds, CAMPAIGN_CONCURRENCY, (id) => this.guard(id, () => this.mirrorPaid(id)));
  }

  /** Pays a batch in one transaction; split to fit the block, or paid one by one when the contract refuses it. */
  private async payBatch(batch: readonly Payable[]): Promise<void> {
    const { chain } = this.deps;
    if (batch.length === 1) {
      const [only] = batch;
      await this.attempt(only!.campaign, only!.drawing, () => chain.payout(only!.ref.campaignId, only!.ref.number));
      return;
    }
    const fits = await this.fitsBlock(() => chain.estimatePayout(batch.map((b) => b.ref)));
    if (fits === null) {
      await Promise.all(batch.map((one) => this.payBatch([one])));
      return;
    }
    if (!fits) {
      const half = Math.ceil(batch.length / 2);
      await Promise.all([this.payBatch(batch.slice(0, half)), this.payBatch(batch.slice(half))]);
      return;
    }
    const first = batch[0]!;
    await this.attempt(first.campaign, first.drawing, () => chain.payoutMany(batch.map((b) => b.ref)));
  }

  /**
   * The chain's view of a settled or paid drawing, after stepping the drawing back where a reorg took the chain
   * back: no drawing (the commit dropped: locked again, same number), not yet settled or another random value (the
   * reveal dropped: requested again, its mirrored value and prizes cleared), settled while the store says paid
   * (the payout dropped: settled again, paid once more). Null when the drawing was stepped back to before settled.
   */
  private async followChain(campaign: Campaign, drawing: Drawing) {
    const onchain = await this.drawingOnchain(toCampaignId(campaign.slug), BigInt(drawing.number!));
    if (onchain === null) {
      await this.stepBack(campaign, drawing, "locked", "the commit is no longer on the chain");
      return null;
    }
    if (onchain.status < OnchainDrawingStatus.Settled || onchain.randomValue.toLowerCase() !== drawing.entropyValue?.toLowerCase()) {
      await this.stepBack(campaign, drawing, "entropy_requested", "the reveal is no longer on the chain, or another one is");
      return null;
    }
    if (drawing.status === "paid" && onchain.status === OnchainDrawingStatus.Settled) {
      await this.stepBack(campaign, drawing, "settled", "the payout is no longer on the chain");
      return onchain;
    }
    if (drawing.status === "paid" && (drawing.revealBlock === null || drawing.paidBlock === null)) await this.recordBlocks(campaign, drawing);
    return onchain;
  }

  /**
   * Paid drawings not yet final (their reveal or payout above the chain's finalized block), checked against the
   * chain every cycle (followChain) until they are. Before the first finality read nothing is checked.
   */
  private async recheckPaid(campaignId: string): Promise<void> {
    const { store } = this.deps;
    const campaign = await store.campaigns.byId(campaignId);
    const finalized = await store.finality.get();
    if (!campaign || !finalized) return;
    for (const drawing of await store.drawings.paidNotFinal(campaignId, finalized.block)) await this.attempt(campaign, drawing, () => this.followChain(campaign, drawing));
  }

  /** A paid drawing without its blocks (paid before they were recorded): the indexer has them. */
  private async recordBlocks(campaign: Campaign, drawing: Drawing): Promise<void> {
    const indexed = await this.indexed(toCampaignId(campaign.slug), BigInt(drawing.number!));
    if (indexed?.drawing.status !== "paid" || indexed.drawing.randomValue?.toLowerCase() !== drawing.entropyValue?.toLowerCase()) return;
    const { revealBlock, paidBlock } = indexed.drawing;
    await this.deps.store.tx(async () => {
      const fresh = await this.deps.store.drawings.byId(campaign.id, drawing.id);
      if (fresh?.status === "paid") await this.deps.store.drawings.update({ ...fresh, revealBlock: revealBlock === null ? null : Number(revealBlock), paidBlock: paidBlock === null ? null : Number(paidBlock) });
    });
  }

  /**
   * Moves a drawing back to an earlier status because the chain no longer shows a step the store recorded. What
   * that step mirrored is cleared (an entries drawing's selected winners with its random value), so the keeper
   * takes the step again from the canonical chain; the number stays, and the contract still refuses a second
   * number or payout.
   */
  private async stepBack(campaign: Campaign, drawing: Drawing, to: "locked" | "entropy_requested" | "settled", reason: string): Promise<void> {
    const { store, logger } = this.deps;
    logger.warn({ alert: "reorg", campaign: campaign.slug, drawingId: drawing.id, number: drawing.number, from: drawing.status, to }, `${reason}: the drawing goes back to ${to}`);
    const next: Drawing = { ...drawing, status: to, paidAt: null, paidBlock: null };
    if (to !== "settled") {
      Object.assign(next, { entropyValue: null, entropyRevealedAt: null, settledAt: null, revealTx: null, revealBlock: null });
      if (campaign.mode === "entries") next.winnersCommitment = null;
    }
    if (to === "locked") Object.assign(next, { entropyProvider: null, entropyRequestId: null, commitTx: null });
    await store.tx(async () => {
      if (to !== "settled") await store.drawings.clearPrizes(drawing.id);
      await store.drawings.update(next);
    });
  }

  /** Marks paid the settled drawings the indexer shows paid (the chain, cheaper to ask, first). */
  private async mirrorPaid(campaignId: string): Promise<void> {
    const { store, chain } = this.deps;
    const campaign = await store.campaigns.byId(campaignId);
    if (!campaign) return;
    for (const drawing of await store.drawings.unfinished(campaignId)) {
      if (drawing.status !== "settled") continue;
      const onchain = await chain.getDrawing(toCampaignId(campaign.slug), BigInt(drawing.number!));
      if (onchain.status !== OnchainDrawingStatus.Paid) continue;
      const indexed = await this.indexed(toCampaignId(campaign.slug), BigInt(drawing.number!));
      if (!indexed || indexed.drawing.status !== "paid") continue;
      await this.moved({
        ...drawing,
        status: "paid",
        paidAt: onCampaignClock(campaign, indexed.drawing.paidTimestamp, drawing.settledAt ?? drawing.lockedAt),
        paidBlock: indexed.drawing.paidBlock === null ? null : Number(indexed.drawing.paidBlock),
      });
    }
  }

  private async ensureCampaignOnchain(campaign: Campaign, campaignId: Hex): Promise<void> {
    const { chain, store } = this.deps;
    const onchain = await chain.getCampaign(campaignId);
    const want = campaign.payoutWallet as Hex | null;
    if (!onchain.registered) {
      const guarantee = campaign.guarantee
        ? { cents: BigInt(campaign.guarantee.amountCents), periodSeconds: BigInt(campaign.guarantee.periodDays) * SECONDS_PER_DAY }
        : { cents: 0n, periodSeconds: 0n };
      await chain.registerCampaign(campaignId, (want ?? "0x0000000000000000000000000000000000000000") as Hex, BigInt(campaign.largePrizeThresholdCents), guarantee);
    } else {
      if (want && onchain.payoutWallet.toLowerCase() !== want.toLowerCase()) await chain.setPayoutWallet(campaignId, want);
      if (onchain.largePrizeThresholdCents !== BigInt(campaign.largePrizeThresholdCents)) await chain.setLargePrizeThreshold(campaignId, BigInt(campaign.largePrizeThresholdCents));
    }
    await store.tx(async () => {
      const fresh = await store.campaigns.byId(campaign.id);
      if (fresh) await store.campaigns.update({ ...fresh, onchainWallet: want, onchainThresholdCents: campaign.largePrizeThresholdCents });
    });
  }

  /** Publishes a table onchain once per process (concurrent callers share the one publish). */
  private ensureTableOnchain(table: PrizeTable): Promise<void> {
    const key = `${table.id}:${table.version}`;
    let publishing = this.tablesOnchain.get(key);
    if (!publishing) {
      publishing = this.publishTable(table).catch((error: unknown) => {
        this.tablesOnchain.delete(key);
        throw error;
      });
      this.tablesOnchain.set(key, publishing);
    }
    return publishing;
  }

  private async publishTable(table: PrizeTable): Promise<void> {
    const { chain } = this.deps;
    const tableId = toHex(table.id, { size: 32 });
    try {
      await chain.publishPrizeTable(tableId, table.version, table.tiers.map((t) => BigInt(t.amountCents)), table.tiers.map((t) => BigInt(t.weight)));
    } catch (error) {
      // Published before (by this or an earlier run): the contract keeps a table forever.
      if (!(error instanceof ChainRevertError && error.errorName === "PrizeTableExists")) throw error;
    }
  }

  /**
   * Held prizes are paid or refused by an operator (prizedraw held pay|refuse); their state comes from the
   * indexed HeldPrizePaid / HeldPrizeRefused events, so the partner API shows what the chain says.
   */
  private async mirrorHeldPrizes(campaignId: string): Promise<void> {
    const { store } = this.deps;
    const campaign = await store.campaigns.byId(campaignId);
    if (!campaign) return;
    for (const open of await store.drawings.openHeldPrizes(campaignId)) {
      const indexed = await this.indexed(toCampaignId(campaign.slug), BigInt(open.number));
      if (!indexed) continue;
      for (const prize of indexed.prizes) {
        if (prize.position !== open.position || prize.heldStatus === null || prize.heldStatus === "open") continue;
        await store.drawings.setHeldStatus(open.drawingId, open.position, prize.heldStatus, prize.heldReason);
      }
    }
  }

}

function isDrawingNotFound(error: unknown): boolean {
  return error instanceof Error && /DrawingNotFound/.test(error.message);
}

/**
 * One clock per drawing: its draw time, cutoff and lockedAt follow the campaign's clock (real time plus the test
 * clock's offset, 0 in production), so the chain's block times (reveal, settle, payout) are moved onto that clock
 * too: block time plus the campaign's offset, never after the campaign's now and never before the step before it
 * (block times are whole seconds, and a drawing often locks, settles and pays within one). In production this is
 * the block time itself. Without this, a test clock moved a day ahead showed a drawing settled a day before it locked.
 */
function onCampaignClock(campaign: Campaign, seconds: bigint | null, notBefore: string | null): string | null {
  if (seconds === null) return null;
  const ms = Math.min(Number(seconds) * 1_000 + campaign.clockOffsetMs, campaignNow(campaign).getTime());
  const floor = notBefore === null ? Number.NEGATIVE_INFINITY : Date.parse(notBefore);
  return new Date(Math.max(ms, floor)).toISOString();
}

function describe(error: unknown): { name: string; message: string } {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: "unknown", message: String(error) };
}
