/**
 * The hottest reads answered before Hono: a GET of a campaign page, its draws.json (no query) or a
 * proof.json that the public cache holds is written straight to node:http's response, with the headers the
 * Hono route sends (the route rendered it: http/routes/public.ts and page.tsx). Checking costs one primary-key read
 * (the campaign's public version) and, for a render with provisional results, the finalized block. A proof kept at
 * this version whose sources are due to be read again, or being read or built, is waited for and answered here
 * (http/proofRenders.ts); one with nothing kept at this version goes on to Hono, whose route reads it.
 * Everything else, and every miss, goes on to Hono, which renders and keeps the answer for the next request.
 * Measured in `npm run bench` (public.*): through Hono a kept page was served at a fraction of a bare server's rate.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { DRAWS_DEFAULT_LIMIT } from "../domain/publicDraws.js";
import type { Store } from "../store/index.js";
import type { PublicCache, Rendered } from "./publicCache.js";
import { REQUEST_ID_HEADER, requestIdFor } from "./requestId.js";
import { drawsKey, matchesEtag, pageKey, proofKey } from "./routes/public.js";

/** The paths served here: the page, draws.json without a query, a proof. Slugs and ids as the routes take them. */
const ROUTE = /^\/campaigns\/([^/?]+)(?:\/(draws\.json)|\/draws\/([^/?]+)\/proof\.json)?$/;

/** Public campaigns' ids remembered by slug, at most (then the memory starts over). */
const MAX_SLUGS = 10_000;

/** Headers every public answer carries (app.ts and the public routes' CORS). */
const COMMON_HEADERS = { "X-Content-Type-Options": "nosniff", "Access-Control-Allow-Origin": "*" };

/**
 * Answers `req` from the cache and resolves true, or resolves false (and touches nothing) for Hono to answer. A
 * failed store read resolves false too: Hono reads again and answers the failure as any route's (its error page).
 */
export function publicFastPath(store: Store, cache: PublicCache): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const campaignIds = new Map<string, string>();
  return async (req, res) => {
    if (req.method !== "GET" || !req.url) return false;
    const match = ROUTE.exec(req.url);
    if (!match) return false;
    let slug: string;
    let drawingId: string | undefined;
    try {
      slug = decodeURIComponent(match[1]!);
      drawingId = match[3] === undefined ? undefined : decodeURIComponent(match[3]);
    } catch {
      return false; // malformed escapes: Hono answers them
    }
    // A slug names one campaign for good and a public campaign never returns to draft, so its id is read once;
    // the version (one primary-key read) is read every time.
    let rendered: Rendered | null;
    try {
      let campaignId = campaignIds.get(slug);
      if (campaignId === undefined) {
        campaignId = (await store.publicVersions.bySlug(slug))?.campaignId;
        if (campaignId === undefined) return false;
        if (campaignIds.size >= MAX_SLUGS) campaignIds.clear();
        campaignIds.set(slug, campaignId);
      }
      const version = await store.publicVersions.get(campaignId);
      // A proof being read or built at this version is waited for here too: its bytes then skip Hono's Response,
      // which copies a body twice (a 100,000-entrant proof is 9 MB).
      if (drawingId !== undefined) rendered = await cache.proofs.ready(proofKey(campaignId, drawingId), version);
      else rendered = await cache.freshAt(match[2] ? drawsKey(campaignId, DRAWS_DEFAULT_LIMIT, null) : pageKey(campaignId), version);
    } catch {
      return false; // the store failed: Hono answers (its route reads again and answers the error)
    }
    if (!rendered) return false;
    write(req, res, rendered);
    return true;
  };
}

/** A render's headers as node:http's flat array, for a 200 and a 304 (built once per render, not per request). */
type RawHeaders = { ok: string[]; notModified: string[] };
const rawHeaders = new WeakMap<Rendered, RawHeaders>();

function headersOf(rendered: Rendered): RawHeaders {
  let raw = rawHeaders.get(rendered);
  if (!raw) {
    const common = Object.entries({ ...rendered.headers, ...COMMON_HEADERS, ETag: rendered.etag }).flat();
    raw = { ok: [...common, "Content-Length", String(rendered.body.length)], notModified: common };
    rawHeaders.set(rendered, raw);
  }
  return raw;
}

function write(req: IncomingMessage, res: ServerResponse, rendered: Rendered): void {
  const raw = headersOf(rendered);
  const id = requestIdFor(req.headers["request-id"] as string | undefined);
  if (matchesEtag(req.headers["if-none-match"], rendered.etag)) {
    res.writeHead(304, [...raw.notModified, REQUEST_ID_HEADER, id]).end();
    return;
  }
  res.writeHead(200, [...raw.ok, REQUEST_ID_HEADER, id]).end(rendered.body);
}
