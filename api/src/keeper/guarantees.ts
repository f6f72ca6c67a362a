import type { Hex } from "viem";
import type { IndexerClient } from "../chain/indexer.js";
import { ChainRevertError, OnchainGuaranteeStatus, type ChainPort } from "../chain/port.js";
import { confirmedPayment, guaranteeChainStep, onchainPeriod, recheckPaidPeriod } from "../domain/guaranteeLife.js";
import { checkDuePeriods } from "../domain/guarantees.js";
import { toCampaignId, winnerHash } from "../draw/index.js";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import type { Campaign } from "../store/campaigns.js";
import type { GuaranteePeriod } from "../store/guarantees.js";
import type { Store } from "../store/index.js";

export type GuaranteeKeeperDeps = {
  store: Store;
  chain: ChainPort;
  indexer: IndexerClient;
  logger: Logger;
  config: Pick<Config, "env" | "localChain">;
};

/**
 * The keeper's guarantee step, at the end of each campaign cycle (ended campaigns included): checks the periods
 * that are due, records every `picked` guarantee onchain (pickGuarantee: exactly the campaign's registered amount,
 * once per period, owed from then on), pays it (payGuarantee, to the wallet recorded at the pick), and marks it
 * `paid` once the indexer shows the transfer. Each step reads the onchain state first (and the contract refuses
 * a second pick or payment of a period), so a step cut short anywhere resumes without paying twice. A failure is
 * logged and retried next cycle; it never stops the drawing cycle.
 */
export async function runGuarantees(deps: GuaranteeKeeperDeps, campaignId: string): Promise<void> {
  const { store, logger } = deps;
  const campaign = await store.campaigns.byId(campaignId);
  if (!campaign?.guarantee) return;
  try {
    for (const checked of await checkDuePeriods(store, campaign.id)) {
      logger.info({ campaign: campaign.slug, guaranteeId: checked.id, period: checked.period, status: checked.status }, "guarantee period checked");
    }
    await recheckPaid(deps, campaign);
    const picked = await store.guarantees.withStatus(campaign.id, "picked");
    if (picked.length > 0) await payPicked(deps, campaign, picked);
  } catch (error) {
    logger.warn({ campaign: campaign.slug, err: error instanceof Error ? { name: error.name, message: error.message } : String(error) }, "guarantee step stopped; retrying next cycle");
  }
}

async function payPicked(deps: GuaranteeKeeperDeps, campaign: Campaign, picked: readonly GuaranteePeriod[]): Promise<void> {
  const { store, chain, indexer, logger } = deps;
  const campaignId = toCampaignId(campaign.slug);
  for (const guarantee of picked) {
    const period = onchainPeriod(guarantee);
    const step = guaranteeChainStep((await chain.getGuarantee(campaignId, period)).status);
    if (step === "pick_then_pay") {
      if (!(await periodEndedOnchain(deps, campaign, campaignId, period))) continue;
      await ensureWallet(deps, campaign, campaignId);
      await settleRace(chain.pickGuarantee(campaignId, period, winnerHash(guarantee.pickedWinner!)), "GuaranteeAlreadyPicked");
    }
    if (step !== "nothing") {
      const receipt = await settleRace(chain.payGuarantee(campaignId, period), "GuaranteeAlreadyPaid");
      if (receipt) {
        await store.guarantees.setPickTx(guarantee.id, receipt.transactionHash);
        logger.info({ campaign: campaign.slug, guaranteeId: guarantee.id, tx: receipt.transactionHash }, "guarantee paid onchain");
      }
    }
  }
  const payouts = await indexer.payouts(campaignId);
  for (const guarantee of picked) {
    const payment = confirmedPayment(guarantee, payouts, (await chain.getGuarantee(campaignId, onchainPeriod(guarantee))).status);
    if (payment) await store.guarantees.markPaid(guarantee.id, payment.paidAt, payment.tx, payment.block);
  }
}

/**
 * Whether the contract lets period `period` be picked yet: it counts periods from the campaign's registration in
 * block time. The service counts them from the campaign's start and skips paused time, so its period ends no
 * earlier than the chain's, unless the campaign started before the keeper registered it (at activation): then
 * the pick waits those few seconds, and the next cycle sends it. A test campaign's clock runs ahead of the chain's: on the
 * local chain of the test environment the keeper moves anvil's clock to the period's end first.
 */
async function periodEndedOnchain(deps: GuaranteeKeeperDeps, campaign: Campaign, campaignId: Hex, period: number): Promise<boolean> {
  const { chain, config, logger } = deps;
  const [endsAt, now] = await Promise.all([chain.guaranteePeriodEnd(campaignId, period), chain.latestBlockTime()]);
  if (now >= endsAt) return true;
  if (config.env === "test" && config.localChain) {
    await chain.advanceLocalChainTime(endsAt);
    logger.info({ campaign: campaign.slug, period, chainTime: new Date(Number(endsAt) * 1_000).toISOString() }, "test clock: local chain moved to the guarantee period's end");
    return true;
  }
  logger.info({ campaign: campaign.slug, period, endsAt: new Date(Number(endsAt) * 1_000).toISOString() }, "guarantee period not yet ended onchain; picking once it has");
  return false;
}

/**
 * Paid periods whose payment is not yet final are checked against the chain each cycle: one the chain no longer
 * shows paid (a reorg dropped the payment, or the pick and the payment) goes back to `picked`, and payPicked sends
 * what is missing again, once (the contract refuses a second pick or payment of a period). A period paid before
 * blocks were recorded gets its block from the indexer.
 */
async function recheckPaid(deps: GuaranteeKeeperDeps, campaign: Campaign): Promise<void> {
  const { store, chain, indexer, logger } = deps;
  const finalized = await store.finality.get();
  if (!finalized) return;
  const unfinal = await store.guarantees.paidNotFinal(campaign.id, finalized.block);
  if (unfinal.length === 0) return;
  const campaignId = toCampaignId(campaign.slug);
  let payouts: Awaited<ReturnType<IndexerClient["payouts"]>> | null = null;
  for (const guarantee of unfinal) {
    const { status } = await chain.getGuarantee(campaignId, onchainPeriod(guarantee));
    // The indexer is asked only when a payment is still there to find: a dropped one is noticed while it is down.
    if (status === OnchainGuaranteeStatus.Paid) payouts ??= await indexer.payouts(campaignId);
    const recheck = recheckPaidPeriod(guarantee, status, payouts ?? []);
    if (recheck.kind === "unpaid") {
      logger.warn({ alert: "reorg", campaign: campaign.slug, guaranteeId: guarantee.id, period: guarantee.period }, "the guarantee payment is no longer on the chain: the period goes back to picked");
      await store.guarantees.unpay(guarantee.id);
    } else if (recheck.kind === "block") {
      await store.guarantees.setPaidBlock(guarantee.id, recheck.block);
    }
  }
}

/** Sends a step; an earlier, interrupted run whose read raced the send already did it when the contract says so. */
async function settleRace<T>(step: Promise<T>, alreadyDone: string): Promise<T | null> {
  try {
    return await step;
  } catch (error) {
    if (error instanceof ChainRevertError && error.errorName === alreadyDone) return null;
    throw error;
  }
}

/** The guarantee goes to the campaign's current payout wallet: the chain gets it first if it changed. */
async function ensureWallet(deps: GuaranteeKeeperDeps, campaign: Campaign, campaignId: Hex): Promise<void> {
  const { chain, store } = deps;
  const onchain = await chain.getCampaign(campaignId);
  if (!onchain.registered) throw new Error(`campaign ${campaign.slug} is not registered onchain`);
  const want = campaign.payoutWallet as Hex | null;
  if (!want || onchain.payoutWallet.toLowerCase() === want.toLowerCase()) return;
  await chain.setPayoutWallet(campaignId, want);
  await store.tx(async () => {
    const fresh = await store.campaigns.byId(campaign.id);
    if (fresh) await store.campaigns.update({ ...fresh, onchainWallet: want });
  });
}
