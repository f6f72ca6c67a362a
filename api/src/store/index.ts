import { join } from "node:path";
import { AccountStore } from "./accounts.js";
import { AlertStore } from "./alerts.js";
import { AuditStore } from "./audit.js";
import { CampaignStore } from "./campaigns.js";
import type { Connection } from "./connection.js";
import type { Db } from "./db.js";
import { openEngine } from "./engines.js";
import { DrawingStore } from "./drawings.js";
import { EntryStore } from "./entries.js";
import { FinalityStore } from "./finality.js";
import { GuaranteeStore } from "./guarantees.js";
import { IdempotencyStore } from "./idempotency.js";
import { LeaseStore } from "./leases.js";
import { PauseStore } from "./pauses.js";
import { PortalStore } from "./portal.js";
import { PrizeTableStore } from "./prizeTables.js";
import { PublicVersionStore } from "./publicVersions.js";
import { PullStore } from "./pull.js";
import { WebhookStore } from "./webhooks.js";

/**
 * The service's store: a SQLite file or a PostgreSQL database (store/engines.ts), a repository per resource, and a
 * transaction helper. Every repository method is asynchronous; queries are written once, with Kysely, for both
 * engines (store/connection.ts says how transactions keep the rules).
 */
export type Store = {
  conn: Connection;
  /** The SQLite file's handle when that is the engine (tools and tests that read it raw), else null. */
  sqlite: Db | null;
  accounts: AccountStore;
  campaigns: CampaignStore;
  drawings: DrawingStore;
  entries: EntryStore;
  prizeTables: PrizeTableStore;
  guarantees: GuaranteeStore;
  pauses: PauseStore;
  pull: PullStore;
  audit: AuditStore;
  finality: FinalityStore;
  portal: PortalStore;
  idempotency: IdempotencyStore;
  webhooks: WebhookStore;
  publicVersions: PublicVersionStore;
  leases: LeaseStore;
  alerts: AlertStore;
  /** Runs `fn` in one transaction; nested, a savepoint (store/connection.ts). */
  tx<T>(fn: () => Promise<T>): Promise<T>;
  /** Closes the store (its file, or its pool of connections). */
  close(): Promise<void>;
};

export function createStore(conn: Connection, sqlite: Db | null = null): Store {
  const store: Store = {
    conn,
    sqlite,
    accounts: new AccountStore(conn),
    campaigns: new CampaignStore(conn),
    drawings: new DrawingStore(conn),
    entries: new EntryStore(conn),
    prizeTables: new PrizeTableStore(conn),
    guarantees: new GuaranteeStore(conn),
    pauses: new PauseStore(conn),
    pull: new PullStore(conn),
    audit: new AuditStore(conn),
    finality: new FinalityStore(conn),
    portal: new PortalStore(conn),
    idempotency: new IdempotencyStore(conn),
    webhooks: new WebhookStore(conn),
    publicVersions: new PublicVersionStore(conn),
    leases: new LeaseStore(conn),
    alerts: new AlertStore(conn),
    tx: <T>(fn: () => Promise<T>): Promise<T> => conn.tx(fn),
    close: () => conn.close(),
  };
  // The change hooks (drawings.onChange, guarantees.onInsert) are left to the opener: serviceStore.ts wires them to
  // the webhook events.
  return store;
}

export { StoreMissingError } from "./postgres.js";

/** Opens the store at `location`: a PostgreSQL URL or a SQLite file's path (store/engines.ts; `create`: see openEngine). */
export async function openStore(location: string, options: { create?: boolean } = {}): Promise<Store> {
  const { conn, sqlite } = await openEngine(location, options);
  return createStore(conn, sqlite);
}

/** The store's file in the data folder (the service and the CLI open the same file). */
export function storePath(dataDir: string): string {
  return join(dataDir, "prizedraw.sqlite");
}
