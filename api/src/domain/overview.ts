/**
 * What exists and what waits on someone: as the service's operator lists it across accounts (`prizedraw account
 * list`, `campaign list`, `drawing list`; an account's keys are domain/team.ts's `listKeys`), with the ids an
 * operator needs (a lost `acc_...` is otherwise only in the first start's banner), and as the portal shows a team
 * what needs its attention. Read-only; a missing account or campaign is 404 like everywhere else.
 */
import type { Campaign, CampaignStatus } from "../store/campaigns.js";
import type { Drawing, DrawingStatus } from "../store/drawings.js";
import type { GuaranteePeriod } from "../store/guarantees.js";
import type { Store } from "../store/index.js";
import { nextDrawingOf } from "./campaigns.js";
import { NotFoundError } from "./errors.js";
import { listHeldPrizes, type HeldPrizeView } from "./heldPrizes.js";
import { requestedNumber } from "./publicDraws.js";

/** `prizedraw drawing list` shows at most this many drawings, the newest. */
export const DRAWING_OVERVIEW_LIMIT = 200;

/** Every account, newest first: its team (owners first, each with their role) and how many campaigns it has. */
export async function accountsOverview(store: Store) {
  const accounts = [];
  for (const account of await store.accounts.all()) {
    const members = await store.accounts.members(account.id);
    accounts.push({
      id: account.id,
      members: members.map((m) => ({ email: m.email, role: m.role })),
      campaignCount: (await store.campaigns.ofAccount(account.id)).length,
      createdAt: account.createdAt,
    });
  }
  return accounts;
}

/**
 * Campaigns newest first, of one account and of one status when given: each with its next drawing (as GET a
 * campaign shows it: the open one taking lists now, none unless active) and how many of its drawings carry a
 * needsAttention note, whatever their status.
 */
export async function campaignsOverview(store: Store, filter: { accountId: string | null; status: CampaignStatus | null }, realNow: Date = new Date()) {
  let campaigns: Campaign[];
  if (filter.accountId !== null) {
    if (!(await store.accounts.accountExists(filter.accountId))) throw new NotFoundError(`no account ${filter.accountId}`);
    campaigns = await store.campaigns.ofAccount(filter.accountId);
  } else {
    campaigns = await store.campaigns.all();
  }
  const rows = [];
  for (const campaign of campaigns) {
    if (filter.status !== null && campaign.status !== filter.status) continue;
    const next = await nextDrawingOf(store, campaign, realNow);
    rows.push({
      slug: campaign.slug,
      accountId: campaign.accountId,
      name: campaign.name,
      status: campaign.status,
      mode: campaign.mode,
      cadence: campaign.schedule.cadence,
      nextDrawing: next ? { id: next.id, drawAt: next.drawAt } : null,
      drawingsNeedingAttention: await store.drawings.countNeedingAttention(campaign.id),
      createdAt: campaign.createdAt,
    });
  }
  return rows;
}

/**
 * A campaign's drawings, latest draw time first, of one status when given: at most DRAWING_OVERVIEW_LIMIT (`more`
 * says whether older ones were left out), each with its winners expected and present (the winner rows stored: a
 * list sent, or the winners drawn from entries) and its needsAttention note. `number` as partners see it (null
 * until the random value is requested).
 */
export async function drawingsOverview(store: Store, slug: string, status: DrawingStatus | null) {
  const campaign = await store.campaigns.bySlug(slug);
  if (!campaign) throw new NotFoundError(`no campaign ${slug.slice(0, 64)}`);
  const rows = await store.drawings.page(campaign.id, null, DRAWING_OVERVIEW_LIMIT + 1, status);
  return {
    drawings: rows.slice(0, DRAWING_OVERVIEW_LIMIT).map((d) => ({
      id: d.id,
      number: requestedNumber(d),
      status: d.status,
      drawAt: d.drawAt,
      cutoffAt: d.cutoffAt,
      winnersExpected: d.winnersExpected,
      winnersPresent: d.winnerCount,
      needsAttention: d.needsAttention,
    })),
    more: rows.length > DRAWING_OVERVIEW_LIMIT,
  };
}

/** A campaign's unfinished drawings that carry a needsAttention note. */
export async function flaggedDrawings(store: Store, campaignId: string): Promise<Drawing[]> {
  return (await store.drawings.unfinished(campaignId)).filter((d) => d.needsAttention !== null);
}

/** What in a campaign waits on someone: drawings flagged, guarantee periods awaiting the team's pick, large prizes held for a manual payout. */
export type CampaignAttention = { flagged: Drawing[]; awaitingPick: GuaranteePeriod[]; heldOpen: HeldPrizeView[] };

export async function campaignAttention(store: Store, campaign: Pick<Campaign, "id" | "slug">): Promise<CampaignAttention> {
  return {
    flagged: await flaggedDrawings(store, campaign.id),
    awaitingPick: (await store.guarantees.list(campaign.id)).filter((g) => g.status === "awaiting_pick"),
    heldOpen: (await listHeldPrizes(store, campaign.slug)).filter((h) => h.status === "open"),
  };
}
