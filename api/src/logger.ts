import pino from "pino";

/** Structured JSON logs on stdout. Never log keys, pull URLs or private keys (see redact paths). */
export const logger = pino({
  level: process.env.LOG_LEVEL ?? "info",
  redact: { paths: ["authorization", "*.authorization", "operatorPrivateKey", "*.operatorPrivateKey", "pullUrl", "*.pullUrl"], censor: "[redacted]" },
});

export type Logger = typeof logger;
