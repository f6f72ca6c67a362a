import type { Selectable } from "kysely";
import type { Environment } from "../config.js";
import type { Connection } from "./connection.js";
import type { ApiKeysTable, MembersTable } from "./schema.js";

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

type MemberRecord = Selectable<MembersTable>;
type KeyRecord = Selectable<ApiKeysTable>;

/**
 * Lower case as the store's lower() gives it for a column: ASCII letters only (SQLite's lower(); PostgreSQL's under
 * the columns' COLLATE "C"). Applied in JS to a parameter, so both engines compare alike whatever the server's locale.
 */
const asciiLower = (s: string): string => s.replace(/[A-Z]+/g, (c) => c.toLowerCase());

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

  async createAccount(id: string, at: string): Promise<void> {
    await this.conn.q().insertInto("accounts").values({ id, created_at: at }).execute();
  }

  async count(): Promise<number> {
    const r = await this.conn.q().selectFrom("accounts").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** Every account, newest first (the operator's list). */
  async all(): Promise<{ id: string; createdAt: string }[]> {
    const rows = await this.conn.q().selectFrom("accounts").select(["id", "created_at"]).orderBy("created_at", "desc").orderBy("id", "desc").execute();
    return rows.map((r) => ({ id: r.id, createdAt: r.created_at }));
  }

  async accountExists(id: string): Promise<boolean> {
    const r = await this.conn.q().selectFrom("accounts").select("id").where("id", "=", id).executeTakeFirst();
    return r !== undefined;
  }

  async addMember(m: Member): Promise<void> {
    await this.conn
      .q()
      .insertInto("members")
      .values({ id: m.id, account_id: m.accountId, email: m.email, role: m.role, created_at: m.createdAt })
      .onConflict((oc) => oc.columns(["account_id", "email"]).doUpdateSet((eb) => ({ role: eb.ref("excluded.role") })))
      .execute();
  }

  async member(accountId: string, email: string): Promise<Member | null> {
    // lower(): emails are stored in lower case (domain/team.ts); older rows may not be.
    const r = await this.conn
      .q()
      .selectFrom("members")
      .selectAll()
      .where("account_id", "=", accountId)
      .where((eb) => eb(eb.fn<string>("lower", ["email"]), "=", asciiLower(email)))
      .executeTakeFirst();
    return r ? member(r) : null;
  }

  async owners(accountId: string): Promise<Member[]> {
    const rows = await this.conn.q().selectFrom("members").selectAll().where("account_id", "=", accountId).where("role", "=", "owner").orderBy("created_at").orderBy("id").execute();
    return rows.map(member);
  }

  async insertKey(k: ApiKeyRow): Promise<void> {
    await this.conn
      .q()
      .insertInto("api_keys")
      .values({
        key_id: k.keyId,
        account_id: k.accountId,
        environment: k.environment,
        secret_hash: k.secretHash,
        last4: k.last4,
        created_by: k.createdBy,
        created_at: k.createdAt,
        revoked_at: null,
      })
      .execute();
  }

  async key(keyId: string): Promise<ApiKeyRow | null> {
    const r = await this.conn.q().selectFrom("api_keys").selectAll().where("key_id", "=", keyId).executeTakeFirst();
    return r ? key(r) : null;
  }

  /** The account's team, owners first, then by when they joined. */
  async members(accountId: string): Promise<Member[]> {
    const rows = await this.conn
      .q()
      .selectFrom("members")
      .selectAll()
      .where("account_id", "=", accountId)
      .orderBy((eb) => eb.case().when("role", "=", "member").then(1).else(0).end())
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return rows.map(member);
  }

  /** Every account `email` is on the team of (a person may be on several). */
  async membershipsOf(email: string): Promise<Member[]> {
    const rows = await this.conn
      .q()
      .selectFrom("members")
      .selectAll()
      .where((eb) => eb(eb.fn<string>("lower", ["email"]), "=", asciiLower(email)))
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return rows.map(member);
  }

  async removeMember(accountId: string, email: string): Promise<boolean> {
    const r = await this.conn
      .q()
      .deleteFrom("members")
      .where("account_id", "=", accountId)
      .where((eb) => eb(eb.fn<string>("lower", ["email"]), "=", asciiLower(email)))
      .executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  /** The account's keys, newest first, revoked ones included. */
  async keys(accountId: string): Promise<ApiKeyRow[]> {
    const rows = await this.conn.q().selectFrom("api_keys").selectAll().where("account_id", "=", accountId).orderBy("created_at", "desc").orderBy("key_id", "desc").execute();
    return rows.map(key);
  }

  /** Records a key's use; skipped when it was recorded less than a minute before `at` (one write per minute per key). */
  async touchKey(keyId: string, at: string, notBefore: string): Promise<void> {
    await this.conn
      .q()
      .updateTable("api_keys")
      .set({ last_used_at: at })
      .where("key_id", "=", keyId)
      .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", notBefore)]))
      .execute();
  }

  /** Marks a key revoked; returns false when the account has no such key. */
  async revokeKey(accountId: string, keyId: string, at: string): Promise<boolean> {
    const r = await this.conn
      .q()
      .updateTable("api_keys")
      .set((eb) => ({ revoked_at: eb.fn.coalesce("revoked_at", eb.val(at)) }))
      .where("key_id", "=", keyId)
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }
}
