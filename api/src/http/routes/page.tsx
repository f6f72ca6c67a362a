/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
// The pragmas above: the service runs under tsx from the repository root, whose tsconfig has no JSX settings.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Hono } from "hono";
import type { DeploymentRecord } from "../../chain/deployment.js";
import type { IndexerClient } from "../../chain/indexer.js";
import { publicLogo } from "../../domain/branding.js";
import { NotFoundError } from "../../domain/errors.js";
import { proofUrl, publicCampaign, publicFinalAt, publicListChangesAt } from "../../domain/publicDraws.js";
import { campaignPageData } from "../../domain/publicPage.js";
import { toCampaignId } from "../../draw/index.js";
import type { Campaign } from "../../store/campaigns.js";
import type { Store } from "../../store/index.js";
import { VERIFY_DIR } from "../../paths.js";
import type { CampaignLogo } from "../../store/portal.js";
import { CampaignPage, type CampaignPageProps } from "../page/CampaignPage.js";
import type { DrawView } from "../page/DrawList.js";
import { httpsUrl } from "../page/format.js";
import type { FooterLink } from "../page/Layout.js";
import { NotFoundPage, PrivacyPage, TermsPage } from "../page/ServicePages.js";
import type { PublicCache } from "../publicCache.js";
import { LIST_CACHE_CONTROL, answerRendered, pageKey } from "./public.js";

export type PageRoutesDeps = { store: Store; indexer: IndexerClient; publicBaseUrl: string; deployment: DeploymentRecord; cache: PublicCache };

/** The page re-reads the indexer's count of commits onchain at most this often (ms). */
const COMMIT_COUNT_EVERY_MS = 15_000;

/** Past draws shown on the page; draws.json has the full history. */
export const PAGE_DRAWS = 100;
/** Winners listed per drawn draw; the proof lists every one. */
export const PAGE_WINNERS_PER_DRAW = 50;

/** The page's Content-Security-Policy: no scripts at all (terms, privacy, not found). */
const STRICT_CSP = "default-src 'none'; img-src https: data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The campaign page's policy: its module scripts and the verifier they import, from this origin only (no inline
 * script, no eval), and fetches to the proofs (this origin, or the public base URL's) and to the JSON-RPC endpoint
 * of the in-browser chain check.
 */
function campaignCsp(publicBaseUrl: string, rpcUrl: string | null): string {
  const connect = new Set(["'self'", new URL(publicBaseUrl).origin]);
  if (rpcUrl) connect.add(new URL(rpcUrl).origin);
  return `default-src 'none'; script-src 'self'; connect-src ${[...connect].join(" ")}; img-src 'self' https: data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": STRICT_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": LIST_CACHE_CONTROL,
};

/** The campaign page's module script: served from this origin, it imports ./verify-draw.mjs (the same served checker). */
export const CHECK_SCRIPT_PATH = "/verify/check-draw.mjs";
const CHECK_SCRIPT = readFileSync(join(VERIFY_DIR, "check-draw.mjs"), "utf8");
/** The page's "Look up your entry" script, served the same way; it also imports ./verify-draw.mjs. */
export const LOOKUP_SCRIPT_PATH = "/verify/lookup-entry.mjs";
const LOOKUP_SCRIPT = readFileSync(join(VERIFY_DIR, "lookup-entry.mjs"), "utf8");

/**
 * Public JSON-RPC endpoints of the networks the service deploys to (README, "Deploying to a real network"): they
 * need no key and answer browsers (CORS), so the page can offer the chain check. Never the service's own RPC_URL,
 * which may carry a provider's API key.
 */
const PUBLIC_RPC: Record<number, string> = {
  8453: "https://mainnet.base.org",
  84532: "https://sepolia.base.org",
};

/** True for an http(s) URL on this machine (the local test chain: anvil answers any origin). */
function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === "127.0.0.1" || host === "localhost" || host === "[::1]";
  } catch {
    return false;
  }
}

/** The JSON-RPC endpoint the visitor's browser uses for the chain check, or null (offline checks only). */
export function browserRpcUrl(deployment: DeploymentRecord): string | null {
  if (isLoopback(deployment.rpcUrl)) return deployment.rpcUrl;
  return PUBLIC_RPC[deployment.chainId] ?? null;
}

/** Chains whose money is not real: a local chain (anvil, Hardhat) and the test networks the service deploys to. */
const TEST_CHAINS = new Set([31337, 1337, 84532, 11155111]);

function campaignFooter(campaign: Campaign, publicBaseUrl: string): FooterLink[] {
  return [
    { href: httpsUrl(campaign.termsUrl) ?? `${publicBaseUrl}/terms`, label: "Terms" },
    { href: httpsUrl(campaign.privacyUrl) ?? `${publicBaseUrl}/privacy`, label: "Privacy" },
    { href: `${publicBaseUrl}/campaigns/${campaign.slug}/draws.json`, label: "Draws as data" },
    { href: `${publicBaseUrl}/verify/verify-draw.mjs`, label: "Checker" },
  ];
}

/** Everything the campaign page shows (domain/publicPage.ts reads it; the components read nothing), with its links. */
async function campaignPageProps(store: Store, campaign: Campaign, publicBaseUrl: string, deployment: DeploymentRecord, onchain: number | null): Promise<CampaignPageProps> {
  const data = await campaignPageData(store, campaign, { draws: PAGE_DRAWS, winnersPerDraw: PAGE_WINNERS_PER_DRAW });
  const draws: DrawView[] = data.draws.map(({ drawn, ...draw }) => ({ ...draw, proofUrl: drawn ? proofUrl(publicBaseUrl, campaign, draw.drawing) : null }));
  return {
    campaign,
    table: data.table,
    averageCents: data.averageCents,
    next: data.next,
    draws,
    truncated: data.truncated,
    now: data.now,
    publicBaseUrl,
    drawsJsonUrl: `${publicBaseUrl}/campaigns/${campaign.slug}/draws.json`,
    mockEntropy: deployment.mockEntropy,
    testEnvironment: { testRandomness: deployment.mockEntropy, testMoney: deployment.mockEntropy || TEST_CHAINS.has(deployment.chainId) || isLoopback(deployment.rpcUrl) },
    commits: { committed: onchain, published: data.published },
    footer: campaignFooter(campaign, publicBaseUrl),
    // Relative: the logo is served by this origin (the policy's img-src 'self'); the ETag busts caches after a change.
    logoUrl: await logoUrl(store, campaign),
    check: { rpcUrl: browserRpcUrl(deployment) },
    // The lookup reads drawn draws' proofs: with none on the page it has nothing to do, and its form is not shown.
    scripts: draws.some((d) => d.proofUrl !== null) ? [CHECK_SCRIPT_PATH, LOOKUP_SCRIPT_PATH] : [CHECK_SCRIPT_PATH],
  };
}

/** The campaign's logo address, or null when it has none. */
async function logoUrl(store: Store, campaign: Campaign): Promise<string | null> {
  const logo = await publicLogo(store, campaign);
  return logo ? `/campaigns/${campaign.slug}/logo?v=${logo.etag.slice(1, 13)}` : null;
}

/** The campaign's commits onchain (the indexer's lastNumber), or null while the indexer cannot answer (the page still renders). */
async function onchainCommits(indexer: IndexerClient, campaign: Campaign): Promise<number | null> {
  try {
    const onchain = await indexer.campaign(toCampaignId(campaign.slug));
    return onchain === null ? 0 : Number(onchain.lastNumber);
  } catch {
    return null;
  }
}

/**
 * The public campaign page and the service's own terms and privacy pages: server-rendered HTML. Only the campaign
 * page loads scripts (the in-browser check and the entry lookup, progressive enhancement); everything works without them.
 */
export function pageRoutes({ store, indexer, publicBaseUrl, deployment, cache }: PageRoutesDeps) {
  const app = new Hono();
  const campaignPolicy = campaignCsp(publicBaseUrl, browserRpcUrl(deployment));
  app.use("*", async (c, next) => {
    await next();
    // A handler may set its own policy (the campaign page); every other header is the same everywhere.
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!c.res.headers.has(name)) c.header(name, value);
  });

  for (const [path, script] of [[CHECK_SCRIPT_PATH, CHECK_SCRIPT], [LOOKUP_SCRIPT_PATH, LOOKUP_SCRIPT]] as const) {
    app.get(path, (c) => {
      c.header("Cache-Control", "public, max-age=300");
      return c.body(script, 200, { "Content-Type": "text/javascript; charset=utf-8" });
    });
  }

  app.get("/campaigns/:slug", async (c) => {
    let campaign: Campaign;
    try {
      campaign = await publicCampaign(store, c.req.param("slug"));
    } catch (error) {
      if (error instanceof NotFoundError) return c.html(<NotFoundPage publicBaseUrl={publicBaseUrl} />, 404);
      throw error;
    }
    const rendered = await cache.get(pageKey(campaign.id), campaign.id, async () => {
      const onchain = await onchainCommits(indexer, campaign);
      const now = new Date();
      const props = await campaignPageProps(store, campaign, publicBaseUrl, deployment, onchain);
      const html = (<CampaignPage {...props} />).toString();
      return {
        body: Buffer.from(typeof html === "string" ? html : await html),
        headers: { ...SECURITY_HEADERS, "Content-Type": "text/html; charset=UTF-8", "Content-Security-Policy": campaignPolicy },
        expiresAt: Math.min(await publicListChangesAt(store, campaign, now), now.getTime() + COMMIT_COUNT_EVERY_MS),
        finalAt: await publicFinalAt(store, campaign),
      };
    });
    return answerRendered(c, rendered);
  });
  // The logo an owner uploaded in the portal (domain/branding.ts took only PNG, JPEG or WebP by their bytes): served
  // with its stored type, never sniffed, in a document that may load nothing, cached and revalidated by its ETag.
  app.get("/campaigns/:slug/logo", async (c) => {
    let logo: CampaignLogo | null = null;
    try {
      logo = await publicLogo(store, await publicCampaign(store, c.req.param("slug")));
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    const headers = { "X-Content-Type-Options": "nosniff", "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'", "Cross-Origin-Resource-Policy": "same-site" };
    if (!logo) return c.text("no logo", 404, { ...headers, "Cache-Control": "no-store" });
    const cache = { ...headers, ETag: logo.etag, "Cache-Control": "public, max-age=300" };
    if (c.req.header("if-none-match") === logo.etag) return c.body(null, 304, cache);
    return c.body(new Uint8Array(logo.bytes), 200, { ...cache, "Content-Type": logo.contentType });
  });
  app.get("/terms", (c) => c.html(<TermsPage publicBaseUrl={publicBaseUrl} />));
  app.get("/privacy", (c) => c.html(<PrivacyPage publicBaseUrl={publicBaseUrl} />));
  return app;
}
