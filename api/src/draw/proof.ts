/**
 * Proof format version 2 (DESIGN.md section 7): assembled from the store (names, ids) and indexed chain data
 * (everything a verifier recomputes). The builder refuses to produce a proof whose ids do not hash to the
 * onchain commitments: such a proof would fail every verifier.
 */
import type { Address, Hex } from "viem";
import { assertBytes32 } from "./abi.js";
import { entrantsCommitment, ENTRANTS_SELECTION } from "./entrants.js";
import { DrawInputError, ProofMismatchError } from "./errors.js";
import { fingerprint } from "./hash.js";
import type { PrizeTable } from "./prizeTable.js";

export const PROOF_VERSION = 2;

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

/** The published proof. Key order is part of the format: objects are built in this order. */
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

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

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

/** Assembles a version 2 proof; throws ProofMismatchError when the store and the chain disagree. */
export function buildProof(input: ProofInput): ProofV2 {
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
    proofVersion: PROOF_VERSION,
    campaign: { id: input.campaign.slug, slug: input.campaign.slug, name: input.campaign.name },
    drawing: { id: input.drawing.id, number: input.drawing.number, drawAt: input.drawing.drawAt },
    winnerList: { winners: ids, commitment, lockedAt: input.lockedAt },
    entropy: {
      provider,
      requestId: input.entropy.requestId,
      value: assertBytes32(input.entropy.value, "entropy.value"),
      revealedAt: input.entropy.revealedAt,
    },
    prizeTable: {
      id: input.table.id,
      version: input.table.version,
      denominator: input.table.denominator,
      tiers: input.table.tiers.map((t) => ({ amountCents: t.amountCents, weight: t.weight, threshold: t.threshold })),
    },
    results,
    entrants,
    chain: {
      chainId: input.chain.chainId,
      contract: assertAddress(input.chain.contract, "chain.contract"),
      commitTx: assertBytes32(input.chain.commitTx, "chain.commitTx"),
      revealTx: assertBytes32(input.chain.revealTx, "chain.revealTx"),
    },
  };
}
