// The portal's webhook screen over real HTTP against the whole stack (as test/portal/campaigns.test.ts): an owner adds
// an endpoint (a local https server whose self-signed certificate only the service trusts, reached under the test
// environment's loopback allowance, as test/api/webhooks.test.ts), sees its secret once, sees a real delivery's
// attempts, rotates and deletes it. Each refusal (a member, another account's endpoint, a bad URL, a cross-site
// post, an unticked confirmation) must change nothing in the store, which the test reads afterwards.

import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storePath, type Store } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import type { WebhookEndpoint } from "../../api/src/store/webhooks.js";
import { fieldError, ownerAndMember, type PortalClient } from "../support/portalClient.js";
import { usePartnerServer } from "../support/partnerServer.js";
import { until } from "../support/processes.js";
import { createAccount, type Stack } from "../support/stack.js";
import { useStack } from "../support/suite.js";
import { campaignWithOpenDrawing, clockPast } from "../support/partner.js";

const OWNER = "hooks-owner@example.com";
const MEMBER = "hooks-member@example.com";
const OTHER_OWNER = "hooks-other@example.com";

let stack: Stack;
let store: Store;
/** The local https server's origin (https://localhost:port). */
let base: string;
/** Paths answering 500 (the rest answer 200), and how many requests each path received. */
const failing = new Set<string>();
const hits = new Map<string, number>();
let accountId: string;
let key: string;
let otherAccount: string;
let owner: PortalClient;
let member: PortalClient;
/** Every secret the test saw: none may appear in service.log. */
const secrets = new Set<string>();

/** The one-time secret a page shows, or null. */
function shownSecret(html: string): string | null {
  const match = /<code class="secret" id="new-secret-value">\s*([^<\s]+)\s*<\/code>/.exec(html);
  if (match) secrets.add(match[1]!);
  return match ? match[1]! : null;
}

/** The account's endpoints in the store, deleted ones too, secrets included: what every refusal must leave alone. */
async function endpointsOf(account: string): Promise<WebhookEndpoint[]> {
  const endpoints: WebhookEndpoint[] = [];
  const rows = await store.conn.q().selectFrom("webhook_endpoints").select("id").where("account_id", "=", account).orderBy("created_at").orderBy("id").execute();
  for (const { id } of rows) endpoints.push((await store.webhooks.endpoint(id))!);
  return endpoints;
}
const snapshot = async (): Promise<string> =>
  JSON.stringify([await endpointsOf(accountId), await endpointsOf(otherAccount), (await store.audit.ofAccount(accountId)).length, (await store.audit.ofAccount(otherAccount)).length]);

const partner = usePartnerServer("prizedraw-portal-webhooks", (req, res) => {
  req.resume();
  req.on("end", () => {
    const p = (req.url ?? "").split("?")[0]!;
    hits.set(p, (hits.get(p) ?? 0) + 1);
    res.writeHead(failing.has(p) ? 500 : 200, { "content-type": "text/plain" }).end(failing.has(p) ? "down" : "thanks");
  });
});

useStack(
  OWNER,
  async (started) => {
    ({ stack, accountId, key } = started);
    base = partner.origin;
    store = await openServiceStore(storePath(stack.dataDir));
    ({ accountId: otherAccount } = await createAccount(stack, OTHER_OWNER));
    ({ owner, member } = await ownerAndMember(stack, accountId, OWNER, MEMBER));
  },
  () => ({ extraEnv: { ...partner.serviceEnv, PRIZEDRAW_WEBHOOK_RETRY_BASE_MS: "300" } }),
);

afterAll(async () => {
  await store?.close();
});

describe("the webhook screen (owners)", () => {
  let endpointId: string;

  /** The endpoint's `action` (rotate, delete) posted without its ticked confirmation: 400, the box's note, no change. */
  async function expectRefusedUnticked(action: "rotate" | "delete"): Promise<void> {
    const before = await snapshot();
    const unticked = await owner.post(`/portal/webhooks/${endpointId}/${action}`, {});
    expect(unticked.status).toBe(400);
    expect(fieldError(unticked.text, `${action}-confirm`)).toMatch(/Tick the box/);
    expect(await snapshot()).toBe(before);
  }
  let firstSecret: string;

  it("is in the owner's navigation, with a labelled https URL field", async () => {
    const page = await owner.get("/portal/webhooks");
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/portal/webhooks"');
    expect(page.text).toContain('<label for="f-url">URL</label>');
    expect(page.text).toMatch(/id="f-url" name="url" type="url"/);
    expect(page.text).toContain("No endpoints yet.");
    // Members do not see the link.
    expect((await member.get("/portal")).text).not.toContain('href="/portal/webhooks"');
  });

  it("adds an endpoint and shows its secret once: not on a reload, not in the list, not on its page", async () => {
    const url = `${base}/hooks/portal?tok=abc`;
    const created = await owner.post("/portal/webhooks", { url });
    expect(created.status).toBe(200);
    const secret = shownSecret(created.text);
    expect(secret).toMatch(/^whsec_/);
    expect(created.text).toContain('data-copy="new-secret-value"');
    const stored = await endpointsOf(accountId);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ url, secret, previousSecret: null, deletedAt: null });
    endpointId = stored[0]!.id;
    firstSecret = secret!;

    const reload = await owner.get("/portal/webhooks");
    expect(reload.text).not.toContain(secret!.slice(6));
    expect(reload.text).toContain(url);
    expect(reload.text).toContain(`href="/portal/webhooks/${endpointId}"`);
    const own = await owner.get(`/portal/webhooks/${endpointId}`);
    expect(own.status).toBe(200);
    expect(own.text).not.toContain(secret!.slice(6));
    expect(shownSecret(own.text)).toBeNull();
    expect((await store.audit.ofAccount(accountId)).filter((r) => r.action === "webhook.create")).toEqual([expect.objectContaining({ actor: OWNER, detail: { endpointId, host: new URL(base).host } })]);
  });

  it("lists a real delivery's attempts: event type, status, each attempt's time, HTTP status and duration", async () => {
    failing.add("/hooks/portal");
    const open = await campaignWithOpenDrawing(stack, { accountId, key }, "hooks-portal", { name: "Hooks portal", winners: 1 });
    // No winners at the cutoff: the drawing needs attention, and that event is delivered (after a failure).
    expect((await clockPast(stack, key, "hooks-portal", open, { check: false })).status).toBe(200);
    await until("a failed attempt", async () => ((hits.get("/hooks/portal") ?? 0) >= 1 ? true : undefined), 60_000, 100);
    failing.delete("/hooks/portal");
    await until("delivered", async () => ((await store.webhooks.deliveries(endpointId, 10))[0]?.status === "delivered" ? true : undefined), 60_000, 250);

    const page = await owner.get(`/portal/webhooks/${endpointId}`);
    expect(page.status).toBe(200);
    const row = /<tbody>([\s\S]*)<\/tbody>/.exec(page.text)![1]!;
    expect(row).toContain("drawing.needs_attention");
    expect(row).toMatch(/delivered \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(row).toMatch(/<li>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC: HTTP 500, \d+ ms<\/li>/);
    // The last attempt, the one that delivered.
    expect(row).toMatch(/<li>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC: HTTP 200, \d+ ms<\/li><\/ol>/);
  }, 120_000);

  it("rotates only once confirmed: the new secret shown once, the old one listed as valid until a time", async () => {
    await expectRefusedUnticked("rotate");

    const rotated = await owner.post(`/portal/webhooks/${endpointId}/rotate`, { confirm: "yes" });
    expect(rotated.status).toBe(200);
    const secret = shownSecret(rotated.text);
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(firstSecret);
    const stored = (await store.webhooks.endpoint(endpointId))!;
    expect(stored).toMatchObject({ secret, previousSecret: firstSecret });
    const until = `${stored.previousExpiresAt!.slice(0, 16).replace("T", " ")} UTC`;
    expect(Date.parse(stored.previousExpiresAt!) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(rotated.text).toContain(`still signs too, until ${until}`);

    const list = await owner.get("/portal/webhooks");
    expect(list.text).toContain(`still signs too, until ${until}`);
    for (const s of [secret!, firstSecret]) expect(list.text).not.toContain(s.slice(6));
    expect((await owner.get(`/portal/webhooks/${endpointId}`)).text).not.toContain(secret!.slice(6));
    expect((await store.audit.ofAccount(accountId)).filter((r) => r.action === "webhook.rotate")).toEqual([expect.objectContaining({ actor: OWNER, detail: { endpointId, previousSecretExpiresAt: stored.previousExpiresAt } })]);
  });

  it("does nothing a second time when a result page is reloaded (a form sent again with its page view's token)", async () => {
    /** The `_once` token of the form posting to `action` on a page. */
    const onceToken = (html: string, action: string) => {
      const form = html.slice(html.indexOf(`action="${action}"`));
      const token = /name="_once" value="([A-Za-z0-9_-]{22})"/.exec(form);
      expect(token, `a _once token in the form posting to ${action}`).not.toBeNull();
      return token![1]!;
    };
    const rotatePath = `/portal/webhooks/${endpointId}/rotate`;
    const current = (await store.webhooks.endpoint(endpointId))!.secret;
    const token = onceToken((await owner.get(`/portal/webhooks/${endpointId}`)).text, rotatePath);
    const rotated = await owner.post(rotatePath, { confirm: "yes", _once: token });
    expect(rotated.status).toBe(200);
    const secret = shownSecret(rotated.text);
    expect((await store.webhooks.endpoint(endpointId))!).toMatchObject({ secret, previousSecret: current });

    const before = await snapshot();
    const again = await owner.post(rotatePath, { confirm: "yes", _once: token });
    expect(again.status).toBe(409);
    expect(again.text).toContain("This form was already sent");
    expect(shownSecret(again.text)).toBeNull();
    // Still one rotation: the secret before it keeps signing for its 24 hours.
    expect(await snapshot()).toBe(before);

    // A new key, and the same form sent again: one key.
    const keysToken = onceToken((await owner.get("/portal/keys")).text, "/portal/keys");
    const keys = async () => (await store.audit.ofAccount(accountId)).filter((r) => r.action === "key.create").length;
    const keysBefore = await keys();
    expect((await owner.post("/portal/keys", { _once: keysToken })).status).toBe(200);
    const keysAgain = await owner.post("/portal/keys", { _once: keysToken });
    expect(keysAgain.status).toBe(409);
    expect(keysAgain.text).not.toContain('id="new-key-value"');
    expect(await keys()).toBe(keysBefore + 1);
  });

  it("shows a non-https URL or a private address as a field error and stores nothing", async () => {
    const before = await snapshot();
    for (const [url, words] of [
      ["http://hooks.example.com/in", /the URL must be https/],
      ["https://10.0.0.7/in", /refused: the host resolves to a loopback, private/],
      ["https://192.168.1.20/in", /refused/],
      ["not a url", /the URL is not valid/],
    ] as const) {
      const reply = await owner.post("/portal/webhooks", { url });
      expect(reply.status, url).toBe(400);
      expect(fieldError(reply.text, "url"), url).toMatch(words);
      expect(reply.text, url).toContain('aria-invalid="true"');
      expect(reply.text, url).toContain(`value="${url}"`);
      expect(shownSecret(reply.text), url).toBeNull();
    }
    expect(await snapshot()).toBe(before);
  });

  it("deletes only once confirmed: gone from the list, its history still on its page", async () => {
    await expectRefusedUnticked("delete");

    const deleted = await owner.post(`/portal/webhooks/${endpointId}/delete`, { confirm: "yes" });
    expect(deleted.status).toBe(200);
    expect(deleted.text).toContain("deleted: nothing more is sent to it");
    expect(deleted.text).not.toContain(`href="/portal/webhooks/${endpointId}"`);
    expect((await store.webhooks.endpoint(endpointId))!.deletedAt).not.toBeNull();
    expect(await store.webhooks.endpoints(accountId)).toEqual([]);
    const history = await owner.get(`/portal/webhooks/${endpointId}`);
    expect(history.status).toBe(200);
    expect(history.text).toContain("drawing.needs_attention");
    expect(history.text).not.toContain("Rotate the secret</button>");
    expect((await store.audit.ofAccount(accountId)).filter((r) => r.action === "webhook.delete")).toEqual([expect.objectContaining({ actor: OWNER, detail: { endpointId, pendingDropped: 0 } })]);
  });
});

describe("refusals", () => {
  let mine: string;
  let theirs: string;

  beforeAll(async () => {
    mine = ((await stack.cli("webhook", "create", "--account", accountId, "--url", `${base}/hooks/mine`)).endpoint as { id: string }).id;
    const other = await stack.cli("webhook", "create", "--account", otherAccount, "--url", `${base}/hooks/theirs`);
    theirs = (other.endpoint as { id: string }).id;
    secrets.add(other.secret as string);
    await owner.get("/portal/webhooks");
    await member.get("/portal");
  });

  it("refuses a member every page and action (403), changing nothing", async () => {
    const before = await snapshot();
    for (const route of ["/portal/webhooks", `/portal/webhooks/${mine}`]) {
      const page = await member.get(route);
      expect(page.status, route).toBe(403);
      expect(page.text, route).toContain("not an owner");
      expect(page.text, route).not.toContain(`${base}/hooks/mine`);
    }
    for (const [route, form] of [
      ["/portal/webhooks", { url: `${base}/hooks/member` }],
      [`/portal/webhooks/${mine}/rotate`, { confirm: "yes" }],
      [`/portal/webhooks/${mine}/delete`, { confirm: "yes" }],
    ] as const) {
      const reply = await member.post(route, form);
      expect(reply.status, route).toBe(403);
      expect(shownSecret(reply.text), route).toBeNull();
    }
    expect(await snapshot()).toBe(before);
  });

  it("answers another account's endpoint as not found (404), changing nothing", async () => {
    const before = await snapshot();
    expect((await owner.get("/portal/webhooks")).text).not.toContain("/hooks/theirs");
    for (const reply of [
      await owner.get(`/portal/webhooks/${theirs}`),
      await owner.post(`/portal/webhooks/${theirs}/rotate`, { confirm: "yes" }),
      await owner.post(`/portal/webhooks/${theirs}/delete`, { confirm: "yes" }),
      await owner.get("/portal/webhooks/whk_nosuchendpoint"),
    ]) {
      expect(reply.status).toBe(404);
      expect(reply.text).not.toContain("/hooks/theirs");
      expect(shownSecret(reply.text)).toBeNull();
    }
    expect(await snapshot()).toBe(before);
  });

  it("refuses a cross-site post or a missing token (403), changing nothing", async () => {
    const before = await snapshot();
    for (const [route, form] of [
      ["/portal/webhooks", { url: `${base}/hooks/forged` }],
      [`/portal/webhooks/${mine}/rotate`, { confirm: "yes" }],
      [`/portal/webhooks/${mine}/delete`, { confirm: "yes" }],
    ] as const) {
      for (const headers of [{ origin: "https://evil.example" }, { "sec-fetch-site": "cross-site" }] as Record<string, string>[]) {
        const reply = await owner.post(route, form, headers);
        expect(reply.status, `${route} ${JSON.stringify(headers)}`).toBe(403);
        expect(reply.text).toContain("another site");
      }
      const noToken = await owner.postForm(route, form);
      expect(noToken.status, `${route} without _csrf`).toBe(403);
    }
    expect(await snapshot()).toBe(before);
  });
});

describe("the service's log", () => {
  it("holds none of the secrets shown", () => {
    expect(secrets.size).toBeGreaterThanOrEqual(3);
    const log = readFileSync(path.join(stack.dataDir, "service.log"), "utf8");
    expect(log.length).toBeGreaterThan(0);
    expect([...secrets].filter((s) => log.includes(s) || log.includes(s.slice(6)))).toEqual([]);
  });
});
