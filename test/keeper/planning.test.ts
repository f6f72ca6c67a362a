// The keeper plans drawings ahead from the campaign as it is inside its transaction. A campaign edit committed
// between the keeper's first read and its planning (another process, the CLI) deletes drawings: an earlier end date
// deletes those after it, a pause those ahead. Planned from the stale copy, they came back (CI, 2026-11-26: a
// drawing after the end date reappeared in test/api/push.test.ts on both engines). Here the edit is made to land
// in exactly that gap, on a real SQLite store.

import { describe, expect, it } from "vitest";
import { createCampaign, transitionCampaign, updateCampaign } from "../../api/src/domain/campaigns.js";
import { type Store } from "../../api/src/store/index.js";
import { keeperWithoutChain } from "../support/keeper.js";
import { newAccount, storeFilePerTest } from "../support/store.js";

const WALLET = "0x00000000000000000000000000000000000000a1";
const SLUG = "edited";

describe("the keeper's planning after a concurrent campaign edit", () => {
  const files = storeFilePerTest("keeper-plan");

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
    const store = await files.open();
    const now = new Date();
    const accountId = await newAccount(store, now);
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

    // The chain is never reached for what is checked here: its steps fail, are logged, and retried next cycle.
    const keeper = keeperWithoutChain(store, 3_600);
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
