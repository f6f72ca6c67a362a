import type { Duplex } from "node:stream";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { ZodError } from "zod";
import { ServiceError } from "../domain/errors.js";
import { describeZodError } from "../lists/schemas.js";
import { logger } from "../logger.js";
import { bodyTooLarge, clientAborted } from "./body.js";
import { RateLimitedError, rateLimitedResponse } from "./rateLimit.js";

/** The spec's error body. */
export type ErrorBody = { error: string; detail: string };

/** Maps every error to `{ error, detail }`: service errors by their code, the rest as 500 without internals. */
export function handleError(error: Error, c: Context) {
  if (error instanceof ServiceError) return c.json<ErrorBody>({ error: error.code, detail: error.detail }, error.status);
  if (error instanceof RateLimitedError) return rateLimitedResponse(c, error);
  if (error instanceof ZodError) return c.json<ErrorBody>({ error: "bad_request", detail: describeZodError(error) }, 400);
  // A body over its route's limit (http/body.ts, limitBody): 413. A streamed (chunked) body fails its read with
  // hono's BodyLimitError first, which reaches this handler before limitBody's own answer, naming the limit, replaces it.
  const tooLarge = bodyTooLarge(error);
  if (tooLarge) return c.json<ErrorBody>({ error: "bad_request", detail: tooLarge.maxBytes === null ? "the body is larger than the limit" : error.message }, 413);
  if (clientAborted(error)) {
    logger.info({ path: c.req.path, method: c.req.method, reason: error.message }, "request aborted by the client");
    return c.json<ErrorBody>({ error: "bad_request", detail: "the request was aborted before its body arrived" }, 400);
  }
  if (error instanceof HTTPException && error.status === 413) return c.json<ErrorBody>({ error: "bad_request", detail: error.message || "the body is larger than the limit" }, 413);
  if (error instanceof HTTPException && error.status < 500) {
    return c.json<ErrorBody>({ error: error.status === 401 ? "unauthorized" : "bad_request", detail: error.message || "bad request" }, error.status === 401 ? 401 : 400);
  }
  logger.error({ err: { name: error.name, message: error.message }, path: c.req.path, method: c.req.method }, "unhandled error");
  return c.json<ErrorBody>({ error: "internal", detail: "unexpected error; the request was not completed, retry later" }, 500);
}

/**
 * Requests Node's HTTP parser refuses before they reach the app (a request line and headers over its 16 KB limit,
 * such as a very long slug or id in the path, or bytes that are not HTTP) got Node's bare status line with no body;
 * they are answered with the spec's `{ error, detail }` too, so a client reading every error as JSON still can.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (error.code === "ECONNRESET" || !socket.writable || inFlight) {
    socket.destroy();
    return;
  }
  const [status, reason, detail] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [431, "Request Header Fields Too Large", "the request line and headers are larger than 16 KB; send long values in the body"]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "Request Timeout", "the request did not arrive in time"]
        : [400, "Bad Request", "the request is not valid HTTP"];
  const body = JSON.stringify({ error: "bad_request", detail } satisfies ErrorBody);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
  );
}
