import type { Connection } from "./connection.js";
import type { Db } from "./db.js";

/** A lease as stored: who holds it, until when, since when (milliseconds since the epoch). */
export type Lease = { name: string; holder: string; expiresAt: number; acquiredAt: number };

/**
 * Named leases: at most one holder of a name at a time, for a limited time (the keeper's lease, keeper/lease.ts).
 * Every change is one IMMEDIATE transaction, so two processes on one SQLite file never both take a lease: the
 * second waits for the first's write lock and then sees its row.
 */
export class LeaseStore {
  constructor(private readonly conn: Connection) {}

  private get db(): Db {
    return this.conn.db;
  }

  /**
   * Takes the lease `name` for `holder` until `now + ttlMs` when it is free, expired, already the holder's (a
   * renewal), or held by a holder `gone` says has died (a process of this machine that no longer runs: no need to
   * wait for its expiry). Returns whether `holder` holds it now.
   */
  acquire(name: string, holder: string, now: number, ttlMs: number, gone: (holder: string) => boolean = () => false): Promise<boolean> {
    // conn.tx begins IMMEDIATE (a savepoint when nested): the write lock is held before the read.
    return this.conn.tx(async () => {
      const current = this.read(name);
      if (current && current.holder !== holder && current.expiresAt > now && !gone(current.holder)) return false;
      const acquiredAt = current?.holder === holder ? current.acquiredAt : now;
      this.db
        .prepare(
          "INSERT INTO leases (name, holder, expires_at, acquired_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at, acquired_at = excluded.acquired_at",
        )
        .run(name, holder, now + ttlMs, acquiredAt);
      return true;
    });
  }

  /** Gives the lease up if `holder` holds it (a clean stop: a standby need not wait for the expiry). */
  release(name: string, holder: string): Promise<boolean> {
    return this.conn.run(() => {
      return this.db.prepare("DELETE FROM leases WHERE name = ? AND holder = ?").run(name, holder).changes > 0;
    });
  }

  /** The lease as stored (possibly expired), or null when nobody has it. */
  current(name: string): Promise<Lease | null> {
    return this.conn.run(() => this.read(name));
  }

  private read(name: string): Lease | null {
    const r = this.db.prepare("SELECT name, holder, expires_at, acquired_at FROM leases WHERE name = ?").get(name) as
      | { name: string; holder: string; expires_at: number; acquired_at: number }
      | undefined;
    return r ? { name: r.name, holder: r.holder, expiresAt: r.expires_at, acquiredAt: r.acquired_at } : null;
  }
}
