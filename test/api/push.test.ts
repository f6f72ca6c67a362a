// The partner API on the real stack (anvil + contracts + Ponder + the service process + the CLI):
// a push campaign from creation through paid, the winner-posting rules, keys and the spec's error codes.

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_PRIZE_TABLE, computePrizes, fingerprint, toCampaignId } from "../../api/src/draw/index.js";
import type { Hex } from "viem";
import { until } from "../support/processes.js";
import { api, createAccount, type Stack } from "../support/stack.js";
import { useStack } from "../support/suite.js";
import { activeCampaign, clockBy, clockPast, clockTo, draftCampaign, firstOpenDrawing, getDrawing, waitForStatus, type DrawingBody } from "../support/partner.js";

let stack: Stack;
let accountId: string;
let key: string;

/** A draft push campaign: daily at 20:00 in Berlin, three winners a draw. */
const createCampaign = (slug: string) => draftCampaign(stack, accountId, slug, { name: `Campaign ${slug}`, winners: 3, flags: ["--hour", "20", "--timezone", "Europe/Berlin"] });
const openDrawing = (slug: string) => firstOpenDrawing(stack, key, slug);
const drawing = (slug: string, id: string) => getDrawing(stack, key, slug, id);

useStack("owner@example.com", (started) => ({ stack, accountId, key } = started));

describe("a push campaign from creation through paid", () => {
  it("creates, activates and shows the campaign with its next drawing", async () => {
    await createCampaign("summer-daily");
    const draft = await api(stack, "GET", "/api/v1/campaigns/summer-daily", { key });
    expect(draft.status).toBe(200);
    expect(draft.body.campaign).toMatchObject({ slug: "summer-daily", status: "draft", nextDrawing: null, winnersPerDraw: 3, largePrizeThresholdCents: 50_000 });
    await stack.cli("campaign", "activate", "summer-daily");
    const active = await api(stack, "GET", "/api/v1/campaigns/summer-daily", { key });
    const campaign = active.body.campaign as Record<string, unknown>;
    expect(campaign.status).toBe("active");
    expect(campaign.page).toBe(`${stack.baseUrl}/campaigns/summer-daily`);
    expect(campaign.termsUrl).toBe(`${stack.baseUrl}/terms`);
    expect(campaign.prizeTable).toMatchObject({ id: "default", version: 1, denominator: 100_000, averagePrizeCents: 958 });
    const next = campaign.nextDrawing as Record<string, unknown>;
    expect(next).toMatchObject({ winnersPerDraw: 3, averagePrizeCents: 958 });
    // Drawings about 48 hours ahead: a daily campaign has two.
    const open = await api(stack, "GET", "/api/v1/campaigns/summer-daily/drawings?status=open", { key });
    const drawings = open.body.drawings as DrawingBody[];
    expect(drawings.length).toBe(2);
    expect(drawings[0]!.id).toBe(next.id);
    expect(drawings[0]!.cutoffAt < drawings[1]!.cutoffAt).toBe(true);
    expect(new Date(drawings[0]!.drawAt).getTime() - new Date(drawings[0]!.cutoffAt).getTime()).toBe(60 * 60_000);
  });

  it("takes a list before the cutoff: 201, then 200, a new list replaces it", async () => {
    const open = await openDrawing("summer-daily");
    const first = await api(stack, "POST", `/api/v1/campaigns/summer-daily/drawings/${open.id}/winners`, { key, body: { winners: ["w-1", "w-2", "w-3"] } });
    expect(first.status).toBe(201);
    expect((first.body.drawing as DrawingBody).winners.map((w) => w.winner)).toEqual(["w-1", "w-2", "w-3"]);
    const again = await api(stack, "POST", `/api/v1/campaigns/summer-daily/drawings/${open.id}/winners`, { key, body: { winners: ["w-1", "w-2", "w-3"] } });
    expect(again.status).toBe(200);
    const replaced = await api(stack, "POST", `/api/v1/campaigns/summer-daily/drawings/${open.id}/winners`, {
      key,
      body: { winners: [{ winner: "w-9", displayName: "Nine", avatarUrl: "https://example.com/9.png" }, "w-2", { winner: "w-1" }] },
    });
    expect(replaced.status).toBe(200);
    const stored = await drawing("summer-daily", open.id);
    expect(stored.winners).toEqual([
      { position: 0, winner: "w-9", displayName: "Nine", avatarUrl: "https://example.com/9.png", heldForManualPayout: false },
      { position: 1, winner: "w-2", displayName: null, avatarUrl: null, heldForManualPayout: false },
      { position: 2, winner: "w-1", displayName: null, avatarUrl: null, heldForManualPayout: false },
    ]);
    expect(stored.status).toBe("open");
    expect(stored.verification.winnersCommitment).toBeNull();
  });

  it("locks at the cutoff, draws onchain, settles and pays; verification and prizes come from the chain", async () => {
    const open = await openDrawing("summer-daily");
    const moved = await clockPast(stack, key, "summer-daily", open, { check: false });
    expect(moved.status).toBe(200);
    const paid = await waitForStatus(stack, key, "summer-daily", open.id, "paid");
    expect(paid.number).toBe(1);
    expect(paid.needsAttention).toBeNull();
    const ids = ["w-9", "w-2", "w-1"];
    expect(paid.verification).toMatchObject({ winnersCommitment: fingerprint(ids), entropyProvider: "mock", entropyRequestId: expect.stringMatching(/^\d+$/), prizeTableId: "default" });
    expect(paid.verification.lockedAt).toBe(new Date(new Date(open.cutoffAt).getTime() + 1_000).toISOString().slice(0, 19) + paid.verification.lockedAt!.slice(19));
    const entropy = paid.verification.entropy as Hex;
    expect(entropy).toMatch(/^0x[0-9a-f]{64}$/);
    const expected = computePrizes({ entropy, campaignId: toCampaignId("summer-daily"), number: 1n, table: DEFAULT_PRIZE_TABLE, count: 3, largePrizeThresholdCents: 50_000 });
    expect(paid.winners.map((w) => ({ randomValue: w.randomValue, roll: w.roll, amountCents: w.amountCents, held: w.heldForManualPayout }))).toEqual(
      expected.map((p) => ({ randomValue: p.randomValue, roll: p.roll, amountCents: p.amountCents, held: p.held })),
    );
    // Names are not locked: they can change after the draw; the ids cannot.
    const renamed = await api(stack, "POST", `/api/v1/campaigns/summer-daily/drawings/${open.id}/winners`, { key, body: { winners: [{ winner: "w-9", displayName: "Nina" }, "w-2", "w-1"] } });
    expect(renamed.status).toBe(200);
    expect((renamed.body.drawing as DrawingBody).winners[0]!.displayName).toBe("Nina");
    const different = await api(stack, "POST", `/api/v1/campaigns/summer-daily/drawings/${open.id}/winners`, { key, body: { winners: ["w-2", "w-9", "w-1"] } });
    expect(different.status).toBe(409);
    expect(different.body).toMatchObject({ error: "locked" });
    const list = await api(stack, "GET", "/api/v1/campaigns/summer-daily/drawings?status=paid", { key });
    expect((list.body.drawings as DrawingBody[]).map((d) => d.id)).toEqual([open.id]);
  });

  it("flags a drawing with no winners at the cutoff; extending the cutoff and sending the list completes it", async () => {
    const open = await openDrawing("summer-daily");
    await clockPast(stack, key, "summer-daily", open, { check: false });
    const flagged = await until("flagged", async () => {
      const d = await drawing("summer-daily", open.id);
      return d.needsAttention ? d : undefined;
    }, 20_000, 200);
    expect(flagged.status).toBe("open");
    expect(flagged.needsAttention).toMatch(/no winners at the cutoff/);
    // The partner's note names what the partner can do; the operator's CLI way is in the operator's log.
    expect(flagged.needsAttention).toContain("partner portal");
    expect(flagged.needsAttention).not.toContain("prizedraw");
    // The service's output reaches service.log through a pipe, a moment after the flag is readable.
    const operatorLine = `prizedraw drawing extend-cutoff summer-daily ${open.id} --to <time>`;
    const log = await until("the operator's line in service.log", async () => {
      const text = readFileSync(path.join(stack.dataDir, "service.log"), "utf8");
      return text.includes(operatorLine) ? text : undefined;
    }, 10_000, 100);
    expect(log).toContain(operatorLine);
    const late = await api(stack, "POST", `/api/v1/campaigns/summer-daily/drawings/${open.id}/winners`, { key, body: { winners: ["a", "b", "c"] } });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe("locked");
    const clock = await clockBy(stack, key, "summer-daily", "1s");
    const now = new Date(clock.body.now as string);
    await stack.cli("drawing", "extend-cutoff", "summer-daily", open.id, "--to", new Date(now.getTime() + 10 * 60_000).toISOString());
    const sent = await api(stack, "POST", `/api/v1/campaigns/summer-daily/drawings/${open.id}/winners`, { key, body: { winners: ["a", "b", "c"] } });
    expect(sent.status).toBe(201);
    await clockBy(stack, key, "summer-daily", "11m");
    const paid = await waitForStatus(stack, key, "summer-daily", open.id, "paid");
    expect(paid.number).toBe(2);
    expect(paid.needsAttention).toBeNull();
  });
});

describe("crash safety of the drawing cycle", () => {
  it("reaches paid with one number and one payout when the service is killed mid-cycle, again and again", async () => {
    await createCampaign("crashy");
    await stack.cli("campaign", "activate", "crashy");
    const open = await openDrawing("crashy");
    await api(stack, "POST", `/api/v1/campaigns/crashy/drawings/${open.id}/winners`, { key, body: { winners: ["k-1", "k-2", "k-3"] } });
    await clockPast(stack, key, "crashy", open, { check: false });
    // SIGKILL at growing delays: somewhere between lock, commit, reveal, settle and payout.
    for (const delayMs of [50, 150, 300, 500, 800]) {
      await new Promise((r) => setTimeout(r, delayMs));
      await stack.restartService("SIGKILL");
    }
    const paid = await waitForStatus(stack, key, "crashy", open.id, "paid");
    expect(paid.number).toBe(1);
    // The chain agrees: exactly one drawing committed for the campaign, paid once.
    const indexed = (await (await fetch(`${stack.indexerUrl}/campaigns/${toCampaignId("crashy")}/drawings`)).json()) as { drawings: { number: string; status: string }[] };
    expect(indexed.drawings.map((d) => [d.number, d.status])).toEqual([["1", "paid"]]);
    const payouts = (await (await fetch(`${stack.indexerUrl}/payouts?campaignId=${toCampaignId("crashy")}`)).json()) as { payouts: unknown[] };
    expect(payouts.payouts).toHaveLength(1);
  });
});

describe("keys and accounts", () => {
  it("answers 401 unauthorized for a missing, malformed, unknown, other-environment or revoked key", async () => {
    const route = "/api/v1/campaigns/summer-daily";
    for (const bad of [undefined, "nope", "pd_test_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", key.replace("pd_test_", "pd_live_")]) {
      const r = await api(stack, "GET", route, { key: bad });
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ error: "unauthorized", detail: expect.any(String) });
    }
    const second = await stack.cli("key", "create", "--account", accountId);
    expect((await api(stack, "GET", route, { key: second.key as string })).status).toBe(200);
    await stack.cli("key", "revoke", "--account", accountId, second.keyId as string);
    const revoked = await api(stack, "GET", route, { key: second.key as string });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error).toBe("unauthorized");
  });

  it("lets only owners create keys", async () => {
    await stack.cli("member", "add", "--account", accountId, "--email", "member@example.com", "--role", "member");
    await expect(stack.cli("key", "create", "--account", accountId, "--as", "member@example.com")).rejects.toMatchObject({ code: 2 });
    const byOwner = await stack.cli("key", "create", "--account", accountId, "--as", "owner@example.com");
    expect(byOwner.key).toMatch(/^pd_test_/);
  });

  it("answers 404 not_found for another account's campaign exactly like a missing one", async () => {
    const other = (await stack.cli("account", "create", "--email", "other@example.com")).accountId as string;
    const otherKey = (await stack.cli("key", "create", "--account", other)).key as string;
    const theirs = await api(stack, "GET", "/api/v1/campaigns/summer-daily", { key: otherKey });
    const missing = await api(stack, "GET", "/api/v1/campaigns/no-such-campaign", { key: otherKey });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toBe("not_found");
    expect(missing.status).toBe(404);
    expect(Object.keys(theirs.body)).toEqual(Object.keys(missing.body));
    const open = await openDrawing("summer-daily");
    const post = await api(stack, "POST", `/api/v1/campaigns/summer-daily/drawings/${open.id}/winners`, { key: otherKey, body: { winners: ["x", "y", "z"] } });
    expect(post.status).toBe(404);
    expect((await drawing("summer-daily", open.id)).winners).toEqual([]);
  });
});

describe("listing campaigns", () => {
  type CampaignPage = { campaigns: { slug: string; status: string }[]; next: string | null };
  const list = (listKey: string, query = "") => api(stack, "GET", `/api/v1/campaigns${query}`, { key: listKey });

  it("lists the key's own campaigns newest first, a page at a time, each as GET a campaign shows it", async () => {
    const lister = await createAccount(stack, "lister@example.com");
    const slugs = ["list-a", "list-b", "list-c"];
    for (const slug of slugs) {
      await draftCampaign(stack, lister.accountId, slug);
    }
    await stack.cli("campaign", "activate", "list-b");

    const first = await list(lister.key, "?limit=2");
    expect(first.status).toBe(200);
    const page1 = first.body as CampaignPage;
    expect(page1.campaigns.map((c) => c.slug)).toEqual(["list-c", "list-b"]);
    expect(page1.next).toBe("list-b");
    for (const campaign of page1.campaigns) {
      const one = await api(stack, "GET", `/api/v1/campaigns/${campaign.slug}`, { key: lister.key });
      expect(campaign).toEqual(one.body.campaign);
    }
    // A campaign created between two pages does not shift the next one.
    await draftCampaign(stack, lister.accountId, "list-d", { payoutWallet: null });
    const page2 = (await list(lister.key, `?limit=2&after=${page1.next}`)).body as CampaignPage;
    expect(page2).toMatchObject({ campaigns: [{ slug: "list-a" }], next: null });
    expect(((await list(lister.key)).body as CampaignPage).campaigns.map((c) => c.slug)).toEqual(["list-d", "list-c", "list-b", "list-a"]);
    expect(((await list(lister.key, "?status=active")).body as CampaignPage).campaigns.map((c) => [c.slug, c.status])).toEqual([["list-b", "active"]]);
    // Another account's campaigns never appear, and the first account's list has none of the lister's.
    expect(((await list(key, "?limit=100")).body as CampaignPage).campaigns.map((c) => c.slug)).not.toContain("list-a");
  });

  it("refuses a bad limit, status, after or an unknown parameter with 400 bad_request naming it", async () => {
    for (const [query, field] of [
      ["?limit=0", "limit"],
      ["?limit=101", "limit"],
      ["?limit=ten", "limit"],
      ["?status=open", "status"],
      ["?after=Not%20A%20Slug", "after"],
      ["?after=summer-daily-x", "after"],
      ["?sort=slug", "sort"],
    ] as const) {
      const r = await list(key, query);
      expect(r.status, query).toBe(400);
      expect(r.body.error).toBe("bad_request");
      expect(r.body.detail, query).toContain(field);
    }
    // Another account's campaign is no key to page from: refused like an unknown one.
    const lister = await createAccount(stack, "lister-2@example.com");
    const theirs = await list(lister.key, "?after=summer-daily");
    expect(theirs.status).toBe(400);
    expect(theirs.body.detail).toContain("after");
    expect((await list(undefined as unknown as string)).status).toBe(401);
  });
});

describe("bad input changes nothing", () => {
  const cases: [string, { body?: unknown; rawBody?: string; contentType?: string }, RegExp][] = [
    ["malformed JSON", { rawBody: "{\"winners\": [" }, /not valid JSON/],
    ["a wrong content type", { rawBody: "winners=a", contentType: "application/x-www-form-urlencoded" }, /Content-Type: application\/json/],
    ["no winners key", { body: {} }, /winners/],
    ["winners not an array", { body: { winners: "a,b,c" } }, /winners/],
    ["an unknown field", { body: { winners: ["a", "b", "c"], extra: 1 } }, /extra|Unrecognized/i],
    ["the wrong count", { body: { winners: ["a", "b"] } }, /exactly 3/],
    ["a repeated winner", { body: { winners: ["a", "b", "a"] } }, /winners\[2\]\.winner repeats/],
    ["an empty id", { body: { winners: ["", "b", "c"] } }, /winners\[0\]/],
    ["an id over 200 characters", { body: { winners: ["x".repeat(201), "b", "c"] } }, /winners\[0\]/],
    ["a name over 40 characters", { body: { winners: [{ winner: "a", displayName: "n".repeat(41) }, "b", "c"] } }, /winners\[0\]\.displayName/],
    ["a non-https avatar", { body: { winners: [{ winner: "a", avatarUrl: "http://example.com/a.png" }, "b", "c"] } }, /winners\[0\]\.avatarUrl: must be an https URL/],
    ["a number as id", { body: { winners: [1, "b", "c"] } }, /winners\[0\]/],
    ["a NUL in an id", { body: { winners: ["a\u0000", "b", "c"] } }, /winners\[0\]/],
  ];
  for (const [what, request, detail] of cases) {
    it(`refuses ${what} with 400 bad_request naming the field`, async () => {
      const open = await openDrawing("summer-daily");
      const before = await drawing("summer-daily", open.id);
      const r = await api(stack, "POST", `/api/v1/campaigns/summer-daily/drawings/${open.id}/winners`, { key, ...request });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("bad_request");
      expect(r.body.detail).toMatch(detail);
      expect(await drawing("summer-daily", open.id)).toEqual(before);
    });
  }

  it("refuses a body over the limit, an unknown status filter and unknown drawings", async () => {
    const open = await openDrawing("summer-daily");
    // The service answers 413 before the upload ends and closes the connection; now and then the client sees
    // the reset instead of the answer (README, Known limits), so a reset is retried.
    let huge: Awaited<ReturnType<typeof api>> | undefined;
    for (let attempt = 0; attempt < 5 && !huge; attempt++) {
      huge = await api(stack, "POST", `/api/v1/campaigns/summer-daily/drawings/${open.id}/winners`, { key, rawBody: JSON.stringify({ winners: ["a".repeat(33 * 1024 * 1024)] }) }).catch(() => undefined);
    }
    if (!huge) throw new Error("every attempt to send the oversized body was reset");
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ error: "bad_request", detail: "the body is larger than 33554432 bytes" });
    const filter = await api(stack, "GET", "/api/v1/campaigns/summer-daily/drawings?status=done", { key });
    expect(filter.status).toBe(400);
    expect(filter.body).toMatchObject({ error: "bad_request", detail: expect.stringMatching(/^status: must be one of/) });
    const unknown = await api(stack, "GET", "/api/v1/campaigns/summer-daily/drawings/drw_nope", { key });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe("not_found");
  });
});

describe("campaign modes and ends", () => {
  it("refuses winners posted to a pull campaign with 409 pull_campaign", async () => {
    await activeCampaign(stack, accountId, "pulled", { name: "Pulled", mode: "pull", flags: ["--pull-url", "https://partner.example/winners/{drawingId}"] });
    const open = await openDrawing("pulled");
    const r = await api(stack, "POST", `/api/v1/campaigns/pulled/drawings/${open.id}/winners`, { key, body: { winners: ["a"] } });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe("pull_campaign");
  });

  it("pause removes upcoming drawings and their winners, resume creates new ones, end is final", async () => {
    await createCampaign("pausing");
    await stack.cli("campaign", "activate", "pausing");
    const open = await openDrawing("pausing");
    await api(stack, "POST", `/api/v1/campaigns/pausing/drawings/${open.id}/winners`, { key, body: { winners: ["a", "b", "c"] } });
    await stack.cli("campaign", "pause", "pausing");
    const paused = await api(stack, "GET", "/api/v1/campaigns/pausing", { key });
    expect(paused.body.campaign).toMatchObject({ status: "paused", nextDrawing: null });
    expect((await api(stack, "GET", "/api/v1/campaigns/pausing/drawings", { key })).body.drawings).toEqual([]);
    expect((await api(stack, "GET", `/api/v1/campaigns/pausing/drawings/${open.id}`, { key })).status).toBe(404);
    await stack.cli("campaign", "resume", "pausing");
    const resumed = await openDrawing("pausing");
    expect(resumed.id).not.toBe(open.id);
    expect(resumed.winners).toEqual([]);
    await stack.cli("campaign", "end", "pausing");
    const ended = await api(stack, "GET", "/api/v1/campaigns/pausing", { key });
    expect(ended.body.campaign).toMatchObject({ status: "ended", nextDrawing: null });
    expect(((ended.body.campaign as { schedule: { endsAt: string | null } }).schedule.endsAt)).not.toBeNull();
    await expect(stack.cli("campaign", "resume", "pausing")).rejects.toMatchObject({ code: 2 });
    await expect(stack.cli("campaign", "activate", "pausing")).rejects.toMatchObject({ code: 2 });
    // Winners for a drawing the end removed: campaign_ended, not not_found.
    const late = await api(stack, "POST", `/api/v1/campaigns/pausing/drawings/${resumed.id}/winners`, { key, body: { winners: ["a", "b", "c"] } });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe("campaign_ended");
  });

  it("ends a draft directly, and ends an active campaign by itself once its end date passed and all is drawn", async () => {
    await createCampaign("short-lived");
    await stack.cli("campaign", "end", "short-lived");
    expect(((await api(stack, "GET", "/api/v1/campaigns/short-lived", { key })).body.campaign as { status: string }).status).toBe("ended");

    await createCampaign("ends-soon");
    await stack.cli("campaign", "activate", "ends-soon");
    const first = await openDrawing("ends-soon");
    await stack.cli("campaign", "set", "ends-soon", "--ends-at", first.drawAt);
    const drawings = (await api(stack, "GET", "/api/v1/campaigns/ends-soon/drawings", { key })).body.drawings as DrawingBody[];
    expect(drawings.map((d) => d.id)).toEqual([first.id]); // the later one was after the end date
    await api(stack, "POST", `/api/v1/campaigns/ends-soon/drawings/${first.id}/winners`, { key, body: { winners: ["a", "b", "c"] } });
    await clockTo(stack, key, "ends-soon", new Date(first.drawAt).getTime() + 1_000);
    const ended = await until("ended by itself", async () => {
      const c = (await api(stack, "GET", "/api/v1/campaigns/ends-soon", { key })).body.campaign as { status: string };
      return c.status === "ended" ? c : undefined;
    }, 60_000, 250);
    expect(ended.status).toBe("ended");
    expect((await drawing("ends-soon", first.id)).status).toBe("paid");
  });

  it("a new table version moves open drawings; winnersPerDraw changes only drawings created afterwards", async () => {
    await createCampaign("versions");
    await stack.cli("campaign", "activate", "versions");
    const { writeFileSync } = await import("node:fs");
    const file = `${stack.dataDir}/table.json`;
    writeFileSync(file, JSON.stringify([{ amountCents: 5_000, weight: 1 }, { amountCents: 100, weight: 9 }]));
    const published = await stack.cli("prize-table", "publish", "versions", file);
    expect(published.prizeTable).toMatchObject({ id: "versions", version: 1, denominator: 10 });
    const open = await openDrawing("versions");
    const detail = (await api(stack, "GET", `/api/v1/campaigns/versions/drawings/${open.id}`, { key })).body.drawing as { prizeTable: { id: string; version: number } };
    expect(detail.prizeTable).toMatchObject({ id: "versions", version: 1 });
    await stack.cli("campaign", "set", "versions", "--winners", "5");
    const campaign = (await api(stack, "GET", "/api/v1/campaigns/versions", { key })).body.campaign as { winnersPerDraw: number; nextDrawing: { winnersPerDraw: number } };
    expect(campaign.winnersPerDraw).toBe(5);
    expect(campaign.nextDrawing.winnersPerDraw).toBe(3);
    writeFileSync(file, JSON.stringify([{ amountCents: 5_000, weight: 0 }, { amountCents: 100, weight: 9 }]));
    await expect(stack.cli("prize-table", "publish", "versions", file)).rejects.toMatchObject({ result: { error: "bad_request" } });
  });

  it("refuses activation without a payout wallet", async () => {
    await draftCampaign(stack, accountId, "no-wallet", { name: "No wallet", payoutWallet: null });
    await expect(stack.cli("campaign", "activate", "no-wallet")).rejects.toMatchObject({ result: { error: "invalid_transition" } });
    const draft = await api(stack, "GET", "/api/v1/campaigns/no-wallet", { key });
    expect((draft.body.campaign as { status: string }).status).toBe("draft");
  });

  it("answers 404 for the test clock of another account's campaign and refuses a bad clock body", async () => {
    const bad = await api(stack, "POST", "/api/v1/campaigns/summer-daily/test-clock", { key, body: { advanceBy: "soon" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("bad_request");
  });
});
