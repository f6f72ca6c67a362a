// The keeper lease: the store's named leases (one holder at a time, taken when free, expired or the
// holder's process is gone; renewed by its holder) and the lease loop that starts and stops a process's keeper.

import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import pino from "pino";
import { beforeEach, describe, expect, it } from "vitest";
import { KEEPER_LEASE, KeeperLease, holderGone, newHolderId } from "../../api/src/keeper/lease.js";
import { type Store } from "../../api/src/store/index.js";
import { storeFilePerTest } from "../support/store.js";

const files = storeFilePerTest("prizedraw-lease");
let store: Store;
let other: Store;

beforeEach(async () => {
  store = await files.open();
  other = await files.open(); // a second connection, as a second process has
});

/** A pid that ran on this machine and no longer does. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

describe("leases in the store", () => {
  it("one holder at a time: taken when free, renewed by its holder, refused to others until it expires", async () => {
    expect(await store.leases.acquire("keeper", "a", 1_000, 15_000)).toBe(true);
    expect(await other.leases.acquire("keeper", "b", 2_000, 15_000)).toBe(false);
    expect(await store.leases.acquire("keeper", "a", 6_000, 15_000)).toBe(true);
    expect(await other.leases.current("keeper")).toEqual({ name: "keeper", holder: "a", expiresAt: 21_000, acquiredAt: 1_000 });
    expect(await other.leases.acquire("keeper", "b", 20_999, 15_000)).toBe(false);
    expect(await other.leases.acquire("keeper", "b", 21_000, 15_000)).toBe(true);
    expect(await store.leases.current("keeper")).toEqual({ name: "keeper", holder: "b", expiresAt: 36_000, acquiredAt: 21_000 });
    expect(await store.leases.acquire("keeper", "a", 22_000, 15_000)).toBe(false);
  });

  it("release frees it at once, and only its holder can release it", async () => {
    await store.leases.acquire("keeper", "a", 1_000, 15_000);
    expect(await other.leases.release("keeper", "b")).toBe(false);
    expect((await other.leases.current("keeper"))?.holder).toBe("a");
    expect(await store.leases.release("keeper", "a")).toBe(true);
    expect(await other.leases.current("keeper")).toBeNull();
    expect(await other.leases.acquire("keeper", "b", 1_001, 15_000)).toBe(true);
  });

  it("a holder the caller knows is gone is taken over before its expiry", async () => {
    await store.leases.acquire("keeper", "dead", 1_000, 15_000);
    expect(await other.leases.acquire("keeper", "b", 2_000, 15_000, (h) => h === "dead")).toBe(true);
    expect(await other.leases.acquire("keeper", "c", 3_000, 15_000, (h) => h === "dead")).toBe(false);
  });
});

describe("holderGone", () => {
  it("is true only for a process of this machine that no longer runs", () => {
    expect(holderGone(newHolderId())).toBe(false); // this process
    expect(holderGone(`${hostname()}:${process.ppid}:abc`)).toBe(false); // the parent runs
    expect(holderGone(`${hostname()}:${deadPid()}:abc`)).toBe(true);
    expect(holderGone(`another-host.example:${deadPid()}:abc`)).toBe(false); // another machine's: wait for expiry
    expect(holderGone("not an id")).toBe(false);
  });
});

describe("KeeperLease", () => {
  const logger = pino({ level: "silent" });

  it("starts the work of one process only; a clean stop hands over at the other's next try; a dead holder's lease is taken at once", async () => {
    const events: string[] = [];
    const make = (name: string, s: Store) => new KeeperLease({ store: s, logger, onAcquired: () => events.push(`${name} on`), onLost: () => events.push(`${name} off`), renewMs: 60_000 });
    const a = make("a", store);
    const b = make("b", other);
    await a.start();
    await b.start();
    expect(events).toEqual(["a on"]);
    expect([a.holds(), b.holds(), await a.confirm()]).toEqual([true, false, true]);
    await a.stop();
    expect(await store.leases.current(KEEPER_LEASE)).toBeNull();
    await (b as unknown as { tick(): Promise<void> }).tick();
    expect(events).toEqual(["a on", "b on"]);
    await b.stop();

    // A holder on this machine whose process is gone: its lease, still 15 s from expiry, is taken at once.
    await store.leases.acquire(KEEPER_LEASE, `${hostname()}:${deadPid()}:abc`, Date.now(), 15_000);
    const c = make("c", store);
    await c.start();
    expect(c.holds()).toBe(true);
    // Taken by another (this process was paused past its expiry): confirm() sees it and the work stops.
    await other.conn.q().updateTable("leases").set({ holder: "elsewhere:1:x" }).where("name", "=", KEEPER_LEASE).execute();
    expect(await c.confirm()).toBe(false);
    expect(events.at(-1)).toBe("c off");
    await c.stop();
    expect((await other.leases.current(KEEPER_LEASE))?.holder).toBe("elsewhere:1:x"); // not released: it was not c's
  });
});
