import type { Connection } from "./connection.js";
import type { Db } from "./db.js";

/** The chain's finalized block as the keeper last read it (one row). */
export type FinalizedBlock = { block: number; readAt: string };

/**
 * Where the chain's finality stands: a step whose block is at or below `block` can no longer be dropped by a
 * reorg. Written by the keeper once per cycle; read by the partner API, draws.json, the page and proof.json.
 */
export class FinalityStore {
  constructor(private readonly conn: Connection) {}

  private get db(): Db {
    return this.conn.db;
  }

  /** The last finalized block read; null before the keeper's first read (nothing is final yet). */
  get(): Promise<FinalizedBlock | null> {
    return this.conn.run(() => {
      const r = this.db.prepare("SELECT finalized_block, read_at FROM chain_finality WHERE id = 1").get() as { finalized_block: number; read_at: string } | undefined;
      return r ? { block: r.finalized_block, readAt: r.read_at } : null;
    });
  }

  /** Records the chain's finalized block (it may go back: a reset local chain starts again from 0). */
  set(block: number, readAt: string): Promise<void> {
    return this.conn.run(() => {
      this.db
        .prepare("INSERT INTO chain_finality (id, finalized_block, read_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET finalized_block = excluded.finalized_block, read_at = excluded.read_at")
        .run(block, readAt);
    });
  }
}
