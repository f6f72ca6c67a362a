// The rate limits' arithmetic on a clock the test moves (the limits on the running service are in
// rate-limits.test.ts): a bucket of a minute's worth spent at once and refilled evenly, Retry-After in whole seconds,
// a request's cost by its body, the buckets held at most, and an IPv6 client counted by its /64.

import { describe, expect, it } from "vitest";
import { TokenBuckets, clientBucketId, requestCost } from "../../api/src/http/rateLimit.js";

/** Buckets on a clock at `t.now` milliseconds. */
function bucketsAt(perMinute: number, maxBuckets = 1_000) {
  const t = { now: 0 };
  return { t, buckets: new TokenBuckets(perMinute, maxBuckets, () => t.now) };
}

describe("TokenBuckets", () => {
  it("lets a minute's worth through at once, then one request every 60/N seconds", () => {
    const { t, buckets } = bucketsAt(60);
    for (let i = 0; i < 60; i++) expect(buckets.take("k"), `request ${i + 1}`).toBe(0);
    expect(buckets.take("k")).toBe(1);
    t.now += 999;
    expect(buckets.take("k")).toBe(1);
    t.now += 1;
    expect(buckets.take("k")).toBe(0);
    expect(buckets.take("k")).toBe(1);
  });

  it("answers Retry-After in whole seconds, rounded up, and takes nothing from a refused request", () => {
    const { t, buckets } = bucketsAt(10); // one request every 6 s
    for (let i = 0; i < 10; i++) buckets.take("k");
    expect(buckets.take("k")).toBe(6);
    t.now += 5_500;
    expect(buckets.take("k")).toBe(1);
    t.now += 500;
    expect(buckets.take("k")).toBe(0);
  });

  it("fills up to a minute's worth and no more, however long a client was away", () => {
    const { t, buckets } = bucketsAt(5);
    buckets.take("k");
    t.now += 3_600_000;
    for (let i = 0; i < 5; i++) expect(buckets.take("k")).toBe(0);
    expect(buckets.take("k")).toBeGreaterThan(0);
  });

  it("charges a cost, and a cost over a full bucket as a full bucket", () => {
    const { buckets } = bucketsAt(30);
    expect(buckets.take("big", 1_000)).toBe(0);
    expect(buckets.take("big")).toBe(2);
    expect(buckets.take("small", 29)).toBe(0);
    expect(buckets.take("small", 2)).toBe(2);
    expect(buckets.take("small", 1)).toBe(0);
  });

  it("keeps ids apart", () => {
    const { buckets } = bucketsAt(1);
    expect(buckets.take("a")).toBe(0);
    expect(buckets.take("a")).toBe(60);
    expect(buckets.take("b")).toBe(0);
  });

  it("holds at most maxBuckets, forgetting the least recently used (a forgotten bucket is a full one)", () => {
    const { buckets } = bucketsAt(1, 3);
    for (const id of ["a", "b", "c"]) buckets.take(id);
    expect(buckets.take("a")).toBe(60); // "a" used again: "b" is now the least recent
    buckets.take("d");
    expect(buckets.size).toBe(3);
    expect(buckets.take("b")).toBe(0); // forgotten, so full again (and "c" forgotten in its place)
    expect(buckets.take("a")).toBe(60);
    expect(buckets.take("d")).toBe(60);
  });

  it("refuses a limit that is not a positive whole number (0 is off: no buckets at all)", () => {
    for (const n of [0, -1, 1.5, Number.NaN]) expect(() => new TokenBuckets(n)).toThrow(RangeError);
  });
});

describe("requestCost", () => {
  const MiB = 1024 * 1024;
  it("is one for a request without a body or with less than a MiB", () => {
    expect(requestCost(undefined, undefined, 32 * MiB)).toBe(1);
    expect(requestCost("0", undefined, 32 * MiB)).toBe(1);
    expect(requestCost(String(MiB - 1), undefined, 32 * MiB)).toBe(1);
  });

  it("adds one for each whole MiB declared", () => {
    expect(requestCost(String(MiB), undefined, 32 * MiB)).toBe(2);
    expect(requestCost(String(27 * MiB + 5), undefined, 32 * MiB)).toBe(28);
  });

  it("counts a chunked body (no length) as the largest its route takes", () => {
    expect(requestCost(undefined, "chunked", 32 * MiB)).toBe(33);
    expect(requestCost(undefined, "chunked", 4 * MiB)).toBe(5);
    expect(requestCost("not a number", "chunked", 4 * MiB)).toBe(5);
  });
});

describe("clientBucketId", () => {
  it("keeps an IPv4 address, also written IPv4-mapped", () => {
    expect(clientBucketId("203.0.113.7")).toBe("203.0.113.7");
    expect(clientBucketId("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("counts an IPv6 address by its first 64 bits, however it is written", () => {
    const id = clientBucketId("2001:db8:1234:5678:aaaa:bbbb:cccc:dddd");
    expect(id).toBe("2001:db8:1234:5678::/64");
    expect(clientBucketId("2001:0DB8:1234:5678::1")).toBe(id);
    expect(clientBucketId("2001:db8:1234:5678:ffff::")).toBe(id);
    expect(clientBucketId("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(clientBucketId("2001:db8:0:0:1::1")).toBe("2001:db8:0:0::/64");
    expect(clientBucketId("::1")).toBe("0:0:0:0::/64");
    expect(clientBucketId("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(clientBucketId("2001:db8:1234:5679::1")).not.toBe(id);
  });
});
