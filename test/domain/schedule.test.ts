import { DateTime, Settings } from "luxon";
import { afterEach, describe, expect, it } from "vitest";
import {
  CADENCES,
  DRAWING_LEAD_HOURS,
  localDrawDate,
  nextOccurrence,
  normalizeSchedule,
  occurrencesBetween,
  ScheduleError,
  upcomingOccurrences,
  type Occurrence,
  type Schedule,
  type ScheduleInput,
} from "../../api/src/domain/schedule.js";

const NOW = new Date("2026-01-01T00:00:00.000Z");
const HOUR = 3_600_000;

/** A normalized schedule that starts long before the tested dates. */
function schedule(input: ScheduleInput): Schedule {
  return normalizeSchedule({ startsAt: "2025-01-01T00:00:00Z", ...input }, NOW);
}

const iso = (list: Occurrence[]): string[] => list.map((o) => o.drawAt.toISOString());
const d = (s: string): Date => new Date(s);

/** The bounds of a local calendar day, to count the draws in it. */
function localDay(date: string, zone: string): { from: Date; to: Date; hours: number } {
  const start = DateTime.fromISO(date, { zone }).startOf("day");
  const end = start.plus({ days: 1 }).startOf("day");
  return { from: start.toJSDate(), to: end.toJSDate(), hours: (end.toMillis() - start.toMillis()) / HOUR };
}

/** Draws of one local day: from <= drawAt < to (occurrencesBetween is exclusive at the start, so shift by 1 ms). */
function drawsOnLocalDay(s: Schedule, date: string): Occurrence[] {
  const { from, to } = localDay(date, s.timezone);
  return occurrencesBetween(s, new Date(from.getTime() - 1), new Date(to.getTime() - 1));
}

function expectScheduleError(fn: () => unknown, field: string): ScheduleError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ScheduleError);
  const error = caught as ScheduleError;
  expect(error.code).toBe("invalid_schedule");
  expect(error.field).toBe(field);
  expect(error.name).toBe("ScheduleError");
  expect(error.message).toContain(field);
  return error;
}

describe("normalizeSchedule: defaults", () => {
  const now = new Date("2026-11-25T10:11:12.345Z");

  it("fills daily defaults and rounds startsAt down to the second", () => {
    expect(normalizeSchedule({ cadence: "daily" }, now)).toEqual({
      cadence: "daily",
      drawHour: 20,
      drawMinute: 0,
      drawWeekday: null,
      drawDayOfMonth: null,
      timezone: "UTC",
      cutoffMinutes: 60,
      startsAt: "2026-11-25T10:11:12.000Z",
      endsAt: null,
    });
  });

  it("hourly: cutoff 5 and drawHour 0", () => {
    const s = normalizeSchedule({ cadence: "hourly", drawMinute: 30 }, now);
    expect(s).toMatchObject({ cadence: "hourly", drawHour: 0, drawMinute: 30, cutoffMinutes: 5, drawWeekday: null, drawDayOfMonth: null });
  });

  it("weekly and monthly: cutoff 60, their own field kept, the other null", () => {
    expect(normalizeSchedule({ cadence: "weekly", drawWeekday: 0 }, now)).toMatchObject({ drawWeekday: 0, drawDayOfMonth: null, cutoffMinutes: 60, drawHour: 20 });
    expect(normalizeSchedule({ cadence: "monthly", drawDayOfMonth: 31 }, now)).toMatchObject({ drawWeekday: null, drawDayOfMonth: 31, cutoffMinutes: 60 });
  });

  it("keeps given values, folds offsets into UTC with milliseconds, accepts null for unused fields", () => {
    const s = normalizeSchedule(
      {
        cadence: "daily",
        drawHour: 0,
        drawMinute: 59,
        drawWeekday: null,
        drawDayOfMonth: null,
        timezone: "America/New_York",
        cutoffMinutes: 0,
        startsAt: "2026-11-25T01:00:00+01:00",
        endsAt: "2026-12-31T18:59:59.5-05:00",
      },
      now,
    );
    expect(s).toEqual({
      cadence: "daily",
      drawHour: 0,
      drawMinute: 59,
      drawWeekday: null,
      drawDayOfMonth: null,
      timezone: "America/New_York",
      cutoffMinutes: 0,
      startsAt: "2026-11-25T00:00:00.000Z",
      endsAt: "2026-12-31T23:59:59.500Z",
    });
  });

  it("is idempotent: a normalized schedule (as the API returns it) normalizes to itself", () => {
    for (const input of [
      { cadence: "hourly" },
      { cadence: "daily", timezone: "Asia/Kolkata" },
      { cadence: "weekly", drawWeekday: 6, endsAt: "2027-01-01T00:00:00Z" },
      { cadence: "monthly", drawDayOfMonth: 1 },
    ] satisfies ScheduleInput[]) {
      const once = normalizeSchedule(input, now);
      expect(normalizeSchedule(once, new Date("2030-01-01T00:00:00Z"))).toEqual(once);
    }
  });

  it("hourly accepts drawHour 0 or null (and stores 0)", () => {
    expect(normalizeSchedule({ cadence: "hourly", drawHour: 0 }, now).drawHour).toBe(0);
    expect(normalizeSchedule({ cadence: "hourly", drawHour: null as unknown as number }, now).drawHour).toBe(0);
  });

  it("accepts the largest cutoff below each cadence's period", () => {
    expect(normalizeSchedule({ cadence: "hourly", cutoffMinutes: 59 }, now).cutoffMinutes).toBe(59);
    expect(normalizeSchedule({ cadence: "daily", cutoffMinutes: 1439 }, now).cutoffMinutes).toBe(1439);
    expect(normalizeSchedule({ cadence: "weekly", drawWeekday: 1, cutoffMinutes: 10079 }, now).cutoffMinutes).toBe(10079);
    expect(normalizeSchedule({ cadence: "monthly", drawDayOfMonth: 1, cutoffMinutes: 40319 }, now).cutoffMinutes).toBe(40319);
  });

  it("exports the cadences", () => {
    expect(CADENCES).toEqual(["hourly", "daily", "weekly", "monthly"]);
    expect(DRAWING_LEAD_HOURS).toBe(48);
  });
});

describe("normalizeSchedule: validation errors name the field", () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["schedule not an object", null as unknown as Record<string, unknown>, "schedule"],
    ["cadence missing", {}, "cadence"],
    ["cadence unknown", { cadence: "yearly" }, "cadence"],
    ["unknown field", { cadence: "daily", drawTime: "20:00" }, "drawTime"],
    ["drawHour 24", { cadence: "daily", drawHour: 24 }, "drawHour"],
    ["drawHour -1", { cadence: "daily", drawHour: -1 }, "drawHour"],
    ["drawHour 1.5", { cadence: "daily", drawHour: 1.5 }, "drawHour"],
    ["drawHour string", { cadence: "daily", drawHour: "20" }, "drawHour"],
    ["drawHour null on daily", { cadence: "daily", drawHour: null }, "drawHour"],
    ["drawHour on hourly", { cadence: "hourly", drawHour: 3 }, "drawHour"],
    ["drawMinute 60", { cadence: "daily", drawMinute: 60 }, "drawMinute"],
    ["drawMinute -1", { cadence: "hourly", drawMinute: -1 }, "drawMinute"],
    ["drawMinute NaN", { cadence: "daily", drawMinute: Number.NaN }, "drawMinute"],
    ["weekly without drawWeekday", { cadence: "weekly" }, "drawWeekday"],
    ["weekly with null drawWeekday", { cadence: "weekly", drawWeekday: null }, "drawWeekday"],
    ["drawWeekday 7", { cadence: "weekly", drawWeekday: 7 }, "drawWeekday"],
    ["drawWeekday -1", { cadence: "weekly", drawWeekday: -1 }, "drawWeekday"],
    ["drawWeekday on daily", { cadence: "daily", drawWeekday: 1 }, "drawWeekday"],
    ["drawWeekday on monthly", { cadence: "monthly", drawDayOfMonth: 1, drawWeekday: 0 }, "drawWeekday"],
    ["monthly without drawDayOfMonth", { cadence: "monthly" }, "drawDayOfMonth"],
    ["drawDayOfMonth 0", { cadence: "monthly", drawDayOfMonth: 0 }, "drawDayOfMonth"],
    ["drawDayOfMonth 32", { cadence: "monthly", drawDayOfMonth: 32 }, "drawDayOfMonth"],
    ["drawDayOfMonth on weekly", { cadence: "weekly", drawWeekday: 1, drawDayOfMonth: 1 }, "drawDayOfMonth"],
    ["drawDayOfMonth on hourly", { cadence: "hourly", drawDayOfMonth: 15 }, "drawDayOfMonth"],
    ["timezone unknown", { cadence: "daily", timezone: "Mars/Olympus_Mons" }, "timezone"],
    ["timezone offset string", { cadence: "daily", timezone: "+01:00" }, "timezone"],
    ["timezone empty", { cadence: "daily", timezone: "" }, "timezone"],
    ["timezone null", { cadence: "daily", timezone: null }, "timezone"],
    ["cutoffMinutes -1", { cadence: "daily", cutoffMinutes: -1 }, "cutoffMinutes"],
    ["cutoffMinutes 1.5", { cadence: "daily", cutoffMinutes: 1.5 }, "cutoffMinutes"],
    ["cutoffMinutes 60 hourly", { cadence: "hourly", cutoffMinutes: 60 }, "cutoffMinutes"],
    ["cutoffMinutes 1440 daily", { cadence: "daily", cutoffMinutes: 1440 }, "cutoffMinutes"],
    ["cutoffMinutes 10080 weekly", { cadence: "weekly", drawWeekday: 2, cutoffMinutes: 10080 }, "cutoffMinutes"],
    ["cutoffMinutes 40320 monthly", { cadence: "monthly", drawDayOfMonth: 2, cutoffMinutes: 40320 }, "cutoffMinutes"],
    ["startsAt without offset", { cadence: "daily", startsAt: "2026-11-25T00:00:00" }, "startsAt"],
    ["startsAt date only", { cadence: "daily", startsAt: "2026-11-25" }, "startsAt"],
    ["startsAt garbage", { cadence: "daily", startsAt: "tomorrow" }, "startsAt"],
    ["startsAt impossible date", { cadence: "daily", startsAt: "2026-02-30T00:00:00Z" }, "startsAt"],
    ["startsAt number", { cadence: "daily", startsAt: 1764028800000 }, "startsAt"],
    ["startsAt null", { cadence: "daily", startsAt: null }, "startsAt"],
    ["startsAt before 1970", { cadence: "daily", startsAt: "1969-12-31T23:59:59Z" }, "startsAt"],
    ["endsAt without offset", { cadence: "daily", startsAt: "2026-11-25T00:00:00Z", endsAt: "2026-12-25T00:00:00" }, "endsAt"],
    ["endsAt equal to startsAt", { cadence: "daily", startsAt: "2026-11-25T00:00:00Z", endsAt: "2026-11-25T01:00:00+01:00" }, "endsAt"],
    ["endsAt before startsAt", { cadence: "daily", startsAt: "2026-11-25T00:00:00Z", endsAt: "2026-11-24T00:00:00Z" }, "endsAt"],
    ["endsAt before defaulted startsAt", { cadence: "daily", endsAt: "2026-11-25T10:11:12Z" }, "endsAt"],
  ];

  it.each(cases)("%s", (_name, input, field) => {
    expectScheduleError(() => normalizeSchedule(input as ScheduleInput, new Date("2026-11-25T10:11:12.345Z")), field);
  });

  it("the occurrence functions refuse a broken stored schedule instead of looping", () => {
    const broken = { ...schedule({ cadence: "weekly", drawWeekday: 1 }), drawWeekday: null };
    expectScheduleError(() => nextOccurrence(broken, NOW), "drawWeekday");
    const badZone = { ...schedule({ cadence: "daily" }), timezone: "Nowhere/Land" };
    expectScheduleError(() => occurrencesBetween(badZone, NOW, new Date(NOW.getTime() + 86_400_000)), "timezone");
  });

  it("invalid Date arguments are a RangeError", () => {
    expect(() => nextOccurrence(schedule({ cadence: "daily" }), new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe("daily across DST changes", () => {
  const cases: Array<{ zone: string; hour: number; minute: number; draws: Record<string, string> }> = [
    {
      zone: "Europe/Berlin",
      hour: 2,
      minute: 30,
      draws: {
        // 02:30 does not exist on 2026-03-29: moved forward by the gap to 03:30 CEST.
        "2026-03-28": "2026-03-28T01:30:00.000Z",
        "2026-03-29": "2026-03-29T01:30:00.000Z",
        "2026-03-30": "2026-03-30T00:30:00.000Z",
        // 02:30 happens twice on 2026-10-25: the earlier (CEST, +02:00).
        "2026-10-24": "2026-10-24T00:30:00.000Z",
        "2026-10-25": "2026-10-25T00:30:00.000Z",
        "2026-10-26": "2026-10-26T01:30:00.000Z",
      },
    },
    {
      zone: "Europe/Berlin",
      hour: 20,
      minute: 0,
      draws: {
        "2026-03-28": "2026-03-28T19:00:00.000Z",
        "2026-03-29": "2026-03-29T18:00:00.000Z",
        "2026-10-24": "2026-10-24T18:00:00.000Z",
        "2026-10-25": "2026-10-25T19:00:00.000Z",
      },
    },
    {
      zone: "America/New_York",
      hour: 2,
      minute: 30,
      draws: {
        "2026-03-07": "2026-03-07T07:30:00.000Z",
        // 02:30 does not exist on 2026-03-08: 03:30 EDT.
        "2026-03-08": "2026-03-08T07:30:00.000Z",
        "2026-03-09": "2026-03-09T06:30:00.000Z",
        "2026-10-31": "2026-10-31T06:30:00.000Z",
        // New York repeats 01:00-02:00, so 02:30 on 2026-11-01 happens once (EST).
        "2026-11-01": "2026-11-01T07:30:00.000Z",
        "2026-11-02": "2026-11-02T07:30:00.000Z",
      },
    },
    {
      zone: "America/New_York",
      hour: 1,
      minute: 30,
      draws: {
        // 01:30 happens twice on 2026-11-01: the earlier (EDT, -04:00).
        "2026-11-01": "2026-11-01T05:30:00.000Z",
        "2026-11-02": "2026-11-02T06:30:00.000Z",
      },
    },
    {
      zone: "America/New_York",
      hour: 20,
      minute: 0,
      draws: {
        "2026-03-07": "2026-03-08T01:00:00.000Z",
        "2026-03-08": "2026-03-09T00:00:00.000Z",
        "2026-10-31": "2026-11-01T00:00:00.000Z",
        "2026-11-01": "2026-11-02T01:00:00.000Z",
      },
    },
  ];

  for (const { zone, hour, minute, draws } of cases) {
    const label = `${zone} ${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}`;
    it(label, () => {
      const s = schedule({ cadence: "daily", drawHour: hour, drawMinute: minute, timezone: zone, cutoffMinutes: 60 });
      for (const [date, expected] of Object.entries(draws)) {
        const onDay = drawsOnLocalDay(s, date);
        expect(iso(onDay), `${label} on ${date}`).toEqual([expected]);
        const only = onDay[0] as Occurrence;
        expect(only.cutoffAt.getTime()).toBe(only.drawAt.getTime() - HOUR);
        expect(localDrawDate(only.drawAt, zone)).toBe(date);
        expect(nextOccurrence(s, new Date(only.drawAt.getTime() - 1))?.drawAt.toISOString()).toBe(expected);
      }
    });
  }

  it("the fall-back choice does not depend on today's date (luxon's own guess does)", () => {
    const s = schedule({ cadence: "daily", drawHour: 2, drawMinute: 30, timezone: "Europe/Berlin" });
    const saved = Settings.now;
    try {
      for (const today of [Date.UTC(2026, 0, 15), Date.UTC(2026, 6, 15)]) {
        Settings.now = () => today;
        expect(iso(drawsOnLocalDay(s, "2026-10-25"))).toEqual(["2026-10-25T00:30:00.000Z"]);
        expect(iso(drawsOnLocalDay(s, "2026-03-29"))).toEqual(["2026-03-29T01:30:00.000Z"]);
      }
    } finally {
      Settings.now = saved;
    }
  });

  it("a skipped local day (Pacific/Apia, 2011-12-30) gives one draw, not two at the same instant", () => {
    const s = normalizeSchedule({ cadence: "daily", timezone: "Pacific/Apia", startsAt: "2011-01-01T00:00:00Z" }, NOW);
    const draws = occurrencesBetween(s, d("2011-12-28T00:00:00Z"), d("2012-01-02T00:00:00Z"));
    expect(iso(draws)).toEqual([
      "2011-12-28T06:00:00.000Z", // 2011-12-27 20:00 -10:00
      "2011-12-29T06:00:00.000Z",
      "2011-12-30T06:00:00.000Z", // 2011-12-29 20:00 -10:00; 2011-12-30 never happened there
      "2011-12-31T06:00:00.000Z", // 2011-12-31 20:00 +14:00
      "2012-01-01T06:00:00.000Z",
    ]);
  });

  it("one draw per local day over a whole year, strictly increasing", () => {
    const s = schedule({ cadence: "daily", drawHour: 2, drawMinute: 30, timezone: "Europe/Berlin" });
    const year = occurrencesBetween(s, d("2025-12-31T23:00:00Z"), d("2026-12-31T23:00:00Z"));
    expect(year).toHaveLength(365);
    expect(new Set(year.map((o) => localDrawDate(o.drawAt, "Europe/Berlin"))).size).toBe(365);
    for (let i = 1; i < year.length; i++) {
      expect((year[i] as Occurrence).drawAt.getTime()).toBeGreaterThan((year[i - 1] as Occurrence).drawAt.getTime());
    }
  });
});

describe("hourly", () => {
  function checkHourlyDay(zone: string, date: string, minute: number, expectedCount: number): Occurrence[] {
    const s = schedule({ cadence: "hourly", drawMinute: minute, timezone: zone });
    const draws = drawsOnLocalDay(s, date);
    expect(draws).toHaveLength(expectedCount);
    expect(localDay(date, zone).hours).toBe(expectedCount);
    expect(new Set(iso(draws)).size).toBe(draws.length);
    for (let i = 1; i < draws.length; i++) {
      expect((draws[i] as Occurrence).drawAt.getTime() - (draws[i - 1] as Occurrence).drawAt.getTime()).toBe(HOUR);
    }
    for (const o of draws) {
      const local = DateTime.fromJSDate(o.drawAt, { zone });
      expect(local.minute).toBe(minute);
      expect(local.second).toBe(0);
      expect(o.cutoffAt.getTime()).toBe(o.drawAt.getTime() - 5 * 60_000);
    }
    return draws;
  }

  it("Europe/Berlin spring forward: 23 draws, no local 02:xx", () => {
    const draws = checkHourlyDay("Europe/Berlin", "2026-03-29", 15, 23);
    expect(draws[0]?.drawAt.toISOString()).toBe("2026-03-28T23:15:00.000Z");
    expect(draws[22]?.drawAt.toISOString()).toBe("2026-03-29T21:15:00.000Z");
    expect(draws.map((o) => DateTime.fromJSDate(o.drawAt, { zone: "Europe/Berlin" }).hour)).not.toContain(2);
  });

  it("Europe/Berlin fall back: 25 draws, local 02:15 twice", () => {
    const draws = checkHourlyDay("Europe/Berlin", "2026-10-25", 15, 25);
    expect(draws[0]?.drawAt.toISOString()).toBe("2026-10-24T22:15:00.000Z");
    expect(draws[24]?.drawAt.toISOString()).toBe("2026-10-25T22:15:00.000Z");
    const hours = draws.map((o) => DateTime.fromJSDate(o.drawAt, { zone: "Europe/Berlin" }).hour);
    expect(hours.filter((h) => h === 2)).toHaveLength(2);
  });

  it("America/New_York spring forward: 23 draws", () => {
    const draws = checkHourlyDay("America/New_York", "2026-03-08", 0, 23);
    expect(draws[0]?.drawAt.toISOString()).toBe("2026-03-08T05:00:00.000Z");
    expect(draws[22]?.drawAt.toISOString()).toBe("2026-03-09T03:00:00.000Z");
  });

  it("America/New_York fall back: 25 draws", () => {
    const draws = checkHourlyDay("America/New_York", "2026-11-01", 0, 25);
    expect(draws[0]?.drawAt.toISOString()).toBe("2026-11-01T04:00:00.000Z");
    expect(draws[24]?.drawAt.toISOString()).toBe("2026-11-02T04:00:00.000Z");
  });

  it("Asia/Kolkata (+05:30): 24 draws at the local minute, i.e. UTC minute shifted by 30", () => {
    const onTheHour = checkHourlyDay("Asia/Kolkata", "2026-03-29", 0, 24);
    expect(onTheHour.every((o) => o.drawAt.getUTCMinutes() === 30)).toBe(true);
    expect(onTheHour[0]?.drawAt.toISOString()).toBe("2026-03-28T18:30:00.000Z");
    const at45 = checkHourlyDay("Asia/Kolkata", "2026-03-29", 45, 24);
    expect(at45.every((o) => o.drawAt.getUTCMinutes() === 15)).toBe(true);
  });

  it("Australia/Lord_Howe (30-minute DST): never two draws less than an hour apart", () => {
    const zone = "Australia/Lord_Howe";
    const s = schedule({ cadence: "hourly", drawMinute: 45, timezone: zone });
    // 2026-10-04: 02:00 -> 02:30, so local 01:45 and 02:45 are only 30 minutes apart; 02:45 is skipped.
    const spring = drawsOnLocalDay(s, "2026-10-04");
    // 2026-04-05: 02:00 -> 01:30, so local 01:45 happens twice 30 minutes apart; the second is skipped.
    const autumn = drawsOnLocalDay(s, "2026-04-05");
    expect(spring).toHaveLength(23);
    expect(autumn).toHaveLength(24);
    for (const draws of [spring, autumn]) {
      const gaps = draws.slice(1).map((o, i) => o.drawAt.getTime() - (draws[i] as Occurrence).drawAt.getTime());
      expect(Math.min(...gaps)).toBe(HOUR);
      expect(Math.max(...gaps)).toBe(1.5 * HOUR);
      expect(draws.every((o) => DateTime.fromJSDate(o.drawAt, { zone }).minute === 45)).toBe(true);
    }
    // The skip does not depend on where the query starts.
    const fromInside = occurrencesBetween(s, d("2026-10-03T15:20:00Z"), d("2026-10-03T18:00:00Z"));
    expect(iso(fromInside)).toEqual(iso(spring).filter((t) => t > "2026-10-03T15:20:00.000Z" && t <= "2026-10-03T18:00:00.000Z"));
  });

  it("a month of UTC hourly draws is every hour", () => {
    const s = schedule({ cadence: "hourly", drawMinute: 7 });
    const draws = occurrencesBetween(s, d("2026-02-01T00:00:00Z"), d("2026-03-01T00:00:00Z"));
    expect(draws).toHaveLength(28 * 24);
    expect(draws[0]?.drawAt.toISOString()).toBe("2026-02-01T00:07:00.000Z");
  });
});

describe("weekly", () => {
  it("drawWeekday 0 is Sunday", () => {
    const s = schedule({ cadence: "weekly", drawWeekday: 0, drawHour: 20, timezone: "Europe/Berlin" });
    const draws = occurrencesBetween(s, d("2026-11-01T00:00:00Z"), d("2026-12-01T00:00:00Z"));
    expect(iso(draws)).toEqual([
      "2026-11-01T19:00:00.000Z",
      "2026-11-08T19:00:00.000Z",
      "2026-11-15T19:00:00.000Z",
      "2026-11-22T19:00:00.000Z",
      "2026-11-29T19:00:00.000Z",
    ]);
    expect(draws.every((o) => DateTime.fromJSDate(o.drawAt, { zone: "Europe/Berlin" }).weekday === 7)).toBe(true);
  });

  it("drawWeekday 6 is Saturday", () => {
    const s = schedule({ cadence: "weekly", drawWeekday: 6, drawHour: 9, drawMinute: 30, timezone: "America/New_York" });
    const draws = occurrencesBetween(s, d("2026-11-01T00:00:00Z"), d("2026-12-01T00:00:00Z"));
    expect(iso(draws)).toEqual([
      "2026-11-07T14:30:00.000Z",
      "2026-11-14T14:30:00.000Z",
      "2026-11-21T14:30:00.000Z",
      "2026-11-28T14:30:00.000Z",
    ]);
  });

  it("the weekday is the zone's, not UTC's", () => {
    // Sunday 08:00 in Auckland (+13 in November) is Saturday 19:00 UTC.
    const s = schedule({ cadence: "weekly", drawWeekday: 0, drawHour: 8, timezone: "Pacific/Auckland" });
    const next = nextOccurrence(s, d("2026-11-25T00:00:00Z"));
    expect(next?.drawAt.toISOString()).toBe("2026-11-28T19:00:00.000Z");
    expect(next?.drawAt.getUTCDay()).toBe(6);
    expect(localDrawDate(next?.drawAt ?? new Date(0), "Pacific/Auckland")).toBe("2026-11-29");
  });

  it("a weekly draw on the spring-forward Sunday moves with the gap", () => {
    const s = schedule({ cadence: "weekly", drawWeekday: 0, drawHour: 2, drawMinute: 30, timezone: "Europe/Berlin" });
    expect(iso(occurrencesBetween(s, d("2026-03-20T00:00:00Z"), d("2026-04-06T00:00:00Z")))).toEqual([
      "2026-03-22T01:30:00.000Z",
      "2026-03-29T01:30:00.000Z",
      "2026-04-05T00:30:00.000Z",
    ]);
  });
});

describe("monthly", () => {
  it("day 31 through 2026 uses the last day of shorter months", () => {
    const s = schedule({ cadence: "monthly", drawDayOfMonth: 31, drawHour: 20, timezone: "Europe/Berlin" });
    const draws = occurrencesBetween(s, d("2025-12-31T23:00:00Z"), d("2026-12-31T23:00:00Z"));
    expect(draws.map((o) => localDrawDate(o.drawAt, "Europe/Berlin"))).toEqual([
      "2026-01-31",
      "2026-02-28",
      "2026-03-31",
      "2026-04-30",
      "2026-05-31",
      "2026-06-30",
      "2026-07-31",
      "2026-08-31",
      "2026-09-30",
      "2026-10-31",
      "2026-11-30",
      "2026-12-31",
    ]);
    expect(draws[0]?.drawAt.toISOString()).toBe("2026-01-31T19:00:00.000Z");
    expect(draws[1]?.drawAt.toISOString()).toBe("2026-02-28T19:00:00.000Z");
    expect(draws[5]?.drawAt.toISOString()).toBe("2026-06-30T18:00:00.000Z");
    expect(draws.every((o) => DateTime.fromJSDate(o.drawAt, { zone: "Europe/Berlin" }).hour === 20)).toBe(true);
  });

  it("February: 28th in 2026 and 2027, 29th in 2028", () => {
    const s = schedule({ cadence: "monthly", drawDayOfMonth: 31, drawHour: 12 });
    const feb = (year: number): string[] =>
      iso(occurrencesBetween(s, d(`${year}-02-01T00:00:00Z`), d(`${year}-03-01T00:00:00Z`)));
    expect(feb(2026)).toEqual(["2026-02-28T12:00:00.000Z"]);
    expect(feb(2027)).toEqual(["2027-02-28T12:00:00.000Z"]);
    expect(feb(2028)).toEqual(["2028-02-29T12:00:00.000Z"]);
    expect(nextOccurrence(s, d("2028-02-29T12:00:00Z"))?.drawAt.toISOString()).toBe("2028-03-31T12:00:00.000Z");
  });

  it("day 1 is the first of every month", () => {
    const s = schedule({ cadence: "monthly", drawDayOfMonth: 1, drawHour: 0, drawMinute: 0, timezone: "America/New_York" });
    const draws = occurrencesBetween(s, d("2026-01-01T00:00:00Z"), d("2027-01-01T00:00:00Z"));
    expect(draws.map((o) => localDrawDate(o.drawAt, "America/New_York"))).toEqual(
      Array.from({ length: 12 }, (_, i) => `2026-${String(i + 1).padStart(2, "0")}-01`),
    );
    expect(draws[0]?.drawAt.toISOString()).toBe("2026-01-01T05:00:00.000Z");
    expect(draws[6]?.drawAt.toISOString()).toBe("2026-07-01T04:00:00.000Z");
  });
});

describe("startsAt and endsAt", () => {
  const base = { cadence: "daily", drawHour: 20, cutoffMinutes: 60 } satisfies ScheduleInput;

  it("a draw whose cutoff is before startsAt is excluded; a cutoff exactly at startsAt is included", () => {
    const late = normalizeSchedule({ ...base, startsAt: "2026-12-01T19:30:00Z" }, NOW);
    expect(iso(occurrencesBetween(late, d("2026-11-30T00:00:00Z"), d("2026-12-03T00:00:00Z")))).toEqual(["2026-12-02T20:00:00.000Z"]);
    expect(nextOccurrence(late, d("2026-11-01T00:00:00Z"))?.drawAt.toISOString()).toBe("2026-12-02T20:00:00.000Z");

    const exact = normalizeSchedule({ ...base, startsAt: "2026-12-01T19:00:00Z" }, NOW);
    expect(nextOccurrence(exact, d("2026-11-01T00:00:00Z"))?.drawAt.toISOString()).toBe("2026-12-01T20:00:00.000Z");
  });

  it("a draw after endsAt is excluded; one exactly at endsAt is included", () => {
    const atEnd = normalizeSchedule({ ...base, startsAt: "2026-12-01T00:00:00Z", endsAt: "2026-12-03T20:00:00Z" }, NOW);
    expect(iso(occurrencesBetween(atEnd, d("2026-11-01T00:00:00Z"), d("2027-01-01T00:00:00Z")))).toEqual([
      "2026-12-01T20:00:00.000Z",
      "2026-12-02T20:00:00.000Z",
      "2026-12-03T20:00:00.000Z",
    ]);
    const justBefore = normalizeSchedule({ ...base, startsAt: "2026-12-01T00:00:00Z", endsAt: "2026-12-03T19:59:59.999Z" }, NOW);
    expect(iso(occurrencesBetween(justBefore, d("2026-11-01T00:00:00Z"), d("2027-01-01T00:00:00Z")))).toEqual([
      "2026-12-01T20:00:00.000Z",
      "2026-12-02T20:00:00.000Z",
    ]);
  });

  it("nextOccurrence is null after endsAt (and after the last draw)", () => {
    const s = normalizeSchedule({ ...base, startsAt: "2026-12-01T00:00:00Z", endsAt: "2026-12-03T21:00:00Z" }, NOW);
    expect(nextOccurrence(s, d("2026-12-02T20:00:00Z"))?.drawAt.toISOString()).toBe("2026-12-03T20:00:00.000Z");
    expect(nextOccurrence(s, d("2026-12-03T20:00:00Z"))).toBeNull();
    expect(nextOccurrence(s, d("2027-06-01T00:00:00Z"))).toBeNull();
  });

  it("occurrencesBetween is exclusive at from, inclusive at to, empty when to <= from", () => {
    const s = normalizeSchedule({ ...base, startsAt: "2026-12-01T00:00:00Z" }, NOW);
    expect(iso(occurrencesBetween(s, d("2026-12-01T20:00:00Z"), d("2026-12-02T20:00:00Z")))).toEqual(["2026-12-02T20:00:00.000Z"]);
    expect(occurrencesBetween(s, d("2026-12-05T00:00:00Z"), d("2026-12-01T00:00:00Z"))).toEqual([]);
  });
});

describe("upcomingOccurrences", () => {
  const s = normalizeSchedule({ cadence: "daily", drawHour: 20, cutoffMinutes: 60, startsAt: "2026-11-01T00:00:00Z" }, NOW);

  it("leaves out a draw whose cutoff has passed (and keeps the next two)", () => {
    expect(iso(upcomingOccurrences(s, d("2026-12-01T19:30:00Z")))).toEqual(["2026-12-02T20:00:00.000Z", "2026-12-03T20:00:00.000Z"]);
  });

  it("keeps a draw whose cutoff is still ahead, up to 48 hours out", () => {
    expect(iso(upcomingOccurrences(s, d("2026-12-01T18:59:00Z")))).toEqual(["2026-12-01T20:00:00.000Z", "2026-12-02T20:00:00.000Z"]);
    expect(iso(upcomingOccurrences(s, d("2026-12-01T20:00:00Z")))).toEqual(["2026-12-02T20:00:00.000Z", "2026-12-03T20:00:00.000Z"]);
  });

  it("a cutoff exactly at now is closed", () => {
    expect(iso(upcomingOccurrences(s, d("2026-12-01T19:00:00Z")))[0]).toBe("2026-12-02T20:00:00.000Z");
  });

  // A weekly or monthly campaign's next drawing is usually more than 48 hours away; it must exist all
  // the same (entries go to it, nextDrawing names it), and the one after it must exist before its cutoff passes, so
  // that between a cutoff and the keeper's next cycle (300 s in production) a drawing still takes entries.
  const KEEPER_INTERVAL_MS = 300_000;
  // [name, schedule, scanned days from 2026-01-20, step in minutes]; the steps avoid round numbers so that the
  // scan lands just before and just after cutoffs.
  const cases: [string, ScheduleInput, number, number][] = [
    ["weekly", { cadence: "weekly", drawWeekday: 3, drawHour: 20, cutoffMinutes: 60, timezone: "Europe/Berlin" }, 22, 53],
    ["monthly on the 31st", { cadence: "monthly", drawDayOfMonth: 31, drawHour: 9, drawMinute: 30, cutoffMinutes: 24 * 60, timezone: "America/New_York" }, 75, 311],
    ["daily", { cadence: "daily", drawHour: 20, cutoffMinutes: 23 * 60 }, 3, 41],
    ["hourly", { cadence: "hourly", drawMinute: 15 }, 1, 13],
  ];
  for (const [name, input, days, stepMinutes] of cases) {
    it(`${name}: the next drawing always exists, and so does every draw of the next 48 hours`, () => {
      const sch = normalizeSchedule({ ...input, startsAt: "2026-01-01T00:00:00Z" }, NOW);
      const from = Date.parse("2026-01-20T00:00:00Z");
      for (let t = from; t < from + days * 24 * HOUR; t += stepMinutes * 60_000) {
        const now = new Date(t);
        const planned = upcomingOccurrences(sch, now);
        const next = nextOccurrenceAfterCutoff(sch, now);
        expect(planned[0]?.drawAt.toISOString(), now.toISOString()).toBe(next.drawAt.toISOString());
        expect(planned.every((o) => o.cutoffAt.getTime() > t)).toBe(true);
        // Every draw of the next 48 hours whose list is open is planned.
        const within = occurrencesBetween(sch, now, new Date(t + DRAWING_LEAD_HOURS * HOUR)).filter((o) => o.cutoffAt.getTime() > t);
        expect(iso(planned.slice(0, within.length))).toEqual(iso(within));
        // A keeper interval later, a planned drawing still takes lists.
        expect(planned.some((o) => o.cutoffAt.getTime() > t + KEEPER_INTERVAL_MS), now.toISOString()).toBe(true);
      }
    });
  }

  it("an end date still bounds them", () => {
    const sch = normalizeSchedule({ cadence: "weekly", drawWeekday: 3, startsAt: "2026-01-01T00:00:00Z", endsAt: "2026-01-15T00:00:00Z" }, NOW);
    expect(iso(upcomingOccurrences(sch, d("2026-01-05T00:00:00Z")))).toEqual(["2026-01-07T20:00:00.000Z", "2026-01-14T20:00:00.000Z"]);
    expect(iso(upcomingOccurrences(sch, d("2026-01-08T00:00:00Z")))).toEqual(["2026-01-14T20:00:00.000Z"]);
    expect(upcomingOccurrences(sch, d("2026-01-14T19:00:00Z"))).toEqual([]);
  });

  it("hourly: 48 hours of draws minus the one whose cutoff passed", () => {
    const hourly = normalizeSchedule({ cadence: "hourly", drawMinute: 0, startsAt: "2026-11-01T00:00:00Z" }, NOW);
    const list = upcomingOccurrences(hourly, d("2026-12-01T11:57:00Z"));
    expect(list).toHaveLength(47);
    expect(list[0]?.drawAt.toISOString()).toBe("2026-12-01T13:00:00.000Z");
    expect(list.every((o) => o.cutoffAt.getTime() > d("2026-12-01T11:57:00Z").getTime())).toBe(true);
  });
});

/** The first draw whose list is still open at `now` (walks nextOccurrence past draws whose cutoff passed). */
function nextOccurrenceAfterCutoff(s: Schedule, now: Date): Occurrence {
  let o = nextOccurrence(s, now);
  while (o !== null && o.cutoffAt.getTime() <= now.getTime()) o = nextOccurrence(s, o.drawAt);
  if (o === null) throw new Error("no next occurrence");
  return o;
}

describe("localDrawDate", () => {
  it("a zone ahead of UTC (Asia/Tokyo, +09:00) changes date at 15:00 UTC", () => {
    expect(localDrawDate(d("2026-11-25T14:59:59.999Z"), "Asia/Tokyo")).toBe("2026-11-25");
    expect(localDrawDate(d("2026-11-25T15:00:00.000Z"), "Asia/Tokyo")).toBe("2026-11-26");
  });

  it("a zone behind UTC (America/Los_Angeles, -08:00 in November) changes date at 08:00 UTC", () => {
    expect(localDrawDate(d("2026-11-26T07:59:59.999Z"), "America/Los_Angeles")).toBe("2026-11-25");
    expect(localDrawDate(d("2026-11-26T08:00:00.000Z"), "America/Los_Angeles")).toBe("2026-11-26");
  });

  it("UTC midnight and an invalid zone", () => {
    expect(localDrawDate(d("2026-11-25T00:00:00Z"), "UTC")).toBe("2026-11-25");
    expectScheduleError(() => localDrawDate(d("2026-11-25T00:00:00Z"), "Not/AZone"), "timezone");
  });
});
