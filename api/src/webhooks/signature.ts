/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com), sending side: a secret is `whsec_` and the
 * base64 of its key; `webhook-signature` holds one `v1,<base64 HMAC-SHA256>` per secret, space-separated (two
 * while a rotated secret's overlap lasts). The algorithm itself lives once, in the client package partners verify
 * with (packages/client/src/webhooks.ts), so what the service sends and what the helper accepts cannot differ.
 */
import { randomBytes } from "node:crypto";
import { signWebhook } from "@prizedraw/client";

export const SECRET_PREFIX = "whsec_";
/** Bytes of a new secret's key (the spec allows 24 to 64). */
export const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` and the base64 of 32 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

/** The `webhook-signature` header: one signature per secret, space-separated. */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => signWebhook(s, id, timestamp, body)).join(" ");
}
