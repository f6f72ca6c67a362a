// The store's two schemas: PostgreSQL's baseline and later migrations (store/postgres.ts) must equal what SQLite's
// migrations 1 to 13 make (store/db.ts): tables, columns, keys, indexes, checks and the public_versions triggers. Also: the
// PostgreSQL migration is idempotent and safe when two processes start at once.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../api/src/store/db.js";
import { migratePostgres } from "../../api/src/store/postgres.js";
import { startPostgres, type Postgres } from "../support/postgres.js";

/** A table as both engines describe it; column types in PostgreSQL's words. */
type TableShape = {
  columns: { name: string; type: string; notNull: boolean; default: string | null }[];
  primaryKey: string[];
  unique: string[][];
  indexes: Record<string, string[]>;
  foreignKeys: { columns: string[]; references: string; referenced: string[]; onUpdate: string; onDelete: string }[];
  /** Each CHECK: its column and the values it allows (none for a comparison such as `id = 1`). */
  checks: { column: string; values: string[] }[];
  /** "name: AFTER INSERT" (PostgreSQL's triggers are FOR EACH ROW, as SQLite's always are). */
  triggers: string[];
};
type Schema = Record<string, TableShape>;

/** The database-assigned ids: SQLite's INTEGER PRIMARY KEY rowid aliases, PostgreSQL's identity columns. */
const ASSIGNED_IDS = [
  "alert_notices.id",
  "alerts.id",
  "campaign_pauses.id",
  "entries.seq",
  "mail_outbox.id",
  "pull_fetches.id",
  "staff_alerts.id",
  "webhook_attempts.id",
  "webhook_deliveries.id",
  "webhook_events.seq",
];

const SQLITE_TYPES: Record<string, string> = { TEXT: "text", INTEGER: "bigint", BLOB: "bytea" };
const FK_ACTIONS: Record<string, string> = { a: "NO ACTION", r: "RESTRICT", c: "CASCADE", n: "SET NULL", d: "SET DEFAULT" };

const byJson = <T>(items: T[]): T[] => [...items].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
const quoted = (text: string): string[] => [...text.matchAll(/'([^']*)'/g)].map((m) => m[1]!);

function emptyTable(): TableShape {
  return { columns: [], primaryKey: [], unique: [], indexes: {}, foreignKeys: [], checks: [], triggers: [] };
}

function sqliteSchema(db: Db): Schema {
  const schema: Schema = {};
  const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string; sql: string }[];
  for (const { name, sql } of tables) {
    const table = emptyTable();
    const columns = db.pragma(`table_info(${name})`) as { name: string; type: string; notnull: number; dflt_value: string | null; pk: number }[];
    // Every table is STRICT, where primary key columns are NOT NULL whether declared so or not.
    table.columns = columns.map((c) => ({ name: c.name, type: SQLITE_TYPES[c.type] ?? c.type, notNull: c.notnull === 1 || c.pk > 0, default: c.dflt_value }));
    table.primaryKey = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
    for (const index of db.pragma(`index_list(${name})`) as { name: string; origin: string }[]) {
      const indexColumns = (db.pragma(`index_info(${index.name})`) as { seqno: number; name: string }[]).sort((a, b) => a.seqno - b.seqno).map((c) => c.name);
      if (index.origin === "u") table.unique.push(indexColumns);
      if (index.origin === "c") table.indexes[index.name] = indexColumns;
    }
    const fks = new Map<number, TableShape["foreignKeys"][number]>();
    for (const fk of db.pragma(`foreign_key_list(${name})`) as { id: number; seq: number; table: string; from: string; to: string; on_update: string; on_delete: string }[]) {
      const entry = fks.get(fk.id) ?? { columns: [], references: fk.table, referenced: [], onUpdate: fk.on_update, onDelete: fk.on_delete };
      entry.columns[fk.seq] = fk.from;
      entry.referenced[fk.seq] = fk.to;
      fks.set(fk.id, entry);
    }
    table.foreignKeys = byJson([...fks.values()]);
    // ALTER TABLE ADD COLUMN appends to the stored CREATE TABLE text, so it holds every CHECK.
    table.checks = byJson([...sql.matchAll(/CHECK \((\w+)(?: IN \(([^)]*)\))?/g)].map((m) => ({ column: m[1]!, values: quoted(m[2] ?? "") })));
    table.unique = byJson(table.unique);
    schema[name] = table;
  }
  const triggers = db.prepare("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'").all() as { name: string; tbl_name: string; sql: string }[];
  for (const { name, tbl_name, sql } of triggers) schema[tbl_name]?.triggers.push(`${name}: ${/\b(BEFORE|AFTER) (INSERT|UPDATE|DELETE) ON\b/.exec(sql)?.slice(1, 3).join(" ")}`);
  for (const table of Object.values(schema)) table.triggers.sort();
  return schema;
}

async function postgresSchema(pool: pg.Pool): Promise<Schema> {
  const schema: Schema = {};
  const table = (name: string): TableShape => (schema[name] ??= emptyTable());
  const tables = await pool.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
  );
  for (const row of tables.rows) table(row.table_name);
  const columns = await pool.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string; column_default: string | null }>(
    `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
     WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  for (const c of columns.rows) {
    table(c.table_name).columns.push({ name: c.column_name, type: c.data_type, notNull: c.is_nullable === "NO", default: c.column_default });
  }
  const constraints = await pool.query<{ table: string; contype: string; columns: string[]; references: string; referenced: string[]; confupdtype: string; confdeltype: string; def: string }>(
    `SELECT t.relname AS table, c.contype, c.confupdtype, c.confdeltype, pg_get_constraintdef(c.oid) AS def,
       array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n)
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns,
       coalesce((SELECT r.relname::text FROM pg_class r WHERE r.oid = c.confrelid), '') AS references,
       array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(attnum, n)
             JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.n) AS referenced
     FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace s ON s.oid = t.relnamespace
     WHERE s.nspname = current_schema()`,
  );
  for (const c of constraints.rows) {
    const shape = table(c.table);
    if (c.contype === "p") shape.primaryKey = c.columns;
    if (c.contype === "u") shape.unique.push(c.columns);
    if (c.contype === "f") {
      shape.foreignKeys.push({ columns: c.columns, references: c.references, referenced: c.referenced, onUpdate: FK_ACTIONS[c.confupdtype]!, onDelete: FK_ACTIONS[c.confdeltype]! });
    }
    if (c.contype === "c") shape.checks.push({ column: c.columns.join(","), values: quoted(c.def) });
  }
  // Indexes made by CREATE INDEX: those not backing a primary key or unique constraint.
  const indexes = await pool.query<{ name: string; table: string; columns: string[] }>(
    `SELECT x.relname AS name, t.relname AS table,
       array(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, n)
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns
     FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
     JOIN pg_namespace s ON s.oid = t.relnamespace
     WHERE s.nspname = current_schema()
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.contype IN ('p', 'u'))`,
  );
  for (const i of indexes.rows) table(i.table).indexes[i.name] = i.columns;
  const triggers = await pool.query<{ name: string; table: string; timing: string; event: string; orientation: string }>(
    `SELECT trigger_name AS name, event_object_table AS table, action_timing AS timing, event_manipulation AS event,
       action_orientation AS orientation
     FROM information_schema.triggers WHERE trigger_schema = current_schema()`,
  );
  for (const g of triggers.rows) table(g.table).triggers.push(`${g.name}: ${g.timing} ${g.event}${g.orientation === "ROW" ? "" : " FOR EACH STATEMENT"}`);
  for (const shape of Object.values(schema)) {
    shape.unique = byJson(shape.unique);
    shape.foreignKeys = byJson(shape.foreignKeys);
    shape.checks = byJson(shape.checks);
    shape.triggers.sort();
  }
  return schema;
}

let postgres: Postgres;
let dir: string;
const pools: pg.Pool[] = [];
const sqlites: Db[] = [];
let databases = 0;

/** A new, empty PostgreSQL database and a pool on it (ended in afterAll). */
async function freshDatabase(): Promise<{ url: string; pool: pg.Pool }> {
  const name = `schema_${++databases}`;
  await postgres.query(`CREATE DATABASE ${name}`);
  const url = postgres.url.replace(/\/postgres$/, `/${name}`);
  return { url, pool: newPool(url) };
}

function newPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pools.push(pool);
  return pool;
}

function freshSqlite(): Db {
  const db = openDb(path.join(dir, `store-${sqlites.length}.db`));
  sqlites.push(db);
  return db;
}

async function versions(pool: pg.Pool): Promise<{ version: number; name: string; applied_at: string }[]> {
  const { rows } = await pool.query<{ version: string; name: string; applied_at: string }>("SELECT version, name, applied_at FROM schema_migrations ORDER BY version");
  return rows.map((r) => ({ ...r, version: Number(r.version) }));
}

/** SQLite's recorded migrations: version and name. */
function sqliteVersions(db: Db): { version: number; name: string }[] {
  return db.prepare("SELECT version, name FROM schema_migrations ORDER BY version").all() as { version: number; name: string }[];
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "prizedraw-schema-"));
  postgres = await startPostgres();
});

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  for (const db of sqlites) db.close();
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("PostgreSQL's baseline schema", () => {
  it("equals SQLite's after migrations 1 to 13: tables, columns, keys, indexes, checks, triggers", async () => {
    const { pool } = await freshDatabase();
    await migratePostgres(pool);
    const expected = sqliteSchema(freshSqlite());
    expect(Object.keys(expected).length).toBeGreaterThan(25); // the SQLite side was read
    expect(expected.campaigns?.triggers).toEqual(["public_version_campaign_insert: AFTER INSERT", "public_version_campaign_update: AFTER UPDATE"]);
    expect(await postgresSchema(pool)).toEqual(expected);
  });

  it("stores every text column with the C collation and numbers the assigned ids by identity", async () => {
    const { pool } = await freshDatabase();
    await migratePostgres(pool);
    const textColumns = Object.values(sqliteSchema(freshSqlite())).flatMap((t) => t.columns.filter((c) => c.type === "text"));
    const { rows } = await pool.query<{ table_name: string; column_name: string; collation_name: string | null; is_identity: string; data_type: string }>(
      `SELECT table_name, column_name, collation_name, is_identity, data_type FROM information_schema.columns
       WHERE table_schema = current_schema() ORDER BY table_name, column_name`,
    );
    const text = rows.filter((r) => r.data_type === "text");
    expect(text).toHaveLength(textColumns.length);
    expect(text.filter((r) => r.collation_name !== "C").map((r) => `${r.table_name}.${r.column_name}`)).toEqual([]);
    expect(rows.filter((r) => r.is_identity === "YES").map((r) => `${r.table_name}.${r.column_name}`)).toEqual(ASSIGNED_IDS);
  });
});

describe("migratePostgres", () => {
  it("records versions 1 to 13 with SQLite's names, and leaves a migrated database alone", async () => {
    const { pool } = await freshDatabase();
    await migratePostgres(pool);
    const first = await versions(pool);
    expect(first.map(({ version, name }) => ({ version, name }))).toEqual(sqliteVersions(freshSqlite()));
    expect(first.map((v) => v.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    await pool.query("INSERT INTO service_meta (key, value) VALUES ('kept', 'yes')");
    await migratePostgres(pool);
    expect(await versions(pool)).toEqual(first);
    expect((await pool.query("SELECT value FROM service_meta WHERE key = 'kept'")).rows).toEqual([{ value: "yes" }]);
  });

  it("migrates once when two processes start at once", async () => {
    const { url, pool } = await freshDatabase();
    await Promise.all([migratePostgres(pool), migratePostgres(newPool(url))]);
    expect((await versions(pool)).map((v) => v.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
  });

  it("refuses a database at a newer version, naming both versions, and changes nothing", async () => {
    const { pool } = await freshDatabase();
    await migratePostgres(pool);
    await pool.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (14, 'from the future', 'x')");
    await expect(migratePostgres(pool)).rejects.toThrow(/version 14\b.*version 13\b/);
    expect((await versions(pool)).map((v) => v.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
  });
});

/** One engine, driven with raw SQL: `?` placeholders (numbered for PostgreSQL). */
type Engine = { exec: (sql: string, params?: unknown[]) => Promise<void>; version: (campaignId: string) => Promise<number | null> };

function sqliteEngine(db: Db): Engine {
  return {
    exec: async (sql, params = []) => {
      db.prepare(sql).run(...params);
    },
    version: async (campaignId) => (db.prepare("SELECT version FROM public_versions WHERE campaign_id = ?").pluck().get(campaignId) as number | undefined) ?? null,
  };
}

function postgresEngine(pool: pg.Pool): Engine {
  const numbered = (sql: string): string => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  return {
    exec: async (sql, params = []) => {
      await pool.query(numbered(sql), params);
    },
    version: async (campaignId) => {
      const { rows } = await pool.query<{ version: string }>("SELECT version FROM public_versions WHERE campaign_id = $1", [campaignId]);
      return rows[0] === undefined ? null : Number(rows[0].version);
    },
  };
}

const AT = "2025-01-01T00:00:00.000Z";
const CAMPAIGN = `INSERT INTO campaigns (id, account_id, slug, name, mode, status, schedule_json, winners_per_draw, large_prize_threshold_cents,
  table_id, table_version, created_at, updated_at) VALUES (?, 'acc', ?, 'Daily', 'push', 'draft', '{}', 1, 100000, 'default', 1, ?, ?)`;
const DRAWING = `INSERT INTO drawings (id, campaign_id, draw_at, cutoff_at, status, winners_expected, table_id, table_version, created_at)
  VALUES (?, 'c1', ?, ?, 'open', 1, 'default', 1, ?)`;

/** Writes that touch what the public reads show, and campaign c1's public version after each. */
async function publicVersionSequence(engine: Engine): Promise<Record<string, number | null>> {
  const seen: Record<string, number | null> = {};
  const step = async (label: string, sql: string, params: unknown[] = []): Promise<void> => {
    await engine.exec(sql, params);
    seen[label] = await engine.version("c1");
  };
  await step("account and prize table", "INSERT INTO accounts (id, created_at) VALUES ('acc', ?)", [AT]);
  await engine.exec("INSERT INTO prize_tables (table_id, version, tiers_json, denominator, created_at) VALUES ('default', 1, '[]', 1, ?)", [AT]);
  await step("campaign inserted", CAMPAIGN, ["c1", "daily", AT, AT]);
  await step("campaign updated", "UPDATE campaigns SET name = 'Daily draw' WHERE id = 'c1'");
  await step("drawing inserted", DRAWING, ["d1", AT, AT, AT]);
  await step("winner inserted", "INSERT INTO winners (drawing_id, position, winner_id) VALUES ('d1', 0, 'w1')");
  await step("winner updated", "UPDATE winners SET display_name = 'Ada' WHERE drawing_id = 'd1'");
  await step("drawing updated", "UPDATE drawings SET status = 'locked' WHERE id = 'd1'");
  await step("logo inserted", "INSERT INTO campaign_logos (campaign_id, bytes, content_type, etag, updated_at) VALUES ('c1', ?, 'image/png', 'e1', ?)", [Buffer.from([0x89, 0x50, 0x4e, 0x47]), AT]);
  await step("logo updated", "UPDATE campaign_logos SET etag = 'e2' WHERE campaign_id = 'c1'");
  await step("logo deleted", "DELETE FROM campaign_logos WHERE campaign_id = 'c1'");
  await step("winner deleted", "DELETE FROM winners WHERE drawing_id = 'd1'");
  await step("another campaign inserted", CAMPAIGN, ["c2", "weekly", AT, AT]);
  await step("its drawing inserted", DRAWING.replace("'c1'", "'c2'"), ["d2", AT, AT, AT]);
  await engine.exec("INSERT INTO winners (drawing_id, position, winner_id) VALUES ('d1', 0, 'w2')");
  await step("drawing with a winner deleted", "DELETE FROM drawings WHERE id = 'd1'");
  seen["c2"] = await engine.version("c2");
  return seen;
}

describe("the public_versions triggers", () => {
  it("bump the same versions on both engines", async () => {
    const expected = {
      "account and prize table": null,
      "campaign inserted": 1,
      "campaign updated": 2,
      "drawing inserted": 3,
      "winner inserted": 4,
      "winner updated": 5,
      "drawing updated": 6,
      "logo inserted": 7,
      "logo updated": 8,
      "logo deleted": 9,
      "winner deleted": 10,
      "another campaign inserted": 10,
      "its drawing inserted": 10,
      // 11 is the re-inserted winner; deleting the drawing bumps once (its winner's cascaded delete finds no drawing).
      "drawing with a winner deleted": 12,
      c2: 2,
    };
    const { pool } = await freshDatabase();
    await migratePostgres(pool);
    expect(await publicVersionSequence(sqliteEngine(freshSqlite()))).toEqual(expected);
    expect(await publicVersionSequence(postgresEngine(pool))).toEqual(expected);
  });
});
