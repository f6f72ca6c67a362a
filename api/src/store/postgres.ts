import pg from "pg";
import { MIGRATIONS, type Migration } from "./db.js";

// PostgreSQL's schema. SQLite's file reached the baseline's schema through migrations 1 to 12 (store/db.ts); a
// PostgreSQL database gets that schema at once: POSTGRES_BASELINE, recorded as versions 1..12 with SQLite's names,
// then POSTGRES_MIGRATIONS (13 on). A schema change is one version number carrying both engines' SQL: SQLite's in
// db.ts's MIGRATIONS, PostgreSQL's in POSTGRES_MIGRATIONS below, with the same version and name.
// test/store/schema.test.ts keeps the two schemas equal.
//
// Types: TEXT is `text COLLATE "C"` (compares and sorts byte-wise, as SQLite does), INTEGER is bigint (read as JS
// numbers: store/engines.ts), an INTEGER PRIMARY KEY the database assigns is an identity column, BLOB is bytea.

/** The last version the baseline creates: SQLite's migrations up to this one. */
export const POSTGRES_BASELINE_VERSION = 12;

/** The schema of SQLite's migrations 1 to 12, in one go, for an empty PostgreSQL database. */
export const POSTGRES_BASELINE = `
-- 1
CREATE TABLE service_meta (key text COLLATE "C" PRIMARY KEY, value text COLLATE "C" NOT NULL);

-- 2
CREATE TABLE accounts (id text COLLATE "C" PRIMARY KEY, created_at text COLLATE "C" NOT NULL);
CREATE TABLE members (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts(id),
  email text COLLATE "C" NOT NULL,
  role text COLLATE "C" NOT NULL CHECK (role IN ('owner', 'member')),
  created_at text COLLATE "C" NOT NULL,
  UNIQUE (account_id, email)
);
-- Only the SHA-256 of a key's secret is stored; key_id (public, in the key) finds the row.
CREATE TABLE api_keys (
  key_id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts(id),
  environment text COLLATE "C" NOT NULL CHECK (environment IN ('test', 'production')),
  secret_hash text COLLATE "C" NOT NULL,
  last4 text COLLATE "C" NOT NULL,
  created_by text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  revoked_at text COLLATE "C",
  -- When the key last authenticated a request (written at most once a minute per key).
  last_used_at text COLLATE "C"
);
-- Table versions: "default" is the service's; a custom table's id is its campaign's slug.
CREATE TABLE prize_tables (
  table_id text COLLATE "C" NOT NULL,
  version bigint NOT NULL,
  tiers_json text COLLATE "C" NOT NULL,
  denominator bigint NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (table_id, version)
);
CREATE TABLE campaigns (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts(id),
  slug text COLLATE "C" NOT NULL UNIQUE,
  name text COLLATE "C" NOT NULL,
  mode text COLLATE "C" NOT NULL CHECK (mode IN ('push', 'pull', 'entries')),
  status text COLLATE "C" NOT NULL CHECK (status IN ('draft', 'active', 'paused', 'ended')),
  schedule_json text COLLATE "C" NOT NULL,
  winners_per_draw bigint NOT NULL,
  payout_wallet text COLLATE "C",
  large_prize_threshold_cents bigint NOT NULL,
  guarantee_json text COLLATE "C",
  terms_url text COLLATE "C",
  privacy_url text COLLATE "C",
  pull_url text COLLATE "C",
  table_id text COLLATE "C" NOT NULL,
  table_version bigint NOT NULL,
  clock_offset_ms bigint NOT NULL DEFAULT 0,
  onchain_wallet text COLLATE "C",
  onchain_threshold_cents bigint,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  FOREIGN KEY (table_id, table_version) REFERENCES prize_tables(table_id, version)
);
CREATE INDEX campaigns_account ON campaigns(account_id);
CREATE TABLE drawings (
  id text COLLATE "C" PRIMARY KEY,
  campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
  draw_at text COLLATE "C" NOT NULL,
  cutoff_at text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL CHECK (status IN ('open', 'locked', 'entropy_requested', 'settled', 'paid')),
  winners_expected bigint NOT NULL,
  number bigint,
  partner_round bigint,
  table_id text COLLATE "C" NOT NULL,
  table_version bigint NOT NULL,
  needs_attention text COLLATE "C",
  list_submitted_at text COLLATE "C",
  locked_at text COLLATE "C",
  winners_commitment text COLLATE "C",
  entropy_provider text COLLATE "C",
  entropy_request_id text COLLATE "C",
  entropy_value text COLLATE "C",
  entropy_revealed_at text COLLATE "C",
  settled_at text COLLATE "C",
  paid_at text COLLATE "C",
  commit_tx text COLLATE "C",
  reveal_tx text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  entrant_count bigint NOT NULL DEFAULT 0,
  total_weight bigint NOT NULL DEFAULT 0,
  entrants_commitment text COLLATE "C",
  -- The blocks of the reveal and of the payout: a step is final once its block is at or below the chain's
  -- finalized block (chain_finality); until then the keeper checks it against the chain (keeper.ts, recheckUnfinal).
  reveal_block bigint,
  paid_block bigint,
  UNIQUE (campaign_id, draw_at),
  UNIQUE (campaign_id, number)
);
CREATE INDEX drawings_campaign_status ON drawings(campaign_id, status, cutoff_at);
CREATE TABLE winners (
  drawing_id text COLLATE "C" NOT NULL REFERENCES drawings(id) ON DELETE CASCADE,
  position bigint NOT NULL,
  winner_id text COLLATE "C" NOT NULL,
  display_name text COLLATE "C",
  avatar_url text COLLATE "C",
  random_value text COLLATE "C",
  roll bigint,
  amount_cents bigint,
  held bigint,
  -- 'open' for a held prize until the operator pays or refuses it onchain; null when not held.
  held_status text COLLATE "C" CHECK (held_status IN ('open', 'paid', 'refused')),
  held_reason text COLLATE "C",
  -- The block of the operator's decision on a held prize (final once finalized, as drawings.paid_block).
  held_block bigint,
  PRIMARY KEY (drawing_id, position)
);
CREATE TABLE audit_log (
  id text COLLATE "C" PRIMARY KEY,
  at text COLLATE "C" NOT NULL,
  actor text COLLATE "C" NOT NULL,
  action text COLLATE "C" NOT NULL,
  subject text COLLATE "C",
  detail_json text COLLATE "C"
);

-- 3
-- seq is the arrival order: positions at the lock follow it.
CREATE TABLE entries (
  seq bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  drawing_id text COLLATE "C" NOT NULL REFERENCES drawings(id) ON DELETE CASCADE,
  entrant_id text COLLATE "C" NOT NULL,
  weight bigint NOT NULL,
  display_name text COLLATE "C",
  avatar_url text COLLATE "C",
  position bigint,
  UNIQUE (drawing_id, entrant_id)
);

-- 4
-- One row per fetch of a pull campaign's URL (the URL itself is never stored here); at is the campaign clock.
CREATE TABLE pull_fetches (
  id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  drawing_id text COLLATE "C" NOT NULL REFERENCES drawings(id) ON DELETE CASCADE,
  at text COLLATE "C" NOT NULL,
  outcome text COLLATE "C" NOT NULL CHECK (outcome IN ('stored', 'unchanged', 'not_ready', 'invalid', 'error')),
  reason text COLLATE "C"
);
CREATE INDEX pull_fetches_drawing ON pull_fetches(drawing_id, id);
-- Alerts for service staff (prizedraw alerts list); one per kind and drawing.
CREATE TABLE staff_alerts (
  id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  at text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  campaign_slug text COLLATE "C" NOT NULL,
  drawing_id text COLLATE "C",
  detail text COLLATE "C" NOT NULL,
  UNIQUE (kind, drawing_id)
);

-- 5
-- Pauses in the campaign's clock (paused time does not count towards a guarantee period); resumed_at is null
-- while the pause lasts.
CREATE TABLE campaign_pauses (
  id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
  paused_at text COLLATE "C" NOT NULL,
  resumed_at text COLLATE "C"
);
CREATE INDEX campaign_pauses_campaign ON campaign_pauses(campaign_id, paused_at);
-- One row per checked guarantee period; the current, unchecked period has none.
CREATE TABLE guarantees (
  id text COLLATE "C" PRIMARY KEY,
  campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
  period bigint NOT NULL,
  period_start text COLLATE "C" NOT NULL,
  period_end text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL CHECK (status IN ('not_needed', 'awaiting_pick', 'picked', 'paid')),
  amount_cents bigint NOT NULL,
  threshold_cents bigint NOT NULL,
  picked_winner text COLLATE "C",
  picked_drawing_id text COLLATE "C",
  picked_at text COLLATE "C",
  payout_id text COLLATE "C" UNIQUE,
  pick_tx text COLLATE "C",
  paid_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  -- The block of the payment (final once finalized, as drawings.paid_block).
  paid_block bigint,
  UNIQUE (campaign_id, period)
);
CREATE INDEX guarantees_campaign_status ON guarantees(campaign_id, status);

-- 7 (6 only added columns to winners, above)
-- One row: the latest finalized block number the keeper read from the chain.
CREATE TABLE chain_finality (id bigint PRIMARY KEY CHECK (id = 1), finalized_block bigint NOT NULL, read_at text COLLATE "C" NOT NULL);

-- 8
-- Links are stored only as the SHA-256 of their token; a link is used once (used_at) and expires.
CREATE TABLE portal_links (
  token_hash text COLLATE "C" PRIMARY KEY,
  email text COLLATE "C" NOT NULL,
  purpose text COLLATE "C" NOT NULL CHECK (purpose IN ('sign_in', 'invite')),
  account_id text COLLATE "C" REFERENCES accounts(id),
  created_at text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL,
  used_at text COLLATE "C"
);
-- Sessions are rows (the cookie holds a random id, stored here only as its SHA-256): ended at sign-out, idle and
-- absolute expiry checked on every request.
CREATE TABLE portal_sessions (
  id_hash text COLLATE "C" PRIMARY KEY,
  email text COLLATE "C" NOT NULL,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts(id),
  csrf_token text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  last_seen_at text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL,
  ended_at text COLLATE "C"
);
CREATE INDEX portal_sessions_email ON portal_sessions(email);
-- One row per sign-in request, keyed 'email:<address>' or 'client:<address>', for the rate limits.
CREATE TABLE portal_attempts (key text COLLATE "C" NOT NULL, at text COLLATE "C" NOT NULL);
CREATE INDEX portal_attempts_key_at ON portal_attempts(key, at);
-- Test environment without SMTP_URL only: mail the service would have sent (shown at /portal/outbox).
CREATE TABLE mail_outbox (
  id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  to_address text COLLATE "C" NOT NULL,
  subject text COLLATE "C" NOT NULL,
  body text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL
);
-- A campaign's logo, shown on its public page: PNG, JPEG or WebP only, served back with its stored type.
CREATE TABLE campaign_logos (
  campaign_id text COLLATE "C" PRIMARY KEY REFERENCES campaigns(id),
  bytes bytea NOT NULL,
  content_type text COLLATE "C" NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
  etag text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
);

-- 9
-- One row per (account, Idempotency-Key): the request's method, path and body hash, and once answered its status
-- and body. A row without an answer is a request still running (or one that failed with a 5xx: deleted then).
CREATE TABLE idempotency_keys (
  account_id text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  request_hash text COLLATE "C" NOT NULL,
  status bigint,
  body text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);

-- 10
-- An account's webhook endpoints. The signing secret is stored as is (HMAC-SHA256 signing needs the key itself);
-- shown once, never listed or logged. After a rotation the previous secret still signs until previous_expires_at.
-- A deleted endpoint keeps its row (deleted_at) so its delivery history stays readable.
CREATE TABLE webhook_endpoints (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts(id),
  url text COLLATE "C" NOT NULL,
  secret text COLLATE "C" NOT NULL,
  previous_secret text COLLATE "C",
  previous_expires_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  deleted_at text COLLATE "C"
);
CREATE INDEX webhook_endpoints_account ON webhook_endpoints(account_id);
-- The outbox: one row per event, written in the transaction of the change that caused it. body is the exact JSON
-- sent, a snapshot taken then; seq orders the events of one drawing or guarantee (subject_id).
CREATE TABLE webhook_events (
  seq bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  id text COLLATE "C" NOT NULL UNIQUE,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts(id),
  type text COLLATE "C" NOT NULL,
  subject_id text COLLATE "C" NOT NULL,
  body text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL
);
-- One row per event and endpoint. pending until a 2xx (delivered) or until give_up_at passes (failed).
CREATE TABLE webhook_deliveries (
  id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  event_seq bigint NOT NULL REFERENCES webhook_events(seq),
  endpoint_id text COLLATE "C" NOT NULL REFERENCES webhook_endpoints(id),
  subject_id text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts bigint NOT NULL DEFAULT 0,
  next_attempt_at text COLLATE "C",
  give_up_at text COLLATE "C" NOT NULL,
  delivered_at text COLLATE "C",
  UNIQUE (event_seq, endpoint_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE INDEX webhook_deliveries_lane ON webhook_deliveries(endpoint_id, subject_id, status, event_seq);
-- One row per HTTP attempt: the status or the error, the time taken, and at most a short snippet of the answer.
CREATE TABLE webhook_attempts (
  id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  delivery_id bigint NOT NULL REFERENCES webhook_deliveries(id),
  at text COLLATE "C" NOT NULL,
  http_status bigint,
  error text COLLATE "C",
  duration_ms bigint NOT NULL,
  response_snippet text COLLATE "C"
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id, id);

-- 11
-- The public reads (the campaign page, draws.json, proof.json) are rendered once per version (http/publicCache.ts).
-- Triggers bump it in the writing transaction, whoever writes: a campaign's settings, clock, status, names and
-- links; its drawings; their winners; its logo. The triggers have SQLite's names and do what SQLite's do.
CREATE TABLE public_versions (
  campaign_id text COLLATE "C" PRIMARY KEY REFERENCES campaigns(id),
  version bigint NOT NULL
);
CREATE FUNCTION bump_public_version(campaign text) RETURNS void LANGUAGE sql AS $$
  UPDATE public_versions SET version = version + 1 WHERE campaign_id = campaign;
$$;
CREATE FUNCTION public_version_campaign_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO public_versions (campaign_id, version) VALUES (NEW.id, 1)
    ON CONFLICT (campaign_id) DO UPDATE SET version = public_versions.version + 1;
  RETURN NULL;
END $$;
CREATE FUNCTION public_version_campaign_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_public_version(NEW.id);
  RETURN NULL;
END $$;
-- A drawing's or a logo's campaign: the row's own campaign_id (both tables have one).
CREATE FUNCTION public_version_of_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM bump_public_version(OLD.campaign_id);
  ELSE
    PERFORM bump_public_version(NEW.campaign_id);
  END IF;
  RETURN NULL;
END $$;
-- A winner's campaign is its drawing's (none once the drawing is deleted: the drawing's own trigger bumps then).
CREATE FUNCTION public_version_winner() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM bump_public_version((SELECT campaign_id FROM drawings WHERE id = OLD.drawing_id));
  ELSE
    PERFORM bump_public_version((SELECT campaign_id FROM drawings WHERE id = NEW.drawing_id));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER public_version_campaign_insert AFTER INSERT ON campaigns FOR EACH ROW EXECUTE FUNCTION public_version_campaign_insert();
CREATE TRIGGER public_version_campaign_update AFTER UPDATE ON campaigns FOR EACH ROW EXECUTE FUNCTION public_version_campaign_update();
CREATE TRIGGER public_version_drawing_insert AFTER INSERT ON drawings FOR EACH ROW EXECUTE FUNCTION public_version_of_row();
CREATE TRIGGER public_version_drawing_update AFTER UPDATE ON drawings FOR EACH ROW EXECUTE FUNCTION public_version_of_row();
CREATE TRIGGER public_version_drawing_delete AFTER DELETE ON drawings FOR EACH ROW EXECUTE FUNCTION public_version_of_row();
CREATE TRIGGER public_version_winner_insert AFTER INSERT ON winners FOR EACH ROW EXECUTE FUNCTION public_version_winner();
CREATE TRIGGER public_version_winner_update AFTER UPDATE ON winners FOR EACH ROW EXECUTE FUNCTION public_version_winner();
CREATE TRIGGER public_version_winner_delete AFTER DELETE ON winners FOR EACH ROW EXECUTE FUNCTION public_version_winner();
CREATE TRIGGER public_version_logo_insert AFTER INSERT ON campaign_logos FOR EACH ROW EXECUTE FUNCTION public_version_of_row();
CREATE TRIGGER public_version_logo_update AFTER UPDATE ON campaign_logos FOR EACH ROW EXECUTE FUNCTION public_version_of_row();
CREATE TRIGGER public_version_logo_delete AFTER DELETE ON campaign_logos FOR EACH ROW EXECUTE FUNCTION public_version_of_row();

-- 12
-- One row per lease while someone holds it (store/leases.ts; the keeper's is "keeper"). holder names the process
-- (host:pid:random); expires_at and acquired_at are milliseconds since the epoch. Once expires_at passes, anyone
-- may take it.
CREATE TABLE leases (
  name text COLLATE "C" PRIMARY KEY,
  holder text COLLATE "C" NOT NULL,
  expires_at bigint NOT NULL,
  acquired_at bigint NOT NULL
);
`;

/**
 * PostgreSQL's migrations after the baseline, in order: each has the version and name of SQLite's migration of the
 * same change (db.ts's MIGRATIONS). Never edit an applied one: add the next version, to both lists.
 */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 13,
    name: "alerts: conditions that need a person, and their notices by mail and operator webhook",
    sql: `
-- One row per occurrence of a condition that needs a person (domain/alerts.ts): opened when the keeper first sees
-- it, resolved when it clears; at most one unresolved row per key. summary and detail never hold a secret.
CREATE TABLE alerts (
  id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  key text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  severity text COLLATE "C" NOT NULL CHECK (severity IN ('critical', 'warning')),
  summary text COLLATE "C" NOT NULL,
  detail text COLLATE "C" NOT NULL,
  campaign_slug text COLLATE "C",
  drawing_id text COLLATE "C",
  opened_at text COLLATE "C" NOT NULL,
  last_notified_at text COLLATE "C" NOT NULL,
  reminders bigint NOT NULL DEFAULT 0,
  acknowledged_at text COLLATE "C",
  acknowledged_by text COLLATE "C",
  resolved_at text COLLATE "C"
);
CREATE UNIQUE INDEX alerts_open_key ON alerts(key) WHERE resolved_at IS NULL;
CREATE INDEX alerts_opened ON alerts(opened_at);
-- One row per notice of an alert; body is the exact JSON the operator webhook is sent, event_id its webhook-id.
CREATE TABLE alert_notices (
  id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  alert_id bigint NOT NULL REFERENCES alerts(id),
  event_id text COLLATE "C" NOT NULL UNIQUE,
  type text COLLATE "C" NOT NULL CHECK (type IN ('alert.opened', 'alert.reminder', 'alert.resolved')),
  body text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  mail text COLLATE "C" NOT NULL CHECK (mail IN ('pending', 'sent', 'failed', 'off')),
  webhook text COLLATE "C" NOT NULL CHECK (webhook IN ('pending', 'sent', 'failed', 'off')),
  webhook_attempts bigint NOT NULL DEFAULT 0,
  last_error text COLLATE "C"
);
CREATE INDEX alert_notices_alert ON alert_notices(alert_id, id);
`,
  },
];

/** The key of the advisory lock held while migrating (any constant; "prizmg" in ASCII). */
const MIGRATION_LOCK_KEY = 0x7072697a6d67;

/** The database holds no store of this service, and the caller asked not to create one (the CLI). */
export class StoreMissingError extends Error {
  readonly code = "no_store";
  override name = "StoreMissingError";
}

/**
 * Brings the PostgreSQL database of `pool` to the current schema: the baseline on an empty database, then any
 * later migrations. All in one transaction holding an advisory lock, so processes starting together migrate once
 * (the others wait, then find it done). A database already up to date is left alone; one at a version newer than
 * this code knows is refused. `create: false`: an empty database is a StoreMissingError and nothing is made.
 */
export async function migratePostgres(pool: pg.Pool, { create = true }: { create?: boolean } = {}): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    try {
      await migrate(client, create);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    }
  } finally {
    client.release();
  }
}

async function migrate(client: pg.PoolClient, create: boolean): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
  await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (version bigint PRIMARY KEY, name text COLLATE "C" NOT NULL, applied_at text COLLATE "C" NOT NULL)`);
  const { rows } = await client.query<{ version: string | number | null }>("SELECT max(version) AS version FROM schema_migrations");
  const current = Number(rows[0]?.version ?? 0);
  const latest = Math.max(POSTGRES_BASELINE_VERSION, ...POSTGRES_MIGRATIONS.map((m) => m.version));
  if (current > latest) {
    throw new Error(`the PostgreSQL store's schema is at version ${current}, newer than this service knows (version ${latest}): run a newer release`);
  }
  if (current > 0 && current < POSTGRES_BASELINE_VERSION) {
    // The baseline is applied whole, in one transaction: a version below it means the table was written by hand.
    throw new Error(`the PostgreSQL store's schema is at version ${current}, below the baseline (version ${POSTGRES_BASELINE_VERSION}): not a database this service made`);
  }
  // Thrown inside the transaction: the schema_migrations table made above is rolled back with it.
  if (current === 0 && !create) throw new StoreMissingError("the PostgreSQL database holds no store of this service");
  const appliedAt = new Date().toISOString();
  if (current === 0) {
    await client.query(POSTGRES_BASELINE);
    for (const m of MIGRATIONS.filter((m) => m.version <= POSTGRES_BASELINE_VERSION)) await record(client, m, appliedAt);
  }
  for (const m of [...POSTGRES_MIGRATIONS].sort((a, b) => a.version - b.version)) {
    if (m.version <= current) continue;
    await client.query(m.sql);
    await record(client, m, appliedAt);
  }
}

function record(client: pg.PoolClient, m: Migration, appliedAt: string): Promise<pg.QueryResult> {
  return client.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [m.version, m.name, appliedAt]);
}
