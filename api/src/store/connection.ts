import { AsyncLocalStorage } from "node:async_hooks";
import type { Db } from "./db.js";

/**
 * The store's one connection, shared by every repository, with an asynchronous interface (issue 24: the same
 * interface will sit over PostgreSQL, whose driver is asynchronous).
 *
 * SQLite's calls are synchronous, but a transaction now spans awaits: between its statements other requests run.
 * They must not see its uncommitted rows nor write into it, so while a transaction is open on the connection,
 * every call from outside it waits until it ends (as a pooled driver hands each transaction its own connection).
 * Calls from inside it (found through AsyncLocalStorage, so they need no handle passed down) run at once.
 *
 * A call runs its SQL synchronously at the moment it is made when it may (no transaction open, or its own): a
 * write is in its place in the order of the caller's code even before its promise is awaited.
 */
export class Connection {
  private readonly scope = new AsyncLocalStorage<Scope>();
  /** The open transaction's scope, or null. */
  private open: Scope | null = null;
  /** Callers waiting for the open transaction to end, in order. */
  private readonly waiting: Array<() => void> = [];

  constructor(readonly db: Db) {}

  /** Runs `body` (synchronous SQL) when the connection is free for this caller, and resolves with its result. */
  run<T>(body: () => T): Promise<T> {
    if (this.mayRun()) return settle(body);
    return this.free().then(() => this.run(body));
  }

  /**
   * Runs `fn` in one transaction: begun IMMEDIATE (it takes SQLite's write lock at once, so two processes on one
   * file wait for each other instead of failing), committed when `fn` resolves, rolled back when it rejects. Inside
   * a transaction, a nested call is a savepoint: its failure undoes only its own writes.
   */
  async tx<T>(fn: () => Promise<T>): Promise<T> {
    const current = this.scope.getStore();
    if (current && current === this.open) return this.savepoint(current, fn);
    while (!this.mayRun()) await this.free();
    const scope: Scope = { savepoints: 0 };
    this.db.exec("BEGIN IMMEDIATE");
    this.open = scope;
    try {
      const result = await this.scope.run(scope, fn);
      this.db.exec("COMMIT");
      return result;
    } catch (error) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      throw error;
    } finally {
      this.open = null;
      this.wakeAll();
    }
  }

  /** Whether this caller is inside a transaction of this connection. */
  inTransaction(): boolean {
    const current = this.scope.getStore();
    return current !== undefined && current === this.open;
  }

  private async savepoint<T>(scope: Scope, fn: () => Promise<T>): Promise<T> {
    const name = `sp${++scope.savepoints}`;
    this.db.exec(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      this.db.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      this.db.exec(`ROLLBACK TO ${name}`);
      this.db.exec(`RELEASE ${name}`);
      throw error;
    }
  }

  private mayRun(): boolean {
    return this.open === null || this.scope.getStore() === this.open;
  }

  private free(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private wakeAll(): void {
    for (const wake of this.waiting.splice(0)) wake();
  }
}

type Scope = { savepoints: number };

function settle<T>(body: () => T): Promise<T> {
  try {
    return Promise.resolve(body());
  } catch (error) {
    return Promise.reject(error);
  }
}
