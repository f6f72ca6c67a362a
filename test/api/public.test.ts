// Public endpoints on the real stack: draws.json (paging across 250 draws, stage mapping, drafts hidden, CORS),
// proof.json (served only once drawn and only under its own campaign's URL, verifies with the served verifier, also
// with --rpc; ETag and caching; a stored list that no longer hashes to the onchain commitment is refused and the
// drawing flagged),
// and the verifier files.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storePath, type Store } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import { newId } from "../../api/src/store/ids.js";
import { drawValue, drawingSlot, toCampaignId, userRandomNumber } from "../../api/src/draw/index.js";
import type { Hex } from "viem";
import { jsonRpc, mineBlocks, until } from "../support/processes.js";
import { TEST_WALLET, api, createAccount, runServedVerifier, startStack, type Stack } from "../support/stack.js";
import { clockPast } from "../support/partner.js";

let stack: Stack;
let key: string;
let accountId: string;
let drawnId: string;

type DrawItem = { id: string; number: number | null; drawAt: string; stage: string; winners: number; proof: string | null; winnersCommitment: string | null };

beforeAll(async () => {
  stack = await startStack();
  ({ accountId, key } = await createAccount(stack, "owner@example.com"));
  await stack.cli("campaign", "create", "--account", accountId, "--slug", "public-daily", "--name", "Public Daily", "--mode", "push", "--cadence", "daily", "--winners", "3", "--payout-wallet", TEST_WALLET);
  await stack.cli("campaign", "activate", "public-daily");
  const open = ((await api(stack, "GET", "/api/v1/campaigns/public-daily/drawings?status=open", { key })).body.drawings as { id: string; cutoffAt: string }[])[0]!;
  drawnId = open.id;
  await api(stack, "POST", `/api/v1/campaigns/public-daily/drawings/${open.id}/winners`, { key, body: { winners: [{ winner: "u-1", displayName: "Ada" }, "u-2", "u-3"] } });
  await clockPast(stack, key, "public-daily", open, { check: false });
  await until("drawn", async () => {
    const d = (await api(stack, "GET", `/api/v1/campaigns/public-daily/drawings/${open.id}`, { key })).body.drawing as { status: string };
    return d.status === "paid" ? true : undefined;
  }, 60_000, 250);
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

describe("proof.json", () => {
  it("serves a drawn draw's proof that the served verifier passes, offline and with --rpc", async () => {
    const list = await api(stack, "GET", "/campaigns/public-daily/draws.json");
    const item = (list.body.draws as DrawItem[]).find((d) => d.id === drawnId)!;
    expect(item.stage).toBe("paid");
    expect(item.proof).toBe(`${stack.baseUrl}/campaigns/public-daily/draws/${drawnId}/proof.json`);
    const proof = await api(stack, "GET", `/campaigns/public-daily/draws/${drawnId}/proof.json`);
    expect(proof.status).toBe(200);
    expect(Object.keys(proof.body)).toEqual(["proofVersion", "campaign", "drawing", "winnerList", "entropy", "prizeTable", "results", "entrants", "chain", "finality"]);
    expect(proof.body).toMatchObject({
      proofVersion: 6,
      campaign: { id: "public-daily", slug: "public-daily", name: "Public Daily" },
      drawing: { id: drawnId, number: 1, slot: drawingSlot(drawnId) },
      winnerList: { winners: ["u-1", "u-2", "u-3"], commitment: item.winnersCommitment },
      entropy: {
        provider: "mock",
        userContribution: userRandomNumber({ campaignId: toCampaignId("public-daily"), number: 1, slot: drawingSlot(drawnId), listCommitment: item.winnersCommitment as Hex }),
        providerContribution: null,
      },
      entrants: null,
      chain: { chainId: 31337, contract: stack.deployment.prizeDraw, entropy: stack.deployment.entropy.toLowerCase() },
    });
    expect((proof.body.results as { displayName: string | null }[])[0]!.displayName).toBe("Ada");
    // Version 6: the value the prizes follow from is the mock's value mixed with the hash of the commit's block.
    const entropy = proof.body.entropy as { revealedValue: Hex; requestBlock: { number: number; hash: Hex }; value: Hex };
    const chain = proof.body.chain as { commitTx: Hex };
    const commitBlock = BigInt((await jsonRpc<{ blockNumber: string }>(stack.rpcUrl, "eth_getTransactionReceipt", [chain.commitTx])).blockNumber);
    expect(entropy.requestBlock).toEqual({ number: Number(commitBlock), hash: (await jsonRpc<{ hash: Hex }>(stack.rpcUrl, "eth_getBlockByNumber", [`0x${commitBlock.toString(16)}`, false])).hash });
    expect(entropy.value).toBe(drawValue(entropy.revealedValue, entropy.requestBlock.hash));

    const served = await fetch(`${stack.baseUrl}/verify/verify-draw.mjs`);
    expect(served.headers.get("content-type")).toMatch(/javascript/);
    const offline = await runServedVerifier(stack, [item.proof!]);
    expect(offline.out).toMatch(/PASS/);
    expect(offline.code).toBe(0);
    const withRpc = await runServedVerifier(stack, [item.proof!, "--rpc", stack.rpcUrl, "--json"]);
    expect(withRpc.code).toBe(0);
    const report = JSON.parse(withRpc.out) as { ok: boolean; checks: { id: string; status: string }[] };
    expect(report.ok).toBe(true);
    expect(report.checks.filter((c) => c.id.startsWith("rpc.")).every((c) => c.status !== "fail")).toBe(true);
    expect(report.checks.some((c) => c.id === "rpc.reveal" && c.status === "pass")).toBe(true);
    // Version 3: the commit's slot and the request's user contribution are checked against the chain.
    for (const id of ["rpc.commit.slot", "rpc.request.user"]) expect(report.checks.find((c) => c.id === id)?.status, id).toBe("pass");
  });

  it("marks a result provisional until its blocks are final, then serves it final with a strong ETag, long caching and 304s", async () => {
    const url = `${stack.baseUrl}/campaigns/public-daily/draws/${drawnId}/proof.json`;
    const read = async () => {
      const response = await fetch(url);
      const body = (await response.json()) as { finality: string; chain: { revealTx: Hex } };
      const drawing = (await api(stack, "GET", `/api/v1/campaigns/public-daily/drawings/${drawnId}`, { key })).body.drawing as { verification: { final: boolean } };
      const item = ((await api(stack, "GET", "/campaigns/public-daily/draws.json")).body.draws as { id: string; final: boolean }[]).find((d) => d.id === drawnId)!;
      return { response, body, apiFinal: drawing.verification.final, listFinal: item.final };
    };
    // The local chain's finalized block is 30 blocks behind the head (LOCAL_CHAIN_FINALITY_ARGS). Whether the draw
    // is still within them depends on how long the tests before took, so the provisional view is checked against
    // the chain's own finalized block at the moment it is read.
    const before = await read();
    const revealBlock = BigInt((await jsonRpc<{ blockNumber: string }>(stack.rpcUrl, "eth_getTransactionReceipt", [before.body.chain.revealTx])).blockNumber);
    const finalizedNow = BigInt((await jsonRpc<{ number: string }>(stack.rpcUrl, "eth_getBlockByNumber", ["finalized", false])).number);
    if (revealBlock > finalizedNow) {
      expect(before.body.finality).toBe("provisional");
      expect(before.response.headers.get("cache-control")).toBe("public, no-cache");
      expect([before.apiFinal, before.listFinal]).toEqual([false, false]);
    }
    await mineBlocks(stack.rpcUrl, 40); // past the 30-block finality depth: the reveal and payout are now final
    const after = await until("the draw final", async () => {
      const seen = await read();
      return seen.body.finality === "final" ? seen : undefined;
    }, 30_000, 250);
    expect([after.apiFinal, after.listFinal]).toEqual([true, true]);
    const etag = after.response.headers.get("etag");
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(after.response.headers.get("cache-control")).toBe("public, max-age=86400");
    expect(after.response.headers.get("access-control-allow-origin")).toBe("*");
    const again = await fetch(url, { headers: { "if-none-match": etag! } });
    expect(again.status).toBe(304);
  });

  it("never answers a drawing's provisional proof under another campaign's URL, even while a build of it is in flight", async () => {
    await stack.cli("campaign", "create", "--account", accountId, "--slug", "public-other", "--name", "Public Other", "--mode", "push", "--cadence", "daily", "--payout-wallet", TEST_WALLET);
    await stack.cli("campaign", "activate", "public-other");
    // Provisional for as long as the test needs: a payout block far above any finalized one (the keeper records a
    // drawing's blocks only while they are missing, so it leaves this one be). Put back afterwards.
    const store: Store = await openServiceStore(stack.storeLocation);
    const paidBlock = (await store.drawings.byId((await store.campaigns.bySlug("public-daily"))!.id, drawnId))!.paidBlock;
    try {
      await store.conn.q().updateTable("drawings").set({ paid_block: 2 ** 31 - 1 }).where("id", "=", drawnId).execute();
      const own = `${stack.baseUrl}/campaigns/public-daily/draws/${drawnId}/proof.json`;
      const other = `${stack.baseUrl}/campaigns/public-other/draws/${drawnId}/proof.json`;
      const first = await fetch(own);
      expect(first.status).toBe(200);
      expect(((await first.json()) as { finality: string }).finality).toBe("provisional");
      // Requests under both URLs at once, so that those under the other campaign's arrive while the proof is built.
      const seen: Record<"own" | "other", number[]> = { own: [], other: [] };
      for (let round = 0; round < 25; round++) {
        const replies = await Promise.all(Array.from({ length: 12 }, async (_, i) => {
          const which = i % 2 === 0 ? "own" : "other";
          const response = await fetch(which === "own" ? own : other);
          await response.arrayBuffer();
          return [which, response.status] as const;
        }));
        for (const [which, status] of replies) seen[which].push(status);
      }
      expect(new Set(seen.own)).toEqual(new Set([200]));
      expect(seen.other.filter((s) => s !== 404), "answers under public-other's URL other than 404").toEqual([]);
    } finally {
      await store.conn.q().updateTable("drawings").set({ paid_block: paidBlock }).where("id", "=", drawnId).execute();
      await store.close();
    }
  });

  it("answers 404 for an undrawn draw, an unknown draw and an unknown campaign", async () => {
    const open = ((await api(stack, "GET", "/api/v1/campaigns/public-daily/drawings?status=open", { key })).body.drawings as { id: string }[])[0]!;
    for (const route of [`/campaigns/public-daily/draws/${open.id}/proof.json`, "/campaigns/public-daily/draws/drw_nope/proof.json", "/campaigns/nope/draws.json", "/campaigns/nope/draws/x/proof.json"]) {
      const r = await api(stack, "GET", route);
      expect(r.status, route).toBe(404);
      expect(r.body.error).toBe("not_found");
    }
  });

  it("never reads a file outside api/public for odd paths", async () => {
    for (const route of ["/verify/../package.json", "/verify/%2e%2e%2fpackage.json", "/verify/..%2f..%2fpackage.json", "/campaigns/..%2f..%2fetc/draws.json", "/verify/verify-draw.mjs%00.md"]) {
      const r = await fetch(`${stack.baseUrl}${route}`);
      expect(r.status, route).toBe(404);
      expect(await r.text()).not.toContain("prize-draw-service");
    }
    const skill = await fetch(`${stack.baseUrl}/verify/SKILL.md`);
    expect(skill.status).toBe(200);
    expect(await skill.text()).toContain("verify-draw.mjs");
  });

  it("refuses to serve a proof whose stored list no longer matches the onchain commitment, and flags the drawing", async () => {
    // A second drawn draw, then its stored list is altered behind the service's back.
    const open = ((await api(stack, "GET", "/api/v1/campaigns/public-daily/drawings?status=open", { key })).body.drawings as { id: string; cutoffAt: string }[])[0]!;
    await api(stack, "POST", `/api/v1/campaigns/public-daily/drawings/${open.id}/winners`, { key, body: { winners: ["t-1", "t-2", "t-3"] } });
    await clockPast(stack, key, "public-daily", open, { check: false });
    await until("second drawn", async () => (((await api(stack, "GET", `/api/v1/campaigns/public-daily/drawings/${open.id}`, { key })).body.drawing as { status: string }).status === "paid" ? true : undefined), 60_000, 250);
    const store: Store = await openServiceStore(storePath(stack.dataDir));
    try {
      await store.conn.q().updateTable("winners").set({ winner_id: "t-9" }).where("drawing_id", "=", open.id).where("position", "=", 0).execute();
    } finally {
      await store.close();
    }
    const refused = await api(stack, "GET", `/campaigns/public-daily/draws/${open.id}/proof.json`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: "proof_mismatch" });
    const flagged = (await api(stack, "GET", `/api/v1/campaigns/public-daily/drawings/${open.id}`, { key })).body.drawing as { needsAttention: string };
    expect(flagged.needsAttention).toMatch(/does not hash to the onchain commitment/);
  });
});

describe("draws.json", () => {
  it("pages through 250 draws newest first with nextBefore, and maps every status to its stage", async () => {
    await stack.cli("campaign", "create", "--account", accountId, "--slug", "history", "--name", "History", "--mode", "push", "--cadence", "hourly", "--payout-wallet", TEST_WALLET);
    await stack.cli("campaign", "activate", "history");
    // 250 past drawings written straight into the store (the keeper would need hours of chain time for them).
    const store: Store = await openServiceStore(storePath(stack.dataDir));
    const statuses = ["open", "locked", "entropy_requested", "settled", "paid"] as const;
    try {
      const campaign = (await store.campaigns.bySlug("history"))!;
      await store.tx(async () => {
        for (let i = 0; i < 250; i++) {
          const drawAt = new Date(Date.UTC(2026, 0, 1) + i * 3_600_000);
          await store.drawings.insertIfAbsent({
            id: newId("drw"), campaignId: campaign.id, drawAt: drawAt.toISOString(), cutoffAt: new Date(drawAt.getTime() - 300_000).toISOString(),
            status: statuses[i % 5]!, winnersExpected: 1, number: i % 5 === 0 ? null : i + 1, partnerRound: null, tableId: "default", tableVersion: 1,
            needsAttention: null, listSubmittedAt: null, lockedAt: null, winnersCommitment: null, entropyProvider: null, entropyRequestId: null,
            entropyValue: null, entropyRevealedAt: null, settledAt: null, paidAt: null, commitTx: null, revealTx: null, revealBlock: null, paidBlock: null, createdAt: new Date().toISOString(),
            entrantCount: 0, totalWeight: 0, entrantsCommitment: null,
          });
        }
      });
    } finally {
      await store.close();
    }
    const seen: DrawItem[] = [];
    let before: string | null = null;
    let pages = 0;
    do {
      const query: string = before ? `?limit=100&before=${encodeURIComponent(before)}` : "?limit=100";
      const r = await api(stack, "GET", `/campaigns/history/draws.json${query}`);
      expect(r.status).toBe(200);
      seen.push(...(r.body.draws as DrawItem[]));
      before = r.body.nextBefore as string | null;
      pages++;
    } while (before !== null && pages < 10);
    const past = seen.filter((d) => d.drawAt < "2026-02-01");
    expect(past).toHaveLength(250);
    expect(new Set(seen.map((d) => d.id)).size).toBe(seen.length);
    const times = seen.map((d) => d.drawAt);
    expect([...times].sort().reverse()).toEqual(times);
    const stageOf = (i: number) => past.find((d) => d.drawAt === new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString())!;
    expect([0, 1, 2, 3, 4].map((i) => stageOf(i).stage)).toEqual(["open", "locked", "drawing", "drawn", "paid"]);
    expect(stageOf(3).proof).toMatch(/proof\.json$/);
    expect(stageOf(1).proof).toBeNull();
    const first = await api(stack, "GET", "/campaigns/history/draws.json");
    expect((first.body.draws as DrawItem[]).length).toBe(30);
    expect(first.body.campaign).toMatchObject({ slug: "history", name: "History", status: "active", cadence: "hourly", timezone: "UTC", winnersPerDraw: 1, payout: { chainId: 31337, tokenDecimals: 6 } });
  });

  it("refuses bad limit and before values with 400 bad_request", async () => {
    for (const query of ["limit=0", "limit=101", "limit=abc", "limit=1.5", "before=yesterday", "before=2026-13-01T00:00:00Z", "other=1"]) {
      const r = await api(stack, "GET", `/campaigns/public-daily/draws.json?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.error).toBe("bad_request");
    }
  });

  it("hides drafts like missing campaigns and answers with CORS open", async () => {
    await stack.cli("campaign", "create", "--account", accountId, "--slug", "secret-draft", "--name", "Draft", "--mode", "push", "--cadence", "daily");
    const draft = await api(stack, "GET", "/campaigns/secret-draft/draws.json");
    expect(draft.status).toBe(404);
    expect(draft.body.error).toBe("not_found");
    const response = await fetch(`${stack.baseUrl}/campaigns/public-daily/draws.json`, { headers: { origin: "https://elsewhere.example" } });
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    const preflight = await fetch(`${stack.baseUrl}/campaigns/public-daily/draws.json`, { method: "OPTIONS", headers: { origin: "https://elsewhere.example", "access-control-request-method": "GET" } });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
  });
});
