/**
 * The gauges read when Prometheus scrapes: drawings by status and campaign mode, the age of the oldest drawing in
 * each unfinished status, drawings needing attention, the webhook backlog (from the store), and the prize pool and
 * the operator's gas money (from the chain, read at most once per CHAIN_READ_TTL_MS however often it is scraped).
 * A failed chain read leaves those gauges out of that scrape (an alert on `absent()` sees it) and is counted.
 * Registered by the service process only (main.ts); the CLI shares the counters' code but exports nothing.
 */
import { Counter, Gauge, collectDefaultMetrics } from "prom-client";
import type { ChainPort, PoolBalances } from "../chain/port.js";
import type { Store } from "../store/index.js";
import { registry } from "./registry.js";

/** Chain reads are shared by scrapes this close together. */
const CHAIN_READ_TTL_MS = 10_000;
/** Statuses a drawing leaves on its own once its cutoff passed; one that lingers in them is stuck. */
const UNFINISHED = ["locked", "entropy_requested", "settled"] as const;

export type MetricSources = { store: Store; chain: Pick<ChainPort, "poolBalances" | "operatorBalance"> };

/** A value read at most once per `ttlMs`, shared by the scrapes in between. */
function cached<T>(read: () => Promise<T>, ttlMs: number): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | null = null;
  return () => {
    const now = Date.now();
    if (last === null || now - last.at > ttlMs) {
      const value = read();
      last = { at: now, value };
      // A failed read is not kept: the next scrape tries again.
      void value.catch(() => {
        if (last?.value === value) last = null;
      });
    }
    return last.value;
  };
}

/** Registers the scrape-time gauges for this process's store and chain (once, at start). */
export function registerCollectors({ store, chain }: MetricSources): void {
  // The process's CPU, memory, event loop lag and handles: a stalled event loop shows here first.
  collectDefaultMetrics({ register: registry, prefix: "prizedraw_process_" });
  const chainReadFailures = new Counter({
    name: "prizedraw_chain_read_failures_total",
    help: "Scrapes whose chain read (the pool, the operator's balance) failed; those gauges are absent from that scrape.",
    registers: [registry],
  });
  // One store query serves the three drawing gauges of a scrape.
  const counts = cached(() => store.drawings.statusCounts(), 1_000);
  const pool = cached<PoolBalances>(() => chain.poolBalances(), CHAIN_READ_TTL_MS);
  const operator = cached<bigint>(() => chain.operatorBalance(), CHAIN_READ_TTL_MS);

  new Gauge({
    name: "prizedraw_drawings",
    help: "Drawings by status and campaign mode.",
    labelNames: ["status", "mode"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const group of await counts()) this.set({ status: group.status, mode: group.mode }, group.count);
    },
  });
  new Gauge({
    name: "prizedraw_drawings_needing_attention",
    help: "Drawings that carry a needsAttention note (stuck until someone acts or the chain recovers).",
    registers: [registry],
    async collect() {
      const groups = await counts();
      this.set(groups.reduce((sum, g) => sum + g.needingAttention, 0));
    },
  });
  new Gauge({
    name: "prizedraw_oldest_unfinished_drawing_seconds",
    help: "Seconds since the cutoff of the oldest drawing in each status a drawing leaves on its own (0 when none).",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      const groups = await counts();
      const now = Date.now();
      for (const status of UNFINISHED) {
        const cutoffs = groups.filter((g) => g.status === status).map((g) => Date.parse(g.earliestCutoffAt));
        // A test campaign's clock may run ahead of real time: a cutoff "in the future" counts as no wait.
        const oldest = cutoffs.length === 0 ? now : Math.min(...cutoffs);
        this.set({ status }, Math.max(0, (now - oldest) / 1_000));
      }
    },
  });
  new Gauge({
    name: "prizedraw_webhook_backlog",
    help: "Webhook deliveries still to be made (due now or waiting for a retry).",
    registers: [registry],
    async collect() {
      this.set(await store.webhooks.pendingCount());
    },
  });
  new Gauge({
    name: "prizedraw_pool_cents",
    help: "The prize pool (the vault) in cents: its token balance, what it owes winners, and what is free.",
    labelNames: ["kind"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const b = await pool();
        this.set({ kind: "balance" }, Number(b.balanceCents));
        this.set({ kind: "owed" }, Number(b.owedCents));
        this.set({ kind: "free" }, Number(b.freeCents));
      } catch {
        chainReadFailures.inc();
      }
    },
  });
  new Gauge({
    name: "prizedraw_operator_balance_wei",
    help: "The operator's native balance in wei: what pays its transactions and the randomness fees.",
    registers: [registry],
    async collect() {
      this.reset();
      try {
        this.set(Number(await operator()));
      } catch {
        chainReadFailures.inc();
      }
    },
  });
}
