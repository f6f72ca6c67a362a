import type { Connection } from "./connection.js";
import type { Db } from "./db.js";
import { newId } from "../domain/ids.js";

/** Operator and owner actions (CLI, test clock), one row each. Never holds secrets. */
export class AuditStore {
  constructor(private readonly conn: Connection) {}

  private get db(): Db {
    return this.conn.db;
  }

  record(actor: string, action: string, subject: string | null, detail: Record<string, unknown> = {}, at = new Date().toISOString()): Promise<void> {
    return this.conn.run(() => {
      this.db
        .prepare("INSERT INTO audit_log (id, at, actor, action, subject, detail_json) VALUES (?, ?, ?, ?, ?, ?)")
        .run(newId("aud"), at, actor, action, subject, JSON.stringify(detail));
    });
  }

  /**
   * One account's rows: those about the account itself (team, keys), its campaigns (by slug or id) and their
   * drawings (by id, e.g. a cutoff extension), newest first.
   */
  ofAccount(accountId: string, limit = 200): Promise<{ at: string; actor: string; action: string; subject: string | null; detail: Record<string, unknown> }[]> {
    return this.conn.run(() => {
      const rows = this.db
        .prepare(
          `SELECT at, actor, action, subject, detail_json FROM audit_log
           WHERE subject = @accountId
              OR subject IN (SELECT slug FROM campaigns WHERE account_id = @accountId)
              OR subject IN (SELECT id FROM campaigns WHERE account_id = @accountId)
              OR subject IN (SELECT d.id FROM drawings d JOIN campaigns c ON c.id = d.campaign_id WHERE c.account_id = @accountId)
           ORDER BY at DESC, id DESC LIMIT @limit`,
        )
        .all({ accountId, limit }) as { at: string; actor: string; action: string; subject: string | null; detail_json: string }[];
      return rows.map((r) => ({ at: r.at, actor: r.actor, action: r.action, subject: r.subject, detail: JSON.parse(r.detail_json) as Record<string, unknown> }));
    });
  }

  list(limit = 100): Promise<{ at: string; actor: string; action: string; subject: string | null; detail: Record<string, unknown> }[]> {
    return this.conn.run(() => {
      const rows = this.db.prepare("SELECT at, actor, action, subject, detail_json FROM audit_log ORDER BY at DESC, id DESC LIMIT ?").all(limit) as {
        at: string;
        actor: string;
        action: string;
        subject: string | null;
        detail_json: string;
      }[];
      return rows.map((r) => ({ at: r.at, actor: r.actor, action: r.action, subject: r.subject, detail: JSON.parse(r.detail_json) as Record<string, unknown> }));
    });
  }
}
