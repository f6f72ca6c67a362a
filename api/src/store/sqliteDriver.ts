// The SQLite driver for the Node.js line this process runs on. Both are better-sqlite3 (one API, one set of types):
//
// - Node 22 and later: better-sqlite3 13, built on Node-API, with prebuilt binaries in its package.
// - Node 20: better-sqlite3 12 (installed as `better-sqlite3-v12`). 13 loads on Node 20 and then crashes at the
//   first statement; 12 is built against V8 directly, which Node 24.19 broke (a statement collected by a background
//   GC aborts the process in `RemoveEnvironmentCleanupHook`) and which does not compile on Node 26.
//
// Both are optional dependencies whose own `engines` field tells npm which lines may install them: npm skips 13 on
// Node 20 and 12 on Node 26 (12's engines allow 22 and 24, where it is installed too but never loaded). Node 22.5+
// also has `node:sqlite`; it is not used: still experimental on 22 and 24, with a different API, and one driver
// family keeps the store's behaviour the same on every line.
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

/** The database class of better-sqlite3, whichever version this line loads. */
export type SqliteDriver = typeof BetterSqlite3;

/** The package name of the driver for Node.js major version `major` (by default this process's). */
export function sqliteDriverPackage(major = Number(process.versions.node.split(".")[0])): "better-sqlite3" | "better-sqlite3-v12" {
  return major >= 22 ? "better-sqlite3" : "better-sqlite3-v12";
}

/** This Node.js line has no driver installed: `npm install` ran on another line (node_modules moved, or nvm use). */
export class SqliteDriverMissingError extends Error {
  readonly code = "sqlite_driver_missing";
  override name = "SqliteDriverMissingError";
}

const require = createRequire(import.meta.url);
let loaded: SqliteDriver | undefined;

/** Loads (once) the driver for this process's Node.js line. */
export function loadSqliteDriver(): SqliteDriver {
  if (loaded !== undefined) return loaded;
  const name = sqliteDriverPackage();
  try {
    loaded = require(name) as SqliteDriver;
  } catch (error) {
    // Only the package itself missing is this error; a package that is there but fails to load is its own.
    if ((error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND" || !String((error as Error).message).includes(`'${name}'`)) throw error;
    throw new SqliteDriverMissingError(
      `the SQLite driver for Node.js ${process.versions.node} (${name}) is not installed: the packages were installed with another Node.js version; run npm install again with this one`,
    );
  }
  return loaded;
}
