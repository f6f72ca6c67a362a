// The HTTP server's guards on a production service (the real stack with PRIZEDRAW_ENV=production, as
// test/api/production.test.ts starts it), with its limits set small: a connection over the cap is closed at once, a
// request whose body (or headers) trickles in is cut off with 408 once its time is up, /ready tells the public only
// whether it is ready (the detail takes METRICS_TOKEN), and every answer carries Strict-Transport-Security.

import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANVIL_KEYS } from "../../api/src/config.js";
import { startStack, type Stack } from "../support/stack.js";

const MAX_CONNECTIONS = 8;
const REQUEST_TIMEOUT_SECONDS = 3;
const HEADERS_TIMEOUT_SECONDS = 2;
const METRICS_TOKEN = "a-long-random-readiness-token-0123456789";

let stack: Stack;
let liveKey: string;

const productionEnv: Record<string, string> = {
  PRIZEDRAW_ENV: "production",
  OPERATOR_PRIVATE_KEY: ANVIL_KEYS.operator,
  SMTP_URL: "smtp://127.0.0.1:1",
  KEEPER_INTERVAL_SECONDS: "",
  METRICS_TOKEN,
  HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
  HTTP_REQUEST_TIMEOUT_SECONDS: String(REQUEST_TIMEOUT_SECONDS),
  HTTP_HEADERS_TIMEOUT_SECONDS: String(HEADERS_TIMEOUT_SECONDS),
};

beforeAll(async () => {
  stack = await startStack({
    deploy: { randomness: "test-entropy-v2" },
    extraEnv: productionEnv,
    beforeService: async (_deployment, rpcUrl) => {
      productionEnv.RPC_URL = rpcUrl;
    },
  });
  const accountId = (await stack.cli("account", "create", "--email", "guards@example.com")).accountId as string;
  liveKey = (await stack.cli("key", "create", "--account", accountId, "--as", "guards@example.com")).key as string;
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

/** What a raw connection saw: the bytes the server sent, and when (ms after the start) it closed, if it did. */
type Seen = { text: string; closedAfterMs: number | null };

/**
 * Opens a connection, writes `head`, then `drip` one byte at a time every `everyMs` until the server closes the
 * connection or `giveUpMs` passes; answers what it saw.
 */
function trickle(head: string, drip: string, everyMs: number, giveUpMs: number): Promise<Seen> {
  const url = new URL(stack.baseUrl);
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect(Number(url.port), url.hostname);
    let text = "";
    let i = 0;
    const timer = setInterval(() => {
      if (i < drip.length && socket.writable) socket.write(drip[i++]!);
    }, everyMs);
    const done = (closedAfterMs: number | null) => {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ text, closedAfterMs });
    };
    const giveUp = setTimeout(() => done(null), giveUpMs);
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    socket.on("close", () => done(performance.now() - started));
    socket.on("error", () => undefined);
    socket.write(head);
  });
}

/** A keep-alive GET /health on a new connection: "answered" (the connection stays open) or "dropped". */
function holdConnection(): Promise<{ socket: net.Socket; outcome: "answered" | "dropped" }> {
  const url = new URL(stack.baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let text = "";
    const timer = setTimeout(() => resolve({ socket, outcome: "dropped" }), 3_000);
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (text.includes('{"ok":true}')) {
        clearTimeout(timer);
        resolve({ socket, outcome: "answered" });
      }
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ socket, outcome: "dropped" });
    });
    socket.on("error", () => undefined);
    socket.write(`GET /health HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\n\r\n`);
  });
}

describe("slow clients", () => {
  it(`cuts off a request whose body is still arriving after ${REQUEST_TIMEOUT_SECONDS} s with 408`, async () => {
    const url = new URL(stack.baseUrl);
    const head =
      `POST /api/v1/campaigns/nope/entries HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${liveKey}\r\n` +
      `Content-Type: application/json\r\nIdempotency-Key: slow-body-1\r\nContent-Length: 1000\r\n\r\n{"entries":[`;
    const seen = await trickle(head, " ".repeat(900), 200, 12_000);
    expect(seen.closedAfterMs, `still open after 12 s; the server sent: ${JSON.stringify(seen.text)}`).not.toBeNull();
    expect(seen.closedAfterMs!).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_SECONDS * 1_000 - 100);
    expect(seen.closedAfterMs!).toBeLessThan((REQUEST_TIMEOUT_SECONDS + 3) * 1_000);
    expect(seen.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(seen.text).toContain('{"error":"bad_request","detail":"the request did not arrive in time"}');
  });

  it(`cuts off a request whose headers are still arriving after ${HEADERS_TIMEOUT_SECONDS} s with 408`, async () => {
    const url = new URL(stack.baseUrl);
    const seen = await trickle(`GET /health HTTP/1.1\r\nHost: ${url.host}\r\nX-Slow: `, "a".repeat(100), 200, 12_000);
    expect(seen.closedAfterMs, `still open after 12 s; the server sent: ${JSON.stringify(seen.text)}`).not.toBeNull();
    expect(seen.closedAfterMs!).toBeLessThan((HEADERS_TIMEOUT_SECONDS + 3) * 1_000);
    expect(seen.text).toMatch(/^HTTP\/1\.1 408 /);
  });
});

describe("connections", () => {
  it(`closes a connection over the cap of ${MAX_CONNECTIONS} at once, and takes new ones once others closed`, async () => {
    const held: net.Socket[] = [];
    let dropped = false;
    try {
      for (let i = 0; i < MAX_CONNECTIONS + 12 && !dropped; i++) {
        const { socket, outcome } = await holdConnection();
        held.push(socket);
        dropped = outcome === "dropped";
      }
      expect(dropped, `${held.length} connections held open, none refused`).toBe(true);
      // Connections of this process left from earlier requests (keep-alive) count too: at most the cap answered.
      const answered = held.length - 1;
      expect(answered).toBeLessThanOrEqual(MAX_CONNECTIONS);
      expect(answered).toBeGreaterThanOrEqual(MAX_CONNECTIONS - 3);
    } finally {
      for (const socket of held) socket.destroy();
    }
    await new Promise((r) => setTimeout(r, 200));
    expect((await fetch(`${stack.baseUrl}/health`)).status).toBe(200);
  });
});

describe("production answers", () => {
  it("GET /ready without the token: whether it is ready, nothing about the lease, the chain or the indexer", async () => {
    const asked: Record<string, string>[] = [{}, { authorization: `Bearer ${METRICS_TOKEN}x` }, { authorization: `Bearer ${liveKey}` }];
    for (const headers of asked) {
      const response = await fetch(`${stack.baseUrl}/ready`, { headers });
      const body = (await response.json()) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(["ready"]);
      expect(response.status).toBe(body.ready ? 200 : 503);
    }
  });

  it("GET /ready with METRICS_TOKEN: the detail", async () => {
    const response = await fetch(`${stack.baseUrl}/ready`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["chain", "indexer", "keeper", "ready", "store"]);
    expect(body).toMatchObject({ store: true, chain: { ok: true }, keeper: { leaseHeld: expect.any(Boolean) } });
  });

  it("sends Strict-Transport-Security on every answer: health, readiness, the API's refusals, unknown routes", async () => {
    const asked: [string, Record<string, string>][] = [["/health", {}], ["/ready", {}], ["/api/v1/campaigns", {}], ["/api/v1/campaigns", { authorization: `Bearer ${liveKey}` }], ["/no-such-route", {}]];
    for (const [route, headers] of asked) {
      const response = await fetch(`${stack.baseUrl}${route}`, { headers });
      await response.arrayBuffer();
      expect(response.headers.get("strict-transport-security"), route).toMatch(/^max-age=\d{7,}/);
    }
  });
});
