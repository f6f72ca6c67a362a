import type { Context } from "hono";
import type { z } from "zod";
import { BadRequestError } from "../domain/errors.js";
import { refuseNul } from "./nulGuard.js";

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
