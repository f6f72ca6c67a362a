/**
 * A drawing's life after its list closes, as rules: each step the keeper takes (lock, number, commit, reveal and
 * settle, pay, step back after a reorg) is a function from the drawing as stored (and what the chain or the
 * indexer said) to the drawing as it must be stored next, or to the note it must carry instead. Pure: no store, no
 * chain, no clock reads (callers pass `now`). The keeper (keeper/) reads, calls these, stores and sends.
 *
 * Statuses move open -> locked -> entropy_requested -> settled -> paid; a reorg can move a drawing back (to locked,
 * entropy_requested or settled), keeping its number.
 */
import { entrantsCommitment, fingerprint, winnerHash } from "../draw/index.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing } from "../store/drawings.js";
import { campaignNow } from "./campaigns.js";

// Notes a partner reads (the API's needsAttention, the portal): they name what the partner can do, in the portal.
export const NO_WINNERS_AT_CUTOFF = "no winners at the cutoff: extend its cutoff in the partner portal (the campaign's Drawings, Needs attention) and send the list";
export const NO_ENTRANTS_AT_CUTOFF = "no entrants at the cutoff: extend its cutoff in the partner portal (the campaign's Drawings, Needs attention) and send entries";
/** Flags set by chain faults; cleared once the drawing moves on again (`movedOn`). */
export const CHAIN_FAULT_PREFIX = "chain: ";
/** The network asks more per gas than the operator allows (MAX_FEE_PER_GAS_GWEI): the step waits at the cap. */
export const FEES_ABOVE_CAP = `${CHAIN_FAULT_PREFIX}the network's fees are above the service's fee cap; its transaction waits at the cap and goes through when fees fall (retried every cycle; nothing to do on your side)`;
export const ENTROPY_LATE = `${CHAIN_FAULT_PREFIX}no random value yet from the randomness provider; waiting for its callback (a failed callback is delivered again through Entropy's revealWithCallback; a value not revealed within the contract's reveal timeout is re-requested once, in public)`;

/**
 * The chain's last number is ahead of every number this service gave out: someone committed with the operator key
 * outside the service (or the store was restored from an older copy). Kept on the drawing (not a chain fault, so
 * never cleared automatically); the campaign audit (verify-draw.mjs --campaign) names the numbers.
 */
export const foreignCommitNote = (first: number, last: number): string =>
  `number${first === last ? ` ${first} was` : `s ${first} to ${last} were`} committed onchain outside this service: the operator key may be in other hands (rotate it); the campaign audit names them`;

/** What a step makes of a drawing: the drawing to store, or (the step cannot be taken) the note it must carry. */
export type Step = { kind: "moved"; drawing: Drawing } | { kind: "flagged"; note: string };

/** The note a contract refusal leaves on a drawing until a step succeeds. */
export function chainFaultNote(functionName: string, errorName: string): string {
  return `${CHAIN_FAULT_PREFIX}${functionName} refused by the contract (${errorName}); retried every cycle`;
}

/** A drawing that moved on: a chain fault flagged on it is over (other notes stay). */
export function movedOn(next: Drawing): Drawing {
  return next.needsAttention?.startsWith(CHAIN_FAULT_PREFIX) ? { ...next, needsAttention: null } : next;
}

/** Whether the lists of a drawing close at `now` (its cutoff reached, on the campaign's clock). */
export function cutoffReached(drawing: Pick<Drawing, "cutoffAt">, now: Date): boolean {
  return now.toISOString() >= drawing.cutoffAt;
}

/** A winner list at the cutoff: locked with its fingerprint when it is complete, else the drawing is flagged. */
export function lockWinnerList(drawing: Drawing, winnerIds: readonly string[], now: Date): Step {
  if (winnerIds.length !== drawing.winnersExpected) return { kind: "flagged", note: NO_WINNERS_AT_CUTOFF };
  return { kind: "moved", drawing: { ...drawing, status: "locked", lockedAt: now.toISOString(), winnersCommitment: fingerprint(winnerIds), needsAttention: null } };
}

/** An entrant list at the cutoff (in arrival order): locked with its commitment, or flagged when nobody entered. */
export function lockEntrantList(drawing: Drawing, entrants: readonly { entrantId: string; weight: number }[], now: Date): Step {
  if (entrants.length === 0) return { kind: "flagged", note: NO_ENTRANTS_AT_CUTOFF };
  const commitment = entrantsCommitment(entrants.map((e) => ({ idHash: winnerHash(e.entrantId), weight: BigInt(e.weight) })));
  return { kind: "moved", drawing: { ...drawing, status: "locked", lockedAt: now.toISOString(), entrantsCommitment: commitment, needsAttention: null } };
}

/**
 * A drawing's number, fixed once: the next after every number this service (`ours`, its highest) or the chain
 * (`onchainLast`) gave out. A chain ahead of the service is a foreign commit, noted on the drawing.
 */
export function numbered(drawing: Drawing, ours: number, onchainLast: number): { drawing: Drawing & { number: number }; foreignCommit: boolean } {
  const foreignCommit = onchainLast > ours;
  const needsAttention = foreignCommit ? foreignCommitNote(ours + 1, onchainLast) : drawing.needsAttention;
  return { drawing: { ...drawing, number: Math.max(ours, onchainLast) + 1, needsAttention }, foreignCommit };
}

/** Committed onchain with its randomness request (by this run's commit, or found committed by an earlier one). */
export function requested(drawing: Drawing, request: { provider: string | null; requestId: string | null; commitTx?: string }): Drawing {
  return movedOn({
    ...drawing,
    status: "entropy_requested",
    entropyProvider: request.provider,
    entropyRequestId: request.requestId,
    ...(request.commitTx === undefined ? {} : { commitTx: request.commitTx }),
  });
}

/** Settled onchain, as indexed: the random value, the reveal, and the times moved onto the campaign's clock. */
export function settled(
  campaign: Campaign,
  drawing: Drawing,
  indexed: { provider: string | null; randomValue: string; revealTimestamp: bigint | null; settleTimestamp: bigint | null; revealTx: string | null; revealBlock: bigint | null },
): Drawing {
  const entropyRevealedAt = onCampaignClock(campaign, indexed.revealTimestamp, drawing.lockedAt);
  return movedOn({
    ...drawing,
    status: "settled",
    entropyProvider: drawing.entropyProvider ?? indexed.provider ?? null,
    entropyValue: indexed.randomValue,
    entropyRevealedAt,
    settledAt: onCampaignClock(campaign, indexed.settleTimestamp, entropyRevealedAt ?? drawing.lockedAt),
    revealTx: indexed.revealTx,
    revealBlock: indexed.revealBlock === null ? null : Number(indexed.revealBlock),
  });
}

/** Paid onchain, as indexed. */
export function paid(campaign: Campaign, drawing: Drawing, indexed: { paidTimestamp: bigint | null; paidBlock: bigint | null }): Drawing {
  return movedOn({
    ...drawing,
    status: "paid",
    paidAt: onCampaignClock(campaign, indexed.paidTimestamp, drawing.settledAt ?? drawing.lockedAt),
    paidBlock: indexed.paidBlock === null ? null : Number(indexed.paidBlock),
  });
}

/** Where a reorg can take a drawing back to. */
export type StepBackTo = "locked" | "entropy_requested" | "settled";

/**
 * Back to an earlier status because the chain no longer shows a step the store recorded. What that step mirrored
 * is cleared (an entries drawing's selected winners with its random value; the caller clears the prizes when not
 * going back to settled), so the keeper takes the step again from the canonical chain; the number stays, and the
 * contract still refuses a second number or payout.
 */
export function steppedBack(drawing: Drawing, to: StepBackTo, mode: Campaign["mode"]): Drawing {
  const next: Drawing = { ...drawing, status: to, paidAt: null, paidBlock: null };
  if (to !== "settled") {
    Object.assign(next, { entropyValue: null, entropyRevealedAt: null, settledAt: null, revealTx: null, revealBlock: null });
    if (mode === "entries") next.winnersCommitment = null;
  }
  if (to === "locked") Object.assign(next, { entropyProvider: null, entropyRequestId: null, commitTx: null });
  return next;
}

/**
 * One clock per drawing: its draw time, cutoff and lockedAt follow the campaign's clock (real time plus the test
 * clock's offset, 0 in production), so the chain's block times (reveal, settle, payout) are moved onto that clock
 * too: block time plus the campaign's offset, never after the campaign's now and never before the step before it
 * (block times are whole seconds, and a drawing often locks, settles and pays within one). In production this is
 * the block time itself. Without this, a test clock moved a day ahead showed a drawing settled a day before it locked.
 */
export function onCampaignClock(campaign: Campaign, seconds: bigint | null, notBefore: string | null): string | null {
  if (seconds === null) return null;
  const ms = Math.min(Number(seconds) * 1_000 + campaign.clockOffsetMs, campaignNow(campaign).getTime());
  const floor = notBefore === null ? Number.NEGATIVE_INFINITY : Date.parse(notBefore);
  return new Date(Math.max(ms, floor)).toISOString();
}
