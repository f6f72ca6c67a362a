import { randomBytes } from "node:crypto";
import { toHex, type Hex } from "viem";
import type { Config } from "../config.js";
import type { IndexerClient } from "../chain/indexer.js";
import { ChainRevertError, type ChainPort } from "../chain/port.js";
import { campaignNow, endIfFinished, planDrawings } from "../domain/campaigns.js";
import { drawingSlot, entrantsCommitment, fingerprint, selectWinners, toCampaignId, winnerHash, type PrizeTable } from "../draw/index.js";
import type { Logger } from "../logger.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing } from "../store/drawings.js";
import type { Store } from "../store/index.js";
import { runGuarantees } from "./guarantees.js";
import { PullTimer, type PullDeps } from "./pull.js";

/** Contract drawing states (PrizeDraw.Status). */
const ONCHAIN = { None: 0, Requested: 1, Revealed: 2, Settled: 3, Paid: 4 } as const;
/** Positions per settle() transaction. */
const SETTLE_BATCH = 1_000n;
export const NO_WINNERS_AT_CUTOFF = "no winners at the cutoff: extend the cutoff (prizedraw drawing extend-cutoff) and send the list";
/** Flags set by chain faults; cleared by the keeper once the drawing moves on again. */
export const CHAIN_FAULT_PREFIX = "chain: ";
export const ENTROPY_LATE = `${CHAIN_FAULT_PREFIX}no random value yet from the randomness provider; waiting for its callback (a failed callback is delivered again through Entropy's revealWithCallback)`;
const SECONDS_PER_DAY = 86_400n;
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
  config: Pick<Config, "env" | "keeperIntervalSeconds" | "pullAllowHttpLoopback" | "entropyTimeoutSeconds" | "holdMockReveal">;
  logger: Logger;
  /** Tests: fetches a pull URL instead of the real fetcher. */
  pullFetch?: PullDeps["fetchList"];
};

/**
 * Moves drawings on: creates them ahead, locks lists at the cutoff, commits and requests randomness, reveals
 * (MockEntropy in test), settles, pays, and mirrors the results from indexed chain data. Every step reads the
 * chain first, so a step interrupted at any point (crash, restart) resumes without a second number or payout.
 */
export class Keeper {
  private timer: NodeJS.Timeout | undefined;
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  /** Pull fetches run on their own slots, not on this cycle (see keeper/pull.ts). */
  private readonly pulls: PullTimer;

  constructor(private readonly deps: KeeperDeps) {
    const { store, logger, config, pullFetch } = deps;
    this.pulls = new PullTimer({ store, logger, allowLoopback: config.pullAllowHttpLoopback, ...(pullFetch ? { fetchList: pullFetch } : {}) });
  }

  start(): void {
    const tick = () => void this.runAll().catch((error: unknown) => this.deps.logger.error({ err: describe(error) }, "keeper cycle failed"));
    tick();
    this.timer = setInterval(tick, this.deps.config.keeperIntervalSeconds * 1_000);
    this.pulls.start();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.pulls.stop();
  }

  async runAll(): Promise<void> {
    for (const campaign of this.deps.store.campaigns.drawable()) await this.runCampaign(campaign.id);
  }

  /** One campaign's cycle; a request while one runs queues exactly one more run after it. */
  runCampaign(campaignId: string): Promise<void> {
    const current = this.running.get(campaignId);
    if (current) {
      this.again.add(campaignId);
      return current;
    }
    const run = this.cycle(campaignId)
      .catch((error: unknown) => this.deps.logger.warn({ campaignId, err: describe(error) }, "campaign cycle stopped; retrying next cycle"))
      .finally(() => {
        this.running.delete(campaignId);
        if (this.again.delete(campaignId)) void this.runCampaign(campaignId);
      });
    this.running.set(campaignId, run);
    return run;
  }

  private async cycle(campaignId: string): Promise<void> {
    const { store } = this.deps;
    const campaign = store.campaigns.byId(campaignId);
    if (!campaign || campaign.status === "draft") return;
    store.tx(() => planDrawings(store, campaign));
    // One drawing's failing step (a token refusing its wallet, say) is flagged on that drawing and retried next
    // cycle; the campaign's other drawings go on. Commits stay in number order: a later drawing cannot commit
    // while an earlier one is stuck, because the contract takes numbers and draw times in order.
    for (const drawing of store.drawings.unfinished(campaign.id)) {
      const fresh = store.campaigns.byId(campaignId)!;
      try {
        await this.advance(fresh, drawing);
      } catch (error) {
        this.deps.logger.warn({ campaignId, drawingId: drawing.id, err: describe(error) }, "drawing step failed; retrying next cycle");
      }
    }
    await this.mirrorHeldPrizes(campaignId);
    await runGuarantees(this.deps, campaignId);
    endIfFinished(this.deps.store, campaignId);
    // New drawings, an extended cutoff or a moved test clock change when the next pull slot comes.
    this.pulls.arm();
  }

  /** Takes one drawing as far as it can go now. */
  private async advance(campaign: Campaign, start: Drawing): Promise<void> {
    const { store } = this.deps;
    if (start.status === "open") await this.pulls.pull(campaign, start);
    let drawing: Drawing | null = store.drawings.byId(campaign.id, start.id);
    while (drawing && drawing.status !== "paid") {
      const current: Drawing = drawing;
      const before: string = current.status;
      try {
        drawing = await this.step(campaign, current);
      } catch (error) {
        this.flagChainFault(campaign, current, error);
        throw error;
      }
      if (!drawing || drawing.status === before) return;
      this.clearChainFault(campaign, drawing.id);
    }
  }

  /** A contract refusal (e.g. the prize pool cannot cover a payout) shows on the drawing until the step succeeds. */
  private flagChainFault(campaign: Campaign, drawing: Drawing, error: unknown): void {
    if (!(error instanceof ChainRevertError)) return;
    const note = `${CHAIN_FAULT_PREFIX}${error.functionName} refused by the contract (${error.errorName}); retried every cycle`;
    this.deps.store.tx(() => {
      const current = this.deps.store.drawings.byId(campaign.id, drawing.id);
      if (current && current.needsAttention !== note) this.deps.store.drawings.update({ ...current, needsAttention: note });
    });
  }

  private clearChainFault(campaign: Campaign, drawingId: string): void {
    this.deps.store.tx(() => {
      const current = this.deps.store.drawings.byId(campaign.id, drawingId);
      if (current?.needsAttention?.startsWith(CHAIN_FAULT_PREFIX)) this.deps.store.drawings.update({ ...current, needsAttention: null });
    });
  }

  private async step(campaign: Campaign, drawing: Drawing): Promise<Drawing | null> {
    switch (drawing.status) {
      case "open":
        return this.lock(campaign, drawing);
      case "locked":
        return this.commit(campaign, drawing);
      case "entropy_requested":
        return this.settle(campaign, drawing);
      case "settled":
        return this.pay(campaign, drawing);
      default:
        return null;
    }
  }

  /** At the cutoff: lock a full list (fingerprint recorded, table fixed) or flag the drawing. */
  private lock(campaign: Campaign, drawing: Drawing): Drawing | null {
    const { store } = this.deps;
    const now = campaignNow(campaign);
    if (now.toISOString() < drawing.cutoffAt) return null;
    if (campaign.mode === "entries") return this.lockEntrants(campaign, drawing, now);
    return store.tx(() => {
      const current = store.drawings.byId(campaign.id, drawing.id);
      if (!current || current.status !== "open") return current;
      const winners = store.drawings.winners(current.id);
      if (winners.length !== current.winnersExpected) {
        if (current.needsAttention !== NO_WINNERS_AT_CUTOFF) store.drawings.update({ ...current, needsAttention: NO_WINNERS_AT_CUTOFF });
        return null;
      }
      const locked: Drawing = {
        ...current,
        status: "locked",
        lockedAt: now.toISOString(),
        winnersCommitment: fingerprint(winners.map((w) => w.winnerId)),
        needsAttention: null,
      };
      store.drawings.update(locked);
      return locked;
    });
  }

  /** Entries campaigns: the entrant list locks in arrival order and its commitment is fixed. */
  private lockEntrants(campaign: Campaign, drawing: Drawing, now: Date): Drawing | null {
    const { store } = this.deps;
    return store.tx(() => {
      const current = store.drawings.byId(campaign.id, drawing.id);
      if (!current || current.status !== "open") return current;
      if (current.entrantCount === 0) {
        if (current.needsAttention !== NO_ENTRANTS_AT_CUTOFF) store.drawings.update({ ...current, needsAttention: NO_ENTRANTS_AT_CUTOFF });
        return null;
      }
      store.entries.assignPositions(current.id);
      const entrants = store.entries.all(current.id);
      const locked: Drawing = {
        ...current,
        status: "locked",
        lockedAt: now.toISOString(),
        entrantsCommitment: entrantsCommitment(entrants.map((e) => ({ idHash: winnerHash(e.entrantId), weight: BigInt(e.weight) }))),
        needsAttention: null,
      };
      store.drawings.update(locked);
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
      const entrants = store.entries.all(drawing.id);
      const positions = selectWinners({ entropy: randomValue, campaignId, number, weights: entrants.map((e) => BigInt(e.weight)), count: drawing.winnersExpected });
      const winners = positions.map((p) => entrants[p]!);
      current = { ...drawing, winnersCommitment: fingerprint(winners.map((w) => w.entrantId)) };
      store.tx(() => {
        store.drawings.replaceWinners(drawing.id, winners.map((w) => ({ winnerId: w.entrantId, displayName: w.displayName, avatarUrl: w.avatarUrl })));
        store.drawings.update(current);
      });
    }
    if (/^0x0+$/.test(recorded)) await chain.recordWinners(campaignId, number, current.winnersCommitment as Hex);
    else if (recorded.toLowerCase() !== current.winnersCommitment?.toLowerCase()) throw new Error(`drawing ${drawing.id}: another winners commitment is recorded onchain`);
    return current;
  }

  /** Registers the campaign and publishes the table onchain when needed, then commits and requests. */
  private async commit(campaign: Campaign, drawing: Drawing): Promise<Drawing> {
    const { store, chain } = this.deps;
    const campaignId = toCampaignId(campaign.slug);
    await this.ensureCampaignOnchain(campaign, campaignId);
    const table = store.prizeTables.get(drawing.tableId, drawing.tableVersion);
    if (!table) throw new Error(`prize table ${drawing.tableId} v${drawing.tableVersion} missing`);
    await this.ensureTableOnchain(table);

    // The number is fixed in the store before the transaction, so a retry targets the same number.
    let number = drawing.number;
    if (number === null) {
      const ours = store.drawings.maxNumber(campaign.id);
      const onchainLast = Number((await chain.getCampaign(campaignId))[2]);
      number = Math.max(ours, onchainLast) + 1;
      const foreign = onchainLast > ours ? foreignCommitNote(ours + 1, onchainLast) : drawing.needsAttention;
      if (onchainLast > ours) {
        this.deps.logger.warn({ alert: "foreign_commit", campaign: campaign.slug, drawingId: drawing.id, numbers: [ours + 1, onchainLast] }, "numbers committed onchain outside this service");
      }
      store.drawings.update({ ...drawing, number, needsAttention: foreign });
      drawing = { ...drawing, number, needsAttention: foreign };
    }
    const onchain = await chain.getDrawing(campaignId, BigInt(number)).catch((error: unknown) => {
      if (isDrawingNotFound(error)) return null;
      throw error;
    });
    let commitTx: string | null = drawing.commitTx;
    let requested: ReturnType<ChainPort["events"]>[number] | undefined;
    if (onchain === null) {
      const entrants = campaign.mode === "entries";
      const receipt = await chain.commitAndRequest({
        campaignId,
        number: BigInt(number),
        slot: drawingSlot(drawing.id),
        drawAt: Math.floor(Date.parse(drawing.drawAt) / 1_000),
        kind: entrants ? 1 : 0,
        listCommitment: (entrants ? drawing.entrantsCommitment : drawing.winnersCommitment) as Hex,
        winnersExpected: drawing.winnersExpected,
        entrantCount: entrants ? drawing.entrantCount : 0,
        totalWeight: entrants ? BigInt(drawing.totalWeight) : 0n,
        tableId: toHex(table.id, { size: 32 }),
        tableVersion: table.version,
      });
      commitTx = receipt.transactionHash;
      requested = chain.events(receipt).find((e) => e.eventName === "EntropyRequested");
    } else if (onchain.listCommitment.toLowerCase() !== (campaign.mode === "entries" ? drawing.entrantsCommitment : drawing.winnersCommitment)?.toLowerCase()) {
      throw new Error(`drawing ${drawing.id}: number ${number} is committed onchain with another list`);
    }
    const committed = await chain.getDrawing(campaignId, BigInt(number));
    // The provider: "mock" in the test environment; else from this commit's receipt, or (a commit sent by an
    // earlier, interrupted run) from the indexed EntropyRequested. The random value is requested either way, so
    // the drawing moves on now (its number shows from here on, spec: Drawing); an unknown provider (the indexer
    // behind or down) is filled in by the settle step.
    const provider = chain.deployment.mockEntropy
      ? "mock"
      : requested?.eventName === "EntropyRequested"
        ? requested.args.provider.toLowerCase()
        : await this.requestProvider(campaignId, BigInt(number)).catch(() => null);
    const next: Drawing = {
      ...drawing,
      number,
      status: "entropy_requested",
      entropyProvider: provider,
      entropyRequestId: committed.sequence.toString(),
      commitTx,
    };
    store.drawings.update(next);
    return next;
  }

  /** The provider a drawing's randomness was requested from (EntropyRequested, as indexed); null until indexed. */
  private async requestProvider(campaignId: Hex, number: bigint): Promise<string | null> {
    const indexed = await this.deps.indexer.drawing(campaignId, number);
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

  /** Reveals (mock), finishes settlement onchain, and copies the prizes from the indexer. */
  private async settle(campaign: Campaign, requestedDrawing: Drawing): Promise<Drawing | null> {
    const { store, chain, indexer } = this.deps;
    const campaignId = toCampaignId(campaign.slug);
    const number = BigInt(requestedDrawing.number!);
    let drawing = requestedDrawing;
    if (drawing.entropyProvider === null) {
      const provider = await this.requestProvider(campaignId, number).catch(() => null);
      if (provider !== null) {
        drawing = { ...drawing, entropyProvider: provider };
        store.drawings.update(drawing);
      }
    }
    let onchain = await chain.getDrawing(campaignId, number);
    if (onchain.status === ONCHAIN.Requested && chain.deployment.mockEntropy && !this.deps.config.holdMockReveal) {
      await chain.revealMock(onchain.sequence, toHex(randomBytes(32)));
      onchain = await chain.getDrawing(campaignId, number);
    }
    if (onchain.status === ONCHAIN.Requested && (await this.retryFailedCallback(drawing))) {
      onchain = await chain.getDrawing(campaignId, number);
    }
    if (onchain.status === ONCHAIN.Requested) {
      // The provider's callback has not come (yet). Past the timeout the drawing is flagged; it stays requested:
      // asking for another random value would let whoever asks choose among outcomes.
      const committed = await indexer.drawing(campaignId, number);
      const waited = committed ? Date.now() / 1000 - Number(committed.drawing.commitTimestamp) : 0;
      if (waited > this.deps.config.entropyTimeoutSeconds && drawing.needsAttention !== ENTROPY_LATE) {
        store.drawings.update({ ...drawing, needsAttention: ENTROPY_LATE });
        this.deps.logger.warn({ alert: "entropy_late", campaign: campaign.slug, drawingId: drawing.id, waitedSeconds: Math.round(waited) }, "randomness callback overdue");
      }
      return null;
    }
    while (onchain.status === ONCHAIN.Revealed) {
      await chain.settle(campaignId, number, SETTLE_BATCH);
      onchain = await chain.getDrawing(campaignId, number);
    }
    let current = drawing;
    if (campaign.mode === "entries") current = await this.selectAndRecord(campaign, drawing, campaignId, number, onchain.randomValue, onchain.winnersCommitment);
    const indexed = await indexer.drawing(campaignId, number);
    if (!indexed || indexed.prizes.length !== indexed.drawing.prizeCount || indexed.drawing.randomValue === null || indexed.drawing.winnersCommitment === null) return null;
    const entropyRevealedAt = onCampaignClock(campaign, indexed.drawing.revealTimestamp, current.lockedAt);
    const next: Drawing = {
      ...current,
      status: "settled",
      entropyProvider: current.entropyProvider ?? indexed.drawing.provider ?? null,
      entropyValue: indexed.drawing.randomValue,
      entropyRevealedAt,
      settledAt: onCampaignClock(campaign, indexed.drawing.settleTimestamp, entropyRevealedAt ?? current.lockedAt),
      revealTx: indexed.drawing.revealTx,
    };
    store.tx(() => {
      store.drawings.setPrizes(
        drawing.id,
        indexed.prizes.map((p) => ({ position: p.position, randomValue: p.randomValue, roll: Number(p.roll), amountCents: Number(p.amountCents), held: p.held })),
      );
      store.drawings.update(next);
    });
    return next;
  }

  /** One transfer of the draw's non-held prizes; marked paid once the chain says so. */
  private async pay(campaign: Campaign, drawing: Drawing): Promise<Drawing | null> {
    const { store, chain, indexer } = this.deps;
    const campaignId = toCampaignId(campaign.slug);
    const number = BigInt(drawing.number!);
    const onchain = await chain.getDrawing(campaignId, number);
    if (onchain.status === ONCHAIN.Settled) {
      // The drawing pays the wallet its commit recorded; a wallet change still reaches the chain first, for the
      // commits that follow.
      await this.ensureCampaignOnchain(campaign, campaignId);
      await chain.payout(campaignId, number);
    }
    const indexed = await indexer.drawing(campaignId, number);
    if (!indexed || indexed.drawing.status !== "paid") return null;
    const next: Drawing = { ...drawing, status: "paid", paidAt: onCampaignClock(campaign, indexed.drawing.paidTimestamp, drawing.settledAt ?? drawing.lockedAt) };
    store.drawings.update(next);
    return next;
  }

  private async ensureCampaignOnchain(campaign: Campaign, campaignId: Hex): Promise<void> {
    const { chain, store } = this.deps;
    const [registered, wallet, , threshold] = await chain.getCampaign(campaignId);
    const want = campaign.payoutWallet as Hex | null;
    if (!registered) {
      const guarantee = campaign.guarantee
        ? { cents: BigInt(campaign.guarantee.amountCents), periodSeconds: BigInt(campaign.guarantee.periodDays) * SECONDS_PER_DAY }
        : { cents: 0n, periodSeconds: 0n };
      await chain.registerCampaign(campaignId, (want ?? "0x0000000000000000000000000000000000000000") as Hex, BigInt(campaign.largePrizeThresholdCents), guarantee);
    } else {
      if (want && wallet.toLowerCase() !== want.toLowerCase()) await chain.setPayoutWallet(campaignId, want);
      if (threshold !== BigInt(campaign.largePrizeThresholdCents)) await chain.setLargePrizeThreshold(campaignId, BigInt(campaign.largePrizeThresholdCents));
    }
    store.tx(() => {
      const fresh = store.campaigns.byId(campaign.id);
      if (fresh) store.campaigns.update({ ...fresh, onchainWallet: want, onchainThresholdCents: campaign.largePrizeThresholdCents });
    });
  }

  private async ensureTableOnchain(table: PrizeTable): Promise<void> {
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
    const { store, indexer } = this.deps;
    const campaign = store.campaigns.byId(campaignId);
    if (!campaign) return;
    for (const open of store.drawings.openHeldPrizes(campaignId)) {
      const indexed = await indexer.drawing(toCampaignId(campaign.slug), BigInt(open.number));
      if (!indexed) continue;
      for (const prize of indexed.prizes) {
        if (prize.position !== open.position || prize.heldStatus === null || prize.heldStatus === "open") continue;
        store.drawings.setHeldStatus(open.drawingId, open.position, prize.heldStatus, prize.heldReason);
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
