/**
 * Random values and rolls (spec "Draw computation" steps 3-4), with rejection sampling so that every roll in
 * 0..denominator-1 is equally likely. Byte for byte the same as contracts/DrawMath.sol.
 */
import { bytesToHex, keccak256, type Hex } from "viem";
import { assertBytes32, isUint256, wordToBigInt, writeBytes32, writeSafeUint, writeUint256 } from "./abi.js";
import { DrawInputError } from "./errors.js";

const TWO_256 = 1n << 256n;
export const UINT64_MAX = (1n << 64n) - 1n;

/** 2^256 mod denominator: random values below it are discarded, leaving a multiple of `denominator` values. */
export function rejectionFloor(denominator: bigint): bigint {
  if (typeof denominator !== "bigint" || denominator <= 0n || denominator >= TWO_256) {
    throw new DrawInputError("bad_denominator", `denominator must be a bigint in 1..2^256-1, got ${String(denominator)}`);
  }
  return TWO_256 % denominator;
}

export function assertUint64(value: bigint, what: string): bigint {
  if (typeof value !== "bigint" || value < 0n || value > UINT64_MAX) {
    throw new DrawInputError("bad_number", `${what} must be a uint64 bigint, got ${String(value)}`);
  }
  return value;
}

export function assertSafeIndex(value: number, what: string, code: "bad_position" | "bad_count"): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new DrawInputError(code, `${what} must be a non-negative safe integer, got ${String(value)}`);
  }
  return value;
}

/**
 * A keccak256 over fixed leading words and two trailing uint256 counters, reusing one buffer: the draw hashes
 * (prize rolls and entrant selection) differ only in their last two words.
 */
export type CounterHasher = (a: number, b: number) => Uint8Array;

export function counterHasher(prefix: Uint8Array): CounterHasher {
  const buf = new Uint8Array(prefix.length + 64);
  buf.set(prefix, 0);
  const at = prefix.length;
  return (a, b) => {
    writeSafeUint(buf, at, a);
    writeSafeUint(buf, at + 32, b);
    return keccak256(buf, "bytes");
  };
}

/** The leading words entropy, campaignId, uint64 number shared by every draw hash. */
export function drawPrefix(entropy: Hex, campaignId: Hex, number: bigint, extraWords = 0): Uint8Array {
  const buf = new Uint8Array(96 + 32 * extraWords);
  writeBytes32(buf, 0, assertBytes32(entropy, "entropy"));
  writeBytes32(buf, 32, assertBytes32(campaignId, "campaignId"));
  writeUint256(buf, 64, assertUint64(number, "number"));
  return buf;
}

/**
 * randomValue = keccak256(abi.encode(bytes32 entropy, bytes32 campaignId, uint64 number, uint256 position,
 * uint256 retry)).
 */
export function randomValue(entropy: Hex, campaignId: Hex, number: bigint, position: bigint, retry: bigint): Hex {
  for (const [what, value] of [["position", position], ["retry", retry]] as const) {
    if (typeof value !== "bigint" || !isUint256(value)) {
      throw new DrawInputError("bad_position", `${what} must be a uint256 bigint, got ${String(value)}`);
    }
  }
  const buf = new Uint8Array(160);
  buf.set(drawPrefix(entropy, campaignId, number), 0);
  writeUint256(buf, 96, position);
  writeUint256(buf, 128, retry);
  return keccak256(buf);
}

/** An accepted random word: its bytes, its value, the retries it took and value mod modulus. */
export type Sample = { word: Uint8Array; value: bigint; retries: number; reduced: bigint };

/**
 * Rejection sampling shared by rolls and entrant selection: takes word(0), word(1), ... until one is at least
 * `floor` (= 2^256 mod modulus), then reduces it mod `modulus`.
 * @param word the hash for a retry counter; injected so tests can force the retry path, which real hashes
 * reach with probability below modulus / 2^256.
 */
export function rejectionSample(word: (retry: number) => Uint8Array, modulus: bigint, floor: bigint): Sample {
  for (let retry = 0; ; retry++) {
    const bytes = word(retry);
    const value = wordToBigInt(bytes);
    if (value >= floor) return { word: bytes, value, retries: retry, reduced: value % modulus };
  }
}

export type Roll = { randomValue: Hex; roll: number; retries: number };

export function assertDenominator(denominator: number): number {
  if (!Number.isSafeInteger(denominator) || denominator < 1) {
    throw new DrawInputError("bad_denominator", `denominator must be a positive safe integer, got ${String(denominator)}`);
  }
  return denominator;
}

/** Rolls for positions of one draw, sharing the hash buffer and the rejection floor. */
export function positionRoller(entropy: Hex, campaignId: Hex, number: bigint, denominator: number): (position: number) => Roll {
  const d = BigInt(assertDenominator(denominator));
  const floor = rejectionFloor(d);
  const hash = counterHasher(drawPrefix(entropy, campaignId, number));
  return (position) => {
    assertSafeIndex(position, "position", "bad_position");
    const sample = rejectionSample((retry) => hash(position, retry), d, floor);
    return { randomValue: bytesToHex(sample.word), roll: Number(sample.reduced), retries: sample.retries };
  };
}

/** The accepted random value of `position` and its roll in 0..denominator-1 (DrawMath.roll). */
export function rollFor(entropy: Hex, campaignId: Hex, number: bigint, position: number, denominator: number): Roll {
  return positionRoller(entropy, campaignId, number, denominator)(position);
}
