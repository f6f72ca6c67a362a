// Store helpers for tests: the SQLite file's handle for tests that read or write it directly (sqlite_master, rowid,
// a row forced into a state no repository method writes), a store on each engine for store-level tests, a store file
// of each test's own, and what a test writes straight into a store (an account, a daily campaign, a drawing row).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { createCampaign, type CampaignInput } from "../../api/src/domain/campaigns.js";
import type { Campaign } from "../../api/src/store/campaigns.js";
import type { Db } from "../../api/src/store/db.js";
import type { Drawing } from "../../api/src/store/drawings.js";
import { newId } from "../../api/src/store/ids.js";
import { type Store } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import { startPostgres, type Postgres } from "./postgres.js";

/** The store's SQLite file handle; throws on a PostgreSQL store. */
export function rawSqlite(store: Pick<Store, "sqlite">): Db {
  if (store.sqlite === null) throw new Error("this test reads the store's SQLite file directly: it needs the SQLite store, not PostgreSQL (STORE_URL)");
  return store.sqlite;
}

const HOUR = 3_600_000;

export const ENGINES = ["sqlite", "postgres"] as const;
export type EngineStores = Record<(typeof ENGINES)[number], Store>;

/**
 * A store on each engine for the calling test file: a temporary SQLite file and a private PostgreSQL server, opened
 * before its tests and removed after them. The object is filled in beforeAll.
 */
export function storesOnBothEngines(name: string): EngineStores {
  const stores = {} as EngineStores;
  let dir: string;
  let postgres: Postgres | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), `${name}-`));
    postgres = await startPostgres();
    stores.sqlite = await openServiceStore(path.join(dir, "store.sqlite"));
    stores.postgres = await openServiceStore(postgres.url);
  }, 60_000);
  afterAll(async () => {
    for (const store of Object.values(stores)) await store.close();
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return stores;
}

export type StoreFiles = {
  /** The current test's temporary folder. */
  readonly dir: string;
  /** Opens the SQLite store in that folder; again, for another connection to the same file (as a second process has). */
  open: () => Promise<Store>;
};

/**
 * A temporary folder for each test of the calling file (or describe block), for its SQLite store: every store opened
 * through `open` is closed after the test, in the order opened, and the folder removed.
 */
export function storeFilePerTest(name: string): StoreFiles {
  let dir: string | undefined;
  let opened: Store[] = [];
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), `${name}-`));
    opened = [];
  });
  afterEach(async () => {
    for (const store of opened) await store.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  const files: StoreFiles = {
    get dir() {
      if (dir === undefined) throw new Error("storeFilePerTest: the folder exists only while a test runs");
      return dir;
    },
    open: async () => {
      const store = await openServiceStore(path.join(files.dir, "store.sqlite"));
      opened.push(store);
      return store;
    },
  };
  return files;
}

/** A new account written into the store, created at `at` (now unless given); answers its id. */
export async function newAccount(store: Store, at: Date = new Date()): Promise<string> {
  const accountId = newId("acc");
  await store.accounts.createAccount(accountId, at.toISOString());
  return accountId;
}

/**
 * A draft push campaign of `accountId` created in the store (the domain's createCampaign, now): named by its slug,
 * one winner a draw, drawn daily at 12:00 UTC, paying the test wallet (stack.ts's TEST_WALLET); `input` changes any
 * of that.
 */
export function dailyCampaign(store: Store, accountId: string, slug: string, input: Partial<CampaignInput> = {}): Promise<Campaign> {
  const schedule = { cadence: "daily", drawHour: 12, timezone: "UTC" } as const;
  return createCampaign(store, accountId, { slug, name: slug, mode: "push", winnersPerDraw: 1, payoutWallet: "0x00000000000000000000000000000000000000a1", schedule, ...input }, new Date());
}

/**
 * A drawing of `campaign` as the store keeps it before anything happened to it: open, the campaign's winners per draw
 * and prize table, no list, nothing onchain, a new id and now as its creation time. `fields` sets its draw time and
 * cutoff, and overrides any of the rest.
 */
export function drawingRow(campaign: Pick<Campaign, "id" | "winnersPerDraw" | "tableId" | "tableVersion">, fields: Pick<Drawing, "drawAt" | "cutoffAt"> & Partial<Drawing>): Drawing {
  return {
    id: newId("drw"), campaignId: campaign.id, status: "open", winnersExpected: campaign.winnersPerDraw, number: null, partnerRound: null,
    tableId: campaign.tableId, tableVersion: campaign.tableVersion, needsAttention: null, listSubmittedAt: null, lockedAt: null, winnersCommitment: null,
    entropyProvider: null, entropyRequestId: null, entropyValue: null, entropyRevealedAt: null, settledAt: null, paidAt: null, commitTx: null,
    revealTx: null, revealBlock: null, paidBlock: null, createdAt: new Date().toISOString(), entrantCount: 0, totalWeight: 0, entrantsCommitment: null,
    ...fields,
  };
}

let upcoming = 0;

/**
 * An upcoming drawing row of `campaign` (drawingRow): its cutoff an hour from now and its draw time an hour later than
 * the last one made here, so that no two share a draw time (the store keeps one drawing per draw time).
 */
export function upcomingDrawingRow(campaign: Parameters<typeof drawingRow>[0], fields: Partial<Drawing> = {}): Drawing {
  upcoming++;
  return drawingRow(campaign, { drawAt: new Date(Date.now() + (2 + upcoming) * HOUR).toISOString(), cutoffAt: new Date(Date.now() + HOUR).toISOString(), ...fields });
}
