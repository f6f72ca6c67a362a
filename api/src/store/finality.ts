import type { Connection } from "./connection.js";

/** The chain's finalized block as the keeper last read it (one row). */
export type FinalizedBlock = { block: number; readAt: string };

/**
 * Where the chain's finality stands: a step whose block is at or below `block` can no longer be dropped by a
 * reorg. Written by the keeper once per cycle; read by the partner API, draws.json, the page and proof.json.
 */
export class FinalityStore {
  constructor(private readonly conn: Connection) {}

  /** The last finalized block read; null before the keeper's first read (nothing is final yet). */
  async get(): Promise<FinalizedBlock | null> {
    const r = await this.conn.q().selectFrom("chain_finality").select(["finalized_block", "read_at"]).where("id", "=", 1).executeTakeFirst();
    return r ? { block: r.finalized_block, readAt: r.read_at } : null;
  }

  /** Records the chain's finalized block (it may go back: a reset local chain starts again from 0). */
  async set(block: number, readAt: string): Promise<void> {
    await this.conn
      .q()
      .insertInto("chain_finality")
      .values({ id: 1, finalized_block: block, read_at: readAt })
      .onConflict((oc) =>
        oc.column("id").doUpdateSet((eb) => ({ finalized_block: eb.ref("excluded.finalized_block"), read_at: eb.ref("excluded.read_at") })),
      )
      .execute();
  }
}
