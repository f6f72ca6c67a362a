import { Hono, type Context } from "hono";
import type { Config } from "../config.js";
import type { DeploymentRecord } from "../chain/deployment.js";
import type { IndexerClient } from "../chain/indexer.js";
import { NotFoundError } from "../domain/errors.js";
import type { Readiness } from "../readiness.js";
import type { Store } from "../store/index.js";
import { requireKey } from "./auth.js";
import { limitKeys } from "./rateLimit.js";
import { readyHandler } from "./ready.js";
import { limitBody } from "./body.js";
import { MAX_LIST_BODY_BYTES } from "../lists/schemas.js";
import { MAX_BODY_BYTES } from "./schemas.js";
import { nulGuard } from "./nulGuard.js";
import { handleError } from "./errors.js";
import { httpMetrics, metricsHandler } from "./metrics.js";
import { idempotency } from "./idempotency.js";
import { PublicCache } from "./publicCache.js";
import { openApiDocument } from "./openapi.js";
import { requestId } from "./requestId.js";
import { campaignRoutes } from "./routes/campaigns.js";
import { entryRoutes } from "./routes/entries.js";
import { guaranteeRoutes } from "./routes/guarantees.js";
import { pageRoutes } from "./routes/page.js";
import { publicRoutes } from "./routes/public.js";
import { portalRoutes } from "./portal/index.js";
import type { Mailer } from "../mail/mailer.js";

/**
 * The two routes that take lists (POST winners, POST entries) accept bodies up to MAX_LIST_BODY_BYTES, so the largest
 * legal list always fits; every other route up to MAX_BODY_BYTES. A larger body is answered 413 (http/body.ts).
 */
const LIST_ROUTE = /^\/api\/v1\/campaigns\/[^/]+\/(entries|drawings\/[^/]+\/winners)$/;

export type AppDeps = {
  store: Store;
  indexer: IndexerClient;
  deployment: DeploymentRecord;
  /** Without `rateLimits` no API key is limited (the process passes its configuration; benchmarks may not). */
  config: Pick<Config, "env" | "publicBaseUrl"> & Partial<Pick<Config, "pullAllowHttpLoopback" | "metricsToken" | "trustedProxyHops" | "rateLimits">>;
  /** The portal's mail (sign-in and invite links). */
  mailer: Mailer;
  readiness: () => Promise<Readiness>;
  runCampaign: (campaignId: string) => void;
  /** The public reads' renders, shared with the fast path in front of the app (main.ts); a new one by default. */
  cache?: PublicCache;
};

/** The service's HTTP app: health and readiness, the partner API under /api/v1, and the public endpoints. */
export function createApp({ store, indexer, deployment, config, mailer, readiness, runCampaign, cache = new PublicCache(store) }: AppDeps): Hono {
  const app = new Hono();
  app.use(httpMetrics());
  app.use(requestId());
  // Every response, JSON and errors included: a browser must never sniff a body into another type (e.g. HTML).
  app.use(async (c, next) => { await next(); c.header("X-Content-Type-Options", "nosniff"); });
  app.onError(handleError);
  app.use(nulGuard());
  app.notFound((c) => handleError(new NotFoundError(`no route for ${c.req.method} ${c.req.path.slice(0, 200)}`), c));

  app.get("/health", (c) => c.json({ ok: true }));
  app.get("/metrics", metricsHandler({ env: config.env, metricsToken: config.metricsToken }));
  app.get("/ready", readyHandler(readiness, { env: config.env, metricsToken: config.metricsToken }));
  app.get("/api/v1/openapi.json", (c) => c.json(openApiDocument())); // before the partner API: no key needed

  const api = new Hono();
  const listLimit = limitBody(MAX_LIST_BODY_BYTES);
  const otherLimit = limitBody(MAX_BODY_BYTES);
  const listRoute = (c: Context) => c.req.method === "POST" && LIST_ROUTE.test(c.req.path);
  api.use((c, next) => (listRoute(c) ? listLimit : otherLimit)(c, next));
  api.use(requireKey(store, config.env));
  // After the key is known and before the body is read: a refused request costs no parse and writes nothing.
  api.use(limitKeys(config.rateLimits?.perKey ?? 0, (c) => (listRoute(c) ? MAX_LIST_BODY_BYTES : MAX_BODY_BYTES)));
  api.use(idempotency(store));
  api.route("/campaigns", campaignRoutes({ store, config, runCampaign }));
  api.route("/campaigns", entryRoutes({ store }));
  api.route("/campaigns", guaranteeRoutes({ store }));
  app.route("/api/v1", api);
  const pullPolicy = { allowHttpLoopback: config.env === "test" && config.pullAllowHttpLoopback === true };
  app.route("/portal", portalRoutes({ store, mailer, publicBaseUrl: config.publicBaseUrl, env: config.env, runCampaign, pullPolicy, trustedProxyHops: config.trustedProxyHops ?? 0 }));
  app.route("/", publicRoutes({ store, indexer, deployment, publicBaseUrl: config.publicBaseUrl, cache }));
  app.route("/", pageRoutes({ store, indexer, publicBaseUrl: config.publicBaseUrl, deployment, cache }));
  return app;
}
