import type { Connection } from "./connection.js";

/** A lease as stored: who holds it, until when, since when (milliseconds since the epoch). */
export type Lease = { name: string; holder: string; expiresAt: number; acquiredAt: number };

/**
 * Named leases: at most one holder of a name at a time, for a limited time (the keeper's lease, keeper/lease.ts).
 * Taking one is a store transaction, which holds the store's write lock (store/connection.ts) from before its read,
 * so two processes on one store never both take a lease: the second waits for the first and then sees its row.
 */
export class LeaseStore {
  constructor(private readonly conn: Connection) {}

  /**
   * Takes the lease `name` for `holder` until `now + ttlMs` when it is free, expired, already the holder's (a
   * renewal), or held by a holder `gone` says has died (a process of this machine that no longer runs: no need to
   * wait for its expiry). Returns whether `holder` holds it now.
   */
  acquire(name: string, holder: string, now: number, ttlMs: number, gone: (holder: string) => boolean = () => false): Promise<boolean> {
    // The write lock is held before the read (a savepoint when nested: the outer transaction holds it).
    return this.conn.tx(async () => {
      const current = await this.current(name);
      if (current && current.holder !== holder && current.expiresAt > now && !gone(current.holder)) return false;
      const acquiredAt = current?.holder === holder ? current.acquiredAt : now;
      await this.conn
        .q()
        .insertInto("leases")
        .values({ name, holder, expires_at: now + ttlMs, acquired_at: acquiredAt })
        .onConflict((oc) =>
          oc.column("name").doUpdateSet((eb) => ({
            holder: eb.ref("excluded.holder"),
            expires_at: eb.ref("excluded.expires_at"),
            acquired_at: eb.ref("excluded.acquired_at"),
          })),
        )
        .execute();
      return true;
    });
  }

  /** Gives the lease up if `holder` holds it (a clean stop: a standby need not wait for the expiry). */
  async release(name: string, holder: string): Promise<boolean> {
    const r = await this.conn.q().deleteFrom("leases").where("name", "=", name).where("holder", "=", holder).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** The lease as stored (possibly expired), or null when nobody has it. */
  async current(name: string): Promise<Lease | null> {
    const r = await this.conn.q().selectFrom("leases").select(["name", "holder", "expires_at", "acquired_at"]).where("name", "=", name).executeTakeFirst();
    return r ? { name: r.name, holder: r.holder, expiresAt: r.expires_at, acquiredAt: r.acquired_at } : null;
  }
}
