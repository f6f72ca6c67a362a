import { AsyncLocalStorage } from "node:async_hooks";
import pino from "pino";

/** The request a log line belongs to (http/requestId.ts sets it for the handling of each request). */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

/**
 * Structured JSON logs on stdout. Never log keys, pull URLs or private keys (see redact paths). A line written while
 * a request is handled carries its `requestId`, the id the client got in its `Request-Id` header.
 */
export const logger = pino({
  level: process.env.LOG_LEVEL ?? "info",
  redact: { paths: ["authorization", "*.authorization", "operatorPrivateKey", "*.operatorPrivateKey", "pullUrl", "*.pullUrl"], censor: "[redacted]" },
  mixin: () => {
    const context = requestContext.getStore();
    return context ? { requestId: context.requestId } : {};
  },
});

export type Logger = typeof logger;
