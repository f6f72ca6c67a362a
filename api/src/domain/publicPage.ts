/**
 * What the public campaign page shows, read in one place: the table in force, the next drawing, the latest past
 * draws with their winners and finality, and how many drawings this service committed. The page renders it and adds
 * links; the rules that choose (the open drawing, the list draws.json also serves, finality) live here and beside it.
 */
import { averagePrizeCents, type PrizeTable } from "../draw/index.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing, Winner } from "../store/drawings.js";
import type { Store } from "../store/index.js";
import { campaignNow } from "./campaigns.js";
import { drawingFinality, type Finality } from "./finality.js";
import { STAGE, isDrawn, publicDrawings } from "./publicDraws.js";

/** The drawing that takes entries now, with the average prize of its table. */
export type NextDrawing = { drawing: Drawing; averageCents: number };

/** A past or current draw as the page lists it. */
export type PageDraw = {
  drawing: Drawing;
  stage: (typeof STAGE)[keyof typeof STAGE];
  drawn: boolean;
  /** The first `winnersShown` winners (drawn draws only), in position order. */
  winners: Winner[];
  /** Winners of a drawn draw beyond those (the proof lists every one). */
  moreWinners: number;
  /** Null before the draw has a result. */
  finality: Finality | null;
};

export type CampaignPageData = {
  table: PrizeTable;
  averageCents: number;
  next: NextDrawing | null;
  draws: PageDraw[];
  /** More draws exist than the page lists (draws.json has them all). */
  truncated: boolean;
  /** The campaign's clock (its test clock in the test environment). */
  now: string;
  /** Drawings this service committed onchain. */
  published: number;
};

export type PageLimits = { draws: number; winnersPerDraw: number };

/** Reads everything the campaign page shows. */
export async function campaignPageData(store: Store, campaign: Campaign, limits: PageLimits): Promise<CampaignPageData> {
  const table = await store.prizeTables.get(campaign.tableId, campaign.tableVersion);
  if (!table) throw new Error(`prize table ${campaign.tableId} v${campaign.tableVersion} is missing`);
  const now = campaignNow(campaign).toISOString();

  let next: NextDrawing | null = null;
  const open = campaign.status === "active" ? await store.drawings.nextOpen(campaign.id, now) : null;
  const openTable = open ? await store.prizeTables.get(open.tableId, open.tableVersion) : null;
  if (open && openTable) next = { drawing: open, averageCents: averagePrizeCents(openTable, open.winnersExpected) };

  // The same list as draws.json's first page, less the next drawing the page shows apart.
  const { rows, more } = await publicDrawings(store, campaign, { before: null, limit: limits.draws + 1 });
  const listed = rows.filter((d) => d.id !== open?.id);
  const finalized = await store.finality.get();
  const draws: PageDraw[] = [];
  for (const drawing of listed.slice(0, limits.draws)) {
    const drawn = isDrawn(drawing);
    const winners = drawn ? await store.drawings.winners(drawing.id) : [];
    draws.push({
      drawing,
      stage: STAGE[drawing.status],
      drawn,
      winners: winners.slice(0, limits.winnersPerDraw),
      moreWinners: Math.max(0, winners.length - limits.winnersPerDraw),
      finality: drawingFinality(drawing, finalized),
    });
  }

  return {
    table,
    averageCents: averagePrizeCents(table, campaign.winnersPerDraw),
    next,
    draws,
    truncated: more || listed.length > limits.draws,
    now,
    published: await store.drawings.countCommitted(campaign.id),
  };
}
