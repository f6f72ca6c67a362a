import type { Campaign } from "../store/campaigns.js";
import type { Entry } from "../store/entries.js";
import type { Store } from "../store/index.js";
import { campaignNow } from "./campaigns.js";
import { BadRequestError, ConflictError, NotFoundError } from "./errors.js";

/** Spec, Limits. */
export const MAX_ENTRANTS_PER_DRAWING = 100_000;
export const MAX_ENTRIES_PER_REQUEST = 1_000;
export const MAX_ENTRY_WEIGHT = 4_294_967_295;
/** GET entries page size: default and maximum (the spec leaves both open). */
export const ENTRIES_DEFAULT_LIMIT = 100;
export const ENTRIES_MAX_LIMIT = 1_000;

export type EntriesResult = {
  drawing: { id: string; drawAt: string; cutoffAt: string };
  added: number;
  updated: number;
  unchanged: number;
  count: number;
  totalWeight: number;
};

function requireEntriesCampaign(campaign: Campaign): void {
  if (campaign.mode !== "entries") throw new ConflictError("not_entrants_campaign", "this campaign takes winners, not entries");
}

/**
 * POST entries (spec, "POST entries"): all or nothing, in one transaction. The entries go to the drawing whose
 * cutoff is next at `arrival`; if that drawing stops taking entries before the transaction runs, nothing is
 * stored (409 not_taking_entries). Re-sending an entrant sets its weight (1 when omitted), name and avatar.
 */
export async function submitEntries(store: Store, campaign: Campaign, list: readonly Entry[], arrival: Date): Promise<EntriesResult> {
  requireEntriesCampaign(campaign);
  if (campaign.status === "ended") throw new ConflictError("campaign_ended", "the campaign has ended and takes no more entries");
  const seen = new Set<string>();
  list.forEach((e, i) => {
    if (seen.has(e.entrantId)) throw new BadRequestError(`entries[${i}].entrantId repeats an entrant of this request`);
    seen.add(e.entrantId);
  });
  const arrivedAt = campaignNow(campaign, arrival).toISOString();
  return store.tx(async () => {
    const drawing = await store.drawings.nextOpen(campaign.id, arrivedAt);
    if (!drawing) throw new ConflictError("no_open_drawing", "no drawing is taking entries now (is the campaign paused?)");
    const current = await store.campaigns.byId(campaign.id);
    if (!current || current.status !== "active" || campaignNow(current).toISOString() >= drawing.cutoffAt) {
      throw new ConflictError("not_taking_entries", "the drawing stopped taking entries while the request was in flight; nothing was stored");
    }
    let added = 0;
    let updated = 0;
    let unchanged = 0;
    let weightDelta = 0;
    // One lookup of the request's ids, then one insert of the new ones (a statement per 500 each): a resent list
    // costs no failed inserts, which PostgreSQL pays for row by row. The write lock keeps both in step.
    const stored = await store.entries.existing(drawing.id, list.map((e) => e.entrantId));
    const inserted = await store.entries.insertNew(drawing.id, list.filter((e) => !stored.has(e.entrantId)));
    for (const e of list) {
      const existing = stored.get(e.entrantId);
      if (existing === undefined) {
        if (!inserted.has(e.entrantId)) throw new Error(`entrant ${e.entrantId} appeared while the store's write lock was held`);
        added++;
        weightDelta += e.weight;
      } else if (existing.weight === e.weight && existing.displayName === e.displayName && existing.avatarUrl === e.avatarUrl) {
        unchanged++;
      } else {
        updated++;
        weightDelta += e.weight - existing.weight;
        await store.entries.update(drawing.id, e);
      }
    }
    const count = drawing.entrantCount + added;
    if (count > MAX_ENTRANTS_PER_DRAWING) {
      // Thrown inside the transaction: everything above rolls back.
      throw new ConflictError("too_many_entrants", `this request would take the drawing to ${count} entrants; a drawing takes at most ${MAX_ENTRANTS_PER_DRAWING}; nothing was stored`);
    }
    const totalWeight = drawing.totalWeight + weightDelta;
    await store.drawings.update({ ...drawing, entrantCount: count, totalWeight });
    return { drawing: { id: drawing.id, drawAt: drawing.drawAt, cutoffAt: drawing.cutoffAt }, added, updated, unchanged, count, totalWeight };
  });
}

export type EntriesPage = {
  count: number;
  totalWeight: number;
  entries: { entrantId: string; weight: number; displayName: string | null; avatarUrl: string | null; position: number | null }[];
  next: string | null;
};

/** GET entries: a page in arrival order; `next` is an opaque cursor, null on the last page. */
export async function listEntries(store: Store, campaign: Campaign, query: { drawing?: string; limit: number; after?: string }): Promise<EntriesPage> {
  requireEntriesCampaign(campaign);
  const drawing = query.drawing
    ? await store.drawings.byId(campaign.id, query.drawing)
    : await store.drawings.nextOpen(campaign.id, campaignNow(campaign).toISOString());
  if (!drawing) {
    if (query.drawing) throw new NotFoundError(`no drawing ${query.drawing.slice(0, 64)} in campaign ${campaign.slug}`);
    throw new ConflictError("no_open_drawing", "no drawing is taking entries now; pass drawing=ID to read a past one");
  }
  const afterSeq = query.after === undefined ? 0 : Number(query.after);
  const rows = await store.entries.page(drawing.id, afterSeq, query.limit + 1);
  const page = rows.slice(0, query.limit);
  return {
    count: drawing.entrantCount,
    totalWeight: drawing.totalWeight,
    entries: page.map((e) => ({ entrantId: e.entrantId, weight: e.weight, displayName: e.displayName, avatarUrl: e.avatarUrl, position: e.position })),
    next: rows.length > query.limit ? String(page[page.length - 1]!.seq) : null,
  };
}
