import { z } from "zod";
import { partnerId, refuseHiddenCharacters } from "../lists/schemas.js";
import { CAMPAIGN_STATUSES } from "../store/campaigns.js";
import { DRAWING_STATUSES } from "../store/drawings.js";
import { CAMPAIGNS_MAX_LIMIT } from "../domain/campaigns.js";

/** Request bodies of every route but the two list routes are refused above this. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The query of a route that takes no parameter: any parameter is refused (docs/api.md, Conventions). */
export const noQuery = z.strictObject({});

export const drawingsQuery = z.strictObject({
  status: z.enum(DRAWING_STATUSES as [string, ...string[]], { message: `must be one of ${DRAWING_STATUSES.join(", ")}` }).optional(),
});

/** GET /api/v1/campaigns's query. */
export const campaignsQuery = z.strictObject({
  status: z.enum(CAMPAIGN_STATUSES as [string, ...string[]], { message: `must be one of ${CAMPAIGN_STATUSES.join(", ")}` }).optional(),
  limit: queryInteger(1, CAMPAIGNS_MAX_LIMIT).optional(),
  after: z.string().regex(/^[a-z0-9-]{1,32}$/, "must be the previous response's next").optional(),
});

/** Durations like 90m, 2h, 1d, 45s for the test clock. */
const duration = z.string().regex(/^\d{1,6}(s|m|h|d)$/, "must be a duration like 90m, 2h, 1d or 30s");

export const testClockBody = z.union([
  z.strictObject({ advanceBy: duration }),
  z.strictObject({ advanceTo: z.iso.datetime({ offset: true, message: "must be an ISO 8601 time" }) }),
], { message: "send { advanceBy: \"90m\" } or { advanceTo: ISO time }" });

/**
 * A whole-number query parameter from `min` to `max`. A query value is text: digits only are read (Number() would
 * also take a sign, an exponent, spaces or hex). The OpenAPI document shows the integer it stands for.
 */
export function queryInteger(min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  return z
    .string()
    .regex(new RegExp(`^\\d{1,${String(max).length}}$`), message)
    .transform(Number)
    .pipe(z.number().int().min(min, message).max(max, message));
}

export const entriesQuery = z.strictObject({
  drawing: z.string().min(1).max(64).superRefine(refuseHiddenCharacters).optional(),
  limit: queryInteger(1, 1_000).optional(),
  after: z.string().regex(/^\d{1,15}$/, "must be the previous response's next").optional(),
});

/**
 * POST guarantee pick body: the winner, and which of their wins when they won more than once in the period. Both are
 * under the character rule of ids (lists/characters.ts), like every id a partner sends.
 */
export const guaranteePickBody = z.strictObject({
  winner: partnerId,
  drawingId: z.string().min(1, "must not be empty").max(64, "must be at most 64 characters").superRefine(refuseHiddenCharacters).optional(),
});
