/**
 * GET /ready: `200` when the process can serve (store open, chain reachable, indexer caught up), else `503`. Anyone
 * reads whether it is ready, which is all a load balancer needs; the detail (the chain's head, the indexer's lag,
 * whether this process holds the keeper lease) tells an outsider which process runs the keeper and how far behind
 * the indexer is, so it is shown only to `Authorization: Bearer <METRICS_TOKEN>`, the operator's token for the
 * service's own figures, and in the test environment while no token is set (as /metrics, http/metrics.ts).
 */
import type { Context } from "hono";
import type { Config } from "../config.js";
import type { PublicReadiness, Readiness } from "../readiness.js";
import { sameToken } from "./metrics.js";

export function readyHandler(readiness: () => Promise<Readiness>, config: Pick<Config, "env" | "metricsToken">) {
  return async (c: Context) => {
    const r = await readiness();
    const status = r.ready ? 200 : 503;
    // Never kept by a cache between the probe and the process: each answer is this process's state now.
    c.header("Cache-Control", "no-store");
    return c.json(detailShown(c, config) ? r : ({ ready: r.ready } satisfies PublicReadiness), status);
  };
}

/** A wrong or missing token is not refused: the probe still gets its status, only without the detail. */
function detailShown(c: Context, config: Pick<Config, "env" | "metricsToken">): boolean {
  const token = config.metricsToken;
  if (token === undefined) return config.env !== "production";
  const match = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
  return match !== null && sameToken(match[1]!, token);
}
