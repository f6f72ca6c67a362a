import type { Connection } from "./connection.js";
import { newId } from "./ids.js";

/** An audit row as read back. */
export type AuditEntry = { at: string; actor: string; action: string; subject: string | null; detail: Record<string, unknown> };

const entry = (r: { at: string; actor: string; action: string; subject: string | null; detail_json: string | null }): AuditEntry => ({
  at: r.at,
  actor: r.actor,
  action: r.action,
  subject: r.subject,
  // record() always writes detail_json; the column itself is nullable.
  detail: JSON.parse(r.detail_json as string) as Record<string, unknown>,
});

/** Operator and owner actions (CLI, test clock), one row each. Never holds secrets. */
export class AuditStore {
  constructor(private readonly conn: Connection) {}

  async record(actor: string, action: string, subject: string | null, detail: Record<string, unknown> = {}, at = new Date().toISOString()): Promise<void> {
    await this.conn
      .q()
      .insertInto("audit_log")
      .values({ id: newId("aud"), at, actor, action, subject, detail_json: JSON.stringify(detail) })
      .execute();
  }

  /**
   * One account's rows: those about the account itself (team, keys), its campaigns (by slug or id) and their
   * drawings (by id, e.g. a cutoff extension), newest first.
   */
  async ofAccount(accountId: string, limit = 200): Promise<AuditEntry[]> {
    const rows = await this.conn
      .q()
      .selectFrom("audit_log")
      .select(["at", "actor", "action", "subject", "detail_json"])
      .where((eb) =>
        eb.or([
          eb("subject", "=", accountId),
          eb("subject", "in", eb.selectFrom("campaigns").select("slug").where("account_id", "=", accountId)),
          eb("subject", "in", eb.selectFrom("campaigns").select("id").where("account_id", "=", accountId)),
          eb(
            "subject",
            "in",
            eb.selectFrom("drawings as d").innerJoin("campaigns as c", "c.id", "d.campaign_id").select("d.id").where("c.account_id", "=", accountId),
          ),
        ]),
      )
      .orderBy("at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    return rows.map(entry);
  }

  async list(limit = 100): Promise<AuditEntry[]> {
    const rows = await this.conn.q().selectFrom("audit_log").select(["at", "actor", "action", "subject", "detail_json"]).orderBy("at", "desc").orderBy("id", "desc").limit(limit).execute();
    return rows.map(entry);
  }
}
