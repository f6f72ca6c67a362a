// The README's quick start and the partner guide (docs/partner-guide.md), run as written: every ```sh block of each
// document, in order, in one bash session per document (so variables carry from block to block, as in a terminal),
// against `npm start` (scripts/start.mts) on free ports in a fresh data folder. Each document gets its own fresh
// stack, as a reader starting from either one would.
//
// What the test does besides running the blocks verbatim:
// - `npm install` is skipped (this checkout is installed), and `npm start` is the test's own start of the same
//   script, in the background, with free ports and a temporary PRIZEDRAW_DATA_DIR;
// - the lines that export what `npm start` printed (PRIZEDRAW_KEY, PRIZEDRAW_ACCOUNT, PRIZEDRAW_URL, CHAIN_URL,
//   written in the docs with placeholders) get the values this start printed, read from its output;
// - bash runs with `set -euo pipefail`, and curl fails on an HTTP error status (as `--fail-with-body`), so a
//   command that "works" with a 4xx answer fails the test;
// - the blocks run in a scratch folder under test-output/ (npm finds the repository above it), so the files they
//   download stay out of the working tree.

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, freePort, inheritedEnv, spawnProcess, stop, until, type Proc } from "../support/processes.js";

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
  return fencedBlocks(readFileSync(path.join(REPO_ROOT, file), "utf8")).filter((b) => ["sh", "bash", "shell"].includes(b.lang));
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

type Started = { proc: Proc; dataDir: string; printed: Printed; ports: { PORT: string; CHAIN_PORT: string; INDEXER_PORT: string } };

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** `npm start` as the docs run it, on free ports in a fresh data folder; resolves once it printed the way in. */
async function npmStart(): Promise<Started> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "prizedraw-quickstart-"));
  const ports = { PORT: String(await freePort()), CHAIN_PORT: String(await freePort()), INDEXER_PORT: String(await freePort()) };
  const proc = spawnProcess("npm start", process.execPath, ["--import", "tsx", path.join(REPO_ROOT, "scripts/start.mts")], {
    env: { ...inheritedEnv(["PRIZEDRAW_*", "RPC_URL", "DATABASE_URL", "PUBLIC_BASE_URL", "PORT", "CHAIN_PORT", "INDEXER_PORT"]), ...ports, PRIZEDRAW_DATA_DIR: dataDir, PONDER_SCHEMA: "quickstart_test" },
    cwd: REPO_ROOT,
    log: path.join(dataDir, "start.log"),
  });
  cleanups.push(async () => {
    await stopStack(proc, dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const printed = await until(
    "npm start to print the key, the account and the URLs",
    async () => {
      const found = readPrinted(proc.output());
      return PRINTED_NAMES.every((n) => found[n] !== undefined) && /stops everything/.test(proc.output()) ? (found as Printed) : undefined;
    },
    240_000,
    200,
    proc,
  );
  return { proc, dataDir, printed, ports };
}

/**
 * Stops the stack with SIGTERM to the start script (which stops its children); if it had to be killed, the
 * processes it started and recorded in the data folder's lock are killed too (they are this test's).
 */
async function stopStack(proc: Proc, dataDir: string): Promise<void> {
  let children: { pid: number }[] = [];
  try {
    children = (JSON.parse(readFileSync(path.join(dataDir, "stack.lock"), "utf8")) as { children?: { pid: number }[] }).children ?? [];
  } catch {
    // no lock (yet): nothing recorded
  }
  if ((await stop(proc, 30_000)) !== "killed") return;
  for (const child of children) {
    try {
      process.kill(child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
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

/** Runs a document's commands against a fresh `npm start`; returns bash's output once every block succeeded. */
async function runAsWritten(file: string): Promise<{ output: string; started: Started }> {
  const started = await npmStart();
  // What npm start printed is this stack: its own service and chain.
  expect(started.printed.PRIZEDRAW_URL).toBe(`http://127.0.0.1:${started.ports.PORT}`);
  expect(started.printed.CHAIN_URL).toBe(`http://127.0.0.1:${started.ports.CHAIN_PORT}`);
  const { script, blocks } = scriptFor(file, started.printed);
  mkdirSync(path.join(REPO_ROOT, "test-output"), { recursive: true });
  const scratch = mkdtempSync(path.join(REPO_ROOT, "test-output", "quickstart-"));
  cleanups.push(async () => rmSync(scratch, { recursive: true, force: true }));
  // A second terminal: no PORT or PUBLIC_BASE_URL; the data folder is the one npm start was given.
  const env = { ...inheritedEnv(["PRIZEDRAW_*", "RPC_URL", "DATABASE_URL", "PUBLIC_BASE_URL", "PORT", "CHAIN_PORT", "INDEXER_PORT"]), PRIZEDRAW_DATA_DIR: started.dataDir };
  const { code, output } = await bash(script, env, scratch, 300_000);
  const passed = [...output.matchAll(/^@@ block (\d+) ok$/gm)].length;
  const failedBlock = blocks[passed + 1];
  expect(
    { code, passed },
    `${file}: block ${passed + 1}${failedBlock ? ` (line ${failedBlock.line})` : ""} failed; output:\n${output}\n--- npm start:\n${started.proc.output().slice(-4_000)}`,
  ).toEqual({ code: 0, passed: blocks.length - 1 });
  expect(existsSync(path.join(scratch, "proof.json"))).toBe(true);
  return { output, started };
}

describe("the quick start and the partner guide, as written", { timeout: 900_000 }, () => {
  it("README.md's quick start: a push draw, its proof verified against the chain", async () => {
    const { output } = await runAsWritten("README.md");
    // The verifier's summary line: every check passed, and the chain was read (rpc checks).
    expect(output).toMatch(/^PASS: \d+ checks passed/m);
    expect(output).toMatch(/list was committed onchain|committed onchain/);
  });

  it("docs/partner-guide.md: push and entries draws, proofs verified offline, with --rpc, --entrant and --campaign", async () => {
    const { output } = await runAsWritten("docs/partner-guide.md");
    const passes = output.match(/^PASS: \d+ checks passed/gm) ?? [];
    expect(passes.length).toBe(4); // proof, --rpc, --entrant (push), and --rpc --entrant (entries)
    expect(output).toMatch(/^1 of 1 commits accounted for$/m);
    // The entrant check found the weighted entrant in the committed list.
    expect(output).toContain(`"e-4d5e6f7a" is in the committed entrant list`);
  });
});
