// Store helpers for tests: the SQLite file's handle for tests that read or write it directly (sqlite_master, rowid,
// a row forced into a state no repository method writes), and a store on each engine for store-level tests.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { Db } from "../../api/src/store/db.js";
import { type Store } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import { startPostgres, type Postgres } from "./postgres.js";

/** The store's SQLite file handle; throws on a PostgreSQL store. */
export function rawSqlite(store: Pick<Store, "sqlite">): Db {
  if (store.sqlite === null) throw new Error("this test reads the store's SQLite file directly: it needs the SQLite store, not PostgreSQL (STORE_URL)");
  return store.sqlite;
}

export const ENGINES = ["sqlite", "postgres"] as const;
export type EngineStores = Record<(typeof ENGINES)[number], Store>;

/**
 * A store on each engine for the calling test file: a temporary SQLite file and a private PostgreSQL server, opened
 * before its tests and removed after them. The object is filled in beforeAll.
 */
export function storesOnBothEngines(name: string): EngineStores {
  const stores = {} as EngineStores;
  let dir: string;
  let postgres: Postgres | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), `${name}-`));
    postgres = await startPostgres();
    stores.sqlite = await openServiceStore(path.join(dir, "store.sqlite"));
    stores.postgres = await openServiceStore(postgres.url);
  }, 60_000);
  afterAll(async () => {
    for (const store of Object.values(stores)) await store.close();
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return stores;
}
