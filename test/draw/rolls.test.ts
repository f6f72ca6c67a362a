import fc from "fast-check";
import { encodeAbiParameters, hexToBigInt, keccak256, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { DrawInputError, randomValue, rejectionFloor, rollFor, toCampaignId, winnerHash } from "../../api/src/draw/index.js";
import { counterHasher, drawPrefix, rejectionSample } from "../../api/src/draw/rolls.js";

const MAX_UINT256 = (1n << 256n) - 1n;
/** DrawMath.rejectionFloor, transcribed: (type(uint256).max % d + 1) % d. */
const solidityFloor = (d: bigint): bigint => ((MAX_UINT256 % d) + 1n) % d;

const entropy = winnerHash("rolls-test-entropy");
const campaignId = toCampaignId("summer-daily");

const word = (value: bigint): Uint8Array => {
  const bytes = new Uint8Array(32);
  let v = value;
  for (let i = 31; i >= 0; i--) {
    bytes[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return bytes;
};

describe("rejectionFloor", () => {
  it("is 2^256 mod denominator", () => {
    expect(rejectionFloor(1n)).toBe(0n);
    expect(rejectionFloor(2n)).toBe(0n);
    expect(rejectionFloor(3n)).toBe(1n); // 2^256 = 4^128 = 1 mod 3
    expect(rejectionFloor(100_000n)).toBe(2n ** 256n % 100_000n);
    expect(rejectionFloor(100_000n)).toBe(solidityFloor(100_000n));
    // A floor of almost half the range: 2^256 - (2^255 + 1).
    expect(rejectionFloor(2n ** 255n + 1n)).toBe(2n ** 255n - 1n);
  });

  it("agrees with the contract's formula", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: MAX_UINT256 }), (d) => rejectionFloor(d) === solidityFloor(d)),
      { seed: 1, numRuns: 500 },
    );
  });

  it("refuses a zero or negative denominator", () => {
    expect(() => rejectionFloor(0n)).toThrow(DrawInputError);
    expect(() => rejectionFloor(-5n)).toThrow(DrawInputError);
  });
});

describe("randomValue", () => {
  const reference = (e: Hex, c: Hex, n: bigint, p: bigint, r: bigint): Hex =>
    keccak256(
      encodeAbiParameters(
        [{ type: "bytes32" }, { type: "bytes32" }, { type: "uint64" }, { type: "uint256" }, { type: "uint256" }],
        [e, c, n, p, r],
      ),
    );

  it("is keccak256(abi.encode(bytes32, bytes32, uint64, uint256, uint256))", () => {
    const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
    fc.assert(
      fc.property(
        bytes32,
        bytes32,
        fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        fc.bigInt({ min: 0n, max: MAX_UINT256 }),
        fc.bigInt({ min: 0n, max: MAX_UINT256 }),
        (e, c, n, p, r) => randomValue(e, c, n, p, r) === reference(e, c, n, p, r),
      ),
      { seed: 2, numRuns: 300 },
    );
  });

  it("accepts uppercase hex and returns lowercase", () => {
    const upper = `0x${entropy.slice(2).toUpperCase()}` as Hex;
    const value = randomValue(upper, campaignId, 1n, 0n, 0n);
    expect(value).toBe(randomValue(entropy, campaignId, 1n, 0n, 0n));
    expect(value).toBe(value.toLowerCase());
  });

  it("refuses a number outside uint64 and malformed hex", () => {
    expect(randomValue(entropy, campaignId, (1n << 64n) - 1n, 0n, 0n)).toMatch(/^0x[0-9a-f]{64}$/);
    expect(() => randomValue(entropy, campaignId, 1n << 64n, 0n, 0n)).toThrow(DrawInputError);
    expect(() => randomValue(entropy, campaignId, -1n, 0n, 0n)).toThrow(DrawInputError);
    expect(() => randomValue("0x1234", campaignId, 1n, 0n, 0n)).toThrow(DrawInputError);
    expect(() => randomValue(entropy, campaignId, 1n, 1n << 256n, 0n)).toThrow(DrawInputError);
  });
});

describe("rollFor", () => {
  it("rolls value mod denominator, with the value at or above the floor", () => {
    for (const denominator of [2, 3, 10, 100_000, 2_147_483_647]) {
      for (let position = 0; position < 20; position++) {
        const r = rollFor(entropy, campaignId, 7n, position, denominator);
        const value = hexToBigInt(r.randomValue);
        expect(r.retries).toBe(0);
        expect(r.randomValue).toBe(randomValue(entropy, campaignId, 7n, BigInt(position), 0n));
        expect(value >= rejectionFloor(BigInt(denominator))).toBe(true);
        expect(BigInt(r.roll)).toBe(value % BigInt(denominator));
        expect(r.roll).toBeGreaterThanOrEqual(0);
        expect(r.roll).toBeLessThan(denominator);
      }
    }
  });

  it("refuses bad positions and denominators", () => {
    expect(() => rollFor(entropy, campaignId, 1n, -1, 10)).toThrow(DrawInputError);
    expect(() => rollFor(entropy, campaignId, 1n, 1.5, 10)).toThrow(DrawInputError);
    expect(() => rollFor(entropy, campaignId, 1n, 0, 0)).toThrow(DrawInputError);
  });
});

describe("rejection sampling", () => {
  it("discards values below the floor and counts the retries (stubbed words)", () => {
    const modulus = 2n ** 255n + 1n;
    const floor = rejectionFloor(modulus); // 2^255 - 1
    const words = [word(0n), word(floor - 1n), word(floor), word(MAX_UINT256)];
    const asked: number[] = [];
    const sample = rejectionSample(
      (retry) => {
        asked.push(retry);
        return words[retry] as Uint8Array;
      },
      modulus,
      floor,
    );
    expect(asked).toEqual([0, 1, 2]);
    expect(sample.retries).toBe(2);
    expect(sample.value).toBe(floor);
    expect(sample.reduced).toBe(floor % modulus);
  });

  it("retries with the real hash when the floor is large", () => {
    // Modulus 2^255 + 1 discards about half of all values, so the retry path runs on real hashes.
    const modulus = 2n ** 255n + 1n;
    const floor = rejectionFloor(modulus);
    const hash = counterHasher(drawPrefix(entropy, campaignId, 3n));
    let retried = 0;
    for (let position = 0; position < 40; position++) {
      const sample = rejectionSample((k) => hash(position, k), modulus, floor);
      for (let k = 0; k < sample.retries; k++) {
        expect(hexToBigInt(randomValue(entropy, campaignId, 3n, BigInt(position), BigInt(k))) < floor).toBe(true);
      }
      const accepted = randomValue(entropy, campaignId, 3n, BigInt(position), BigInt(sample.retries));
      expect(hexToBigInt(accepted)).toBe(sample.value);
      expect(sample.value >= floor).toBe(true);
      expect(sample.reduced).toBe(sample.value % modulus);
      if (sample.retries > 0) retried++;
    }
    expect(retried).toBeGreaterThan(5);
  });
});
