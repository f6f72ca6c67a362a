import type { Connection } from "./connection.js";
import type { Db } from "./db.js";

/** A pause in a campaign's clock; `resumedAt` is null while it lasts. Times are the campaign's clock. */
export type Pause = { pausedAt: string; resumedAt: string | null };

/** Campaign pauses, recorded by the status moves (guarantee periods do not count paused time). */
export class PauseStore {
  constructor(private readonly conn: Connection) {}

  private get db(): Db {
    return this.conn.db;
  }

  start(campaignId: string, at: string): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("INSERT INTO campaign_pauses (campaign_id, paused_at) VALUES (?, ?)").run(campaignId, at);
    });
  }

  /** Closes the campaign's open pause, if any (resume, end). */
  end(campaignId: string, at: string): Promise<number> {
    return this.conn.run(() => {
      return this.db.prepare("UPDATE campaign_pauses SET resumed_at = ? WHERE campaign_id = ? AND resumed_at IS NULL").run(at, campaignId).changes;
    });
  }

  /** Every pause of a campaign, oldest first. */
  list(campaignId: string): Promise<Pause[]> {
    return this.conn.run(() => {
      const rows = this.db.prepare("SELECT paused_at, resumed_at FROM campaign_pauses WHERE campaign_id = ? ORDER BY paused_at, id").all(campaignId) as {
        paused_at: string;
        resumed_at: string | null;
      }[];
      return rows.map((r) => ({ pausedAt: r.paused_at, resumedAt: r.resumed_at }));
    });
  }
}
