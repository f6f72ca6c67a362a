import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
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
 */
export async function postWebhook(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> {
  let target;
  try {
    target = await resolveTarget(url, options);
  } catch (error) {
    return { error: error instanceof WebhookUrlError ? error.message : "the URL could not be checked" };
  }
  const { url: parsed, hostname, secure, address } = target;
  const pinned: LookupFunction = (_host, opts, callback) => {
    if (opts.all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  return new Promise<SendResult>((resolve) => {
    const request = (secure ? https : http).request(
      {
        protocol: parsed.protocol,
        hostname,
        port: parsed.port || undefined,
        path: `${parsed.pathname}${parsed.search}`,
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "user-agent": "prize-draw-service-webhooks" },
        lookup: pinned,
        servername: isIP(hostname) ? undefined : hostname,
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let snippet = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          if (snippet.length < SNIPPET_CHARS) snippet += chunk;
          // Enough read: the status is what counts, the body is not kept.
          if (snippet.length >= SNIPPET_CHARS) request.destroy();
        });
        const done = () => resolve({ status, snippet: snippet.slice(0, SNIPPET_CHARS) });
        res.on("end", done);
        res.on("close", done);
        res.on("error", done);
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      resolve({ error: `no answer within ${timeoutMs / 1000} s` });
    }, timeoutMs);
    request.on("close", () => clearTimeout(timer));
    request.on("error", (error: NodeJS.ErrnoException) => resolve({ error: `connection failed (${error.code ?? "error"})` }));
    request.end(body);
  });
}
