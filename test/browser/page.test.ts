// The public campaign page in a real browser: Debian's Chromium (headless, through playwright-core) at a phone
// viewport against the whole stack (anvil + contracts + Ponder + the service). A push campaign draws three
// winners onchain and an entries campaign selects two of five entrants; the page must show the test-environment
// warning above the fold, every tier of the odds table, the average prize, each draw with its list commitment,
// lock time, winners' names (initials when an avatar fails) and prizes, the wording of the campaign's mode, and a
// proof link that loads proof format 3. "Check this draw here" runs the served verifier in the page: passing marks
// with the chain check for an honest proof, a failing mark for a tampered one. With JavaScript off the page still
// shows the draws and the command-line instructions. Drafts are 404; pages carry their security headers, fetch
// nothing but the service, the local chain and the avatars, and do not scroll sideways on a phone.
// Screenshots go to test-output/ (gitignored). No Chromium means a failure, never a skip.

import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/processes.js";
import { api, createAccount, runServedVerifier, startStack, type Stack } from "../support/stack.js";
import { activeCampaign, clockPast, draftCampaign, firstOpenDrawing, waitForStatus } from "../support/partner.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const OUTPUT = path.join(REPO_ROOT, "test-output");
const SLUG = "page-daily";
const ENTRIES_SLUG = "page-entries";
const AVATAR = "https://avatars.example/ada.png";
/** An avatar whose host answers 404: the page must show the winner's initials instead. */
const BROKEN_AVATAR = "https://avatars.example/gone.png";
const PHONE = { width: 390, height: 844 };
const CSP = "default-src 'none'; img-src https: data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/** The campaign page's policy: its own module script, fetches to the service and the chain's RPC only. */
const campaignCsp = () =>
  `default-src 'none'; script-src 'self'; connect-src 'self' ${stack.baseUrl} ${stack.rpcUrl}; img-src 'self' https: data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
/** A small round avatar served in place of the https one, so the browser never leaves this machine. */
const AVATAR_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#2f6fde"/><text x="32" y="42" font-size="28" text-anchor="middle" fill="#fff" font-family="sans-serif">A</text></svg>`;

type Winner = { position: number; winner: string; displayName: string | null; amountCents?: number; heldForManualPayout?: boolean };
type Drawing = {
  id: string;
  number: number | null;
  status: string;
  drawAt: string;
  cutoffAt: string;
  winners: Winner[];
  verification: { winnersCommitment: string | null; lockedAt: string | null };
};

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let key: string;
let paid: Drawing;
let entriesPaid: Drawing;
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
  let accountId: string;
  ({ accountId, key } = await createAccount(stack, "owner@example.com"));
  const berlinAt20 = ["--hour", "20", "--timezone", "Europe/Berlin"];
  await activeCampaign(stack, accountId, SLUG, { name: "Page Daily", winners: 3, flags: berlinAt20 });
  await draftCampaign(stack, accountId, "page-draft", { name: "Page Draft", winners: 3 });
  await activeCampaign(stack, accountId, ENTRIES_SLUG, { name: "Page Entries", mode: "entries", winners: 2, flags: berlinAt20 });
  const campaign = (await api(stack, "GET", `/api/v1/campaigns/${SLUG}`, { key })).body.campaign as { prizeTable: { averagePrizeCents: number } };
  averagePrizeCents = campaign.prizeTable.averagePrizeCents;

  const open = await firstOpenDrawing<Drawing>(stack, key, SLUG);
  const posted = await api(stack, "POST", `/api/v1/campaigns/${SLUG}/drawings/${open.id}/winners`, {
    key,
    body: { winners: [{ winner: "u-ada", displayName: "Ada Lovelace", avatarUrl: AVATAR }, { winner: "u-7f3a9c1d2e4b5a6f", avatarUrl: BROKEN_AVATAR }, "u-3"] },
  });
  expect(posted.status).toBe(201);
  // Five entrants, weights 3, 1, 1, 2, 1 (total 8), two of them selected by the service.
  const entered = await api(stack, "POST", `/api/v1/campaigns/${ENTRIES_SLUG}/entries`, {
    key,
    body: { entries: [{ entrantId: "e-grace", weight: 3, displayName: "Grace Hopper" }, "e-2", "e-3", { entrantId: "e-4", weight: 2 }, "e-5"] },
  });
  expect(entered.body).toMatchObject({ added: 5, count: 5, totalWeight: 8 });
  const entriesDrawing = entered.body.drawing as { id: string; cutoffAt: string };

  const drawUntilPaid = async (slug: string, id: string, cutoffAt: string) => {
    await clockPast(stack, key, slug, { cutoffAt });
    return waitForStatus<Drawing>(stack, key, slug, id, "paid", 90_000);
  };
  [paid, entriesPaid] = await Promise.all([drawUntilPaid(SLUG, open.id, open.cutoffAt), drawUntilPaid(ENTRIES_SLUG, entriesDrawing.id, entriesDrawing.cutoffAt)]);

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  context = await phoneContext(true);
}, 240_000);

/**
 * A phone-sized context where nothing leaves the machine: the service and the local chain (the in-browser chain
 * check) are reached directly, the avatars are answered here (one of them 404), all else is refused.
 */
async function phoneContext(javaScriptEnabled: boolean): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true, javaScriptEnabled });
  await ctx.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(stack.baseUrl) || url === stack.rpcUrl || url === `${stack.rpcUrl}/`) return route.continue();
    outside.push(url);
    return route.abort();
  });
  await ctx.route(AVATAR, async (route) => {
    avatarRequests.push(await route.request().allHeaders());
    return route.fulfill({ status: 200, contentType: "image/svg+xml", body: AVATAR_SVG });
  });
  await ctx.route(BROKEN_AVATAR, (route) => route.fulfill({ status: 404, contentType: "text/plain", body: "gone" }));
  return ctx;
}

/**
 * How many pixels of two same-sized PNG screenshots differ visibly (a channel by more than 48 of 255, well above
 * antialiasing), decoded with a canvas in a blank page of the same browser.
 */
async function pixelsApart(page: Page, a: Buffer, b: Buffer): Promise<number> {
  const blank = await page.context().newPage();
  try {
    return await blank.evaluate(async ([a, b]) => {
      const decode = async (base64: string) => {
        const img = new Image();
        img.src = `data:image/png;base64,${base64}`;
        await img.decode();
        const canvas = document.createElement("canvas");
        canvas.width = img.width;
        canvas.height = img.height;
        const ctx = canvas.getContext("2d")!;
        ctx.drawImage(img, 0, 0);
        return ctx.getImageData(0, 0, img.width, img.height).data;
      };
      const [p, q] = [await decode(a), await decode(b)];
      if (p.length !== q.length) return Number.POSITIVE_INFINITY;
      let apart = 0;
      for (let i = 0; i < p.length; i += 4) if (Math.max(Math.abs(p[i]! - q[i]!), Math.abs(p[i + 1]! - q[i + 1]!), Math.abs(p[i + 2]! - q[i + 2]!), Math.abs(p[i + 3]! - q[i + 3]!)) > 48) apart++;
      return apart;
    }, [a.toString("base64"), b.toString("base64")] as const);
  } finally {
    await blank.close();
  }
}

/** Errors the page reported (script errors, refused CSP, failed module loads), collected per page. */
function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    // A 404 avatar is expected (the initials show); anything else logged as an error is not.
    if (message.type() === "error" && !message.text().includes("404")) errors.push(`console: ${message.text()}`);
  });
  return errors;
}

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("the public campaign page on a phone", () => {
  it("shows the odds table, the average prize, the draw with its winners, and follows the proof link to the proof (format 6)", async () => {
    requireChromium();
    const page = await context.newPage();
    const errors = collectErrors(page);
    const response = await page.goto(`${stack.baseUrl}/campaigns/${SLUG}`);
    expect(response?.status()).toBe(200);
    const headers = response!.headers();
    expect(headers["content-security-policy"]).toBe(campaignCsp());
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("no-referrer");
    expect(headers["cache-control"]).toBe("public, max-age=15, stale-while-revalidate=60");
    expect(headers["content-type"]).toMatch(/^text\/html; charset=utf-8$/i);

    await expect(page.locator("h1").textContent()).resolves.toBe("Page Daily");
    expect(await page.locator('meta[name="viewport"]').getAttribute("content")).toBe("width=device-width, initial-scale=1");
    // Two scripts, modules loaded from the service by src (no inline script): the in-browser check and, with a draw
    // drawn, the entry lookup (test/browser/entrant-lookup.test.ts).
    expect(await page.locator("script").evaluateAll((els) => els.map((el) => ({ src: el.getAttribute("src"), type: el.getAttribute("type"), inline: el.textContent ?? "" })))).toEqual([
      { src: "/verify/check-draw.mjs", type: "module", inline: "" },
      { src: "/verify/lookup-entry.mjs", type: "module", inline: "" },
    ]);
    const served = await page.request.get(`${stack.baseUrl}/verify/check-draw.mjs`);
    expect(served.headers()["content-type"]).toMatch(/^text\/javascript/);

    // The test-environment warning comes first, above the fold and above the prizes.
    const warning = page.locator("#test-environment");
    await expect(warning.textContent()).resolves.toMatch(/^Test environment: not a real prize draw.*test randomness.*no prize is paid for real/);
    const warningBox = (await warning.boundingBox())!;
    const prizesBox = (await page.locator("#odds-title").boundingBox())!;
    const headingBox = (await page.locator("h1").boundingBox())!;
    expect(warningBox.y).toBeLessThan(headingBox.y);
    expect(warningBox.y).toBeLessThan(prizesBox.y);
    expect(warningBox.y + warningBox.height).toBeLessThanOrEqual(PHONE.height);
    // Push wording: the campaign picks its winners.
    await expect(page.locator("#how-it-works").textContent()).resolves.toContain("the campaign picks its winners");
    await expect(page.locator("#check-proves").textContent()).resolves.toContain("it does not prove who should have been on the list");
    expect(await page.locator("#entrant-command").count()).toBe(0);

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
    // The list's fingerprint (the commitment onchain), shortened on screen with the whole value in the text and
    // title, and the lock time.
    const commitment = draw.locator(".list-commitment");
    expect(paid.verification.winnersCommitment).toMatch(/^0x[0-9a-f]{64}$/);
    await expect(commitment.textContent()).resolves.toBe(paid.verification.winnersCommitment);
    await expect(commitment.getAttribute("title")).resolves.toBe(paid.verification.winnersCommitment);
    expect(await commitment.evaluate((el) => el.scrollWidth > el.clientWidth && getComputedStyle(el).textOverflow === "ellipsis")).toBe(true);
    await expect(draw.locator("dt").allTextContents()).resolves.toEqual(["List locked", "Winner list fingerprint"]);
    expect(await draw.locator(`.locked-at time[datetime="${paid.verification.lockedAt}"]`).count()).toBe(1);
    const winners = await draw.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent?.trim())));
    expect(winners.map((w) => w[0])).toEqual(["1", "2", "3"]);
    expect(winners[0]![1]).toBe("Ada Lovelace");
    expect(winners[1]![1]).toBe("u-7f3a9c1d…"); // no display name: a shortened id
    expect(winners[2]![1]).toBe("u-3");
    paid.winners.forEach((w, i) => {
      const prize = usd(w.amountCents!);
      expect(winners[i]![2]).toBe(w.heldForManualPayout ? `${prize}held for manual payout` : prize);
    });

    // The avatar: a decorative <img> (the name follows it) of fixed size that loads lazily and sends no referrer.
    expect(await draw.locator("img").count()).toBe(2);
    const avatar = draw.locator(`img[src="${AVATAR}"]`);
    expect(await avatar.evaluate((img) => ({ src: img.getAttribute("src"), alt: img.getAttribute("alt"), width: img.getAttribute("width"), height: img.getAttribute("height"), loading: img.getAttribute("loading"), referrerpolicy: img.getAttribute("referrerpolicy") }))).toEqual({
      src: AVATAR,
      alt: "",
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
    await expect(page.locator("#check").textContent()).resolves.toContain("Check this draw here");
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
    expect(await page.locator("body").innerText()).toContain('"proofVersion":6');
    const proof = (await proofResponse.json()) as {
      proofVersion: number;
      campaign: { slug: string };
      drawing: { id: string; number: number };
      results: { position: number; displayName: string | null; amountCents: number }[];
    };
    expect(proof.proofVersion).toBe(6);
    expect(proof.campaign.slug).toBe(SLUG);
    expect(proof.drawing).toMatchObject({ id: paid.id, number: 1 });
    expect(proof.results.map((r) => r.amountCents)).toEqual(paid.winners.map((w) => w.amountCents));
    expect(proof.results[0]!.displayName).toBe("Ada Lovelace");
    await page.screenshot({ path: path.join(OUTPUT, "proof.png") });

    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("says what an entries campaign's check proves, with each draw's entrant count, list commitment and lock time", async () => {
    requireChromium();
    const page = await context.newPage();
    const errors = collectErrors(page);
    await page.goto(`${stack.baseUrl}/campaigns/${ENTRIES_SLUG}`);
    const intro = (await page.locator("#how-it-works").textContent()) ?? "";
    expect(intro).toContain("This service selects the winners from the committed list");
    expect(intro).toContain("each entrant's chance in proportion to their weight");
    const proves = (await page.locator("#check-proves").textContent()) ?? "";
    expect(proves).toContain("the winners were selected from the entrant list committed before the random value existed");
    const main = (await page.locator("main").textContent()) ?? "";
    expect(main).not.toContain("picks its winners");
    expect(main).not.toContain("does not prove who should have been on the list");

    const proofUrl = `${stack.baseUrl}/campaigns/${ENTRIES_SLUG}/draws/${entriesPaid.id}/proof.json`;
    await expect(page.locator("#entrant-command").textContent()).resolves.toBe(`node verify-draw.mjs ${proofUrl} --entrant <your entrant id>`);
    const proof = (await (await page.request.get(proofUrl)).json()) as { entrants: { count: number; commitment: string } };
    expect(proof.entrants.count).toBe(5);

    const draw = page.locator(`#draw-${entriesPaid.id}`);
    await expect(draw.locator("dt").allTextContents()).resolves.toEqual(["Entrants", "List locked", "Entrant list commitment"]);
    await expect(draw.locator(".entrant-count").textContent()).resolves.toBe("5 (total weight 8)");
    await expect(draw.locator(".list-commitment").textContent()).resolves.toBe(proof.entrants.commitment);
    await expect(draw.locator(".list-commitment").getAttribute("title")).resolves.toBe(proof.entrants.commitment);
    expect(await draw.locator(`.locked-at time[datetime="${entriesPaid.verification.lockedAt}"]`).count()).toBe(1);
    expect(await draw.locator("tbody tr").count()).toBe(2);
    await expect(page.locator("#test-environment").isVisible()).resolves.toBe(true);
    // The in-browser check selects the winners again from the committed entrant list.
    const result = draw.locator(".check-result");
    await draw.getByRole("button", { name: "Check this draw here" }).click();
    await expect.poll(() => result.getAttribute("data-result"), { timeout: 30_000 }).toMatch(/^(pass|fail|error)$/);
    expect(await result.getAttribute("data-result"), await result.innerText()).toBe("pass");
    for (const id of ["entrants.commitment", "entrants.selection", "rpc.winners"]) expect(await result.locator(`li[data-id="${id}"]`).getAttribute("data-status"), id).toBe("pass");
    await page.screenshot({ path: path.join(OUTPUT, "entries-page.png"), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows a winner's initials when the avatar cannot be loaded", async () => {
    requireChromium();
    const page = await context.newPage();
    await page.goto(`${stack.baseUrl}/campaigns/${SLUG}`);
    const row = (n: number) => page.locator(`#draw-${paid.id} tbody tr`).nth(n);
    const broken = row(1).locator(".avatar");
    const working = row(0).locator(".avatar");
    await broken.scrollIntoViewIfNeeded();
    // The image failed (404) and the avatar's initials are the label's: "u-7f3a9c1d…" -> "U7", "Ada Lovelace" -> "AL".
    await expect.poll(() => broken.locator("img").evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth === 0), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => working.locator("img").evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0), { timeout: 10_000 }).toBe(true);
    expect(await broken.evaluate((el) => getComputedStyle(el, "::before").content)).toBe('"U7"');
    expect(await working.evaluate((el) => getComputedStyle(el, "::before").content)).toBe('"AL"');
    // The initials are not part of the names' text (copying a name copies the name only).
    await expect(row(0).locator("td").nth(1).textContent()).resolves.toBe("Ada Lovelace");

    // What shows: the broken avatar looks like the initials alone (no broken-image icon; the circle's edge may
    // differ by antialiasing), while the working one covers them with the picture.
    const shot = async (el: typeof broken) => el.screenshot({ animations: "disabled" });
    const brokenShot = await shot(broken);
    const workingShot = await shot(working);
    await broken.screenshot({ path: path.join(OUTPUT, "avatar-initials.png") });
    await broken.locator("img").evaluate((img) => img.remove());
    await working.locator("img").evaluate((img) => img.remove());
    expect(await pixelsApart(page, brokenShot, await shot(broken))).toBe(0);
    expect(await pixelsApart(page, workingShot, await shot(working))).toBeGreaterThan(100);
    await page.close();
  });

  it("checks a drawn draw in the browser with the served verifier: passing marks with the chain check, a failing mark for a tampered proof", async () => {
    requireChromium();
    const page = await context.newPage();
    const errors = collectErrors(page);
    await page.goto(`${stack.baseUrl}/campaigns/${SLUG}`);
    const box = page.locator(`#draw-${paid.id} .check-here`);
    await expect.poll(() => box.isVisible()).toBe(true);
    const button = box.getByRole("button", { name: "Check this draw here" });
    const result = box.locator(".check-result");

    const started = Date.now();
    await button.click();
    await expect.poll(() => result.getAttribute("data-result"), { timeout: 30_000 }).toMatch(/^(pass|fail|error)$/);
    const honestMs = Date.now() - started;
    const marks = async () => result.locator("li.mark").evaluateAll((lis) => lis.map((li) => ({ id: li.getAttribute("data-id"), status: li.getAttribute("data-status") })));
    const honest = await marks();
    expect(await result.getAttribute("data-result"), await result.innerText()).toBe("pass");
    await expect(result.locator(".check-summary").textContent()).resolves.toMatch(/^✔ PASS: \d+ checks passed, \d+ informational \(with the chain check\)$/);
    expect(honest.filter((m) => m.status === "fail")).toEqual([]);
    for (const id of ["keccak", "fingerprint", "rpc.chain", "rpc.commit.slot", "rpc.request.user", "rpc.reveal"]) expect(honest.find((m) => m.id === id)?.status, id).toBe("pass");
    // Test randomness is information, never a pass.
    expect(honest.some((m) => m.status === "info")).toBe(true);
    // The same verdicts as the command line with --rpc.
    const cli = await runServedVerifier(stack, [`${stack.baseUrl}/campaigns/${SLUG}/draws/${paid.id}/proof.json`, "--rpc", stack.rpcUrl, "--json"]);
    expect(cli.code).toBe(0);
    expect(honest).toEqual((JSON.parse(cli.out) as { checks: { id: string; status: string }[] }).checks.map((c) => ({ id: c.id, status: c.status })));
    await page.screenshot({ path: path.join(OUTPUT, "check-here-pass.png"), fullPage: true });

    // The same page, the proof altered on its way to the browser (first winner's prize raised by a dollar).
    const proofUrl = `${stack.baseUrl}/campaigns/${SLUG}/draws/${paid.id}/proof.json`;
    await page.route(proofUrl, async (route) => {
      const response = await route.fetch();
      const proof = (await response.json()) as { results: { amountCents: number }[] };
      proof.results[0]!.amountCents += 100;
      return route.fulfill({ response, json: proof });
    });
    await box.getByRole("button").click();
    await expect.poll(() => result.getAttribute("data-result"), { timeout: 30_000 }).toBe("fail");
    const tampered = await marks();
    expect(tampered.find((m) => m.id === "keccak")?.status).toBe("pass");
    expect(tampered.filter((m) => m.status === "fail").length).toBeGreaterThan(0);
    await expect(result.locator(".check-summary").textContent()).resolves.toMatch(/^✘ FAIL: /);
    await expect(result.locator("li.mark-fail").first().isVisible()).resolves.toBe(true);
    await page.screenshot({ path: path.join(OUTPUT, "check-here-fail.png"), fullPage: true });

    // The RPC unreachable from the browser: the offline checks still run, and the page says the chain check did not.
    await page.unroute(proofUrl);
    await page.route(`${stack.rpcUrl}/**`, (route) => route.abort());
    await box.getByRole("button").click();
    await expect.poll(() => result.getAttribute("data-result"), { timeout: 30_000 }).toBe("pass");
    await expect(result.locator(".check-summary").textContent()).resolves.toMatch(/^✔ PASS: .*\(offline checks only\)$/);
    await expect(result.locator(".check-note").textContent()).resolves.toMatch(/^The chain check could not run from this browser: cannot reach the RPC/);
    expect((await marks()).some((m) => m.id?.startsWith("rpc."))).toBe(false);
    await expect(result.locator("pre").textContent()).resolves.toBe(`node verify-draw.mjs ${proofUrl} --rpc ${stack.rpcUrl}`);
    expect(errors.filter((e) => !e.includes("ERR_FAILED"))).toEqual([]);
    expect(outside).toEqual([]);
    console.log(`in-browser check with the chain check: ${honestMs} ms`);
    await page.close();
  });

  it("works without JavaScript: the draws and the command-line instructions, no check button", async () => {
    requireChromium();
    const noScript = await phoneContext(false);
    const page = await noScript.newPage();
    const response = await page.goto(`${stack.baseUrl}/campaigns/${SLUG}`);
    expect(response?.status()).toBe(200);
    await expect(page.locator("#test-environment").isVisible()).resolves.toBe(true);
    const draw = page.locator(`#draw-${paid.id}`);
    await expect(draw.isVisible()).resolves.toBe(true);
    expect(await draw.locator("tbody tr").count()).toBe(3);
    await expect(draw.locator(".list-commitment").isVisible()).resolves.toBe(true);
    await expect(draw.locator("a", { hasText: "Proof" }).isVisible()).resolves.toBe(true);
    await expect(page.locator("#check pre").first().textContent()).resolves.toBe(
      `curl -sO ${stack.baseUrl}/verify/verify-draw.mjs\nnode verify-draw.mjs ${stack.baseUrl}/campaigns/${SLUG}/draws/${paid.id}/proof.json`,
    );
    await expect(page.locator("#check pre").first().isVisible()).resolves.toBe(true);
    // The in-browser check stays hidden without scripts.
    expect(await page.locator(".check-here").count()).toBe(1);
    await expect(page.locator(".check-here").isVisible()).resolves.toBe(false);
    expect(await page.getByRole("button").count()).toBe(0);
    await page.screenshot({ path: path.join(OUTPUT, "campaign-page-no-js.png"), fullPage: true });
    await noScript.close();
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
