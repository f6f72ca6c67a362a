import { AsyncLocalStorage } from "node:async_hooks";
import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "./schema.js";

/** The store's two engines (store/engines.ts opens either). */
export type Engine = "sqlite" | "postgres";

/** The key of the PostgreSQL advisory lock every store transaction takes (any constant; "prizedraw" in ASCII). */
const WRITE_LOCK_KEY = 0x7072697a6564;

/**
 * The store's connection to its database, for every repository: the query builder to use (`q()`) and transactions
 * (`tx`). Queries are written once with Kysely and run on either engine.
 *
 * A transaction takes the store's write lock first, so store transactions run one at a time, across every process
 * on the store, as SQLite always did: BEGIN IMMEDIATE on SQLite (engines.ts), `pg_advisory_xact_lock` on
 * PostgreSQL. The rules that read and then write (the entrant cap, one guarantee pick, a drawing's next number)
 * rely on it. Reads outside a transaction see committed rows only (SQLite: its one connection waits while a
 * transaction holds it; PostgreSQL: read committed on another pooled connection).
 *
 * Inside `tx`, repositories find the transaction through AsyncLocalStorage, so nothing passes a handle down. Every
 * call must be awaited inside it (scripts/floating-promises.mts checks): a call still running when the function
 * resolves would run after the commit, or fail.
 */
export class Connection {
  private readonly scope = new AsyncLocalStorage<Scope>();

  constructor(
    private readonly kysely: Kysely<Database>,
    readonly engine: Engine,
  ) {}

  /** The query builder for this caller: its transaction's inside `tx`, else the store's. */
  q(): Kysely<Database> {
    return this.current()?.trx ?? this.kysely;
  }

  /**
   * Runs `fn` in one transaction (committed when it resolves, rolled back when it rejects). Nested inside another,
   * it is a savepoint: its failure undoes only its own writes. Do not run two nested calls at once.
   */
  tx<T>(fn: () => Promise<T>): Promise<T> {
    const current = this.current();
    if (current) return this.savepoint(current, fn);
    return this.kysely.transaction().execute(async (trx) => {
      if (this.engine === "postgres") await sql`SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`.execute(trx);
      const scope: Scope = { trx, savepoints: 0, open: true };
      try {
        return await this.scope.run(scope, fn);
      } finally {
        scope.open = false;
      }
    });
  }

  /** Whether this caller is inside a transaction of this connection. */
  inTransaction(): boolean {
    return this.current() !== null;
  }

  /** Closes the database (SQLite's file, PostgreSQL's pool). */
  close(): Promise<void> {
    return this.kysely.destroy();
  }

  /** The caller's open transaction (a timer started inside one that has ended since is outside it). */
  private current(): Scope | null {
    const scope = this.scope.getStore();
    return scope?.open ? scope : null;
  }

  private async savepoint<T>(scope: Scope, fn: () => Promise<T>): Promise<T> {
    const name = sql.raw(`sp${++scope.savepoints}`);
    await sql`SAVEPOINT ${name}`.execute(scope.trx);
    try {
      const result = await fn();
      await sql`RELEASE SAVEPOINT ${name}`.execute(scope.trx);
      return result;
    } catch (error) {
      await sql`ROLLBACK TO SAVEPOINT ${name}`.execute(scope.trx);
      await sql`RELEASE SAVEPOINT ${name}`.execute(scope.trx);
      throw error;
    }
  }
}

type Scope = { trx: Transaction<Database>; savepoints: number; open: boolean };
