import { DateTime } from "luxon";
import type { DeploymentRecord } from "../chain/deployment.js";
import { drawingSlot, toCampaignId } from "../draw/index.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing, DrawingStatus } from "../store/drawings.js";
import type { Store } from "../store/index.js";
import { campaignNow } from "./campaigns.js";
import { BadRequestError, NotFoundError } from "./errors.js";
import { drawingFinality } from "./finality.js";
import { TimeInputError, parseTime } from "./times.js";

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
export async function publicCampaign(store: Store, slug: string): Promise<Campaign> {
  const campaign = await store.campaigns.bySlug(slug);
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

/**
 * A drawing's `number` as partners and visitors see it: assigned when the random value is requested (spec,
 * Drawing), so null before. The keeper fixes the number in the store just before it sends the commit, so that a
 * retried commit targets the same number; until the request is made that number is not shown.
 */
export function requestedNumber(drawing: Pick<Drawing, "status" | "number">): number | null {
  return drawing.status === "entropy_requested" || isDrawn(drawing) ? drawing.number : null;
}

export type DrawsQuery = { limit: number; before: string | null };

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * draws.json's `before` (spec: "a date; pass the response's nextBefore to page back"): a date (YYYY-MM-DD) means
 * the start of that day in the campaign's time zone, the zone its draw dates are given in (the pull URL's {date}),
 * so `before=2026-11-25` lists the draws of the 24th and earlier; a time with an offset or Z (nextBefore) is that
 * instant, by the rule for typed times (domain/times.ts). Answers the instant in UTC; a time without an offset is
 * refused, since its instant would be a guess.
 */
export function parseBefore(value: string, timezone: string): string {
  const bad = () => new BadRequestError(`before must be a date (YYYY-MM-DD, in the campaign's time zone ${timezone}) or an ISO 8601 time with an offset, e.g. the previous response's nextBefore; got ${JSON.stringify(value.slice(0, 64))}`);
  if (DATE_ONLY.test(value)) {
    const day = DateTime.fromISO(value, { zone: timezone });
    if (!day.isValid) throw bad();
    return day.startOf("day").toUTC().toISO()!;
  }
  try {
    return parseTime("before", value).toISOString();
  } catch (error) {
    if (error instanceof TimeInputError) throw bad();
    throw error;
  }
}

/**
 * The drawings the public list shows (draws.json and the campaign page, newest first): every drawing up to the
 * next one, i.e. drawn, in progress, flagged at its cutoff, and the next drawing still taking a list; drawings
 * scheduled after it are left out (an hourly campaign has 48 of them, which would fill the first page and hide
 * the latest results). `more` says whether older rows follow the page.
 */
export async function publicDrawings(store: Store, campaign: Campaign, query: DrawsQuery, realNow: Date = new Date()): Promise<{ rows: (Drawing & { winnerCount: number })[]; more: boolean }> {
  const now = campaignNow(campaign, realNow).toISOString();
  // Pausing and ending remove the drawings ahead, so without a next drawing every remaining one is listed (a
  // drawing past its cutoff may still have its draw time ahead).
  const next = await store.drawings.nextOpen(campaign.id, now);
  const rows = await store.drawings.publicPage(campaign.id, query.before, next?.drawAt ?? null, query.limit + 1);
  return { rows: rows.slice(0, query.limit), more: rows.length > query.limit };
}

/**
 * When the public list (draws.json, the page) changes with time alone, as real time in ms: the next open drawing's
 * cutoff, when another drawing becomes the next (no write marks it). Infinity when no drawing is open.
 */
export async function publicListChangesAt(store: Store, campaign: Campaign, realNow: Date = new Date()): Promise<number> {
  const next = await store.drawings.nextOpen(campaign.id, campaignNow(campaign, realNow).toISOString());
  return next ? Date.parse(next.cutoffAt) - campaign.clockOffsetMs : Number.POSITIVE_INFINITY;
}

/** The finalized block at which one of the campaign's provisional results becomes final (null: none will alone). */
export async function publicFinalAt(store: Store, campaign: Pick<Campaign, "id">): Promise<number | null> {
  return store.drawings.nextFinalBlock(campaign.id, (await store.finality.get())?.block ?? -1);
}

/**
 * `draws.json`: the campaign's description and a page of its draws, newest first. Beyond the spec, it carries
 * what a campaign-wide audit needs (`verify-draw.mjs --campaign`): the onchain campaign id, the contract and its
 * deployment block, and each draw's slot (keccak256 of its id), which its onchain commit carries.
 */
export async function drawsPage(
  store: Store,
  campaign: Campaign,
  deployment: Pick<DeploymentRecord, "chainId" | "token" | "tokenDecimals" | "prizeDraw" | "deployBlock">,
  baseUrl: string,
  query: DrawsQuery,
  realNow: Date = new Date(),
) {
  const { rows: page, more } = await publicDrawings(store, campaign, query, realNow);
  const finalized = await store.finality.get();
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
      number: requestedNumber(d),
      slot: drawingSlot(d.id),
      drawAt: d.drawAt,
      cutoffAt: d.cutoffAt,
      stage: STAGE[d.status],
      winners: d.winnerCount,
      winnersCommitment: d.winnersCommitment,
      lockedAt: d.lockedAt,
      settledAt: d.settledAt,
      paidAt: d.paidAt,
      // Beyond the spec: false while a chain reorganisation can still change the result (domain/finality.ts).
      final: drawingFinality(d, finalized) === "final",
      proof: isDrawn(d) ? proofUrl(baseUrl, campaign, d) : null,
    })),
    nextBefore: more ? (page[page.length - 1]?.drawAt ?? null) : null,
  };
}
