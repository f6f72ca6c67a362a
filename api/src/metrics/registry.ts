/**
 * The service's metrics in the Prometheus text format (prom-client), one registry per process. Names follow
 * Prometheus' conventions: a `prizedraw_` prefix, base units in the name (`_seconds`, `_cents`, `_wei`), `_total`
 * for counters. Counters and histograms here are moved by the code that does the work (the HTTP app, the keeper,
 * the pull fetcher, the webhook sender); the gauges that describe state (drawings by status, the pool, the
 * operator's gas money, the webhook backlog) are read when Prometheus scrapes (metrics/collect.ts).
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

export const registry = new Registry();

/** Every answered HTTP request: the matched route (a pattern, never a raw path), the method and the status. */
export const httpRequestDuration = new Histogram({
  name: "prizedraw_http_request_duration_seconds",
  help: "Time to answer an HTTP request, by route pattern, method and status code.",
  labelNames: ["route", "method", "status"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** One keeper cycle over every campaign (lock, commit, reveal, settle, pay, follow the chain). */
export const keeperCycleDuration = new Histogram({
  name: "prizedraw_keeper_cycle_duration_seconds",
  help: "Duration of one keeper cycle over every campaign.",
  buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  registers: [registry],
});

export const keeperCycleFailures = new Counter({
  name: "prizedraw_keeper_cycle_failures_total",
  help: "Keeper cycles that stopped with an error (each drawing's own failures are flagged on the drawing instead).",
  registers: [registry],
});

/** 1 while this process holds the keeper lease and so runs the keeper; 0 while it stands by. */
export const keeperLeaseHeld = new Gauge({
  name: "prizedraw_keeper_lease_held",
  help: "1 while this process holds the keeper lease (runs the keeper), 0 while it stands by.",
  registers: [registry],
});

/** From a drawing's draw time to its automatic payout, observed once as the keeper marks it paid. */
export const drawToPaid = new Histogram({
  name: "prizedraw_drawing_draw_to_paid_seconds",
  help: "Time from a drawing's draw time to its automatic payout, by campaign mode.",
  labelNames: ["mode"] as const,
  buckets: [5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200],
  registers: [registry],
});

/** Operator transactions sent by this process, by contract function, and how they ended. */
export const chainTransactions = new Counter({
  name: "prizedraw_chain_transactions_total",
  help: "Operator transactions sent, by contract function and outcome (mined, reverted, failed: not sent or no receipt).",
  labelNames: ["function", "outcome"] as const,
  registers: [registry],
});

/** Gas paid by this process's mined transactions, in wei (gas used x effective gas price). */
export const chainFeesWei = new Counter({
  name: "prizedraw_chain_fees_wei_total",
  help: "Fees paid by the operator's mined transactions, in wei.",
  registers: [registry],
});

/** Unmined operator transactions sent again at their nonce with higher fees (chain/fees.ts). */
export const chainTransactionReplacements = new Counter({
  name: "prizedraw_chain_transaction_replacements_total",
  help: "Operator transactions replaced at their nonce with higher fees because they were not mined in time, by contract function.",
  labelNames: ["function"] as const,
  registers: [registry],
});

export const chainTransactionsInFlight = new Gauge({
  name: "prizedraw_chain_transactions_in_flight",
  help: "Operator transactions sent and waiting for their receipt.",
  registers: [registry],
});

/** Pull fetches of partners' winner URLs that did not give a usable list, by what went wrong. */
export const pullFetchFailures = new Counter({
  name: "prizedraw_pull_fetch_failures_total",
  help: "Pull fetches that gave no usable winner list, by outcome (error: the URL failed; invalid: the list was refused).",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

/** Webhook attempts that failed, and deliveries given up for good. */
export const webhookFailures = new Counter({
  name: "prizedraw_webhook_failures_total",
  help: "Webhook attempts that failed, by whether the delivery will be retried (retrying) or was given up (failed).",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

/**
 * proof.json bodies built (http/proofRenders.ts): once per state of a drawing's proof (its result known, its result
 * final, a winner renamed), never per request. By the finality the body carries and how the build ended.
 */
export const proofBuilds = new Counter({
  name: "prizedraw_proof_builds_total",
  help: "proof.json bodies built, by finality (provisional, final) and outcome (built; refused: the store and the chain disagree; failed).",
  labelNames: ["finality", "outcome"] as const,
  registers: [registry],
});

/** From the start of a proof body's build to its bytes: the store's pages of entrants and the proof worker's work. */
export const proofBuildDuration = new Histogram({
  name: "prizedraw_proof_build_duration_seconds",
  help: "Time to build a proof.json body (entrants read from the store, hashed and serialized in the proof worker), by finality.",
  labelNames: ["finality"] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

/**
 * Reads of a kept proof's sources (the store's rows and the indexer's): after a write to its campaign, and for a
 * provisional proof being requested at most once a second. By result: unchanged (the kept body served), changed
 * (a new state: built), unavailable (no proof to serve: not drawn, not indexed, refused, or a read failed).
 */
export const proofStateChecks = new Counter({
  name: "prizedraw_proof_state_checks_total",
  help: "Reads of a proof's sources that decide whether its kept body still holds, by result (unchanged, changed, unavailable).",
  labelNames: ["result"] as const,
  registers: [registry],
});
