/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): a secret `whsec_<base64 of the key>`; the
 * signed content `${webhook-id}.${webhook-timestamp}.${body}`; the header `webhook-signature` holding one or more
 * space-separated `v1,<base64 HMAC-SHA256>` values (two while a rotated secret's overlap lasts). No I/O: the
 * sender (keeper/webhooks.ts) and the receiving side (tests, the client package's verifyWebhook) share this.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const SECRET_PREFIX = "whsec_";
/** Bytes of a new secret's key (the spec allows 24 to 64). */
export const SECRET_BYTES = 32;
/** A receiver refuses a timestamp further than this from its clock (replay protection; the spec's default). */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/** Why a delivery does not verify; `code` is stable, for receivers to log or count. */
export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
  constructor(
    readonly code: "missing_header" | "bad_timestamp" | "timestamp_out_of_tolerance" | "bad_signature" | "bad_secret",
    message: string,
  ) {
    super(message);
  }
}

/** A new signing secret: `whsec_` and the base64 of 32 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

/** The HMAC key of a secret (the bytes its base64 part decodes to; the `whsec_` prefix is optional). */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, "base64") : Buffer.alloc(0);
  if (key.length < 24 || key.length > 64) throw new WebhookVerificationError("bad_secret", "the secret must be whsec_ followed by the base64 of 24 to 64 bytes");
  return key;
}

/** One signature, `v1,<base64>`, over `${id}.${timestamp}.${body}`. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac("sha256", secretKey(secret)).update(`${id}.${timestamp}.${body}`, "utf8").digest("base64");
  return `v1,${mac}`;
}

/** The `webhook-signature` header: one signature per secret, space-separated. */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => sign(s, id, timestamp, body)).join(" ");
}

/** The three Standard Webhooks headers as received (names are case-insensitive over HTTP; pass their values). */
export type WebhookHeaders = { id: string | undefined; timestamp: string | undefined; signature: string | undefined };

/**
 * Verifies a delivery: the timestamp within `toleranceSeconds` of `now`, and at least one `v1` signature of the
 * header equal (constant-time) to the one computed with `secret` over the raw body exactly as received. Throws
 * WebhookVerificationError; returns nothing on success.
 */
export function verify(secret: string, headers: WebhookHeaders, body: string, options: { now?: Date; toleranceSeconds?: number } = {}): void {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature) throw new WebhookVerificationError("missing_header", "webhook-id, webhook-timestamp and webhook-signature are all required");
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError("bad_timestamp", "webhook-timestamp must be unix seconds");
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    throw new WebhookVerificationError("timestamp_out_of_tolerance", "webhook-timestamp is too far from the current time");
  }
  const expected = Buffer.from(sign(secret, id, Number(timestamp), body).slice(3), "base64");
  for (const candidate of signature.split(" ")) {
    const [version, value] = candidate.split(",", 2);
    if (version !== "v1" || !value) continue;
    const given = Buffer.from(value, "base64");
    if (given.length === expected.length && timingSafeEqual(given, expected)) return;
  }
  throw new WebhookVerificationError("bad_signature", "no signature matches");
}
