import type { Connection } from "./connection.js";
import type { Db } from "./db.js";

export type WebhookEventType = "drawing.locked" | "drawing.settled" | "drawing.paid" | "drawing.needs_attention" | "guarantee.awaiting_pick";
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = ["drawing.locked", "drawing.settled", "drawing.paid", "drawing.needs_attention", "guarantee.awaiting_pick"];

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

/** A delivery the worker may send now, with what it sends. */
export type DueDelivery = WebhookDelivery & { body: string; endpoint: WebhookEndpoint };

type EndpointRecord = {
  id: string;
  account_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_expires_at: string | null;
  created_at: string;
  deleted_at: string | null;
};

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

const DELIVERY_SELECT = `SELECT d.id, e.id AS event_id, e.type, d.subject_id, d.endpoint_id, d.status, d.attempts, d.next_attempt_at, d.give_up_at,
  d.delivered_at, e.created_at FROM webhook_deliveries d JOIN webhook_events e ON e.seq = d.event_seq`;

/**
 * The head of each lane (an endpoint and a drawing or guarantee): a pending delivery with no earlier pending one in
 * its lane. Only heads are sent, so one drawing's events arrive in the order they happened.
 */
const LANE_HEAD = `d.status = 'pending' AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id
  AND p.subject_id = d.subject_id AND p.status = 'pending' AND p.event_seq < d.event_seq)`;

/** Webhook endpoints, the event outbox, deliveries and attempts. */
export class WebhookStore {
  constructor(private readonly conn: Connection) {}

  private get db(): Db {
    return this.conn.db;
  }

  insertEndpoint(e: WebhookEndpoint): Promise<void> {
    return this.conn.run(() => {
      this.db
        .prepare(
          `INSERT INTO webhook_endpoints (id, account_id, url, secret, previous_secret, previous_expires_at, created_at, deleted_at)
         VALUES (@id, @accountId, @url, @secret, @previousSecret, @previousExpiresAt, @createdAt, @deletedAt)`,
        )
        .run(e);
    });
  }

  /** An endpoint by id, deleted ones included (their deliveries stay listed). */
  endpoint(id: string): Promise<WebhookEndpoint | null> {
    return this.conn.run(() => this.endpointById(id));
  }

  /** The account's endpoints not deleted, oldest first. */
  endpoints(accountId: string): Promise<WebhookEndpoint[]> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT * FROM webhook_endpoints WHERE account_id = ? AND deleted_at IS NULL ORDER BY created_at, id").all(accountId) as EndpointRecord[]).map(endpoint);
    });
  }

  hasEndpoints(accountId: string): Promise<boolean> {
    return this.conn.run(() => {
      return this.db.prepare("SELECT 1 FROM webhook_endpoints WHERE account_id = ? AND deleted_at IS NULL LIMIT 1").get(accountId) !== undefined;
    });
  }

  /** The new secret signs from now on; the one it replaces signs too until `previousExpiresAt`. */
  rotate(id: string, secret: string, previousSecret: string, previousExpiresAt: string): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare("UPDATE webhook_endpoints SET secret = ?, previous_secret = ?, previous_expires_at = ? WHERE id = ?").run(secret, previousSecret, previousExpiresAt, id);
    });
  }

  /** Marks the endpoint deleted; its pending deliveries fail (nothing is sent to it any more). Returns how many. */
  delete(id: string, at: string): Promise<number> {
    return this.conn.run(() => {
      this.db.prepare("UPDATE webhook_endpoints SET deleted_at = ?, secret = '', previous_secret = NULL, previous_expires_at = NULL WHERE id = ?").run(at, id);
      return this.db.prepare("UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE endpoint_id = ? AND status = 'pending'").run(id).changes;
    });
  }

  /**
   * Puts an event in the outbox with one pending delivery per endpoint of its account, due at `event.createdAt`
   * (call inside the transaction of the change). Returns the number of deliveries.
   */
  enqueue(event: WebhookEvent, giveUpAt: string): Promise<number> {
    return this.conn.run(() => {
      const { lastInsertRowid } = this.db
        .prepare("INSERT INTO webhook_events (id, account_id, type, subject_id, body, created_at) VALUES (@id, @accountId, @type, @subjectId, @body, @createdAt)")
        .run(event);
      return this.db
        .prepare(
          `INSERT INTO webhook_deliveries (event_seq, endpoint_id, subject_id, status, attempts, next_attempt_at, give_up_at)
         SELECT ?, id, ?, 'pending', 0, ?, ? FROM webhook_endpoints WHERE account_id = ? AND deleted_at IS NULL`,
        )
        .run(lastInsertRowid, event.subjectId, event.createdAt, giveUpAt, event.accountId).changes;
    });
  }

  /** Lane heads due at `now`, earliest due first, leaving out `busy` deliveries (being sent). */
  due(now: string, limit: number, busy: readonly number[] = []): Promise<DueDelivery[]> {
    return this.conn.run(() => {
      const rows = this.db
        .prepare(
          `${DELIVERY_SELECT.replace("SELECT d.id,", "SELECT e.body, d.id,")} WHERE ${LANE_HEAD} AND d.next_attempt_at <= ?
         AND d.id NOT IN (SELECT value FROM json_each(?)) ORDER BY d.next_attempt_at, d.id LIMIT ?`,
        )
        .all(now, JSON.stringify(busy), limit) as (DeliveryRecord & { body: string })[];
      return rows.map((r) => ({ ...delivery(r), body: r.body, endpoint: this.endpointById(r.endpoint_id)! }));
    });
  }

  /** When the next lane head is due, leaving out `busy` deliveries (being sent); null when none is pending. */
  nextDueAt(busy: readonly number[] = []): Promise<string | null> {
    return this.conn.run(() => {
      return (this.db
        .prepare(`SELECT MIN(d.next_attempt_at) FROM webhook_deliveries d WHERE ${LANE_HEAD} AND d.id NOT IN (SELECT value FROM json_each(?))`)
        .pluck()
        .get(JSON.stringify(busy)) as string | null) ?? null;
    });
  }

  /** Records an attempt and the delivery's new state, in one transaction. */
  recordAttempt(deliveryId: number, attempt: WebhookAttempt, next: { status: DeliveryStatus; nextAttemptAt: string | null }): Promise<void> {
    return this.conn.tx(async () => {
      this.db
        .prepare("INSERT INTO webhook_attempts (delivery_id, at, http_status, error, duration_ms, response_snippet) VALUES (?, ?, ?, ?, ?, ?)")
        .run(deliveryId, attempt.at, attempt.httpStatus, attempt.error, attempt.durationMs, attempt.responseSnippet);
      this.db
        .prepare(
          `UPDATE webhook_deliveries SET attempts = attempts + 1, status = ?, next_attempt_at = ?,
           delivered_at = CASE WHEN ? = 'delivered' THEN ? ELSE delivered_at END WHERE id = ? AND status = 'pending'`,
        )
        .run(next.status, next.nextAttemptAt, next.status, attempt.at, deliveryId);
    });
  }

  /** An endpoint's deliveries, newest event first, at most `limit`. */
  deliveries(endpointId: string, limit: number): Promise<WebhookDelivery[]> {
    return this.conn.run(() => {
      return (this.db.prepare(`${DELIVERY_SELECT} WHERE d.endpoint_id = ? ORDER BY d.event_seq DESC LIMIT ?`).all(endpointId, limit) as DeliveryRecord[]).map(delivery);
    });
  }

  attempts(deliveryId: number): Promise<WebhookAttempt[]> {
    return this.conn.run(() => {
      const rows = this.db
        .prepare("SELECT at, http_status, error, duration_ms, response_snippet FROM webhook_attempts WHERE delivery_id = ? ORDER BY id")
        .all(deliveryId) as { at: string; http_status: number | null; error: string | null; duration_ms: number; response_snippet: string | null }[];
      return rows.map((r) => ({ at: r.at, httpStatus: r.http_status, error: r.error, durationMs: r.duration_ms, responseSnippet: r.response_snippet }));
    });
  }

  private endpointById(id: string): WebhookEndpoint | null {
    const r = this.db.prepare("SELECT * FROM webhook_endpoints WHERE id = ?").get(id) as EndpointRecord | undefined;
    return r ? endpoint(r) : null;
  }
}
