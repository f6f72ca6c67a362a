import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { Hono } from "hono";
import { cors } from "hono/cors";
import { z } from "zod";
import type { DeploymentRecord } from "../../chain/deployment.js";
import type { IndexerClient } from "../../chain/indexer.js";
import { drawingFinality, type Finality } from "../../domain/finality.js";
import { drawProof } from "../../domain/proofs.js";
import { DRAWS_DEFAULT_LIMIT, DRAWS_MAX_LIMIT, drawsPage, parseBefore, publicCampaign } from "../../domain/publicDraws.js";
import type { Campaign } from "../../store/campaigns.js";
import type { Store } from "../../store/index.js";
import { readQuery } from "../body.js";

export type PublicRoutesDeps = {
  store: Store;
  indexer: IndexerClient;
  deployment: DeploymentRecord;
  publicBaseUrl: string;
};

/** draws.json's query (exported for the OpenAPI document). */
export const drawsQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,3}$/, `must be a whole number from 1 to ${DRAWS_MAX_LIMIT}`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= DRAWS_MAX_LIMIT, `must be a whole number from 1 to ${DRAWS_MAX_LIMIT}`)
    .optional(),
  // A date or a time with an offset; parseBefore reads it in the campaign's time zone.
  before: z.string().max(64, "must be a date (YYYY-MM-DD) or an ISO 8601 time, e.g. the previous response's nextBefore").optional(),
});

/** The verifier and the skill file, served as is from api/public/verify (a fixed list: no path is read from a request). */
const VERIFY_FILES: Record<string, { path: URL; type: string }> = {
  "verify-draw.mjs": { path: new URL("../../../public/verify/verify-draw.mjs", import.meta.url), type: "text/javascript; charset=utf-8" },
  "SKILL.md": { path: new URL("../../../public/verify/SKILL.md", import.meta.url), type: "text/markdown; charset=utf-8" },
};

/** A final proof's body and strong ETag, rebuilt only when the winners' public labels change. */
type CachedProof = { labels: string; body: string; etag: string };

/** Public JSON endpoints (no key, CORS open): draws.json, proof.json, the verifier and its skill file. */
export function publicRoutes({ store, indexer, deployment, publicBaseUrl }: PublicRoutesDeps) {
  const app = new Hono();
  const finalProofs = new Map<string, CachedProof>();
  /** Provisional proofs being built, shared by the requests that arrive meanwhile (one indexer read per burst). */
  const building = new Map<string, Promise<CachedProof>>();
  app.use("*", cors({ origin: "*", allowMethods: ["GET", "HEAD", "OPTIONS"] }));

  const build = async (campaign: Campaign, id: string, labels: string, finality: Finality | null): Promise<CachedProof> => {
    const proof = await drawProof(store, indexer, deployment, campaign, id);
    const body = JSON.stringify({ ...proof, finality: finality ?? "provisional" });
    return { labels, body, etag: `"${createHash("sha256").update(body).digest("base64url")}"` };
  };

  app.get("/campaigns/:slug/draws.json", (c) => {
    const campaign = publicCampaign(store, c.req.param("slug"));
    const query = readQuery(c, drawsQuery);
    const before = query.before ? parseBefore(query.before, campaign.schedule.timezone) : null;
    c.header("Cache-Control", "public, max-age=15");
    return c.json(drawsPage(store, campaign, deployment, publicBaseUrl, { limit: query.limit ?? DRAWS_DEFAULT_LIMIT, before }));
  });

  app.get("/campaigns/:slug/draws/:id/proof.json", async (c) => {
    const campaign = publicCampaign(store, c.req.param("slug"));
    const id = c.req.param("id");
    // Names are public labels the partner may change after the draw; the rest changes only if a reorg took the
    // reveal back (the keeper then clears the drawing's random value and reveal transaction).
    const drawn = store.drawings.byId(campaign.id, id);
    const finality = drawn ? drawingFinality(drawn, store.finality.get()) : null;
    const labels = JSON.stringify([drawn?.entropyValue ?? null, drawn?.revealTx ?? null, finality, store.drawings.winners(id).map((w) => w.displayName)]);
    let cached: CachedProof;
    if (finality === "final") {
      // Final: nothing but the labels can change it, so it is built once.
      const kept = finalProofs.get(id);
      cached = kept && kept.labels === labels ? kept : await build(campaign, id, labels, finality);
      finalProofs.set(id, cached);
    } else {
      // Provisional: built from the indexer for every request (requests arriving during a build share it), so a
      // reorg that drops the reveal stops the proof as soon as the indexer reverts it, before the keeper's next cycle.
      let pending = building.get(id);
      if (!pending) {
        pending = build(campaign, id, labels, finality).finally(() => building.delete(id));
        building.set(id, pending);
      }
      cached = await pending;
    }
    c.header("ETag", cached.etag);
    c.header("Cache-Control", finality === "final" ? "public, max-age=86400" : "public, no-cache");
    if (c.req.header("if-none-match") === cached.etag) return c.body(null, 304);
    return c.body(cached.body, 200, { "Content-Type": "application/json; charset=utf-8" });
  });

  for (const [name, file] of Object.entries(VERIFY_FILES)) {
    const content = readFileSync(file.path, "utf8");
    app.get(`/verify/${name}`, (c) => {
      c.header("Cache-Control", "public, max-age=300");
      return c.body(content, 200, { "Content-Type": file.type });
    });
  }

  return app;
}
