import type { Selectable } from "kysely";
import type { Connection } from "./connection.js";
import type { PortalLinksTable, PortalSessionsTable } from "./schema.js";

/** What an emailed link is for: signing in, or joining a team the link's owner was invited to. */
export type LinkPurpose = "sign_in" | "invite";

export type PortalLink = {
  tokenHash: string;
  email: string;
  purpose: LinkPurpose;
  /** The account an invite is for; a sign-in link's account is chosen after (null). */
  accountId: string | null;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
};

export type PortalSession = {
  idHash: string;
  email: string;
  accountId: string;
  csrfToken: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  endedAt: string | null;
};

export type OutboxMail = { id: number; to: string; subject: string; body: string; createdAt: string };

export type CampaignLogo = { bytes: Buffer; contentType: "image/png" | "image/jpeg" | "image/webp"; etag: string; updatedAt: string };

type LinkRecord = Selectable<PortalLinksTable>;
type SessionRecord = Selectable<PortalSessionsTable>;

const link = (r: LinkRecord): PortalLink => ({
  tokenHash: r.token_hash,
  email: r.email,
  purpose: r.purpose,
  accountId: r.account_id,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
});

const session = (r: SessionRecord): PortalSession => ({
  idHash: r.id_hash,
  email: r.email,
  accountId: r.account_id,
  csrfToken: r.csrf_token,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  expiresAt: r.expires_at,
  endedAt: r.ended_at,
});

/** The portal's rows: emailed links, sessions, sign-in attempts (rate limits), the test outbox, campaign logos. */
export class PortalStore {
  constructor(private readonly conn: Connection) {}

  async insertLink(l: PortalLink): Promise<void> {
    await this.conn
      .q()
      .insertInto("portal_links")
      .values({ token_hash: l.tokenHash, email: l.email, purpose: l.purpose, account_id: l.accountId, created_at: l.createdAt, expires_at: l.expiresAt, used_at: null })
      .execute();
  }

  async link(tokenHash: string): Promise<PortalLink | null> {
    const r = await this.conn.q().selectFrom("portal_links").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
    return r ? link(r) : null;
  }

  /** Marks a link used; false when it was used already (two clicks racing: only one wins). */
  async useLink(tokenHash: string, at: string): Promise<boolean> {
    const result = await this.conn.q().updateTable("portal_links").set({ used_at: at }).where("token_hash", "=", tokenHash).where("used_at", "is", null).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async insertSession(s: PortalSession): Promise<void> {
    await this.conn
      .q()
      .insertInto("portal_sessions")
      .values({
        id_hash: s.idHash,
        email: s.email,
        account_id: s.accountId,
        csrf_token: s.csrfToken,
        created_at: s.createdAt,
        last_seen_at: s.lastSeenAt,
        expires_at: s.expiresAt,
        ended_at: null,
      })
      .execute();
  }

  async session(idHash: string): Promise<PortalSession | null> {
    const r = await this.conn.q().selectFrom("portal_sessions").selectAll().where("id_hash", "=", idHash).executeTakeFirst();
    return r ? session(r) : null;
  }

  async touchSession(idHash: string, at: string): Promise<void> {
    await this.conn.q().updateTable("portal_sessions").set({ last_seen_at: at }).where("id_hash", "=", idHash).execute();
  }

  /** Ends the session if it is open; whether this call ended it (false: already ended, or no such session). */
  async endSession(idHash: string, at: string): Promise<boolean> {
    const result = await this.conn.q().updateTable("portal_sessions").set({ ended_at: at }).where("id_hash", "=", idHash).where("ended_at", "is", null).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Ends every open session of `email` on `accountId` (removed from the team). */
  async endSessionsOf(accountId: string, email: string, at: string): Promise<number> {
    const result = await this.conn
      .q()
      .updateTable("portal_sessions")
      .set({ ended_at: at })
      .where("account_id", "=", accountId)
      .where("email", "=", email)
      .where("ended_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * The sign-in requests counted under each key since `since`, and the time of the oldest of them (null when none),
   * after dropping those before `since`. Read inside the caller's transaction, before recordAttempts.
   */
  async attemptsSince(keys: readonly string[], since: string): Promise<{ count: number; oldestAt: string | null }[]> {
    await this.conn.q().deleteFrom("portal_attempts").where("at", "<", since).execute();
    const out: { count: number; oldestAt: string | null }[] = [];
    for (const key of keys) {
      const r = await this.conn
        .q()
        .selectFrom("portal_attempts")
        .select((eb) => [eb.fn.countAll().as("n"), eb.fn.min("at").as("oldest")])
        .where("key", "=", key)
        .where("at", ">=", since)
        .executeTakeFirstOrThrow();
      out.push({ count: Number(r.n), oldestAt: r.oldest ?? null });
    }
    return out;
  }

  /**
   * The invite links made for the account since `since` (only those to `email`, when given): how many, and when the
   * oldest of them was made (null when none). The links are the invites' record: one per invite mailed, kept until
   * a day after they expire (7 days), so any window up to a week can be counted here.
   */
  async invitesSince(accountId: string, since: string, email?: string): Promise<{ count: number; oldestAt: string | null }> {
    let query = this.conn
      .q()
      .selectFrom("portal_links")
      .select((eb) => [eb.fn.countAll().as("n"), eb.fn.min("created_at").as("oldest")])
      .where("purpose", "=", "invite")
      .where("account_id", "=", accountId)
      .where("created_at", ">=", since);
    if (email !== undefined) query = query.where("email", "=", email);
    const r = await query.executeTakeFirstOrThrow();
    return { count: Number(r.n), oldestAt: r.oldest ?? null };
  }

  /** Counts a sign-in request under each key. */
  async recordAttempts(keys: readonly string[], at: string): Promise<void> {
    for (const key of keys) await this.conn.q().insertInto("portal_attempts").values({ key, at }).execute();
  }

  /**
   * Deletes what can no longer be used and was over before `before`: links expired (used or not), sessions expired
   * or ended, and the test environment's outbox mail. Returns how many rows.
   */
  async prune(before: string): Promise<number> {
    return this.conn.tx(async () => {
      const q = () => this.conn.q();
      const results = [
        await q().deleteFrom("portal_links").where("expires_at", "<", before).executeTakeFirst(),
        await q()
          .deleteFrom("portal_sessions")
          .where((eb) => eb.or([eb("expires_at", "<", before), eb("ended_at", "<", before)]))
          .executeTakeFirst(),
        await q().deleteFrom("mail_outbox").where("created_at", "<", before).executeTakeFirst(),
      ];
      return results.reduce((n, r) => n + Number(r.numDeletedRows), 0);
    });
  }

  async addMail(to: string, subject: string, body: string, at: string): Promise<void> {
    await this.conn.q().insertInto("mail_outbox").values({ to_address: to, subject, body, created_at: at }).execute();
  }

  /** The newest mail first. */
  async outbox(limit = 50): Promise<OutboxMail[]> {
    const rows = await this.conn
      .q()
      .selectFrom("mail_outbox")
      .select(["id", "to_address", "subject", "body", "created_at"])
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, to: r.to_address, subject: r.subject, body: r.body, createdAt: r.created_at }));
  }

  async setLogo(campaignId: string, logo: CampaignLogo): Promise<void> {
    await this.conn
      .q()
      .insertInto("campaign_logos")
      .values({ campaign_id: campaignId, bytes: logo.bytes, content_type: logo.contentType, etag: logo.etag, updated_at: logo.updatedAt })
      .onConflict((oc) =>
        oc.column("campaign_id").doUpdateSet((eb) => ({
          bytes: eb.ref("excluded.bytes"),
          content_type: eb.ref("excluded.content_type"),
          etag: eb.ref("excluded.etag"),
          updated_at: eb.ref("excluded.updated_at"),
        })),
      )
      .execute();
  }

  async logo(campaignId: string): Promise<CampaignLogo | null> {
    const r = await this.conn
      .q()
      .selectFrom("campaign_logos")
      .select(["bytes", "content_type", "etag", "updated_at"])
      .where("campaign_id", "=", campaignId)
      .executeTakeFirst();
    return r ? { bytes: r.bytes, contentType: r.content_type, etag: r.etag, updatedAt: r.updated_at } : null;
  }

  async removeLogo(campaignId: string): Promise<void> {
    await this.conn.q().deleteFrom("campaign_logos").where("campaign_id", "=", campaignId).execute();
  }
}
