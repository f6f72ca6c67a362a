import type { Logger } from "../logger.js";
import type { Store } from "../store/index.js";
import type { DueDelivery, DueExclusions } from "../store/webhooks.js";
import { signingSecrets } from "../webhooks/endpoints.js";
import { nextAttemptAt, type RetryPolicy } from "../webhooks/retry.js";
import { postWebhook, type SendResult } from "../webhooks/send.js";
import { signatureHeader } from "../webhooks/signature.js";
import { SerialRun } from "./serialRun.js";
import { webhookFailures } from "../metrics/registry.js";

/** Deliveries sent at once (independent lanes; one lane's deliveries go one after the other). */
export const WEBHOOK_CONCURRENCY = 8;
/**
 * Deliveries of one account sent at once: an account whose endpoints hang (10 s an attempt) holds at most this many
 * of the WEBHOOK_CONCURRENCY slots, and the other accounts' events go on in the rest.
 */
export const WEBHOOK_CONCURRENCY_PER_ACCOUNT = 2;
/**
 * The timer looks at the outbox at least this often: events are written by whatever process changes a drawing
 * (the keeper, an HTTP request, the CLI), so it cannot rely on being told.
 */
const IDLE_CHECK_MS = 1_000;
/** After an attempt whose outcome could not be stored (the store busy or closing), the delivery waits this long. */
const UNRECORDED_WAIT_MS = 30_000;
/** setTimeout's limit is about 24 days; a re-check costs one query. */
const MAX_SLEEP_MS = 60 * 60_000;

export type WebhookDeps = {
  store: Store;
  logger: Logger;
  /** Test environment only: loopback endpoints (PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK). */
  allowLoopback: boolean;
  retry: RetryPolicy;
  /** Tests: sends instead of the real HTTP client. */
  send?: (url: string, headers: Record<string, string>, body: string) => Promise<SendResult>;
};

/**
 * Sends the webhook outbox (store/webhooks.ts): every due delivery that heads its lane (an endpoint and a drawing or
 * guarantee), so one drawing's events arrive in order: the next waits until the one before is delivered or has
 * failed for good. Lanes go side by side, at most WEBHOOK_CONCURRENCY at a time and WEBHOOK_CONCURRENCY_PER_ACCOUNT
 * of one account. A 2xx delivers; anything else (status, timeout, refused address) is an attempt recorded with its
 * outcome and retried with backoff (webhooks/retry.ts). A delivery stays pending in the store until its attempt is recorded, so a crash mid-send
 * sends it again after the restart: delivery is at least once, and receivers dedupe by webhook-id.
 */
export class WebhookTimer {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** Deliveries being sent, with their account. */
  private readonly inFlight = new Map<number, string>();
  /** Deliveries whose last attempt could not be recorded, and when they may be tried again. */
  private readonly unrecorded = new Map<number, number>();
  /** Arms run one at a time (they read the store); one asked for meanwhile runs after the one under way. */
  private readonly arms = new SerialRun(() => (this.running ? this.schedule() : Promise.resolve()));
  /**
   * A firing is reading the due deliveries. Firings never overlap there: two reading at once would both pick the
   * same delivery before either marks it in flight, and send it twice. A firing that comes meanwhile is left to
   * the one under way, which arms the timer again as soon as it has picked.
   */
  private choosing = false;

  constructor(private readonly deps: WebhookDeps) {}

  start(): void {
    this.running = true;
    // arm() never rejects (it logs what fails).
    void this.arm();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Sets the timer to the next due delivery, or the idle check, whichever is sooner. Two arms never run at once:
   * one asked for meanwhile runs after the one under way. Never rejects.
   */
  arm(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return this.arms.run();
  }

  private async schedule(): Promise<void> {
    let wait = IDLE_CHECK_MS;
    try {
      // Deliveries being sent, or waiting after an attempt that could not be recorded, are not due: counting them
      // set a 0 ms timer over and over while a send was open (hundreds of empty looks a second).
      const next = WEBHOOK_CONCURRENCY - this.inFlight.size > 0 ? await this.deps.store.webhooks.nextDueAt(this.busy()) : null;
      if (next !== null) wait = Math.min(wait, Math.max(0, Date.parse(next) - Date.now()));
    } catch (error) {
      this.deps.logger.warn({ err: message(error) }, "webhook outbox not readable; retrying");
    }
    // Stopped while the store was read: no timer.
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.fire(), Math.min(wait, MAX_SLEEP_MS));
    this.timer.unref?.();
  }

  private async fire(): Promise<void> {
    this.timer = undefined;
    if (this.choosing) return;
    this.choosing = true;
    const free = WEBHOOK_CONCURRENCY - this.inFlight.size;
    let due: DueDelivery[] = [];
    try {
      if (free > 0) due = this.withinAccountLimit(await this.deps.store.webhooks.due(new Date().toISOString(), free, this.busy()));
    } catch (error) {
      this.deps.logger.warn({ err: message(error) }, "webhook outbox not readable; retrying");
    }
    for (const delivery of due) {
      this.inFlight.set(delivery.id, delivery.endpoint.accountId);
      void this.deliver(delivery)
        .catch((error: unknown) => {
          // Sent (perhaps) but not recorded: it stays due in the store, so it waits here before it is sent again.
          this.unrecorded.set(delivery.id, Date.now() + UNRECORDED_WAIT_MS);
          this.deps.logger.warn({ deliveryId: delivery.id, err: message(error) }, "webhook attempt not recorded; retried");
        })
        .finally(() => {
          this.inFlight.delete(delivery.id);
          void this.arm();
        });
    }
    this.choosing = false;
    await this.arm();
  }

  /**
   * What not to pick now: deliveries being sent or waiting after an unrecorded attempt, and accounts sending their
   * WEBHOOK_CONCURRENCY_PER_ACCOUNT already (left out of the next-due time too, so a full account sets no 0 ms timer).
   */
  private busy(): Required<DueExclusions> {
    const now = Date.now();
    for (const [id, until] of this.unrecorded) if (until <= now) this.unrecorded.delete(id);
    const accounts = [...this.sendingPerAccount()].filter(([, n]) => n >= WEBHOOK_CONCURRENCY_PER_ACCOUNT).map(([account]) => account);
    return { deliveries: [...this.inFlight.keys(), ...this.unrecorded.keys()], accounts };
  }

  /** Of `due` (earliest first), those that keep each account within WEBHOOK_CONCURRENCY_PER_ACCOUNT sends at once. */
  private withinAccountLimit(due: readonly DueDelivery[]): DueDelivery[] {
    const sending = this.sendingPerAccount();
    return due.filter((delivery) => {
      const n = sending.get(delivery.endpoint.accountId) ?? 0;
      if (n >= WEBHOOK_CONCURRENCY_PER_ACCOUNT) return false;
      sending.set(delivery.endpoint.accountId, n + 1);
      return true;
    });
  }

  private sendingPerAccount(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const account of this.inFlight.values()) counts.set(account, (counts.get(account) ?? 0) + 1);
    return counts;
  }

  /** One attempt: signs at send time (the timestamp is the attempt's), sends, records the outcome. */
  async deliver(delivery: DueDelivery): Promise<void> {
    const { store, logger } = this.deps;
    const started = new Date();
    const timestamp = Math.floor(started.getTime() / 1000);
    const headers = {
      "webhook-id": delivery.eventId,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signatureHeader(signingSecrets(delivery.endpoint, started), delivery.eventId, timestamp, delivery.body),
    };
    const send = this.deps.send ?? ((url: string, h: Record<string, string>, body: string) => postWebhook(url, h, body, { allowLoopback: this.deps.allowLoopback }));
    const result = await send(delivery.endpoint.url, headers, delivery.body);
    const ended = new Date();
    const ok = "status" in result && result.status >= 200 && result.status < 300;
    const attempts = delivery.attempts + 1;
    const next = ok ? null : nextAttemptAt(attempts, ended, delivery.giveUpAt, this.deps.retry);
    const status = ok ? "delivered" : next === null ? "failed" : "pending";
    await store.webhooks.recordAttempt(
      delivery.id,
      {
        at: started.toISOString(),
        httpStatus: "status" in result ? result.status : null,
        error: "error" in result ? result.error : null,
        durationMs: ended.getTime() - started.getTime(),
        responseSnippet: "snippet" in result && result.snippet !== "" ? result.snippet : null,
      },
      { status, nextAttemptAt: next },
    );
    // The endpoint's URL may hold a token: logs name the endpoint by id only.
    const fields = { endpointId: delivery.endpointId, eventId: delivery.eventId, type: delivery.eventType, attempts, ...("status" in result ? { httpStatus: result.status } : { error: result.error }) };
    if (status !== "delivered") webhookFailures.inc({ outcome: status === "failed" ? "failed" : "retrying" });
    if (status === "failed") logger.warn({ alert: "webhook_failed", ...fields }, "webhook delivery failed for good");
    else if (status === "pending") logger.info({ ...fields, nextAttemptAt: next }, "webhook attempt failed; retrying");
    else logger.info(fields, "webhook delivered");
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
