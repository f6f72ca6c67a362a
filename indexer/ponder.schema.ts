import { index, onchainTable } from "ponder";

// Mirrors PrizeDraw's events closely enough that a draw's proof can be built from these rows alone.
// Conventions: hex columns are stored lowercase; uint64+ values and sums are bigint; values bounded by the
// contract below 2^31 (counts, positions, tiers, kinds) are integer. Block numbers and timestamps are bigint.

/** A registered campaign (CampaignRegistered, PayoutWalletChanged, LargePrizeThresholdChanged, DrawingCommitted). */
export const campaign = onchainTable("campaign", (t) => ({
  /** bytes32: the campaign slug as ASCII, right-padded. */
  id: t.hex().primaryKey(),
  /** Zero address while the campaign is a draft without a wallet. */
  payoutWallet: t.hex().notNull(),
  largePrizeThresholdCents: t.bigint().notNull(),
  /** Guarantee terms (CampaignRegistered): cents per period (0: none), period in seconds. */
  guaranteeCents: t.bigint().notNull(),
  guaranteePeriod: t.bigint().notNull(),
  /** Number of the last committed drawing; 0 before the first. */
  lastNumber: t.bigint().notNull(),
  registeredBlock: t.bigint().notNull(),
  registeredTx: t.hex().notNull(),
  updatedBlock: t.bigint().notNull(),
}));

/** A published prize table (PrizeTablePublished); never changes once published. */
export const prizeTable = onchainTable("prize_table", (t) => ({
  /** `${tableId}:${version}` */
  id: t.text().primaryKey(),
  tableId: t.hex().notNull(),
  /** uint32 onchain, so bigint here (it may exceed int32). */
  version: t.bigint().notNull(),
  denominator: t.integer().notNull(),
  /** Top prize first. The contract bounds amounts to 1e8 and weights/thresholds to 2^31-1, so int32 fits. */
  amountsCents: t.integer().array().notNull(),
  weights: t.integer().array().notNull(),
  /** Cumulative weights: tier i covers rolls below thresholds[i]. */
  thresholds: t.integer().array().notNull(),
  blockNumber: t.bigint().notNull(),
  timestamp: t.bigint().notNull(),
  txHash: t.hex().notNull(),
}));

/** One drawing of a campaign, from its commitment to its payout. */
export const drawing = onchainTable(
  "drawing",
  (t) => ({
    /** `${campaignId}:${number}` */
    id: t.text().primaryKey(),
    campaignId: t.hex().notNull(),
    number: t.bigint().notNull(),
    /** keccak256 of the service's drawing id, and the draw time (unix seconds) the commit carried. */
    slot: t.hex().notNull(),
    drawAt: t.bigint().notNull(),
    /** The wallet the drawing's payouts go to: the commit's, unless the admin moved it (DrawingWalletMoved). */
    payoutWallet: t.hex().notNull(),
    /** 0 winners, 1 entrants. */
    kind: t.integer().notNull(),
    listCommitment: t.hex().notNull(),
    /** = listCommitment for winner draws; from WinnersRecorded for entrant draws (null until then). */
    winnersCommitment: t.hex(),
    winnersExpected: t.integer().notNull(),
    entrantCount: t.integer().notNull(),
    totalWeight: t.bigint().notNull(),
    tableId: t.hex().notNull(),
    tableVersion: t.bigint().notNull(),
    largePrizeThresholdCents: t.bigint().notNull(),
    /** Prizes the drawing computes: winnersExpected, or min(winnersExpected, entrantCount) for entrant draws. */
    prizeCount: t.integer().notNull(),
    // EntropyRequested (same transaction as DrawingCommitted, right after it)
    provider: t.hex(),
    sequence: t.bigint(),
    fee: t.bigint(),
    /**
     * The request's user contribution: DrawMath.batchUserRandomNumber of every drawing of its batch (a batch of one:
     * this drawing's own DrawMath.userRandomNumber).
     */
    userRandomNumber: t.hex(),
    /** This drawing's place in its request's batch (0-based) and the batch's size; the batch's members are the
     * drawings with the same provider and sequence. */
    batchIndex: t.integer(),
    batchSize: t.integer(),
    commitBlock: t.bigint().notNull(),
    commitTimestamp: t.bigint().notNull(),
    commitTx: t.hex().notNull(),
    // EntropyReRequested: the request the commit made, replaced once (after the contract's reveal timeout) by the
    // request in provider/sequence/userRandomNumber above; null when the first request was revealed.
    previousProvider: t.hex(),
    previousSequence: t.bigint(),
    previousUserRandomNumber: t.hex(),
    reRequestFee: t.bigint(),
    reRequestBy: t.hex(),
    reRequestBlock: t.bigint(),
    reRequestTimestamp: t.bigint(),
    reRequestTx: t.hex(),
    // EntropyRevealed: Entropy's value, the hash of the request's block (the commit's, or the re-request's) and the
    // drawing's value every prize follows from, DrawMath.drawValue(entropyValue, requestBlockHash).
    entropyValue: t.hex(),
    requestBlockHash: t.hex(),
    randomValue: t.hex(),
    revealBlock: t.bigint(),
    revealTimestamp: t.bigint(),
    revealTx: t.hex(),
    /** "requested" | "revealed" | "settled" | "paid" */
    status: t.text().notNull(),
    /** Positions settled so far (PrizeAwarded rows). */
    settledCount: t.integer().notNull(),
    // DrawingSettled
    settleBlock: t.bigint(),
    settleTimestamp: t.bigint(),
    settleTx: t.hex(),
    payoutCents: t.bigint(),
    heldCount: t.integer(),
    heldCents: t.bigint(),
    // WinnersRecorded (entrant draws)
    winnerCount: t.integer(),
    winnersRecordedBlock: t.bigint(),
    winnersRecordedTx: t.hex(),
    // DrawingPaid
    payoutTokenAmount: t.bigint(),
    paidBlock: t.bigint(),
    paidTimestamp: t.bigint(),
    payoutTx: t.hex(),
  }),
  (table) => ({
    campaignNumberIdx: index().on(table.campaignId, table.number),
    providerSequenceIdx: index().on(table.provider, table.sequence),
  }),
);

/**
 * Entropy's Revealed log for a PrizeDraw request, keyed `${provider}:${sequence}`. A failed callback and its retry
 * log the same contributions; the row keeps the latest log (callbackFailed false once the retry succeeded).
 */
export const entropyReveal = onchainTable("entropy_reveal", (t) => ({
  id: t.text().primaryKey(),
  provider: t.hex().notNull(),
  sequence: t.bigint().notNull(),
  randomNumber: t.hex().notNull(),
  userContribution: t.hex().notNull(),
  providerContribution: t.hex().notNull(),
  callbackFailed: t.boolean().notNull(),
  block: t.bigint().notNull(),
  tx: t.hex().notNull(),
}));

/** One position's prize (PrizeAwarded); held prizes are paid one by one (HeldPrizePaid). */
export const prize = onchainTable(
  "prize",
  (t) => ({
    /** `${campaignId}:${number}:${position}` */
    id: t.text().primaryKey(),
    campaignId: t.hex().notNull(),
    number: t.bigint().notNull(),
    position: t.integer().notNull(),
    /** The accepted random value of this position (after rejection sampling). */
    randomValue: t.hex().notNull(),
    roll: t.bigint().notNull(),
    /** 0 is the top prize. */
    tier: t.integer().notNull(),
    amountCents: t.bigint().notNull(),
    held: t.boolean().notNull(),
    /** Held prizes: "open" until the operator pays ("paid") or refuses ("refused") it; null when not held. */
    heldStatus: t.text(),
    heldReason: t.text(),
    heldClosedTx: t.hex(),
    blockNumber: t.bigint().notNull(),
    txHash: t.hex().notNull(),
  }),
  (table) => ({
    campaignNumberIdx: index().on(table.campaignId, table.number),
  }),
);

/** Every token transfer the contract made: a drawing's payout, a held prize, a guarantee. */
export const payout = onchainTable(
  "payout",
  (t) => ({
    /** `${txHash}:${logIndex}` */
    id: t.text().primaryKey(),
    /** "drawing" | "held" | "guarantee" */
    kind: t.text().notNull(),
    campaignId: t.hex().notNull(),
    /** Drawing number (kinds "drawing" and "held"). */
    number: t.bigint(),
    /** Held prize position (kind "held"). */
    position: t.integer(),
    /** Kind "guarantee": the period (0-based from the campaign's guarantee start). */
    period: t.integer(),
    wallet: t.hex().notNull(),
    amountCents: t.bigint().notNull(),
    tokenAmount: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
    txHash: t.hex().notNull(),
  }),
  (table) => ({
    campaignBlockIdx: index().on(table.campaignId, table.blockNumber),
  }),
);

/** A picked guarantee (GuaranteePicked): owed to `wallet` until paid (GuaranteePaid). */
export const guarantee = onchainTable("guarantee", (t) => ({
  /** `${campaignId}:${period}` */
  id: t.text().primaryKey(),
  campaignId: t.hex().notNull(),
  period: t.integer().notNull(),
  winnerHash: t.hex().notNull(),
  wallet: t.hex().notNull(),
  amountCents: t.bigint().notNull(),
  /** "picked" | "paid" */
  status: t.text().notNull(),
  pickedTx: t.hex().notNull(),
  paidTx: t.hex(),
}));

/**
 * A reveal that came more than 256 blocks after its request, when the request block's hash was no longer readable
 * (EntropyRevealTooLate): discarded by the contract; the request's drawings wait for their public re-request.
 */
export const lateReveal = onchainTable("late_reveal", (t) => ({
  /** `${txHash}:${logIndex}` */
  id: t.text().primaryKey(),
  provider: t.hex().notNull(),
  sequence: t.bigint().notNull(),
  requestBlock: t.bigint().notNull(),
  entropyValue: t.hex().notNull(),
  blockNumber: t.bigint().notNull(),
  timestamp: t.bigint().notNull(),
  txHash: t.hex().notNull(),
}));

/** A randomness callback that matched no pending request (EntropyCallbackIgnored). */
export const ignoredCallback = onchainTable("ignored_callback", (t) => ({
  /** `${txHash}:${logIndex}` */
  id: t.text().primaryKey(),
  provider: t.hex().notNull(),
  sequence: t.bigint().notNull(),
  randomValue: t.hex().notNull(),
  blockNumber: t.bigint().notNull(),
  timestamp: t.bigint().notNull(),
  txHash: t.hex().notNull(),
}));
