// A keeper on a store alone, for tests of what it plans and fetches on its own clock: no chain and no indexer (a
// step that would reach them fails, is logged and is retried next cycle, which these tests never look at),
// production's settings otherwise, and a silent log.

import pino from "pino";
import type { IndexerClient } from "../../api/src/chain/indexer.js";
import type { ChainPort } from "../../api/src/chain/port.js";
import type { KeeperDeps } from "../../api/src/keeper/context.js";
import { Keeper } from "../../api/src/keeper/keeper.js";
import type { Store } from "../../api/src/store/index.js";

/** A keeper on `store` cycling every `keeperIntervalSeconds`; `pullFetch` stands in for the pull fetcher. */
export function keeperWithoutChain(store: Store, keeperIntervalSeconds: number, pullFetch?: KeeperDeps["pullFetch"]): Keeper {
  return new Keeper({
    store,
    chain: {} as ChainPort,
    indexer: {} as IndexerClient,
    config: { env: "production", keeperIntervalSeconds, pullAllowHttpLoopback: false, entropyTimeoutSeconds: 600, holdMockReveal: false, localChain: false, chainFinality: "finalized" },
    logger: pino({ level: "silent" }),
    ...(pullFetch ? { pullFetch } : {}),
  });
}
