import type { Connection } from "./connection.js";
import type { Db } from "./db.js";

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

type Record_ = {
  id: string;
  campaign_id: string;
  draw_at: string;
  cutoff_at: string;
  status: DrawingStatus;
  winners_expected: number;
  number: number | null;
  partner_round: number | null;
  table_id: string;
  table_version: number;
  needs_attention: string | null;
  list_submitted_at: string | null;
  locked_at: string | null;
  winners_commitment: string | null;
  entropy_provider: string | null;
  entropy_request_id: string | null;
  entropy_value: string | null;
  entropy_revealed_at: string | null;
  settled_at: string | null;
  paid_at: string | null;
  commit_tx: string | null;
  reveal_tx: string | null;
  reveal_block: number | null;
  paid_block: number | null;
  created_at: string;
  entrant_count: number;
  total_weight: number;
  entrants_commitment: string | null;
};

const COLUMNS: readonly (keyof Record_)[] = [
  "id", "campaign_id", "draw_at", "cutoff_at", "status", "winners_expected", "number", "partner_round", "table_id",
  "table_version", "needs_attention", "list_submitted_at", "locked_at", "winners_commitment", "entropy_provider",
  "entropy_request_id", "entropy_value", "entropy_revealed_at", "settled_at", "paid_at", "commit_tx", "reveal_tx", "reveal_block", "paid_block", "created_at",
  "entrant_count", "total_weight", "entrants_commitment",
];

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

type WinnerRecord = {
  position: number;
  winner_id: string;
  display_name: string | null;
  avatar_url: string | null;
  random_value: string | null;
  roll: number | null;
  amount_cents: number | null;
  held: number | null;
  held_status: HeldStatus | null;
  held_reason: string | null;
};

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

/** Drawings and their winner lists. */
export class DrawingStore {
  /** Set by createStore: records webhook events (webhooks/events.ts); every update passes through it. */
  onChange: DrawingChangeHook | null = null;

  constructor(private readonly conn: Connection) {}

  private get db(): Db {
    return this.conn.db;
  }

  /** Inserts unless the campaign already has a drawing at that time; returns whether it was new. */
  insertIfAbsent(d: Drawing): Promise<boolean> {
    return this.conn.run(() => {
      const sql = `INSERT INTO drawings (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((k) => `@${k}`).join(", ")}) ON CONFLICT (campaign_id, draw_at) DO NOTHING`;
      return this.db.prepare(sql).run(toRecord(d)).changes === 1;
    });
  }

  update(d: Drawing): Promise<void> {
    const rewrite = (): void => {
      this.db.prepare(`UPDATE drawings SET ${COLUMNS.filter((k) => k !== "id").map((k) => `${k} = @${k}`).join(", ")} WHERE id = @id`).run(toRecord(d));
    };
    const hook = this.onChange;
    if (!hook) return this.conn.run(rewrite);
    // The change and its events commit together (a savepoint inside the caller's transaction, if any). Begun as a
    // write (IMMEDIATE, by conn.tx) on its own: a deferred one reads first and then cannot wait for another
    // process's write (SQLite answers SQLITE_BUSY at once instead of waiting out busy_timeout).
    return this.conn.tx(async () => {
      const before = this.db.prepare("SELECT status, needs_attention FROM drawings WHERE id = ?").get(d.id) as Pick<Record_, "status" | "needs_attention"> | undefined;
      rewrite();
      if (before) await hook({ status: before.status, needsAttention: before.needs_attention }, d);
    });
  }

  byId(campaignId: string, id: string): Promise<Drawing | null> {
    return this.conn.run(() => {
      const r = this.db.prepare("SELECT * FROM drawings WHERE id = ? AND campaign_id = ?").get(id, campaignId) as Record_ | undefined;
      return r ? fromRecord(r) : null;
    });
  }

  /**
   * GET drawings' order (spec, GET drawings), at most `limit`: open drawings still taking a list at `now` first,
   * soonest cutoff first; then open drawings whose cutoff passed without a list (flagged), in cutoff order; then
   * every other status, newest first. Without `now` every open drawing counts as still taking a list.
   */
  list(campaignId: string, status: DrawingStatus | null, limit: number, now: string | null = null): Promise<Drawing[]> {
    return this.conn.run(() => {
      const order = `CASE WHEN status != 'open' THEN 2 WHEN @now IS NULL OR cutoff_at > @now THEN 0 ELSE 1 END,
        CASE WHEN status = 'open' THEN cutoff_at END ASC, draw_at DESC`;
      const where = status ? "campaign_id = @campaignId AND status = @status" : "campaign_id = @campaignId";
      const rows = this.db.prepare(`SELECT * FROM drawings WHERE ${where} ORDER BY ${order} LIMIT @limit`).all({ campaignId, status, limit, now });
      return (rows as Record_[]).map(fromRecord);
    });
  }

  /** Drawings the keeper still has to move on (not yet paid). */
  unfinished(campaignId: string): Promise<Drawing[]> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT * FROM drawings WHERE campaign_id = ? AND status != 'paid' ORDER BY draw_at").all(campaignId) as Record_[]).map(fromRecord);
    });
  }

  /**
   * Paid drawings whose reveal or payout is not known to be final (block unknown, or above `finalizedBlock`): a
   * reorg may still drop them.
   */
  paidNotFinal(campaignId: string, finalizedBlock: number): Promise<Drawing[]> {
    return this.conn.run(() => {
      return (
        this.db
          .prepare(
            `SELECT * FROM drawings WHERE campaign_id = @campaignId AND status = 'paid'
             AND (reveal_block IS NULL OR paid_block IS NULL OR reveal_block > @finalizedBlock OR paid_block > @finalizedBlock) ORDER BY draw_at`,
          )
          .all({ campaignId, finalizedBlock }) as Record_[]
      ).map(fromRecord);
    });
  }

  /** The open drawing whose cutoff is next after `now` (the one taking lists or entries). */
  nextOpen(campaignId: string, now: string): Promise<Drawing | null> {
    return this.conn.run(() => {
      const r = this.db.prepare("SELECT * FROM drawings WHERE campaign_id = ? AND status = 'open' AND cutoff_at > ? ORDER BY cutoff_at LIMIT 1").get(campaignId, now) as Record_ | undefined;
      return r ? fromRecord(r) : null;
    });
  }

  /** Open drawings with after < cutoffAt <= upTo, soonest cutoff first (the pull fetcher's timer). */
  openWithCutoffBetween(campaignId: string, after: string, upTo: string): Promise<Drawing[]> {
    return this.conn.run(() => {
      return (
        this.db
          .prepare("SELECT * FROM drawings WHERE campaign_id = ? AND status = 'open' AND cutoff_at > ? AND cutoff_at <= ? ORDER BY cutoff_at")
          .all(campaignId, after, upTo) as Record_[]
      ).map(fromRecord);
    });
  }

  /** Removes open drawings whose cutoff is after `after` (pause, end, an earlier end date), winners included. */
  deleteUpcoming(campaignId: string, after: string): Promise<number> {
    return this.conn.run(() => {
      return this.db.prepare("DELETE FROM drawings WHERE campaign_id = ? AND status = 'open' AND cutoff_at > ?").run(campaignId, after).changes;
    });
  }

  /**
   * Removes open drawings that hold no list to draw: winner campaigns, fewer winners than expected (a list is
   * whole or absent); entries campaigns, no entrant. With `cutoffUpTo`, only those whose cutoff is at or before it.
   */
  deleteWithoutList(campaignId: string, entries: boolean, cutoffUpTo: string | null = null): Promise<number> {
    return this.conn.run(() => {
      const empty = entries ? "entrant_count = 0" : "(SELECT COUNT(*) FROM winners w WHERE w.drawing_id = drawings.id) != winners_expected";
      return this.db
        .prepare(`DELETE FROM drawings WHERE campaign_id = ? AND status = 'open' AND ${empty} AND (? IS NULL OR cutoff_at <= ?)`)
        .run(campaignId, cutoffUpTo, cutoffUpTo).changes;
    });
  }

  deleteOpenAfterDrawAt(campaignId: string, drawAtAfter: string): Promise<number> {
    return this.conn.run(() => {
      return this.db.prepare("DELETE FROM drawings WHERE campaign_id = ? AND status = 'open' AND draw_at > ?").run(campaignId, drawAtAfter).changes;
    });
  }

  /** Moves every open drawing still open at `now` to the table version (publishing a table). */
  retableOpen(campaignId: string, tableId: string, version: number): Promise<number> {
    return this.conn.run(() => {
      return this.db.prepare("UPDATE drawings SET table_id = ?, table_version = ? WHERE campaign_id = ? AND status = 'open'").run(tableId, version, campaignId).changes;
    });
  }

  /** Public history: drawings with drawAt before `before`, newest first, with their winner counts. */
  page(campaignId: string, before: string | null, limit: number): Promise<(Drawing & { winnerCount: number })[]> {
    return this.conn.run(() => {
      const rows = this.db
        .prepare(
          `SELECT d.*, (SELECT COUNT(*) FROM winners w WHERE w.drawing_id = d.id) AS winner_count FROM drawings d
           WHERE d.campaign_id = ? AND (? IS NULL OR d.draw_at < ?) ORDER BY d.draw_at DESC LIMIT ?`,
        )
        .all(campaignId, before, before, limit) as (Record_ & { winner_count: number })[];
      return rows.map((r) => ({ ...fromRecord(r), winnerCount: r.winner_count }));
    });
  }

  /**
   * The public list (draws.json, the campaign page): drawings with drawAt before `before` and at or before
   * `horizon` (the next drawing's draw time: later drawings are scheduled, not yet news), newest first, with their
   * winner counts. A null horizon lists every drawing.
   */
  publicPage(campaignId: string, before: string | null, horizon: string | null, limit: number): Promise<(Drawing & { winnerCount: number })[]> {
    return this.conn.run(() => {
      const rows = this.db
        .prepare(
          `SELECT d.*, (SELECT COUNT(*) FROM winners w WHERE w.drawing_id = d.id) AS winner_count FROM drawings d
           WHERE d.campaign_id = @campaignId AND (@before IS NULL OR d.draw_at < @before) AND (@horizon IS NULL OR d.draw_at <= @horizon)
           ORDER BY d.draw_at DESC LIMIT @limit`,
        )
        .all({ campaignId, before, horizon, limit }) as (Record_ & { winner_count: number })[];
      return rows.map((r) => ({ ...fromRecord(r), winnerCount: r.winner_count }));
    });
  }

  /** Drawings this service committed onchain (randomness requested or later). */
  countCommitted(campaignId: string): Promise<number> {
    return this.conn.run(() => {
      return this.db
        .prepare("SELECT COUNT(*) FROM drawings WHERE campaign_id = ? AND status IN ('entropy_requested', 'settled', 'paid')")
        .pluck()
        .get(campaignId) as number;
    });
  }

  /**
   * The lowest finalized block at which one of the campaign's provisional results becomes final (domain/finality.ts:
   * its reveal and, once paid, its payout at or below it), above `finalized`; null when none will by finality alone
   * (a result whose block is not recorded yet becomes final only after a write records it).
   */
  nextFinalBlock(campaignId: string, finalized: number): Promise<number | null> {
    return this.conn.run(() => {
      return (this.db
        .prepare(
          `SELECT MIN(b) FROM (SELECT CASE WHEN status = 'paid' THEN MAX(reveal_block, paid_block) ELSE reveal_block END AS b
             FROM drawings WHERE campaign_id = ? AND status IN ('settled', 'paid')) WHERE b > ?`,
        )
        .pluck()
        .get(campaignId, finalized) as number | null) ?? null;
    });
  }

  maxNumber(campaignId: string): Promise<number> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT COALESCE(MAX(number), 0) FROM drawings WHERE campaign_id = ?").pluck().get(campaignId) as number) ?? 0;
    });
  }

  winners(drawingId: string): Promise<Winner[]> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT * FROM winners WHERE drawing_id = ? ORDER BY position").all(drawingId) as WinnerRecord[]).map(winner);
    });
  }

  replaceWinners(drawingId: string, list: readonly Pick<Winner, "winnerId" | "displayName" | "avatarUrl">[]): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("DELETE FROM winners WHERE drawing_id = ?").run(drawingId);
      const insert = this.db.prepare("INSERT INTO winners (drawing_id, position, winner_id, display_name, avatar_url) VALUES (?, ?, ?, ?, ?)");
      list.forEach((w, position) => insert.run(drawingId, position, w.winnerId, w.displayName, w.avatarUrl));
    });
  }

  updateWinnerLabels(drawingId: string, list: readonly Pick<Winner, "displayName" | "avatarUrl">[]): Promise<void> {
    return this.conn.run(() => {
      const update = this.db.prepare("UPDATE winners SET display_name = ?, avatar_url = ? WHERE drawing_id = ? AND position = ?");
      list.forEach((w, position) => update.run(w.displayName, w.avatarUrl, drawingId, position));
    });
  }

  setPrizes(drawingId: string, prizes: readonly { position: number; randomValue: string; roll: number; amountCents: number; held: boolean }[]): Promise<void> {
    return this.conn.run(() => {
      const update = this.db.prepare(
        "UPDATE winners SET random_value = ?, roll = ?, amount_cents = ?, held = ?, held_status = COALESCE(held_status, ?) WHERE drawing_id = ? AND position = ?",
      );
      for (const p of prizes) update.run(p.randomValue, p.roll, p.amountCents, p.held ? 1 : 0, p.held ? "open" : null, drawingId, p.position);
    });
  }

  /** Forgets a drawing's mirrored prizes (its reveal was dropped by a reorg; the next reveal's come instead). */
  clearPrizes(drawingId: string): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("UPDATE winners SET random_value = NULL, roll = NULL, amount_cents = NULL, held = NULL, held_status = NULL, held_reason = NULL, held_block = NULL WHERE drawing_id = ?").run(drawingId);
    });
  }

  /** Held prizes of a campaign still open (neither paid nor refused), oldest drawing first. */
  openHeldPrizes(campaignId: string): Promise<OpenHeldPrize[]> {
    return this.conn.run(() => {
      return this.db
        .prepare(
          `SELECT d.id AS drawingId, d.number AS number, w.position AS position FROM winners w JOIN drawings d ON d.id = w.drawing_id
           WHERE d.campaign_id = ? AND w.held_status = 'open' AND d.number IS NOT NULL ORDER BY d.number, w.position`,
        )
        .all(campaignId) as OpenHeldPrize[];
    });
  }

  /** Every held prize of a campaign with its drawing number (prizedraw held list). */
  heldPrizes(campaignId: string): Promise<(Winner & { drawingId: string; number: number })[]> {
    return this.conn.run(() => {
      const rows = this.db
        .prepare(
          `SELECT w.*, d.id AS drawing_id_, d.number AS number_ FROM winners w JOIN drawings d ON d.id = w.drawing_id
           WHERE d.campaign_id = ? AND w.held_status IS NOT NULL ORDER BY d.number, w.position`,
        )
        .all(campaignId) as (WinnerRecord & { drawing_id_: string; number_: number })[];
      return rows.map((r) => ({ ...winner(r), drawingId: r.drawing_id_, number: r.number_ }));
    });
  }

  /**
   * Records a held prize's state. `block` is the block of the decision this service sent (null when mirrored from
   * the indexer, or when a reorg reopened it): a decision with a block is checked against the chain until final.
   */
  setHeldStatus(drawingId: string, position: number, status: HeldStatus, reason: string | null, block: number | null = null): Promise<void> {
    return this.conn.run(() => {
      this.db
        .prepare("UPDATE winners SET held_status = ?, held_reason = ?, held_block = ? WHERE drawing_id = ? AND position = ?")
        .run(status, reason, block, drawingId, position);
    });
  }

  /** Held prizes this service paid or refused in a block above `finalizedBlock`: a reorg may still drop the decision. */
  heldDecisionsNotFinal(campaignId: string, finalizedBlock: number): Promise<(OpenHeldPrize & { status: Exclude<HeldStatus, "open">; reason: string | null })[]> {
    return this.conn.run(() => {
      return this.db
        .prepare(
          `SELECT d.id AS drawingId, d.number AS number, w.position AS position, w.held_status AS status, w.held_reason AS reason
           FROM winners w JOIN drawings d ON d.id = w.drawing_id
           WHERE d.campaign_id = ? AND w.held_status IN ('paid', 'refused') AND w.held_block > ? ORDER BY d.number, w.position`,
        )
        .all(campaignId, finalizedBlock) as (OpenHeldPrize & { status: Exclude<HeldStatus, "open">; reason: string | null })[];
    });
  }
}
