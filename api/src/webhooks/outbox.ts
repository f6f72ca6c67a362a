/**
 * The one way into the webhook outbox: an event's body, as every delivery of it sends it (Standard Webhooks'
 * `{ type, timestamp, data }`), stored with one pending delivery per endpoint the account has, in the caller's
 * transaction, so the event is stored if and only if its change is. It imports the store only: the domain records the
 * events of its own rules here (a campaign's payout settings) without importing events.ts, whose drawing views
 * import the domain.
 */
import { newId } from "../store/ids.js";
import type { Store } from "../store/index.js";
import type { WebhookEventType } from "../store/webhooks.js";

/** A delivery is retried until this long after its event, then it fails. */
export const GIVE_UP_AFTER_MS = 3 * 24 * 3_600_000;

/** The body every delivery of the event sends: `{ type, timestamp, data }` (Standard Webhooks). */
export function eventBody(type: WebhookEventType, at: Date, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

/**
 * Stores the event for the account's endpoints. An account without an endpoint gets nothing: the outbox holds what
 * is to be sent, not a history. `subjectId` orders deliveries: one subject's events reach an endpoint in order.
 */
export async function enqueueEvent(store: Store, accountId: string, type: WebhookEventType, subjectId: string, data: Record<string, unknown>, now: Date): Promise<void> {
  if (!(await store.webhooks.hasEndpoints(accountId))) return;
  await store.webhooks.enqueue(
    { id: newId("msg"), accountId, type, subjectId, body: eventBody(type, now, data), createdAt: now.toISOString() },
    new Date(now.getTime() + GIVE_UP_AFTER_MS).toISOString(),
  );
}
