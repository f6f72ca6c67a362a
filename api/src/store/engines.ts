import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from "kysely";
import pg from "pg";
import { Connection, type Engine } from "./connection.js";
import { openDb, type Db } from "./db.js";
import { migratePostgres } from "./postgres.js";
import type { Database } from "./schema.js";

/** Where the store lives: a PostgreSQL URL (`postgres://` or `postgresql://`), else the path of a SQLite file. */
export function engineOf(location: string): Engine {
  return /^postgres(ql)?:\/\//i.test(location) ? "postgres" : "sqlite";
}

/** An opened store's connection, and SQLite's file handle when that is the engine (for tools that read it raw). */
export type Opened = { conn: Connection; sqlite: Db | null };

/**
 * Opens the store at `location` and brings its schema up to date: a SQLite file (created if missing; its
 * migrations in store/db.ts) or a PostgreSQL database (store/postgres.ts). Several processes may open one store.
 */
export async function openEngine(location: string): Promise<Opened> {
  if (engineOf(location) === "sqlite") {
    const db = openDb(location);
    return { conn: new Connection(new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: db }) }), "sqlite"), sqlite: db };
  }
  const pool = new pg.Pool({ connectionString: location, max: POOL_SIZE, types: { getTypeParser } });
  try {
    await migratePostgres(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return { conn: new Connection(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), "postgres"), sqlite: null };
}

/** Connections per process to PostgreSQL: a transaction holds one, reads share the rest. */
const POOL_SIZE = 10;

// PostgreSQL's bigint (int8) and numeric (SUM over bigint) arrive as strings by default; the store's integers (cents,
// counts, block numbers, epoch milliseconds) are all far below 2^53, so they are read as numbers, as SQLite gives them.
const INT8_OID = 20;
const NUMERIC_OID = 1700;
function getTypeParser(oid: number, format?: "text" | "binary"): (value: string) => unknown {
  if (oid === INT8_OID || oid === NUMERIC_OID) return Number;
  return pg.types.getTypeParser(oid, format ?? "text") as (value: string) => unknown;
}

/** SQLite's transactions begin IMMEDIATE: the write lock is taken at BEGIN, so two processes wait for each other. */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("BEGIN IMMEDIATE"));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly options: SqliteDialectConfig) {
    super(options);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.options);
  }
}
