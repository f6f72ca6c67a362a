// The store's connection: Kysely over either engine, here SQLite (a temporary file, opened as the store
// opens it). A transaction spans awaits: while it is open, a caller from outside it waits and never sees its
// uncommitted rows; callers inside it find it through AsyncLocalStorage; a nested transaction is a savepoint; a
// callback that outlives its transaction runs outside it.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Connection } from "../../api/src/store/connection.js";
import { openEngine } from "../../api/src/store/engines.js";

let dir: string;
let conn: Connection;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "connection-test-"));
  const opened = await openEngine(path.join(dir, "store.sqlite"));
  conn = opened.conn;
  // A table of the test's own, beside the store's (raw SQL on the file's handle, before any transaction).
  if (opened.sqlite === null) throw new Error("openEngine on a file path should open SQLite");
  opened.sqlite.exec("CREATE TABLE test_rows (name TEXT PRIMARY KEY) STRICT");
});

afterEach(async () => {
  await conn.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The caller's query builder (its transaction's inside `tx`, else the store's), knowing the test's table. (Not
 * kysely's `sql` here: the tests' `kysely` resolves to another copy, Ponder's, than the api's.)
 */
const q = () => conn.q().withTables<{ test_rows: { name: string } }>();

async function insert(name: string): Promise<void> {
  await q().insertInto("test_rows").values({ name }).execute();
}

/** The rows, as the caller sees them. */
async function names(): Promise<string[]> {
  return (await q().selectFrom("test_rows").select("name").orderBy("name").execute()).map((r) => r.name);
}

/** A promise and the function that resolves it: a transaction body waits on it while the test looks around. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** Lets every pending callback and timer of this turn run. */
function settle(ms = 5): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe("Connection", () => {
  it("is SQLite for a file path", () => {
    expect(conn.engine).toBe("sqlite");
  });

  it("a read outside an open transaction does not see its uncommitted write: it waits, then sees the committed row", async () => {
    const events: string[] = [];
    const { opened, open } = gate();
    const transaction = conn.tx(async () => {
      await insert("a");
      expect(await names()).toEqual(["a"]); // inside, its own write is visible
      events.push("tx wrote");
      await opened;
      events.push("tx ends");
    });
    while (!events.includes("tx wrote")) await settle(1);
    // Started from outside the transaction (the test's own context), while it is open.
    const outside = names().then((rows) => {
      events.push("outside read");
      return rows;
    });
    await settle(20);
    expect(events).toEqual(["tx wrote"]); // the outside read has not answered while the transaction is open
    open();
    await transaction;
    expect(await outside).toEqual(["a"]);
    expect(events).toEqual(["tx wrote", "tx ends", "outside read"]);
  });

  it("a rejected transaction leaves nothing", async () => {
    const failure = new Error("body failed");
    await expect(
      conn.tx(async () => {
        await insert("a");
        await settle();
        await insert("b");
        expect(await names()).toEqual(["a", "b"]);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await names()).toEqual([]);
    expect(conn.inTransaction()).toBe(false);
    // The connection is free again: a later transaction commits.
    await conn.tx(async () => insert("c"));
    expect(await names()).toEqual(["c"]);
  });

  it("a nested transaction that rejects, caught by the outer, undoes only its own writes", async () => {
    const caught: unknown[] = [];
    await conn.tx(async () => {
      await insert("before");
      try {
        await conn.tx(async () => {
          await insert("inner");
          expect(await names()).toEqual(["before", "inner"]);
          await settle();
          throw new Error("inner failed");
        });
      } catch (error) {
        caught.push(error);
      }
      expect(conn.inTransaction()).toBe(true);
      expect(await names()).toEqual(["before"]);
      await insert("after");
    });
    expect(caught).toHaveLength(1);
    expect(await names()).toEqual(["after", "before"]);
  });

  it("a nested transaction that resolves keeps its writes with the outer's", async () => {
    await conn.tx(async () => {
      await insert("outer");
      await conn.tx(async () => insert("inner"));
    });
    expect(await names()).toEqual(["inner", "outer"]);
  });

  it("two transactions started at once run one after the other: the second sees the first's committed rows", async () => {
    const events: string[] = [];
    const body = (name: string) => async (): Promise<string[]> => {
      events.push(`${name} begins`);
      for (let i = 0; i < 3; i++) {
        await insert(`${name}${i}`);
        await settle();
      }
      const rows = await names();
      events.push(`${name} ends`);
      return rows;
    };
    const [first, second] = await Promise.all([conn.tx(body("a")), conn.tx(body("b"))]);
    expect(events).toEqual(["a begins", "a ends", "b begins", "b ends"]);
    expect(first).toEqual(["a0", "a1", "a2"]); // b wrote nothing while a was open
    expect(second).toEqual(["a0", "a1", "a2", "b0", "b1", "b2"]);
  });

  it("a callback that outlives its transaction runs outside it: its write is its own, not the ended transaction's nor a later one's", async () => {
    let late: Promise<{ inTransaction: boolean; sameBuilder: boolean }> | undefined;
    const fired = gate();
    const release = gate();
    await conn.tx(async () => {
      const inside = conn.q();
      await insert("tx");
      // Started inside the transaction (the timer inherits its async context); fires after the commit, and writes
      // once the test releases it, while a later transaction is open.
      setTimeout(() => {
        late = (async () => {
          fired.open();
          await release.opened;
          const seen = { inTransaction: conn.inTransaction(), sameBuilder: conn.q() === inside };
          await insert("late");
          return seen;
        })();
      }, 0);
    });
    await fired.opened;
    expect(await names()).toEqual(["tx"]);
    // The later transaction rolls back: the late write, made while it was open, is not part of it.
    await expect(
      conn.tx(async () => {
        await insert("rolled back");
        release.open();
        await settle(20);
        throw new Error("later transaction failed");
      }),
    ).rejects.toThrow("later transaction failed");
    expect(await late).toEqual({ inTransaction: false, sameBuilder: false });
    expect(await names()).toEqual(["late", "tx"]);
  });
});
