// The public campaign page in a real browser: Debian's Chromium (headless, through playwright-core) at a phone
// viewport against the whole stack (anvil + contracts + Ponder + the service). A push campaign draws three
// winners onchain; the page must show every tier of the odds table, the average prize, the draw with the
// winners' names and prizes, and a proof link that loads proof format 2. Drafts are 404; the page carries its
// security headers, runs no scripts, fetches nothing but the avatar, and does not scroll sideways on a phone.
// Screenshots go to test-output/ (gitignored). No Chromium means a failure, never a skip.

import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, until } from "../support/processes.js";
import { api, startStack, type Stack } from "../support/stack.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const OUTPUT = path.join(REPO_ROOT, "test-output");
const WALLET = "0x00000000000000000000000000000000000000a1";
const SLUG = "page-daily";
const AVATAR = "https://avatars.example/ada.png";
const PHONE = { width: 390, height: 844 };
const CSP = "default-src 'none'; img-src https: data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/** A small round avatar served in place of the https one, so the browser never leaves this machine. */
const AVATAR_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#2f6fde"/><text x="32" y="42" font-size="28" text-anchor="middle" fill="#fff" font-family="sans-serif">A</text></svg>`;

type Winner = { position: number; winner: string; displayName: string | null; amountCents?: number; heldForManualPayout?: boolean };
type Drawing = { id: string; number: number | null; status: string; drawAt: string; cutoffAt: string; winners: Winner[] };

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let paid: Drawing;
let averagePrizeCents: number;
/** Requests the browser tried to send anywhere but the service (each refused), and the avatar's request headers. */
const outside: string[] = [];
const avatarRequests: Record<string, string>[] = [];

/** The test's own formatter (not the page's): whole cents as US dollars. */
function usd(cents: number): string {
  return `$${Math.floor(cents / 100).toLocaleString("en-US")}.${String(cents % 100).padStart(2, "0")}`;
}

/** Without Chromium every test fails with this message (a failing beforeAll would report the tests as skipped). */
const MISSING_CHROMIUM = existsSync(CHROMIUM)
  ? null
  : `Chromium is required for the browser test and was not found at ${CHROMIUM}. Install it (as root: apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium) or set CHROMIUM_PATH.`;

function requireChromium(): void {
  if (MISSING_CHROMIUM) throw new Error(MISSING_CHROMIUM);
}

beforeAll(async () => {
  if (MISSING_CHROMIUM) return;
  mkdirSync(OUTPUT, { recursive: true });
  stack = await startStack();
  const accountId = (await stack.cli("account", "create", "--email", "owner@example.com")).accountId as string;
  const key = (await stack.cli("key", "create", "--account", accountId)).key as string;
  await stack.cli("campaign", "create", "--account", accountId, "--slug", SLUG, "--name", "Page Daily", "--mode", "push", "--cadence", "daily", "--hour", "20", "--timezone", "Europe/Berlin", "--winners", "3", "--payout-wallet", WALLET);
  await stack.cli("campaign", "activate", SLUG);
  await stack.cli("campaign", "create", "--account", accountId, "--slug", "page-draft", "--name", "Page Draft", "--mode", "push", "--cadence", "daily", "--winners", "3", "--payout-wallet", WALLET);
  const campaign = (await api(stack, "GET", `/api/v1/campaigns/${SLUG}`, { key })).body.campaign as { prizeTable: { averagePrizeCents: number } };
  averagePrizeCents = campaign.prizeTable.averagePrizeCents;

  const open = ((await api(stack, "GET", `/api/v1/campaigns/${SLUG}/drawings?status=open`, { key })).body.drawings as Drawing[])[0]!;
  const posted = await api(stack, "POST", `/api/v1/campaigns/${SLUG}/drawings/${open.id}/winners`, {
    key,
    body: { winners: [{ winner: "u-ada", displayName: "Ada Lovelace", avatarUrl: AVATAR }, "u-7f3a9c1d2e4b5a6f", "u-3"] },
  });
  expect(posted.status).toBe(201);
  await api(stack, "POST", `/api/v1/campaigns/${SLUG}/test-clock`, { key, body: { advanceTo: new Date(new Date(open.cutoffAt).getTime() + 1_000).toISOString() } });
  paid = await until("drawing paid", async () => {
    const d = (await api(stack, "GET", `/api/v1/campaigns/${SLUG}/drawings/${open.id}`, { key })).body.drawing as Drawing;
    return d.status === "paid" ? d : undefined;
  }, 90_000, 250);

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true, javaScriptEnabled: true });
  // Nothing leaves the machine: the service is reached directly; the avatar is answered here; all else is refused.
  await context.route("**/*", (route) => {
    if (route.request().url().startsWith(stack.baseUrl)) return route.continue();
    outside.push(route.request().url());
    return route.abort();
  });
  await context.route(AVATAR, async (route) => {
    avatarRequests.push(await route.request().allHeaders());
    return route.fulfill({ status: 200, contentType: "image/svg+xml", body: AVATAR_SVG });
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("the public campaign page on a phone", () => {
  it("shows the odds table, the average prize, the draw with its winners, and follows the proof link to proof format 2", async () => {
    requireChromium();
    const page = await context.newPage();
    const response = await page.goto(`${stack.baseUrl}/campaigns/${SLUG}`);
    expect(response?.status()).toBe(200);
    const headers = response!.headers();
    expect(headers["content-security-policy"]).toBe(CSP);
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("no-referrer");
    expect(headers["cache-control"]).toBe("public, max-age=15");
    expect(headers["content-type"]).toMatch(/^text\/html; charset=utf-8$/i);

    await expect(page.locator("h1").textContent()).resolves.toBe("Page Daily");
    expect(await page.locator('meta[name="viewport"]').getAttribute("content")).toBe("width=device-width, initial-scale=1");
    expect(await page.locator("script").count()).toBe(0);

    // Every tier of the default table, top prize first, with its odds; then the average prize per winner.
    const rows = await page.locator("#odds tbody tr").evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent?.trim())));
    expect(rows).toEqual([
      ["$100,000.00", "1 in 100,000", "0.001%"],
      ["$1,000.00", "1 in 10,000", "0.01%"],
      ["$100.00", "1 in 250", "0.4%"],
      ["$20.00", "1 in 25", "4%"],
      ["$10.00", "1 in 2", "50%"],
      ["$5.00", "1 in 2.19", "45.59%"],
    ]);
    expect(averagePrizeCents).toBe(958);
    await expect(page.locator("#odds tfoot").textContent()).resolves.toContain(`Average prize per winner: ${usd(averagePrizeCents)}`);

    // The schedule in words and the next drawing.
    const schedule = (await page.locator("#schedule").textContent()) ?? "";
    expect(schedule).toContain("Every day at 20:00 (Europe/Berlin time)");
    expect(schedule).toContain("Winner lists close 1 hour before each draw");
    expect(schedule).toContain("3 winners per draw");
    expect(await page.locator("#schedule time").count()).toBe(2);

    // The draw: number, time, stage, the winners in position order with names and prizes, and its proof link.
    const draw = page.locator(`#draw-${paid.id}`);
    await expect(draw.locator("h3").textContent()).resolves.toBe("Draw #1");
    expect(await draw.locator(`time[datetime="${paid.drawAt}"]`).count()).toBe(1);
    await expect(draw.locator(".status").textContent()).resolves.toBe("Paid");
    const winners = await draw.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent?.trim())));
    expect(winners.map((w) => w[0])).toEqual(["1", "2", "3"]);
    expect(winners[0]![1]).toBe("Ada Lovelace");
    expect(winners[1]![1]).toBe("u-7f3a9c1d…"); // no display name: a shortened id
    expect(winners[2]![1]).toBe("u-3");
    paid.winners.forEach((w, i) => {
      const prize = usd(w.amountCents!);
      expect(winners[i]![2]).toBe(w.heldForManualPayout ? `${prize}held for manual payout` : prize);
    });

    // The avatar: an <img> with alt text and fixed size that loads lazily and sends no referrer.
    const avatar = draw.locator("img");
    expect(await avatar.count()).toBe(1);
    expect(await avatar.evaluate((img) => ({ src: img.getAttribute("src"), alt: img.getAttribute("alt"), width: img.getAttribute("width"), height: img.getAttribute("height"), loading: img.getAttribute("loading"), referrerpolicy: img.getAttribute("referrerpolicy") }))).toEqual({
      src: AVATAR,
      alt: "Avatar of Ada Lovelace",
      width: "32",
      height: "32",
      loading: "lazy",
      referrerpolicy: "no-referrer",
    });
    await avatar.scrollIntoViewIfNeeded();
    await expect.poll(() => avatar.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0), { timeout: 10_000 }).toBe(true);
    expect(avatarRequests.length).toBeGreaterThan(0);
    expect(avatarRequests.every((h) => h.referer === undefined)).toBe(true);

    // How to check: the exact commands, with the newest draw's proof URL; test randomness is said.
    const proofUrl = `${stack.baseUrl}/campaigns/${SLUG}/draws/${paid.id}/proof.json`;
    await expect(page.locator("#check pre").first().textContent()).resolves.toBe(`curl -sO ${stack.baseUrl}/verify/verify-draw.mjs\nnode verify-draw.mjs ${proofUrl}`);
    // Commits onchain against drawings published, and the campaign-wide check.
    await expect(page.locator("#commit-count").textContent()).resolves.toBe("1 drawing was committed onchain, 1 is published here.");
    await expect(page.locator("#check pre").nth(1).textContent()).resolves.toBe(`node verify-draw.mjs --campaign ${stack.baseUrl}/campaigns/${SLUG}/draws.json --rpc <RPC URL of chain>`);
    expect(await page.locator(`#check a[href="${stack.baseUrl}/verify/SKILL.md"]`).count()).toBe(1);
    await expect(page.locator("#check").textContent()).resolves.toContain("test randomness");
    expect(await page.locator(`a[href="${stack.baseUrl}/campaigns/${SLUG}/draws.json"]`).count()).toBeGreaterThan(0);
    expect(await page.locator(`footer a[href="${stack.baseUrl}/terms"]`).count()).toBe(1);
    expect(await page.locator(`footer a[href="${stack.baseUrl}/privacy"]`).count()).toBe(1);

    // Readable on a phone: nothing wider than the screen, body text at least 16px.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    // The odds and winners tables fit without scrolling sideways (their containers could scroll if they had to).
    expect(await page.locator(".scroll").evaluateAll((els) => els.map((el) => el.scrollWidth <= el.clientWidth))).toEqual([true, true]);
    expect(await page.evaluate(() => parseFloat(getComputedStyle(document.body).fontSize))).toBeGreaterThanOrEqual(16);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(OUTPUT, "campaign-page.png"), fullPage: true });

    // Follow the proof link by clicking it.
    const link = draw.locator("a", { hasText: "Proof" });
    expect(await link.getAttribute("href")).toBe(proofUrl);
    const [proofResponse] = await Promise.all([page.waitForResponse((r) => r.url() === proofUrl), link.click()]);
    expect(proofResponse.status()).toBe(200);
    await page.waitForURL(proofUrl);
    expect(await page.locator("body").innerText()).toContain('"proofVersion":3');
    const proof = (await proofResponse.json()) as {
      proofVersion: number;
      campaign: { slug: string };
      drawing: { id: string; number: number };
      results: { position: number; displayName: string | null; amountCents: number }[];
    };
    expect(proof.proofVersion).toBe(3);
    expect(proof.campaign.slug).toBe(SLUG);
    expect(proof.drawing).toMatchObject({ id: paid.id, number: 1 });
    expect(proof.results.map((r) => r.amountCents)).toEqual(paid.winners.map((w) => w.amountCents));
    expect(proof.results[0]!.displayName).toBe("Ada Lovelace");
    await page.screenshot({ path: path.join(OUTPUT, "proof.png") });

    expect(outside).toEqual([]);
    await page.close();
  });

  it("answers a draft's page and an unknown campaign with the 404 page, headers included", async () => {
    requireChromium();
    const page = await context.newPage();
    for (const slug of ["page-draft", "no-such-campaign"]) {
      const response = await page.goto(`${stack.baseUrl}/campaigns/${slug}`);
      expect(response?.status()).toBe(404);
      expect(response!.headers()["content-security-policy"]).toBe(CSP);
      expect(response!.headers()["content-type"]).toMatch(/^text\/html/);
      await expect(page.locator("h1").textContent()).resolves.toBe("Not found");
      expect(await page.locator("body").textContent()).not.toContain("Page Draft");
    }
    await page.close();
  });

  it("serves the service's own terms and privacy pages, marked as placeholders", async () => {
    requireChromium();
    const page = await context.newPage();
    for (const [route, title] of [["/terms", "Terms"], ["/privacy", "Privacy"]] as const) {
      const response = await page.goto(`${stack.baseUrl}${route}`);
      expect(response?.status()).toBe(200);
      expect(response!.headers()["content-security-policy"]).toBe(CSP);
      await expect(page.locator("h1").textContent()).resolves.toBe(title);
      await expect(page.locator("main").textContent()).resolves.toContain("placeholder");
    }
    await page.close();
  });
});
