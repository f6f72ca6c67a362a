import { serve } from "@hono/node-server";
import { join } from "node:path";
import { ConfigError, loadConfig } from "./config.js";
import { ChainPort } from "./chain/port.js";
import { IndexerClient } from "./chain/indexer.js";
import { readDeployment } from "./chain/deployment.js";
import { createApp } from "./http/app.js";
import { logger } from "./logger.js";
import { checkReadiness } from "./readiness.js";
import { openDb } from "./store/db.js";

/** The service process: opens the store and the chain port and serves HTTP on 127.0.0.1:PORT. */
function main(): void {
  const config = loadConfig();
  const deployment = readDeployment(config.dataDir);
  if (!deployment) throw new ConfigError(`no deployment record in ${config.dataDir}: start the stack with npm start`);
  if (config.env === "production" && deployment.mockEntropy) {
    throw new ConfigError("production refuses a mock randomness provider: deploy against Pyth Entropy");
  }
  if (!config.operatorPrivateKey) throw new ConfigError("OPERATOR_PRIVATE_KEY is not set");
  const db = openDb(join(config.dataDir, "prizedraw.sqlite"));
  const chain = new ChainPort({ rpcUrl: config.rpcUrl, deployment, operatorKey: config.operatorPrivateKey });
  const app = createApp({ readiness: () => checkReadiness({ db, chain, indexer: new IndexerClient(config.indexerUrl) }) });
  const server = serve({ fetch: app.fetch, hostname: process.env.HOST ?? "127.0.0.1", port: config.port }, (info) => {
    logger.info({ port: info.port, env: config.env }, "service listening");
  });
  const stop = () => {
    server.close(() => {
      db.close();
      process.exit(0);
    });
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

try {
  main();
} catch (error) {
  // One clear line, no stack trace: configuration problems are the operator's to fix.
  console.error(`service: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
