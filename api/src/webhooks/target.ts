/**
 * Where a webhook may go: the pull fetcher's address rules (pull/fetcher.ts, pull/addresses.ts). https only (http
 * only to a loopback address, with the test environment's PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK); every address the
 * host resolves to must be public (loopback too only with that test allowance); the connection goes to the address
 * checked, so a DNS answer cannot change between the check and the request. Checked when an endpoint is created
 * and again before every attempt.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isLoopbackAddress, isPublicAddress } from "../pull/addresses.js";

export const MAX_WEBHOOK_URL_LENGTH = 2_048;

/** A webhook URL refused; `message` says why and names no part of the URL beyond what the owner typed. */
export class WebhookUrlError extends Error {
  readonly code = "invalid_webhook_url";
  override name = "WebhookUrlError";
}

export type TargetOptions = {
  /** Test environment only (PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK): loopback addresses, over http too. */
  allowLoopback: boolean;
  /** Name resolution (all addresses); node's resolver by default. */
  resolve?: (hostname: string) => Promise<{ address: string; family: number }[]>;
};

export type Target = { url: URL; hostname: string; secure: boolean; address: { address: string; family: number } };

const defaultResolve = (hostname: string) => dnsLookup(hostname, { all: true, verbatim: true });

/** The URL's form alone: parses, https (or http with the loopback allowance), no credentials, a sane length. */
export function checkWebhookUrl(text: string, allowLoopback: boolean): URL {
  if (text.length > MAX_WEBHOOK_URL_LENGTH) throw new WebhookUrlError(`the URL must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookUrlError("the URL is not valid");
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
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
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(hostname) ? [{ address: hostname, family: isIP(hostname) }] : await (options.resolve ?? defaultResolve)(hostname);
  } catch {
    throw new WebhookUrlError("the host name does not resolve");
  }
  const allowed = (a: string) => isPublicAddress(a) || (options.allowLoopback && isLoopbackAddress(a));
  if (addresses.length === 0 || !addresses.every((a) => allowed(a.address))) {
    throw new WebhookUrlError("refused: the host resolves to a loopback, private, link-local, multicast or reserved address");
  }
  const secure = url.protocol === "https:";
  if (!secure && !addresses.every((a) => isLoopbackAddress(a.address))) throw new WebhookUrlError("the URL must be https");
  return { url, hostname, secure, address: addresses[0]! };
}
