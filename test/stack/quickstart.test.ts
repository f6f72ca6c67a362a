// The README's quick start and the partner guide (docs/partner-guide.md), run as written (test/support/quickstart.ts)
// against `npm start` on free ports in a fresh data folder. Each document gets its own fresh stack, as a reader
// starting from either one would. `npm install` is skipped: this checkout is installed.

import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/processes.js";
import { runAsWritten, startStack, stopStack, thisCheckout } from "../support/quickstart.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Runs a document's commands against a fresh `npm start`; returns bash's output once every block succeeded. */
async function runOnFreshStack(file: string): Promise<string> {
  const checkout = thisCheckout(REPO_ROOT);
  const started = await startStack(checkout);
  cleanups.push(async () => {
    await stopStack(started);
    rmSync(started.dataDir, { recursive: true, force: true });
  });
  const { output, scratch } = await runAsWritten(checkout, file, started);
  cleanups.push(async () => rmSync(scratch, { recursive: true, force: true }));
  return output;
}

describe("the quick start and the partner guide, as written", { timeout: 900_000 }, () => {
  it("README.md's quick start: a push draw, its proof verified against the chain", async () => {
    const output = await runOnFreshStack("README.md");
    // The verifier's summary line: every check passed, and the chain was read (rpc checks).
    expect(output).toMatch(/^PASS: \d+ checks passed/m);
    expect(output).toMatch(/list was committed onchain|committed onchain/);
  });

  it("docs/partner-guide.md: push and entries draws, proofs verified offline, with --rpc, --entrant and --campaign", async () => {
    const output = await runOnFreshStack("docs/partner-guide.md");
    const passes = output.match(/^PASS: \d+ checks passed/gm) ?? [];
    expect(passes.length).toBe(4); // proof, --rpc, --entrant (push), and --rpc --entrant (entries)
    expect(output).toMatch(/^1 of 1 commits accounted for$/m);
    // The entrant check found the weighted entrant in the committed list.
    expect(output).toContain(`"e-4d5e6f7a" is in the committed entrant list`);
  });
});
