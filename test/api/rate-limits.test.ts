// Rate limits on the real stack, set small here (the defaults are far above anything a test sends): per API key and
// per client address on the partner API, per client address on the public endpoints. Behind TRUSTED_PROXY_HOPS=1
// each test claims its own client address with X-Forwarded-For, so the tests do not share a bucket. Also: an
// answer carries no Strict-Transport-Security outside production, /ready shows its detail in the test environment,
// and the partner routes that take no query parameter refuse one.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openServiceStore } from "../../api/src/serviceStore.js";
import { until } from "../support/processes.js";
import { postBody } from "../support/rawBody.js";
import { TEST_WALLET, api, createAccount, startStack, type Stack } from "../support/stack.js";

/** Requests a minute: each bucket holds one minute's worth and refills evenly (one request every 60/N seconds). */
const PER_KEY = 30;
const API_PER_CLIENT = 60;
const PUBLIC_PER_CLIENT = 20;

let stack: Stack;
let accountId: string;
/** Two keys of one account, and a key of another account. */
let keyA1: string;
let keyA2: string;
let keyB: string;
let drawingId: string;

type Reply = { status: number; headers: Headers; body: Record<string, unknown> };

/** A request from the client at `address` (the X-Forwarded-For entry the one trusted proxy wrote). */
function from(address: string, route: string, options: { key?: string; method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
  const { method = "GET", headers, ...rest } = options;
  return api(stack, method, route, { ...rest, headers: { "x-forwarded-for": address, ...headers } });
}

/** The 429 the spec reserves: `{ error, detail }` and Retry-After in whole seconds, at most the bucket's refill time. */
function expectLimited(reply: Reply, perMinute: number): number {
  expect(reply.status, JSON.stringify(reply.body)).toBe(429);
  expect(reply.body).toEqual({ error: "rate_limited", detail: expect.any(String) });
  const retryAfter = reply.headers.get("retry-after");
  expect(retryAfter).toMatch(/^[1-9]\d*$/);
  expect(Number(retryAfter)).toBeLessThanOrEqual(Math.ceil(60 / perMinute));
  expect(reply.headers.get("request-id")).toBeTruthy();
  return Number(retryAfter);
}

/** Reads with `key` until the key is refused (at most a minute's worth and one). */
async function exhaust(key: string, address: string): Promise<void> {
  for (let i = 0; i <= PER_KEY; i++) if ((await from(address, "/api/v1/campaigns", { key })).status === 429) return;
  throw new Error(`${PER_KEY + 1} reads and no 429`);
}

beforeAll(async () => {
  stack = await startStack({
    extraEnv: {
      RATE_LIMITS: "on",
      RATE_LIMIT_PER_KEY: String(PER_KEY),
      RATE_LIMIT_API_PER_CLIENT: String(API_PER_CLIENT),
      RATE_LIMIT_PUBLIC_PER_CLIENT: String(PUBLIC_PER_CLIENT),
      TRUSTED_PROXY_HOPS: "1",
    },
  });
  ({ accountId, key: keyA1 } = await createAccount(stack, "limits-a@example.com"));
  keyA2 = (await stack.cli("key", "create", "--account", accountId)).key as string;
  const setupKey = (await stack.cli("key", "create", "--account", accountId)).key as string;
  ({ key: keyB } = await createAccount(stack, "limits-b@example.com"));
  await stack.cli("campaign", "create", "--account", accountId, "--slug", "limits-entries", "--name", "Limits", "--mode", "entries", "--cadence", "daily", "--payout-wallet", TEST_WALLET);
  await stack.cli("campaign", "activate", "limits-entries");
  drawingId = await until("an open drawing", async () => {
    const r = await from("198.51.100.1", "/api/v1/campaigns/limits-entries/drawings?status=open", { key: setupKey });
    return (r.body.drawings as { id: string }[] | undefined)?.[0]?.id;
  }, 30_000, 250);
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

describe("per API key", () => {
  it(`answers the request after ${PER_KEY} a minute 429 with Retry-After, and again once that many seconds passed`, async () => {
    const address = "198.51.100.10";
    for (let i = 0; i < PER_KEY; i++) expect((await from(address, "/api/v1/campaigns/limits-entries", { key: keyA1 })).status, `request ${i + 1}`).toBe(200);
    const refused = await from(address, "/api/v1/campaigns/limits-entries", { key: keyA1 });
    const wait = expectLimited(refused, PER_KEY);
    expect(refused.body.detail).toMatch(/API key/);
    await new Promise((r) => setTimeout(r, wait * 1_000 + 200));
    expect((await from(address, "/api/v1/campaigns/limits-entries", { key: keyA1 })).status).toBe(200);
  });

  it("refuses a POST over the limit before it runs: no entrant and no Idempotency-Key stored", async () => {
    const address = "198.51.100.11";
    await exhaust(keyA1, address);
    const refused = await from(address, "/api/v1/campaigns/limits-entries/entries", { key: keyA1, method: "POST", body: { entries: ["late-entrant"] }, headers: { "idempotency-key": "limited-post-1" } });
    expectLimited(refused, PER_KEY);
    const store = await openServiceStore(stack.storeLocation);
    try {
      expect(await store.conn.q().selectFrom("idempotency_keys").select("key").where("key", "=", "limited-post-1").execute()).toHaveLength(0);
      expect(await store.conn.q().selectFrom("entries").select("entrant_id").where("entrant_id", "=", "late-entrant").execute()).toHaveLength(0);
    } finally {
      await store.close();
    }
  });

  it("leaves another key alone, of the same account or another", async () => {
    const address = "198.51.100.12";
    await exhaust(keyA1, address);
    // The same POST with the same Idempotency-Key under the account's other key runs as a first request: the
    // refused one left nothing behind to replay.
    const posted = await from(address, "/api/v1/campaigns/limits-entries/entries", { key: keyA2, method: "POST", body: { entries: ["late-entrant"] }, headers: { "idempotency-key": "limited-post-1" } });
    expect(posted.status).toBe(200);
    expect(posted.headers.get("idempotent-replayed")).toBeNull();
    expect(posted.body).toMatchObject({ added: 1, count: 1 });
    expect((await from(address, "/api/v1/campaigns", { key: keyB })).status).toBe(200);
  });

  it("counts a large body by its size: one request plus one for each whole MiB declared", async () => {
    const address = "198.51.100.13";
    const key = (await stack.cli("key", "create", "--account", accountId)).key as string;
    const MiB = 1024 * 1024;
    // PER_KEY - 1 MiB of whitespace before the list: this one request takes the key's whole minute.
    const body = `${" ".repeat((PER_KEY - 1) * MiB)}{"entries":["big-body"]}`;
    const big = await postBody(stack, "/api/v1/campaigns/limits-entries/entries", body, { headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-forwarded-for": address } });
    expect(big.status, big.text).toBe(200);
    expectLimited(await from(address, `/api/v1/campaigns/limits-entries/drawings/${drawingId}`, { key }), PER_KEY);
  });
});

describe("per client address", () => {
  it(`partner API: ${API_PER_CLIENT} a minute from one address, whatever the key (none, or a wrong one), checked before the key`, async () => {
    const address = "198.51.100.20";
    for (let i = 0; i < API_PER_CLIENT; i++) expect((await from(address, "/api/v1/campaigns/limits-entries", { key: i % 2 ? "pd_test_nope" : undefined })).status, `request ${i + 1}`).toBe(401);
    const refused = await from(address, "/api/v1/campaigns/limits-entries");
    expectLimited(refused, API_PER_CLIENT);
    expect(refused.body.detail).toMatch(/address/);
    // A valid key from the same address is refused too; another address is not.
    expect((await from(address, "/api/v1/campaigns/limits-entries", { key: keyB })).status).toBe(429);
    expect((await from("198.51.100.21", "/api/v1/campaigns/limits-entries")).status).toBe(401);
  });

  it(`public endpoints: ${PUBLIC_PER_CLIENT} a minute from one address, kept reads and /ready included, /health not counted`, async () => {
    const address = "198.51.100.30";
    const route = "/campaigns/limits-entries/draws.json";
    for (let i = 0; i < PUBLIC_PER_CLIENT - 1; i++) expect((await from(address, route)).status, `request ${i + 1}`).toBe(200);
    // Ready or not (the indexer may lag a moment), /ready answers, and counts.
    expect([200, 503]).toContain((await from(address, "/ready")).status);
    const refused = await from(address, route);
    expectLimited(refused, PUBLIC_PER_CLIENT);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect((await from(address, "/ready")).status).toBe(429);
    expect((await from(address, "/health")).status).toBe(200);
    expect((await from("198.51.100.31", route)).status).toBe(200);
  });
});

describe("outside production", () => {
  it("sends no Strict-Transport-Security, and /ready shows its detail", async () => {
    const ready = await from("198.51.100.40", "/ready");
    expect(ready.headers.get("strict-transport-security")).toBeNull();
    expect(Object.keys(ready.body).sort()).toEqual(["chain", "indexer", "keeper", "ready", "store"]);
    expect(ready.body).toMatchObject({ store: true, chain: { ok: true }, keeper: { leaseHeld: true } });
    expect((await from("198.51.100.40", "/api/v1/campaigns", { key: keyB })).headers.get("strict-transport-security")).toBeNull();
  });
});

describe("query parameters", () => {
  it("refuses an unknown one on the partner routes that take none: a campaign, a drawing, the guarantees", async () => {
    const address = "198.51.100.50";
    for (const route of ["/api/v1/campaigns/limits-entries?expand=all", `/api/v1/campaigns/limits-entries/drawings/${drawingId}?expand=all`, "/api/v1/campaigns/limits-entries/guarantees?expand=all"]) {
      const r = await from(address, route, { key: keyA2 });
      expect(r.status, route).toBe(400);
      expect(r.body, route).toEqual({ error: "bad_request", detail: expect.stringContaining("expand") });
    }
    // Without one, the same routes answer.
    expect((await from(address, "/api/v1/campaigns/limits-entries", { key: keyA2 })).status).toBe(200);
  });
});
