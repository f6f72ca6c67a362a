import { Hono } from "hono";
import type { Readiness } from "../readiness.js";

export type AppDeps = { readiness: () => Promise<Readiness> };

/** The service's HTTP app. For now: `GET /health` (process up) and `GET /ready` (store, chain, indexer). */
export function createApp({ readiness }: AppDeps): Hono {
  const app = new Hono();
  app.get("/health", (c) => c.json({ ok: true }));
  app.get("/ready", async (c) => {
    const r = await readiness();
    return c.json(r, r.ready ? 200 : 503);
  });
  app.notFound((c) => c.json({ error: "not_found", detail: `no route for ${c.req.method} ${c.req.path}` }, 404));
  app.onError((_error, c) => c.json({ error: "internal", detail: "unexpected error; the request was not completed" }, 500));
  return app;
}
