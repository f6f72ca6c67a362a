// Webhooks on the real stack, to a local https server whose self-signed certificate only the service trusts
// (NODE_EXTRA_CA_CERTS) and which PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK lets it reach (as test/api/pull.test.ts):
// a whole push draw's events in order, each signature verified (by api/src/webhooks/signature.ts and by the client
// package's verifyWebhook, as a partner would); a drawing left without winners; an endpoint
// failing then recovering (the attempts listed by the CLI); a SIGKILL of the service while a delivery is held
// open, after which every event still arrives; and the CLI's refusals of bad URLs, which store nothing.

import { readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "@prizedraw/client";
import { usePartnerServer } from "../support/partnerServer.js";
import { until } from "../support/processes.js";
import { api, createAccount, startStack, type Stack } from "../support/stack.js";
import { campaignWithOpenDrawing, clockPast, firstOpenDrawing, getDrawing, postWinners, postWinnersPastCutoff, type DrawingBody } from "../support/partner.js";

type Received = { path: string; id: string; timestamp: string; signature: string; body: string; type: string; drawingId: string | null };
type Behaviour = "ok" | "fail" | "hold";

let stack: Stack;
/** The partner's https server's origin (https://localhost:port). */
let base: string;
/** Every request the endpoints received (answered or not), in arrival order. */
const received: Received[] = [];
/** How each path answers: 200, 500, or not at all (held open). */
const behaviour = new Map<string, Behaviour>();
const held: ServerResponse[] = [];

type Delivery = { eventId: string; eventType: string; status: string; attempts: number; attemptList: { httpStatus: number | null; error: string | null; durationMs: number }[] };
/** A push campaign with one winner a draw, activated, and its first open drawing. */
const pushCampaign = (accountId: string, key: string, slug: string) => campaignWithOpenDrawing(stack, { accountId, key }, slug, { winners: 1 });
const drawing = (key: string, slug: string, id: string) => getDrawing(stack, key, slug, id, { check: false });

async function endpoint(accountId: string, name: string): Promise<{ id: string; secret: string }> {
  behaviour.set(`/hooks/${name}`, behaviour.get(`/hooks/${name}`) ?? "ok");
  const created = await stack.cli("webhook", "create", "--account", accountId, "--url", `${base}/hooks/${name}?tok=abc`);
  return { id: (created.endpoint as { id: string }).id, secret: created.secret as string };
}

const at = (p: string) => received.filter((r) => r.path === p);

/** Each request verifies with the secret (at its own timestamp) and names the drawing it says it is about. */
function expectSigned(requests: readonly Received[], secret: string): void {
  for (const r of requests) {
    // As a partner does, with the client package's helper.
    expect(verifyWebhook(secret, { "webhook-id": r.id, "webhook-timestamp": r.timestamp, "webhook-signature": r.signature }, r.body)).toMatchObject({ id: r.id, type: r.type });
    expect(Math.abs(Number(r.timestamp) - Date.now() / 1000)).toBeLessThan(300);
  }
}

const partner = usePartnerServer("prizedraw-webhooks-e2e", (req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    const p = (req.url ?? "").split("?")[0]!;
    let parsed: { type?: string; data?: { drawing?: { id?: string } } } = {};
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      // recorded as is; the signature check fails the test
    }
    received.push({ path: p, id: String(req.headers["webhook-id"]), timestamp: String(req.headers["webhook-timestamp"]), signature: String(req.headers["webhook-signature"]), body, type: parsed.type ?? "", drawingId: parsed.data?.drawing?.id ?? null });
    const mode = behaviour.get(p) ?? "ok";
    if (mode === "hold") {
      held.push(res);
      return;
    }
    res.writeHead(mode === "ok" ? 200 : 500, { "content-type": "text/plain" });
    res.end(mode === "ok" ? "thanks" : "endpoint down for maintenance");
  });
});

beforeAll(async () => {
  base = partner.origin;
  stack = await startStack({ extraEnv: { ...partner.serviceEnv, PRIZEDRAW_WEBHOOK_RETRY_BASE_MS: "300" } });
}, 240_000);

afterAll(async () => {
  for (const res of held) res.destroy();
  await stack?.stop();
});

describe("webhooks", () => {
  it("refuses a non-https or private URL with a clear error and stores nothing", async () => {
    const { accountId } = await createAccount(stack, "refused@example.com");
    const refusals = [
      ["http://hooks.example.com/in", /url: the URL must be https/],
      ["https://10.0.0.7/in", /url: refused: the host resolves to a loopback, private/],
      ["https://192.168.0.1/in", /url: refused/],
    ] as const;
    await Promise.all(
      refusals.map(([url, detail]) =>
        expect(stack.cli("webhook", "create", "--account", accountId, "--url", url)).rejects.toMatchObject({ result: { error: "bad_request", detail: expect.stringMatching(detail) } }),
      ),
    );
    expect((await stack.cli("webhook", "list", "--account", accountId)).endpoints).toEqual([]);
  });

  it("delivers a whole push draw's events in order, each signed; a drawing left without winners is needs_attention", async () => {
    const { accountId, key } = await createAccount(stack, "draw@example.com");
    const { id: endpointId, secret } = await endpoint(accountId, "draw");
    const listed = await stack.cli("webhook", "list", "--account", accountId);
    expect(JSON.stringify(listed)).not.toContain(secret.slice(6));
    expect(listed.endpoints).toEqual([expect.objectContaining({ id: endpointId, url: `${base}/hooks/draw?tok=abc`, previousSecretExpiresAt: null })]);

    const open = await pushCampaign(accountId, key, "hooks-draw");
    await postWinnersPastCutoff(stack, key, "hooks-draw", open, ["w-1"]);
    const events = await until("three events", async () => {
      const mine = at("/hooks/draw").filter((r) => r.drawingId === open.id);
      return mine.length >= 3 ? mine : undefined;
    }, 90_000, 250);
    expect(events.map((e) => e.type)).toEqual(["drawing.locked", "drawing.settled", "drawing.paid"]);
    expectSigned(events, secret);
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
    for (const e of events) expect(e.id).toMatch(/^msg_/);
    const paid = JSON.parse(events[2]!.body) as { type: string; timestamp: string; data: { campaign: string; drawing: DrawingBody & { winners: { amountCents: number }[] } } };
    expect(paid.data.campaign).toBe("hooks-draw");
    // The drawing as GET drawing shows it (at the time of the event).
    const shown = await drawing(key, "hooks-draw", open.id);
    expect(paid.data.drawing).toMatchObject({ id: open.id, status: "paid", winners: shown.winners });

    const next = await firstOpenDrawing(stack, key, "hooks-draw");
    await clockPast(stack, key, "hooks-draw", next);
    const flagged = await until("needs_attention", async () => at("/hooks/draw").find((r) => r.drawingId === next.id), 30_000, 250);
    expect(flagged.type).toBe("drawing.needs_attention");
    expect((JSON.parse(flagged.body) as { data: { drawing: DrawingBody } }).data.drawing.needsAttention).toMatch(/no winners at the cutoff/);
    expectSigned([flagged], secret);

    const deliveries = (await stack.cli("webhook", "deliveries", endpointId)).deliveries as Delivery[];
    expect(deliveries.map((d) => [d.eventType, d.status, d.attempts])).toEqual([
      ["drawing.needs_attention", "delivered", 1],
      ["drawing.paid", "delivered", 1],
      ["drawing.settled", "delivered", 1],
      ["drawing.locked", "delivered", 1],
    ]);
    // The service never logs a secret or the endpoint's URL (it may hold a token); the CLI printed the secret once.
    const log = readFileSync(path.join(stack.dataDir, "service.log"), "utf8");
    expect(log).toContain(endpointId);
    for (const needle of [secret.slice(6), "tok=abc"]) expect(log).not.toContain(needle);
  }, 150_000);

  it("retries a failing endpoint and delivers once it recovers; the CLI lists the attempts", async () => {
    const { accountId, key } = await createAccount(stack, "flaky@example.com");
    behaviour.set("/hooks/flaky", "fail");
    const { id: endpointId, secret } = await endpoint(accountId, "flaky");
    const open = await pushCampaign(accountId, key, "hooks-flaky");
    await clockPast(stack, key, "hooks-flaky", open);
    await until("two failed attempts", async () => (at("/hooks/flaky").length >= 2 ? true : undefined), 30_000, 100);
    behaviour.set("/hooks/flaky", "ok");
    const [delivery] = await until("delivered after recovery", async () => {
      const list = (await stack.cli("webhook", "deliveries", endpointId)).deliveries as Delivery[];
      return list[0]?.status === "delivered" ? list : undefined;
    }, 30_000, 250);
    expect(delivery!.eventType).toBe("drawing.needs_attention");
    expect(delivery!.attempts).toBeGreaterThanOrEqual(3);
    expect(delivery!.attemptList.slice(0, -1).every((a) => a.httpStatus === 500)).toBe(true);
    expect(delivery!.attemptList.at(-1)!.httpStatus).toBe(200);
    const requests = at("/hooks/flaky");
    // Every attempt is the same event (one webhook-id, one body), signed at its own time.
    expect(new Set(requests.map((r) => r.id))).toEqual(new Set([delivery!.eventId]));
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    expectSigned(requests, secret);
  }, 90_000);

  it("after a SIGKILL while a delivery is held open, every event still arrives, at least once", async () => {
    const { accountId, key } = await createAccount(stack, "crash@example.com");
    behaviour.set("/hooks/crash", "hold");
    const { secret } = await endpoint(accountId, "crash");
    const open = await pushCampaign(accountId, key, "hooks-crash");
    await postWinners(stack, key, "hooks-crash", open.id, ["c-1"], { check: false });
    await clockPast(stack, key, "hooks-crash", open);
    // drawing.locked is in flight (held); settled and paid wait behind it in the outbox.
    await until("paid, with a delivery in flight", async () => ((await drawing(key, "hooks-crash", open.id)).status === "paid" && at("/hooks/crash").length > 0 ? true : undefined), 90_000, 250);
    expect(at("/hooks/crash").map((r) => r.type)).toEqual(expect.arrayContaining(["drawing.locked"]));
    // Killed while a request is open (the service gives one up after 10 s and sends it again: wait for a live one).
    await until("a delivery in flight", async () => (held.some((res) => !res.socket?.destroyed) ? true : undefined), 20_000, 100);
    await stack.restartService("SIGKILL");
    behaviour.set("/hooks/crash", "ok");
    for (const res of held.splice(0)) res.destroy();
    const events = await until("every event after the restart", async () => {
      const types = new Set(at("/hooks/crash").map((r) => r.type));
      return ["drawing.locked", "drawing.settled", "drawing.paid"].every((t) => types.has(t)) ? at("/hooks/crash") : undefined;
    }, 60_000, 250);
    expectSigned(events.filter((e) => Date.now() / 1000 - Number(e.timestamp) < 290), secret);
    // In order, each once delivered: locked (again, its first send was cut), settled, paid.
    const firstOf = (t: string) => events.findIndex((e) => e.type === t);
    expect(firstOf("drawing.locked")).toBeLessThan(firstOf("drawing.settled"));
    expect(firstOf("drawing.settled")).toBeLessThan(firstOf("drawing.paid"));
    const ids = new Map(events.map((e) => [e.type, e.id]));
    // A resend is the same event: one webhook-id per type.
    for (const e of events) expect(e.id).toBe(ids.get(e.type));
  }, 150_000);
});
