/** Plain-text formatting for the public campaign page: money, odds, times and the schedule in words. */
import { DateTime } from "luxon";
import type { Schedule } from "../../domain/schedule.js";

const GROUPED = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** Whole cents as dollars, exactly (integer arithmetic): 10000000 -> "$100,000.00", 958 -> "$9.58". */
export function dollars(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(Math.trunc(cents));
  return `${sign}$${GROUPED.format(Math.floor(abs / 100))}.${String(abs % 100).padStart(2, "0")}`;
}

/** "1 in 100,000" for weight 1 of 100000; "1 in 2.19" for 45589 of 100000. */
export function oneIn(weight: number, denominator: number): string {
  const n = denominator / weight;
  const text = Number.isInteger(n) || n >= 100 ? GROUPED.format(Math.round(n)) : new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 }).format(n);
  return `1 in ${text}`;
}

/** Odds as a percentage with up to 4 significant digits and never in exponent form: "0.001%", "45.59%". */
export function percent(weight: number, denominator: number): string {
  return `${new Intl.NumberFormat("en-US", { maximumSignificantDigits: 4 }).format((weight / denominator) * 100)}%`;
}

/** "1 hour 30 minutes", "45 minutes", "1 day". */
export function duration(minutes: number): string {
  const parts: string[] = [];
  const days = Math.floor(minutes / 1_440);
  const hours = Math.floor((minutes % 1_440) / 60);
  const mins = minutes % 60;
  if (days) parts.push(`${days} ${days === 1 ? "day" : "days"}`);
  if (hours) parts.push(`${hours} ${hours === 1 ? "hour" : "hours"}`);
  if (mins || parts.length === 0) parts.push(`${mins} ${mins === 1 ? "minute" : "minutes"}`);
  return parts.join(" ");
}

/** An instant in the campaign's time zone: "Wed 4 Mar 2026, 20:00 CET". */
export function localTime(iso: string, timezone: string): string {
  const dt = DateTime.fromISO(iso, { zone: "utc" }).setZone(timezone).setLocale("en-US");
  return dt.isValid ? dt.toFormat("ccc d LLL yyyy, HH:mm ZZZZ") : iso;
}

/** A date only, in the campaign's time zone: "4 Mar 2026". */
export function localDate(iso: string, timezone: string): string {
  const dt = DateTime.fromISO(iso, { zone: "utc" }).setZone(timezone).setLocale("en-US");
  return dt.isValid ? dt.toFormat("d LLL yyyy") : iso;
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;
const two = (n: number) => String(n).padStart(2, "0");

function ordinal(n: number): string {
  const mod100 = n % 100;
  const suffix = mod100 >= 11 && mod100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th";
  return `${n}${suffix}`;
}

/** The draw times in words: "Every day at 20:00 (Europe/Berlin time)". */
export function scheduleWords(s: Schedule): string {
  const at = `${two(s.drawHour)}:${two(s.drawMinute)}`;
  const zone = `(${s.timezone} time)`;
  switch (s.cadence) {
    case "hourly":
      return s.drawMinute === 0 ? `Every hour on the hour ${zone}` : `Every hour at ${s.drawMinute} ${s.drawMinute === 1 ? "minute" : "minutes"} past the hour ${zone}`;
    case "daily":
      return `Every day at ${at} ${zone}`;
    case "weekly":
      return `Every ${WEEKDAYS[s.drawWeekday ?? 0] ?? "week"} at ${at} ${zone}`;
    case "monthly": {
      const day = s.drawDayOfMonth ?? 1;
      const shorter = day > 28 ? " (the last day in shorter months)" : "";
      return `Every month on the ${ordinal(day)}${shorter} at ${at} ${zone}`;
    }
  }
}

/** A URL usable as a link or image source on the page: https only (anything else is dropped). */
export function httpsUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

/** A winner id shortened for display: ids are public in the proof, but long ones would swamp the page. */
export function shortId(id: string): string {
  const chars = Array.from(id);
  return chars.length > 14 ? `${chars.slice(0, 10).join("")}…` : id;
}

const SEGMENTER = new Intl.Segmenter("en", { granularity: "grapheme" });
const firstGrapheme = (word: string): string => SEGMENTER.segment(word)[Symbol.iterator]().next().value?.segment ?? "";

/** Up to two initials of a public label, shown when an avatar cannot be: "Ada Lovelace" -> "AL", "u-3" -> "U3". */
export function initials(label: string): string {
  const words = label.split(/[\s\-_.·]+/u).filter((w) => /[\p{L}\p{N}]/u.test(w));
  if (words.length === 0) return "?";
  const picked = words.length === 1 ? [words[0]!] : [words[0]!, words[words.length - 1]!];
  return picked.map((w) => firstGrapheme(w.replace(/^[^\p{L}\p{N}]+/u, "")).toLocaleUpperCase("en-US")).join("");
}
