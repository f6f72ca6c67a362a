// The portal's campaign screens over real HTTP against the whole stack: a person signs in by the emailed link (the
// test outbox at /portal/outbox), creates a campaign, edits it, moves its status, previews and publishes a prize
// table, works on its drawings, and (owners only) sets its logo and links; the audit log shows it all. Each bad
// input must show the domain's words next to its field and change nothing in the store; a body over the portal's
// limit gets a 413 page, never an error.

import { afterAll, describe, expect, it } from "vitest";
import { averagePrizeCents } from "../../api/src/draw/index.js";
import { storePath, type Store } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import { fieldError, ownerAndMember, type PortalClient } from "../support/portalClient.js";
import { until } from "../support/processes.js";
import { abortMidBody, postBody, requestLines } from "../support/rawBody.js";
import { type Stack, TEST_WALLET } from "../support/stack.js";
import { useStack } from "../support/suite.js";
import { clockPast, draftCampaign, openDrawings, postWinners } from "../support/partner.js";

const OWNER = "owner@example.com";
const MEMBER = "member@example.com";
const SLUG = "portal-daily";
const PULL_SECRET = "s3cr3t-t0ken-9f2c";
/** A 1x1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

let stack: Stack;
let store: Store;
let accountId: string;
let key: string;
let owner: PortalClient;
let member: PortalClient;

const campaign = () => store.campaigns.bySlug(SLUG);

/** A complete "new campaign" form. */
function newForm(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    name: "Portal daily",
    slug: SLUG,
    mode: "pull",
    cadence: "daily",
    drawHour: "20",
    drawMinute: "0",
    drawWeekday: "",
    drawDayOfMonth: "",
    timezone: "Europe/Berlin",
    cutoffMinutes: "60",
    startsAt: "",
    endsAt: "",
    winnersPerDraw: "3",
    payoutWallet: TEST_WALLET,
    pullUrl: `https://partner.example/winners/${PULL_SECRET}/{date}.json`,
    largePrizeThreshold: "1,234.50",
    guaranteeAmount: "25",
    guaranteeThreshold: "100",
    guaranteePeriodDays: "7",
    ...overrides,
  };
}

useStack(OWNER, async (started) => {
  ({ stack, accountId, key } = started);
  store = await openServiceStore(storePath(stack.dataDir));
  ({ owner, member } = await ownerAndMember(stack, accountId, OWNER, MEMBER));
});

afterAll(async () => {
  await store?.close();
});

describe("creating a campaign", () => {
  it("shows every setting with a label, and a time-zone list", async () => {
    // The owner's form: the payout wallet and threshold are fields for owners only (test/portal/payout-settings.test.ts).
    const page = await owner.get("/portal/campaigns/new");
    expect(page.status).toBe(200);
    for (const name of ["name", "slug", "mode", "cadence", "drawHour", "drawMinute", "drawWeekday", "drawDayOfMonth", "timezone", "cutoffMinutes", "startsAt", "endsAt", "winnersPerDraw", "payoutWallet", "pullUrl", "largePrizeThreshold", "guaranteeAmount", "guaranteeThreshold", "guaranteePeriodDays"]) {
      expect(page.text, name).toContain(`<label for="f-${name}">`);
      expect(page.text, name).toMatch(new RegExp(`id="f-${name}" name="${name}"`));
    }
    expect(page.text).toContain('<option value="Europe/Berlin">Europe/Berlin</option>');
    expect(page.text).toContain('href="/portal/campaigns/new"');
  });

  it("refuses a wallet whose checksum is wrong, by the field, and stores nothing", async () => {
    // A valid checksummed address with one letter's case flipped.
    const reply = await owner.post("/portal/campaigns/new", newForm({ payoutWallet: "0x52deaA1c84233F7bb8C8A45baeDE41091c616506" }));
    expect(reply.status).toBe(400);
    expect(fieldError(reply.text, "payoutWallet")).toMatch(/checksum/);
    expect(reply.text).toContain('value="Portal daily"'); // what was typed is kept
    expect(await campaign()).toBeNull();
  });

  it("refuses an amount that is not dollars and a pull URL that is not https, and stores nothing", async () => {
    const dollars = await owner.post("/portal/campaigns/new", newForm({ largePrizeThreshold: "12.345" }));
    expect(dollars.status).toBe(400);
    expect(fieldError(dollars.text, "largePrizeThreshold")).toMatch(/dollars/);
    const pull = await owner.post("/portal/campaigns/new", newForm({ pullUrl: "http://partner.example/{date}" }));
    expect(pull.status).toBe(400);
    expect(fieldError(pull.text, "pullUrl")).toBe("pullUrl must be an https URL");
    const weekday = await owner.post("/portal/campaigns/new", newForm({ cadence: "weekly" }));
    expect(weekday.status).toBe(400);
    expect(fieldError(weekday.text, "drawWeekday")).toMatch(/^drawWeekday is required for weekly campaigns/);
    expect(await campaign()).toBeNull();
  });

  it("creates the draft with every setting, cents from dollars, and never shows the pull URL's secret again", async () => {
    const reply = await owner.post("/portal/campaigns/new", newForm());
    expect(reply.status).toBe(303);
    expect(reply.location).toBe(`/portal/campaigns/${SLUG}?done=created`);
    const stored = (await campaign())!;
    expect(stored).toMatchObject({ name: "Portal daily", mode: "pull", status: "draft", winnersPerDraw: 3, largePrizeThresholdCents: 123_450, payoutWallet: TEST_WALLET, accountId });
    expect(stored.guarantee).toEqual({ amountCents: 2_500, thresholdCents: 10_000, periodDays: 7 });
    expect(stored.schedule).toMatchObject({ cadence: "daily", drawHour: 20, drawMinute: 0, timezone: "Europe/Berlin", cutoffMinutes: 60 });
    const overview = await member.get(reply.location!);
    expect(overview.text).toContain("Campaign created as a draft.");
    expect(overview.text).toContain("Draft: it draws nothing");
    const edit = await member.get(`/portal/campaigns/${SLUG}/edit`);
    expect(edit.text).toContain("https://partner.example");
    expect(edit.text).not.toContain(PULL_SECRET);
    expect(overview.text).not.toContain(PULL_SECRET);
    const list = await member.get("/portal");
    expect(list.text).toContain(`href="/portal/campaigns/${SLUG}/edit"`);
  });
});

describe("settings and status", () => {
  it("refuses too many winners by the field and changes nothing, then saves a valid edit", async () => {
    const before = JSON.stringify(await campaign());
    const bad = await member.post(`/portal/campaigns/${SLUG}/edit`, { ...newForm({ name: "Renamed", winnersPerDraw: "5000", pullUrl: "" }) });
    expect(bad.status).toBe(400);
    expect(fieldError(bad.text, "winnersPerDraw")).toMatch(/^winnersPerDraw must be an integer from 1 to 1000/);
    expect(JSON.stringify(await campaign())).toBe(before);
    // A new threshold is the owner's to set.
    const good = await owner.post(`/portal/campaigns/${SLUG}/edit`, { ...newForm({ name: "Renamed", winnersPerDraw: "2", pullUrl: "", largePrizeThreshold: "600" }) });
    expect(good.status).toBe(303);
    expect(await campaign()).toMatchObject({ name: "Renamed", winnersPerDraw: 2, largePrizeThresholdCents: 60_000 });
    expect((await campaign())!.pullUrl).toContain(PULL_SECRET); // an empty field keeps the stored URL
  });

  it("asks to confirm before ending, then activates, pauses and resumes", async () => {
    const unconfirmed = await member.post(`/portal/campaigns/${SLUG}/status`, { action: "end" });
    expect(unconfirmed.status).toBe(400);
    expect(fieldError(unconfirmed.text, "confirm")).toMatch(/cannot be undone/);
    expect((await campaign())!.status).toBe("draft");
    for (const [action, status] of [["activate", "active"], ["pause", "paused"], ["resume", "active"]] as const) {
      const reply = await member.post(`/portal/campaigns/${SLUG}/status`, { action });
      expect(reply.status, action).toBe(303);
      expect((await campaign())!.status).toBe(status);
    }
    const resumeAgain = await member.post(`/portal/campaigns/${SLUG}/status`, { action: "resume" });
    expect(resumeAgain.status).toBe(409);
    expect(resumeAgain.text).toContain("cannot resume a campaign that is active");
    // Once active, the schedule is fixed: the form shows it as text and takes the end date only.
    const edit = await member.get(`/portal/campaigns/${SLUG}/edit`);
    expect(edit.text).not.toContain('name="cadence"');
    expect(edit.text).toContain('name="endsAt"');
    const endsAt = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 16);
    const saved = await member.post(`/portal/campaigns/${SLUG}/edit`, { name: "Renamed", winnersPerDraw: "2", payoutWallet: TEST_WALLET, largePrizeThreshold: "600", pullUrl: "", endsAt });
    expect(saved.status).toBe(303);
    expect((await campaign())!.schedule.endsAt).toBe(`${endsAt}:00.000Z`);
  });
});

describe("the prize table", () => {
  const rows = { amount0: "1000", weight0: "1", amount1: "10", weight1: "99", amount2: "1", weight2: "900" };

  it("shows a weight of 0 as the table rule, by the row, and changes nothing", async () => {
    const version = (await campaign())!.tableVersion;
    const reply = await member.post(`/portal/campaigns/${SLUG}/table`, { ...rows, weight1: "0", intent: "preview" });
    expect(reply.status).toBe(400);
    expect(fieldError(reply.text, "weight1")).toBe("Tier 1: weight must be above 0");
    expect((await campaign())!.tableVersion).toBe(version);
  });

  it("previews the odds and the exact average, then publishes what was previewed", async () => {
    const preview = await member.post(`/portal/campaigns/${SLUG}/table`, { ...rows, intent: "preview" });
    expect(preview.status).toBe(200);
    const expected = averagePrizeCents(
      { id: SLUG, version: 1, denominator: 1000, tiers: [{ amountCents: 100_000, weight: 1, threshold: 1, odds: 0.001 }, { amountCents: 1_000, weight: 99, threshold: 100, odds: 0.099 }, { amountCents: 100, weight: 900, threshold: 1000, odds: 0.9 }] },
      2,
    );
    expect(preview.text).toContain(`(${expected} cents)`);
    expect(preview.text).toContain("0.1000%");
    const previewed = /name="previewed" value="([0-9a-f]+)"/.exec(preview.text)![1]!;
    // Rows changed after the preview are not published.
    const changed = await member.post(`/portal/campaigns/${SLUG}/table`, { ...rows, weight2: "901", intent: "publish", previewed });
    expect(changed.status).toBe(409);
    expect((await campaign())!.tableId).not.toBe(SLUG);
    const published = await member.post(`/portal/campaigns/${SLUG}/table`, { ...rows, intent: "publish", previewed });
    expect(published.status).toBe(303);
    expect(await campaign()).toMatchObject({ tableId: SLUG, tableVersion: 1 });
    expect((await store.prizeTables.get(SLUG, 1))!.tiers.map((t) => t.amountCents)).toEqual([100_000, 1_000, 100]);
  });
});

describe("drawings", () => {
  it("lists the open drawings and refuses a cutoff in the past, changing nothing", async () => {
    const page = await member.get(`/portal/campaigns/${SLUG}/drawings`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h2 id="stage-open">Open</h2>');
    expect(page.text).toContain("No drawing is flagged.");
    const drawing = (await store.drawings.unfinished((await campaign())!.id))[0]!;
    const refused = await member.post(`/portal/campaigns/${SLUG}/drawings/${drawing.id}/extend`, { cutoffAt: "2020-01-01T00:00" });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("cutoffAt must be later than the campaign&#39;s current time");
    expect((await store.drawings.byId((await campaign())!.id, drawing.id))!.cutoffAt).toBe(drawing.cutoffAt);
  });
});

describe("a flagged drawing", () => {
  const PUSH = "portal-push";

  it("shows the reason first, and an extended cutoff clears it", async () => {
    await draftCampaign(stack, accountId, PUSH, { name: "Portal push", winners: 2 });
    expect((await member.post(`/portal/campaigns/${PUSH}/status`, { action: "activate" })).status).toBe(303);
    const id = (await store.campaigns.bySlug(PUSH))!.id;
    const open = (await store.drawings.nextOpen(id, new Date().toISOString()))!;
    const moved = await clockPast(stack, key, PUSH, open, { check: false });
    expect(moved.status).toBe(200);
    await until("flagged", async () => ((await store.drawings.byId(id, open.id))?.needsAttention ? true : undefined), 20_000, 200);
    const page = await member.get(`/portal/campaigns/${PUSH}/drawings`);
    expect(page.text).toContain(`<h3 id="flag-${open.id}">`);
    expect(page.text).toMatch(/no winners at the cutoff/);
    expect(page.text).toContain(`<label for="f-cutoff-${open.id}">New cutoff (UTC)</label>`);
    const overview = await member.get(`/portal/campaigns/${PUSH}`);
    expect(overview.text).toMatch(/1 drawing flagged: .*no winners at the cutoff/);

    const to = new Date(Date.parse(moved.body.now as string) + 3_600_000).toISOString().slice(0, 16);
    const extended = await member.post(`/portal/campaigns/${PUSH}/drawings/${open.id}/extend`, { cutoffAt: to });
    expect(extended.status).toBe(303);
    const after = (await store.drawings.byId(id, open.id))!;
    expect(after.needsAttention).toBeNull();
    expect(after.cutoffAt).toBe(`${to}:00.000Z`);
    expect((await member.get(`/portal/campaigns/${PUSH}/drawings`)).text).toContain("No drawing is flagged.");
  });

  it("refuses an extended-year cutoff and one past the bound (a list waiting: it must not lock early), changing nothing", async () => {
    const id = (await store.campaigns.bySlug(PUSH))!.id;
    const [open] = await openDrawings<{ id: string; cutoffAt: string }>(stack, key, PUSH);
    await postWinners(stack, key, PUSH, open!.id, ["w-1", "w-2"]);
    const before = (await store.drawings.byId(id, open!.id))!;
    await member.get(`/portal/campaigns/${PUSH}/drawings`);
    // As typed into the field, and (the extended form) pasted as a whole ISO time.
    for (const [cutoffAt, words] of [
      ["+050000-01-01T00:00:00Z", /^cutoffAt must be an ISO 8601 time with a four-digit year/],
      ["+010000-01-01T00:00:00Z", /^cutoffAt must be an ISO 8601 time with a four-digit year/],
      ["9000-01-01T00:00", /^cutoffAt must be later than the campaign's current time .* and no later than /],
    ] as const) {
      const refused = await member.post(`/portal/campaigns/${PUSH}/drawings/${open!.id}/extend`, { cutoffAt });
      expect(refused.status, cutoffAt).toBe(400);
      expect(refused.text.replace(/&#39;/g, "'"), cutoffAt).toMatch(new RegExp(words.source.slice(1)));
    }
    // An end date in the extended form, by its field.
    const scheduleBefore = (await store.campaigns.bySlug(PUSH))!.schedule;
    await member.get(`/portal/campaigns/${PUSH}/edit`);
    const ends = await member.post(`/portal/campaigns/${PUSH}/edit`, { name: "Portal push", winnersPerDraw: "2", payoutWallet: TEST_WALLET, largePrizeThreshold: "", pullUrl: "", endsAt: "+002030-01-01T00:00:00Z" });
    expect(ends.status).toBe(400);
    expect(fieldError(ends.text, "endsAt")).toMatch(/^endsAt must be an ISO 8601 time with a four-digit year/);
    expect((await store.campaigns.bySlug(PUSH))!.schedule).toEqual(scheduleBefore);
    // The keeper runs every second: a stored far cutoff (compared as text) would have locked the list by now.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await store.drawings.byId(id, open!.id)).toEqual(before);
  });

  it("refuses a pick for a guarantee that does not exist, by the API's rules", async () => {
    const empty = await member.post(`/portal/campaigns/${PUSH}/guarantees/gtd_nope/pick`, { winner: "", drawingId: "" });
    expect(empty.status).toBe(400);
    const missing = await member.post(`/portal/campaigns/${PUSH}/guarantees/gtd_nope/pick`, { winner: "w-1", drawingId: "" });
    expect(missing.status).toBe(404);
    expect(missing.text).toContain("no guarantee gtd_nope");
  });
});

describe("logo and links (owners only)", () => {
  it("refuses a member on the server, not only in the navigation", async () => {
    expect((await member.get(`/portal/campaigns/${SLUG}`)).text).not.toContain("/branding");
    expect((await member.get(`/portal/campaigns/${SLUG}/branding`)).status).toBe(403);
    const upload = await member.upload(`/portal/campaigns/${SLUG}/branding/logo`, "logo", new Blob([PNG], { type: "image/png" }), "logo.png");
    expect(upload.status).toBe(403);
    const links = await member.post(`/portal/campaigns/${SLUG}/branding/links`, { termsUrl: "https://partner.example/terms", privacyUrl: "" });
    expect(links.status).toBe(403);
    expect(await store.portal.logo((await campaign())!.id)).toBeNull();
    expect((await campaign())!.termsUrl).toBeNull();
    expect((await member.get("/portal/audit")).status).toBe(403);
  });

  it("refuses an SVG dressed as a PNG and a link that is not https", async () => {
    await owner.get(`/portal/campaigns/${SLUG}/branding`);
    const svg = new Blob(['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'], { type: "image/png" });
    const refused = await owner.upload(`/portal/campaigns/${SLUG}/branding/logo`, "logo", svg, "logo.png");
    expect(refused.status).toBe(400);
    expect(fieldError(refused.text, "logo")).toMatch(/must be a PNG, JPEG or WebP image/);
    const big = await owner.upload(`/portal/campaigns/${SLUG}/branding/logo`, "logo", new Blob([PNG, Buffer.alloc(300 * 1024)]), "big.png");
    expect(big.status).toBe(400);
    expect(fieldError(big.text, "logo")).toMatch(/at most 256 KB/);
    expect(await store.portal.logo((await campaign())!.id)).toBeNull();
    const http = await owner.post(`/portal/campaigns/${SLUG}/branding/links`, { termsUrl: "http://partner.example/terms", privacyUrl: "" });
    expect(http.status).toBe(400);
    expect(fieldError(http.text, "termsUrl")).toMatch(/https/);
    expect((await campaign())!.termsUrl).toBeNull();
  });

  it("uploads a PNG, serves it publicly with a fixed type, and shows it on the campaign page", async () => {
    const uploaded = await owner.upload(`/portal/campaigns/${SLUG}/branding/logo`, "logo", new Blob([PNG], { type: "application/octet-stream" }), "whatever.bin");
    expect(uploaded.status).toBe(303);
    const links = await owner.post(`/portal/campaigns/${SLUG}/branding/links`, { termsUrl: "https://partner.example/terms", privacyUrl: "https://partner.example/privacy" });
    expect(links.status).toBe(303);
    const logo = await fetch(`${stack.baseUrl}/campaigns/${SLUG}/logo`);
    expect(logo.status).toBe(200);
    expect(logo.headers.get("content-type")).toBe("image/png");
    expect(logo.headers.get("x-content-type-options")).toBe("nosniff");
    expect(logo.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
    expect(logo.headers.get("etag")).toMatch(/^"[0-9a-f]{64}"$/);
    expect(logo.headers.get("cache-control")).toMatch(/max-age/);
    expect(Buffer.from(await logo.arrayBuffer()).equals(PNG)).toBe(true);
    const again = await fetch(`${stack.baseUrl}/campaigns/${SLUG}/logo`, { headers: { "if-none-match": logo.headers.get("etag")! } });
    expect(again.status).toBe(304);
    const page = await fetch(`${stack.baseUrl}/campaigns/${SLUG}`);
    const html = await page.text();
    expect(html).toMatch(new RegExp(`<img src="/campaigns/${SLUG}/logo\\?v=[0-9a-f]+" alt="Renamed" width="96" height="96"`));
    expect(html).toContain('href="https://partner.example/terms"');
    expect(page.headers.get("content-security-policy")).toContain("img-src 'self'");
  });
});

describe("bodies over the portal's 1 MB", () => {
  it("answers a large sign-in form (with a length and chunked) and a large logo with a 413 page, a cut-off form at info, and logs no error", async () => {
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const signInBody = `email=${"a".repeat(1_090_000)}%40example.com`;
    const boundary = "----portal-test-boundary";
    await owner.get(`/portal/campaigns/${SLUG}/branding`);
    const logo = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${owner.csrf}\r\n--${boundary}\r\nContent-Disposition: form-data; name="logo"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`),
      PNG,
      Buffer.alloc(1_200_000),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const cookie = [...owner.jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const sent = [
      { id: "portal-large-signin-1", route: "/portal/sign-in", body: signInBody, headers: form, chunked: false },
      { id: "portal-large-signin-2", route: "/portal/sign-in", body: signInBody, headers: form, chunked: true },
      { id: "portal-large-logo-01", route: `/portal/campaigns/${SLUG}/branding/logo`, body: logo, headers: { "content-type": `multipart/form-data; boundary=${boundary}`, cookie }, chunked: false },
    ];
    for (const { id, route, body, headers, chunked } of sent) {
      const reply = await postBody(stack, route, body, { headers: { ...headers, "request-id": id }, chunked });
      expect(reply.status, id).toBe(413);
      expect(reply.headers["content-type"], id).toMatch(/^text\/html/);
      expect(reply.text, id).toContain("larger than 1 MB");
      expect(reply.text, id).toContain("nothing was changed");
    }
    expect(await store.portal.logo((await campaign())!.id)).toMatchObject({ bytes: PNG });
    // A sign-in form cut off mid-way (the browser closed): logged at info as aborted.
    await abortMidBody(stack, "/portal/sign-in", { declared: 100_000, sent: 1_000, headers: { ...form, "request-id": "portal-aborted-signin" } });
    const lines = await requestLines(stack, [...sent.map((s) => s.id), "portal-aborted-signin"]);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.filter((l) => l.msg === "request" && l.requestId !== "portal-aborted-signin").map((l) => l.status)).toEqual([413, 413, 413]);
    expect(lines.filter((l) => l.requestId === "portal-aborted-signin").map((l) => [l.level, l.msg])).toContainEqual([30, "request aborted by the client"]);
  });
});

describe("the audit log", () => {
  it("shows the owner every portal action with who did it, and no secret", async () => {
    const page = await owner.get("/portal/audit");
    expect(page.status).toBe(200);
    expect(page.text).toContain("<td>drawing.extend-cutoff</td>");
    for (const action of ["campaign.create", "campaign.set", "campaign.activate", "campaign.pause", "campaign.resume", "prize-table.publish", "campaign.logo", "campaign.links"]) {
      expect(page.text, action).toContain(`<td>${action}</td>`);
    }
    expect(page.text).toContain(`<td>${MEMBER}</td>`);
    expect(page.text).not.toContain(PULL_SECRET);
  });
});
