// One keeper at a time on the real stack, with the store in PostgreSQL: two service processes (another
// port, the same data folder) share one database on a private PostgreSQL server (STORE_URL); both serve HTTP, and
// exactly one of the two holds the keeper lease while the other stands by. A push drawing driven entirely through
// the standby is paid once, by the holder. Entries sent to both processes at once, in full batches, stop at exactly
// 100,000: each batch is stored whole or not at all, and a list posted to one is read through the other at once.
// Then the holder hangs (SIGSTOP, alive: as a process on another machine that stopped answering): the other takes
// the lease over when it expires and pays a drawing once; woken, the old holder stands by. Then the holder is killed
// (SIGKILL) in the middle of a drawing's steps: the other takes the lease over within 30 s and pays that drawing,
// once (one number, one payout onchain). The cases before the kill need both processes.

import { existsSync } from "node:fs";
import path from "node:path";
import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_ENTRANTS_PER_DRAWING, MAX_ENTRIES_PER_REQUEST } from "../../api/src/domain/entries.js";
import { toCampaignId } from "../../api/src/draw/index.js";
import { KEEPER_LEASE } from "../../api/src/keeper/lease.js";
import { storePath } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import { startPostgres, type Postgres } from "../support/postgres.js";
import { REPO_ROOT, SERVICE_ARGS, freePort, spawnProcess, stop, until, type Proc } from "../support/processes.js";
import { chainDrawing, publicClientFor } from "../support/reorg.js";
import { api, createAccount, startStack, type Stack } from "../support/stack.js";
import { activeCampaign, clockPast, firstOpenDrawing, getDrawing, postWinners, waitForStatus } from "../support/partner.js";

type Service = { name: string; proc: Proc; baseUrl: string };
type Ready = { ready: boolean; keeper: { leaseHeld: boolean } };
type EntriesResult = { drawing: { id: string }; added: number; updated: number; unchanged: number; count: number; totalWeight: number };
type EntriesPage = { count: number; totalWeight: number; entries: { entrantId: string }[]; next: string | null };

let postgres: Postgres;
let storeUrl: string;
let stack: Stack;
let key: string;
let accountId: string;
let a: Service;
let b: Service;

beforeAll(async () => {
  postgres = await startPostgres();
  await postgres.query("CREATE DATABASE prizedraw_store");
  storeUrl = postgres.url.replace(/\/postgres$/, "/prizedraw_store");
  // stack.env carries STORE_URL to service A, to the CLI and (below) to service B.
  stack = await startStack({ extraEnv: { STORE_URL: storeUrl } });
  ({ accountId, key } = await createAccount(stack, "owner@example.com"));
  a = { name: "A", proc: stack.service, baseUrl: stack.baseUrl };
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const proc = spawnProcess("service B", process.execPath, [...SERVICE_ARGS], {
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
  await postgres?.stop();
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

const drawing = (s: Service, slug: string, id: string) => getDrawing(s, key, slug, id, { check: false });

/** A push campaign with one winner a draw, activated; its first drawing's winners posted through `s`. */
async function campaignWithWinners(s: Service, slug: string): Promise<{ id: string; cutoffAt: string; campaignId: Hex }> {
  await activeCampaign(stack, accountId, slug, { winners: 1 });
  const open = await firstOpenDrawing(s, key, slug);
  await postWinners(s, key, slug, open.id, ["w1"]);
  return { id: open.id, cutoffAt: open.cutoffAt, campaignId: toCampaignId(slug) };
}

const moveClockPastCutoff = (s: Service, slug: string, cutoffAt: string) => clockPast(s, key, slug, { cutoffAt });

/** Paid in the partner API, Paid onchain with one DrawingPaid event, and one drawing payout in the indexer. */
async function expectPaidOnce(s: Service, slug: string, id: string, campaignId: Hex): Promise<void> {
  const paid = await waitForStatus(s, key, slug, id, "paid");
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

/** `MAX_ENTRIES_PER_REQUEST` new entrants, batch `k`'s own (ids `b<k>-<i>`), weights 1 to 3. */
function batch(k: number): { entrantId: string; weight: number }[] {
  return Array.from({ length: MAX_ENTRIES_PER_REQUEST }, (_, i) => ({ entrantId: `b${k}-${i}`, weight: 1 + (i % 3) }));
}
const BATCH_WEIGHT = batch(0).reduce((sum, e) => sum + e.weight, 0);

const postEntries = (s: Service, slug: string, entries: unknown[]) => api(s, "POST", `/api/v1/campaigns/${slug}/entries`, { key, body: { entries } });

/** The open drawing's entrant count and total weight, as `s` reads them. */
async function entrantCount(s: Service, slug: string): Promise<{ count: number; totalWeight: number }> {
  const r = await api(s, "GET", `/api/v1/campaigns/${slug}/entries?limit=1`, { key });
  expect(r.status).toBe(200);
  const { count, totalWeight } = r.body as EntriesPage;
  return { count, totalWeight };
}

/** Every entrant id of the open drawing in arrival order, read through `s` a page of 1,000 at a time. */
async function allEntrants(s: Service, slug: string): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  do {
    const r = await api(s, "GET", `/api/v1/campaigns/${slug}/entries?limit=1000${after === null ? "" : `&after=${after}`}`, { key });
    expect(r.status).toBe(200);
    const page = r.body as EntriesPage;
    ids.push(...page.entries.map((e) => e.entrantId));
    after = page.next;
  } while (after !== null);
  return ids;
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
    // The store is the PostgreSQL database: no SQLite file in the data folder, and the lease row there names A.
    expect(existsSync(storePath(stack.dataDir))).toBe(false);
    const store = await openServiceStore(storeUrl);
    try {
      expect(store.conn.engine).toBe("postgres");
      const lease = await store.leases.current(KEEPER_LEASE);
      expect(lease?.holder.split(":")[1]).toBe(String(a.proc.pid));
    } finally {
      await store.close();
    }
  });

  it("a drawing driven through the standby is paid once, by the holder", async () => {
    const { id, cutoffAt, campaignId } = await campaignWithWinners(b, "lease-first");
    await moveClockPastCutoff(b, "lease-first", cutoffAt);
    await expectPaidOnce(b, "lease-first", id, campaignId);
    expect((await holders()).map((s) => s.name)).toEqual(["A"]);
  });

  it("entries sent to both processes at once stop at exactly 100,000, each batch whole or refused", async () => {
    const slug = "lease-entries";
    await activeCampaign(stack, accountId, slug, { mode: "entries", winners: 3 });
    const FULL = MAX_ENTRANTS_PER_DRAWING / MAX_ENTRIES_PER_REQUEST; // batches that fit: 100
    const ids = (k: number) => batch(k).map((e) => e.entrantId);

    // A list posted to one process is read through the other at once, both ways (one store, nothing cached).
    const first = await postEntries(a, slug, batch(0));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ added: 1_000, updated: 0, unchanged: 0, count: 1_000 });
    expect(await allEntrants(b, slug)).toEqual(ids(0));
    const second = await postEntries(b, slug, batch(1));
    expect(second.body).toMatchObject({ added: 1_000, count: 2_000 });
    expect(await allEntrants(a, slug)).toEqual([...ids(0), ...ids(1)]);
    expect(await entrantCount(a, slug)).toEqual({ count: 2_000, totalWeight: 2 * BATCH_WEIGHT });

    // Then eight writers at once, four on each process (batch k goes to A when k is even, else B), each taking the
    // next batch until one is refused; the ones in flight then finish. A guard stops a cap that does not hold.
    type Sent = { k: number; via: string; status: number; body: Record<string, unknown> };
    const sent: Sent[] = [];
    let next = 2;
    let refused = false;
    const writer = async () => {
      while (!refused && next < FULL + 30) {
        const k = next++;
        const via = k % 2 === 0 ? a : b;
        const r = await postEntries(via, slug, batch(k));
        sent.push({ k, via: via.name, ...r });
        if (r.status !== 200) refused = true;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: 8 }, writer));
    const seconds = (performance.now() - started) / 1000;
    const accepted = sent.filter((r) => r.status === 200);
    const rejected = sent.filter((r) => r.status !== 200);
    console.log(`[lease] entries: ${sent.length} batches of ${MAX_ENTRIES_PER_REQUEST} to A and B at once in ${seconds.toFixed(1)} s: ${accepted.length} accepted (A ${accepted.filter((r) => r.via === "A").length}, B ${accepted.filter((r) => r.via === "B").length}), ${rejected.length} refused`);

    expect(accepted).toHaveLength(FULL - 2);
    expect(new Set(accepted.map((r) => r.via))).toEqual(new Set(["A", "B"]));
    for (const r of accepted) expect(r.body).toMatchObject({ drawing: { id: (first.body as EntriesResult).drawing.id }, added: 1_000, updated: 0, unchanged: 0 });
    // Written one after the other across both processes: every running count from 3,000 to 100,000 once.
    expect(accepted.map((r) => (r.body as EntriesResult).count).sort((x, y) => x - y)).toEqual(Array.from({ length: FULL - 2 }, (_, i) => (i + 3) * 1_000));
    expect(rejected.length).toBeGreaterThan(0);
    for (const r of rejected) expect({ status: r.status, error: r.body.error }).toEqual({ status: 409, error: "too_many_entrants" });
    // Full: both processes read 100,000 and refuse one more entrant.
    for (const s of [a, b]) {
      expect(await entrantCount(s, slug)).toEqual({ count: MAX_ENTRANTS_PER_DRAWING, totalWeight: FULL * BATCH_WEIGHT });
      const over = await postEntries(s, slug, [`one-too-many-${s.name}`]);
      expect({ status: over.status, error: over.body.error }).toEqual({ status: 409, error: "too_many_entrants" });
    }
    // All or nothing: every accepted batch is there whole, nothing of a refused one, and no entrant twice.
    const stored = await allEntrants(b, slug);
    expect(stored).toHaveLength(MAX_ENTRANTS_PER_DRAWING);
    expect(new Set(stored).size).toBe(MAX_ENTRANTS_PER_DRAWING);
    const perBatch = new Map<number, number>();
    for (const id of stored) {
      const k = Number(id.slice(1, id.indexOf("-")));
      perBatch.set(k, (perBatch.get(k) ?? 0) + 1);
    }
    const acceptedBatches = [0, 1, ...accepted.map((r) => r.k)].sort((x, y) => x - y);
    expect([...perBatch.keys()].sort((x, y) => x - y)).toEqual(acceptedBatches);
    expect([...perBatch.values()].every((n) => n === MAX_ENTRIES_PER_REQUEST)).toBe(true);
  }, 240_000);

  it("the holder hung (SIGSTOP: alive, as a process on another machine that stopped answering): the other takes over when the lease expires, and the old holder stands by once it wakes", async () => {
    const [holder] = await holders();
    const standby = holder === a ? b : a;
    // While it is stopped nothing asks the hung process anything (a request would wait for it).
    process.kill(holder!.proc.pid, "SIGSTOP");
    const stopped = performance.now();
    try {
      const took = await until("the standby holds the lease", async () => ((await ready(standby)).keeper.leaseHeld ? performance.now() - stopped : undefined), 45_000, 250);
      console.log(`[lease] stopped ${holder!.name} (SIGSTOP); ${standby.name} took the lease over after ${(took / 1000).toFixed(1)} s`);
      // Not the dead-process shortcut (the holder's pid is alive): the lease ran out (15 s, renewed every 5 s).
      expect(took).toBeGreaterThan(5_000);
      expect(took).toBeLessThan(30_000);
      const { id, cutoffAt, campaignId } = await campaignWithWinners(standby, "lease-hung");
      await moveClockPastCutoff(standby, "lease-hung", cutoffAt);
      await expectPaidOnce(standby, "lease-hung", id, campaignId);
    } finally {
      process.kill(holder!.proc.pid, "SIGCONT");
    }
    // Woken, its renewal is refused: it stops its keeper and stands by. One holder.
    await until("the woken process stands by", async () => ((await ready(holder!)).keeper.leaseHeld ? undefined : true), 30_000, 250);
    expect((await holders()).map((s) => s.name)).toEqual([standby.name]);
    expect(holder!.proc.output()).toMatch(/keeper lease lost/);
  }, 150_000);

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
  }, 150_000);
});
