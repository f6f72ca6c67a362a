// The production environment on the real stack: anvil, PrizeDraw on TestEntropyV2 (a randomness provider with
// Pyth Entropy v2's rules, not the mock), Ponder and the service with PRIZEDRAW_ENV=production. A `pd_live_` key
// works and a `pd_test_` key is refused; the test clock does not exist; the keeper runs every 300 seconds; and the
// service refuses to start with a mock provider, without an operator key or RPC URL, with a test-only switch, or
// with one of anvil's public keys as the operator key on a network other than the local chain.
//
// The reverse (a `pd_live_` key refused in the test environment, also one the store holds) is in
// test/reliability/secrets.test.ts and test/api/push.test.ts.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployLocal } from "../../api/src/chain/deploy.js";
import { ANVIL_KEYS } from "../../api/src/config.js";
import { CLI_ARGS, REPO_ROOT, SERVICE_ARGS, freePort, jsonRpc, spawnProcess, startAnvil, stop, until } from "../support/processes.js";
import { TEST_WALLET, api, startStack, type Stack } from "../support/stack.js";

let stack: Stack;
let accountId: string;
let liveKey: string;

type DrawingBody = { id: string; status: string; cutoffAt: string; winnersExpected: number };

/** The production settings; RPC_URL is filled in once the stack knows its chain's port. */
const productionEnv: Record<string, string> = {
  PRIZEDRAW_ENV: "production",
  OPERATOR_PRIVATE_KEY: ANVIL_KEYS.operator,
  // Required in production (the portal's sign-in links); this test sends no mail, so nothing listens there.
  SMTP_URL: "smtp://127.0.0.1:1",
  // Unset (an empty value counts as unset): production's default interval applies, not the test stack's 1 s.
  KEEPER_INTERVAL_SECONDS: "",
};

/** Runs `prizedraw ... --json` with `env`; returns exit code and the parsed JSON line. */
async function cliWith(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number | null; result: Record<string, unknown> }> {
  const proc = spawnProcess("cli", process.execPath, [...CLI_ARGS, ...args, "--json"], { env, cwd: REPO_ROOT, log: path.join(stack.dataDir, "cli.log") });
  const code = await proc.exited;
  const line = proc.output().trim().split("\n").filter((l) => l.startsWith("{")).pop();
  return { code, result: line ? (JSON.parse(line) as Record<string, unknown>) : {} };
}

/** Starts the service once with `env` and expects it to refuse: exit 1 and one line on stderr. */
async function refusesToStart(env: NodeJS.ProcessEnv, dataDir: string): Promise<string> {
  const log = path.join(dataDir, `refused-${Date.now()}.log`);
  const proc = spawnProcess("service", process.execPath, [...SERVICE_ARGS], { env: { ...env, PORT: String(await freePort()) }, cwd: REPO_ROOT, log });
  const code = await Promise.race([proc.exited, new Promise<"running">((r) => setTimeout(() => r("running"), 30_000))]);
  if (code === "running") {
    await stop(proc);
    throw new Error(`the service started: ${proc.output()}`);
  }
  expect(code).toBe(1);
  const lines = proc.output().trim().split("\n");
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

function serviceLog(): Record<string, unknown>[] {
  return readFileSync(path.join(stack.dataDir, "service.log"), "utf8")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

beforeAll(async () => {
  stack = await startStack({
    deploy: { randomness: "test-entropy-v2" },
    extraEnv: productionEnv,
    // Runs before the service's environment is assembled from extraEnv: the chain's URL is known by then.
    beforeService: async (_deployment, rpcUrl) => {
      productionEnv.RPC_URL = rpcUrl;
    },
  });
  expect(stack.env.RPC_URL).toBe(stack.rpcUrl);
  expect(stack.deployment.mockEntropy).toBe(false);
  accountId = (await stack.cli("account", "create", "--email", "live@example.com")).accountId as string;
  liveKey = (await stack.cli("key", "create", "--account", accountId, "--as", "live@example.com")).key as string;
  await stack.cli("campaign", "create", "--account", accountId, "--slug", "live-daily", "--name", "Live Daily", "--mode", "push", "--cadence", "daily", "--hour", "20", "--timezone", "UTC", "--winners", "2", "--payout-wallet", TEST_WALLET);
  await stack.cli("campaign", "activate", "live-daily");
  // The keeper cycles every 300 s; its first cycle runs at start-up, so a restart creates the drawings now.
  await stack.restartService();
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

describe("production mode", () => {
  it("runs the keeper on the 300-second production cycle", async () => {
    const listening = serviceLog().filter((l) => l.msg === "service listening");
    expect(listening.length).toBeGreaterThanOrEqual(2);
    for (const line of listening) expect(line).toMatchObject({ env: "production", keeperIntervalSeconds: 300, randomness: stack.deployment.entropy });
    expect((await fetch(`${stack.baseUrl}/health`)).status).toBe(200);
  });

  it("takes a pd_live_ key: the campaign, its drawings and a posted list", async () => {
    expect(liveKey).toMatch(/^pd_live_[0-9a-f]{12}_/);
    const campaign = await api(stack, "GET", "/api/v1/campaigns/live-daily", { key: liveKey });
    expect(campaign.status).toBe(200);
    expect(campaign.body.campaign).toMatchObject({ slug: "live-daily", status: "active", nextDrawing: expect.objectContaining({ winnersPerDraw: 2 }) });
    const open = await until("open drawings", async () => {
      const r = await api(stack, "GET", "/api/v1/campaigns/live-daily/drawings?status=open", { key: liveKey });
      const drawings = r.body.drawings as DrawingBody[] | undefined;
      return drawings && drawings.length > 0 ? drawings : undefined;
    }, 30_000, 200);
    const posted = await api(stack, "POST", `/api/v1/campaigns/live-daily/drawings/${open[0]!.id}/winners`, { key: liveKey, body: { winners: ["l-1", "l-2"] } });
    expect(posted.status).toBe(201);
  });

  it("refuses a pd_test_ key with 401, also one the store holds for the account", async () => {
    const testEnv = { ...stack.env, PRIZEDRAW_ENV: "test", RPC_URL: "", OPERATOR_PRIVATE_KEY: "" };
    const made = await cliWith(testEnv, "key", "create", "--account", accountId, "--as", "live@example.com");
    expect(made.code).toBe(0);
    const testKey = made.result.key as string;
    expect(testKey).toMatch(/^pd_test_/);
    for (const key of [testKey, liveKey.replace("pd_live_", "pd_test_")]) {
      const r = await api(stack, "GET", "/api/v1/campaigns/live-daily", { key });
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ error: "unauthorized", detail: expect.stringContaining("pd_live_") });
    }
    // The same key row read with a live prefix is refused too: a key belongs to the environment that made it.
    const r = await api(stack, "GET", "/api/v1/campaigns/live-daily", { key: testKey.replace("pd_test_", "pd_live_") });
    expect(r.status).toBe(401);
  });

  it("answers the test clock 404 not_found, exactly like a route that does not exist, and moves nothing", async () => {
    const before = (await api(stack, "GET", "/api/v1/campaigns/live-daily", { key: liveKey })).body.campaign as { nextDrawing: unknown };
    const clock = await api(stack, "POST", "/api/v1/campaigns/live-daily/test-clock", { key: liveKey, body: { advanceBy: "2d" } });
    const none = await api(stack, "POST", "/api/v1/campaigns/live-daily/no-such-route", { key: liveKey, body: { advanceBy: "2d" } });
    expect(clock.status).toBe(404);
    expect(clock.body.error).toBe("not_found");
    expect(none.status).toBe(404);
    expect(Object.keys(clock.body)).toEqual(Object.keys(none.body));
    const after = (await api(stack, "GET", "/api/v1/campaigns/live-daily", { key: liveKey })).body.campaign as { nextDrawing: unknown };
    expect(after.nextDrawing).toEqual(before.nextDrawing);
    const cli = await cliWith(stack.env, "clock", "advance", "live-daily", "--by", "2d");
    expect(cli.code).toBe(2);
  });

  it("refuses to start without an operator key, RPC URL or SMTP URL, or with a test-only switch", async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ OPERATOR_PRIVATE_KEY: "" }, /^service: OPERATOR_PRIVATE_KEY: production needs/],
      [{ RPC_URL: "" }, /^service: RPC_URL: production needs a real network/],
      [{ PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK: "true" }, /^service: PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK=true is for the test environment only/],
      [{ PRIZEDRAW_HOLD_MOCK_REVEAL: "true" }, /^service: PRIZEDRAW_HOLD_MOCK_REVEAL is for the test environment only/],
      [{ SMTP_URL: "" }, /^service: SMTP_URL: production sends the portal's sign-in links by mail/],
      [{ SMTP_URL: "http://mail.example" }, /^service: SMTP_URL: must be smtp:\/\/\.\.\. or smtps:\/\/\.\.\./],
    ];
    for (const [change, message] of cases) expect(await refusesToStart({ ...stack.env, ...change }, stack.dataDir)).toMatch(message);
  }, 120_000);
});

describe("production refuses what is only for tests", () => {
  let dir: string;
  let anvil: Awaited<ReturnType<typeof startAnvil>> | undefined;
  afterAll(async () => {
    await stop(anvil);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A chain with PrizeDraw deployed, in a folder of its own (no indexer, no service). */
  async function chainWith(randomness: "mock" | "test-entropy-v2", anvilArgs: string[] = []) {
    await stop(anvil);
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = mkdtempSync(path.join(tmpdir(), "prizedraw-prod-"));
    const port = await freePort();
    const rpcUrl = `http://127.0.0.1:${port}`;
    anvil = startAnvil(port, path.join(dir, "anvil-state.json"), path.join(dir, "anvil.log"), anvilArgs);
    await until("anvil", async () => ((await jsonRpc<string>(rpcUrl, "eth_chainId").catch(() => undefined)) ? true : undefined), 20_000, 100, anvil);
    await deployLocal({ rpcUrl, dataDir: dir, randomness });
    return { ...stack.env, PRIZEDRAW_DATA_DIR: dir, RPC_URL: rpcUrl };
  }

  it("refuses to start with a mock randomness provider", async () => {
    const env = await chainWith("mock");
    expect(await refusesToStart(env, dir)).toMatch(/^service: production refuses a mock randomness provider/);
  }, 120_000);

  it("refuses one of anvil's public keys as the operator key on any chain but the local one", async () => {
    const env = await chainWith("test-entropy-v2", ["--chain-id", "84532"]);
    expect(await refusesToStart(env, dir)).toMatch(/^service: OPERATOR_PRIVATE_KEY is one of anvil's public development keys/);
  }, 120_000);
});
