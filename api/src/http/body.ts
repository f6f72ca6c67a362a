import type { Context } from "hono";
import type { z } from "zod";
import { BadRequestError } from "../domain/errors.js";

/** Reads a JSON body and checks it against `schema`; anything else is 400 bad_request naming what is wrong. */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) throw new BadRequestError("send a JSON body with Content-Type: application/json");
  let json: unknown;
  try {
    json = JSON.parse(await c.req.text());
  } catch {
    throw new BadRequestError("the body is not valid JSON");
  }
  return schema.parse(json);
}

/** Checks a query string against `schema` (unknown parameters are refused). */
export function readQuery<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  return schema.parse(c.req.query());
}
