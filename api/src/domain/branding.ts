/**
 * A campaign's branding (spec, Authentication 2: "owners alone also manage the team, logo and links"): its terms and
 * privacy links and its logo. Every door (the portal today) calls these, so a member who is not an owner is refused
 * here (403), whatever a page shows or hides.
 *
 * The logo is shown on the public page and served from this origin, so only a raster image is taken: PNG, JPEG or
 * WebP recognised by its magic bytes (never by the file name or the browser's type), at most 256 KB. SVG or HTML
 * could carry script; anything unrecognised is refused. It is stored with its fixed type and a sha256 ETag.
 */
import { createHash } from "node:crypto";
import type { Campaign } from "../store/campaigns.js";
import type { Store } from "../store/index.js";
import type { CampaignLogo } from "../store/portal.js";
import { checkHttpsUrl, ownCampaign } from "./campaigns.js";
import { BadRequestError, ConflictError } from "./errors.js";
import { requireOwner, type Actor } from "./team.js";

/** The largest logo taken. */
export const MAX_LOGO_BYTES = 256 * 1024;

/** The image type named by the file's first bytes, or null for anything else (SVG, HTML, GIF, text...). */
export function sniffImageType(bytes: Uint8Array): CampaignLogo["contentType"] | null {
  const starts = (sig: number[], at = 0) => bytes.length >= at + sig.length && sig.every((b, i) => bytes[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  // RIFF....WEBP
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return null;
}

/** An empty field removes the link (the page then shows the service's own). */
function httpsLink(field: string, value: string | null): string | null {
  return value === null || value.trim() === "" ? null : checkHttpsUrl(field, value.trim());
}

/** Sets (or, with null or "", clears: the service's own pages are linked then) the campaign's terms and privacy links. */
export async function setCampaignLinks(
  store: Store,
  accountId: string,
  slug: string,
  actor: Actor,
  links: { termsUrl: string | null; privacyUrl: string | null },
  realNow: Date = new Date(),
): Promise<Campaign> {
  return store.tx(async () => {
    const by = await requireOwner(store, accountId, actor, "change a campaign's links");
    const campaign = await ownCampaign(store, accountId, slug);
    if (campaign.status === "ended") throw new ConflictError("campaign_ended", "an ended campaign cannot change");
    const next: Campaign = { ...campaign, termsUrl: httpsLink("termsUrl", links.termsUrl), privacyUrl: httpsLink("privacyUrl", links.privacyUrl), updatedAt: realNow.toISOString() };
    await store.campaigns.update(next);
    await store.audit.record(by, "campaign.links", campaign.slug, { termsUrl: next.termsUrl, privacyUrl: next.privacyUrl });
    return next;
  });
}

/** Stores the campaign's logo after checking its size and its bytes. */
export async function setCampaignLogo(store: Store, accountId: string, slug: string, actor: Actor, bytes: Uint8Array, realNow: Date = new Date()): Promise<CampaignLogo> {
  return store.tx(async () => {
    const by = await requireOwner(store, accountId, actor, "change a campaign's logo");
    const campaign = await ownCampaign(store, accountId, slug);
    if (bytes.length === 0) throw new BadRequestError("logo: choose an image file to upload");
    if (bytes.length > MAX_LOGO_BYTES) throw new BadRequestError(`logo must be at most ${MAX_LOGO_BYTES / 1024} KB (this one is ${Math.ceil(bytes.length / 1024)} KB)`);
    const contentType = sniffImageType(bytes);
    if (!contentType) throw new BadRequestError("logo must be a PNG, JPEG or WebP image (SVG, HTML and other files are refused, whatever their name)");
    const buffer = Buffer.from(bytes);
    const logo: CampaignLogo = { bytes: buffer, contentType, etag: `"${createHash("sha256").update(buffer).digest("hex")}"`, updatedAt: realNow.toISOString() };
    await store.portal.setLogo(campaign.id, logo);
    await store.audit.record(by, "campaign.logo", campaign.slug, { contentType, bytes: buffer.length });
    return logo;
  });
}

export async function removeCampaignLogo(store: Store, accountId: string, slug: string, actor: Actor): Promise<void> {
  await store.tx(async () => {
    const by = await requireOwner(store, accountId, actor, "change a campaign's logo");
    const campaign = await ownCampaign(store, accountId, slug);
    await store.portal.removeLogo(campaign.id);
    await store.audit.record(by, "campaign.logo-remove", campaign.slug);
  });
}

/** The logo the public page shows: only for a campaign whose page is public (not a draft). */
export async function publicLogo(store: Store, campaign: Campaign): Promise<CampaignLogo | null> {
  if (campaign.status === "draft") return null;
  return store.portal.logo(campaign.id);
}

/** What the branding page shows (owners only, like every change here). */
export async function campaignBranding(store: Store, accountId: string, slug: string, actor: Actor): Promise<{ campaign: Campaign; logo: CampaignLogo | null }> {
  await requireOwner(store, accountId, actor, "manage a campaign's logo and links");
  const campaign = await ownCampaign(store, accountId, slug);
  return { campaign, logo: await store.portal.logo(campaign.id) };
}
