import type { Generated } from "kysely";

// The store's tables as the query builder sees them: one row type per table, column names as in the database. The
// tables themselves are made by the migrations (store/migrations.ts): SQLite's history and PostgreSQL's baseline,
// which a test keeps equal. Times are ISO-8601 text and JSON is text in both engines (so a value reads back the
// same from either); integers are numbers (PostgreSQL's bigint columns are read as numbers: store/engines.ts).

export type ServiceMetaTable = { key: string; value: string };

export type AccountsTable = { id: string; created_at: string };

export type MembersTable = { id: string; account_id: string; email: string; role: "owner" | "member"; created_at: string };

export type ApiKeysTable = {
  key_id: string;
  account_id: string;
  environment: "test" | "production";
  secret_hash: string;
  last4: string;
  created_by: string | null;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
};

export type PrizeTablesTable = { table_id: string; version: number; tiers_json: string; denominator: number; created_at: string };

export type CampaignsTable = {
  id: string;
  account_id: string;
  slug: string;
  name: string;
  mode: "push" | "pull" | "entries";
  status: "draft" | "active" | "paused" | "ended";
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
  clock_offset_ms: Generated<number>;
  onchain_wallet: string | null;
  onchain_threshold_cents: number | null;
  created_at: string;
  updated_at: string;
};

export type DrawingsTable = {
  id: string;
  campaign_id: string;
  draw_at: string;
  cutoff_at: string;
  status: "open" | "locked" | "entropy_requested" | "settled" | "paid";
  winners_expected: number;
  number: number | null;
  partner_round: number | null;
  table_id: string;
  table_version: number;
  needs_attention: string | null;
  list_submitted_at: string | null;
  locked_at: string | null;
  winners_commitment: string | null;
  entropy_provider: string | null;
  entropy_request_id: string | null;
  entropy_value: string | null;
  entropy_revealed_at: string | null;
  settled_at: string | null;
  paid_at: string | null;
  commit_tx: string | null;
  reveal_tx: string | null;
  created_at: string;
  entrant_count: Generated<number>;
  total_weight: Generated<number>;
  entrants_commitment: string | null;
  reveal_block: number | null;
  paid_block: number | null;
};

export type WinnersTable = {
  drawing_id: string;
  position: number;
  winner_id: string;
  display_name: string | null;
  avatar_url: string | null;
  random_value: string | null;
  roll: number | null;
  amount_cents: number | null;
  held: number | null;
  held_status: "open" | "paid" | "refused" | null;
  held_reason: string | null;
  held_block: number | null;
};

export type AuditLogTable = { id: string; at: string; actor: string; action: string; subject: string | null; detail_json: string | null };

export type EntriesTable = {
  seq: Generated<number>;
  drawing_id: string;
  entrant_id: string;
  weight: number;
  display_name: string | null;
  avatar_url: string | null;
  position: number | null;
};

export type PullFetchesTable = {
  id: Generated<number>;
  drawing_id: string;
  at: string;
  outcome: "stored" | "unchanged" | "not_ready" | "invalid" | "error";
  reason: string | null;
};

export type StaffAlertsTable = { id: Generated<number>; at: string; kind: string; campaign_slug: string; drawing_id: string | null; detail: string };

export type CampaignPausesTable = { id: Generated<number>; campaign_id: string; paused_at: string; resumed_at: string | null };

export type GuaranteesTable = {
  id: string;
  campaign_id: string;
  period: number;
  period_start: string;
  period_end: string;
  status: "not_needed" | "awaiting_pick" | "picked" | "paid";
  amount_cents: number;
  threshold_cents: number;
  picked_winner: string | null;
  picked_drawing_id: string | null;
  picked_at: string | null;
  payout_id: string | null;
  pick_tx: string | null;
  paid_at: string | null;
  created_at: string;
  paid_block: number | null;
};

export type ChainFinalityTable = { id: number; finalized_block: number; read_at: string };

export type PortalLinksTable = {
  token_hash: string;
  email: string;
  purpose: "sign_in" | "invite";
  account_id: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
};

export type PortalSessionsTable = {
  id_hash: string;
  email: string;
  account_id: string;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  ended_at: string | null;
};

export type PortalAttemptsTable = { key: string; at: string };

export type MailOutboxTable = { id: Generated<number>; to_address: string; subject: string; body: string; created_at: string };

export type CampaignLogosTable = { campaign_id: string; bytes: Buffer; content_type: "image/png" | "image/jpeg" | "image/webp"; etag: string; updated_at: string };

export type IdempotencyKeysTable = { account_id: string; key: string; request_hash: string; status: number | null; body: string | null; created_at: string };

export type WebhookEndpointsTable = {
  id: string;
  account_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_expires_at: string | null;
  created_at: string;
  deleted_at: string | null;
};

export type WebhookEventsTable = { seq: Generated<number>; id: string; account_id: string; type: string; subject_id: string; body: string; created_at: string };

export type WebhookDeliveriesTable = {
  id: Generated<number>;
  event_seq: number;
  endpoint_id: string;
  subject_id: string;
  status: "pending" | "delivered" | "failed";
  attempts: Generated<number>;
  next_attempt_at: string | null;
  give_up_at: string;
  delivered_at: string | null;
};

export type WebhookAttemptsTable = {
  id: Generated<number>;
  delivery_id: number;
  at: string;
  http_status: number | null;
  error: string | null;
  duration_ms: number;
  response_snippet: string | null;
};

export type PublicVersionsTable = { campaign_id: string; version: number };

export type LeasesTable = { name: string; holder: string; expires_at: number; acquired_at: number };

export type AlertsTable = {
  id: Generated<number>;
  key: string;
  kind: string;
  severity: "critical" | "warning";
  summary: string;
  detail: string;
  campaign_slug: string | null;
  drawing_id: string | null;
  opened_at: string;
  last_notified_at: string;
  reminders: Generated<number>;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  resolved_at: string | null;
};

export type AlertNoticesTable = {
  id: Generated<number>;
  alert_id: number;
  event_id: string;
  type: "alert.opened" | "alert.reminder" | "alert.resolved";
  body: string;
  created_at: string;
  mail: "pending" | "sent" | "failed" | "off";
  webhook: "pending" | "sent" | "failed" | "off";
  webhook_attempts: Generated<number>;
  last_error: string | null;
};

export type SchemaMigrationsTable = { version: number; name: string; applied_at: string };

/** Every table of the store. */
export type Database = {
  service_meta: ServiceMetaTable;
  schema_migrations: SchemaMigrationsTable;
  accounts: AccountsTable;
  members: MembersTable;
  api_keys: ApiKeysTable;
  prize_tables: PrizeTablesTable;
  campaigns: CampaignsTable;
  drawings: DrawingsTable;
  winners: WinnersTable;
  audit_log: AuditLogTable;
  entries: EntriesTable;
  pull_fetches: PullFetchesTable;
  staff_alerts: StaffAlertsTable;
  campaign_pauses: CampaignPausesTable;
  guarantees: GuaranteesTable;
  chain_finality: ChainFinalityTable;
  portal_links: PortalLinksTable;
  portal_sessions: PortalSessionsTable;
  portal_attempts: PortalAttemptsTable;
  mail_outbox: MailOutboxTable;
  campaign_logos: CampaignLogosTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  public_versions: PublicVersionsTable;
  leases: LeasesTable;
  alerts: AlertsTable;
  alert_notices: AlertNoticesTable;
};
