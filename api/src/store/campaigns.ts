import type { Schedule } from "../domain/schedule.js";
import type { Connection } from "./connection.js";
import type { Db } from "./db.js";

export type CampaignMode = "push" | "pull" | "entries";
export type CampaignStatus = "draft" | "active" | "paused" | "ended";
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

type Record_ = {
  id: string;
  account_id: string;
  slug: string;
  name: string;
  mode: CampaignMode;
  status: CampaignStatus;
  schedule_json: string;
  winners_per_draw: number;
  payout_wallet: string | null;
  large_prize_threshold_cents: number;
  guarantee_json: string | null;
  terms_url: string | null;
  privacy_url: string | null;
  pull_url: string | null;
  table_id: string;
  table_version: number;
  clock_offset_ms: number;
  onchain_wallet: string | null;
  onchain_threshold_cents: number | null;
  created_at: string;
  updated_at: string;
};

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

function toParams(c: Campaign) {
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

const COLUMNS: readonly (keyof ReturnType<typeof toParams>)[] = [
  "id", "account_id", "slug", "name", "mode", "status", "schedule_json", "winners_per_draw", "payout_wallet",
  "large_prize_threshold_cents", "guarantee_json", "terms_url", "privacy_url", "pull_url", "table_id", "table_version",
  "clock_offset_ms", "onchain_wallet", "onchain_threshold_cents", "created_at", "updated_at",
];

/** Campaigns, one row each; the whole row is written at once (the domain decides what changes). */
export class CampaignStore {
  constructor(private readonly conn: Connection) {}

  private get db(): Db {
    return this.conn.db;
  }

  insert(c: Campaign): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare(`INSERT INTO campaigns (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((k) => `@${k}`).join(", ")})`).run(toParams(c));
    });
  }

  update(c: Campaign): Promise<void> {
    return this.conn.run(() => {
      this.db.prepare(`UPDATE campaigns SET ${COLUMNS.filter((k) => k !== "id").map((k) => `${k} = @${k}`).join(", ")} WHERE id = @id`).run(toParams(c));
    });
  }

  bySlug(slug: string): Promise<Campaign | null> {
    return this.conn.run(() => {
      const r = this.db.prepare("SELECT * FROM campaigns WHERE slug = ?").get(slug) as Record_ | undefined;
      return r ? fromRecord(r) : null;
    });
  }

  byId(id: string): Promise<Campaign | null> {
    return this.conn.run(() => {
      const r = this.db.prepare("SELECT * FROM campaigns WHERE id = ?").get(id) as Record_ | undefined;
      return r ? fromRecord(r) : null;
    });
  }

  /** An account's campaigns, newest first. */
  ofAccount(accountId: string): Promise<Campaign[]> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT * FROM campaigns WHERE account_id = ? ORDER BY created_at DESC").all(accountId) as Record_[]).map(fromRecord);
    });
  }

  /** Campaigns the keeper looks after: every one but drafts. */
  drawable(): Promise<Campaign[]> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT * FROM campaigns WHERE status != 'draft' ORDER BY created_at").all() as Record_[]).map(fromRecord);
    });
  }
}
