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

/**
 * The smoke run on the other Node.js lines (project "node-lines"): a fresh install and the quick start on each. It
 * shares nothing with the other suites, so scripts/test-all.mjs runs it beside them in a vitest of its own.
 */
const NODE_LINES_SUITES = ["test/runtime/node-lines.test.ts"];

// Vitest runs the TypeScript suites under test/; the contract suite (test/contracts) runs under `hardhat test`.
const EXCLUDE = ["test/contracts/**", "**/node_modules/**"];
export default defineConfig({
  test: {
    exclude: EXCLUDE,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    globalSetup: ["test/support/globalSetup.ts"],
    projects: [
      { extends: true, test: { name: "sqlite", include: ["test/**/*.test.ts"], exclude: [...EXCLUDE, ...NODE_LINES_SUITES] } },
      { extends: true, test: { name: "postgres", include: POSTGRES_SUITES, env: { TEST_STORE: "postgres" } } },
      { extends: true, test: { name: "node-lines", include: NODE_LINES_SUITES } },
    ],
  },
});
