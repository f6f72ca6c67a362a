/**
 * The one guard for every request the service makes to an address a partner chose (pull fetches, webhook
 * deliveries): the host's every address must be public (loopback too only with the test environment's allowance),
 * and the connection goes to the address checked, so a DNS answer cannot change between the check and the request.
 * Each caller keeps its own scheme rule and wording around it.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { isLoopbackAddress, isPublicAddress } from "./addresses.js";

export type OutboundAddress = { address: string; family: number };

export type OutboundOptions = {
  /** Test environment only (PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK): loopback addresses are allowed too. */
  allowLoopback: boolean;
  /** Name resolution (all addresses); node's resolver by default. */
  resolve?: (hostname: string) => Promise<OutboundAddress[]>;
};

/** A host the service will not connect to; `message` says why and names no part of the URL. */
export class OutboundRefusedError extends Error {
  readonly code = "outbound_refused";
  override name = "OutboundRefusedError";
}

/** What the guard let through: the host as written (brackets removed), the address to connect to, and whether every address is loopback. */
export type CheckedHost = { hostname: string; address: OutboundAddress; loopbackOnly: boolean };

const defaultResolve = (hostname: string) => dnsLookup(hostname, { all: true, verbatim: true });

/** The URL's host without the brackets of an IPv6 literal. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}

/** Resolves the URL's host and checks every address it has; throws OutboundRefusedError when one is not allowed. */
export async function checkHost(url: URL, options: OutboundOptions): Promise<CheckedHost> {
  const hostname = bareHost(url);
  let addresses: OutboundAddress[];
  try {
    addresses = isIP(hostname) ? [{ address: hostname, family: isIP(hostname) }] : await (options.resolve ?? defaultResolve)(hostname);
  } catch {
    throw new OutboundRefusedError("the host name does not resolve");
  }
  const allowed = (a: string) => isPublicAddress(a) || (options.allowLoopback && isLoopbackAddress(a));
  if (addresses.length === 0 || !addresses.every((a) => allowed(a.address))) {
    throw new OutboundRefusedError("refused: the host resolves to a loopback, private, link-local, multicast or reserved address");
  }
  return { hostname, address: addresses[0]!, loopbackOnly: addresses.every((a) => isLoopbackAddress(a.address)) };
}

/** A `lookup` for node's http(s).request that answers only the checked address, whatever the host's DNS says now. */
export function pinnedLookup(address: OutboundAddress): LookupFunction {
  return (_host, opts, callback) => {
    if (opts.all) (callback as unknown as (e: null, a: OutboundAddress[]) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };
}
