import type { Environment } from "../config.js";
import type { Connection } from "./connection.js";
import type { Db } from "./db.js";

export type Role = "owner" | "member";
export type Member = { id: string; accountId: string; email: string; role: Role; createdAt: string };
export type ApiKeyRow = {
  keyId: string;
  accountId: string;
  environment: Environment;
  secretHash: string;
  last4: string;
  createdBy: string | null;
  createdAt: string;
  revokedAt: string | null;
  /** The last request the key authenticated (to the minute); null when never used. */
  lastUsedAt: string | null;
};

type MemberRecord = { id: string; account_id: string; email: string; role: Role; created_at: string };
type KeyRecord = {
  key_id: string;
  account_id: string;
  environment: Environment;
  secret_hash: string;
  last4: string;
  created_by: string | null;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
};

const member = (r: MemberRecord): Member => ({ id: r.id, accountId: r.account_id, email: r.email, role: r.role, createdAt: r.created_at });
const key = (r: KeyRecord): ApiKeyRow => ({
  keyId: r.key_id,
  accountId: r.account_id,
  environment: r.environment,
  secretHash: r.secret_hash,
  last4: r.last4,
  createdBy: r.created_by,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  lastUsedAt: r.last_used_at,
});

/** Accounts, their members and API keys (only hashes of keys). */
export class AccountStore {
  constructor(private readonly conn: Connection) {}

  private get db(): Db {
    return this.conn.db;
  }

  createAccount(id: string, at: string): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("INSERT INTO accounts (id, created_at) VALUES (?, ?)").run(id, at);
    });
  }

  count(): Promise<number> {
    return this.conn.run(() => {
      return this.db.prepare("SELECT COUNT(*) FROM accounts").pluck().get() as number;
    });
  }

  accountExists(id: string): Promise<boolean> {
    return this.conn.run(() => {
      return this.db.prepare("SELECT 1 FROM accounts WHERE id = ?").pluck().get(id) === 1;
    });
  }

  addMember(m: Member): Promise<void> {
    return this.conn.run(() => {
      this.db
        .prepare("INSERT INTO members (id, account_id, email, role, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (account_id, email) DO UPDATE SET role = excluded.role")
        .run(m.id, m.accountId, m.email, m.role, m.createdAt);
    });
  }

  member(accountId: string, email: string): Promise<Member | null> {
    return this.conn.run(() => {
      // lower(): emails are stored in lower case (domain/team.ts); older rows may not be.
      const r = this.db.prepare("SELECT * FROM members WHERE account_id = ? AND lower(email) = lower(?)").get(accountId, email) as MemberRecord | undefined;
      return r ? member(r) : null;
    });
  }

  owners(accountId: string): Promise<Member[]> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT * FROM members WHERE account_id = ? AND role = 'owner' ORDER BY created_at").all(accountId) as MemberRecord[]).map(member);
    });
  }

  insertKey(k: ApiKeyRow): Promise<void> {
    return this.conn.run(() => {
      this.db
        .prepare("INSERT INTO api_keys (key_id, account_id, environment, secret_hash, last4, created_by, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)")
        .run(k.keyId, k.accountId, k.environment, k.secretHash, k.last4, k.createdBy, k.createdAt);
    });
  }

  key(keyId: string): Promise<ApiKeyRow | null> {
    return this.conn.run(() => {
      const r = this.db.prepare("SELECT * FROM api_keys WHERE key_id = ?").get(keyId) as KeyRecord | undefined;
      return r ? key(r) : null;
    });
  }

  /** The account's team, owners first, then by when they joined. */
  members(accountId: string): Promise<Member[]> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT * FROM members WHERE account_id = ? ORDER BY role = 'member', created_at").all(accountId) as MemberRecord[]).map(member);
    });
  }

  /** Every account `email` is on the team of (a person may be on several). */
  membershipsOf(email: string): Promise<Member[]> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT * FROM members WHERE lower(email) = lower(?) ORDER BY created_at").all(email) as MemberRecord[]).map(member);
    });
  }

  removeMember(accountId: string, email: string): Promise<boolean> {
    return this.conn.run(() => {
      return this.db.prepare("DELETE FROM members WHERE account_id = ? AND lower(email) = lower(?)").run(accountId, email).changes === 1;
    });
  }

  /** The account's keys, newest first, revoked ones included. */
  keys(accountId: string): Promise<ApiKeyRow[]> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at DESC").all(accountId) as KeyRecord[]).map(key);
    });
  }

  /** Records a key's use; skipped when it was recorded less than a minute before `at` (one write per minute per key). */
  touchKey(keyId: string, at: string, notBefore: string): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("UPDATE api_keys SET last_used_at = ? WHERE key_id = ? AND (last_used_at IS NULL OR last_used_at < ?)").run(at, keyId, notBefore);
    });
  }

  /** Marks a key revoked; returns false when the account has no such key. */
  revokeKey(accountId: string, keyId: string, at: string): Promise<boolean> {
    return this.conn.run(() => {
      return this.db.prepare("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE key_id = ? AND account_id = ?").run(at, keyId, accountId).changes === 1;
    });
  }
}
