import { createMiddleware } from "hono/factory";
import type { Environment } from "../config.js";
import { UnauthorizedError } from "../domain/errors.js";
import { authenticateKey } from "../domain/keys.js";
import type { Store } from "../store/index.js";

/** The caller's account, and the key it used (the per-key rate limit counts by it, http/rateLimit.ts). */
export type AuthVariables = { accountId: string; keyId: string };

/** Bearer API keys (spec, Authentication): the rule is domain/keys.ts authenticateKey; a refusal is 401 unauthorized. */
export function requireKey(store: Store, env: Environment) {
  return createMiddleware<{ Variables: AuthVariables }>(async (c, next) => {
    const header = c.req.header("authorization");
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw new UnauthorizedError("send the API key as Authorization: Bearer <key>");
    const { accountId, keyId } = await authenticateKey(store, env, match[1]!);
    c.set("accountId", accountId);
    c.set("keyId", keyId);
    await next();
  });
}
