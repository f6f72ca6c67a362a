/**
 * Where a webhook may go: https only (http only to a loopback address, with the test environment's
 * PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK), and the outbound guard that pull fetches use too (outbound/guard.ts: every
 * address the host resolves to public, the connection pinned to the address checked). Checked when an endpoint is
 * created and again before every attempt.
 */
import { isLoopbackAddress } from "../outbound/addresses.js";
import { OutboundRefusedError, bareHost, checkHost, type OutboundAddress, type OutboundOptions } from "../outbound/guard.js";

export const MAX_WEBHOOK_URL_LENGTH = 2_048;

/** A webhook URL refused; `message` says why and names no part of the URL beyond what the owner typed. */
export class WebhookUrlError extends Error {
  readonly code = "invalid_webhook_url";
  override name = "WebhookUrlError";
}

/** The outbound guard's options; allowLoopback (test environment only) allows http to loopback too. */
export type TargetOptions = OutboundOptions;

export type Target = { url: URL; hostname: string; secure: boolean; address: OutboundAddress };

/** The URL's form alone: parses, https (or http with the loopback allowance), no credentials, a sane length. */
export function checkWebhookUrl(text: string, allowLoopback: boolean): URL {
  if (text.length > MAX_WEBHOOK_URL_LENGTH) throw new WebhookUrlError(`the URL must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookUrlError("the URL is not valid");
  }
  const host = bareHost(url);
  const loopbackHost = host === "localhost" || isLoopbackAddress(host);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowLoopback && loopbackHost)) throw new WebhookUrlError("the URL must be https");
  if (url.username || url.password) throw new WebhookUrlError("the URL must not carry credentials; verify the signature instead");
  if (url.hash) throw new WebhookUrlError("the URL must not have a #fragment");
  if (url.port === "0") throw new WebhookUrlError("the URL's port must be 1 to 65535");
  return url;
}

/** Resolves the URL's host and checks every address; returns the one to connect to. */
export async function resolveTarget(text: string, options: TargetOptions): Promise<Target> {
  const url = checkWebhookUrl(text, options.allowLoopback);
  let host;
  try {
    host = await checkHost(url, options);
  } catch (error) {
    throw error instanceof OutboundRefusedError ? new WebhookUrlError(error.message) : error;
  }
  const secure = url.protocol === "https:";
  if (!secure && !host.loopbackOnly) throw new WebhookUrlError("the URL must be https");
  return { url, hostname: host.hostname, secure, address: host.address };
}
