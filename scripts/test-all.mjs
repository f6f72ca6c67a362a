#!/usr/bin/env node
// `npm test`: every suite, then one summary line "N passed, N failed" over all of them. Suites: the contract suite
// (mocha through `hardhat test`), the type checks (tsc), the TypeScript suites (vitest), and the smoke run on the other
// Node.js lines (vitest's project "node-lines"), which shares nothing with the rest and runs beside them throughout.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const env = { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: "true", PONDER_TELEMETRY_DISABLED: "true", NO_COLOR: "1" };

/**
 * Runs a command, echoing its output (or, `quiet`, keeping it to print later), and resolves with it and its code.
 * `extraEnv` adds to the environment of this command only.
 */
function run(command, args, quiet = false, extraEnv = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: { ...env, ...extraEnv }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    for (const stream of [child.stdout, child.stderr]) {
      stream.on("data", (chunk) => {
        output += chunk;
        if (!quiet) (stream === child.stdout ? process.stdout : process.stderr).write(chunk);
      });
    }
    child.on("close", (code) => resolve({ output, code: code ?? 1 }));
  });
}

const totals = { passed: 0, failed: 0 };
const suites = [];

// Contract suite: mocha's summary lines ("35 passing", "2 failing"). `files`: only these; `background`: kept quiet and
// at the lowest CPU priority, as vitestSuite's.
async function contractSuite(name = "contracts (hardhat)", files = [], background = false, extraEnv = {}) {
  const hardhat = ["npx", "hardhat", "test", ...files];
  const [command, ...args] = background ? ["nice", "-n", "19", "ionice", "-c", "2", "-n", "7", ...hardhat] : hardhat;
  const { output, code } = await run(command, args, background, extraEnv);
  const passed = Number(/(\d+) passing/.exec(output)?.[1] ?? 0);
  let failed = Number(/(\d+) failing/.exec(output)?.[1] ?? 0);
  if (code !== 0 && failed === 0) failed = 1; // the suite did not run to its summary
  return { name, passed, failed, output: background ? output : "" };
}

// Type checks, one per TypeScript project, each counted as one test: the service, the indexer, the tests and root
// scripts, the client package, and (after the contract suite has generated typechain-types/) the contracts' tests
// and hardhat scripts. Vitest and tsx strip types without checking them. Then dropped promises, which tsc does not
// see (a store call nobody awaits may write after its transaction ends): one more test.
async function typeCheck(project) {
  const { output, code } = await run("npx", ["tsc", "--noEmit", "-p", project], true);
  return { output: `${output}tsc -p ${project}: ${code === 0 ? "ok" : "errors above"}\n`, ok: code === 0 };
}
async function checksWithoutContracts() {
  const results = [];
  for (const project of ["api/tsconfig.json", "indexer/tsconfig.json", "test/tsconfig.json", "packages/client/tsconfig.json"]) results.push(await typeCheck(project));
  const floating = await run("node", ["--import", "tsx", "scripts/floating-promises.mts"], true);
  results.push({ output: floating.output, ok: floating.code === 0 });
  return results;
}

// The other Node.js lines: from the start, beside everything else (test/runtime/node-lines.test.ts).
const nodeLines = vitestSuite("node lines 22, 24, 26 (vitest node-lines)", ["node-lines"], true);

// The contract suite and the checks that do not need its output run side by side (one process each, 2 cores); the
// checks' output is printed once they end, after the contract suite's.
{
  const [contracts, checks] = await Promise.all([contractSuite(), checksWithoutContracts()]);
  suites.push(contracts);
  checks.push(await typeCheck("tsconfig.json"));
  for (const c of checks) process.stdout.write(c.output);
  const passed = checks.filter((c) => c.ok).length;
  suites.push({ name: "typecheck (tsc, floating promises)", passed, failed: checks.length - passed });
}

/**
 * A vitest run of `projects`, counted from its JSON report. `background`: its output is kept and printed at the end,
 * and it runs at the lowest CPU and a low I/O priority (nice, ionice), taking the time the other suites leave idle.
 */
async function vitestSuite(name, projects, background = false) {
  const dir = mkdtempSync(join(tmpdir(), "prizedraw-vitest-"));
  const report = join(dir, "report.json");
  const vitest = ["npx", "vitest", "run", ...projects.flatMap((p) => ["--project", p]), "--reporter=default", "--reporter=json", `--outputFile.json=${report}`];
  const [command, ...args] = background ? ["nice", "-n", "19", "ionice", "-c", "2", "-n", "7", ...vitest] : vitest;
  const { code, output } = await run(command, args, background);
  let passed = 0;
  let failed = 0;
  try {
    const json = JSON.parse(readFileSync(report, "utf8"));
    passed = json.numPassedTests;
    failed = json.numFailedTests + (json.numRuntimeErrorTestSuites ?? 0);
  } catch {
    failed = 1;
  }
  if (code !== 0 && failed === 0) failed = 1;
  rmSync(dir, { recursive: true, force: true });
  return { name, passed, failed, output: background ? output : "" };
}

// The money invariants' property test again, with 10,000 random call sequences (the contract suite ran it with
// PROPERTY_RUNS, default 25; some 12 minutes of one core), beside the TypeScript suites on the time they leave idle:
// it shares nothing with them. Started after the contract suite, whose compile step it would otherwise race.
// A failure prints fast-check's seed and path (PROPERTY_SEED and PROPERTY_PATH replay it).
const longRuns = process.env.PROPERTY_RUNS_LONG ?? "10000";
const properties = longRuns === "0"
  ? null
  : contractSuite(`contract properties, ${longRuns} sequences (hardhat)`, ["test/contracts/PrizeDraw.properties.test.ts"], true, { PROPERTY_RUNS: longRuns });

// TypeScript suites on the machine's Node.js, then the node lines' output once they end.
suites.push(await vitestSuite("typescript (vitest)", ["sqlite", "postgres"]));
if (properties) {
  const result = await properties;
  process.stdout.write(`\n--- contract properties (ran beside the suites above):\n${result.output}\n`);
  suites.push(result);
}
{
  const lines = await nodeLines;
  process.stdout.write(`\n--- node lines (ran beside the suites above):\n${lines.output}\n`);
  suites.push(lines);
}

for (const s of suites) {
  totals.passed += s.passed;
  totals.failed += s.failed;
  console.log(`${s.name}: ${s.passed} passed, ${s.failed} failed`);
}
console.log(`${totals.passed} passed, ${totals.failed} failed`);
process.exit(totals.failed === 0 ? 0 : 1);
