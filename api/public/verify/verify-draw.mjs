#!/usr/bin/env node
// verify-draw.mjs: checks a prize draw proof (format version 2, 3, 4, 5 or 6) by recomputing it.
//
//   node verify-draw.mjs <proof URL or file> [--json] [--rpc URL] [--entrant ID]
//   node verify-draw.mjs --campaign <draws.json URL> --rpc URL [--json]
//
// One file, no packages, Node.js 18 or later. It self-tests its own keccak256, loads the proof, then checks the
// prize table, the winner list fingerprint, (entries campaigns) the entrant list commitment and the selection of
// the winners from it, (versions 3 to 6) the drawing's slot and the origin of the random value (versions 4 to 6:
// through the batch of drawings its randomness request served; versions 5 and 6: through the public re-request of a
// value not revealed in time; version 6: mixed with the hash of the block that holds the request), and every random
// value, roll and prize, top-prize-once rule included. With --rpc it also reads the contract's events over plain
// JSON-RPC: the list commitment, the randomness request (versions 5 and 6: and its re-request) and the revealed
// random value, (versions 3 to 6) the Entropy contract's own requests and reveal, so the origin of the random value
// is checked too, and (version 6) the request block's hash and the reveal's distance from it.
// --entrant ID says whether ID was in the committed list, the chance it had and whether it won.
// --campaign reads every commit of a campaign from the chain and accounts for each with the campaign's draws.json:
// each drawn draw's proof is verified with --rpc, and a commit that draws.json does not show is a failure.
// The proof format is documented in docs/proof-format.md of the service's repository.
//
// Marks: ✔ pass, ✘ fail, ℹ information (a fact the math cannot settle).
// Exit codes: 0 nothing failed; 1 a check failed; 2 the proof (or the RPC) could not be used.
//
// The draw computation (all hashes keccak256 over Solidity abi.encode):
//   winnerHash   = keccak256(utf8 winner id)
//   fingerprint  = keccak256(abi.encode(bytes32[] winnerHashes))            position 0 first
//   value        = entropy.value: version 6, drawValue (below); versions 2 to 5, entropy (below)
//   randomValue  = keccak256(abi.encode(bytes32 value, bytes32 campaignId, uint64 number, uint256 position, uint256 k))
//                  k = 0, 1, ... while randomValue < 2^256 mod denominator (rejection, keeps every roll equally likely)
//   roll         = randomValue mod denominator; the tier is the first whose threshold (cumulative weight) exceeds it;
//                  a top-tier roll after the top prize was already awarded in the same draw pays the second tier.
// Entries campaigns:
//   entrantsCommitment = keccak256(abi.encode(bytes32[] idHashes, uint256[] weights))   arrival order
//   winner j = 0..n-1: T = sum of weights not yet drawn;
//                  v = keccak256(abi.encode(bytes32 value, bytes32 campaignId, uint64 number, bytes32 "entrants", uint256 j, uint256 k))
//                  discarded while v < 2^256 mod T; u = v mod T; the winner is the first undrawn entrant (position
//                  order) whose running sum of undrawn weights exceeds u; it is then removed.
// Origin of the random value (versions 3 to 6; Pyth Entropy v2):
//   slot             = keccak256(utf8 drawing id)
//   contribution     = keccak256(abi.encode(bytes32 campaignId, uint64 number, bytes32 slot, bytes32 listCommitment))
//                      listCommitment = entrantsCommitment (entries campaigns) or the winner fingerprint
//   userContribution = version 3: the drawing's contribution
//                      version 4: one request serves a batch of drawings, this one at batch.index of batch.size;
//                      batch.contributions[batch.index] = contribution, and
//                      userContribution = contributions[0] for a batch of one,
//                                         keccak256(contributions[0] ‖ … ‖ contributions[size-1]) otherwise
//                      versions 5 and 6: the request the commit made (previous, with the batch's contribution above,
//                      kept in reRequest.previousUserContribution) was not revealed within reRequest.timeoutBlocks
//                      blocks (version 6: or its reveal came too late to use) and was requested again, once, in
//                      public; the new request's
//                      userContribution = keccak256(abi.encode(address previousProvider, uint64 previousRequestId))
//   entropy          = keccak256(userContribution ‖ providerContribution ‖ bytes32(0))   (abi.encodePacked)
//                      Entropy's value: entropy.revealedValue in version 6, entropy.value in versions 2 to 5
//   drawValue        = version 6: keccak256(abi.encode(bytes32 entropy, bytes32 requestBlock.hash)), requestBlock the
//                      block that holds the revealed request (the commit's, or the re-request's); the contract uses
//                      a reveal only within 256 blocks of it, while the EVM still returns the block's hash

// The same file also loads as an ES module in a browser (the campaign page's "check this draw here" button):
// `verifyDraw(proof URL or object, { rpcUrl })` runs the checks of the command line and returns its --json report.
// Node's own modules are therefore imported only when running under Node (file proofs, the command line).

/** True under Node.js (the command line, tests), false in a browser. */
const IS_NODE = typeof process !== "undefined" && Boolean(process.versions && process.versions.node);

/** The proof format versions this verifier checks; the last is the current one, which the service publishes. */
export const PROOF_VERSIONS = [2, 3, 4, 5, 6];
export const PROOF_VERSION = 6;
export const SELECTION_METHOD = "sequential-weighted-v1";

const MAX_DENOMINATOR = 2_147_483_647;
const MAX_PRIZE_CENTS = 100_000_000;
const MAX_ENTRANTS = 100_000;
const MAX_WEIGHT = 4_294_967_295;
const FETCH_TIMEOUT_MS = 30_000;
/** The widest block range asked of eth_getLogs at once. */
const LOG_CHUNK_BLOCKS = 10_000n;
/** How far past a drawing's reveal its later events are looked for. */
const MAX_SCAN_BLOCKS = 1_000_000n;
const MAX_DETAIL_LINES = 20;
const TWO_256 = 1n << 256n;
/** Blocks whose hash the EVM still returns (PrizeDraw.BLOCKHASH_WINDOW): a version 6 reveal comes within them of its request. */
const BLOCKHASH_WINDOW = 256n;
const ZERO_WORD = "0x" + "0".repeat(64);

// ---------------------------------------------------------------------------------------------- keccak256
// Keccak-f[1600] with Ethereum's padding (0x01 ... 0x80), not SHA3-256's (0x06). A 64-bit lane i is held as two
// 32-bit words: state[2i] its low half, state[2i + 1] its high half. The permutation is unrolled (theta, rho and
// pi, chi, iota) so that every intermediate lane lives in a local variable.

// Round constants of iota, as (low word, high word) per round.
const RC = new Uint32Array([
  0x00000001, 0x00000000, 0x00008082, 0x00000000, 0x0000808a, 0x80000000, 0x80008000, 0x80000000,
  0x0000808b, 0x00000000, 0x80000001, 0x00000000, 0x80008081, 0x80000000, 0x00008009, 0x80000000,
  0x0000008a, 0x00000000, 0x00000088, 0x00000000, 0x80008009, 0x00000000, 0x8000000a, 0x00000000,
  0x8000808b, 0x00000000, 0x0000008b, 0x80000000, 0x00008089, 0x80000000, 0x00008003, 0x80000000,
  0x00008002, 0x80000000, 0x00000080, 0x80000000, 0x0000800a, 0x00000000, 0x8000000a, 0x80000000,
  0x80008081, 0x80000000, 0x00008080, 0x80000000, 0x80000001, 0x00000000, 0x80008008, 0x80000000,
]);
// Lane x + 5y of the state is s[2(x + 5y)] (low) and s[2(x + 5y) + 1] (high). Per round:
//   theta:       c_x = xor of column x; d_x = c_(x-1) ^ rot(c_(x+1), 1); t_i = lane_i ^ d_x
//   rho and pi:  b at (y, 2x + 3y) = rot(t at (x, y), r[x][y]) with the standard offsets r
//   chi:         lane (x, y) = b(x, y) ^ (~b(x + 1, y) & b(x + 2, y));  iota: lane 0 ^= RC[round]
function keccakF1600(s) {
  for (let round = 0; round < 48; round += 2) {
    const c0l = s[0] ^ s[10] ^ s[20] ^ s[30] ^ s[40];
    const c0h = s[1] ^ s[11] ^ s[21] ^ s[31] ^ s[41];
    const c1l = s[2] ^ s[12] ^ s[22] ^ s[32] ^ s[42];
    const c1h = s[3] ^ s[13] ^ s[23] ^ s[33] ^ s[43];
    const c2l = s[4] ^ s[14] ^ s[24] ^ s[34] ^ s[44];
    const c2h = s[5] ^ s[15] ^ s[25] ^ s[35] ^ s[45];
    const c3l = s[6] ^ s[16] ^ s[26] ^ s[36] ^ s[46];
    const c3h = s[7] ^ s[17] ^ s[27] ^ s[37] ^ s[47];
    const c4l = s[8] ^ s[18] ^ s[28] ^ s[38] ^ s[48];
    const c4h = s[9] ^ s[19] ^ s[29] ^ s[39] ^ s[49];
    const d0l = c4l ^ ((c1l << 1) | (c1h >>> 31));
    const d0h = c4h ^ ((c1h << 1) | (c1l >>> 31));
    const d1l = c0l ^ ((c2l << 1) | (c2h >>> 31));
    const d1h = c0h ^ ((c2h << 1) | (c2l >>> 31));
    const d2l = c1l ^ ((c3l << 1) | (c3h >>> 31));
    const d2h = c1h ^ ((c3h << 1) | (c3l >>> 31));
    const d3l = c2l ^ ((c4l << 1) | (c4h >>> 31));
    const d3h = c2h ^ ((c4h << 1) | (c4l >>> 31));
    const d4l = c3l ^ ((c0l << 1) | (c0h >>> 31));
    const d4h = c3h ^ ((c0h << 1) | (c0l >>> 31));
    const b0l = s[0] ^ d0l, b0h = s[1] ^ d0h;
    const t1l = s[2] ^ d1l, t1h = s[3] ^ d1h;
    const b10l = (t1l << 1) | (t1h >>> 31), b10h = (t1h << 1) | (t1l >>> 31);
    const t2l = s[4] ^ d2l, t2h = s[5] ^ d2h;
    const b20l = (t2h << 30) | (t2l >>> 2), b20h = (t2l << 30) | (t2h >>> 2);
    const t3l = s[6] ^ d3l, t3h = s[7] ^ d3h;
    const b5l = (t3l << 28) | (t3h >>> 4), b5h = (t3h << 28) | (t3l >>> 4);
    const t4l = s[8] ^ d4l, t4h = s[9] ^ d4h;
    const b15l = (t4l << 27) | (t4h >>> 5), b15h = (t4h << 27) | (t4l >>> 5);
    const t5l = s[10] ^ d0l, t5h = s[11] ^ d0h;
    const b16l = (t5h << 4) | (t5l >>> 28), b16h = (t5l << 4) | (t5h >>> 28);
    const t6l = s[12] ^ d1l, t6h = s[13] ^ d1h;
    const b1l = (t6h << 12) | (t6l >>> 20), b1h = (t6l << 12) | (t6h >>> 20);
    const t7l = s[14] ^ d2l, t7h = s[15] ^ d2h;
    const b11l = (t7l << 6) | (t7h >>> 26), b11h = (t7h << 6) | (t7l >>> 26);
    const t8l = s[16] ^ d3l, t8h = s[17] ^ d3h;
    const b21l = (t8h << 23) | (t8l >>> 9), b21h = (t8l << 23) | (t8h >>> 9);
    const t9l = s[18] ^ d4l, t9h = s[19] ^ d4h;
    const b6l = (t9l << 20) | (t9h >>> 12), b6h = (t9h << 20) | (t9l >>> 12);
    const t10l = s[20] ^ d0l, t10h = s[21] ^ d0h;
    const b7l = (t10l << 3) | (t10h >>> 29), b7h = (t10h << 3) | (t10l >>> 29);
    const t11l = s[22] ^ d1l, t11h = s[23] ^ d1h;
    const b17l = (t11l << 10) | (t11h >>> 22), b17h = (t11h << 10) | (t11l >>> 22);
    const t12l = s[24] ^ d2l, t12h = s[25] ^ d2h;
    const b2l = (t12h << 11) | (t12l >>> 21), b2h = (t12l << 11) | (t12h >>> 21);
    const t13l = s[26] ^ d3l, t13h = s[27] ^ d3h;
    const b12l = (t13l << 25) | (t13h >>> 7), b12h = (t13h << 25) | (t13l >>> 7);
    const t14l = s[28] ^ d4l, t14h = s[29] ^ d4h;
    const b22l = (t14h << 7) | (t14l >>> 25), b22h = (t14l << 7) | (t14h >>> 25);
    const t15l = s[30] ^ d0l, t15h = s[31] ^ d0h;
    const b23l = (t15h << 9) | (t15l >>> 23), b23h = (t15l << 9) | (t15h >>> 23);
    const t16l = s[32] ^ d1l, t16h = s[33] ^ d1h;
    const b8l = (t16h << 13) | (t16l >>> 19), b8h = (t16l << 13) | (t16h >>> 19);
    const t17l = s[34] ^ d2l, t17h = s[35] ^ d2h;
    const b18l = (t17l << 15) | (t17h >>> 17), b18h = (t17h << 15) | (t17l >>> 17);
    const t18l = s[36] ^ d3l, t18h = s[37] ^ d3h;
    const b3l = (t18l << 21) | (t18h >>> 11), b3h = (t18h << 21) | (t18l >>> 11);
    const t19l = s[38] ^ d4l, t19h = s[39] ^ d4h;
    const b13l = (t19l << 8) | (t19h >>> 24), b13h = (t19h << 8) | (t19l >>> 24);
    const t20l = s[40] ^ d0l, t20h = s[41] ^ d0h;
    const b14l = (t20l << 18) | (t20h >>> 14), b14h = (t20h << 18) | (t20l >>> 14);
    const t21l = s[42] ^ d1l, t21h = s[43] ^ d1h;
    const b24l = (t21l << 2) | (t21h >>> 30), b24h = (t21h << 2) | (t21l >>> 30);
    const t22l = s[44] ^ d2l, t22h = s[45] ^ d2h;
    const b9l = (t22h << 29) | (t22l >>> 3), b9h = (t22l << 29) | (t22h >>> 3);
    const t23l = s[46] ^ d3l, t23h = s[47] ^ d3h;
    const b19l = (t23h << 24) | (t23l >>> 8), b19h = (t23l << 24) | (t23h >>> 8);
    const t24l = s[48] ^ d4l, t24h = s[49] ^ d4h;
    const b4l = (t24l << 14) | (t24h >>> 18), b4h = (t24h << 14) | (t24l >>> 18);
    s[0] = b0l ^ (~b1l & b2l);
    s[1] = b0h ^ (~b1h & b2h);
    s[2] = b1l ^ (~b2l & b3l);
    s[3] = b1h ^ (~b2h & b3h);
    s[4] = b2l ^ (~b3l & b4l);
    s[5] = b2h ^ (~b3h & b4h);
    s[6] = b3l ^ (~b4l & b0l);
    s[7] = b3h ^ (~b4h & b0h);
    s[8] = b4l ^ (~b0l & b1l);
    s[9] = b4h ^ (~b0h & b1h);
    s[10] = b5l ^ (~b6l & b7l);
    s[11] = b5h ^ (~b6h & b7h);
    s[12] = b6l ^ (~b7l & b8l);
    s[13] = b6h ^ (~b7h & b8h);
    s[14] = b7l ^ (~b8l & b9l);
    s[15] = b7h ^ (~b8h & b9h);
    s[16] = b8l ^ (~b9l & b5l);
    s[17] = b8h ^ (~b9h & b5h);
    s[18] = b9l ^ (~b5l & b6l);
    s[19] = b9h ^ (~b5h & b6h);
    s[20] = b10l ^ (~b11l & b12l);
    s[21] = b10h ^ (~b11h & b12h);
    s[22] = b11l ^ (~b12l & b13l);
    s[23] = b11h ^ (~b12h & b13h);
    s[24] = b12l ^ (~b13l & b14l);
    s[25] = b12h ^ (~b13h & b14h);
    s[26] = b13l ^ (~b14l & b10l);
    s[27] = b13h ^ (~b14h & b10h);
    s[28] = b14l ^ (~b10l & b11l);
    s[29] = b14h ^ (~b10h & b11h);
    s[30] = b15l ^ (~b16l & b17l);
    s[31] = b15h ^ (~b16h & b17h);
    s[32] = b16l ^ (~b17l & b18l);
    s[33] = b16h ^ (~b17h & b18h);
    s[34] = b17l ^ (~b18l & b19l);
    s[35] = b17h ^ (~b18h & b19h);
    s[36] = b18l ^ (~b19l & b15l);
    s[37] = b18h ^ (~b19h & b15h);
    s[38] = b19l ^ (~b15l & b16l);
    s[39] = b19h ^ (~b15h & b16h);
    s[40] = b20l ^ (~b21l & b22l);
    s[41] = b20h ^ (~b21h & b22h);
    s[42] = b21l ^ (~b22l & b23l);
    s[43] = b21h ^ (~b22h & b23h);
    s[44] = b22l ^ (~b23l & b24l);
    s[45] = b22h ^ (~b23h & b24h);
    s[46] = b23l ^ (~b24l & b20l);
    s[47] = b23h ^ (~b24h & b20h);
    s[48] = b24l ^ (~b20l & b21l);
    s[49] = b24h ^ (~b20h & b21h);
    s[0] ^= RC[round];
    s[1] ^= RC[round + 1];
  }
}

const RATE = 136; // bytes absorbed per permutation for a 256-bit output
const STATE = new Uint32Array(50);
const LAST_BLOCK = new Uint8Array(RATE);

function absorbBlock(s, data, offset) {
  for (let w = 0; w < 34; w++) {
    const p = offset + 4 * w;
    s[w] ^= data[p] | (data[p + 1] << 8) | (data[p + 2] << 16) | (data[p + 3] << 24);
  }
  keccakF1600(s);
}

/** keccak256 of a Uint8Array into `out` (32 bytes at `outOffset`); returns `out`. */
export function keccak256Into(data, out, outOffset = 0) {
  const s = STATE;
  s.fill(0);
  const length = data.length;
  let offset = 0;
  for (; length - offset >= RATE; offset += RATE) absorbBlock(s, data, offset);
  const last = LAST_BLOCK;
  last.fill(0);
  last.set(data.subarray(offset, length));
  last[length - offset] ^= 0x01;
  last[RATE - 1] ^= 0x80;
  absorbBlock(s, last, 0);
  for (let w = 0; w < 8; w++) {
    const v = s[w];
    const p = outOffset + 4 * w;
    out[p] = v;
    out[p + 1] = v >>> 8;
    out[p + 2] = v >>> 16;
    out[p + 3] = v >>> 24;
  }
  return out;
}

/** keccak256 of a Uint8Array or a string (hashed as UTF-8); returns 32 bytes. */
export function keccak256(data) {
  const bytes = typeof data === "string" ? utf8(data) : data;
  return keccak256Into(bytes, new Uint8Array(32), 0);
}

const SELF_TEST_VECTORS = [
  ["", "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"],
  ["abc", "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"],
  // 315 bytes: three blocks.
  ["The quick brown fox jumps over the lazy dog. ".repeat(7), "1b00495e94c6548f5f42763149d6713e525a0f7a2f257cf08944e3b6c565ad80"],
  // 136 zero bytes: exactly one block, so the padding takes a block of its own.
  [new Uint8Array(136), "3a5912a7c5faa06ee4fe906253e339467a9ce87d533c65be3c15cb231cdb25f9"],
];

/** Runs the known-answer vectors; returns the number of vectors on success, or a description of the first failure. */
export function keccakSelfTest() {
  for (const [input, expected] of SELF_TEST_VECTORS) {
    const got = toHex(keccak256(input)).slice(2);
    if (got !== expected) {
      const label = typeof input === "string" ? `${input.length}-byte text` : `${input.length} zero bytes`;
      return { ok: false, message: `keccak256 of ${label} gave ${got}, expected ${expected}` };
    }
  }
  return { ok: true, count: SELF_TEST_VECTORS.length };
}

// ---------------------------------------------------------------------------------------------- bytes and hex

const ENCODER = new TextEncoder();
function utf8(text) {
  return ENCODER.encode(text);
}

const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX_VALUE[48 + i] = i;
for (let i = 0; i < 6; i++) {
  HEX_VALUE[65 + i] = 10 + i;
  HEX_VALUE[97 + i] = 10 + i;
}

export function toHex(bytes, start = 0, end = bytes.length) {
  let out = "0x";
  for (let i = start; i < end; i++) out += HEX_BYTE[bytes[i]];
  return out;
}

/** Decodes the 64 hex digits of a 0x-prefixed bytes32 string into out[offset..offset+32); false if not hex. */
function hex32Into(text, out, offset) {
  if (typeof text !== "string" || text.length !== 66 || text.charCodeAt(0) !== 48 || (text.charCodeAt(1) | 32) !== 120) {
    return false;
  }
  for (let i = 0; i < 32; i++) {
    const a = text.charCodeAt(2 + 2 * i);
    const b = text.charCodeAt(3 + 2 * i);
    const hi = a < 128 ? HEX_VALUE[a] : -1;
    const lo = b < 128 ? HEX_VALUE[b] : -1;
    if (hi < 0 || lo < 0) return false;
    out[offset + i] = (hi << 4) | lo;
  }
  return true;
}

/** Writes a non-negative safe integer (or a BigInt below 2^256) as a big-endian uint256 word at out[offset..offset+32). */
function writeUint(out, offset, value) {
  if (typeof value === "bigint") {
    const hex = value.toString(16).padStart(64, "0");
    for (let i = 0; i < 32; i++) out[offset + i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    return;
  }
  out.fill(0, offset, offset + 24);
  const hi = Math.floor(value / 4294967296);
  const lo = value >>> 0;
  out[offset + 24] = hi >>> 24;
  out[offset + 25] = hi >>> 16;
  out[offset + 26] = hi >>> 8;
  out[offset + 27] = hi;
  out[offset + 28] = lo >>> 24;
  out[offset + 29] = lo >>> 16;
  out[offset + 30] = lo >>> 8;
  out[offset + 31] = lo;
}

function bigFromBytes(bytes, offset = 0) {
  return BigInt(toHex(bytes, offset, offset + 32));
}

function word(value) {
  return BigInt(value).toString(16).padStart(64, "0");
}

/** The 32-byte form of a short ASCII id (campaign id, table id, selection tag): its bytes right-padded with zeros. */
export function idToBytes32(text) {
  const bytes = utf8(text);
  if (bytes.length === 0 || bytes.length > 32) return null;
  const out = new Uint8Array(32);
  out.set(bytes);
  return out;
}

function formatInt(n) {
  return Number(n).toLocaleString("en-US");
}

function formatCents(cents) {
  const dollars = Math.floor(cents / 100);
  const rest = cents % 100;
  return `$${dollars.toLocaleString("en-US")}${rest ? "." + String(rest).padStart(2, "0") : ""}`;
}

function short(hex) {
  return typeof hex === "string" && hex.length > 18 ? `${hex.slice(0, 10)}…${hex.slice(-6)}` : String(hex);
}

// ---------------------------------------------------------------------------------------------- input errors

/** The proof, the command line or the RPC cannot be used: reported on one line, exit code 2. */
export class InputError extends Error {}

function describe(value) {
  if (value === undefined) return "missing";
  let text;
  try {
    text = JSON.stringify(value);
  } catch {
    text = String(value);
  }
  if (text === undefined) text = String(value);
  if (text.length > 40) text = text.slice(0, 37) + "...";
  return `got ${text}`;
}

function bad(path, expectation, value) {
  throw new InputError(`proof field ${path} must be ${expectation} (${describe(value)})`);
}

function object(value, path) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) bad(path, "an object", value);
  return value;
}

function array(value, path) {
  if (!Array.isArray(value)) bad(path, "an array", value);
  return value;
}

function string(value, path) {
  if (typeof value !== "string") bad(path, "a string", value);
  return value;
}

function uint(value, path) {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) bad(path, "a whole number 0 or above", value);
  return value;
}

/** A uint64 given as a safe integer or as a decimal string (for values above 2^53); returned as a BigInt. */
function uint64(value, path) {
  let big = null;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) big = BigInt(value);
  else if (typeof value === "string" && /^[0-9]{1,20}$/.test(value)) big = BigInt(value);
  if (big === null || big >= 1n << 64n) bad(path, "a whole number from 0 to 2^64-1 (a decimal string above 2^53)", value);
  return big;
}

function hex32(value, path) {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(value)) bad(path, "a 0x-prefixed 32-byte hex string", value);
  return value.toLowerCase();
}

function address(value, path) {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(value)) bad(path, "a 0x-prefixed 20-byte address", value);
  return value.toLowerCase();
}

function optionalString(value, path) {
  if (value !== undefined && value !== null && typeof value !== "string") bad(path, "a string or null", value);
  return value ?? null;
}

// ---------------------------------------------------------------------------------------------- proof parsing

/** "2, 3, 4, 5 and 6" */
function versionList() {
  return `${PROOF_VERSIONS.slice(0, -1).join(", ")} and ${PROOF_VERSIONS.at(-1)}`;
}

/**
 * Checks the proof's shape and types (not its values: those are the checks) and returns a normalized copy.
 * Throws InputError naming the first field that is missing, of the wrong type, or not hex.
 */
export function parseProof(raw) {
  object(raw, "(top level)");
  const version = raw.proofVersion;
  if (version === undefined) bad("proofVersion", `${PROOF_VERSIONS.slice(0, -1).join(", ")} or ${PROOF_VERSIONS.at(-1)}`, version);
  if (!PROOF_VERSIONS.includes(version)) {
    throw new InputError(`proof field proofVersion is ${JSON.stringify(version)}: this verifier checks proof format versions ${versionList()}`);
  }
  // Each version has every field of the one before.
  const v3 = version >= 3;

  const campaign = object(raw.campaign, "campaign");
  const campaignId = string(campaign.id, "campaign.id");
  const campaignIdBytes = idToBytes32(campaignId);
  if (!campaignIdBytes) bad("campaign.id", "1 to 32 bytes (the contract's campaign id)", campaignId);
  const slug = optionalString(campaign.slug, "campaign.slug");
  const name = optionalString(campaign.name, "campaign.name");

  const drawing = object(raw.drawing, "drawing");
  const number = uint64(drawing.number, "drawing.number");
  const drawingId = v3 ? string(drawing.id, "drawing.id") : optionalString(drawing.id, "drawing.id");
  const drawAt = v3 ? string(drawing.drawAt, "drawing.drawAt") : optionalString(drawing.drawAt, "drawing.drawAt");
  const slot = v3 ? hex32(drawing.slot, "drawing.slot") : null;

  const winnerList = object(raw.winnerList, "winnerList");
  const winners = array(winnerList.winners, "winnerList.winners");
  winners.forEach((w, i) => string(w, `winnerList.winners[${i}]`));
  const winnersCommitment = hex32(winnerList.commitment, "winnerList.commitment");

  const entropy = object(raw.entropy, "entropy");
  const provider = string(entropy.provider, "entropy.provider");
  if (provider !== "mock") address(provider, "entropy.provider (\"mock\" or an address)");
  let requestId = entropy.requestId;
  if (requestId !== undefined && requestId !== null) {
    if (typeof requestId === "number") requestId = String(uint(requestId, "entropy.requestId"));
    else if (typeof requestId !== "string" || !/^[0-9]+$/.test(requestId)) bad("entropy.requestId", "a whole number or a string of digits", requestId);
  } else {
    requestId = null;
  }
  // Entropy's value: version 6 names it revealedValue, its `value` being the mixed one every result follows from.
  const entropyValue = version >= 6 ? hex32(entropy.revealedValue, "entropy.revealedValue") : hex32(entropy.value, "entropy.value");
  let userContribution = null;
  let providerContribution = null;
  let batch = null;
  if (version >= 4) {
    const b = object(entropy.batch, "entropy.batch");
    const contributions = array(b.contributions, "entropy.batch.contributions").map((c, i) => hex32(c, `entropy.batch.contributions[${i}]`));
    batch = { index: uint(b.index, "entropy.batch.index"), size: uint(b.size, "entropy.batch.size"), contributions };
  }
  let reRequest = null;
  // Versions 5 and 6: null for a value revealed at the commit's request; a missing field is a malformed proof.
  if (version >= 5 && entropy.reRequest !== null) {
    const r = object(entropy.reRequest, "entropy.reRequest");
    reRequest = {
      previousProvider: address(r.previousProvider, "entropy.reRequest.previousProvider"),
      previousRequestId: String(uint64(r.previousRequestId, "entropy.reRequest.previousRequestId")),
      previousUserContribution: hex32(r.previousUserContribution, "entropy.reRequest.previousUserContribution"),
      timeoutBlocks: uint(r.timeoutBlocks, "entropy.reRequest.timeoutBlocks"),
      requestTx: hex32(r.requestTx, "entropy.reRequest.requestTx"),
      requestedAt: string(r.requestedAt, "entropy.reRequest.requestedAt"),
    };
  } else if (entropy.reRequest !== undefined && entropy.reRequest !== null) {
    // Checking it as version 4 would check the request the commit made and ignore the re-request the proof claims.
    throw new InputError(`proof field entropy.reRequest is in a version ${version} proof: only a version 5 proof describes a re-requested random value`);
  }
  if (v3) {
    userContribution = hex32(entropy.userContribution, "entropy.userContribution");
    if (entropy.providerContribution !== null) {
      if (entropy.providerContribution === undefined) bad("entropy.providerContribution", "a 0x-prefixed 32-byte hex string or null", undefined);
      providerContribution = hex32(entropy.providerContribution, "entropy.providerContribution (a 32-byte hex string or null)");
    }
  }
  let requestBlock = null;
  let mixedValue = null;
  if (version >= 6) {
    const b = object(entropy.requestBlock, "entropy.requestBlock");
    requestBlock = { number: uint64(b.number, "entropy.requestBlock.number"), hash: hex32(b.hash, "entropy.requestBlock.hash") };
    mixedValue = hex32(entropy.value, "entropy.value");
  }

  const table = object(raw.prizeTable, "prizeTable");
  const tableId = optionalString(table.id, "prizeTable.id");
  const tableVersion = uint(table.version, "prizeTable.version");
  const denominator = uint(table.denominator, "prizeTable.denominator");
  const tiers = array(table.tiers, "prizeTable.tiers").map((tier, i) => {
    const path = `prizeTable.tiers[${i}]`;
    object(tier, path);
    return {
      amountCents: uint(tier.amountCents, `${path}.amountCents`),
      weight: uint(tier.weight, `${path}.weight`),
      threshold: uint(tier.threshold, `${path}.threshold`),
    };
  });

  const results = array(raw.results, "results").map((result, i) => {
    const path = `results[${i}]`;
    object(result, path);
    return {
      position: uint(result.position, `${path}.position`),
      winner: string(result.winner, `${path}.winner`),
      randomValue: hex32(result.randomValue, `${path}.randomValue`),
      roll: uint(result.roll, `${path}.roll`),
      amountCents: uint(result.amountCents, `${path}.amountCents`),
    };
  });

  let entrants = null;
  if (raw.entrants !== null && raw.entrants !== undefined) {
    const e = object(raw.entrants, "entrants");
    const count = uint(e.count, "entrants.count");
    const totalWeight = uint(e.totalWeight, "entrants.totalWeight");
    const commitment = hex32(e.commitment, "entrants.commitment");
    const selection = string(e.selection, "entrants.selection");
    const list = array(e.list, "entrants.list");
    const n = list.length;
    // The abi.encode(bytes32[] hashes, uint256[] weights) buffer is filled while the list is read.
    const encoded = new Uint8Array(128 + 64 * n);
    writeUint(encoded, 0, 64);
    writeUint(encoded, 32, 96 + 32 * n);
    writeUint(encoded, 64, n);
    writeUint(encoded, 96 + 32 * n, n);
    const hashOffset = 96;
    const weightOffset = 128 + 32 * n;
    const weights = new Float64Array(n);
    const hashes = new Array(n);
    for (let i = 0; i < n; i++) {
      const item = list[i];
      if (item === null || typeof item !== "object") bad(`entrants.list[${i}]`, "an object", item);
      if (!hex32Into(item.hash, encoded, hashOffset + 32 * i)) hex32(item.hash, `entrants.list[${i}].hash`);
      const weight = item.weight;
      if (typeof weight !== "number" || !Number.isSafeInteger(weight) || weight < 0) uint(weight, `entrants.list[${i}].weight`);
      weights[i] = weight;
      writeUint(encoded, weightOffset + 32 * i, weight);
      hashes[i] = item.hash.toLowerCase();
    }
    entrants = { count, totalWeight, commitment, selection, size: n, hashes, weights, encoded, hashOffset };
  }

  let chain = null;
  if (raw.chain !== null && raw.chain !== undefined) chain = object(raw.chain, "chain");

  return {
    version,
    campaign: { id: campaignId, slug, name, idBytes: campaignIdBytes },
    drawing: { id: drawingId, number, drawAt, slot },
    winners,
    winnersCommitment,
    // `value` is Entropy's value and `drawValue` (version 6) what the results follow, whatever the proof calls them.
    entropy: { provider, requestId, value: entropyValue, userContribution, providerContribution, batch, reRequest, requestBlock, drawValue: mixedValue },
    table: { id: tableId, version: tableVersion, denominator, tiers },
    results,
    entrants,
    chain,
  };
}

/** A chain id given as a number, a decimal string or a 0x hex string. */
function chainIdOf(value, path) {
  let chainId = value;
  if (typeof chainId === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(chainId)) chainId = Number(chainId);
  return uint(chainId, path);
}

/** The proof's chain object, checked for --rpc. Versions 3 to 6 also name the Entropy contract. */
function parseChain(chain, version) {
  if (chain === null) bad("chain", "an object (needed by --rpc)", chain);
  return {
    chainId: chainIdOf(chain.chainId, "chain.chainId"),
    contract: address(chain.contract, "chain.contract"),
    entropy: version >= 3 ? address(chain.entropy, "chain.entropy") : null,
    commitTx: hex32(chain.commitTx, "chain.commitTx"),
    revealTx: hex32(chain.revealTx, "chain.revealTx"),
  };
}

// ---------------------------------------------------------------------------------------------- the draw math

/** keccak256(abi.encode(bytes32[] of keccak256(utf8 id))): the fingerprint of a winner list. */
export function fingerprint(ids) {
  const n = ids.length;
  const encoded = new Uint8Array(64 + 32 * n);
  writeUint(encoded, 0, 32);
  writeUint(encoded, 32, n);
  const hashes = new Array(n);
  for (let i = 0; i < n; i++) {
    keccak256Into(utf8(ids[i]), encoded, 64 + 32 * i);
    hashes[i] = toHex(encoded, 64 + 32 * i, 96 + 32 * i);
  }
  return { commitment: toHex(keccak256(encoded)), hashes };
}

/** A drawing's slot: keccak256 of the UTF-8 bytes of its id (hex). */
export function drawingSlot(drawingId) {
  return toHex(keccak256(drawingId));
}

/**
 * The user contribution of a drawing's randomness request (hex):
 * keccak256(abi.encode(bytes32 campaignId, uint64 number, bytes32 slot, bytes32 listCommitment)).
 * `campaignId`, `slot` and `listCommitment` are 0x hex strings (or 32-byte arrays), `number` a BigInt or safe integer.
 */
export function userRandomNumber({ campaignId, number, slot, listCommitment }) {
  const encoded = new Uint8Array(128);
  const put = (value, offset, what) => {
    if (value instanceof Uint8Array && value.length === 32) encoded.set(value, offset);
    else if (!hex32Into(value, encoded, offset)) throw new InputError(`${what} is not a 32-byte hex string`);
  };
  put(campaignId, 0, "campaignId");
  writeUint(encoded, 32, typeof number === "bigint" ? number : BigInt(number));
  put(slot, 64, "slot");
  put(listCommitment, 96, "listCommitment");
  return toHex(keccak256(encoded));
}

/**
 * The user contribution of a randomness request serving a batch of drawings (hex), from each drawing's
 * userRandomNumber in batch order: a batch of one uses its drawing's as is, a larger batch
 * keccak256(abi.encodePacked(c_0, ..., c_{n-1})). `contributions` are 0x hex strings; an empty batch is refused.
 */
export function batchUserRandomNumber(contributions) {
  if (!Array.isArray(contributions) || contributions.length === 0) throw new InputError("a batch has at least one contribution");
  const packed = new Uint8Array(32 * contributions.length);
  contributions.forEach((c, i) => {
    if (!hex32Into(c, packed, 32 * i)) throw new InputError(`contribution ${i} of the batch is not a 32-byte hex string`);
  });
  return contributions.length === 1 ? toHex(packed) : toHex(keccak256(packed));
}

/**
 * The user contribution of a re-request (hex): keccak256(abi.encode(address previousProvider, uint64
 * previousSequence)) of the request it replaces (DrawMath.reRequestUserRandomNumber). `previousProvider` is a 0x
 * address, `previousSequence` a BigInt or safe integer below 2^64.
 */
export function reRequestUserRandomNumber(previousProvider, previousSequence) {
  if (typeof previousProvider !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(previousProvider)) throw new InputError("the previous provider is not a 20-byte hex address");
  const sequence = typeof previousSequence === "bigint" ? previousSequence : BigInt(previousSequence);
  if (sequence < 0n || sequence >= 1n << 64n) throw new InputError("the previous sequence is not a uint64");
  const encoded = new Uint8Array(64);
  // abi.encode left-pads the address to a 32-byte word.
  writeUint(encoded, 0, BigInt(previousProvider));
  writeUint(encoded, 32, sequence);
  return toHex(keccak256(encoded));
}

/** Pyth Entropy v2's random number (hex): keccak256(abi.encodePacked(bytes32 user, bytes32 provider, bytes32(0))). */
export function combineRandomValues(user, provider) {
  const packed = new Uint8Array(96);
  if (!hex32Into(user, packed, 0)) throw new InputError("the user contribution is not a 32-byte hex string");
  if (!hex32Into(provider, packed, 32)) throw new InputError("the provider contribution is not a 32-byte hex string");
  return toHex(keccak256(packed));
}

/**
 * A version 6 drawing's value (hex), from which every prize follows: keccak256(abi.encode(bytes32 entropyValue,
 * bytes32 requestBlockHash)) (DrawMath.drawValue), Entropy's value mixed with the hash of the request's block.
 */
export function drawValue(entropyValue, requestBlockHash) {
  const encoded = new Uint8Array(64);
  if (!hex32Into(entropyValue, encoded, 0)) throw new InputError("the entropy value is not a 32-byte hex string");
  if (!hex32Into(requestBlockHash, encoded, 32)) throw new InputError("the request block hash is not a 32-byte hex string");
  return toHex(keccak256(encoded));
}

/** 2^256 mod m: random values below it are discarded. */
function rejectionFloor(m) {
  return TWO_256 % BigInt(m);
}

/**
 * The accepted random value and roll of every position 0..count-1 with the top-prize-once rule applied.
 * Returns [{ randomValue (hex), roll, tier, amountCents, retries }].
 */
export function computePrizes({ entropy, campaignIdBytes, number, denominator, tiers, count }) {
  const input = new Uint8Array(160); // entropy | campaignId | uint64 number | uint256 position | uint256 k
  if (!hex32Into(entropy, input, 0)) throw new InputError("entropy value is not a 32-byte hex string");
  input.set(campaignIdBytes, 32);
  writeUint(input, 64, number);
  const m = BigInt(denominator);
  const floor = rejectionFloor(denominator);
  const digest = new Uint8Array(32);
  const out = new Array(count);
  let topAwarded = false;
  for (let position = 0; position < count; position++) {
    writeUint(input, 96, position);
    let k = 0;
    let value;
    for (;;) {
      writeUint(input, 128, k);
      keccak256Into(input, digest, 0);
      value = bigFromBytes(digest);
      if (value >= floor) break;
      k++;
    }
    const roll = Number(value % m);
    let tier = tiers.findIndex((t) => roll < t.threshold);
    if (tier < 0) tier = tiers.length - 1;
    if (tier === 0) {
      if (topAwarded && tiers.length > 1) tier = 1;
      else topAwarded = true;
    }
    out[position] = { randomValue: toHex(digest), roll, tier, amountCents: tiers[tier].amountCents, retries: k };
  }
  return out;
}

/**
 * Sequential weighted selection (sequential-weighted-v1) of `count` winners from entrants with `weights`
 * (position order). A Fenwick tree over the weights finds each winner in O(log n). Returns entrant positions.
 */
export function selectEntrants({ entropy, campaignIdBytes, number, weights, count }) {
  const n = weights.length;
  const tree = new Float64Array(n + 1); // sums stay below 2^53: at most 100,000 weights below 2^32
  let total = 0;
  for (let i = 1; i <= n; i++) {
    tree[i] += weights[i - 1];
    total += weights[i - 1];
    const parent = i + (i & -i);
    if (parent <= n) tree[parent] += tree[i];
  }
  let topStep = 1;
  while (topStep * 2 <= n) topStep *= 2;

  const input = new Uint8Array(192); // entropy | campaignId | uint64 number | bytes32 "entrants" | uint256 j | uint256 k
  if (!hex32Into(entropy, input, 0)) throw new InputError("entropy value is not a 32-byte hex string");
  input.set(campaignIdBytes, 32);
  writeUint(input, 64, number);
  input.set(idToBytes32("entrants"), 96);
  const digest = new Uint8Array(32);
  const selected = [];
  for (let j = 0; j < count; j++) {
    if (total <= 0) break;
    const T = BigInt(total);
    const floor = rejectionFloor(total);
    writeUint(input, 128, j);
    let k = 0;
    let v;
    for (;;) {
      writeUint(input, 160, k);
      keccak256Into(input, digest, 0);
      v = bigFromBytes(digest);
      if (v >= floor) break;
      k++;
    }
    let u = Number(v % T);
    // Largest prefix (1-based index `pos`) whose sum is <= u; the winner is the next entrant, 0-based `pos`.
    let pos = 0;
    for (let step = topStep; step > 0; step >>= 1) {
      const next = pos + step;
      if (next <= n && tree[next] <= u) {
        pos = next;
        u -= tree[next];
      }
    }
    const weight = weights[pos];
    selected.push(pos);
    total -= weight;
    for (let i = pos + 1; i <= n; i += i & -i) tree[i] -= weight;
  }
  return selected;
}

// ---------------------------------------------------------------------------------------------- printing a proof's text

// A proof is a stranger's file, and may be older than the service's rule for ids and names: an id, the slug or a
// value quoted in an error can hold control characters (C1's U+009B starts a terminal escape sequence: "\u009b2J"
// clears the screen), bidirectional overrides that reorder the line, or zero-width characters that make two ids look
// the same. Everything printed goes through `printable`, which writes each such character as \u{hex}, visible and
// inert; `--json` writes them as \u escapes, which a JSON reader decodes back to the very id. Ids are hashed as
// they are: only what is shown changes. The characters are the ones the service refuses in ids and names: Unicode
// Cc, Cf, Zl and Zp, and lone surrogates, except a zero-width joiner between two pictographs and the tags of a
// subdivision flag (U+1F3F4, tags, U+E007F), which are how emoji are written.

const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const JOINS_AFTER = /^[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F]$/u;
const JOINS_BEFORE = /^\p{Extended_Pictographic}$/u;
const isTag = (cp) => cp >= 0xe0020 && cp <= 0xe007e;

/** `text` with each hidden character (above) replaced by `escape(char)`; emoji sequences are kept whole. */
function escapeHidden(text, escape) {
  if (!HIDDEN.test(text)) return text;
  const chars = Array.from(text);
  let out = "";
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i];
    const cp = char.codePointAt(0);
    if (!HIDDEN.test(char)) {
      out += char;
    } else if (cp === 0x200d && i > 0 && i + 1 < chars.length && JOINS_AFTER.test(chars[i - 1]) && JOINS_BEFORE.test(chars[i + 1])) {
      out += char;
    } else if (isTag(cp) && i > 0 && chars[i - 1].codePointAt(0) === 0x1f3f4 && tagRunEnd(chars, i) !== -1) {
      const end = tagRunEnd(chars, i);
      out += chars.slice(i, end + 1).join("");
      i = end;
    } else {
      out += escape(char);
    }
  }
  return out;
}

/** The index of the cancel tag U+E007F that closes the tags starting at `i`, or -1 when none does. */
function tagRunEnd(chars, i) {
  let end = i;
  while (end < chars.length && isTag(chars[end].codePointAt(0))) end++;
  return end < chars.length && chars[end].codePointAt(0) === 0xe007f ? end : -1;
}

/** `text` as it is safe to print on a terminal: each control or format character as \u{hex} ("\u009b" is \u{9b}). */
export function printable(text) {
  return escapeHidden(String(text), (char) => `\\u{${char.codePointAt(0).toString(16)}}`);
}

/**
 * `value` as --json prints it: JSON.stringify, then each hidden character left in a string (C1, DEL, format and
 * separator characters: JSON.stringify escapes only C0) written as its \u escape, so the JSON means the same.
 * A raw C0 character in the output is JSON's own line break or indentation, never in a string, and stays.
 */
function jsonText(value) {
  const unit = (code) => `\\u${code.toString(16).padStart(4, "0")}`;
  return escapeHidden(JSON.stringify(value, null, 2), (char) =>
    char.codePointAt(0) < 0x20 ? char : Array.from({ length: char.length }, (_, k) => unit(char.charCodeAt(k))).join(""),
  );
}

// ---------------------------------------------------------------------------------------------- checks

class Report {
  constructor() {
    this.checks = [];
  }
  add(id, status, message, details) {
    // Messages quote ids and values of the proof: made printable here, for the terminal, --json and the browser.
    const check = { id, status, message: printable(message) };
    if (details && details.length) {
      const extra = details.length - MAX_DETAIL_LINES;
      check.details = (extra > 0 ? [...details.slice(0, MAX_DETAIL_LINES), `... and ${extra} more`] : details).map(printable);
    }
    this.checks.push(check);
    return check;
  }
  pass(id, message) {
    return this.add(id, "pass", message);
  }
  fail(id, message, details) {
    return this.add(id, "fail", message, details);
  }
  info(id, message) {
    return this.add(id, "info", message);
  }
  check(id, problems, passMessage, failMessage) {
    return problems.length === 0 ? this.pass(id, passMessage) : this.fail(id, failMessage ?? problems[0], failMessage ? problems : problems.slice(1));
  }
}

function checkTable(report, proof) {
  const { tiers, denominator } = proof.table;
  const label = `prize table${proof.table.id ? ` ${proof.table.id}` : ""} v${proof.table.version}`;
  report.check(
    "table.tiers",
    tiers.length >= 2 ? [] : [`${label} has ${tiers.length} tier${tiers.length === 1 ? "" : "s"}; at least 2 are required`],
    `${label}: ${tiers.length} tiers, top prize first`,
  );

  const weightProblems = [];
  let sum = 0;
  tiers.forEach((tier, i) => {
    if (tier.weight <= 0) weightProblems.push(`tier ${i}: weight ${tier.weight} is not above 0`);
    sum += tier.weight;
  });
  if (sum !== denominator) weightProblems.push(`tier weights add up to ${formatInt(sum)}, the denominator is ${formatInt(denominator)}`);
  if (denominator > MAX_DENOMINATOR) weightProblems.push(`denominator ${formatInt(denominator)} is above ${formatInt(MAX_DENOMINATOR)}`);
  report.check(
    "table.weights",
    weightProblems,
    `tier weights are whole numbers above 0 adding up to the denominator ${formatInt(denominator)}`,
  );

  const amountProblems = [];
  tiers.forEach((tier, i) => {
    if (tier.amountCents > MAX_PRIZE_CENTS) amountProblems.push(`tier ${i}: amountCents ${formatInt(tier.amountCents)} is above ${formatInt(MAX_PRIZE_CENTS)}`);
  });
  report.check("table.amounts", amountProblems, `prizes are whole cents from 0 to ${formatInt(MAX_PRIZE_CENTS)} (${tiers.map((t) => formatCents(t.amountCents)).join(", ")})`);

  const thresholdProblems = [];
  let cumulative = 0;
  tiers.forEach((tier, i) => {
    cumulative += tier.weight;
    if (tier.threshold !== cumulative) thresholdProblems.push(`tier ${i}: threshold ${formatInt(tier.threshold)} in proof, cumulative weight is ${formatInt(cumulative)}`);
  });
  report.check("table.thresholds", thresholdProblems, "each tier's threshold is its cumulative weight (rolls start at 0)");
}

function checkFingerprint(report, proof) {
  const { commitment, hashes } = fingerprint(proof.winners);
  const count = proof.winners.length;
  if (commitment === proof.winnersCommitment) {
    report.pass("fingerprint", `fingerprint of the ${formatInt(count)} winner${count === 1 ? "" : "s"} in list order matches winnerList.commitment ${short(commitment)}`);
  } else {
    report.fail("fingerprint", `fingerprint of the ${formatInt(count)} winners is ${commitment}, winnerList.commitment is ${proof.winnersCommitment}`);
  }
  return hashes;
}

function checkEntrants(report, proof, winnerHashes) {
  const e = proof.entrants;
  const countProblems = [];
  if (e.count !== e.size) countProblems.push(`entrants.count is ${formatInt(e.count)}, the list holds ${formatInt(e.size)}`);
  if (e.size > MAX_ENTRANTS) countProblems.push(`the list holds ${formatInt(e.size)} entrants, above the limit of ${formatInt(MAX_ENTRANTS)}`);
  if (e.size === 0) countProblems.push("the entrant list is empty");
  report.check("entrants.count", countProblems, `entrant count ${formatInt(e.count)} matches the list`);

  const weightProblems = [];
  let total = 0;
  for (let i = 0; i < e.size; i++) {
    const w = e.weights[i];
    total += w;
    if (w < 1 || w > MAX_WEIGHT) weightProblems.push(`entrant ${i}: weight ${formatInt(w)} is outside 1 to ${formatInt(MAX_WEIGHT)}`);
  }
  if (total !== e.totalWeight) weightProblems.unshift(`entrant weights add up to ${formatInt(total)}, entrants.totalWeight is ${formatInt(e.totalWeight)}`);
  report.check("entrants.weights", weightProblems, `entrant weights are whole numbers from 1 to ${formatInt(MAX_WEIGHT)}; total ${formatInt(total)} matches entrants.totalWeight`);

  const commitment = toHex(keccak256(e.encoded));
  if (commitment === e.commitment) report.pass("entrants.commitment", `entrant list commitment (hashes and weights in arrival order) matches entrants.commitment ${short(commitment)}`);
  else report.fail("entrants.commitment", `entrant list commitment is ${commitment}, entrants.commitment is ${e.commitment}`);

  const seen = new Map();
  const duplicates = [];
  for (let i = 0; i < e.size; i++) {
    const h = e.hashes[i];
    if (seen.has(h)) duplicates.push(`entrant ${i} repeats entrant ${seen.get(h)} (${short(h)})`);
    else seen.set(h, i);
  }
  report.check("entrants.unique", duplicates, "entrant hashes are all distinct", `${duplicates.length} entrant hash${duplicates.length === 1 ? " is" : "es are"} repeated`);

  // Selection.
  const problems = [];
  const n = proof.winners.length;
  if (e.selection !== SELECTION_METHOD) {
    report.fail("entrants.selection", `entrants.selection is ${JSON.stringify(e.selection)}; this verifier checks ${SELECTION_METHOD}`);
    return;
  }
  if (n > e.size) {
    report.fail("entrants.selection", `the proof lists ${formatInt(n)} winners, more than the ${formatInt(e.size)} entrants`);
    return;
  }
  const select = (entropy) => selectEntrants({ entropy, campaignIdBytes: proof.campaign.idBytes, number: proof.drawing.number, weights: e.weights, count: n });
  const follows = (selected) => selected.length === n && selected.every((pos, j) => e.hashes[pos] === winnerHashes[j]);
  const selected = select(valueOf(proof));
  for (let j = 0; j < n; j++) {
    const pos = selected[j];
    if (pos === undefined) {
      problems.push(`winner ${j}: no entrant weight left to draw from`);
      continue;
    }
    if (e.hashes[pos] !== winnerHashes[j]) {
      problems.push(`winner ${j}: ${JSON.stringify(proof.winners[j])} (hash ${short(winnerHashes[j])}) in proof, the draw selects entrant ${pos} (hash ${short(e.hashes[pos])})`);
    }
  }
  const wrong = problems.length;
  // A version 6 list selected from Entropy's value alone skipped the block hash: said first, it explains the rest.
  if (wrong && proof.version >= 6 && follows(select(proof.entropy.value))) problems.unshift(ENTROPY_VALUE_USED);
  report.check(
    "entrants.selection",
    problems,
    `the ${formatInt(n)} winners are the entrants ${valueName(proof)} selects, in order (${SELECTION_METHOD})`,
    `${wrong} of ${formatInt(n)} winners ${wrong === 1 ? "is not the entrant" : "are not the entrants"} ${valueName(proof)} selects`,
  );
}

/** The value every result follows from: version 6, Entropy's mixed with the request block's hash; else Entropy's. */
function valueOf(proof) {
  return proof.version >= 6 ? proof.entropy.drawValue : proof.entropy.value;
}

/** What valueOf is called in messages. */
function valueName(proof) {
  return proof.version >= 6 ? "entropy.value" : "the random value";
}

/** The proof field that holds Entropy's value: version 6 keeps `value` for the mixed one. */
function entropyField(proof) {
  return proof.version >= 6 ? "entropy.revealedValue" : "entropy.value";
}

const ENTROPY_VALUE_USED =
  "these follow from entropy.revealedValue instead of entropy.value: a version 6 draw follows Entropy's value mixed with the request block's hash, entropy.value = keccak256(abi.encode(entropy.revealedValue, entropy.requestBlock.hash))";

function checkResults(report, proof) {
  const { winners, results, table } = proof;
  const listProblems = [];
  if (winners.length === 0) listProblems.push("the proof lists no winners");
  if (results.length !== winners.length) listProblems.push(`${formatInt(results.length)} results for ${formatInt(winners.length)} winners`);
  results.forEach((r, i) => {
    if (r.position !== i) listProblems.push(`results[${i}]: position ${r.position} in proof, expected ${i}`);
    if (i < winners.length && r.winner !== winners[i]) {
      listProblems.push(`position ${i}: winner ${JSON.stringify(r.winner)} in results, ${JSON.stringify(winners[i])} in the winner list`);
    }
  });
  report.check(
    "results.list",
    listProblems,
    `${formatInt(results.length)} results, one per winner, positions 0 to ${results.length - 1} in list order`,
    listProblems.length === 1 ? undefined : `results do not follow the winner list (${listProblems.length} problems)`,
  );

  if (table.denominator === 0 || table.tiers.length === 0) {
    report.fail("results.prizes", "cannot recompute prizes: the prize table has no rolls");
    return null;
  }
  const prizesOf = (entropy) =>
    computePrizes({ entropy, campaignIdBytes: proof.campaign.idBytes, number: proof.drawing.number, denominator: table.denominator, tiers: table.tiers, count: results.length });
  const computed = prizesOf(valueOf(proof));
  const problems = [];
  let mismatched = 0;
  results.forEach((r, i) => {
    const c = computed[i];
    const before = problems.length;
    if (r.randomValue !== c.randomValue) problems.push(`position ${i}: randomValue ${short(r.randomValue)} in proof, ${short(c.randomValue)} recomputed`);
    if (r.roll !== c.roll) problems.push(`position ${i}: roll ${r.roll} in proof, ${c.roll} recomputed`);
    if (r.amountCents !== c.amountCents) problems.push(`position ${i}: amountCents ${r.amountCents} in proof, ${c.amountCents} recomputed (tier ${c.tier})`);
    if (problems.length > before) mismatched++;
  });
  // A version 6 proof whose results follow Entropy's value alone skipped the block hash: said first.
  if (mismatched && proof.version >= 6) {
    const fromEntropy = prizesOf(proof.entropy.value);
    if (results.every((r, i) => r.randomValue === fromEntropy[i].randomValue && r.roll === fromEntropy[i].roll && r.amountCents === fromEntropy[i].amountCents)) {
      problems.unshift(ENTROPY_VALUE_USED);
    }
  }
  const retries = computed.reduce((sum, c) => sum + c.retries, 0);
  const totalCents = computed.reduce((sum, c) => sum + c.amountCents, 0);
  report.check(
    "results.prizes",
    problems,
    `every random value, roll and prize recomputes${proof.version >= 6 ? " from entropy.value" : ""} (${formatInt(results.length)} positions, ${formatCents(totalCents)} in total${retries ? `, ${retries} rejected value${retries === 1 ? "" : "s"} redrawn` : ""})`,
    `${mismatched} of ${formatInt(results.length)} positions ${mismatched === 1 ? "does" : "do"} not recompute`,
  );
  return computed;
}

function checkTopPrizeOnce(report, proof, computed) {
  const { tiers } = proof.table;
  if (tiers.length < 2 || !computed) return;
  const top = tiers[0].amountCents;
  const awarded = computed.findIndex((c) => c.tier === 0);
  let topRolls = 0;
  for (const c of computed) if (c.roll < tiers[0].threshold) topRolls++;
  const inProof = proof.results.filter((r) => r.amountCents === top).length;
  if (top !== tiers[1].amountCents && inProof > 1) {
    report.fail("top-prize-once", `the top prize ${formatCents(top)} appears ${inProof} times in the results; it is won at most once per draw`);
  } else if (awarded < 0) {
    report.pass("top-prize-once", "top prize won at most once: no roll fell in the top tier");
  } else {
    const later = topRolls - 1;
    report.pass(
      "top-prize-once",
      `top prize won at most once: at position ${awarded}${later > 0 ? `; ${later} later top-tier roll${later === 1 ? "" : "s"} paid the second tier` : ""}`,
    );
  }
}

/** The committed list of a proof: the entrant commitment (entries campaigns) or the winner fingerprint. */
function listCommitmentOf(proof) {
  return proof.entrants ? proof.entrants.commitment : proof.winnersCommitment;
}

/** The user contribution a proof's commit implies, from its own slot. */
function derivedUserContribution(proof) {
  return userRandomNumber({ campaignId: proof.campaign.idBytes, number: proof.drawing.number, slot: proof.drawing.slot, listCommitment: listCommitmentOf(proof) });
}

/**
 * The user contribution of the randomness request the commit made, as the proof's own fields derive it: version 3
 * the drawing's (its request served it alone), versions 4 and 5 the batch rule over entropy.batch.contributions.
 */
function requestUserContribution(proof) {
  if (proof.version < 4) return derivedUserContribution(proof);
  return proof.entropy.batch.contributions.length === 0 ? "none (the batch has no contributions)" : batchUserRandomNumber(proof.entropy.batch.contributions);
}

/** What requestUserContribution is called in messages. */
function requestSource(proof) {
  return proof.version >= 4 ? "the batch derives" : "the commit derives";
}

/** Versions 5 and 6: the re-request's user contribution, derived from the previous request the proof names. */
function reRequestContribution(proof) {
  const { previousProvider, previousRequestId } = proof.entropy.reRequest;
  return reRequestUserRandomNumber(previousProvider, BigInt(previousRequestId));
}

/** Whether the proof's random value came from a re-request (version 5 or 6 with entropy.reRequest set). */
function reRequested(proof) {
  return proof.version >= 5 && proof.entropy.reRequest !== null;
}

/** The proof field that holds the commit's request's user contribution: a re-request keeps it in entropy.reRequest. */
function commitContributionField(proof) {
  return reRequested(proof)
    ? { name: "entropy.reRequest.previousUserContribution", value: proof.entropy.reRequest.previousUserContribution }
    : { name: "entropy.userContribution", value: proof.entropy.userContribution };
}

/**
 * Versions 4 to 6: the request's batch holds this drawing's own contribution at batch.index, batch.size members,
 * and its contributions give the commit's request's user contribution by the batch rule: entropy.userContribution,
 * or entropy.reRequest.previousUserContribution when the value was re-requested (entropy.userContribution is then
 * the re-request's).
 */
function checkBatch(report, proof, own, listName) {
  const { index, size, contributions } = proof.entropy.batch;
  const problems = [];
  if (size < 1) problems.push(`entropy.batch.size is ${size}: a request serves at least one drawing`);
  if (contributions.length !== size) problems.push(`entropy.batch.contributions has ${contributions.length} entr${contributions.length === 1 ? "y" : "ies"}, entropy.batch.size is ${size}`);
  if (index >= contributions.length) {
    problems.push(`entropy.batch.index ${index} is outside the ${contributions.length} contributions (0 to ${contributions.length - 1})`);
  } else if (contributions[index] !== own) {
    const at = contributions.indexOf(own);
    problems.push(
      `this drawing's contribution keccak256(campaign id, number, slot, ${listName}) is ${own}, entropy.batch.contributions[${index}] is ${contributions[index]}` +
        (at >= 0 ? ` (this drawing's contribution is at ${at})` : " (this drawing's contribution is not in the batch)"),
    );
  }
  report.check(
    "entropy.batch",
    problems,
    `this drawing's contribution keccak256(campaign id, number, slot, ${listName}) = ${short(own)} is member ${index} of the request's batch of ${size}`,
  );
  const field = commitContributionField(proof);
  if (contributions.length === 0) {
    report.fail(field.name, "entropy.batch.contributions is empty: the request's user contribution cannot be derived");
    return;
  }
  const user = batchUserRandomNumber(contributions);
  const rule = contributions.length === 1 ? "a batch of one uses its drawing's contribution as is" : `keccak256 of the batch's ${contributions.length} contributions in batch order`;
  if (user === field.value) {
    report.pass(field.name, `${field.name} is derived from the batch (${rule}) = ${short(user)}`);
  } else {
    report.fail(field.name, `the batch's contributions give ${user} (${rule}), ${field.name} is ${field.value}`);
  }
}

/**
 * Versions 5 and 6: the value was re-requested (said as information: offline it is the proof's word), and the new
 * request's user contribution is the re-request's, keccak256(abi.encode(previousProvider, previousRequestId)): the
 * previous request is public since the commit, so whoever re-requested added nothing of their own. Version 6 also
 * re-requests a request whose reveal came too late to use (more than 256 blocks after it).
 */
function checkReRequest(report, proof) {
  const { provider, requestId, userContribution } = proof.entropy;
  const { previousProvider, previousRequestId, timeoutBlocks, requestTx, requestedAt } = proof.entropy.reRequest;
  if (provider === previousProvider && requestId === previousRequestId) {
    report.fail("entropy.reRequest", `entropy.requestId ${requestId} of provider ${provider} is the previous request itself: a re-request is another request`);
  } else {
    const why =
      proof.version >= 6
        ? `was not revealed within ${formatInt(timeoutBlocks)} blocks, or its reveal came more than ${BLOCKHASH_WINDOW} blocks after it and was discarded`
        : `was not revealed within ${formatInt(timeoutBlocks)} blocks`;
    report.info(
      "entropy.reRequest",
      `the random value was re-requested, once, in transaction ${short(requestTx)} (${requestedAt}): request ${previousRequestId} of provider ${previousProvider} ${why}; request ${requestId ?? "(none)"} replaced it`,
    );
  }
  const user = reRequestContribution(proof);
  if (user === userContribution) {
    report.pass("entropy.userContribution", `entropy.userContribution is the re-request's: keccak256(abi.encode(previous provider, previous request id)) = ${short(user)}`);
  } else {
    report.fail("entropy.userContribution", `keccak256(abi.encode(${previousProvider}, ${previousRequestId})) is ${user}, entropy.userContribution is ${userContribution}`);
  }
}

/**
 * Versions 3 to 6: the drawing's slot, the request's user contribution (versions 4 to 6: through the batch; versions
 * 5 and 6 when re-requested: the batch's for the request the commit made, the re-request's for the one that was
 * revealed) and (real providers) the random value's origin.
 */
function checkOrigin(report, proof) {
  const slot = drawingSlot(proof.drawing.id);
  if (slot === proof.drawing.slot) report.pass("drawing.slot", `drawing.slot is keccak256 of the drawing id ${JSON.stringify(proof.drawing.id)} (${short(slot)})`);
  else report.fail("drawing.slot", `keccak256 of the drawing id ${JSON.stringify(proof.drawing.id)} is ${slot}, drawing.slot is ${proof.drawing.slot}`);

  const user = derivedUserContribution(proof);
  const listName = proof.entrants ? "entrants.commitment" : "winnerList.commitment";
  if (proof.version >= 4) checkBatch(report, proof, user, listName);
  if (reRequested(proof)) checkReRequest(report, proof);
  if (proof.version === 3) {
    if (user === proof.entropy.userContribution) {
      report.pass("entropy.userContribution", `entropy.userContribution is derived from the commit: keccak256(campaign id, number, slot, ${listName}) = ${short(user)}`);
    } else {
      report.fail("entropy.userContribution", `keccak256(campaign id, number, slot, ${listName}) is ${user}, entropy.userContribution is ${proof.entropy.userContribution}`);
    }
  }

  const { provider, providerContribution, value } = proof.entropy;
  if (provider === "mock" || providerContribution === null) return;
  const combined = combineRandomValues(proof.entropy.userContribution, providerContribution);
  if (combined === value) {
    report.pass(entropyField(proof), `${entropyField(proof)} = keccak256(userContribution, providerContribution, 0): the random value combines the ${reRequested(proof) ? "re-request's" : "commit's"} contribution with the provider's`);
  } else {
    report.fail(entropyField(proof), `keccak256(userContribution, providerContribution, 0) is ${combined}, ${entropyField(proof)} is ${value}`);
  }
}

/**
 * Version 6: the request block is one that can hold a request (a number above 0, a hash that is not zero: the EVM
 * answers zero for a block it no longer knows, and the contract then discards the reveal), and entropy.value is
 * keccak256(abi.encode(entropy.revealedValue, requestBlock.hash)). Offline the block is the proof's word; --rpc
 * reads it.
 */
function checkDrawValue(report, proof) {
  const { value, requestBlock, drawValue: claimed } = proof.entropy;
  const which = reRequested(proof) ? "the re-request's" : "the commit's";
  const blockProblems = [];
  if (requestBlock.number === 0n) blockProblems.push("entropy.requestBlock.number is 0: the genesis block holds no request");
  if (requestBlock.hash === ZERO_WORD) blockProblems.push("entropy.requestBlock.hash is zero: the contract never mixes a zero hash in (it discards a reveal that came too late to read the block's hash)");
  report.check("entropy.requestBlock", blockProblems, `the request's block (${which}) is block ${requestBlock.number}, hash ${short(requestBlock.hash)}`);
  const computed = drawValue(value, requestBlock.hash);
  if (computed === claimed) {
    report.pass("entropy.value", `entropy.value = keccak256(abi.encode(entropy.revealedValue, entropy.requestBlock.hash)) = ${short(computed)}: Entropy's value mixed with the request block's hash, which every result follows from`);
  } else {
    report.fail("entropy.value", `keccak256(abi.encode(entropy.revealedValue, entropy.requestBlock.hash)) is ${computed}, entropy.value is ${claimed}`);
  }
}

/** Runs every offline check on a parsed proof; returns the Report. */
export function verifyProof(proof) {
  const report = new Report();
  checkTable(report, proof);
  const winnerHashes = checkFingerprint(report, proof);
  if (proof.entrants) checkEntrants(report, proof, winnerHashes);
  if (proof.version >= 3) checkOrigin(report, proof);
  if (proof.version >= 6) checkDrawValue(report, proof);
  const computed = checkResults(report, proof);
  checkTopPrizeOnce(report, proof, computed);
  return report;
}

function originInfo(report, proof) {
  if (proof.entropy.provider === "mock") {
    report.info("entropy.origin", "test randomness (mock provider): cannot be checked independently; never used by real campaigns");
  } else if (proof.version >= 3 && proof.entropy.providerContribution !== null) {
    report.info("entropy.origin", `random value from provider ${proof.entropy.provider}; run with --rpc to check that the provider revealed this contribution onchain`);
  } else {
    report.info("entropy.origin", `random value from provider ${proof.entropy.provider}; run with --rpc to check it against the chain`);
  }
}

// ---------------------------------------------------------------------------------------------- --rpc

/** The PrizeDraw contract's events (contracts/PrizeDraw.sol). */
const EVENT_SIGNATURES = {
  committed: "DrawingCommitted(bytes32,uint64,bytes32,uint40,uint8,bytes32,uint32,uint32,uint64,bytes32,uint32,uint64,address)",
  requested: "EntropyRequested(bytes32,uint64,address,uint64,uint256,bytes32,uint256,uint256)",
  revealed: "EntropyRevealed(bytes32,uint64,address,uint64,bytes32,bytes32,bytes32)",
  revealTooLate: "EntropyRevealTooLate(address,uint64,uint64,bytes32)",
  winnersRecorded: "WinnersRecorded(bytes32,uint64,bytes32,uint256)",
  prizeAwarded: "PrizeAwarded(bytes32,uint64,uint256,bytes32,uint256,uint256,uint256,bool)",
  reRequested: "EntropyReRequested(bytes32,uint64,address,uint64,address,uint64,uint256,bytes32,address)",
};
/**
 * EntropyRevealed of PrizeDraw contracts deployed before the request block's hash was mixed in (versions 2 to 5
 * proofs): its randomValue is Entropy's value, which the prizes follow as is.
 */
const ENTROPY_VALUE_EVENT_SIGNATURES = {
  revealed: "EntropyRevealed(bytes32,uint64,address,uint64,bytes32)",
};
/** EntropyRequested of PrizeDraw contracts deployed before batches (one drawing per request; version 2 and 3 proofs only). */
const SINGLE_REQUEST_EVENT_SIGNATURES = {
  requested: "EntropyRequested(bytes32,uint64,address,uint64,uint256,bytes32)",
};
/** The same two events of PrizeDraw contracts deployed before drawing slots (version 2 proofs only). */
const LEGACY_EVENT_SIGNATURES = {
  committed: "DrawingCommitted(bytes32,uint64,uint8,bytes32,uint32,uint32,uint64,bytes32,uint32,uint64)",
  requested: "EntropyRequested(bytes32,uint64,address,uint64,uint256)",
};
/** Pyth Entropy v2's request and reveal events (EntropyEventsV2): provider, caller and sequence are indexed. */
const ENTROPY_EVENT_SIGNATURES = {
  requested: "Requested(address,address,uint64,bytes32,uint32,bytes)",
  revealed: "Revealed(address,address,uint64,bytes32,bytes32,bytes32,bool,bytes,uint32,bytes)",
};
const GET_PRIZE_TABLE = "getPrizeTable(bytes32,uint32)";
const ENTROPY_GETTER = "entropy()";
const REVEAL_TIMEOUT_GETTER = "revealTimeoutBlocks()";

export function eventTopic(signature) {
  return toHex(keccak256(signature));
}

/** { name: topic0 } for a table of event signatures. */
function topicsOf(signatures) {
  return Object.fromEntries(Object.entries(signatures).map(([k, sig]) => [k, eventTopic(sig)]));
}

class Rpc {
  constructor(url) {
    this.url = url;
    this.id = 0;
  }
  /** Returns { result } or { error }; throws InputError when the endpoint cannot be reached or answers nonsense. */
  async call(method, params) {
    let response;
    try {
      response = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++this.id, method, params }),
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
    } catch (error) {
      throw new InputError(`cannot reach the RPC ${this.url}: ${networkReason(error)}`);
    }
    if (response.status !== 200) throw new InputError(`the RPC ${this.url} answered HTTP ${response.status} to ${method}`);
    let body;
    try {
      body = JSON.parse(await response.text());
    } catch {
      throw new InputError(`the RPC ${this.url} answered ${method} with something that is not JSON`);
    }
    if (body && body.error) return { error: body.error };
    if (!body || !("result" in body)) throw new InputError(`the RPC ${this.url} answered ${method} without a result`);
    return { result: body.result };
  }
  async get(method, params) {
    const { result, error } = await this.call(method, params);
    if (error) throw new InputError(`the RPC ${this.url} refused ${method}: ${error.message ?? JSON.stringify(error)}`);
    return result;
  }
}

/**
 * Whether the reveal can still be dropped: a block above the chain's finalized block can be replaced by a
 * reorganisation, and the request then answered again with another value. Informational: it never fails a check.
 */
async function reportFinality(report, rpc, revealBlock) {
  let finalized = null;
  try {
    finalized = await rpc.get("eth_getBlockByNumber", ["finalized", false]);
  } catch {
    // A node without the tag: said below.
  }
  if (!finalized || typeof finalized.number !== "string") {
    report.info("rpc.finality", "the node does not say which block is finalized, so whether the reveal is final is unknown");
    return;
  }
  const last = BigInt(finalized.number);
  report.info(
    "rpc.finality",
    revealBlock <= last
      ? `the reveal (block ${revealBlock}) is final: the chain's finalized block is ${last}`
      : `the reveal (block ${revealBlock}) is not final yet (the chain's finalized block is ${last}): a chain reorganisation could still drop it`,
  );
}

function dataWords(data) {
  const hex = typeof data === "string" ? data.replace(/^0x/, "") : "";
  const words = [];
  for (let i = 0; i + 64 <= hex.length; i += 64) words.push(BigInt("0x" + hex.slice(i, i + 64)));
  return words;
}

function wordHex(value) {
  return "0x" + value.toString(16).padStart(64, "0");
}

function wordAddress(value) {
  return "0x" + value.toString(16).padStart(40, "0");
}

function logMatches(log, contract, topic0, campaignTopic, numberTopic) {
  const topics = (log && log.topics) || [];
  return (
    typeof log.address === "string" &&
    log.address.toLowerCase() === contract &&
    topics.length >= 3 &&
    String(topics[0]).toLowerCase() === topic0 &&
    String(topics[1]).toLowerCase() === campaignTopic &&
    String(topics[2]).toLowerCase() === numberTopic
  );
}

function blockOf(receipt) {
  return { block: BigInt(receipt.blockNumber), index: BigInt(receipt.transactionIndex ?? 0) };
}

/** Whether transaction position `a` ({ block, index }) is after `b`. */
function isAfter(a, b) {
  return a.block > b.block || (a.block === b.block && a.index > b.index);
}

function quantity(n) {
  return "0x" + n.toString(16);
}

/** An address as an indexed topic (left-padded to 32 bytes). */
function addressTopic(addr) {
  return "0x" + "0".repeat(24) + addr.slice(2).toLowerCase();
}

/** Unix seconds as an ISO time, or the number when out of range. */
function isoOfSeconds(seconds) {
  const ms = Number(seconds) * 1000;
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(seconds);
}

/**
 * eth_getLogs over blocks [from, to] in windows of at most LOG_CHUNK_BLOCKS (10,000); a window the RPC refuses is
 * split into tenths, down to 100 blocks, before giving up (exit 2).
 */
async function logsInRange(rpc, filter, from, to) {
  const logs = [];
  const scan = async (start, end, size) => {
    for (let a = start; a <= end; a += size) {
      const b = a + size - 1n < end ? a + size - 1n : end;
      const { result, error } = await rpc.call("eth_getLogs", [{ ...filter, fromBlock: quantity(a), toBlock: quantity(b) }]);
      if (!error) {
        logs.push(...(result || []));
      } else if (size > 100n) {
        await scan(a, b, size / 10n);
      } else {
        throw new InputError(`the RPC ${rpc.url} refused eth_getLogs for blocks ${a} to ${b}: ${error.message ?? JSON.stringify(error)}`);
      }
    }
  };
  if (to >= from) await scan(from, to, LOG_CHUNK_BLOCKS);
  return logs;
}

/**
 * Feeds `onLog` the logs matching `filter` from block `from` on, a window of at most 10,000 blocks at a time, until
 * `enough()` holds, the latest block, or MAX_SCAN_BLOCKS blocks: the events a drawing's transactions do not hold
 * (later `settle` and `recordWinners` transactions) come soon after its reveal.
 */
async function scanForward(rpc, filter, from, onLog, enough) {
  if (enough()) return;
  const latest = BigInt(await rpc.get("eth_blockNumber", []));
  const last = from + MAX_SCAN_BLOCKS - 1n < latest ? from + MAX_SCAN_BLOCKS - 1n : latest;
  for (let start = from; start <= last && !enough(); start += LOG_CHUNK_BLOCKS) {
    const end = start + LOG_CHUNK_BLOCKS - 1n < last ? start + LOG_CHUNK_BLOCKS - 1n : last;
    for (const log of await logsInRange(rpc, filter, start, end)) onLog(log);
  }
}

/**
 * The --rpc checks of one proof. Version 2 proofs may come from a contract before drawing slots (events without
 * slots), version 2 and 3 proofs from a contract before batches (EntropyRequested without the batch fields);
 * versions 3 to 6 also check the slot, the draw time, the user contribution and the Entropy contract's own
 * request and reveal; versions 4 to 6 also the request's batch against the commit transaction's events. Versions 5
 * and 6 when re-requested: the commit's checks apply to the request the commit made (entropy.reRequest's previous
 * request), then the re-request transaction must replace it with entropy.requestId, after the contract's timeout
 * (version 6: or after the previous request's reveal came too late), and the reveal checks apply to the new
 * request. Version 6: the reveal carries the request block's hash and the drawing value, the block is the request
 * transaction's, and the reveal came within 256 blocks of it; versions 2 to 5 come from contracts whose
 * EntropyRevealed carries Entropy's value only.
 */
async function checkChain(report, proof, rpc) {
  const chain = parseChain(proof.chain, proof.version);
  const v3 = proof.version >= 3;
  const v4 = proof.version >= 4;
  const v5 = reRequested(proof);
  const v6 = proof.version >= 6;
  const campaignTopic = toHex(proof.campaign.idBytes);
  const numberTopic = wordHex(proof.drawing.number);
  const topic = topicsOf(EVENT_SIGNATURES);
  const single = topicsOf(SINGLE_REQUEST_EVENT_SIGNATURES);
  const legacy = topicsOf(LEGACY_EVENT_SIGNATURES);
  const isEntries = proof.entrants !== null;
  const where = `contract ${chain.contract}`;

  const chainId = BigInt(await rpc.get("eth_chainId", []));
  if (chainId === BigInt(chain.chainId)) report.pass("rpc.chain", `the RPC serves chain ${chain.chainId}, the proof's chain`);
  else {
    report.fail("rpc.chain", `the RPC serves chain ${chainId}, the proof says chain ${chain.chainId}; use an RPC of chain ${chain.chainId}`);
    return;
  }

  // The commitment and the request: one transaction.
  const commitReceipt = await rpc.get("eth_getTransactionReceipt", [chain.commitTx]);
  if (!commitReceipt) {
    report.fail("rpc.commit", `commit transaction ${chain.commitTx} not found on chain ${chain.chainId}`);
    return;
  }
  if (commitReceipt.status !== undefined && BigInt(commitReceipt.status) !== 1n) {
    report.fail("rpc.commit", `commit transaction ${chain.commitTx} reverted`);
    return;
  }
  const commitLogs = commitReceipt.logs || [];
  let committed = commitLogs.find((l) => logMatches(l, chain.contract, topic.committed, campaignTopic, numberTopic));
  // A contract of the previous version emitted no slot; only version 2 proofs come from one.
  if (!committed && !v3) committed = commitLogs.find((l) => logMatches(l, chain.contract, legacy.committed, campaignTopic, numberTopic));
  if (!committed) {
    report.fail("rpc.commit", `no DrawingCommitted event of ${proof.campaign.id} #${proof.drawing.number} from ${where} in transaction ${chain.commitTx}`);
    return;
  }
  const commitBlock = BigInt(commitReceipt.blockNumber);
  const isLegacy = String(committed.topics[0]).toLowerCase() === legacy.committed;
  const commitWords = dataWords(committed.data);
  const drawAtWord = isLegacy ? undefined : commitWords.shift();
  const [kind, listCommitment, winnersExpected, entrantCount, totalWeight, tableId, tableVersion, largePrizeThreshold] = commitWords;
  const expectedList = isEntries ? proof.entrants.commitment : proof.winnersCommitment;
  const listName = isEntries ? "entrants.commitment" : "winnerList.commitment";
  if (listCommitment !== undefined && wordHex(listCommitment) === expectedList) {
    report.pass("rpc.commit", `${listName} was committed onchain in transaction ${short(chain.commitTx)} (block ${commitBlock})`);
  } else {
    report.fail("rpc.commit", `onchain list commitment is ${listCommitment === undefined ? "missing" : wordHex(listCommitment)}, ${listName} is ${expectedList}`);
  }

  const countProblems = [];
  const n = proof.winners.length;
  if (kind !== (isEntries ? 1n : 0n)) countProblems.push(`onchain kind is ${kind === 1n ? "entrants" : kind === 0n ? "winners" : String(kind)}, the proof is a ${isEntries ? "entrants" : "winners"} draw`);
  if (isEntries) {
    if (entrantCount !== BigInt(proof.entrants.count)) countProblems.push(`onchain entrant count ${entrantCount}, entrants.count ${proof.entrants.count}`);
    if (totalWeight !== BigInt(proof.entrants.totalWeight)) countProblems.push(`onchain total weight ${totalWeight}, entrants.totalWeight ${proof.entrants.totalWeight}`);
    const expected = winnersExpected < entrantCount ? winnersExpected : entrantCount;
    if (BigInt(n) !== expected) countProblems.push(`the proof lists ${n} winners; the draw takes min(${winnersExpected} expected, ${entrantCount} entrants) = ${expected}`);
  } else if (winnersExpected !== BigInt(n)) {
    countProblems.push(`onchain winner count ${winnersExpected}, the proof lists ${n}`);
  }
  report.check(
    "rpc.commit.counts",
    countProblems,
    isEntries
      ? `onchain: ${entrantCount} entrants, total weight ${totalWeight}, ${winnersExpected} winners expected; the proof agrees`
      : `onchain: ${winnersExpected} winners expected; the proof lists ${n}`,
  );

  const tableProblems = [];
  const tableIdBytes = proof.table.id === null ? null : idToBytes32(proof.table.id);
  if (!tableIdBytes) tableProblems.push(`the proof's prizeTable.id ${JSON.stringify(proof.table.id)} is not a 1-32 byte id`);
  else if (wordHex(tableId) !== toHex(tableIdBytes)) tableProblems.push(`onchain table id ${wordHex(tableId)}, the proof's is ${JSON.stringify(proof.table.id)} (${toHex(tableIdBytes)})`);
  if (tableVersion !== BigInt(proof.table.version)) tableProblems.push(`onchain table version ${tableVersion}, the proof's is ${proof.table.version}`);
  report.check("rpc.commit.table", tableProblems, `the drawing committed prize table ${proof.table.id} v${proof.table.version}`);

  if (v3) {
    const slotProblems = [];
    const slotTopic = String(committed.topics[3] ?? "").toLowerCase();
    if (slotTopic !== proof.drawing.slot) slotProblems.push(`onchain slot ${slotTopic || "missing"}, drawing.slot ${proof.drawing.slot}`);
    const drawAt = Date.parse(proof.drawing.drawAt) / 1000;
    if (!Number.isInteger(drawAt)) slotProblems.push(`drawing.drawAt ${JSON.stringify(proof.drawing.drawAt)} is not a time in whole seconds`);
    else if (drawAtWord !== BigInt(drawAt)) slotProblems.push(`onchain draw time ${drawAtWord === undefined ? "missing" : `${isoOfSeconds(drawAtWord)} (${drawAtWord})`}, drawing.drawAt ${proof.drawing.drawAt} (${drawAt})`);
    report.check("rpc.commit.slot", slotProblems, `the list was committed under the drawing's slot ${short(proof.drawing.slot)} and draw time ${proof.drawing.drawAt}`);
  }

  let requested = commitLogs.find((l) => logMatches(l, chain.contract, topic.requested, campaignTopic, numberTopic));
  if (!requested && !v4) requested = commitLogs.find((l) => logMatches(l, chain.contract, single.requested, campaignTopic, numberTopic));
  if (!requested && !v3) requested = commitLogs.find((l) => logMatches(l, chain.contract, legacy.requested, campaignTopic, numberTopic));
  // The request whose reveal the checks below look for (re-requested: the re-request's), and the commit's own.
  let provider = null;
  let sequence = null;
  let commitRequest = null;
  if (!requested) {
    report.fail("rpc.request", `no EntropyRequested event of this drawing in the commit transaction ${chain.commitTx}`);
  } else {
    const [providerWord, sequenceWord, , userWord] = dataWords(requested.data);
    provider = wordAddress(providerWord);
    sequence = sequenceWord;
    commitRequest = { provider, sequence };
    const problems = [];
    if (BigInt(requested.logIndex) <= BigInt(committed.logIndex)) problems.push("the random value was requested before the list was committed");
    // Re-requested: the commit's request is the previous one; its provider is an address even with the mock.
    const expected = v5
      ? { id: proof.entropy.reRequest.previousRequestId, idName: "entropy.reRequest.previousRequestId", provider: proof.entropy.reRequest.previousProvider, providerName: "entropy.reRequest.previousProvider" }
      : { id: proof.entropy.requestId, idName: "entropy.requestId", provider: proof.entropy.provider, providerName: "entropy.provider" };
    if (expected.id === null) problems.push(`the proof has no entropy.requestId; onchain it is ${sequence}`);
    else if (sequence !== BigInt(expected.id)) problems.push(`onchain request id ${sequence}, ${expected.idName} ${expected.id}`);
    if (expected.provider !== "mock" && provider !== expected.provider) problems.push(`onchain provider ${provider}, ${expected.providerName} ${expected.provider}`);
    report.check("rpc.request", problems, `random value requested after the list was committed, in the same transaction (request ${sequence} to provider ${provider})`);
    if (v3) {
      const derived = requestUserContribution(proof);
      const from = v4 ? "the batch" : "the commit";
      const field = commitContributionField(proof);
      const user = userWord === undefined ? "missing" : wordHex(userWord);
      const userProblems = [];
      if (user !== derived) userProblems.push(`onchain user contribution ${user}, derived from ${from} ${derived}`);
      if (user !== field.value) userProblems.push(`onchain user contribution ${user}, ${field.name} ${field.value}`);
      report.check("rpc.request.user", userProblems, `the request's user contribution is the one derived from ${from} and ${field.name} (${short(derived)})`);
    }
    if (v4) checkBatchOnchain(report, proof, chain, commitLogs, requested, topic);
  }

  // Versions 5 and 6: the request that was revealed is the re-request's.
  let reRequest = null;
  if (v5) {
    reRequest = await checkReRequestOnchain(report, proof, rpc, chain, { commitReceipt, previous: commitRequest });
    provider = reRequest ? reRequest.provider : null;
    sequence = reRequest ? reRequest.sequence : null;
  }

  // The reveal. Version 6: what its EntropyRevealed mixed in (null until read).
  let revealDrawValue = null;
  const revealReceipt = await rpc.get("eth_getTransactionReceipt", [chain.revealTx]);
  let revealBlock = commitBlock;
  if (!revealReceipt) {
    report.fail("rpc.reveal", `reveal transaction ${chain.revealTx} not found on chain ${chain.chainId}`);
  } else {
    revealBlock = BigInt(revealReceipt.blockNumber);
    // Version 6: the event that carries the request block's hash; earlier versions: the one before it.
    const before = topicsOf(ENTROPY_VALUE_EVENT_SIGNATURES);
    const [wanted, other] = v6 ? [topic.revealed, before.revealed] : [before.revealed, topic.revealed];
    const revealLogs = revealReceipt.logs || [];
    const revealed = revealLogs.find((l) => logMatches(l, chain.contract, wanted, campaignTopic, numberTopic));
    if (!revealed) {
      const otherKind = revealLogs.some((l) => logMatches(l, chain.contract, other, campaignTopic, numberTopic));
      const hint = !otherKind
        ? ""
        : v6
          ? ": it holds the EntropyRevealed of a contract that does not mix the request block's hash in, whose prizes follow Entropy's value (a version 5 proof or earlier)"
          : ": it holds the EntropyRevealed of a contract that mixes the request block's hash in, whose prizes follow the mixed value (a version 6 proof)";
      report.fail("rpc.reveal", `no EntropyRevealed event of this drawing in the reveal transaction ${chain.revealTx}${hint}`);
    } else {
      const words = dataWords(revealed.data);
      const [providerWord, sequenceWord, valueWord] = words;
      if (v6) revealDrawValue = { requestBlockHash: words[3], randomValue: words[4] };
      const problems = [];
      if (wordHex(valueWord) !== proof.entropy.value) problems.push(`onchain random value ${wordHex(valueWord)}, ${entropyField(proof)} ${proof.entropy.value}`);
      if (sequence !== null && sequenceWord !== sequence) problems.push(`revealed for request ${sequenceWord}, the drawing ${v5 ? "re-requested" : "requested"} ${sequence}`);
      if (provider !== null && wordAddress(providerWord) !== provider) problems.push(`revealed by provider ${wordAddress(providerWord)}, ${v5 ? "re-requested" : "requested"} from ${provider}`);
      const c = blockOf(commitReceipt);
      const r = blockOf(revealReceipt);
      if (r.block < c.block || (r.block === c.block && r.index <= c.index)) problems.push("the reveal transaction is not after the commit transaction");
      if (reRequest && !isAfter(r, blockOf(reRequest.receipt))) problems.push("the reveal transaction is not after the re-request transaction");
      report.check("rpc.reveal", problems, `${entropyField(proof)} was revealed onchain by provider ${wordAddress(providerWord)} in transaction ${short(chain.revealTx)} (block ${revealBlock})`);
    }
  }

  if (v6) {
    if (revealDrawValue) {
      const { requestBlockHash, randomValue } = revealDrawValue;
      const problems = [];
      if (requestBlockHash === undefined || randomValue === undefined) problems.push("the EntropyRevealed event is too short to carry the request block's hash and the drawing value");
      else {
        if (wordHex(requestBlockHash) !== proof.entropy.requestBlock.hash) problems.push(`onchain the reveal mixed in the request block hash ${wordHex(requestBlockHash)}, entropy.requestBlock.hash is ${proof.entropy.requestBlock.hash}`);
        if (wordHex(randomValue) !== proof.entropy.drawValue) problems.push(`onchain the value the prizes follow is ${wordHex(randomValue)}, entropy.value is ${proof.entropy.drawValue}`);
      }
      report.check(
        "rpc.reveal.value",
        problems,
        `the contract mixed entropy.revealedValue with the request block's hash ${short(proof.entropy.requestBlock.hash)} into entropy.value ${short(proof.entropy.drawValue)} (EntropyRevealed)`,
      );
    }
    await checkRequestBlock(report, proof, rpc, chain, {
      receipt: v5 ? (reRequest ? reRequest.receipt : null) : commitReceipt,
      tx: v5 ? proof.entropy.reRequest.requestTx : chain.commitTx,
      what: v5 ? "re-request" : "commit",
      revealBlock: revealReceipt ? revealBlock : null,
    });
  }

  if (revealReceipt) await reportFinality(report, rpc, revealBlock);

  if (v3) await checkEntropyContract(report, proof, rpc, chain, { commitRequest, reRequest, commitReceipt, revealReceipt, commitBlock, revealBlock });

  if (isEntries) {
    let recorded = null;
    await scanForward(
      rpc,
      { address: chain.contract, topics: [topic.winnersRecorded, campaignTopic, numberTopic] },
      commitBlock,
      (l) => {
        if (!recorded && logMatches(l, chain.contract, topic.winnersRecorded, campaignTopic, numberTopic)) recorded = l;
      },
      () => recorded !== null,
    );
    if (!recorded) report.fail("rpc.winners", "no WinnersRecorded event of this drawing onchain");
    else {
      const [commitmentWord, countWord] = dataWords(recorded.data);
      const problems = [];
      if (wordHex(commitmentWord) !== proof.winnersCommitment) problems.push(`onchain winners commitment ${wordHex(commitmentWord)}, winnerList.commitment ${proof.winnersCommitment}`);
      if (countWord !== BigInt(n)) problems.push(`onchain winner count ${countWord}, the proof lists ${n}`);
      report.check("rpc.winners", problems, `winnerList.commitment was recorded onchain (WinnersRecorded, block ${BigInt(recorded.blockNumber)})`);
    }
  }

  // The table as published onchain.
  if (tableIdBytes) {
    const selector = toHex(keccak256(GET_PRIZE_TABLE), 0, 4);
    const data = selector + toHex(tableIdBytes).slice(2) + word(proof.table.version);
    const { result, error } = await rpc.call("eth_call", [{ to: chain.contract, data }, "latest"]);
    if (error || typeof result !== "string" || result.length < 2 + 64 * 4) {
      report.fail("rpc.table", `getPrizeTable(${proof.table.id}, ${proof.table.version}) failed onchain${error ? `: ${error.message ?? ""}` : ""}`);
    } else {
      const words = dataWords(result);
      const readArray = (headIndex) => {
        const start = Number(words[headIndex] / 32n);
        const length = Number(words[start] ?? 0n);
        return words.slice(start + 1, start + 1 + length).map(Number);
      };
      const denominator = Number(words[0]);
      const amounts = readArray(1);
      const weights = readArray(2);
      const thresholds = readArray(3);
      const problems = [];
      if (denominator !== proof.table.denominator) problems.push(`onchain denominator ${denominator}, the proof's ${proof.table.denominator}`);
      if (amounts.length !== proof.table.tiers.length) problems.push(`onchain table has ${amounts.length} tiers, the proof's ${proof.table.tiers.length}`);
      proof.table.tiers.forEach((tier, i) => {
        if (i >= amounts.length) return;
        if (amounts[i] !== tier.amountCents) problems.push(`tier ${i}: onchain amountCents ${amounts[i]}, the proof's ${tier.amountCents}`);
        if (weights[i] !== tier.weight) problems.push(`tier ${i}: onchain weight ${weights[i]}, the proof's ${tier.weight}`);
        if (thresholds[i] !== tier.threshold) problems.push(`tier ${i}: onchain threshold ${thresholds[i]}, the proof's ${tier.threshold}`);
      });
      report.check("rpc.table", problems, `prize table ${proof.table.id} v${proof.table.version} equals the one published onchain`);
    }
  }

  // The prizes the contract awarded: in the reveal transaction (the callback), the rest in later `settle` ones.
  const awarded = new Map();
  const takePrize = (log) => {
    if (!logMatches(log, chain.contract, topic.prizeAwarded, campaignTopic, numberTopic)) return;
    const [position, value, roll, , amount] = dataWords(log.data);
    awarded.set(Number(position), { randomValue: wordHex(value), roll: Number(roll), amountCents: Number(amount) });
  };
  for (const log of (revealReceipt && revealReceipt.logs) || []) takePrize(log);
  const prizeCount = isEntries && entrantCount < winnersExpected ? entrantCount : winnersExpected;
  const expectedPrizes = Math.max(proof.results.length, prizeCount === undefined ? 0 : Number(prizeCount));
  await scanForward(rpc, { address: chain.contract, topics: [topic.prizeAwarded, campaignTopic, numberTopic] }, revealBlock, takePrize, () => awarded.size >= expectedPrizes);
  const prizeProblems = [];
  if (awarded.size !== proof.results.length) prizeProblems.push(`${awarded.size} PrizeAwarded events onchain, ${proof.results.length} results in the proof`);
  proof.results.forEach((r, i) => {
    const a = awarded.get(i);
    if (!a) return;
    if (a.randomValue !== r.randomValue) prizeProblems.push(`position ${i}: randomValue ${short(r.randomValue)} in proof, ${short(a.randomValue)} onchain`);
    if (a.roll !== r.roll) prizeProblems.push(`position ${i}: roll ${r.roll} in proof, ${a.roll} onchain`);
    if (a.amountCents !== r.amountCents) prizeProblems.push(`position ${i}: amountCents ${r.amountCents} in proof, ${a.amountCents} onchain`);
  });
  report.check(
    "rpc.prizes",
    prizeProblems,
    `the contract's ${awarded.size} PrizeAwarded events match the results (large-prize threshold ${formatCents(Number(largePrizeThreshold ?? 0n))})`,
    `the contract's PrizeAwarded events differ from the results (${prizeProblems.length} problem${prizeProblems.length === 1 ? "" : "s"})`,
  );

  if (proof.entropy.provider === "mock") {
    report.info("entropy.origin", "test randomness (mock provider): revealed onchain by the test service itself, so its origin cannot be checked independently; never used by real campaigns");
  }
}

/**
 * Version 6 with --rpc: entropy.requestBlock is the chain's block of that number (eth_getBlockByNumber), the request
 * transaction (the commit, or the re-request when there is one) was mined in it, and the reveal came 1 to 256
 * blocks after it: the contract reads the block's hash with `blockhash`, which answers only for the 256 blocks
 * before the current one, and discards a later reveal (EntropyRevealTooLate). A reveal outside that window means
 * the proof names another block than the one the contract used.
 */
async function checkRequestBlock(report, proof, rpc, chain, { receipt, tx, what, revealBlock }) {
  const { number, hash } = proof.entropy.requestBlock;
  const problems = [];
  const { result: block, error } = await rpc.call("eth_getBlockByNumber", [quantity(number), false]);
  if (error) problems.push(`eth_getBlockByNumber(${number}) failed: ${error.message ?? JSON.stringify(error)}`);
  else if (!block || typeof block.hash !== "string") problems.push(`block ${number} is not on chain ${chain.chainId}`);
  else if (block.hash.toLowerCase() !== hash) problems.push(`block ${number}'s hash is ${block.hash.toLowerCase()} onchain, entropy.requestBlock.hash is ${hash}`);
  if (!receipt) problems.push(`the ${what} transaction ${tx} cannot be read, so the block that holds the request is unknown`);
  else {
    const mined = BigInt(receipt.blockNumber);
    if (mined !== number) problems.push(`the ${what} transaction ${short(tx)} was mined in block ${mined}, entropy.requestBlock.number is ${number}`);
    else if (typeof receipt.blockHash === "string" && receipt.blockHash.toLowerCase() !== hash) problems.push(`the ${what} transaction ${short(tx)} was mined in block ${mined} with hash ${receipt.blockHash.toLowerCase()}, entropy.requestBlock.hash is ${hash}`);
  }
  report.check("rpc.requestBlock", problems, `entropy.requestBlock is block ${number} of chain ${chain.chainId} (hash ${short(hash)}), which holds the ${what} transaction ${short(tx)}`);

  if (revealBlock === null) return;
  const distance = revealBlock - number;
  const windowProblems = [];
  if (distance < 1n) windowProblems.push(`the reveal (block ${revealBlock}) is not after the request block ${number}`);
  else if (distance > BLOCKHASH_WINDOW) {
    windowProblems.push(
      `the reveal (block ${revealBlock}) is ${distance} blocks after the request block ${number}, more than ${BLOCKHASH_WINDOW}: the contract cannot read that block's hash then and discards such a reveal (EntropyRevealTooLate), so entropy.requestBlock is not the block it used`,
    );
  }
  report.check("rpc.requestBlock.window", windowProblems, `the reveal (block ${revealBlock}) came ${distance} block${distance === 1n ? "" : "s"} after the request block ${number}, within the ${BLOCKHASH_WINDOW} whose hash the contract can read`);
}

/**
 * Version 4 with --rpc: the request's batch as the commit transaction recorded it. Every drawing of a batch is
 * committed and requested in that one transaction, so its EntropyRequested events of (provider, sequence) are the
 * batch: there must be batch.size of them, this drawing's must say batch.index of batch.size, and member i's
 * contribution, recomputed from its own DrawingCommitted (campaign id, number, slot, list commitment), must be
 * entropy.batch.contributions[i].
 */
function checkBatchOnchain(report, proof, chain, commitLogs, requested, topic) {
  const { index, size, contributions } = proof.entropy.batch;
  const [providerWord, sequenceWord, , , indexWord, sizeWord] = dataWords(requested.data);
  const problems = [];
  if (indexWord !== BigInt(index)) problems.push(`onchain this drawing is member ${indexWord ?? "missing"} of its request's batch, entropy.batch.index is ${index}`);
  if (sizeWord !== BigInt(size)) problems.push(`onchain the request's batch has ${sizeWord ?? "missing"} drawings, entropy.batch.size is ${size}`);
  const members = commitLogs.filter((l) => {
    const topics = (l && l.topics) || [];
    if (typeof l.address !== "string" || l.address.toLowerCase() !== chain.contract || String(topics[0]).toLowerCase() !== topic.requested) return false;
    const [p, q] = dataWords(l.data);
    return p === providerWord && q === sequenceWord;
  });
  if (members.length !== size) problems.push(`the commit transaction requested randomness for ${members.length} drawing${members.length === 1 ? "" : "s"} under request ${sequenceWord}, entropy.batch.size is ${size}`);
  const byIndex = new Map();
  for (const m of members) byIndex.set(dataWords(m.data)[4], m);
  for (let i = 0; i < members.length; i++) {
    const m = byIndex.get(BigInt(i));
    if (!m) {
      problems.push(`no EntropyRequested event of member ${i} of request ${sequenceWord} in the commit transaction`);
      continue;
    }
    const [, campaignId, numberWord] = m.topics.map((t) => String(t).toLowerCase());
    const label = `member ${i} (campaign ${short(campaignId)} #${BigInt(numberWord)})`;
    const committed = commitLogs.find((l) => logMatches(l, chain.contract, topic.committed, campaignId, numberWord));
    if (!committed) {
      problems.push(`${label}: no DrawingCommitted event in the commit transaction`);
      continue;
    }
    const listCommitment = dataWords(committed.data)[2];
    const onchain = userRandomNumber({ campaignId, number: BigInt(numberWord), slot: String(committed.topics[3]).toLowerCase(), listCommitment: wordHex(listCommitment ?? 0n) });
    if (i >= contributions.length) problems.push(`${label}: its commit gives contribution ${onchain}, the proof's batch has no contribution ${i}`);
    else if (onchain !== contributions[i]) problems.push(`${label}: its commit gives contribution ${onchain}, entropy.batch.contributions[${i}] is ${contributions[i]}`);
  }
  report.check(
    "rpc.request.batch",
    problems,
    `request ${sequenceWord} served ${members.length} drawing${members.length === 1 ? "" : "s"} committed in the same transaction; this drawing is member ${index}, and every member's contribution is the proof's`,
  );
}

/**
 * Versions 5 and 6 with --rpc: the re-request transaction holds this drawing's EntropyReRequested, from the contract, naming
 * the request the commit made (the proof's previous provider and request id) and the new one (entropy.provider and
 * entropy.requestId) with the user contribution derived from the previous request; and it came after the commit's
 * block plus the contract's revealTimeoutBlocks() (which must be entropy.reRequest.timeoutBlocks): the contract
 * re-requests only a request Entropy did not reveal within that many blocks of the request, which Entropy recorded
 * in the commit's block (version 6: or, at once, one whose reveal it discarded as too late). Returns the new request ({ provider, sequence, receipt, block }), or null when the
 * re-request cannot be read.
 */
async function checkReRequestOnchain(report, proof, rpc, chain, { commitReceipt, previous }) {
  const r = proof.entropy.reRequest;
  const topic = topicsOf(EVENT_SIGNATURES);
  const receipt = await rpc.get("eth_getTransactionReceipt", [r.requestTx]);
  if (!receipt) {
    report.fail("rpc.reRequest", `re-request transaction ${r.requestTx} not found on chain ${chain.chainId}`);
    return null;
  }
  if (receipt.status !== undefined && BigInt(receipt.status) !== 1n) {
    report.fail("rpc.reRequest", `re-request transaction ${r.requestTx} reverted`);
    return null;
  }
  const log = (receipt.logs || []).find((l) => logMatches(l, chain.contract, topic.reRequested, toHex(proof.campaign.idBytes), wordHex(proof.drawing.number)));
  if (!log) {
    report.fail("rpc.reRequest", `no EntropyReRequested event of ${proof.campaign.id} #${proof.drawing.number} from contract ${chain.contract} in the re-request transaction ${r.requestTx}`);
    return null;
  }
  const [previousProviderWord, previousSequence, providerWord, sequence, , userWord, byWord] = dataWords(log.data);
  if (byWord === undefined) {
    report.fail("rpc.reRequest", `the EntropyReRequested event in transaction ${r.requestTx} is too short to be PrizeDraw's`);
    return null;
  }
  const previousProvider = wordAddress(previousProviderWord);
  const provider = wordAddress(providerWord);
  const user = wordHex(userWord);
  const derived = reRequestContribution(proof);
  const block = BigInt(receipt.blockNumber);
  const problems = [];
  if (previousProvider !== r.previousProvider) problems.push(`onchain the re-request replaced a request of provider ${previousProvider}, entropy.reRequest.previousProvider is ${r.previousProvider}`);
  if (previousSequence !== BigInt(r.previousRequestId)) problems.push(`onchain the re-request replaced request ${previousSequence}, entropy.reRequest.previousRequestId is ${r.previousRequestId}`);
  if (previous && (previous.provider !== previousProvider || previous.sequence !== previousSequence)) {
    problems.push(`the re-request replaced request ${previousSequence} of provider ${previousProvider}, the commit requested ${previous.sequence} of provider ${previous.provider}`);
  }
  if (proof.entropy.requestId === null) problems.push(`the proof has no entropy.requestId; onchain the new request is ${sequence}`);
  else if (sequence !== BigInt(proof.entropy.requestId)) problems.push(`onchain the new request is ${sequence}, entropy.requestId is ${proof.entropy.requestId}`);
  if (proof.entropy.provider !== "mock" && provider !== proof.entropy.provider) problems.push(`onchain the new request's provider is ${provider}, entropy.provider is ${proof.entropy.provider}`);
  if (user !== derived) problems.push(`onchain re-request user contribution ${user}, keccak256(abi.encode(previous provider, previous request id)) is ${derived}`);
  if (user !== proof.entropy.userContribution) problems.push(`onchain re-request user contribution ${user}, entropy.userContribution ${proof.entropy.userContribution}`);
  if (!isAfter(blockOf(receipt), blockOf(commitReceipt))) problems.push("the re-request transaction is not after the commit transaction");
  report.check(
    "rpc.reRequest",
    problems,
    `the value was re-requested in transaction ${short(r.requestTx)} (block ${block}) by ${wordAddress(byWord)}: request ${previousSequence} of provider ${previousProvider} replaced by request ${sequence} of provider ${provider}, with the user contribution derived from the previous request`,
  );

  // The contract's rule: a request not revealed within revealTimeoutBlocks (an immutable of the deployment), or
  // (version 6) one whose reveal came too late to use, at once.
  const commitBlock = BigInt(commitReceipt.blockNumber);
  const tooLate = proof.version >= 6 ? await checkRevealTooLate(report, rpc, chain, { provider: previousProvider, sequence: previousSequence, commitBlock, reRequestReceipt: receipt }) : null;
  const selector = toHex(keccak256(REVEAL_TIMEOUT_GETTER), 0, 4);
  const { result, error } = await rpc.call("eth_call", [{ to: chain.contract, data: selector }, "latest"]);
  if (error || typeof result !== "string" || result.length < 66) {
    report.fail("rpc.reRequest.timeout", `revealTimeoutBlocks() failed on contract ${chain.contract}${error ? `: ${error.message ?? ""}` : ""}`);
  } else {
    const timeout = dataWords(result)[0];
    const due = commitBlock + timeout;
    const timeoutProblems = [];
    if (timeout !== BigInt(r.timeoutBlocks)) timeoutProblems.push(`the contract's revealTimeoutBlocks() is ${timeout}, entropy.reRequest.timeoutBlocks is ${r.timeoutBlocks}`);
    if (block <= due && tooLate === null) {
      timeoutProblems.push(
        `the re-request is in block ${block}, not after the commit's block ${commitBlock} + ${timeout} = ${due}: the contract re-requests only a request not revealed within its revealTimeoutBlocks` +
          (proof.version >= 6 ? ", or one whose reveal it discarded as too late (no EntropyRevealTooLate of it before the re-request)" : ""),
      );
    }
    report.check(
      "rpc.reRequest.timeout",
      timeoutProblems,
      block > due
        ? `the contract's revealTimeoutBlocks() is ${formatInt(timeout)}, entropy.reRequest.timeoutBlocks, and the re-request (block ${block}) came after the commit's block ${commitBlock} + ${timeout} = ${due}`
        : `the contract's revealTimeoutBlocks() is ${formatInt(timeout)}, entropy.reRequest.timeoutBlocks; the re-request (block ${block}) came before the commit's block ${commitBlock} + ${timeout} = ${due}, which the contract allows once it discarded the previous request's reveal as too late (block ${tooLate})`,
    );
  }
  return { provider, sequence, receipt, block };
}

/**
 * Version 6 with --rpc, a re-requested value: whether the contract discarded a reveal of the previous request as too
 * late (EntropyRevealTooLate, from the commit's block to the re-request transaction). Said as information when it
 * did, like the re-request itself; such an event must name the commit's block as the request's and come more than
 * 256 blocks after it. Returns the event's block, or null when there is none (or it does not hold).
 */
async function checkRevealTooLate(report, rpc, chain, { provider, sequence, commitBlock, reRequestReceipt }) {
  const topic0 = eventTopic(EVENT_SIGNATURES.revealTooLate);
  const topics = [topic0, addressTopic(provider), wordHex(sequence)];
  const reRequestAt = blockOf(reRequestReceipt);
  const logs = (await logsInRange(rpc, { address: chain.contract, topics }, commitBlock, reRequestAt.block)).filter(
    (l) =>
      typeof l.address === "string" &&
      l.address.toLowerCase() === chain.contract &&
      topics.every((t, i) => String((l.topics || [])[i]).toLowerCase() === t) &&
      isAfter(reRequestAt, blockOf(l)),
  );
  if (logs.length === 0) return null;
  const log = logs[0];
  const at = BigInt(log.blockNumber);
  const [requestBlockWord, valueWord] = dataWords(log.data);
  const label = `request ${sequence} of provider ${provider}`;
  const problems = [];
  if (requestBlockWord !== commitBlock) problems.push(`the contract's EntropyRevealTooLate of ${label} names request block ${requestBlockWord ?? "(missing)"}, the commit's block is ${commitBlock}`);
  else if (at - commitBlock <= BLOCKHASH_WINDOW) problems.push(`the contract discarded a reveal of ${label} as too late in block ${at}, only ${at - commitBlock} blocks after its request (block ${commitBlock})`);
  if (problems.length) {
    report.fail("rpc.reRequest.tooLate", problems[0], problems.slice(1));
    return null;
  }
  report.info(
    "rpc.reRequest.tooLate",
    `the reveal of ${label} came in block ${at}, ${at - commitBlock} blocks after its request (block ${commitBlock}), too late to read that block's hash: the contract discarded its value ${short(wordHex(valueWord ?? 0n))} unused (EntropyRevealTooLate), and the re-request followed`,
  );
  return at;
}

/**
 * Versions 3 to 6 with --rpc: the Entropy contract the PrizeDraw contract names (entropy(), not the proof) recorded the
 * request with the user contribution derived from the commit, and revealed the proof's value; for a real provider
 * the value is keccak256(userContribution, providerContribution, 0) of its Revealed event. A Revealed event with
 * callbackFailed (a callback retried later) may precede the successful one: every one must carry the same value.
 * Versions 5 and 6: Entropy recorded both requests (the commit's with the batch's contribution, the re-request's with the
 * one derived from the previous request), and the reveal is the new request's, after the re-request.
 */
async function checkEntropyContract(report, proof, rpc, chain, ctx) {
  const t = topicsOf(ENTROPY_EVENT_SIGNATURES);
  const selector = toHex(keccak256(ENTROPY_GETTER), 0, 4);
  const { result, error } = await rpc.call("eth_call", [{ to: chain.contract, data: selector }, "latest"]);
  if (error || typeof result !== "string" || result.length < 66) {
    report.fail("rpc.entropy.contract", `entropy() failed on contract ${chain.contract}${error ? `: ${error.message ?? ""}` : ""}`);
    return;
  }
  const entropy = wordAddress(dataWords(result)[0]);
  if (entropy === chain.entropy) report.pass("rpc.entropy.contract", `the contract requests its random values from the Entropy contract ${entropy}, chain.entropy`);
  else report.fail("rpc.entropy.contract", `the contract's entropy() is ${entropy}, chain.entropy is ${chain.entropy}; the checks below use ${entropy}`);
  if (ctx.commitRequest === null) {
    report.fail("rpc.entropy.request", "no EntropyRequested event of this drawing: the Entropy request cannot be looked up");
    return;
  }
  const v5 = reRequested(proof);
  /** Entropy's events of one request: indexed by provider, caller (the PrizeDraw contract) and sequence. */
  const eventsOf = ({ provider, sequence }) => {
    const topics = [addressTopic(provider), addressTopic(chain.contract), wordHex(sequence)];
    const matches = (log, topic0) => {
      const logTopics = (log && log.topics) || [];
      return (
        typeof log.address === "string" &&
        log.address.toLowerCase() === entropy &&
        logTopics.length >= 4 &&
        String(logTopics[0]).toLowerCase() === topic0 &&
        topics.every((x, i) => String(logTopics[i + 1]).toLowerCase() === x)
      );
    };
    return { topics, matches, label: `request ${sequence} of provider ${provider}` };
  };
  /** The request's Requested event in transaction `tx` carries `derived`. */
  const checkRequested = (id, request, receipt, tx, where, derived, source, from) => {
    const { matches, label } = eventsOf(request);
    const requested = (receipt.logs || []).find((l) => matches(l, t.requested));
    if (!requested) {
      report.fail(id, `no Requested event of Entropy ${entropy} for ${label} in the ${where} transaction ${tx}`);
      return;
    }
    const user = wordHex(dataWords(requested.data)[0] ?? 0n);
    report.check(
      id,
      user === derived ? [] : [`Entropy recorded the user contribution ${user} for ${label}; ${source} ${derived}`],
      `Entropy ${short(entropy)} recorded ${label} with the user contribution derived from ${from}`,
    );
  };

  // The request the commit made, in the commit transaction.
  const commitFrom = `the ${proof.version >= 4 ? "batch" : "commit"}`;
  checkRequested("rpc.entropy.request", ctx.commitRequest, ctx.commitReceipt, chain.commitTx, "commit", requestUserContribution(proof), requestSource(proof), commitFrom);

  // Versions 5 and 6: the re-request, in its own transaction; the reveal is the new request's.
  let served = { request: ctx.commitRequest, derived: requestUserContribution(proof), source: requestSource(proof), from: ctx.commitBlock, what: proof.version >= 4 ? "batch's" : "commit's" };
  if (v5) {
    if (ctx.reRequest === null) {
      report.fail("rpc.entropy.reRequest", "no EntropyReRequested event of this drawing: the new Entropy request cannot be looked up");
      return;
    }
    const derived = reRequestContribution(proof);
    const source = "the previous request derives";
    checkRequested("rpc.entropy.reRequest", ctx.reRequest, ctx.reRequest.receipt, proof.entropy.reRequest.requestTx, "re-request", derived, source, "the previous request");
    served = { request: ctx.reRequest, derived, source, from: ctx.reRequest.block, what: "re-request's" };
  }
  const { topics: filterTopics, matches, label } = eventsOf(served.request);
  const { derived, source } = served;

  // Every reveal of the request from its request to the reveal transaction (a failed callback is retried later).
  const seen = new Set();
  const reveals = [];
  const add = (log) => {
    if (!matches(log, t.revealed)) return;
    const key = `${String(log.transactionHash).toLowerCase()}:${String(log.logIndex)}`;
    if (seen.has(key)) return;
    seen.add(key);
    const w = dataWords(log.data);
    reveals.push({
      randomNumber: wordHex(w[0] ?? 0n),
      user: wordHex(w[1] ?? 0n),
      provider: wordHex(w[2] ?? 0n),
      failed: (w[3] ?? 0n) !== 0n,
      tx: String(log.transactionHash).toLowerCase(),
    });
  };
  for (const log of (ctx.revealReceipt && ctx.revealReceipt.logs) || []) add(log);
  for (const log of await logsInRange(rpc, { address: entropy, topics: [t.revealed, ...filterTopics] }, served.from, ctx.revealBlock)) add(log);
  const succeeded = reveals.filter((r) => !r.failed);
  const failed = reveals.length - succeeded.length;
  const problems = [];
  if (succeeded.length === 0) problems.push(`no Revealed event of Entropy ${entropy} with callbackFailed false for ${label}${failed ? ` (${failed} with callbackFailed true)` : ""}`);
  if (succeeded.length > 1) problems.push(`${succeeded.length} Revealed events with callbackFailed false for ${label}; a request is revealed once`);
  const values = [...new Set(reveals.map((r) => r.randomNumber))];
  if (values.length > 1) problems.push(`the Revealed events of ${label} carry ${values.length} different random numbers: ${values.join(", ")}`);
  const reveal = succeeded[0];
  if (reveal) {
    if (reveal.randomNumber !== proof.entropy.value) problems.push(`Entropy revealed ${reveal.randomNumber}, ${entropyField(proof)} is ${proof.entropy.value}`);
    if (reveal.tx !== chain.revealTx) problems.push(`the successful Revealed event is in transaction ${reveal.tx}, not in the reveal transaction ${chain.revealTx}`);
  }
  report.check(
    "rpc.entropy.reveal",
    problems,
    `Entropy ${short(entropy)} revealed ${entropyField(proof)} for ${label}${failed ? ` (after ${failed} failed callback${failed === 1 ? "" : "s"} with the same value)` : ""}`,
  );
  if (!reveal || proof.entropy.provider === "mock") return; // the mock reveals no contributions: entropy.origin says so

  const originProblems = [];
  if (reveal.user !== derived) originProblems.push(`the Revealed user contribution is ${reveal.user}, ${source} ${derived}`);
  const combined = combineRandomValues(reveal.user, reveal.provider);
  if (combined !== reveal.randomNumber) originProblems.push(`keccak256(userContribution, providerContribution, 0) of the Revealed event is ${combined}, its random number ${reveal.randomNumber}`);
  if (proof.entropy.providerContribution !== null && proof.entropy.providerContribution !== reveal.provider) {
    originProblems.push(`the Revealed provider contribution is ${reveal.provider}, entropy.providerContribution ${proof.entropy.providerContribution}`);
  }
  report.check(
    "rpc.entropy.origin",
    originProblems,
    `the random value is keccak256 of the ${served.what} contribution and provider ${served.request.provider}'s revelation ${short(reveal.provider)}, as Entropy revealed them`,
  );
}

// ---------------------------------------------------------------------------------------------- --entrant

/**
 * The chance that entrant `index` is among `n` winners drawn one at a time without replacement, each draw in
 * proportion to weight (sequential-weighted-v1). Exact when one winner is drawn (w / W) or when every entrant
 * wins; otherwise an approximation: an entrant of weight w counts as drawn with probability 1 - exp(-w t), with t
 * chosen (by bisection) so that the expected number drawn is n. It is exact for equal weights.
 * Returns { value, exact, weight, total }.
 */
export function winChance(weights, index, n) {
  const count = weights.length;
  const w = weights[index];
  let total = 0;
  let positive = 0;
  for (let i = 0; i < count; i++) {
    total += weights[i];
    if (weights[i] > 0) positive++;
  }
  const result = (value, exact) => ({ value, exact, weight: w, total });
  if (n <= 0 || !(w > 0) || total <= 0) return result(0, true);
  if (n >= positive) return result(1, true);
  if (n === 1) return result(w / total, true);
  const drawn = (t) => {
    let sum = 0;
    for (let i = 0; i < count; i++) sum -= Math.expm1(-weights[i] * t);
    return sum;
  };
  let lo = 0;
  let hi = n / total;
  for (let i = 0; i < 2000 && drawn(hi) < n; i++) {
    lo = hi;
    hi *= 2;
  }
  for (let i = 0; i < 200 && hi - lo > hi * 1e-13; i++) {
    const mid = (lo + hi) / 2;
    if (drawn(mid) < n) lo = mid;
    else hi = mid;
  }
  return result(-Math.expm1((-w * (lo + hi)) / 2), false);
}

function formatPercent(p) {
  const x = p * 100;
  if (x === 0) return "0%";
  if (x < 1e-6) return "less than 0.000001%";
  return `${Number(x.toPrecision(3))}%`;
}

/**
 * --entrant ID: whether ID is in the committed list (entries draws: its hash in entrants.list; winner-list draws:
 * on the winner list), its weight and chance (entries draws), and whether it won, at which position and prize.
 * Never a failure: the draw's own checks say whether the proof holds. Returns the facts for --json.
 */
function checkEntrant(report, proof, id) {
  const hash = toHex(keccak256(id));
  const label = JSON.stringify(id);
  const wins = [];
  proof.winners.forEach((w, i) => {
    if (w === id) wins.push(i);
  });
  const prizeOf = (i) => (proof.results[i] ? proof.results[i].amountCents : null);
  const winsText = wins.map((i) => `position ${i}${prizeOf(i) === null ? "" : `, prize ${formatCents(prizeOf(i))}`}`).join("; ");
  const facts = { id, hash, inList: false, positions: [], weight: null, chance: null, chanceExact: null, won: wins.length > 0, winnerPositions: wins, prizesCents: wins.map(prizeOf) };

  if (!proof.entrants) {
    if (wins.length === 0) {
      report.info("entrant.list", `${label} is not on this draw's winner list`);
      return facts;
    }
    facts.inList = true;
    facts.positions = wins;
    report.pass("entrant.list", `${label} is on the committed winner list: ${winsText}`);
    return facts;
  }

  const e = proof.entrants;
  for (let i = 0; i < e.size; i++) if (e.hashes[i] === hash) facts.positions.push(i);
  const n = proof.winners.length;
  if (facts.positions.length === 0) {
    report.info("entrant.list", `${label} is not in the committed entrant list (no entrant has its hash ${short(hash)})`);
    return facts;
  }
  facts.inList = true;
  const first = facts.positions[0];
  facts.weight = e.weights[first];
  const chance = winChance(e.weights, first, n);
  facts.chance = chance.value;
  facts.chanceExact = chance.exact;
  const at = facts.positions.length === 1 ? `position ${first}` : `positions ${facts.positions.join(", ")}`;
  report.pass("entrant.list", `${label} is in the committed entrant list at ${at} of ${formatInt(e.size)}, weight ${formatInt(facts.weight)} of ${formatInt(chance.total)}`);
  let text;
  if (chance.exact && chance.value === 1) text = `certain, ${formatInt(n)} winner${n === 1 ? "" : "s"} drawn from ${formatInt(e.size)} entrant${e.size === 1 ? "" : "s"} (every entrant wins)`;
  else if (chance.exact) text = `exactly ${formatInt(facts.weight)} in ${formatInt(chance.total)} (${formatPercent(chance.value)}), one winner drawn in proportion to weight`;
  else text = `about ${formatPercent(chance.value)} (${formatInt(n)} winners drawn one at a time from ${formatInt(e.size)} entrants in proportion to weight, without replacement; an approximation)`;
  report.info("entrant.chance", `chance of winning: ${text}`);
  if (wins.length) report.pass("entrant.won", `${label} won: winner ${winsText}`);
  else report.info("entrant.won", `${label} did not win: not among the ${formatInt(n)} winner${n === 1 ? "" : "s"}`);
  return facts;
}

// ---------------------------------------------------------------------------------------------- loading

function networkReason(error) {
  const cause = error && error.cause;
  if (error && (error.name === "TimeoutError" || error.name === "AbortError")) return `no answer within ${FETCH_TIMEOUT_MS / 1000} s`;
  if (cause && cause.code) return `${cause.code}${cause.message && !cause.message.includes(cause.code) ? ` (${cause.message})` : ""}`;
  if (cause && cause.message) return cause.message;
  return (error && error.message) || String(error);
}

/** Reads JSON from an http(s) URL or a file path; `what` names it in errors ("proof"). */
async function loadJson(source, what, notFoundHint = "") {
  let text;
  if (/^https?:\/\//i.test(source)) {
    let response;
    try {
      response = await fetch(source, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    } catch (error) {
      throw new InputError(`cannot fetch the ${what} from ${source}: ${networkReason(error)}`);
    }
    if (response.status !== 200) {
      throw new InputError(`the ${what} URL ${source} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}${response.status === 404 ? notFoundHint : ""}`);
    }
    try {
      text = await response.text();
    } catch (error) {
      throw new InputError(`cannot read the ${what} from ${source}: ${networkReason(error)}`);
    }
  } else {
    if (!IS_NODE) throw new InputError(`the ${what} must be an http(s) URL here: ${source}`);
    const { readFile } = await import("node:fs/promises");
    const { fileURLToPath } = await import("node:url");
    const path = /^file:/i.test(source) ? fileURLToPath(source) : source;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      const reason = error && error.code === "ENOENT" ? "no such file" : error && error.code === "EISDIR" ? "it is a directory" : (error && error.code) || String(error);
      throw new InputError(`cannot read the ${what} file ${path}: ${reason}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputError(`the ${what} is not valid JSON: ${String(error && error.message).split("\n")[0]}`);
  }
}

/** Reads the proof from an http(s) URL or a file path; returns the parsed JSON. */
export async function loadProof(source) {
  return loadJson(source, "proof", " (unknown campaign or drawing, or the draw is not drawn yet)");
}

// ---------------------------------------------------------------------------------------------- --campaign

const MAX_PAGES = 100_000;

function badDraws(path, expectation, value) {
  throw new InputError(`draws.json field ${path} must be ${expectation} (${describe(value)})`);
}

/** draws.json's `campaign`: its onchain id and chain (campaignId, chain.chainId, chain.contract, chain.deployBlock). */
function parseCampaign(raw) {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) badDraws("campaign", "an object", raw);
  const campaignId = raw.campaignId;
  if (typeof campaignId !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(campaignId)) badDraws("campaign.campaignId", "a 0x-prefixed 32-byte hex string", campaignId);
  const chain = raw.chain;
  if (chain === null || typeof chain !== "object" || Array.isArray(chain)) badDraws("campaign.chain", "an object { chainId, contract, deployBlock }", chain);
  let chainId = chain.chainId;
  if (typeof chainId === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(chainId)) chainId = Number(chainId);
  if (typeof chainId !== "number" || !Number.isSafeInteger(chainId) || chainId < 0) badDraws("campaign.chain.chainId", "a whole number", chain.chainId);
  if (typeof chain.contract !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(chain.contract)) badDraws("campaign.chain.contract", "a 0x-prefixed 20-byte address", chain.contract);
  const block = chain.deployBlock;
  let deployBlock = null;
  if (typeof block === "number" && Number.isSafeInteger(block) && block >= 0) deployBlock = BigInt(block);
  else if (typeof block === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(block)) deployBlock = BigInt(block);
  if (deployBlock === null) badDraws("campaign.chain.deployBlock", "a block number", block);
  return {
    slug: typeof raw.slug === "string" ? raw.slug : null,
    campaignId: campaignId.toLowerCase(),
    chainId,
    contract: chain.contract.toLowerCase(),
    deployBlock,
  };
}

/** One item of draws.json's `draws`: id, number (null before the commit), drawAt, stage, slot, proof. */
function parseDrawItem(raw, path) {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) badDraws(path, "an object", raw);
  if (typeof raw.id !== "string" || raw.id.length === 0) badDraws(`${path}.id`, "a string", raw.id);
  let number = null;
  if (raw.number !== null && raw.number !== undefined) {
    if (typeof raw.number === "number" && Number.isSafeInteger(raw.number) && raw.number >= 0) number = BigInt(raw.number);
    else if (typeof raw.number === "string" && /^[0-9]{1,20}$/.test(raw.number)) number = BigInt(raw.number);
    else badDraws(`${path}.number`, "a whole number or null", raw.number);
  }
  if (typeof raw.drawAt !== "string") badDraws(`${path}.drawAt`, "an ISO time", raw.drawAt);
  if (typeof raw.stage !== "string") badDraws(`${path}.stage`, "a string", raw.stage);
  let slot = null;
  if (raw.slot !== null && raw.slot !== undefined) {
    if (typeof raw.slot !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(raw.slot)) badDraws(`${path}.slot`, "a 0x-prefixed 32-byte hex string or null", raw.slot);
    slot = raw.slot.toLowerCase();
  }
  if (raw.proof !== null && raw.proof !== undefined && typeof raw.proof !== "string") badDraws(`${path}.proof`, "a URL or null", raw.proof);
  return { id: raw.id, number, drawAt: raw.drawAt, stage: raw.stage, slot, proof: raw.proof ?? null };
}

/** Every page of draws.json, newest first, following `nextBefore` with ?before=. */
async function loadDraws(url) {
  let campaign = null;
  const draws = [];
  const asked = new Set();
  let pageUrl = url;
  for (let page = 1; pageUrl !== null; page++) {
    if (asked.has(pageUrl) || page > MAX_PAGES) throw new InputError(`draws.json paging does not end: ${pageUrl} was already read`);
    asked.add(pageUrl);
    const body = await loadJson(pageUrl, "draws.json", " (unknown campaign, or a draft)");
    if (body === null || typeof body !== "object" || Array.isArray(body)) badDraws("(top level)", "an object", body);
    if (campaign === null) campaign = parseCampaign(body.campaign);
    if (!Array.isArray(body.draws)) badDraws("draws", "an array", body.draws);
    body.draws.forEach((item, i) => draws.push(parseDrawItem(item, `draws[${i}] (page ${page})`)));
    const next = body.nextBefore;
    if (next === null || next === undefined) {
      pageUrl = null;
    } else {
      if (typeof next !== "string" || next.length === 0) badDraws("nextBefore", "an ISO time or null", next);
      const u = new URL(url);
      u.searchParams.set("before", next);
      pageUrl = u.toString();
    }
  }
  return { campaign, draws };
}

/** Unix seconds of an ISO time, or null when it is not a time in whole seconds. */
function unixSeconds(iso) {
  const seconds = Date.parse(iso) / 1000;
  return Number.isInteger(seconds) ? BigInt(seconds) : null;
}

/**
 * --campaign: reads every DrawingCommitted event of the campaign (deployBlock to the latest block, in windows of at
 * most 10,000 blocks) and accounts for each commit with draws.json: the draw of that number is listed with the
 * committed slot (= keccak256 of its id) and draw time, and is either drawn (its proof verifies with --rpc) or
 * waiting for its random value. Numbers run 1..last without gaps; no slot or draw time repeats. The same scan reads
 * the campaign's randomness requests and re-requests; each re-request, and each reveal the contract discarded as
 * too late (EntropyRevealTooLate, contracts that mix the request block's hash in), is said as information under its
 * drawing: both are public and leave the drawing to the next request, or requested for good after the one re-request.
 * Emits one check per finding; returns { commits, accounted } or null when the chain is the wrong one.
 */
async function verifyCampaign(url, rpc, emit) {
  const { campaign, draws } = await loadDraws(url);
  const fail = (number, message, details) => emit({ id: "campaign.commit", status: "fail", number: number === null ? null : Number(number), message: `${number === null ? "" : `#${number}: `}${message}`, ...(details && details.length ? { details } : {}) });

  const chainId = BigInt(await rpc.get("eth_chainId", []));
  if (chainId !== BigInt(campaign.chainId)) {
    emit({ id: "rpc.chain", status: "fail", message: `the RPC serves chain ${chainId}, draws.json says chain ${campaign.chainId}; use an RPC of chain ${campaign.chainId}` });
    return null;
  }
  emit({ id: "rpc.chain", status: "pass", message: `the RPC serves chain ${campaign.chainId}, the campaign's chain` });

  const topic = topicsOf(EVENT_SIGNATURES);
  // Every contract version's EntropyRequested starts its data with (provider, sequence).
  const requestTopics = [topic.requested, eventTopic(SINGLE_REQUEST_EVENT_SIGNATURES.requested), eventTopic(LEGACY_EVENT_SIGNATURES.requested)];
  const latest = BigInt(await rpc.get("eth_blockNumber", []));
  const logs = await logsInRange(
    rpc,
    { address: campaign.contract, topics: [[topic.committed, ...requestTopics, topic.reRequested], campaign.campaignId] },
    campaign.deployBlock,
    latest,
  );
  const commits = [];
  /** number -> the campaign's randomness requests of that drawing: { provider, sequence, block, previous (re-requests) }. */
  const requests = new Map();
  for (const log of logs) {
    const topics = (log && log.topics) || [];
    if (typeof log.address !== "string" || log.address.toLowerCase() !== campaign.contract || topics.length < 3) continue;
    if (String(topics[1]).toLowerCase() !== campaign.campaignId) continue;
    const topic0 = String(topics[0]).toLowerCase();
    const words = dataWords(log.data);
    const block = BigInt(log.blockNumber ?? 0);
    if (topic0 === topic.committed) {
      if (topics.length < 4) continue;
      commits.push({ number: BigInt(topics[2]), slot: String(topics[3]).toLowerCase(), drawAt: words[0] ?? null, block });
      continue;
    }
    const re = topic0 === topic.reRequested;
    if (!re && !requestTopics.includes(topic0)) continue;
    const [provider, sequence] = re ? [words[2], words[3]] : [words[0], words[1]];
    if (provider === undefined || sequence === undefined) continue;
    const number = BigInt(topics[2]);
    const list = requests.get(number) ?? [];
    list.push({ provider: wordAddress(provider), sequence, block, previous: re ? { provider: wordAddress(words[0]), sequence: words[1] } : null });
    requests.set(number, list);
  }
  commits.sort((a, b) => (a.number < b.number ? -1 : a.number > b.number ? 1 : a.block < b.block ? -1 : a.block > b.block ? 1 : 0));
  emit({ id: "campaign.commits", status: "pass", message: `${formatInt(commits.length)} DrawingCommitted event${commits.length === 1 ? "" : "s"} of campaign ${campaign.slug ?? campaign.campaignId} read from contract ${campaign.contract} (blocks ${campaign.deployBlock} to ${latest})` });

  // What draws.json lists.
  const listed = new Map();
  const slotOwners = new Map();
  const listProblems = new Map(); // number (or null) -> messages
  const note = (map, number, message) => {
    const list = map.get(number) ?? [];
    list.push(message);
    map.set(number, list);
  };
  for (const d of draws) {
    if (d.number !== null) {
      const same = listed.get(d.number) ?? [];
      same.push(d);
      listed.set(d.number, same);
    }
    if (d.slot !== null) {
      const owner = slotOwners.get(d.slot);
      if (owner && owner.id !== d.id) note(listProblems, d.number ?? owner.number, `draws.json gives draws ${JSON.stringify(owner.id)} and ${JSON.stringify(d.id)} the same slot ${d.slot}`);
      else if (!owner) slotOwners.set(d.slot, d);
    }
  }

  // What the chain holds: one commit per number 1..last, no slot or draw time twice.
  const chainProblems = new Map();
  const last = commits.length ? commits[commits.length - 1].number : 0n;
  const byNumber = new Map();
  const slotNumbers = new Map();
  const drawAtNumbers = new Map();
  for (const c of commits) {
    if (byNumber.has(c.number)) {
      note(chainProblems, c.number, `committed more than once onchain (another DrawingCommitted in block ${c.block})`);
      continue;
    }
    byNumber.set(c.number, c);
    if (c.number === 0n) note(chainProblems, c.number, "committed under number 0; numbers start at 1");
    if (slotNumbers.has(c.slot)) note(chainProblems, c.number, `committed under slot ${c.slot}, already used by #${slotNumbers.get(c.slot)}`);
    else slotNumbers.set(c.slot, c.number);
    const drawAtKey = String(c.drawAt);
    if (drawAtNumbers.has(drawAtKey)) note(chainProblems, c.number, `committed with draw time ${isoOfSeconds(c.drawAt)}, already used by #${drawAtNumbers.get(drawAtKey)}`);
    else drawAtNumbers.set(drawAtKey, c.number);
  }
  for (let k = 1n; k <= last; k++) {
    if (!byNumber.has(k)) note(chainProblems, k, `no commit onchain, yet commits go up to #${last}`);
  }

  /** One number: its commit and listing agree, then its proof passes or it waits for its random value. */
  async function accountFor(number) {
    const problems = [...(chainProblems.get(number) ?? []), ...(listProblems.get(number) ?? [])];
    const problem = (message, details) => {
      problems.push(message);
      fail(number, message, details);
    };
    for (const message of problems) fail(number, message);
    const same = listed.get(number) ?? [];
    const c = byNumber.get(number);
    if (!c) {
      for (const d of same) {
        if (d.stage === "drawn" || d.stage === "paid") problem(`draws.json shows ${JSON.stringify(d.id)} as ${d.stage}, but nothing is committed onchain as #${number}`);
      }
      return;
    }
    if (same.length === 0) {
      problem(`committed onchain (slot ${short(c.slot)}, draw time ${c.drawAt === null ? "missing" : isoOfSeconds(c.drawAt)}) but draws.json lists no draw #${number}`);
      return;
    }
    if (same.length > 1) problem(`draws.json lists ${same.length} draws numbered #${number}: ${same.map((d) => JSON.stringify(d.id)).join(", ")}`);
    const d = same[0];
    if (d.slot === null) problem(`draws.json gives no slot for ${JSON.stringify(d.id)}; the commit's is ${c.slot}`);
    else if (d.slot !== c.slot) problem(`draws.json slot ${d.slot} of ${JSON.stringify(d.id)}, committed slot ${c.slot}`);
    const idSlot = drawingSlot(d.id);
    if (idSlot !== c.slot) problem(`keccak256 of the draw id ${JSON.stringify(d.id)} is ${idSlot}, not the committed slot ${c.slot}`);
    const drawAt = unixSeconds(d.drawAt);
    if (drawAt === null || drawAt !== c.drawAt) problem(`draws.json drawAt ${d.drawAt}, committed draw time ${c.drawAt === null ? "missing" : isoOfSeconds(c.drawAt)}`);
    if (problems.length) return;

    if (d.stage === "drawn" || d.stage === "paid") {
      if (await verifyListedProof(number, d, campaign, rpc, emit, (message, details) => problem(message, details))) accounted++;
    } else if (d.stage === "locked" || d.stage === "drawing") {
      emit({ id: "campaign.commit", status: "info", number: Number(number), message: `#${number} ${d.id}: committed, waiting for its random value (stage ${d.stage})` });
      accounted++;
    } else {
      problem(`committed onchain, but draws.json shows ${JSON.stringify(d.id)} at stage ${JSON.stringify(d.stage)}`);
    }
  }

  const late = await lateReveals(rpc, campaign, requests, listed, latest);

  // Number by number, in order.
  for (const message of listProblems.get(null) ?? []) fail(null, message);
  const numbers = [...new Set([...byNumber.keys(), ...chainProblems.keys(), ...listed.keys(), ...[...listProblems.keys()].filter((k) => k !== null)])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let accounted = 0;
  for (const number of numbers) {
    await accountFor(number);
    for (const check of randomnessNotes(number, requests.get(number) ?? [], late.get(number) ?? [])) emit(check);
  }
  return { commits: commits.length, accounted };
}

/**
 * --campaign: the reveals the contract discarded as too late (EntropyRevealTooLate) of the campaign's requests, by
 * drawing number: { provider, sequence, block, requestBlock, reRequest (whether the request was a re-request) }.
 * Only drawings still waiting (draws.json stage locked or drawing) or re-requested can have one; the scan starts
 * after the earliest of their requests, and is skipped when there is none. Contracts before the block hash emit no
 * such event, so their campaigns simply have none.
 */
async function lateReveals(rpc, campaign, requests, listed, latest) {
  const byRequest = new Map();
  let from = null;
  for (const [number, list] of requests) {
    const waiting = (listed.get(number) ?? []).some((d) => d.stage === "locked" || d.stage === "drawing");
    if (!waiting && !list.some((r) => r.previous !== null)) continue;
    for (const r of list) {
      const key = `${r.provider}:${r.sequence}`;
      byRequest.set(key, [...(byRequest.get(key) ?? []), { number, request: r }]);
      if (from === null || r.block < from) from = r.block;
    }
  }
  const late = new Map();
  if (from === null || from + 1n > latest) return late;
  const topic0 = eventTopic(EVENT_SIGNATURES.revealTooLate);
  for (const log of await logsInRange(rpc, { address: campaign.contract, topics: [topic0] }, from + 1n, latest)) {
    const topics = (log && log.topics) || [];
    if (typeof log.address !== "string" || log.address.toLowerCase() !== campaign.contract || topics.length < 3 || String(topics[0]).toLowerCase() !== topic0) continue;
    const provider = wordAddress(BigInt(topics[1]));
    const sequence = BigInt(topics[2]);
    const [requestBlock] = dataWords(log.data);
    for (const { number, request } of byRequest.get(`${provider}:${sequence}`) ?? []) {
      const found = { provider, sequence, block: BigInt(log.blockNumber ?? 0), requestBlock: requestBlock ?? request.block, reRequest: request.previous !== null };
      late.set(number, [...(late.get(number) ?? []), found]);
    }
  }
  return late;
}

/**
 * --campaign: the information lines under drawing `number`, in block order: each re-request (public, once per
 * drawing) and each reveal the contract discarded as too late, with what it leaves: a first request's late reveal
 * allows the one re-request at once; a re-request's leaves the drawing requested for good.
 */
function randomnessNotes(number, requests, late) {
  const notes = [];
  // Late reveals first: one shares its block with the re-request it allowed, and comes before it.
  for (const l of late) {
    const what = l.reRequest
      ? "the drawing was already re-requested once, so it stays requested"
      : "which allows the drawing's one re-request at once";
    notes.push({
      block: l.block,
      id: "campaign.lateReveal",
      message: `#${number}: the reveal of request ${l.sequence} of provider ${l.provider} came in block ${l.block}, ${l.block - l.requestBlock} blocks after its request (block ${l.requestBlock}), too late to read that block's hash: the contract discarded it unused (EntropyRevealTooLate)${l.reRequest ? "; " : ", "}${what}`,
    });
  }
  for (const r of requests) {
    if (r.previous === null) continue;
    notes.push({
      block: r.block,
      id: "campaign.reRequest",
      message: `#${number}: re-requested in block ${r.block}: request ${r.previous.sequence} of provider ${r.previous.provider} replaced by request ${r.sequence} of provider ${r.provider}`,
    });
  }
  notes.sort((a, b) => (a.block < b.block ? -1 : a.block > b.block ? 1 : 0));
  return notes.map(({ id, message }) => ({ id, status: "info", number: Number(number), message }));
}

/** Fetches a listed draw's proof and runs every check, --rpc included; true when it passes. */
async function verifyListedProof(number, draw, campaign, rpc, emit, problem) {
  if (!draw.proof) {
    problem(`draws.json shows ${JSON.stringify(draw.id)} as ${draw.stage} without a proof link`);
    return false;
  }
  let proof;
  try {
    proof = parseProof(await loadProof(draw.proof));
    parseChain(proof.chain, proof.version);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    problem(`the proof of ${JSON.stringify(draw.id)} cannot be used: ${error.message}`);
    return false;
  }
  const identity = [];
  if (toHex(proof.campaign.idBytes) !== campaign.campaignId) identity.push(`the proof is of campaign ${JSON.stringify(proof.campaign.id)}, not ${campaign.campaignId}`);
  if (proof.drawing.number !== number) identity.push(`the proof is of drawing #${proof.drawing.number}`);
  if (proof.drawing.id !== null && proof.drawing.id !== draw.id) identity.push(`the proof is of drawing ${JSON.stringify(proof.drawing.id)}, draws.json lists ${JSON.stringify(draw.id)}`);
  const chain = parseChain(proof.chain, proof.version);
  if (chain.contract !== campaign.contract || chain.chainId !== campaign.chainId) identity.push(`the proof is of contract ${chain.contract} on chain ${chain.chainId}`);
  for (const m of identity) problem(m);
  if (identity.length) return false;

  const report = verifyProof(proof);
  await checkChain(report, proof, rpc);
  const failed = report.checks.filter((c) => c.status === "fail");
  if (failed.length) {
    const details = failed.flatMap((c) => [c.message, ...(c.details || [])]);
    problem(`the proof of ${JSON.stringify(draw.id)} fails ${failed.length} check${failed.length === 1 ? "" : "s"} (${failed.map((c) => c.id).join(", ")})`, details);
    return false;
  }
  const passed = report.checks.length - report.checks.filter((c) => c.status === "info").length;
  emit({ id: "campaign.commit", status: "pass", number: Number(number), message: `#${number} ${draw.id}: proof (version ${proof.version}) verified with --rpc, ${passed} checks passed` });
  return true;
}

// ---------------------------------------------------------------------------------------------- command line

const USAGE = "usage: node verify-draw.mjs <proof URL or file> [--json] [--rpc URL] [--entrant ID] | --campaign <draws.json URL> --rpc URL [--json]";
const MARK = { pass: "✔", fail: "✘", info: "ℹ" };

function parseArgs(argv) {
  const options = { source: null, json: false, rpc: null, entrant: null, campaign: null, help: false };
  const valueOf = (arg, name, i) => (arg === name ? { value: argv[i + 1], next: i + 1 } : { value: arg.slice(name.length + 1), next: i });
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--json") options.json = true;
    else if (arg === "--help" || arg === "-h") options.help = true;
    else if (arg === "--rpc" || arg.startsWith("--rpc=")) {
      const { value, next } = valueOf(arg, "--rpc", i);
      i = next;
      if (!value || !/^https?:\/\//i.test(value)) throw new InputError(`--rpc needs an http(s) JSON-RPC URL. ${USAGE}`);
      options.rpc = value;
    } else if (arg === "--entrant" || arg.startsWith("--entrant=")) {
      const { value, next } = valueOf(arg, "--entrant", i);
      i = next;
      if (value === undefined || value === "") throw new InputError(`--entrant needs an entrant or winner id. ${USAGE}`);
      options.entrant = value;
    } else if (arg === "--campaign" || arg.startsWith("--campaign=")) {
      const { value, next } = valueOf(arg, "--campaign", i);
      i = next;
      if (!value || !/^https?:\/\//i.test(value)) throw new InputError(`--campaign needs the http(s) URL of a campaign's draws.json. ${USAGE}`);
      options.campaign = value;
    } else if (arg.startsWith("-") && arg !== "-") throw new InputError(`unknown option ${arg}. ${USAGE}`);
    else if (options.source === null) options.source = arg;
    else throw new InputError(`more than one proof given. ${USAGE}`);
  }
  if (options.help) return options;
  if (options.campaign) {
    if (options.source) throw new InputError(`--campaign checks a whole campaign: give no proof with it. ${USAGE}`);
    if (options.entrant !== null) throw new InputError(`--entrant goes with one proof, not with --campaign. ${USAGE}`);
    if (!options.rpc) throw new InputError(`--campaign needs --rpc URL: the commits are read from the chain. ${USAGE}`);
  } else if (!options.source) throw new InputError(`no proof given. ${USAGE}`);
  return options;
}

function summarize(checks) {
  const passed = checks.filter((c) => c.status === "pass").length;
  const failed = checks.filter((c) => c.status === "fail");
  const info = checks.length - passed - failed.length;
  const infoText = `${info} informational`;
  if (failed.length === 0) return { ok: true, line: `PASS: ${passed} checks passed, ${infoText}`, passed, failed: 0, info };
  return {
    ok: false,
    line: `FAIL: ${failed.length} of ${passed + failed.length} checks failed (${[...new Set(failed.map((c) => c.id))].join(", ")}); ${passed} passed, ${infoText}`,
    passed,
    failed: failed.length,
    info,
  };
}

function printCheck(check) {
  process.stdout.write(`${MARK[check.status]} ${printable(check.message)}\n`);
  for (const line of check.details || []) process.stdout.write(`    - ${printable(line)}\n`);
}

/** The keccak256 self-test as a check: nothing else can be trusted when it fails. */
function selfTestCheck() {
  const self = keccakSelfTest();
  return self.ok
    ? { id: "keccak", status: "pass", message: `keccak256 self-test (${self.count} known vectors, multi-block included)` }
    : { id: "keccak", status: "fail", message: `keccak256 self-test failed: ${self.message}; nothing else can be trusted` };
}

/**
 * Checks one proof as `node verify-draw.mjs <proof> [--rpc URL] [--entrant ID]` does, without printing: the
 * keccak256 self-test, every offline check, then the chain checks with `rpcUrl` (without it, the random value's
 * origin as information), then `entrant`. `proof` is the proof's URL (or, under Node, a file path) or its parsed
 * JSON. The command line and the campaign page's in-browser check both run this. It never throws: a proof or RPC
 * that cannot be used gives `error` and exit code 2. `onProof(proof)` sees the parsed proof before the checks,
 * `onCheck(check)` each check as it is made.
 * Returns { ok, exitCode (0 all passed, 1 a check failed, 2 unusable input), checks: [{ id, status: "pass" | "fail"
 * | "info", message, details? }], summary: { passed, failed, info, line }, entrant? (the --entrant facts), error? }.
 */
export async function verifyDraw(proof, { rpcUrl = null, entrant = null, onProof = null, onCheck = null } = {}) {
  const checks = [];
  const emit = (check) => {
    checks.push(check);
    if (onCheck) onCheck(check);
  };
  const result = (exitCode, error = null, facts = null) => {
    const summary = summarize(checks);
    const out = { ok: exitCode === 0, exitCode, checks, summary: { passed: summary.passed, failed: summary.failed, info: summary.info, line: summary.line } };
    if (facts) out.entrant = facts;
    if (error) out.error = error;
    return out;
  };
  try {
    if (rpcUrl !== null && (typeof rpcUrl !== "string" || !/^https?:\/\//i.test(rpcUrl))) throw new InputError(`the RPC must be an http(s) JSON-RPC URL. ${USAGE}`);
    const self = selfTestCheck();
    emit(self);
    if (self.status !== "pass") return result(1);
    const parsed = parseProof(typeof proof === "string" ? await loadProof(proof) : proof);
    if (onProof) onProof(parsed);
    for (const check of verifyProof(parsed).checks) emit(check);
    const chainReport = new Report();
    if (rpcUrl) await checkChain(chainReport, parsed, new Rpc(rpcUrl));
    else originInfo(chainReport, parsed);
    for (const check of chainReport.checks) emit(check);
    let facts = null;
    if (entrant !== null && entrant !== undefined) {
      const entrantReport = new Report();
      facts = checkEntrant(entrantReport, parsed, String(entrant));
      for (const check of entrantReport.checks) emit(check);
    }
    return result(summarize(checks).ok ? 0 : 1, null, facts);
  } catch (error) {
    return result(2, error instanceof InputError ? error.message : `internal error: ${(error && error.message) || String(error)}`);
  }
}

/** Runs the verifier; returns the exit code (0 all passed, 1 a check failed, 2 unusable input). */
export async function main(argv = process.argv.slice(2)) {
  let options = { json: argv.includes("--json"), source: null };
  const checks = [];
  const extra = {};
  const emit = (check) => {
    checks.push(check);
    if (!options.json) printCheck(check);
  };
  try {
    options = parseArgs(argv);
    if (options.help) {
      process.stdout.write(`${USAGE}\n\nChecks a prize draw proof (format versions ${versionList()}), or with --campaign every commit of a campaign. Exit code 0: every check passed; 1: a check failed; 2: unusable proof or RPC.\n`);
      return 0;
    }

    if (options.campaign) {
      const self = selfTestCheck();
      emit(self);
      if (self.status !== "pass") return finish(options, checks, null, 1, extra);
      const result = await verifyCampaign(options.campaign, new Rpc(options.rpc), emit);
      if (result === null) return finish(options, checks, null, 1, extra);
      extra.commits = result.commits;
      extra.accounted = result.accounted;
      const ok = result.accounted === result.commits && checks.every((c) => c.status !== "fail");
      return finish(options, checks, null, ok ? 0 : 1, extra);
    }

    const onProof = (proof) => {
      if (options.json) return;
      const kind = proof.entrants ? `${formatInt(proof.entrants.size)} entrants, ${formatInt(proof.winners.length)} winners` : `${formatInt(proof.winners.length)} winners`;
      process.stdout.write(printable(`  proof: ${proof.campaign.slug ?? proof.campaign.id} drawing #${proof.drawing.number}${proof.drawing.id ? ` (${proof.drawing.id})` : ""}, ${kind}, format version ${proof.version}`) + "\n");
    };
    const result = await verifyDraw(options.source, { rpcUrl: options.rpc, entrant: options.entrant, onProof, onCheck: emit });
    if (result.entrant) extra.entrant = result.entrant;
    return finish(options, checks, result.error ?? null, result.exitCode, extra);
  } catch (error) {
    const message = error instanceof InputError ? error.message : `internal error: ${(error && error.message) || String(error)}`;
    return finish(options, checks, message, 2, extra);
  }
}

function finish(options, checks, errorMessage, code, extra = {}) {
  const summary = summarize(checks);
  const campaign = Boolean(options.campaign);
  if (options.json) {
    const out = campaign
      ? { ok: code === 0, campaign: options.campaign, commits: extra.commits ?? null, accounted: extra.accounted ?? null, checks, summary: { passed: summary.passed, failed: summary.failed, info: summary.info } }
      : { ok: code === 0, proof: options.source, checks, summary: { passed: summary.passed, failed: summary.failed, info: summary.info } };
    if (extra.entrant) out.entrant = extra.entrant;
    if (errorMessage) out.error = errorMessage;
    process.stdout.write(jsonText(out) + "\n");
  } else if (errorMessage) {
    process.stderr.write(`✘ error: ${printable(errorMessage)}\n`);
  } else if (campaign && extra.commits !== undefined) {
    process.stdout.write(`${extra.accounted} of ${extra.commits} commits accounted for\n`);
  } else {
    process.stdout.write(`${printable(summary.line)}\n`);
  }
  return code;
}

/** True when this file is the program Node runs (not when imported, and never in a browser). */
async function isMainModule() {
  if (!IS_NODE || !process.argv[1]) return false;
  try {
    const { realpathSync } = await import("node:fs");
    const { fileURLToPath } = await import("node:url");
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (await isMainModule()) {
  const fatal = (error) => {
    process.stderr.write(`✘ error: internal error: ${printable((error && error.message) || String(error))}\n`);
    process.exit(2);
  };
  process.on("uncaughtException", fatal);
  process.on("unhandledRejection", fatal);
  main().then(
    (code) => {
      process.exitCode = code;
    },
    fatal,
  );
}
