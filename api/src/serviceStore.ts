/**
 * The store every door opens (the service, the CLI, the start script, the tests): the store's rows, with webhook
 * events recorded by the store's change hooks inside the transaction of each change (a transactional outbox).
 * Every writer of a drawing or guarantee period gets its events without having to remember them, and an event is
 * stored if and only if its change is. Wired here, above both, so the store knows rows and never the rules of
 * webhooks.
 */
import { openStore, type Store } from "./store/index.js";
import { recordDrawingChange, recordGuaranteeCreated } from "./webhooks/events.js";

/** Wires `store`'s hooks to the webhook events and returns it. */
export function withWebhookEvents(store: Store): Store {
  store.drawings.onChange = (before, after) => recordDrawingChange(store, before, after);
  store.guarantees.onInsert = (g) => recordGuaranteeCreated(store, g);
  return store;
}

/** Opens the store at `location` (a PostgreSQL URL or a SQLite file's path) with its webhook events wired. */
export async function openServiceStore(location: string, options: { create?: boolean } = {}): Promise<Store> {
  return withWebhookEvents(await openStore(location, options));
}
