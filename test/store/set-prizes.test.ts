// store.drawings.setPrizes on both engines (a temporary SQLite file and a private PostgreSQL server): a drawing's
// prizes mirrored from the chain land on exactly its winners, position by position, over several 500-row
// statements; a held prize opens once and keeps a later state (paid) when the prizes are written again (a reveal
// mirrored again after a reorg); another drawing's winners are untouched.

import { describe, expect, it } from "vitest";
import type { Drawing } from "../../api/src/store/drawings.js";
import type { Store } from "../../api/src/store/index.js";
import { ENGINES, dailyCampaign, drawingRow, newAccount, storesOnBothEngines } from "../support/store.js";

const WINNERS = 1_201; // three statements: 500, 500, 201

const stores = storesOnBothEngines("set-prizes");

/** A drawing of a new campaign with `count` winners w-0, w-1, ... written straight into the store. */
async function drawingWithWinners(store: Store, slug: string, count: number): Promise<Drawing> {
  const accountId = await newAccount(store);
  const campaign = await dailyCampaign(store, accountId, slug, { winnersPerDraw: 2 });
  const d = drawingRow(campaign, { drawAt: new Date(Date.now() + 2 * 3_600_000).toISOString(), cutoffAt: new Date(Date.now() + 3_600_000).toISOString(), winnersExpected: count });
  expect(await store.drawings.insertIfAbsent(d)).toBe(true);
  await store.drawings.replaceWinners(d.id, Array.from({ length: count }, (_, i) => ({ winnerId: `w-${i}`, displayName: null, avatarUrl: null })));
  return d;
}

/** Prizes for positions 0 .. count-1: every 97th held; `salt` makes a second reveal's values differ. */
const prizesFor = (count: number, salt: number) =>
  Array.from({ length: count }, (_, position) => ({
    position,
    randomValue: `0x${(position * 7919 + salt).toString(16).padStart(64, "0")}`,
    roll: (position * 31 + salt) % 1_000_000,
    amountCents: 1 + ((position * 13 + salt) % 100_000),
    held: position % 97 === 0,
  }));

describe.each(ENGINES)("setPrizes on %s", (engine) => {
  it("writes every winner's prize in 500-row statements, opens held prizes once, and touches no other drawing", async () => {
    const store = stores[engine]!;
    const drawing = await drawingWithWinners(store, `prizes-${engine}`, WINNERS);
    const other = await drawingWithWinners(store, `other-${engine}`, 3);

    const first = prizesFor(WINNERS, 1);
    await store.drawings.setPrizes(drawing.id, first);
    const expected = (prizes: typeof first, heldStatus: (position: number) => string | null) =>
      prizes.map((p) => ({ position: p.position, winnerId: `w-${p.position}`, randomValue: p.randomValue, roll: p.roll, amountCents: p.amountCents, held: p.held, heldStatus: heldStatus(p.position) }));
    const read = async (id: string) =>
      (await store.drawings.winners(id)).map(({ position, winnerId, randomValue, roll, amountCents, held, heldStatus }) => ({ position, winnerId, randomValue, roll, amountCents, held, heldStatus }));
    expect(await read(drawing.id)).toEqual(expected(first, (position) => (position % 97 === 0 ? "open" : null)));

    // The operator paid one held prize; the reveal is mirrored again with other values: the paid one stays paid.
    await store.drawings.setHeldStatus(drawing.id, 97, "paid", null);
    const second = prizesFor(WINNERS, 2);
    await store.drawings.setPrizes(drawing.id, second);
    expect(await read(drawing.id)).toEqual(expected(second, (position) => (position === 97 ? "paid" : position % 97 === 0 ? "open" : null)));

    expect((await store.drawings.winners(other.id)).map((w) => [w.randomValue, w.roll, w.amountCents, w.held, w.heldStatus])).toEqual(Array.from({ length: 3 }, () => [null, null, null, null, null]));
  });
});
