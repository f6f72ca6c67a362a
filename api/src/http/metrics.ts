/**
 * GET /metrics (Prometheus text format) and the middleware that times every request the app answers. The route
 * label is the matched route's pattern (`/api/v1/campaigns/:slug`), never the raw path, so a scan of made-up URLs
 * cannot grow the label set; a request no route matched is `unmatched`.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { Config } from "../config.js";
import { NotFoundError, UnauthorizedError } from "../domain/errors.js";
import { httpRequestDuration, registry } from "../metrics/registry.js";

/**
 * The pattern of the route that answered (after the handlers ran, the request's route index is the last one
 * dispatched); `unmatched` when no route but the catch-all middleware did.
 */
function routeOf(c: Context): string {
  const pattern = routePath(c);
  return pattern === "" || /^\/?\*$/.test(pattern) ? "unmatched" : pattern;
}

/** Times each request from its arrival to the end of its handler, labelled by route pattern, method and status. */
export function httpMetrics(): MiddlewareHandler {
  return async (c, next) => {
    const stop = httpRequestDuration.startTimer();
    try {
      await next();
    } finally {
      stop({ route: routeOf(c), method: c.req.method, status: String(c.res.status) });
    }
  };
}

/** Constant-time comparison of two tokens of any length (hashed first, so lengths leak nothing either). */
export function sameToken(a: string, b: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * The metrics endpoint's handler: with METRICS_TOKEN set, only `Authorization: Bearer <token>` reads it (401
 * otherwise); without it, the test environment serves it to anyone on the port and production answers 404.
 */
export function metricsHandler(config: Pick<Config, "env" | "metricsToken">) {
  return async (c: Context) => {
    const token = config.metricsToken;
    if (token === undefined) {
      if (config.env === "production") throw new NotFoundError("no route for GET /metrics (set METRICS_TOKEN to serve metrics in production)");
    } else {
      const match = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
      if (!match || !sameToken(match[1]!, token)) throw new UnauthorizedError("send the metrics token as Authorization: Bearer <METRICS_TOKEN>");
    }
    return c.body(await registry.metrics(), 200, { "Content-Type": registry.contentType, "Cache-Control": "no-store" });
  };
}
