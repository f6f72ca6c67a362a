import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The root package's name: the folder whose package.json carries it is the repository root. */
const ROOT_PACKAGE = "prize-draw-service";

function isRepoRoot(dir: string): boolean {
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest)) return false;
  try {
    return (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === ROOT_PACKAGE;
  } catch {
    return false;
  }
}

/**
 * The repository root, found by walking up from this module: the same answer from the TypeScript source
 * (api/src) and from the bundle `npm start` and the tests run (api/dist, scripts/build-service.mjs).
 */
export const REPO_ROOT: string = (() => {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    if (isRepoRoot(dir)) return dir;
    if (dirname(dir) === dir) throw new Error(`no ${ROOT_PACKAGE} package.json above ${start}`);
  }
})();

/** The verifier, its browser check and the skill file, served as they are (api/public/verify). */
export const VERIFY_DIR = join(REPO_ROOT, "api/public/verify");
