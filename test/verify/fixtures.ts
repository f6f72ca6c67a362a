// An independent generator of draw proofs (format version 2) for the verifier's tests.
//
// It follows the spec's "Draw computation" and DESIGN.md sections 5-7 with @noble/hashes and viem, and shares no
// code with the verifier (api/public/verify/verify-draw.mjs) nor with the service's draw library: the entrant
// selection here is a plain linear scan, where the verifier uses a Fenwick tree.

import { keccak_256 } from "@noble/hashes/sha3";
import { encodeAbiParameters, bytesToHex, hexToBigInt, stringToHex, type Hex } from "viem";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const VERIFIER = path.join(REPO_ROOT, "api/public/verify/verify-draw.mjs");

export type Tier = { amountCents: number; weight: number };
export type TableSpec = { id: string; version: number; tiers: Tier[] };

export const DEFAULT_TABLE: TableSpec = {
  id: "default",
  version: 1,
  tiers: [
    { amountCents: 10_000_000, weight: 1 },
    { amountCents: 100_000, weight: 10 },
    { amountCents: 10_000, weight: 400 },
    { amountCents: 2_000, weight: 4_000 },
    { amountCents: 1_000, weight: 50_000 },
    { amountCents: 500, weight: 45_589 },
  ],
};

/** Top tier 90% likely: with a few winners the top-prize-once rule almost surely applies. */
export const TWO_TIER_TABLE: TableSpec = {
  id: "two-tier",
  version: 3,
  tiers: [
    { amountCents: 5_000, weight: 9 },
    { amountCents: 100, weight: 1 },
  ],
};

export type ProofTier = { amountCents: number; weight: number; threshold: number };
export type ProofResult = {
  position: number;
  winner: string;
  displayName: string | null;
  randomValue: Hex;
  roll: number;
  amountCents: number;
};
export type Proof = {
  proofVersion: number;
  campaign: { id: string; slug: string; name: string };
  drawing: { id: string; number: number; drawAt: string };
  winnerList: { winners: string[]; commitment: Hex; lockedAt: string };
  entropy: { provider: string; requestId: string; value: Hex; revealedAt: string };
  prizeTable: { id: string; version: number; denominator: number; tiers: ProofTier[] };
  results: ProofResult[];
  entrants: null | {
    count: number;
    totalWeight: number;
    commitment: Hex;
    selection: string;
    list: { hash: Hex; weight: number }[];
  };
  chain: { chainId: number; contract: Hex; commitTx: Hex; revealTx: Hex };
};

export function keccakHex(data: Uint8Array | string): Hex {
  return bytesToHex(keccak_256(typeof data === "string" ? new TextEncoder().encode(data) : data));
}

/** A short ASCII id as bytes32, right-padded (campaign id, table id, selection tag). */
export function idToBytes32(id: string): Hex {
  return stringToHex(id, { size: 32 });
}

/** Deterministic pseudo-random stream from a seed (keccak in counter mode). */
export class Rng {
  private counter = 0;
  constructor(private readonly seed: string) {}
  bytes32(): Hex {
    return keccakHex(`${this.seed}:${this.counter++}`);
  }
  /** Integer in [0, n). */
  int(n: number): number {
    return Number(hexToBigInt(this.bytes32()) % BigInt(n));
  }
}

export function fingerprint(ids: string[]): Hex {
  const hashes = ids.map((id) => keccakHex(id));
  return keccakHex(hexToBytes(encodeAbiParameters([{ type: "bytes32[]" }], [hashes])));
}

export function entrantsCommitment(hashes: Hex[], weights: number[]): Hex {
  return keccakHex(
    hexToBytes(encodeAbiParameters([{ type: "bytes32[]" }, { type: "uint256[]" }], [hashes, weights.map((w) => BigInt(w))])),
  );
}

function hexToBytes(hex: Hex): Uint8Array {
  return Buffer.from(hex.slice(2), "hex");
}

const TWO_256 = 1n << 256n;

/** keccak256(abi.encode(bytes32 entropy, bytes32 campaignId, uint64 number, uint256 position, uint256 k)) with rejection. */
export function positionRandom(entropy: Hex, campaignId: string, number: number, position: number, denominator: number) {
  const floor = TWO_256 % BigInt(denominator);
  for (let k = 0n; ; k++) {
    const value = keccakHex(
      hexToBytes(
        encodeAbiParameters(
          [{ type: "bytes32" }, { type: "bytes32" }, { type: "uint64" }, { type: "uint256" }, { type: "uint256" }],
          [entropy, idToBytes32(campaignId), BigInt(number), BigInt(position), k],
        ),
      ),
    );
    const v = hexToBigInt(value);
    if (v >= floor) return { randomValue: value, roll: Number(v % BigInt(denominator)) };
  }
}

export function tableForProof(table: TableSpec) {
  let cumulative = 0;
  const tiers = table.tiers.map((t) => {
    cumulative += t.weight;
    return { amountCents: t.amountCents, weight: t.weight, threshold: cumulative };
  });
  return { id: table.id, version: table.version, denominator: cumulative, tiers };
}

/** Results for positions 0..winners.length-1 with the top-prize-once rule. */
export function computeResults(entropy: Hex, campaignId: string, number: number, table: TableSpec, winners: string[]): ProofResult[] {
  const t = tableForProof(table);
  let topAwarded = false;
  return winners.map((winner, position) => {
    const { randomValue, roll } = positionRandom(entropy, campaignId, number, position, t.denominator);
    let tier = t.tiers.findIndex((x) => roll < x.threshold);
    if (tier === 0) {
      if (topAwarded) tier = 1;
      topAwarded = true;
    }
    return { position, winner, displayName: `Winner ${position}`, randomValue, roll, amountCents: t.tiers[tier]!.amountCents };
  });
}

/**
 * DESIGN.md section 6 by a linear scan: for j = 0..n-1, T = undrawn weight, v = keccak256(abi.encode(entropy,
 * campaignId, uint64 number, bytes32 "entrants", j, k)) with rejection, u = v mod T, winner = first undrawn entrant
 * whose running sum exceeds u.
 */
export function selectEntrantsLinear(entropy: Hex, campaignId: string, number: number, weights: number[], n: number): number[] {
  const remaining = weights.slice();
  let total = remaining.reduce((a, b) => a + b, 0);
  const tag = idToBytes32("entrants");
  const cid = idToBytes32(campaignId);
  const picked: number[] = [];
  for (let j = 0; j < n; j++) {
    const T = BigInt(total);
    const floor = TWO_256 % T;
    let v = 0n;
    for (let k = 0n; ; k++) {
      v = hexToBigInt(
        keccakHex(
          hexToBytes(
            encodeAbiParameters(
              [{ type: "bytes32" }, { type: "bytes32" }, { type: "uint64" }, { type: "bytes32" }, { type: "uint256" }, { type: "uint256" }],
              [entropy, cid, BigInt(number), tag, BigInt(j), k],
            ),
          ),
        ),
      );
      if (v >= floor) break;
    }
    const u = Number(v % T);
    let running = 0;
    let chosen = -1;
    for (let i = 0; i < remaining.length; i++) {
      running += remaining[i]!;
      if (running > u) {
        chosen = i;
        break;
      }
    }
    picked.push(chosen);
    total -= remaining[chosen]!;
    remaining[chosen] = 0;
  }
  return picked;
}

type Common = {
  seed?: string;
  campaignId?: string;
  number?: number;
  table?: TableSpec;
  provider?: string;
};

function base(opts: Common, winners: string[], rng: Rng) {
  const campaignId = opts.campaignId ?? "summer-daily";
  const number = opts.number ?? 7;
  const table = opts.table ?? DEFAULT_TABLE;
  const entropy = rng.bytes32();
  return {
    proofVersion: 2,
    campaign: { id: campaignId, slug: campaignId, name: "Summer Daily" },
    drawing: { id: "drw_test_" + number, number, drawAt: "2026-11-25T20:00:00.000Z" },
    winnerList: { winners, commitment: fingerprint(winners), lockedAt: "2026-11-25T19:30:00.000Z" },
    entropy: { provider: opts.provider ?? "mock", requestId: "12", value: entropy, revealedAt: "2026-11-25T19:31:00.000Z" },
    prizeTable: tableForProof(table),
    results: computeResults(entropy, campaignId, number, table, winners),
    entrants: null,
    chain: { chainId: 31337, contract: "0x5fbdb2315678afecb367f032d93f642f64180aa3" as Hex, commitTx: rng.bytes32(), revealTx: rng.bytes32() },
  } satisfies Proof;
}

/** A valid proof of a winners draw (push or pull campaign). */
export function makeWinnersProof(opts: Common & { winners?: number | string[] } = {}): Proof {
  const rng = new Rng(opts.seed ?? "winners");
  const count = opts.winners ?? 5;
  const winners = Array.isArray(count) ? count : Array.from({ length: count }, (_, i) => `w-${rng.bytes32().slice(2, 18)}-${i}`);
  return base(opts, winners, rng);
}

export type EntrantSpec = { id: string; weight: number };

/** Entrants with random-looking ids and weights 1..maxWeight (a fast seeded generator: 100,000 in well under a second). */
export function makeEntrants(count: number, seed = "entrants", maxWeight = 5): EntrantSpec[] {
  const seedWords = keccak_256(new TextEncoder().encode(seed));
  let state = (seedWords[0]! | (seedWords[1]! << 8) | (seedWords[2]! << 16) | (seedWords[3]! << 24)) >>> 0 || 1;
  const next = () => {
    // xorshift32
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
  return Array.from({ length: count }, (_, i) => ({
    id: `e-${i}-${next().toString(36)}${next().toString(36)}`,
    weight: 1 + (next() % maxWeight),
  }));
}

/** A valid proof of an entries draw: n = min(winnersExpected, entrants) winners selected from the entrants. */
export function makeEntriesProof(opts: Common & { entrants?: EntrantSpec[]; winnersExpected?: number } = {}): { proof: Proof; entrants: EntrantSpec[] } {
  const rng = new Rng(opts.seed ?? "entries");
  const entrants = opts.entrants ?? makeEntrants(60, (opts.seed ?? "entries") + "/list");
  const winnersExpected = opts.winnersExpected ?? 10;
  const n = Math.min(winnersExpected, entrants.length);
  const campaignId = opts.campaignId ?? "summer-daily";
  const number = opts.number ?? 7;
  // The entropy is the first value of rng in base(); draw it here the same way to select before building.
  const entropy = new Rng(opts.seed ?? "entries").bytes32();
  const weights = entrants.map((e) => e.weight);
  const picked = selectEntrantsLinear(entropy, campaignId, number, weights, n);
  const winners = picked.map((i) => entrants[i]!.id);
  const proof: Proof = base({ ...opts, campaignId, number }, winners, rng);
  const hashes = entrants.map((e) => keccakHex(e.id));
  proof.entrants = {
    count: entrants.length,
    totalWeight: weights.reduce((a, b) => a + b, 0),
    commitment: entrantsCommitment(hashes, weights),
    selection: "sequential-weighted-v1",
    list: hashes.map((hash, i) => ({ hash, weight: weights[i]! })),
  };
  return { proof, entrants };
}

/** Recomputes the fingerprint after the winner list was edited (what a careful forger would do). */
export function refingerprint(proof: Proof): Proof {
  proof.winnerList.commitment = fingerprint(proof.winnerList.winners);
  return proof;
}

export function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
