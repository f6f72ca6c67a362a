import type { DeploymentRecord } from "../chain/deployment.js";
import { drawingSlot, toCampaignId } from "../draw/index.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing, DrawingStatus } from "../store/drawings.js";
import type { Store } from "../store/index.js";
import { NotFoundError } from "./errors.js";

/** Public `stage` for each API `status` (spec, "Drawing status and public stage"). */
export const STAGE: Record<DrawingStatus, "open" | "locked" | "drawing" | "drawn" | "paid"> = {
  open: "open",
  locked: "locked",
  entropy_requested: "drawing",
  settled: "drawn",
  paid: "paid",
};

export const DRAWS_DEFAULT_LIMIT = 30;
export const DRAWS_MAX_LIMIT = 100;

/** A campaign the public may see: drafts are hidden exactly like missing campaigns (spec, Campaign status). */
export function publicCampaign(store: Store, slug: string): Campaign {
  const campaign = store.campaigns.bySlug(slug);
  if (!campaign || campaign.status === "draft") throw new NotFoundError(`no campaign ${slug.slice(0, 64)}`);
  return campaign;
}

/** Whether a drawing's proof exists: once drawn (stage drawn or paid). */
export function isDrawn(drawing: Pick<Drawing, "status">): boolean {
  return drawing.status === "settled" || drawing.status === "paid";
}

export function proofUrl(baseUrl: string, campaign: Pick<Campaign, "slug">, drawing: Pick<Drawing, "id">): string {
  return `${baseUrl}/campaigns/${campaign.slug}/draws/${drawing.id}/proof.json`;
}

export type DrawsQuery = { limit: number; before: string | null };

/**
 * `draws.json`: the campaign's description and a page of its draws, newest first. Beyond the spec, it carries
 * what a campaign-wide audit needs (`verify-draw.mjs --campaign`): the onchain campaign id, the contract and its
 * deployment block, and each draw's slot (keccak256 of its id), which its onchain commit carries.
 */
export function drawsPage(
  store: Store,
  campaign: Campaign,
  deployment: Pick<DeploymentRecord, "chainId" | "token" | "tokenDecimals" | "prizeDraw" | "deployBlock">,
  baseUrl: string,
  query: DrawsQuery,
) {
  const rows = store.drawings.page(campaign.id, query.before, query.limit + 1);
  const page = rows.slice(0, query.limit);
  return {
    campaign: {
      slug: campaign.slug,
      name: campaign.name,
      status: campaign.status,
      cadence: campaign.schedule.cadence,
      timezone: campaign.schedule.timezone,
      winnersPerDraw: campaign.winnersPerDraw,
      page: `${baseUrl}/campaigns/${campaign.slug}`,
      campaignId: toCampaignId(campaign.slug),
      chain: { chainId: deployment.chainId, contract: deployment.prizeDraw, deployBlock: deployment.deployBlock },
      payout: {
        chainId: deployment.chainId,
        contract: deployment.prizeDraw,
        token: deployment.token,
        tokenDecimals: deployment.tokenDecimals,
      },
    },
    draws: page.map((d) => ({
      id: d.id,
      number: d.number,
      slot: drawingSlot(d.id),
      drawAt: d.drawAt,
      cutoffAt: d.cutoffAt,
      stage: STAGE[d.status],
      winners: d.winnerCount,
      winnersCommitment: d.winnersCommitment,
      lockedAt: d.lockedAt,
      settledAt: d.settledAt,
      paidAt: d.paidAt,
      proof: isDrawn(d) ? proofUrl(baseUrl, campaign, d) : null,
    })),
    nextBefore: rows.length > query.limit ? (page[page.length - 1]?.drawAt ?? null) : null,
  };
}
