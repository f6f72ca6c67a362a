/** Authenticating a partner's API key (api/src/domain/keys.ts authenticateKey) against a real SQLite store. */
import { describe, expect, it } from "vitest";
import { UnauthorizedError } from "../../api/src/domain/errors.js";
import { authenticateKey } from "../../api/src/domain/keys.js";
import { OPERATOR, createAccount, createKey, revokeKey } from "../../api/src/domain/team.js";
import { storeFilePerTest } from "../support/store.js";

const files = storeFilePerTest("keys");

/** The refusal's detail, failing the test when the key is accepted or refused otherwise. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnauthorizedError);
  return (error as UnauthorizedError).message;
}

describe("authenticateKey", () => {
  it("answers the key's account and id, and records its last use at most once a minute", async () => {
    const store = await files.open();
    const { accountId } = await createAccount(store, "owner@example.com");
    const { key, keyId } = await createKey(store, "test", accountId, OPERATOR);
    const t0 = new Date("2026-11-28T10:00:00.000Z");
    expect(await authenticateKey(store, "test", key, t0)).toEqual({ accountId, keyId });
    await authenticateKey(store, "test", key, new Date(t0.getTime() + 30_000));
    expect((await store.accounts.key(keyId))?.lastUsedAt).toBe(t0.toISOString());
    await authenticateKey(store, "test", key, new Date(t0.getTime() + 61_000));
    expect((await store.accounts.key(keyId))?.lastUsedAt).toBe(new Date(t0.getTime() + 61_000).toISOString());
  });

  it("refuses a wrong secret, a revoked key and the other environment's key, each with a detail that helps the holder", async () => {
    const store = await files.open();
    const { accountId } = await createAccount(store, "owner@example.com");
    const { key, keyId } = await createKey(store, "test", accountId, OPERATOR);
    const wrongSecret = key.slice(0, -4) + (key.endsWith("AAAA") ? "BBBB" : "AAAA");
    expect(await refusal(authenticateKey(store, "test", wrongSecret))).toBe("unknown API key");
    // A key copied short keeps its prefix: told to copy all of it, not about prefixes.
    expect(await refusal(authenticateKey(store, "test", key.slice(0, -1)))).toMatch(/^unknown API key: it is not a whole key \(copy all of it: pd_test_/);
    // The same key row presented under the other prefix: refused, naming this environment's prefix.
    expect(await refusal(authenticateKey(store, "production", key))).toBe("this is a test key; this is the production environment, whose keys start pd_live_");
    expect(await refusal(authenticateKey(store, "test", key.replace("pd_test_", "pd_live_")))).toBe("this is a production key; this is the test environment, whose keys start pd_test_");
    expect(await refusal(authenticateKey(store, "test", "nope"))).toBe("unknown API key (this is the test environment; its keys start pd_test_)");
    await revokeKey(store, accountId, OPERATOR, keyId);
    expect(await refusal(authenticateKey(store, "test", key))).toBe("this API key was revoked");
  });
});
