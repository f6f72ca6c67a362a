import { Hono, type Context } from "hono";
import { and, asc, client, desc, eq, sql } from "ponder";
import { db } from "ponder:api";
import schema, { campaign, drawing, entropyReveal, payout, prize, prizeTable } from "ponder:schema";

// The service's read side. It never opens Ponder's database: it reads these routes, or /sql/* through
// @ponder/client. Every bigint is a decimal string, every hex value lowercase. Ponder itself serves /health,
// /ready (200 once the backfill is done) and /status.

/** A row as JSON: bigint becomes a decimal string, everything else stays. */
type Json<T> = T extends bigint
  ? string
  : T extends readonly (infer U)[]
    ? Json<U>[]
    : T extends object
      ? { [K in keyof T]: Json<T[K]> }
      : T;

function toJson<T>(value: T): Json<T> {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v))) as Json<
    T
  >;
}

const UINT64_MAX = (1n << 64n) - 1n;
const UINT32_MAX = (1n << 32n) - 1n;

class BadRequest extends Error {}

function bytes32(name: string, value: string | undefined): `0x${string}` {
  if (value === undefined || !/^0x[0-9a-fA-F]{64}$/.test(value)) {
    throw new BadRequest(`${name} must be a 32-byte hex string (0x followed by 64 hex digits)`);
  }
  return value.toLowerCase() as `0x${string}`;
}

function uint(name: string, value: string | undefined, max: bigint): bigint {
  if (value === undefined || !/^\d{1,20}$/.test(value) || BigInt(value) > max) {
    throw new BadRequest(`${name} must be a decimal integer between 0 and ${max}`);
  }
  return BigInt(value);
}

const notFound = (c: Context) => c.json({ error: "not_found" as const }, 404);

const app = new Hono();

app.onError((error, c) => {
  if (error instanceof BadRequest) return c.json({ error: "bad_request" as const, detail: error.message }, 400);
  console.error(error);
  return c.json({ error: "internal_error" as const }, 500);
});

// SQL over HTTP for @ponder/client (read-only, same tables as below).
app.use("/sql/*", client({ db, schema }));

/**
 * A drawing, its prizes ordered by position, Entropy's Revealed log for its request (null until revealed), and the
 * request's batch: every drawing with the same provider and sequence, ordered by batchIndex, with what recomputes
 * each one's contribution (campaignId, number, slot, listCommitment). Empty before the request.
 */
app.get("/drawings/:campaignId/:number", async (c) => {
  const campaignId = bytes32("campaignId", c.req.param("campaignId"));
  const number = uint("number", c.req.param("number"), UINT64_MAX);
  const [row] = await db
    .select()
    .from(drawing)
    .where(eq(drawing.id, `${campaignId}:${number}`))
    .limit(1);
  if (row === undefined) return notFound(c);
  const prizes = await db
    .select()
    .from(prize)
    .where(and(eq(prize.campaignId, campaignId), eq(prize.number, number)))
    .orderBy(asc(prize.position));
  const { provider, sequence } = row;
  const requested = provider !== null && sequence !== null;
  const [reveal] = !requested
    ? []
    : await db.select().from(entropyReveal).where(eq(entropyReveal.id, `${provider}:${sequence}`)).limit(1);
  const batchMembers = !requested
    ? []
    : await db
        .select({
          campaignId: drawing.campaignId,
          number: drawing.number,
          slot: drawing.slot,
          listCommitment: drawing.listCommitment,
          batchIndex: drawing.batchIndex,
        })
        .from(drawing)
        .where(and(eq(drawing.provider, provider), eq(drawing.sequence, sequence)))
        .orderBy(asc(drawing.batchIndex));
  return c.json(toJson({ drawing: row, prizes, entropyReveal: reveal ?? null, batchMembers }));
});

app.get("/campaigns/:campaignId", async (c) => {
  const campaignId = bytes32("campaignId", c.req.param("campaignId"));
  const [row] = await db.select().from(campaign).where(eq(campaign.id, campaignId)).limit(1);
  if (row === undefined) return notFound(c);
  return c.json(toJson(row));
});

/** Every drawing of a campaign, newest first (an empty list for an unknown campaign). */
app.get("/campaigns/:campaignId/drawings", async (c) => {
  const campaignId = bytes32("campaignId", c.req.param("campaignId"));
  const rows = await db
    .select()
    .from(drawing)
    .where(eq(drawing.campaignId, campaignId))
    .orderBy(desc(drawing.number));
  return c.json(toJson({ drawings: rows }));
});

app.get("/prize-tables/:tableId/:version", async (c) => {
  const tableId = bytes32("tableId", c.req.param("tableId"));
  const version = uint("version", c.req.param("version"), UINT32_MAX);
  const [row] = await db
    .select()
    .from(prizeTable)
    .where(eq(prizeTable.id, `${tableId}:${version}`))
    .limit(1);
  if (row === undefined) return notFound(c);
  return c.json(toJson(row));
});

/** Payouts in chain order, of one campaign (`?campaignId=0x..`) or of all. */
app.get("/payouts", async (c) => {
  const raw = c.req.query("campaignId");
  const campaignId = raw === undefined ? undefined : bytes32("campaignId", raw);
  const rows = await db
    .select()
    .from(payout)
    .where(campaignId === undefined ? undefined : eq(payout.campaignId, campaignId))
    .orderBy(asc(payout.blockNumber), asc(payout.logIndex));
  return c.json(toJson({ payouts: rows }));
});

// Ponder's checkpoint: a checkpoint string starts with the block timestamp (10 digits), the chain id (16) and
// the block number (16). Ponder advances it for every block it indexes, with or without events.
type CheckpointRow = { chain_id: string | number; latest_checkpoint: string; safe_checkpoint: string };
type MetaRow = { value: { is_ready?: number } | string };

function rowsOf<T>(result: unknown): T[] {
  if (typeof result === "object" && result !== null && "rows" in result && Array.isArray(result.rows)) {
    return result.rows as T[];
  }
  return [];
}

/**
 * Every start of Ponder on existing data is a crash recovery: it reverts the rows to the safe checkpoint and
 * indexes the blocks after it again, live, but leaves latest_checkpoint where the previous process left it
 * until then. So until this process has seen latest_checkpoint move, the rows are only known to reflect the
 * safe checkpoint, and that is what /head reports (an under-report for at most one block on a fresh start).
 */
let latestSeenFirst: string | undefined;

/** The last block the indexer has processed, to compare with the chain's head. */
app.get("/head", async (c) => {
  const checkpoints = rowsOf<CheckpointRow>(
    await db.execute(sql`SELECT chain_id, latest_checkpoint, safe_checkpoint FROM _ponder_checkpoint`),
  );
  const metas = rowsOf<MetaRow>(await db.execute(sql`SELECT value FROM _ponder_meta WHERE key = 'app'`));
  const meta = metas[0]?.value;
  const parsedMeta: { is_ready?: number } | undefined =
    typeof meta === "string" ? (JSON.parse(meta) as { is_ready?: number }) : meta;
  const checkpoint = checkpoints[0];
  if (checkpoint === undefined) {
    return c.json({ chainId: null, blockNumber: null, blockTimestamp: null, ready: false });
  }
  latestSeenFirst ??= checkpoint.latest_checkpoint;
  const cp = checkpoint.latest_checkpoint === latestSeenFirst ? checkpoint.safe_checkpoint : checkpoint.latest_checkpoint;
  return c.json({
    chainId: Number(checkpoint.chain_id),
    blockNumber: BigInt(cp.slice(26, 42)).toString(),
    blockTimestamp: BigInt(cp.slice(0, 10)).toString(),
    ready: parsedMeta?.is_ready === 1,
  });
});

export default app;
