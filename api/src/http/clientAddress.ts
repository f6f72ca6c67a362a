/**
 * The address a request came from, for per-client limits. Behind reverse proxies (an https deployment has at least
 * one) the socket's address is the proxy's, shared by every client: with TRUSTED_PROXY_HOPS = n, the client is the
 * X-Forwarded-For entry written by the outermost of the n trusted proxies (each proxy appends the address it
 * received from, so ours wrote the last n entries). Entries further left were written by the client and are never
 * trusted.
 */
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";

export function clientAddress(c: Context, trustedProxyHops: number): string {
  return clientAddressFrom(getConnInfo(c).remote.address, c.req.header("x-forwarded-for"), trustedProxyHops);
}

/** The same, from the socket's address and the X-Forwarded-For header (for requests answered before Hono). */
export function clientAddressFrom(socketAddress: string | undefined, forwardedFor: string | undefined, trustedProxyHops: number): string {
  const socket = socketAddress ?? "unknown";
  if (trustedProxyHops === 0) return socket;
  const forwarded = (forwardedFor ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  // Fewer entries than proxies: a request that reached us another way (or a proxy that does not append); the
  // socket's address is all we know.
  if (forwarded.length < trustedProxyHops) return socket;
  return forwarded[forwarded.length - trustedProxyHops]!.slice(0, 100);
}
