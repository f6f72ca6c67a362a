// The README's quick start and the partner guide, run as a reader runs them: `npm start` on free ports in a fresh data
// folder, then every ```sh block of the document, in order, in one bash session (so variables carry from block to
// block, as in a terminal). Used on this checkout with this Node.js (test/stack/quickstart.test.ts) and on fresh
// copies installed with other Node.js lines (test/runtime/node-lines.test.ts).
//
// What runs besides the blocks verbatim:
// - the first block (`npm install`, `npm start`) is checked and left out: the caller installed, and starts the stack
//   itself, in the background, with free ports and a temporary PRIZEDRAW_DATA_DIR;
// - the lines that export what `npm start` printed (PRIZEDRAW_KEY, PRIZEDRAW_ACCOUNT, PRIZEDRAW_URL, CHAIN_URL,
//   written in the docs with placeholders) get the values this start printed, read from its output;
// - bash runs with `set -euo pipefail`, and curl fails on an HTTP error status (as `--fail-with-body`), so a
//   command that "works" with a 4xx answer fails;
// - the blocks run in a scratch folder under the checkout's test-output/ (npm finds the repository above it), so the
//   files they download stay out of the working tree.

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { freePort, inheritedEnv, spawnProcess, stop, until, type Proc } from "./processes.js";

/** A fenced block of a Markdown document: its info string and its text. */
type Block = { lang: string; text: string; line: number };

function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    blocks.push({ lang: open[1]!, text: body.join("\n"), line: start + 1 });
  }
  return blocks;
}

/** The shell blocks a reader runs: ```sh (or bash, shell). */
function shellBlocks(file: string): Block[] {
  return fencedBlocks(readFileSync(file, "utf8")).filter((b) => ["sh", "bash", "shell"].includes(b.lang));
}

/** What `npm start` printed that the docs tell the reader to copy. */
type Printed = { PRIZEDRAW_KEY: string; PRIZEDRAW_ACCOUNT: string; PRIZEDRAW_URL: string; CHAIN_URL: string };
const PRINTED_NAMES = ["PRIZEDRAW_KEY", "PRIZEDRAW_ACCOUNT", "PRIZEDRAW_URL", "CHAIN_URL"] as const;

function readPrinted(output: string): Partial<Printed> {
  return {
    PRIZEDRAW_KEY: /export PRIZEDRAW_KEY=(pd_test_\S+)/.exec(output)?.[1] ?? /\b(pd_test_[A-Za-z0-9_]+)/.exec(output)?.[1],
    PRIZEDRAW_ACCOUNT: /first account (acc_[A-Za-z0-9]+)/.exec(output)?.[1],
    PRIZEDRAW_URL: /\[start\] service\s+(https?:\/\/\S+)/.exec(output)?.[1],
    CHAIN_URL: /\[start\] chain\s+(https?:\/\/\S+)/.exec(output)?.[1],
  };
}

/** Where the stack runs: a checkout, and how its processes find node and npm. */
export type Checkout = {
  /** The repository's folder (installed). */
  root: string;
  /** The environment its processes get (PATH decides which node runs `npm start`, `npm run admin` and the blocks). */
  env: NodeJS.ProcessEnv;
  /** How the stack starts: `npm start` itself, or start's script under this process's node (no npm in between). */
  start: "npm" | "script";
};

/** A started stack: its process (npm's, or start's script), data folder, printed values and ports. */
export type Started = { proc: Proc; dataDir: string; printed: Printed; ports: { PORT: string; CHAIN_PORT: string; INDEXER_PORT: string } };

/** The variables a reader's shell would not have: the test runner's, and the stack settings each start chooses. */
export const STACK_VARIABLES = ["PRIZEDRAW_*", "RPC_URL", "DATABASE_URL", "PUBLIC_BASE_URL", "PORT", "CHAIN_PORT", "INDEXER_PORT"];

/** This checkout as the test runner has it: its node runs start's script directly. */
export function thisCheckout(root: string): Checkout {
  return { root, env: inheritedEnv(STACK_VARIABLES), start: "script" };
}

/** `npm start` as the docs run it, on free ports in a fresh data folder; resolves once it printed the way in. */
export async function startStack(checkout: Checkout): Promise<Started> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "prizedraw-quickstart-"));
  const ports = { PORT: String(await freePort()), CHAIN_PORT: String(await freePort()), INDEXER_PORT: String(await freePort()) };
  const env = { ...checkout.env, ...ports, PRIZEDRAW_DATA_DIR: dataDir, PONDER_SCHEMA: "quickstart_test" };
  const options = { env, cwd: checkout.root, log: path.join(dataDir, "start.log") };
  const proc =
    checkout.start === "npm"
      ? spawnProcess("npm start", "npm", ["start"], options)
      : spawnProcess("npm start", process.execPath, ["--import", "tsx", path.join(checkout.root, "scripts/start.mts")], options);
  const printed = await until(
    "npm start to print the key, the account and the URLs",
    async () => {
      const found = readPrinted(proc.output());
      return PRINTED_NAMES.every((n) => found[n] !== undefined) && /stops everything/.test(proc.output()) ? (found as Printed) : undefined;
    },
    // A fresh copy compiles the contracts first; beside the whole suite on 2 cores a Node.js line once took over 240 s.
    480_000,
    200,
    proc,
  );
  return { proc, dataDir, printed, ports };
}

/** A process start runs (anvil, Ponder, the service), as its lock in the data folder names it. */
export type StackChild = { name: string; pid: number; startTicks: string | null };

/** The processes start runs, as its lock in the data folder names them. */
export function stackChildren(started: Started): StackChild[] {
  try {
    const lock = JSON.parse(readFileSync(path.join(started.dataDir, "stack.lock"), "utf8")) as { children?: StackChild[] };
    return lock.children ?? [];
  } catch {
    return []; // no lock (yet, or any more): nothing recorded
  }
}

/**
 * Stops the stack with SIGTERM to its process (which stops its children), and returns how it ended; if it had to be
 * killed, the processes it started and recorded in the data folder's lock are killed too (they are this test's).
 */
export async function stopStack(started: Started): Promise<number | null | "killed"> {
  const children = stackChildren(started);
  const result = await stop(started.proc, 30_000);
  if (result !== "killed") return result;
  for (const { pid } of children) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  return result;
}

/** Shell lines that stand for what `npm start` printed: `export NAME=<placeholder>`. */
const EXPORT_LINE = /^export (\w+)=\S*(\s+#.*)?$/;

/**
 * The document's shell blocks as one bash script: the start block (npm install, npm start) is checked and left
 * out, the exports of printed values get this stack's values, and each block ends with a marker line.
 */
function scriptFor(file: string, printed: Printed): { script: string; blocks: Block[] } {
  const blocks = shellBlocks(file);
  expect(blocks.length, `${file} has shell blocks`).toBeGreaterThan(1);
  expect(blocks[0]!.text.trim().split("\n"), `${file}: the first shell block starts the stack`).toEqual(["npm install", "npm start"]);
  const filled = new Set<string>();
  const parts = [
    "set -euo pipefail",
    // curl fails on an HTTP error status unless the command already says how (-f in the wait loops).
    'curl() { local a; for a in "$@"; do case "$a" in --fail|--fail-with-body|-f|-[a-zA-Z]*f*) command curl "$@"; return;; esac; done; command curl --fail-with-body "$@"; }',
  ];
  blocks.slice(1).forEach((block, i) => {
    expect(block.text, `${file}:${block.line}: only the first block starts the stack`).not.toMatch(/^\s*npm (start|install)\b/m);
    const lines = block.text.split("\n").map((line) => {
      const exported = EXPORT_LINE.exec(line);
      if (!exported) return line;
      const name = exported[1]!;
      expect(PRINTED_NAMES as readonly string[], `${file}:${block.line}: export ${name} is not something npm start prints`).toContain(name);
      filled.add(name);
      return `export ${name}=${JSON.stringify(printed[name as keyof Printed])}`;
    });
    // Markers on lines of their own: a command's output may end without a newline (curl's JSON does).
    parts.push(`printf '\\n@@ block %s starts\\n' "${i + 1} (${file}:${block.line})"`, ...lines, `printf '\\n@@ block %s ok\\n' ${i + 1}`);
  });
  expect([...filled].sort(), `${file} exports every value npm start prints`).toEqual([...PRINTED_NAMES].sort());
  return { script: parts.join("\n") + "\n", blocks };
}

/** Runs a script with bash in `cwd`; kills its process group after `timeoutMs`. */
function bash(script: string, env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", script], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n@@ timed out after ${timeoutMs} ms\n`;
      try {
        process.kill(-child.pid!, "SIGKILL"); // the group of this bash: the commands it runs
      } catch {
        // gone
      }
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * Runs a document of the checkout (`file`, relative to its root) against a started stack, in a scratch folder under
 * the checkout's test-output/ (the caller removes it); returns bash's output once every block succeeded.
 */
export async function runAsWritten(checkout: Checkout, file: string, started: Started): Promise<{ output: string; scratch: string }> {
  // What npm start printed is this stack: its own service and chain.
  expect(started.printed.PRIZEDRAW_URL).toBe(`http://127.0.0.1:${started.ports.PORT}`);
  expect(started.printed.CHAIN_URL).toBe(`http://127.0.0.1:${started.ports.CHAIN_PORT}`);
  const { script, blocks } = scriptFor(path.join(checkout.root, file), started.printed);
  mkdirSync(path.join(checkout.root, "test-output"), { recursive: true });
  const scratch = mkdtempSync(path.join(checkout.root, "test-output", "quickstart-"));
  // A second terminal: no PORT or PUBLIC_BASE_URL; the data folder is the one npm start was given.
  const { code, output } = await bash(script, { ...checkout.env, PRIZEDRAW_DATA_DIR: started.dataDir }, scratch, 300_000);
  const passed = [...output.matchAll(/^@@ block (\d+) ok$/gm)].length;
  const failedBlock = blocks[passed + 1];
  expect(
    { code, passed },
    `${file}: block ${passed + 1}${failedBlock ? ` (line ${failedBlock.line})` : ""} failed; output:\n${output}\n--- npm start:\n${started.proc.output().slice(-4_000)}`,
  ).toEqual({ code: 0, passed: blocks.length - 1 });
  expect(existsSync(path.join(scratch, "proof.json"))).toBe(true);
  return { output, scratch };
}
