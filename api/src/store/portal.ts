import type { Connection } from "./connection.js";
import type { Db } from "./db.js";

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

type LinkRecord = { token_hash: string; email: string; purpose: LinkPurpose; account_id: string | null; created_at: string; expires_at: string; used_at: string | null };
type SessionRecord = {
  id_hash: string;
  email: string;
  account_id: string;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  ended_at: string | null;
};

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

  private get db(): Db {
    return this.conn.db;
  }

  insertLink(l: PortalLink): Promise<void> {
    return this.conn.run(() => {
      this.db
        .prepare("INSERT INTO portal_links (token_hash, email, purpose, account_id, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?, NULL)")
        .run(l.tokenHash, l.email, l.purpose, l.accountId, l.createdAt, l.expiresAt);
    });
  }

  link(tokenHash: string): Promise<PortalLink | null> {
    return this.conn.run(() => {
      const r = this.db.prepare("SELECT * FROM portal_links WHERE token_hash = ?").get(tokenHash) as LinkRecord | undefined;
      return r ? link(r) : null;
    });
  }

  /** Marks a link used; false when it was used already (two clicks racing: only one wins). */
  useLink(tokenHash: string, at: string): Promise<boolean> {
    return this.conn.run(() => {
      return this.db.prepare("UPDATE portal_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL").run(at, tokenHash).changes === 1;
    });
  }

  insertSession(s: PortalSession): Promise<void> {
    return this.conn.run(() => {
      this.db
        .prepare(
          "INSERT INTO portal_sessions (id_hash, email, account_id, csrf_token, created_at, last_seen_at, expires_at, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)",
        )
        .run(s.idHash, s.email, s.accountId, s.csrfToken, s.createdAt, s.lastSeenAt, s.expiresAt);
    });
  }

  session(idHash: string): Promise<PortalSession | null> {
    return this.conn.run(() => {
      const r = this.db.prepare("SELECT * FROM portal_sessions WHERE id_hash = ?").get(idHash) as SessionRecord | undefined;
      return r ? session(r) : null;
    });
  }

  touchSession(idHash: string, at: string): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("UPDATE portal_sessions SET last_seen_at = ? WHERE id_hash = ?").run(at, idHash);
    });
  }

  endSession(idHash: string, at: string): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("UPDATE portal_sessions SET ended_at = ? WHERE id_hash = ? AND ended_at IS NULL").run(at, idHash);
    });
  }

  /** Ends every open session of `email` on `accountId` (removed from the team). */
  endSessionsOf(accountId: string, email: string, at: string): Promise<number> {
    return this.conn.run(() => {
      return this.db.prepare("UPDATE portal_sessions SET ended_at = ? WHERE account_id = ? AND email = ? AND ended_at IS NULL").run(at, accountId, email).changes;
    });
  }

  /** Records a sign-in request under each key and returns how many each key has since `since` (this one included). */
  recordAttempt(keys: readonly string[], at: string, since: string): Promise<number[]> {
    return this.conn.run(() => {
      const insert = this.db.prepare("INSERT INTO portal_attempts (key, at) VALUES (?, ?)");
      const count = this.db.prepare("SELECT COUNT(*) FROM portal_attempts WHERE key = ? AND at >= ?").pluck();
      this.db.prepare("DELETE FROM portal_attempts WHERE at < ?").run(since);
      return keys.map((key) => {
        insert.run(key, at);
        return count.get(key, since) as number;
      });
    });
  }

  addMail(to: string, subject: string, body: string, at: string): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("INSERT INTO mail_outbox (to_address, subject, body, created_at) VALUES (?, ?, ?, ?)").run(to, subject, body, at);
    });
  }

  /** The newest mail first. */
  outbox(limit = 50): Promise<OutboxMail[]> {
    return this.conn.run(() => {
      const rows = this.db.prepare("SELECT id, to_address, subject, body, created_at FROM mail_outbox ORDER BY id DESC LIMIT ?").all(limit) as {
        id: number;
        to_address: string;
        subject: string;
        body: string;
        created_at: string;
      }[];
      return rows.map((r) => ({ id: r.id, to: r.to_address, subject: r.subject, body: r.body, createdAt: r.created_at }));
    });
  }

  setLogo(campaignId: string, logo: CampaignLogo): Promise<void> {
    return this.conn.run(() => {
      this.db
        .prepare(
          "INSERT INTO campaign_logos (campaign_id, bytes, content_type, etag, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (campaign_id) DO UPDATE SET bytes = excluded.bytes, content_type = excluded.content_type, etag = excluded.etag, updated_at = excluded.updated_at",
        )
        .run(campaignId, logo.bytes, logo.contentType, logo.etag, logo.updatedAt);
    });
  }

  logo(campaignId: string): Promise<CampaignLogo | null> {
    return this.conn.run(() => {
      const r = this.db.prepare("SELECT bytes, content_type, etag, updated_at FROM campaign_logos WHERE campaign_id = ?").get(campaignId) as
        | { bytes: Buffer; content_type: CampaignLogo["contentType"]; etag: string; updated_at: string }
        | undefined;
      return r ? { bytes: r.bytes, contentType: r.content_type, etag: r.etag, updatedAt: r.updated_at } : null;
    });
  }

  removeLogo(campaignId: string): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("DELETE FROM campaign_logos WHERE campaign_id = ?").run(campaignId);
    });
  }
}
