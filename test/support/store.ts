// Tests that read or write the store's SQLite file directly (sqlite_master, rowid, a row forced into a state no
// repository method writes) need the SQLite store: this hands them its file's handle, or fails saying so.

import type { Db } from "../../api/src/store/db.js";
import type { Store } from "../../api/src/store/index.js";

/** The store's SQLite file handle; throws on a PostgreSQL store. */
export function rawSqlite(store: Pick<Store, "sqlite">): Db {
  if (store.sqlite === null) throw new Error("this test reads the store's SQLite file directly: it needs the SQLite store, not PostgreSQL (STORE_URL)");
  return store.sqlite;
}
