/**
 * What an alert's notice says: the operator webhook's JSON body (the same envelope as partner webhooks: `type`,
 * `timestamp`, `data`) and the mail written from it, so both channels say the same. Nothing here holds a secret:
 * the alert's wording never does (domain/alerts.ts), and neither the webhook's URL nor its secret is part of it.
 */
import type { Mail } from "../mail/queue.js";

export type NoticeType = "alert.opened" | "alert.reminder" | "alert.resolved";

/** The alert as a notice shows it. */
export type AlertSnapshot = {
  id: number;
  key: string;
  kind: string;
  severity: "critical" | "warning";
  summary: string;
  detail: string;
  /** What to do, in one line. */
  action: string;
  campaign: string | null;
  drawingId: string | null;
  openedAt: string;
  reminders: number;
  acknowledgedAt: string | null;
  resolvedAt: string | null;
};

/** The operator webhook's body: `{ type, timestamp, data: { alert } }`. */
export type NoticeBody = { type: NoticeType; timestamp: string; data: { alert: AlertSnapshot } };

/** The exact JSON sent (and stored with the notice, so a retry sends the same bytes). */
export function noticeBody(type: NoticeType, alert: AlertSnapshot, at: string): string {
  const body: NoticeBody = { type, timestamp: at, data: { alert } };
  return JSON.stringify(body);
}

const HEADINGS: Record<NoticeType, (a: AlertSnapshot) => string> = {
  "alert.opened": (a) => `ALERT ${a.severity}`,
  "alert.reminder": (a) => `REMINDER ${a.reminders} ${a.severity}`,
  "alert.resolved": () => "RESOLVED",
};

/** The mail of a notice, to one recipient. */
export function noticeMail(body: string, to: string): Mail {
  const { type, timestamp, data } = JSON.parse(body) as NoticeBody;
  const a = data.alert;
  const lines = [
    type === "alert.resolved" ? `Cleared: ${a.summary}` : a.summary,
    "",
    a.detail,
    "",
    ...(type === "alert.resolved" ? [] : [`What to do: ${a.action}`, `(docs/operations.md, "Alerts", ${a.kind})`, ""]),
    `Alert #${a.id}: ${a.key} (${a.severity})`,
    ...(a.campaign === null ? [] : [`Campaign: ${a.campaign}`]),
    ...(a.drawingId === null ? [] : [`Drawing: ${a.drawingId}`]),
    `Opened: ${a.openedAt}`,
    ...(a.reminders > 0 ? [`Reminders: ${a.reminders}`] : []),
    ...(a.resolvedAt === null ? [] : [`Resolved: ${a.resolvedAt}`]),
    `This notice: ${type} at ${timestamp}`,
    ...(type === "alert.resolved" ? [] : ["", `Stop the reminders once someone is on it: prizedraw alerts ack ${a.id}`]),
  ];
  return { to, subject: `[prizedraw] ${HEADINGS[type](a)}: ${a.summary}`, text: lines.join("\n") + "\n" };
}
