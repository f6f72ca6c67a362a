#!/usr/bin/env node
// `npm test`: every suite, one after another, then one summary line "N passed, N failed" over all of them.
// Suites: the contract suite (mocha through `hardhat test`), the type checks (tsc) and the TypeScript suites (vitest).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const env = { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: "true", PONDER_TELEMETRY_DISABLED: "true", NO_COLOR: "1" };

/** Runs a command, echoing its output, and resolves with the output and exit code. */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    for (const stream of [child.stdout, child.stderr]) {
      stream.on("data", (chunk) => {
        output += chunk;
        (stream === child.stdout ? process.stdout : process.stderr).write(chunk);
      });
    }
    child.on("close", (code) => resolve({ output, code: code ?? 1 }));
  });
}

const totals = { passed: 0, failed: 0 };
const suites = [];

// Contract suite: mocha's summary lines ("35 passing", "2 failing").
{
  const { output, code } = await run("npx", ["hardhat", "test"]);
  const passed = Number(/(\d+) passing/.exec(output)?.[1] ?? 0);
  let failed = Number(/(\d+) failing/.exec(output)?.[1] ?? 0);
  if (code !== 0 && failed === 0) failed = 1; // the suite did not run to its summary
  suites.push({ name: "contracts (hardhat)", passed, failed });
}

// Type checks, one per TypeScript project, each counted as one test: the contracts' tests and hardhat scripts
// (after the contract suite has generated typechain-types/), the service, the indexer, the tests and root
// scripts, and the client package. Vitest and tsx strip types without checking them.
{
  let passed = 0;
  let failed = 0;
  for (const project of ["tsconfig.json", "api/tsconfig.json", "indexer/tsconfig.json", "test/tsconfig.json", "packages/client/tsconfig.json"]) {
    const { code } = await run("npx", ["tsc", "--noEmit", "-p", project]);
    console.log(`tsc -p ${project}: ${code === 0 ? "ok" : "errors above"}`);
    if (code === 0) passed += 1;
    else failed += 1;
  }
  // Dropped promises (tsc does not see them): a store call nobody awaits may write after its transaction ends.
  const { code } = await run("node", ["--import", "tsx", "scripts/floating-promises.mts"]);
  if (code === 0) passed += 1;
  else failed += 1;
  suites.push({ name: "typecheck (tsc, floating promises)", passed, failed });
}

// TypeScript suites: vitest's JSON report.
{
  const dir = mkdtempSync(join(tmpdir(), "prizedraw-vitest-"));
  const report = join(dir, "report.json");
  const { code } = await run("npx", ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`]);
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
  suites.push({ name: "typescript (vitest)", passed, failed });
}

for (const s of suites) {
  totals.passed += s.passed;
  totals.failed += s.failed;
  console.log(`${s.name}: ${s.passed} passed, ${s.failed} failed`);
}
console.log(`${totals.passed} passed, ${totals.failed} failed`);
process.exit(totals.failed === 0 ? 0 : 1);
