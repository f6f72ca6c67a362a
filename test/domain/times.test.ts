// The rule for typed times (domain/times.ts), which a new cutoff, a campaign's start and end dates, the test clock's
// target and draws.json's `before` all follow: the forms taken and refused, the years, and the bound ahead of now.

import { describe, expect, it } from "vitest";
import { BadRequestError } from "../../api/src/domain/errors.js";
import { LATEST_TIME_MS, MAX_AHEAD_MS, TimeInputError, latestAhead, parseTime } from "../../api/src/domain/times.js";

describe("parseTime", () => {
  it("takes ISO 8601 times with a four-digit year and an offset or Z, as the instant they name", () => {
    for (const [text, iso] of [
      ["2026-11-25T20:00:00Z", "2026-11-25T20:00:00.000Z"],
      ["2026-11-25T20:00Z", "2026-11-25T20:00:00.000Z"],
      ["2026-11-25T21:30:00.5+01:30", "2026-11-25T20:00:00.500Z"],
      ["2026-11-25T15:00:00-0500", "2026-11-25T20:00:00.000Z"],
      ["1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000Z"],
      ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"],
    ]) {
      expect(parseTime("cutoffAt", text).toISOString(), text).toBe(iso);
    }
  });

  it("refuses extended years (even one in range), no offset, no time, impossible dates and anything else, naming the field", () => {
    for (const value of ["+050000-01-01T00:00:00Z", "+010000-01-01T00:00:00Z", "+002030-01-01T00:00:00Z", "-000001-01-01T00:00:00Z", "10000-01-01T00:00:00Z", "2026-11-25T20:00:00", "2026-11-25", "20261125T200000Z", "tomorrow", "", 1764028800000, null, undefined]) {
      expect(() => parseTime("cutoffAt", value), String(value)).toThrow(/^cutoffAt must be an ISO 8601 time with a four-digit year and an offset or Z/);
    }
    expect(() => parseTime("endsAt", "2026-02-30T00:00:00Z")).toThrow(/^endsAt is not a real time/);
    expect(() => parseTime("endsAt", "2026-11-25T24:30:00Z")).toThrow(/^endsAt is not a real time/);
  });

  it("refuses times before 1970 or past 9999 (UTC) by their instant, not their text", () => {
    expect(() => parseTime("startsAt", "1969-12-31T23:59:59Z")).toThrow(/^startsAt must be between 1970 and 9999/);
    expect(() => parseTime("startsAt", "1970-01-01T00:30:00+01:00")).toThrow(/^startsAt must be between 1970 and 9999/);
    expect(() => parseTime("endsAt", "9999-12-31T23:00:00-05:00")).toThrow(/^endsAt must be between 1970 and 9999/);
  });

  it("throws a 400 bad_request that carries the detail without the field, for callers with errors of their own", () => {
    try {
      parseTime("before", "+002030-01-01T00:00:00Z");
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TimeInputError);
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error).toMatchObject({ status: 400, code: "bad_request", field: "before", problem: expect.stringMatching(/^must be an ISO 8601 time/) });
    }
  });
});

describe("latestAhead", () => {
  it("is 100 years after real time, and never past 9999", () => {
    const now = new Date("2026-11-25T20:00:00Z");
    expect(latestAhead(now)).toBe(now.getTime() + MAX_AHEAD_MS);
    expect(latestAhead(new Date("9950-01-01T00:00:00Z"))).toBe(LATEST_TIME_MS);
  });
});
