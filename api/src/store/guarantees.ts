import type { Insertable, Selectable } from "kysely";
import type { Connection } from "./connection.js";
import type { DrawingStatus } from "./drawings.js";
import type { GuaranteesTable } from "./schema.js";

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

type Record_ = Selectable<GuaranteesTable>;

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

function toRecord(g: GuaranteePeriod): Insertable<GuaranteesTable> {
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

  insert(g: GuaranteePeriod): Promise<void> {
    return this.conn.tx(async () => {
      await this.conn.q().insertInto("guarantees").values(toRecord(g)).execute();
      await this.onInsert?.(g);
    });
  }

  /** A campaign's checked periods, first period first. */
  async list(campaignId: string): Promise<GuaranteePeriod[]> {
    const rows = await this.conn.q().selectFrom("guarantees").selectAll().where("campaign_id", "=", campaignId).orderBy("period").execute();
    return rows.map(fromRecord);
  }

  async byId(campaignId: string, id: string): Promise<GuaranteePeriod | null> {
    const r = await this.conn.q().selectFrom("guarantees").selectAll().where("id", "=", id).where("campaign_id", "=", campaignId).executeTakeFirst();
    return r ? fromRecord(r) : null;
  }

  /** The campaign's last checked period (the next one starts at its end). */
  async last(campaignId: string): Promise<GuaranteePeriod | null> {
    const r = await this.conn.q().selectFrom("guarantees").selectAll().where("campaign_id", "=", campaignId).orderBy("period", "desc").limit(1).executeTakeFirst();
    return r ? fromRecord(r) : null;
  }

  async withStatus(campaignId: string, status: GuaranteeStatus): Promise<GuaranteePeriod[]> {
    const rows = await this.conn.q().selectFrom("guarantees").selectAll().where("campaign_id", "=", campaignId).where("status", "=", status).orderBy("period").execute();
    return rows.map(fromRecord);
  }

  /** awaiting_pick -> picked; false when the row was not awaiting a pick any more (a pick is made once). */
  async pick(id: string, pick: { winner: string; drawingId: string; payoutId: string; at: string }): Promise<boolean> {
    const result = await this.conn
      .q()
      .updateTable("guarantees")
      .set({ status: "picked", picked_winner: pick.winner, picked_drawing_id: pick.drawingId, payout_id: pick.payoutId, picked_at: pick.at })
      .where("id", "=", id)
      .where("status", "=", "awaiting_pick")
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async setPickTx(id: string, tx: string): Promise<void> {
    await this.conn.q().updateTable("guarantees").set({ pick_tx: tx }).where("id", "=", id).execute();
  }

  /** picked -> paid once the indexed transfer is seen, in block `block`. */
  async markPaid(id: string, paidAt: string, tx: string, block: number): Promise<boolean> {
    const result = await this.conn
      .q()
      .updateTable("guarantees")
      .set((eb) => ({ status: "paid", paid_at: paidAt, pick_tx: eb.fn.coalesce("pick_tx", eb.val(tx)), paid_block: block }))
      .where("id", "=", id)
      .where("status", "=", "picked")
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Paid periods whose payment block is unknown or above `finalizedBlock`: a reorg may still drop the payment. */
  async paidNotFinal(campaignId: string, finalizedBlock: number): Promise<GuaranteePeriod[]> {
    const rows = await this.conn
      .q()
      .selectFrom("guarantees")
      .selectAll()
      .where("campaign_id", "=", campaignId)
      .where("status", "=", "paid")
      .where((eb) => eb.or([eb("paid_block", "is", null), eb("paid_block", ">", finalizedBlock)]))
      .orderBy("period")
      .execute();
    return rows.map(fromRecord);
  }

  /** Records the payment's block (a period paid before blocks were recorded, once the indexer shows it). */
  async setPaidBlock(id: string, block: number): Promise<void> {
    await this.conn.q().updateTable("guarantees").set({ paid_block: block }).where("id", "=", id).execute();
  }

  /** paid -> picked: a reorg dropped the payment, so the keeper pays the same pick again. */
  async unpay(id: string): Promise<void> {
    await this.conn
      .q()
      .updateTable("guarantees")
      .set({ status: "picked", paid_at: null, paid_block: null, pick_tx: null })
      .where("id", "=", id)
      .where("status", "=", "paid")
      .execute();
  }

  /** Statuses of the campaign's drawings with start <= drawAt < end. */
  async periodDrawings(campaignId: string, start: string, end: string): Promise<{ id: string; status: DrawingStatus }[]> {
    return this.conn
      .q()
      .selectFrom("drawings")
      .select(["id", "status"])
      .where("campaign_id", "=", campaignId)
      .where("draw_at", ">=", start)
      .where("draw_at", "<", end)
      .orderBy("draw_at")
      .execute();
  }

  /** Winners of the campaign's drawn drawings (settled or paid) with start <= drawAt < end, in draw order. */
  async periodWins(campaignId: string, start: string, end: string): Promise<PeriodWin[]> {
    const rows = await this.conn
      .q()
      .selectFrom("winners as w")
      .innerJoin("drawings as d", "d.id", "w.drawing_id")
      .select(["w.drawing_id", "w.position", "w.winner_id", "w.amount_cents"])
      .where("d.campaign_id", "=", campaignId)
      .where("d.draw_at", ">=", start)
      .where("d.draw_at", "<", end)
      .where("d.status", "in", ["settled", "paid"])
      .orderBy("d.draw_at")
      .orderBy("w.position")
      .execute();
    return rows.map((r) => ({ drawingId: r.drawing_id, position: r.position, winnerId: r.winner_id, amountCents: r.amount_cents }));
  }
}
