import { sql } from "kysely";
import type { Store } from "./store/index.js";
import type { ChainPort } from "./chain/port.js";
import type { IndexerClient } from "./chain/indexer.js";

export type Readiness = {
  ready: boolean;
  store: boolean;
  chain: { ok: boolean; block: number | null };
  indexer: { ok: boolean; block: number | null; lagBlocks: number | null };
  /** Whether this process holds the keeper lease (runs the keeper). A standby is ready too: it serves HTTP. */
  keeper: { leaseHeld: boolean };
};

/**
 * What anyone may read of it: whether the process is ready, which is all a load balancer needs. Which process holds
 * the keeper lease, the chain's head and the indexer's lag are the operator's (http/ready.ts shows them to the
 * metrics token, or in the test environment).
 */
export type PublicReadiness = Pick<Readiness, "ready">;

/** How far behind the chain head the indexer may be and still count as caught up (one block a second locally). */
export const MAX_INDEXER_LAG_BLOCKS = 5;

export type ReadinessDeps = { store: Pick<Store, "conn">; chain: ChainPort; indexer: IndexerClient; holdsKeeperLease: () => boolean };

/** The indexer's processed block, or null when it is unreachable or still backfilling. */
async function indexerBlock(indexer: IndexerClient): Promise<number | null> {
  try {
    const head = await indexer.head();
    return head.ready && head.blockNumber !== null ? Number(head.blockNumber) : null;
  } catch {
    return null;
  }
}

/** How long the store may take to answer before it counts as down (an unreachable PostgreSQL host can take minutes). */
const STORE_CHECK_TIMEOUT_MS = 5_000;

/** Whether the store answers a trivial query in time (SQLite's file open, PostgreSQL reachable). */
async function answers(store: Pick<Store, "conn">): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), STORE_CHECK_TIMEOUT_MS);
  });
  const query = sql<{ one: number }>`SELECT 1 AS one`.execute(store.conn.q()).then(
    ({ rows }) => Number(rows[0]?.one) === 1,
    () => false,
  );
  try {
    return await Promise.race([query, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Store open, chain reachable, indexer ready and within MAX_INDEXER_LAG_BLOCKS of the chain head. Whether this process
 * holds the keeper lease is reported beside, and does not count: a standby serves HTTP like the holder.
 */
export async function checkReadiness({ store, chain, indexer, holdsKeeperLease }: ReadinessDeps): Promise<Readiness> {
  const storeOk = await answers(store);
  let head: number | null = null;
  try {
    head = Number(await chain.blockNumber());
  } catch {
    head = null;
  }
  const indexed = await indexerBlock(indexer);
  const lag = head !== null && indexed !== null ? Math.max(0, head - indexed) : null;
  const indexerOk = lag !== null && lag <= MAX_INDEXER_LAG_BLOCKS;
  return {
    ready: storeOk && head !== null && indexerOk,
    store: storeOk,
    chain: { ok: head !== null, block: head },
    indexer: { ok: indexerOk, block: indexed, lagBlocks: lag },
    keeper: { leaseHeld: holdsKeeperLease() },
  };
}

/**
 * `check` shared by the requests that arrive while it runs: a burst of readiness probes costs one check (a check
 * reads the store, the chain and the indexer), and no answer is older than the check running when it was asked.
 */
export function sharedReadiness(check: () => Promise<Readiness>): () => Promise<Readiness> {
  let running: Promise<Readiness> | null = null;
  return () => {
    running ??= check().finally(() => {
      running = null;
    });
    return running;
  };
}
