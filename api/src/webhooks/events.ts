/**
 * Which drawing and guarantee changes are webhook events, and their payloads. Called, and awaited, by the store's
 * change hooks (serviceStore.ts wires DrawingStore.update and GuaranteeStore.insert to these), inside the transaction
 * that makes the change: every
 * path that changes a drawing (the keeper's lock, settle and payout, a chain fault's flag, a proof mismatch, ...)
 * goes through update, so no caller can forget the event, and the event is stored if and only if the change is.
 * `campaign.payout_settings_changed` has one writer, the domain's payout rule (domain/payoutSettings.ts), which
 * records it through outbox.ts in the same way.
 */
import { drawingView } from "../domain/drawings.js";
import { guaranteeView } from "../domain/guarantees.js";
import type { Drawing } from "../store/drawings.js";
import type { GuaranteePeriod } from "../store/guarantees.js";
import type { Store } from "../store/index.js";
import type { WebhookEventType } from "../store/webhooks.js";
import { enqueueEvent } from "./outbox.js";

export { GIVE_UP_AFTER_MS, eventBody } from "./outbox.js";

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

/** Records the events of a drawing update (after it is written, in its transaction; the store awaits it there). */
export async function recordDrawingChange(store: Store, before: DrawingBefore, after: Drawing, now: Date = new Date()): Promise<void> {
  const types = drawingEvents(before, after);
  if (types.length === 0) return;
  const campaign = await store.campaigns.byId(after.campaignId);
  // Only accounts with an endpoint get events (enqueueEvent checks too): asked first, so no view is built for none.
  if (!campaign || !(await store.webhooks.hasEndpoints(campaign.accountId))) return;
  const data = { campaign: campaign.slug, drawing: await drawingView(store, after) };
  for (const type of types) await enqueueEvent(store, campaign.accountId, type, after.id, data, now);
}

/** Records `guarantee.awaiting_pick` for a period checked without a prize at the threshold. */
export async function recordGuaranteeCreated(store: Store, guarantee: GuaranteePeriod, now: Date = new Date()): Promise<void> {
  if (guarantee.status !== "awaiting_pick") return;
  const campaign = await store.campaigns.byId(guarantee.campaignId);
  if (!campaign || !(await store.webhooks.hasEndpoints(campaign.accountId))) return;
  await enqueueEvent(store, campaign.accountId, "guarantee.awaiting_pick", guarantee.id, { campaign: campaign.slug, guarantee: guaranteeView(guarantee) }, now);
}
