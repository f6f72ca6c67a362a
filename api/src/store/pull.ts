import type { Connection } from "./connection.js";

export type FetchOutcome = "stored" | "unchanged" | "not_ready" | "invalid" | "error";
export type PullFetch = { at: string; outcome: FetchOutcome; reason: string | null };
export type StaffAlert = { id: number; at: string; kind: string; campaignSlug: string; drawingId: string | null; detail: string };

/** Pull fetch history per drawing and staff alerts. Never holds the pull URL. */
export class PullStore {
  constructor(private readonly conn: Connection) {}

  async recordFetch(drawingId: string, at: string, outcome: FetchOutcome, reason: string | null): Promise<void> {
    await this.conn.q().insertInto("pull_fetches").values({ drawing_id: drawingId, at, outcome, reason }).execute();
  }

  async lastFetchAt(drawingId: string): Promise<string | null> {
    const r = await this.conn.q().selectFrom("pull_fetches").select("at").where("drawing_id", "=", drawingId).orderBy("id", "desc").limit(1).executeTakeFirst();
    return r?.at ?? null;
  }

  async history(drawingId: string): Promise<PullFetch[]> {
    return this.conn.q().selectFrom("pull_fetches").select(["at", "outcome", "reason"]).where("drawing_id", "=", drawingId).orderBy("id").execute();
  }

  /** Raises an alert once per kind and drawing; returns whether it is new. */
  async raiseAlert(alert: Omit<StaffAlert, "id">): Promise<boolean> {
    const result = await this.conn
      .q()
      .insertInto("staff_alerts")
      .values({ at: alert.at, kind: alert.kind, campaign_slug: alert.campaignSlug, drawing_id: alert.drawingId, detail: alert.detail })
      .onConflict((oc) => oc.columns(["kind", "drawing_id"]).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async alerts(limit = 100): Promise<StaffAlert[]> {
    const rows = await this.conn
      .q()
      .selectFrom("staff_alerts")
      .select(["id", "at", "kind", "campaign_slug", "drawing_id", "detail"])
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, at: r.at, kind: r.kind, campaignSlug: r.campaign_slug, drawingId: r.drawing_id, detail: r.detail }));
  }
}
