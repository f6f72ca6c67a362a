/**
 * Outgoing mail (the portal's sign-in and invite links). With SMTP_URL, real SMTP through nodemailer; without it
 * (the test environment only: production refuses to start without SMTP_URL), the mail goes to the store's outbox,
 * shown at /portal/outbox, and its text to the service's log, so `npm start` alone lets a newcomer sign in.
 */
import nodemailer from "nodemailer";
import type { Logger } from "../logger.js";
import type { Store } from "../store/index.js";

export type Mail = { to: string; subject: string; text: string };

export interface Mailer {
  /** Sends one mail; throws when the server refuses it. */
  send(mail: Mail): Promise<void>;
  /** "smtp" or "outbox", for the start-up line and the sign-in page's hint. */
  readonly kind: "smtp" | "outbox";
}

export function smtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    kind: "smtp",
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}

/** The test environment's stand-in: the mail is kept in the store and written to the log (links included). */
export function outboxMailer(store: Store, logger: Logger): Mailer {
  return {
    kind: "outbox",
    async send(mail) {
      await store.portal.addMail(mail.to, mail.subject, mail.text, new Date().toISOString());
      // One readable line in `npm start`'s output, with the mail's link (test environment only).
      const link = /https?:\/\/\S+/.exec(mail.text)?.[0] ?? "";
      logger.info({ to: mail.to, outbox: "/portal/outbox" }, `mail to ${mail.to} (test outbox, SMTP_URL unset): ${mail.subject}: ${link}`);
    },
  };
}
