import type { Store } from "../store/index.js";
import { IDEMPOTENCY_TTL_HOURS } from "../store/idempotency.js";

const HOUR_MS = 3_600_000;

/** How long the store keeps records that only serve for a while (README, "What the store keeps"). */
export const RETENTION = {
  /** An Idempotency-Key's answer (docs/api.md). */
  idempotencyHours: IDEMPOTENCY_TTL_HOURS,
  /** A portal sign-in or invite link past its expiry, a session past its end or expiry, test-environment mail. */
  portalHours: 24,
  /** A webhook event with its deliveries and their attempts, from the event (they end within 3 days of it). */
  webhookDays: 30,
} as const;

/** Webhook events deleted per keeper cycle at most, so one run holds the store's write lock briefly. */
export const WEBHOOK_PRUNE_BATCH = 500;

/** Rows deleted by one run of pruneExpired, by kind. */
export type Pruned = { idempotencyKeys: number; portalRows: number; webhookEvents: number };

/**
 * Deletes what has outlived its use (RETENTION), once per keeper cycle; never a campaign's data, a drawing, a
 * list, an entry, a guarantee or the audit log. A backlog of webhook events (a first run on an old store) goes
 * WEBHOOK_PRUNE_BATCH per cycle.
 */
export async function pruneExpired(store: Store, now: number = Date.now()): Promise<Pruned> {
  const ago = (ms: number) => new Date(now - ms).toISOString();
  return {
    idempotencyKeys: await store.idempotency.prune(ago(RETENTION.idempotencyHours * HOUR_MS)),
    portalRows: await store.portal.prune(ago(RETENTION.portalHours * HOUR_MS)),
    webhookEvents: await store.webhooks.prune(ago(RETENTION.webhookDays * 24 * HOUR_MS), WEBHOOK_PRUNE_BATCH),
  };
}
