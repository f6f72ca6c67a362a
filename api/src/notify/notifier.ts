/**
 * Sends an alert's notice to the people who watch the service: a mail to each ALERT_EMAIL address through the
 * service's mailer (SMTP, or the test environment's outbox), and a POST to ALERT_WEBHOOK_URL signed exactly as
 * partner webhooks are (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature; webhooks/signature.ts),
 * through the same sender and outbound guard (webhooks/send.ts: https, every address public, no redirects, a time
 * limit). Keeps no state: the keeper's alert watch records what went out and tries again what did not.
 */
import type { Mailer } from "../mail/mailer.js";
import { postWebhook, type SendResult } from "../webhooks/send.js";
import { signatureHeader } from "../webhooks/signature.js";
import { noticeMail } from "./notices.js";

export type NotifierSettings = {
  /** Mail recipients; empty: no mail. */
  emails: readonly string[];
  /** The operator webhook; null: none. `allowLoopback`: the test environment's http to a loopback address. */
  webhook: { url: string; secret: string; allowLoopback: boolean } | null;
};

/** A webhook attempt's outcome: answered 2xx, or why not (never naming any part of the URL). */
export type WebhookOutcome = { ok: true } | { ok: false; error: string };

export type Notifier = {
  /** Whether notices go out by mail / by webhook at all (a channel that is off is recorded as such). */
  readonly mails: boolean;
  readonly webhooks: boolean;
  /** Hands the notice's mail to the mailer for every recipient; throws when the mailer does. */
  mail(body: string): Promise<void>;
  /** One signed POST of the notice's body; never throws. */
  webhook(eventId: string, body: string, now?: Date): Promise<WebhookOutcome>;
};

/** The raw send (tests replace it). */
export type PostWebhook = (url: string, headers: Record<string, string>, body: string, options: { allowLoopback: boolean }) => Promise<SendResult>;

export function createNotifier(settings: NotifierSettings, mailer: Pick<Mailer, "send">, post: PostWebhook = postWebhook): Notifier {
  const { emails, webhook } = settings;
  return {
    mails: emails.length > 0,
    webhooks: webhook !== null,
    async mail(body) {
      for (const to of emails) await mailer.send(noticeMail(body, to));
    },
    async webhook(eventId, body, now = new Date()) {
      if (webhook === null) return { ok: false, error: "no operator webhook is configured" };
      const timestamp = Math.floor(now.getTime() / 1_000);
      const headers = { "webhook-id": eventId, "webhook-timestamp": String(timestamp), "webhook-signature": signatureHeader([webhook.secret], eventId, timestamp, body) };
      const result = await post(webhook.url, headers, body, { allowLoopback: webhook.allowLoopback });
      if ("error" in result) return { ok: false, error: result.error };
      return result.status >= 200 && result.status < 300 ? { ok: true } : { ok: false, error: `answered HTTP ${result.status}` };
    },
  };
}
