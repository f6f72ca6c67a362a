import type { Connection } from "./connection.js";
import type { Db } from "./db.js";

export type FetchOutcome = "stored" | "unchanged" | "not_ready" | "invalid" | "error";
export type PullFetch = { at: string; outcome: FetchOutcome; reason: string | null };
export type StaffAlert = { id: number; at: string; kind: string; campaignSlug: string; drawingId: string | null; detail: string };

/** Pull fetch history per drawing and staff alerts. Never holds the pull URL. */
export class PullStore {
  constructor(private readonly conn: Connection) {}

  private get db(): Db {
    return this.conn.db;
  }

  recordFetch(drawingId: string, at: string, outcome: FetchOutcome, reason: string | null): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("INSERT INTO pull_fetches (drawing_id, at, outcome, reason) VALUES (?, ?, ?, ?)").run(drawingId, at, outcome, reason);
    });
  }

  lastFetchAt(drawingId: string): Promise<string | null> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT at FROM pull_fetches WHERE drawing_id = ? ORDER BY id DESC LIMIT 1").pluck().get(drawingId) as string | undefined) ?? null;
    });
  }

  history(drawingId: string): Promise<PullFetch[]> {
    return this.conn.run(() => {
      return this.db.prepare("SELECT at, outcome, reason FROM pull_fetches WHERE drawing_id = ? ORDER BY id").all(drawingId) as PullFetch[];
    });
  }

  /** Raises an alert once per kind and drawing; returns whether it is new. */
  raiseAlert(alert: Omit<StaffAlert, "id">): Promise<boolean> {
    return this.conn.run(() => {
      return (
        this.db
          .prepare("INSERT INTO staff_alerts (at, kind, campaign_slug, drawing_id, detail) VALUES (?, ?, ?, ?, ?) ON CONFLICT (kind, drawing_id) DO NOTHING")
          .run(alert.at, alert.kind, alert.campaignSlug, alert.drawingId, alert.detail).changes === 1
      );
    });
  }

  alerts(limit = 100): Promise<StaffAlert[]> {
    return this.conn.run(() => {
      return (
        this.db.prepare("SELECT id, at, kind, campaign_slug, drawing_id, detail FROM staff_alerts ORDER BY id DESC LIMIT ?").all(limit) as {
          id: number;
          at: string;
          kind: string;
          campaign_slug: string;
          drawing_id: string | null;
          detail: string;
        }[]
      ).map((r) => ({ id: r.id, at: r.at, kind: r.kind, campaignSlug: r.campaign_slug, drawingId: r.drawing_id, detail: r.detail }));
    });
  }
}
