// Bundles the service (api/src/main.ts) and the prizedraw CLI (api/src/cli/prizedraw.ts) into api/dist, one
// self-contained file each, with the packages left as imports; beside the service, the worker thread it builds proof
// bodies in (api/src/domain/proofWorker.ts as proofWorker.mjs). Node then starts them without tsx's loader hooks,
// which translate every module on a second thread: 1.0 s and 1.3 s of CPU per start instead of 2.0 s and 3.6 s
// (measured on the CLI here). `npm start`, the tests and the benchmarks start the service hundreds of times.
//
// Each file is written beside its final name and renamed into place, so a process starting while another build
// runs reads either the old file or the new one, never half of one. Run: `node scripts/build-service.mjs`.
import { build } from "esbuild";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const DIST_DIR = path.join(ROOT, "api/dist");
export const SERVICE_ENTRY = path.join(DIST_DIR, "main.mjs");
export const CLI_ENTRY = path.join(DIST_DIR, "prizedraw.mjs");
export const PROOF_WORKER_ENTRY = path.join(DIST_DIR, "proofWorker.mjs");

/** Builds the three files (about 0.3 s) and returns the service's and the CLI's paths. */
export async function buildService() {
  mkdirSync(DIST_DIR, { recursive: true });
  const entries = [
    [path.join(ROOT, "api/src/main.ts"), SERVICE_ENTRY],
    [path.join(ROOT, "api/src/cli/prizedraw.ts"), CLI_ENTRY],
    [path.join(ROOT, "api/src/domain/proofWorker.ts"), PROOF_WORKER_ENTRY],
  ];
  await Promise.all(
    entries.map(async ([entry, outfile]) => {
      const result = await build({
        entryPoints: [entry],
        outfile,
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        // Packages (node_modules, the workspace client's built dist) stay imports: native modules and their own files.
        packages: "external",
        tsconfig: path.join(ROOT, "api/tsconfig.json"),
        write: false,
        logLevel: "warning",
      });
      const file = result.outputFiles.find((f) => f.path === outfile);
      if (file === undefined) throw new Error(`esbuild wrote no ${outfile}`);
      const temporary = `${outfile}.${process.pid}.tmp`;
      writeFileSync(temporary, file.contents);
      renameSync(temporary, outfile);
    }),
  );
  return { service: SERVICE_ENTRY, cli: CLI_ENTRY };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { service, cli } = await buildService();
  console.log(`built ${path.relative(ROOT, service)} and ${path.relative(ROOT, cli)}`);
}
