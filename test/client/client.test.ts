// The typed client (packages/client): its types are the ones openapi-typescript generates from the committed OpenAPI
// document (so they cannot drift from the validators), and the README's TypeScript quick start, taken verbatim from
// the README, type-checks and drives a whole draw through it on a real stack: winners posted with an
// Idempotency-Key, the test clock, paid; then the proof fetched through the client passes the verifier with --rpc,
// a replayed POST answers the first answer, and an error arrives typed with its Request-Id.

import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { createPrizeDrawClient, requestIdOf } from "@prizedraw/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/processes.js";
import { createAccount, runServedVerifier, startStack, type Stack } from "../support/stack.js";

const run = promisify(execFile);
const WALLET = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720";

/** The README's TypeScript quick start: the ```ts block under "From a TypeScript backend". */
function readmeBlock(): string {
  const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("### From a TypeScript backend"));
  const block = /```ts\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (!block) throw new Error("README.md has no ```ts block under \"From a TypeScript backend\"");
  return block;
}

let scratch: string;
let stack: Stack;
let key: string;
let accountId: string;

beforeAll(async () => {
  mkdirSync(path.join(REPO_ROOT, "test-output"), { recursive: true });
  // Inside the repository, so "@prizedraw/client" resolves to the workspace package as in a partner's backend.
  scratch = mkdtempSync(path.join(REPO_ROOT, "test-output", "client-"));
  stack = await startStack();
  ({ accountId, key } = await createAccount(stack, "owner@example.com"));
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("@prizedraw/client", () => {
  it("has the types openapi-typescript generates from the committed api/openapi.json", async () => {
    const out = path.join(scratch, "schema.ts");
    await run(process.execPath, [path.join(REPO_ROOT, "node_modules/openapi-typescript/bin/cli.js"), path.join(REPO_ROOT, "api/openapi.json"), "-o", out], { cwd: REPO_ROOT });
    const committed = readFileSync(path.join(REPO_ROOT, "packages/client/src/schema.ts"), "utf8");
    expect(readFileSync(out, "utf8"), "packages/client/src/schema.ts is stale: run `npm run generate -w @prizedraw/client`").toBe(committed);
  }, 60_000);

  it("runs the README's TypeScript quick start through a whole draw, type-checked, and its proof verifies", async () => {
    const file = path.join(scratch, "draw.mts");
    writeFileSync(file, readmeBlock() + "\n");
    writeFileSync(path.join(scratch, "tsconfig.json"), JSON.stringify({
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM"], types: ["node"], strict: true, noEmit: true, skipLibCheck: true },
      files: ["draw.mts"],
    }));
    // The block compiles against the client's types (a wrong path, parameter or field fails here).
    await run(process.execPath, [path.join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-p", scratch], { cwd: scratch });

    await stack.cli("campaign", "create", "--account", accountId, "--slug", "summer-daily", "--name", "Summer Daily", "--mode", "push", "--cadence", "daily", "--hour", "20", "--winners", "3", "--payout-wallet", WALLET);
    await stack.cli("campaign", "activate", "summer-daily");
    const { stdout } = await run(process.execPath, ["--import", "tsx", file], {
      cwd: scratch,
      env: { ...process.env, PRIZEDRAW_URL: stack.baseUrl, PRIZEDRAW_KEY: key },
      timeout: 120_000,
    });
    const printed = stdout.trim().split("\n").map((line) => line.split(" "));
    expect(printed.map(([winner]) => winner)).toEqual(["u-7f3a9c21", "u-02be41d8", "u-c4d5e6f0"]);
    for (const [, cents] of printed) expect(Number(cents)).toBeGreaterThan(0);

    const client = createPrizeDrawClient({ baseUrl: stack.baseUrl, apiKey: key });
    const paid = await client.GET("/api/v1/campaigns/{slug}/drawings", { params: { path: { slug: "summer-daily" }, query: { status: "paid" } } });
    const drawing = paid.data!.drawings[0]!;
    expect(drawing.winners.map((w) => w.amountCents)).toEqual(printed.map(([, cents]) => Number(cents)));

    const proof = await client.GET("/campaigns/{slug}/draws/{id}/proof.json", { params: { path: { slug: "summer-daily", id: drawing.id } } });
    expect(proof.response.status).toBe(200);
    const verified = await runServedVerifier(stack, [`${stack.baseUrl}/campaigns/summer-daily/draws/${drawing.id}/proof.json`, "--rpc", stack.rpcUrl]);
    expect(verified.code, verified.out).toBe(0);

    // The quick start's POST, retried with its Idempotency-Key after the draw: the first answer, not a 409 locked.
    const replay = await client.POST("/api/v1/campaigns/{slug}/drawings/{id}/winners", {
      params: { path: { slug: "summer-daily", id: drawing.id }, header: { "Idempotency-Key": `winners-${drawing.id}` } },
      body: { winners: ["u-7f3a9c21", "u-02be41d8", { winner: "u-c4d5e6f0", displayName: "Cleo" }] },
    });
    expect(replay.response.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.error).toBeUndefined();
    // Without the key the same list after the cutoff is refused, and the error comes typed, with its request id.
    const late = await client.POST("/api/v1/campaigns/{slug}/drawings/{id}/winners", {
      params: { path: { slug: "summer-daily", id: drawing.id } },
      body: { winners: ["u-1", "u-2", "u-3"] },
    });
    expect(late.response.status).toBe(409);
    expect(late.error?.error).toBe("locked");
    expect(requestIdOf(late.response)).toMatch(/^req_[a-z0-9]+$/);
    const missing = await client.GET("/api/v1/campaigns/{slug}", { params: { path: { slug: "no-such-campaign" } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error).toBe("not_found");
  }, 180_000);
});
