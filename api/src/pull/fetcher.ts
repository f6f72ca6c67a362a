import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { MAX_LIST_BODY_BYTES, describeZodError, winnersBody, type WinnerEntry } from "../lists/schemas.js";
import { OutboundRefusedError, checkHost, pinnedLookup, type OutboundOptions, type CheckedHost } from "../outbound/guard.js";

/** Spec: "Gives up after 8 seconds". */
export const PULL_TIMEOUT_MS = 8_000;
/** The same limit as a pushed list: the largest legal list (1,000 winners, longest values) fits it. */
export const PULL_MAX_BYTES = MAX_LIST_BODY_BYTES;

export type PullOutcome =
  | { kind: "list"; winners: WinnerEntry[]; round: number | null }
  | { kind: "not_ready"; reason: string }
  | { kind: "invalid"; reason: string }
  | { kind: "error"; reason: string };

/** The outbound guard's options (allowLoopback: test environment only, http too) and the fetch's limits. */
export type PullOptions = OutboundOptions & {
  timeoutMs?: number;
  maxBytes?: number;
};

/**
 * GETs a partner's winner list safely: https only (http only to loopback in test), the outbound guard
 * (outbound/guard.ts: every resolved address public, the connection pinned to the one checked), no redirects, a
 * time limit and a size limit. Never throws: every failure is an outcome with a reason that names no part of the
 * URL (the URL is a secret).
 */
export async function fetchWinnerList(url: string, expected: number, options: PullOptions): Promise<PullOutcome> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { kind: "error", reason: "the URL is not valid" };
  }
  const secure = target.protocol === "https:";
  if (!secure && !(target.protocol === "http:" && options.allowLoopback)) return { kind: "error", reason: "only https URLs are fetched" };
  let host: CheckedHost;
  try {
    host = await checkHost(target, options);
  } catch (error) {
    return { kind: "error", reason: error instanceof OutboundRefusedError ? error.message : "the host could not be checked" };
  }
  if (!secure && !host.loopbackOnly) return { kind: "error", reason: "only https URLs are fetched" };
  const { hostname } = host;

  const timeoutMs = options.timeoutMs ?? PULL_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? PULL_MAX_BYTES;
  const response = await new Promise<{ status: number; body: string } | { failure: string }>((resolve) => {
    const request = (secure ? https : http).request(
      {
        protocol: target.protocol,
        hostname,
        port: target.port || undefined,
        path: `${target.pathname}${target.search}`,
        method: "GET",
        headers: { accept: "application/json", "user-agent": "prize-draw-service" },
        lookup: pinnedLookup(host.address),
        servername: isIP(hostname) ? undefined : hostname,
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.resume();
          resolve({ failure: `HTTP ${status}: redirects are not followed` });
          return;
        }
        const declared = Number(res.headers["content-length"] ?? 0);
        if (declared > maxBytes) {
          request.destroy();
          resolve({ failure: `the response is larger than ${maxBytes} bytes` });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            request.destroy();
            resolve({ failure: `the response is larger than ${maxBytes} bytes` });
            return;
          }
          chunks.push(chunk);
        });
        res.on("end", () => resolve({ status, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", () => resolve({ failure: "the connection broke while reading the response" }));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      resolve({ failure: `no complete answer within ${timeoutMs / 1000} s` });
    }, timeoutMs);
    request.on("close", () => clearTimeout(timer));
    request.on("error", (error: NodeJS.ErrnoException) => resolve({ failure: `connection failed (${error.code ?? "error"})` }));
    request.end();
  });

  if ("failure" in response) return { kind: "error", reason: response.failure };
  if (response.status === 404) return { kind: "not_ready", reason: "HTTP 404" };
  if (response.status < 200 || response.status >= 300) return { kind: "error", reason: `HTTP ${response.status}` };
  return interpretList(response.body, expected);
}

/** The spec's response rules: no `winners` key or an empty list means not ready; otherwise the push body's rules. */
export function interpretList(body: string, expected: number): PullOutcome {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: "invalid", reason: "the response is not JSON" };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return { kind: "invalid", reason: "the response is not a JSON object" };
  const record = json as Record<string, unknown>;
  if (!("winners" in record) || (Array.isArray(record.winners) && record.winners.length === 0)) return { kind: "not_ready", reason: "no winners yet" };
  const round = record.round;
  if (round !== undefined && round !== null && !(Number.isSafeInteger(round) && (round as number) >= 0)) return { kind: "invalid", reason: "round must be a whole number" };
  const parsed = winnersBody.safeParse({ winners: record.winners });
  if (!parsed.success) return { kind: "invalid", reason: describeZodError(parsed.error) };
  const winners = parsed.data.winners.map((w) => ({ winner: w.winner, displayName: w.displayName ?? null, avatarUrl: w.avatarUrl ?? null }));
  if (winners.length !== expected) return { kind: "invalid", reason: `the list has ${winners.length} winners; this drawing takes exactly ${expected}` };
  const seen = new Set<string>();
  for (const [i, w] of winners.entries()) {
    if (seen.has(w.winner)) return { kind: "invalid", reason: `winners[${i}].winner repeats an earlier winner` };
    seen.add(w.winner);
  }
  return { kind: "list", winners, round: (round as number | undefined) ?? null };
}
