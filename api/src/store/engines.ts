import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from "kysely";
import { existsSync } from "node:fs";
import pg from "pg";
import { logger } from "../logger.js";
import { Connection, type Engine } from "./connection.js";
import { openDb, type Db } from "./db.js";
import { StoreMissingError, migratePostgres } from "./postgres.js";
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
 * `create: false` (the CLI): a missing file, or a database without this service's tables, is a StoreMissingError
 * and nothing is created.
 */
export async function openEngine(location: string, options: { create?: boolean } = {}): Promise<Opened> {
  if (engineOf(location) === "sqlite") {
    if (options.create === false && !existsSync(location)) throw new StoreMissingError(`no store file at ${location}`);
    const db = openDb(location);
    return { conn: new Connection(new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: db }) }), "sqlite"), sqlite: db };
  }
  const pool = new pg.Pool({ connectionString: location, max: POOL_SIZE, types: { getTypeParser }, idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS });
  // An idle connection the server ended (a restart, the timeout above after this process hung) is dropped from the
  // pool and replaced at the next query; unhandled, the pool's "error" event would end the process.
  pool.on("error", (error) => logger.warn({ err: { name: error.name, message: error.message } }, "a PostgreSQL store connection was closed by the server; the next query opens another"));
  try {
    await migratePostgres(pool, options);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return { conn: new Connection(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), "postgres"), sqlite: null };
}

/** Connections per process to PostgreSQL: a transaction holds one, reads share the rest. */
const POOL_SIZE = 10;

/**
 * A transaction holds the store's write lock (every process waits for it), and its statements are store work only,
 * milliseconds apart. A session that sits inside a transaction this long belongs to a process that hung or lost its
 * machine: PostgreSQL ends it, rolls it back and frees the lock, so a standby can take the keeper lease over.
 */
const IDLE_IN_TRANSACTION_MS = 10_000;

// PostgreSQL's bigint (int8) and numeric (SUM over bigint) arrive as strings by default; the store's integers (cents,
// counts, block numbers, epoch milliseconds) are all far below 2^53, so they are read as numbers, as SQLite gives them.
const INT8_OID = 20;
const NUMERIC_OID = 1700;
export function getTypeParser(oid: number, format?: "text" | "binary"): (value: string) => unknown {
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
