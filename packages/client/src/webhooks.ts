import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Verifying a webhook delivery as the Standard Webhooks specification defines it (https://www.standardwebhooks.com):
 * the signature is `v1,` + base64(HMAC-SHA256(key, `${webhook-id}.${webhook-timestamp}.${raw body}`)), where the
 * key is the base64 after the secret's `whsec_` prefix. While a secret is being rotated the service signs with
 * both, so `webhook-signature` holds several space-separated signatures and one match is enough.
 */

/** How far a delivery's timestamp may be from now (either way) before it is refused as a replay. */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

/**
 * The event types the service sends today. New types may be added within v1: a handler should acknowledge (2xx) and
 * ignore a `type` it does not know, so compare `event.type` to the ones it handles rather than assume this list.
 */
export type WebhookEventType =
  | "drawing.locked"
  | "drawing.settled"
  | "drawing.paid"
  | "drawing.needs_attention"
  | "guarantee.awaiting_pick"
  | "campaign.payout_settings_changed";

/**
 * A verified delivery's body: the event type, when it happened, and its data: the drawing or guarantee as the API
 * shows it, or for `campaign.payout_settings_changed` the payout wallet and large-prize threshold before and after,
 * who changed them and when (docs/api.md, Webhooks).
 */
export type WebhookEvent = {
  type: WebhookEventType;
  timestamp: string;
  data: Record<string, unknown>;
};

/** Why a delivery was refused; `code` is stable. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    readonly code: "missing_headers" | "bad_timestamp" | "stale_timestamp" | "bad_signature" | "bad_secret" | "bad_body",
    message: string,
  ) {
    super(message);
  }
}

/** Headers as Node's `IncomingMessage.headers`, a fetch `Headers`, or a plain object with lower-case names. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export type VerifyWebhookOptions = {
  /** Now, in seconds since 1970 (tests). */
  nowSeconds?: number;
  toleranceSeconds?: number;
};

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

function secretKey(secret: string): Buffer {
  const base64 = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  const key = Buffer.from(base64, "base64");
  if (key.length === 0) throw new WebhookVerificationError("bad_secret", "the secret is not a whsec_ secret");
  return key;
}

/** The `v1,...` signature of one message under one secret. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac("sha256", secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`;
}

/**
 * Checks a delivery and returns its parsed event; throws WebhookVerificationError otherwise. Pass the body exactly
 * as received (the raw text, before any JSON parsing), and every secret currently valid for the endpoint.
 * Deliveries are at least once: deduplicate on `webhook-id`.
 */
export function verifyWebhook(secrets: string | readonly string[], headers: WebhookHeaders, body: string, options: VerifyWebhookOptions = {}): WebhookEvent & { id: string } {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError("missing_headers", "webhook-id, webhook-timestamp and webhook-signature are required");
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError("bad_timestamp", "webhook-timestamp is not a whole number of seconds");
  const sent = Number(timestamp);
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1_000);
  if (Math.abs(now - sent) > (options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS)) {
    throw new WebhookVerificationError("stale_timestamp", "webhook-timestamp is too far from now");
  }
  const offered = signatures.split(" ").filter((s) => s.startsWith("v1,")).map((s) => Buffer.from(s.slice(3), "base64"));
  const matches = (Array.isArray(secrets) ? secrets : [secrets as string]).some((secret) => {
    const expected = Buffer.from(signWebhook(secret, id, sent, body).slice(3), "base64");
    return offered.some((o) => o.length === expected.length && timingSafeEqual(o, expected));
  });
  if (!matches) throw new WebhookVerificationError("bad_signature", "no signature matches the secret");
  let event: WebhookEvent;
  try {
    event = JSON.parse(body) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("bad_body", "the body is not JSON");
  }
  return { ...event, id };
}
