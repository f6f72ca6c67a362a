// verify-draw.mjs --campaign: every commit of a campaign on the (fake) chain is accounted for by draws.json, served
// with its proofs by a small local HTTP server in pages.

import { afterAll, describe, expect, it } from "vitest";
import type { IncomingMessage, ServerResponse } from "node:http";
import { REAL_PROVIDER, drawingSlot, idToBytes32, keccakHex, makeEntriesProof, makeWinnersProof, type Proof } from "./fixtures.js";
import { FakeChain, type ChainKnobs } from "./fake-chain.js";
import { closedPort, hasStackTrace, runVerifier, serve } from "./run.js";

const CAMPAIGN = "summer-daily";
const PAGE_SIZE = 2;
const drawAtOf = (n: number) => new Date(Date.parse("2026-11-25T20:00:00.000Z") + n * 86_400_000).toISOString();

/** Drawing n of the campaign as a version 3 proof (drawing 2 is an entries draw). */
function proofOf(n: number): Proof {
  const common = { seed: `campaign-${n}`, number: n, version: 3 as const, provider: REAL_PROVIDER, drawingId: `drw_c${n}`, drawAt: drawAtOf(n), campaignId: CAMPAIGN };
  return n === 2 ? makeEntriesProof({ ...common, winnersExpected: 4 }).proof : makeWinnersProof({ ...common, winners: 3 });
}

/** Where the fake chain commits drawing n, and the block its commit's request was revealed too late in (300 later). */
const commitBlockOf = (n: number) => 100 + 20 * (n - 1);
const lateBlockOf = (n: number) => commitBlockOf(n) + 300;

/**
 * Drawing n as a version 6 proof, a request of its own each (request 30 + n; batches of one, so no other drawing of
 * the campaign is committed with it). A drawing in `reRequested` was re-requested (request 30 + n replacing 20 + n)
 * right after its first request's reveal came too late, on a deployment with a day's timeout.
 */
function proofV6Of(n: number, reRequested: number[]): Proof {
  const re = reRequested.includes(n);
  const common = {
    seed: `campaign-v6-${n}`,
    number: n,
    version: 6 as const,
    provider: REAL_PROVIDER,
    drawingId: `drw_c${n}`,
    drawAt: drawAtOf(n),
    campaignId: CAMPAIGN,
    batchOthers: [],
    reRequested: re,
    timeoutBlocks: 43_200,
    previousRequestId: String(20 + n),
    requestBlockNumber: re ? lateBlockOf(n) + 1 : commitBlockOf(n),
  };
  const proof = n === 2 ? makeEntriesProof({ ...common, winnersExpected: 4 }).proof : makeWinnersProof({ ...common, winners: 3 });
  proof.entropy.requestId = String(30 + n);
  return proof;
}

type DrawItem = {
  id: string;
  number: number | null;
  drawAt: string;
  cutoffAt: string;
  stage: string;
  winners: number;
  winnersCommitment: string | null;
  lockedAt: string | null;
  settledAt: string | null;
  paidAt: string | null;
  proof: string | null;
  slot: string;
};

type Scenario = {
  /** Version 6 proofs (default version 3), and the drawings re-requested after a reveal that came too late. */
  version?: 6;
  reRequested?: number[];
  /** Chain knobs per drawing 1..3 (drawing 3 is committed but not revealed). */
  knobs?: Record<number, ChainKnobs>;
  /** Extra commits with no proof. */
  extraCommits?: { number: number; slot: `0x${string}`; drawAt: number }[];
  /** Changes to draws.json's items. */
  editDraws?: (draws: DrawItem[]) => void;
  /** Changes to a served proof. */
  editProof?: (n: number, proof: Proof) => void;
  /** draws.json's campaign object changes. */
  editCampaign?: (campaign: Record<string, unknown>) => void;
  chainKnobs?: ChainKnobs;
};

const servers: { close: () => Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function campaign(scenario: Scenario = {}, ...flags: string[]) {
  const proofs = [1, 2, 3].map((n) => (scenario.version === 6 ? proofV6Of(n, scenario.reRequested ?? []) : proofOf(n)));
  const chain = new FakeChain(
    // Version 6 drawings are requested alone (the default batch holds another drawing of this campaign).
    proofs.map((proof, i) => ({ proof, knobs: { ...(i === 2 ? { unrevealed: true } : {}), ...(scenario.version === 6 ? { batchOthers: [] } : {}), ...scenario.knobs?.[i + 1] } })),
    { latestBlock: 25_000, ...scenario.chainKnobs },
  );
  for (const c of scenario.extraCommits ?? []) chain.addCommit({ campaignId: CAMPAIGN, number: c.number, slot: c.slot, drawAt: c.drawAt, block: 20_000 });
  const rpc = await serve(chain.handler);
  servers.push(rpc);

  const site = await serve((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, "http://x");
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const proofMatch = /^\/campaigns\/summer-daily\/draws\/([^/]+)\/proof\.json$/.exec(url.pathname);
    if (proofMatch) {
      const n = proofs.findIndex((p) => p.drawing.id === proofMatch[1]);
      if (n < 0 || n === 2) return json(404, { error: "not_found", detail: "no drawn draw with this id" });
      const proof = JSON.parse(JSON.stringify(proofs[n])) as Proof;
      scenario.editProof?.(n + 1, proof);
      return json(200, proof);
    }
    if (url.pathname !== "/campaigns/summer-daily/draws.json") return json(404, { error: "not_found", detail: "no such page" });
    const draws: DrawItem[] = [
      ...proofs.map((p, i) => ({
        id: p.drawing.id,
        number: p.drawing.number,
        drawAt: p.drawing.drawAt,
        cutoffAt: p.drawing.drawAt,
        stage: ["paid", "drawn", "drawing"][i]!,
        winners: p.winnerList.winners.length,
        winnersCommitment: p.winnerList.commitment,
        lockedAt: p.winnerList.lockedAt,
        settledAt: i < 2 ? p.entropy.revealedAt : null,
        paidAt: i === 0 ? p.entropy.revealedAt : null,
        proof: i < 2 ? `${base}/campaigns/summer-daily/draws/${p.drawing.id}/proof.json` : null,
        slot: drawingSlot(p.drawing.id),
      })),
      { id: "drw_c4", number: null, drawAt: drawAtOf(4), cutoffAt: drawAtOf(4), stage: "open", winners: 0, winnersCommitment: null, lockedAt: null, settledAt: null, paidAt: null, proof: null, slot: drawingSlot("drw_c4") },
    ];
    scenario.editDraws?.(draws);
    draws.sort((a, b) => (a.drawAt < b.drawAt ? 1 : -1));
    const before = url.searchParams.get("before");
    const rest = draws.filter((d) => before === null || d.drawAt < before);
    const page = rest.slice(0, PAGE_SIZE);
    const campaignObject: Record<string, unknown> = {
      slug: CAMPAIGN,
      name: "Summer Daily",
      status: "active",
      cadence: "daily",
      timezone: "UTC",
      winnersPerDraw: 3,
      page: `${base}/campaigns/${CAMPAIGN}`,
      payout: { chainId: 31337, contract: proofs[0]!.chain.contract, token: "0x0000000000000000000000000000000000000001", tokenDecimals: 6 },
      campaignId: idToBytes32(CAMPAIGN),
      chain: { chainId: 31337, contract: proofs[0]!.chain.contract, deployBlock: 1 },
    };
    scenario.editCampaign?.(campaignObject);
    return json(200, { campaign: campaignObject, draws: page, nextBefore: rest.length > PAGE_SIZE ? page[page.length - 1]!.drawAt : null });
  });
  servers.push(site);
  const base = site.url;
  const run = await runVerifier(["--campaign", `${base}/campaigns/summer-daily/draws.json`, "--rpc", rpc.url, ...flags]);
  return { ...run, ranges: chain.getLogsRanges, proofs };
}

describe("--campaign", () => {
  it("every commit accounted for: drawn draws verified with --rpc, the undrawn one waiting", async () => {
    const run = await campaign();
    expect(run.code, run.output).toBe(0);
    for (const line of [
      /^✔ the RPC serves chain 31337, the campaign's chain$/m,
      /^✔ 3 DrawingCommitted events of campaign summer-daily read from contract 0x[0-9a-f]{40} \(blocks 1 to 25000\)$/m,
      /^✔ #1 drw_c1: proof \(version 3\) verified with --rpc, \d+ checks passed$/m,
      /^✔ #2 drw_c2: proof \(version 3\) verified with --rpc, \d+ checks passed$/m,
      /^ℹ #3 drw_c3: committed, waiting for its random value \(stage drawing\)$/m,
    ]) {
      expect(run.stdout).toMatch(line);
    }
    expect(run.stdout.trim().split("\n").at(-1)).toBe("3 of 3 commits accounted for");
    expect(run.stdout).not.toMatch(/✘/);
  });

  it("version 6: each re-request and each reveal discarded as too late is said as information under its drawing", async () => {
    const tooLate = (n: number, more: { of: "commit" | "reRequest"; block: number }[] = []): ChainKnobs => ({ tooLate: [{ of: "commit", block: lateBlockOf(n) }, ...more] });
    const run = await campaign({ version: 6, reRequested: [2], knobs: { 2: tooLate(2), 3: tooLate(3) } });
    expect(run.code, run.output).toBe(0);
    const provider = REAL_PROVIDER;
    const lines = run.stdout.trim().split("\n");
    const at = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l));
    const expected = [
      /^✔ #1 drw_c1: proof \(version 6\) verified with --rpc, \d+ checks passed$/,
      /^✔ #2 drw_c2: proof \(version 6\) verified with --rpc, \d+ checks passed$/,
      new RegExp(`^ℹ #2: the reveal of request 22 of provider ${provider} came in block 420, 300 blocks after its request \\(block 120\\), too late to read that block's hash: the contract discarded it unused \\(EntropyRevealTooLate\\), which allows the drawing's one re-request at once$`),
      new RegExp(`^ℹ #2: re-requested in block 421: request 22 of provider ${provider} replaced by request 32 of provider ${provider}$`),
      /^ℹ #3 drw_c3: committed, waiting for its random value \(stage drawing\)$/,
      new RegExp(`^ℹ #3: the reveal of request 33 of provider ${provider} came in block 440, 300 blocks after its request \\(block 140\\), too late to read that block's hash: the contract discarded it unused \\(EntropyRevealTooLate\\), which allows the drawing's one re-request at once$`),
    ].map(at);
    expect(expected.every((i) => i >= 0), run.stdout).toBe(true);
    expect([...expected].sort((a, b) => a - b)).toEqual(expected);
    expect(lines.at(-1)).toBe("3 of 3 commits accounted for");
  });

  it("version 6: a waiting drawing whose re-request's reveal also came too late stays requested, in public", async () => {
    const knobs: Record<number, ChainKnobs> = { 3: { tooLate: [{ of: "commit", block: lateBlockOf(3) }, { of: "reRequest", block: lateBlockOf(3) + 1 + 300 }] } };
    const run = await campaign({ version: 6, reRequested: [3], knobs }, "--json");
    expect(run.code, run.output).toBe(0);
    const out = JSON.parse(run.stdout) as { checks: { id: string; status: string; number?: number; message: string }[] };
    expect(out.checks.filter((c) => c.number === 3).map((c) => [c.id, c.status])).toEqual([
      ["campaign.commit", "info"],
      ["campaign.lateReveal", "info"],
      ["campaign.reRequest", "info"],
      ["campaign.lateReveal", "info"],
    ]);
    expect(out.checks.filter((c) => c.number === 3).at(-1)!.message).toMatch(
      /^#3: the reveal of request 33 of provider 0x[0-9a-f]{40} came in block 741, 300 blocks after its request \(block 441\), .*; the drawing was already re-requested once, so it stays requested$/,
    );
  });

  it("version 6: a drawn drawing's proof re-requested early without a discarded reveal fails", async () => {
    // The chain re-requests drawing 2 in block 421 (before its timeout) but shows no EntropyRevealTooLate.
    const run = await campaign({ version: 6, reRequested: [2], knobs: { 2: { reRequestBlock: lateBlockOf(2) + 1 } } });
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ #2: the proof of "drw_c2" fails 1 check \(rpc\.reRequest\.timeout\)$/m);
    expect(run.stdout).not.toMatch(/EntropyRevealTooLate\), which allows/);
  });

  it("reads the commits in windows of at most 10,000 blocks from the deploy block to the latest", async () => {
    const run = await campaign();
    expect(run.code, run.output).toBe(0);
    for (const [from, to] of run.ranges) expect(to - from + 1).toBeLessThanOrEqual(10_000);
    const scan = run.ranges.filter(([from]) => from === 1 || from === 10_001 || from === 20_001);
    expect(scan).toEqual([
      [1, 10_000],
      [10_001, 20_000],
      [20_001, 25_000],
    ]);
  });

  it("an extra commit under a made-up slot: exit 1 naming its number", async () => {
    const run = await campaign({ extraCommits: [{ number: 4, slot: keccakHex("drw_made_up"), drawAt: Date.parse(drawAtOf(5)) / 1000 }] });
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ #4: committed onchain \(slot 0x[0-9a-f]{8}…[0-9a-f]{6}, draw time 2026-11-30T20:00:00\.000Z\) but draws\.json lists no draw #4$/m);
    expect(run.stdout.trim().split("\n").at(-1)).toBe("3 of 4 commits accounted for");
  });

  it("a repeated slot: exit 1", async () => {
    const run = await campaign({ knobs: { 3: { slot: drawingSlot("drw_c2") } } });
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ #3: committed under slot 0x[0-9a-f]{64}, already used by #2$/m);
    expect(run.stdout).toMatch(/^✘ #3: draws\.json slot 0x[0-9a-f]{64} of "drw_c3", committed slot 0x[0-9a-f]{64}$/m);
    expect(run.stdout.trim().split("\n").at(-1)).toBe("2 of 3 commits accounted for");
  });

  it("a repeated draw time: exit 1", async () => {
    const run = await campaign({ knobs: { 3: { drawAt: Date.parse(drawAtOf(2)) / 1000 } } });
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ #3: committed with draw time 2026-11-27T20:00:00\.000Z, already used by #2$/m);
  });

  it("a gap in the numbers: exit 1 naming the missing number", async () => {
    const run = await campaign({ extraCommits: [{ number: 5, slot: keccakHex("drw_c5"), drawAt: Date.parse(drawAtOf(5)) / 1000 }] });
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ #4: no commit onchain, yet commits go up to #5$/m);
    expect(run.stdout).toMatch(/^✘ #5: committed onchain .* but draws\.json lists no draw #5$/m);
  });

  it("draws.json showing another slot, or a draw time that differs from the commit: exit 1", async () => {
    const run = await campaign({
      editDraws: (draws) => {
        draws.find((d) => d.number === 1)!.slot = keccakHex("another");
        draws.find((d) => d.number === 2)!.drawAt = drawAtOf(2.5);
      },
    });
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ #1: draws\.json slot 0x[0-9a-f]{64} of "drw_c1", committed slot 0x[0-9a-f]{64}$/m);
    expect(run.stdout).toMatch(/^✘ #2: draws\.json drawAt 2026-11-28T08:00:00\.000Z, committed draw time 2026-11-27T20:00:00\.000Z$/m);
    expect(run.stdout.trim().split("\n").at(-1)).toBe("1 of 3 commits accounted for");
  });

  it("a draw id that does not hash to the committed slot: exit 1", async () => {
    const run = await campaign({
      editDraws: (draws) => {
        const d = draws.find((x) => x.number === 3)!;
        d.id = "drw_renamed";
      },
    });
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ #3: keccak256 of the draw id "drw_renamed" is 0x[0-9a-f]{64}, not the committed slot 0x[0-9a-f]{64}$/m);
  });

  it("a drawn draw whose proof fails: exit 1 naming the number and the failed checks", async () => {
    const run = await campaign({
      editProof: (n, proof) => {
        if (n === 2) proof.results[0]!.amountCents += 1;
      },
    });
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ #2: the proof of "drw_c2" fails \d checks? \(results\.prizes, rpc\.prizes\)$/m);
    expect(run.stdout).toMatch(/^ {4}- \d+ of \d+ positions? (does|do) not recompute$/m);
    expect(run.stdout.trim().split("\n").at(-1)).toBe("2 of 3 commits accounted for");
  });

  it("a proof of another drawing served for a draw: exit 1", async () => {
    const run = await campaign({
      editProof: (n, proof) => {
        if (n === 1) proof.drawing.number = 9;
      },
    });
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ #1: the proof is of drawing #9$/m);
  });

  it("a drawn draw listed without a commit: exit 1", async () => {
    const run = await campaign({
      editDraws: (draws) => {
        const open = draws.find((d) => d.id === "drw_c4")!;
        open.number = 4;
        open.stage = "drawn";
      },
    });
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ #4: draws\.json shows "drw_c4" as drawn, but nothing is committed onchain as #4$/m);
    expect(run.stdout.trim().split("\n").at(-1)).toBe("3 of 3 commits accounted for");
  });

  it("a committed draw shown as open: exit 1", async () => {
    const run = await campaign({
      editDraws: (draws) => {
        draws.find((d) => d.number === 3)!.stage = "open";
      },
    });
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ #3: committed onchain, but draws\.json shows "drw_c3" at stage "open"$/m);
  });

  it("an RPC of another chain: exit 1", async () => {
    const run = await campaign({ chainKnobs: { chainId: 8453 } });
    expect(run.code, run.output).toBe(1);
    expect(run.stdout).toMatch(/^✘ the RPC serves chain 8453, draws\.json says chain 31337; use an RPC of chain 31337$/m);
  });

  it("--json: commits, accounted and every finding", async () => {
    const run = await campaign({ extraCommits: [{ number: 4, slot: keccakHex("drw_made_up"), drawAt: Date.parse(drawAtOf(5)) / 1000 }] }, "--json");
    expect(run.code, run.output).toBe(1);
    const out = JSON.parse(run.stdout) as { ok: boolean; commits: number; accounted: number; checks: { id: string; status: string; number?: number; message: string }[] };
    expect(out).toMatchObject({ ok: false, commits: 4, accounted: 3 });
    expect(out.checks.filter((c) => c.status === "fail").map((c) => c.number)).toEqual([4]);
  });

  it("draws.json without the campaign's onchain id is unusable (exit 2)", async () => {
    const run = await campaign({ editCampaign: (c) => delete c.campaignId });
    expect(run.code, run.output).toBe(2);
    expect(run.stderr).toMatch(/^✘ error: draws\.json field campaign\.campaignId must be a 0x-prefixed 32-byte hex string \(missing\)$/m);
    expect(hasStackTrace(run.output)).toBe(false);
  });

  it("usage: --campaign needs --rpc and no proof", async () => {
    const noRpc = await runVerifier(["--campaign", "http://127.0.0.1:1/campaigns/x/draws.json"]);
    expect(noRpc.code).toBe(2);
    expect(noRpc.stderr).toMatch(/--campaign needs --rpc URL/);
    const withProof = await runVerifier(["proof.json", "--campaign", "http://127.0.0.1:1/d.json", "--rpc", "http://127.0.0.1:1"]);
    expect(withProof.code).toBe(2);
    expect(withProof.stderr).toMatch(/give no proof with it/);
  });

  it("an unreachable draws.json is unusable (exit 2)", async () => {
    const port = await closedPort();
    const run = await runVerifier(["--campaign", `http://127.0.0.1:${port}/campaigns/x/draws.json`, "--rpc", `http://127.0.0.1:${port}`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`cannot fetch the draws\\.json from http://127\\.0\\.0\\.1:${port}/campaigns/x/draws\\.json: ECONNREFUSED`));
  });
});
