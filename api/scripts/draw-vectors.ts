/**
 * Deterministic test vectors of the draw math (api/src/draw), shared with the contract's Hardhat tests and the
 * verifier. Built here, written by write-draw-vectors.ts, and checked against a fresh build by
 * test/draw/vectors.test.ts so the committed file cannot drift from the library.
 */
import { keccak256, stringToBytes, type Address, type Hex } from "viem";
import {
  batchUserRandomNumber,
  combineRandomValues,
  computePrizes,
  drawingSlot,
  drawValue,
  DEFAULT_PRIZE_TABLE,
  ENTRANTS_SELECTION,
  entrantsCommitment,
  fingerprint,
  reRequestUserRandomNumber,
  rejectionFloor,
  selectWinners,
  toCampaignId,
  userRandomNumber,
  validatePrizeTable,
  winnerHash,
  type PrizeResult,
  type PrizeTable,
  type PrizeTierInput,
} from "../src/draw/index.js";

export type VectorTable = {
  id: string;
  version: number;
  denominator: number;
  amountsCents: number[];
  weights: number[];
  thresholds: number[];
  rejectionFloor: string;
};

/** A position's expected prize: the library's own result shape. */
export type VectorResult = PrizeResult;

export type VectorCase = {
  name: string;
  description: string;
  /** The service's drawing id; slot = keccak256(UTF-8 bytes of drawingId). */
  drawingId: string;
  slot: Hex;
  /** The committed list: entrants.entrantsCommitment for entrant draws, else winners.fingerprint. */
  listCommitment: Hex;
  /** keccak256(abi.encode(bytes32 campaignId, uint64 number, bytes32 slot, bytes32 listCommitment)). */
  userRandomNumber: Hex;
  inputs: {
    entropy: Hex;
    slug: string;
    campaignId: Hex;
    number: string;
    table: VectorTable;
    count: number;
    largePrizeThresholdCents: number;
  };
  winners: { ids: string[]; winnerHashes: Hex[]; fingerprint: Hex };
  entrants: null | {
    ids: string[];
    idHashes: Hex[];
    weights: number[];
    count: number;
    totalWeight: number;
    entrantsCommitment: Hex;
    selection: typeof ENTRANTS_SELECTION;
    selectedPositions: number[];
  };
  expected: { prizeCount: number; results: VectorResult[] };
};

/** One Entropy v2 combination: randomNumber = keccak256(abi.encodePacked(user, provider, bytes32(0))). */
export type CombineVector = { user: Hex; provider: Hex; randomNumber: Hex };

/** One drawing of a batch vector: what its contribution (DrawMath.userRandomNumber) is computed from. */
export type BatchMemberVector = {
  slug: string;
  campaignId: Hex;
  number: string;
  drawingId: string;
  slot: Hex;
  listCommitment: Hex;
  userRandomNumber: Hex;
};

/**
 * One randomness request serving a batch of drawings: userRandomNumber = DrawMath.batchUserRandomNumber of the
 * members' userRandomNumber in batch order. Members are committable in this order on a fresh contract (each
 * campaign's numbers start at 1).
 */
export type BatchVector = { name: string; description: string; members: BatchMemberVector[]; userRandomNumber: Hex };

/**
 * One re-request (PrizeDraw.reRequest): userRandomNumber = DrawMath.reRequestUserRandomNumber(previousProvider,
 * previousSequence) = keccak256(abi.encode(address previousProvider, uint64 previousSequence)).
 */
export type ReRequestVector = { name: string; description: string; previousProvider: Address; previousSequence: string; userRandomNumber: Hex };

/**
 * One drawing value (DrawMath.drawValue, proof format version 6): drawValue = keccak256(abi.encode(bytes32
 * entropyValue, bytes32 requestBlockHash)). `caseName`, when set, names the case whose inputs.entropy is this
 * drawValue, so that case can be checked end to end as a version 6 proof.
 */
export type DrawValueVector = { name: string; description: string; entropyValue: Hex; requestBlockHash: Hex; drawValue: Hex; caseName: string | null };

export type DrawVectors = {
  description: string;
  fields: Record<string, string>;
  cases: VectorCase[];
  combine: CombineVector[];
  batches: BatchVector[];
  reRequest: ReRequestVector[];
  drawValue: DrawValueVector[];
};

const FIELDS: Record<string, string> = {
  "drawingId": "the service's drawing id (any UTF-8 string)",
  "slot": "keccak256 of drawingId's UTF-8 bytes (DrawingCommitted's indexed slot)",
  "listCommitment": "the committed list: entrants.entrantsCommitment for entrant draws, else winners.fingerprint",
  "userRandomNumber":
    "keccak256(abi.encode(bytes32 inputs.campaignId, uint64 inputs.number, bytes32 slot, bytes32 listCommitment)), " +
    "the user contribution of the drawing's randomness request (DrawMath.userRandomNumber)",
  "inputs.entropy":
    "bytes32, the value every prize of the drawing follows from, a proof's entropy.value (proof format version 6: " +
    "Entropy's value mixed with the request block's hash, see drawValue)",
  "inputs.slug": "campaign slug; inputs.campaignId = bytes32(slug), ASCII right-padded with zeros",
  "inputs.number": "uint64 drawing number as a decimal string (may exceed 2^53)",
  "inputs.table":
    "prize table: amountsCents[i] and weights[i] are tier i (top prize first), thresholds[i] = cumulative weight " +
    "(exclusive upper roll of tier i), denominator = sum of weights, rejectionFloor = 2^256 mod denominator (decimal string)",
  "inputs.count": "winnersExpected: winners wanted for the drawing",
  "inputs.largePrizeThresholdCents": "prizes at or above it are held",
  "winners.ids": "winner ids in position order (entrant draws: the selected entrants' ids in selection order)",
  "winners.winnerHashes": "keccak256 of each id's UTF-8 bytes",
  "winners.fingerprint": "keccak256(abi.encode(bytes32[] winnerHashes)), the winners commitment",
  "entrants": "null for winner draws; else the locked entrant list in position order",
  "entrants.entrantsCommitment": "keccak256(abi.encode(bytes32[] idHashes, uint256[] weights)), the list commitment",
  "entrants.selectedPositions": "entrant positions selected as winners 0..n-1, n = min(count, entrants.count), DESIGN.md section 6",
  "expected.prizeCount": "positions that get a prize: count for winner draws, min(count, entrants.count) for entrant draws",
  "expected.results":
    "per position: randomValue = accepted keccak256(abi.encode(entropy, campaignId, uint64 number, uint256 position, uint256 retry)), " +
    "roll = randomValue mod denominator, tier after the top-prize-once rule, amountCents, held = amountCents >= largePrizeThresholdCents",
  "combine":
    "top level, Pyth Entropy v2's random number: randomNumber = keccak256(abi.encodePacked(bytes32 user, bytes32 provider, bytes32(0)))",
  "batches":
    "top level, one randomness request serving several drawings (commitAndRequest's batch): members in batch order, each with " +
    "userRandomNumber = keccak256(abi.encode(bytes32 campaignId, uint64 number, bytes32 slot, bytes32 listCommitment)); the " +
    "request's userRandomNumber = members[0].userRandomNumber for a batch of one, else keccak256(abi.encodePacked(bytes32[] of " +
    "the members' userRandomNumber)) (DrawMath.batchUserRandomNumber). Each campaign's numbers start at 1 in batch order.",
  "reRequest":
    "top level, the user contribution of a re-request (PrizeDraw.reRequest, proof format version 5): userRandomNumber = " +
    "keccak256(abi.encode(address previousProvider, uint64 previousSequence)) of the request it replaces " +
    "(DrawMath.reRequestUserRandomNumber); previousSequence is a decimal string (may exceed 2^53)",
  "drawValue":
    "top level, a drawing's value (proof format version 6, DrawMath.drawValue): drawValue = keccak256(abi.encode(bytes32 " +
    "entropyValue, bytes32 requestBlockHash)), Entropy's value mixed with the hash of the block that holds the request; " +
    "caseName, when not null, is the case whose inputs.entropy is this drawValue",
};

function vectorTable(table: PrizeTable): VectorTable {
  return {
    id: table.id,
    version: table.version,
    denominator: table.denominator,
    amountsCents: table.tiers.map((t) => t.amountCents),
    weights: table.tiers.map((t) => t.weight),
    thresholds: table.tiers.map((t) => t.threshold),
    rejectionFloor: rejectionFloor(BigInt(table.denominator)).toString(),
  };
}

type CaseSpec = {
  name: string;
  description: string;
  drawingId: string;
  slug: string;
  number: bigint;
  table: PrizeTable;
  count: number;
  largePrizeThresholdCents: number;
  winnerIds?: string[];
  entrants?: { ids: string[]; weights: number[] };
  /** The value the prizes follow from; default a fixed function of the name. */
  entropy?: Hex;
};

function table(id: string, tiers: PrizeTierInput[]): PrizeTable {
  return validatePrizeTable({ id, version: 1, tiers });
}

function buildCase(spec: CaseSpec): VectorCase {
  // Entropy is a fixed function of the case name: deterministic, and unrelated between cases.
  const entropy = spec.entropy ?? keccak256(stringToBytes(`prize-draw-vectors/${spec.name}`));
  const campaignId = toCampaignId(spec.slug);
  let entrants: VectorCase["entrants"] = null;
  let ids = spec.winnerIds ?? [];
  let prizeCount = spec.count;
  if (spec.entrants !== undefined) {
    const idHashes = spec.entrants.ids.map(winnerHash);
    const weights = spec.entrants.weights;
    const selectedPositions = selectWinners({
      entropy,
      campaignId,
      number: spec.number,
      weights: weights.map(BigInt),
      count: spec.count,
    });
    ids = selectedPositions.map((p) => spec.entrants?.ids[p] as string);
    prizeCount = Math.min(spec.count, weights.length);
    entrants = {
      ids: spec.entrants.ids,
      idHashes,
      weights,
      count: weights.length,
      totalWeight: weights.reduce((a, b) => a + b, 0),
      entrantsCommitment: entrantsCommitment(idHashes.map((idHash, i) => ({ idHash, weight: BigInt(weights[i] as number) }))),
      selection: ENTRANTS_SELECTION,
      selectedPositions,
    };
  }
  if (ids.length !== prizeCount) throw new Error(`${spec.name}: ${ids.length} winner ids for ${prizeCount} prizes`);
  const slot = drawingSlot(spec.drawingId);
  const listCommitment = entrants === null ? fingerprint(ids) : entrants.entrantsCommitment;
  const results = computePrizes({
    entropy,
    campaignId,
    number: spec.number,
    table: spec.table,
    count: prizeCount,
    largePrizeThresholdCents: spec.largePrizeThresholdCents,
  });
  return {
    name: spec.name,
    description: spec.description,
    drawingId: spec.drawingId,
    slot,
    listCommitment,
    userRandomNumber: userRandomNumber({ campaignId, number: spec.number, slot, listCommitment }),
    inputs: {
      entropy,
      slug: spec.slug,
      campaignId,
      number: spec.number.toString(),
      table: vectorTable(spec.table),
      count: spec.count,
      largePrizeThresholdCents: spec.largePrizeThresholdCents,
    },
    winners: { ids, winnerHashes: ids.map(winnerHash), fingerprint: fingerprint(ids) },
    entrants,
    expected: { prizeCount, results },
  };
}

const numbered = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);

export function buildDrawVectors(): DrawVectors {
  const specs: CaseSpec[] = [
    {
      name: "default-single",
      drawingId: "drw_01jdefault0single",
      description: "Spec default table, one winner.",
      slug: "summer-daily",
      number: 1n,
      table: DEFAULT_PRIZE_TABLE,
      count: 1,
      largePrizeThresholdCents: 100_000,
      winnerIds: ["w-1"],
    },
    {
      name: "default-twenty-low-threshold",
      drawingId: "drw_01jdefault0twenty",
      description: "Spec default table, 20 winners, large-prize threshold 10 dollars so the 1000-cent prizes are held.",
      slug: "summer-daily",
      number: 7n,
      table: DEFAULT_PRIZE_TABLE,
      count: 20,
      largePrizeThresholdCents: 1_000,
      winnerIds: numbered("w", 20),
    },
    {
      name: "top-prize-once-two-tiers",
      drawingId: "drw_likely_top_3",
      description:
        "Two tiers, top tier weight 9 of 10: most rolls land in tier 0 but only the first pays it; later tier-0 rolls pay tier 1.",
      slug: "likely-top",
      number: 3n,
      table: table("likely-top", [
        { amountCents: 500_000, weight: 9 },
        { amountCents: 300, weight: 1 },
      ]),
      count: 12,
      largePrizeThresholdCents: 100_000,
      winnerIds: numbered("lucky", 12),
    },
    {
      name: "top-prize-once-three-tiers",
      drawingId: "drw_three_tiers_42",
      description: "Three tiers with a likely top tier; the rule pays tier 1, never tier 2, for a repeated top roll.",
      slug: "three-tiers",
      number: 42n,
      table: table("three-tiers", [
        { amountCents: 2_500, weight: 3 },
        { amountCents: 700, weight: 2 },
        { amountCents: 50, weight: 1 },
      ]),
      count: 15,
      largePrizeThresholdCents: 1_000,
      winnerIds: numbered("t", 15),
    },
    {
      name: "max-denominator-max-number",
      drawingId: "drw_edge",
      description: "Denominator 2,147,483,647 (the cap) and drawing number 2^64 - 1 (uint64 max).",
      slug: "edge-case",
      number: (1n << 64n) - 1n,
      table: table("max-denominator", [
        { amountCents: 100_000_000, weight: 1 },
        { amountCents: 50_000, weight: 1_000 },
        { amountCents: 100, weight: 2_147_482_646 },
      ]),
      count: 10,
      largePrizeThresholdCents: 50_000,
      winnerIds: numbered("edge", 10),
    },
    {
      name: "sixteen-tiers-32-byte-slug",
      drawingId: "drw_sixteen",
      description: "MAX_TIERS (16) tiers, a 32-byte slug (no padding) and a drawing number above 2^53.",
      slug: "abcdefghijklmnopqrstuvwxyz-12345",
      number: 9_007_199_254_740_993n,
      table: table(
        "sixteen",
        Array.from({ length: 16 }, (_, i) => ({ amountCents: (16 - i) * 1_000, weight: i + 1 })),
      ),
      count: 20,
      largePrizeThresholdCents: 12_000,
      winnerIds: numbered("s", 20),
    },
    {
      name: "repeated-and-unicode-winner-ids",
      drawingId: "drw_café-☕",
      description: "The same id listed twice gets two rolls (spec rule 6); ids are hashed as UTF-8.",
      slug: "summer-daily",
      number: 2n,
      table: DEFAULT_PRIZE_TABLE,
      count: 4,
      largePrizeThresholdCents: 100_000,
      winnerIds: ["same", "same", "café-☕", ""],
    },
    {
      name: "entrants-weighted",
      drawingId: "drw_entries_5",
      description: "Entrant draw: 12 weighted entrants (weights 1 to 2^32 - 1), 5 winners selected, then their prizes.",
      slug: "entries-weekly",
      number: 5n,
      table: DEFAULT_PRIZE_TABLE,
      count: 5,
      largePrizeThresholdCents: 100_000,
      entrants: {
        ids: numbered("entrant", 12),
        weights: [1, 3, 4_294_967_295, 7, 1, 100, 2, 65_536, 1, 5, 1_000_000, 9],
      },
    },
    {
      name: "draw-value-winners",
      drawingId: "drw_draw_value_1",
      description: "A winners draw whose value is a drawValue (see drawValue's caseName): checkable end to end as a version 6 proof.",
      slug: "block-mixed",
      number: 1n,
      table: DEFAULT_PRIZE_TABLE,
      count: 6,
      largePrizeThresholdCents: 100_000,
      winnerIds: numbered("bm", 6),
      entropy: DRAW_VALUE_ORIGINS["draw-value-winners"].drawValue,
    },
    {
      name: "draw-value-entrants",
      drawingId: "drw_draw_value_2",
      description: "An entrant draw whose value is a drawValue: the selection follows from it as the prizes do.",
      slug: "block-mixed",
      number: 2n,
      table: DEFAULT_PRIZE_TABLE,
      count: 3,
      largePrizeThresholdCents: 100_000,
      entrants: { ids: numbered("bm-entrant", 8), weights: [5, 1, 2, 9, 1, 3, 7, 4] },
      entropy: DRAW_VALUE_ORIGINS["draw-value-entrants"].drawValue,
    },
    {
      name: "entrants-fewer-than-winners",
      drawingId: "drw_entries_6",
      description: "Entrant draw with 6 entrants and 10 winners wanted: all 6 are selected, in draw order; 6 prizes.",
      slug: "entries-weekly",
      number: 6n,
      table: table("small", [
        { amountCents: 10_000, weight: 1 },
        { amountCents: 1_000, weight: 4 },
        { amountCents: 100, weight: 5 },
      ]),
      count: 10,
      largePrizeThresholdCents: 10_000,
      entrants: { ids: numbered("e", 6), weights: [10, 1, 1, 5, 2, 3] },
    },
  ];
  const cases = specs.map(buildCase);
  return {
    description:
      "Draw math test vectors (spec 'Draw computation', DESIGN.md sections 5-6). Generated by " +
      "api/scripts/write-draw-vectors.ts from api/src/draw; the contract and the verifier must reproduce them. " +
      "Hex is lowercase; integers that may exceed 2^53 are decimal strings.",
    fields: FIELDS,
    cases,
    combine: combineVectors(cases),
    batches: batchVectors(),
    reRequest: reRequestVectors(),
    drawValue: drawValueVectors(cases),
  };
}

/** A made-up block hash, a fixed function of a label. */
const blockHash = (label: string): Hex => keccak256(stringToBytes(`prize-draw-vectors/block/${label}`));

/** The origins of the two cases whose value is a drawValue: Entropy's value (made up) and the request block's hash. */
const DRAW_VALUE_ORIGINS = Object.fromEntries(
  (["draw-value-winners", "draw-value-entrants"] as const).map((name) => {
    const entropyValue = keccak256(stringToBytes(`prize-draw-vectors/entropy/${name}`));
    const requestBlockHash = blockHash(name);
    return [name, { entropyValue, requestBlockHash, drawValue: drawValue(entropyValue, requestBlockHash) }];
  }),
) as Record<"draw-value-winners" | "draw-value-entrants", { entropyValue: Hex; requestBlockHash: Hex; drawValue: Hex }>;

/**
 * Drawing values: the zero and all-ones words, each word alone (a swapped encoding differs), an Entropy value of
 * the combine vectors with Ethereum mainnet's genesis block hash, and the two cases' origins.
 */
function drawValueVectors(cases: VectorCase[]): DrawValueVector[] {
  const word = (byte: string): Hex => `0x${byte.repeat(32)}`;
  const vector = (name: string, description: string, entropyValue: Hex, requestBlockHash: Hex, caseName: string | null = null): DrawValueVector => ({
    name,
    description,
    entropyValue,
    requestBlockHash,
    drawValue: drawValue(entropyValue, requestBlockHash),
    caseName,
  });
  const first = cases[0] as VectorCase;
  const entropyOfFirst = combineRandomValues(first.userRandomNumber, keccak256(stringToBytes(`prize-draw-vectors/provider/${first.name}`)));
  return [
    vector("zero", "The zero words.", word("00"), word("00")),
    vector("ones", "The all-ones words.", word("ff"), word("ff")),
    vector("ones-then-zero", "All-ones Entropy value, zero block hash.", word("ff"), word("00")),
    vector("zero-then-ones", "Zero Entropy value, all-ones block hash: differs from the previous one, so the order of the words counts.", word("00"), word("ff")),
    vector(
      "mainnet-genesis",
      "An Entropy value of the combine vectors (the first case's request) with Ethereum mainnet's genesis block hash.",
      entropyOfFirst,
      "0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3",
    ),
    ...(["draw-value-winners", "draw-value-entrants"] as const).map((name) =>
      vector(`case-${name}`, `The value of the case ${name}.`, DRAW_VALUE_ORIGINS[name].entropyValue, DRAW_VALUE_ORIGINS[name].requestBlockHash, name),
    ),
  ];
}

/** Re-requests of edge and realistic requests: the zero and all-ones words, Pyth provider addresses, a sequence past 2^53. */
function reRequestVectors(): ReRequestVector[] {
  const vector = (name: string, description: string, previousProvider: Address, previousSequence: bigint): ReRequestVector => ({
    name,
    description,
    previousProvider,
    previousSequence: previousSequence.toString(),
    userRandomNumber: reRequestUserRandomNumber(previousProvider, previousSequence),
  });
  return [
    vector("zero", "The zero address and sequence 0.", "0x0000000000000000000000000000000000000000", 0n),
    vector("pyth-provider", "A Pyth Entropy provider's address, an early sequence.", "0x6cc14824ea2918f5de5c2f75a9da968ad4bd6344", 1_234n),
    vector("sequence-above-2^53", "A sequence no JavaScript number holds exactly.", "0x52deaa1c84233f7bb8c8a45baede41091c616506", 9_007_199_254_740_993n),
    vector("max", "The all-ones address and the largest uint64 sequence.", "0xffffffffffffffffffffffffffffffffffffffff", (1n << 64n) - 1n),
  ];
}

/** Batches of 1, 2 and 5 drawings, across campaigns, committable in order on a fresh contract. */
function batchVectors(): BatchVector[] {
  const member = (slug: string, number: bigint, drawingId: string, winners: string[]): BatchMemberVector => {
    const campaignId = toCampaignId(slug);
    const slot = drawingSlot(drawingId);
    const listCommitment = fingerprint(winners);
    return {
      slug,
      campaignId,
      number: number.toString(),
      drawingId,
      slot,
      listCommitment,
      userRandomNumber: userRandomNumber({ campaignId, number, slot, listCommitment }),
    };
  };
  const batch = (name: string, description: string, members: BatchMemberVector[]): BatchVector => ({
    name,
    description,
    members,
    userRandomNumber: batchUserRandomNumber(members.map((m) => m.userRandomNumber)),
  });
  return [
    batch("batch-of-one", "One drawing: the request's contribution is the drawing's own.", [
      member("summer-daily", 1n, "drw_batch_one", ["w-1", "w-2", "w-3"]),
    ]),
    batch("batch-of-two", "Two campaigns' first drawings under one request.", [
      member("summer-daily", 1n, "drw_batch_two_a", ["a-1", "a-2", "a-3"]),
      member("batch-other", 1n, "drw_batch_two_b", ["b-1", "b-2", "b-3"]),
    ]),
    batch("batch-of-five", "Five drawings of two campaigns, interleaved, the same winner list in two of them.", [
      member("summer-daily", 1n, "drw_batch_five_1", ["x-1", "x-2", "x-3"]),
      member("batch-other", 1n, "drw_batch_five_2", ["y-1", "y-2", "y-3"]),
      member("summer-daily", 2n, "drw_batch_five_3", ["x-1", "x-2", "x-3"]),
      member("summer-daily", 3n, "drw_batch_five_4", ["z-1", "z-2", "z-3"]),
      member("batch-other", 2n, "drw_batch_five_5", ["café-☕", "y-2", ""]),
    ]),
  ];
}

/** Entropy v2 combinations: edge words, and made-up provider revelations for two of the cases' requests. */
function combineVectors(cases: VectorCase[]): CombineVector[] {
  const word = (byte: string): Hex => `0x${byte.repeat(32)}`;
  const pairs: [Hex, Hex][] = [
    [word("00"), word("00")],
    [word("ff"), word("00")],
    [word("00"), word("ff")],
    [word("01"), word("02")],
    ...[cases[0], cases[cases.length - 1]].map((c): [Hex, Hex] => [
      (c as VectorCase).userRandomNumber,
      keccak256(stringToBytes(`prize-draw-vectors/provider/${(c as VectorCase).name}`)),
    ]),
  ];
  return pairs.map(([user, provider]) => ({ user, provider, randomNumber: combineRandomValues(user, provider) }));
}
