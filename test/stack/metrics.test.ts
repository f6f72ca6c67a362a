// GET /metrics on the real stack: scraped and parsed as Prometheus would, its figures follow a push drawing from
// open to paid (drawings by status, the draw-to-paid histogram, the pool, the keeper, HTTP requests by route), and
// with METRICS_TOKEN set only the token reads it.

import { describe, expect, it } from "vitest";
import { campaignWithOpenDrawing, postWinnersPastCutoff, waitFor, waitForStatus } from "../support/partner.js";
import { parseExposition, sampleValue, type Family } from "../support/prometheus.js";
import { api, type Stack } from "../support/stack.js";
import { useStack } from "../support/suite.js";

const TOKEN = "metrics-token-for-the-test-0123456789";

let stack: Stack;
let key: string;
let accountId: string;

async function scrape(token: string | null = TOKEN): Promise<Map<string, Family>> {
  const response = await fetch(`${stack.baseUrl}/metrics`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await response.text());
}

useStack("metrics@example.com", (started) => ({ stack, accountId, key } = started), { extraEnv: { METRICS_TOKEN: TOKEN } });

describe("GET /metrics", () => {
  it("answers only the metrics token: 401 without it or with another, never a figure", async () => {
    for (const header of [undefined, "Bearer wrong-token-wrong-token-wrong", `Basic ${TOKEN}`]) {
      const response = await fetch(`${stack.baseUrl}/metrics`, { headers: header === undefined ? {} : { authorization: header } });
      expect(response.status).toBe(401);
      const body = (await response.json()) as { error: string; detail: string };
      expect(body.error).toBe("unauthorized");
      expect(JSON.stringify(body)).not.toContain("prizedraw_");
    }
  });

  it("follows a push drawing from open to paid", async () => {
    const open = await campaignWithOpenDrawing(stack, { accountId, key }, "metered", { name: "Metered", winners: 2 });
    expect((await api(stack, "GET", "/api/v1/campaigns/metered", { key })).status).toBe(200);

    const before = await scrape();
    expect(before.get("prizedraw_drawings")?.type).toBe("gauge");
    expect(sampleValue(before, "prizedraw_drawings", { status: "open", mode: "push" })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(before, "prizedraw_drawings", { status: "paid", mode: "push" }) ?? 0).toBe(0);
    expect(sampleValue(before, "prizedraw_keeper_lease_held")).toBe(1);
    expect(sampleValue(before, "prizedraw_pool_cents", { kind: "balance" })).toBeGreaterThan(0);
    expect(sampleValue(before, "prizedraw_operator_balance_wei")).toBeGreaterThan(0);
    expect(sampleValue(before, "prizedraw_webhook_backlog")).toBe(0);
    // Requests are labelled by route pattern, never by the raw path.
    expect(sampleValue(before, "prizedraw_http_request_duration_seconds_count", { route: "/api/v1/campaigns/:slug", method: "GET", status: "200" })).toBeGreaterThanOrEqual(1);
    const routes = new Set(before.get("prizedraw_http_request_duration_seconds")?.samples.map((s) => s.labels.route));
    expect([...routes].some((r) => r?.includes("metered"))).toBe(false);
    const cyclesBefore = sampleValue(before, "prizedraw_keeper_cycle_duration_seconds_count") ?? 0;

    await postWinnersPastCutoff(stack, key, "metered", open, ["m-1", "m-2"]);
    await waitForStatus(stack, key, "metered", open.id, "paid", 120_000);

    const after = await scrape();
    expect(sampleValue(after, "prizedraw_drawings", { status: "paid", mode: "push" })).toBe(1);
    expect(sampleValue(after, "prizedraw_drawing_draw_to_paid_seconds_count", { mode: "push" })).toBe(1);
    expect(sampleValue(after, "prizedraw_keeper_cycle_duration_seconds_count")).toBeGreaterThan(cyclesBefore);
    for (const status of ["locked", "entropy_requested", "settled"]) {
      expect(sampleValue(after, "prizedraw_oldest_unfinished_drawing_seconds", { status })).toBe(0);
    }
    // The payout left the pool and nothing more is owed for the drawing (chain figures are read at most every 10 s).
    const balanceBefore = sampleValue(before, "prizedraw_pool_cents", { kind: "balance" })!;
    const pool = await waitFor("the pool's figures after the payout", () => scrape(), (m) => sampleValue(m, "prizedraw_pool_cents", { kind: "balance" })! < balanceBefore, 30_000);
    expect(sampleValue(pool, "prizedraw_pool_cents", { kind: "owed" })).toBe(0);
    expect(sampleValue(pool, "prizedraw_pool_cents", { kind: "free" })).toBe(sampleValue(pool, "prizedraw_pool_cents", { kind: "balance" }));
    expect(sampleValue(after, "prizedraw_process_nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
    // The operator's transactions: the commit and the payout mined, their fees counted, none left in flight.
    for (const fn of ["commitAndRequest", "payout"]) {
      expect(sampleValue(after, "prizedraw_chain_transactions_total", { function: fn, outcome: "mined" }), fn).toBeGreaterThanOrEqual(1);
    }
    expect(sampleValue(after, "prizedraw_chain_fees_wei_total")).toBeGreaterThan(0);
    expect(sampleValue(after, "prizedraw_chain_transactions_in_flight")).toBe(0);
  });
});
