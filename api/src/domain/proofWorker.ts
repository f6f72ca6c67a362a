/**
 * The proof worker: a thread that builds proof bodies (domain/proofRender.ts) for domain/proofBuilder.ts, so the
 * seconds of hashing and serializing a large drawing's proof never run on the service's event loop, which the
 * HTTP server, the partner API and the keeper share. Its entry is bundled on its own, as api/dist/proofWorker.mjs
 * beside the service's (scripts/build-service.mjs). Jobs arrive one at a time: pages of entrants, then the input.
 */
import { parentPort } from "node:worker_threads";
import { ProofRender, refusalOf, type FromWorker, type ToWorker } from "./proofRender.js";

const port = parentPort;
if (port === null) throw new Error("domain/proofWorker.ts runs as a worker thread (domain/proofBuilder.ts starts it)");

const renders = new Map<number, ProofRender>();

port.on("message", (message: ToWorker) => {
  if (message.type === "drop") {
    renders.delete(message.job);
    return;
  }
  let render = renders.get(message.job);
  if (render === undefined) {
    render = new ProofRender();
    renders.set(message.job, render);
  }
  if (message.type === "entrants") {
    render.addEntrants(message.page);
    return;
  }
  renders.delete(message.job);
  let reply: FromWorker;
  try {
    const { body, sha256 } = render.finish(message.input, message.finality);
    reply = { job: message.job, ok: true, body, sha256 };
  } catch (error) {
    reply = { job: message.job, ok: false, refused: refusalOf(error), message: error instanceof Error ? error.message : String(error) };
  }
  // The body's buffer moves to the service's thread instead of being copied (9 MB for 100,000 entrants).
  port.postMessage(reply, reply.ok ? [reply.body.buffer as ArrayBuffer] : []);
});
