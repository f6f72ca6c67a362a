/**
 * A guarantee period's life onchain, and a held prize's decision after a reorg, as rules: what the keeper sends next
 * for a period the team picked, when a payment counts as made, what a reorg undoes. Pure: the keeper
 * (keeper/guarantees.ts, keeper/heldPrizes.ts) reads the chain and the indexer, calls these, stores and sends.
 *
 * A guarantee moves not_needed | awaiting_pick -> picked (the team's pick, domain/guarantees.ts) -> paid (the
 * payment seen by the indexer and the chain); a reorg that drops the payment moves it back to picked, and the
 * contract's own once-per-period rule (GuaranteeAlreadyPicked, GuaranteeAlreadyPaid) makes a resend harmless.
 */
import { OnchainGuaranteeStatus, OnchainHeldState } from "../chain/port.js";
import type { GuaranteePeriod } from "../store/guarantees.js";
import type { HeldStatus } from "../store/drawings.js";

/** A guarantee's onchain period: the service counts periods from 1, the contract from 0. */
export function onchainPeriod(guarantee: Pick<GuaranteePeriod, "period">): number {
  return guarantee.period - 1;
}

/** What a picked period needs next onchain, from the chain's status of that period. */
export type GuaranteeChainStep = "pick_then_pay" | "pay" | "nothing";

export function guaranteeChainStep(onchainStatus: number): GuaranteeChainStep {
  if (onchainStatus === OnchainGuaranteeStatus.None) return "pick_then_pay";
  if (onchainStatus === OnchainGuaranteeStatus.Picked) return "pay";
  return "nothing";
}

/** A guarantee transfer as the indexer shows it (only what the rules read). */
export type SeenGuaranteePayout = { kind: string; period: number | null; txHash: string; blockNumber: bigint; timestamp: bigint };

/** The recorded payment of a period: when, in which transaction and block. */
export type GuaranteePayment = { paidAt: string; tx: string; block: number };

/**
 * A period is paid once the indexer shows its transfer and the chain shows it paid too (the indexer may still show
 * a payment a reorg dropped); null while either is missing.
 */
export function confirmedPayment(guarantee: Pick<GuaranteePeriod, "period">, payouts: readonly SeenGuaranteePayout[], onchainStatus: number): GuaranteePayment | null {
  const seen = payouts.find((p) => p.kind === "guarantee" && p.period === onchainPeriod(guarantee));
  if (!seen || onchainStatus !== OnchainGuaranteeStatus.Paid) return null;
  return { paidAt: new Date(Number(seen.timestamp) * 1_000).toISOString(), tx: seen.txHash, block: Number(seen.blockNumber) };
}

/**
 * A paid period not yet final, checked again: `unpaid` when the chain no longer shows it paid (back to picked, and
 * the missing steps are sent again), `block` when the indexer shows our transaction's block (recorded so finality
 * can be judged), else `unchanged`.
 */
export type PaidRecheck = { kind: "unpaid" } | { kind: "block"; block: number } | { kind: "unchanged" };

export function recheckPaidPeriod(guarantee: Pick<GuaranteePeriod, "period" | "pickTx">, onchainStatus: number, payouts: readonly SeenGuaranteePayout[]): PaidRecheck {
  if (onchainStatus !== OnchainGuaranteeStatus.Paid) return { kind: "unpaid" };
  const seen = payouts.find((p) => p.kind === "guarantee" && p.period === onchainPeriod(guarantee));
  if (seen && seen.txHash.toLowerCase() === guarantee.pickTx?.toLowerCase()) return { kind: "block", block: Number(seen.blockNumber) };
  return { kind: "unchanged" };
}

/**
 * An operator's decision on a held prize this service sent, checked again until its block is final: sent again
 * (the same decision and reason) when the chain shows the prize open again, a reorg having dropped it; a decision
 * the chain still shows is never repeated (the contract refuses to close a held prize twice).
 */
export function heldDecisionToResend(decision: Exclude<HeldStatus, "open">, onchainState: number): Exclude<HeldStatus, "open"> | null {
  return onchainState === OnchainHeldState.Open ? decision : null;
}
