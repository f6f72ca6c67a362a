import type { Selectable } from "kysely";
import type { Connection } from "./connection.js";
import type { CampaignsTable } from "./schema.js";

/** How often a campaign draws (its schedule rules live in domain/schedule.ts). */
export type Cadence = "hourly" | "daily" | "weekly" | "monthly";

/** A campaign's schedule as stored (domain/schedule.ts checks it and turns it into draw instants). */
export type Schedule = {
  cadence: Cadence;
  /** 0-23, local time in `timezone`; 0 for hourly (unused there). */
  drawHour: number;
  /** 0-59. */
  drawMinute: number;
  /** 0 (Sunday) - 6 (Saturday): weekly only, else null. */
  drawWeekday: number | null;
  /** 1-31: monthly only, else null; months shorter than it use their last day. */
  drawDayOfMonth: number | null;
  /** IANA zone, e.g. "Europe/Berlin". */
  timezone: string;
  /** Lists close this many minutes before each draw. */
  cutoffMinutes: number;
  /** ISO 8601 UTC with milliseconds, e.g. "2026-11-25T00:00:00.000Z". */
  startsAt: string;
  /** ISO 8601 UTC with milliseconds, or null. */
  endsAt: string | null;
};

export type CampaignMode = "push" | "pull" | "entries";
export type CampaignStatus = "draft" | "active" | "paused" | "ended";
export const CAMPAIGN_STATUSES: readonly CampaignStatus[] = ["draft", "active", "paused", "ended"];
export type Guarantee = { amountCents: number; thresholdCents: number; periodDays: number };

export type Campaign = {
  id: string;
  accountId: string;
  slug: string;
  name: string;
  mode: CampaignMode;
  status: CampaignStatus;
  schedule: Schedule;
  winnersPerDraw: number;
  payoutWallet: string | null;
  largePrizeThresholdCents: number;
  guarantee: Guarantee | null;
  termsUrl: string | null;
  privacyUrl: string | null;
  pullUrl: string | null;
  tableId: string;
  tableVersion: number;
  /** Test environment: how far this campaign's clock runs ahead of real time. */
  clockOffsetMs: number;
  /** What the chain has (set by the keeper after registering or changing it onchain). */
  onchainWallet: string | null;
  onchainThresholdCents: number | null;
  createdAt: string;
  updatedAt: string;
};

type Record_ = Selectable<CampaignsTable>;

function fromRecord(r: Record_): Campaign {
  return {
    id: r.id,
    accountId: r.account_id,
    slug: r.slug,
    name: r.name,
    mode: r.mode,
    status: r.status,
    schedule: JSON.parse(r.schedule_json) as Schedule,
    winnersPerDraw: r.winners_per_draw,
    payoutWallet: r.payout_wallet,
    largePrizeThresholdCents: r.large_prize_threshold_cents,
    guarantee: r.guarantee_json ? (JSON.parse(r.guarantee_json) as Guarantee) : null,
    termsUrl: r.terms_url,
    privacyUrl: r.privacy_url,
    pullUrl: r.pull_url,
    tableId: r.table_id,
    tableVersion: r.table_version,
    clockOffsetMs: r.clock_offset_ms,
    onchainWallet: r.onchain_wallet,
    onchainThresholdCents: r.onchain_threshold_cents,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toRecord(c: Campaign): Record_ {
  return {
    id: c.id,
    account_id: c.accountId,
    slug: c.slug,
    name: c.name,
    mode: c.mode,
    status: c.status,
    schedule_json: JSON.stringify(c.schedule),
    winners_per_draw: c.winnersPerDraw,
    payout_wallet: c.payoutWallet,
    large_prize_threshold_cents: c.largePrizeThresholdCents,
    guarantee_json: c.guarantee ? JSON.stringify(c.guarantee) : null,
    terms_url: c.termsUrl,
    privacy_url: c.privacyUrl,
    pull_url: c.pullUrl,
    table_id: c.tableId,
    table_version: c.tableVersion,
    clock_offset_ms: c.clockOffsetMs,
    onchain_wallet: c.onchainWallet,
    onchain_threshold_cents: c.onchainThresholdCents,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

/** Campaigns, one row each; the whole row is written at once (the domain decides what changes). */
export class CampaignStore {
  constructor(private readonly conn: Connection) {}

  async insert(c: Campaign): Promise<void> {
    await this.conn.q().insertInto("campaigns").values(toRecord(c)).execute();
  }

  async update(c: Campaign): Promise<void> {
    const { id, ...columns } = toRecord(c);
    await this.conn.q().updateTable("campaigns").set(columns).where("id", "=", id).execute();
  }

  async bySlug(slug: string): Promise<Campaign | null> {
    const r = await this.conn.q().selectFrom("campaigns").selectAll().where("slug", "=", slug).executeTakeFirst();
    return r ? fromRecord(r) : null;
  }

  async byId(id: string): Promise<Campaign | null> {
    const r = await this.conn.q().selectFrom("campaigns").selectAll().where("id", "=", id).executeTakeFirst();
    return r ? fromRecord(r) : null;
  }

  /** Every account's campaigns, newest first (the operator's list). */
  async all(): Promise<Campaign[]> {
    const rows = await this.conn.q().selectFrom("campaigns").selectAll().orderBy("created_at", "desc").orderBy("id", "desc").execute();
    return rows.map(fromRecord);
  }

  /** An account's campaigns, newest first. */
  async ofAccount(accountId: string): Promise<Campaign[]> {
    const rows = await this.conn.q().selectFrom("campaigns").selectAll().where("account_id", "=", accountId).orderBy("created_at", "desc").orderBy("id", "desc").execute();
    return rows.map(fromRecord);
  }

  /**
   * A page of an account's campaigns, newest first (as `ofAccount`): at most `limit`, those created before the
   * campaign `after` (keyset paging: a campaign created meanwhile never shifts a page), of one status when given.
   */
  async pageOfAccount(accountId: string, page: { limit: number; after: Pick<Campaign, "createdAt" | "id"> | null; status: CampaignStatus | null }): Promise<Campaign[]> {
    let query = this.conn.q().selectFrom("campaigns").selectAll().where("account_id", "=", accountId);
    if (page.status !== null) query = query.where("status", "=", page.status);
    const after = page.after;
    if (after !== null) {
      query = query.where((eb) => eb.or([eb("created_at", "<", after.createdAt), eb.and([eb("created_at", "=", after.createdAt), eb("id", "<", after.id)])]));
    }
    const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(page.limit).execute();
    return rows.map(fromRecord);
  }

  /** Campaigns the keeper looks after: every one but drafts. */
  async drawable(): Promise<Campaign[]> {
    const rows = await this.conn.q().selectFrom("campaigns").selectAll().where("status", "!=", "draft").orderBy("created_at").orderBy("id").execute();
    return rows.map(fromRecord);
  }
}
