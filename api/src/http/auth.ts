import { createMiddleware } from "hono/factory";
import type { Environment } from "../config.js";
import { UnauthorizedError } from "../domain/errors.js";
import { parseKey, secretMatches } from "../domain/keys.js";
import type { Store } from "../store/index.js";

export type AuthVariables = { accountId: string };

/**
 * Bearer API keys (spec, Authentication): a missing, malformed, unknown, revoked or other-environment key is
 * 401 unauthorized. The key id finds the row; the secret is compared by hash in constant time.
 */
export function requireKey(store: Store, env: Environment) {
  return createMiddleware<{ Variables: AuthVariables }>(async (c, next) => {
    const header = c.req.header("authorization");
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw new UnauthorizedError("send the API key as Authorization: Bearer <key>");
    const parsed = parseKey(env, match[1]!);
    if (!parsed) throw new UnauthorizedError(`unknown API key (this is the ${env} environment; its keys start ${env === "test" ? "pd_test_" : "pd_live_"})`);
    const row = await store.accounts.key(parsed.keyId);
    if (!row || row.environment !== env || !secretMatches(parsed.secret, row.secretHash)) throw new UnauthorizedError("unknown API key");
    if (row.revokedAt) throw new UnauthorizedError("this API key was revoked");
    c.set("accountId", row.accountId);
    // Owners see when each key was last used (to the minute: one write per key per minute at most).
    const now = Date.now();
    await store.accounts.touchKey(row.keyId, new Date(now).toISOString(), new Date(now - 60_000).toISOString());
    await next();
  });
}
