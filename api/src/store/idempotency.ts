import type { Connection } from "./connection.js";
import type { Db } from "./db.js";

/** How long an answer is kept and replayed. */
export const IDEMPOTENCY_TTL_HOURS = 24;

/** A stored Idempotency-Key: the request it was first used with and, once answered, the answer. */
export type IdempotencyRecord = { requestHash: string; status: number | null; body: string | null; createdAt: string };

/** Idempotency keys of the partner API's POSTs (http/idempotency.ts). */
export class IdempotencyStore {
  constructor(private readonly conn: Connection) {}

  private get db(): Db {
    return this.conn.db;
  }

  /**
   * Claims a key for a request: true when this request is the first (it runs), false when the key is already
   * claimed (read it with `get`). Keys created before `expiredBefore` are forgotten first.
   */
  claim(accountId: string, key: string, requestHash: string, at: string, expiredBefore: string): Promise<boolean> {
    return this.conn.run(() => {
      this.db.prepare("DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND created_at < ?").run(accountId, key, expiredBefore);
      return this.db.prepare("INSERT INTO idempotency_keys (account_id, key, request_hash, status, body, created_at) VALUES (?, ?, ?, NULL, NULL, ?) ON CONFLICT DO NOTHING").run(accountId, key, requestHash, at).changes === 1;
    });
  }

  get(accountId: string, key: string): Promise<IdempotencyRecord | null> {
    return this.conn.run(() => {
      const r = this.db.prepare("SELECT request_hash, status, body, created_at FROM idempotency_keys WHERE account_id = ? AND key = ?").get(accountId, key) as
        | { request_hash: string; status: number | null; body: string | null; created_at: string }
        | undefined;
      return r ? { requestHash: r.request_hash, status: r.status, body: r.body, createdAt: r.created_at } : null;
    });
  }

  answer(accountId: string, key: string, status: number, body: string): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("UPDATE idempotency_keys SET status = ?, body = ? WHERE account_id = ? AND key = ?").run(status, body, accountId, key);
    });
  }

  /** Forgets a key whose request failed on the service's side (5xx), so a retry runs it again. */
  release(accountId: string, key: string): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND status IS NULL").run(accountId, key);
    });
  }

  /** Deletes keys created before `before` (run now and then; a claim also drops its own expired key). */
  prune(before: string): Promise<number> {
    return this.conn.run(() => {
      return this.db.prepare("DELETE FROM idempotency_keys WHERE created_at < ?").run(before).changes;
    });
  }
}
