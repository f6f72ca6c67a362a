/**
 * The public reads rendered once per change: the campaign page and draws.json are kept as bytes with their ETag,
 * and served again while nothing they show can have changed:
 * - the campaign's public version is the same (store/publicVersions.ts: triggers bump it on every write to the
 *   campaign, its drawings, their winners or its logo, from any process);
 * - the chain's finalized block has not reached a block that makes one of its provisional results final;
 * - its expiry has not come: the next cutoff (the next open drawing changes then, with no write), or a bound of its
 *   own (the page re-reads the indexer's commit count at most every 15 seconds).
 * Checking costs two indexed reads (the campaign by slug, its version); the finalized block is read only for an
 * entry with provisional results. Requests that miss together share one render.
 * proof.json bodies are kept here too (`proofs`), under rules of their own: http/proofRenders.ts.
 */
import { createHash } from "node:crypto";
import type { Store } from "../store/index.js";
import { BodyStore } from "./bodyStore.js";
import { ProofRenders } from "./proofRenders.js";

/** What a route renders: the body and its headers, and until when it holds apart from version changes. */
export type Render = {
  body: Buffer;
  headers: Record<string, string>;
  /** Real time (ms) from which it is rendered again. */
  expiresAt: number;
  /** The lowest finalized block at which one of its provisional results becomes final; null when none is. */
  finalAt: number | null;
};

/** A kept render: its strong ETag (over the body) and the campaign version it was rendered at. */
export type Rendered = Render & { etag: string; version: number };

/** A strong ETag of a body. */
export function etagOf(body: Buffer): string {
  return `"${createHash("sha256").update(body).digest("base64url")}"`;
}

/** Renders kept at most (query variants of draws.json are keys of their own); the oldest goes first. */
const MAX_ENTRIES = 2_000;
/** Bytes of bodies kept at most, besides their count (a page listing many draws is large). */
const MAX_BYTES = 64 * 1024 * 1024;

export class PublicCache {
  private readonly entries = new BodyStore<Rendered>(MAX_ENTRIES, MAX_BYTES);
  /** Renders in flight by key, with the campaign version each began at. */
  private readonly rendering = new Map<string, { version: number; run: Promise<Rendered> }>();

  /** proof.json bodies: built once per state of what they show (http/proofRenders.ts). */
  readonly proofs: ProofRenders;

  constructor(private readonly store: Store) {
    this.proofs = new ProofRenders(store);
  }

  /** The render kept for `key` if it still holds for the campaign now; else null. */
  async fresh(key: string, campaignId: string, now: number = Date.now()): Promise<Rendered | null> {
    return this.freshAt(key, await this.store.publicVersions.get(campaignId), now);
  }

  /** As `fresh`, with the campaign's version already read (the fast path reads it with the campaign's id). */
  async freshAt(key: string, version: number, now: number = Date.now()): Promise<Rendered | null> {
    const entry = this.entries.get(key);
    if (!entry || now >= entry.expiresAt || entry.version !== version) return null;
    if (entry.finalAt !== null && ((await this.store.finality.get())?.block ?? -1) >= entry.finalAt) return null;
    return entry;
  }

  /** The render of `key`: the kept one while it holds, else a new one from `render` (shared by concurrent misses). */
  async get(key: string, campaignId: string, render: () => Promise<Render> | Render): Promise<Rendered> {
    // The version is read before rendering: a write during the render leaves the entry one version behind, so
    // the next request renders again instead of keeping what the write changed.
    const version = await this.store.publicVersions.get(campaignId);
    const kept = await this.freshAt(key, version);
    if (kept) return kept;
    // A render begun at this version is shared; one begun before a write is not (a request made after the write
    // must see it), so that request renders anew. From here to `rendering.set` nothing is awaited: the check and
    // the claim are one step, so requests that reach this point at the same version share one render.
    const pending = this.rendering.get(key);
    if (pending?.version === version) return pending.run;
    const run = (async () => {
      const rendered = await render();
      const entry: Rendered = { ...rendered, version, etag: etagOf(rendered.body) };
      const current = this.entries.get(key);
      if (!current || current.version <= version) this.entries.keep(key, entry);
      return entry;
    })().finally(() => {
      if (this.rendering.get(key)?.run === run) this.rendering.delete(key);
    });
    this.rendering.set(key, { version, run });
    return run;
  }
}
