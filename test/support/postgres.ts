// A private PostgreSQL server for tests of the indexer's Postgres mode: Debian's server binaries
// (/usr/lib/postgresql/<version>/bin, package postgresql), a throwaway cluster in a temporary folder, trust
// authentication, listening on 127.0.0.1 on a free port. Run as the `postgres` user when the tests run as root
// (the server refuses root).

import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort, spawnProcess, stop, until, type Proc } from "./processes.js";

export type Postgres = {
  /** postgres://prizedraw@127.0.0.1:PORT/postgres */
  url: string;
  /** Runs one query on a short-lived connection. */
  query: <R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]) => Promise<R[]>;
  stop: () => Promise<void>;
};

function serverBinDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, "bin/postgres"))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) throw new Error("no PostgreSQL server under /usr/lib/postgresql: apt-get install postgresql (.ci/run does)");
  return path.join(root, newest, "bin");
}

/** The uid and gid to run the server as: the `postgres` user under root, else ourselves. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.startsWith("postgres:"));
  if (line === undefined) throw new Error("running as root and there is no postgres user to run the server as");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

export async function startPostgres(): Promise<Postgres> {
  const bin = serverBinDir();
  const user = serverUser();
  const dir = mkdtempSync(path.join(tmpdir(), "prizedraw-pg-"));
  if (user) chownSync(dir, user.uid, user.gid);
  const cluster = path.join(dir, "cluster");
  const initdb = spawnSync(path.join(bin, "initdb"), ["-D", cluster, "-U", "prizedraw", "--auth=trust", "-E", "UTF8", "--no-sync"], { ...user, encoding: "utf8" });
  if (initdb.status !== 0) throw new Error(`initdb failed: ${initdb.stderr}`);
  const port = await freePort();
  const server: Proc = spawnProcess(
    "postgres",
    path.join(bin, "postgres"),
    ["-D", cluster, "-p", String(port), "-h", "127.0.0.1", "-k", dir, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
    { env: process.env, cwd: dir, log: path.join(dir, "postgres.log"), ...user },
  );
  const url = `postgres://prizedraw@127.0.0.1:${port}/postgres`;
  const query = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<R>(sql, params)).rows;
    } finally {
      await client.end();
    }
  };
  try {
    await until("postgres accepting connections", async () => ((await query("select 1")).length === 1 ? true : undefined), 30_000, 100, server);
  } catch (error) {
    await stop(server);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    query,
    stop: async () => {
      // SIGTERM would wait for clients to leave; SIGINT (fast shutdown) ends their sessions.
      if (server.child.exitCode === null && server.child.signalCode === null) {
        process.kill(server.pid, "SIGINT");
        await server.exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
