// Request bodies as fetch cannot send them: declared by Content-Length or streamed chunked (no length), answered
// before the upload ends, or cut off mid-way by a client that goes away. Used by the body-limit tests of the partner
// API and the portal, which also read the service's log for the lines a request left.

import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import type { Stack } from "./stack.js";
import { until } from "./processes.js";

export type RawReply = { status: number; headers: http.IncomingHttpHeaders; text: string };

/**
 * POSTs `body` to `route` with `headers` (a Content-Length unless `chunked`) and answers the reply. A service that
 * answers before the upload ends may close the connection under it; the client then sometimes sees a reset instead of
 * the answer (README, "Known limits"), so a reset before any answer is retried a few times.
 */
export async function postBody(stack: Pick<Stack, "baseUrl">, route: string, body: Buffer | string, options: { headers?: Record<string, string>; chunked?: boolean } = {}): Promise<RawReply> {
  let last: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      return await postOnce(stack.baseUrl, route, Buffer.isBuffer(body) ? body : Buffer.from(body), options);
    } catch (error) {
      last = error;
    }
  }
  throw new Error(`every attempt to POST ${route} was reset: ${String(last)}`);
}

function postOnce(baseUrl: string, route: string, body: Buffer, options: { headers?: Record<string, string>; chunked?: boolean }): Promise<RawReply> {
  const url = new URL(baseUrl);
  const headers: Record<string, string> = { ...options.headers };
  if (!options.chunked) headers["content-length"] = String(body.length);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request({ host: url.hostname, port: Number(url.port), method: "POST", path: route, headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") });
        req.destroy();
      });
      res.on("error", reject);
    });
    // Once answered, the rest of the upload may fail (the service closed its side): the answer is what counts.
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const write = (i: number): void => {
      if (answered || req.destroyed) return;
      if (i >= body.length) {
        req.end();
        return;
      }
      const more = req.write(body.subarray(i, i + 64 * 1024));
      if (more) setImmediate(() => write(i + 64 * 1024));
      else req.once("drain", () => write(i + 64 * 1024));
    };
    write(0);
  });
}

/**
 * Starts a POST declaring `declared` bytes, sends `sent` of them, then goes away (the socket destroyed), as a client
 * that crashes or loses its network mid-upload. Resolves once the socket is closed.
 */
export function abortMidBody(stack: Pick<Stack, "baseUrl">, route: string, options: { declared: number; sent: number; headers?: Record<string, string> }): Promise<void> {
  const url = new URL(stack.baseUrl);
  return new Promise((resolve) => {
    const req = http.request({ host: url.hostname, port: Number(url.port), method: "POST", path: route, headers: { ...options.headers, "content-length": String(options.declared) }, agent: false });
    req.on("error", () => resolve());
    req.on("close", () => resolve());
    req.write(Buffer.alloc(options.sent, 0x20), () => setTimeout(() => req.destroy(), 200));
  });
}

/** A line of the service's log (pino JSON). */
export type LogLine = { level: number; msg: string; requestId?: string; status?: number; path?: string; [key: string]: unknown };

/** The service's log lines so far (service.log in the stack's data folder), parsed; lines that are not JSON are skipped. */
export function serviceLog(stack: Pick<Stack, "dataDir">): LogLine[] {
  const out: LogLine[] = [];
  for (const line of readFileSync(path.join(stack.dataDir, "service.log"), "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      out.push(JSON.parse(line) as LogLine);
    } catch {
      // a line cut by a write in progress
    }
  }
  return out;
}

/**
 * The log lines of the requests sent with these `Request-Id`s, once each has its access line ("request"): the
 * service's output reaches service.log through a pipe, a moment after the answer.
 */
export function requestLines(stack: Pick<Stack, "dataDir">, ids: readonly string[]): Promise<LogLine[]> {
  return until(
    `access lines of ${ids.join(", ")} in service.log`,
    async () => {
      const lines = serviceLog(stack).filter((l) => l.requestId !== undefined && ids.includes(l.requestId));
      return ids.every((id) => lines.some((l) => l.requestId === id && l.msg === "request")) ? lines : undefined;
    },
    15_000,
    100,
  );
}
