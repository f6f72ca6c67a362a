import { ponder } from "ponder:registry";
import { campaign, drawing, entropyReveal, guarantee, ignoredCallback, lateReveal, payout, prize, prizeTable } from "ponder:schema";

// One handler per PrizeDraw event. Ponder runs them in log order (block, then log index), so within a
// transaction every DrawingCommitted of a batch comes before its EntropyRequested events (one per drawing), and EntropyRevealed before the PrizeAwarded and
// DrawingSettled logs of the same callback. The contract guarantees every id below is new when inserted and
// every row updated already exists; a failure here means the configuration (address or start block) is wrong.

type Hex = `0x${string}`;

const INT32_MAX = 2_147_483_647n;

const KIND_WINNERS = 0;

/** A contract value the contract bounds below 2^31 (positions, tiers, counts, amounts in a table). */
function int(value: bigint | number): number {
  const big = BigInt(value);
  if (big < 0n || big > INT32_MAX) throw new Error(`value ${big} does not fit an int32 column`);
  return Number(big);
}

function lower<T extends Hex>(value: T): T {
  return value.toLowerCase() as T;
}

const drawingId = (campaignId: Hex, number: bigint): string => `${lower(campaignId)}:${number}`;
const prizeId = (campaignId: Hex, number: bigint, position: bigint | number): string =>
  `${lower(campaignId)}:${number}:${position}`;
const logId = (txHash: Hex, logIndex: number): string => `${lower(txHash)}:${logIndex}`;
const guaranteeId = (campaignId: Hex, period: number): string => `${lower(campaignId)}:${period}`;
const entropyRevealId = (provider: Hex, sequence: bigint): string => `${lower(provider)}:${sequence}`;

// ------------------------------------------------------------------ prize tables and campaigns

ponder.on("PrizeDraw:PrizeTablePublished", async ({ event, context }) => {
  const { tableId, version, denominator, amountsCents, weights, thresholds } = event.args;
  await context.db.insert(prizeTable).values({
    id: `${lower(tableId)}:${version}`,
    tableId: lower(tableId),
    version: BigInt(version),
    denominator: int(denominator),
    amountsCents: amountsCents.map(int),
    weights: weights.map(int),
    thresholds: thresholds.map(int),
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    txHash: lower(event.transaction.hash),
  });
});

ponder.on("PrizeDraw:CampaignRegistered", async ({ event, context }) => {
  const { campaignId, payoutWallet, largePrizeThresholdCents, guaranteeCents, guaranteePeriod } = event.args;
  await context.db.insert(campaign).values({
    id: lower(campaignId),
    payoutWallet: lower(payoutWallet),
    largePrizeThresholdCents,
    guaranteeCents,
    guaranteePeriod,
    lastNumber: 0n,
    registeredBlock: event.block.number,
    registeredTx: lower(event.transaction.hash),
    updatedBlock: event.block.number,
  });
});

ponder.on("PrizeDraw:PayoutWalletChanged", async ({ event, context }) => {
  const { campaignId, newWallet } = event.args;
  await context.db
    .update(campaign, { id: lower(campaignId) })
    .set({ payoutWallet: lower(newWallet), updatedBlock: event.block.number });
});

ponder.on("PrizeDraw:LargePrizeThresholdChanged", async ({ event, context }) => {
  const { campaignId, newCents } = event.args;
  await context.db
    .update(campaign, { id: lower(campaignId) })
    .set({ largePrizeThresholdCents: newCents, updatedBlock: event.block.number });
});

// ------------------------------------------------------------------ drawing cycle

ponder.on("PrizeDraw:DrawingCommitted", async ({ event, context }) => {
  const a = event.args;
  const kind = int(a.kind);
  const prizeCount = kind === KIND_WINNERS ? a.winnersExpected : Math.min(a.winnersExpected, a.entrantCount);
  await context.db.insert(drawing).values({
    id: drawingId(a.campaignId, a.number),
    campaignId: lower(a.campaignId),
    number: a.number,
    slot: lower(a.slot),
    drawAt: BigInt(a.drawAt),
    payoutWallet: lower(a.payoutWallet),
    kind,
    listCommitment: lower(a.listCommitment),
    winnersCommitment: kind === KIND_WINNERS ? lower(a.listCommitment) : null,
    winnersExpected: int(a.winnersExpected),
    entrantCount: int(a.entrantCount),
    totalWeight: a.totalWeight,
    tableId: lower(a.tableId),
    tableVersion: BigInt(a.tableVersion),
    largePrizeThresholdCents: a.largePrizeThresholdCents,
    prizeCount: int(prizeCount),
    commitBlock: event.block.number,
    commitTimestamp: event.block.timestamp,
    commitTx: lower(event.transaction.hash),
    status: "requested",
    settledCount: 0,
  });
  await context.db
    .update(campaign, { id: lower(a.campaignId) })
    .set({ lastNumber: a.number, updatedBlock: event.block.number });
});

ponder.on("PrizeDraw:EntropyRequested", async ({ event, context }) => {
  const { campaignId, number, provider, sequence, fee, userRandomNumber, batchIndex, batchSize } = event.args;
  await context.db.update(drawing, { id: drawingId(campaignId, number) }).set({
    provider: lower(provider),
    sequence,
    fee,
    userRandomNumber: lower(userRandomNumber),
    batchIndex: int(batchIndex),
    batchSize: int(batchSize),
    status: "requested",
  });
});

ponder.on("PrizeDraw:EntropyReRequested", async ({ event, context }) => {
  const { campaignId, number, previousProvider, previousSequence, provider, sequence, fee, userRandomNumber, by } = event.args;
  await context.db.update(drawing, { id: drawingId(campaignId, number) }).set((row) => ({
    previousProvider: lower(previousProvider),
    previousSequence,
    previousUserRandomNumber: row.userRandomNumber,
    provider: lower(provider),
    sequence,
    userRandomNumber: lower(userRandomNumber),
    reRequestFee: fee,
    reRequestBy: lower(by),
    reRequestBlock: event.block.number,
    reRequestTimestamp: event.block.timestamp,
    reRequestTx: lower(event.transaction.hash),
  }));
});

ponder.on("Entropy:Revealed", async ({ event, context }) => {
  const { provider, sequenceNumber, randomNumber, userContribution, providerContribution, callbackFailed } = event.args;
  const row = {
    randomNumber: lower(randomNumber),
    userContribution: lower(userContribution),
    providerContribution: lower(providerContribution),
    callbackFailed,
    block: event.block.number,
    tx: lower(event.transaction.hash),
  };
  await context.db
    .insert(entropyReveal)
    .values({ id: entropyRevealId(provider, sequenceNumber), provider: lower(provider), sequence: sequenceNumber, ...row })
    .onConflictDoUpdate(row);
});

ponder.on("PrizeDraw:EntropyRevealed", async ({ event, context }) => {
  const { campaignId, number, provider, sequence, entropyValue, requestBlockHash, randomValue } = event.args;
  await context.db.update(drawing, { id: drawingId(campaignId, number) }).set({
    provider: lower(provider),
    sequence,
    entropyValue: lower(entropyValue),
    requestBlockHash: lower(requestBlockHash),
    randomValue: lower(randomValue),
    revealBlock: event.block.number,
    revealTimestamp: event.block.timestamp,
    revealTx: lower(event.transaction.hash),
    status: "revealed",
  });
});

ponder.on("PrizeDraw:EntropyRevealTooLate", async ({ event, context }) => {
  const { provider, sequence, requestBlock, entropyValue } = event.args;
  await context.db.insert(lateReveal).values({
    id: logId(event.transaction.hash, event.log.logIndex),
    provider: lower(provider),
    sequence,
    requestBlock,
    entropyValue: lower(entropyValue),
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    txHash: lower(event.transaction.hash),
  });
});

ponder.on("PrizeDraw:EntropyCallbackIgnored", async ({ event, context }) => {
  const { provider, sequence, randomValue } = event.args;
  await context.db.insert(ignoredCallback).values({
    id: logId(event.transaction.hash, event.log.logIndex),
    provider: lower(provider),
    sequence,
    randomValue: lower(randomValue),
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    txHash: lower(event.transaction.hash),
  });
});

ponder.on("PrizeDraw:PrizeAwarded", async ({ event, context }) => {
  const { campaignId, number, position, randomValue, roll, tier, amountCents, held } = event.args;
  await context.db.insert(prize).values({
    id: prizeId(campaignId, number, position),
    campaignId: lower(campaignId),
    number,
    position: int(position),
    randomValue: lower(randomValue),
    roll,
    tier: int(tier),
    amountCents,
    held,
    heldStatus: held ? "open" : null,
    blockNumber: event.block.number,
    txHash: lower(event.transaction.hash),
  });
  // Positions are settled in order, so the count is the last position + 1.
  const settledCount = int(position + 1n);
  await context.db
    .update(drawing, { id: drawingId(campaignId, number) })
    .set((row) => ({ settledCount: Math.max(row.settledCount, settledCount) }));
});

ponder.on("PrizeDraw:DrawingSettled", async ({ event, context }) => {
  const { campaignId, number, prizeCount, payoutCents, heldCount, heldCents } = event.args;
  await context.db.update(drawing, { id: drawingId(campaignId, number) }).set({
    status: "settled",
    settledCount: int(prizeCount),
    prizeCount: int(prizeCount),
    payoutCents,
    heldCount: int(heldCount),
    heldCents,
    settleBlock: event.block.number,
    settleTimestamp: event.block.timestamp,
    settleTx: lower(event.transaction.hash),
  });
});

ponder.on("PrizeDraw:WinnersRecorded", async ({ event, context }) => {
  const { campaignId, number, winnersCommitment, winnerCount } = event.args;
  await context.db.update(drawing, { id: drawingId(campaignId, number) }).set({
    winnersCommitment: lower(winnersCommitment),
    winnerCount: int(winnerCount),
    winnersRecordedBlock: event.block.number,
    winnersRecordedTx: lower(event.transaction.hash),
  });
});

// ------------------------------------------------------------------ payouts

/** The fields every payout row shares: the transfer and where it was logged. */
function payoutRow(
  event: { block: { number: bigint; timestamp: bigint }; log: { logIndex: number }; transaction: { hash: Hex } },
  campaignId: Hex,
  wallet: Hex,
  amountCents: bigint,
  tokenAmount: bigint,
) {
  return {
    id: logId(event.transaction.hash, event.log.logIndex),
    campaignId: lower(campaignId),
    wallet: lower(wallet),
    amountCents,
    tokenAmount,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    timestamp: event.block.timestamp,
    txHash: lower(event.transaction.hash),
  };
}

ponder.on("PrizeDraw:DrawingPaid", async ({ event, context }) => {
  const { campaignId, number, wallet, amountCents, tokenAmount } = event.args;
  await context.db.update(drawing, { id: drawingId(campaignId, number) }).set({
    status: "paid",
    payoutTokenAmount: tokenAmount,
    paidBlock: event.block.number,
    paidTimestamp: event.block.timestamp,
    payoutTx: lower(event.transaction.hash),
  });
  await context.db.insert(payout).values({ ...payoutRow(event, campaignId, wallet, amountCents, tokenAmount), kind: "drawing", number });
});

ponder.on("PrizeVault:HeldPrizePaid", async ({ event, context }) => {
  const { campaignId, number, position, wallet, amountCents, tokenAmount } = event.args;
  await context.db
    .update(prize, { id: prizeId(campaignId, number, position) })
    .set({ heldStatus: "paid", heldClosedTx: lower(event.transaction.hash) });
  await context.db
    .insert(payout)
    .values({ ...payoutRow(event, campaignId, wallet, amountCents, tokenAmount), kind: "held", number, position: int(position) });
});

ponder.on("PrizeVault:HeldPrizeRefused", async ({ event, context }) => {
  const { campaignId, number, position, reason } = event.args;
  await context.db
    .update(prize, { id: prizeId(campaignId, number, position) })
    .set({ heldStatus: "refused", heldReason: reason, heldClosedTx: lower(event.transaction.hash) });
});

ponder.on("PrizeDraw:DrawingWalletMoved", async ({ event, context }) => {
  const { campaignId, number, newWallet } = event.args;
  await context.db.update(drawing, { id: drawingId(campaignId, number) }).set({ payoutWallet: lower(newWallet) });
});

ponder.on("PrizeVault:GuaranteePicked", async ({ event, context }) => {
  const { campaignId, period, winnerHash, wallet, amountCents } = event.args;
  await context.db.insert(guarantee).values({
    id: guaranteeId(campaignId, period),
    campaignId: lower(campaignId),
    period: int(period),
    winnerHash: lower(winnerHash),
    wallet: lower(wallet),
    amountCents,
    status: "picked",
    pickedTx: lower(event.transaction.hash),
  });
});

ponder.on("PrizeVault:GuaranteeWalletMoved", async ({ event, context }) => {
  const { campaignId, period, newWallet } = event.args;
  await context.db.update(guarantee, { id: guaranteeId(campaignId, period) }).set({ wallet: lower(newWallet) });
});

ponder.on("PrizeVault:GuaranteePaid", async ({ event, context }) => {
  const { campaignId, period, wallet, amountCents, tokenAmount } = event.args;
  await context.db
    .update(guarantee, { id: guaranteeId(campaignId, period) })
    .set({ status: "paid", paidTx: lower(event.transaction.hash) });
  await context.db.insert(payout).values({
    ...payoutRow(event, campaignId, wallet, amountCents, tokenAmount),
    kind: "guarantee",
    period: int(period),
  });
});
