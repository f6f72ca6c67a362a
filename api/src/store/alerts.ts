import { randomBytes } from "node:crypto";
import type { Selectable } from "kysely";
import type { Connection } from "./connection.js";
import type { AlertNoticesTable, AlertsTable } from "./schema.js";

export type AlertSeverity = AlertsTable["severity"];
export type NoticeType = AlertNoticesTable["type"];
/** A notice's state on one channel: pending until sent or given up (failed); off when the channel was not configured. */
export type ChannelState = AlertNoticesTable["mail"];

/** One occurrence of a condition that needs a person (domain/alerts.ts), from opened to resolved. */
export type StoredAlert = {
  id: number;
  key: string;
  kind: string;
  severity: AlertSeverity;
  summary: string;
  detail: string;
  campaignSlug: string | null;
  drawingId: string | null;
  openedAt: string;
  lastNotifiedAt: string;
  reminders: number;
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
  resolvedAt: string | null;
};

/** What an alert is opened with. */
export type NewAlert = Pick<StoredAlert, "key" | "kind" | "severity" | "summary" | "detail" | "campaignSlug" | "drawingId">;

/** A notice as stored: its webhook body, and how far each channel got. */
export type AlertNotice = {
  id: number;
  alertId: number;
  eventId: string;
  type: NoticeType;
  body: string;
  createdAt: string;
  mail: ChannelState;
  webhook: ChannelState;
  webhookAttempts: number;
  lastError: string | null;
};

const toAlert = (r: Selectable<AlertsTable>): StoredAlert => ({
  id: r.id,
  key: r.key,
  kind: r.kind,
  severity: r.severity,
  summary: r.summary,
  detail: r.detail,
  campaignSlug: r.campaign_slug,
  drawingId: r.drawing_id,
  openedAt: r.opened_at,
  lastNotifiedAt: r.last_notified_at,
  reminders: r.reminders,
  acknowledgedAt: r.acknowledged_at,
  acknowledgedBy: r.acknowledged_by,
  resolvedAt: r.resolved_at,
});

const toNotice = (r: Selectable<AlertNoticesTable>): AlertNotice => ({
  id: r.id,
  alertId: r.alert_id,
  eventId: r.event_id,
  type: r.type,
  body: r.body,
  createdAt: r.created_at,
  mail: r.mail,
  webhook: r.webhook,
  webhookAttempts: r.webhook_attempts,
  lastError: r.last_error,
});

/**
 * Alerts and their notices (the keeper's alert watch writes them; `prizedraw alerts list` and `ack` read and mark
 * them). Notices are an outbox: written with the change of the alert that causes them, sent afterwards, and kept
 * pending on a channel until it is done, so a failed delivery is tried again and none is lost to a restart.
 */
export class AlertStore {
  constructor(private readonly conn: Connection) {}

  /** Alerts not yet resolved, oldest first. */
  async unresolved(): Promise<StoredAlert[]> {
    const rows = await this.conn.q().selectFrom("alerts").selectAll().where("resolved_at", "is", null).orderBy("id").execute();
    return rows.map(toAlert);
  }

  /** Opens an alert (its last notice is the opening one, at `at`). */
  async open(alert: NewAlert, at: string): Promise<StoredAlert> {
    const row = await this.conn
      .q()
      .insertInto("alerts")
      .values({
        key: alert.key,
        kind: alert.kind,
        severity: alert.severity,
        summary: alert.summary,
        detail: alert.detail,
        campaign_slug: alert.campaignSlug,
        drawing_id: alert.drawingId,
        opened_at: at,
        last_notified_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toAlert(row);
  }

  /** A reminder at `at`, with the condition's wording of now. */
  async remind(id: number, wording: Pick<StoredAlert, "summary" | "detail">, at: string): Promise<StoredAlert> {
    const row = await this.conn
      .q()
      .updateTable("alerts")
      .set((eb) => ({ summary: wording.summary, detail: wording.detail, last_notified_at: at, reminders: eb("reminders", "+", 1) }))
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toAlert(row);
  }

  /** New wording for an open alert, without a notice. */
  async reword(id: number, wording: Pick<StoredAlert, "summary" | "detail">): Promise<void> {
    await this.conn.q().updateTable("alerts").set({ summary: wording.summary, detail: wording.detail }).where("id", "=", id).execute();
  }

  async resolve(id: number, at: string): Promise<StoredAlert> {
    const row = await this.conn.q().updateTable("alerts").set({ resolved_at: at }).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
    return toAlert(row);
  }

  /** Stops the reminders of an open alert; null when there is no such alert, or it is resolved already. */
  async acknowledge(id: number, by: string, at: string): Promise<StoredAlert | null> {
    const row = await this.conn
      .q()
      .updateTable("alerts")
      .set({ acknowledged_at: at, acknowledged_by: by })
      .where("id", "=", id)
      .where("resolved_at", "is", null)
      .where("acknowledged_at", "is", null)
      .returningAll()
      .executeTakeFirst();
    if (row) return toAlert(row);
    const existing = await this.conn.q().selectFrom("alerts").selectAll().where("id", "=", id).where("resolved_at", "is", null).executeTakeFirst();
    return existing ? toAlert(existing) : null;
  }

  /** Records a notice to send; its webhook-id is new and random. */
  async addNotice(notice: Pick<AlertNotice, "alertId" | "type" | "body" | "createdAt" | "mail" | "webhook">): Promise<AlertNotice> {
    const row = await this.conn
      .q()
      .insertInto("alert_notices")
      .values({
        alert_id: notice.alertId,
        event_id: newEventId(),
        type: notice.type,
        body: notice.body,
        created_at: notice.createdAt,
        mail: notice.mail,
        webhook: notice.webhook,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toNotice(row);
  }

  /** Notices with a channel still pending, oldest first, at most `limit`. */
  async pendingNotices(limit: number): Promise<AlertNotice[]> {
    const rows = await this.conn
      .q()
      .selectFrom("alert_notices")
      .selectAll()
      .where((eb) => eb.or([eb("mail", "=", "pending"), eb("webhook", "=", "pending")]))
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map(toNotice);
  }

  async markMail(id: number, state: ChannelState, error: string | null = null): Promise<void> {
    await this.conn
      .q()
      .updateTable("alert_notices")
      .set({ mail: state, ...(error === null ? {} : { last_error: error }) })
      .where("id", "=", id)
      .execute();
  }

  /** One webhook attempt: its outcome (sent, still pending, or given up) and the error when it failed. */
  async recordWebhookAttempt(id: number, state: ChannelState, error: string | null): Promise<void> {
    await this.conn
      .q()
      .updateTable("alert_notices")
      .set((eb) => ({ webhook: state, webhook_attempts: eb("webhook_attempts", "+", 1), ...(error === null ? {} : { last_error: error }) }))
      .where("id", "=", id)
      .execute();
  }

  /** The latest `limit` alerts (open or resolved), newest first, each with its notices in order. */
  async history(limit = 100): Promise<(StoredAlert & { notices: Omit<AlertNotice, "body" | "alertId">[] })[]> {
    const alerts = (await this.conn.q().selectFrom("alerts").selectAll().orderBy("id", "desc").limit(limit).execute()).map(toAlert);
    if (alerts.length === 0) return [];
    const notices = (
      await this.conn
        .q()
        .selectFrom("alert_notices")
        .selectAll()
        .where(
          "alert_id",
          "in",
          alerts.map((a) => a.id),
        )
        .orderBy("id")
        .execute()
    ).map(toNotice);
    return alerts.map((alert) => ({
      ...alert,
      notices: notices.filter((n) => n.alertId === alert.id).map(({ body: _body, alertId: _alertId, ...rest }) => rest),
    }));
  }
}

/** A notice's webhook-id: `alert_` and 20 random hex digits (receivers dedupe on it). */
function newEventId(): string {
  return `alert_${randomBytes(10).toString("hex")}`;
}
