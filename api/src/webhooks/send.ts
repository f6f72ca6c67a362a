import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { pinnedLookup } from "../outbound/guard.js";
import { WebhookUrlError, resolveTarget, type TargetOptions } from "./target.js";

/** An attempt gives up after this long without a complete answer. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Characters of the answer kept with the attempt (for the owner's debugging; the rest is discarded). */
export const SNIPPET_CHARS = 200;

/** What came back: an HTTP status (any) with the start of the body, or why there was none. */
export type SendResult = { status: number; snippet: string } | { error: string };

export type SendOptions = TargetOptions & { timeoutMs?: number };

/**
 * POSTs one delivery: the address rules of target.ts, no redirects (a 3xx is an answer like any non-2xx), a time
 * limit, and at most a short snippet of the answer read. Never throws; an error names no part of the URL.
 *
 * The time limit covers the whole attempt from its start, the host's name lookup included. What counts is the
 * status: one that arrived in time is the answer, even when the body is still coming at the limit (a slow body
 * must not turn an acknowledged delivery into a retry).
 */
export async function postWebhook(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  const late: SendResult = { error: `no answer within ${timeoutMs / 1000} s` };
  let target;
  try {
    let lookupTimer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<null>((resolve) => {
      lookupTimer = setTimeout(() => resolve(null), timeoutMs);
    });
    target = await Promise.race([resolveTarget(url, options), timedOut]).finally(() => clearTimeout(lookupTimer));
  } catch (error) {
    return { error: error instanceof WebhookUrlError ? error.message : "the URL could not be checked" };
  }
  if (target === null) return late;
  const { url: parsed, hostname, secure, address } = target;
  return new Promise<SendResult>((resolve) => {
    let status: number | null = null;
    let snippet = "";
    const request = (secure ? https : http).request(
      {
        protocol: parsed.protocol,
        hostname,
        port: parsed.port || undefined,
        path: `${parsed.pathname}${parsed.search}`,
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "user-agent": "prize-draw-service-webhooks" },
        lookup: pinnedLookup(address),
        servername: isIP(hostname) ? undefined : hostname,
        agent: false,
      },
      (res) => {
        status = res.statusCode ?? 0;
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          if (snippet.length < SNIPPET_CHARS) snippet += chunk;
          // Enough read: the status is what counts, the body is not kept.
          if (snippet.length >= SNIPPET_CHARS) request.destroy();
        });
        const done = () => resolve(answered());
        res.on("end", done);
        res.on("close", done);
        res.on("error", done);
      },
    );
    const answered = (): SendResult => (status === null ? late : { status, snippet: snippet.slice(0, SNIPPET_CHARS) });
    // What is left of the limit after the lookup; the body read so far is the snippet.
    const timer = setTimeout(() => {
      resolve(answered());
      request.destroy();
    }, Math.max(0, deadline - Date.now()));
    request.on("close", () => clearTimeout(timer));
    request.on("error", (error: NodeJS.ErrnoException) => resolve({ error: `connection failed (${error.code ?? "error"})` }));
    request.end(body);
  });
}
