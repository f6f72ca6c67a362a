import type { Connection } from "./connection.js";

/**
 * A campaign's public version (migration 11): triggers bump it in the transaction of every write that can change
 * what its page, draws.json or proofs show, whichever process writes. Equal versions mean equal public reads,
 * apart from time and the chain's finality (http/publicCache.ts keeps track of those).
 */
export class PublicVersionStore {
  constructor(private readonly conn: Connection) {}

  /** A public (not draft) campaign's id and version by its slug, in one read; null for none. */
  async bySlug(slug: string): Promise<{ campaignId: string; version: number } | null> {
    const r = await this.conn
      .q()
      .selectFrom("campaigns as c")
      .innerJoin("public_versions as p", "p.campaign_id", "c.id")
      .select(["p.campaign_id as campaignId", "p.version as version"])
      .where("c.slug", "=", slug)
      .where("c.status", "!=", "draft")
      .executeTakeFirst();
    return r ?? null;
  }

  /** The campaign's current version; 0 for an unknown campaign. */
  async get(campaignId: string): Promise<number> {
    const r = await this.conn.q().selectFrom("public_versions").select("version").where("campaign_id", "=", campaignId).executeTakeFirst();
    return r?.version ?? 0;
  }
}
