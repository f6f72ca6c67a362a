// The prizedraw CLI as a user meets it, run as a process: --help lists every command and option, help COMMAND
// shows one command's options, a command without the service's store refuses and says which folder it looked in
// (creating nothing), a changing command names its store, printed links use the service's real URL, the list
// commands show every account, campaign, key and drawing (never a key's secret), and with STORE_URL it works on
// that PostgreSQL database (a private server), naming it by host, never by password.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../api/src/cli/commands.js";
import { DEFAULT_DATA_DIR } from "../../api/src/cli/where.js";
import { openDrawing } from "../../api/src/domain/campaigns.js";
import { newId } from "../../api/src/store/ids.js";
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
    for (const name of ["account create", "account list", "member add", "key create", "key list", "key revoke", "campaign create", "campaign list", "campaign activate", "campaign pause", "campaign resume", "campaign end", "campaign set", "prize-table publish", "drawing list", "drawing extend-cutoff", "drawing fetches", "held list", "held pay", "held refuse", "alerts list", "clock advance"]) {
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

describe("times typed at the CLI", slow, () => {
  it("refuses extended-year and out-of-range times for a cutoff, an end date and the test clock, changing nothing", async () => {
    const dir = await folderWithStore();
    const env = { PRIZEDRAW_DATA_DIR: dir };
    const { accountId } = JSON.parse((await cli(["account", "create", "--email", "owner@example.com", "--json"], env)).stdout) as { accountId: string };
    expect((await cli(["campaign", "create", "--account", accountId, "--slug", "typed-times", "--name", "Typed times", "--mode", "push", "--cadence", "daily", "--payout-wallet", "0x00000000000000000000000000000000000000a1", "--json"], env)).code).toBe(0);
    expect((await cli(["campaign", "activate", "typed-times", "--json"], env)).code).toBe(0);
    const read = async () => {
      const store = await openServiceStore(storePath(dir));
      try {
        const campaign = (await store.campaigns.bySlug("typed-times"))!;
        return { campaign, drawings: await store.drawings.unfinished(campaign.id) };
      } finally {
        await store.close();
      }
    };
    const before = await read();
    const drawing = before.drawings[0]!;
    const refused = async (args: string[], detail: RegExp) => {
      const run = await cli([...args, "--json"], env);
      expect(run.code, `${args.join(" ")}: ${run.stdout}${run.stderr}`).toBe(2);
      expect(JSON.parse(run.stdout)).toMatchObject({ error: "bad_request", detail: expect.stringMatching(detail) });
    };
    // A year past 9999 in the extended form; the same form for a year in range; a four-digit year past the bound.
    for (const to of ["+050000-01-01T00:00:00Z", "+010000-01-01T00:00:00Z", "+002030-01-01T00:00:00Z"]) {
      await refused(["drawing", "extend-cutoff", "typed-times", drawing.id, "--to", to], /cutoffAt must be an ISO 8601 time with a four-digit year/);
      await refused(["campaign", "set", "typed-times", "--ends-at", to], /endsAt must be an ISO 8601 time with a four-digit year/);
      await refused(["clock", "advance", "typed-times", "--to", to], /--to must be an ISO 8601 time with a four-digit year/);
    }
    await refused(["drawing", "extend-cutoff", "typed-times", drawing.id, "--to", "9000-01-01T00:00:00Z"], /cutoffAt must be later than the campaign's current time .* and no later than /);
    expect(await read()).toEqual(before);
  });
});

describe("prizedraw lists what exists", slow, () => {
  const wallet = "0x00000000000000000000000000000000000000a1";
  const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

  it("lists accounts, campaigns, keys and drawings exactly, filtered, as tables too, and never a key's secret or hash", async () => {
    const dir = await folderWithStore();
    const env = { PRIZEDRAW_DATA_DIR: dir };
    const listed: string[] = []; // everything the lists printed
    const ok = async (...args: string[]): Promise<Record<string, unknown>> => {
      const run = await cli([...args, "--json"], env);
      expect(run.code, `${args.join(" ")}: ${run.stdout}${run.stderr}`).toBe(0);
      return JSON.parse(run.stdout) as Record<string, unknown>;
    };
    const list = async (...args: string[]): Promise<Record<string, unknown>> => {
      const run = await cli([...args, "--json"], env);
      expect(run.code, `${args.join(" ")}: ${run.stdout}${run.stderr}`).toBe(0);
      expect(run.stderr).toBe(""); // a read names no store
      listed.push(run.stdout);
      return JSON.parse(run.stdout) as Record<string, unknown>;
    };
    const plain = async (...args: string[]): Promise<string> => {
      const run = await cli(args, env);
      expect(run.code, `${args.join(" ")}: ${run.stdout}${run.stderr}`).toBe(0);
      listed.push(run.stdout, run.stderr);
      expect(() => JSON.parse(run.stdout)).toThrow(); // a table, not JSON
      return run.stdout;
    };
    const refused = async (args: string[], error: string, detail: string) => {
      const run = await cli([...args, "--json"], env);
      expect(run.code, `${args.join(" ")}: ${run.stdout}${run.stderr}`).toBe(2);
      expect(JSON.parse(run.stdout)).toEqual({ error, detail });
    };

    // Two accounts: A with an owner and a member, two campaigns (one active, one draft) and two keys, the first
    // revoked; B with one campaign, activated then paused, and one key.
    const a = (await ok("account", "create", "--email", "owner-a@example.com")).accountId as string;
    await ok("member", "add", "--account", a, "--email", "member-a@example.com");
    const b = (await ok("account", "create", "--email", "owner-b@example.com")).accountId as string;
    const campaign = (account: string, slug: string, ...more: string[]) =>
      ok("campaign", "create", "--account", account, "--slug", slug, "--name", `Campaign ${slug}`, "--mode", "push", "--payout-wallet", wallet, ...more);
    await campaign(a, "alpha-live", "--cadence", "daily");
    await campaign(a, "alpha-draft", "--cadence", "weekly", "--weekday", "2");
    await campaign(b, "beta-paused", "--cadence", "hourly");
    await ok("campaign", "activate", "alpha-live");
    await ok("campaign", "activate", "beta-paused");
    await ok("campaign", "pause", "beta-paused");
    const first = (await ok("key", "create", "--account", a)) as { key: string; keyId: string };
    const second = (await ok("key", "create", "--account", a, "--as", "owner-a@example.com")) as { key: string; keyId: string };
    const third = (await ok("key", "create", "--account", b)) as { key: string; keyId: string };
    await ok("key", "revoke", "--account", a, first.keyId);

    // What the keeper and partners would have done, written to the store: alpha-live's first drawing has its list
    // and is locked with a note; beta-paused has 201 paid drawings from the past (one more than a list shows).
    const store = await openServiceStore(storePath(dir));
    const { alpha, draft, beta, drawings, keys } = await (async () => {
      const alpha = (await store.campaigns.bySlug("alpha-live"))!;
      const beta = (await store.campaigns.bySlug("beta-paused"))!;
      const planned = await store.drawings.unfinished(alpha.id);
      expect(planned.length).toBeGreaterThanOrEqual(2);
      await store.drawings.replaceWinners(planned[0]!.id, [{ winnerId: "w-1", displayName: null, avatarUrl: null }]);
      await store.drawings.update({ ...planned[0]!, status: "locked", lockedAt: new Date().toISOString(), needsAttention: "chain: a test note" });
      for (let i = 0; i < 201; i++) {
        const drawAt = new Date(Date.UTC(2020, 0, 1, i));
        const past = openDrawing(beta, { drawAt, cutoffAt: new Date(drawAt.getTime() - 5 * 60_000) }, newId("drw"), drawAt);
        expect(await store.drawings.insertIfAbsent({ ...past, status: "paid", number: i + 1 })).toBe(true);
      }
      return {
        alpha,
        draft: (await store.campaigns.bySlug("alpha-draft"))!,
        beta,
        drawings: await store.drawings.unfinished(alpha.id),
        keys: { first: (await store.accounts.key(first.keyId))!, second: (await store.accounts.key(second.keyId))!, third: (await store.accounts.key(third.keyId))! },
      };
    })().finally(() => store.close());

    // account list: newest first, each team with roles, its number of campaigns.
    expect(await list("account", "list")).toEqual({
      accounts: [
        { id: b, members: [{ email: "owner-b@example.com", role: "owner" }], campaignCount: 1, createdAt: expect.stringMatching(ISO) },
        { id: a, members: [{ email: "owner-a@example.com", role: "owner" }, { email: "member-a@example.com", role: "member" }], campaignCount: 2, createdAt: expect.stringMatching(ISO) },
      ],
    });

    // campaign list: newest first; the next drawing only for the active campaign; drawings with a note counted.
    const row = {
      "alpha-live": { slug: "alpha-live", accountId: a, name: "Campaign alpha-live", status: "active", mode: "push", cadence: "daily", nextDrawing: { id: drawings[1]!.id, drawAt: drawings[1]!.drawAt }, drawingsNeedingAttention: 1, createdAt: alpha.createdAt },
      "alpha-draft": { slug: "alpha-draft", accountId: a, name: "Campaign alpha-draft", status: "draft", mode: "push", cadence: "weekly", nextDrawing: null, drawingsNeedingAttention: 0, createdAt: draft.createdAt },
      "beta-paused": { slug: "beta-paused", accountId: b, name: "Campaign beta-paused", status: "paused", mode: "push", cadence: "hourly", nextDrawing: null, drawingsNeedingAttention: 0, createdAt: beta.createdAt },
    };
    expect(await list("campaign", "list")).toEqual({ campaigns: [row["beta-paused"], row["alpha-draft"], row["alpha-live"]] });
    expect(await list("campaign", "list", "--account", a)).toEqual({ campaigns: [row["alpha-draft"], row["alpha-live"]] });
    expect(await list("campaign", "list", "--status", "active")).toEqual({ campaigns: [row["alpha-live"]] });
    expect(await list("campaign", "list", "--account", b, "--status", "paused")).toEqual({ campaigns: [row["beta-paused"]] });
    expect(await list("campaign", "list", "--account", a, "--status", "ended")).toEqual({ campaigns: [] });

    // key list: newest first, revoked ones marked, each by its public prefix and last four characters.
    const keyRow = (k: (typeof keys)["first"], createdBy: string) => ({
      keyId: k.keyId,
      prefix: `pd_test_${k.keyId}`,
      last4: k.last4,
      createdBy,
      createdAt: k.createdAt,
      lastUsedAt: null,
      revokedAt: k.revokedAt,
      revoked: k.revokedAt !== null,
    });
    expect(keys.first.revokedAt).toMatch(ISO);
    expect(await list("key", "list", "--account", a)).toEqual({ accountId: a, keys: [keyRow(keys.second, "owner-a@example.com"), keyRow(keys.first, "operator")] });
    expect(await list("key", "list", "--account", b)).toEqual({ accountId: b, keys: [keyRow(keys.third, "operator")] });

    // drawing list: latest draw time first, winners expected and present, the note; at most 200.
    const drawingRow = (d: (typeof drawings)[number], winnersPresent: number) => ({
      id: d.id,
      number: null,
      status: d.status,
      drawAt: d.drawAt,
      cutoffAt: d.cutoffAt,
      winnersExpected: 1,
      winnersPresent,
      needsAttention: d.needsAttention,
    });
    const newestFirst = [...drawings].reverse();
    expect(drawings[0]).toMatchObject({ status: "locked", needsAttention: "chain: a test note" });
    expect(await list("drawing", "list", "--campaign", "alpha-live")).toEqual({ campaign: "alpha-live", drawings: newestFirst.map((d) => drawingRow(d, d.id === drawings[0]!.id ? 1 : 0)), more: false });
    expect(await list("drawing", "list", "--campaign", "alpha-live", "--status", "locked")).toEqual({ campaign: "alpha-live", drawings: [drawingRow(drawings[0]!, 1)], more: false });
    expect(await list("drawing", "list", "--campaign", "alpha-live", "--status", "open")).toEqual({ campaign: "alpha-live", drawings: newestFirst.slice(0, -1).map((d) => drawingRow(d, 0)), more: false });
    expect(await list("drawing", "list", "--campaign", "beta-paused")).toMatchObject({ drawings: expect.any(Array), more: true });
    const many = (await list("drawing", "list", "--campaign", "beta-paused", "--status", "paid")) as { drawings: { number: number; status: string; drawAt: string }[]; more: boolean };
    expect(many.more).toBe(true);
    expect(many.drawings.map((d) => d.number)).toEqual(Array.from({ length: 200 }, (_, i) => 201 - i));
    expect(many.drawings[0]).toMatchObject({ status: "paid", drawAt: new Date(Date.UTC(2020, 0, 1, 200)).toISOString() });
    expect(await list("drawing", "list", "--campaign", "beta-paused", "--status", "settled")).toEqual({ campaign: "beta-paused", drawings: [], more: false });

    // Without --json: tables naming the same ids and slugs.
    const accountsText = await plain("account", "list");
    for (const text of [a, b, "owner-a@example.com (owner)", "member-a@example.com (member)"]) expect(accountsText).toContain(text);
    const campaignsText = await plain("campaign", "list");
    for (const text of ["alpha-live", "alpha-draft", "beta-paused", a, b, drawings[1]!.id, "1 drawing"]) expect(campaignsText).toContain(text);
    const keysText = await plain("key", "list", "--account", a);
    for (const text of [first.keyId, second.keyId, `revoked ${keys.first.revokedAt}`]) expect(keysText).toContain(text);
    const drawingsText = await plain("drawing", "list", "--campaign", "alpha-live");
    for (const d of drawings) expect(drawingsText).toContain(d.id);
    expect(drawingsText).toContain("chain: a test note");
    expect(await plain("drawing", "list", "--campaign", "beta-paused")).toContain("the newest 200 drawings");
    expect(await plain("campaign", "list", "--status", "ended")).toBe("No campaigns.\n");

    // No key's secret nor its hash in anything a list printed (a key is printed once, by key create).
    const printed = listed.join("\n");
    for (const issued of [first, second, third]) {
      const secret = issued.key.slice(`pd_test_${issued.keyId}_`.length);
      expect(secret).toHaveLength(32);
      expect(printed).not.toContain(secret);
    }
    for (const k of Object.values(keys)) expect(printed).not.toContain(k.secretHash);

    // Refusals: exit code 2, one JSON object naming what was wrong.
    await refused(["campaign", "list", "--status", "running"], "cli_error", "--status must be one of draft, active, paused, ended");
    await refused(["campaign", "list", "--account", "acc_nosuchaccount"], "not_found", "not_found: no account acc_nosuchaccount");
    await refused(["key", "list"], "cli_error", "--account is required");
    await refused(["key", "list", "--account", "acc_nosuchaccount"], "not_found", "not_found: no account acc_nosuchaccount");
    await refused(["drawing", "list"], "cli_error", "--campaign is required");
    await refused(["drawing", "list", "--campaign", "no-such-campaign"], "not_found", "not_found: no campaign no-such-campaign");
    await refused(["drawing", "list", "--campaign", "alpha-live", "--status", "drawn"], "cli_error", "--status must be one of open, locked, entropy_requested, settled, paid");
    await refused(["account", "list", "--status", "active"], "cli_error", '--status is not an option of "account list" (see prizedraw help account list)');
    const plainRefusal = await cli(["drawing", "list", "--campaign", "no-such-campaign"], env);
    expect(plainRefusal.code).toBe(2);
    expect(plainRefusal.stderr.trim()).toBe("prizedraw: not_found: no campaign no-such-campaign");
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
