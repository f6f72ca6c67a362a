// The ABIs the service, the indexer and the tests import (indexer/abis/*.ts) are generated from the compiled
// contracts by scripts/export-abis.mjs; a contract changed without running it would leave them speaking an old
// interface. npm test compiles the contracts before this suite runs.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/processes.js";

type Exported = readonly (readonly [string, string])[];

describe("indexer/abis", () => {
  it("each committed ABI equals the one scripts/export-abis.mjs writes from the compiled artifacts", async () => {
    const { EXPORTS, abiSource } = (await import(path.join(REPO_ROOT, "scripts/export-abis.mjs"))) as {
      EXPORTS: Exported;
      abiSource: (name: string, artifactPath: string) => string;
    };
    expect(EXPORTS.map(([name]) => name)).toContain("PrizeVault");
    const cwd = process.cwd();
    process.chdir(REPO_ROOT);
    try {
      for (const [name, artifact] of EXPORTS) {
        const committed = readFileSync(path.join(REPO_ROOT, "indexer/abis", `${name}Abi.ts`), "utf8");
        expect(committed, `indexer/abis/${name}Abi.ts: run node scripts/export-abis.mjs`).toBe(abiSource(name, artifact));
      }
    } finally {
      process.chdir(cwd);
    }
  });
});
