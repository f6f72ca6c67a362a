import { sql, type NotNull, type Selectable } from "kysely";
import type { Connection } from "./connection.js";
import type { DrawingsTable, WinnersTable } from "./schema.js";
import type { CampaignMode } from "./campaigns.js";

export type DrawingStatus = "open" | "locked" | "entropy_requested" | "settled" | "paid";
export const DRAWING_STATUSES: readonly DrawingStatus[] = ["open", "locked", "entropy_requested", "settled", "paid"];

export type Drawing = {
  id: string;
  campaignId: string;
  drawAt: string;
  cutoffAt: string;
  status: DrawingStatus;
  winnersExpected: number;
  number: number | null;
  partnerRound: number | null;
  tableId: string;
  tableVersion: number;
  needsAttention: string | null;
  listSubmittedAt: string | null;
  lockedAt: string | null;
  winnersCommitment: string | null;
  entropyProvider: string | null;
  entropyRequestId: string | null;
  entropyValue: string | null;
  entropyRevealedAt: string | null;
  settledAt: string | null;
  paidAt: string | null;
  commitTx: string | null;
  revealTx: string | null;
  /** Blocks of the reveal and the payout as the indexer saw them (finality, see ChainFinality). */
  revealBlock: number | null;
  paidBlock: number | null;
  createdAt: string;
  /** Entries campaigns: running totals, and the entrant list's commitment once locked. */
  entrantCount: number;
  totalWeight: number;
  entrantsCommitment: string | null;
};

export type Winner = {
  position: number;
  winnerId: string;
  displayName: string | null;
  avatarUrl: string | null;
  randomValue: string | null;
  roll: number | null;
  amountCents: number | null;
  held: boolean | null;
  /** Held prizes: "open" until paid or refused onchain; null when the prize is not held. */
  heldStatus: HeldStatus | null;
  heldReason: string | null;
};

export type HeldStatus = "open" | "paid" | "refused";

/** A held prize still waiting for the operator's decision. */
export type OpenHeldPrize = { drawingId: string; number: number; position: number };

type Record_ = Selectable<DrawingsTable>;

function fromRecord(r: Record_): Drawing {
  return {
    id: r.id,
    campaignId: r.campaign_id,
    drawAt: r.draw_at,
    cutoffAt: r.cutoff_at,
    status: r.status,
    winnersExpected: r.winners_expected,
    number: r.number,
    partnerRound: r.partner_round,
    tableId: r.table_id,
    tableVersion: r.table_version,
    needsAttention: r.needs_attention,
    listSubmittedAt: r.list_submitted_at,
    lockedAt: r.locked_at,
    winnersCommitment: r.winners_commitment,
    entropyProvider: r.entropy_provider,
    entropyRequestId: r.entropy_request_id,
    entropyValue: r.entropy_value,
    entropyRevealedAt: r.entropy_revealed_at,
    settledAt: r.settled_at,
    paidAt: r.paid_at,
    commitTx: r.commit_tx,
    revealTx: r.reveal_tx,
    revealBlock: r.reveal_block,
    paidBlock: r.paid_block,
    createdAt: r.created_at,
    entrantCount: r.entrant_count,
    totalWeight: r.total_weight,
    entrantsCommitment: r.entrants_commitment,
  };
}

function toRecord(d: Drawing): Record_ {
  return {
    id: d.id,
    campaign_id: d.campaignId,
    draw_at: d.drawAt,
    cutoff_at: d.cutoffAt,
    status: d.status,
    winners_expected: d.winnersExpected,
    number: d.number,
    partner_round: d.partnerRound,
    table_id: d.tableId,
    table_version: d.tableVersion,
    needs_attention: d.needsAttention,
    list_submitted_at: d.listSubmittedAt,
    locked_at: d.lockedAt,
    winners_commitment: d.winnersCommitment,
    entropy_provider: d.entropyProvider,
    entropy_request_id: d.entropyRequestId,
    entropy_value: d.entropyValue,
    entropy_revealed_at: d.entropyRevealedAt,
    settled_at: d.settledAt,
    paid_at: d.paidAt,
    commit_tx: d.commitTx,
    reveal_tx: d.revealTx,
    reveal_block: d.revealBlock,
    paid_block: d.paidBlock,
    created_at: d.createdAt,
    entrant_count: d.entrantCount,
    total_weight: d.totalWeight,
    entrants_commitment: d.entrantsCommitment,
  };
}

type WinnerRecord = Selectable<WinnersTable>;

const winner = (r: WinnerRecord): Winner => ({
  position: r.position,
  winnerId: r.winner_id,
  displayName: r.display_name,
  avatarUrl: r.avatar_url,
  randomValue: r.random_value,
  roll: r.roll,
  amountCents: r.amount_cents,
  held: r.held === null ? null : r.held === 1,
  heldStatus: r.held_status,
  heldReason: r.held_reason,
});

/**
 * Called after a drawing's row is rewritten, in the same transaction, with its status and flag before; awaited
 * inside it, so the change is kept only when the returned promise resolves.
 */
export type DrawingChangeHook = (before: Pick<Drawing, "status" | "needsAttention">, after: Drawing) => Promise<void>;


/** Rows per multi-row INSERT or UPDATE: far below either engine's limit on a statement's parameters (PostgreSQL: 65535). */
const ROWS_PER_STATEMENT = 500;

/** One group of DrawingStore.statusCounts. */
export type DrawingStatusCount = { status: DrawingStatus; mode: CampaignMode; count: number; earliestCutoffAt: string; needingAttention: number };

/** Drawings and their winner lists. */
export class DrawingStore {
  /** Set by createStore: records webhook events (webhooks/events.ts); every update passes through it. */
  onChange: DrawingChangeHook | null = null;

  constructor(private readonly conn: Connection) {}

  /** Inserts unless the campaign already has a drawing at that time; returns whether it was new. */
  async insertIfAbsent(d: Drawing): Promise<boolean> {
    const result = await this.conn
      .q()
      .insertInto("drawings")
      .values(toRecord(d))
      .onConflict((oc) => oc.columns(["campaign_id", "draw_at"]).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async update(d: Drawing): Promise<void> {
    const hook = this.onChange;
    if (!hook) return this.rewrite(d);
    // The change and its events commit together (a savepoint inside the caller's transaction, if any). conn.tx
    // takes the write lock before the read: a read first could not wait for another process's write (SQLite
    // answers SQLITE_BUSY at once), and the row read is the one rewritten.
    await this.conn.tx(async () => {
      const before = await this.conn.q().selectFrom("drawings").select(["status", "needs_attention"]).where("id", "=", d.id).executeTakeFirst();
      await this.rewrite(d);
      if (before) await hook({ status: before.status, needsAttention: before.needs_attention }, d);
    });
  }

  private async rewrite(d: Drawing): Promise<void> {
    const { id, ...columns } = toRecord(d);
    await this.conn.q().updateTable("drawings").set(columns).where("id", "=", id).execute();
  }

  async byId(campaignId: string, id: string): Promise<Drawing | null> {
    const r = await this.conn.q().selectFrom("drawings").selectAll().where("id", "=", id).where("campaign_id", "=", campaignId).executeTakeFirst();
    return r ? fromRecord(r) : null;
  }

  /**
   * GET drawings' order (spec, GET drawings), at most `limit`: open drawings still taking a list at `now` first,
   * soonest cutoff first; then open drawings whose cutoff passed without a list (flagged), in cutoff order; then
   * every other status, newest first. Without `now` every open drawing counts as still taking a list.
   */
  async list(campaignId: string, status: DrawingStatus | null, limit: number, now: string | null = null): Promise<Drawing[]> {
    let query = this.conn.q().selectFrom("drawings").selectAll().where("campaign_id", "=", campaignId);
    if (status) query = query.where("status", "=", status);
    const rows = await query
      .orderBy((eb) => {
        const open = eb.case().when("status", "!=", "open").then(eb.lit(2));
        return now === null ? open.else(eb.lit(0)).end() : open.when("cutoff_at", ">", now).then(eb.lit(0)).else(eb.lit(1)).end();
      })
      // Only open drawings have a key here, and the key above puts them apart from the rest, so where each engine
      // sorts the others' nulls does not matter.
      .orderBy((eb) => eb.case().when("status", "=", "open").then(eb.ref("cutoff_at")).end(), "asc")
      .orderBy("draw_at", "desc")
      .limit(limit)
      .execute();
    return rows.map(fromRecord);
  }

  /**
   * Drawings of every campaign counted by status and campaign mode, each group's earliest cutoff (ISO) and how
   * many of it carry a needsAttention note: what the metrics endpoint reports at each scrape.
   */
  async statusCounts(): Promise<DrawingStatusCount[]> {
    const rows = await this.conn
      .q()
      .selectFrom("drawings as d")
      .innerJoin("campaigns as c", "c.id", "d.campaign_id")
      .select((eb) => [
        "d.status as status",
        "c.mode as mode",
        eb.fn.countAll<string | number>().as("count"),
        eb.fn.min("d.cutoff_at").as("earliestCutoffAt"),
        eb.fn.count<string | number>("d.needs_attention").as("needingAttention"),
      ])
      .groupBy(["d.status", "c.mode"])
      .execute();
    return rows.map((r) => ({ status: r.status, mode: r.mode, count: Number(r.count), earliestCutoffAt: r.earliestCutoffAt, needingAttention: Number(r.needingAttention) }));
  }

  /** Drawings the keeper still has to move on (not yet paid). */
  async unfinished(campaignId: string): Promise<Drawing[]> {
    const rows = await this.conn.q().selectFrom("drawings").selectAll().where("campaign_id", "=", campaignId).where("status", "!=", "paid").orderBy("draw_at").execute();
    return rows.map(fromRecord);
  }

  /**
   * Paid drawings whose reveal or payout is not known to be final (block unknown, or above `finalizedBlock`): a
   * reorg may still drop them.
   */
  async paidNotFinal(campaignId: string, finalizedBlock: number): Promise<Drawing[]> {
    const rows = await this.conn
      .q()
      .selectFrom("drawings")
      .selectAll()
      .where("campaign_id", "=", campaignId)
      .where("status", "=", "paid")
      .where((eb) =>
        eb.or([eb("reveal_block", "is", null), eb("paid_block", "is", null), eb("reveal_block", ">", finalizedBlock), eb("paid_block", ">", finalizedBlock)]),
      )
      .orderBy("draw_at")
      .execute();
    return rows.map(fromRecord);
  }

  /** The open drawing whose cutoff is next after `now` (the one taking lists or entries). */
  async nextOpen(campaignId: string, now: string): Promise<Drawing | null> {
    const r = await this.conn
      .q()
      .selectFrom("drawings")
      .selectAll()
      .where("campaign_id", "=", campaignId)
      .where("status", "=", "open")
      .where("cutoff_at", ">", now)
      .orderBy("cutoff_at")
      .limit(1)
      .executeTakeFirst();
    return r ? fromRecord(r) : null;
  }

  /** Open drawings with after < cutoffAt <= upTo, soonest cutoff first (the pull fetcher's timer). */
  async openWithCutoffBetween(campaignId: string, after: string, upTo: string): Promise<Drawing[]> {
    const rows = await this.conn
      .q()
      .selectFrom("drawings")
      .selectAll()
      .where("campaign_id", "=", campaignId)
      .where("status", "=", "open")
      .where("cutoff_at", ">", after)
      .where("cutoff_at", "<=", upTo)
      .orderBy("cutoff_at")
      .execute();
    return rows.map(fromRecord);
  }

  /** Removes open drawings whose cutoff is after `after` (pause, end, an earlier end date), winners included. */
  async deleteUpcoming(campaignId: string, after: string): Promise<number> {
    const result = await this.conn
      .q()
      .deleteFrom("drawings")
      .where("campaign_id", "=", campaignId)
      .where("status", "=", "open")
      .where("cutoff_at", ">", after)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Removes open drawings that hold no list to draw: winner campaigns, fewer winners than expected (a list is
   * whole or absent); entries campaigns, no entrant. With `cutoffUpTo`, only those whose cutoff is at or before it.
   */
  async deleteWithoutList(campaignId: string, entries: boolean, cutoffUpTo: string | null = null): Promise<number> {
    let query = this.conn
      .q()
      .deleteFrom("drawings")
      .where("campaign_id", "=", campaignId)
      .where("status", "=", "open")
      .where((eb) =>
        entries
          ? eb("entrant_count", "=", 0)
          : eb(eb.selectFrom("winners as w").select((w) => w.fn.countAll().as("n")).whereRef("w.drawing_id", "=", "drawings.id"), "!=", eb.ref("winners_expected")),
      );
    if (cutoffUpTo !== null) query = query.where("cutoff_at", "<=", cutoffUpTo);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async deleteOpenAfterDrawAt(campaignId: string, drawAtAfter: string): Promise<number> {
    const result = await this.conn
      .q()
      .deleteFrom("drawings")
      .where("campaign_id", "=", campaignId)
      .where("status", "=", "open")
      .where("draw_at", ">", drawAtAfter)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Moves every open drawing still open at `now` to the table version (publishing a table). */
  async retableOpen(campaignId: string, tableId: string, version: number): Promise<number> {
    const result = await this.conn
      .q()
      .updateTable("drawings")
      .set({ table_id: tableId, table_version: version })
      .where("campaign_id", "=", campaignId)
      .where("status", "=", "open")
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * History: drawings with drawAt before `before`, of one status when given, newest first, with their winner counts
   * (the operator's `prizedraw drawing list`).
   */
  page(campaignId: string, before: string | null, limit: number, status: DrawingStatus | null = null): Promise<(Drawing & { winnerCount: number })[]> {
    return this.withWinnerCounts(campaignId, before, null, limit, status);
  }

  /**
   * The public list (draws.json, the campaign page): drawings with drawAt before `before` and at or before
   * `horizon` (the next drawing's draw time: later drawings are scheduled, not yet news), newest first, with their
   * winner counts. A null horizon lists every drawing.
   */
  publicPage(campaignId: string, before: string | null, horizon: string | null, limit: number): Promise<(Drawing & { winnerCount: number })[]> {
    return this.withWinnerCounts(campaignId, before, horizon, limit);
  }

  private async withWinnerCounts(campaignId: string, before: string | null, horizon: string | null, limit: number, status: DrawingStatus | null = null): Promise<(Drawing & { winnerCount: number })[]> {
    let query = this.conn
      .q()
      .selectFrom("drawings as d")
      .selectAll("d")
      .select((eb) => eb.selectFrom("winners as w").select((w) => w.fn.countAll().as("n")).whereRef("w.drawing_id", "=", "d.id").as("winner_count"))
      .where("d.campaign_id", "=", campaignId);
    if (before !== null) query = query.where("d.draw_at", "<", before);
    if (horizon !== null) query = query.where("d.draw_at", "<=", horizon);
    if (status !== null) query = query.where("d.status", "=", status);
    const rows = await query.orderBy("d.draw_at", "desc").limit(limit).execute();
    return rows.map(({ winner_count, ...r }) => ({ ...fromRecord(r), winnerCount: Number(winner_count) }));
  }

  /** How many of the campaign's drawings carry a needsAttention note, whatever their status. */
  async countNeedingAttention(campaignId: string): Promise<number> {
    const row = await this.conn
      .q()
      .selectFrom("drawings")
      .select((eb) => eb.fn.countAll<string | number>().as("n"))
      .where("campaign_id", "=", campaignId)
      .where("needs_attention", "is not", null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Drawings this service committed onchain (randomness requested or later). */
  async countCommitted(campaignId: string): Promise<number> {
    const row = await this.conn
      .q()
      .selectFrom("drawings")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("campaign_id", "=", campaignId)
      .where("status", "in", ["entropy_requested", "settled", "paid"])
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * The lowest finalized block at which one of the campaign's provisional results becomes final (domain/finality.ts:
   * its reveal and, once paid, its payout at or below it), above `finalized`; null when none will by finality alone
   * (a result whose block is not recorded yet becomes final only after a write records it).
   */
  async nextFinalBlock(campaignId: string, finalized: number): Promise<number | null> {
    const row = await this.conn
      .q()
      .selectFrom((eb) =>
        eb
          .selectFrom("drawings")
          // The block at which the result becomes final: a paid drawing's later block, null while either is unknown
          // (no CASE branch matches a comparison with null).
          .select((d) =>
            d
              .case()
              .when("status", "!=", "paid")
              .then(d.ref("reveal_block"))
              .when("paid_block", ">=", d.ref("reveal_block"))
              .then(d.ref("paid_block"))
              .when("reveal_block", ">", d.ref("paid_block"))
              .then(d.ref("reveal_block"))
              .end()
              .as("b"),
          )
          .where("campaign_id", "=", campaignId)
          .where("status", "in", ["settled", "paid"])
          .as("t"),
      )
      .select((eb) => eb.fn.min("t.b").as("m"))
      .where("t.b", ">", finalized)
      .executeTakeFirst();
    return row?.m == null ? null : Number(row.m);
  }

  async maxNumber(campaignId: string): Promise<number> {
    const row = await this.conn.q().selectFrom("drawings").select((eb) => eb.fn.max("number").as("m")).where("campaign_id", "=", campaignId).executeTakeFirst();
    return Number(row?.m ?? 0);
  }

  async winners(drawingId: string): Promise<Winner[]> {
    const rows = await this.conn.q().selectFrom("winners").selectAll().where("drawing_id", "=", drawingId).orderBy("position").execute();
    return rows.map(winner);
  }

  async replaceWinners(drawingId: string, list: readonly Pick<Winner, "winnerId" | "displayName" | "avatarUrl">[]): Promise<void> {
    // Up to MAX_WINNERS_PER_DRAW rows: inserted many to a statement, all or none.
    await this.conn.tx(async () => {
      await this.conn.q().deleteFrom("winners").where("drawing_id", "=", drawingId).execute();
      for (let start = 0; start < list.length; start += ROWS_PER_STATEMENT) {
        const rows = list
          .slice(start, start + ROWS_PER_STATEMENT)
          .map((w, i) => ({ drawing_id: drawingId, position: start + i, winner_id: w.winnerId, display_name: w.displayName, avatar_url: w.avatarUrl }));
        await this.conn.q().insertInto("winners").values(rows).execute();
      }
    });
  }

  async updateWinnerLabels(drawingId: string, list: readonly Pick<Winner, "displayName" | "avatarUrl">[]): Promise<void> {
    if (list.length === 0) return;
    await this.conn.tx(async () => {
      for (const [position, w] of list.entries()) {
        await this.conn
          .q()
          .updateTable("winners")
          .set({ display_name: w.displayName, avatar_url: w.avatarUrl })
          .where("drawing_id", "=", drawingId)
          .where("position", "=", position)
          .execute();
      }
    });
  }

  /**
   * Mirrors a drawing's prizes from the chain onto its winners: one UPDATE per 500 winners (each column a
   * `CASE position WHEN ... THEN ...`), not one per winner, which on PostgreSQL cost a round trip each (100,000
   * for the largest drawing, all under the store's write lock). The values are cast so PostgreSQL types them.
   */
  async setPrizes(drawingId: string, prizes: readonly { position: number; randomValue: string; roll: number; amountCents: number; held: boolean }[]): Promise<void> {
    if (prizes.length === 0) return;
    await this.conn.tx(async () => {
      for (let start = 0; start < prizes.length; start += ROWS_PER_STATEMENT) {
        const chunk = prizes.slice(start, start + ROWS_PER_STATEMENT);
        const byPosition = <T extends string | number>(value: (p: (typeof chunk)[number]) => T, type: "text" | "bigint") =>
          sql<T>`CASE position ${sql.join(chunk.map((p) => sql`WHEN ${p.position} THEN CAST(${value(p)} AS ${sql.raw(type)})`), sql` `)} END`;
        const held = chunk.filter((p) => p.held).map((p) => p.position);
        await this.conn
          .q()
          .updateTable("winners")
          .set({
            random_value: byPosition((p) => p.randomValue, "text"),
            roll: byPosition((p) => p.roll, "bigint"),
            amount_cents: byPosition((p) => p.amountCents, "bigint"),
            held: byPosition((p) => (p.held ? 1 : 0), "bigint"),
            // A held prize keeps the state it has (paid or refused); it opens only the first time.
            ...(held.length > 0 ? { held_status: sql<HeldStatus | null>`CASE WHEN position IN (${sql.join(held)}) THEN COALESCE(held_status, 'open') ELSE held_status END` } : {}),
          })
          .where("drawing_id", "=", drawingId)
          .where("position", "in", chunk.map((p) => p.position))
          .execute();
      }
    });
  }

  /** Forgets a drawing's mirrored prizes (its reveal was dropped by a reorg; the next reveal's come instead). */
  async clearPrizes(drawingId: string): Promise<void> {
    await this.conn
      .q()
      .updateTable("winners")
      .set({ random_value: null, roll: null, amount_cents: null, held: null, held_status: null, held_reason: null, held_block: null })
      .where("drawing_id", "=", drawingId)
      .execute();
  }

  /** Held prizes of a campaign still open (neither paid nor refused), oldest drawing first. */
  async openHeldPrizes(campaignId: string): Promise<OpenHeldPrize[]> {
    return this.conn
      .q()
      .selectFrom("winners as w")
      .innerJoin("drawings as d", "d.id", "w.drawing_id")
      .select(["d.id as drawingId", "d.number as number", "w.position as position"])
      .where("d.campaign_id", "=", campaignId)
      .where("w.held_status", "=", "open")
      .where("d.number", "is not", null)
      .$narrowType<{ number: NotNull }>()
      .orderBy("d.number")
      .orderBy("w.position")
      .execute();
  }

  /** Every held prize of a campaign with its drawing number (prizedraw held list). */
  async heldPrizes(campaignId: string): Promise<(Winner & { drawingId: string; number: number })[]> {
    const rows = await this.conn
      .q()
      .selectFrom("winners as w")
      .innerJoin("drawings as d", "d.id", "w.drawing_id")
      .selectAll("w")
      .select(["d.id as drawing_id_", "d.number as number_"])
      .where("d.campaign_id", "=", campaignId)
      .where("w.held_status", "is not", null)
      // A drawing with prizes has settled, and so has its number.
      .$narrowType<{ number_: NotNull }>()
      .orderBy("d.number")
      .orderBy("w.position")
      .execute();
    return rows.map((r) => ({ ...winner(r), drawingId: r.drawing_id_, number: r.number_ }));
  }

  /**
   * Records a held prize's state. `block` is the block of the decision this service sent (null when mirrored from
   * the indexer, or when a reorg reopened it): a decision with a block is checked against the chain until final.
   */
  async setHeldStatus(drawingId: string, position: number, status: HeldStatus, reason: string | null, block: number | null = null): Promise<void> {
    await this.conn
      .q()
      .updateTable("winners")
      .set({ held_status: status, held_reason: reason, held_block: block })
      .where("drawing_id", "=", drawingId)
      .where("position", "=", position)
      .execute();
  }

  /** Held prizes this service paid or refused in a block above `finalizedBlock`: a reorg may still drop the decision. */
  async heldDecisionsNotFinal(campaignId: string, finalizedBlock: number): Promise<(OpenHeldPrize & { status: Exclude<HeldStatus, "open">; reason: string | null })[]> {
    return this.conn
      .q()
      .selectFrom("winners as w")
      .innerJoin("drawings as d", "d.id", "w.drawing_id")
      .select(["d.id as drawingId", "d.number as number", "w.position as position", "w.held_status as status", "w.held_reason as reason"])
      .where("d.campaign_id", "=", campaignId)
      .where("w.held_status", "in", ["paid", "refused"])
      .where("w.held_block", ">", finalizedBlock)
      // A decision this service sent is on a settled (numbered) drawing; the filter above leaves paid or refused.
      .$narrowType<{ number: NotNull; status: Exclude<HeldStatus, "open"> }>()
      .orderBy("d.number")
      .orderBy("w.position")
      .execute();
  }
}
