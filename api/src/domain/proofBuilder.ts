/**
 * Builds proof bodies in a worker thread (domain/proofWorker.ts), one job at a time. The calling thread only reads
 * the store, a page of entrants per query, yielding between pages, and passes the pages on; hashing the ids,
 * checking them against the commitment and serializing the body (seconds of CPU for 100,000 entrants) happen in
 * the worker, so the HTTP server, the partner API and the keeper, which share the calling thread, keep answering.
 * One job at a time bounds what builds cost however many drawings are asked for: one core at most, and one
 * drawing's entrants in memory.
 *
 * The worker runs from its bundle beside the running service's (api/dist/proofWorker.mjs, scripts/build-service.mjs).
 * Run from source (tsx, vitest), there is none: the same code (domain/proofRender.ts) then runs on the calling thread.
 */
import { existsSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type { ProofInputV6 } from "../draw/index.js";
import type { Finality } from "./finality.js";
import { ProofRender, refusalError, type EntrantPage, type FromWorker, type ProofBytes, type ToWorker } from "./proofRender.js";

/** What a body is built from: the proof's input, whose entrant list (if any) arrives as pages, and its finality. */
export type ProofJob = { input: ProofInputV6; finality: Finality; entrants: AsyncIterable<EntrantPage> | null };

/** The worker stopped (it crashed, ran out of memory, or could not start) before it answered a build. */
export class ProofWorkerError extends Error {
  override name = "ProofWorkerError";
}

/** The worker's bundle beside this file's, when this runs bundled; null when it runs from source. */
function bundledWorker(): URL | null {
  const url = new URL("./proofWorker.mjs", import.meta.url);
  return url.protocol === "file:" && existsSync(url) ? url : null;
}

type Waiting = { resolve: (bytes: ProofBytes) => void; reject: (error: Error) => void };

export class ProofBuilder {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private jobs = 0;
  /** The last job queued: the next one starts once it has ended, however it ended. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly workerUrl: URL | null = bundledWorker()) {}

  /** Whether builds run in a worker thread (false: on the calling thread, from source). */
  get threaded(): boolean {
    return this.workerUrl !== null;
  }

  /** The body of `job`, once the jobs queued before it have ended. */
  build(job: ProofJob): Promise<ProofBytes> {
    const run = this.queue.then(() => (this.workerUrl === null ? this.buildHere(job) : this.buildInWorker(this.workerUrl, job)));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async buildHere(job: ProofJob): Promise<ProofBytes> {
    const render = new ProofRender();
    if (job.entrants !== null) for await (const page of job.entrants) render.addEntrants(page);
    return render.finish(job.input, job.finality);
  }

  private async buildInWorker(url: URL, job: ProofJob): Promise<ProofBytes> {
    const worker = this.started(url);
    const id = ++this.jobs;
    const answered = new Promise<ProofBytes>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    // Awaited below; if reading the pages fails first, that failure is what the caller gets.
    void answered.catch(() => undefined);
    try {
      if (job.entrants !== null) for await (const page of job.entrants) this.post(worker, { type: "entrants", job: id, page });
    } catch (error) {
      this.waiting.delete(id);
      this.post(worker, { type: "drop", job: id });
      throw error;
    }
    this.post(worker, { type: "build", job: id, input: job.input, finality: job.finality });
    return answered;
  }

  /** Posts to the worker unless it has stopped meanwhile (its waiting jobs were failed when it did). */
  private post(worker: Worker, message: ToWorker): void {
    if (this.worker === worker) worker.postMessage(message);
  }

  /** The running worker, started on first use and again after it stopped. */
  private started(url: URL): Worker {
    if (this.worker !== null) return this.worker;
    const worker = new Worker(url);
    // An idle worker must not keep the service's process alive when it stops.
    worker.unref();
    worker.on("message", (reply: FromWorker) => {
      const waiting = this.waiting.get(reply.job);
      if (waiting === undefined) return;
      this.waiting.delete(reply.job);
      if (reply.ok) waiting.resolve({ body: reply.body, sha256: reply.sha256 });
      else waiting.reject(reply.refused === null ? new ProofWorkerError(`the proof worker failed: ${reply.message}`) : refusalError(reply.refused));
    });
    const stopped = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      for (const waiting of this.waiting.values()) waiting.reject(new ProofWorkerError(`the proof worker stopped (${why}) before it answered`));
      this.waiting.clear();
    };
    worker.on("error", (error) => stopped(error.message));
    worker.on("exit", (code) => stopped(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }
}
