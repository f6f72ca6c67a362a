// The keeper plans drawings ahead from the campaign as it is inside its transaction. A campaign edit committed
// between the keeper's first read and its planning (another process, the CLI) deletes drawings: an earlier end date
// deletes those after it, a pause those ahead. Planned from the stale copy, they came back (CI, 2026-11-26: a
// drawing after the end date reappeared in test/api/push.test.ts on both engines). Here the edit is made to land
// in exactly that gap, on a real SQLite store.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { IndexerClient } from "../../api/src/chain/indexer.js";
import type { ChainPort } from "../../api/src/chain/port.js";
import { createCampaign, transitionCampaign, updateCampaign } from "../../api/src/domain/campaigns.js";
import { newId } from "../../api/src/store/ids.js";
import { Keeper } from "../../api/src/keeper/keeper.js";
import { type Store } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";

const WALLET = "0x00000000000000000000000000000000000000a1";
const SLUG = "edited";

describe("the keeper's planning after a concurrent campaign edit", () => {
  let dir: string;
  let store: Store;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "keeper-plan-"));
  });

  afterEach(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const edits: Array<[string, (store: Store, firstDrawAt: string) => Promise<unknown>, (drawAts: string[], firstDrawAt: string) => void]> = [
    [
      "an earlier end date: no drawing after it comes back",
      (s, firstDrawAt) => updateCampaign(s, SLUG, { endsAt: firstDrawAt }),
      (drawAts, firstDrawAt) => expect(drawAts).toEqual([firstDrawAt]),
    ],
    [
      "a pause: the deleted drawings ahead do not come back",
      (s) => transitionCampaign(s, SLUG, "pause"),
      (drawAts) => expect(drawAts).toEqual([]),
    ],
  ];

  it.each(edits)("%s", async (_name, edit, check) => {
    store = await openServiceStore(path.join(dir, "store.sqlite"));
    const now = new Date();
    const accountId = newId("acc");
    await store.accounts.createAccount(accountId, now.toISOString());
    const schedule = { cadence: "daily" as const, drawHour: 20, timezone: "Europe/Berlin", startsAt: now.toISOString() };
    await createCampaign(store, accountId, { slug: SLUG, name: SLUG, mode: "push", winnersPerDraw: 3, payoutWallet: WALLET, schedule }, now);
    const campaign = await transitionCampaign(store, SLUG, "activate", now);
    const planned = await store.drawings.list(campaign.id, "open", 100);
    expect(planned.length).toBeGreaterThanOrEqual(2); // the next two at least (schedule.ts, MIN_UPCOMING_DRAWINGS)
    const firstDrawAt = planned.map((d) => d.drawAt).sort()[0]!;

    // The edit commits right after the keeper's first read of the campaign, before it plans.
    const readById = store.campaigns.byId.bind(store.campaigns);
    let edited = false;
    store.campaigns.byId = async (id) => {
      const read = await readById(id);
      if (!edited && id === campaign.id) {
        edited = true;
        await edit(store, firstDrawAt);
      }
      return read;
    };

    const keeper = new Keeper({
      store,
      // The chain is never reached for what is checked here: its steps fail, are logged, and retried next cycle.
      chain: {} as ChainPort,
      indexer: {} as IndexerClient,
      config: { env: "production", keeperIntervalSeconds: 3_600, pullAllowHttpLoopback: false, entropyTimeoutSeconds: 600, holdMockReveal: false, localChain: false, chainFinality: "finalized" },
      logger: pino({ level: "silent" }),
    });
    keeper.start();
    try {
      while (!keeper.holdsLease()) await new Promise((resolve) => setTimeout(resolve, 20));
      // Waits for the cycle under way and one more after it.
      await keeper.runAll();
    } finally {
      await keeper.stop();
    }

    expect(edited).toBe(true);
    const after = await store.drawings.list(campaign.id, "open", 100);
    check(after.map((d) => d.drawAt).sort(), firstDrawAt);
  });
});
