import { createMiddleware } from "hono/factory";
import { BadRequestError, NotFoundError } from "../domain/errors.js";

// No slug, id, key, token or text the service issues or stores holds U+0000 (NUL), and PostgreSQL's text cannot hold
// one: a NUL reaching the store would miss on SQLite (or be stored) and fail inside PostgreSQL (a 500). So requests
// are checked where they are read: the path here, the query, JSON bodies (body.ts) and portal forms (portal/guard.ts).

/** U+0000 as a request line carries it: percent-encoded (a raw NUL never passes Node's HTTP parser). */
const ENCODED_NUL = /%00/i;

/** A path holding NUL names nothing: 404 not_found, as any unknown resource, before a route looks it up. */
export function nulGuard() {
  return createMiddleware(async (c, next) => {
    const url = c.req.url;
    const queryAt = url.indexOf("?");
    if (ENCODED_NUL.test(queryAt === -1 ? url : url.slice(0, queryAt))) throw new NotFoundError("no such resource: the path holds NUL (U+0000)");
    await next();
  });
}

/** Where in `value` (a parsed JSON body, a query or a form) the first string holding NUL is, as `a.b[2]`; null if none. */
export function nulPath(value: unknown, path = ""): string | null {
  if (typeof value === "string") return value.includes("\0") ? path || "body" : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPath(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes("\0")) return path ? `${path}.${key.replaceAll("\0", "")}` : key.replaceAll("\0", "") || "body";
      const found = nulPath(item, path ? `${path}.${key}` : key);
      if (found !== null) return found;
    }
  }
  return null;
}

/** Refuses `value` with 400 bad_request naming the field when a string in it holds NUL. */
export function refuseNul(value: unknown): void {
  const path = nulPath(value);
  if (path !== null) throw new BadRequestError(`${path}: must not contain NUL (U+0000)`);
}
