/**
 * Which changes are webhook events, and their payloads. Called, and awaited, by the store's change hooks
 * (serviceStore.ts wires DrawingStore.update and GuaranteeStore.insert to these), inside the transaction that
 * makes the change: every
 * path that changes a drawing (the keeper's lock, settle and payout, a chain fault's flag, a proof mismatch, ...)
 * goes through update, so no caller can forget the event, and the event is stored if and only if the change is.
 */
import { drawingView } from "../domain/drawings.js";
import { guaranteeView } from "../domain/guarantees.js";
import { newId } from "../store/ids.js";
import type { Drawing } from "../store/drawings.js";
import type { GuaranteePeriod } from "../store/guarantees.js";
import type { Store } from "../store/index.js";
import type { WebhookEventType } from "../store/webhooks.js";

/** A delivery is retried until this long after its event, then it fails. */
export const GIVE_UP_AFTER_MS = 3 * 24 * 3_600_000;

/** What a drawing's update is, as events: statuses reached, and a new non-null needsAttention. */
export type DrawingBefore = Pick<Drawing, "status" | "needsAttention">;

/**
 * The events of one drawing update, in the order they happened. `settled` counts only when coming from an earlier
 * status (a reorg that steps a paid drawing back to settled is no news; its second payout is a second
 * `drawing.paid`, as is a second settle after a dropped reveal).
 */
export function drawingEvents(before: DrawingBefore, after: DrawingBefore): WebhookEventType[] {
  const events: WebhookEventType[] = [];
  if (before.status === "open" && after.status === "locked") events.push("drawing.locked");
  if (after.status === "settled" && before.status !== "settled" && before.status !== "paid") events.push("drawing.settled");
  if (after.status === "paid" && before.status !== "paid") events.push("drawing.paid");
  if (after.needsAttention !== null && after.needsAttention !== before.needsAttention) events.push("drawing.needs_attention");
  return events;
}

/** The body every delivery of the event sends: `{ type, timestamp, data }` (Standard Webhooks). */
export function eventBody(type: WebhookEventType, at: Date, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

/** Records the events of a drawing update (after it is written, in its transaction; the store awaits it there). */
export async function recordDrawingChange(store: Store, before: DrawingBefore, after: Drawing, now: Date = new Date()): Promise<void> {
  const types = drawingEvents(before, after);
  if (types.length === 0) return;
  const campaign = await store.campaigns.byId(after.campaignId);
  // Only accounts with an endpoint get events: the outbox holds what is to be sent, not a history.
  if (!campaign || !(await store.webhooks.hasEndpoints(campaign.accountId))) return;
  const data = { campaign: campaign.slug, drawing: await drawingView(store, after) };
  for (const type of types) await enqueue(store, campaign.accountId, type, after.id, data, now);
}

/** Records `guarantee.awaiting_pick` for a period checked without a prize at the threshold. */
export async function recordGuaranteeCreated(store: Store, guarantee: GuaranteePeriod, now: Date = new Date()): Promise<void> {
  if (guarantee.status !== "awaiting_pick") return;
  const campaign = await store.campaigns.byId(guarantee.campaignId);
  if (!campaign || !(await store.webhooks.hasEndpoints(campaign.accountId))) return;
  await enqueue(store, campaign.accountId, "guarantee.awaiting_pick", guarantee.id, { campaign: campaign.slug, guarantee: guaranteeView(guarantee) }, now);
}

async function enqueue(store: Store, accountId: string, type: WebhookEventType, subjectId: string, data: Record<string, unknown>, now: Date): Promise<void> {
  await store.webhooks.enqueue(
    { id: newId("msg"), accountId, type, subjectId, body: eventBody(type, now, data), createdAt: now.toISOString() },
    new Date(now.getTime() + GIVE_UP_AFTER_MS).toISOString(),
  );
}
