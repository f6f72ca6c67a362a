import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { Hono } from "hono";
import { cors } from "hono/cors";
import { z } from "zod";
import type { DeploymentRecord } from "../../chain/deployment.js";
import type { IndexerClient } from "../../chain/indexer.js";
import { drawingFinality } from "../../domain/finality.js";
import { drawProof } from "../../domain/proofs.js";
import { DRAWS_DEFAULT_LIMIT, DRAWS_MAX_LIMIT, drawsPage, parseBefore, publicCampaign } from "../../domain/publicDraws.js";
import type { Store } from "../../store/index.js";
import { readQuery } from "../body.js";

export type PublicRoutesDeps = {
  store: Store;
  indexer: IndexerClient;
  deployment: DeploymentRecord;
  publicBaseUrl: string;
};

const drawsQuery = z.strictObject({
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

/** A drawn proof's body and strong ETag, rebuilt only when the winners' public labels or the reveal change. */
type CachedProof = { labels: string; body: string; etag: string; builtAt: number };
/** How long a provisional proof is served from memory before it is built again from the indexer. */
const PROVISIONAL_PROOF_MS = 2_000;

/** Public JSON endpoints (no key, CORS open): draws.json, proof.json, the verifier and its skill file. */
export function publicRoutes({ store, indexer, deployment, publicBaseUrl }: PublicRoutesDeps) {
  const app = new Hono();
  const proofs = new Map<string, CachedProof>();
  app.use("*", cors({ origin: "*", allowMethods: ["GET", "HEAD", "OPTIONS"] }));

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
    let cached = proofs.get(id);
    // A provisional proof is built again from the indexer (which reverts a reorg's rows within its poll) every
    // PROVISIONAL_PROOF_MS, so a reorg that drops its reveal stops it within seconds, before the keeper's next cycle.
    if (!cached || cached.labels !== labels || (finality !== "final" && Date.now() - cached.builtAt > PROVISIONAL_PROOF_MS)) {
      const proof = await drawProof(store, indexer, deployment, campaign, id);
      const body = JSON.stringify({ ...proof, finality: finality ?? "provisional" });
      cached = { labels, body, etag: `"${createHash("sha256").update(body).digest("base64url")}"`, builtAt: Date.now() };
      proofs.set(id, cached);
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
