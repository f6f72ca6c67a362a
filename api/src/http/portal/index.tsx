/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
// The partner portal under /portal (spec, "What the service does" 8): server-rendered pages with plain forms, for
// owners and members. Every action calls the same domain function as the API and the CLI.
import { Hono, type Context } from "hono";
import type { Environment } from "../../config.js";
import { MAX_LOGO_BYTES } from "../../domain/branding.js";
import { ServiceError, UnauthorizedError } from "../../domain/errors.js";
import { TooManySignInsError } from "../../domain/portal.js";
import { logger } from "../../logger.js";
import { bodyTooLarge, clientAborted, limitBody } from "../body.js";
import type { Mailer } from "../../mail/mailer.js";
import type { Store } from "../../store/index.js";
import { portalGuard, type PortalEnv } from "./guard.js";
import { PORTAL_CSS, PORTAL_JS, PortalLayout } from "./Layout.js";
import { campaignListRoutes } from "./campaigns.js";
import { signInRoutes } from "./signIn.js";
import { teamRoutes } from "./team.js";
import { auditRoutes } from "./audit.js";
import { brandingRoutes } from "./branding.js";
import { drawingPageRoutes } from "./drawing.js";
import { drawingRoutes } from "./drawings.js";
import { tableRoutes } from "./table.js";
import { webhookRoutes } from "./webhooks.js";
import type { PullUrlPolicy } from "../../domain/campaigns.js";

export type PortalDeps = {
  store: Store;
  mailer: Mailer;
  publicBaseUrl: string;
  env: Environment;
  /** The keeper looks at a campaign after a change (as the API's routes do). */
  runCampaign: (campaignId: string) => void;
  /** Where pull URLs may point (the test environment may allow http to loopback), as for the CLI. */
  pullPolicy?: PullUrlPolicy;
  /** Reverse proxies whose X-Forwarded-For names the client (http/clientAddress.ts); 0 by default. */
  trustedProxyHops?: number;
};

/** Uploads (a logo) are the largest bodies the portal takes. */
export const PORTAL_MAX_BODY_BYTES = 1_048_576;

/**
 * An error as a page: the domain's refusals with their status and words, a body over the limit as 413 (with a length,
 * or chunked: http/body.ts), a client gone mid-upload as 400 logged at info, anything else as 500 without internals.
 */
function errorPage(error: Error, c: Context<PortalEnv>) {
  if (error instanceof UnauthorizedError && c.req.method === "GET") return c.redirect("/portal/sign-in", 303);
  const aborted = clientAborted(error);
  const [status, text] =
    error instanceof ServiceError
      ? [error.status, error.detail]
      : error instanceof TooManySignInsError
        ? [429 as const, error.message]
        : bodyTooLarge(error)
          ? [413 as const, `what was sent is larger than ${PORTAL_MAX_BODY_BYTES / 1_048_576} MB, so nothing was changed; a logo may be at most ${MAX_LOGO_BYTES / 1024} KB`]
          : aborted
            ? [400 as const, "the request was cut off before it arrived; nothing was changed"]
            : [500 as const, "something went wrong on our side; nothing was changed, try again later"];
  if (aborted) logger.info({ path: c.req.path, reason: error.message }, "request aborted by the client");
  if (status === 500) logger.error({ err: { name: error.name, message: error.message }, path: c.req.path }, "portal error");
  if (error instanceof TooManySignInsError) c.header("Retry-After", String(error.retryAfterSeconds));
  const title = status === 403 ? "Not allowed" : status === 404 ? "Not found" : status === 401 ? "Sign in first" : status === 429 ? "Too many requests" : status === 413 ? "Too large" : "That did not work";
  return c.html(
    <PortalLayout title={title} viewer={null} notice={{ kind: "error", text }}>
      <p>
        <a href="/portal">Back to the portal</a>
      </p>
    </PortalLayout>,
    status,
  );
}

export function portalRoutes(deps: PortalDeps) {
  const { store, publicBaseUrl } = deps;
  const app = new Hono<PortalEnv>();
  app.onError(errorPage);
  app.get("/portal.css", (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.body(PORTAL_CSS, 200, { "Content-Type": "text/css; charset=utf-8" });
  });
  app.get("/portal.js", (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.body(PORTAL_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" });
  });
  app.use(limitBody(PORTAL_MAX_BODY_BYTES));
  app.use(portalGuard(store, publicBaseUrl));
  app.route("/", signInRoutes(deps));
  app.route("/", teamRoutes(deps));
  app.route("/", campaignListRoutes(deps));
  app.route("/", tableRoutes(deps));
  app.route("/", drawingRoutes(deps));
  app.route("/", drawingPageRoutes(deps));
  app.route("/", brandingRoutes(deps));
  app.route("/", auditRoutes(deps));
  app.route("/", webhookRoutes(deps));
  app.notFound((c) => errorPage(new ServiceError(404, "not_found", "there is no such page in the portal"), c));
  return app;
}
