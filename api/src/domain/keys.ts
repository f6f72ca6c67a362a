import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Environment } from "../config.js";
import type { Store } from "../store/index.js";
import { UnauthorizedError } from "./errors.js";

/** Key prefixes per environment: a key of the other environment is refused as unauthorized. */
export const KEY_PREFIX: Record<Environment, string> = { test: "pd_test_", production: "pd_live_" };

export type IssuedKey = { key: string; keyId: string; hash: string; last4: string };

/** SHA-256 of the secret part, hex: the only form in which a key is stored. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/**
 * A new API key `pd_test_<keyId>_<secret>`: the key id finds the row, the secret is compared by hash in
 * constant time. The full key is returned once and never stored.
 */
export function issueKey(env: Environment): IssuedKey {
  const keyId = randomBytes(6).toString("hex");
  const secret = randomBytes(24).toString("base64url");
  const key = `${KEY_PREFIX[env]}${keyId}_${secret}`;
  return { key, keyId, hash: hashSecret(secret), last4: secret.slice(-4) };
}

export type ParsedKey = { keyId: string; secret: string };

/** Splits a presented key; null when it is not a key of this environment's shape. */
export function parseKey(env: Environment, presented: string): ParsedKey | null {
  const prefix = KEY_PREFIX[env];
  if (!presented.startsWith(prefix)) return null;
  const match = /^([0-9a-f]{12})_([A-Za-z0-9_-]{32})$/.exec(presented.slice(prefix.length));
  if (!match) return null;
  return { keyId: match[1]!, secret: match[2]! };
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), "hex");
  const b = Buffer.from(storedHash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A key's last use is written at most this often (owners see it to the minute). */
const TOUCH_EVERY_MS = 60_000;

/**
 * The account a presented API key acts for (spec, Authentication): a malformed, unknown, revoked or
 * other-environment key is UnauthorizedError. The detail helps the holder of a real key (which environment, a key
 * copied short) and says nothing about which keys exist.
 */
export async function authenticateKey(store: Store, env: Environment, presented: string, now: Date = new Date()): Promise<{ accountId: string; keyId: string }> {
  const parsed = parseKey(env, presented);
  if (!parsed) {
    const other: Environment = env === "test" ? "production" : "test";
    if (presented.startsWith(KEY_PREFIX[other])) {
      throw new UnauthorizedError(`this is a ${other} key; this is the ${env} environment, whose keys start ${KEY_PREFIX[env]}`);
    }
    if (presented.startsWith(KEY_PREFIX[env])) throw new UnauthorizedError(`unknown API key: it is not a whole key (copy all of it: ${KEY_PREFIX[env]}, 12 hex digits, _ and 32 characters)`);
    throw new UnauthorizedError(`unknown API key (this is the ${env} environment; its keys start ${KEY_PREFIX[env]})`);
  }
  const row = await store.accounts.key(parsed.keyId);
  if (!row || row.environment !== env || !secretMatches(parsed.secret, row.secretHash)) throw new UnauthorizedError("unknown API key");
  if (row.revokedAt) throw new UnauthorizedError("this API key was revoked");
  await store.accounts.touchKey(row.keyId, now.toISOString(), new Date(now.getTime() - TOUCH_EVERY_MS).toISOString());
  return { accountId: row.accountId, keyId: row.keyId };
}
