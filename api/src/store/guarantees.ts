import type { Connection } from "./connection.js";
import type { Db } from "./db.js";
import type { DrawingStatus } from "./drawings.js";

export type GuaranteeStatus = "not_needed" | "awaiting_pick" | "picked" | "paid";
export const GUARANTEE_STATUSES: readonly GuaranteeStatus[] = ["not_needed", "awaiting_pick", "picked", "paid"];

/** A checked guarantee period of a campaign (the current, unchecked period has no row). */
export type GuaranteePeriod = {
  id: string;
  campaignId: string;
  period: number;
  periodStart: string;
  periodEnd: string;
  status: GuaranteeStatus;
  amountCents: number;
  thresholdCents: number;
  pickedWinner: string | null;
  pickedDrawingId: string | null;
  pickedAt: string | null;
  payoutId: string | null;
  /** The payGuarantee transaction, once sent (or once seen in the indexer). */
  pickTx: string | null;
  paidAt: string | null;
  createdAt: string;
};

/** A winner of a drawing with drawAt inside a period. */
export type PeriodWin = { drawingId: string; position: number; winnerId: string; amountCents: number | null };

type Record_ = {
  id: string;
  campaign_id: string;
  period: number;
  period_start: string;
  period_end: string;
  status: GuaranteeStatus;
  amount_cents: number;
  threshold_cents: number;
  picked_winner: string | null;
  picked_drawing_id: string | null;
  picked_at: string | null;
  payout_id: string | null;
  pick_tx: string | null;
  paid_at: string | null;
  created_at: string;
};

const COLUMNS: readonly (keyof Record_)[] = [
  "id", "campaign_id", "period", "period_start", "period_end", "status", "amount_cents", "threshold_cents", "picked_winner",
  "picked_drawing_id", "picked_at", "payout_id", "pick_tx", "paid_at", "created_at",
];

function fromRecord(r: Record_): GuaranteePeriod {
  return {
    id: r.id,
    campaignId: r.campaign_id,
    period: r.period,
    periodStart: r.period_start,
    periodEnd: r.period_end,
    status: r.status,
    amountCents: r.amount_cents,
    thresholdCents: r.threshold_cents,
    pickedWinner: r.picked_winner,
    pickedDrawingId: r.picked_drawing_id,
    pickedAt: r.picked_at,
    payoutId: r.payout_id,
    pickTx: r.pick_tx,
    paidAt: r.paid_at,
    createdAt: r.created_at,
  };
}

function toRecord(g: GuaranteePeriod): Record_ {
  return {
    id: g.id,
    campaign_id: g.campaignId,
    period: g.period,
    period_start: g.periodStart,
    period_end: g.periodEnd,
    status: g.status,
    amount_cents: g.amountCents,
    threshold_cents: g.thresholdCents,
    picked_winner: g.pickedWinner,
    picked_drawing_id: g.pickedDrawingId,
    picked_at: g.pickedAt,
    payout_id: g.payoutId,
    pick_tx: g.pickTx,
    paid_at: g.paidAt,
    created_at: g.createdAt,
  };
}

/** Guarantee periods, and the reads over drawings a period check and a pick need. */
export class GuaranteeStore {
  /** Set by createStore: records the webhook event of a new period (webhooks/events.ts), in the insert's transaction. */
  onInsert: ((g: GuaranteePeriod) => Promise<void>) | null = null;

  constructor(private readonly conn: Connection) {}

  private get db(): Db {
    return this.conn.db;
  }

  insert(g: GuaranteePeriod): Promise<void> {
    return this.conn.tx(async () => {
      this.db.prepare(`INSERT INTO guarantees (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((k) => `@${k}`).join(", ")})`).run(toRecord(g));
      await this.onInsert?.(g);
    });
  }

  /** A campaign's checked periods, first period first. */
  list(campaignId: string): Promise<GuaranteePeriod[]> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT * FROM guarantees WHERE campaign_id = ? ORDER BY period").all(campaignId) as Record_[]).map(fromRecord);
    });
  }

  byId(campaignId: string, id: string): Promise<GuaranteePeriod | null> {
    return this.conn.run(() => {
      const r = this.db.prepare("SELECT * FROM guarantees WHERE id = ? AND campaign_id = ?").get(id, campaignId) as Record_ | undefined;
      return r ? fromRecord(r) : null;
    });
  }

  /** The campaign's last checked period (the next one starts at its end). */
  last(campaignId: string): Promise<GuaranteePeriod | null> {
    return this.conn.run(() => {
      const r = this.db.prepare("SELECT * FROM guarantees WHERE campaign_id = ? ORDER BY period DESC LIMIT 1").get(campaignId) as Record_ | undefined;
      return r ? fromRecord(r) : null;
    });
  }

  withStatus(campaignId: string, status: GuaranteeStatus): Promise<GuaranteePeriod[]> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT * FROM guarantees WHERE campaign_id = ? AND status = ? ORDER BY period").all(campaignId, status) as Record_[]).map(fromRecord);
    });
  }

  /** awaiting_pick -> picked; false when the row was not awaiting a pick any more (a pick is made once). */
  pick(id: string, pick: { winner: string; drawingId: string; payoutId: string; at: string }): Promise<boolean> {
    return this.conn.run(() => {
      return (
        this.db
          .prepare("UPDATE guarantees SET status = 'picked', picked_winner = ?, picked_drawing_id = ?, payout_id = ?, picked_at = ? WHERE id = ? AND status = 'awaiting_pick'")
          .run(pick.winner, pick.drawingId, pick.payoutId, pick.at, id).changes === 1
      );
    });
  }

  setPickTx(id: string, tx: string): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("UPDATE guarantees SET pick_tx = ? WHERE id = ?").run(tx, id);
    });
  }

  /** picked -> paid once the indexed transfer is seen, in block `block`. */
  markPaid(id: string, paidAt: string, tx: string, block: number): Promise<boolean> {
    return this.conn.run(() => {
      return (
        this.db
          .prepare("UPDATE guarantees SET status = 'paid', paid_at = ?, pick_tx = COALESCE(pick_tx, ?), paid_block = ? WHERE id = ? AND status = 'picked'")
          .run(paidAt, tx, block, id).changes === 1
      );
    });
  }

  /** Paid periods whose payment block is unknown or above `finalizedBlock`: a reorg may still drop the payment. */
  paidNotFinal(campaignId: string, finalizedBlock: number): Promise<GuaranteePeriod[]> {
    return this.conn.run(() => {
      return (
        this.db
          .prepare("SELECT * FROM guarantees WHERE campaign_id = ? AND status = 'paid' AND (paid_block IS NULL OR paid_block > ?) ORDER BY period")
          .all(campaignId, finalizedBlock) as Record_[]
      ).map(fromRecord);
    });
  }

  /** Records the payment's block (a period paid before blocks were recorded, once the indexer shows it). */
  setPaidBlock(id: string, block: number): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("UPDATE guarantees SET paid_block = ? WHERE id = ?").run(block, id);
    });
  }

  /** paid -> picked: a reorg dropped the payment, so the keeper pays the same pick again. */
  unpay(id: string): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("UPDATE guarantees SET status = 'picked', paid_at = NULL, paid_block = NULL, pick_tx = NULL WHERE id = ? AND status = 'paid'").run(id);
    });
  }

  /** Statuses of the campaign's drawings with start <= drawAt < end. */
  periodDrawings(campaignId: string, start: string, end: string): Promise<{ id: string; status: DrawingStatus }[]> {
    return this.conn.run(() => {
      return this.db.prepare("SELECT id, status FROM drawings WHERE campaign_id = ? AND draw_at >= ? AND draw_at < ? ORDER BY draw_at").all(campaignId, start, end) as {
        id: string;
        status: DrawingStatus;
      }[];
    });
  }

  /** Winners of the campaign's drawn drawings (settled or paid) with start <= drawAt < end, in draw order. */
  periodWins(campaignId: string, start: string, end: string): Promise<PeriodWin[]> {
    return this.conn.run(() => {
      const rows = this.db
        .prepare(
          `SELECT w.drawing_id, w.position, w.winner_id, w.amount_cents FROM winners w JOIN drawings d ON d.id = w.drawing_id
         WHERE d.campaign_id = ? AND d.draw_at >= ? AND d.draw_at < ? AND d.status IN ('settled', 'paid') ORDER BY d.draw_at, w.position`,
        )
        .all(campaignId, start, end) as { drawing_id: string; position: number; winner_id: string; amount_cents: number | null }[];
      return rows.map((r) => ({ drawingId: r.drawing_id, position: r.position, winnerId: r.winner_id, amountCents: r.amount_cents }));
    });
  }
}
