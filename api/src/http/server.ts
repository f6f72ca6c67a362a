/**
 * The service's HTTP server: node:http with its guards (a cap on open connections, a time limit on receiving each
 * request), and in front of Hono, in this order, Strict-Transport-Security in production, the per-client rate limits
 * (http/rateLimit.ts) and the public reads' fast path (http/publicFastPath.ts). See docs/operations.md, "Connections
 * and timeouts".
 */
import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type Server as HttpServer, type ServerOptions, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import type { Config } from "../config.js";
import { httpRequestDuration } from "../metrics/registry.js";
import { answerClientError } from "./errors.js";
import { limitClients } from "./rateLimit.js";

/**
 * One year: browsers then reach the service over https only, whatever link or typed address brought them. Not
 * `includeSubDomains`: the service's host says nothing of its siblings (a proxy in front may add it).
 */
export const HSTS = "max-age=31536000";

/**
 * How often node:http looks for requests past their time (its default, 30 s, would let a request live up to 30 s
 * over its limit). One sweep of the open connections a second.
 */
const TIMEOUT_CHECK_MS = 1_000;

export type ServiceServerOptions = {
  app: Hono;
  config: Pick<Config, "env" | "port" | "http" | "rateLimits" | "trustedProxyHops">;
  hostname: string;
  /** Answers a kept public read and resolves true, or resolves false for Hono to answer (publicFastPath). */
  fastPath?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  onListening?: (info: AddressInfo) => void;
};

/** Starts the server on `config.port`. */
export function serveService({ app, config, hostname, fastPath, onListening }: ServiceServerOptions): HttpServer {
  const limited = limitClients(config.rateLimits, config.trustedProxyHops);
  const production = config.env === "production";
  const createServer = ((options: ServerOptions, listener: RequestListener) =>
    createHttpServer(options, (req, res) => {
      const stopTimer = httpRequestDuration.startTimer();
      // Set here, it goes out with every answer: Hono's, the fast path's and a refusal's (writeHead merges it).
      if (production) res.setHeader("Strict-Transport-Security", HSTS);
      if (limited(req, res)) {
        stopTimer({ route: "rate limited (per client)", method: req.method ?? "GET", status: "429" });
        return;
      }
      if (!fastPath) {
        listener(req, res);
        return;
      }
      // A read the fast path cannot answer (not a kept public read, or the store failed) goes to Hono.
      void fastPath(req, res).then(
        (served) => {
          // Hono's middleware times what it answers; a kept read answered here is timed under its own label.
          if (served) stopTimer({ route: "fast path (kept public reads)", method: req.method ?? "GET", status: String(res.statusCode) });
          else listener(req, res);
        },
        () => {
          if (res.headersSent) res.destroy();
          else listener(req, res);
        },
      );
    })) as typeof createHttpServer;
  const serverOptions: ServerOptions = {
    requestTimeout: config.http.requestTimeoutSeconds * 1_000,
    headersTimeout: config.http.headersTimeoutSeconds * 1_000,
    connectionsCheckingInterval: TIMEOUT_CHECK_MS,
  };
  const server = serve({ fetch: app.fetch, hostname, port: config.port, createServer, serverOptions }, onListening) as HttpServer;
  // A connection over the cap is closed as soon as it is accepted; the client sees a reset and may retry.
  server.maxConnections = config.http.maxConnections;
  server.on("clientError", answerClientError);
  return server;
}
