/**
 * Rate limits (docs/operations.md, "Rate limits"): a token bucket per API key on the partner API, and per client
 * address on the partner API (before the key is checked) and on everything else. A bucket holds a minute's worth of
 * requests, so a burst may spend it at once, and refills evenly; a request it cannot pay for is answered
 * `429 rate_limited` with `Retry-After` (whole seconds until it could be paid) and never reaches a handler, so it
 * changes nothing. The buckets live in this process's memory: each process of a deployment counts its own requests.
 *
 * A check is a Map read and write, with no timer: a bucket is brought up to date from its last use when it is next
 * used, and the least recently used bucket is forgotten once MAX_BUCKETS are held (a forgotten bucket is a full one,
 * which is what a client idle for a minute has anyway).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { RateLimits } from "../config.js";
import type { AuthVariables } from "./auth.js";
import { clientAddressFrom } from "./clientAddress.js";
import type { ErrorBody } from "./errors.js";
import { REQUEST_ID_HEADER, requestIdFor } from "./requestId.js";

/** Buckets held per limit at most: 100,000 of a few dozen bytes each. */
export const MAX_BUCKETS = 100_000;

const MIB = 1024 * 1024;

/** A request refused by a rate limit: `429` with `{ error: "rate_limited", detail }` and `Retry-After`. */
export class RateLimitedError extends Error {
  override name = "RateLimitedError";
  readonly code = "rate_limited";
  constructor(
    readonly retryAfterSeconds: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}

type Bucket = { tokens: number; at: number };

/** Token buckets of one limit, by id (an API key id, a client address). */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    /** Requests a minute, and the most a bucket holds. */
    readonly perMinute: number,
    private readonly maxBuckets = MAX_BUCKETS,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(Number.isInteger(perMinute) && perMinute > 0)) throw new RangeError(`perMinute must be a positive whole number, not ${perMinute}`);
    this.perMs = perMinute / 60_000;
  }

  /**
   * Takes `cost` requests' worth from `id`'s bucket and answers 0, or answers the whole seconds (at least 1) until the
   * bucket could pay and takes nothing. A cost over a full bucket costs a full bucket, so any request can pass.
   */
  take(id: string, cost = 1): number {
    const now = this.now();
    const wanted = Math.min(cost, this.perMinute);
    let bucket = this.buckets.get(id);
    if (bucket) {
      bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.perMs);
      bucket.at = now;
      // Taken out and put back: the Map keeps its buckets in order of last use, the least recent first.
      this.buckets.delete(id);
    } else {
      if (this.buckets.size >= this.maxBuckets) this.buckets.delete(this.buckets.keys().next().value!);
      bucket = { tokens: this.perMinute, at: now };
    }
    this.buckets.set(id, bucket);
    if (bucket.tokens >= wanted) {
      bucket.tokens -= wanted;
      return 0;
    }
    return Math.max(1, Math.ceil((wanted - bucket.tokens) / this.perMs / 1_000));
  }

  /** Buckets held now. */
  get size(): number {
    return this.buckets.size;
  }
}

/** A limit of `perMinute` requests a minute, or null when it is off (0). */
export function bucketsOf(perMinute: number): TokenBuckets | null {
  return perMinute > 0 ? new TokenBuckets(perMinute) : null;
}

/**
 * What a request costs the API key's bucket: one, plus one for each whole MiB of its body, so the largest list
 * (up to 32 MiB, most of a second of parsing) costs what 33 small requests do. A body without a length (chunked)
 * counts as the largest its route takes, `maxBodyBytes`: its size is only known once it has been read.
 */
export function requestCost(contentLength: string | undefined, transferEncoding: string | undefined, maxBodyBytes: number): number {
  if (contentLength !== undefined && /^\d{1,16}$/.test(contentLength)) return 1 + Math.floor(Number(contentLength) / MIB);
  return transferEncoding === undefined ? 1 : 1 + Math.floor(maxBodyBytes / MIB);
}

/**
 * The bucket of a client address: an IPv4 address as it is (also when written IPv4-mapped, `::ffff:a.b.c.d`), an IPv6
 * address by its first 64 bits, the block one host or home is usually given, so a client cannot step around its
 * limit by changing the address's last half.
 */
export function clientBucketId(address: string): string {
  if (!address.includes(":")) return address;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  // "::" stands for as many zero groups as the eight need; a zone ("%eth0") names no address.
  const [head = "", tail] = address.split("%")[0]!.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const zeros = tail === undefined ? [] : Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0");
  const groups = [...left, ...zeros, ...right].slice(0, 4).map((group) => group.replace(/^0+(?=.)/, ""));
  return `${groups.join(":")}::/64`;
}

/** The 429 answer's headers and body (both doors answer the same). */
function answer(error: RateLimitedError): { headers: Record<string, string>; body: string } {
  return {
    headers: { "Content-Type": "application/json", "Retry-After": String(error.retryAfterSeconds), "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" },
    body: JSON.stringify({ error: error.code, detail: error.detail } satisfies ErrorBody),
  };
}

/** /api/v1 and below (the partner API and its OpenAPI document). */
const PARTNER_API = /^\/api\/v1(?:[/?]|$)/;
/** Not counted: a constant answer, cheaper than counting it, polled by process managers and load balancers. */
const UNCOUNTED = /^\/health(?:\?|$)/;

/**
 * The per-client limits, checked on node:http's request before anything else reads it (the public reads' fast path
 * included): answers a request over its client's limit with 429 and returns true, else returns false and answers
 * nothing.
 */
export function limitClients(limits: Pick<RateLimits, "apiPerClient" | "publicPerClient">, trustedProxyHops: number): (req: IncomingMessage, res: ServerResponse) => boolean {
  const api = bucketsOf(limits.apiPerClient);
  const other = bucketsOf(limits.publicPerClient);
  if (!api && !other) return () => false;
  return (req, res) => {
    const url = req.url ?? "/";
    const partner = PARTNER_API.test(url);
    const buckets = partner ? api : UNCOUNTED.test(url) ? null : other;
    if (!buckets) return false;
    const forwarded = req.headers["x-forwarded-for"];
    const address = clientAddressFrom(req.socket.remoteAddress, Array.isArray(forwarded) ? forwarded.join(",") : forwarded, trustedProxyHops);
    const wait = buckets.take(clientBucketId(address));
    if (wait === 0) return false;
    const error = new RateLimitedError(wait, `more than ${buckets.perMinute} requests a minute from this address${partner ? " to the partner API" : ""}: retry in ${wait} s`);
    const { headers, body } = answer(error);
    const id = requestIdFor(req.headers["request-id"] as string | undefined);
    // The public endpoints allow any origin: a page reading them must be able to read this answer too.
    const cors = partner ? {} : { "Access-Control-Allow-Origin": "*" };
    res.writeHead(429, { ...headers, ...cors, "Content-Length": String(Buffer.byteLength(body)), [REQUEST_ID_HEADER]: id }).end(body);
    return true;
  };
}

/**
 * The per-key limit, after the key is checked (http/auth.ts): a request over it is refused with RateLimitedError
 * before its body is read. `maxBodyBytes` is the request's route's body limit (requestCost).
 */
export function limitKeys(perKey: number, maxBodyBytes: (c: Context) => number) {
  const buckets = bucketsOf(perKey);
  return createMiddleware<{ Variables: AuthVariables }>(async (c, next) => {
    if (buckets) {
      const cost = requestCost(c.req.header("content-length"), c.req.header("transfer-encoding"), maxBodyBytes(c));
      const wait = buckets.take(c.var.keyId, cost);
      if (wait > 0) throw new RateLimitedError(wait, `more than ${buckets.perMinute} requests a minute with this API key (a body counts one more for each whole MiB): retry in ${wait} s`);
    }
    await next();
  });
}

/** The answer to RateLimitedError from Hono's error handler (http/errors.ts). */
export function rateLimitedResponse(c: Context, error: RateLimitedError): Response {
  const { headers, body } = answer(error);
  return c.body(body, 429, headers);
}
