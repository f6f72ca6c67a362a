import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Hono, type Context } from "hono";
import { cors } from "hono/cors";
import { z } from "zod";
import type { DeploymentRecord } from "../../chain/deployment.js";
import type { IndexerClient } from "../../chain/indexer.js";
import { drawingFinality } from "../../domain/finality.js";
import { drawProof } from "../../domain/proofs.js";
import { DRAWS_DEFAULT_LIMIT, DRAWS_MAX_LIMIT, drawsPage, parseBefore, publicCampaign, publicFinalAt, publicListChangesAt } from "../../domain/publicDraws.js";
import type { Store } from "../../store/index.js";
import { VERIFY_DIR } from "../../paths.js";
import { readQuery } from "../body.js";
import { queryInteger } from "../schemas.js";
import { etagOf, type PublicCache, type Render, type Rendered } from "../publicCache.js";

export type PublicRoutesDeps = {
  store: Store;
  indexer: IndexerClient;
  deployment: DeploymentRecord;
  publicBaseUrl: string;
  /** The renders shared with the campaign page (http/publicCache.ts). */
  cache: PublicCache;
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
/** Renders are kept at most this long whatever else holds (a bound on anything this module did not foresee). */
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
  return c.body(new Uint8Array(rendered.body), 200, headers);
}

const JSON_TYPE = "application/json; charset=utf-8";

/** Public JSON endpoints (no key, CORS open): draws.json, proof.json, the verifier and its skill file. */
export function publicRoutes({ store, indexer, deployment, publicBaseUrl, cache }: PublicRoutesDeps) {
  const app = new Hono();
  /** Provisional proofs being built by proofKey, shared by the requests that arrive meanwhile (one indexer read per burst). */
  const building = new Map<string, Promise<Rendered>>();
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
    const key = proofKey(campaign.id, id);
    // A final proof changes only with a write to the campaign (a renamed winner): kept until then.
    const kept = await cache.fresh(key, campaign.id);
    if (kept) return answerRendered(c, kept);
    const drawn = await store.drawings.byId(campaign.id, id);
    const finality = drawn ? drawingFinality(drawn, await store.finality.get()) : null;
    const build = async (): Promise<Render> => {
      const proof = await drawProof(store, indexer, deployment, campaign, id);
      const final = finality === "final";
      return {
        body: Buffer.from(JSON.stringify({ ...proof, finality: finality ?? "provisional" })),
        headers: { "Content-Type": JSON_TYPE, "Cache-Control": final ? FINAL_PROOF_CACHE_CONTROL : PROVISIONAL_PROOF_CACHE_CONTROL },
        expiresAt: final ? Date.now() + MAX_KEEP_MS : 0,
        finalAt: null,
      };
    };
    if (finality === "final") return answerRendered(c, await cache.get(key, campaign.id, build));
    // Provisional: built from the indexer for every request (requests arriving during a build share it), so a
    // reorg that drops the reveal stops the proof as soon as the indexer reverts it, before the keeper's next cycle.
    // Shared by the proof's key, the campaign and the drawing: any drawing id can be put under any campaign's URL, and
    // under another campaign's a request must find nothing in flight and answer 404, as when nothing is.
    let pending = building.get(key);
    if (!pending) {
      pending = build().then((r) => ({ ...r, version: 0, etag: etagOf(r.body) })).finally(() => building.delete(key));
      building.set(key, pending);
    }
    return answerRendered(c, await pending);
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
