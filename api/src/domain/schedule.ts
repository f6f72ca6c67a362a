/**
 * Campaign schedules (spec: Campaign > Schedule, Campaign status, Limits): checking what a partner sends and
 * turning a schedule into draw instants. Pure: no clock reads (callers pass `now`), no I/O.
 *
 * Every time-zone step goes through luxon and the IANA database (DESIGN.md section 2); nothing here assumes an
 * offset. Calendar stepping (next day, next month) is done on plain UTC dates, where every day is 24 hours;
 * only "this wall-clock time on this local date" is resolved in the campaign's zone. Results are JS Dates.
 *
 * Decisions where the spec is silent:
 * - Cutoff is absolute: cutoffAt = drawAt - cutoffMinutes real minutes, so a DST change never stretches it.
 * - A draw belongs to the campaign when startsAt <= cutoffAt (its list can be collected from the start) and,
 *   with an end date, drawAt <= endsAt.
 * - A wall-clock time that does not exist (spring forward) moves forward by the gap: 02:30 Europe/Berlin on
 *   2026-03-29 is 03:30 CEST. This is what luxon does, and it does so whatever the current date.
 * - A wall-clock time that happens twice (fall back) takes the earlier instant. luxon's own pick is NOT stable:
 *   DateTime.fromObject guesses with the offset in force today, so 02:30 Europe/Berlin on 2026-10-25 resolves
 *   to +01:00 when run in January and to +02:00 when run in July. We take the earliest of getPossibleOffsets().
 * - If two local dates map to the same instant (a zone that skipped a whole day, Pacific/Apia 2011-12-30),
 *   that is one draw.
 * - Hourly: one draw per real hour, at the instants whose local minute is drawMinute. With whole-hour offsets
 *   that is every 60 minutes, 23 or 25 draws on a DST-change day. Where DST moves by 30 minutes
 *   (Australia/Lord_Howe) two such instants can be 30 minutes apart; the later one is skipped, so draws are
 *   never less than an hour apart (the gap there is 90 minutes once).
 * - hourly takes drawHour absent, null or 0 and stores 0, so a schedule read back from the API can be sent
 *   unchanged; any other hour is an error rather than silently ignored.
 * - Unknown fields are refused (a misspelt "drawWeekDay" would otherwise be dropped without a word).
 * - timezone is stored as sent once luxon accepts it; it is not canonicalised (ICU would turn Asia/Kolkata
 *   into Asia/Calcutta, which would surprise the partner).
 * - startsAt and endsAt may lie in the past and need not enclose any draw: schedules of running or ended
 *   campaigns are checked again on edit, and ending a campaign sets endsAt to now. They follow the rule for every
 *   typed time (domain/times.ts): a four-digit year, 1970-9999 (UTC), so the stored form is always
 *   "YYYY-MM-DDTHH:mm:ss.sssZ".
 * - cutoffMinutes is checked against the nominal period only (brief: daily < 1440 etc.). On a 23-hour day or a
 *   28-day February a long cutoff can fall before the previous draw; each drawing keeps its own list, so that
 *   is allowed.
 */
import { DateTime, IANAZone } from "luxon";

import type { Cadence, Schedule } from "../store/campaigns.js";
import { TimeInputError, parseTime } from "./times.js";

export type { Cadence, Schedule };
export const CADENCES: readonly Cadence[] = Object.freeze(["hourly", "daily", "weekly", "monthly"] as const);

export type ScheduleField = keyof Schedule;

/** What a client sends; normalizeSchedule fills in the defaults. */
export type ScheduleInput = Partial<Schedule> & { cadence: Cadence };

/** A schedule the spec's rules refuse. `field` names the offending field; the message starts with it. */
export class ScheduleError extends Error {
  override name = "ScheduleError";
  readonly code = "invalid_schedule";
  readonly field: string;

  constructor(field: string, problem: string) {
    super(`${field} ${problem}`);
    this.field = field;
  }
}

export type Occurrence = { drawAt: Date; cutoffAt: Date };

/** Drawings are created about 48 hours ahead (spec: Limits, "Drawing creation lead"). */
export const DRAWING_LEAD_HOURS = 48;

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

const FIELDS: ReadonlySet<string> = new Set<ScheduleField>([
  "cadence",
  "drawHour",
  "drawMinute",
  "drawWeekday",
  "drawDayOfMonth",
  "timezone",
  "cutoffMinutes",
  "startsAt",
  "endsAt",
]);

/** cutoffMinutes must stay below the cadence's shortest nominal period (monthly: a 28-day February). */
const PERIOD_MINUTES: Readonly<Record<Cadence, number>> = { hourly: 60, daily: 1440, weekly: 10080, monthly: 40320 };
const DEFAULT_CUTOFF_MINUTES: Readonly<Record<Cadence, number>> = { hourly: 5, daily: 60, weekly: 60, monthly: 60 };
const DEFAULT_DRAW_HOUR = 20;
const DEFAULT_TIMEZONE = "UTC";

const WEEKDAYS = "0 = Sunday ... 6 = Saturday";

/**
 * Checks a client's schedule and fills in the defaults: drawHour 20 (0 for hourly), drawMinute 0, timezone
 * "UTC", cutoffMinutes 60 (5 for hourly), startsAt = `now` rounded down to the second, endsAt null. Weekly needs
 * drawWeekday and monthly needs drawDayOfMonth; either one given for another cadence is an error. Offsets in
 * startsAt/endsAt are folded into UTC. Throws ScheduleError on the first problem found.
 */
export function normalizeSchedule(input: ScheduleInput, now: Date): Schedule {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new ScheduleError("schedule", "must be an object");
  }
  for (const key of Object.keys(input)) {
    if (!FIELDS.has(key)) throw new ScheduleError(key, `is not a schedule field (known: ${[...FIELDS].join(", ")})`);
  }
  return parseSchedule(input as Readonly<Record<string, unknown>>, instantMs(now, "now"));
}

/**
 * The draws with from < drawAt <= to, in order, that belong to the campaign (startsAt <= cutoffAt, and
 * drawAt <= endsAt when set). `schedule` is checked again (a bad one stored elsewhere must not loop forever).
 */
export function occurrencesBetween(schedule: Schedule, from: Date, to: Date): Occurrence[] {
  const s = checkedSchedule(schedule);
  const window = campaignWindow(s, instantMs(from, "from"), instantMs(to, "to"));
  const out: Occurrence[] = [];
  if (window.upTo <= window.after) return out;
  for (const drawAt of drawInstants(s, window.after)) {
    if (drawAt > window.upTo) break;
    out.push(occurrence(drawAt, s.cutoffMinutes));
  }
  return out;
}

/** The first draw of the campaign with drawAt > after, or null when the end date leaves none. */
export function nextOccurrence(schedule: Schedule, after: Date): Occurrence | null {
  const s = checkedSchedule(schedule);
  const window = campaignWindow(s, instantMs(after, "after"), Number.POSITIVE_INFINITY);
  const first = drawInstants(s, window.after).next();
  if (first.done === true || first.value > window.upTo) return null;
  return occurrence(first.value, s.cutoffMinutes);
}

/** The draw's date in the campaign's zone, "YYYY-MM-DD" (the pull URL's {date} placeholder). */
export function localDrawDate(drawAt: Date, timezone: string): string {
  const zone = checkedZone(timezone);
  const date = DateTime.fromMillis(instantMs(drawAt, "drawAt"), { zone }).toISODate();
  if (date === null) throw new RangeError(`drawAt ${drawAt.toISOString()} is outside the dates luxon handles`);
  return date;
}

/**
 * Whatever the cadence, this many drawings whose list is still open exist ahead (the end date permitting), so a
 * weekly or monthly campaign always has a drawing taking entries, also between a cutoff and the keeper's next cycle.
 */
export const MIN_UPCOMING_DRAWINGS = 2;

/**
 * The drawings to have in place at `now`: draws in (now, now + 48 h] whose list is still open (cutoffAt > now),
 * and at least the next MIN_UPCOMING_DRAWINGS of them however far ahead (a weekly or monthly campaign's next draw
 * is usually more than 48 hours away). A draw whose cutoff has passed is left out: no list can be
 * collected for it any more.
 */
export function upcomingOccurrences(schedule: Schedule, now: Date): Occurrence[] {
  const s = checkedSchedule(schedule);
  const nowMs = instantMs(now, "now");
  const leadEnd = nowMs + DRAWING_LEAD_HOURS * HOUR_MS;
  // A cutoff ahead of now means drawAt > now: the scan starts at now.
  const window = campaignWindow(s, nowMs, Number.POSITIVE_INFINITY);
  const out: Occurrence[] = [];
  if (window.upTo <= window.after) return out;
  for (const drawAt of drawInstants(s, window.after)) {
    if (drawAt > window.upTo) break;
    const o = occurrence(drawAt, s.cutoffMinutes);
    if (o.cutoffAt.getTime() <= nowMs) continue;
    if (drawAt > leadEnd && out.length >= MIN_UPCOMING_DRAWINGS) break;
    out.push(o);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Validation

/** Validation shared by normalizeSchedule and the occurrence functions. `now` is null when startsAt is required. */
function parseSchedule(raw: Readonly<Record<string, unknown>>, now: number | null): Schedule {
  const cadence = raw["cadence"];
  if (!isCadence(cadence)) {
    throw new ScheduleError("cadence", `must be one of ${CADENCES.join(", ")}, got ${describe(cadence)}`);
  }

  let drawHour: number;
  if (cadence === "hourly") {
    const hour = raw["drawHour"];
    if (hour !== undefined && hour !== null && hour !== 0) {
      throw new ScheduleError("drawHour", `is not used by hourly campaigns (they draw every hour at drawMinute); leave it out or send 0, got ${describe(hour)}`);
    }
    drawHour = 0;
  } else {
    drawHour = integerField(raw, "drawHour", 0, 23) ?? DEFAULT_DRAW_HOUR;
  }
  const drawMinute = integerField(raw, "drawMinute", 0, 59) ?? 0;

  const drawWeekday = cadenceOnlyField(raw, cadence, "drawWeekday", "weekly", 0, 6, WEEKDAYS);
  const drawDayOfMonth = cadenceOnlyField(raw, cadence, "drawDayOfMonth", "monthly", 1, 31, "1-31; shorter months use their last day");

  const zoneValue = raw["timezone"];
  const timezone = zoneValue === undefined ? DEFAULT_TIMEZONE : checkedZone(zoneValue);

  const period = PERIOD_MINUTES[cadence];
  const cutoffMinutes = integerField(raw, "cutoffMinutes", 0, period - 1) ?? DEFAULT_CUTOFF_MINUTES[cadence];

  const startsValue = raw["startsAt"];
  let startsAt: number;
  if (startsValue === undefined) {
    if (now === null) throw new ScheduleError("startsAt", "is required");
    startsAt = Math.floor(now / 1000) * 1000;
  } else {
    startsAt = parseInstant("startsAt", startsValue);
  }
  const endsValue = raw["endsAt"];
  const endsAt = endsValue === undefined || endsValue === null ? null : parseInstant("endsAt", endsValue);
  if (endsAt !== null && endsAt <= startsAt) {
    throw new ScheduleError("endsAt", `must be after startsAt (${isoUtc(startsAt)}), got ${isoUtc(endsAt)}`);
  }

  return {
    cadence,
    drawHour,
    drawMinute,
    drawWeekday,
    drawDayOfMonth,
    timezone,
    cutoffMinutes,
    startsAt: isoUtc(startsAt),
    endsAt: endsAt === null ? null : isoUtc(endsAt),
  };
}

function checkedSchedule(schedule: Schedule): Schedule {
  if (typeof schedule !== "object" || schedule === null) throw new ScheduleError("schedule", "must be an object");
  return parseSchedule(schedule, null);
}

function isCadence(value: unknown): value is Cadence {
  return typeof value === "string" && (CADENCES as readonly string[]).includes(value);
}

/** An optional integer in [min, max]; undefined when absent. */
function integerField(raw: Readonly<Record<string, unknown>>, field: ScheduleField, min: number, max: number): number | undefined {
  const value = raw[field];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new ScheduleError(field, `must be an integer from ${min} to ${max}, got ${describe(value)}`);
  }
  return value;
}

/** A field only one cadence uses: required there, null/absent everywhere else so mistakes are noticed. */
function cadenceOnlyField(
  raw: Readonly<Record<string, unknown>>,
  cadence: Cadence,
  field: "drawWeekday" | "drawDayOfMonth",
  owner: Cadence,
  min: number,
  max: number,
  hint: string,
): number | null {
  const value = raw[field];
  if (cadence !== owner) {
    if (value === undefined || value === null) return null;
    throw new ScheduleError(field, `is only used by ${owner} campaigns; leave it out or send null for a ${cadence} campaign, got ${describe(value)}`);
  }
  if (value === undefined || value === null) throw new ScheduleError(field, `is required for ${owner} campaigns (${hint})`);
  const checked = integerField(raw, field, min, max);
  if (checked === undefined) throw new ScheduleError(field, `is required for ${owner} campaigns (${hint})`);
  return checked;
}

function checkedZone(value: unknown): string {
  if (typeof value !== "string" || !IANAZone.isValidZone(value)) {
    throw new ScheduleError("timezone", `must be an IANA time zone such as "Europe/Berlin", got ${describe(value)}`);
  }
  return value;
}

/**
 * startsAt and endsAt by the service's one rule for typed times (domain/times.ts): ISO 8601 with a four-digit year, a
 * time and an explicit offset or Z, 1970 to 9999. Without an offset the instant would depend on whichever zone the
 * reader assumes, so "2026-11-25T00:00:00" and "2026-11-25" are refused.
 */
function parseInstant(field: "startsAt" | "endsAt", value: unknown): number {
  try {
    return parseTime(field, value).getTime();
  } catch (error) {
    if (error instanceof TimeInputError) throw new ScheduleError(field, error.problem);
    throw error;
  }
}

function instantMs(value: Date, name: string): number {
  const ms = value instanceof Date ? value.getTime() : Number.NaN;
  // A bad Date here is a programming error, not partner input, hence no ScheduleError.
  if (Number.isNaN(ms)) throw new RangeError(`${name} must be a valid Date`);
  return ms;
}

function isoUtc(ms: number): string {
  return new Date(ms).toISOString();
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Occurrences

/** Campaign bounds intersected with a query: draws with after < drawAt <= upTo. */
function campaignWindow(s: Schedule, after: number, upTo: number): { after: number; upTo: number } {
  // startsAt <= cutoffAt  <=>  drawAt >= startsAt + cutoff, i.e. drawAt > that - 1 ms (all times are whole ms).
  const firstDrawAt = Date.parse(s.startsAt) + s.cutoffMinutes * MINUTE_MS;
  const endsAt = s.endsAt === null ? Number.POSITIVE_INFINITY : Date.parse(s.endsAt);
  return { after: Math.max(after, firstDrawAt - 1), upTo: Math.min(upTo, endsAt) };
}

function occurrence(drawAt: number, cutoffMinutes: number): Occurrence {
  return { drawAt: new Date(drawAt), cutoffAt: new Date(drawAt - cutoffMinutes * MINUTE_MS) };
}

/**
 * Draw instants (ms) of the schedule with drawAt > after, strictly increasing, ignoring startsAt/endsAt.
 * Infinite; callers stop it. Ends only past the dates luxon can represent.
 */
function drawInstants(s: Schedule, after: number): Generator<number> {
  return s.cadence === "hourly" ? hourlyInstants(s.timezone, s.drawMinute, after) : calendarInstants(s, after);
}

/**
 * Daily, weekly, monthly: drawHour:drawMinute on each draw date in the zone. The scan starts a little before
 * the local date of `after` so that a draw moved across midnight by a DST gap is not missed.
 */
function* calendarInstants(s: Schedule, after: number): Generator<number> {
  const start = DateTime.fromMillis(after, { zone: s.timezone });
  if (!start.isValid) return;
  let previous = Number.NEGATIVE_INFINITY;
  for (const date of drawDates(s, DateTime.utc(start.year, start.month, start.day))) {
    const drawAt = wallClockInstant(s.timezone, date, s.drawHour, s.drawMinute);
    if (drawAt === null) return;
    // Two dates resolving to one instant (a skipped local day) make one draw.
    if (drawAt <= previous) continue;
    previous = drawAt;
    if (drawAt > after) yield drawAt;
  }
}

/** The schedule's local draw dates from shortly before `around` on, as UTC-midnight DateTimes (pure dates). */
function* drawDates(s: Schedule, around: DateTime): Generator<DateTime> {
  if (s.cadence === "monthly") {
    const dayOfMonth = s.drawDayOfMonth ?? 1;
    for (let month = around.startOf("month").minus({ months: 2 }); month.isValid; month = month.plus({ months: 1 })) {
      // Months shorter than the chosen day use their last day (spec: Schedule).
      yield month.set({ day: Math.min(dayOfMonth, month.daysInMonth ?? 28) });
    }
    return;
  }
  for (let day = around.minus({ days: 8 }); day.isValid; day = day.plus({ days: 1 })) {
    // luxon numbers weekdays 1 (Monday) to 7 (Sunday); the spec 0 (Sunday) to 6 (Saturday).
    if (s.cadence === "daily" || day.weekday % 7 === s.drawWeekday) yield day;
  }
}

/**
 * The instant at which the zone's clocks show `hour:minute` on `date`. In a spring-forward gap luxon moves the
 * time forward by the gap; on a fall-back day the earlier of the two instants is taken explicitly (see the top).
 */
function wallClockInstant(zone: string, date: DateTime, hour: number, minute: number): number | null {
  const local = DateTime.fromObject({ year: date.year, month: date.month, day: date.day, hour, minute }, { zone });
  if (!local.isValid) return null;
  return Math.min(...local.getPossibleOffsets().map((candidate) => candidate.toMillis()));
}

/**
 * Hourly: instants whose local minute is `minute`, walked in absolute time one UTC hour at a time. A candidate
 * less than an hour after the previous candidate (only where an offset changes by a non-whole hour) is skipped.
 * That rule looks only at the previous candidate, so the result does not depend on where the walk starts; the
 * walk starts 3 hours early so the candidate before `after` is seen.
 */
function* hourlyInstants(zone: string, minute: number, after: number): Generator<number> {
  let previous = Number.NEGATIVE_INFINITY;
  for (let hourStart = Math.floor(after / HOUR_MS) * HOUR_MS - 3 * HOUR_MS; ; hourStart += HOUR_MS) {
    const candidates = minuteInstantsInHour(zone, minute, hourStart);
    if (candidates === null) return;
    for (const t of candidates) {
      const keep = t - previous >= HOUR_MS;
      previous = t;
      if (keep && t > after) yield t;
    }
  }
}

/**
 * The instants in [hourStart, hourStart + 1 h) at which the zone's clocks show minute `minute`, second 0.
 * Usually one; at an offset change inside the hour there may be zero or two, so the local minute is read at
 * both ends of the hour and each candidate is confirmed with luxon. Null past luxon's range.
 */
function minuteInstantsInHour(zone: string, minute: number, hourStart: number): number[] | null {
  const found: number[] = [];
  for (const probeMinute of [0, 59]) {
    const probe = DateTime.fromMillis(hourStart + probeMinute * MINUTE_MS, { zone });
    if (!probe.isValid) return null;
    // The local minute at hourStart if the offset at the probe held all hour, then the step to `minute`.
    const minuteAtStart = probe.minute - probeMinute;
    const t = hourStart + mod(minute - minuteAtStart, 60) * MINUTE_MS;
    const local = DateTime.fromMillis(t, { zone });
    if (local.minute === minute && local.second === 0 && !found.includes(t)) found.push(t);
  }
  return found.sort((a, b) => a - b);
}

/** Remainder with the sign of the divisor (JS % keeps the dividend's sign). */
function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}
