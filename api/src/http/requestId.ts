/**
 * Request ids: every response carries `Request-Id`, the id a partner quotes to support. A client's own id is kept
 * when it is well formed (8 to 128 of letters, digits and `._:-`), else the service makes one (`req_` and 26
 * base32 characters). The log lines written while the request is handled carry it (logger.ts), and requests to the
 * partner API and the portal get one line each (method, path, status, time).
 */
import { randomBytes } from "node:crypto";
import { createMiddleware } from "hono/factory";
import { logger, requestContext } from "../logger.js";

export const REQUEST_ID_HEADER = "Request-Id";
const WELL_FORMED = /^[A-Za-z0-9._:-]{8,128}$/;
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

const ID_CHARS = 26;
/** Random bytes for 256 ids, drawn from the system at once (a read per id was a visible cost of a cached read). */
let pool = Buffer.alloc(0);
let used = 0;

export function newRequestId(): string {
  if (used + ID_CHARS > pool.length) {
    pool = randomBytes(ID_CHARS * 256);
    used = 0;
  }
  let out = "req_";
  for (let i = used; i < used + ID_CHARS; i++) out += ALPHABET[pool[i]! & 31];
  used += ID_CHARS;
  return out;
}

/** The id of a request: the client's own when well formed, else a new one. */
export function requestIdFor(sent: string | undefined): string {
  return sent && WELL_FORMED.test(sent) ? sent : newRequestId();
}

/** Paths whose requests get an access line: the partner API and the portal (not the hot public reads). */
const LOGGED = /^\/(api\/v1|portal)(\/|$)/;

export function requestId() {
  return createMiddleware<{ Variables: { requestId: string } }>(async (c, next) => {
    const id = requestIdFor(c.req.header(REQUEST_ID_HEADER));
    c.set("requestId", id);
    const started = performance.now();
    await requestContext.run({ requestId: id }, async () => {
      await next();
      c.header(REQUEST_ID_HEADER, id);
      if (LOGGED.test(c.req.path)) logger.info({ method: c.req.method, path: c.req.path.slice(0, 200), status: c.res.status, ms: Math.round(performance.now() - started) }, "request");
    });
  });
}
