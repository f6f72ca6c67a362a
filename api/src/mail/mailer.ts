/**
 * Outgoing mail (the portal's sign-in and invite links). With SMTP_URL, real SMTP through nodemailer, sent off the
 * request path (mail/queue.ts: a request never waits for the SMTP server, and its failure never reaches the page);
 * without it (the test environment only: production refuses to start without SMTP_URL), the mail goes to the store's
 * outbox, shown at /portal/outbox, and its text to the service's log, so `npm start` alone lets a newcomer sign in.
 */
import nodemailer from "nodemailer";
import type { Logger } from "../logger.js";
import type { Store } from "../store/index.js";
import { MailQueue, type Mail } from "./queue.js";

export type { Mail } from "./queue.js";

export interface Mailer {
  /**
   * Takes one mail for delivery. SMTP: queued and sent in the background, so it returns at once and never throws
   * for the server's answer (failures are logged at warn). Outbox: stored before it returns.
   */
  send(mail: Mail): Promise<void>;
  /** Waits, up to `timeoutMs`, for every mail taken to be sent or given up (at shutdown), logging any left. */
  idle(timeoutMs: number): Promise<void>;
  /** "smtp" or "outbox", for the start-up line and the sign-in page's hint. */
  readonly kind: "smtp" | "outbox";
}

export function smtpMailer(url: string, from: string, logger: Logger): Mailer {
  const transport = nodemailer.createTransport(url);
  const queue = new MailQueue(async (mail) => {
    await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
  }, logger);
  return {
    kind: "smtp",
    send(mail) {
      queue.enqueue(mail);
      return Promise.resolve();
    },
    idle: (timeoutMs) => queue.idle(timeoutMs),
  };
}

/**
 * The test environment's stand-in: the mail is kept in the store and written to the log (links included). It is
 * written in the request: a row of the service's own store, which a newcomer (and a test) reads at once.
 */
export function outboxMailer(store: Store, logger: Logger): Mailer {
  return {
    kind: "outbox",
    async send(mail) {
      await store.portal.addMail(mail.to, mail.subject, mail.text, new Date().toISOString());
      // One readable line in `npm start`'s output, with the mail's link (test environment only).
      const link = /https?:\/\/\S+/.exec(mail.text)?.[0] ?? "";
      logger.info({ to: mail.to, outbox: "/portal/outbox" }, `mail to ${mail.to} (test outbox, SMTP_URL unset): ${mail.subject}: ${link}`);
    },
    idle: () => Promise.resolve(),
  };
}
