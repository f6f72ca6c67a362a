// The indexer's Postgres mode (DATABASE_URL) on the real stack: a private PostgreSQL server, Ponder writing its
// index there instead of PGlite, a push drawing from its cutoff to a served proof that verifies against the
// chain, and a Ponder restart that resumes from Postgres without duplicates.

import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toCampaignId } from "../../api/src/draw/index.js";
import { startPostgres, type Postgres } from "../support/postgres.js";
import { jsonRpc, until } from "../support/processes.js";
import { type Stack } from "../support/stack.js";
import { useStack } from "../support/suite.js";
import { activeCampaign, drawThroughPaid, firstOpenDrawing, verifyServedProof } from "../support/partner.js";

let postgres: Postgres;
let stack: Stack;
let key: string;

type IndexedDrawing = { number: string; status: string; winnersCommitment: string };

async function indexedDrawings(slug: string): Promise<IndexedDrawing[]> {
  const response = await fetch(`${stack.indexerUrl}/campaigns/${toCampaignId(slug)}/drawings`);
  return ((await response.json()) as { drawings: IndexedDrawing[] }).drawings;
}

/** Posts `winners` to the next open drawing, moves the test clock past its cutoff and waits for it to be paid. */
async function payNextDrawing(winners: string[]): Promise<string> {
  const drawing = await firstOpenDrawing(stack, key, "pg-daily");
  await drawThroughPaid(stack, key, "pg-daily", drawing, winners);
  return drawing.id;
}

async function rowCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ["campaign", "prize_table", "drawing", "prize", "payout"]) {
    const [row] = await postgres.query<{ n: string }>(`select count(*) as n from stack_test.${table}`);
    counts[table] = Number(row!.n);
  }
  return counts;
}

// The PostgreSQL server first and last: the stack's Ponder writes to it.
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

useStack(
  "owner@example.com",
  async (started) => {
    ({ stack, key } = started);
    await activeCampaign(stack, started.accountId, "pg-daily", { name: "Postgres Daily", winners: 3 });
  },
  () => ({ databaseUrl: postgres.url }),
);

describe("the indexer on Postgres", () => {
  it("indexes a drawing into Postgres, not PGlite, and the served proof verifies against the chain", async () => {
    const drawnId = await payNextDrawing(["p-1", "p-2", "p-3"]);

    // The rows are in the Postgres schema; PGlite's folder was never created.
    const [row] = await postgres.query<{ number: string; status: string }>("select number::text, status from stack_test.drawing where campaign_id = $1", [toCampaignId("pg-daily")]);
    expect(row).toEqual({ number: "1", status: "paid" });
    expect(await rowCounts()).toMatchObject({ campaign: 1, drawing: 1, prize: 3, payout: 1 });
    expect(existsSync(path.join(stack.dataDir, "ponder"))).toBe(false);

    const verified = await verifyServedProof(stack, "pg-daily", drawnId, "--json");
    const report = JSON.parse(verified.out) as { ok: boolean; checks: { id: string; status: string }[] };
    expect(report.checks.filter((c) => c.status === "fail")).toEqual([]);
    expect(report.ok).toBe(true);
    expect(verified.code).toBe(0);
  });

  it("resumes from Postgres after a restart: the same rows, none twice, and new events still arrive", async () => {
    const before = await rowCounts();
    const drawingsBefore = await indexedDrawings("pg-daily");
    await stack.stopIndexer();
    const chainHead = BigInt(await jsonRpc<string>(stack.rpcUrl, "eth_blockNumber"));
    await stack.startIndexer();
    // Ponder reverts the blocks after the finalized one on restart and indexes them again: /head says when.
    await until("/head at the chain's head again", async () => {
      const head = (await (await fetch(`${stack.indexerUrl}/head`)).json()) as { blockNumber: string | null };
      return head.blockNumber !== null && BigInt(head.blockNumber) >= chainHead ? true : undefined;
    }, 30_000, 100);
    expect(await indexedDrawings("pg-daily")).toEqual(drawingsBefore);
    expect(await rowCounts()).toEqual(before);

    // The next drawing after the restart is indexed on top of the resumed data.
    await payNextDrawing(["q-1", "q-2", "q-3"]);
    expect((await indexedDrawings("pg-daily")).map((d) => [d.number, d.status])).toEqual([["2", "paid"], ["1", "paid"]]);
    expect(await rowCounts()).toEqual({ ...before, drawing: 2, prize: 6, payout: 2 });
  });
});
