// The partner portal's door, over real HTTP (fetch with the cookies kept by hand) against the whole stack, with the
// service sending its mail to a real SMTP server (test/support/smtp.ts). Every attack must be refused AND change
// nothing: the store is read afterwards (sessions, links, keys, members). Covered: reused, expired and malformed
// sign-in links; forged cross-site posts and missing or wrong CSRF tokens; a member calling owner actions; another
// account's campaign; a session after sign-out; "send me a link" answering the same with and without an account and
// its rate limit; the session cookie's flags, a fresh id at every sign-in, and no secret in the service's log.

import { randomBytes } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGN_INS_PER_ADDRESS, SIGN_INS_PER_CLIENT, hashToken } from "../../api/src/domain/portal.js";
import { storePath, type Store } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import { PortalClient, type Reply } from "../support/portalClient.js";
import { REPO_ROOT, sleep } from "../support/processes.js";
import { startSmtp, type SmtpCatcher } from "../support/smtp.js";
import { createAccount, startStack, type Stack, TEST_WALLET } from "../support/stack.js";
import { rawSqlite } from "../support/store.js";

const OWNER = "owner@example.com";
const MEMBER = "member@example.com";
/** A second owner for the session tests: sign-in requests are limited to 5 per address in 15 minutes. */
const OWNER2 = "owner2@example.com";
const OWNER3 = "owner3@example.com";
const OTHER_OWNER = "other-owner@example.com";
const NOBODY = "nobody@example.com";
const OWN_SLUG = "sec-own";
const OTHER_SLUG = "sec-other";

/** Whether the campaign screens (a page under /portal/campaigns/:slug) exist in this tree yet. */
const CAMPAIGN_PAGE = readdirSync(path.join(REPO_ROOT, "api/src/http/portal")).some((f) => /campaigns\/:slug|"\/:slug/.test(readFileSync(path.join(REPO_ROOT, "api/src/http/portal", f), "utf8")));

/** The CSRF token a page's forms carry. */
function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no _csrf field in the page:\n${html.slice(0, 2000)}`);
  return match[1]!;
}

let stack: Stack;
let smtp: SmtpCatcher;
let store: Store;
let owner: PortalClient;
let ownerCsrf: string;
let member: PortalClient;
let memberCsrf: string;
let ownerAccount: string;
/** Every link token and session id the test saw: none may appear in the service's log. */
const secrets = new Set<string>();

/** A count read from the stack's SQLite file directly. */
const count = (sql: string, ...params: unknown[]): number => rawSqlite(store).prepare(sql).pluck().get(...params) as number;
const sessions = () => count("SELECT COUNT(*) FROM portal_sessions");
const liveKeys = async () => (await store.accounts.keys(ownerAccount)).filter((k) => k.revokedAt === null).length;
const members = async () => (await store.accounts.members(ownerAccount)).map((m) => `${m.email}:${m.role}`).sort();

/** Asks for a sign-in link for `email` (from a signed-out form) and returns the response. */
async function askForLink(client: PortalClient, email: string, from?: string): Promise<Reply> {
  const headers = from === undefined ? undefined : { "x-forwarded-for": from };
  const page = await client.get("/portal/sign-in", headers);
  expect(page.status).toBe(200);
  return client.postForm("/portal/sign-in", { _csrf: csrfOf(page.text), email }, headers);
}

/** Opens an emailed link (the page with one button) and presses it: POST /portal/auth. */
async function useLink(client: PortalClient, link: string): Promise<Reply> {
  const url = new URL(link);
  expect(url.origin).toBe(stack.baseUrl);
  const token = url.searchParams.get("token")!;
  secrets.add(token);
  const page = await client.get(`${url.pathname}${url.search}`);
  expect(page.status).toBe(200);
  expect(page.text).toContain(`name="token" value="${token}"`);
  return client.postForm("/portal/auth", { _csrf: csrfOf(page.text), token });
}

/** Signs `client` in as `email` by an emailed link; returns the link and the session's CSRF token. */
async function signIn(client: PortalClient, email: string): Promise<{ link: string; csrf: string }> {
  const before = smtp.to(email).length;
  // Asked from a signed-out client (a signed-in one is sent from the sign-in page to /portal); the link is then
  // opened in `client`, as a person reads the mail in the browser they are signed in with.
  const asked = await askForLink(new PortalClient(stack.baseUrl), email);
  expect(asked.status).toBe(200);
  const link = await smtp.nextLink(email, before + 1);
  const used = await useLink(client, link);
  expect(used.status).toBe(303);
  expect(used.location).toBe("/portal");
  expect(client.session).toBeDefined();
  secrets.add(client.session!);
  const home = await client.get("/portal");
  expect(home.status).toBe(200);
  return { link, csrf: csrfOf(home.text) };
}

/** The status of a refused attempt, which must leave the store as it was (compared by `snapshot`). */
async function snapshot(): Promise<string> {
  return JSON.stringify({
    sessions: sessions(),
    liveSessions: count("SELECT COUNT(*) FROM portal_sessions WHERE ended_at IS NULL"),
    links: rawSqlite(store).prepare("SELECT token_hash, used_at FROM portal_links ORDER BY token_hash").all(),
    keys: (await store.accounts.keys(ownerAccount)).map((k) => [k.keyId, k.revokedAt]),
    members: await members(),
    mails: smtp.mails.length,
  });
}

beforeAll(async () => {
  smtp = await startSmtp();
  // One trusted reverse proxy: a request's X-Forwarded-For names its client (without it, the socket's address).
  stack = await startStack({ extraEnv: { SMTP_URL: smtp.url, TRUSTED_PROXY_HOPS: "1" } });
  store = await openServiceStore(storePath(stack.dataDir));
  ownerAccount = (await createAccount(stack, OWNER)).accountId;
  await stack.cli("member", "add", "--account", ownerAccount, "--email", OWNER2, "--role", "owner");
  await stack.cli("member", "add", "--account", ownerAccount, "--email", OWNER3, "--role", "owner");
  await stack.cli("campaign", "create", "--account", ownerAccount, "--slug", OWN_SLUG, "--name", "Own Campaign", "--mode", "push", "--cadence", "daily", "--winners", "3", "--payout-wallet", TEST_WALLET);
  const other = await createAccount(stack, OTHER_OWNER);
  await stack.cli("campaign", "create", "--account", other.accountId, "--slug", OTHER_SLUG, "--name", "Other Campaign", "--mode", "push", "--cadence", "daily", "--winners", "3", "--payout-wallet", TEST_WALLET);

  owner = new PortalClient(stack.baseUrl);
  ownerCsrf = (await signIn(owner, OWNER)).csrf;
  // The owner invites a member through the team page; the member joins by the emailed invite link.
  const invited = await owner.postForm("/portal/team/invite", { _csrf: ownerCsrf, email: MEMBER, role: "member" });
  expect(invited.status).toBe(200);
  expect(await members()).toContain(`${MEMBER}:member`);
  member = new PortalClient(stack.baseUrl);
  const used = await useLink(member, await smtp.nextLink(MEMBER, 1));
  expect(used.status).toBe(303);
  secrets.add(member.session!);
  const home = await member.get("/portal");
  expect(home.status).toBe(200);
  expect(home.text).toContain(`${MEMBER} (member)`);
  memberCsrf = csrfOf(home.text);
}, 240_000);

afterAll(async () => {
  await store?.close();
  await stack?.stop();
  await smtp?.close();
});

describe("sign-in links", () => {
  it("a reused link is refused and starts no session", async () => {
    const first = new PortalClient(stack.baseUrl);
    const { link } = await signIn(first, OWNER);
    const token = new URL(link).searchParams.get("token")!;
    const usedAt = (await store.portal.link(hashToken(token)))!.usedAt;
    expect(usedAt).not.toBeNull();
    const before = await snapshot();
    const again = new PortalClient(stack.baseUrl);
    const reply = await useLink(again, link);
    expect(reply.status).toBe(400);
    expect(reply.text).toContain("not valid any more");
    expect(again.session).toBeUndefined();
    expect(await snapshot()).toBe(before);
    expect((await store.portal.link(hashToken(token)))!.usedAt).toBe(usedAt);
  });

  it("an expired link is refused, starts no session and stays unused", async () => {
    const token = randomBytes(32).toString("base64url");
    secrets.add(token);
    const past = Date.now() - 60_000;
    await store.portal.insertLink({
      tokenHash: hashToken(token),
      email: OWNER,
      purpose: "sign_in",
      accountId: null,
      createdAt: new Date(past - 15 * 60_000).toISOString(),
      expiresAt: new Date(past).toISOString(),
      usedAt: null,
    });
    const before = await snapshot();
    const client = new PortalClient(stack.baseUrl);
    const reply = await useLink(client, `${stack.baseUrl}/portal/auth?token=${token}`);
    expect(reply.status).toBe(400);
    expect(reply.text).toContain("not valid any more");
    expect(client.session).toBeUndefined();
    expect(await snapshot()).toBe(before);
    expect((await store.portal.link(hashToken(token)))!.usedAt).toBeNull();
  });

  it("malformed tokens are refused and start no session", async () => {
    const client = new PortalClient(stack.baseUrl);
    const csrf = csrfOf((await client.get("/portal/sign-in")).text);
    const before = await snapshot();
    for (const token of ["", "abc", "x".repeat(42), `${"A".repeat(42)}!`, "A".repeat(44), "../../etc/passwd", "' OR 1=1 --", "A".repeat(5000)]) {
      const reply = await client.postForm("/portal/auth", { _csrf: csrf, token });
      expect(reply.status, `token ${JSON.stringify(token.slice(0, 50))}`).toBe(400);
      expect(client.session).toBeUndefined();
    }
    // Without the field at all.
    expect((await client.postForm("/portal/auth", { _csrf: csrf })).status).toBe(400);
    // The GET page with a hostile token shows it only as an escaped hidden value.
    const page = await client.get(`/portal/auth?token=${encodeURIComponent('"><script>alert(1)</script>')}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain("<script>alert(1)</script>");
    expect(await snapshot()).toBe(before);
  });
});

describe("forged forms", () => {
  it("a cross-site post (Origin of another site, Sec-Fetch-Site: cross-site) is refused and changes nothing", async () => {
    const before = await snapshot();
    const forged: [string, Record<string, string>][] = [
      ["/portal/keys", { _csrf: ownerCsrf }],
      ["/portal/team/invite", { _csrf: ownerCsrf, email: "evil@example.com", role: "owner" }],
      ["/portal/sign-out", { _csrf: ownerCsrf }],
    ];
    for (const [route, form] of forged) {
      for (const headers of [{ origin: "https://evil.example" }, { "sec-fetch-site": "cross-site" }, { origin: "https://evil.example", "sec-fetch-site": "cross-site" }, { "sec-fetch-site": "same-site" }] as Record<string, string>[]) {
        const reply = await owner.postForm(route, form, headers);
        expect(reply.status, `${route} ${JSON.stringify(headers)}`).toBe(403);
        expect(reply.text).toContain("another site");
      }
    }
    // Signed out too: a forged "send me a link" sends nothing.
    const stranger = new PortalClient(stack.baseUrl);
    const csrf = csrfOf((await stranger.get("/portal/sign-in")).text);
    expect((await stranger.postForm("/portal/sign-in", { _csrf: csrf, email: OWNER }, { origin: "https://evil.example", "sec-fetch-site": "cross-site" })).status).toBe(403);
    await sleep(500);
    expect(await snapshot()).toBe(before);
    // The owner's session still works (the forged sign-out did not end it).
    expect((await owner.get("/portal/keys")).status).toBe(200);
  });

  it("a post with a missing or wrong _csrf is refused and changes nothing", async () => {
    const before = await snapshot();
    const wrong = [undefined, "", "x", memberCsrf, ownerCsrf.slice(0, -1), `${ownerCsrf}x`, ownerCsrf.toUpperCase() === ownerCsrf ? "A".repeat(ownerCsrf.length) : ownerCsrf.toUpperCase()];
    for (const csrf of wrong) {
      const form = (extra: Record<string, string>) => (csrf === undefined ? extra : { _csrf: csrf, ...extra });
      for (const [route, extra] of [
        ["/portal/keys", {}],
        ["/portal/team/invite", { email: "evil@example.com", role: "owner" }],
        ["/portal/team/role", { email: MEMBER, role: "owner" }],
        ["/portal/team/remove", { email: MEMBER }],
        ["/portal/sign-out", {}],
      ] as [string, Record<string, string>][]) {
        const reply = await owner.postForm(route, form(extra));
        expect(reply.status, `${route} with _csrf ${JSON.stringify(csrf)}`).toBe(403);
      }
    }
    // Signed out: the form cookie's token is required as well.
    const stranger = new PortalClient(stack.baseUrl);
    await stranger.get("/portal/sign-in");
    expect((await stranger.postForm("/portal/sign-in", { email: OWNER })).status).toBe(403);
    expect((await stranger.postForm("/portal/sign-in", { _csrf: "A".repeat(32), email: OWNER })).status).toBe(403);
    // Another client's form token is not this client's.
    const other = new PortalClient(stack.baseUrl);
    const otherCsrf = csrfOf((await other.get("/portal/sign-in")).text);
    expect((await stranger.postForm("/portal/sign-in", { _csrf: otherCsrf, email: OWNER })).status).toBe(403);
    await sleep(500);
    expect(await snapshot()).toBe(before);
  });
});

describe("a member", () => {
  it("is refused every owner action, and nothing changes", async () => {
    const ownerKeys = await owner.postForm("/portal/keys", { _csrf: ownerCsrf });
    expect(ownerKeys.status).toBe(200);
    const keyId = (await store.accounts.keys(ownerAccount)).find((k) => k.revokedAt === null)!.keyId;
    const before = await snapshot();
    const liveBefore = await liveKeys();

    const nav = await member.get("/portal");
    expect(nav.text).not.toContain('href="/portal/keys"');
    expect(nav.text).not.toContain('href="/portal/team"');
    const attempts: [string, Promise<Reply>][] = [
      ["GET /portal/keys", member.get("/portal/keys")],
      ["GET /portal/team", member.get("/portal/team")],
      ["POST /portal/keys", member.postForm("/portal/keys", { _csrf: memberCsrf })],
      ["POST /portal/keys/revoke", member.postForm("/portal/keys/revoke", { _csrf: memberCsrf, keyId })],
      ["POST /portal/team/invite", member.postForm("/portal/team/invite", { _csrf: memberCsrf, email: "friend@example.com", role: "owner" })],
      ["POST /portal/team/role", member.postForm("/portal/team/role", { _csrf: memberCsrf, email: MEMBER, role: "owner" })],
      ["POST /portal/team/remove", member.postForm("/portal/team/remove", { _csrf: memberCsrf, email: OWNER })],
    ];
    for (const [label, promise] of attempts) {
      const reply = await promise;
      expect(reply.status, label).toBe(403);
      expect(reply.text, label).toContain("Not allowed");
    }
    await sleep(500);
    expect(await liveKeys()).toBe(liveBefore);
    expect((await store.accounts.key(keyId))!.revokedAt).toBeNull();
    expect(await members()).toEqual([`${MEMBER}:member`, `${OWNER}:owner`, `${OWNER2}:owner`, `${OWNER3}:owner`].sort());
    expect(smtp.to("friend@example.com")).toHaveLength(0);
    expect(await snapshot()).toBe(before);
    // The member's own pages still work.
    expect((await member.get("/portal")).status).toBe(200);
  });
});

describe("another account's campaign", () => {
  const name = "GET /portal/campaigns/<another account's slug> is 404, like a missing one";
  if (CAMPAIGN_PAGE) {
    it(name, async () => {
      const own = await owner.get(`/portal/campaigns/${OWN_SLUG}`);
      expect(own.status).toBe(200);
      expect(own.text).toContain("Own Campaign");
      const missing = await owner.get("/portal/campaigns/no-such-campaign");
      const others = await owner.get(`/portal/campaigns/${OTHER_SLUG}`);
      expect(missing.status).toBe(404);
      expect(others.status).toBe(404);
      expect(others.text).not.toContain("Other Campaign");
      expect(others.text.replaceAll(OTHER_SLUG, "SLUG")).toBe(missing.text.replaceAll("no-such-campaign", "SLUG"));
      // Same for a member, and no campaign list entry either.
      expect((await member.get(`/portal/campaigns/${OTHER_SLUG}`)).status).toBe(404);
      expect((await owner.get("/portal")).text).not.toContain(OTHER_SLUG);
    });
  } else {
    it.todo(`${name} (the campaign screens under /portal/campaigns/:slug are not in the tree yet)`);
  }
  it("the campaign list shows only the account's own campaigns", async () => {
    const list = await owner.get("/portal");
    expect(list.text).toContain(OWN_SLUG);
    expect(list.text).not.toContain(OTHER_SLUG);
    expect(list.text).not.toContain("Other Campaign");
  });
});

describe("sessions", () => {
  it("after sign-out the old cookie is sent to sign-in on GET and refused on POST", async () => {
    const client = new PortalClient(stack.baseUrl);
    const { csrf } = await signIn(client, OWNER2);
    const old = client.session!;
    const out = await client.postForm("/portal/sign-out", { _csrf: csrf });
    expect(out.status).toBe(200);
    expect(client.session).toBeUndefined();
    expect(out.setCookies.some((c) => /^pd_session=;/.test(c))).toBe(true);
    expect((await store.portal.session(hashToken(old)))!.endedAt).not.toBeNull();
    // A copy of the old cookie (as an attacker who kept it would send it).
    client.jar.set("pd_session", old);
    for (const route of ["/portal", "/portal/keys", "/portal/team"]) {
      const reply = await client.get(route);
      expect(reply.status, route).toBe(303);
      expect(reply.location, route).toBe("/portal/sign-in");
    }
    const before = await snapshot();
    for (const [route, form] of [
      ["/portal/keys", { _csrf: csrf }],
      ["/portal/team/invite", { _csrf: csrf, email: "late@example.com", role: "owner" }],
    ] as [string, Record<string, string>][]) {
      const reply = await client.postForm(route, form);
      expect([401, 403], `${route}: ${reply.status}`).toContain(reply.status);
    }
    // Even with the form cookie's token (what a signed-out page carries), the action needs a session.
    const fresh = csrfOf((await client.get("/portal/sign-in")).text);
    client.jar.set("pd_session", old);
    const withFormToken = await client.postForm("/portal/keys", { _csrf: fresh });
    expect(withFormToken.status).toBe(401);
    await sleep(300);
    expect(await snapshot()).toBe(before);
  });

  it("the session cookie is HttpOnly, SameSite=Lax, not Secure on loopback http, path /portal", async () => {
    const client = new PortalClient(stack.baseUrl);
    const before = smtp.to(OWNER2).length;
    await askForLink(client, OWNER2);
    const reply = await useLink(client, await smtp.nextLink(OWNER2, before + 1));
    const cookie = reply.setCookies.find((c) => c.startsWith("pd_session="));
    expect(cookie).toBeDefined();
    secrets.add(client.session!);
    const attrs = cookie!.split(";").slice(1).map((a) => a.trim().toLowerCase());
    expect(attrs).toContain("httponly");
    expect(attrs).toContain("samesite=lax");
    expect(attrs).toContain("path=/portal");
    expect(attrs).not.toContain("secure");
    expect(attrs.find((a) => a.startsWith("max-age="))).toBe("max-age=43200");
    // The form cookie: HttpOnly, SameSite=Strict.
    const form = (await new PortalClient(stack.baseUrl).get("/portal/sign-in")).setCookies.find((c) => c.startsWith("pd_form="))!;
    expect(form.toLowerCase()).toContain("httponly");
    expect(form.toLowerCase()).toContain("samesite=strict");
  });

  it("every sign-in gives a new session id, never one the browser brought (session fixation)", async () => {
    const planted = "A".repeat(43);
    const client = new PortalClient(stack.baseUrl);
    client.jar.set("pd_session", planted);
    const before = smtp.to(OWNER2).length;
    await askForLink(new PortalClient(stack.baseUrl), OWNER2);
    const reply = await useLink(client, await smtp.nextLink(OWNER2, before + 1));
    expect(reply.status).toBe(303);
    const first = client.session!;
    secrets.add(first);
    expect(first).not.toBe(planted);
    expect(await store.portal.session(hashToken(planted))).toBeNull();
    const other = new PortalClient(stack.baseUrl);
    await signIn(other, OWNER2);
    expect(other.session).not.toBe(first);
    // The store keeps only hashes: the id itself is nowhere in the sessions table.
    expect(count("SELECT COUNT(*) FROM portal_sessions WHERE id_hash = ? OR csrf_token = ?", first, first)).toBe(0);
    expect(count("SELECT COUNT(*) FROM portal_sessions WHERE id_hash = ?", hashToken(first))).toBe(1);
  });

  it("signing in again in a signed-in browser (a new link, same cookies) gives a new id and ends the old session", async () => {
    // The link page's form carries the form cookie's token while the guard checks a signed-in browser's post
    // against the session's token: see the report (fails with 403 "this form has expired" until fixed).
    const client = new PortalClient(stack.baseUrl);
    await signIn(client, OWNER3);
    const first = client.session!;
    await signIn(client, OWNER3);
    const second = client.session!;
    expect(second).not.toBe(first);
    expect((await store.portal.session(hashToken(first)))!.endedAt).not.toBeNull();
    expect((await store.portal.session(hashToken(second)))!.endedAt).toBeNull();
    const stale = new PortalClient(stack.baseUrl);
    stale.jar.set("pd_session", first);
    expect((await stale.get("/portal")).status).toBe(303);
  });
});

describe("send me a link", () => {
  it("answers the same page with and without an account; only the account gets mail", async () => {
    const client = new PortalClient(stack.baseUrl);
    const [ownerBefore, nobodyBefore] = [smtp.to(OWNER).length, smtp.to(NOBODY).length];
    const withAccount = await askForLink(client, OWNER);
    const withoutAccount = await askForLink(client, NOBODY);
    expect(withAccount.status).toBe(200);
    expect(withoutAccount.status).toBe(200);
    expect(withoutAccount.text).toBe(withAccount.text);
    expect(withAccount.text).toContain("If this address is on a team, a sign-in link is on its way.");
    const mail = await smtp.next(OWNER, ownerBefore + 1);
    expect(mail.links).toHaveLength(1);
    secrets.add(new URL(mail.links[0]!).searchParams.get("token")!);
    await sleep(1_000);
    expect(smtp.to(NOBODY)).toHaveLength(nobodyBefore);
    expect(count("SELECT COUNT(*) FROM portal_links WHERE email = ?", NOBODY)).toBe(0);
  });

  it(`refuses the ${SIGN_INS_PER_ADDRESS + 1}th request for one address in the window with 429, and sends no mail for it`, async () => {
    const client = new PortalClient(stack.baseUrl);
    const address = OTHER_OWNER;
    for (let i = 1; i <= SIGN_INS_PER_ADDRESS; i++) {
      expect((await askForLink(client, address)).status, `request ${i}`).toBe(200);
    }
    const mails = await smtp.next(address, SIGN_INS_PER_ADDRESS);
    for (const m of smtp.to(address)) secrets.add(new URL(m.links[0]!).searchParams.get("token")!);
    expect(mails).toBeDefined();
    const links = count("SELECT COUNT(*) FROM portal_links WHERE email = ?", address);
    const refused = await askForLink(client, address);
    expect(refused.status).toBe(429);
    expect(refused.text).toContain("too many sign-in requests");
    // The address is lower-cased before counting: another spelling is the same address.
    expect((await askForLink(client, address.toUpperCase())).status).toBe(429);
    await sleep(1_000);
    expect(smtp.to(address)).toHaveLength(SIGN_INS_PER_ADDRESS);
    expect(count("SELECT COUNT(*) FROM portal_links WHERE email = ?", address)).toBe(links);
  });
});

describe("sign-in limits a third party cannot turn against a user", () => {
  const attempts = (key: string) => count("SELECT COUNT(*) FROM portal_attempts WHERE key = ?", key);

  it("counts no refused request: more requests after the limit never extend it, and the 429 says when to try (Retry-After)", async () => {
    const client = new PortalClient(stack.baseUrl);
    // An address on a team that nothing in this file signs in with.
    const address = "limited-member@example.com";
    await stack.cli("member", "add", "--account", ownerAccount, "--email", address, "--role", "member");
    const mailed = smtp.to(address).length;
    for (let i = 1; i <= SIGN_INS_PER_ADDRESS; i++) expect((await askForLink(client, address, `198.51.100.${i}`)).status, `request ${i}`).toBe(200);
    await smtp.next(address, mailed + SIGN_INS_PER_ADDRESS);
    for (const m of smtp.to(address)) secrets.add(new URL(m.links[0]!).searchParams.get("token")!);
    for (let i = 1; i <= 4; i++) {
      const refused = await askForLink(client, address, `203.0.113.${i}`);
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    }
    // Before, each refused request was counted too: one every three minutes kept the address locked for ever.
    expect(attempts(`email:${address}`)).toBe(SIGN_INS_PER_ADDRESS);
    for (let i = 1; i <= 4; i++) expect(attempts(`client:203.0.113.${i}`), "a refused request counts for its client neither").toBe(0);
  });

  it("sends nothing to, and counts nothing for, an address on no team", async () => {
    const client = new PortalClient(stack.baseUrl);
    const nobody = "no-team-at-all@example.com";
    for (let i = 1; i <= SIGN_INS_PER_ADDRESS + 3; i++) expect((await askForLink(client, nobody, `192.0.2.${i}`)).status, `request ${i}`).toBe(200);
    expect(attempts(`email:${nobody}`)).toBe(0);
    await sleep(500);
    expect(smtp.to(nobody)).toHaveLength(0);
  });

  it("behind the trusted proxy, one client's requests do not lock out another client", async () => {
    const client = new PortalClient(stack.baseUrl);
    // A spoofed entry left of the proxy's is not trusted: the client is the last entry, the one our proxy wrote.
    for (let i = 1; i <= SIGN_INS_PER_CLIENT; i++) expect((await askForLink(client, `crowd-${i}@example.com`, `10.9.9.9, 192.0.2.200`)).status, `request ${i}`).toBe(200);
    expect(attempts("client:192.0.2.200")).toBe(SIGN_INS_PER_CLIENT);
    expect(attempts("client:10.9.9.9")).toBe(0);
    const limited = await askForLink(client, "crowd-last@example.com", "192.0.2.200");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await askForLink(client, "crowd-last@example.com", "192.0.2.201")).status).toBe(200);
  });
});

describe("the service's log", () => {
  it("never contains a session id or a link token (SMTP configured)", async () => {
    // Every link mailed in this file, used or not.
    for (const m of smtp.mails) for (const l of m.links) secrets.add(new URL(l).searchParams.get("token")!);
    expect(secrets.size).toBeGreaterThan(10);
    const log = readFileSync(path.join(stack.dataDir, "service.log"), "utf8");
    expect(log.length).toBeGreaterThan(0);
    const leaked = [...secrets].filter((s) => log.includes(s) || log.includes(encodeURIComponent(s)));
    expect(leaked, `secrets in service.log:\n${leaked.map((s) => log.split("\n").find((l) => l.includes(s))).join("\n")}`).toEqual([]);
    expect(log).not.toMatch(/portal\/auth\?token=/);
  });
});
