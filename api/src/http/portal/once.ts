/**
 * Forms whose result is shown once (a new API key, a new or rotated webhook secret) carry a token of the page view
 * they were rendered in (`_once`, see Layout.tsx's Once). Reloading the result page sends the form again: the
 * token is found used and nothing is done a second time (a second rotation would end the first secret's 24-hour
 * overlap at once). Tokens are kept with the idempotency keys (24 hours, pruned with them), under a key no partner
 * key can take (it holds spaces). A form sent without a token (a script) runs every time.
 */
import type { Context } from "hono";
import { IDEMPOTENCY_TTL_HOURS } from "../../store/idempotency.js";
import type { Store } from "../../store/index.js";
import { field, type PortalEnv } from "./guard.js";

/** What Once renders: 16 random bytes, base64url. */
const WELL_FORMED = /^[A-Za-z0-9_-]{22}$/;

export type OnceOutcome<T> = { repeated: false; value: T } | { repeated: true };

/**
 * Runs `action` unless this form view was sent before. The token is claimed first; an action that fails gives it
 * back, so the form can be sent again.
 */
export async function runOnce<T>(c: Context<PortalEnv>, store: Store, accountId: string, action: () => Promise<T>): Promise<OnceOutcome<T>> {
  const token = field(c, "_once");
  if (!WELL_FORMED.test(token)) return { repeated: false, value: await action() };
  const key = `portal ${c.req.path} ${token}`;
  const now = Date.now();
  const claimed = await store.idempotency.claim(accountId, key, "portal form", new Date(now).toISOString(), new Date(now - IDEMPOTENCY_TTL_HOURS * 3_600_000).toISOString());
  if (!claimed) return { repeated: true };
  try {
    return { repeated: false, value: await action() };
  } catch (error) {
    await store.idempotency.release(accountId, key);
    throw error;
  }
}

/** The notice of a form sent again. */
export const REPEATED_FORM =
  "This form was already sent (the page was reloaded, or the button pressed twice): nothing was done again. A secret is shown only once; if it was not copied, make a new one.";
