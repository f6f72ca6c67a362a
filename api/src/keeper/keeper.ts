import { endIfFinished } from "../domain/campaigns.js";
import { AlertWatch, CHECK_MAX_MS, type AlertWatchSettings } from "./alerts.js";
import { inParallel } from "./batches.js";
import { commitLocked } from "./commit.js";
import { CAMPAIGN_CONCURRENCY, KeeperContext, describeError, type KeeperDeps } from "./context.js";
import { mirrorHeldPrizes, recheckPaid } from "./follow.js";
import { runGuarantees } from "./guarantees.js";
import { pruneExpired } from "./housekeeping.js";
import { recheckHeldDecisions } from "./heldPrizes.js";
import { KeeperLease } from "./lease.js";
import { keeperCycleDuration, keeperCycleFailures, keeperLeaseHeld } from "../metrics/registry.js";
import { prepare } from "./lock.js";
import { paySettled } from "./pay.js";
import { PullTimer } from "./pull.js";
import { revealRequests, settleRequested } from "./reveal.js";
import { SerialRun } from "./serialRun.js";
import { WebhookTimer } from "./webhooks.js";
import type { Notifier } from "../notify/notifier.js";

export type { KeeperDeps } from "./context.js";

/** The alert watch's notifier and thresholds (keeper/alerts.ts); without them no alert is watched (tests' keepers). */
export type KeeperAlerts = { notifier: Notifier; settings: AlertWatchSettings };

/** Thrown between a cycle's phases when this process no longer holds the keeper lease: the cycle stops there. */
class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

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
  private readonly cycles = new SerialRun(() => {
    if (!this.lease.holds()) return Promise.resolve();
    const stopTimer = keeperCycleDuration.startTimer();
    return this.cycle()
      .catch((error: unknown) => {
        if (error instanceof LeaseLostError) this.deps.logger.warn("keeper cycle stopped: this process no longer holds the keeper lease");
        else {
          keeperCycleFailures.inc();
          this.deps.logger.error({ err: describeError(error) }, "keeper cycle failed");
        }
      })
      .finally(() => stopTimer());
  });
  /** Pull fetches run on their own slots, not on this cycle (see keeper/pull.ts). */
  private readonly pulls: PullTimer;
  /** Webhook deliveries run on their own timer too (see keeper/webhooks.ts). */
  private readonly webhooks: WebhookTimer;
  /** The keeper lease: this process works only while it holds it. */
  private readonly lease: KeeperLease;
  /** What the phases share (keeper/context.ts). */
  private readonly ctx: KeeperContext;
  /** Conditions that need a person, checked on their own timer (see keeper/alerts.ts). */
  private readonly alerts: AlertWatch | null;

  constructor(private readonly deps: KeeperDeps & { alerts?: KeeperAlerts }) {
    const { store, logger, config, pullFetch } = deps;
    this.alerts = deps.alerts
      ? new AlertWatch({ store, logger, chain: deps.chain, ...deps.alerts, checkMs: Math.min(config.keeperIntervalSeconds * 1_000, CHECK_MAX_MS) })
      : null;
    this.pulls = new PullTimer({ store, logger, allowLoopback: config.pullAllowHttpLoopback, ...(pullFetch ? { fetchList: pullFetch } : {}) });
    const testBaseMs = config.env === "test" ? (config.webhookRetryBaseMs ?? null) : null;
    this.webhooks = new WebhookTimer({ store, logger, allowLoopback: config.env === "test" && config.pullAllowHttpLoopback, retry: { testBaseMs } });
    keeperLeaseHeld.set(0);
    this.lease = new KeeperLease({
      store,
      logger,
      onAcquired: () => {
        keeperLeaseHeld.set(1);
        this.startWork();
      },
      onLost: () => {
        keeperLeaseHeld.set(0);
        this.stopWork();
        // Told by this process at once (it never rejects); the next holder's alert watch resolves it.
        void this.alerts?.leaseLost(this.lease.holder);
      },
    });
    this.ctx = new KeeperContext(deps, () => this.lease.holds());
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
    this.alerts?.start();
  }

  private stopWork(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.pulls.stop();
    this.webhooks.stop();
    this.alerts?.stop();
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
    await inParallel(campaigns, CAMPAIGN_CONCURRENCY, (id) => this.ctx.guard(id, () => prepare(this.ctx, this.pulls, id)));
    await this.confirmLease();
    await commitLocked(this.ctx, campaigns);
    await this.confirmLease();
    await revealRequests(this.ctx, campaigns);
    await this.confirmLease();
    await inParallel(campaigns, CAMPAIGN_CONCURRENCY, (id) => this.ctx.guard(id, () => settleRequested(this.ctx, id)));
    await this.confirmLease();
    await paySettled(this.ctx, campaigns);
    await this.confirmLease();
    await inParallel(campaigns, CAMPAIGN_CONCURRENCY, (id) => this.ctx.guard(id, () => this.finish(id)));
    // New drawings, an extended cutoff or a moved test clock change when the next pull slot comes.
    await this.pulls.arm();
    // Events the cycle wrote go out now rather than at the timer's next look.
    await this.webhooks.arm();
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
      logger.warn({ err: describeError(error), tag: config.chainFinality }, "could not read the chain's finalized block; keeping the last one");
    }
  }

  /** Held prizes, guarantees and the campaign's end, after the drawings moved. */
  private async finish(campaignId: string): Promise<void> {
    await recheckPaid(this.ctx, campaignId);
    await mirrorHeldPrizes(this.ctx, campaignId);
    await recheckHeldDecisions(this.deps, campaignId);
    await runGuarantees(this.deps, campaignId);
    await endIfFinished(this.deps.store, campaignId);
  }
}
