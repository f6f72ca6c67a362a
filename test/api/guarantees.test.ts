// Guarantees on the real stack (anvil + contracts + Ponder + the service process + the CLI), driven by the test
// clock across several periods: a period with a big prize (not_needed), one without (awaiting_pick, pick, paid
// onchain once), a pause moving a period's end, an ended campaign finishing its checks, and the pick's refusals.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toCampaignId } from "../../api/src/draw/index.js";
import { until } from "../support/processes.js";
import { TEST_WALLET, api, createAccount, startStack, type Stack } from "../support/stack.js";
import { clockBy, clockTo, drawThroughPaid, firstOpenDrawing, guaranteeCampaign } from "../support/partner.js";

let stack: Stack;
let accountId: string;
let key: string;
let otherKey: string;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

type Guarantee = { id: string; period: number; periodStart: string; periodEnd: string; status: string; amountCents: number };
type Drawing = { id: string; status: string; drawAt: string; cutoffAt: string; winners: { winner: string; amountCents?: number }[] };
/** Onchain guarantee periods count from 0; the service's from 1. */
type Payout = { kind: string; period: number | null; wallet: string; amountCents: string; txHash: string };

/** The guarantee campaign `slug` (guaranteeCampaign), every prize `prizeCents`; answers its first period's start. */
const createCampaign = (slug: string, prizeCents: number, guarantee: string) => guaranteeCampaign(stack, accountId, slug, { name: `Guarantees ${slug}`, prizeCents, guarantee });

/** Moves the campaign's clock on by `by` and answers the campaign's time after it. */
const clock = async (slug: string, by: string) => Date.parse((await clockBy(stack, key, slug, by)).body.now as string);
const advanceTo = (slug: string, ms: number) => clockTo(stack, key, slug, ms);

/** Sends `winners` to the next open drawing, moves past its cutoff and waits until it is paid. */
const draw = async (slug: string, winners: string[]) => drawThroughPaid<Drawing>(stack, key, slug, await firstOpenDrawing<Drawing>(stack, key, slug), winners);

async function guarantees(slug: string, withKey = key): Promise<Guarantee[]> {
  const r = await api(stack, "GET", `/api/v1/campaigns/${slug}/guarantees`, { key: withKey });
  expect(r.status).toBe(200);
  return r.body.guarantees as Guarantee[];
}

const waitForPeriods = (slug: string, count: number) =>
  until(`${slug}: ${count} checked periods`, async () => {
    const list = await guarantees(slug);
    return list.length >= count ? list : undefined;
  }, 60_000, 250);

const pick = (slug: string, id: string, body: unknown, withKey = key) => api(stack, "POST", `/api/v1/campaigns/${slug}/guarantees/${id}/pick`, { key: withKey, body });

async function guaranteePayouts(slug: string): Promise<Payout[]> {
  const body = (await (await fetch(`${stack.indexerUrl}/payouts?campaignId=${toCampaignId(slug)}`)).json()) as { payouts: Payout[] };
  return body.payouts.filter((p) => p.kind === "guarantee");
}

/** Lets the keeper (1 s interval in tests) run a few cycles. */
const cycles = () => new Promise((resolve) => setTimeout(resolve, 3_000));

beforeAll(async () => {
  stack = await startStack();
  ({ accountId, key } = await createAccount(stack, "owner@example.com"));
  otherKey = (await createAccount(stack, "other@example.com")).key;
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

describe("a period with a prize at or above the threshold", () => {
  it("is not_needed once its end has passed and its drawing is drawn", async () => {
    const start = await createCampaign("gtd-big", 1_000, "2000,500,1");
    expect(await guarantees("gtd-big")).toEqual([]);
    const drawn = await draw("gtd-big", ["big-1", "big-2"]);
    expect(drawn.winners.map((w) => w.amountCents)).toEqual([1_000, 1_000]);
    await cycles();
    expect(await guarantees("gtd-big")).toEqual([]); // the period has not ended
    await advanceTo("gtd-big", start + DAY + 60_000);
    const [period] = await waitForPeriods("gtd-big", 1);
    expect(period).toEqual({ id: expect.stringMatching(/^gtd_/), period: 1, periodStart: new Date(start).toISOString(), periodEnd: new Date(start + DAY).toISOString(), status: "not_needed", amountCents: 2_000 });
    const refused = await pick("gtd-big", period!.id, { winner: "big-1" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe("rejected");
    expect(await guaranteePayouts("gtd-big")).toEqual([]);
  });
});

describe("a period without one: awaiting_pick, the pick, paid", () => {
  let start: number;
  let period: Guarantee;
  let first: Drawing;
  let second: Drawing;

  beforeAll(async () => {
    start = await createCampaign("gtd-small", 100, "2000,500,2");
    first = await draw("gtd-small", ["alice", "bob"]);
    second = await draw("gtd-small", ["alice", "carol"]);
    await advanceTo("gtd-small", start + 2 * DAY + 60_000);
    [period] = (await waitForPeriods("gtd-small", 1)) as [Guarantee];
  }, 180_000);

  it("lists the period as awaiting_pick and pays nothing before a pick", async () => {
    expect(period).toEqual({ id: expect.stringMatching(/^gtd_/), period: 1, periodStart: new Date(start).toISOString(), periodEnd: new Date(start + 2 * DAY).toISOString(), status: "awaiting_pick", amountCents: 2_000 });
    await cycles();
    expect((await guarantees("gtd-small"))[0]!.status).toBe("awaiting_pick");
    expect(await guaranteePayouts("gtd-small")).toEqual([]);
  });

  it("refuses a malformed body with 400 bad_request", async () => {
    const cases: { body?: unknown; rawBody?: string; contentType?: string }[] = [
      { body: {} },
      { body: { winner: 7 } },
      { body: { winner: "" } },
      { body: { winner: "x".repeat(201) } },
      { body: { winner: "alice", extra: true } },
      { body: { winner: "alice", drawingId: 3 } },
      { body: ["alice"] },
      { rawBody: "{\"winner\": " },
      { rawBody: "winner=alice", contentType: "application/x-www-form-urlencoded" },
    ];
    for (const request of cases) {
      const r = await api(stack, "POST", `/api/v1/campaigns/gtd-small/guarantees/${period.id}/pick`, { key, ...request });
      expect(r.status, JSON.stringify(request)).toBe(400);
      expect(r.body).toMatchObject({ error: "bad_request", detail: expect.any(String) });
    }
    expect((await guarantees("gtd-small"))[0]!.status).toBe("awaiting_pick");
  });

  it("refuses winners who did not win in the period, or won twice without drawingId, with 400 rejected", async () => {
    for (const body of [{ winner: "dave" }, { winner: "alice" }, { winner: "bob", drawingId: second.id }]) {
      const r = await pick("gtd-small", period.id, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ error: "rejected", detail: expect.any(String) });
    }
    expect((await pick("gtd-small", period.id, { winner: "alice" })).body.detail).toMatch(/drawingId/);
  });

  it("answers 404 not_found for an unknown guarantee, an unknown drawingId and another account's campaign", async () => {
    const unknown = await pick("gtd-small", "gtd_nope", { winner: "bob" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe("not_found");
    const unknownDrawing = await pick("gtd-small", period.id, { winner: "alice", drawingId: "drw_nope" });
    expect(unknownDrawing.status).toBe(404);
    expect(unknownDrawing.body.error).toBe("not_found");
    const theirs = await pick("gtd-small", period.id, { winner: "bob" }, otherKey);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toBe("not_found");
    expect((await api(stack, "GET", "/api/v1/campaigns/gtd-small/guarantees", { key: otherKey })).status).toBe(404);
    expect((await guarantees("gtd-small"))[0]!.status).toBe("awaiting_pick");
  });

  it("takes exactly one of two concurrent picks (201 { payoutId }), then 409 rejected even for the same winner", async () => {
    const [a, b] = await Promise.all([pick("gtd-small", period.id, { winner: "alice", drawingId: first.id }), pick("gtd-small", period.id, { winner: "bob" })]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const [won, lost] = a.status === 201 ? [a, b] : [b, a];
    expect(won.body).toEqual({ payoutId: expect.stringMatching(/^pay_/) });
    expect(lost.body).toMatchObject({ error: "rejected" });
    const winner = a.status === 201 ? "alice" : "bob";
    const again = await pick("gtd-small", period.id, winner === "alice" ? { winner, drawingId: first.id } : { winner });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("rejected");
    expect((await guarantees("gtd-small"))[0]!.status).toBe("picked");

    // picked -> paid once the indexer shows the GuaranteePaid transfer; one transfer, to the payout wallet.
    await until("guarantee paid", async () => ((await guarantees("gtd-small"))[0]!.status === "paid" ? true : undefined), 60_000, 250);
    const payouts = await guaranteePayouts("gtd-small");
    expect(payouts).toEqual([
      expect.objectContaining({ period: period.period - 1, wallet: TEST_WALLET, amountCents: "2000" }),
    ]);
    await cycles();
    await clock("gtd-small", "1m");
    await cycles();
    expect(await guaranteePayouts("gtd-small")).toHaveLength(1);
    expect((await guarantees("gtd-small"))[0]!.status).toBe("paid");
    expect((await pick("gtd-small", period.id, { winner: "carol" })).status).toBe(409);
  });
});

describe("pauses and the end", () => {
  it("does not count paused time: a day's pause moves the period end a day", async () => {
    const start = await createCampaign("gtd-pause", 100, "2000,500,1");
    await draw("gtd-pause", ["p-1", "p-2"]);
    const t1 = await clock("gtd-pause", "0s");
    await stack.cli("campaign", "pause", "gtd-pause");
    const t2 = await clock("gtd-pause", "0s");
    await clock("gtd-pause", "1d");
    const t3 = await clock("gtd-pause", "0s");
    await stack.cli("campaign", "resume", "gtd-pause");
    const t4 = await clock("gtd-pause", "0s");
    // The pause lasted between t3 - t2 and t4 - t1 on the campaign's clock.
    const earliest = start + DAY + (t3 - t2);
    const latest = start + DAY + (t4 - t1);
    expect(t4).toBeGreaterThan(start + DAY); // the unpaused end has passed...
    await cycles();
    expect(await guarantees("gtd-pause")).toEqual([]); // ...but the period has not ended
    await advanceTo("gtd-pause", earliest - 60_000);
    await cycles();
    expect(await guarantees("gtd-pause")).toEqual([]);
    await advanceTo("gtd-pause", latest + 60_000);
    const [period] = await waitForPeriods("gtd-pause", 1);
    expect(period).toMatchObject({ period: 1, periodStart: new Date(start).toISOString(), status: "awaiting_pick" });
    expect(Date.parse(period!.periodEnd)).toBeGreaterThanOrEqual(earliest);
    expect(Date.parse(period!.periodEnd)).toBeLessThanOrEqual(latest);
  }, 120_000); // ten CLI runs and keeper cycles: 13 s alone, over 60 s once on a loaded machine

  it("checks the last period of an ended campaign at its end, and pays a pick made after the end once, through crashes", async () => {
    await stack.cli("campaign", "end", "gtd-pause");
    const campaign = (await api(stack, "GET", "/api/v1/campaigns/gtd-pause", { key })).body.campaign as { status: string; schedule: { endsAt: string } };
    expect(campaign.status).toBe("ended");
    const list = await waitForPeriods("gtd-pause", 2);
    // Period 2 held no drawn winner (its drawing was removed by the end): nothing to pick.
    expect(list[1]).toMatchObject({ period: 2, periodStart: list[0]!.periodEnd, periodEnd: campaign.schedule.endsAt, status: "not_needed" });
    const picked = await pick("gtd-pause", list[0]!.id, { winner: "p-2" });
    expect(picked.status).toBe(201);
    // The service is killed around the payment, again and again: still one transfer.
    for (const delayMs of [50, 300, 800]) {
      await new Promise((r) => setTimeout(r, delayMs));
      await stack.restartService("SIGKILL");
    }
    await until("paid after the end", async () => ((await guarantees("gtd-pause"))[0]!.status === "paid" ? true : undefined), 60_000, 250);
    const payouts = await guaranteePayouts("gtd-pause");
    expect(payouts).toEqual([expect.objectContaining({ period: list[0]!.period - 1, amountCents: "2000" })]);
    await clock("gtd-pause", "30d");
    await cycles();
    expect(await guarantees("gtd-pause")).toHaveLength(2);
  });
});
