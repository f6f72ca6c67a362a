/**
 * proof.json bodies, built once per state of what they show and served from memory until that state changes. A
 * state (domain/proofs.ts, ProofSources.state) is everything a body follows from: the indexed chain data, the ids and
 * names from the store, and the finality. What changes one:
 * - a write to the campaign (its public version moves: store/publicVersions.ts), e.g. a renamed winner or a drawing
 *   stepped back after a reorg; the state is read again, and a write that changes nothing the proof shows (the next
 *   drawing's list, the test clock) keeps the body;
 * - the chain's finalized block reaching the result's blocks: the result turns final (`finalAt`), built once more;
 * - a reorg, for a provisional result: a kept body is served only if its chain data was read within
 *   PROVISIONAL_CHECK_MS (a second); while it is requested it is read again from REREAD_AHEAD_MS on, in the
 *   background (about once a second), so steady requests never wait for the read. A reorg that drops the reveal
 *   stops the proof within the indexer's poll plus that second, and one that replaces it gives a new state, built once.
 * A request with nothing to read again costs two primary-key reads (the version, the finalized block) and a lookup,
 * before Hono (http/publicFastPath.ts). Requests that need a read share one (per proof and version), requests that
 * find the same new state share one build, and requests that arrive meanwhile wait for it, never start another. A
 * state whose build was refused (409 proof_mismatch) is refused again without a build until it changes. Builds run in
 * the proof worker (domain/proofBuilder.ts).
 */
import { ServiceError } from "../domain/errors.js";
import { proofBuildDuration, proofBuilds, proofStateChecks } from "../metrics/registry.js";
import type { Store } from "../store/index.js";
import { BodyStore } from "./bodyStore.js";
import type { Rendered } from "./publicCache.js";

/** How long a provisional body is served after its chain data was read (ms). */
export const PROVISIONAL_CHECK_MS = 1_000;
/** From this age a requested provisional body's chain data is read again in the background, while it is still served. */
const REREAD_AHEAD_MS = 750;
/** A final body is read again after this long whatever else holds (a bound on anything this module did not foresee). */
const FINAL_CHECK_MS = 60 * 60_000;
/** Bytes of bodies kept at most (a proof of 100,000 entrants is about 9 MB); the oldest build goes first. */
const MAX_BYTES = 64 * 1024 * 1024;
/** Bodies kept at most. */
const MAX_ENTRIES = 2_000;

/** What a read of a proof's sources found: the state, whether it is final, and how to build its body. */
export type ProofCheck = {
  state: string;
  final: boolean;
  finalAt: number | null;
  build: () => Promise<{ body: Buffer; headers: Record<string, string>; sha256: string }>;
};

/**
 * A kept body: a render (http/publicCache.ts) with the state it was built from, when that state was last read, and
 * the read that found it, which may read it again at the same campaign version (the campaign's row is then the same).
 */
export type ProofRender = Rendered & { state: string; checkedAt: number; final: boolean; recheck: () => Promise<ProofCheck> };

export class ProofRenders {
  private readonly entries = new BodyStore<ProofRender>(MAX_ENTRIES, MAX_BYTES);
  /** Reads of a proof's sources in flight, by proof key, with the campaign version each began at. */
  private readonly checking = new Map<string, { version: number; run: Promise<ProofRender> }>();
  /** Builds in flight, by proof key and state. */
  private readonly building = new Map<string, Promise<Pick<ProofRender, "body" | "headers" | "etag">>>();
  /**
   * The state whose build was refused (the store and the chain disagree: 409, the drawing flagged), by proof key: the
   * same state is refused again without another build; a write that changes it (a corrected list) is built.
   */
  private readonly refused = new Map<string, { state: string; error: unknown }>();

  /** Reads only the finalized block (a body is checked against the campaign's version by its callers). */
  constructor(private readonly store: { finality: Pick<Store["finality"], "get"> }) {}

  /**
   * The body kept for `key` if it can be served now with no other read: the campaign's version is the one it was
   * read at, its chain data was read within PROVISIONAL_CHECK_MS (a final body: within FINAL_CHECK_MS), and the
   * finalized block has not made its provisional result final. Else null. A provisional body near the end of its
   * second is read again in the background meanwhile, so that steady requests find it fresh.
   */
  async fresh(key: string, version: number, now: number = Date.now()): Promise<ProofRender | null> {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version || now >= entry.expiresAt) return null;
    if (entry.finalAt !== null && ((await this.store.finality.get())?.block ?? -1) >= entry.finalAt) return null;
    if (!entry.final && now - entry.checkedAt >= REREAD_AHEAD_MS) {
      // A failed read is not this request's: the next one that needs the read makes it again, and answers its error.
      void this.shared(key, version, entry.recheck).catch(() => undefined);
    }
    return entry;
  }

  /**
   * What the fast path can answer without the route: a fresh body, or one being read or built at this version, or
   * read again with the read that found the kept one (waited for). Null when the route must read (nothing kept at
   * this version, or the read failed: the route reads again and answers the failure).
   */
  async ready(key: string, version: number): Promise<ProofRender | null> {
    const kept = await this.fresh(key, version);
    if (kept) return kept;
    const pending = this.checking.get(key);
    const entry = this.entries.get(key);
    let run: Promise<ProofRender>;
    if (pending?.version === version) run = pending.run;
    else if (entry?.version === version) run = this.shared(key, version, entry.recheck);
    else return null;
    try {
      return await run;
    } catch {
      return null;
    }
  }

  /**
   * The body of `key`: the kept one while it is fresh; else `check` reads the proof's sources (once for the requests
   * that arrive meanwhile at this version) and the kept body is served if their state is its state, or a body is
   * built for the new state (once, however many requests find it). `version` is read before the sources: a write
   * during the read leaves the body a version behind, so the next request reads again.
   */
  async get(key: string, version: number, check: () => Promise<ProofCheck>): Promise<ProofRender> {
    return (await this.fresh(key, version)) ?? this.shared(key, version, check);
  }

  /** The read of `key` at `version` in flight, or a new one. */
  private shared(key: string, version: number, check: () => Promise<ProofCheck>): Promise<ProofRender> {
    // Nothing is awaited between the lookup and `checking.set`: requests at one version share one read.
    const pending = this.checking.get(key);
    if (pending?.version === version) return pending.run;
    const run = this.check(key, version, check).finally(() => {
      if (this.checking.get(key)?.run === run) this.checking.delete(key);
    });
    this.checking.set(key, { version, run });
    return run;
  }

  private async check(key: string, version: number, check: () => Promise<ProofCheck>): Promise<ProofRender> {
    const checkedAt = Date.now();
    let found: ProofCheck;
    try {
      found = await check();
    } catch (error) {
      proofStateChecks.inc({ result: "unavailable" });
      // Not drawn, not indexed (or no longer: a reorg), refused: nothing kept is served for it any more.
      if (error instanceof ServiceError) this.entries.drop(key);
      throw error;
    }
    const refusal = this.refused.get(key);
    if (refusal?.state === found.state) {
      proofStateChecks.inc({ result: "unavailable" });
      throw refusal.error;
    }
    const expiresAt = checkedAt + (found.final ? FINAL_CHECK_MS : PROVISIONAL_CHECK_MS);
    const current = this.entries.get(key);
    if (current?.state === found.state) {
      proofStateChecks.inc({ result: "unchanged" });
      // The same bytes hold: only what was read, and when, moves (unless a later read got there first).
      if (current.version <= version) Object.assign(current, { version, checkedAt, expiresAt, finalAt: found.finalAt, recheck: check });
      return current;
    }
    proofStateChecks.inc({ result: "changed" });
    const { body, headers, etag } = await this.built(key, found);
    const entry: ProofRender = { body, headers, etag, expiresAt, finalAt: found.finalAt, version, state: found.state, checkedAt, final: found.final, recheck: check };
    const latest = this.entries.get(key);
    if (!latest || latest.version <= version) this.entries.keep(key, entry);
    return entry;
  }

  /** The body of `found.state`, built once: a build of the same state already running is shared. */
  private built(key: string, found: ProofCheck): Promise<Pick<ProofRender, "body" | "headers" | "etag">> {
    const id = `${key} ${found.state}`;
    let run = this.building.get(id);
    if (run === undefined) {
      const finality = found.final ? "final" : "provisional";
      const stop = proofBuildDuration.startTimer({ finality });
      run = found
        .build()
        .then(
          ({ body, headers, sha256 }) => {
            proofBuilds.inc({ finality, outcome: "built" });
            this.refused.delete(key);
            return { body, headers, etag: `"${sha256}"` };
          },
          (error: unknown) => {
            const refusal = error instanceof ServiceError;
            proofBuilds.inc({ finality, outcome: refusal ? "refused" : "failed" });
            if (refusal) {
              this.entries.drop(key);
              this.refused.delete(key);
              if (this.refused.size >= MAX_ENTRIES) this.refused.delete(this.refused.keys().next().value!);
              this.refused.set(key, { state: found.state, error });
            }
            throw error;
          },
        )
        .finally(() => {
          stop();
          this.building.delete(id);
        });
      this.building.set(id, run);
    }
    return run;
  }
}
