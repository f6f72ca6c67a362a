// Secrets and access on the real stack (anvil + contracts + Ponder + the service process + the CLI): a full run
// with keys created, used, revoked and guessed, a pull campaign whose URL carries a secret token, a push campaign
// drawn through paid with a guarantee picked and paid onchain, and an entries campaign; then every log line the run
// produced and every public and partner-API response is searched for every key, every key's secret, the pull URL's
// token and the operator's private key. Also: keys are stored only as hashes and compared in constant time, keys of
// the other environment are refused, another account's resources are 404 exactly like missing ones, and pages and
// JSON answers carry the security headers.

import { createHash, randomBytes } from "node:crypto";
import { readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANVIL_KEYS } from "../../api/src/config.js";
import { hashSecret, secretMatches } from "../../api/src/domain/keys.js";
import { storePath } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import { REPO_ROOT, until } from "../support/processes.js";
import { startStack, type Stack } from "../support/stack.js";
import { activeCampaign, guaranteeCampaign } from "../support/partner.js";
import { rawSqlite } from "../support/store.js";

let stack: Stack;
const DAY = 86_400_000;

type Key = { key: string; keyId: string; secret: string };
/** Every key the run creates (the needles), with the account it belongs to. */
const keys: (Key & { account: string })[] = [];
const TOKEN = randomBytes(24).toString("hex");
const PULL_URL = `https://partner.invalid/${TOKEN}/{drawingId}`;

type Answer = { status: number; headers: Headers; text: string; body: Record<string, unknown> };
/** Every response body (with its headers) the run received: partner API and public endpoints. */
const partnerAnswers: { route: string; answer: Answer }[] = [];
const publicAnswers: { route: string; answer: Answer }[] = [];

let accountA: string;
let accountB: string;
let keyA: Key;
let revoked: Key;
let keyB: Key;
let paidDrawingId: string;
let entriesDrawingA: string;
let guaranteeId: string;

function asKey(key: string, keyId: string): Key {
  return { key, keyId, secret: key.slice(`pd_test_${keyId}_`.length) };
}

async function createKey(account: string, ...extra: string[]): Promise<Key> {
  const out = await stack.cli("key", "create", "--account", account, ...extra);
  const k = asKey(out.key as string, out.keyId as string);
  keys.push({ ...k, account });
  return k;
}

async function request(route: string, options: { method?: string; key?: string | null; body?: unknown; authorization?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  else if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${stack.baseUrl}${route}`, { method: options.method ?? "GET", headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = {};
  }
  const answer = { status: response.status, headers: response.headers, text, body };
  (route.startsWith("/api/") ? partnerAnswers : publicAnswers).push({ route, answer });
  return answer;
}

/** A partner-API call with A's key (recorded like every other answer). */
const partner = (route: string, options: { method?: string; body?: unknown; key?: string | null; authorization?: string } = {}) => request(`/api/v1${route}`, { key: keyA.key, ...options });

type Drawing = { id: string; status: string; cutoffAt: string; drawAt: string; winners: { winner: string }[] };

async function openDrawings(slug: string): Promise<Drawing[]> {
  const r = await partner(`/campaigns/${slug}/drawings?status=open`);
  expect(r.status).toBe(200);
  return r.body.drawings as Drawing[];
}

async function clock(slug: string, to: number): Promise<void> {
  const r = await partner(`/campaigns/${slug}/test-clock`, { method: "POST", body: { advanceTo: new Date(to).toISOString() } });
  expect(r.status).toBe(200);
}

function readLog(name: string): string {
  const file = path.join(stack.dataDir, name);
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

beforeAll(async () => {
  stack = await startStack();
  accountA = (await stack.cli("account", "create", "--email", "owner-a@example.com")).accountId as string;
  accountB = (await stack.cli("account", "create", "--email", "owner-b@example.com")).accountId as string;
  keyA = await createKey(accountA);
  revoked = await createKey(accountA, "--as", "owner-a@example.com");
  keyB = await createKey(accountB);
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

describe("a full run", () => {
  it("a pull campaign whose URL holds a secret token: fetched (and failing) before its cutoff, alert raised, URL masked", async () => {
    await activeCampaign(stack, accountA, "sec-pull", { name: "Secret pull", mode: "pull", winners: 2, flags: ["--timezone", "UTC", "--pull-url", PULL_URL] });
    const campaign = await partner("/campaigns/sec-pull");
    expect((campaign.body.campaign as { pullUrl: string }).pullUrl).toBe("https://partner.invalid/…");
    const [first] = await openDrawings("sec-pull");
    const cutoff = Date.parse(first!.cutoffAt);
    // Inside the 2-hour window: the keeper fetches (partner.invalid never resolves) and records the failure.
    await clock("sec-pull", cutoff - 90 * 60_000);
    const fetched = await until("a recorded fetch", async () => {
      const out = await stack.cli("drawing", "fetches", "sec-pull", first!.id);
      return (out.fetches as { outcome: string; reason: string | null }[]).length > 0 ? (out.fetches as { outcome: string; reason: string | null }[]) : undefined;
    }, 30_000, 250);
    expect(fetched[0]!.outcome).toBe("error");
    // In the last 5 minutes: the staff alert (a log line and a row).
    await clock("sec-pull", cutoff - 4 * 60_000);
    await until("the staff alert", async () => {
      const out = await stack.cli("alerts", "list");
      return (out.alerts as unknown[]).length > 0 ? out : undefined;
    }, 30_000, 250);
    expect(readLog("service.log")).toMatch(/pull_url_failing/);
  });

  it("a push campaign drawn through paid, its guarantee picked and paid onchain", async () => {
    // As test/api/guarantees.test.ts: one-day periods from the next full hour S, draws at S+12h.
    const start = await guaranteeCampaign(stack, accountA, "sec-push", { name: "Secret push", prizeCents: 100, guarantee: "2000,500,1" });
    const [next] = await openDrawings("sec-push");
    expect((await partner(`/campaigns/sec-push/drawings/${next!.id}/winners`, { method: "POST", body: { winners: ["s-1", { winner: "s-2", displayName: "Sam" }] } })).status).toBe(201);
    await clock("sec-push", Date.parse(next!.cutoffAt) + 1_000);
    await until("drawing paid", async () => {
      const d = (await partner(`/campaigns/sec-push/drawings/${next!.id}`)).body.drawing as Drawing;
      return d.status === "paid" ? d : undefined;
    }, 60_000, 250);
    paidDrawingId = next!.id;
    await clock("sec-push", start + DAY + 60_000);
    const [period] = await until("the checked period", async () => {
      const list = (await partner("/campaigns/sec-push/guarantees")).body.guarantees as { id: string; status: string }[];
      return list.length > 0 ? list : undefined;
    }, 60_000, 250);
    expect(period!.status).toBe("awaiting_pick");
    guaranteeId = period!.id;
    const picked = await partner(`/campaigns/sec-push/guarantees/${guaranteeId}/pick`, { method: "POST", body: { winner: "s-1" } });
    expect(picked.status).toBe(201);
    await until("guarantee paid", async () => {
      const list = (await partner("/campaigns/sec-push/guarantees")).body.guarantees as { status: string }[];
      return list[0]!.status === "paid" ? list : undefined;
    }, 60_000, 250);
  });

  it("an entries campaign for each account, and a push campaign for B", async () => {
    await activeCampaign(stack, accountA, "sec-entries", { name: "Secret entries", mode: "entries", winners: 2 });
    const added = await partner("/campaigns/sec-entries/entries", { method: "POST", body: { entries: ["e-1", { entrantId: "e-2", weight: 3 }] } });
    expect(added.status).toBe(200);
    entriesDrawingA = (added.body.drawing as { id: string }).id;
    for (const [slug, mode] of [["sec-b-entries", "entries"], ["sec-b-push", "push"]] as const) {
      await activeCampaign(stack, accountB, slug, { name: `B ${slug}`, mode, winners: 2 });
    }
  });

  it("refuses a revoked key, a wrong secret for a real key id, a malformed key and a pd_live_ key with 401", async () => {
    expect((await partner("/campaigns/sec-push", { key: revoked.key })).status).toBe(200);
    await stack.cli("key", "revoke", "--account", accountA, revoked.keyId);
    const afterRevoke = await partner("/campaigns/sec-push", { key: revoked.key });
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.body).toEqual({ error: "unauthorized", detail: expect.any(String) });

    // The right key id with a wrong secret (same length and alphabet) answers exactly like an unknown key id:
    // nothing tells a guesser that the id exists.
    const flipped = keyA.secret.replace(/^./, (ch) => (ch === "A" ? "B" : "A"));
    const wrongSecret = await partner("/campaigns/sec-push", { key: `pd_test_${keyA.keyId}_${flipped}` });
    const unknownId = await partner("/campaigns/sec-push", { key: `pd_test_000000000000_${keyA.secret}` });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.text).toBe(unknownId.text);
    expect(wrongSecret.body.error).toBe("unauthorized");
    for (const bad of [`pd_test_${keyA.keyId}_${keyA.secret.slice(0, -1)}`, `pd_test_${keyA.keyId}`, keyA.key.toUpperCase(), `${keyA.key} ${keyA.key}`]) {
      const r = await partner("/campaigns/sec-push", { key: bad });
      expect([bad.length, r.status, r.body.error]).toEqual([bad.length, 401, "unauthorized"]);
    }
    // A production key (pd_live_) against the test environment: 401, for an existing key id and secret too.
    const live = await partner("/campaigns/sec-push", { key: keyA.key.replace("pd_test_", "pd_live_") });
    expect(live.status).toBe(401);
    expect(live.body).toEqual({ error: "unauthorized", detail: expect.stringContaining("pd_test_") });
    // The key still works: the refusals changed nothing.
    expect((await partner("/campaigns/sec-push")).status).toBe(200);
  });

  it("answers another account's campaign, drawing, entries and guarantees with 404 not_found, identical to missing ones", async () => {
    const asB = (route: string, method = "GET", body?: unknown) => partner(route, { key: keyB.key, method, body });
    // The same request for A's resource and for a missing one: the same answer, but for the name in the detail.
    const same = async (mine: string, missing: string, what: string, route: (x: string) => string, method = "GET", body?: unknown) => {
      const theirs = await asB(route(mine), method, body);
      const none = await asB(route(missing), method, body);
      expect([what, theirs.status, theirs.body.error]).toEqual([what, 404, "not_found"]);
      expect([what, theirs.text.replaceAll(mine, "X")]).toEqual([what, none.text.replaceAll(missing, "X")]);
      expect([what, theirs.headers.get("content-type")]).toEqual([what, none.headers.get("content-type")]);
    };
    // Campaign-level: every route under A's slug.
    const drawing = paidDrawingId;
    for (const [what, route, method, body] of [
      ["campaign", (s: string) => `/campaigns/${s}`, "GET", undefined],
      ["drawings", (s: string) => `/campaigns/${s}/drawings`, "GET", undefined],
      ["drawing", (s: string) => `/campaigns/${s}/drawings/${drawing}`, "GET", undefined],
      ["winners", (s: string) => `/campaigns/${s}/drawings/${drawing}/winners`, "POST", { winners: ["x", "y"] }],
      ["guarantees", (s: string) => `/campaigns/${s}/guarantees`, "GET", undefined],
      ["pick", (s: string) => `/campaigns/${s}/guarantees/${guaranteeId}/pick`, "POST", { winner: "s-2" }],
      ["test-clock", (s: string) => `/campaigns/${s}/test-clock`, "POST", { advanceBy: "1d" }],
    ] as [string, (s: string) => string, string, unknown][]) {
      await same("sec-push", "sec-nope", what, route, method, body);
    }
    await same("sec-entries", "sec-nope", "entries (GET)", (s) => `/campaigns/${s}/entries`);
    await same("sec-entries", "sec-nope", "entries (POST)", (s) => `/campaigns/${s}/entries`, "POST", { entries: ["intruder"] });
    // Resource-level, through B's own campaigns: A's drawing, A's entries drawing, A's guarantee.
    await same(paidDrawingId, "drw_nope00000000000000", "A's drawing under B's campaign", (id) => `/campaigns/sec-b-push/drawings/${id}`);
    await same(paidDrawingId, "drw_nope00000000000000", "winners to A's drawing under B's campaign", (id) => `/campaigns/sec-b-push/drawings/${id}/winners`, "POST", { winners: ["x", "y"] });
    await same(entriesDrawingA, "drw_nope00000000000000", "A's entries drawing under B's campaign", (id) => `/campaigns/sec-b-entries/entries?drawing=${id}`);
    await same(guaranteeId, "gtd_nope00000000000000", "A's guarantee under B's campaign", (id) => `/campaigns/sec-b-push/guarantees/${id}/pick`, "POST", { winner: "s-1" });
    // Nothing B sent changed A's data.
    const d = (await partner(`/campaigns/sec-push/drawings/${paidDrawingId}`)).body.drawing as Drawing;
    expect(d.winners.map((w) => w.winner)).toEqual(["s-1", "s-2"]);
    const entries = (await partner(`/campaigns/sec-entries/entries?drawing=${entriesDrawingA}`)).body as { count: number; entries: { entrantId: string }[] };
    expect(entries.entries.map((e) => e.entrantId)).toEqual(["e-1", "e-2"]);
    const g = (await partner("/campaigns/sec-push/guarantees")).body.guarantees as { status: string }[];
    expect(g.map((x) => x.status)).toEqual(["paid"]);
  });

  it("reads every public response: draws.json, proof.json, the campaign pages, /terms, /privacy, /verify/*", async () => {
    for (const slug of ["sec-push", "sec-pull", "sec-entries"]) {
      expect((await request(`/campaigns/${slug}/draws.json`)).status).toBe(200);
      expect((await request(`/campaigns/${slug}`)).status).toBe(200);
    }
    const proof = await request(`/campaigns/sec-push/draws/${paidDrawingId}/proof.json`);
    expect(proof.status).toBe(200);
    for (const route of ["/terms", "/privacy", "/verify/verify-draw.mjs", "/verify/SKILL.md", "/health", "/ready", "/campaigns/no-such-campaign", "/campaigns/no-such-campaign/draws.json"]) await request(route);
    // The partner's own view of every resource, read with A's key (recorded for the search below).
    for (const route of ["/campaigns/sec-push", "/campaigns/sec-pull", "/campaigns/sec-entries", "/campaigns/sec-push/drawings", "/campaigns/sec-pull/drawings", `/campaigns/sec-push/drawings/${paidDrawingId}`, "/campaigns/sec-entries/entries", "/campaigns/sec-push/guarantees"]) {
      expect((await partner(route)).status).toBe(200);
    }
  });
});

describe("no secret anywhere", () => {
  /** What must never appear: each key in full and its secret part, the pull URL's token, the operator's private key. */
  function needles(): { what: string; value: string }[] {
    const list: { what: string; value: string }[] = [];
    for (const k of keys) {
      list.push({ what: `API key ${k.keyId}`, value: k.key });
      list.push({ what: `secret of API key ${k.keyId}`, value: k.secret });
    }
    list.push({ what: "pull URL token", value: TOKEN });
    list.push({ what: "operator private key", value: ANVIL_KEYS.operator });
    list.push({ what: "operator private key without 0x", value: ANVIL_KEYS.operator.slice(2) });
    return list;
  }

  /** The needles found in `text` (case-insensitive for the hex private key). */
  function found(text: string): string[] {
    const lower = text.toLowerCase();
    return needles().filter((n) => (n.what.startsWith("operator") ? lower.includes(n.value.toLowerCase()) : text.includes(n.value))).map((n) => n.what);
  }

  it("ran with keys, a pull URL and an operator key to look for (and the search finds them when present)", () => {
    expect(keys.length).toBe(3);
    for (const n of needles()) expect(found(`before ${n.value.toUpperCase()} after`).length + found(`before ${n.value} after`).length).toBeGreaterThan(0);
    expect(found(`{"authorization":"Bearer ${keys[0]!.key}"}`)).toEqual([`API key ${keys[0]!.keyId}`, `secret of API key ${keys[0]!.keyId}`]);
    expect(found(`"privateKey":"${ANVIL_KEYS.operator.toUpperCase().replace("0X", "0x")}"`)).toEqual(["operator private key", "operator private key without 0x"]);
    expect(TOKEN).toMatch(/^[0-9a-f]{48}$/);
    expect(partnerAnswers.length).toBeGreaterThan(40);
    expect(publicAnswers.length).toBeGreaterThan(10);
  });

  it("is in no line of the service's, Ponder's or anvil's log", () => {
    const service = readLog("service.log");
    expect(service).toMatch(/service listening/);
    expect(service).toMatch(/pull_url_failing/); // the alert about the secret URL was logged, without it
    for (const name of ["service.log", "ponder.log", "anvil.log"]) {
      const hits = readLog(name).split("\n").flatMap((line, i) => found(line).map((what) => `${name}:${i + 1}: ${what}`));
      expect(hits).toEqual([]);
    }
  });

  it("is in no line of the CLI's output but the one-time display of each key at its creation", () => {
    // `prizedraw key create` prints the new key once, by design: it is the operator's only chance to copy it (spec,
    // Authentication 2: "A key is displayed once, at creation"). The test harness records CLI output in cli.log, so
    // exactly those lines - one per key, holding that key and nothing else - are excluded; every other line of CLI
    // output (campaign views with the masked pull URL, fetch history, alerts, revocations) is searched.
    const lines = readLog("cli.log").split("\n");
    const displays = new Map<string, number>();
    const hits: string[] = [];
    lines.forEach((line, i) => {
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(line);
      } catch {
        parsed = null;
      }
      const display = parsed as { key?: string; keyId?: string } | null;
      const own = display && Object.keys(display).sort().join(",") === "key,keyId" ? keys.find((k) => k.key === display.key && k.keyId === display.keyId) : undefined;
      if (own) {
        displays.set(own.keyId, (displays.get(own.keyId) ?? 0) + 1);
        return;
      }
      for (const what of found(line)) hits.push(`cli.log:${i + 1}: ${what}`);
    });
    expect(hits).toEqual([]);
    expect(Object.fromEntries(displays)).toEqual(Object.fromEntries(keys.map((k) => [k.keyId, 1])));
  });

  it("is in no public response (draws.json, proof.json, pages, /terms, /privacy, /verify/*) nor in their headers", () => {
    const hits = publicAnswers.flatMap(({ route, answer }) => found(answer.text + JSON.stringify([...answer.headers])).map((what) => `${route}: ${what}`));
    expect(hits).toEqual([]);
  });

  it("is in no partner-API response body or header (the pull URL is shown masked)", () => {
    const hits = partnerAnswers.flatMap(({ route, answer }) => found(answer.text + JSON.stringify([...answer.headers])).map((what) => `${route}: ${what}`));
    expect(hits).toEqual([]);
  });

  it("is in no stored row but the pull URL itself: keys are kept only as SHA-256 hashes of their secrets", async () => {
    const store = await openServiceStore(storePath(stack.dataDir));
    try {
      // Every table's every row, read from the stack's SQLite file directly (sqlite_master lists the tables).
      const db = rawSqlite(store);
      const rows = db.prepare("SELECT * FROM api_keys ORDER BY created_at").all() as Record<string, unknown>[];
      expect(rows.map((r) => r.key_id).sort()).toEqual(keys.map((k) => k.keyId).sort());
      for (const row of rows) {
        const k = keys.find((x) => x.keyId === row.key_id)!;
        expect(row.secret_hash).toBe(createHash("sha256").update(k.secret).digest("hex"));
        for (const value of Object.values(row)) {
          expect(String(value)).not.toContain(k.secret);
          expect(String(value)).not.toContain(k.key);
        }
      }
      // Every table: no key, no secret, no private key; the token only in campaigns.pull_url (the service must
      // keep the URL to fetch it).
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
      const hits: string[] = [];
      for (const table of tables) {
        for (const row of db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[]) {
          for (const [column, value] of Object.entries(row)) {
            const what = found(String(value)).filter((w) => !(table === "campaigns" && column === "pull_url" && w === "pull URL token"));
            if (what.length > 0) hits.push(`${table}.${column}: ${what.join(", ")}`);
          }
        }
      }
      expect(hits).toEqual([]);
      expect(db.prepare("SELECT pull_url FROM campaigns WHERE slug = 'sec-pull'").pluck().get()).toBe(PULL_URL);
    } finally {
      await store.close();
    }
  });
});

describe("key comparison", () => {
  it("compares secrets by hash with crypto.timingSafeEqual (source) and refuses a wrong one (behaviour)", () => {
    const source = readFileSync(path.join(REPO_ROOT, "api/src/domain/keys.ts"), "utf8");
    expect(source).toMatch(/import \{[^}]*\btimingSafeEqual\b[^}]*\} from "node:crypto"/);
    const fn = /export function secretMatches\([^)]*\)[^{]*\{([\s\S]*?)\n\}/.exec(source)?.[1] ?? "";
    expect(fn).toMatch(/timingSafeEqual\(/);
    // No early-exit string comparison of secrets or hashes: the only === is of the two digests' (fixed) lengths.
    expect(fn.match(/===|!==|==|!=|localeCompare|startsWith/g)).toEqual(["==="]);
    expect(fn).toMatch(/\.length === [a-z]+\.length/);
    const secret = keyA.secret;
    expect(secretMatches(secret, hashSecret(secret))).toBe(true);
    expect(secretMatches(`${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`, hashSecret(secret))).toBe(false);
    expect(secretMatches(secret, "00")).toBe(false); // a malformed stored hash: false, not a throw
    expect(secretMatches(secret, "")).toBe(false);
  });
});

describe("security headers", () => {
  it("public pages carry a Content-Security-Policy, nosniff and a Referrer-Policy", async () => {
    for (const route of ["/campaigns/sec-push", "/campaigns/sec-pull", "/terms", "/privacy", "/campaigns/no-such-campaign"]) {
      const r = await request(route);
      expect([route, r.headers.get("content-type")]).toEqual([route, expect.stringMatching(/^text\/html/)]);
      expect([route, r.headers.get("content-security-policy")]).toEqual([route, expect.stringMatching(/default-src 'none'/)]);
      expect([route, r.headers.get("content-security-policy")]).toEqual([route, expect.stringMatching(/frame-ancestors 'none'/)]);
      expect([route, r.headers.get("x-content-type-options")]).toEqual([route, "nosniff"]);
      expect([route, r.headers.get("referrer-policy")]).toEqual([route, "no-referrer"]);
    }
  });

  it("every JSON answer (partner API, errors, public data, health) and the verifier files carry nosniff", async () => {
    const answers = [
      ...partnerAnswers,
      ...publicAnswers,
      { route: "401", answer: await partner("/campaigns/sec-push", { key: null }) },
      { route: "404 route", answer: await partner("/nope") },
      { route: "400", answer: await partner("/campaigns/sec-push/drawings?status=nope") },
      { route: "/health", answer: await request("/health") },
    ];
    const missing = answers.filter(({ answer }) => answer.headers.get("x-content-type-options") !== "nosniff").map(({ route, answer }) => `${route} ${answer.status}`);
    expect(missing).toEqual([]);
  });
});
