/**
 * Conditions that need a person, as rules. What the keeper observed (the unfinished drawings with their campaign's
 * clock and latest pull fetch, the pool, the operator's gas money, whether the chain answers) becomes the set of
 * conditions active now, each with a stable key (its kind and subject: `drawing_stuck:drw_...`, `pool_low`), a
 * severity, and a summary and detail that hold no secret (ids, slugs, times, amounts and the partner-visible
 * needsAttention note; never a pull URL, never a key). Then the plan: set beside the alerts still open, which to
 * open, remind, refresh (new wording, no notice) and resolve. Pure: no store, no chain, no clock reads.
 *
 * docs/operations.md, "Alerts", lists every condition with what to do about it.
 */
import { formatEther } from "viem";
import type { CampaignMode } from "../store/campaigns.js";
import type { Drawing } from "../store/drawings.js";
import type { FetchOutcome } from "../store/pull.js";
import { CHAIN_FAULT_PREFIX, ENTROPY_LATE } from "./drawingLife.js";

export const ALERT_KINDS = [
  "drawing_stuck",
  "pull_failing",
  "payout_refused",
  "foreign_commit",
  "provider_outage",
  "chain_unreachable",
  "pool_low",
  "gas_low",
  "lease_lost",
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** critical: money or a draw is held up now; warning: it will be unless someone acts. */
export type AlertSeverity = "critical" | "warning";

export const ALERT_SEVERITY: Readonly<Record<AlertKind, AlertSeverity>> = {
  drawing_stuck: "critical",
  pull_failing: "critical",
  payout_refused: "critical",
  foreign_commit: "critical",
  provider_outage: "critical",
  chain_unreachable: "critical",
  pool_low: "warning",
  gas_low: "warning",
  lease_lost: "warning",
};

/** What to do, in one line for the notice; docs/operations.md ("Alerts") has the longer runbook. */
export const ALERT_ACTIONS: Readonly<Record<AlertKind, string>> = {
  drawing_stuck: "read the drawing's note (prizedraw drawing list); a drawing without a list needs the partner's list and a later cutoff (prizedraw drawing extend-cutoff), a chain refusal needs the chain fixed",
  pull_failing: "ask the partner to fix the winners URL now; if the cutoff passes first, extend it (prizedraw drawing extend-cutoff) once the URL answers",
  payout_refused: "the token refuses the payout wallet: set a new wallet (prizedraw campaign set --payout-wallet) and have the admin move the drawing's wallet (moveDrawingWallet)",
  foreign_commit: "someone else used the operator key: rotate it, and run the campaign audit (verify-draw.mjs --campaign); acknowledge the alert once handled (prizedraw alerts ack)",
  provider_outage: "check the randomness provider's status; the keeper re-requests once the contract's reveal timeout allows it",
  chain_unreachable: "check the RPC provider (RPC_URL) and the node's status; nothing moves onchain meanwhile",
  pool_low: "fund the prize vault: commits are refused once the pool cannot back a drawing's worst case",
  gas_low: "send native currency to the operator account: without gas nothing is committed or paid",
  lease_lost: "check the service processes: one must hold the keeper lease (prizedraw_keeper_lease_held); a paused or overloaded host loses it",
};

/** One condition active now. */
export type AlertCondition = {
  /** `kind` or `kind:subject`: one open alert per key at a time. */
  key: string;
  kind: AlertKind;
  severity: AlertSeverity;
  summary: string;
  detail: string;
  campaignSlug: string | null;
  drawingId: string | null;
};

/** A drawing the keeper has not finished (not paid), with what the rules need from its campaign. */
export type ObservedDrawing = {
  campaignSlug: string;
  mode: CampaignMode;
  drawing: Pick<Drawing, "id" | "status" | "cutoffAt" | "lockedAt" | "settledAt" | "needsAttention" | "entropyProvider">;
  /** The campaign's clock now (ISO): a test clock may run ahead of real time, and every drawing time is on it. */
  campaignNow: string;
  /** Open drawings of pull campaigns near or past their cutoff: the URL's latest fetch (on the campaign's clock). */
  lastFetch: { at: string; outcome: FetchOutcome; reason: string | null } | null;
};

export type AlertObservation = {
  drawings: readonly ObservedDrawing[];
  /** The pool's free balance and what the active campaigns pay out in a day on average (cents); null: not read. */
  pool: { freeCents: bigint; dailyPrizeCents: bigint } | null;
  /** The operator's native balance (wei); null: not read. */
  operatorBalanceWei: bigint | null;
  /** Since when (real time, ISO) every chain read has failed; null when the latest one answered. */
  chainFailingSince: string | null;
  /** Real time, ISO. */
  now: string;
};

export type AlertRules = {
  /** A drawing this long in one unfinished status (on its campaign's clock) is stuck. */
  stuckMs: number;
  /** A pull URL still failing this close to the cutoff needs a person (the spec: the last 5 minutes). */
  pullWindowMs: number;
  /** The pool's free balance must cover this many days of prizes (0: not checked). */
  poolDays: number;
  /** The operator's balance must be at least this (0: not checked). */
  gasMinWei: bigint;
  /** The chain unanswered this long is an outage (shorter gaps are a node's hiccup). */
  chainOutageMs: number;
};

/**
 * The conditions active now, and the kinds the observation could not judge (their open alerts stay as they are:
 * a failed read is no resolution).
 */
export type AlertEvaluation = { active: AlertCondition[]; unobserved: AlertKind[] };

const PAYOUT_REFUSED = new RegExp(`^${CHAIN_FAULT_PREFIX}payout(Many)? refused by the contract`);
/** domain/drawingLife.ts's foreignCommitNote, whatever its numbers. */
const FOREIGN_COMMIT = /committed onchain outside this service/;
/** Drawings named in one provider's alert at most (the count is always given). */
const LISTED_DRAWINGS = 20;

function condition(kind: AlertKind, subject: string | null, summary: string, detail: string, where: { campaignSlug?: string; drawingId?: string } = {}): AlertCondition {
  return {
    key: subject === null ? kind : `${kind}:${subject}`,
    kind,
    severity: ALERT_SEVERITY[kind],
    summary,
    detail,
    campaignSlug: where.campaignSlug ?? null,
    drawingId: where.drawingId ?? null,
  };
}

/** Every condition the observation shows, by the rules' thresholds. */
export function evaluateAlerts(observation: AlertObservation, rules: AlertRules): AlertEvaluation {
  const active: AlertCondition[] = [];
  const unobserved: AlertKind[] = [];
  const late = new Map<string, ObservedDrawing[]>();
  for (const seen of observation.drawings) {
    const specific = drawingConditions(seen, rules);
    active.push(...specific);
    if (seen.drawing.needsAttention === ENTROPY_LATE) {
      const provider = seen.drawing.entropyProvider ?? "unknown";
      late.set(provider, [...(late.get(provider) ?? []), seen]);
    }
    // A drawing with a condition of its own is not also reported as stuck: that alert already says why.
    if (specific.length === 0 && seen.drawing.needsAttention !== ENTROPY_LATE) {
      const stuck = stuckCondition(seen, rules);
      if (stuck) active.push(stuck);
    }
  }
  for (const [provider, drawings] of late) active.push(providerOutage(provider, drawings));

  const chainDown = observation.chainFailingSince === null ? 0 : Date.parse(observation.now) - Date.parse(observation.chainFailingSince);
  if (observation.chainFailingSince !== null && chainDown >= rules.chainOutageMs) {
    active.push(
      condition("chain_unreachable", null, "the chain's node does not answer", `every chain read has failed since ${observation.chainFailingSince} (${Math.floor(chainDown / 60_000)} min or more)`),
    );
  }
  if (observation.pool === null) unobserved.push("pool_low");
  else {
    const low = poolLow(observation.pool, rules.poolDays);
    if (low) active.push(low);
  }
  if (observation.operatorBalanceWei === null) unobserved.push("gas_low");
  else if (rules.gasMinWei > 0n && observation.operatorBalanceWei < rules.gasMinWei) {
    active.push(
      condition(
        "gas_low",
        null,
        "the operator account is running out of gas money",
        `its balance is ${formatEther(observation.operatorBalanceWei)} (native currency), below the ${formatEther(rules.gasMinWei)} set as the minimum (ALERT_GAS_MIN_WEI)`,
      ),
    );
  }
  return { active, unobserved };
}

/** Conditions a drawing has of its own: its pull URL failing near the cutoff, a payout refused, a foreign commit. */
function drawingConditions(seen: ObservedDrawing, rules: AlertRules): AlertCondition[] {
  const { drawing, campaignSlug } = seen;
  const where = { campaignSlug, drawingId: drawing.id };
  const out: AlertCondition[] = [];
  const failing = pullFailing(seen, rules);
  if (failing) out.push(failing);
  const note = drawing.needsAttention;
  if (drawing.status === "settled" && note !== null && PAYOUT_REFUSED.test(note)) {
    out.push(condition("payout_refused", drawing.id, `the payout of drawing ${drawing.id} of ${campaignSlug} is refused`, note, where));
  }
  if (note !== null && FOREIGN_COMMIT.test(note)) {
    out.push(condition("foreign_commit", drawing.id, `numbers of ${campaignSlug} were committed onchain outside this service`, note, where));
  }
  return out;
}

/**
 * The spec: "if the URL still errors in the last 5 minutes before the cutoff, service staff are alerted". Active
 * while the drawing is open and its latest fetch failed within that window of its cutoff as it stands now: a fetch
 * that answers, a lock, or a cutoff moved further out clears it.
 */
export function pullFailing(seen: ObservedDrawing, rules: Pick<AlertRules, "pullWindowMs">): AlertCondition | null {
  const { drawing, lastFetch, campaignSlug } = seen;
  if (seen.mode !== "pull" || drawing.status !== "open" || lastFetch === null) return null;
  if (lastFetch.outcome !== "error" && lastFetch.outcome !== "invalid") return null;
  const before = Date.parse(drawing.cutoffAt) - Date.parse(lastFetch.at);
  if (before < 0 || before > rules.pullWindowMs) return null;
  return condition(
    "pull_failing",
    drawing.id,
    `the winners URL of ${campaignSlug} still fails before drawing ${drawing.id}'s cutoff`,
    `the fetch at ${lastFetch.at}, ${Math.ceil(before / 60_000)} min before the cutoff at ${drawing.cutoffAt}, gave ${lastFetch.outcome === "error" ? "an error" : "a list refused"}: ${lastFetch.reason ?? "no reason given"}`,
    { campaignSlug, drawingId: drawing.id },
  );
}

/**
 * When a drawing entered its status, as far as the store knows (campaign clock): its cutoff for an open one (it
 * should lock then), its lock for one locked or waiting for randomness, its settlement for one waiting for payout.
 */
export function inStatusSince(drawing: ObservedDrawing["drawing"]): string {
  switch (drawing.status) {
    case "open":
      return drawing.cutoffAt;
    case "locked":
    case "entropy_requested":
      return drawing.lockedAt ?? drawing.cutoffAt;
    default:
      return drawing.settledAt ?? drawing.lockedAt ?? drawing.cutoffAt;
  }
}

/** A drawing past its cutoff that has sat in one unfinished status for `stuckMs` or more. */
export function stuckCondition(seen: ObservedDrawing, rules: Pick<AlertRules, "stuckMs">): AlertCondition | null {
  const { drawing, campaignSlug } = seen;
  if (drawing.status === "paid") return null;
  const since = inStatusSince(drawing);
  const now = Date.parse(seen.campaignNow);
  if (now < Date.parse(drawing.cutoffAt) || now - Date.parse(since) < rules.stuckMs) return null;
  const note = drawing.needsAttention === null ? "" : `; its note: ${drawing.needsAttention}`;
  return condition(
    "drawing_stuck",
    drawing.id,
    `drawing ${drawing.id} of ${campaignSlug} is stuck ${drawing.status}`,
    `${drawing.status} since ${since} (its campaign's clock), longer than ${Math.round(rules.stuckMs / 60_000)} min${note}`,
    { campaignSlug, drawingId: drawing.id },
  );
}

function providerOutage(provider: string, drawings: readonly ObservedDrawing[]): AlertCondition {
  const ids = drawings.map((d) => d.drawing.id).sort();
  const listed = ids.slice(0, LISTED_DRAWINGS).join(", ") + (ids.length > LISTED_DRAWINGS ? `, and ${ids.length - LISTED_DRAWINGS} more` : "");
  return condition(
    "provider_outage",
    provider,
    `the randomness provider ${provider} has not revealed ${ids.length} drawing${ids.length === 1 ? "" : "s"} in time`,
    `waiting past the entropy timeout: ${listed}`,
  );
}

/** Days of prizes the active campaigns draw, on average, that the pool's free balance must cover. */
export function poolLow(pool: { freeCents: bigint; dailyPrizeCents: bigint }, days: number): AlertCondition | null {
  if (days <= 0 || pool.dailyPrizeCents <= 0n) return null;
  // Whole cents: days may be fractional (0.5), so the need is computed in thousandths of a day.
  const needCents = (pool.dailyPrizeCents * BigInt(Math.round(days * 1_000))) / 1_000n;
  if (pool.freeCents >= needCents) return null;
  return condition(
    "pool_low",
    null,
    `the prize pool's free balance covers less than ${days} day${days === 1 ? "" : "s"} of prizes`,
    `free ${dollars(pool.freeCents)}; the active campaigns' prizes average ${dollars(pool.dailyPrizeCents)} a day, so ${days} day${days === 1 ? "" : "s"} need ${dollars(needCents)} (ALERT_POOL_DAYS)`,
  );
}

/** Draws a day of a cadence, on average (a month as a twelfth of 365 days). */
export function drawsPerDay(cadence: "hourly" | "daily" | "weekly" | "monthly"): number {
  return { hourly: 24, daily: 1, weekly: 1 / 7, monthly: 12 / 365 }[cadence];
}

/** What a campaign pays out in a day on average: its draws a day, times its winners, times its average prize. */
export function dailyPrizeCents(campaign: { cadence: "hourly" | "daily" | "weekly" | "monthly"; winnersPerDraw: number; averagePrizeCents: number }): bigint {
  return BigInt(Math.ceil(drawsPerDay(campaign.cadence) * campaign.winnersPerDraw * campaign.averagePrizeCents));
}

function dollars(cents: bigint): string {
  const sign = cents < 0n ? "-" : "";
  const abs = cents < 0n ? -cents : cents;
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${sign}$${whole}.${(abs % 100n).toString().padStart(2, "0")}`;
}

/** An alert still open, as the plan needs it. */
export type OpenAlert = { id: number; key: string; kind: string; summary: string; detail: string; lastNotifiedAt: string; acknowledgedAt: string | null };

/** What to do about the alerts now. */
export type AlertPlan = {
  /** Conditions without an open alert: opened, with a notice. */
  open: AlertCondition[];
  /** Open alerts still active, not acknowledged, last notified `remindMs` ago or more: a reminder, with today's wording. */
  remind: { alert: OpenAlert; condition: AlertCondition }[];
  /** Open alerts still active whose wording changed (a new fetch, another drawing late): stored, no notice. */
  refresh: { alert: OpenAlert; condition: AlertCondition }[];
  /** Open alerts whose condition cleared: resolved, with a notice. */
  resolve: OpenAlert[];
};

/**
 * Sets the active conditions beside the open alerts. An alert whose kind the observation could not judge stays as it
 * is; `lease_lost` is never active here (the keeper that runs this holds the lease), so an open one resolves.
 */
export function planAlerts(open: readonly OpenAlert[], evaluation: AlertEvaluation, now: Date, remindMs: number): AlertPlan {
  const plan: AlertPlan = { open: [], remind: [], refresh: [], resolve: [] };
  const byKey = new Map(open.map((a) => [a.key, a]));
  const activeKeys = new Set<string>();
  for (const c of evaluation.active) {
    if (activeKeys.has(c.key)) continue;
    activeKeys.add(c.key);
    const alert = byKey.get(c.key);
    if (!alert) plan.open.push(c);
    else if (alert.acknowledgedAt === null && now.getTime() - Date.parse(alert.lastNotifiedAt) >= remindMs) plan.remind.push({ alert, condition: c });
    else if (alert.summary !== c.summary || alert.detail !== c.detail) plan.refresh.push({ alert, condition: c });
  }
  const unobserved = new Set<string>(evaluation.unobserved);
  for (const alert of open) if (!activeKeys.has(alert.key) && !unobserved.has(alert.kind)) plan.resolve.push(alert);
  return plan;
}

/** The lease a process lost: recorded by that process, resolved by whichever process runs the keeper next. */
export function leaseLostCondition(holder: string, at: string): AlertCondition {
  return condition(
    "lease_lost",
    holder,
    `the keeper lease was lost by ${holder}`,
    `at ${at} this process found the keeper lease expired or taken and stopped its keeper; the alert resolves once a process runs the keeper again`,
  );
}
