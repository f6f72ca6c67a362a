/**
 * Sends mail off the request path. A portal request that mails a link (sign-in, invite) hands the mail over and
 * answers at once: waiting for the SMTP server would make "send me a link" slower for an address with an account
 * than for one without (only the first gets mail), and an SMTP failure would surface as a 500 for it alone, so the
 * answer would tell who has an account. Here the mail is sent in the background, a few at a time; a refusal for now
 * (a 4xx reply, no connection, a time-out) is tried again after each of MAIL_RETRY_DELAYS_MS, a refusal for good (a
 * 5xx reply) is not; each failure is logged at warn with the recipient and the server's words, never the mail's text
 * (it holds the link).
 *
 * The queue is in memory, not in the store: a link's token is kept only as its hash, and a stored mail would hold it
 * in clear. At a shutdown the service waits for the queue (`idle`, main.ts) and logs any mail still unsent; a crash
 * loses the few mails in flight, and the page already says to ask for another link when one does not arrive.
 */
import type { Logger } from "../logger.js";

export type Mail = { to: string; subject: string; text: string };

/** Waits before the 2nd, 3rd and 4th try of a mail the server refused for now; then it is given up. */
export const MAIL_RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000];
/** Mails sent at the same time: one slow server answer does not hold up every other mail. */
export const MAIL_SENDERS = 4;
/** Mails waiting at most; more are refused (logged at warn): the portal's limits keep far below this. */
export const MAX_QUEUED_MAILS = 1_000;

/** One delivery through the transport; throws with the server's refusal. */
export type Deliver = (mail: Mail) => Promise<void>;

type Queued = { mail: Mail; attempt: number };

/** A 5xx reply is a refusal for good (the mailbox does not exist, the message is refused): trying again changes nothing. */
function refusedForGood(error: unknown): boolean {
  const code = typeof error === "object" && error !== null && "responseCode" in error ? Number((error as { responseCode: unknown }).responseCode) : NaN;
  return code >= 500 && code <= 599;
}

function describe(error: unknown): { name: string; message: string; responseCode?: number } {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const responseCode = "responseCode" in error ? Number(error.responseCode) : undefined;
  return { name: error.name, message: error.message, ...(responseCode === undefined || Number.isNaN(responseCode) ? {} : { responseCode }) };
}

export class MailQueue {
  private readonly waiting: Queued[] = [];
  private readonly inFlight = new Set<Queued>();
  /** Mails refused for now, each with the timer of its next try. */
  private readonly retries = new Map<NodeJS.Timeout, Queued>();
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly deliver: Deliver,
    private readonly logger: Logger,
    private readonly retryDelaysMs: readonly number[] = MAIL_RETRY_DELAYS_MS,
  ) {}

  /** Takes a mail for delivery and returns at once; false (logged) when the queue is full. */
  enqueue(mail: Mail): boolean {
    if (this.waiting.length >= MAX_QUEUED_MAILS) {
      this.logger.warn({ to: mail.to, subject: mail.subject, queued: this.waiting.length }, "mail not sent: the mail queue is full");
      return false;
    }
    this.waiting.push({ mail, attempt: 1 });
    this.pump();
    return true;
  }

  /** Mails not yet sent or given up: waiting, being sent, or waiting for a retry. */
  get pending(): number {
    return this.due + this.retries.size;
  }

  /** Mails waiting or being sent (not those waiting for a retry's timer). */
  private get due(): number {
    return this.waiting.length + this.inFlight.size;
  }

  /**
   * For a shutdown: resolves once every mail due now has been tried, or after `timeoutMs`; then the mails still
   * unsent (waiting, being sent, or refused for now and waiting for a retry) are logged at warn with their
   * recipients and their retries dropped, so none is lost without a line in the log.
   */
  async idle(timeoutMs: number): Promise<void> {
    if (this.due > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
      ]);
      clearTimeout(timer);
    }
    if (this.pending === 0) return;
    const unsent = [...this.waiting, ...this.inFlight, ...this.retries.values()].map((q) => ({ to: q.mail.to, subject: q.mail.subject }));
    for (const timer of this.retries.keys()) clearTimeout(timer);
    this.retries.clear();
    this.waiting.length = 0;
    this.logger.warn({ unsent }, `mail not sent: the service stopped with ${unsent.length} mail${unsent.length === 1 ? "" : "s"} still queued`);
  }

  private pump(): void {
    while (this.inFlight.size < MAIL_SENDERS && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      this.inFlight.add(next);
      void this.send(next).finally(() => {
        this.inFlight.delete(next);
        this.pump();
        if (this.due === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
      });
    }
  }

  /** One try of one mail; never rejects (a failure is logged, and tried again when the refusal is for now). */
  private async send(queued: Queued): Promise<void> {
    try {
      await this.deliver(queued.mail);
    } catch (error) {
      const { mail, attempt } = queued;
      const delay = this.retryDelaysMs[attempt - 1];
      const where = { to: mail.to, subject: mail.subject, attempt, err: describe(error) };
      if (refusedForGood(error) || delay === undefined) {
        this.logger.warn(where, `mail not sent: ${refusedForGood(error) ? "refused by the SMTP server" : `given up after ${attempt} tries`}`);
        return;
      }
      this.logger.warn({ ...where, retryInSeconds: delay / 1_000 }, "mail not sent yet: trying again");
      const timer = setTimeout(() => {
        this.retries.delete(timer);
        this.waiting.push({ mail, attempt: attempt + 1 });
        this.pump();
      }, delay);
      // A waiting retry does not keep the process alive: a shutdown logs its mail as unsent (`idle`).
      timer.unref();
      this.retries.set(timer, queued);
    }
  }
}
