import { isAddress } from "viem";
import { DEFAULT_PRIZE_TABLE, PrizeTableError, averagePrizeCents, validatePrizeTable, type PrizeTable, type PrizeTierInput } from "../draw/index.js";
import type { Campaign, CampaignMode, CampaignStatus, Guarantee } from "../store/campaigns.js";
import type { Drawing } from "../store/drawings.js";
import type { Store } from "../store/index.js";
import { characterProblem } from "../lists/characters.js";
import { BadRequestError, ConflictError, NotFoundError } from "./errors.js";
import { newId } from "../store/ids.js";
import { ScheduleError, normalizeSchedule, upcomingOccurrences, type Cadence, type Schedule, type ScheduleInput } from "./schedule.js";
import { MAX_WINNERS_PER_DRAW } from "../lists/schemas.js";
import { PullUrlError, maskPullUrl, validatePullUrl } from "../pull/url.js";
import { announcePayoutChange, changedPayoutFields, checksummed, payoutAuditDetail, requirePayoutOwner } from "./payoutSettings.js";
import { OPERATOR, normalizeEmail, type Actor } from "./team.js";

/** Default large-prize threshold (spec, Limits): 500 dollars. */
export const DEFAULT_LARGE_PRIZE_THRESHOLD_CENTS = 50_000;
/** Default guarantee period (spec, Limits). */
export const DEFAULT_GUARANTEE_PERIOD_DAYS = 30;
/**
 * Winners per draw of a campaign whose list is sent (push) or fetched (pull): the largest legal list of this many
 * must fit one request body (MAX_LIST_BODY_BYTES). Entries campaigns draw their winners and keep MAX_WINNERS_PER_DRAW.
 */
export const MAX_LISTED_WINNERS_PER_DRAW = 1_000;
/** A slug is the campaign's onchain id: ASCII, at most 32 bytes (DESIGN.md section 4). */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

export type CampaignInput = {
  slug: string;
  name: string;
  mode: CampaignMode;
  schedule: ScheduleInput;
  winnersPerDraw?: number;
  payoutWallet?: string | null;
  largePrizeThresholdCents?: number;
  guarantee?: { amountCents: number; thresholdCents: number; periodDays?: number } | null;
  prizeTable?: PrizeTierInput[] | null;
  termsUrl?: string | null;
  privacyUrl?: string | null;
  pullUrl?: string | null;
};

function checkWinners(n: number, mode: CampaignMode): number {
  const max = mode === "entries" ? MAX_WINNERS_PER_DRAW : MAX_LISTED_WINNERS_PER_DRAW;
  const why = mode === "entries" ? "" : ` for a ${mode} campaign (its list must fit one request; entries campaigns take up to ${MAX_WINNERS_PER_DRAW})`;
  if (!Number.isInteger(n) || n < 1 || n > max) throw new BadRequestError(`winnersPerDraw must be an integer from 1 to ${max}${why}`);
  return n;
}

function checkWallet(wallet: string): string {
  // strict: an address in mixed case must match its EIP-55 checksum (a mistyped character is caught, not paid to).
  if (!/^0x[0-9a-fA-F]{40}$/.test(wallet) || /^0x0{40}$/i.test(wallet)) throw new BadRequestError("payoutWallet must be a non-zero 0x address of 40 hex digits");
  if (!isAddress(wallet, { strict: true })) throw new BadRequestError("payoutWallet does not match its checksum (EIP-55): check it for a mistyped character, or send it in lower case");
  return wallet.toLowerCase();
}

function checkCents(field: string, cents: number, min: number): number {
  if (!Number.isSafeInteger(cents) || cents < min) throw new BadRequestError(`${field} must be a whole number of cents, at least ${min}`);
  return cents;
}

/** A public link (terms, privacy): https, at most 2,048 characters, without a user name or password in it. */
export function checkHttpsUrl(field: string, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new BadRequestError(`${field} must be a URL`);
  }
  if (parsed.protocol !== "https:" || url.length > 2_048) throw new BadRequestError(`${field} must be an https URL of at most 2,048 characters`);
  if (parsed.username || parsed.password) throw new BadRequestError(`${field} must not carry a user name or password`);
  return url;
}

function checkGuarantee(g: NonNullable<CampaignInput["guarantee"]>): Guarantee {
  const periodDays = g.periodDays ?? DEFAULT_GUARANTEE_PERIOD_DAYS;
  if (!Number.isInteger(periodDays) || periodDays < 1 || periodDays > 366) throw new BadRequestError("guarantee.periodDays must be an integer from 1 to 366");
  return {
    amountCents: checkCents("guarantee.amountCents", g.amountCents, 1),
    thresholdCents: checkCents("guarantee.thresholdCents", g.thresholdCents, 1),
    periodDays,
  };
}

function schedule(input: ScheduleInput, now: Date): Schedule {
  try {
    return normalizeSchedule(input, now);
  } catch (error) {
    if (error instanceof ScheduleError) throw new BadRequestError(error.message);
    throw error;
  }
}

/** Where pull URLs may point: https only, unless the test environment allows http to loopback. */
export type PullUrlPolicy = { allowHttpLoopback: boolean };

function checkPullUrl(url: string, cadence: Cadence, policy: PullUrlPolicy): string {
  try {
    return validatePullUrl(url, cadence, policy.allowHttpLoopback);
  } catch (error) {
    if (error instanceof PullUrlError) throw new BadRequestError(error.message);
    throw error;
  }
}

/** A campaign's name: shown on its public page, so 1 to 100 characters with nothing hidden (lists/characters.ts). */
function checkName(name: string): void {
  if (name.trim().length === 0 || name.length > 100) throw new BadRequestError("name must be 1 to 100 characters");
  const hidden = characterProblem(name);
  if (hidden) throw new BadRequestError(`name ${hidden}`);
}

/** A custom table's id is its campaign's slug; versions count up from 1. This is the version the next publish makes. */
export async function nextTableVersion(store: Store, slug: string): Promise<number> {
  return (await store.prizeTables.latestVersion(slug)) + 1;
}

async function customTable(store: Store, slug: string, tiers: PrizeTierInput[]): Promise<PrizeTable> {
  try {
    return validatePrizeTable({ id: slug, version: await nextTableVersion(store, slug), tiers });
  } catch (error) {
    if (error instanceof PrizeTableError) throw new BadRequestError(`prizeTable: ${error.message}`);
    throw error;
  }
}

/** The name the audit log records for `actor`: the member's email, or `operator`. */
function auditName(actor: Actor): string {
  return actor.kind === "operator" ? "operator" : normalizeEmail(actor.email);
}

/**
 * Creates a draft campaign (the portal's job and the CLI's). A payout wallet, or a threshold other than the default,
 * is the owners' to set (payoutSettings.ts): a member creates a draft without them, and an owner sets them before it
 * is activated.
 */
export async function createCampaign(store: Store, accountId: string, input: CampaignInput, now: Date, policy: PullUrlPolicy = { allowHttpLoopback: false }, actor: Actor = OPERATOR): Promise<Campaign> {
  if (!SLUG.test(input.slug)) throw new BadRequestError("slug must be 1 to 32 characters: lowercase letters, digits and inner hyphens");
  checkName(input.name);
  if (input.mode === "pull" && !input.pullUrl) throw new BadRequestError("a pull campaign needs pullUrl");
  if (input.mode !== "pull" && input.pullUrl) throw new BadRequestError("pullUrl is only for pull campaigns");
  return store.tx(async () => {
    if (await store.campaigns.bySlug(input.slug)) throw new ConflictError("rejected", `slug ${input.slug} is taken`);
    await store.prizeTables.insert(DEFAULT_PRIZE_TABLE, now.toISOString());
    const table = input.prizeTable ? await customTable(store, input.slug, input.prizeTable) : DEFAULT_PRIZE_TABLE;
    await store.prizeTables.insert(table, now.toISOString());
    const campaign: Campaign = {
      id: newId("cmp"),
      accountId,
      slug: input.slug,
      name: input.name.trim(),
      mode: input.mode,
      status: "draft",
      schedule: schedule(input.schedule, now),
      winnersPerDraw: checkWinners(input.winnersPerDraw ?? 1, input.mode),
      payoutWallet: input.payoutWallet ? checkWallet(input.payoutWallet) : null,
      largePrizeThresholdCents: checkCents("largePrizeThresholdCents", input.largePrizeThresholdCents ?? DEFAULT_LARGE_PRIZE_THRESHOLD_CENTS, 1),
      guarantee: input.guarantee ? checkGuarantee(input.guarantee) : null,
      termsUrl: input.termsUrl ? checkHttpsUrl("termsUrl", input.termsUrl) : null,
      privacyUrl: input.privacyUrl ? checkHttpsUrl("privacyUrl", input.privacyUrl) : null,
      pullUrl: input.pullUrl ? checkPullUrl(input.pullUrl, input.schedule.cadence, policy) : null,
      tableId: table.id,
      tableVersion: table.version,
      clockOffsetMs: 0,
      onchainWallet: null,
      onchainThresholdCents: null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    const payout = changedPayoutFields({ payoutWallet: null, largePrizeThresholdCents: DEFAULT_LARGE_PRIZE_THRESHOLD_CENTS }, campaign);
    const by = (await requirePayoutOwner(store, accountId, actor, payout)) ?? auditName(actor);
    await store.campaigns.insert(campaign);
    await store.audit.record(by, "campaign.create", campaign.slug, {
      mode: campaign.mode,
      payoutWallet: checksummed(campaign.payoutWallet),
      largePrizeThresholdCents: campaign.largePrizeThresholdCents,
    });
    return campaign;
  });
}

export type CampaignAction = "activate" | "pause" | "resume" | "end";

/** The spec's campaign status table: from-state -> action -> to-state. */
const TRANSITIONS: Record<CampaignAction, Partial<Record<CampaignStatus, CampaignStatus>>> = {
  activate: { draft: "active" },
  pause: { active: "paused" },
  resume: { paused: "active" },
  end: { draft: "ended", active: "ended", paused: "ended" },
};

/** The campaign's own clock: real time plus its test-clock offset (0 outside the test environment). */
export function campaignNow(campaign: Campaign, realNow: Date = new Date()): Date {
  return new Date(realNow.getTime() + campaign.clockOffsetMs);
}

/**
 * Applies a status move. Pause and end remove upcoming drawings (their winners too); ending sets the end date
 * to now. A drawing already past its cutoff is not upcoming: it still draws (spec, "A campaign paused when a
 * list is already past its cutoff still draws that list"). Ending also removes, for good, the drawings whose
 * cutoff passed without a list (flagged): an ended campaign takes no list and no cutoff extension, so they could
 * never draw, and would stay open and hold its guarantee checks for ever. They were never committed
 * (no number), so nothing onchain refers to them.
 */
export async function transitionCampaign(store: Store, slug: string, action: CampaignAction, realNow: Date = new Date(), by: string = "operator"): Promise<Campaign> {
  return store.tx(async () => {
    const campaign = await store.campaigns.bySlug(slug);
    if (!campaign) throw new BadRequestError(`no campaign ${slug}`);
    const to = TRANSITIONS[action][campaign.status];
    if (!to) throw new ConflictError("invalid_transition", `cannot ${action} a campaign that is ${campaign.status}`);
    if (action === "activate" && !campaign.payoutWallet) throw new ConflictError("invalid_transition", "activate needs a payout wallet (campaign set --payout-wallet)");
    const now = campaignNow(campaign, realNow);
    const next: Campaign = { ...campaign, status: to, updatedAt: realNow.toISOString() };
    if (action === "pause" || action === "end") await store.drawings.deleteUpcoming(campaign.id, now.toISOString());
    if (action === "end") await store.drawings.deleteWithoutList(campaign.id, campaign.mode === "entries");
    // Guarantee periods do not count paused time (spec, Guarantee period): pauses are kept in the campaign's clock.
    if (action === "pause") await store.pauses.start(campaign.id, now.toISOString());
    if (action === "resume" || action === "end") await store.pauses.end(campaign.id, now.toISOString());
    if (action === "end") next.schedule = { ...campaign.schedule, endsAt: now.toISOString() };
    await store.campaigns.update(next);
    await store.audit.record(by, `campaign.${action}`, campaign.slug, { from: campaign.status, to });
    if (next.status === "active") await planDrawings(store, next, realNow);
    return next;
  });
}

export type CampaignSettings = {
  name?: string;
  payoutWallet?: string;
  winnersPerDraw?: number;
  endsAt?: string | null;
  pullUrl?: string;
  largePrizeThresholdCents?: number;
  /** While a draft only: the schedule's other fields (its drawings do not exist yet). */
  schedule?: Omit<ScheduleInput, "endsAt">;
  /** While a draft only: the guarantee is registered onchain with the campaign. */
  guarantee?: CampaignInput["guarantee"];
};

/** The names the audit log gives the settings, in the order it lists the changed ones. */
type SettingName = "name" | "winnersPerDraw" | "payoutWallet" | "largePrizeThresholdCents" | "guarantee" | "schedule" | "endsAt" | "pullUrl";

const SCHEDULE_FIELDS = ["cadence", "drawHour", "drawMinute", "drawWeekday", "drawDayOfMonth", "timezone", "cutoffMinutes", "startsAt"] as const;

/** The settings whose values differ between `before` and `after`: a value sent as it is stored is no change. */
function changedSettings(before: Campaign, after: Campaign): SettingName[] {
  const changed: SettingName[] = [];
  if (after.name !== before.name) changed.push("name");
  if (after.winnersPerDraw !== before.winnersPerDraw) changed.push("winnersPerDraw");
  changed.push(...changedPayoutFields(before, after));
  if (JSON.stringify(after.guarantee) !== JSON.stringify(before.guarantee)) changed.push("guarantee");
  if (SCHEDULE_FIELDS.some((f) => after.schedule[f] !== before.schedule[f])) changed.push("schedule");
  if (after.schedule.endsAt !== before.schedule.endsAt) changed.push("endsAt");
  if (after.pullUrl !== before.pullUrl) changed.push("pullUrl");
  return changed;
}

/**
 * Changes settings. A wallet can be changed, never removed; an earlier end date removes drawings after it. The
 * schedule (but its end date) and the guarantee change only while the campaign is a draft: once active, drawings
 * exist on the old schedule and the guarantee is registered onchain. The threshold may change at any time (the
 * keeper sets it onchain, as it does the wallet). The wallet and the threshold are the owners' (payoutSettings.ts):
 * a member who changes either is refused and nothing is stored; sent as they are, they are no change. Every input is
 * checked before anything is written. The audit row lists the settings that changed (none: no row), with the old
 * and new values of the payout settings; other values are left out (the pull URL is a secret).
 */
export async function updateCampaign(
  store: Store,
  slug: string,
  settings: CampaignSettings,
  realNow: Date = new Date(),
  policy: PullUrlPolicy = { allowHttpLoopback: false },
  actor: Actor = OPERATOR,
): Promise<Campaign> {
  return store.tx(async () => {
    const campaign = await store.campaigns.bySlug(slug);
    if (!campaign) throw new BadRequestError(`no campaign ${slug}`);
    if (campaign.status === "ended") throw new ConflictError("campaign_ended", "an ended campaign cannot change");
    const next: Campaign = { ...campaign, updatedAt: realNow.toISOString() };
    if (settings.name !== undefined) {
      checkName(settings.name);
      next.name = settings.name.trim();
    }
    if (settings.payoutWallet !== undefined) next.payoutWallet = checkWallet(settings.payoutWallet);
    if (settings.winnersPerDraw !== undefined) next.winnersPerDraw = checkWinners(settings.winnersPerDraw, campaign.mode);
    if (settings.largePrizeThresholdCents !== undefined) next.largePrizeThresholdCents = checkCents("largePrizeThresholdCents", settings.largePrizeThresholdCents, 1);
    const draftOnly = (field: string) => {
      if (campaign.status !== "draft") throw new ConflictError("invalid_transition", `${field} can change only while the campaign is a draft (it is ${campaign.status})`);
    };
    if (settings.guarantee !== undefined) {
      const wanted = settings.guarantee ? checkGuarantee(settings.guarantee) : null;
      const had = campaign.guarantee;
      const same = wanted === null || had === null ? wanted === had : wanted.amountCents === had.amountCents && wanted.thresholdCents === had.thresholdCents && wanted.periodDays === had.periodDays;
      if (!same) draftOnly("guarantee");
      next.guarantee = settings.guarantee ? checkGuarantee(settings.guarantee) : null;
    }
    if (settings.schedule !== undefined || settings.endsAt !== undefined) {
      const proposed = { ...campaign.schedule, ...(settings.schedule ?? {}), endsAt: settings.endsAt === undefined ? campaign.schedule.endsAt : settings.endsAt };
      // A running campaign's start date may lie in the past: check against its own start, as before.
      const checked = schedule(proposed, new Date(proposed.startsAt ?? campaign.schedule.startsAt));
      if (SCHEDULE_FIELDS.some((f) => checked[f] !== campaign.schedule[f])) draftOnly("schedule");
      next.schedule = checked;
    }
    if (settings.pullUrl !== undefined) {
      if (campaign.mode !== "pull") throw new BadRequestError("pullUrl is only for pull campaigns");
      next.pullUrl = checkPullUrl(settings.pullUrl, next.schedule.cadence, policy);
    } else if (next.pullUrl && next.schedule.cadence !== campaign.schedule.cadence) {
      next.pullUrl = checkPullUrl(next.pullUrl, next.schedule.cadence, policy);
    }
    const changed = changedSettings(campaign, next);
    if (changed.length === 0) return campaign;
    const payout = changedPayoutFields(campaign, next);
    const by = (await requirePayoutOwner(store, campaign.accountId, actor, payout)) ?? auditName(actor);
    const endsAt = next.schedule.endsAt;
    if (endsAt !== null && endsAt !== campaign.schedule.endsAt) await store.drawings.deleteOpenAfterDrawAt(campaign.id, endsAt);
    await store.campaigns.update(next);
    // At the change's own time: the audit row and the event's changedAt name the same instant.
    await store.audit.record(by, "campaign.set", campaign.slug, { fields: changed, ...payoutAuditDetail(campaign, next, payout) }, realNow.toISOString());
    await announcePayoutChange(store, campaign, next, payout, by, realNow);
    return next;
  });
}

/** Publishes a new version of the campaign's own table; every still-open drawing moves to it (spec rule 7). */
export async function publishCampaignTable(store: Store, slug: string, tiers: PrizeTierInput[], realNow: Date = new Date(), by: string = "operator"): Promise<PrizeTable> {
  return store.tx(async () => {
    const campaign = await store.campaigns.bySlug(slug);
    if (!campaign) throw new BadRequestError(`no campaign ${slug}`);
    if (campaign.status === "ended") throw new ConflictError("campaign_ended", "an ended campaign cannot change");
    const table = await customTable(store, slug, tiers);
    await store.prizeTables.insert(table, realNow.toISOString());
    await store.campaigns.update({ ...campaign, tableId: table.id, tableVersion: table.version, updatedAt: realNow.toISOString() });
    await store.drawings.retableOpen(campaign.id, table.id, table.version);
    await store.audit.record(by, "prize-table.publish", campaign.slug, { tableId: table.id, version: table.version });
    return table;
  });
}

/**
 * An active campaign whose end date passed ends once every drawing with a list is drawn (spec, Campaign status:
 * "end date passed, every drawing drawn"). It waits for locked, requested and settled drawings, for an open one
 * with a full list (the keeper locks it), and for one whose cutoff an operator extended past now (it may still get
 * its list); the drawings flagged without a list are then removed, as a manual end does. Returns whether it ended.
 */
export async function endIfFinished(store: Store, campaignId: string, realNow: Date = new Date()): Promise<boolean> {
  return store.tx(async () => {
    const campaign = await store.campaigns.byId(campaignId);
    if (!campaign || campaign.status !== "active" || !campaign.schedule.endsAt) return false;
    const now = campaignNow(campaign, realNow).toISOString();
    if (now < campaign.schedule.endsAt) return false;
    const entries = campaign.mode === "entries";
    for (const d of await store.drawings.unfinished(campaign.id)) {
      if (d.status !== "open" || d.cutoffAt > now) return false;
      if (entries ? d.entrantCount > 0 : (await store.drawings.winners(d.id)).length === d.winnersExpected) return false;
    }
    await store.drawings.deleteWithoutList(campaign.id, entries);
    await store.campaigns.update({ ...campaign, status: "ended", updatedAt: realNow.toISOString() });
    return true;
  });
}

/** A new drawing of `campaign` at one occurrence of its schedule, open for its list. */
export function openDrawing(campaign: Campaign, occurrence: { drawAt: Date; cutoffAt: Date }, id: string, createdAt: Date): Drawing {
  return {
    id,
    campaignId: campaign.id,
    drawAt: occurrence.drawAt.toISOString(),
    cutoffAt: occurrence.cutoffAt.toISOString(),
    status: "open",
    winnersExpected: campaign.winnersPerDraw,
    number: null,
    partnerRound: null,
    tableId: campaign.tableId,
    tableVersion: campaign.tableVersion,
    needsAttention: null,
    listSubmittedAt: null,
    lockedAt: null,
    winnersCommitment: null,
    entropyProvider: null,
    entropyRequestId: null,
    entropyValue: null,
    entropyRevealedAt: null,
    settledAt: null,
    paidAt: null,
    commitTx: null,
    revealTx: null,
    revealBlock: null,
    paidBlock: null,
    createdAt: createdAt.toISOString(),
    entrantCount: 0,
    totalWeight: 0,
    entrantsCommitment: null,
  };
}

/**
 * Creates the drawings that do not exist yet among those upcomingOccurrences names (every draw of the next 48
 * hours, and at least the next two however far ahead), each with the campaign's current winners per draw and
 * table (fixed at creation; the table moves with publications until the lock).
 */
export async function planDrawings(store: Store, campaign: Campaign, realNow: Date = new Date()): Promise<number> {
  if (campaign.status !== "active") return 0;
  let created = 0;
  const now = campaignNow(campaign, realNow);
  for (const occurrence of upcomingOccurrences(campaign.schedule, now)) {
    const drawing = openDrawing(campaign, occurrence, newId("drw"), realNow);
    if (await store.drawings.insertIfAbsent(drawing)) created++;
  }
  return created;
}

export type PublicLinks = { publicBaseUrl: string };

/**
 * The campaign's next drawing: the open one whose cutoff is next on its clock (the one taking lists or entries);
 * none unless the campaign is active. GET a campaign shows it, and the operator's campaign list.
 */
export async function nextDrawingOf(store: Store, campaign: Campaign, realNow: Date = new Date()): Promise<Drawing | null> {
  return campaign.status === "active" ? store.drawings.nextOpen(campaign.id, campaignNow(campaign, realNow).toISOString()) : null;
}

/** The spec's Campaign resource (GET /api/v1/campaigns/{slug}). */
export async function campaignView(store: Store, campaign: Campaign, links: PublicLinks, realNow: Date = new Date()) {
  const table = await store.prizeTables.get(campaign.tableId, campaign.tableVersion);
  if (!table) throw new Error(`prize table ${campaign.tableId} v${campaign.tableVersion} is missing`);
  const next = await nextDrawingOf(store, campaign, realNow);
  const nextTable = next ? await store.prizeTables.get(next.tableId, next.tableVersion) : null;
  return {
    slug: campaign.slug,
    name: campaign.name,
    status: campaign.status,
    mode: campaign.mode,
    page: `${links.publicBaseUrl}/campaigns/${campaign.slug}`,
    schedule: campaign.schedule,
    winnersPerDraw: campaign.winnersPerDraw,
    prizeTable: prizeTableView(table, campaign.winnersPerDraw),
    guarantee: campaign.guarantee,
    // The pull URL is a secret: owners see only its scheme and host.
    pullUrl: campaign.pullUrl ? maskPullUrl(campaign.pullUrl) : null,
    // Where the prizes are paid, as owners set it (checksummed: a mistyped character shows).
    payoutWallet: checksummed(campaign.payoutWallet),
    largePrizeThresholdCents: campaign.largePrizeThresholdCents,
    termsUrl: campaign.termsUrl ?? `${links.publicBaseUrl}/terms`,
    privacyUrl: campaign.privacyUrl ?? `${links.publicBaseUrl}/privacy`,
    nextDrawing:
      next && nextTable
        ? {
            id: next.id,
            drawAt: next.drawAt,
            cutoffAt: next.cutoffAt,
            winnersPerDraw: next.winnersExpected,
            averagePrizeCents: averagePrizeCents(nextTable, next.winnersExpected),
          }
        : null,
  };
}

/** The spec's Prize table object; `averagePrizeCents` is for `winners` winners (top-prize-once rule). */
export function prizeTableView(table: PrizeTable, winners: number) {
  return {
    id: table.id,
    version: table.version,
    denominator: table.denominator,
    tiers: table.tiers.map((t) => ({ amountCents: t.amountCents, weight: t.weight, odds: t.odds })),
    averagePrizeCents: averagePrizeCents(table, winners),
  };
}

/** GET /api/v1/campaigns: pages of this size by default, and at most this. */
export const CAMPAIGNS_DEFAULT_LIMIT = 20;
export const CAMPAIGNS_MAX_LIMIT = 100;

/** One page of GET /api/v1/campaigns: the campaigns as GET /campaigns/{slug} shows each, and the next page's key. */
export type CampaignPage = { campaigns: Awaited<ReturnType<typeof campaignView>>[]; next: string | null };

/**
 * The caller's campaigns, newest first, a page at a time: `after` is the previous page's `next` (the slug of its
 * last campaign; anything else is refused, so a mistyped key is not read as the first page), `status` keeps one
 * status. Keyset paging: a campaign created while a partner pages through never shifts a page.
 */
export async function listCampaigns(
  store: Store,
  accountId: string,
  page: { limit: number; after: string | null; status: CampaignStatus | null },
  links: PublicLinks,
  realNow: Date = new Date(),
): Promise<CampaignPage> {
  let after: Campaign | null = null;
  if (page.after !== null) {
    after = await store.campaigns.bySlug(page.after);
    if (!after || after.accountId !== accountId) throw new BadRequestError("after must be the previous response's next");
  }
  const rows = await store.campaigns.pageOfAccount(accountId, { limit: page.limit + 1, after, status: page.status });
  const shown = rows.slice(0, page.limit);
  const campaigns: CampaignPage["campaigns"] = [];
  for (const campaign of shown) campaigns.push(await campaignView(store, campaign, links, realNow));
  return { campaigns, next: rows.length > page.limit ? (shown.at(-1)?.slug ?? null) : null };
}

/** The account's campaign, or 404 exactly like a missing one (spec, Authentication 7): every door checks with this. */
export async function ownCampaign(store: Store, accountId: string, slug: string): Promise<Campaign> {
  const campaign = await store.campaigns.bySlug(slug);
  if (!campaign || campaign.accountId !== accountId) throw new NotFoundError(`no campaign ${slug.slice(0, 64)}`);
  return campaign;
}
