import { z } from "zod";
import type { Hex } from "viem";

/** The indexer could not be reached or answered something unexpected. */
export class IndexerUnavailableError extends Error {
  readonly code = "indexer_unavailable";
  override name = "IndexerUnavailableError";
}

const CONSISTENT_READ_ATTEMPTS = 20;

const hex = z.string().regex(/^0x[0-9a-f]*$/).transform((v) => v as Hex);
const uint = z.string().regex(/^\d+$/).transform((v) => BigInt(v));

/** A drawing as the indexer mirrors it (indexer/ponder.schema.ts); bigints arrive as decimal strings. */
const drawingSchema = z.object({
  campaignId: hex,
  number: uint,
  slot: hex,
  drawAt: uint,
  payoutWallet: hex,
  kind: z.number().int(),
  listCommitment: hex,
  winnersCommitment: hex.nullable(),
  winnersExpected: z.number().int(),
  entrantCount: z.number().int(),
  totalWeight: uint,
  tableId: hex,
  tableVersion: uint,
  largePrizeThresholdCents: uint,
  prizeCount: z.number().int(),
  provider: hex.nullable(),
  sequence: uint.nullable(),
  userRandomNumber: hex.nullable(),
  /** This drawing's place in its request's batch and the batch's size (EntropyRequested); null before the request. */
  batchIndex: z.number().int().nullable(),
  batchSize: z.number().int().nullable(),
  commitBlock: uint,
  commitTimestamp: uint,
  commitTx: hex,
  /** The commit's request when it was replaced by a re-request (EntropyReRequested); null otherwise. */
  previousProvider: hex.nullable(),
  previousSequence: uint.nullable(),
  previousUserRandomNumber: hex.nullable(),
  reRequestBlock: uint.nullable(),
  reRequestTimestamp: uint.nullable(),
  reRequestTx: hex.nullable(),
  /** EntropyRevealed: Entropy's value, the request block's hash, and the drawing's value (DrawMath.drawValue of both). */
  entropyValue: hex.nullable(),
  requestBlockHash: hex.nullable(),
  randomValue: hex.nullable(),
  revealBlock: uint.nullable(),
  revealTimestamp: uint.nullable(),
  revealTx: hex.nullable(),
  status: z.enum(["requested", "revealed", "settled", "paid"]),
  settledCount: z.number().int(),
  settleTimestamp: uint.nullable(),
  payoutCents: uint.nullable(),
  paidBlock: uint.nullable(),
  paidTimestamp: uint.nullable(),
  payoutTx: hex.nullable(),
});

const prizeSchema = z.object({
  position: z.number().int(),
  randomValue: hex,
  roll: uint,
  tier: z.number().int(),
  amountCents: uint,
  held: z.boolean(),
  heldStatus: z.enum(["open", "paid", "refused"]).nullable(),
  heldReason: z.string().nullable(),
});

/** Entropy's Revealed log for the drawing's request: both contributions, as the provider contract combined them. */
const entropyRevealSchema = z.object({
  randomNumber: hex,
  userContribution: hex,
  providerContribution: hex,
  callbackFailed: z.boolean(),
  tx: hex,
});

/** A drawing of the same randomness request (same provider and sequence): what recomputes its contribution. */
const batchMemberSchema = z.object({
  campaignId: hex,
  number: uint,
  slot: hex,
  listCommitment: hex,
  batchIndex: z.number().int().nullable(),
});

/** `batchMembers`: the request's drawings ordered by batchIndex (this one included); empty before the request. */
const drawingResponse = z.object({
  drawing: drawingSchema,
  prizes: z.array(prizeSchema),
  entropyReveal: entropyRevealSchema.nullable(),
  batchMembers: z.array(batchMemberSchema),
});
/** Before the first checkpoint every field but `ready` is null. */
const headResponse = z.object({ chainId: z.number().int().nullable(), blockNumber: uint.nullable(), blockTimestamp: uint.nullable(), ready: z.boolean() });

const prizeTableSchema = z.object({
  tableId: hex,
  version: z.union([uint, z.number().int().transform((v) => BigInt(v))]),
  denominator: z.union([uint, z.number().int().transform((v) => BigInt(v))]),
  amountsCents: z.array(z.number().int()),
  weights: z.array(z.number().int()),
  thresholds: z.array(z.number().int()),
});

/** A token transfer the contract made (indexer payout row): a drawing's payout, a held prize or a guarantee. */
const payoutSchema = z.object({
  id: z.string(),
  kind: z.enum(["drawing", "held", "guarantee"]),
  campaignId: hex,
  number: uint.nullable(),
  position: z.number().int().nullable(),
  period: z.number().int().nullable(),
  wallet: hex,
  amountCents: uint,
  tokenAmount: uint,
  blockNumber: uint,
  logIndex: z.number().int(),
  timestamp: uint,
  txHash: hex,
});
const payoutsResponse = z.object({ payouts: z.array(payoutSchema) });

/** A registered campaign as the indexer mirrors it (only what the service reads). */
const campaignSchema = z.object({ id: hex, lastNumber: uint });

export type IndexedPrizeTable = z.infer<typeof prizeTableSchema>;
export type IndexedPayout = z.infer<typeof payoutSchema>;
export type IndexedDrawing = z.infer<typeof drawingSchema>;
export type IndexedPrize = z.infer<typeof prizeSchema>;
export type IndexedEntropyReveal = z.infer<typeof entropyRevealSchema>;
export type IndexedBatchMember = z.infer<typeof batchMemberSchema>;
export type IndexedHead = z.infer<typeof headResponse>;
export type IndexedCampaign = z.infer<typeof campaignSchema>;

/**
 * Reads the indexer's typed routes (indexer/src/api) over HTTP: the service never opens Ponder's store.
 */
export class IndexerClient {
  constructor(private readonly baseUrl: string) {}

  private async get(path: string): Promise<unknown | null> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, { signal: AbortSignal.timeout(5_000) });
    } catch (error) {
      throw new IndexerUnavailableError(`indexer unreachable at ${this.baseUrl}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (response.status === 404) return null;
    if (!response.ok) throw new IndexerUnavailableError(`indexer answered ${response.status} for ${path}`);
    return response.json();
  }

  /** The latest block the indexer has processed. */
  async head(): Promise<IndexedHead> {
    const body = await this.get("/head");
    const parsed = headResponse.safeParse(body);
    if (!parsed.success) throw new IndexerUnavailableError("indexer /head answered an unexpected shape");
    return parsed.data;
  }

  /** A campaign as registered onchain (lastNumber: its last committed number), or null before its registration. */
  async campaign(campaignId: Hex): Promise<IndexedCampaign | null> {
    const body = await this.get(`/campaigns/${campaignId.toLowerCase()}`);
    if (body === null) return null;
    const parsed = campaignSchema.safeParse(body);
    if (!parsed.success) throw new IndexerUnavailableError(`indexer campaign ${campaignId} has an unexpected shape`);
    return parsed.data;
  }

  /** A prize table as published onchain, or null when the indexer has not seen it. */
  async prizeTable(tableId: Hex, version: number): Promise<IndexedPrizeTable | null> {
    const body = await this.get(`/prize-tables/${tableId.toLowerCase()}/${version}`);
    if (body === null) return null;
    const parsed = prizeTableSchema.safeParse(body);
    if (!parsed.success) throw new IndexerUnavailableError(`indexer prize table ${tableId}:${version} has an unexpected shape`);
    return parsed.data;
  }

  /** Every payout of a campaign in chain order (an empty list while the indexer has none). */
  async payouts(campaignId: Hex): Promise<IndexedPayout[]> {
    const body = await this.get(`/payouts?campaignId=${campaignId.toLowerCase()}`);
    const parsed = payoutsResponse.safeParse(body);
    if (!parsed.success) throw new IndexerUnavailableError(`indexer payouts of ${campaignId} have an unexpected shape`);
    return parsed.data.payouts;
  }

  /**
   * A drawing, its prizes in position order, Entropy's Revealed log for its request (null until revealed) and the
   * request's batch members ordered by batchIndex (empty before the request), or null while the indexer has not
   * seen its commit.
   * The route reads the drawing, its prizes and its batch in separate queries while Ponder may be flushing a block,
   * so a drawing whose settled count differs from its prize rows, or whose batch size differs from its member rows,
   * is read again until they agree.
   */
  async drawing(
    campaignId: Hex,
    number: bigint,
  ): Promise<{ drawing: IndexedDrawing; prizes: IndexedPrize[]; entropyReveal: IndexedEntropyReveal | null; batchMembers: IndexedBatchMember[] } | null> {
    for (let attempt = 0; attempt < CONSISTENT_READ_ATTEMPTS; attempt++) {
      const body = await this.get(`/drawings/${campaignId.toLowerCase()}/${number}`);
      if (body === null) return null;
      const parsed = drawingResponse.safeParse(body);
      if (!parsed.success) throw new IndexerUnavailableError(`indexer drawing ${campaignId}:${number} has an unexpected shape`);
      const { drawing, prizes, batchMembers } = parsed.data;
      const batchComplete = drawing.batchSize === null || batchMembers.length === drawing.batchSize;
      if (prizes.length === drawing.settledCount && batchComplete) return parsed.data;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new IndexerUnavailableError(`indexer drawing ${campaignId}:${number} is mid-update; try again`);
  }
}
