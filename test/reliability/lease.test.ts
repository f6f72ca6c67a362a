// One keeper at a time (issue 24) on the real stack: a second service process on the same data folder (same SQLite
// store, another port) serves HTTP but stands by; exactly one of the two holds the keeper lease. A push drawing
// driven entirely through the standby is paid once, by the holder. Then the holder is killed (SIGKILL) in the middle
// of a drawing's steps: the other takes the lease over within 30 s and pays that drawing, once.

import path from "node:path";
import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toCampaignId } from "../../api/src/draw/index.js";
import { REPO_ROOT, freePort, spawnProcess, stop, until, type Proc } from "../support/processes.js";
import { chainDrawing, publicClientFor } from "../support/reorg.js";
import { TEST_WALLET, api, createAccount, startStack, type Stack } from "../support/stack.js";

type Service = { name: string; proc: Proc; baseUrl: string };
type Ready = { ready: boolean; keeper: { leaseHeld: boolean } };

let stack: Stack;
let key: string;
let accountId: string;
let a: Service;
let b: Service;

beforeAll(async () => {
  stack = await startStack();
  ({ accountId, key } = await createAccount(stack, "owner@example.com"));
  a = { name: "A", proc: stack.service, baseUrl: stack.baseUrl };
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const proc = spawnProcess("service B", process.execPath, ["--import", "tsx", path.join(REPO_ROOT, "api/src/main.ts")], {
    env: { ...stack.env, PORT: String(port) },
    cwd: REPO_ROOT,
    log: path.join(stack.dataDir, "service-b.log"),
  });
  b = { name: "B", proc, baseUrl };
  await until("service B", async () => ((await fetch(`${baseUrl}/health`)).ok ? true : undefined), 30_000, 100, proc);
}, 240_000);

afterAll(async () => {
  await stop(b?.proc);
  await stack?.stop();
});

const alive = (s: Service) => s.proc.child.exitCode === null && s.proc.child.signalCode === null;

async function ready(s: Service): Promise<Ready> {
  const response = await fetch(`${s.baseUrl}/ready`);
  return (await response.json()) as Ready;
}

/** The live services that say they hold the lease (asked one after the other). */
async function holders(): Promise<Service[]> {
  const out: Service[] = [];
  for (const s of [a, b]) if (alive(s) && (await ready(s)).keeper.leaseHeld) out.push(s);
  return out;
}

async function drawing(s: Service, slug: string, id: string): Promise<{ status: string; number: number | null }> {
  return (await api(s, "GET", `/api/v1/campaigns/${slug}/drawings/${id}`, { key })).body.drawing as { status: string; number: number | null };
}

/** A push campaign with one winner a draw, activated; its first drawing's winners posted through `s`. */
async function campaignWithWinners(s: Service, slug: string): Promise<{ id: string; cutoffAt: string; campaignId: Hex }> {
  await stack.cli("campaign", "create", "--account", accountId, "--slug", slug, "--name", slug, "--mode", "push", "--cadence", "daily", "--winners", "1", "--payout-wallet", TEST_WALLET);
  await stack.cli("campaign", "activate", slug);
  const open = (await api(s, "GET", `/api/v1/campaigns/${slug}/drawings?status=open`, { key })).body.drawings as { id: string; cutoffAt: string }[];
  expect((await api(s, "POST", `/api/v1/campaigns/${slug}/drawings/${open[0]!.id}/winners`, { key, body: { winners: ["w1"] } })).status).toBe(201);
  return { id: open[0]!.id, cutoffAt: open[0]!.cutoffAt, campaignId: toCampaignId(slug) };
}

async function moveClockPastCutoff(s: Service, slug: string, cutoffAt: string): Promise<void> {
  const moved = await api(s, "POST", `/api/v1/campaigns/${slug}/test-clock`, { key, body: { advanceTo: new Date(Date.parse(cutoffAt) + 1_000).toISOString() } });
  expect(moved.status).toBe(200);
}

/** Paid in the partner API, Paid onchain with one DrawingPaid event, and one drawing payout in the indexer. */
async function expectPaidOnce(s: Service, slug: string, id: string, campaignId: Hex): Promise<void> {
  const paid = await until(`${slug} paid`, async () => {
    const d = await drawing(s, slug, id);
    return d.status === "paid" ? d : undefined;
  }, 60_000, 250);
  expect(paid.number).toBe(1);
  const chain = await chainDrawing(publicClientFor(stack.rpcUrl), stack.deployment, campaignId, 1);
  expect(chain.status).toBe("paid");
  expect(chain.lastNumber).toBe(1); // one number: no second commit
  expect(chain.committedIn).toHaveLength(1);
  expect(chain.paidIn).toHaveLength(1);
  const payouts = await until(`${slug} payout indexed`, async () => {
    const body = (await (await fetch(`${stack.indexerUrl}/payouts?campaignId=${campaignId}`)).json()) as { payouts: { kind: string; number: string | number | null }[] };
    const mine = body.payouts.filter((p) => p.kind === "drawing" && String(p.number) === "1");
    return mine.length > 0 ? mine : undefined;
  }, 20_000, 250);
  expect(payouts).toHaveLength(1);
}

describe("one keeper at a time", () => {
  it("two service processes on one store: exactly one holds the keeper lease, and both are ready", async () => {
    const both = await until("both ready", async () => {
      const [ra, rb] = [await ready(a), await ready(b)];
      return ra.ready && rb.ready ? [ra, rb] : undefined;
    }, 30_000, 250);
    expect(both.filter((r) => r.keeper.leaseHeld)).toHaveLength(1);
    expect(both[0]!.keeper.leaseHeld).toBe(true); // A started first and took it
    expect(b.proc.output()).not.toMatch(/keeper lease acquired/);
  });

  it("a drawing driven through the standby is paid once, by the holder", async () => {
    const { id, cutoffAt, campaignId } = await campaignWithWinners(b, "lease-first");
    await moveClockPastCutoff(b, "lease-first", cutoffAt);
    await expectPaidOnce(b, "lease-first", id, campaignId);
    expect((await holders()).map((s) => s.name)).toEqual(["A"]);
  });

  it("the holder killed mid-drawing: the other takes over within 30 s and pays the drawing once", async () => {
    const [holder] = await holders();
    const standby = holder === a ? b : a;
    const { id, cutoffAt, campaignId } = await campaignWithWinners(standby, "lease-takeover");
    await moveClockPastCutoff(standby, "lease-takeover", cutoffAt);
    // In the middle of the drawing's steps: locked (or committed), not yet paid.
    const at = await until("the holder at work on the drawing", async () => {
      const d = await drawing(standby, "lease-takeover", id);
      return d.status !== "open" ? d.status : undefined;
    }, 20_000, 20);
    process.kill(holder!.proc.pid, "SIGKILL");
    const killed = performance.now();
    await holder!.proc.exited;
    const took = await until("the standby holds the lease", async () => ((await ready(standby)).keeper.leaseHeld ? performance.now() - killed : undefined), 40_000, 100);
    console.log(`[lease] killed ${holder!.name} with the drawing ${at}; ${standby.name} took the lease over after ${(took / 1000).toFixed(1)} s`);
    expect(took).toBeLessThan(30_000);
    expect(standby.proc.output()).toMatch(/keeper lease acquired/);
    await expectPaidOnce(standby, "lease-takeover", id, campaignId);
  });
});
