// "Look up your entry" on the public campaign page, in Debian's Chromium (headless, through playwright-core) at a
// phone viewport against the whole stack. An entries campaign draws twice through paid (five entrants of weights
// 3, 1, 1, 2, 1, then three entrants, one of them back; two winners each) and a push campaign draws three winners.
// On the page, under its real Content-Security-Policy, an entrant who won sees the win (winner position and prize)
// with their arrival position, weight and chance; one who did not win sees the same without the win; an unknown id
// (written as markup, shown as text) is in no list; a push campaign's winner sees the prize. Position, weight and
// chance agree with the served checker's `--entrant --json`. Every request the page makes is recorded: the lookups
// fetch only the proofs linked on the page, and no request carries the id, in any encoding, or its hash. Without
// JavaScript the form stays hidden and the command line is given. axe-core runs with the lookup's answer shown
// (light and dark): no serious or critical violation. Screenshots go to test-output/ (gitignored). No Chromium
// means a failure, never a skip.

import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex } from "@noble/hashes/utils";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, until } from "../support/processes.js";
import { activeCampaign, clockPast, drawThroughPaid, firstOpenDrawing, proofUrl, waitForStatus, type DrawingBody } from "../support/partner.js";
import { api, runServedVerifier, type Stack } from "../support/stack.js";
import { useStack } from "../support/suite.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const OUTPUT = path.join(REPO_ROOT, "test-output");
const AXE = path.join(path.dirname(createRequire(import.meta.url).resolve("axe-core")), "axe.min.js");
const ENTRIES = "lookup-entries";
const PUSH = "lookup-push";
const PHONE = { width: 390, height: 844 };
/** The two entries draws' lists, in arrival order: e-2 enters both. */
const FIRST_LIST = [{ entrantId: "e-grace", weight: 3, displayName: "Grace Hopper" }, { entrantId: "e-2", weight: 1 }, { entrantId: "e-3", weight: 1 }, { entrantId: "e-4", weight: 2 }, { entrantId: "e-5", weight: 1 }];
const SECOND_LIST = [{ entrantId: "e-6", weight: 1 }, { entrantId: "e-2", weight: 1 }, { entrantId: "e-7", weight: 1 }];
/** An id nobody entered, written as markup: the page must show it as text and run none of it. */
const UNKNOWN = `<img src=x onerror="window.pwned=1">nobody`;

type Entry = { entrantId: string; weight: number };
type Draw = { drawing: DrawingBody; list: Entry[] };
type Facts = { inList: boolean; positions: number[]; weight: number | null; chance: number | null; won: boolean; winnerPositions: number[]; prizesCents: number[] };
/** A request the browser made, as it left: what could carry the id. */
type Sent = { url: string; method: string; headers: Record<string, string>; body: string | null };

let stack: Stack;
let key: string;
let accountId: string;
useStack("lookup-owner@example.com", (started) => ({ stack, key, accountId } = started));

let browser: Browser;
let context: BrowserContext;
/** The entries campaign's two draws, oldest first, and the push campaign's one. */
let draws: Draw[];
let pushDraw: DrawingBody;

/** Without Chromium every test fails with this message (a failing beforeAll would report the tests as skipped). */
const MISSING_CHROMIUM = existsSync(CHROMIUM)
  ? null
  : `Chromium is required for the browser test and was not found at ${CHROMIUM}. Install it (as root: apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium) or set CHROMIUM_PATH.`;

function requireChromium(): void {
  if (MISSING_CHROMIUM) throw new Error(MISSING_CHROMIUM);
}

/** The test's own formatter (not the page's): whole cents as US dollars. */
function usd(cents: number): string {
  return `$${Math.floor(cents / 100).toLocaleString("en-US")}.${String(cents % 100).padStart(2, "0")}`;
}

/** keccak256 of the id's UTF-8 bytes, as the proof lists entrants: hex without 0x. */
const hashOf = (id: string) => bytesToHex(keccak_256(new TextEncoder().encode(id)));

/** Posts `list` to the campaign's open drawing (retried while the next drawing is not open yet), draws it through paid. */
async function drawEntries(list: Entry[]): Promise<Draw> {
  const posted = await until(`${ENTRIES} open for entries`, async () => {
    const r = await api(stack, "POST", `/api/v1/campaigns/${ENTRIES}/entries`, { key, body: { entries: list } });
    return r.status === 200 ? (r.body as { drawing: { id: string; cutoffAt: string }; count: number }) : undefined;
  }, 30_000, 250);
  expect(posted.count).toBe(list.length);
  await clockPast(stack, key, ENTRIES, posted.drawing);
  return { drawing: await waitForStatus(stack, key, ENTRIES, posted.drawing.id, "paid", 90_000), list };
}

beforeAll(async () => {
  if (MISSING_CHROMIUM) return;
  mkdirSync(OUTPUT, { recursive: true });
  const flags = ["--hour", "20", "--timezone", "Europe/Berlin"];
  await activeCampaign(stack, accountId, ENTRIES, { name: "Lookup Entries", mode: "entries", winners: 2, flags });
  await activeCampaign(stack, accountId, PUSH, { name: "Lookup Push", mode: "push", winners: 3, flags });
  const open = await firstOpenDrawing(stack, key, PUSH);
  const entries = (async () => [await drawEntries(FIRST_LIST), await drawEntries(SECOND_LIST)])();
  [draws, pushDraw] = await Promise.all([entries, drawThroughPaid(stack, key, PUSH, open, ["u-ada", "u-bob", "u-3"])]);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  context = await phoneContext();
}, 300_000);

afterAll(async () => {
  await browser?.close();
});

/** A phone-sized context where nothing leaves the machine: the service is reached, everything else is refused. */
async function phoneContext(options: { javaScriptEnabled?: boolean; bypassCSP?: boolean } = {}): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true, ...options });
  ctx.setDefaultTimeout(15_000);
  await ctx.route("**/*", (route) => (route.request().url().startsWith(stack.baseUrl) ? route.continue() : route.abort()));
  return ctx;
}

/**
 * The page's requests, as sent, from now on; and its errors: script errors, console errors and answers of 400 and
 * above, except the browser's own look for /favicon.ico (the service has none).
 */
function record(page: Page): { sent: Sent[]; errors: string[] } {
  const sent: Sent[] = [];
  const errors: string[] = [];
  page.on("request", (request) => sent.push({ url: request.url(), method: request.method(), headers: request.headers(), body: request.postData() }));
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("response", (response) => {
    if (response.status() >= 400 && new URL(response.url()).pathname !== "/favicon.ico") errors.push(`${response.status()} ${response.url()}`);
  });
  page.on("console", (message) => {
    // A failed load is also logged, without its URL: the answers above name it.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) errors.push(`console: ${message.text()}`);
  });
  return { sent, errors };
}

/** Types `id` into the form, presses Look up and waits for the answer for every draw; answers the result box. */
async function lookUp(page: Page, id: string) {
  const form = page.locator("#lookup form");
  await expect.poll(() => form.isVisible()).toBe(true);
  await page.getByLabel(/^Your (entrant )?id$/).fill(id);
  await page.getByRole("button", { name: "Look up", exact: true }).click();
  const result = page.locator("#lookup .lookup-result");
  await expect.poll(() => result.getAttribute("data-result"), { timeout: 30_000 }).toMatch(/^(done|error)$/);
  expect(await result.getAttribute("data-result"), await result.innerText()).toBe("done");
  return result;
}

/** One draw's answer: its status, label, link, headline and details as shown. */
async function answer(page: Page, drawingId: string) {
  const item = page.locator(`#lookup li[data-drawing="${drawingId}"]`);
  return {
    status: await item.getAttribute("data-status"),
    label: await item.locator("strong").textContent(),
    href: await item.locator("strong a").getAttribute("href"),
    headline: await item.locator(".lookup-headline").textContent(),
    details: await item.locator(".lookup-detail").allTextContents(),
    trust: await item.locator(".lookup-trust").textContent(),
  };
}

/** What the served checker says about `id` in the draw's proof (`--entrant ID --json`). */
async function checkerFacts(slug: string, drawingId: string, id: string): Promise<Facts> {
  const run = await runServedVerifier(stack, [proofUrl(stack, slug, drawingId), "--entrant", id, "--json"]);
  expect(run.code, run.out).toBe(0);
  return (JSON.parse(run.out) as { entrant: Facts }).entrant;
}

/**
 * The answer the page must give for `id` in an entries draw, from the API's view of it (the list as posted, the
 * winners and prizes) and the checker's chance.
 */
async function expectEntriesAnswer(page: Page, draw: Draw, id: string): Promise<void> {
  const { drawing, list } = draw;
  const shown = await answer(page, drawing.id);
  expect(shown.label).toMatch(new RegExp(`^Draw #${drawing.number}, `));
  expect(shown.href).toBe(`#draw-${drawing.id}`);
  expect(shown.trust).toMatch(/^The proof passes its \d+ offline checks/);
  const at = list.findIndex((e) => e.entrantId === id);
  if (at < 0) {
    expect(shown).toMatchObject({ status: "absent", headline: `Not in the entrant list: none of its ${list.length} entries have this id's hash.`, details: [] });
    return;
  }
  const total = list.reduce((sum, e) => sum + e.weight, 0);
  const facts = await checkerFacts(ENTRIES, drawing.id, id);
  expect(facts.positions).toEqual([at]);
  expect(shown.details).toEqual([
    `In the locked entrant list at arrival position ${at + 1} of ${list.length} (entrants.list[${at}] in the proof), weight ${list[at]!.weight} of ${total}.`,
    `Chance of winning: about ${Number((facts.chance! * 100).toPrecision(3))}% (2 winners drawn one at a time in proportion to weight; an approximation).`,
  ]);
  const won = drawing.winners.find((w) => w.winner === id);
  if (won) expect(shown).toMatchObject({ status: "won", headline: `Won: winner #${won.position + 1} of 2, prize ${usd(won.amountCents!)}.` });
  else expect(shown).toMatchObject({ status: "entered", headline: "In the list, not selected: not among the 2 winners." });
}

/** The request carries none of the id's forms: as typed, URL-encoded, or its hash. */
function carries(request: Sent, id: string): boolean {
  const hash = hashOf(id);
  const text = [request.url, decodeURIComponent(request.url), JSON.stringify(request.headers), request.body ?? ""].join("\n").toLowerCase();
  return [id, encodeURIComponent(id), hash].some((form) => text.includes(form.toLowerCase()));
}

/**
 * Looks `id` up on the page and asserts what was sent for it: GETs of the proofs the page links to, with no body,
 * none carrying the id; the page's address unchanged (the form never submits).
 */
async function lookUpPrivately(page: Page, sent: Sent[], id: string) {
  const address = page.url();
  const proofs = await page.locator("#draws [data-proof]").evaluateAll((els) => els.map((el) => el.getAttribute("data-proof")));
  const before = sent.length;
  const result = await lookUp(page, id);
  const during = sent.slice(before);
  expect(during.length).toBeGreaterThan(0);
  for (const request of during) {
    expect(request.method, request.url).toBe("GET");
    expect(proofs, request.url).toContain(request.url);
    expect(request.body).toBeNull();
  }
  expect(sent.filter((r) => carries(r, id)).map((r) => r.url)).toEqual([]);
  expect(page.url()).toBe(address);
  return result;
}

describe("looking up your own entry on the campaign page", () => {
  it("an entrant who won sees the win, its winner position and prize, with their arrival position, weight and chance", async () => {
    requireChromium();
    const page = await context.newPage();
    const { sent, errors } = record(page);
    await page.goto(`${stack.baseUrl}/campaigns/${ENTRIES}`);
    const [first, second] = draws as [Draw, Draw];
    // e-grace (weight 3) if she won the first draw, else its first winner.
    const winner = first.drawing.winners.find((w) => w.winner === "e-grace")?.winner ?? first.drawing.winners[0]!.winner;
    const result = await lookUpPrivately(page, sent, winner);
    // Both draws answered, newest first, as the page lists them.
    expect(await result.locator("li").evaluateAll((lis) => lis.map((li) => li.getAttribute("data-drawing")))).toEqual([second.drawing.id, first.drawing.id]);
    await expectEntriesAnswer(page, first, winner);
    await expectEntriesAnswer(page, second, winner);
    const inSecond = second.list.some((e) => e.entrantId === winner);
    const wonSecond = second.drawing.winners.some((w) => w.winner === winner);
    const wins = wonSecond ? "it won in 2 draws" : "it won in 1 draw";
    await expect(result.locator(".lookup-summary").textContent()).resolves.toBe(`“${winner}” is in the lists of ${inSecond ? 2 : 1} of the 2 draws looked up; ${wins}.`);
    // The answer links to its draw on the page.
    await result.locator(`li[data-drawing="${first.drawing.id}"] strong a`).click();
    expect(new URL(page.url()).hash).toBe(`#draw-${first.drawing.id}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.locator("#lookup").scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(OUTPUT, "entrant-lookup-won.png"), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("an entrant who did not win sees their place in the list, weight and chance, not selected; and in the draw they did not enter, no entry", async () => {
    requireChromium();
    const page = await context.newPage();
    const { sent, errors } = record(page);
    await page.goto(`${stack.baseUrl}/campaigns/${ENTRIES}`);
    const [first, second] = draws as [Draw, Draw];
    // Someone in the first list only who did not win it (five entrants, two winners: three such).
    const loser = first.list.find((e) => !first.drawing.winners.some((w) => w.winner === e.entrantId) && !second.list.some((s) => s.entrantId === e.entrantId))!.entrantId;
    const result = await lookUpPrivately(page, sent, loser);
    const shown = await answer(page, first.drawing.id);
    expect(shown.status).toBe("entered");
    await expectEntriesAnswer(page, first, loser);
    await expectEntriesAnswer(page, second, loser);
    await expect(result.locator(".lookup-summary").textContent()).resolves.toBe(`“${loser}” is in the lists of 1 of the 2 draws looked up; it did not win.`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("an unknown id is in no list, and is shown as the text typed (no markup runs)", async () => {
    requireChromium();
    const page = await context.newPage();
    const { sent, errors } = record(page);
    await page.goto(`${stack.baseUrl}/campaigns/${ENTRIES}`);
    const result = await lookUpPrivately(page, sent, UNKNOWN);
    for (const draw of draws) await expectEntriesAnswer(page, draw, UNKNOWN);
    await expect(result.locator(".lookup-summary").textContent()).resolves.toBe(`“${UNKNOWN}” is not in the list of any of the 2 draws looked up.`);
    expect(await page.locator("#lookup img").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    // A second lookup replaces the first answer.
    await lookUpPrivately(page, sent, "e-2");
    expect(await result.locator("li").count()).toBe(2);
    await expect(result.locator(".lookup-summary").textContent()).resolves.toMatch(/^“e-2” is in the lists of 2 of the 2 draws looked up; /);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a push campaign's winner sees the prize; anyone else is not on the winner list", async () => {
    requireChromium();
    const page = await context.newPage();
    const { sent, errors } = record(page);
    await page.goto(`${stack.baseUrl}/campaigns/${PUSH}`);
    await expect(page.locator("#lookup label").textContent()).resolves.toBe("Your id");
    const result = await lookUpPrivately(page, sent, "u-bob");
    const bob = pushDraw.winners.find((w) => w.winner === "u-bob")!;
    const shown = await answer(page, pushDraw.id);
    expect(shown).toMatchObject({
      status: "won",
      label: expect.stringMatching(/^Draw #1, /),
      headline: `Won: winner #2 of 3, prize ${usd(bob.amountCents!)}.`,
      details: ["On the locked winner list at position 2 of 3 (winnerList.winners[1] in the proof)."],
    });
    const facts = await checkerFacts(PUSH, pushDraw.id, "u-bob");
    expect(facts).toMatchObject({ won: true, winnerPositions: [1], prizesCents: [bob.amountCents] });
    await expect(result.locator(".lookup-summary").textContent()).resolves.toBe("“u-bob” is in the list of the draw looked up; it won.");
    await lookUpPrivately(page, sent, "u-nobody");
    await expect(answer(page, pushDraw.id)).resolves.toMatchObject({ status: "absent", headline: "Not on the winner list: none of its 3 winners have this id." });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("without JavaScript the form stays hidden and the page gives the command line", async () => {
    requireChromium();
    const noScript = await phoneContext({ javaScriptEnabled: false });
    const page = await noScript.newPage();
    await page.goto(`${stack.baseUrl}/campaigns/${ENTRIES}`);
    await expect(page.locator("#lookup h2").textContent()).resolves.toBe("Look up your entry");
    await expect(page.locator("#lookup form").isVisible()).resolves.toBe(false);
    // The id field has no name: even a submitted form could not carry it.
    expect(await page.locator("#lookup input").getAttribute("name")).toBeNull();
    const newest = proofUrl(stack, ENTRIES, draws[1]!.drawing.id);
    await expect(page.locator("#lookup-command").textContent()).resolves.toBe(`node verify-draw.mjs ${newest} --entrant <your entrant id>`);
    await page.screenshot({ path: path.join(OUTPUT, "entrant-lookup-no-js.png"), fullPage: true });
    await noScript.close();
  });

  it("passes axe-core with the lookup's answer shown, in the light and the dark colour scheme", async () => {
    requireChromium();
    // bypassCSP lets addScriptTag inject axe-core; the lookup itself ran under the page's policy above.
    const axeContext = await phoneContext({ bypassCSP: true });
    const page = await axeContext.newPage();
    await page.goto(`${stack.baseUrl}/campaigns/${ENTRIES}`);
    await lookUp(page, draws[0]!.drawing.winners[0]!.winner);
    await page.addScriptTag({ path: AXE });
    const serious: string[] = [];
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      const run = (await page.evaluate(() =>
        (globalThis as unknown as { axe: { run: () => Promise<{ violations: unknown[]; passes: unknown[] }> } }).axe.run().then((r) => ({ violations: r.violations, passes: r.passes.length })),
      )) as { violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[]; passes: number };
      // axe ran on the page (an empty list of violations means something only when it checked rules).
      expect(run.passes).toBeGreaterThan(5);
      for (const v of run.violations.filter((x) => x.impact === "serious" || x.impact === "critical")) {
        serious.push(`[${colorScheme}] ${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")}`);
      }
      await page.locator("#lookup").screenshot({ path: path.join(OUTPUT, `entrant-lookup-${colorScheme}.png`) });
    }
    expect(serious).toEqual([]);
    await axeContext.close();
  });
});
