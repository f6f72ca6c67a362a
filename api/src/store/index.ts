import { join } from "node:path";
import { AccountStore } from "./accounts.js";
import { AuditStore } from "./audit.js";
import { CampaignStore } from "./campaigns.js";
import { openDb, type Db } from "./db.js";
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
import { recordDrawingChange, recordGuaranteeCreated } from "../webhooks/events.js";

/** The service's store: one SQLite file, a repository per resource, and a transaction helper. */
export type Store = {
  db: Db;
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
  /** Runs `fn` in one transaction (better-sqlite3's are synchronous, so nothing interleaves). */
  tx<T>(fn: () => T): T;
};

export function createStore(db: Db): Store {
  const store: Store = {
    db,
    accounts: new AccountStore(db),
    campaigns: new CampaignStore(db),
    drawings: new DrawingStore(db),
    entries: new EntryStore(db),
    prizeTables: new PrizeTableStore(db),
    guarantees: new GuaranteeStore(db),
    pauses: new PauseStore(db),
    pull: new PullStore(db),
    audit: new AuditStore(db),
    finality: new FinalityStore(db),
    portal: new PortalStore(db),
    idempotency: new IdempotencyStore(db),
    webhooks: new WebhookStore(db),
    publicVersions: new PublicVersionStore(db),
    leases: new LeaseStore(db),
    tx: <T>(fn: () => T): T => db.transaction(fn).immediate(),
  };
  // Webhook events are recorded by the store itself, in the transaction of the change (a transactional outbox):
  // every writer of a drawing or guarantee period gets them without having to remember them.
  store.drawings.onChange = (before, after) => recordDrawingChange(store, before, after);
  store.guarantees.onInsert = (g) => recordGuaranteeCreated(store, g);
  return store;
}

export function openStore(path: string): Store {
  return createStore(openDb(path));
}

/** The store's file in the data folder (the service and the CLI open the same file). */
export function storePath(dataDir: string): string {
  return join(dataDir, "prizedraw.sqlite");
}
