/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
// A campaign's logo and its terms and privacy links (owners only, spec Authentication 2). Every page and action
// calls domain/branding.ts, which refuses a member who is not an owner (403), so the server refuses them whatever
// the navigation shows.
import { Hono } from "hono";
import { MAX_LOGO_BYTES, campaignBranding, removeCampaignLogo, setCampaignLinks, setCampaignLogo } from "../../domain/branding.js";
import { ServiceError } from "../../domain/errors.js";
import type { Store } from "../../store/index.js";
import { field, signedIn, type PortalEnv, type SignedIn } from "./guard.js";
import { CampaignNav, FormError, Section, TextField, doneNotice, errorsFrom, type FieldErrors } from "./forms.js";
import { Csrf, PortalLayout, type Notice } from "./Layout.js";
import { actorOf, viewerOf } from "./team.js";

export function brandingRoutes({ store, publicBaseUrl }: { store: Store; publicBaseUrl: string }) {
  const app = new Hono<PortalEnv>();

  const page = async (session: SignedIn, slug: string, errors: FieldErrors = {}, values: Record<string, string> | null = null, notice: Notice = null) => {
    const viewer = viewerOf(session);
    const { campaign, logo } = await campaignBranding(store, session.accountId, slug, actorOf(session));
    const base = `/portal/campaigns/${campaign.slug}`;
    const links = values ?? { termsUrl: campaign.termsUrl ?? "", privacyUrl: campaign.privacyUrl ?? "" };
    return (
      <PortalLayout title={`Logo and links: ${campaign.name}`} viewer={viewer} notice={notice}>
        <CampaignNav campaign={campaign} viewer={viewer} current={`${base}/branding`} />
        <Section id="links" title="Terms and privacy links">
          <p>Shown on the campaign's public page and meant to be linked wherever people enter. Empty: the service's own pages ({publicBaseUrl}/terms and /privacy).</p>
          <form method="post" action={`${base}/branding/links`} novalidate>
            <Csrf token={viewer.csrf} />
            <FormError errors={errors} />
            <TextField name="termsUrl" label="Terms URL" type="url" inputmode="url" value={links.termsUrl} hint="https only." errors={errors} />
            <TextField name="privacyUrl" label="Privacy URL" type="url" inputmode="url" value={links.privacyUrl} hint="https only." errors={errors} />
            <p>
              <button type="submit">Save the links</button>
            </p>
          </form>
        </Section>
        <Section id="logo" title="Logo">
          {logo ? (
            <p>
              <img src={`${base}/branding/logo`} alt={`${campaign.name} logo (current)`} width={96} height={96} class="logo" />
              <span class="hint">
                {logo.contentType}, {Math.ceil(logo.bytes.length / 1024)} KB, uploaded {logo.updatedAt.slice(0, 16).replace("T", " ")} UTC
              </span>
            </p>
          ) : (
            <p>No logo yet.</p>
          )}
          <form method="post" action={`${base}/branding/logo`} enctype="multipart/form-data">
            <Csrf token={viewer.csrf} />
            <div class="field">
              <label for="f-logo">Logo image</label>
              <input
                id="f-logo"
                name="logo"
                type="file"
                accept="image/png,image/jpeg,image/webp"
                required
                aria-describedby={errors.logo ? "f-logo-hint f-logo-error" : "f-logo-hint"}
                aria-invalid={errors.logo ? "true" : undefined}
              />
              <span class="hint" id="f-logo-hint">
                PNG, JPEG or WebP, at most {MAX_LOGO_BYTES / 1024} KB; shown square on the public page.
              </span>
              {errors.logo ? (
                <p class="field-error" id="f-logo-error">
                  {errors.logo}
                </p>
              ) : null}
            </div>
            <p>
              <button type="submit">Upload the logo</button>
            </p>
          </form>
          {logo ? (
            <form method="post" action={`${base}/branding/logo/remove`}>
              <Csrf token={viewer.csrf} />
              <button type="submit" class="danger">
                Remove the logo
              </button>
            </form>
          ) : null}
        </Section>
      </PortalLayout>
    );
  };

  app.get("/campaigns/:slug/branding", async (c) => {
    const session = signedIn(c);
    return c.html(await page(session, c.req.param("slug"), {}, null, doneNotice(c.req.query("done"))));
  });

  /** The stored logo for the owner's preview (drafts too; the public route serves it once the page is public). */
  app.get("/campaigns/:slug/branding/logo", async (c) => {
    const session = signedIn(c);
    const { logo } = await campaignBranding(store, session.accountId, c.req.param("slug"), actorOf(session));
    if (!logo) return c.body(null, 404);
    return c.body(new Uint8Array(logo.bytes), 200, { "Content-Type": logo.contentType, "X-Content-Type-Options": "nosniff", "Content-Security-Policy": "default-src 'none'", ETag: logo.etag });
  });

  app.post("/campaigns/:slug/branding/links", async (c) => {
    const session = signedIn(c);
    const slug = c.req.param("slug");
    const values = { termsUrl: field(c, "termsUrl").slice(0, 4_096), privacyUrl: field(c, "privacyUrl").slice(0, 4_096) };
    try {
      await setCampaignLinks(store, session.accountId, slug, actorOf(session), values);
    } catch (error) {
      if (error instanceof ServiceError && (error.status === 400 || error.status === 409)) {
        return c.html(await page(session, slug, errorsFrom(error.detail, { termsUrl: "termsUrl", privacyUrl: "privacyUrl" }), values), error.status);
      }
      throw error;
    }
    return c.redirect(`/portal/campaigns/${slug}/branding?done=links`, 303);
  });

  app.post("/campaigns/:slug/branding/logo", async (c) => {
    const session = signedIn(c);
    const slug = c.req.param("slug");
    const file = c.var.form.logo;
    // The file's bytes only: its name and the browser's type are never trusted (the domain reads the magic bytes).
    const bytes = file instanceof File ? new Uint8Array(await file.arrayBuffer()) : new Uint8Array(0);
    try {
      await setCampaignLogo(store, session.accountId, slug, actorOf(session), bytes);
    } catch (error) {
      if (error instanceof ServiceError && error.status === 400) return c.html(await page(session, slug, { logo: error.detail }), 400);
      throw error;
    }
    return c.redirect(`/portal/campaigns/${slug}/branding?done=logo`, 303);
  });

  app.post("/campaigns/:slug/branding/logo/remove", async (c) => {
    const session = signedIn(c);
    const slug = c.req.param("slug");
    await removeCampaignLogo(store, session.accountId, slug, actorOf(session));
    return c.redirect(`/portal/campaigns/${slug}/branding?done=logo-removed`, 303);
  });

  return app;
}
