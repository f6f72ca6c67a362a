import type { AddressInfo } from "node:net";
import { ConfigError, LOCAL_CHAIN_ID, isPublicDevelopmentKey, loadConfig, storeLabel } from "./config.js";
import { IndexerClient } from "./chain/indexer.js";
import { ChainPort } from "./chain/port.js";
import { readDeployment } from "./chain/deployment.js";
import { createApp } from "./http/app.js";
import { PublicCache } from "./http/publicCache.js";
import { publicFastPath } from "./http/publicFastPath.js";
import { serveService } from "./http/server.js";
import { Keeper } from "./keeper/keeper.js";
import { registerCollectors } from "./metrics/collect.js";
import { logger } from "./logger.js";
import { outboxMailer, smtpMailer } from "./mail/mailer.js";
import { createNotifier } from "./notify/notifier.js";
import { checkReadiness, sharedReadiness } from "./readiness.js";
import { storePath } from "./store/index.js";
import { openServiceStore } from "./serviceStore.js";

/** The service process: store, chain port, indexer client, keeper, and HTTP on 127.0.0.1:PORT (http/server.ts). */
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
  const chain = new ChainPort({ rpcUrl: config.rpcUrl, deployment, operatorKey: config.operatorPrivateKey, receiptTimeoutMs: config.txTimeoutSeconds * 1_000, fees: { maxFeePerGasWei: config.maxFeePerGasWei, replaceAfterMs: config.txReplaceSeconds * 1_000 } });
  const indexer = new IndexerClient(config.indexerUrl);
  const mailer = config.smtpUrl ? smtpMailer(config.smtpUrl, config.mailFrom, logger) : outboxMailer(store, logger);
  // Alerts go to ALERT_EMAIL through the same mailer, and to the operator webhook through the partner webhooks' sender.
  const { emails, webhookUrl, webhookSecret, ...thresholds } = config.alerts;
  const alertWebhook = webhookUrl && webhookSecret ? { url: webhookUrl, secret: webhookSecret, allowLoopback: config.env === "test" && config.pullAllowHttpLoopback } : null;
  const alerts = { notifier: createNotifier({ emails, webhook: alertWebhook }, mailer), settings: thresholds };
  const keeper = new Keeper({ store, chain, indexer, config, logger, alerts });
  registerCollectors({ store, chain });
  const cache = new PublicCache(store);
  const app = createApp({
    cache,
    store,
    indexer,
    deployment,
    config,
    mailer,
    readiness: sharedReadiness(() => checkReadiness({ store, chain, indexer, holdsKeeperLease: () => keeper.holdsLease() })),
    runCampaign: (campaignId) => void keeper.runCampaign(campaignId),
  });
  // Kept public reads are answered before Hono (http/publicFastPath.ts); everything else goes through the app.
  const fastPath = publicFastPath(store, cache);
  const onListening = (info: AddressInfo) => {
    // The settings that tell production from test at a glance: environment, keeper cycle, randomness provider.
    const randomness = deployment.mockEntropy ? "mock" : deployment.entropy;
    logger.info({ port: info.port, env: config.env, keeperIntervalSeconds: config.keeperIntervalSeconds, chainId: deployment.chainId, randomness, mail: mailer.kind, store: storeLabel(storeLocation) }, "service listening");
    keeper.start();
  };
  const server = serveService({ app, config, hostname: process.env.HOST ?? "127.0.0.1", fastPath, onListening });
  const stop = () => {
    // The lease is given up (a standby takes over at its next try) while the server drains; the store closes once
    // both are done (keeper.stop() logs its own failures).
    const keeperStopped = keeper.stop();
    const close = () => {
      const exit = () => process.exit(0);
      void store.close().then(exit, exit);
    };
    // Sign-in and invite links the answers promised are handed to the SMTP server first (up to 5 seconds; mail still
    // unsent is logged, so none is dropped without a line).
    server.close(() => void Promise.all([keeperStopped, mailer.idle(5_000)]).then(close, close));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

void main().catch((error: unknown) => {
  // One clear line, no stack trace: configuration problems (and an unreachable STORE_URL) are the operator's to fix.
  console.error(`service: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
