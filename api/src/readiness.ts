import type { Db } from "./store/db.js";
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

/** How far behind the chain head the indexer may be and still count as caught up (one block a second locally). */
export const MAX_INDEXER_LAG_BLOCKS = 5;

export type ReadinessDeps = { db: Db; chain: ChainPort; indexer: IndexerClient; holdsKeeperLease: () => boolean };

/** The indexer's processed block, or null when it is unreachable or still backfilling. */
async function indexerBlock(indexer: IndexerClient): Promise<number | null> {
  try {
    const head = await indexer.head();
    return head.ready && head.blockNumber !== null ? Number(head.blockNumber) : null;
  } catch {
    return null;
  }
}

/**
 * Store open, chain reachable, indexer ready and within MAX_INDEXER_LAG_BLOCKS of the chain head. Whether this process
 * holds the keeper lease is reported beside, and does not count: a standby serves HTTP like the holder.
 */
export async function checkReadiness({ db, chain, indexer, holdsKeeperLease }: ReadinessDeps): Promise<Readiness> {
  let store = false;
  try {
    store = db.prepare("SELECT 1").pluck().get() === 1;
  } catch {
    store = false;
  }
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
    ready: store && head !== null && indexerOk,
    store,
    chain: { ok: head !== null, block: head },
    indexer: { ok: indexerOk, block: indexed, lagBlocks: lag },
    keeper: { leaseHeld: holdsKeeperLease() },
  };
}
