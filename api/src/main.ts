import { createServer as createHttpServer, type RequestListener, type Server as HttpServer, type ServerOptions } from "node:http";
import { serve } from "@hono/node-server";
import { ConfigError, LOCAL_CHAIN_ID, isPublicDevelopmentKey, loadConfig, storeLabel } from "./config.js";
import { IndexerClient } from "./chain/indexer.js";
import { ChainPort } from "./chain/port.js";
import { readDeployment } from "./chain/deployment.js";
import { createApp } from "./http/app.js";
import { answerClientError } from "./http/errors.js";
import { PublicCache } from "./http/publicCache.js";
import { publicFastPath } from "./http/publicFastPath.js";
import { Keeper } from "./keeper/keeper.js";
import { registerCollectors } from "./metrics/collect.js";
import { httpRequestDuration } from "./metrics/registry.js";
import { logger } from "./logger.js";
import { outboxMailer, smtpMailer } from "./mail/mailer.js";
import { checkReadiness } from "./readiness.js";
import { storePath } from "./store/index.js";
import { openServiceStore } from "./serviceStore.js";

/** The service process: store, chain port, indexer client, keeper, and HTTP on 127.0.0.1:PORT. */
async function main(): Promise<void> {
  const config = loadConfig();
  const deployment = readDeployment(config.dataDir);
  if (!deployment) throw new ConfigError(`no deployment record in ${config.dataDir}: start the stack with npm start`);
  if (config.env === "production" && deployment.mockEntropy) {
    throw new ConfigError("production refuses a mock randomness provider: deploy against Pyth Entropy");
  }
  if (!config.operatorPrivateKey) throw new ConfigError("OPERATOR_PRIVATE_KEY is not set");
  // The CLI runs without mail; the service's portal cannot sign anyone in without it.
  if (config.env === "production" && !config.smtpUrl) throw new ConfigError("SMTP_URL: production sends the portal's sign-in links by mail (set SMTP_URL)");
  // A local chain may run production mode (tests do); anywhere else a publicly known operator key is anyone's.
  if (config.env === "production" && deployment.chainId !== LOCAL_CHAIN_ID && isPublicDevelopmentKey(config.operatorPrivateKey)) {
    throw new ConfigError("OPERATOR_PRIVATE_KEY is one of anvil's public development keys: production needs the operator's own key");
  }
  // STORE_URL's PostgreSQL database, else the SQLite file in the data folder.
  const storeLocation = config.storeUrl ?? storePath(config.dataDir);
  const store = await openServiceStore(storeLocation);
  const chain = new ChainPort({ rpcUrl: config.rpcUrl, deployment, operatorKey: config.operatorPrivateKey, receiptTimeoutMs: config.txTimeoutSeconds * 1_000 });
  const indexer = new IndexerClient(config.indexerUrl);
  const keeper = new Keeper({ store, chain, indexer, config, logger });
  registerCollectors({ store, chain });
  const mailer = config.smtpUrl ? smtpMailer(config.smtpUrl, config.mailFrom) : outboxMailer(store, logger);
  const cache = new PublicCache(store);
  const app = createApp({
    cache,
    store,
    indexer,
    deployment,
    config,
    mailer,
    readiness: () => checkReadiness({ store, chain, indexer, holdsKeeperLease: () => keeper.holdsLease() }),
    runCampaign: (campaignId) => void keeper.runCampaign(campaignId),
  });
  // Kept public reads are answered before Hono (http/publicFastPath.ts); everything else goes through the app.
  const fastPath = publicFastPath(store, cache);
  const createServer = ((options: ServerOptions, listener: RequestListener) =>
    createHttpServer(options, (req, res) => {
      // A read the fast path cannot answer (not a kept public read, or the store failed) goes to Hono.
      const stopTimer = httpRequestDuration.startTimer();
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
  const server = serve({ fetch: app.fetch, hostname: process.env.HOST ?? "127.0.0.1", port: config.port, createServer }, (info) => {
    // The settings that tell production from test at a glance: environment, keeper cycle, randomness provider.
    const randomness = deployment.mockEntropy ? "mock" : deployment.entropy;
    logger.info({ port: info.port, env: config.env, keeperIntervalSeconds: config.keeperIntervalSeconds, chainId: deployment.chainId, randomness, mail: mailer.kind, store: storeLabel(storeLocation) }, "service listening");
    keeper.start();
  });
  (server as HttpServer).on("clientError", answerClientError);
  const stop = () => {
    // The lease is given up (a standby takes over at its next try) while the server drains; the store closes once
    // both are done (keeper.stop() logs its own failures).
    const keeperStopped = keeper.stop();
    const close = () => {
      const exit = () => process.exit(0);
      void store.close().then(exit, exit);
    };
    server.close(() => void keeperStopped.then(close, close));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

void main().catch((error: unknown) => {
  // One clear line, no stack trace: configuration problems (and an unreachable STORE_URL) are the operator's to fix.
  console.error(`service: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
