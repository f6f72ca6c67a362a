/**
 * The CPU-heavy half of a proof's build, the same in the proof worker (domain/proofWorker.ts) and, when no worker
 * bundle is found, on the calling thread (domain/proofBuilder.ts): hashes the entrant ids as pages of them arrive,
 * then assembles and checks the version 6 proof (draw/proof.ts refuses ids that do not hash to the onchain
 * commitments) and serializes it with its finality. For 100,000 entrants that is seconds of CPU: 100,000 keccak
 * hashes, the list's commitment over 6.4 MB, and 9 MB of JSON.
 */
import { createHash } from "node:crypto";
import { DrawInputError, ProofMismatchError, buildProofV6, winnerHash, type DrawInputErrorCode, type Hex, type ProofInputV6, type ProofMismatchKind } from "../draw/index.js";
import type { Finality } from "./finality.js";

/** A page of a drawing's entrants in list order: ids and weights side by side (cheap to pass to a worker). */
export type EntrantPage = { ids: string[]; weights: number[] };

/** A built body (UTF-8 JSON) and its SHA-256 in base64url, from which the strong ETag is made. */
export type ProofBytes = { body: Uint8Array; sha256: string };

/** A proof refused by the draw rules, as it crosses from the worker: enough to throw the same error again. */
export type RefusedProof = { name: "ProofMismatchError"; kind: ProofMismatchKind; message: string } | { name: "DrawInputError"; code: DrawInputErrorCode; message: string };

/** What the builder sends the worker: a job's entrant pages, then its input (which starts the build), or a drop. */
export type ToWorker =
  | { type: "entrants"; job: number; page: EntrantPage }
  | { type: "build"; job: number; input: ProofInputV6; finality: Finality }
  | { type: "drop"; job: number };

/** What the worker answers a build: the body (its buffer transferred, not copied), a refusal, or a failure. */
export type FromWorker =
  | { job: number; ok: true; body: Uint8Array; sha256: string }
  | { job: number; ok: false; refused: RefusedProof | null; message: string };

/** One body being built: its entrants arrive page by page, then its input. */
export class ProofRender {
  private readonly list: { hash: Hex; weight: number }[] = [];

  addEntrants(page: EntrantPage): void {
    for (let i = 0; i < page.ids.length; i++) this.list.push({ hash: winnerHash(page.ids[i]!), weight: page.weights[i]! });
  }

  /**
   * The body of `input` (whose entrant list, if any, is the pages added) with `finality` last, as the proof route
   * always served it: JSON.stringify({ ...proof, finality }).
   */
  finish(input: ProofInputV6, finality: Finality): ProofBytes {
    const proof = buildProofV6({ ...input, entrants: input.entrants === null ? null : { ...input.entrants, list: this.list } });
    const body = new TextEncoder().encode(JSON.stringify({ ...proof, finality }));
    return { body, sha256: createHash("sha256").update(body).digest("base64url") };
  }
}

/** The refusal `error` describes, or null when it is no refusal of the draw rules (a bug, an exhausted worker). */
export function refusalOf(error: unknown): RefusedProof | null {
  if (error instanceof ProofMismatchError) return { name: "ProofMismatchError", kind: error.kind, message: error.message };
  if (error instanceof DrawInputError) return { name: "DrawInputError", code: error.code, message: error.message };
  return null;
}

/** The error a refusal was, thrown again on this side. */
export function refusalError(refused: RefusedProof): ProofMismatchError | DrawInputError {
  return refused.name === "ProofMismatchError" ? new ProofMismatchError(refused.kind, refused.message) : new DrawInputError(refused.code, refused.message);
}
