// The rules of kept proof bodies (http/proofRenders.ts) without the stack: one read and one build for requests that
// arrive together, a provisional body served only within a second of its read and read again in the background near
// its end, a body built once per state (the same state read again builds nothing; a new one, or a result turned final
// by the finalized block, is built once, with the requests meanwhile waiting for it), a refused build not made again
// for the same state, and nothing served at another campaign version before the route has read it.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { NotFoundError, ServiceError } from "../../api/src/domain/errors.js";
import { PROVISIONAL_CHECK_MS, ProofRenders, type ProofCheck } from "../../api/src/http/proofRenders.js";
import type { FinalizedBlock } from "../../api/src/store/finality.js";

const KEY = "proof cmp_a drw_1";
const START = Date.UTC(2026, 10, 28, 12);

let finalized: FinalizedBlock | null;
let renders: ProofRenders;
/** What the next read finds, and how often reads and builds ran. */
let source: { state: string; final: boolean; finalAt: number | null; refuse?: boolean };
let reads: number;
let builds: number;
/** A build waits for this before it ends (resolved at once unless a test holds it). */
let release: Promise<void>;

function check(): Promise<ProofCheck> {
  reads++;
  const found = { ...source };
  return Promise.resolve({
    ...found,
    build: async () => {
      builds++;
      await release;
      if (found.refuse) throw new ServiceError(409, "proof_mismatch", "refused");
      return { body: Buffer.from(`{"state":"${found.state}"}`), headers: { "Content-Type": "application/json" }, sha256: `sha-${found.state}` };
    },
  });
}

/** Lets the promises already settled run their callbacks (background reads, shared builds). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(START);
  finalized = { block: 10, readAt: new Date(START).toISOString() };
  renders = new ProofRenders({ finality: { get: async () => finalized } });
  source = { state: "a", final: false, finalAt: 20 };
  reads = 0;
  builds = 0;
  release = Promise.resolve();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("kept proof bodies", () => {
  it("share one read and one build between requests that arrive together, and answer later ones from memory", async () => {
    const first = await Promise.all(Array.from({ length: 10 }, () => renders.get(KEY, 1, check)));
    expect(new Set(first).size).toBe(1);
    expect(first[0]!.etag).toBe('"sha-a"');
    expect([reads, builds]).toEqual([1, 1]);
    for (let i = 0; i < 10; i++) expect(await renders.get(KEY, 1, check)).toBe(first[0]);
    expect(await renders.ready(KEY, 1)).toBe(first[0]);
    expect([reads, builds]).toEqual([1, 1]);
  });

  it("serve a provisional body within a second of its read, reading it again in the background near its end; the same state builds nothing", async () => {
    const kept = await renders.get(KEY, 1, check);
    vi.setSystemTime(START + PROVISIONAL_CHECK_MS - 100);
    expect(await renders.ready(KEY, 1)).toBe(kept); // served, and read again meanwhile
    await settle();
    expect([reads, builds]).toEqual([2, 1]);
    // The read moved its second on: past the first read's second, it is still fresh.
    vi.setSystemTime(START + PROVISIONAL_CHECK_MS + 100);
    expect(await renders.fresh(KEY, 1)).toBe(kept);
    // Past its second with no request meanwhile: not served before a read, which the fast path waits for.
    vi.setSystemTime(START + 3 * PROVISIONAL_CHECK_MS);
    expect(await renders.fresh(KEY, 1)).toBeNull();
    expect(await renders.ready(KEY, 1)).toBe(kept);
    expect([reads, builds]).toEqual([3, 1]);
  });

  it("build a new state once, the requests during the build waiting for it; a result turned final by the finalized block too", async () => {
    const provisional = await renders.get(KEY, 1, check);
    // A reorg replaced the reveal: another state, read after the second.
    source = { state: "b", final: false, finalAt: 25 };
    vi.setSystemTime(START + 2 * PROVISIONAL_CHECK_MS);
    let open!: () => void;
    release = new Promise((resolve) => (open = resolve));
    const waiting = Array.from({ length: 5 }, () => renders.ready(KEY, 1));
    await settle();
    expect([reads, builds]).toEqual([2, 2]);
    open();
    const replaced = await Promise.all(waiting);
    expect(new Set(replaced).size).toBe(1);
    expect(replaced[0]).not.toBe(provisional);
    expect(replaced[0]!.body.toString()).toBe('{"state":"b"}');
    // The finalized block reaches the result's blocks: the kept body no longer holds, the final one is built once.
    finalized = { block: 25, readAt: new Date().toISOString() };
    expect(await renders.fresh(KEY, 1)).toBeNull();
    source = { state: "c", final: true, finalAt: null };
    const final = await Promise.all(Array.from({ length: 5 }, () => renders.ready(KEY, 1)));
    expect(new Set(final).size).toBe(1);
    expect(final[0]!.body.toString()).toBe('{"state":"c"}');
    expect([reads, builds]).toEqual([3, 3]);
    // Final: served with no read for an hour (a write to the campaign still ends it: another version).
    vi.setSystemTime(START + 30 * 60_000);
    expect(await renders.ready(KEY, 1)).toBe(final[0]);
    expect(reads).toBe(3);
  });

  it("at another campaign version serve nothing before the route reads, and keep the body when the read finds the same state", async () => {
    const kept = await renders.get(KEY, 1, check);
    expect(await renders.fresh(KEY, 2)).toBeNull();
    expect(await renders.ready(KEY, 2)).toBeNull(); // the route must read: the campaign's row may have changed
    expect(reads).toBe(1);
    expect(await renders.get(KEY, 2, check)).toBe(kept); // a write that changed nothing the proof shows
    expect(await renders.ready(KEY, 2)).toBe(kept);
    expect([reads, builds]).toEqual([2, 1]);
  });

  it("refuse a refused state again without another build, and build it once it changes", async () => {
    source = { state: "bad", final: false, finalAt: 20, refuse: true };
    await expect(renders.get(KEY, 1, check)).rejects.toMatchObject({ code: "proof_mismatch" });
    await expect(renders.get(KEY, 2, check)).rejects.toMatchObject({ code: "proof_mismatch" });
    expect([reads, builds]).toEqual([2, 1]);
    source = { state: "fixed", final: false, finalAt: 20 };
    expect((await renders.get(KEY, 3, check)).body.toString()).toBe('{"state":"fixed"}');
    expect(builds).toBe(2);
  });

  it("drop the kept body when a read finds no proof (not drawn, or no longer indexed)", async () => {
    await renders.get(KEY, 1, check);
    vi.setSystemTime(START + 2 * PROVISIONAL_CHECK_MS);
    const gone = () => Promise.reject(new NotFoundError("no drawn draw with this id"));
    await expect(renders.get(KEY, 1, gone)).rejects.toBeInstanceOf(NotFoundError);
    expect(await renders.ready(KEY, 1)).toBeNull();
  });
});
