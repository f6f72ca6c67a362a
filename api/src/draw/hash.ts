/**
 * Identity hashes of the spec's "Draw computation": winner hashes, the list fingerprint, campaign ids and
 * drawing slots.
 */
import { bytesToHex, keccak256, stringToBytes, type Hex } from "viem";
import { writeSafeUint } from "./abi.js";
import { DrawInputError, InvalidCampaignIdError } from "./errors.js";

/** keccak256 of the UTF-8 bytes of a winner (or entrant) id. */
export function winnerHash(id: string): Hex {
  return keccak256(stringToBytes(id));
}

/**
 * A drawing's slot: keccak256 of the UTF-8 bytes of the service's drawing id (e.g. "drw_abc"). The contract
 * takes each slot once per campaign (PrizeDraw.commitAndRequest), so a list cannot be drawn again under another
 * drawing, and draws.json can be matched commit for commit.
 */
export function drawingSlot(drawingId: string): Hex {
  if (typeof drawingId !== "string" || drawingId.length === 0) {
    throw new DrawInputError("bad_proof_input", `drawing id must be a non-empty string, got ${JSON.stringify(drawingId)}`);
  }
  return keccak256(stringToBytes(drawingId));
}

/**
 * keccak256(abi.encode(bytes32[] winnerHashes)) in position order. Order matters on purpose: sorting the list
 * changes the fingerprint, and a repeated id stays repeated.
 */
export function fingerprint(ids: readonly string[]): Hex {
  // Hashes straight into the encoding (offset, length, elements): no hex round trip per id.
  const buf = new Uint8Array(64 + 32 * ids.length);
  writeSafeUint(buf, 0, 32);
  writeSafeUint(buf, 32, ids.length);
  ids.forEach((id, i) => buf.set(keccak256(stringToBytes(id), "bytes"), 64 + 32 * i));
  return keccak256(buf);
}

/**
 * Checks that `value` can live onchain as a right-padded bytes32: 1 to 32 printable ASCII characters.
 * NUL and other control characters are refused too: a trailing NUL would give the same bytes32 as the string
 * without it, so two slugs would share an id.
 * @returns the reason it cannot, or null when it can.
 */
export function bytes32TextProblem(value: string): string | null {
  if (typeof value !== "string") return "not a string";
  if (value.length === 0) return "empty";
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return `character ${i} is not printable ASCII`;
  }
  if (value.length > 32) return `${value.length} bytes, at most 32`;
  return null;
}

/** A string as ASCII bytes right-padded with zeros to 32 bytes (Solidity's bytes32("...")). */
export function asciiBytes32(value: string): Hex {
  const buf = new Uint8Array(32);
  for (let i = 0; i < value.length; i++) buf[i] = value.charCodeAt(i);
  return bytesToHex(buf);
}

/** A campaign's contract id: its slug as ASCII, right-padded to 32 bytes. */
export function toCampaignId(slug: string): Hex {
  const problem = bytes32TextProblem(slug);
  if (problem !== null) throw new InvalidCampaignIdError(slug, problem);
  return asciiBytes32(slug);
}
