// An independent generator of draw proofs (format versions 2 to 6) for the verifier's tests.
//
// It follows the spec's "Draw computation" and DESIGN.md sections 5-7 with @noble/hashes and viem, and shares no
// code with the verifier (api/public/verify/verify-draw.mjs) nor with the service's draw library: the entrant
// selection here is a plain linear scan, where the verifier uses a Fenwick tree.

import { keccak_256 } from "@noble/hashes/sha3";
import { encodeAbiParameters, encodePacked, bytesToHex, hexToBigInt, stringToHex, type Hex } from "viem";
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
/** The re-request of a version 5 proof. */
export type ProofReRequest = {
  previousProvider: Hex;
  previousRequestId: string;
  previousUserContribution: Hex;
  timeoutBlocks: number;
  requestTx: Hex;
  requestedAt: string;
};
/** The block that holds a version 6 proof's revealed request. */
export type ProofRequestBlock = { number: number | string; hash: Hex };
/** A proof of any version; the version 3 to 6 fields are optional here (absent in version 2). */
export type Proof = {
  proofVersion: number;
  campaign: { id: string; slug: string; name: string };
  drawing: { id: string; number: number; drawAt: string; slot?: Hex };
  winnerList: { winners: string[]; commitment: Hex; lockedAt: string };
  entropy: {
    provider: string;
    requestId: string;
    batch?: { index: number; size: number; contributions: Hex[] };
    userContribution?: Hex;
    providerContribution?: Hex | null;
    /** Version 6: Entropy's value (what `value` is in versions 2 to 5); `value` is then the mixed one. */
    revealedValue?: Hex;
    requestBlock?: ProofRequestBlock;
    value: Hex;
    revealedAt: string;
    reRequest?: ProofReRequest | null;
  };
  prizeTable: { id: string; version: number; denominator: number; tiers: ProofTier[] };
  results: ProofResult[];
  entrants: null | {
    count: number;
    totalWeight: number;
    commitment: Hex;
    selection: string;
    list: { hash: Hex; weight: number }[];
  };
  chain: { chainId: number; contract: Hex; entropy?: Hex; commitTx: Hex; revealTx: Hex };
};

/** The Entropy contract version 3 fixtures name (Pyth's address on Base Sepolia; any address would do). */
export const ENTROPY_CONTRACT = "0x41c9e39574f40ad34c79f1c99b66a45efb830d4c" as Hex;
const ZERO32 = `0x${"00".repeat(32)}` as Hex;

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

/** A drawing's slot: keccak256 of its id's UTF-8 bytes. */
export function drawingSlot(drawingId: string): Hex {
  return keccakHex(drawingId);
}

/** keccak256(abi.encode(bytes32 campaignId, uint64 number, bytes32 slot, bytes32 listCommitment)). */
export function userRandomNumber(campaignId: string, number: number | bigint, slot: Hex, listCommitment: Hex): Hex {
  return keccakHex(
    hexToBytes(
      encodeAbiParameters(
        [{ type: "bytes32" }, { type: "uint64" }, { type: "bytes32" }, { type: "bytes32" }],
        [idToBytes32(campaignId), BigInt(number), slot, listCommitment],
      ),
    ),
  );
}

/** A randomness request's user contribution for a batch: a batch of one its only contribution, else keccak256(c_0 ‖ … ‖ c_n-1). */
export function batchUserRandomNumber(contributions: Hex[]): Hex {
  if (contributions.length === 1) return contributions[0]!;
  return keccakHex(hexToBytes(encodePacked(contributions.map(() => "bytes32" as const), contributions)));
}

/** A re-request's user contribution: keccak256(abi.encode(address previousProvider, uint64 previousSequence)). */
export function reRequestUserRandomNumber(previousProvider: string, previousSequence: string | bigint): Hex {
  return keccakHex(hexToBytes(encodeAbiParameters([{ type: "address" }, { type: "uint64" }], [previousProvider as Hex, BigInt(previousSequence)])));
}

/** The address PrizeDraw's events name for the test environment's mock provider (the SDK's MockEntropy's provider). */
export const MOCK_PROVIDER_ADDRESS = "0x6cc14824ea2918f5de5c2f75a9da968ad4bd6344" as Hex;
/** A real provider's address (not "mock"): its proofs carry the provider's contribution that the value combines with. */
export const REAL_PROVIDER = "0x52deaa1c84233f7bb8c8a45baede41091c616506";
/** A version 5 fixture's previous request unless told otherwise: request 11 of its provider, 256 blocks (the local chain's timeout). */
export const DEFAULT_PREVIOUS_REQUEST_ID = "11";
export const DEFAULT_TIMEOUT_BLOCKS = 256;

/** Another drawing of a version 4 proof's batch: what its contribution is computed from (its commit). */
export type BatchMember = { campaignId: string; number: number; slot: Hex; listCommitment: Hex };

/** The other drawings of a version 4 fixture's batch unless told otherwise: another campaign's and an earlier one. */
export const DEFAULT_BATCH_OTHERS: BatchMember[] = [
  { campaignId: "weekly-entries", number: 3, slot: drawingSlot("drw_other_a"), listCommitment: keccakHex("list a") },
  { campaignId: "summer-daily", number: 6, slot: drawingSlot("drw_other_b"), listCommitment: keccakHex("list b") },
];

/** The batch's members in order: `others` with this drawing's own at `index`. */
export function batchMembers(self: BatchMember, index: number, others: BatchMember[]): BatchMember[] {
  return [...others.slice(0, index), self, ...others.slice(index)];
}

export function contributionOf(m: BatchMember): Hex {
  return userRandomNumber(m.campaignId, m.number, m.slot, m.listCommitment);
}

/** A version 6 drawing's value: keccak256(abi.encode(bytes32 entropyValue, bytes32 requestBlockHash)). */
export function drawValue(entropyValue: Hex, requestBlockHash: Hex): Hex {
  return keccakHex(hexToBytes(encodeAbiParameters([{ type: "bytes32" }, { type: "bytes32" }], [entropyValue, requestBlockHash])));
}

/** The hash the fake chain (./fake-chain.ts) gives block `n` unless told otherwise. */
export function chainBlockHash(n: number | bigint): Hex {
  return keccakHex(`fake chain block ${n}`);
}

/** Pyth Entropy v2: keccak256(abi.encodePacked(user, provider, bytes32(0))). */
export function combine(user: Hex, provider: Hex): Hex {
  return keccakHex(hexToBytes(encodePacked(["bytes32", "bytes32", "bytes32"], [user, provider, ZERO32])));
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
  /** Proof format version: 2 (default), 3, 4, 5 or 6. */
  version?: 2 | 3 | 4 | 5 | 6;
  /** Version 6: the value was re-requested (version 5 always is). */
  reRequested?: boolean;
  /**
   * Version 6: the request's block (default the fake chain's: 100 for the commit, 100 + timeoutBlocks + 1 for a
   * re-request) and its hash (default chainBlockHash of it).
   */
  requestBlockNumber?: number;
  requestBlockHash?: Hex;
  /** Versions 4 and 5: this drawing's index in its request's batch (default 1) and the other members (default DEFAULT_BATCH_OTHERS). */
  batchIndex?: number;
  batchOthers?: BatchMember[];
  /**
   * Version 5: the request the commit made (default request 11 of the proof's provider, or of the mock's address) and
   * the deployment's timeout (default 256 blocks).
   */
  previousProvider?: string;
  previousRequestId?: string;
  timeoutBlocks?: number;
  drawingId?: string;
  drawAt?: string;
};

type Origin = {
  value: Hex;
  /** The value the draw follows: version 6's drawValue, else `value`. */
  drawn: Hex;
  /** Version 6. */
  requestBlock?: ProofRequestBlock;
  userContribution?: Hex;
  providerContribution?: Hex | null;
  batch?: { index: number; size: number; contributions: Hex[] };
  /** Version 5: the batch's contribution, which the commit requested with. */
  previousUserContribution?: Hex;
};

/** Whether the fixture's value was re-requested: always in version 5, when asked in version 6. */
function isReRequested(opts: Common): boolean {
  return opts.version === 5 || (opts.version === 6 && opts.reRequested === true);
}

/** Version 6: the request's block, by default where the fake chain puts the commit (or the re-request). */
function requestBlockOf(opts: Common): ProofRequestBlock {
  const number = opts.requestBlockNumber ?? (isReRequested(opts) ? 100 + (opts.timeoutBlocks ?? DEFAULT_TIMEOUT_BLOCKS) + 1 : 100);
  return { number, hash: opts.requestBlockHash ?? chainBlockHash(number) };
}

/** Versions 5 and 6: the previous request's provider (always an address) and id. */
function previousOf(opts: Common): { provider: Hex; requestId: string } {
  const provider = opts.previousProvider ?? ((opts.provider ?? "mock") === "mock" ? MOCK_PROVIDER_ADDRESS : opts.provider!);
  return { provider: provider.toLowerCase() as Hex, requestId: opts.previousRequestId ?? DEFAULT_PREVIOUS_REQUEST_ID };
}

/**
 * The random value: version 2, any value; version 3, the user contribution derived from the commit; version 4,
 * the batch's (this drawing's contribution among the others'); re-requested (version 5, and 6 when asked), the
 * re-request's (the batch's is the previous request's); and for a real provider, a provider contribution with
 * value = combine(user, provider). Version 6 draws follow drawValue(value, request block hash). Takes one value
 * from `rng`.
 */
function originOf(opts: Common, listCommitment: Hex, rng: Rng): Origin {
  const origin = entropyOriginOf(opts, listCommitment, rng);
  if ((opts.version ?? 2) < 6) return origin;
  const requestBlock = requestBlockOf(opts);
  return { ...origin, requestBlock, drawn: drawValue(origin.value, requestBlock.hash) };
}

/** originOf before version 6's block hash: Entropy's value and where it comes from. */
function entropyOriginOf(opts: Common, listCommitment: Hex, rng: Rng): Origin {
  const first = rng.bytes32();
  const version = opts.version ?? 2;
  if (version === 2) return { value: first, drawn: first };
  const campaignId = opts.campaignId ?? "summer-daily";
  const number = opts.number ?? 7;
  const own = userRandomNumber(campaignId, number, drawingSlot(opts.drawingId ?? `drw_test_${number}`), listCommitment);
  let user = own;
  let batch: Origin["batch"];
  let previousUserContribution: Hex | undefined;
  if (version >= 4) {
    const others = opts.batchOthers ?? DEFAULT_BATCH_OTHERS;
    const index = opts.batchIndex ?? Math.min(1, others.length);
    const contributions = [...others.slice(0, index).map(contributionOf), own, ...others.slice(index).map(contributionOf)];
    batch = { index, size: contributions.length, contributions };
    user = batchUserRandomNumber(contributions);
  }
  if (isReRequested(opts)) {
    previousUserContribution = user;
    const previous = previousOf(opts);
    user = reRequestUserRandomNumber(previous.provider, previous.requestId);
  }
  if ((opts.provider ?? "mock") === "mock") return { value: first, drawn: first, userContribution: user, providerContribution: null, batch, previousUserContribution };
  const value = combine(user, first);
  return { value, drawn: value, userContribution: user, providerContribution: first, batch, previousUserContribution };
}

function base(opts: Common, winners: string[], rng: Rng, listCommitment?: Hex) {
  const campaignId = opts.campaignId ?? "summer-daily";
  const number = opts.number ?? 7;
  const table = opts.table ?? DEFAULT_TABLE;
  const version = opts.version ?? 2;
  const origin = originOf(opts, listCommitment ?? fingerprint(winners), rng);
  const entropy = origin.value;
  const drawn = origin.drawn;
  const drawingId = opts.drawingId ?? `drw_test_${number}`;
  const drawAt = opts.drawAt ?? "2026-11-25T20:00:00.000Z";
  const provider = opts.provider ?? "mock";
  const commitTx = rng.bytes32();
  const revealTx = rng.bytes32();
  const contract = "0x5fbdb2315678afecb367f032d93f642f64180aa3" as Hex;
  let reRequest: ProofReRequest | undefined;
  if (isReRequested({ ...opts, version })) {
    const previous = previousOf(opts);
    reRequest = {
      previousProvider: previous.provider,
      previousRequestId: previous.requestId,
      previousUserContribution: origin.previousUserContribution!,
      timeoutBlocks: opts.timeoutBlocks ?? DEFAULT_TIMEOUT_BLOCKS,
      requestTx: rng.bytes32(),
      requestedAt: "2026-11-25T19:30:30.000Z",
    };
  }
  return {
    proofVersion: version,
    campaign: { id: campaignId, slug: campaignId, name: "Summer Daily" },
    drawing: version >= 3 ? { id: drawingId, number, drawAt, slot: drawingSlot(drawingId) } : { id: drawingId, number, drawAt },
    winnerList: { winners, commitment: fingerprint(winners), lockedAt: "2026-11-25T19:30:00.000Z" },
    entropy:
      version >= 3
        ? {
            provider,
            requestId: "12",
            ...(version >= 4 ? { batch: origin.batch } : {}),
            userContribution: origin.userContribution,
            providerContribution: origin.providerContribution ?? null,
            // Version 6: `value` is the mixed value the results follow, after Entropy's and the request block.
            ...(version >= 6 ? { revealedValue: entropy, requestBlock: origin.requestBlock, value: drawn } : { value: entropy }),
            revealedAt: "2026-11-25T19:31:00.000Z",
            ...(reRequest ? { reRequest } : version >= 6 ? { reRequest: null } : {}),
          }
        : { provider, requestId: "12", value: entropy, revealedAt: "2026-11-25T19:31:00.000Z" },
    prizeTable: tableForProof(table),
    results: computeResults(drawn, campaignId, number, table, winners),
    entrants: null,
    chain: version >= 3 ? { chainId: 31337, contract, entropy: ENTROPY_CONTRACT, commitTx, revealTx } : { chainId: 31337, contract, commitTx, revealTx },
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
  const weights = entrants.map((e) => e.weight);
  const hashes = entrants.map((e) => keccakHex(e.id));
  const commitment = entrantsCommitment(hashes, weights);
  // The entropy comes from the first value of rng in base(); derive it here the same way to select before building.
  const entropy = originOf({ ...opts, campaignId, number }, commitment, new Rng(opts.seed ?? "entries")).drawn;
  const picked = selectEntrantsLinear(entropy, campaignId, number, weights, n);
  const winners = picked.map((i) => entrants[i]!.id);
  const proof: Proof = base({ ...opts, campaignId, number }, winners, rng, commitment);
  proof.entrants = {
    count: entrants.length,
    totalWeight: weights.reduce((a, b) => a + b, 0),
    commitment,
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
