import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

export type Db = Database.Database;

/** A schema change: applied once, in order, inside a transaction. */
export type Migration = { version: number; name: string; sql: string };

/**
 * Migrations in code. Version 1 only creates the bookkeeping; the partner API's tables arrive with their
 * issue. Never edit an applied migration: add the next version.
 */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "service metadata", sql: "CREATE TABLE service_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;" },
];

/** Opens (creating if needed) the service's SQLite file in WAL mode and applies pending migrations. */
export function openDb(path: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT");
  const applied = new Set(db.prepare("SELECT version FROM schema_migrations").pluck().all() as number[]);
  const apply = db.transaction((m: Migration) => {
    db.exec(m.sql);
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(m.version, m.name, new Date().toISOString());
  });
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) if (!applied.has(m.version)) apply(m);
  return db;
}
