/**
 * Times that people and clients type (a drawing's new cutoff, a campaign's start and end dates, the test clock's
 * target): the one rule behind every door (the partner API, the portal, the CLI). A time is ISO 8601 with a
 * four-digit year, a time of day and an offset or Z, a real calendar time, from 1970 to 9999 (UTC). Within those years
 * the stored form ("YYYY-MM-DDTHH:mm:ss.sssZ") orders as text the way the instants do, which the store relies on when
 * it compares times in SQL; an extended year ("+010000-01-01T00:00:00Z", even "+002030-...") would not, and text
 * comparison once took such a cutoff for one long past. So that form is refused, never normalised, and code here
 * compares parsed instants, never the text it was sent.
 */
import { DateTime } from "luxon";
import { BadRequestError } from "./errors.js";

/** The earliest and the latest time taken (ms): 1970-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. */
export const EARLIEST_TIME_MS = Date.UTC(1970, 0, 1);
export const LATEST_TIME_MS = Date.UTC(10_000, 0, 1) - 1;

/** How far ahead of real time a cutoff or the test clock may be moved: 100 years (of 365 days). */
export const MAX_AHEAD_MS = 100 * 365 * 24 * 3_600_000;

/** The form taken: a date with a four-digit year, hours and minutes (seconds and a fraction optional), an offset or Z. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** The form in words, for error details. */
export const TIME_FORM = 'an ISO 8601 time with a four-digit year and an offset or Z, e.g. "2026-11-25T20:00:00Z"';

/** A time the rule refuses. `problem` is the detail without the field's name, for callers with errors of their own. */
export class TimeInputError extends BadRequestError {
  override name = "TimeInputError";
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field} ${problem}`);
  }
}

/** `value` as the instant it names, if it is a time the service takes; else a TimeInputError naming `field`. */
export function parseTime(field: string, value: unknown): Date {
  if (typeof value !== "string" || !ISO_TIME.test(value)) throw new TimeInputError(field, `must be ${TIME_FORM}, got ${quoted(value)}`);
  const parsed = DateTime.fromISO(value, { setZone: true });
  if (!parsed.isValid) throw new TimeInputError(field, `is not a real time (${parsed.invalidReason ?? "invalid"}): ${quoted(value)}`);
  const ms = parsed.toMillis();
  if (ms < EARLIEST_TIME_MS || ms > LATEST_TIME_MS) throw new TimeInputError(field, `must be between 1970 and 9999 (UTC), got ${quoted(value)}`);
  return new Date(ms);
}

/** The latest instant (ms) a cutoff or the test clock may be moved to at real time `realNow`: 100 years ahead, before 10000. */
export function latestAhead(realNow: Date): number {
  return Math.min(realNow.getTime() + MAX_AHEAD_MS, LATEST_TIME_MS);
}

/** A value as an error detail shows it: a string quoted and cut to 64 characters, anything else as JSON. */
function quoted(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}...` : value);
  if (value === undefined) return "nothing";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
