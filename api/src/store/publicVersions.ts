import type { Connection } from "./connection.js";
import type { Db } from "./db.js";

/**
 * A campaign's public version (migration 11): triggers bump it in the transaction of every write that can change
 * what its page, draws.json or proofs show, whichever process writes. Equal versions mean equal public reads,
 * apart from time and the chain's finality (http/publicCache.ts keeps track of those).
 */
export class PublicVersionStore {
  constructor(private readonly conn: Connection) {}

  private get db(): Db {
    return this.conn.db;
  }

  /** A public (not draft) campaign's id and version by its slug, in one read; null for none. */
  bySlug(slug: string): Promise<{ campaignId: string; version: number } | null> {
    return this.conn.run(() => {
      const r = this.db
        .prepare("SELECT p.campaign_id AS campaignId, p.version AS version FROM campaigns c JOIN public_versions p ON p.campaign_id = c.id WHERE c.slug = ? AND c.status != 'draft'")
        .get(slug) as { campaignId: string; version: number } | undefined;
      return r ?? null;
    });
  }

  /** The campaign's current version; 0 for an unknown campaign. */
  get(campaignId: string): Promise<number> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT version FROM public_versions WHERE campaign_id = ?").pluck().get(campaignId) as number | undefined) ?? 0;
    });
  }
}
