import { defineConfig } from "vitest/config";

/**
 * The suites that also run with the store on PostgreSQL (project "postgres", `TEST_STORE=postgres`: each stack starts
 * a private PostgreSQL server, test/support/stack.ts): the partner API, entries, guarantees, pull, crash safety and
 * bad input. Every suite runs on the embedded SQLite file (project "sqlite").
 */
const POSTGRES_SUITES = [
  "test/api/push.test.ts",
  "test/api/entries.test.ts",
  "test/api/guarantees.test.ts",
  "test/api/pull.test.ts",
  "test/reliability/crash.test.ts",
  "test/reliability/bad-input.test.ts",
];

// Vitest runs the TypeScript suites under test/; the contract suite (test/contracts) runs under `hardhat test`.
export default defineConfig({
  test: {
    exclude: ["test/contracts/**", "**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    globalSetup: ["test/support/globalSetup.ts"],
    projects: [
      { extends: true, test: { name: "sqlite", include: ["test/**/*.test.ts"] } },
      { extends: true, test: { name: "postgres", include: POSTGRES_SUITES, env: { TEST_STORE: "postgres" } } },
    ],
  },
});
