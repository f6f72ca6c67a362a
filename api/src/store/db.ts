import type Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { loadSqliteDriver } from "./sqliteDriver.js";

export type Db = Database.Database;

/** A schema change: applied once, in order, inside a transaction. */
export type Migration = { version: number; name: string; sql: string };

/** Migrations in code, applied in order. Never edit an applied migration: add the next version. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "service metadata", sql: "CREATE TABLE service_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;" },
  {
    version: 2,
    name: "accounts, keys, campaigns, prize tables, drawings, winners, audit log",
    sql: `
CREATE TABLE accounts (id TEXT PRIMARY KEY, created_at TEXT NOT NULL) STRICT;
CREATE TABLE members (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  email TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'member')),
  created_at TEXT NOT NULL,
  UNIQUE (account_id, email)
) STRICT;
-- Only the SHA-256 of a key's secret is stored; key_id (public, in the key) finds the row.
CREATE TABLE api_keys (
  key_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  environment TEXT NOT NULL CHECK (environment IN ('test', 'production')),
  secret_hash TEXT NOT NULL,
  last4 TEXT NOT NULL,
  created_by TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT
) STRICT;
-- Table versions: "default" is the service's; a custom table's id is its campaign's slug.
CREATE TABLE prize_tables (
  table_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  tiers_json TEXT NOT NULL,
  denominator INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (table_id, version)
) STRICT;
CREATE TABLE campaigns (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('push', 'pull', 'entries')),
  status TEXT NOT NULL CHECK (status IN ('draft', 'active', 'paused', 'ended')),
  schedule_json TEXT NOT NULL,
  winners_per_draw INTEGER NOT NULL,
  payout_wallet TEXT,
  large_prize_threshold_cents INTEGER NOT NULL,
  guarantee_json TEXT,
  terms_url TEXT,
  privacy_url TEXT,
  pull_url TEXT,
  table_id TEXT NOT NULL,
  table_version INTEGER NOT NULL,
  clock_offset_ms INTEGER NOT NULL DEFAULT 0,
  onchain_wallet TEXT,
  onchain_threshold_cents INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  FOREIGN KEY (table_id, table_version) REFERENCES prize_tables(table_id, version)
) STRICT;
CREATE INDEX campaigns_account ON campaigns(account_id);
CREATE TABLE drawings (
  id TEXT PRIMARY KEY,
  campaign_id TEXT NOT NULL REFERENCES campaigns(id),
  draw_at TEXT NOT NULL,
  cutoff_at TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open', 'locked', 'entropy_requested', 'settled', 'paid')),
  winners_expected INTEGER NOT NULL,
  number INTEGER,
  partner_round INTEGER,
  table_id TEXT NOT NULL,
  table_version INTEGER NOT NULL,
  needs_attention TEXT,
  list_submitted_at TEXT,
  locked_at TEXT,
  winners_commitment TEXT,
  entropy_provider TEXT,
  entropy_request_id TEXT,
  entropy_value TEXT,
  entropy_revealed_at TEXT,
  settled_at TEXT,
  paid_at TEXT,
  commit_tx TEXT,
  reveal_tx TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (campaign_id, draw_at),
  UNIQUE (campaign_id, number)
) STRICT;
CREATE INDEX drawings_campaign_status ON drawings(campaign_id, status, cutoff_at);
CREATE TABLE winners (
  drawing_id TEXT NOT NULL REFERENCES drawings(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  winner_id TEXT NOT NULL,
  display_name TEXT,
  avatar_url TEXT,
  random_value TEXT,
  roll INTEGER,
  amount_cents INTEGER,
  held INTEGER,
  PRIMARY KEY (drawing_id, position)
) STRICT;
CREATE TABLE audit_log (
  id TEXT PRIMARY KEY,
  at TEXT NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  subject TEXT,
  detail_json TEXT
) STRICT;
`,
  },
  {
    version: 3,
    name: "entries (entrants of entries campaigns) and drawing entrant totals",
    sql: `
-- seq is the arrival order: positions at the lock follow it.
CREATE TABLE entries (
  seq INTEGER PRIMARY KEY,
  drawing_id TEXT NOT NULL REFERENCES drawings(id) ON DELETE CASCADE,
  entrant_id TEXT NOT NULL,
  weight INTEGER NOT NULL,
  display_name TEXT,
  avatar_url TEXT,
  position INTEGER,
  UNIQUE (drawing_id, entrant_id)
) STRICT;
ALTER TABLE drawings ADD COLUMN entrant_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE drawings ADD COLUMN total_weight INTEGER NOT NULL DEFAULT 0;
ALTER TABLE drawings ADD COLUMN entrants_commitment TEXT;
`,
  },
  {
    version: 4,
    name: "pull fetch history and staff alerts",
    sql: `
-- One row per fetch of a pull campaign's URL (the URL itself is never stored here); at is the campaign clock.
CREATE TABLE pull_fetches (
  id INTEGER PRIMARY KEY,
  drawing_id TEXT NOT NULL REFERENCES drawings(id) ON DELETE CASCADE,
  at TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('stored', 'unchanged', 'not_ready', 'invalid', 'error')),
  reason TEXT
) STRICT;
CREATE INDEX pull_fetches_drawing ON pull_fetches(drawing_id, id);
-- Alerts for service staff (listed with prizedraw alerts list); one per kind and drawing.
CREATE TABLE staff_alerts (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  kind TEXT NOT NULL,
  campaign_slug TEXT NOT NULL,
  drawing_id TEXT,
  detail TEXT NOT NULL,
  UNIQUE (kind, drawing_id)
) STRICT;
`,
  },
  {
    version: 5,
    name: "campaign pauses and guarantee periods",
    sql: `
-- Pauses in the campaign's clock (paused time does not count towards a guarantee period); resumed_at is set
-- on resume or end, and is null while the pause lasts.
CREATE TABLE campaign_pauses (
  id INTEGER PRIMARY KEY,
  campaign_id TEXT NOT NULL REFERENCES campaigns(id),
  paused_at TEXT NOT NULL,
  resumed_at TEXT
) STRICT;
CREATE INDEX campaign_pauses_campaign ON campaign_pauses(campaign_id, paused_at);
-- One row per checked guarantee period; the current, unchecked period has none.
CREATE TABLE guarantees (
  id TEXT PRIMARY KEY,
  campaign_id TEXT NOT NULL REFERENCES campaigns(id),
  period INTEGER NOT NULL,
  period_start TEXT NOT NULL,
  period_end TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('not_needed', 'awaiting_pick', 'picked', 'paid')),
  amount_cents INTEGER NOT NULL,
  threshold_cents INTEGER NOT NULL,
  picked_winner TEXT,
  picked_drawing_id TEXT,
  picked_at TEXT,
  payout_id TEXT UNIQUE,
  pick_tx TEXT,
  paid_at TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (campaign_id, period)
) STRICT;
CREATE INDEX guarantees_campaign_status ON guarantees(campaign_id, status);
`,
  },
  {
    version: 6,
    name: "held prizes: paid or refused onchain, with the reason",
    sql: `
-- held_status is 'open' for a held prize until the operator pays or refuses it onchain; null when not held.
ALTER TABLE winners ADD COLUMN held_status TEXT CHECK (held_status IN ('open', 'paid', 'refused'));
ALTER TABLE winners ADD COLUMN held_reason TEXT;
UPDATE winners SET held_status = 'open' WHERE held = 1;
`,
  },
  {
    version: 7,
    name: "finality: the blocks of each onchain step, and the chain's finalized block",
    sql: `
-- The block of the reveal and of the payout (drawings), of the guarantee's payment, and of an operator's held-prize
-- decision: a step is final once its block is at or below the chain's finalized block; until then a reorg can drop
-- it and the keeper checks it against the chain (see keeper.ts, recheckUnfinal).
ALTER TABLE drawings ADD COLUMN reveal_block INTEGER;
ALTER TABLE drawings ADD COLUMN paid_block INTEGER;
ALTER TABLE guarantees ADD COLUMN paid_block INTEGER;
ALTER TABLE winners ADD COLUMN held_block INTEGER;
-- One row: the latest finalized block number the keeper read from the chain.
CREATE TABLE chain_finality (id INTEGER PRIMARY KEY CHECK (id = 1), finalized_block INTEGER NOT NULL, read_at TEXT NOT NULL) STRICT;
`,
  },
  {
    version: 8,
    name: "portal: emailed sign-in links, sessions, sign-in attempts, the test environment's mail outbox",
    sql: `
-- Links are stored only as the SHA-256 of their token; a link is used once (used_at) and expires.
CREATE TABLE portal_links (
  token_hash TEXT PRIMARY KEY,
  email TEXT NOT NULL,
  purpose TEXT NOT NULL CHECK (purpose IN ('sign_in', 'invite')),
  account_id TEXT REFERENCES accounts(id),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
) STRICT;
-- Sessions are rows (the cookie holds a random id, stored here only as its SHA-256): ended at sign-out, idle and
-- absolute expiry checked on every request.
CREATE TABLE portal_sessions (
  id_hash TEXT PRIMARY KEY,
  email TEXT NOT NULL,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  csrf_token TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  ended_at TEXT
) STRICT;
CREATE INDEX portal_sessions_email ON portal_sessions(email);
-- One row per sign-in request, keyed 'email:<address>' or 'client:<address>', for the rate limits.
CREATE TABLE portal_attempts (key TEXT NOT NULL, at TEXT NOT NULL) STRICT;
CREATE INDEX portal_attempts_key_at ON portal_attempts(key, at);
-- Test environment without SMTP_URL only: mail the service would have sent (shown at /portal/outbox).
CREATE TABLE mail_outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, to_address TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL) STRICT;
-- When each API key last authenticated a request (shown to owners; written at most once a minute per key).
ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
-- A campaign's logo, shown on its public page (owners upload it in the portal): PNG, JPEG or WebP only, served
-- back with its stored type.
CREATE TABLE campaign_logos (
  campaign_id TEXT PRIMARY KEY REFERENCES campaigns(id),
  bytes BLOB NOT NULL,
  content_type TEXT NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
  etag TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
`,
  },
  {
    version: 9,
    name: "idempotency keys: the first answer to a POST, replayed for 24 hours",
    sql: `
-- One row per (account, Idempotency-Key): the request's method, path and body hash, and once answered its status
-- and body. A row without an answer is a request still running (or one that failed with a 5xx: deleted then).
CREATE TABLE idempotency_keys (
  account_id TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  status INTEGER,
  body TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (account_id, key)
) STRICT;
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
`,
  },
  {
    version: 10,
    name: "webhooks: endpoints, the event outbox, deliveries and their attempts",
    sql: `
-- An account's webhook endpoints. The signing secret is stored as is (unlike API keys, kept only as a hash):
-- Standard Webhooks signs with HMAC-SHA256, and the sender needs the key itself to compute every signature, so
-- a hash would be useless. It is shown once (create, rotate) and never listed or logged. After a rotation the
-- previous secret still signs (a second signature) until previous_expires_at. A deleted endpoint keeps its row
-- (deleted_at) so its delivery history stays readable.
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  url TEXT NOT NULL,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_expires_at TEXT,
  created_at TEXT NOT NULL,
  deleted_at TEXT
) STRICT;
CREATE INDEX webhook_endpoints_account ON webhook_endpoints(account_id);
-- The outbox: one row per event, written in the transaction of the change that caused it (so no event is lost
-- and none is sent for a change that was rolled back). body is the exact JSON sent, a snapshot taken then; seq
-- orders the events of one drawing or guarantee (subject_id).
CREATE TABLE webhook_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  type TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
-- One row per event and endpoint. pending until a 2xx (delivered) or until give_up_at passes (failed).
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY,
  event_seq INTEGER NOT NULL REFERENCES webhook_events(seq),
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id),
  subject_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  give_up_at TEXT NOT NULL,
  delivered_at TEXT,
  UNIQUE (event_seq, endpoint_id)
) STRICT;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE INDEX webhook_deliveries_lane ON webhook_deliveries(endpoint_id, subject_id, status, event_seq);
-- One row per HTTP attempt: the status or the error, the time taken, and at most a short snippet of the answer.
CREATE TABLE webhook_attempts (
  id INTEGER PRIMARY KEY,
  delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries(id),
  at TEXT NOT NULL,
  http_status INTEGER,
  error TEXT,
  duration_ms INTEGER NOT NULL,
  response_snippet TEXT
) STRICT;
CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id, id);
`,
  },
  {
    version: 11,
    name: "public versions: a counter per campaign, bumped by triggers when what its public reads show may change",
    sql: `
-- The public reads (the campaign page, draws.json, proof.json) are rendered once per version (http/publicCache.ts).
-- Triggers bump it in the writing transaction, whoever writes (the service, the keeper, the CLI in another
-- process): a campaign's settings, clock, status, names and links; its drawings; their winners; its logo.
CREATE TABLE public_versions (
  campaign_id TEXT PRIMARY KEY REFERENCES campaigns(id),
  version INTEGER NOT NULL
) STRICT;
INSERT INTO public_versions (campaign_id, version) SELECT id, 1 FROM campaigns;
CREATE TRIGGER public_version_campaign_insert AFTER INSERT ON campaigns BEGIN
  INSERT INTO public_versions (campaign_id, version) VALUES (NEW.id, 1) ON CONFLICT (campaign_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER public_version_campaign_update AFTER UPDATE ON campaigns BEGIN
  UPDATE public_versions SET version = version + 1 WHERE campaign_id = NEW.id;
END;
CREATE TRIGGER public_version_drawing_insert AFTER INSERT ON drawings BEGIN
  UPDATE public_versions SET version = version + 1 WHERE campaign_id = NEW.campaign_id;
END;
CREATE TRIGGER public_version_drawing_update AFTER UPDATE ON drawings BEGIN
  UPDATE public_versions SET version = version + 1 WHERE campaign_id = NEW.campaign_id;
END;
CREATE TRIGGER public_version_drawing_delete AFTER DELETE ON drawings BEGIN
  UPDATE public_versions SET version = version + 1 WHERE campaign_id = OLD.campaign_id;
END;
CREATE TRIGGER public_version_winner_insert AFTER INSERT ON winners BEGIN
  UPDATE public_versions SET version = version + 1 WHERE campaign_id = (SELECT campaign_id FROM drawings WHERE id = NEW.drawing_id);
END;
CREATE TRIGGER public_version_winner_update AFTER UPDATE ON winners BEGIN
  UPDATE public_versions SET version = version + 1 WHERE campaign_id = (SELECT campaign_id FROM drawings WHERE id = NEW.drawing_id);
END;
CREATE TRIGGER public_version_winner_delete AFTER DELETE ON winners BEGIN
  UPDATE public_versions SET version = version + 1 WHERE campaign_id = (SELECT campaign_id FROM drawings WHERE id = OLD.drawing_id);
END;
CREATE TRIGGER public_version_logo_insert AFTER INSERT ON campaign_logos BEGIN
  UPDATE public_versions SET version = version + 1 WHERE campaign_id = NEW.campaign_id;
END;
CREATE TRIGGER public_version_logo_update AFTER UPDATE ON campaign_logos BEGIN
  UPDATE public_versions SET version = version + 1 WHERE campaign_id = NEW.campaign_id;
END;
CREATE TRIGGER public_version_logo_delete AFTER DELETE ON campaign_logos BEGIN
  UPDATE public_versions SET version = version + 1 WHERE campaign_id = OLD.campaign_id;
END;
`,
  },
  {
    version: 12,
    name: "leases: one holder at a time of a named role (the keeper), for a limited time",
    sql: `
-- One row per lease while someone holds it (store/leases.ts; the keeper's is "keeper", see keeper/lease.ts).
-- holder names the process (host:pid:random); expires_at and acquired_at are milliseconds since the epoch. A
-- holder renews its lease well before expires_at; once that passes, anyone may take it.
CREATE TABLE leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  acquired_at INTEGER NOT NULL
) STRICT;
`,
  },
  {
    version: 13,
    name: "alerts: conditions that need a person, and their notices by mail and operator webhook",
    sql: `
-- One row per occurrence of a condition that needs a person (domain/alerts.ts): opened when the keeper first sees
-- it, resolved when it clears. key is its kind and subject ("drawing_stuck:drw_..."); at most one unresolved row per
-- key. summary and detail never hold a secret (no pull URL, no key). last_notified_at: the latest notice (opened or
-- reminder); an acknowledged alert gets no more reminders.
CREATE TABLE alerts (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  kind TEXT NOT NULL,
  severity TEXT NOT NULL CHECK (severity IN ('critical', 'warning')),
  summary TEXT NOT NULL,
  detail TEXT NOT NULL,
  campaign_slug TEXT,
  drawing_id TEXT,
  opened_at TEXT NOT NULL,
  last_notified_at TEXT NOT NULL,
  reminders INTEGER NOT NULL DEFAULT 0,
  acknowledged_at TEXT,
  acknowledged_by TEXT,
  resolved_at TEXT
) STRICT;
CREATE UNIQUE INDEX alerts_open_key ON alerts(key) WHERE resolved_at IS NULL;
CREATE INDEX alerts_opened ON alerts(opened_at);
-- One row per notice of an alert (opened, reminder, resolved). body is the exact JSON the operator webhook is sent
-- (the mail is written from it); event_id is its webhook-id. Each channel is pending until done: sent (mail handed
-- to the mailer, webhook answered 2xx), failed (given up), or off (not configured when the notice was made).
CREATE TABLE alert_notices (
  id INTEGER PRIMARY KEY,
  alert_id INTEGER NOT NULL REFERENCES alerts(id),
  event_id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL CHECK (type IN ('alert.opened', 'alert.reminder', 'alert.resolved')),
  body TEXT NOT NULL,
  created_at TEXT NOT NULL,
  mail TEXT NOT NULL CHECK (mail IN ('pending', 'sent', 'failed', 'off')),
  webhook TEXT NOT NULL CHECK (webhook IN ('pending', 'sent', 'failed', 'off')),
  webhook_attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT
) STRICT;
CREATE INDEX alert_notices_alert ON alert_notices(alert_id, id);
`,
  },
];

/** Statements kept per connection; past this the cache starts over (texts with a variable number of placeholders). */
const MAX_CACHED_STATEMENTS = 500;

/**
 * better-sqlite3 with each statement prepared once per connection. The stores write their SQL at each call, and
 * preparing it again was 5 to 7% of the CPU of a public read (measured by api/scripts/profile-public.ts). A cached
 * statement keeps its mode, so a text run with .pluck() is always run with it (each such text has one call site).
 * Made on first use: the driver is this Node.js line's (store/sqliteDriver.ts), loaded only when SQLite is the store.
 */
let StatementCachingDatabase: (new (path: string) => Db) | undefined;
function statementCachingDatabase(): new (path: string) => Db {
  StatementCachingDatabase ??= class extends loadSqliteDriver() {
    private readonly statements = new Map<string, Database.Statement>();

    override prepare<BindParameters extends unknown[] | {} = unknown[], Result = unknown>(source: string): Database.Statement<BindParameters, Result> {
      let statement = this.statements.get(source);
      if (!statement) {
        if (this.statements.size >= MAX_CACHED_STATEMENTS) this.statements.clear();
        statement = super.prepare(source);
        this.statements.set(source, statement);
      }
      return statement as unknown as Database.Statement<BindParameters, Result>;
    }
  };
  return StatementCachingDatabase;
}

/** Opens (creating if needed) the service's SQLite file in WAL mode and applies pending migrations. */
export function openDb(path: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  mkdirSync(dirname(path), { recursive: true });
  const db: Db = new (statementCachingDatabase())(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT");
  const applied = new Set(db.prepare("SELECT version FROM schema_migrations").pluck().all() as number[]);
  const apply = db.transaction((m: Migration) => {
    db.exec(m.sql);
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(m.version, m.name, new Date().toISOString());
  });
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) if (!applied.has(m.version)) apply(m);
  return db;
}
