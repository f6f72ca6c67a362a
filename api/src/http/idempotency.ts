/**
 * Idempotency keys on the partner API's POSTs (the IETF draft's `Idempotency-Key` header): the first request with a
 * key runs and its answer (status and body, errors included, but not a 5xx) is stored for 24 hours; a retry with the
 * same key and the same request gets that answer again, with `Idempotent-Replayed: true`, and changes nothing. The
 * same key with another method, path or body is `409 idempotency_key_reused`. Requests with one key that arrive
 * together run once: the later ones wait for the first's answer (up to 30 s, then `409 idempotency_in_progress`).
 * Keys belong to the account: two accounts may use the same key. The whole body is kept, not a digest: a replay is the
 * first answer byte for byte, also after the drawing changed (why that is worth the store's space, and the window
 * 24 hours: docs/operations.md, "Idempotency records"). A request refused by a rate limit never gets here.
 */
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { createMiddleware } from "hono/factory";
import { BadRequestError, ConflictError } from "../domain/errors.js";
import { IDEMPOTENCY_TTL_HOURS } from "../store/idempotency.js";
import type { Store } from "../store/index.js";
import type { AuthVariables } from "./auth.js";

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
const WAIT_MS = 30_000;
/** Printable ASCII without spaces, as the draft's examples; long enough for a UUID or a ULID with a prefix. */
const WELL_FORMED = /^[\x21-\x7e]{1,255}$/;

export function idempotency(store: Store) {
  return createMiddleware<{ Variables: AuthVariables }>(async (c, next) => {
    const key = c.req.header(IDEMPOTENCY_HEADER);
    if (c.req.method !== "POST" || key === undefined) return next();
    if (!WELL_FORMED.test(key)) throw new BadRequestError(`${IDEMPOTENCY_HEADER}: 1 to 255 printable ASCII characters, no spaces (a UUID, say)`);
    const accountId = c.var.accountId;
    // The route reads the same cached body after this.
    const body = new Uint8Array(await c.req.arrayBuffer());
    const requestHash = createHash("sha256").update(`${c.req.method} ${c.req.path}\n`).update(body).digest("hex");
    const now = Date.now();
    const expiredBefore = new Date(now - IDEMPOTENCY_TTL_HOURS * 3_600_000).toISOString();
    if (!(await store.idempotency.claim(accountId, key, requestHash, new Date(now).toISOString(), expiredBefore))) {
      let record = await store.idempotency.get(accountId, key);
      if (record && record.requestHash !== requestHash) {
        throw new ConflictError("idempotency_key_reused", `this ${IDEMPOTENCY_HEADER} was used with another request (method, path or body) in the last ${IDEMPOTENCY_TTL_HOURS} hours: use a new key for a new request`);
      }
      const deadline = now + WAIT_MS;
      while (record && record.status === null && Date.now() < deadline) {
        await sleep(25);
        record = await store.idempotency.get(accountId, key);
      }
      if (record?.status === null) throw new ConflictError("idempotency_in_progress", `the first request with this ${IDEMPOTENCY_HEADER} is still running: retry in a few seconds`);
      if (record) {
        c.header("Idempotent-Replayed", "true");
        return c.body(record.body ?? "", record.status as 200, { "Content-Type": "application/json; charset=utf-8" });
      }
      // The first request failed on our side (5xx) and released the key meanwhile: this one runs instead.
      if (!(await store.idempotency.claim(accountId, key, requestHash, new Date().toISOString(), expiredBefore))) throw new ConflictError("idempotency_in_progress", `another request with this ${IDEMPOTENCY_HEADER} is running: retry in a few seconds`);
    }
    await next();
    // Hono has turned any error into its answer by now (app.onError): store it, unless it was ours (5xx).
    if (c.res.status >= 500) await store.idempotency.release(accountId, key);
    else await store.idempotency.answer(accountId, key, c.res.status, await c.res.clone().text());
  });
}
