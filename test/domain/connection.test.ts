// The store's connection (issue 24): an asynchronous interface over better-sqlite3's one connection. A transaction
// spans awaits, so while it is open every caller from outside it waits; calls from inside it run at once, at the
// moment they are made; a nested transaction is a savepoint.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Connection } from "../../api/src/store/connection.js";
import { openDb, type Db, type Migration } from "../../api/src/store/db.js";

const SCHEMA: readonly Migration[] = [{ version: 1, name: "rows", sql: "CREATE TABLE rows (name TEXT PRIMARY KEY) STRICT;" }];

let db: Db;
let conn: Connection;

beforeEach(() => {
  db = openDb(":memory:", SCHEMA);
  conn = new Connection(db);
});

afterEach(() => {
  db.close();
});

function insert(name: string): void {
  db.prepare("INSERT INTO rows (name) VALUES (?)").run(name);
}

function names(): string[] {
  return db.prepare("SELECT name FROM rows ORDER BY name").pluck().all() as string[];
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
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5));
}

describe("Connection", () => {
  it("a caller outside an open transaction does not see its uncommitted write: it waits, then sees the committed row", async () => {
    const events: string[] = [];
    const { opened, open } = gate();
    const transaction = conn.tx(async () => {
      insert("a");
      events.push("tx wrote");
      await opened;
      events.push("tx ends");
    });
    const outside = conn.run(() => {
      events.push("outside read");
      return { rows: names(), inTransaction: db.inTransaction };
    });
    await settle();
    expect(events).toEqual(["tx wrote"]); // the outside read has not run while the transaction is open
    open();
    await transaction;
    expect(await outside).toEqual({ rows: ["a"], inTransaction: false });
    expect(events).toEqual(["tx wrote", "tx ends", "outside read"]);
  });

  it("a rejected transaction leaves nothing", async () => {
    const failure = new Error("body failed");
    await expect(
      conn.tx(async () => {
        insert("a");
        await conn.run(() => insert("b"));
        await settle();
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(names()).toEqual([]);
    expect(db.inTransaction).toBe(false);
    // The connection is free again: a later transaction commits.
    await conn.tx(async () => conn.run(() => insert("c")));
    expect(names()).toEqual(["c"]);
  });

  it("a nested transaction that rejects, caught by the outer, undoes only its own writes", async () => {
    const caught: unknown[] = [];
    await conn.tx(async () => {
      await conn.run(() => insert("before"));
      try {
        await conn.tx(async () => {
          await conn.run(() => insert("inner"));
          await settle();
          throw new Error("inner failed");
        });
      } catch (error) {
        caught.push(error);
      }
      expect(conn.inTransaction()).toBe(true);
      await conn.run(() => insert("after"));
    });
    expect(caught).toHaveLength(1);
    expect(names()).toEqual(["after", "before"]);
    expect(db.inTransaction).toBe(false);
  });

  it("a write made with run() inside a transaction and not awaited runs at call time, before the commit", async () => {
    const seen: Array<{ inTransaction: boolean }> = [];
    let pending: Promise<void> | undefined;
    await conn.tx(async () => {
      pending = conn.run(() => {
        seen.push({ inTransaction: db.inTransaction });
        insert("a");
      });
      expect(names()).toEqual(["a"]); // already written, synchronously, before anything was awaited
    });
    expect(seen).toEqual([{ inTransaction: true }]);
    expect(names()).toEqual(["a"]);
    await pending;

    // It is part of the transaction: when the transaction rejects, the write is undone with it.
    let later: Promise<void> | undefined;
    await expect(
      conn.tx(async () => {
        later = conn.run(() => insert("b"));
        throw new Error("body failed");
      }),
    ).rejects.toThrow("body failed");
    await later;
    expect(names()).toEqual(["a"]);
  });

  it("two transactions started at once run one after the other: their bodies never interleave", async () => {
    const events: string[] = [];
    const body = (name: string) => async (): Promise<string[]> => {
      events.push(`${name} begins`);
      for (let i = 0; i < 3; i++) {
        await conn.run(() => insert(`${name}${i}`));
        await settle();
      }
      const rows = await conn.run(() => names());
      events.push(`${name} ends`);
      return rows;
    };
    const [first, second] = await Promise.all([conn.tx(body("a")), conn.tx(body("b"))]);
    expect(events).toEqual(["a begins", "a ends", "b begins", "b ends"]);
    expect(first).toEqual(["a0", "a1", "a2"]); // b wrote nothing while a was open
    expect(second).toEqual(["a0", "a1", "a2", "b0", "b1", "b2"]);
  });
});
