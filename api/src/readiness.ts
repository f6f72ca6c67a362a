import type { Db } from "./store/db.js";
import type { ChainPort } from "./chain/port.js";

export type Readiness = {
  ready: boolean;
  store: boolean;
  chain: { ok: boolean; block: number | null };
  indexer: { ok: boolean; block: number | null; lagBlocks: number | null };
};

/** How far behind the chain head the indexer may be and still count as caught up (one block a second locally). */
export const MAX_INDEXER_LAG_BLOCKS = 5;

export type ReadinessDeps = { db: Db; chain: ChainPort; indexerUrl: string };

async function indexerBlock(indexerUrl: string): Promise<number | null> {
  try {
    const ready = await fetch(`${indexerUrl}/ready`, { signal: AbortSignal.timeout(2_000) });
    if (!ready.ok) return null;
    const status = await fetch(`${indexerUrl}/status`, { signal: AbortSignal.timeout(2_000) });
    if (!status.ok) return null;
    const body = (await status.json()) as Record<string, { block?: { number?: number } }>;
    const blocks = Object.values(body).map((chain) => chain.block?.number).filter((n): n is number => typeof n === "number");
    return blocks.length ? Math.min(...blocks) : null;
  } catch {
    return null;
  }
}

/** Store open, chain reachable, indexer ready and within MAX_INDEXER_LAG_BLOCKS of the chain head. */
export async function checkReadiness({ db, chain, indexerUrl }: ReadinessDeps): Promise<Readiness> {
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
  const indexed = await indexerBlock(indexerUrl);
  const lag = head !== null && indexed !== null ? Math.max(0, head - indexed) : null;
  const indexerOk = lag !== null && lag <= MAX_INDEXER_LAG_BLOCKS;
  return {
    ready: store && head !== null && indexerOk,
    store,
    chain: { ok: head !== null, block: head },
    indexer: { ok: indexerOk, block: indexed, lagBlocks: lag },
  };
}
