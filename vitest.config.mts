import { defineConfig } from "vitest/config";

// Vitest runs the TypeScript suites under test/; the contract suite (test/contracts) runs under `hardhat test`.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/contracts/**", "**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
