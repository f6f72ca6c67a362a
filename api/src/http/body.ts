import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { z } from "zod";
import { BadRequestError } from "../domain/errors.js";
import { refuseNul } from "./nulGuard.js";

/**
 * A body over its route's limit: `413` with `{ error: "bad_request", detail }` from the API (http/errors.ts), the
 * portal's page from the portal. An HTTP matter, not a domain one: the domain never sees the body.
 */
export class BodyTooLargeError extends Error {
  override name = "BodyTooLargeError";
  constructor(readonly maxBytes: number) {
    super(`the body is larger than ${maxBytes} bytes`);
  }
}

/**
 * Refuses a body over `maxBytes` with BodyTooLargeError: at once when its Content-Length says so, else (chunked) as soon
 * as the count passes the limit while a handler reads it. hono's bodyLimit then fails the read with its own
 * BodyLimitError, which the error handlers answer as 413 too; once the handler is done, its onError (this one) puts the
 * answer naming the limit in its place. Its default onError throws a 413 HTTPException instead, which an error page
 * would not recognise.
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new BodyTooLargeError(maxBytes);
    },
  });
}

/** The limit `error` says a body went over (BodyTooLargeError, or bodyLimit's BodyLimitError mid-read), else null. */
export function bodyTooLarge(error: Error): { maxBytes: number | null } | null {
  if (error instanceof BodyTooLargeError) return { maxBytes: error.maxBytes };
  return error.name === "BodyLimitError" ? { maxBytes: null } : null;
}

/**
 * True when reading the body failed because the client went away mid-upload: node:http fails the request's stream
 * with exactly `aborted` (code ECONNRESET). Nobody is there to read the answer and the service did nothing wrong, so
 * it is logged at info, not as an error. Only that error: a store connection reset (also ECONNRESET, with other
 * words) is the service's failure and stays one.
 */
export function clientAborted(error: Error & { code?: string }): boolean {
  return error.message === "aborted" && error.code === "ECONNRESET";
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Reads a JSON body and checks it against `schema`; anything else is 400 bad_request naming what is wrong. */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const type = c.req.header("content-type") ?? "";
  // application/json, with parameters or not; \b would also let "application/json-seq" or "application/jsonx" in.
  if (!/^application\/json\s*(;|$)/i.test(type)) throw new BadRequestError("send a JSON body with Content-Type: application/json");
  // Read outside the try: a body over the limit must reach bodyLimit's handler (400 naming the limit).
  const bytes = await c.req.arrayBuffer();
  // Decoded strictly: a lenient decode turns invalid UTF-8 into U+FFFD, storing ids other than the bytes sent.
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new BadRequestError("the body is not valid UTF-8");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BadRequestError("the body is not valid JSON");
  }
  const parsed = schema.parse(json);
  // Fields with their own rule name it first (schema.parse); any other string holding NUL is refused here. A NUL
  // in JSON text is always written \u0000 (a raw one is not valid JSON), so most bodies skip the walk.
  if (text.includes("\\u0000")) refuseNul(json);
  return parsed;
}

/** Checks a query string against `schema` (unknown parameters are refused). */
export function readQuery<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  const query = c.req.query();
  refuseNul(query);
  return schema.parse(query);
}
