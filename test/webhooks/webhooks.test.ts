// Webhooks without the stack: Standard Webhooks signatures (the spec's published test vector), the retry
// schedule, which drawing changes are events, the outbox written in the change's transaction (and rolled back
// with it), guarantee.awaiting_pick, per-drawing ordering of deliveries, the delivery worker's outcomes with a
// stand-in sender, and endpoints (secret shown once, never listed; rotation overlap; bad URLs store nothing).

import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeEach, describe, expect, it } from "vitest";
import { createCampaign } from "../../api/src/domain/campaigns.js";
import { ServiceError } from "../../api/src/domain/errors.js";
import { checkDuePeriods } from "../../api/src/domain/guarantees.js";
import { newId } from "../../api/src/store/ids.js";
import { WebhookTimer } from "../../api/src/keeper/webhooks.js";
import { logger } from "../../api/src/logger.js";
import type { Campaign } from "../../api/src/store/campaigns.js";
import type { Drawing } from "../../api/src/store/drawings.js";
import { type Store } from "../../api/src/store/index.js";
import { sqliteDriverPackage } from "../../api/src/store/sqliteDriver.js";
import { createEndpoint, deleteEndpoint, listDeliveries, listEndpoints, rotateSecret, signingSecrets } from "../../api/src/webhooks/endpoints.js";
import { drawingEvents, GIVE_UP_AFTER_MS } from "../../api/src/webhooks/events.js";
import { nextAttemptAt, retryDelayMs } from "../../api/src/webhooks/retry.js";
import type { SendResult } from "../../api/src/webhooks/send.js";
import { signWebhook, verifyWebhook, WebhookVerificationError } from "@prizedraw/client";
import { generateSecret, signatureHeader } from "../../api/src/webhooks/signature.js";
import { dailyCampaign, newAccount, storeFilePerTest, upcomingDrawingRow } from "../support/store.js";

// The Standard Webhooks specification's test vector (as in its reference libraries' tests).
const VECTOR = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};
const HOUR = 3_600_000;
const WALLET = "0x00000000000000000000000000000000000000a1";

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.code;
    throw error;
  }
}

// The algorithm and its refusals are tested with the client package that holds them (test/client/webhooks.test.ts);
// here, what the service sends: its secrets and its two-secret header.
describe("signature.ts", () => {
  const headers = (id: string, signature: string) => ({ "webhook-id": id, "webhook-timestamp": String(VECTOR.timestamp), "webhook-signature": signature });
  const now = { nowSeconds: VECTOR.timestamp };

  it("signs the Standard Webhooks test vector as its reference libraries do", () => {
    expect(signatureHeader([VECTOR.secret], VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  });

  it("makes whsec_ secrets of 32 random bytes; a header with two signatures verifies with either secret", () => {
    const [a, b] = [generateSecret(), generateSecret()];
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(32);
    expect(a).not.toBe(b);
    const header = signatureHeader([a, b], "msg_1", VECTOR.timestamp, "{}");
    expect(header.split(" ")).toHaveLength(2);
    for (const secret of [a, b]) expect(verifyWebhook(secret, headers("msg_1", header), "{}", now).id).toBe("msg_1");
    // v1 only: another scheme's entry is skipped.
    const other = `v1a,${signWebhook(a, "msg_1", VECTOR.timestamp, "{}").slice(3)}`;
    expect(codeOf(() => verifyWebhook(a, headers("msg_1", other), "{}", now))).toBe("bad_signature");
  });
});

describe("retry.ts", () => {
  it("backs off 5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h; the test base doubles and never exceeds them", () => {
    const real = { testBaseMs: null };
    expect([1, 2, 3, 4, 5, 6, 7, 12].map((n) => retryDelayMs(n, real))).toEqual([5_000, 300_000, 1_800_000, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR, 10 * HOUR]);
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, { testBaseMs: 200 }))).toEqual([200, 400, 800, 1_600]);
    expect(retryDelayMs(1, { testBaseMs: 60_000 })).toBe(5_000);
  });

  it("makes a last attempt at the give-up time, then fails (3 days after the event)", () => {
    const created = Date.parse("2026-03-01T00:00:00.000Z");
    const giveUp = new Date(created + GIVE_UP_AFTER_MS).toISOString();
    expect(GIVE_UP_AFTER_MS).toBe(72 * HOUR);
    expect(nextAttemptAt(1, new Date(created), giveUp, { testBaseMs: null })).toBe(new Date(created + 5_000).toISOString());
    expect(nextAttemptAt(9, new Date(created + 70 * HOUR), giveUp, { testBaseMs: null })).toBe(giveUp);
    expect(nextAttemptAt(10, new Date(Date.parse(giveUp)), giveUp, { testBaseMs: null })).toBeNull();
    // Within 3 days: the first attempt, 11 retries, and the last one at the give-up time.
    let t = created;
    let attempts = 0;
    for (let next: string | null = new Date(t).toISOString(); next !== null; attempts++) {
      t = Date.parse(next);
      next = nextAttemptAt(attempts + 1, new Date(t), giveUp, { testBaseMs: null });
    }
    expect(attempts).toBe(13);
  });
});

describe("drawingEvents", () => {
  const none = { needsAttention: null };
  it("names the transitions that are events", () => {
    expect(drawingEvents({ status: "open", ...none }, { status: "locked", ...none })).toEqual(["drawing.locked"]);
    expect(drawingEvents({ status: "locked", ...none }, { status: "entropy_requested", ...none })).toEqual([]);
    expect(drawingEvents({ status: "entropy_requested", ...none }, { status: "settled", ...none })).toEqual(["drawing.settled"]);
    expect(drawingEvents({ status: "settled", ...none }, { status: "paid", ...none })).toEqual(["drawing.paid"]);
    expect(drawingEvents({ status: "open", ...none }, { status: "open", needsAttention: "no winners" })).toEqual(["drawing.needs_attention"]);
    // Unchanged or cleared flags are no news; a reorg stepping paid back to settled is none either.
    expect(drawingEvents({ status: "open", needsAttention: "x" }, { status: "open", needsAttention: "x" })).toEqual([]);
    expect(drawingEvents({ status: "open", needsAttention: "x" }, { status: "locked", needsAttention: null })).toEqual(["drawing.locked"]);
    expect(drawingEvents({ status: "paid", ...none }, { status: "settled", ...none })).toEqual([]);
  });
});

describe("the outbox on a real store", () => {
  const files = storeFilePerTest("webhooks");
  let store: Store;
  let accountId: string;
  let campaign: Campaign;

  beforeEach(async () => {
    store = await files.open();
    accountId = await newAccount(store);
    campaign = await dailyCampaign(store, accountId, "hooks", { name: "Hooks" });
  });

  async function drawing(of: Campaign = campaign): Promise<Drawing> {
    const d = upcomingDrawingRow(of);
    await store.drawings.insertIfAbsent(d);
    await store.drawings.replaceWinners(d.id, [{ winnerId: "u-1", displayName: null, avatarUrl: null }]);
    return d;
  }

  const endpoint = async (url = "https://127.0.0.1/hook") => createEndpoint(store, accountId, url, { allowLoopback: true });

  it("records nothing for an account without endpoints", async () => {
    const d = await drawing();
    await store.drawings.update({ ...d, status: "locked" });
    expect(await store.conn.q().selectFrom("webhook_events").select("id").execute()).toEqual([]);
  });

  it("writes each event with its change, as the API shows the drawing; a rolled-back change leaves no event", async () => {
    const { endpoint: e } = await endpoint();
    const d = await drawing();
    await store.tx(() => store.drawings.update({ ...d, status: "locked", lockedAt: new Date().toISOString() }));
    await expect(
      store.tx(async () => {
        await store.drawings.update({ ...d, status: "locked", needsAttention: "chain: refused" });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    const deliveries = await listDeliveries(store, e.id);
    expect(deliveries.map((x) => [x.eventType, x.status, x.attempts])).toEqual([["drawing.locked", "pending", 0]]);
    const body = JSON.parse((await store.conn.q().selectFrom("webhook_events").select("body").executeTakeFirstOrThrow()).body) as { type: string; timestamp: string; data: { campaign: string; drawing: { id: string; status: string; winners: { winner: string }[] } } };
    expect(body.type).toBe("drawing.locked");
    expect(body.data.campaign).toBe("hooks");
    expect(body.data.drawing).toMatchObject({ id: d.id, status: "locked", winners: [{ winner: "u-1" }] });
    expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
    expect(deliveries[0]!.eventId).toMatch(/^msg_[0-9a-z]{20}$/);
  });

  it("records guarantee.awaiting_pick when a period ends without a prize at the threshold", async () => {
    const start = Date.now() - 3 * 86_400_000;
    const withGuarantee = await createCampaign(store, accountId, { slug: "gtd", name: "G", mode: "push", winnersPerDraw: 1, payoutWallet: WALLET, schedule: { cadence: "daily", drawHour: 12, timezone: "UTC", startsAt: new Date(start).toISOString() }, guarantee: { amountCents: 2_000, thresholdCents: 500, periodDays: 1 } }, new Date(start - 86_400_000));
    await store.campaigns.update({ ...withGuarantee, status: "active" });
    const { endpoint: e } = await endpoint();
    const d: Drawing = { ...(await drawing()), id: newId("drw"), campaignId: withGuarantee.id, drawAt: new Date(start + HOUR).toISOString(), status: "settled" };
    await store.drawings.insertIfAbsent(d);
    await store.drawings.replaceWinners(d.id, [{ winnerId: "u-9", displayName: null, avatarUrl: null }]);
    await store.drawings.setPrizes(d.id, [{ position: 0, randomValue: "0x01", roll: 0, amountCents: 100, held: false }]);
    const checked = await checkDuePeriods(store, withGuarantee.id);
    expect(checked[0]!.status).toBe("awaiting_pick");
    const events = (await listDeliveries(store, e.id)).filter((x) => x.eventType === "guarantee.awaiting_pick");
    expect(events).toHaveLength(1);
    expect(events[0]!.subjectId).toBe(checked[0]!.id);
    const body = JSON.parse((await store.conn.q().selectFrom("webhook_events").select("body").where("type", "=", "guarantee.awaiting_pick").executeTakeFirstOrThrow()).body) as { data: unknown };
    expect(body.data).toEqual({ campaign: "gtd", guarantee: { id: checked[0]!.id, period: 1, periodStart: checked[0]!.periodStart, periodEnd: checked[0]!.periodEnd, status: "awaiting_pick", amountCents: 2_000 } });
  });

  it("sends one drawing's events in order (the next waits for the one before), other drawings alongside", async () => {
    await endpoint();
    const [a, b] = [await drawing(), await drawing()];
    await store.drawings.update({ ...a, status: "locked" });
    await store.drawings.update({ ...a, status: "settled" });
    await store.drawings.update({ ...b, status: "locked" });
    const now = new Date(Date.now() + 1_000).toISOString();
    const due = await store.webhooks.due(now, 10);
    expect(due.map((x) => [x.subjectId, x.eventType])).toEqual([[a.id, "drawing.locked"], [b.id, "drawing.locked"]]);
    // The head fails and waits: a's settled event still waits behind it.
    await store.webhooks.recordAttempt(due[0]!.id, { at: now, httpStatus: 500, error: null, durationMs: 3, responseSnippet: null }, { status: "pending", nextAttemptAt: new Date(Date.now() + HOUR).toISOString() });
    expect((await store.webhooks.due(now, 10)).map((x) => x.eventType)).toEqual(["drawing.locked"]);
    expect((await store.webhooks.nextDueAt())! <= now).toBe(true);
    // Once it has failed for good the next one goes.
    await store.webhooks.recordAttempt(due[0]!.id, { at: now, httpStatus: 500, error: null, durationMs: 3, responseSnippet: null }, { status: "failed", nextAttemptAt: null });
    expect((await store.webhooks.due(now, 10)).map((x) => [x.subjectId, x.eventType])).toEqual([[a.id, "drawing.settled"], [b.id, "drawing.locked"]]);
  });

  it("the worker signs with the endpoint's secrets, records each attempt, retries a failure and delivers", async () => {
    const { endpoint: e, secret } = await endpoint();
    const d = await drawing();
    await store.drawings.update({ ...d, status: "locked" });
    const answers: SendResult[] = [{ status: 503, snippet: "x".repeat(50) }, { error: "connection failed (ECONNREFUSED)" }, { status: 204, snippet: "" }];
    const received: { headers: Record<string, string>; body: string }[] = [];
    const timer = new WebhookTimer({ store, logger, allowLoopback: true, retry: { testBaseMs: 1 }, send: async (_url, headers, body) => (received.push({ headers, body }), answers.shift()!) });
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 5));
      const [due] = await store.webhooks.due(new Date().toISOString(), 1);
      await timer.deliver(due!);
    }
    const [delivery] = await listDeliveries(store, e.id);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 3, nextAttemptAt: null });
    expect(delivery!.attemptList.map((x) => [x.httpStatus, x.error])).toEqual([[503, null], [null, "connection failed (ECONNREFUSED)"], [204, null]]);
    expect(delivery!.attemptList[0]!.responseSnippet).toBe("x".repeat(50));
    for (const r of received) {
      expect(r.headers["webhook-id"]).toBe(delivery!.eventId);
      expect(verifyWebhook(secret, r.headers, r.body).id).toBe(delivery!.eventId);
    }
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
  });

  it("the timer does not look at the outbox again and again while a send is open, nor resend an unrecorded attempt at once", async () => {
    await endpoint();
    await store.drawings.update({ ...(await drawing()), status: "locked" });
    let release: () => void = () => undefined;
    let sends = 0;
    const timer = new WebhookTimer({
      store,
      logger,
      allowLoopback: true,
      retry: { testBaseMs: 1 },
      send: async () => {
        sends++;
        await new Promise<void>((r) => (release = r));
        return { status: 200, snippet: "" };
      },
    });
    const realDue = store.webhooks.due.bind(store.webhooks);
    let looks = 0;
    store.webhooks.due = (...args) => (looks++, realDue(...args));
    timer.start();
    try {
      await new Promise((r) => setTimeout(r, 600));
      expect(sends).toBe(1);
      // With the open send counted as due, this was hundreds of looks (a 0 ms timer each time).
      expect(looks).toBeLessThanOrEqual(3);
      // The outcome cannot be stored: the delivery waits instead of being sent again at once.
      const realRecord = store.webhooks.recordAttempt.bind(store.webhooks);
      store.webhooks.recordAttempt = async () => {
        throw new Error("SQLITE_BUSY: database is locked");
      };
      release();
      await new Promise((r) => setTimeout(r, 600));
      expect(sends).toBe(1);
      store.webhooks.recordAttempt = realRecord;
    } finally {
      timer.stop();
      release();
    }
  });

  it("one account's hanging endpoints take at most 2 of the sends at once; another account's events go meanwhile", async () => {
    // This account: two endpoints that do not answer, four drawings locked: eight lane heads, due first.
    await endpoint("https://127.0.0.1/slow-1");
    await endpoint("https://127.0.0.1/slow-2");
    for (let i = 0; i < 4; i++) await store.drawings.update({ ...(await drawing()), status: "locked" });
    // Another account: one endpoint, one event, due after all of them.
    const otherAccount = await newAccount(store);
    const other = await dailyCampaign(store, otherAccount, "other", { name: "Other" });
    await createEndpoint(store, otherAccount, "https://127.0.0.1/other", { allowLoopback: true });
    await new Promise((r) => setTimeout(r, 5));
    await store.drawings.update({ ...(await drawing(other)), status: "locked" });

    const hanging: Array<() => void> = [];
    let slowOpen = 0;
    let mostSlowOpen = 0;
    const delivered: string[] = [];
    const timer = new WebhookTimer({
      store,
      logger,
      allowLoopback: true,
      retry: { testBaseMs: 60_000 },
      send: async (url) => {
        if (url.includes("/slow-")) {
          mostSlowOpen = Math.max(mostSlowOpen, ++slowOpen);
          await new Promise<void>((r) => hanging.push(r));
          slowOpen--;
          return { error: "no answer within 10 s" };
        }
        delivered.push(url);
        return { status: 204, snippet: "" };
      },
    });
    timer.start();
    try {
      const deadline = Date.now() + 5_000;
      while (delivered.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      // With 4 slots for all and no limit per account, the hanging endpoints held every slot and this waited.
      expect(delivered).toEqual(["https://127.0.0.1/other"]);
      expect(slowOpen).toBe(2);
      await new Promise((r) => setTimeout(r, 300));
      expect(mostSlowOpen).toBe(2);
    } finally {
      timer.stop();
      for (const release of hanging) release();
    }
  });

  it("a drawing's change with its events waits for another process's write instead of failing at once", async () => {
    const d = await drawing();
    // Another process holds a write transaction for 700 ms (as the CLI may); busy_timeout is 5 s.
    const holder = spawn(process.execPath, ["-e", `const D = require(${JSON.stringify(sqliteDriverPackage())}); const db = new D(${JSON.stringify(path.join(files.dir, "store.sqlite"))}); db.exec("BEGIN IMMEDIATE"); console.log("held"); setTimeout(() => { db.exec("COMMIT"); db.close(); }, 700);`], { cwd: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../.."), stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((r) => holder.stdout!.once("data", () => r()));
    const started = Date.now();
    await store.drawings.update({ ...d, status: "locked" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect((await store.drawings.byId(campaign.id, d.id))!.status).toBe("locked");
    await new Promise((r) => holder.once("exit", r));
  });

  it("endpoints: the secret is returned once and never listed; rotation signs with both for 24 h; delete stops deliveries", async () => {
    const { endpoint: e, secret } = await endpoint();
    expect(JSON.stringify(await listEndpoints(store, accountId))).not.toContain(secret.slice(6));
    const rotated = await rotateSecret(store, e.id, "operator", new Date("2026-03-01T00:00:00.000Z"));
    expect(rotated.secret).not.toBe(secret);
    expect(rotated.endpoint.previousSecretExpiresAt).toBe("2026-03-02T00:00:00.000Z");
    const row = (await store.webhooks.endpoint(e.id))!;
    expect(signingSecrets(row, new Date("2026-03-01T23:59:59.000Z"))).toEqual([rotated.secret, secret]);
    expect(signingSecrets(row, new Date("2026-03-02T00:00:00.000Z"))).toEqual([rotated.secret]);
    const audit = JSON.stringify(await store.audit.ofAccount(accountId));
    expect(audit).toContain("webhook.create");
    expect(audit).toContain("webhook.rotate");
    for (const s of [secret, rotated.secret]) expect(audit).not.toContain(s.slice(6));

    await store.drawings.update({ ...(await drawing()), status: "locked" });
    expect(await deleteEndpoint(store, e.id)).toMatchObject({ deleted: true, pendingDropped: 1 });
    expect(await listEndpoints(store, accountId)).toEqual([]);
    expect((await listDeliveries(store, e.id)).map((x) => x.status)).toEqual(["failed"]);
    expect(await store.webhooks.due(new Date(Date.now() + HOUR).toISOString(), 10)).toEqual([]);
  });

  it("refuses non-https URLs and private or unresolvable hosts with a clear 400, storing nothing", async () => {
    const refusal = async (url: string, allowLoopback = false) => {
      try {
        await createEndpoint(store, accountId, url, { allowLoopback, resolve: async (host) => (host === "intranet.example" ? [{ address: "10.1.2.3", family: 4 }] : Promise.reject(new Error("ENOTFOUND"))) });
      } catch (error) {
        if (error instanceof ServiceError) return `${error.status} ${error.detail}`;
        throw error;
      }
      return "accepted";
    };
    expect(await refusal("http://hooks.example.com/x")).toBe("400 url: the URL must be https");
    expect(await refusal("https://user:pw@hooks.example.com/x")).toMatch(/^400 url: the URL must not carry credentials/);
    expect(await refusal("not a url")).toBe("400 url: the URL is not valid");
    expect(await refusal("https://192.168.1.10/hook")).toMatch(/^400 url: refused: the host resolves to a loopback, private/);
    expect(await refusal("https://[::1]/hook")).toMatch(/^400 url: refused/);
    expect(await refusal("https://169.254.169.254/latest")).toMatch(/^400 url: refused/);
    expect(await refusal("https://intranet.example/hook")).toMatch(/^400 url: refused/);
    expect(await refusal("https://nowhere.example/hook")).toBe("400 url: the host name does not resolve");
    // http reaches only loopback, and only with the test allowance.
    expect(await refusal("http://127.0.0.1:9/hook", true)).toBe("accepted");
    expect(await refusal("http://intranet.example/hook", true)).toBe("400 url: the URL must be https");
    expect(await refusal("https://hooks.example.com:0/x")).toBe("400 url: the URL's port must be 1 to 65535");
    expect(await store.webhooks.endpoints(accountId)).toHaveLength(1);
  });
});
