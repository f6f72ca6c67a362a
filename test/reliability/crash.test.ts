// Crash safety and races on the real stack: the service killed with SIGKILL while entries are being posted
// (every acknowledged request present, none half-stored), and concurrent winner posts racing the cutoff (the
// locked list is one that was accepted, nothing else changes it, no 5xx).

import { describe, expect, it } from "vitest";
import { until } from "../support/processes.js";
import { api, type Stack } from "../support/stack.js";
import { activeCampaign, campaignWithOpenDrawing, clockTo } from "../support/partner.js";
import { useStack } from "../support/suite.js";

let stack: Stack;
let key: string;
let accountId: string;

useStack("owner@example.com", (started) => ({ stack, accountId, key } = started));

describe("crash safety", () => {
  it("keeps every acknowledged entries request and no half of any other across SIGKILLs", async () => {
    await activeCampaign(stack, accountId, "crash-entries", { name: "C", mode: "entries" });
    const acknowledged: number[] = [];
    const unacknowledged: number[] = [];
    let batch = 0;
    let stopping = false;
    const writer = (async () => {
      while (!stopping) {
        const id = batch++;
        const entries = Array.from({ length: 200 }, (_, i) => `b${id}-e${i}`);
        try {
          const r = await api(stack, "POST", "/api/v1/campaigns/crash-entries/entries", { key, body: { entries } });
          (r.status === 200 ? acknowledged : unacknowledged).push(id);
        } catch {
          unacknowledged.push(id); // connection cut by the kill: the client cannot know
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    })();
    // Each kill lands mid-stream: after at least one more acknowledged request (a fresh process on PostgreSQL takes
    // a while to answer its first), then a short, varied delay.
    for (const delay of [150, 400, 250, 600]) {
      const seen = acknowledged.length;
      await until("an acknowledged request since the last start", async () => (acknowledged.length > seen ? true : undefined), 30_000, 10);
      await new Promise((r) => setTimeout(r, delay));
      await stack.restartService("SIGKILL");
    }
    await new Promise((r) => setTimeout(r, 300));
    stopping = true;
    await writer;
    expect(acknowledged.length).toBeGreaterThan(3);

    const present = new Map<number, number>();
    let after: string | null = null;
    let count = 0;
    do {
      const r = await api(stack, "GET", `/api/v1/campaigns/crash-entries/entries?limit=1000${after ? `&after=${after}` : ""}`, { key });
      const body = r.body as { count: number; entries: { entrantId: string }[]; next: string | null };
      count = body.count;
      for (const e of body.entries) {
        const id = Number(/^b(\d+)-/.exec(e.entrantId)![1]);
        present.set(id, (present.get(id) ?? 0) + 1);
      }
      after = body.next;
    } while (after !== null);
    for (const id of acknowledged) expect(present.get(id), `acknowledged batch ${id}`).toBe(200);
    for (const id of unacknowledged) expect([0, 200], `unacknowledged batch ${id}`).toContain(present.get(id) ?? 0);
    expect(count).toBe([...present.values()].reduce((a, b) => a + b, 0));
  });
});

describe("races", () => {
  it("winner posts racing the cutoff: the locked list is one that was accepted, and nothing after changes it", async () => {
    const open = await campaignWithOpenDrawing(stack, { accountId, key }, "race", { name: "R", winners: 2 });
    await clockTo(stack, key, "race", new Date(open.cutoffAt).getTime() - 1_500);
    const results: { list: string; status: number }[] = [];
    const until2 = performance.now() + 3_500;
    await Promise.all(
      Array.from({ length: 5 }, async (_, client) => {
        for (let n = 0; performance.now() < until2; n++) {
          const list = [`c${client}-${n}-a`, `c${client}-${n}-b`];
          const r = await api(stack, "POST", `/api/v1/campaigns/race/drawings/${open.id}/winners`, { key, body: { winners: list } });
          results.push({ list: list.join(","), status: r.status });
        }
      }),
    );
    expect(results.every((r) => [200, 201, 409].includes(r.status))).toBe(true);
    expect(results.some((r) => r.status === 409)).toBe(true);
    const locked = await until("locked", async () => {
      const d = (await api(stack, "GET", `/api/v1/campaigns/race/drawings/${open.id}`, { key })).body.drawing as { status: string; winners: { winner: string }[] };
      return d.status !== "open" ? d : undefined;
    }, 30_000, 200);
    const lockedList = locked.winners.map((w) => w.winner).join(",");
    expect(results.filter((r) => r.status !== 409).map((r) => r.list)).toContain(lockedList);
    // A different list after the lock is refused; the same one is accepted.
    expect((await api(stack, "POST", `/api/v1/campaigns/race/drawings/${open.id}/winners`, { key, body: { winners: ["x", "y"] } })).status).toBe(409);
    expect((await api(stack, "POST", `/api/v1/campaigns/race/drawings/${open.id}/winners`, { key, body: { winners: lockedList.split(",") } })).status).toBe(200);
  });
});
