import type { WinnerEntry } from "../lists/schemas.js";
import type { Campaign } from "../store/campaigns.js";
import type { Drawing, DrawingStatus, Winner } from "../store/drawings.js";
import type { Store } from "../store/index.js";
import { prizeTableView, campaignNow } from "./campaigns.js";
import { BadRequestError, ConflictError, NotFoundError } from "./errors.js";
import { drawingFinality } from "./finality.js";
import { requestedNumber } from "./publicDraws.js";
import { latestAhead, parseTime } from "./times.js";

/** Drawings returned by GET drawings (spec: at most 50, no paging). */
export const DRAWINGS_LIST_LIMIT = 50;

/**
 * GET drawings (spec, "GET drawings"): open drawings still taking a list first, soonest cutoff first, so that the
 * spec's partner loop ("take the first one") posts to the drawing it can still fill; then open drawings whose
 * cutoff passed without a list (flagged, waiting for an extended cutoff), in cutoff order; then every other
 * status, newest first. At most 50.
 */
export async function listDrawings(store: Store, campaign: Campaign, status: DrawingStatus | null, realNow: Date = new Date()): Promise<Drawing[]> {
  return store.drawings.list(campaign.id, status, DRAWINGS_LIST_LIMIT, campaignNow(campaign, realNow).toISOString());
}

/** One winner as a partner sends it (already shape-checked by the HTTP schema). */

export type SubmitResult = { status: 200 | 201; drawing: Drawing };

/** The drawing of a campaign by id, or 404 (also for another campaign's drawing). */
export async function drawingOf(store: Store, campaign: Campaign, drawingId: string): Promise<Drawing> {
  const drawing = await store.drawings.byId(campaign.id, drawingId);
  if (!drawing) throw new NotFoundError(`no drawing ${drawingId} in campaign ${campaign.slug}`);
  return drawing;
}

/**
 * POST winners (spec, "POST winners"): before the cutoff any full list replaces the stored one (201 the first
 * time, 200 afterwards); after it the same ids in the same order are accepted (200, names and avatars updated,
 * at any time), a different list is 409 locked.
 */
export async function submitWinners(store: Store, campaign: Campaign, drawingId: string, list: readonly WinnerEntry[], realNow: Date = new Date()): Promise<SubmitResult> {
  if (campaign.mode === "pull") throw new ConflictError("pull_campaign", "this campaign's winners are fetched from the partner's URL; posting them is refused");
  if (campaign.mode === "entries") throw new ConflictError("entries_campaign", "this campaign draws its winners from entries; post entrants to /entries instead");
  return store.tx(async () => {
    const found = await store.drawings.byId(campaign.id, drawingId);
    // An ended campaign's upcoming drawings are gone: posting to one is campaign_ended, not not_found.
    if (campaign.status === "ended" && (!found || found.status === "open")) {
      throw new ConflictError("campaign_ended", "the campaign has ended and takes no more winners");
    }
    const drawing = found ?? (await drawingOf(store, campaign, drawingId));
    if (list.length !== drawing.winnersExpected) {
      throw new BadRequestError(`winners must have exactly ${drawing.winnersExpected} entries for this drawing (got ${list.length})`);
    }
    const seen = new Set<string>();
    list.forEach((w, i) => {
      if (seen.has(w.winner)) throw new BadRequestError(`winners[${i}].winner repeats ${JSON.stringify(w.winner.slice(0, 40))}`);
      seen.add(w.winner);
    });
    return applyWinnerList(store, campaign, drawing, list, realNow);
  });
}

/**
 * The list rules shared by POST winners and the pull fetcher (inside the caller's transaction): before the
 * cutoff a list replaces the stored one (201 when there was none); after it only the same ids in the same
 * order are accepted, updating names and avatars.
 */
export async function applyWinnerList(store: Store, campaign: Campaign, drawing: Drawing, list: readonly WinnerEntry[], realNow: Date, partnerRound: number | null = null): Promise<SubmitResult & { changed: boolean }> {
  const stored = await store.drawings.winners(drawing.id);
  const now = campaignNow(campaign, realNow).toISOString();
  const open = drawing.status === "open" && now < drawing.cutoffAt;
  const same = stored.length === list.length && stored.every((w, i) => w.winnerId === list[i]!.winner);
  if (open) {
    const labelsSame = same && stored.every((w, i) => w.displayName === list[i]!.displayName && w.avatarUrl === list[i]!.avatarUrl);
    if (!same) await store.drawings.replaceWinners(drawing.id, list.map((w) => ({ winnerId: w.winner, displayName: w.displayName, avatarUrl: w.avatarUrl })));
    else if (!labelsSame) await store.drawings.updateWinnerLabels(drawing.id, list);
    const next = { ...drawing, listSubmittedAt: realNow.toISOString(), needsAttention: null, partnerRound: partnerRound ?? drawing.partnerRound };
    await store.drawings.update(next);
    return { status: stored.length === 0 ? 201 : 200, drawing: next, changed: !labelsSame || next.partnerRound !== drawing.partnerRound };
  }
  if (!same) {
    if (stored.length === 0 && drawing.status === "open") throw new ConflictError("locked", await missedCutoff(store, campaign, drawing, now));
    throw new ConflictError("locked", "the cutoff has passed and this list differs from the locked one");
  }
  await store.drawings.updateWinnerLabels(drawing.id, list);
  return { status: 200, drawing, changed: false };
}

/**
 * The detail of a list refused because its drawing's cutoff passed with no list: nothing is locked,
 * the drawing waits flagged; say so, and name the two ways on (an extended cutoff, or the next drawing).
 */
async function missedCutoff(store: Store, campaign: Campaign, drawing: Drawing, now: string): Promise<string> {
  const next = await store.drawings.nextOpen(campaign.id, now);
  return (
    `drawing ${drawing.id}'s cutoff (${drawing.cutoffAt}) passed with no list, so it takes none now and waits, flagged. ` +
    `To draw it, extend its cutoff in the partner portal (the campaign's Drawings, Needs attention) and send the list again` +
    (next ? `; or send these winners to the next drawing, ${next.id} (cutoff ${next.cutoffAt}).` : ".")
  );
}

/** The spec's Drawing resource (partner API). */
export async function drawingView(store: Store, drawing: Drawing, winners?: readonly Winner[]) {
  const rows = winners ?? (await store.drawings.winners(drawing.id));
  const table = await store.prizeTables.get(drawing.tableId, drawing.tableVersion);
  const settled = drawing.status === "settled" || drawing.status === "paid";
  return {
    id: drawing.id,
    number: requestedNumber(drawing),
    partnerRound: drawing.partnerRound,
    drawAt: drawing.drawAt,
    cutoffAt: drawing.cutoffAt,
    status: drawing.status,
    winnersExpected: drawing.winnersExpected,
    needsAttention: drawing.needsAttention,
    winners: rows.map((w) => ({
      position: w.position,
      winner: w.winnerId,
      displayName: w.displayName,
      avatarUrl: w.avatarUrl,
      ...(settled && w.randomValue !== null
        ? {
            randomValue: w.randomValue,
            roll: w.roll,
            amountCents: w.amountCents,
            // Beyond the spec: a held prize's payment, decided by an operator after checks.
            ...(w.held === true ? { heldPayout: { status: w.heldStatus ?? "open", reason: w.heldReason } } : {}),
          }
        : {}),
      // On every winner (the spec does not say "present once settled"): false until a settled prize is held.
      heldForManualPayout: settled && w.held === true,
    })),
    // Beyond the spec: `paid` covers the automatic transfer; held prizes are paid by hand and counted here.
    heldPrizesOpen: rows.filter((w) => w.held === true && (w.heldStatus ?? "open") === "open").length,
    verification: {
      winnersCommitment: drawing.winnersCommitment,
      lockedAt: drawing.lockedAt,
      entropyProvider: drawing.entropyProvider,
      entropyRequestId: drawing.entropyRequestId,
      entropy: drawing.entropyValue,
      entropyRevealedAt: drawing.entropyRevealedAt,
      prizeTableId: drawing.lockedAt ? drawing.tableId : null,
      // Beyond the spec: true once the random value (and, once paid, the payout) is in a finalized block; until
      // then a chain reorganisation can still change the result (domain/finality.ts).
      final: drawingFinality(drawing, await store.finality.get()) === "final",
    },
    prizeTable: table ? prizeTableView(table, drawing.winnersExpected) : null,
  };
}

/**
 * Extends an open drawing's cutoff (spec: a drawing flagged with no list "waits until its cutoff is extended in the
 * portal"). The new cutoff is a time by the service's rule for typed times (domain/times.ts), later than the
 * campaign's current time and at most 100 years ahead of real time (as far as the test clock goes); a cutoff after the
 * draw time moves the draw time with it (a list is always locked before its draw); the flag is cleared. `to` is the
 * time as sent: the portal and the CLI's `drawing extend-cutoff` call this with what was typed.
 */
export async function extendCutoff(store: Store, slug: string, drawingId: string, to: string, by: string = "operator", realNow: Date = new Date()): Promise<Drawing> {
  const cutoff = parseTime("cutoffAt", to);
  return store.tx(async () => {
    const campaign = await store.campaigns.bySlug(slug);
    if (!campaign) throw new NotFoundError(`no campaign ${slug.slice(0, 64)}`);
    // The drawing first: ending a campaign removes its open drawings, and "no drawing" says so.
    const drawing = await drawingOf(store, campaign, drawingId);
    if (campaign.status === "ended") throw new ConflictError("campaign_ended", "the campaign has ended: its drawings take no list and no new cutoff");
    if (drawing.status !== "open") throw new ConflictError("locked", `drawing ${drawing.id} is ${drawing.status}: only an open drawing's cutoff can move`);
    const now = campaignNow(campaign, realNow);
    const latest = latestAhead(realNow);
    if (cutoff.getTime() <= now.getTime() || cutoff.getTime() > latest) {
      throw new BadRequestError(
        `cutoffAt must be later than the campaign's current time (${now.toISOString()}) and no later than ${new Date(latest).toISOString()} ` +
          `(100 years ahead of real time); a cutoff after the draw time (${drawing.drawAt}) moves the draw time with it`,
      );
    }
    const cutoffAt = cutoff.toISOString();
    const drawAt = cutoff.getTime() > Date.parse(drawing.drawAt) ? cutoffAt : drawing.drawAt;
    const next: Drawing = { ...drawing, cutoffAt, drawAt, needsAttention: null };
    await store.drawings.update(next);
    await store.audit.record(by, "drawing.extend-cutoff", drawing.id, { campaign: campaign.slug, cutoffAt, drawAt });
    return next;
  });
}
