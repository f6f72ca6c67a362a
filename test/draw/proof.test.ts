import { keccak256, stringToBytes, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import {
  batchUserRandomNumber,
  buildProofV2,
  buildProofV3,
  buildProofV4,
  buildProofV5,
  buildProofV6,
  combineRandomValues,
  computePrizes,
  DrawInputError,
  drawingSlot,
  drawValue,
  DEFAULT_PRIZE_TABLE,
  entrantsCommitment,
  fingerprint,
  PROOF_VERSION,
  PROOF_VERSION_V4,
  PROOF_VERSION_V5,
  ProofMismatchError,
  reRequestUserRandomNumber,
  selectWinners,
  toCampaignId,
  userRandomNumber,
  winnerHash,
  type IndexedResult,
  type ProofBatchMember,
  type ProofInput,
  type ProofInputV3,
  type ProofInputV4,
  type ProofInputV5,
  type ProofInputV6,
} from "../../api/src/draw/index.js";

const entropy = keccak256(stringToBytes("proof-entropy"));
const campaignId = toCampaignId("summer-daily");
const winners = [
  { winner: "w-1", displayName: "Ada" },
  { winner: "w-2", displayName: null },
  { winner: "w-3", displayName: "Grace" },
];
const prizes = computePrizes({ entropy, campaignId, number: 7n, table: DEFAULT_PRIZE_TABLE, count: 3, largePrizeThresholdCents: 100_000 });
const upper = (h: string): Hex => `0x${h.slice(2).toUpperCase()}` as Hex;
/** The real provider's contribution in the version 3 to 5 inputs. */
const PROVIDER_CONTRIBUTION = keccak256(stringToBytes("provider revelation"));

/** The test drawing's indexed results (the default table, 3 positions) for random value `value`. */
function resultsFor(value: Hex): IndexedResult[] {
  return computePrizes({ entropy: value, campaignId, number: 7n, table: DEFAULT_PRIZE_TABLE, count: 3, largePrizeThresholdCents: 100_000 }).map(
    ({ position, randomValue, roll, amountCents }) => ({ position, randomValue, roll, amountCents }),
  );
}

function winnersInput(): ProofInput {
  return {
    campaign: { slug: "summer-daily", name: "Summer Daily" },
    drawing: { id: "drw_1", number: 7, drawAt: "2026-11-25T20:00:00.000Z" },
    winners,
    commitment: fingerprint(winners.map((w) => w.winner)),
    lockedAt: "2026-11-25T19:55:00.000Z",
    entropy: { provider: "mock", requestId: "12", value: entropy, revealedAt: "2026-11-25T20:00:03.000Z" },
    table: DEFAULT_PRIZE_TABLE,
    // Indexed order is not guaranteed; the builder sorts by position.
    results: [...prizes].reverse().map(({ position, randomValue, roll, amountCents }) => ({ position, randomValue, roll, amountCents })),
    entrants: null,
    chain: {
      chainId: 31337,
      contract: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      commitTx: upper(keccak256(stringToBytes("commit"))),
      revealTx: keccak256(stringToBytes("reveal")),
    },
  };
}

function entrantsInput(): ProofInput {
  const ids = Array.from({ length: 8 }, (_, i) => `entrant-${i}`);
  const weights = [3, 1, 1, 7, 2, 1, 4_294_967_295, 5];
  const list = ids.map((id, i) => ({ hash: winnerHash(id), weight: weights[i] as number }));
  const selected = selectWinners({ entropy, campaignId, number: 7n, weights: weights.map(BigInt), count: 3 });
  const chosen = selected.map((p) => ({ winner: ids[p] as string, displayName: null }));
  return {
    ...winnersInput(),
    winners: chosen,
    commitment: fingerprint(chosen.map((w) => w.winner)),
    entrants: {
      count: 8,
      totalWeight: weights.reduce((a, b) => a + b, 0),
      commitment: entrantsCommitment(list.map((e) => ({ idHash: e.hash, weight: BigInt(e.weight) }))),
      list,
    },
  };
}

/** The ProofMismatchError `build` throws (any other error is rethrown; none at all fails the test). */
function mismatchOf(build: () => unknown): ProofMismatchError {
  try {
    build();
  } catch (e) {
    if (e instanceof ProofMismatchError) return e;
    throw e;
  }
  throw new Error("expected a ProofMismatchError");
}

function mismatch(input: ProofInput): ProofMismatchError {
  return mismatchOf(() => buildProofV2(input));
}

describe("buildProofV2 (version 2)", () => {
  it("is buildProofV2", () => {
    expect(buildProofV2).toBe(buildProofV2);
  });

  it("lays out proof format version 2 with DESIGN.md's key order", () => {
    const proof = buildProofV2(winnersInput());
    expect(Object.keys(proof)).toEqual([
      "proofVersion",
      "campaign",
      "drawing",
      "winnerList",
      "entropy",
      "prizeTable",
      "results",
      "entrants",
      "chain",
    ]);
    expect(Object.keys(proof.campaign)).toEqual(["id", "slug", "name"]);
    expect(Object.keys(proof.drawing)).toEqual(["id", "number", "drawAt"]);
    expect(Object.keys(proof.winnerList)).toEqual(["winners", "commitment", "lockedAt"]);
    expect(Object.keys(proof.entropy)).toEqual(["provider", "requestId", "value", "revealedAt"]);
    expect(Object.keys(proof.prizeTable)).toEqual(["id", "version", "denominator", "tiers"]);
    expect(Object.keys(proof.prizeTable.tiers[0] ?? {})).toEqual(["amountCents", "weight", "threshold"]);
    expect(Object.keys(proof.results[0] ?? {})).toEqual(["position", "winner", "displayName", "randomValue", "roll", "amountCents"]);
    expect(Object.keys(proof.chain)).toEqual(["chainId", "contract", "commitTx", "revealTx"]);
    // The serialized form keeps the order too.
    expect(JSON.stringify(proof).startsWith('{"proofVersion":2,"campaign":{"id":"summer-daily","slug":"summer-daily","name":"Summer Daily"}')).toBe(true);
  });

  it("joins winners to results by position and lowercases hex", () => {
    const proof = buildProofV2(winnersInput());
    expect(proof.proofVersion).toBe(2);
    expect(proof.campaign.id).toBe("summer-daily");
    expect(proof.winnerList.winners).toEqual(["w-1", "w-2", "w-3"]);
    expect(proof.results.map((r) => [r.position, r.winner, r.displayName])).toEqual([
      [0, "w-1", "Ada"],
      [1, "w-2", null],
      [2, "w-3", "Grace"],
    ]);
    expect(proof.results.map((r) => r.randomValue)).toEqual(prizes.map((p) => p.randomValue));
    expect(proof.results.map((r) => r.amountCents)).toEqual(prizes.map((p) => p.amountCents));
    expect(proof.prizeTable.tiers).toHaveLength(6);
    expect(proof.prizeTable.tiers[5]).toEqual({ amountCents: 500, weight: 45_589, threshold: 100_000 });
    expect(proof.chain.contract).toBe("0x5fbdb2315678afecb367f032d93f642f64180aa3");
    expect(proof.chain.commitTx).toBe(keccak256(stringToBytes("commit")));
    expect(proof.entrants).toBeNull();
    const provider = buildProofV2({ ...winnersInput(), entropy: { ...winnersInput().entropy, provider: "0x6CC14824Ea2918f5De5C2f75A9Da968ad4BD6344" } });
    expect(provider.entropy.provider).toBe("0x6cc14824ea2918f5de5c2f75a9da968ad4bd6344");
  });

  it("includes the entrant list for entrant draws", () => {
    const input = entrantsInput();
    const proof = buildProofV2(input);
    expect(proof.entrants).not.toBeNull();
    expect(Object.keys(proof.entrants ?? {})).toEqual(["count", "totalWeight", "commitment", "selection", "list"]);
    expect(proof.entrants?.selection).toBe("sequential-weighted-v1");
    expect(proof.entrants?.list).toEqual(input.entrants?.list);
    expect(proof.entrants?.totalWeight).toBe(4_294_967_315);
  });

  it("refuses winner ids that do not hash to the commitment", () => {
    const input = winnersInput();
    const reordered = { ...input, winners: [winners[1], winners[0], winners[2]] as ProofInput["winners"] };
    const error = mismatch(reordered);
    expect(error.code).toBe("commitment_mismatch");
    expect(error.kind).toBe("winners_commitment");
    expect(mismatch({ ...input, commitment: keccak256("0x") }).kind).toBe("winners_commitment");
  });

  it("refuses an entrant list that does not hash to the entrant commitment, or wrong totals", () => {
    const input = entrantsInput();
    const entrants = input.entrants;
    if (entrants === null) throw new Error("entrants");
    const heavier = entrants.list.map((e, i) => (i === 2 ? { ...e, weight: e.weight + 1 } : e));
    const error = mismatch({ ...input, entrants: { ...entrants, list: heavier, totalWeight: entrants.totalWeight + 1 } });
    expect(error.code).toBe("commitment_mismatch");
    expect(error.kind).toBe("entrants_commitment");
    expect(mismatch({ ...input, entrants: { ...entrants, count: 9 } }).kind).toBe("entrants_totals");
    expect(mismatch({ ...input, entrants: { ...entrants, totalWeight: 1 } }).kind).toBe("entrants_totals");
  });

  it("refuses results that do not line up with the winners", () => {
    const input = winnersInput();
    const fewer = mismatch({ ...input, results: input.results.slice(1) });
    expect(fewer.code).toBe("commitment_mismatch");
    expect(fewer.kind).toBe("results");
    const repeated = input.results.map((r) => ({ ...r, position: 0 }));
    expect(mismatch({ ...input, results: repeated }).kind).toBe("results");
    const outOfRange = input.results.map((r, i) => ({ ...r, position: i + 1 }));
    expect(mismatch({ ...input, results: outOfRange }).kind).toBe("results");
  });
});

const ENTROPY_CONTRACT = "0x41C9e39574F40Ad34c79f1C99B66A45eFB830d4c";
const PROVIDER = "0x52DeaA1c84233F7bb8C8A45baeDE41091c616506";

/** A v3 input around `input`: a real provider whose contribution makes `value` (so the results are recomputed). */
function v3Input(input: ProofInput, opts: { mock?: boolean } = {}): ProofInputV3 {
  const slot = drawingSlot(input.drawing.id);
  const list = input.entrants === null ? input.commitment : input.entrants.commitment;
  const user = userRandomNumber({ campaignId, number: 7n, slot, listCommitment: list });
  const providerContribution = PROVIDER_CONTRIBUTION;
  const value = opts.mock ? input.entropy.value : combineRandomValues(user, providerContribution);
  let results = input.results;
  let winnersList = input.winners;
  let commitment = input.commitment;
  if (!opts.mock) {
    if (input.entrants !== null) {
      const ids = Array.from({ length: 8 }, (_, i) => `entrant-${i}`);
      const selected = selectWinners({ entropy: value, campaignId, number: 7n, weights: input.entrants.list.map((e) => BigInt(e.weight)), count: 3 });
      winnersList = selected.map((p) => ({ winner: ids[p] as string, displayName: null }));
      commitment = fingerprint(winnersList.map((w) => w.winner));
    }
    results = resultsFor(value);
  }
  return {
    ...input,
    winners: winnersList,
    commitment,
    results,
    drawing: { ...input.drawing, slot },
    entropy: {
      ...input.entropy,
      provider: opts.mock ? "mock" : PROVIDER,
      value,
      userContribution: user,
      providerContribution: opts.mock ? `0x${"00".repeat(32)}` : providerContribution,
    },
    chain: { ...input.chain, entropy: ENTROPY_CONTRACT },
  };
}

function mismatchV3(input: ProofInputV3): ProofMismatchError {
  return mismatchOf(() => buildProofV3(input));
}

describe("buildProofV3", () => {
  it("lays out proof format version 3: version 2 plus slot, contributions and the Entropy contract", () => {
    const proof = buildProofV3(v3Input(winnersInput()));
    expect(Object.keys(proof)).toEqual(["proofVersion", "campaign", "drawing", "winnerList", "entropy", "prizeTable", "results", "entrants", "chain"]);
    expect(Object.keys(proof.drawing)).toEqual(["id", "number", "drawAt", "slot"]);
    expect(Object.keys(proof.entropy)).toEqual(["provider", "requestId", "userContribution", "providerContribution", "value", "revealedAt"]);
    expect(Object.keys(proof.chain)).toEqual(["chainId", "contract", "entropy", "commitTx", "revealTx"]);
    expect(JSON.stringify(proof).startsWith('{"proofVersion":3,"campaign":{"id":"summer-daily"')).toBe(true);
  });

  it("derives the slot and the user contribution, and keeps the provider's contribution", () => {
    const input = v3Input(winnersInput());
    const proof = buildProofV3(input);
    expect(proof.proofVersion).toBe(3);
    expect(proof.drawing.slot).toBe(keccak256(stringToBytes("drw_1")));
    expect(proof.entropy.userContribution).toBe(
      userRandomNumber({ campaignId, number: 7n, slot: proof.drawing.slot, listCommitment: proof.winnerList.commitment }),
    );
    expect(proof.entropy.providerContribution).toBe(PROVIDER_CONTRIBUTION);
    expect(proof.entropy.value).toBe(combineRandomValues(proof.entropy.userContribution, proof.entropy.providerContribution!));
    expect(proof.entropy.provider).toBe(PROVIDER.toLowerCase());
    expect(proof.chain.entropy).toBe(ENTROPY_CONTRACT.toLowerCase());
  });

  it("entrant draws derive the user contribution from the entrant commitment", () => {
    const proof = buildProofV3(v3Input(entrantsInput()));
    expect(proof.entrants).not.toBeNull();
    expect(proof.entropy.userContribution).toBe(
      userRandomNumber({ campaignId, number: 7n, slot: proof.drawing.slot, listCommitment: proof.entrants!.commitment }),
    );
  });

  it("mock provider: the provider contribution is null (MockEntropy reveals none)", () => {
    const proof = buildProofV3(v3Input(winnersInput(), { mock: true }));
    expect(proof.entropy.provider).toBe("mock");
    expect(proof.entropy.providerContribution).toBeNull();
    // An unknown contribution of a real provider is null too, and the value is then not checked here.
    const unknown = v3Input(winnersInput());
    expect(buildProofV3({ ...unknown, entropy: { ...unknown.entropy, providerContribution: null } }).entropy.providerContribution).toBeNull();
  });

  it("the onchain slot and user contribution are optional inputs", () => {
    const input = v3Input(winnersInput());
    const { slot: _slot, ...drawing } = input.drawing;
    const { userContribution: _user, ...entropy } = input.entropy;
    expect(buildProofV3({ ...input, drawing, entropy })).toEqual(buildProofV3(input));
  });

  it("refuses an onchain slot that is not keccak256 of the drawing id", () => {
    const input = v3Input(winnersInput());
    const error = mismatchV3({ ...input, drawing: { ...input.drawing, slot: drawingSlot("drw_2") } });
    expect(error.code).toBe("commitment_mismatch");
    expect(error.kind).toBe("slot");
  });

  it("refuses an onchain user contribution not derived from the commit", () => {
    const input = v3Input(winnersInput());
    expect(mismatchV3({ ...input, entropy: { ...input.entropy, userContribution: keccak256(stringToBytes("other")) } }).kind).toBe("user_contribution");
  });

  it("refuses a random value that is not the combination of the two contributions", () => {
    const input = v3Input(winnersInput());
    expect(mismatchV3({ ...input, entropy: { ...input.entropy, providerContribution: keccak256(stringToBytes("other")) } }).kind).toBe("entropy_value");
  });

  it("keeps the version 2 checks", () => {
    const input = v3Input(winnersInput());
    expect(mismatchV3({ ...input, commitment: keccak256("0x") }).kind).toBe("winners_commitment");
  });
});

/** Two other drawings of the request's batch (another campaign's and an earlier one of this campaign). */
const OTHER_MEMBERS: ProofBatchMember[] = [
  { campaignId: toCampaignId("weekly-entries"), number: 3n, slot: drawingSlot("drw_other_a"), listCommitment: keccak256(stringToBytes("list a")) },
  { campaignId, number: 6n, slot: drawingSlot("drw_other_b"), listCommitment: fingerprint(["x", "y"]) },
];

/**
 * The random value of a request whose user contribution is `user`, combined with the real provider's contribution
 * (`mock`: the input's own value, as MockEntropy reveals it), and the results it draws.
 */
function drawnWith(input: { entropy: { value: Hex } }, user: Hex, mock: boolean | undefined): { value: Hex; results: IndexedResult[] } {
  const value = mock ? input.entropy.value : combineRandomValues(user, PROVIDER_CONTRIBUTION);
  return { value, results: resultsFor(value) };
}

/**
 * A v4 input around the winners input: this drawing is member `index` of a batch with OTHER_MEMBERS around it (or
 * alone), and a real provider's contribution combines with the batch's user contribution into the value.
 */
function v4Input(opts: { index?: number; alone?: boolean; mock?: boolean } = {}): ProofInputV4 {
  const input = winnersInput();
  const slot = drawingSlot(input.drawing.id);
  const self: ProofBatchMember = { campaignId, number: 7n, slot, listCommitment: input.commitment };
  const index = opts.alone ? 0 : (opts.index ?? 1);
  const members = opts.alone ? [self] : [...OTHER_MEMBERS.slice(0, index), self, ...OTHER_MEMBERS.slice(index)];
  const contributions = members.map((m) => userRandomNumber(m));
  const user = batchUserRandomNumber(contributions);
  const { value, results } = drawnWith(input, user, opts.mock);
  return {
    ...input,
    results,
    drawing: { ...input.drawing, slot },
    entropy: { ...input.entropy, provider: opts.mock ? "mock" : PROVIDER, value, userContribution: user, providerContribution: opts.mock ? null : PROVIDER_CONTRIBUTION },
    chain: { ...input.chain, entropy: ENTROPY_CONTRACT },
    batch: { index, size: members.length, members: members.map((m, i) => ({ ...m, batchIndex: i })) },
  };
}

function mismatchV4(input: ProofInputV4): ProofMismatchError {
  return mismatchOf(() => buildProofV4(input));
}

describe("batchUserRandomNumber", () => {
  const c = [keccak256(stringToBytes("a")), keccak256(stringToBytes("b")), keccak256(stringToBytes("c"))];

  it("keeps a batch of one's contribution as is, and hashes a larger batch's packed in order", () => {
    expect(batchUserRandomNumber([c[0]!])).toBe(c[0]);
    expect(batchUserRandomNumber(c)).toBe(keccak256(`0x${c.map((x) => x.slice(2)).join("")}`));
    expect(batchUserRandomNumber([c[1]!, c[0]!, c[2]!])).not.toBe(batchUserRandomNumber(c));
    expect(batchUserRandomNumber([upper(c[0]!)])).toBe(c[0]);
  });

  it("refuses an empty batch and a value that is not 32 bytes", () => {
    expect(() => batchUserRandomNumber([])).toThrow(/at least one/);
    expect(() => batchUserRandomNumber([c[0]!, "0x12" as Hex])).toThrow(/contributions\[1\]/);
  });
});

describe("buildProofV4", () => {
  it("lays out proof format version 4: version 3 with entropy.batch before the user contribution", () => {
    const proof = buildProofV4(v4Input());
    expect(Object.keys(proof)).toEqual(["proofVersion", "campaign", "drawing", "winnerList", "entropy", "prizeTable", "results", "entrants", "chain"]);
    expect(Object.keys(proof.drawing)).toEqual(["id", "number", "drawAt", "slot"]);
    expect(Object.keys(proof.entropy)).toEqual(["provider", "requestId", "batch", "userContribution", "providerContribution", "value", "revealedAt"]);
    expect(Object.keys(proof.entropy.batch)).toEqual(["index", "size", "contributions"]);
    expect(Object.keys(proof.chain)).toEqual(["chainId", "contract", "entropy", "commitTx", "revealTx"]);
    expect(JSON.stringify(proof).startsWith('{"proofVersion":4,"campaign":{"id":"summer-daily"')).toBe(true);
  });

  it("lists every member's contribution in batch order, this drawing's at its index, and the request's contribution", () => {
    const input = v4Input({ index: 1 });
    const proof = buildProofV4(input);
    const own = userRandomNumber({ campaignId, number: 7n, slot: proof.drawing.slot, listCommitment: proof.winnerList.commitment });
    expect(proof.entropy.batch).toEqual({ index: 1, size: 3, contributions: [userRandomNumber(OTHER_MEMBERS[0]!), own, userRandomNumber(OTHER_MEMBERS[1]!)] });
    expect(proof.entropy.userContribution).toBe(batchUserRandomNumber(proof.entropy.batch.contributions));
    expect(proof.entropy.userContribution).not.toBe(own);
    expect(proof.entropy.value).toBe(combineRandomValues(proof.entropy.userContribution, proof.entropy.providerContribution!));
    // The same drawing at another place of the batch is another request.
    expect(buildProofV4(v4Input({ index: 0 })).entropy.userContribution).not.toBe(proof.entropy.userContribution);
  });

  it("a batch of one: size 1, its own contribution, which is the request's (as in version 3)", () => {
    const input = v4Input({ alone: true });
    const proof = buildProofV4(input);
    const v3 = buildProofV3(input);
    expect(proof.entropy.batch).toEqual({ index: 0, size: 1, contributions: [v3.entropy.userContribution] });
    expect(proof.entropy.userContribution).toBe(v3.entropy.userContribution);
    // Apart from the version and the batch, the served shape is version 3's.
    const { batch: _batch, ...entropy } = proof.entropy;
    expect({ ...proof, proofVersion: 3, entropy }).toEqual(v3);
  });

  it("mock provider: the value is not checked against the contributions", () => {
    const proof = buildProofV4(v4Input({ mock: true }));
    expect(proof.entropy.provider).toBe("mock");
    expect(proof.entropy.providerContribution).toBeNull();
    expect(proof.entropy.batch.size).toBe(3);
  });

  it("refuses a batch that does not hold this drawing at its index", () => {
    const input = v4Input({ index: 1 });
    expect(mismatchV4({ ...input, batch: { ...input.batch, index: 0 } }).kind).toBe("batch");
    expect(mismatchV4({ ...input, batch: { ...input.batch, index: 3 } }).kind).toBe("batch");
    const swapped = [...input.batch.members];
    swapped[1] = { ...swapped[1]!, listCommitment: keccak256(stringToBytes("another list")) };
    expect(mismatchV4({ ...input, batch: { ...input.batch, members: swapped } }).kind).toBe("batch");
  });

  it("refuses a batch whose indexed members are not as many as its size, or out of order", () => {
    const input = v4Input({ index: 1 });
    expect(mismatchV4({ ...input, batch: { ...input.batch, members: input.batch.members.slice(0, 2) } }).kind).toBe("batch");
    const reordered = [input.batch.members[1]!, input.batch.members[0]!, input.batch.members[2]!];
    expect(mismatchV4({ ...input, batch: { ...input.batch, members: reordered } }).kind).toBe("batch");
  });

  it("refuses an onchain user contribution that is not the batch's, e.g. the drawing's own", () => {
    const input = v4Input({ index: 1 });
    const own = userRandomNumber({ campaignId, number: 7n, slot: input.drawing.slot!, listCommitment: input.commitment });
    expect(mismatchV4({ ...input, entropy: { ...input.entropy, userContribution: own } }).kind).toBe("user_contribution");
  });

  it("refuses a random value that is not the combination of the batch's and the provider's contributions", () => {
    const input = v4Input();
    expect(mismatchV4({ ...input, entropy: { ...input.entropy, providerContribution: keccak256(stringToBytes("other")) } }).kind).toBe("entropy_value");
  });

  it("keeps the version 3 checks", () => {
    const input = v4Input();
    expect(mismatchV4({ ...input, drawing: { ...input.drawing, slot: drawingSlot("drw_2") } }).kind).toBe("slot");
    expect(mismatchV4({ ...input, commitment: keccak256("0x") }).kind).toBe("winners_commitment");
  });
});

/** The request the commit made, not revealed in time: Pyth's other provider, an earlier sequence. */
const PREVIOUS_PROVIDER = "0x6CC14824Ea2918f5De5C2f75A9Da968ad4BD6344";
const PREVIOUS_REQUEST_ID = "11";
const RE_REQUEST_TX = keccak256(stringToBytes("reRequest"));

/**
 * A v5 input around the v4 one: the same batch (which derives the previous request's contribution), then a new
 * request (PROVIDER, sequence 12) whose user contribution is the re-request's; a real provider's contribution
 * combines with it into the value.
 */
/** A re-requested drawing's input (its reRequest set). */
type ReRequestedInput = ProofInputV5 & { reRequest: NonNullable<ProofInputV5["reRequest"]> };

function v5Input(opts: { index?: number; alone?: boolean; mock?: boolean } = {}): ReRequestedInput {
  const input = v4Input(opts);
  const previousUser = input.entropy.userContribution!;
  const user = reRequestUserRandomNumber(PREVIOUS_PROVIDER, BigInt(PREVIOUS_REQUEST_ID));
  const { value, results } = drawnWith(input, user, opts.mock);
  return {
    ...input,
    results,
    entropy: { ...input.entropy, requestId: "12", value, userContribution: user },
    reRequest: {
      previousProvider: PREVIOUS_PROVIDER,
      previousRequestId: PREVIOUS_REQUEST_ID,
      timeoutBlocks: 43_200,
      requestTx: upper(RE_REQUEST_TX),
      requestedAt: "2026-11-26T20:00:07.000Z",
      previousUserContribution: previousUser,
    },
  };
}

function mismatchV5(input: ProofInputV5): ProofMismatchError {
  return mismatchOf(() => buildProofV5(input));
}

describe("buildProofV5", () => {
  it("a value revealed at the commit's request is version 4's proof with reRequest null", () => {
    expect(PROOF_VERSION_V5).toBe(5);
    expect(PROOF_VERSION_V4).toBe(4);
    const input = v4Input();
    const plain = buildProofV5({ ...input, reRequest: null });
    const v4 = buildProofV4(input);
    expect(plain).toEqual({ ...v4, proofVersion: 5, entropy: { ...v4.entropy, reRequest: null } });
    expect(Object.keys(plain.entropy).at(-1)).toBe("reRequest");
  });

  it("lays out proof format version 5: version 4 with entropy.reRequest last in entropy", () => {
    const proof = buildProofV5(v5Input());
    expect(Object.keys(proof)).toEqual(["proofVersion", "campaign", "drawing", "winnerList", "entropy", "prizeTable", "results", "entrants", "chain"]);
    expect(Object.keys(proof.entropy)).toEqual(["provider", "requestId", "batch", "userContribution", "providerContribution", "value", "revealedAt", "reRequest"]);
    expect(Object.keys(proof.entropy.reRequest!)).toEqual(["previousProvider", "previousRequestId", "previousUserContribution", "timeoutBlocks", "requestTx", "requestedAt"]);
    // No re-request transaction in `chain`: it is entropy.reRequest.requestTx.
    expect(Object.keys(proof.chain)).toEqual(["chainId", "contract", "entropy", "commitTx", "revealTx"]);
    expect(JSON.stringify(proof).startsWith('{"proofVersion":5,"campaign":{"id":"summer-daily"')).toBe(true);
  });

  it("the new request's user contribution is the re-request's; the batch derives the previous one", () => {
    const input = v5Input();
    const proof = buildProofV5(input);
    const v4 = buildProofV4(v4Input());
    expect(proof.entropy.provider).toBe(PROVIDER.toLowerCase());
    expect(proof.entropy.requestId).toBe("12");
    expect(proof.entropy.batch).toEqual(v4.entropy.batch);
    expect(proof.entropy.userContribution).toBe(reRequestUserRandomNumber(PREVIOUS_PROVIDER, 11n));
    expect(proof.entropy.value).toBe(combineRandomValues(proof.entropy.userContribution, proof.entropy.providerContribution!));
    expect(proof.entropy.reRequest).toEqual({
      previousProvider: PREVIOUS_PROVIDER.toLowerCase(),
      previousRequestId: "11",
      previousUserContribution: v4.entropy.userContribution,
      timeoutBlocks: 43_200,
      requestTx: RE_REQUEST_TX,
      requestedAt: "2026-11-26T20:00:07.000Z",
    });
    expect(proof.entropy.reRequest!.previousUserContribution).toBe(batchUserRandomNumber(proof.entropy.batch.contributions));
    // Apart from the version, the re-request and the request it names, the shape is version 4's.
    const { reRequest: _reRequest, ...entropy } = proof.entropy;
    expect({ ...proof, proofVersion: 4, entropy: { ...entropy, requestId: v4.entropy.requestId, userContribution: v4.entropy.userContribution, value: v4.entropy.value } }).toEqual({
      ...v4,
      results: proof.results,
    });
  });

  it("a batch of one: the previous contribution is the drawing's own", () => {
    const proof = buildProofV5(v5Input({ alone: true }));
    expect(proof.entropy.batch.size).toBe(1);
    expect(proof.entropy.reRequest!.previousUserContribution).toBe(proof.entropy.batch.contributions[0]);
  });

  it("mock provider: the previous provider stays an address, the value is not checked against the contributions", () => {
    const proof = buildProofV5(v5Input({ mock: true }));
    expect(proof.entropy.provider).toBe("mock");
    expect(proof.entropy.providerContribution).toBeNull();
    expect(proof.entropy.reRequest!.previousProvider).toBe(PREVIOUS_PROVIDER.toLowerCase());
  });

  it("the indexed user contributions are optional inputs", () => {
    const input = v5Input();
    const { userContribution: _user, ...entropy } = input.entropy;
    const { previousUserContribution: _previous, ...reRequest } = input.reRequest;
    expect(buildProofV5({ ...input, entropy, reRequest })).toEqual(buildProofV5(input));
  });

  it("refuses an indexed user contribution that is not the re-request's (the batch's, or another previous request's)", () => {
    const input = v5Input();
    const error = mismatchV5({ ...input, entropy: { ...input.entropy, userContribution: input.reRequest.previousUserContribution! } });
    expect(error.code).toBe("commitment_mismatch");
    expect(error.kind).toBe("user_contribution");
    expect(error.message).toMatch(/derived from the previous request \(0x6cc14824ea2918f5de5c2f75a9da968ad4bd6344, 11\)/);
    expect(mismatchV5({ ...input, reRequest: { ...input.reRequest, previousRequestId: "10" } }).kind).toBe("user_contribution");
    expect(mismatchV5({ ...input, reRequest: { ...input.reRequest, previousProvider: PROVIDER } }).kind).toBe("user_contribution");
  });

  it("refuses a commit's user contribution the batch does not derive", () => {
    const input = v5Input();
    const own = userRandomNumber({ campaignId, number: 7n, slot: input.drawing.slot!, listCommitment: input.commitment });
    const error = mismatchV5({ ...input, reRequest: { ...input.reRequest, previousUserContribution: own } });
    expect(error.kind).toBe("user_contribution");
    expect(error.message).toMatch(/not the one the batch derives/);
  });

  it("refuses a random value that is not the combination of the re-request's and the provider's contributions", () => {
    const input = v5Input();
    // The value of the request the commit made (version 4's) is not the re-requested one.
    const previousValue = combineRandomValues(input.reRequest.previousUserContribution!, input.entropy.providerContribution!);
    expect(mismatchV5({ ...input, entropy: { ...input.entropy, value: previousValue } }).kind).toBe("entropy_value");
  });

  it("keeps the version 4 checks", () => {
    const input = v5Input({ index: 1 });
    expect(mismatchV5({ ...input, batch: { ...input.batch, index: 0 } }).kind).toBe("batch");
    expect(mismatchV5({ ...input, drawing: { ...input.drawing, slot: drawingSlot("drw_2") } }).kind).toBe("slot");
    expect(mismatchV5({ ...input, commitment: keccak256("0x") }).kind).toBe("winners_commitment");
  });

  it.each([
    ["a previous provider that is not an address", { previousProvider: "mock" }],
    ["a previous request id that is not a decimal uint64", { previousRequestId: "0x0b" }],
    ["a previous request id above uint64", { previousRequestId: (1n << 64n).toString() }],
    ["a previous request id with a leading zero", { previousRequestId: "011" }],
    ["a timeout of 0 blocks", { timeoutBlocks: 0 }],
    ["a fractional timeout", { timeoutBlocks: 1.5 }],
    ["a request transaction that is not 32 bytes", { requestTx: "0x1234" }],
  ])("refuses %s", (_label, change) => {
    const input = v5Input();
    let error: unknown;
    try {
      buildProofV5({ ...input, reRequest: { ...input.reRequest, ...(change as object) } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DrawInputError);
  });
});

const REQUEST_BLOCK = { number: 1_271, hash: keccak256(stringToBytes("the commit's block")) };

function v6Input(reRequested = false): ProofInputV6 {
  const base = v5Input();
  const input: ProofInputV5 = reRequested ? base : { ...v4Input(), reRequest: null };
  return { ...input, requestBlock: REQUEST_BLOCK, drawValue: drawValue(input.entropy.value, REQUEST_BLOCK.hash) };
}

describe("buildProofV6", () => {
  it("is the current version: version 5 with Entropy's value, the request's block and the value mixed from them, in that key order", () => {
    expect(PROOF_VERSION).toBe(6);
    for (const reRequested of [false, true]) {
      const input = v6Input(reRequested);
      const proof = buildProofV6(input);
      const v5 = buildProofV5(input);
      expect(Object.keys(proof)).toEqual(["proofVersion", "campaign", "drawing", "winnerList", "entropy", "prizeTable", "results", "entrants", "chain"]);
      expect(Object.keys(proof.entropy)).toEqual(["provider", "requestId", "batch", "userContribution", "providerContribution", "revealedValue", "requestBlock", "value", "revealedAt", "reRequest"]);
      // Version 5's `value` (Entropy's) becomes `revealedValue`; `value` is the one the results follow from.
      expect(proof).toEqual({ ...v5, proofVersion: 6, entropy: { ...v5.entropy, revealedValue: v5.entropy.value, requestBlock: REQUEST_BLOCK, value: input.drawValue } });
      expect(JSON.stringify(proof).startsWith('{"proofVersion":6,"campaign":{"id":"summer-daily"')).toBe(true);
    }
  });

  it("the value is keccak256(abi.encode(revealedValue, requestBlock.hash)), computed independently here", () => {
    const input = v6Input();
    const encoded = `0x${input.entropy.value.slice(2)}${REQUEST_BLOCK.hash.slice(2)}` as Hex;
    expect(buildProofV6(input).entropy.value).toBe(keccak256(encoded));
    expect(buildProofV6(input).entropy.revealedValue).toBe(input.entropy.value);
    // Lower-cases what the indexer hands over.
    expect(buildProofV6({ ...input, drawValue: upper(input.drawValue) }).entropy.value).toBe(keccak256(encoded));
  });

  it("refuses a draw value that is not Entropy's value mixed with the request block's hash", () => {
    const input = v6Input();
    const wrong = [
      input.entropy.value, // the unmixed value: what a contract before the mixing would have used
      drawValue(input.entropy.value, keccak256(stringToBytes("another block"))),
    ];
    for (const drawn of wrong) expect(mismatchOf(() => buildProofV6({ ...input, drawValue: drawn })).kind).toBe("draw_value");
    // A hash that does not match the draw value (the indexer's drawValue kept, the block changed).
    expect(mismatchOf(() => buildProofV6({ ...input, requestBlock: { ...REQUEST_BLOCK, hash: keccak256("0x01") } })).kind).toBe("draw_value");
  });

  it("keeps the version 5 checks", () => {
    const v5 = v5Input({ index: 1 });
    const input: ProofInputV6 = { ...v5, requestBlock: REQUEST_BLOCK, drawValue: drawValue(v5.entropy.value, REQUEST_BLOCK.hash) };
    expect(buildProofV6(input).entropy.batch.index).toBe(1);
    expect(mismatchOf(() => buildProofV6({ ...input, batch: { ...input.batch, index: 0 } })).kind).toBe("batch");
    expect(mismatchOf(() => buildProofV6({ ...input, commitment: keccak256("0x") })).kind).toBe("winners_commitment");
  });

  it.each([
    ["block 0", { number: 0 }],
    ["a fractional block", { number: 1.5 }],
    ["a block above 2^53", { number: 2 ** 53 }],
    ["a hash that is not 32 bytes", { hash: "0x1234" }],
  ])("refuses a request block with %s", (_label, change) => {
    const input = v6Input();
    expect(() => buildProofV6({ ...input, requestBlock: { ...REQUEST_BLOCK, ...(change as object) } })).toThrow(DrawInputError);
  });
});
