// The prizedraw CLI as a user meets it, run as a process: --help lists every command and option, help COMMAND
// shows one command's options, a command without the service's store refuses and says which folder it looked in
// (creating nothing), a changing command names its store, printed links use the service's real URL, and with
// STORE_URL it works on that PostgreSQL database (a private server), naming it by host, never by password.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../api/src/cli/commands.js";
import { DEFAULT_DATA_DIR } from "../../api/src/cli/where.js";
import { storePath } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import { startPostgres, type Postgres } from "../support/postgres.js";
import { CLI_ARGS, REPO_ROOT, freePort, inheritedEnv } from "../support/processes.js";

const folders: string[] = [];
afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

function tempFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "prizedraw-cli-test-"));
  folders.push(dir);
  return dir;
}

/** A data folder holding a store, as the service leaves it when it starts. */
async function folderWithStore(): Promise<string> {
  const dir = tempFolder();
  await (await openServiceStore(storePath(dir))).close();
  return dir;
}

type Run = { code: number | null; stdout: string; stderr: string };

/**
 * Runs the CLI the way `npm run admin` does (from the repository root), or from another folder through the
 * package's `prizedraw` binary, with the test runner's PRIZEDRAW_*, PORT, PUBLIC_BASE_URL, RPC_URL and STORE_URL removed.
 */
function cli(args: string[], env: Record<string, string> = {}, cwd = REPO_ROOT): Promise<Run> {
  const entry = cwd === REPO_ROOT ? [...CLI_ARGS] : [path.join(REPO_ROOT, "api/bin/prizedraw.mjs")];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...entry, ...args], {
      cwd,
      env: { ...inheritedEnv(["PRIZEDRAW_*", "PORT", "PUBLIC_BASE_URL", "RPC_URL", "STORE_URL"]), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

// Each run is a Node process compiling TypeScript: seconds each on a busy machine.
const slow = { timeout: 240_000 };

describe("prizedraw --help", slow, () => {
  it("lists every command and every option of each", async () => {
    const { code, stdout } = await cli(["--help"]);
    expect(code).toBe(0);
    for (const command of COMMANDS) {
      expect(stdout).toContain(`prizedraw ${command.name}`);
      for (const option of command.options) expect(stdout).toContain(`--${option.flag}`);
    }
    expect(stdout).toContain("--json");
    expect(stdout).toContain("PRIZEDRAW_DATA_DIR");
    // Every form of the operator's commands the README and docs name is there.
    for (const name of ["account create", "member add", "key create", "key revoke", "campaign create", "campaign activate", "campaign pause", "campaign resume", "campaign end", "campaign set", "prize-table publish", "drawing extend-cutoff", "drawing fetches", "held list", "held pay", "held refuse", "alerts list", "clock advance"]) {
      expect(stdout).toContain(`prizedraw ${name}`);
    }
  });

  it("answers help with no command, -h, and help COMMAND for a group or one command", async () => {
    const [bare, short, group, one, asOption, unknown] = await Promise.all([
      cli([]),
      cli(["-h"]),
      cli(["help", "campaign"]),
      cli(["help", "campaign", "create"]),
      cli(["campaign", "create", "--help"]),
      cli(["help", "campaing"]),
    ]);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toContain("prizedraw campaign create");
    expect(short.stdout).toBe(bare.stdout);

    expect(group.code).toBe(0);
    for (const verb of ["create", "activate", "pause", "resume", "end", "set"]) expect(group.stdout).toContain(`prizedraw campaign ${verb}`);
    for (const option of COMMANDS.find((c) => c.name === "campaign create")!.options) expect(group.stdout).toContain(`--${option.flag}`);
    expect(group.stdout).not.toContain("prizedraw key create");

    expect(one.stdout).toContain("--guarantee AMOUNT,THRESHOLD[,DAYS]");
    expect(one.stdout).not.toContain("prizedraw campaign activate");
    expect(asOption.stdout).toBe(one.stdout);

    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no command "campaing" (see prizedraw --help)');
  });

  it("refuses an unknown command or an option its command does not take, naming the help to read", async () => {
    const dir = await folderWithStore();
    const typo = await cli(["acount", "create", "--email", "a@example.com"], { PRIZEDRAW_DATA_DIR: dir });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown command "acount create" (see prizedraw --help)');
    const misplaced = await cli(["account", "create", "--email", "a@example.com", "--slug", "x", "--json"], { PRIZEDRAW_DATA_DIR: dir });
    expect(misplaced.code).toBe(2);
    expect(JSON.parse(misplaced.stdout)).toEqual({ error: "cli_error", detail: '--slug is not an option of "account create" (see prizedraw help account create)' });
  });
});

describe("which store the CLI works on", slow, () => {
  it("refuses, naming the folder, when PRIZEDRAW_DATA_DIR holds no store, and creates nothing", async () => {
    const empty = tempFolder();
    const { code, stdout, stderr } = await cli(["account", "create", "--email", "owner@example.com"], { PRIZEDRAW_DATA_DIR: empty });
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr.trim()).toBe(
      `prizedraw: no store in ${empty} (PRIZEDRAW_DATA_DIR): nothing was created. Start the service first (npm start creates the store), or set PRIZEDRAW_DATA_DIR to the data folder the running service uses`,
    );
    expect(readdirSync(empty)).toEqual([]);
    const json = await cli(["campaign", "activate", "x", "--json"], { PRIZEDRAW_DATA_DIR: path.join(empty, "missing") });
    expect(JSON.parse(json.stdout)).toMatchObject({ error: "no_store" });
    expect(existsSync(path.join(empty, "missing"))).toBe(false);
  });

  it("without PRIZEDRAW_DATA_DIR uses npm start's default folder, from whatever folder it runs in", async () => {
    const elsewhere = tempFolder();
    // A changing command that changes nothing (no such campaign): a developer's own .data is left as it was.
    const { code, stdout, stderr } = await cli(["campaign", "activate", "no-such-campaign-cli-test", "--json"], {}, elsewhere);
    expect(code).toBe(2);
    expect(readdirSync(elsewhere)).toEqual([]); // never a store in the current folder
    if (existsSync(storePath(DEFAULT_DATA_DIR))) {
      // A developer's own stack has a store there: the command ran on it and said so.
      expect(stderr).toContain(`prizedraw: store ${storePath(DEFAULT_DATA_DIR)} (npm start's default folder; set PRIZEDRAW_DATA_DIR for another)`);
      expect(JSON.parse(stdout)).toMatchObject({ error: "bad_request" });
    } else {
      expect(JSON.parse(stdout)).toMatchObject({ error: "no_store" });
      expect((JSON.parse(stdout) as { detail: string }).detail).toContain(`no store in ${DEFAULT_DATA_DIR} (the folder npm start uses when PRIZEDRAW_DATA_DIR is unset)`);
    }
  });

  it("names the store on stderr before a changing command, keeping --json output one object", async () => {
    const dir = await folderWithStore();
    const created = await cli(["account", "create", "--email", "owner@example.com", "--json"], { PRIZEDRAW_DATA_DIR: dir, PORT: "18111" });
    expect(created.code).toBe(0);
    expect(created.stderr.trim()).toBe(`prizedraw: store ${storePath(dir)} (PRIZEDRAW_DATA_DIR), no running stack uses it; links use http://127.0.0.1:18111`);
    expect(Object.keys(JSON.parse(created.stdout))).toEqual(["accountId"]);
    // A read names nothing.
    const alerts = await cli(["alerts", "list", "--json"], { PRIZEDRAW_DATA_DIR: dir });
    expect(alerts.code).toBe(0);
    expect(alerts.stderr).toBe("");
  });
});

describe("links the CLI prints", slow, () => {
  const wallet = "0x00000000000000000000000000000000000000a1";

  async function createCampaign(dir: string, env: Record<string, string>, slug: string): Promise<{ page: string; termsUrl: string; stderr: string }> {
    const account = await cli(["account", "create", "--email", "owner@example.com", "--json"], { PRIZEDRAW_DATA_DIR: dir, ...env });
    const { accountId } = JSON.parse(account.stdout) as { accountId: string };
    const made = await cli(["campaign", "create", "--account", accountId, "--slug", slug, "--name", "Links", "--mode", "push", "--cadence", "daily", "--payout-wallet", wallet, "--json"], { PRIZEDRAW_DATA_DIR: dir, ...env });
    expect(made.code).toBe(0);
    const { campaign } = JSON.parse(made.stdout) as { campaign: { page: string; termsUrl: string } };
    return { ...campaign, stderr: made.stderr };
  }

  it("use PUBLIC_BASE_URL, else PORT", async () => {
    const dir = await folderWithStore();
    const byPort = await createCampaign(dir, { PORT: "18222" }, "by-port");
    expect(byPort.page).toBe("http://127.0.0.1:18222/campaigns/by-port");
    expect(byPort.termsUrl).toBe("http://127.0.0.1:18222/terms");
    const byUrl = await createCampaign(dir, { PORT: "18222", PUBLIC_BASE_URL: "https://draws.example.com/" }, "by-url");
    expect(byUrl.page).toBe("https://draws.example.com/campaigns/by-url");
  });

  it("use the URL the running stack recorded in the data folder when neither is set", async () => {
    const dir = await folderWithStore();
    // What npm start holds while it runs (stack.lock): its pid (alive: this test process), host, ports and URL.
    const lock = (pid: number, publicBaseUrl: string) =>
      writeFileSync(path.join(dir, "stack.lock"), JSON.stringify({ command: "npm start", pid, startTicks: null, host: hostname(), bootId: null, startedAt: new Date().toISOString(), dataDir: dir, ports: { service: 18333, indexer: 18334, chain: 18335 }, publicBaseUrl, state: "running", children: [] }));
    lock(process.pid, "http://127.0.0.1:18333");
    const recorded = await createCampaign(dir, {}, "recorded");
    expect(recorded.page).toBe("http://127.0.0.1:18333/campaigns/recorded");
    expect(recorded.stderr.trim()).toBe(`prizedraw: store ${storePath(dir)} (PRIZEDRAW_DATA_DIR), used by the running npm start (pid ${process.pid}, port 18333); links use http://127.0.0.1:18333`);
    lock(process.pid, "https://draws.example.com");
    expect((await createCampaign(dir, {}, "recorded-public")).page).toBe("https://draws.example.com/campaigns/recorded-public");
    // A lock left by a stack that is gone says nothing: the default port.
    lock(2 ** 22 + 17, "http://127.0.0.1:18444");
    const stale = await createCampaign(dir, {}, "stale");
    expect(stale.page).toBe("http://127.0.0.1:8787/campaigns/stale");
    expect(stale.stderr).toContain("no running stack uses it");
  });
});

describe("prizedraw clock advance", slow, () => {
  it("keeps the partner API's rule: at most 100 years ahead of real time; a refused move leaves the clock where it was", async () => {
    const dir = await folderWithStore();
    const env = { PRIZEDRAW_DATA_DIR: dir };
    const { accountId } = JSON.parse((await cli(["account", "create", "--email", "owner@example.com", "--json"], env)).stdout) as { accountId: string };
    const made = await cli(["campaign", "create", "--account", accountId, "--slug", "far-clock", "--name", "Far clock", "--mode", "push", "--cadence", "daily", "--json"], env);
    expect(made.code).toBe(0);

    const far = await cli(["clock", "advance", "far-clock", "--to", "9999-01-01T00:00:00Z", "--json"], env);
    expect(far.code).toBe(2);
    expect(JSON.parse(far.stdout)).toEqual({ error: "bad_request", detail: "bad_request: the test clock moves at most 100 years ahead of real time" });

    // The clock did not move: advancing by nothing answers about now.
    const before = Date.now();
    const still = await cli(["clock", "advance", "far-clock", "--by", "0s", "--json"], env);
    expect(still.code).toBe(0);
    const stillAt = Date.parse((JSON.parse(still.stdout) as { now: string }).now);
    expect(stillAt).toBeGreaterThanOrEqual(before - 1_000);
    expect(stillAt).toBeLessThanOrEqual(Date.now() + 1_000);

    const near = await cli(["clock", "advance", "far-clock", "--by", "2d", "--json"], env);
    expect(near.code).toBe(0);
    const nearAt = Date.parse((JSON.parse(near.stdout) as { now: string }).now);
    expect(nearAt - stillAt).toBeGreaterThanOrEqual(2 * 86_400_000);
    expect(nearAt - stillAt).toBeLessThan(2 * 86_400_000 + 60_000);
  });
});

describe("a store in PostgreSQL (STORE_URL)", slow, () => {
  const PASSWORD = "pw-never-printed";
  let postgres: Postgres | undefined;
  afterAll(async () => {
    await postgres?.stop();
  });

  it("refuses a STORE_URL that is not a PostgreSQL URL, creating nothing", async () => {
    const dir = tempFolder();
    const { code, stderr } = await cli(["account", "create", "--email", "owner@example.com"], { PRIZEDRAW_DATA_DIR: dir, STORE_URL: `mysql://prizedraw:${PASSWORD}@127.0.0.1/db` });
    expect(code).toBe(2);
    expect(stderr.trim()).toBe("prizedraw: STORE_URL: must be postgres://... or postgresql://... (unset it for the SQLite file in the data folder)");
    expect(readdirSync(dir)).toEqual([]);
  });

  it("opens that database, never the data folder's file: one it cannot reach is an error naming its host only", async () => {
    const dir = await folderWithStore();
    const port = await freePort(); // nothing listens there
    const run = await cli(["account", "create", "--email", "owner@example.com", "--json"], { PRIZEDRAW_DATA_DIR: dir, PORT: "18111", STORE_URL: `postgres://prizedraw:${PASSWORD}@127.0.0.1:${port}/prizedraw` });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(`prizedraw: store PostgreSQL at 127.0.0.1:${port} (STORE_URL), no running stack uses it; links use http://127.0.0.1:18111`);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: "store_unavailable" });
    expect((JSON.parse(run.stdout) as { detail: string }).detail).toContain(`cannot open the store in PostgreSQL at 127.0.0.1:${port} (STORE_URL)`);
    expect(run.stdout + run.stderr).not.toContain(PASSWORD);
    // The data folder's SQLite store was not used instead.
    const local = await openServiceStore(storePath(dir));
    try {
      expect(await local.accounts.count()).toBe(0);
    } finally {
      await local.close();
    }
  });

  it("works on the database STORE_URL names, without a store file in the data folder; never creates the tables", async () => {
    postgres = await startPostgres();
    const url = postgres.url.replace("postgres://prizedraw@", `postgres://prizedraw:${PASSWORD}@`); // trust authentication: any password
    const dir = tempFolder();
    // An empty database: the CLI refuses, as for a data folder without a store file, and creates nothing.
    const refused = await cli(["account", "create", "--email", "owner@example.com", "--json"], { PRIZEDRAW_DATA_DIR: dir, STORE_URL: url });
    expect(refused.code).not.toBe(0);
    expect(JSON.parse(refused.stdout)).toEqual({ error: "no_store", detail: expect.stringContaining(`no store in PostgreSQL at ${new URL(url).host} (STORE_URL): nothing was created`) });
    expect(await postgres.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")).toEqual([]);
    // The service's first start makes the tables (openStore as main.ts calls it); then the CLI works on them.
    await (await openServiceStore(url)).close();
    const created = await cli(["account", "create", "--email", "owner@example.com", "--json"], { PRIZEDRAW_DATA_DIR: dir, STORE_URL: url });
    expect(created.code).toBe(0);
    expect(created.stderr).toContain(`prizedraw: store PostgreSQL at ${new URL(url).host} (STORE_URL)`);
    expect(created.stdout + created.stderr).not.toContain(PASSWORD);
    const { accountId } = JSON.parse(created.stdout) as { accountId: string };
    expect(readdirSync(dir)).toEqual([]); // no SQLite file made
    const store = await openServiceStore(url);
    try {
      expect(store.conn.engine).toBe("postgres");
      expect((await store.accounts.members(accountId)).map((m) => m.email)).toEqual(["owner@example.com"]);
    } finally {
      await store.close();
    }
  });
});
