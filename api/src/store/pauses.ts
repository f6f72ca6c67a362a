import type { Connection } from "./connection.js";

/** A pause in a campaign's clock; `resumedAt` is null while it lasts. Times are the campaign's clock. */
export type Pause = { pausedAt: string; resumedAt: string | null };

/** Campaign pauses, recorded by the status moves (guarantee periods do not count paused time). */
export class PauseStore {
  constructor(private readonly conn: Connection) {}

  async start(campaignId: string, at: string): Promise<void> {
    await this.conn.q().insertInto("campaign_pauses").values({ campaign_id: campaignId, paused_at: at }).execute();
  }

  /** Closes the campaign's open pause, if any (resume, end). */
  async end(campaignId: string, at: string): Promise<number> {
    const result = await this.conn
      .q()
      .updateTable("campaign_pauses")
      .set({ resumed_at: at })
      .where("campaign_id", "=", campaignId)
      .where("resumed_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Every pause of a campaign, oldest first. */
  async list(campaignId: string): Promise<Pause[]> {
    const rows = await this.conn
      .q()
      .selectFrom("campaign_pauses")
      .select(["paused_at", "resumed_at"])
      .where("campaign_id", "=", campaignId)
      .orderBy("paused_at")
      .orderBy("id")
      .execute();
    return rows.map((r) => ({ pausedAt: r.paused_at, resumedAt: r.resumed_at }));
  }
}
