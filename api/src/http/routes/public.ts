import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Hono, type Context } from "hono";
import { cors } from "hono/cors";
import { z } from "zod";
import type { DeploymentRecord } from "../../chain/deployment.js";
import type { IndexerClient } from "../../chain/indexer.js";
import { ProofBuilder } from "../../domain/proofBuilder.js";
import { readProofSources, renderProof } from "../../domain/proofs.js";
import { DRAWS_DEFAULT_LIMIT, DRAWS_MAX_LIMIT, drawsPage, parseBefore, publicCampaign, publicFinalAt, publicListChangesAt } from "../../domain/publicDraws.js";
import { logger } from "../../logger.js";
import type { Store } from "../../store/index.js";
import { VERIFY_DIR } from "../../paths.js";
import { readQuery } from "../body.js";
import { queryInteger } from "../schemas.js";
import type { PublicCache, Rendered } from "../publicCache.js";

export type PublicRoutesDeps = {
  store: Store;
  indexer: IndexerClient;
  deployment: DeploymentRecord;
  publicBaseUrl: string;
  /** The renders shared with the campaign page and the fast path (http/publicCache.ts), proofs among them. */
  cache: PublicCache;
  /** Builds proof bodies (in a worker thread when the service runs bundled); a new one by default. */
  proofBuilder?: ProofBuilder;
};

/** Cache keys of the public reads (http/publicCache.ts). */
export const drawsKey = (campaignId: string, limit: number, before: string | null) => `draws ${campaignId} ${limit} ${before ?? ""}`;
export const proofKey = (campaignId: string, drawingId: string) => `proof ${campaignId} ${drawingId}`;
export const pageKey = (campaignId: string) => `page ${campaignId}`;

/** draws.json's query (exported for the OpenAPI document). */
export const drawsQuery = z.strictObject({
  limit: queryInteger(1, DRAWS_MAX_LIMIT).optional(),
  // A date or a time with an offset; parseBefore reads it in the campaign's time zone.
  before: z.string().max(64, "must be a date (YYYY-MM-DD) or an ISO 8601 time, e.g. the previous response's nextBefore").optional(),
});

/** The verifier and the skill file, served as is from api/public/verify (a fixed list: no path is read from a request). */
const VERIFY_FILES: Record<string, { path: string; type: string }> = {
  "verify-draw.mjs": { path: join(VERIFY_DIR, "verify-draw.mjs"), type: "text/javascript; charset=utf-8" },
  "SKILL.md": { path: join(VERIFY_DIR, "SKILL.md"), type: "text/markdown; charset=utf-8" },
};

/** How long a shared cache may keep the list and the page, and serve them stale while it revalidates (seconds). */
export const LIST_CACHE_CONTROL = "public, max-age=15, stale-while-revalidate=60";
/** A final proof changes only if the partner renames a winner: a day, then revalidated by its ETag. */
export const FINAL_PROOF_CACHE_CONTROL = "public, max-age=86400";
/** A provisional proof may be contradicted by a reorg: revalidated at every use. */
export const PROVISIONAL_PROOF_CACHE_CONTROL = "public, no-cache";
/** Lists are kept at most this long whatever else holds (a bound on anything this module did not foresee). */
const MAX_KEEP_MS = 60 * 60_000;

/** True when an If-None-Match header names `etag` (or is `*`), strong or weak. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header === etag) return true; // what a client that kept the answer sends: no parsing
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === etag || t === `W/${etag}`;
  });
}

/** Answers a render: 304 with its headers when the client has it, else its bytes. */
export function answerRendered(c: Context, rendered: Rendered): Response {
  const headers = { ...rendered.headers, ETag: rendered.etag };
  if (matchesEtag(c.req.header("if-none-match"), rendered.etag)) return c.body(null, 304, headers);
  // A view, not a copy: a large proof is 9 MB.
  return c.body(new Uint8Array(rendered.body.buffer as ArrayBuffer, rendered.body.byteOffset, rendered.body.byteLength), 200, headers);
}

const JSON_TYPE = "application/json; charset=utf-8";

/** Public JSON endpoints (no key, CORS open): draws.json, proof.json, the verifier and its skill file. */
export function publicRoutes({ store, indexer, deployment, publicBaseUrl, cache, proofBuilder = new ProofBuilder() }: PublicRoutesDeps) {
  const app = new Hono();
  let warnedUnthreaded = false;
  app.use("*", cors({ origin: "*", allowMethods: ["GET", "HEAD", "OPTIONS"] }));

  app.get("/campaigns/:slug/draws.json", async (c) => {
    const campaign = await publicCampaign(store, c.req.param("slug"));
    const query = readQuery(c, drawsQuery);
    const before = query.before ? parseBefore(query.before, campaign.schedule.timezone) : null;
    const limit = query.limit ?? DRAWS_DEFAULT_LIMIT;
    const rendered = await cache.get(drawsKey(campaign.id, limit, before), campaign.id, async () => {
      const now = new Date();
      const page = await drawsPage(store, campaign, deployment, publicBaseUrl, { limit, before }, now);
      return {
        body: Buffer.from(JSON.stringify(page)),
        headers: { "Content-Type": JSON_TYPE, "Cache-Control": LIST_CACHE_CONTROL },
        expiresAt: Math.min(await publicListChangesAt(store, campaign, now), now.getTime() + MAX_KEEP_MS),
        finalAt: await publicFinalAt(store, campaign),
      };
    });
    return answerRendered(c, rendered);
  });

  app.get("/campaigns/:slug/draws/:id/proof.json", async (c) => {
    const campaign = await publicCampaign(store, c.req.param("slug"));
    const id = c.req.param("id");
    // Keyed by the campaign and the drawing: any drawing id can be put under any campaign's URL, and under another
    // campaign's a request must find nothing kept or in flight and answer 404 (the drawing is not that campaign's).
    const key = proofKey(campaign.id, id);
    // Built once per state of what the proof shows, and served from memory until it changes (http/proofRenders.ts).
    const rendered = await cache.proofs.get(key, await store.publicVersions.get(campaign.id), async () => {
      const sources = await readProofSources(store, indexer, deployment, campaign, id);
      const final = sources.finality === "final";
      return {
        state: sources.state,
        final,
        finalAt: sources.finalAt,
        build: async () => {
          if (!proofBuilder.threaded && !warnedUnthreaded) {
            warnedUnthreaded = true;
            logger.warn("proof bodies are built on the service's event loop: no proofWorker.mjs beside the running service (run the bundle: npm run build)");
          }
          const { body, sha256 } = await renderProof(store, proofBuilder, sources);
          const headers = { "Content-Type": JSON_TYPE, "Cache-Control": final ? FINAL_PROOF_CACHE_CONTROL : PROVISIONAL_PROOF_CACHE_CONTROL };
          return { body: Buffer.from(body.buffer, body.byteOffset, body.byteLength), headers, sha256 };
        },
      };
    });
    return answerRendered(c, rendered);
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
