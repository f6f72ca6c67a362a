/**
 * Published draw proofs (docs/proof-format.md), assembled from the store (names, ids) and indexed chain data
 * (everything a verifier recomputes). The builders refuse to produce a proof whose ids do not hash to the onchain
 * commitments, or (version 3) whose slot, user contribution or random value do not follow from the commit: such
 * a proof would fail every verifier.
 *
 * - Version 6 (`buildProofV6`, current): version 5 plus `entropy.revealedValue` (Entropy's value, what earlier
 *   versions call `value`) and `entropy.requestBlock` (the number and hash of the block that holds the request that
 *   was revealed: the commit's, or the re-request's); `entropy.value`, the value every prize follows from, is
 *   drawValue(revealedValue, requestBlock.hash): the contract mixes the block hash in so nobody can steer a drawing
 *   by choosing its slot, moment or sequence number.
 * - Version 5 (`buildProofV5`): version 4 plus `entropy.reRequest`: null for a drawing revealed at the
 *   commit's request; for one whose request was not revealed within the deployment's timeout and was re-requested,
 *   once, in public (PrizeDraw.reRequest), the replaced request. `entropy.provider`, `requestId` and
 *   `userContribution` are then the new request's; the batch derives the previous request's contribution, kept in
 *   `reRequest.previousUserContribution`.
 * - Version 4 (`buildProofV4`): version 3 plus `entropy.batch`, the randomness request's batch of drawings
 *   (this drawing's index, the batch size and every member's contribution in batch order), so a proof shows which
 *   request served which drawings and the request's user contribution is recomputed from the batch.
 * - Version 3 (`buildProofV3`): version 2 plus the drawing's slot, the request's user contribution, the
 *   provider's contribution and the Entropy contract's address, so the origin of the random value is checked too.
 *   Right for a drawing requested alone (before batches, or a batch of one); kept for callers that still build it.
 * - Version 2 (`buildProofV2`): kept for the callers that still serve it; verify-draw.mjs checks all four versions.
 */
import type { Address, Hex } from "viem";
import { assertBytes32 } from "./abi.js";
import { entrantsCommitment, ENTRANTS_SELECTION } from "./entrants.js";
import { DrawInputError, ProofMismatchError } from "./errors.js";
import { drawingSlot, fingerprint, toCampaignId } from "./hash.js";
import { batchUserRandomNumber, combineRandomValues, drawValue, reRequestUserRandomNumber, userRandomNumber } from "./origin.js";
import type { PrizeTable } from "./prizeTable.js";

/** The proof format version the service publishes now (buildProofV6), for every drawing. */
export const PROOF_VERSION = 6;
/** Earlier versions, still built by buildProofV5, V4, V3 and V2 and still checked by the verifier. */
export const PROOF_VERSION_V5 = 5;
export const PROOF_VERSION_V4 = 4;
export const PROOF_VERSION_V3 = 3;
export const PROOF_VERSION_V2 = 2;

export type ProofTier = { amountCents: number; weight: number; threshold: number };

export type ProofResult = {
  position: number;
  winner: string;
  displayName: string | null;
  randomValue: Hex;
  roll: number;
  amountCents: number;
};

export type ProofEntrant = { hash: Hex; weight: number };

export type ProofEntrants = {
  count: number;
  totalWeight: number;
  commitment: Hex;
  selection: typeof ENTRANTS_SELECTION;
  list: ProofEntrant[];
};

/** "mock" in the test environment, else the entropy provider's address. */
export type EntropyProvider = "mock" | Address;

/** A version 2 proof. Key order is part of the format: objects are built in this order. */
export type ProofV2 = {
  proofVersion: 2;
  campaign: { id: string; slug: string; name: string };
  drawing: { id: string; number: number; drawAt: string };
  winnerList: { winners: string[]; commitment: Hex; lockedAt: string };
  entropy: { provider: EntropyProvider; requestId: string; value: Hex; revealedAt: string };
  prizeTable: { id: string; version: number; denominator: number; tiers: ProofTier[] };
  results: ProofResult[];
  entrants: ProofEntrants | null;
  chain: { chainId: number; contract: Address; commitTx: Hex; revealTx: Hex };
};

/**
 * A version 3 proof: version 2 plus `drawing.slot`, `entropy.userContribution`, `entropy.providerContribution`
 * and `chain.entropy`. Key order is part of the format.
 */
export type ProofV3 = {
  proofVersion: 3;
  campaign: { id: string; slug: string; name: string };
  drawing: { id: string; number: number; drawAt: string; slot: Hex };
  winnerList: { winners: string[]; commitment: Hex; lockedAt: string };
  entropy: {
    provider: EntropyProvider;
    requestId: string;
    userContribution: Hex;
    /** The provider's revelation from Entropy's Revealed event; null with the mock provider or when unknown. */
    providerContribution: Hex | null;
    value: Hex;
    revealedAt: string;
  };
  prizeTable: { id: string; version: number; denominator: number; tiers: ProofTier[] };
  results: ProofResult[];
  entrants: ProofEntrants | null;
  chain: { chainId: number; contract: Address; entropy: Address; commitTx: Hex; revealTx: Hex };
};

/**
 * The randomness request's batch in a version 4 proof: this drawing is member `index` of `size`, and
 * `contributions` holds every member's userRandomNumber in batch order (`contributions[index]` is this drawing's).
 */
export type ProofBatch = { index: number; size: number; contributions: Hex[] };

/**
 * A version 4 proof: version 3 plus `entropy.batch`; `entropy.userContribution` is the request's, i.e.
 * batchUserRandomNumber(batch.contributions). Key order is part of the format.
 */
export type ProofV4 = Omit<ProofV3, "proofVersion" | "entropy"> & {
  proofVersion: 4;
  entropy: {
    provider: EntropyProvider;
    requestId: string;
    batch: ProofBatch;
    userContribution: Hex;
    providerContribution: Hex | null;
    value: Hex;
    revealedAt: string;
  };
};

/**
 * The re-request of a version 5 proof: the request the commit made (`previousProvider`, `previousRequestId`, with
 * the batch's contribution `previousUserContribution`) was not revealed within `timeoutBlocks` blocks, so the
 * drawing's value was requested again, once, in public: by `requestTx`, at `requestedAt`.
 */
export type ProofReRequest = {
  /** Always the provider's address, also when `entropy.provider` is "mock". */
  previousProvider: Address;
  /** The previous request's sequence number (decimal string). */
  previousRequestId: string;
  /** batchUserRandomNumber(entropy.batch.contributions): what the commit requested with. */
  previousUserContribution: Hex;
  /** The deployment's revealTimeoutBlocks. */
  timeoutBlocks: number;
  requestTx: Hex;
  requestedAt: string;
};

/**
 * A version 5 proof: version 4 plus `entropy.reRequest`. `entropy.provider`, `requestId` and `userContribution` are
 * the new request's (`userContribution` = reRequestUserRandomNumber(previousProvider, previousRequestId)), and
 * `chain.revealTx` its reveal. Key order is part of the format.
 */
export type ProofV5 = Omit<ProofV4, "proofVersion" | "entropy"> & {
  proofVersion: 5;
  entropy: ProofV4["entropy"] & { reRequest: ProofReRequest | null };
};

/** The block that holds the request a version 6 proof's value answers: the commit's, or the re-request's. */
export type ProofRequestBlock = { number: number; hash: Hex };

/**
 * A version 6 proof: version 5 plus `entropy.revealedValue` (Entropy's value) and `entropy.requestBlock`;
 * `entropy.value` = drawValue(revealedValue, requestBlock.hash), from which every result follows. Key order is
 * part of the format.
 */
export type ProofV6 = Omit<ProofV5, "proofVersion" | "entropy"> & {
  proofVersion: 6;
  entropy: {
    provider: EntropyProvider;
    requestId: string;
    batch: ProofBatch;
    userContribution: Hex;
    providerContribution: Hex | null;
    revealedValue: Hex;
    requestBlock: ProofRequestBlock;
    value: Hex;
    revealedAt: string;
    reRequest: ProofReRequest | null;
  };
};

/** A position's prize as indexed from the PrizeAwarded events. */
export type IndexedResult = { position: number; randomValue: Hex; roll: number; amountCents: number };

export type ProofInput = {
  campaign: { slug: string; name: string };
  drawing: { id: string; number: number; drawAt: string };
  /** In position order. */
  winners: readonly { winner: string; displayName: string | null }[];
  /** The onchain winners commitment (fingerprint of the winner ids). */
  commitment: Hex;
  /** When the list locked (for entrant draws, the entrant list's lock). */
  lockedAt: string;
  entropy: { provider: EntropyProvider; requestId: string; value: Hex; revealedAt: string };
  table: PrizeTable;
  results: readonly IndexedResult[];
  /** Entrant draws only: the locked entrant list in position order and its onchain commitment and totals. */
  entrants: null | {
    count: number;
    totalWeight: number;
    commitment: Hex;
    list: readonly { hash: Hex; weight: number }[];
  };
  chain: { chainId: number; contract: Address; commitTx: Hex; revealTx: Hex };
};

/** What buildProofV3 needs besides a version 2 input. */
export type ProofInputV3 = Omit<ProofInput, "drawing" | "entropy" | "chain"> & {
  /** `slot`: the slot indexed from DrawingCommitted, when known; it must be keccak256 of `id`. */
  drawing: { id: string; number: number; drawAt: string; slot?: Hex };
  entropy: ProofInput["entropy"] & {
    /** EntropyRequested.userRandomNumber, when known; it must equal the value derived from the commit. */
    userContribution?: Hex;
    /** Revealed.providerContribution of the Entropy contract; null when unknown. Ignored for the mock provider. */
    providerContribution: Hex | null;
  };
  /** `entropy`: the Entropy contract's address (PrizeDraw.entropy()). */
  chain: ProofInput["chain"] & { entropy: Address };
};

/** One drawing of a randomness request's batch, as indexed (DrawingCommitted of each member). */
export type ProofBatchMember = {
  campaignId: Hex;
  number: bigint | number;
  slot: Hex;
  listCommitment: Hex;
  /** The member's EntropyRequested.batchIndex, when known: it must be its place in `members`. */
  batchIndex?: number;
};

/** What buildProofV4 needs besides a version 3 input. */
export type ProofInputV4 = ProofInputV3 & {
  /**
   * The request's batch as indexed: this drawing's batchIndex and batchSize (EntropyRequested) and every member
   * (the drawings of the same provider and sequence) ordered by batchIndex.
   */
  batch: { index: number; size: number; members: readonly ProofBatchMember[] };
};

/** What buildProofV5 needs besides a version 4 input. */
export type ProofInputV5 = ProofInputV4 & {
  /**
   * The drawing's EntropyReRequested event: `previousProvider` and `previousRequestId` (its previousProvider and
   * previousSequence), the deployment's revealTimeoutBlocks, and the re-request's transaction and block time. With
   * it, `entropy.provider` and `entropy.requestId` are the new request's, `entropy.userContribution` (when known)
   * the event's userRandomNumber and `chain.revealTx` the new request's reveal.
   */
  reRequest: {
    previousProvider: Address;
    previousRequestId: string;
    timeoutBlocks: number;
    requestTx: Hex;
    requestedAt: string;
    /** The commit's EntropyRequested.userRandomNumber, when known: it must be the batch's. */
    previousUserContribution?: Hex;
  } | null;
};

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;
const UINT64_LIMIT = 1n << 64n;

function assertAddress(value: string, what: string): Address {
  if (typeof value !== "string" || !ADDRESS.test(value)) {
    throw new DrawInputError("bad_hex", `${what} must be a 20-byte hex address, got ${String(value)}`);
  }
  return value.toLowerCase() as Address;
}

function buildEntrants(entrants: NonNullable<ProofInput["entrants"]>): ProofEntrants {
  const list = entrants.list.map(({ hash, weight }, i): ProofEntrant => {
    if (!Number.isSafeInteger(weight) || weight < 1) {
      throw new DrawInputError("bad_weight", `entrants.list[${i}].weight must be a positive integer, got ${String(weight)}`);
    }
    return { hash: assertBytes32(hash, `entrants.list[${i}].hash`), weight };
  });
  const commitment = assertBytes32(entrants.commitment, "entrants.commitment");
  const computed = entrantsCommitment(list.map((e) => ({ idHash: e.hash, weight: BigInt(e.weight) })));
  if (computed !== commitment) {
    throw new ProofMismatchError(
      "entrants_commitment",
      `The entrant list hashes to ${computed}, not to the onchain entrant commitment ${commitment}`,
    );
  }
  const totalWeight = list.reduce((sum, e) => sum + e.weight, 0);
  if (entrants.count !== list.length || entrants.totalWeight !== totalWeight) {
    throw new ProofMismatchError(
      "entrants_totals",
      `The entrant list has ${list.length} entrants of total weight ${totalWeight}, the chain says ${entrants.count} and ${entrants.totalWeight}`,
    );
  }
  return { count: list.length, totalWeight, commitment, selection: ENTRANTS_SELECTION, list };
}

/** Indexed results in position order; they must cover positions 0..winners-1 exactly once. */
function orderedResults(results: readonly IndexedResult[], winners: number): IndexedResult[] {
  if (results.length !== winners) {
    throw new ProofMismatchError("results", `${results.length} indexed results for ${winners} winners`);
  }
  const byPosition: (IndexedResult | undefined)[] = new Array<IndexedResult | undefined>(winners);
  for (const result of results) {
    const { position } = result;
    if (!Number.isSafeInteger(position) || position < 0 || position >= winners || byPosition[position] !== undefined) {
      throw new ProofMismatchError("results", `Indexed result position ${String(position)} is out of range or repeated`);
    }
    byPosition[position] = result;
  }
  return byPosition as IndexedResult[];
}

/** The parts version 2 and version 3 share, checked. */
function assemble(input: ProofInput) {
  const ids = input.winners.map((w) => w.winner);
  const commitment = assertBytes32(input.commitment, "commitment");
  const computed = fingerprint(ids);
  if (computed !== commitment) {
    throw new ProofMismatchError(
      "winners_commitment",
      `The winner list hashes to ${computed}, not to the onchain commitment ${commitment}`,
    );
  }
  const entrants = input.entrants === null ? null : buildEntrants(input.entrants);
  const results = orderedResults(input.results, ids.length).map((r): ProofResult => {
    const winner = input.winners[r.position] as ProofInput["winners"][number];
    return {
      position: r.position,
      winner: winner.winner,
      displayName: winner.displayName,
      randomValue: assertBytes32(r.randomValue, `results[${r.position}].randomValue`),
      roll: r.roll,
      amountCents: r.amountCents,
    };
  });
  const provider: EntropyProvider =
    input.entropy.provider === "mock" ? "mock" : assertAddress(input.entropy.provider, "entropy.provider");
  return {
    campaign: { id: input.campaign.slug, slug: input.campaign.slug, name: input.campaign.name },
    winnerList: { winners: ids, commitment, lockedAt: input.lockedAt },
    provider,
    value: assertBytes32(input.entropy.value, "entropy.value"),
    prizeTable: {
      id: input.table.id,
      version: input.table.version,
      denominator: input.table.denominator,
      tiers: input.table.tiers.map((t) => ({ amountCents: t.amountCents, weight: t.weight, threshold: t.threshold })),
    },
    results,
    entrants,
    contract: assertAddress(input.chain.contract, "chain.contract"),
    commitTx: assertBytes32(input.chain.commitTx, "chain.commitTx"),
    revealTx: assertBytes32(input.chain.revealTx, "chain.revealTx"),
  };
}

/** Assembles a version 2 proof; throws ProofMismatchError when the store and the chain disagree. */
export function buildProofV2(input: ProofInput): ProofV2 {
  const p = assemble(input);
  return {
    proofVersion: 2,
    campaign: p.campaign,
    drawing: { id: input.drawing.id, number: input.drawing.number, drawAt: input.drawing.drawAt },
    winnerList: p.winnerList,
    entropy: { provider: p.provider, requestId: input.entropy.requestId, value: p.value, revealedAt: input.entropy.revealedAt },
    prizeTable: p.prizeTable,
    results: p.results,
    entrants: p.entrants,
    chain: { chainId: input.chain.chainId, contract: p.contract, commitTx: p.commitTx, revealTx: p.revealTx },
  };
}

/**
 * Assembles a version 3 proof; throws ProofMismatchError when the store and the chain disagree: besides the
 * version 2 checks, the slot must be keccak256 of the drawing id, the onchain user contribution (when given) the
 * one derived from the commit, and for a real provider with a known contribution the random value must be
 * keccak256(userContribution, providerContribution, 0).
 */
export function buildProofV3(input: ProofInputV3): ProofV3 {
  const p = assemble(input);
  const own = ownContribution(input, p);
  const origin = checkedOrigin(input, p, own.userContribution);
  return v3Shape(input, p, own.slot, own.userContribution, origin);
}

/**
 * Assembles a version 4 proof; throws ProofMismatchError when the store and the chain disagree: besides the
 * version 3 checks, the indexed batch must hold `size` members with this drawing (its campaign, number, slot and
 * list) at `index`, and the request's user contribution (when given) must be batchUserRandomNumber of the members'
 * contributions, which also enters the random value's combination.
 */
export function buildProofV4(input: ProofInputV4): ProofV4 {
  const p = assemble(input);
  const own = ownContribution(input, p);
  const batch = checkedBatch(input, own.userContribution);
  const origin = checkedOrigin(input, p, batch.requestContribution);
  return v4Shape(input, p, own.slot, batch, batch.requestContribution, origin);
}

/**
 * Assembles a version 5 proof, for a drawing whose request was re-requested; throws ProofMismatchError when the
 * store and the chain disagree: besides the version 4 checks of the batch (which now derives the previous
 * request's contribution, and must give the commit's when `reRequest.previousUserContribution` is given), the
 * indexed user contribution (when given) must be reRequestUserRandomNumber(previousProvider, previousRequestId),
 * which also enters the random value's combination.
 */
export function buildProofV5(input: ProofInputV5): ProofV5 {
  const r = input.reRequest;
  if (r === null) {
    const v4 = buildProofV4(input);
    return { ...v4, proofVersion: 5, entropy: { ...v4.entropy, reRequest: null } };
  }
  const p = assemble(input);
  const own = ownContribution(input, p);
  const batch = checkedBatch(input, own.userContribution);
  const previousProvider = assertAddress(r.previousProvider, "reRequest.previousProvider");
  const previousRequestId = assertRequestId(r.previousRequestId, "reRequest.previousRequestId");
  const previousUserContribution = batch.requestContribution;
  if (r.previousUserContribution !== undefined && assertBytes32(r.previousUserContribution, "reRequest.previousUserContribution") !== previousUserContribution) {
    throw new ProofMismatchError(
      "user_contribution",
      `The commit's user contribution ${r.previousUserContribution} (request ${previousRequestId}) is not the one the batch derives (${previousUserContribution})`,
    );
  }
  if (!Number.isSafeInteger(r.timeoutBlocks) || r.timeoutBlocks < 1) {
    throw new DrawInputError("bad_number", `reRequest.timeoutBlocks must be a positive whole number of blocks, got ${String(r.timeoutBlocks)}`);
  }
  const requestTx = assertBytes32(r.requestTx, "reRequest.requestTx");
  const userContribution = reRequestUserRandomNumber(previousProvider, BigInt(previousRequestId));
  const origin = checkedOrigin(input, p, userContribution, `the previous request (${previousProvider}, ${previousRequestId})`);
  const v4 = v4Shape(input, p, own.slot, batch, userContribution, origin);
  return {
    ...v4,
    proofVersion: 5,
    entropy: {
      ...v4.entropy,
      reRequest: {
        previousProvider,
        previousRequestId,
        previousUserContribution,
        timeoutBlocks: r.timeoutBlocks,
        requestTx,
        requestedAt: r.requestedAt,
      },
    },
  };
}

/**
 * What buildProofV6 needs besides a version 5 input, whose `entropy.value` is Entropy's value (EntropyRevealed's
 * entropyValue; the proof's `revealedValue`).
 */
export type ProofInputV6 = ProofInputV5 & {
  /** The block of the commit (or of the re-request, when there is one) and its hash, from EntropyRevealed. */
  requestBlock: ProofRequestBlock;
  /** EntropyRevealed.randomValue: must be drawValue(entropy.value, requestBlock.hash). The proof's `entropy.value`. */
  drawValue: Hex;
};

/**
 * Assembles a version 6 proof; throws ProofMismatchError when the store and the chain disagree: besides the
 * version 5 checks (of Entropy's value, the proof's `revealedValue`), the drawing's indexed value must be
 * drawValue(revealedValue, requestBlock.hash).
 */
export function buildProofV6(input: ProofInputV6): ProofV6 {
  const v5 = buildProofV5(input);
  const { number } = input.requestBlock;
  if (!Number.isSafeInteger(number) || number < 1) {
    throw new DrawInputError("bad_number", `requestBlock.number must be a positive whole block number, got ${String(number)}`);
  }
  const hash = assertBytes32(input.requestBlock.hash, "requestBlock.hash");
  const computed = drawValue(v5.entropy.value, hash);
  if (assertBytes32(input.drawValue, "drawValue") !== computed) {
    throw new ProofMismatchError(
      "draw_value",
      `The drawing's value ${input.drawValue} is not Entropy's value ${v5.entropy.value} mixed with the request block's hash ${hash} (${computed})`,
    );
  }
  const { provider, requestId, batch, userContribution, providerContribution, value, revealedAt, reRequest } = v5.entropy;
  return {
    ...v5,
    proofVersion: 6,
    entropy: { provider, requestId, batch, userContribution, providerContribution, revealedValue: value, requestBlock: { number, hash }, value: computed, revealedAt, reRequest },
  };
}

/** A request id (an Entropy sequence number): a uint64 in decimal, without leading zeros. */
function assertRequestId(value: string, what: string): string {
  if (typeof value !== "string" || !DECIMAL.test(value) || BigInt(value) >= UINT64_LIMIT) {
    throw new DrawInputError("bad_number", `${what} must be a uint64 in decimal, got ${String(value)}`);
  }
  return value;
}

/** The request's batch as the proof shows it, and the user contribution the batch rule gives the commit's request. */
type CheckedBatch = { index: number; size: number; contributions: Hex[]; requestContribution: Hex };

/**
 * The indexed batch, checked: `size` members with this drawing (its number and contribution `own`) at `index`,
 * each member listed at its batchIndex. Each member's contribution is recomputed from its commit.
 */
function checkedBatch(input: ProofInputV4, own: Hex): CheckedBatch {
  const { index, size, members } = input.batch;
  if (!Number.isSafeInteger(size) || size < 1 || !Number.isSafeInteger(index) || index < 0 || index >= size) {
    throw new ProofMismatchError("batch", `The indexed batch position ${String(index)} of ${String(size)} is not a member of the batch`);
  }
  if (members.length !== size) {
    throw new ProofMismatchError("batch", `The request's batch has ${size} drawings, ${members.length} are indexed`);
  }
  members.forEach((m, i) => {
    if (m.batchIndex !== undefined && m.batchIndex !== i) {
      throw new ProofMismatchError("batch", `The indexed batch lists member ${m.batchIndex} at place ${i}`);
    }
  });
  const contributions = members.map((m, i) =>
    userRandomNumber({
      campaignId: assertBytes32(m.campaignId, `batch.members[${i}].campaignId`),
      number: m.number,
      slot: assertBytes32(m.slot, `batch.members[${i}].slot`),
      listCommitment: assertBytes32(m.listCommitment, `batch.members[${i}].listCommitment`),
    }),
  );
  const self = members[index] as ProofBatchMember;
  if (contributions[index] !== own || BigInt(self.number) !== BigInt(input.drawing.number)) {
    throw new ProofMismatchError(
      "batch",
      `Member ${index} of the request's batch is ${self.campaignId} #${String(self.number)} with contribution ${String(contributions[index])}, not this drawing (${own})`,
    );
  }
  return { index, size, contributions, requestContribution: batchUserRandomNumber(contributions) };
}

/** The version 4 layout: version 3's with `entropy.batch` before the request's `userContribution`. */
function v4Shape(input: ProofInputV4, p: Assembled, slot: Hex, batch: CheckedBatch, userContribution: Hex, origin: { providerContribution: Hex | null }): ProofV4 {
  const v3 = v3Shape(input, p, slot, userContribution, origin);
  return {
    ...v3,
    proofVersion: 4,
    entropy: {
      provider: v3.entropy.provider,
      requestId: v3.entropy.requestId,
      batch: { index: batch.index, size: batch.size, contributions: batch.contributions },
      userContribution: v3.entropy.userContribution,
      providerContribution: v3.entropy.providerContribution,
      value: v3.entropy.value,
      revealedAt: v3.entropy.revealedAt,
    },
  };
}

type Assembled = ReturnType<typeof assemble>;

/** The drawing's slot (checked against the onchain one) and its own contribution, derived from the commit. */
function ownContribution(input: ProofInputV3, p: Assembled): { slot: Hex; userContribution: Hex } {
  const slot = drawingSlot(input.drawing.id);
  if (input.drawing.slot !== undefined && assertBytes32(input.drawing.slot, "drawing.slot") !== slot) {
    throw new ProofMismatchError("slot", `The onchain slot ${input.drawing.slot} is not keccak256 of the drawing id ${JSON.stringify(input.drawing.id)} (${slot})`);
  }
  const listCommitment = p.entrants === null ? p.winnerList.commitment : p.entrants.commitment;
  const userContribution = userRandomNumber({
    campaignId: toCampaignId(input.campaign.slug),
    number: input.drawing.number,
    slot,
    listCommitment,
  });
  return { slot, userContribution };
}

/**
 * Checks the request's user contribution (derived: the drawing's own for v3, the batch's for v4, the re-request's
 * for v5) against the
 * onchain one when given, and for a real provider with a known contribution the random value's combination.
 * Returns the provider contribution the proof carries.
 */
function checkedOrigin(input: ProofInputV3, p: Assembled, userContribution: Hex, source = "the commit"): { providerContribution: Hex | null } {
  const onchainUser = input.entropy.userContribution;
  if (onchainUser !== undefined && assertBytes32(onchainUser, "entropy.userContribution") !== userContribution) {
    throw new ProofMismatchError(
      "user_contribution",
      `The onchain user contribution ${onchainUser} is not the one derived from ${source} (${userContribution})`,
    );
  }
  let providerContribution: Hex | null = null;
  if (p.provider !== "mock" && input.entropy.providerContribution !== null) {
    providerContribution = assertBytes32(input.entropy.providerContribution, "entropy.providerContribution");
    const combined = combineRandomValues(userContribution, providerContribution);
    if (combined !== p.value) {
      throw new ProofMismatchError(
        "entropy_value",
        `The random value ${p.value} is not keccak256(userContribution, providerContribution, 0) = ${combined}`,
      );
    }
  }
  return { providerContribution };
}

function v3Shape(input: ProofInputV3, p: Assembled, slot: Hex, userContribution: Hex, { providerContribution }: { providerContribution: Hex | null }): ProofV3 {
  return {
    proofVersion: 3,
    campaign: p.campaign,
    drawing: { id: input.drawing.id, number: input.drawing.number, drawAt: input.drawing.drawAt, slot },
    winnerList: p.winnerList,
    entropy: {
      provider: p.provider,
      requestId: input.entropy.requestId,
      userContribution,
      providerContribution,
      value: p.value,
      revealedAt: input.entropy.revealedAt,
    },
    prizeTable: p.prizeTable,
    results: p.results,
    entrants: p.entrants,
    chain: {
      chainId: input.chain.chainId,
      contract: p.contract,
      entropy: assertAddress(input.chain.entropy, "chain.entropy"),
      commitTx: p.commitTx,
      revealTx: p.revealTx,
    },
  };
}
