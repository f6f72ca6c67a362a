// The metrics endpoint's access rule, in one Hono app (the stack test test/stack/metrics.test.ts scrapes a real
// service with a token): without METRICS_TOKEN the test environment serves it and production answers 404 as for
// any unknown route; with it, only the token reads it.

import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { handleError } from "../../api/src/http/errors.js";
import { metricsHandler } from "../../api/src/http/metrics.js";
import type { Config } from "../../api/src/config.js";

function appWith(config: Pick<Config, "env" | "metricsToken">): Hono {
  const app = new Hono();
  app.onError(handleError);
  app.get("/metrics", metricsHandler(config));
  return app;
}

const TOKEN = "a-long-random-metrics-token-0123456789";

describe("GET /metrics access", () => {
  it("production without METRICS_TOKEN: 404 not_found, no figure", async () => {
    const response = await appWith({ env: "production", metricsToken: undefined }).request("/metrics");
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: string; detail: string };
    expect(body.error).toBe("not_found");
    expect(body.detail).toContain("METRICS_TOKEN");
  });

  it("test environment without METRICS_TOKEN: the Prometheus text", async () => {
    const response = await appWith({ env: "test", metricsToken: undefined }).request("/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await response.text()).toContain("# TYPE prizedraw_http_request_duration_seconds histogram");
  });

  it("with METRICS_TOKEN, in either environment: only that bearer token", async () => {
    for (const env of ["test", "production"] as const) {
      const app = appWith({ env, metricsToken: TOKEN });
      expect((await app.request("/metrics")).status).toBe(401);
      expect((await app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
      expect((await app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN.slice(1)}` } })).status).toBe(401);
      expect((await app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    }
  });
});
