// webhooks/send.ts's time limit against real HTTP servers on loopback (the test environment's allowance): it counts
// from the attempt's start, the name lookup included; a status that arrived in time is the answer even while the
// body is still coming (a 2xx with a slow body is delivered, not retried); no status in time is a timeout.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { postWebhook } from "../../api/src/webhooks/send.js";

const LIMIT_MS = 600;
const servers: http.Server[] = [];

/** A server on 127.0.0.1 that answers each request with `answer`; returns its base URL. */
async function serve(answer: (res: http.ServerResponse) => void): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => answer(res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const send = (url: string, resolve?: (host: string) => Promise<{ address: string; family: number }[]>) =>
  postWebhook(url, { "webhook-id": "msg_1" }, "{}", { allowLoopback: true, timeoutMs: LIMIT_MS, ...(resolve ? { resolve } : {}) });

describe("postWebhook's time limit", () => {
  it("takes a 2xx whose body is still coming at the limit as the answer, with the body read so far", async () => {
    const url = await serve((res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("received, working on it");
      // The body never ends.
    });
    const started = Date.now();
    expect(await send(url)).toEqual({ status: 200, snippet: "received, working on it" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(LIMIT_MS - 50);
  });

  it("is a timeout when no status arrives in time", async () => {
    const url = await serve(() => {
      // Never answers.
    });
    expect(await send(url)).toEqual({ error: `no answer within ${LIMIT_MS / 1000} s` });
  });

  it("counts the name lookup: a slow lookup ends the attempt at the limit, not after it", async () => {
    // A name (only https may name a host; the lookup answers before any connection is tried).
    const url = "https://hooks.test/hook";
    const lookup = () => new Promise<{ address: string; family: number }[]>((resolve) => setTimeout(() => resolve([{ address: "127.0.0.1", family: 4 }]), 5 * LIMIT_MS));
    const started = Date.now();
    expect(await send(url, lookup)).toEqual({ error: `no answer within ${LIMIT_MS / 1000} s` });
    expect(Date.now() - started).toBeLessThan(3 * LIMIT_MS);
  });
});
