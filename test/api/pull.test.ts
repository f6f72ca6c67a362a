// A pull campaign on the real stack, fetching from a local https server whose self-signed certificate only the
// test's service process trusts (NODE_EXTRA_CA_CERTS) and which PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK lets it reach:
// not ready, a list, a changed list, a malformed one, a staff alert in the last 5 minutes, the lock at the
// cutoff, a list that never arrives and an extended cutoff; the URL never appears in logs or responses.

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { usePartnerServer } from "../support/partnerServer.js";
import { until } from "../support/processes.js";
import { api, type Stack } from "../support/stack.js";
import { useStack } from "../support/suite.js";
import { activeCampaign, clockTo as clockToOf, getDrawing, type DrawingBody } from "../support/partner.js";

let stack: Stack;
let key: string;
let accountId: string;
let urlBase: string;
const SECRET = "tok-7d1c9e3a5b";
/** What the partner's URL answers, per drawing id. */
const answers = new Map<string, { status: number; body: unknown }>();
const requests: string[] = [];

const drawing = (slug: string, id: string) => getDrawing(stack, key, slug, id, { check: false });

/** The latest time the test moved the clock to (the clock never moves back). */
let clockMovedTo = 0;

async function clockTo(slug: string, at: number): Promise<void> {
  await clockToOf(stack, key, slug, at);
  clockMovedTo = Math.max(clockMovedTo, at);
}

/**
 * The first open drawing whose cutoff is more than `leadMs` ahead of the campaign's clock. The clock only moves
 * forward, so a test that walks through the fetch window needs the whole window ahead: the daily cutoff's first
 * drawing is too close when the suite runs in the 2 hours before it (CI at 17:01 UTC failed on a 19:00 cutoff).
 */
async function openDrawingAhead(slug: string, leadMs: number): Promise<DrawingBody> {
  const now = Math.max(Date.now(), clockMovedTo);
  const open = (await api(stack, "GET", `/api/v1/campaigns/${slug}/drawings?status=open`, { key })).body.drawings as DrawingBody[];
  const ahead = open.find((d) => Date.parse(d.cutoffAt) - now > leadMs);
  if (!ahead) throw new Error(`no open drawing of ${slug} has its cutoff ${leadMs} ms ahead`);
  return ahead;
}

async function fetches(slug: string, id: string): Promise<{ outcome: string; reason: string | null }[]> {
  return (await stack.cli("drawing", "fetches", slug, id)).fetches as { outcome: string; reason: string | null }[];
}

async function waitFetches(slug: string, id: string, n: number) {
  return until(`${n} fetches`, async () => {
    const list = await fetches(slug, id);
    return list.length >= n ? list : undefined;
  }, 20_000, 200);
}

const partner = usePartnerServer("prizedraw-pull-e2e", (req, res) => {
  requests.push(req.url ?? "");
  const id = /\/winners\/(drw_[a-z0-9]+)/.exec(req.url ?? "")?.[1] ?? "";
  const answer = answers.get(id) ?? { status: 404, body: { error: "not yet" } };
  res.writeHead(answer.status, { "content-type": "application/json" });
  res.end(typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body));
});

useStack(
  "owner@example.com",
  (started) => {
    ({ stack, accountId, key } = started);
    urlBase = `${partner.origin}/${SECRET}/winners`;
  },
  () => ({ extraEnv: partner.serviceEnv }),
);

describe("pull campaigns", () => {
  it("refuses an hourly campaign whose URL only has {date}, with a clear message", async () => {
    await expect(
      stack.cli("campaign", "create", "--account", accountId, "--slug", "hourly-date", "--name", "H", "--mode", "pull", "--cadence", "hourly", "--pull-url", `${urlBase}/{date}`),
    ).rejects.toMatchObject({ result: { error: "bad_request", detail: expect.stringMatching(/hourly campaign's pullUrl needs \{drawingId\} or \{drawAt\}/) } });
  });

  it("fetches in the 2 hours before the cutoff, stores full lists only, replaces a changed one, alerts staff, and locks it", async () => {
    await activeCampaign(stack, accountId, "pulled", { name: "Pulled", mode: "pull", winners: 2, flags: ["--pull-url", `${urlBase}/{drawingId}?at={drawAt}&date={date}`] });
    const campaign = (await api(stack, "GET", "/api/v1/campaigns/pulled", { key })).body.campaign as { pullUrl: string };
    expect(campaign.pullUrl).toBe(`${partner.origin}/…`);
    const open = await openDrawingAhead("pulled", 125 * 60_000);
    const cutoff = new Date(open.cutoffAt).getTime();

    await clockTo("pulled", cutoff - 119 * 60_000);
    expect((await waitFetches("pulled", open.id, 1)).map((f) => f.outcome)).toEqual(["not_ready"]);
    expect(requests.at(-1)).toContain(`/winners/${open.id}?at=${encodeURIComponent(open.drawAt)}&date=`);

    answers.set(open.id, { status: 200, body: { round: 7, winners: [{ winner: "p-1", displayName: "Pam" }, "p-2"] } });
    await clockTo("pulled", cutoff - 114 * 60_000);
    await waitFetches("pulled", open.id, 2);
    let d = await drawing("pulled", open.id);
    expect(d.winners.map((w) => w.winner)).toEqual(["p-1", "p-2"]);
    expect(d.partnerRound).toBe(7);

    answers.set(open.id, { status: 200, body: { winners: ["p-3", "p-1"] } });
    await clockTo("pulled", cutoff - 109 * 60_000);
    await waitFetches("pulled", open.id, 3);
    expect((await drawing("pulled", open.id)).winners.map((w) => w.winner)).toEqual(["p-3", "p-1"]);

    // A partial list is recorded with its reason and stores nothing.
    answers.set(open.id, { status: 200, body: { winners: ["only-one"] } });
    await clockTo("pulled", cutoff - 104 * 60_000);
    const history = await waitFetches("pulled", open.id, 4);
    expect(history.at(-1)).toMatchObject({ outcome: "invalid", reason: expect.stringMatching(/exactly 2/) });
    expect((await drawing("pulled", open.id)).winners.map((w) => w.winner)).toEqual(["p-3", "p-1"]);

    // Still failing in the last 5 minutes: a staff alert (once), listed by the CLI.
    answers.set(open.id, { status: 500, body: "oops" });
    await clockTo("pulled", cutoff - 4 * 60_000);
    await waitFetches("pulled", open.id, 5);
    const alerts = (await stack.cli("alerts", "list")).alerts as { kind: string; campaignSlug: string; drawingId: string; detail: string }[];
    expect(alerts).toEqual([expect.objectContaining({ kind: "pull_url_failing", campaignSlug: "pulled", drawingId: open.id, detail: expect.stringMatching(/HTTP 500/) })]);

    // At the cutoff the stored list locks as if posted, and the drawing goes through to paid.
    await clockTo("pulled", cutoff + 1_000);
    d = await until("pulled paid", async () => {
      const x = await drawing("pulled", open.id);
      return x.status === "paid" ? x : undefined;
    }, 60_000, 250);
    expect(d.winners.map((w) => w.winner)).toEqual(["p-3", "p-1"]);
    const posted = await api(stack, "POST", `/api/v1/campaigns/pulled/drawings/${open.id}/winners`, { key, body: { winners: ["p-3", "p-1"] } });
    expect(posted.status).toBe(409);
    expect(posted.body.error).toBe("pull_campaign");

    // The secret URL is in no public response, no proof, no log line.
    const proof = await (await fetch(`${stack.baseUrl}/campaigns/pulled/draws/${open.id}/proof.json`)).text();
    const draws = await (await fetch(`${stack.baseUrl}/campaigns/pulled/draws.json`)).text();
    const page = await (await fetch(`${stack.baseUrl}/campaigns/pulled`)).text();
    const logs = readFileSync(path.join(stack.dataDir, "service.log"), "utf8") + readFileSync(path.join(stack.dataDir, "cli.log"), "utf8");
    for (const text of [proof, draws, page, logs]) expect(text).not.toContain(SECRET);
    expect(logs).toContain("pull_url_failing");
  });

  it("leaves a drawing whose list never arrives flagged; extending the cutoff lets it complete", async () => {
    const open = await openDrawingAhead("pulled", 35 * 60_000);
    const cutoff = new Date(open.cutoffAt).getTime();
    await clockTo("pulled", cutoff - 30 * 60_000);
    await waitFetches("pulled", open.id, 1);
    await clockTo("pulled", cutoff + 1_000);
    const flagged = await until("flagged", async () => {
      const x = await drawing("pulled", open.id);
      return x.needsAttention ? x : undefined;
    }, 20_000, 200);
    expect(flagged.status).toBe("open");
    const newCutoff = cutoff + 60 * 60_000;
    await stack.cli("drawing", "extend-cutoff", "pulled", open.id, "--to", new Date(newCutoff).toISOString());
    answers.set(open.id, { status: 200, body: { winners: ["late-1", "late-2"] } });
    await clockTo("pulled", newCutoff - 20 * 60_000);
    await until("late list stored", async () => ((await drawing("pulled", open.id)).winners.length === 2 ? true : undefined), 20_000, 200);
    await clockTo("pulled", newCutoff + 1_000);
    const paid = await until("late drawing paid", async () => {
      const x = await drawing("pulled", open.id);
      return x.status === "paid" ? x : undefined;
    }, 60_000, 250);
    expect(paid.winners.map((w) => w.winner)).toEqual(["late-1", "late-2"]);
    expect(paid.needsAttention).toBeNull();
  });
});
