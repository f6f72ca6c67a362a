// Public reads without the stack: a campaign's public version (migration 11's triggers) moves with every write that can
// change its page, draws.json or proofs, and with no other; PublicCache (http/publicCache.ts) serves a render while
// the version, its expiry and the chain's finalized block allow it, shares one render between concurrent misses,
// and never keeps a render across a write made while it ran; store.drawings.nextFinalBlock picks the block at
// which a provisional result turns final. All on a real store (a temporary SQLite file); the real-stack side is
// test/api/public-cache.test.ts.

import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { transitionCampaign, updateCampaign } from "../../api/src/domain/campaigns.js";
import { submitWinners } from "../../api/src/domain/drawings.js";
import { submitEntries } from "../../api/src/domain/entries.js";
import { newId } from "../../api/src/store/ids.js";
import { PublicCache, type Render } from "../../api/src/http/publicCache.js";
import { advanceClock } from "../../api/src/domain/testClock.js";
import type { Campaign } from "../../api/src/store/campaigns.js";
import { MIGRATIONS } from "../../api/src/store/db.js";
import type { Drawing } from "../../api/src/store/drawings.js";
import { type Store } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import { dailyCampaign, newAccount, rawSqlite, storeFilePerTest, upcomingDrawingRow } from "../support/store.js";

const HOUR = 3_600_000;
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");

const files = storeFilePerTest("public-cache");
let store: Store;
let accountId: string;
let campaign: Campaign;
let other: Campaign;

async function newCampaign(slug: string, mode: Campaign["mode"] = "push"): Promise<Campaign> {
  return dailyCampaign(store, accountId, slug, { mode, winnersPerDraw: 2 });
}

/** A drawing of `c` written straight into the store (open, its cutoff an hour ahead unless overridden). */
async function drawing(c: Campaign, over: Partial<Drawing> = {}): Promise<Drawing> {
  const d = upcomingDrawingRow(c, over);
  expect(await store.drawings.insertIfAbsent(d)).toBe(true);
  return d;
}

const version = (c: Campaign = campaign): Promise<number> => store.publicVersions.get(c.id);

/** Runs `write` and answers how far each campaign's version moved: [this campaign, the other one]. */
async function bumps(write: () => unknown): Promise<[number, number]> {
  const [a, b] = [await version(campaign), await version(other)];
  await write();
  return [(await version(campaign)) - a, (await version(other)) - b];
}

const current = async () => (await store.campaigns.byId(campaign.id))!;

beforeEach(async () => {
  store = await files.open();
  accountId = await newAccount(store);
  campaign = await newCampaign("cached");
  other = await newCampaign("elsewhere");
});

describe("public versions (migration 11's triggers)", () => {
  it("starts at 1 for a new campaign and 0 for an unknown one", async () => {
    expect(await version(campaign)).toBeGreaterThanOrEqual(1);
    expect(await store.publicVersions.get("cmp_unknown")).toBe(0);
  });

  it("moves with every change to the campaign itself: name, links, status, test clock", async () => {
    expect(await bumps(async () => store.campaigns.update({ ...(await current()), name: "Renamed" }))).toEqual([1, 0]);
    expect(await bumps(async () => store.campaigns.update({ ...(await current()), termsUrl: "https://example.com/terms", privacyUrl: "https://example.com/privacy" }))).toEqual([1, 0]);
    expect((await bumps(() => updateCampaign(store, "cached", { name: "Renamed again" }))).map((n) => n > 0)).toEqual([true, false]);
    expect((await bumps(() => transitionCampaign(store, "cached", "activate"))).map((n) => n > 0)).toEqual([true, false]);
    expect((await bumps(() => advanceClock(store, campaign.id, new Date(Date.now() + 2 * HOUR)))).map((n) => n > 0)).toEqual([true, false]);
    expect((await bumps(() => transitionCampaign(store, "cached", "pause"))).map((n) => n > 0)).toEqual([true, false]);
  });

  it("moves with a drawing's insert, update and delete, and a no-op insert leaves it", async () => {
    let d!: Drawing;
    expect(await bumps(async () => (d = await drawing(campaign)))).toEqual([1, 0]);
    expect(await bumps(() => store.drawings.insertIfAbsent({ ...d, id: newId("drw") }))).toEqual([0, 0]); // same draw time: DO NOTHING
    expect(await bumps(() => store.drawings.update({ ...d, status: "locked", lockedAt: new Date().toISOString() }))).toEqual([1, 0]);
    expect(await bumps(() => store.drawings.retableOpen(campaign.id, campaign.tableId, campaign.tableVersion))).toEqual([0, 0]); // no open drawing left
    const open = await drawing(campaign);
    expect(await bumps(() => store.drawings.deleteUpcoming(campaign.id, new Date().toISOString()))).toEqual([1, 0]);
    expect(await store.drawings.byId(campaign.id, open.id)).toBeNull();
  });

  it("moves with its winners: a list stored, relabelled, prizes set, held status, deleted", async () => {
    const d = await drawing(campaign);
    const list = [{ winnerId: "u-1", displayName: "Ada", avatarUrl: null }, { winnerId: "u-2", displayName: null, avatarUrl: null }];
    expect((await bumps(() => store.drawings.replaceWinners(d.id, list)))[0]).toBeGreaterThan(0);
    expect((await bumps(() => store.drawings.updateWinnerLabels(d.id, [{ displayName: "Ada L.", avatarUrl: null }, { displayName: "Bo", avatarUrl: null }])))[0]).toBeGreaterThan(0);
    expect(await bumps(() => store.drawings.setPrizes(d.id, [{ position: 0, randomValue: "0x01", roll: 5, amountCents: 100, held: true }]))).toEqual([1, 0]);
    expect(await bumps(() => store.drawings.setHeldStatus(d.id, 0, "paid", null, 42))).toEqual([1, 0]);
    expect(await bumps(() => store.drawings.replaceWinners(d.id, []))).toEqual([2, 0]); // two rows deleted
    // Through the partner API's domain function: a list and, with the same ids, new names.
    const e = await drawing(campaign);
    const winners = [{ winner: "u-1", displayName: null, avatarUrl: null }, { winner: "u-2", displayName: null, avatarUrl: null }];
    expect((await bumps(async () => submitWinners(store, await current(), e.id, winners)))[0]).toBeGreaterThan(0);
    expect((await bumps(async () => submitWinners(store, await current(), e.id, winners.map((w) => ({ ...w, displayName: `${w.winner}!` })))))[0]).toBeGreaterThan(0);
    expect((await store.drawings.winners(e.id)).map((w) => w.displayName)).toEqual(["u-1!", "u-2!"]);
  });

  it("moves with its logo: set, replaced, removed", async () => {
    const logo = (etag: string) => ({ bytes: PNG, contentType: "image/png" as const, etag, updatedAt: new Date().toISOString() });
    expect(await bumps(() => store.portal.setLogo(campaign.id, logo('"a"')))).toEqual([1, 0]);
    expect(await bumps(() => store.portal.setLogo(campaign.id, logo('"b"')))).toEqual([1, 0]);
    expect(await bumps(() => store.portal.removeLogo(campaign.id))).toEqual([1, 0]);
  });

  it("does not move for writes its public reads do not show", async () => {
    const mine = await drawing(campaign);
    // Another campaign's drawing, winners and logo.
    const theirs = await drawing(other);
    expect(await bumps(() => store.drawings.replaceWinners(theirs.id, [{ winnerId: "x", displayName: null, avatarUrl: null }]))).toEqual([0, 1]);
    expect(await bumps(() => store.drawings.update({ ...theirs, status: "locked" }))).toEqual([0, 1]);
    expect(await bumps(async () => store.campaigns.update({ ...(await store.campaigns.byId(other.id))!, name: "Other" }))).toEqual([0, 1]);
    // Audit rows, API keys, members, the finalized block, pauses, entries rows alone.
    expect(await bumps(() => store.audit.record("operator", "campaign.note", "cached", { x: 1 }))).toEqual([0, 0]);
    expect(
      await bumps(() =>
        store.accounts.insertKey({ keyId: newId("key"), accountId, environment: "test", secretHash: "h", last4: "abcd", createdBy: null, createdAt: new Date().toISOString(), revokedAt: null, lastUsedAt: null }),
      ),
    ).toEqual([0, 0]);
    expect(await bumps(() => store.accounts.addMember({ id: newId("mem"), accountId, email: "m@example.com", role: "member", createdAt: new Date().toISOString() }))).toEqual([0, 0]);
    expect(await bumps(() => store.finality.set(1_000, new Date().toISOString()))).toEqual([0, 0]);
    expect(await bumps(() => store.entries.insertNew(mine.id, [{ entrantId: "e-1", weight: 1, displayName: null, avatarUrl: null }]))).toEqual([0, 0]);
    expect(await bumps(() => store.pauses.start(campaign.id, new Date().toISOString()))).toEqual([0, 0]);
  });

  it("entries: a submission moves its campaign's version (the drawing's running count), not another's", async () => {
    const entries = await newCampaign("entries", "entries");
    await transitionCampaign(store, "entries", "activate");
    const before = [await version(entries), await version(campaign)];
    await submitEntries(store, (await store.campaigns.byId(entries.id))!, [{ entrantId: "e-1", weight: 2, displayName: null, avatarUrl: null }], new Date());
    expect(await version(entries)).toBeGreaterThan(before[0]!);
    expect(await version(campaign)).toBe(before[1]);
  });

  it("is bumped inside the writing transaction: a rolled-back write leaves it", async () => {
    const v = await version();
    await expect(
      store.tx(async () => {
        await store.campaigns.update({ ...(await current()), name: "Never" });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await version()).toBe(v);
  });

  it("seeds version 1 for the campaigns of a store upgraded to migration 11, which the triggers then move", async () => {
    const file = path.join(files.dir, "old.sqlite");
    // A store from before migration 11: campaigns written, then public_versions, its triggers and the migration's
    // record taken out again (SQLite's own file; the store applies each migration it has no record of).
    const old = await openServiceStore(file);
    await old.accounts.createAccount("acc_old", new Date().toISOString());
    const c = await dailyCampaign(old, "acc_old", "old", { name: "Old" });
    const oldDb = rawSqlite(old);
    const migration11 = MIGRATIONS.find((m) => m.version === 11)!;
    for (const trigger of migration11.sql.matchAll(/CREATE TRIGGER (\w+)/g)) oldDb.exec(`DROP TRIGGER ${trigger[1]!}`);
    oldDb.exec("DROP TABLE public_versions; DELETE FROM schema_migrations WHERE version = 11;");
    expect(oldDb.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'public_version%'").pluck().get()).toBe(0);
    await old.close();
    const upgraded = await openServiceStore(file);
    try {
      expect(await upgraded.publicVersions.get(c.id)).toBe(1);
      await upgraded.campaigns.update({ ...(await upgraded.campaigns.byId(c.id))!, name: "Upgraded" });
      expect(await upgraded.publicVersions.get(c.id)).toBe(2);
    } finally {
      await upgraded.close();
    }
  });
});

describe("store.drawings.nextFinalBlock", () => {
  it("is the lowest block above the finalized one that makes a settled or paid result final", async () => {
    expect(await store.drawings.nextFinalBlock(campaign.id, -1)).toBeNull();
    await drawing(campaign, { status: "settled", revealBlock: 100 });
    await drawing(campaign, { status: "paid", revealBlock: 90, paidBlock: 130 }); // final only once its payout is
    expect(await store.drawings.nextFinalBlock(campaign.id, -1)).toBe(100);
    expect(await store.drawings.nextFinalBlock(campaign.id, 99)).toBe(100);
    expect(await store.drawings.nextFinalBlock(campaign.id, 100)).toBe(130);
    expect(await store.drawings.nextFinalBlock(campaign.id, 129)).toBe(130);
    expect(await store.drawings.nextFinalBlock(campaign.id, 130)).toBeNull();
  });

  it("ignores results whose blocks are not recorded, drawings without a result and other campaigns", async () => {
    await drawing(campaign, { status: "settled", revealBlock: null });
    await drawing(campaign, { status: "paid", revealBlock: 50, paidBlock: null });
    await drawing(campaign, { status: "paid", revealBlock: null, paidBlock: 60 });
    await drawing(campaign, { status: "entropy_requested", revealBlock: 40 });
    await drawing(campaign, { status: "open", revealBlock: 45, paidBlock: 46 });
    await drawing(other, { status: "settled", revealBlock: 10 });
    expect(await store.drawings.nextFinalBlock(campaign.id, -1)).toBeNull();
    expect(await store.drawings.nextFinalBlock(other.id, -1)).toBe(10);
    await drawing(campaign, { status: "paid", revealBlock: 70, paidBlock: 65 }); // the later of the two counts
    expect(await store.drawings.nextFinalBlock(campaign.id, -1)).toBe(70);
  });
});

describe("PublicCache", () => {
  let cache: PublicCache;
  let renders: number;
  /** A render counted, its body naming the count, kept an hour unless told otherwise. */
  const render = (over: Partial<Render> = {}) => (): Render => {
    renders++;
    return { body: Buffer.from(`render ${renders}`), headers: { "Content-Type": "text/plain" }, expiresAt: Date.now() + HOUR, finalAt: null, ...over };
  };
  /** A promise with its resolve, to hold a render open. */
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { opened, open };
  };
  /** Lets the gets begun so far run up to their render's first await (each reads the store first, asynchronously). */
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

  beforeEach(() => {
    cache = new PublicCache(store);
    renders = 0;
  });

  it("serves a render while nothing changed, with a strong ETag over its body", async () => {
    const first = await cache.get("k", campaign.id, render());
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(first.version).toBe(await version());
    const again = await cache.get("k", campaign.id, render());
    expect(again).toBe(first);
    expect(await cache.fresh("k", campaign.id)).toBe(first);
    expect(renders).toBe(1);
    // Keys are apart: another key renders its own, another campaign's write leaves this one.
    await cache.get("k2", campaign.id, render());
    await drawing(other);
    expect(await cache.fresh("k", campaign.id)).toBe(first);
    expect(renders).toBe(2);
    expect(await cache.fresh("never rendered", campaign.id)).toBeNull();
  });

  it("stops serving a render after each kind of write to the campaign, and renders again", async () => {
    const d = await drawing(campaign);
    const writes: [string, () => Promise<unknown>][] = [
      ["campaign update", async () => store.campaigns.update({ ...(await current()), name: `n${renders}` })],
      ["test clock", () => advanceClock(store, campaign.id, new Date(Date.now() + renders * HOUR))],
      ["drawing insert", () => drawing(campaign)],
      ["drawing update", () => store.drawings.update({ ...d, listSubmittedAt: new Date().toISOString() })],
      ["winners insert", () => store.drawings.replaceWinners(d.id, [{ winnerId: "u-1", displayName: null, avatarUrl: null }])],
      ["winner labels", () => store.drawings.updateWinnerLabels(d.id, [{ displayName: "Ada", avatarUrl: null }])],
      ["winners delete", () => store.drawings.replaceWinners(d.id, [])],
      ["logo set", () => store.portal.setLogo(campaign.id, { bytes: PNG, contentType: "image/png", etag: '"1"', updatedAt: new Date().toISOString() })],
      ["logo replace", () => store.portal.setLogo(campaign.id, { bytes: PNG, contentType: "image/png", etag: '"2"', updatedAt: new Date().toISOString() })],
      ["drawing delete", () => store.drawings.deleteUpcoming(campaign.id, new Date(0).toISOString())],
    ];
    for (const [name, write] of writes) {
      const kept = await cache.get("k", campaign.id, render());
      expect(await cache.fresh("k", campaign.id), name).toBe(kept);
      await write();
      expect(await cache.fresh("k", campaign.id), name).toBeNull();
      const next = await cache.get("k", campaign.id, render());
      expect(next, name).not.toBe(kept);
      expect(next.body.toString(), name).toBe(`render ${renders}`);
      expect(next.version, name).toBe(await version());
    }
    expect(renders).toBe(writes.length + 1);
  });

  it("stops serving a render at its expiry", async () => {
    const expiresAt = Date.now() + 60_000;
    const kept = await cache.get("k", campaign.id, render({ expiresAt }));
    expect(await cache.fresh("k", campaign.id, expiresAt - 1)).toBe(kept);
    expect(await cache.fresh("k", campaign.id, expiresAt)).toBeNull();
    expect(await cache.fresh("k", campaign.id, expiresAt + 1)).toBeNull();
    // An expiry already past: every get renders.
    await cache.get("gone", campaign.id, render({ expiresAt: Date.now() - 1 }));
    await cache.get("gone", campaign.id, render({ expiresAt: Date.now() - 1 }));
    expect(renders).toBe(3);
  });

  it("stops serving a render once the finalized block reaches its finalAt, and not before", async () => {
    // Nothing read yet: a render waiting for block 100 holds.
    const kept = await cache.get("k", campaign.id, render({ finalAt: 100 }));
    expect(await cache.fresh("k", campaign.id)).toBe(kept);
    await store.finality.set(99, new Date().toISOString());
    expect(await cache.fresh("k", campaign.id)).toBe(kept);
    await store.finality.set(100, new Date().toISOString());
    expect(await cache.fresh("k", campaign.id)).toBeNull();
    // A render without provisional results ignores the finalized block.
    const plain = await cache.get("plain", campaign.id, render({ finalAt: null }));
    await store.finality.set(10_000, new Date().toISOString());
    expect(await cache.fresh("plain", campaign.id)).toBe(plain);
    // Past it: the next render (finalAt from nextFinalBlock, say) holds again.
    const after = await cache.get("k", campaign.id, render({ finalAt: await store.drawings.nextFinalBlock(campaign.id, 10_000) }));
    expect(after).not.toBe(kept);
    expect(await cache.fresh("k", campaign.id)).toBe(after);
  });

  it("finalAt from nextFinalBlock: a paid drawing's render turns stale when its payout block is final", async () => {
    await drawing(campaign, { status: "paid", revealBlock: 200, paidBlock: 205 });
    await store.finality.set(150, new Date().toISOString());
    const finalAt = await store.drawings.nextFinalBlock(campaign.id, (await store.finality.get())!.block);
    expect(finalAt).toBe(205);
    const kept = await cache.get("k", campaign.id, render({ finalAt }));
    await store.finality.set(204, new Date().toISOString()); // the reveal is final, the payout not yet: still provisional
    expect(await cache.fresh("k", campaign.id)).toBe(kept);
    await store.finality.set(205, new Date().toISOString());
    expect(await cache.fresh("k", campaign.id)).toBeNull();
  });

  it("shares one render between concurrent misses", async () => {
    const g = gate();
    let calls = 0;
    const slow = async (): Promise<Render> => {
      calls++;
      await g.opened;
      return render()();
    };
    const waiting = [cache.get("k", campaign.id, slow), cache.get("k", campaign.id, slow), cache.get("k", campaign.id, slow)];
    await settle();
    expect(calls).toBe(1);
    g.open();
    const [a, b, c] = await Promise.all(waiting);
    expect(a).toBe(b);
    expect(b).toBe(c);
    expect(calls).toBe(1);
    expect(await cache.get("k", campaign.id, slow)).toBe(a);
    expect(calls).toBe(1);
  });

  it("a failed render fails its waiters and keeps nothing: the next get renders again", async () => {
    const g = gate();
    const failing = async (): Promise<Render> => {
      await g.opened;
      throw new Error("indexer down");
    };
    const waiting = Promise.allSettled([cache.get("k", campaign.id, failing), cache.get("k", campaign.id, failing)]);
    g.open();
    expect((await waiting).map((r) => (r.status === "rejected" ? String(r.reason) : "kept"))).toEqual(["Error: indexer down", "Error: indexer down"]);
    expect(await cache.fresh("k", campaign.id)).toBeNull();
    const next = await cache.get("k", campaign.id, render());
    expect(next.body.toString()).toBe("render 1");
  });

  it("a write made by the render itself leaves its entry stale", async () => {
    const writing = async (): Promise<Render> => {
      await store.drawings.replaceWinners((await drawing(campaign)).id, [{ winnerId: "u", displayName: null, avatarUrl: null }]);
      return render()();
    };
    const first = await cache.get("k", campaign.id, writing);
    expect(first.version).toBeLessThan(await version());
    expect(await cache.fresh("k", campaign.id)).toBeNull();
    const second = await cache.get("k", campaign.id, render());
    expect(second).not.toBe(first);
    expect(renders).toBe(2);
  });

  it("a write made while a render awaits leaves its entry stale: the next get renders again", async () => {
    const g = gate();
    const slow = async (): Promise<Render> => {
      await g.opened;
      return render()();
    };
    const pending = cache.get("k", campaign.id, slow);
    await store.campaigns.update({ ...(await current()), name: "Changed mid-render" });
    g.open();
    const first = await pending;
    expect(await cache.fresh("k", campaign.id)).toBeNull();
    const second = await cache.get("k", campaign.id, render());
    expect(second).not.toBe(first);
    expect(second.version).toBe(await version());
    expect(await cache.fresh("k", campaign.id)).toBe(second);
  });

  it("a get that starts after a write does not share a render that started before it", async () => {
    // Read-your-writes: a client that changed the campaign and then reads must see the change, even when a render
    // begun before the change is still in flight (the page's render awaits the indexer).
    const g = gate();
    let calls = 0;
    const slow = async (): Promise<Render> => {
      calls++;
      const name = (await store.campaigns.byId(campaign.id))!.name; // what the render shows, read when it starts
      await g.opened;
      return { ...render()(), body: Buffer.from(name) };
    };
    const before = cache.get("k", campaign.id, slow);
    await settle();
    await store.campaigns.update({ ...(await current()), name: "After the write" });
    const after = cache.get("k", campaign.id, slow);
    g.open();
    expect((await before).body.toString()).toBe("cached");
    expect((await after).body.toString()).toBe("After the write");
    expect(calls).toBe(2);
    // The later render is the one kept.
    expect((await cache.fresh("k", campaign.id))?.body.toString()).toBe("After the write");
  });

  it("of two overlapping renders, the older finishing last does not replace the newer one's entry", async () => {
    const [first, second] = [gate(), gate()];
    const held = (g: { opened: Promise<void> }) => async (): Promise<Render> => {
      const name = (await store.campaigns.byId(campaign.id))!.name;
      await g.opened;
      return { ...render()(), body: Buffer.from(name) };
    };
    const older = cache.get("k", campaign.id, held(first));
    await settle();
    await store.campaigns.update({ ...(await current()), name: "Newer" });
    const newer = cache.get("k", campaign.id, held(second));
    second.open();
    expect((await newer).body.toString()).toBe("Newer");
    first.open();
    expect((await older).body.toString()).toBe("cached");
    expect((await cache.fresh("k", campaign.id))?.body.toString()).toBe("Newer");
    // Both in-flight markers are gone: the next miss renders (after a write) instead of waiting on either.
    await store.campaigns.update({ ...(await current()), name: "Newest" });
    expect((await cache.get("k", campaign.id, held(first))).body.toString()).toBe("Newest");
  });

  it("keeps at most 2000 renders, dropping the oldest", async () => {
    for (let i = 0; i < 2_001; i++) await cache.get(`k${i}`, campaign.id, render());
    expect(await cache.fresh("k0", campaign.id)).toBeNull();
    expect(await cache.fresh("k1", campaign.id)).not.toBeNull();
    expect(await cache.fresh("k2000", campaign.id)).not.toBeNull();
  });

  it("keeps at most 64 MiB of bodies, dropping the oldest; a render again after a write replaces its own entry", async () => {
    const big = (fill: number) => () => ({ body: Buffer.alloc(30 * 1024 * 1024, fill), headers: {}, expiresAt: Date.now() + 60_000, finalAt: null });
    await cache.get("a", campaign.id, big(1));
    await cache.get("b", campaign.id, big(2));
    expect(await cache.fresh("a", campaign.id)).not.toBeNull();
    await cache.get("c", campaign.id, big(3)); // 90 MiB would be over: "a" goes
    expect(await cache.fresh("a", campaign.id)).toBeNull();
    expect(await cache.fresh("b", campaign.id)).not.toBeNull();
    expect(await cache.fresh("c", campaign.id)).not.toBeNull();
    // A write makes both stale; each renders again into its own place, both kept (60 MiB).
    await store.campaigns.update({ ...(await store.campaigns.byId(campaign.id))!, name: "Bigger" });
    await cache.get("c", campaign.id, big(4));
    await cache.get("b", campaign.id, big(5));
    expect((await cache.fresh("b", campaign.id))?.body[0]).toBe(5);
    expect((await cache.fresh("c", campaign.id))?.body[0]).toBe(4);
  });
});
