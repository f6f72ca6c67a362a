import { sql, type Selectable } from "kysely";
import type { Connection } from "./connection.js";
import type { WebhookEndpointsTable } from "./schema.js";

export type WebhookEventType =
  | "drawing.locked"
  | "drawing.settled"
  | "drawing.paid"
  | "drawing.needs_attention"
  | "guarantee.awaiting_pick"
  | "campaign.payout_settings_changed";
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = [
  "drawing.locked",
  "drawing.settled",
  "drawing.paid",
  "drawing.needs_attention",
  "guarantee.awaiting_pick",
  "campaign.payout_settings_changed",
];

/** An account's endpoint. `secret` (and `previousSecret`) never leave the store except to sign, or once when made. */
export type WebhookEndpoint = {
  id: string;
  accountId: string;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousExpiresAt: string | null;
  createdAt: string;
  deletedAt: string | null;
};

export type WebhookEvent = { id: string; accountId: string; type: WebhookEventType; subjectId: string; body: string; createdAt: string };

export type DeliveryStatus = "pending" | "delivered" | "failed";

/** One HTTP attempt of a delivery: the answer's status, or the error when there was none. */
export type WebhookAttempt = { at: string; httpStatus: number | null; error: string | null; durationMs: number; responseSnippet: string | null };

export type WebhookDelivery = {
  id: number;
  eventId: string;
  eventType: WebhookEventType;
  subjectId: string;
  endpointId: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  giveUpAt: string;
  deliveredAt: string | null;
  createdAt: string;
};

/**
 * What a look for due deliveries leaves out: deliveries being sent (or waiting after an attempt that could not be
 * recorded), and accounts already sending as many as they may at once.
 */
export type DueExclusions = { deliveries?: readonly number[]; accounts?: readonly string[] };

/** A delivery the worker may send now, with what it sends. */
export type DueDelivery = WebhookDelivery & { body: string; endpoint: WebhookEndpoint };

type EndpointRecord = Selectable<WebhookEndpointsTable>;

type DeliveryRecord = {
  id: number;
  event_id: string;
  type: WebhookEventType;
  subject_id: string;
  endpoint_id: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  give_up_at: string;
  delivered_at: string | null;
  created_at: string;
};

const endpoint = (r: EndpointRecord): WebhookEndpoint => ({
  id: r.id,
  accountId: r.account_id,
  url: r.url,
  secret: r.secret,
  previousSecret: r.previous_secret,
  previousExpiresAt: r.previous_expires_at,
  createdAt: r.created_at,
  deletedAt: r.deleted_at,
});

const delivery = (r: DeliveryRecord): WebhookDelivery => ({
  id: r.id,
  eventId: r.event_id,
  eventType: r.type,
  subjectId: r.subject_id,
  endpointId: r.endpoint_id,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  giveUpAt: r.give_up_at,
  deliveredAt: r.delivered_at,
  createdAt: r.created_at,
});

/** A delivery's columns as DeliveryRecord names them (webhook_deliveries d joined with its event e). */
const DELIVERY_COLUMNS = [
  "d.id",
  "e.id as event_id",
  "e.type",
  "d.subject_id",
  "d.endpoint_id",
  "d.status",
  "d.attempts",
  "d.next_attempt_at",
  "d.give_up_at",
  "d.delivered_at",
  "e.created_at",
] as const;

/** Webhook endpoints, the event outbox, deliveries and attempts. */
export class WebhookStore {
  constructor(private readonly conn: Connection) {}

  async insertEndpoint(e: WebhookEndpoint): Promise<void> {
    await this.conn
      .q()
      .insertInto("webhook_endpoints")
      .values({
        id: e.id,
        account_id: e.accountId,
        url: e.url,
        secret: e.secret,
        previous_secret: e.previousSecret,
        previous_expires_at: e.previousExpiresAt,
        created_at: e.createdAt,
        deleted_at: e.deletedAt,
      })
      .execute();
  }

  /** An endpoint by id, deleted ones included (their deliveries stay listed). */
  async endpoint(id: string): Promise<WebhookEndpoint | null> {
    const r = await this.conn.q().selectFrom("webhook_endpoints").selectAll().where("id", "=", id).executeTakeFirst();
    return r ? endpoint(r) : null;
  }

  /** The account's endpoints not deleted, oldest first. */
  async endpoints(accountId: string): Promise<WebhookEndpoint[]> {
    const rows = await this.conn
      .q()
      .selectFrom("webhook_endpoints")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("deleted_at", "is", null)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return rows.map(endpoint);
  }

  async hasEndpoints(accountId: string): Promise<boolean> {
    const r = await this.conn.q().selectFrom("webhook_endpoints").select("id").where("account_id", "=", accountId).where("deleted_at", "is", null).limit(1).executeTakeFirst();
    return r !== undefined;
  }

  /** The new secret signs from now on; the one it replaces signs too until `previousExpiresAt`. */
  async rotate(id: string, secret: string, previousSecret: string, previousExpiresAt: string): Promise<void> {
    await this.conn
      .q()
      .updateTable("webhook_endpoints")
      .set({ secret, previous_secret: previousSecret, previous_expires_at: previousExpiresAt })
      .where("id", "=", id)
      .execute();
  }

  /**
   * Marks the endpoint deleted; its pending deliveries fail (nothing is sent to it any more). Returns how many.
   * One transaction (a savepoint inside the caller's).
   */
  async delete(id: string, at: string): Promise<number> {
    return this.conn.tx(async () => {
      await this.conn
        .q()
        .updateTable("webhook_endpoints")
        .set({ deleted_at: at, secret: "", previous_secret: null, previous_expires_at: null })
        .where("id", "=", id)
        .execute();
      const result = await this.conn
        .q()
        .updateTable("webhook_deliveries")
        .set({ status: "failed", next_attempt_at: null })
        .where("endpoint_id", "=", id)
        .where("status", "=", "pending")
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    });
  }

  /**
   * Puts an event in the outbox with one pending delivery per endpoint of its account, due at `event.createdAt`
   * (called inside the transaction of the change: its savepoint). Returns the number of deliveries.
   */
  async enqueue(event: WebhookEvent, giveUpAt: string): Promise<number> {
    return this.conn.tx(async () => {
      const { seq } = await this.conn
        .q()
        .insertInto("webhook_events")
        .values({ id: event.id, account_id: event.accountId, type: event.type, subject_id: event.subjectId, body: event.body, created_at: event.createdAt })
        .returning("seq")
        .executeTakeFirstOrThrow();
      const result = await this.conn
        .q()
        .insertInto("webhook_deliveries")
        .columns(["event_seq", "endpoint_id", "subject_id", "status", "attempts", "next_attempt_at", "give_up_at"])
        .expression((eb) =>
          eb
            .selectFrom("webhook_endpoints")
            .select((s) => [
              // Typed: PostgreSQL reads an untyped parameter in a select list as text, which a bigint column refuses.
            sql<number>`CAST(${seq} AS BIGINT)`.as("event_seq"),
              "id",
              s.val(event.subjectId).as("subject_id"),
              s.val("pending").as("status"),
              s.lit(0).as("attempts"),
              s.val(event.createdAt).as("next_attempt_at"),
              s.val(giveUpAt).as("give_up_at"),
            ])
            .where("account_id", "=", event.accountId)
            .where("deleted_at", "is", null),
        )
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n);
    });
  }

  /** Lane heads due at `now`, earliest due first, leaving out what `exclude` names. */
  async due(now: string, limit: number, exclude: DueExclusions = {}): Promise<DueDelivery[]> {
    // The endpoint is joined rather than read per row: one query, so every row sees the same endpoint state.
    const rows = await this.laneHeads(exclude)
      .innerJoin("webhook_events as e", "e.seq", "d.event_seq")
      .innerJoin("webhook_endpoints as ep", "ep.id", "d.endpoint_id")
      .select(DELIVERY_COLUMNS)
      .select([
        "e.body",
        "ep.account_id as ep_account_id",
        "ep.url as ep_url",
        "ep.secret as ep_secret",
        "ep.previous_secret as ep_previous_secret",
        "ep.previous_expires_at as ep_previous_expires_at",
        "ep.created_at as ep_created_at",
        "ep.deleted_at as ep_deleted_at",
      ])
      .where("d.next_attempt_at", "<=", now)
      .orderBy("d.next_attempt_at")
      .orderBy("d.id")
      .limit(limit)
      .$narrowType<{ type: WebhookEventType }>()
      .execute();
    return rows.map((r) => ({
      ...delivery(r),
      body: r.body,
      endpoint: endpoint({
        id: r.endpoint_id,
        account_id: r.ep_account_id,
        url: r.ep_url,
        secret: r.ep_secret,
        previous_secret: r.ep_previous_secret,
        previous_expires_at: r.ep_previous_expires_at,
        created_at: r.ep_created_at,
        deleted_at: r.ep_deleted_at,
      }),
    }));
  }

  /** When the next lane head is due, leaving out what `exclude` names; null when none is pending. */
  /** Deliveries still to be made (pending, whether due now or waiting for a retry): the outbox's backlog. */
  async pendingCount(): Promise<number> {
    const row = await this.conn.q().selectFrom("webhook_deliveries").select((eb) => eb.fn.countAll<string | number>().as("count")).where("status", "=", "pending").executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  async nextDueAt(exclude: DueExclusions = {}): Promise<string | null> {
    const r = await this.laneHeads(exclude)
      .select((eb) => eb.fn.min("d.next_attempt_at").as("at"))
      .executeTakeFirst();
    return r?.at ?? null;
  }

  /** Records an attempt and the delivery's new state, in one transaction. */
  recordAttempt(deliveryId: number, attempt: WebhookAttempt, next: { status: DeliveryStatus; nextAttemptAt: string | null }): Promise<void> {
    return this.conn.tx(async () => {
      await this.conn
        .q()
        .insertInto("webhook_attempts")
        .values({
          delivery_id: deliveryId,
          at: attempt.at,
          http_status: attempt.httpStatus,
          error: attempt.error,
          duration_ms: attempt.durationMs,
          response_snippet: attempt.responseSnippet,
        })
        .execute();
      await this.conn
        .q()
        .updateTable("webhook_deliveries")
        .set((eb) => ({
          attempts: eb("webhook_deliveries.attempts", "+", 1),
          status: next.status,
          next_attempt_at: next.nextAttemptAt,
          // delivered_at is set by the attempt that delivered, and kept otherwise.
          ...(next.status === "delivered" ? { delivered_at: attempt.at } : {}),
        }))
        .where("id", "=", deliveryId)
        .where("status", "=", "pending")
        .execute();
    });
  }

  /**
   * Deletes events created before `before` whose deliveries have all ended (delivered or failed), with those
   * deliveries and their attempts, looking at the `max` oldest events only. Returns how many events it deleted.
   * Events are appended in time order, so the oldest are first: a run costs `max` rows read however large the table,
   * and a backlog goes over several runs. Deliveries end within 3 days of their event (the last try), so with a
   * longer retention none is still pending; they are checked anyway.
   */
  async prune(before: string, max: number): Promise<number> {
    return this.conn.tx(async () => {
      const oldest = await this.conn
        .q()
        .selectFrom("webhook_events as e")
        .select(({ exists, selectFrom }) => [
          "e.seq",
          "e.created_at",
          exists(selectFrom("webhook_deliveries as d").select("d.id").whereRef("d.event_seq", "=", "e.seq").where("d.status", "=", "pending")).as("pending"),
        ])
        .orderBy("e.seq")
        .limit(max)
        .execute();
      // SQLite answers EXISTS with 0 or 1, PostgreSQL with a boolean.
      const seqs = oldest.filter((r) => r.created_at < before && !r.pending).map((r) => r.seq);
      if (seqs.length === 0) return 0;
      await this.conn
        .q()
        .deleteFrom("webhook_attempts")
        .where("delivery_id", "in", (eb) => eb.selectFrom("webhook_deliveries").select("id").where("event_seq", "in", seqs))
        .execute();
      await this.conn.q().deleteFrom("webhook_deliveries").where("event_seq", "in", seqs).execute();
      await this.conn.q().deleteFrom("webhook_events").where("seq", "in", seqs).execute();
      return seqs.length;
    });
  }

  /** An endpoint's deliveries, newest event first, at most `limit`. */
  async deliveries(endpointId: string, limit: number): Promise<WebhookDelivery[]> {
    const rows = await this.conn
      .q()
      .selectFrom("webhook_deliveries as d")
      .innerJoin("webhook_events as e", "e.seq", "d.event_seq")
      .select(DELIVERY_COLUMNS)
      .where("d.endpoint_id", "=", endpointId)
      .orderBy("d.event_seq", "desc")
      .limit(limit)
      .$narrowType<{ type: WebhookEventType }>()
      .execute();
    return rows.map(delivery);
  }

  async attempts(deliveryId: number): Promise<WebhookAttempt[]> {
    const rows = await this.conn
      .q()
      .selectFrom("webhook_attempts")
      .select(["at", "http_status", "error", "duration_ms", "response_snippet"])
      .where("delivery_id", "=", deliveryId)
      .orderBy("id")
      .execute();
    return rows.map((r) => ({ at: r.at, httpStatus: r.http_status, error: r.error, durationMs: r.duration_ms, responseSnippet: r.response_snippet }));
  }

  /**
   * The head of each lane (an endpoint and a drawing or guarantee): a pending delivery with no earlier pending one in
   * its lane, leaving out what `exclude` names. Only heads are sent, so one drawing's events arrive in the order
   * they happened.
   */
  private laneHeads({ deliveries = [], accounts = [] }: DueExclusions) {
    let query = this.conn
      .q()
      .selectFrom("webhook_deliveries as d")
      .where("d.status", "=", "pending")
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("webhook_deliveries as p")
              .select("p.id")
              .whereRef("p.endpoint_id", "=", "d.endpoint_id")
              .whereRef("p.subject_id", "=", "d.subject_id")
              .where("p.status", "=", "pending")
              .whereRef("p.event_seq", "<", "d.event_seq"),
          ),
        ),
      );
    // An empty NOT IN list is not valid SQL.
    if (deliveries.length > 0) query = query.where("d.id", "not in", deliveries);
    if (accounts.length > 0) query = query.where("d.endpoint_id", "not in", (eb) => eb.selectFrom("webhook_endpoints as ep").select("ep.id").where("ep.account_id", "in", accounts));
    return query;
  }
}
