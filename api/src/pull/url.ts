import { isIP } from "node:net";
import type { Cadence } from "../store/campaigns.js";

/** A pull URL the service refuses to store; `message` says why, for the partner. */
export class PullUrlError extends Error {
  readonly code = "invalid_pull_url";
  override name = "PullUrlError";
}

export const MAX_PULL_URL_LENGTH = 2_048;
const PLACEHOLDERS = ["{drawingId}", "{drawAt}", "{date}"] as const;

/**
 * Checks a pull URL at configuration: https (or http to a loopback address when the test setting allows it),
 * no credentials, only known placeholders, and for hourly campaigns one that tells draws apart ({date} alone
 * names 24 draws).
 */
export function validatePullUrl(template: string, cadence: Cadence, allowHttpLoopback: boolean): string {
  if (template.length > MAX_PULL_URL_LENGTH) throw new PullUrlError(`pullUrl must be at most ${MAX_PULL_URL_LENGTH} characters`);
  const unknown = (template.match(/\{[^}]*\}/g) ?? []).filter((p) => !(PLACEHOLDERS as readonly string[]).includes(p));
  if (unknown.length > 0) throw new PullUrlError(`pullUrl has unknown placeholders ${unknown.join(", ")}; use {drawingId}, {drawAt} or {date}`);
  if (cadence === "hourly" && !template.includes("{drawingId}") && !template.includes("{drawAt}")) {
    throw new PullUrlError("an hourly campaign's pullUrl needs {drawingId} or {drawAt}: {date} alone names 24 draws");
  }
  let url: URL;
  try {
    url = new URL(expand(template, { drawingId: "drw_x", drawAt: "2026-01-01T00:00:00.000Z", date: "2026-01-01" }));
  } catch {
    throw new PullUrlError("pullUrl is not a valid URL");
  }
  if (url.username || url.password) throw new PullUrlError("pullUrl must not carry credentials; put an unguessable token in the path instead");
  if (url.protocol === "https:") return template;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (url.protocol === "http:" && allowHttpLoopback && (host === "localhost" || (isIP(host) !== 0 && /^(127\.|::1$)/.test(host)))) return template;
  throw new PullUrlError("pullUrl must be an https URL");
}

type Values = { drawingId: string; drawAt: string; date: string };

function expand(template: string, v: Values): string {
  return template
    .replaceAll("{drawingId}", encodeURIComponent(v.drawingId))
    .replaceAll("{drawAt}", encodeURIComponent(v.drawAt))
    .replaceAll("{date}", encodeURIComponent(v.date));
}

/**
 * The URL for one drawing: {drawAt} is UTC ISO 8601 URL-encoded, {date} the draw date in the campaign's zone
 * (`localDate`, YYYY-MM-DD: the schedule's rule, domain/schedule.ts localDrawDate).
 */
export function pullUrlFor(template: string, drawing: { id: string; drawAt: string }, localDate: string): string {
  return expand(template, { drawingId: drawing.id, drawAt: drawing.drawAt, date: localDate });
}

/** For owners: scheme and host only; the path may hold the partner's token. */
export function maskPullUrl(template: string): string {
  try {
    const url = new URL(template.replace(/\{[^}]*\}/g, "x"));
    return `${url.protocol}//${url.host}/…`;
  } catch {
    return "…";
  }
}
