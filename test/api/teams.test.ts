// Team rules on the real stack (spec, Authentication 2): owners add members and create or revoke keys; members
// cannot, and neither can anyone outside the team. The team is managed through the prizedraw CLI (the portal's
// jobs; `--as EMAIL` acts as that person, without it the operator acts); what a refusal leaves behind is read over
// real HTTP (the key still works, or still fails) and from the SQLite store (no key row, no member row).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storePath } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import { api, startStack, type Stack } from "../support/stack.js";
import { rawSqlite } from "../support/store.js";

let stack: Stack;
let accountId: string;
let otherAccountId: string;
let ownerKey: string;
const ROUTE = "/api/v1/campaigns/no-such-campaign";

/** A key works when the partner API answers with anything but 401 (404 here: the account has no such campaign). */
const works = async (key: string) => (await api(stack, "GET", ROUTE, { key })).status !== 401;

type Row = Record<string, unknown>;
/** Rows read from the stack's SQLite file directly, as another process would. */
async function rows(sql: string, ...params: unknown[]): Promise<Row[]> {
  const store = await openServiceStore(storePath(stack.dataDir));
  try {
    return rawSqlite(store).prepare(sql).all(...params) as Row[];
  } finally {
    await store.close();
  }
}
const keyRows = () => rows("SELECT key_id, created_by, revoked_at FROM api_keys WHERE account_id = ? ORDER BY created_at", accountId);
const memberRows = () => rows("SELECT email, role FROM members WHERE account_id = ? ORDER BY email", accountId);

/** A CLI command that must be refused as an owner-only action: exit 2, error `forbidden`. */
async function refused(...args: string[]): Promise<void> {
  await expect(stack.cli(...args)).rejects.toMatchObject({ code: 2, result: { error: "forbidden" } });
}

beforeAll(async () => {
  stack = await startStack();
  accountId = (await stack.cli("account", "create", "--email", "owner@example.com")).accountId as string;
  otherAccountId = (await stack.cli("account", "create", "--email", "other-owner@example.com")).accountId as string;
  await stack.cli("member", "add", "--account", accountId, "--email", "member@example.com", "--role", "member");
  ownerKey = (await stack.cli("key", "create", "--account", accountId, "--as", "owner@example.com")).key as string;
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

describe("only owners create keys", () => {
  it("refuses a member, an outsider and another account's owner; stores no key", async () => {
    const before = await keyRows();
    await refused("key", "create", "--account", accountId, "--as", "member@example.com");
    await refused("key", "create", "--account", accountId, "--as", "stranger@example.com");
    await refused("key", "create", "--account", accountId, "--as", "other-owner@example.com");
    expect(await keyRows()).toEqual(before);
  }, 120_000);

  it("gives an owner a key that works over HTTP at once, recorded as created by that owner", async () => {
    const created = await stack.cli("key", "create", "--account", accountId, "--as", "Owner@Example.com");
    expect(created.key).toMatch(/^pd_test_/);
    expect(await works(created.key as string)).toBe(true);
    expect((await keyRows()).find((k) => k.key_id === created.keyId)).toMatchObject({ created_by: "owner@example.com", revoked_at: null });
  }, 120_000);
});

describe("only owners revoke keys", () => {
  it("refuses a member and an outsider: the key keeps working over HTTP", async () => {
    const keyId = ownerKey.slice("pd_test_".length, "pd_test_".length + 12);
    await refused("key", "revoke", "--account", accountId, keyId, "--as", "member@example.com");
    await refused("key", "revoke", "--account", accountId, keyId, "--as", "other-owner@example.com");
    expect(await works(ownerKey)).toBe(true);
    expect((await keyRows()).find((k) => k.key_id === keyId)).toMatchObject({ revoked_at: null });
  }, 120_000);

  it("lets an owner revoke: the very next request with the key is 401", async () => {
    const { key, keyId } = (await stack.cli("key", "create", "--account", accountId, "--as", "owner@example.com")) as { key: string; keyId: string };
    expect(await works(key)).toBe(true);
    await stack.cli("key", "revoke", "--account", accountId, keyId, "--as", "owner@example.com");
    const after = await api(stack, "GET", ROUTE, { key });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe("unauthorized");
    // Another account's owner cannot revoke this account's keys, even knowing the key id.
    await refused("key", "revoke", "--account", accountId, keyId, "--as", "other-owner@example.com");
    await expect(stack.cli("key", "revoke", "--account", otherAccountId, keyId, "--as", "other-owner@example.com")).rejects.toMatchObject({ code: 2, result: { error: "not_found" } });
  }, 120_000);
});

describe("only owners add members", () => {
  it("refuses a member adding someone, or promoting themselves; stores nothing", async () => {
    const before = await memberRows();
    await refused("member", "add", "--account", accountId, "--email", "friend@example.com", "--role", "member", "--as", "member@example.com");
    await refused("member", "add", "--account", accountId, "--email", "member@example.com", "--role", "owner", "--as", "member@example.com");
    await refused("member", "add", "--account", accountId, "--email", "friend@example.com", "--as", "other-owner@example.com");
    expect(await memberRows()).toEqual(before);
    // Still a member: still refused a key.
    await refused("key", "create", "--account", accountId, "--as", "member@example.com");
  }, 120_000);

  it("lets an owner add a member and an owner; the new owner manages keys, the new member does not", async () => {
    await stack.cli("member", "add", "--account", accountId, "--email", "second@example.com", "--role", "member", "--as", "owner@example.com");
    await stack.cli("member", "add", "--account", accountId, "--email", "co-owner@example.com", "--role", "owner", "--as", "owner@example.com");
    expect(await memberRows()).toEqual([
      { email: "co-owner@example.com", role: "owner" },
      { email: "member@example.com", role: "member" },
      { email: "owner@example.com", role: "owner" },
      { email: "second@example.com", role: "member" },
    ]);
    await refused("key", "create", "--account", accountId, "--as", "second@example.com");
    const key = (await stack.cli("key", "create", "--account", accountId, "--as", "co-owner@example.com")).key as string;
    expect(await works(key)).toBe(true);
    const audit = await rows("SELECT actor, action FROM audit_log WHERE subject = ? AND action LIKE 'member.%' ORDER BY at", accountId);
    expect(audit).toContainEqual({ actor: "owner@example.com", action: "member.add" });
  }, 120_000);

  it("keeps an owner on every account: the last owner cannot be made a member", async () => {
    await expect(stack.cli("member", "add", "--account", otherAccountId, "--email", "other-owner@example.com", "--role", "member")).rejects.toMatchObject({ code: 2, result: { error: "bad_request" } });
    await expect(stack.cli("member", "add", "--account", otherAccountId, "--email", "other-owner@example.com", "--role", "member", "--as", "other-owner@example.com")).rejects.toMatchObject({ code: 2 });
    // With a second owner, one owner may step down.
    await stack.cli("member", "add", "--account", accountId, "--email", "co-owner@example.com", "--role", "member", "--as", "owner@example.com");
    expect(await memberRows()).toContainEqual({ email: "co-owner@example.com", role: "member" });
    await refused("key", "create", "--account", accountId, "--as", "co-owner@example.com");
  }, 120_000);
});

describe("the partner API manages no team", () => {
  it("offers no route to create or revoke keys or add members, to any key", async () => {
    for (const [method, route] of [
      ["POST", "/api/v1/keys"],
      ["POST", "/api/v1/account/keys"],
      ["DELETE", `/api/v1/keys/${ownerKey.slice(8, 20)}`],
      ["POST", "/api/v1/members"],
      ["POST", "/api/v1/account/members"],
    ] as const) {
      const r = await api(stack, method, route, { key: ownerKey, body: { email: "x@example.com", role: "owner" } });
      expect(r.status).toBe(404);
      expect(r.body.error).toBe("not_found");
    }
    expect((await keyRows()).every((k) => typeof k.created_by === "string")).toBe(true);
  });
});
