// The pull fetcher against real local servers: every not-ready form, lists, partial lists, redirects refused,
// oversized bodies, a server that stalls past the time limit, certificate checks, and the SSRF rules
// (loopback, private, link-local, IPv6 loopback, IPv4-mapped IPv6, a name resolving to a private address).

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPublicAddress } from "../../api/src/outbound/addresses.js";
import { fetchWinnerList, interpretList } from "../../api/src/pull/fetcher.js";
import { maskPullUrl, pullUrlFor, validatePullUrl } from "../../api/src/pull/url.js";
import { localDrawDate } from "../../api/src/domain/schedule.js";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;
let handler: Handler = (_req, res) => res.end();
let server: http.Server;
let base: string;
let secure: https.Server;
let secureBase: string;
const certDir = mkdtempSync(path.join(tmpdir(), "prizedraw-pull-cert-"));

beforeAll(async () => {
  server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(certDir, "key.pem"), "-out", path.join(certDir, "cert.pem"), "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], { stdio: "ignore" });
  secure = https.createServer({ key: readFileSync(path.join(certDir, "key.pem")), cert: readFileSync(path.join(certDir, "cert.pem")) }, (req, res) => handler(req, res));
  await new Promise<void>((r) => secure.listen(0, "127.0.0.1", r));
  secureBase = `https://localhost:${(secure.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  secure.closeAllConnections();
  await new Promise((r) => server.close(r));
  await new Promise((r) => secure.close(r));
  rmSync(certDir, { recursive: true, force: true });
});

const json = (status: number, body: unknown): Handler => (_req, res) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
};
const test = { allowLoopback: true };

describe("response handling (spec, Pull mode)", () => {
  it("reads 404, no winners key and an empty list as not ready", async () => {
    for (const h of [json(404, { error: "nope" }), json(200, {}), json(200, { winners: [] }), json(200, { status: "pending" })]) {
      handler = h;
      expect((await fetchWinnerList(`${base}/w`, 2, test)).kind).toBe("not_ready");
    }
  });

  it("returns a full valid list with the partner's round, and sends Accept: application/json", async () => {
    let accept = "";
    handler = (req, res) => {
      accept = req.headers.accept ?? "";
      json(200, { round: 41, winners: ["a", { winner: "b", displayName: "Bee", avatarUrl: "https://example.com/b.png" }] })(req, res);
    };
    const outcome = await fetchWinnerList(`${base}/w`, 2, test);
    expect(accept).toBe("application/json");
    expect(outcome).toEqual({ kind: "list", round: 41, winners: [{ winner: "a", displayName: null, avatarUrl: null }, { winner: "b", displayName: "Bee", avatarUrl: "https://example.com/b.png" }] });
  });

  it("refuses partial or malformed lists with a reason, and server errors", async () => {
    const cases: [Handler, string, RegExp][] = [
      [json(200, { winners: ["a"] }), "invalid", /exactly 2/],
      [json(200, { winners: ["a", "a"] }), "invalid", /repeats/],
      [json(200, { winners: ["a", { winner: "b", avatarUrl: "http://x.example/b.png" }] }), "invalid", /winners\[1\]\.avatarUrl/],
      [json(200, "{not json"), "invalid", /not JSON/],
      [json(200, { winners: ["a", "b"], round: -1 }), "invalid", /round/],
      [json(500, { winners: ["a", "b"] }), "error", /HTTP 500/],
    ];
    for (const [h, kind, reason] of cases) {
      handler = h;
      const outcome = await fetchWinnerList(`${base}/w`, 2, test);
      expect(outcome.kind).toBe(kind);
      expect("reason" in outcome ? outcome.reason : "").toMatch(reason);
    }
  });

  it("does not follow redirects", async () => {
    let followed = false;
    handler = (req, res) => {
      if (req.url === "/elsewhere") followed = true;
      res.writeHead(302, { location: "/elsewhere" });
      res.end();
    };
    const outcome = await fetchWinnerList(`${base}/w`, 2, test);
    expect(outcome).toEqual({ kind: "error", reason: "HTTP 302: redirects are not followed" });
    expect(followed).toBe(false);
  });

  it("caps the response size, declared or streamed", async () => {
    handler = json(200, { winners: ["a", "b"], padding: "x".repeat(2_000) });
    expect(await fetchWinnerList(`${base}/w`, 2, { ...test, maxBytes: 1_000 })).toMatchObject({ kind: "error", reason: /larger than 1000 bytes/ });
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }); // no content-length: chunked
      for (let i = 0; i < 20; i++) res.write("x".repeat(100));
      res.end();
    };
    expect(await fetchWinnerList(`${base}/w`, 2, { ...test, maxBytes: 1_000 })).toMatchObject({ kind: "error", reason: /larger than 1000 bytes/ });
  });

  it("gives up on a server that stalls past 8 seconds", async () => {
    handler = () => undefined; // never answers
    const started = performance.now();
    const outcome = await fetchWinnerList(`${base}/w`, 2, test);
    expect(outcome).toEqual({ kind: "error", reason: "no complete answer within 8 s" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(7_900);
  }, 15_000);

  it("checks certificates: a self-signed one is refused unless trusted", async () => {
    handler = json(200, { winners: ["a", "b"] });
    const outcome = await fetchWinnerList(`${secureBase}/w`, 2, test);
    expect(outcome.kind).toBe("error");
    expect("reason" in outcome ? outcome.reason : "").toMatch(/connection failed/);
  });
});

describe("SSRF rules", () => {
  it("classifies addresses", () => {
    for (const a of ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "192.0.2.1", "::1", "::", "fe80::1", "fc00::1", "fd12::3", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:7f00:1", "64:ff9b::a00:1", "2002:a00:1::", "2001:db8::1"]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    for (const a of ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2a00:1450:4001::200e"]) {
      expect(isPublicAddress(a), a).toBe(true);
    }
  });

  it("refuses loopback, private, link-local and IPv6 loopback targets in production mode, before connecting", async () => {
    let hits = 0;
    handler = (req, res) => {
      hits++;
      json(200, { winners: ["a", "b"] })(req, res);
    };
    const port = (server.address() as AddressInfo).port;
    for (const url of [`http://127.0.0.1:${port}/w`, `https://127.0.0.1:${port}/w`, "https://10.0.0.7/w", "https://169.254.169.254/latest/meta-data", `https://[::1]:${port}/w`, `https://[::ffff:127.0.0.1]:${port}/w`]) {
      const outcome = await fetchWinnerList(url, 2, { allowLoopback: false });
      expect(outcome.kind, url).toBe("error");
    }
    const viaName = await fetchWinnerList(`https://partner.example:${port}/w`, 2, { allowLoopback: false, resolve: async () => [{ address: "10.20.30.40", family: 4 }] });
    expect(viaName).toEqual({ kind: "error", reason: "refused: the host resolves to a loopback, private, link-local, multicast or reserved address" });
    const mixed = await fetchWinnerList(`https://partner.example:${port}/w`, 2, { allowLoopback: false, resolve: async () => [{ address: "93.184.216.34", family: 4 }, { address: "127.0.0.1", family: 4 }] });
    expect(mixed.kind).toBe("error");
    expect(hits).toBe(0);
  });

  it("connects to the address that was checked, not to a second resolution", async () => {
    // The name resolves (once) to loopback, which the test setting allows; the request must reach this server
    // even though the name itself does not exist in DNS.
    handler = json(200, { winners: ["a", "b"] });
    const port = (server.address() as AddressInfo).port;
    let resolutions = 0;
    const outcome = await fetchWinnerList(`http://partner.invalid:${port}/w`, 2, { allowLoopback: true, resolve: async () => (resolutions++, [{ address: "127.0.0.1", family: 4 }]) });
    expect(outcome.kind).toBe("list");
    expect(resolutions).toBe(1);
  });
});

describe("pull URLs", () => {
  it("validates at configuration: https, placeholders, hourly needs {drawingId} or {drawAt}", () => {
    expect(validatePullUrl("https://p.example/w/{date}", "daily", false)).toBe("https://p.example/w/{date}");
    expect(() => validatePullUrl("https://p.example/w/{date}", "hourly", false)).toThrow(/hourly campaign's pullUrl needs \{drawingId\} or \{drawAt\}/);
    expect(validatePullUrl("https://p.example/w/{drawAt}", "hourly", false)).toBeTruthy();
    expect(() => validatePullUrl("http://p.example/w", "daily", false)).toThrow(/https/);
    expect(() => validatePullUrl("http://127.0.0.1:9/w", "daily", false)).toThrow(/https/);
    expect(validatePullUrl("http://127.0.0.1:9/w", "daily", true)).toBeTruthy();
    expect(() => validatePullUrl("http://10.0.0.1/w", "daily", true)).toThrow(/https/);
    expect(() => validatePullUrl("https://user:pw@p.example/w", "daily", false)).toThrow(/credentials/);
    expect(() => validatePullUrl("https://p.example/{round}", "daily", false)).toThrow(/unknown placeholders \{round\}/);
  });

  it("fills placeholders: drawAt URL-encoded UTC, date in the campaign's zone", () => {
    const drawAt = "2026-11-25T23:30:00.000Z";
    const url = pullUrlFor("https://p.example/{drawingId}/{drawAt}/{date}", { id: "drw_1", drawAt }, localDrawDate(new Date(drawAt), "Europe/Berlin"));
    expect(url).toBe("https://p.example/drw_1/2026-11-25T23%3A30%3A00.000Z/2026-11-26");
    expect(maskPullUrl("https://p.example/secret-token/{drawingId}")).toBe("https://p.example/…");
  });

  it("interprets a list body like the push body", () => {
    expect(interpretList(JSON.stringify({ winners: ["a", "b"], extra: true }), 2).kind).toBe("list");
    expect(interpretList("[]", 2).kind).toBe("invalid");
  });
});
