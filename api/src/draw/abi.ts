/**
 * Internal: the few fixed ABI encodings the draw math hashes, written straight into byte buffers.
 * viem's encodeAbiParameters gives the same bytes (the tests check it) but builds hex strings, which is too
 * slow for 100,000-entry lists and for the per-position hashing loops.
 */
import { bytesToHex, hexToBytes, type Hex } from "viem";
import { DrawInputError } from "./errors.js";

const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const UINT256_LIMIT = 1n << 256n;

/** Checks a bytes32 hex value and returns it lowercase (hex in proofs and vectors is lowercase). */
export function assertBytes32(value: string, what: string): Hex {
  if (typeof value !== "string" || !BYTES32.test(value)) {
    throw new DrawInputError("bad_hex", `${what} must be a 32-byte hex string (0x + 64 hex digits), got ${String(value)}`);
  }
  return value.toLowerCase() as Hex;
}

/** Copies a checked bytes32 hex value into `buf` at `offset`. */
export function writeBytes32(buf: Uint8Array, offset: number, value: Hex): void {
  buf.set(hexToBytes(value), offset);
}

/** Writes a uint256 big-endian word. The caller has range-checked `value` (0 <= value < 2^256). */
export function writeUint256(buf: Uint8Array, offset: number, value: bigint): void {
  let v = value;
  for (let i = offset + 31; i >= offset; i--) {
    buf[i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

/**
 * Writes a non-negative safe integer as a uint256 word. Faster than the bigint path; used for positions,
 * retry counters and weights, which are all below 2^53.
 */
export function writeSafeUint(buf: Uint8Array, offset: number, value: number): void {
  buf.fill(0, offset, offset + 24);
  // Split into 32-bit halves: bit operators only work on 32 bits.
  const high = Math.floor(value / 0x1_0000_0000);
  const low = value >>> 0;
  for (let i = 0; i < 4; i++) {
    buf[offset + 27 - i] = (high >>> (8 * i)) & 0xff;
    buf[offset + 31 - i] = (low >>> (8 * i)) & 0xff;
  }
}

export function isUint256(value: bigint): boolean {
  return value >= 0n && value < UINT256_LIMIT;
}

/** A 32-byte big-endian word as a bigint. */
export function wordToBigInt(bytes: Uint8Array): bigint {
  return BigInt(bytesToHex(bytes));
}

/**
 * abi.encode(bytes32[] a, uint256[] b) with a.length === b.length: two offsets, then each array as length
 * and elements.
 */
export function encodeBytes32AndUint256Arrays(a: readonly Hex[], b: readonly bigint[], what: string): Uint8Array {
  const n = a.length;
  const secondOffset = 64 + 32 + 32 * n;
  const buf = new Uint8Array(secondOffset + 32 + 32 * n);
  writeSafeUint(buf, 0, 64);
  writeSafeUint(buf, 32, secondOffset);
  writeSafeUint(buf, 64, n);
  for (let i = 0; i < n; i++) writeBytes32(buf, 96 + 32 * i, assertBytes32(a[i] as Hex, `${what}[${i}].idHash`));
  writeSafeUint(buf, secondOffset, n);
  for (let i = 0; i < n; i++) {
    const weight = b[i] as bigint;
    if (typeof weight !== "bigint" || !isUint256(weight)) {
      throw new DrawInputError("bad_weight", `${what}[${i}].weight must be a uint256 bigint, got ${String(weight)}`);
    }
    writeUint256(buf, secondOffset + 32 + 32 * i, weight);
  }
  return buf;
}
