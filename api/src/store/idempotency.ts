import type { Connection } from "./connection.js";

/** How long an answer is kept and replayed. */
export const IDEMPOTENCY_TTL_HOURS = 24;

/** A stored Idempotency-Key: the request it was first used with and, once answered, the answer. */
export type IdempotencyRecord = { requestHash: string; status: number | null; body: string | null; createdAt: string };

/** Idempotency keys of the partner API's POSTs (http/idempotency.ts). */
export class IdempotencyStore {
  constructor(private readonly conn: Connection) {}

  /**
   * Claims a key for a request: true when this request is the first (it runs), false when the key is already
   * claimed (read it with `get`). Keys created before `expiredBefore` are forgotten first.
   */
  async claim(accountId: string, key: string, requestHash: string, at: string, expiredBefore: string): Promise<boolean> {
    await this.conn.q().deleteFrom("idempotency_keys").where("account_id", "=", accountId).where("key", "=", key).where("created_at", "<", expiredBefore).execute();
    // The insert alone decides (it is atomic on both engines): of two racing claims, only one inserts the row.
    const r = await this.conn
      .q()
      .insertInto("idempotency_keys")
      .values({ account_id: accountId, key, request_hash: requestHash, status: null, body: null, created_at: at })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async get(accountId: string, key: string): Promise<IdempotencyRecord | null> {
    const r = await this.conn
      .q()
      .selectFrom("idempotency_keys")
      .select(["request_hash", "status", "body", "created_at"])
      .where("account_id", "=", accountId)
      .where("key", "=", key)
      .executeTakeFirst();
    return r ? { requestHash: r.request_hash, status: r.status, body: r.body, createdAt: r.created_at } : null;
  }

  async answer(accountId: string, key: string, status: number, body: string): Promise<void> {
    await this.conn.q().updateTable("idempotency_keys").set({ status, body }).where("account_id", "=", accountId).where("key", "=", key).execute();
  }

  /** Forgets a key whose request failed on the service's side (5xx), so a retry runs it again. */
  async release(accountId: string, key: string): Promise<void> {
    await this.conn.q().deleteFrom("idempotency_keys").where("account_id", "=", accountId).where("key", "=", key).where("status", "is", null).execute();
  }

  /** Deletes keys created before `before` (run now and then; a claim also drops its own expired key). */
  async prune(before: string): Promise<number> {
    const r = await this.conn.q().deleteFrom("idempotency_keys").where("created_at", "<", before).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
