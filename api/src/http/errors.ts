import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { ZodError } from "zod";
import { ServiceError } from "../domain/errors.js";
import { logger } from "../logger.js";

/** The spec's error body. */
export type ErrorBody = { error: string; detail: string };

/** A zod issue as one line that names the field: `winners[2].avatarUrl: must be an https URL`. */
export function describeZodError(error: ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid request";
  const path = issue.path.reduce<string>((acc, part) => (typeof part === "number" ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part)), "");
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** Maps every error to `{ error, detail }`: service errors by their code, the rest as 500 without internals. */
export function handleError(error: Error, c: Context) {
  if (error instanceof ServiceError) return c.json<ErrorBody>({ error: error.code, detail: error.detail }, error.status);
  if (error instanceof ZodError) return c.json<ErrorBody>({ error: "bad_request", detail: describeZodError(error) }, 400);
  if (error instanceof HTTPException && error.status < 500) {
    return c.json<ErrorBody>({ error: error.status === 401 ? "unauthorized" : "bad_request", detail: error.message || "bad request" }, error.status === 401 ? 401 : 400);
  }
  logger.error({ err: { name: error.name, message: error.message }, path: c.req.path, method: c.req.method }, "unhandled error");
  return c.json<ErrorBody>({ error: "internal", detail: "unexpected error; the request was not completed, retry later" }, 500);
}
