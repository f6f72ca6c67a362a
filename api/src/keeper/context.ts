import { toHex, type Hex } from "viem";
import type { Config } from "../config.js";
import type { IndexerClient } from "../chain/indexer.js";
import { ChainRevertError, type ChainPort } from "../chain/port.js";
import { FeeCapReachedError } from "../chain/fees.js";
import { FEES_ABOVE_CAP, chainFaultNote } from "../domain/drawingLife.js";
import type { PrizeTable } from "../draw/index.js";
import type { Logger } from "../logger.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing } from "../store/drawings.js";
import type { Store } from "../store/index.js";
import { Limiter } from "./batches.js";
import type { PullDeps } from "./pull.js";

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
export const CAMPAIGN_CONCURRENCY = 512;
/** Questions to the indexer in flight at once (see Limiter). */
const INDEXER_CONCURRENCY = 8;
const SECONDS_PER_DAY = 86_400n;

/**
 * What every phase of a keeper cycle shares: the dependencies, the lease check before each step, the limit on
 * questions to the indexer, and the campaign and table registrations onchain (once per process for a table).
 */
export class KeeperContext {
  private readonly indexerCalls = new Limiter(INDEXER_CONCURRENCY);
  /** Tables published onchain (or being published) by this process, by id and version. */
  private readonly tablesOnchain = new Map<string, Promise<void>>();

  constructor(
    readonly deps: KeeperDeps,
    /** Whether this process holds the keeper lease now: a step starts only while it does. */
    private readonly holdsLease: () => boolean,
  ) {}

  /** A campaign's work for this cycle: skipped without the lease; a failure is logged and retried next cycle. */
  async guard(campaignId: string, work: () => Promise<void>): Promise<void> {
    if (!this.holdsLease()) return;
    try {
      await work();
    } catch (error) {
      this.deps.logger.warn({ campaignId, err: describeError(error) }, "campaign cycle stopped; retrying next cycle");
    }
  }

  /**
   * Runs one drawing's step: a contract refusal is flagged on the drawing until a step succeeds; any failure is
   * logged and retried next cycle, and the other drawings go on.
   */
  async attempt<T>(campaign: Campaign, drawing: Drawing, step: () => Promise<T>): Promise<T | null> {
    if (!this.holdsLease()) return null;
    try {
      return await step();
    } catch (error) {
      await this.flagChainFault(campaign, drawing, error);
      this.deps.logger.warn({ campaignId: campaign.id, drawingId: drawing.id, err: describeError(error) }, "drawing step failed; retrying next cycle");
      return null;
    }
  }

  /** Sets `note` on the drawing as stored now (once). */
  async flag(campaign: Campaign, drawing: Drawing, note: string): Promise<void> {
    const { store } = this.deps;
    await store.tx(async () => {
      const current = await store.drawings.byId(campaign.id, drawing.id);
      if (current && current.needsAttention !== note) await store.drawings.update({ ...current, needsAttention: note });
    });
  }

  /** A drawing as the indexer has it (null: not indexed yet), one of at most INDEXER_CONCURRENCY questions. */
  indexed(campaignId: Hex, number: bigint) {
    return this.indexerCalls.run(() => this.deps.indexer.drawing(campaignId, number));
  }

  /** A drawing as the chain has it; null when the chain has no such drawing (never committed, or a reorg dropped it). */
  drawingOnchain(campaignId: Hex, number: bigint) {
    return this.deps.chain.getDrawing(campaignId, number).catch((error: unknown) => {
      if (error instanceof Error && /DrawingNotFound/.test(error.message)) return null;
      throw error;
    });
  }

  /** The campaign registered onchain, with the wallet and threshold the service has now (for later commits). */
  async ensureCampaignOnchain(campaign: Campaign, campaignId: Hex): Promise<void> {
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
  ensureTableOnchain(table: PrizeTable): Promise<void> {
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

  private async flagChainFault(campaign: Campaign, drawing: Drawing, error: unknown): Promise<void> {
    if (error instanceof ChainRevertError) await this.flag(campaign, drawing, chainFaultNote(error.functionName, error.errorName));
    else if (error instanceof FeeCapReachedError) await this.flag(campaign, drawing, FEES_ABOVE_CAP);
  }

  private async publishTable(table: PrizeTable): Promise<void> {
    const { chain } = this.deps;
    try {
      await chain.publishPrizeTable(toHex(table.id, { size: 32 }), table.version, table.tiers.map((t) => BigInt(t.amountCents)), table.tiers.map((t) => BigInt(t.weight)));
    } catch (error) {
      // Published before (by this or an earlier run): the contract keeps a table forever.
      if (!(error instanceof ChainRevertError && error.errorName === "PrizeTableExists")) throw error;
    }
  }
}

export function describeError(error: unknown): { name: string; message: string } {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: "unknown", message: String(error) };
}
