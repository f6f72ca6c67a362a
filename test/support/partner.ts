// The recurring moves of a drawing's life against a running stack: the operator's campaign set up through the CLI
// (a draft, a campaign activated with its first open drawing, a guarantee campaign), the partner's moves through the
// public API with an API key (read a drawing, list the open ones, post winners, move a campaign's test clock past a
// drawing's cutoff, wait for a status, draw through paid), and a visitor's proof checked by the served verifier.
// Each takes the stack and the key explicitly; `check: false` answers the response as it is, without asserting it.

import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { until, type Proc } from "./processes.js";
import { TEST_WALLET, api, runServedVerifier, type Stack } from "./stack.js";

type Service = Pick<Stack, "baseUrl">;
type Check = { check?: boolean };

/** A winner of a drawing as the partner API shows it; the prize fields once the drawing is settled. */
export type WinnerBody = {
  position: number;
  winner: string;
  displayName: string | null;
  avatarUrl: string | null;
  randomValue?: string;
  roll?: number;
  amountCents?: number;
  heldPayout?: { status: string; reason: string | null };
  heldForManualPayout: boolean;
};

/** A drawing as the partner API answers it (GET a drawing, the drawings list, a list posted). */
export type DrawingBody = {
  id: string;
  number: number | null;
  partnerRound: number | null;
  drawAt: string;
  cutoffAt: string;
  status: string;
  winnersExpected: number;
  needsAttention: string | null;
  winners: WinnerBody[];
  heldPrizesOpen: number;
  verification: {
    winnersCommitment: string | null;
    lockedAt: string | null;
    entropyProvider: string | null;
    entropyRequestId: string | null;
    entropy: string | null;
    entropyRevealedAt: string | null;
    prizeTableId: string | null;
    final: boolean;
  };
  prizeTable: { id: string; version: number; denominator: number; averagePrizeCents: number } | null;
};

/** How a campaign is created through the CLI; unset, a daily push campaign paying TEST_WALLET, named by its slug. */
export type CampaignSetUp = {
  name?: string;
  mode?: "push" | "pull" | "entries";
  cadence?: "hourly" | "daily" | "weekly" | "monthly";
  /** Winners a draw (unset: the CLI's default). */
  winners?: number;
  /** null: no payout wallet (such a campaign cannot be activated). */
  payoutWallet?: string | null;
  /** Further `campaign create` flags: --hour, --timezone, --prize-table, --pull-url, ... */
  flags?: readonly string[];
};

/** Creates `slug` for `accountId` through the CLI (`prizedraw campaign create`): a draft. Answers the CLI's output. */
export function draftCampaign(stack: Pick<Stack, "cli">, accountId: string, slug: string, setUp: CampaignSetUp = {}): Promise<Record<string, unknown>> {
  return stack.cli(
    "campaign", "create", "--account", accountId, "--slug", slug, "--name", setUp.name ?? slug, "--mode", setUp.mode ?? "push", "--cadence", setUp.cadence ?? "daily",
    ...(setUp.winners === undefined ? [] : ["--winners", String(setUp.winners)]),
    ...(setUp.payoutWallet === null ? [] : ["--payout-wallet", setUp.payoutWallet ?? TEST_WALLET]),
    ...(setUp.flags ?? []),
  );
}

/** Creates `slug` for `accountId` through the CLI (draftCampaign) and activates it. */
export async function activeCampaign(stack: Pick<Stack, "cli">, accountId: string, slug: string, setUp: CampaignSetUp = {}): Promise<void> {
  await draftCampaign(stack, accountId, slug, setUp);
  await stack.cli("campaign", "activate", slug);
}

/** The campaign's first open drawing (the next to lock); asserts the list answers 200 and is not empty. */
export async function firstOpenDrawing<T = DrawingBody>(stack: Service, key: string, slug: string): Promise<T> {
  const { status, body } = await api(stack, "GET", `/api/v1/campaigns/${slug}/drawings?status=open`, { key });
  expect(status).toBe(200);
  const drawings = body.drawings as T[];
  expect(drawings.length).toBeGreaterThan(0);
  return drawings[0]!;
}

/** A campaign activated through the CLI (activeCampaign) and its first open drawing, read with the account's key. */
export async function campaignWithOpenDrawing<T = DrawingBody>(stack: Pick<Stack, "cli" | "baseUrl">, account: { accountId: string; key: string }, slug: string, setUp: CampaignSetUp = {}): Promise<T> {
  await activeCampaign(stack, account.accountId, slug, setUp);
  return firstOpenDrawing<T>(stack, account.key, slug);
}

const HOUR = 3_600_000;

/**
 * A daily push campaign on UTC with a guarantee (`guarantee`: the CLI's "amount,threshold,days"), two winners a draw
 * and every prize `prizeCents`, activated: its periods start at the next full hour S (a little ahead of the real
 * clock) and its draws fall at S+12h, S+36h, ...: the middle of each day-long period. Answers S.
 */
export async function guaranteeCampaign(
  stack: Pick<Stack, "cli" | "dataDir">,
  accountId: string,
  slug: string,
  setUp: { name: string; prizeCents: number; guarantee: string },
): Promise<number> {
  const start = Math.ceil(Date.now() / HOUR) * HOUR + HOUR;
  const table = path.join(stack.dataDir, `${slug}-table.json`);
  writeFileSync(table, JSON.stringify([{ amountCents: setUp.prizeCents, weight: 1 }, { amountCents: setUp.prizeCents, weight: 1 }]));
  await activeCampaign(stack, accountId, slug, {
    name: setUp.name,
    winners: 2,
    flags: ["--hour", String((new Date(start).getUTCHours() + 12) % 24), "--timezone", "UTC", "--starts-at", new Date(start).toISOString(), "--prize-table", table, "--guarantee", setUp.guarantee],
  });
  return start;
}

/** GET a drawing (asserting 200 unless `check: false`) and answer its `drawing`. */
export async function getDrawing<T = DrawingBody>(stack: Service, key: string, slug: string, id: string, options: Check = {}): Promise<T> {
  const { status, body } = await api(stack, "GET", `/api/v1/campaigns/${slug}/drawings/${id}`, { key });
  if (options.check !== false) expect(status).toBe(200);
  return body.drawing as T;
}

/** The campaign's open drawings (no assertion on the status). */
export async function openDrawings<T = DrawingBody>(stack: Service, key: string, slug: string): Promise<T[]> {
  return (await api(stack, "GET", `/api/v1/campaigns/${slug}/drawings?status=open`, { key })).body.drawings as T[];
}

/** POSTs a drawing's winners; asserts 201 (with the body as message) unless `check: false`. */
export async function postWinners(stack: Service, key: string, slug: string, id: string, winners: unknown[], options: Check = {}): ReturnType<typeof api> {
  const r = await api(stack, "POST", `/api/v1/campaigns/${slug}/drawings/${id}/winners`, { key, body: { winners } });
  if (options.check !== false) expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r;
}

/** Moves the campaign's test clock to `at`; asserts 200 (with the body as message) unless `check: false`. */
export async function clockTo(stack: Service, key: string, slug: string, at: number | Date, options: Check = {}): ReturnType<typeof api> {
  return moveClock(stack, key, slug, { advanceTo: new Date(at).toISOString() }, options);
}

/** Moves the campaign's test clock on by `by` ("1s", "11m", "2d"); asserts 200 (with the body as message) unless `check: false`. */
export async function clockBy(stack: Service, key: string, slug: string, by: string, options: Check = {}): ReturnType<typeof api> {
  return moveClock(stack, key, slug, { advanceBy: by }, options);
}

async function moveClock(stack: Service, key: string, slug: string, body: { advanceTo: string } | { advanceBy: string }, options: Check): ReturnType<typeof api> {
  const r = await api(stack, "POST", `/api/v1/campaigns/${slug}/test-clock`, { key, body });
  if (options.check !== false) expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r;
}

/** Moves the campaign's test clock `offsetMs` (default one second) past the drawing's cutoff. */
export function clockPast(stack: Service, key: string, slug: string, drawing: { cutoffAt: string }, options: Check & { offsetMs?: number } = {}): ReturnType<typeof api> {
  return clockTo(stack, key, slug, new Date(drawing.cutoffAt).getTime() + (options.offsetMs ?? 1_000), options);
}

/** Reads until `ok` holds (every 250 ms, for `ms`, default a minute) and answers that read; fails early if `proc` exits. */
export function waitFor<T>(label: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000, proc?: Proc): Promise<T> {
  return until(label, async () => {
    const v = await read();
    return ok(v) ? v : undefined;
  }, ms, 250, proc);
}

/** Waits (for `ms`, default a minute) until the drawing's status is `status`, and answers the drawing. */
export function waitForStatus<T extends { status: string } = DrawingBody>(stack: Service, key: string, slug: string, id: string, status: string, ms = 60_000): Promise<T> {
  return waitFor(`drawing ${id} ${status}`, () => getDrawing<T>(stack, key, slug, id, { check: false }), (d) => d.status === status, ms);
}

/** Posts the drawing's `winners` (asserting 201) and moves the test clock a second past its cutoff (asserting 200). */
export async function postWinnersPastCutoff(stack: Service, key: string, slug: string, drawing: { id: string; cutoffAt: string }, winners: unknown[]): Promise<void> {
  await postWinners(stack, key, slug, drawing.id, winners);
  await clockPast(stack, key, slug, drawing);
}

/** The whole of a push drawing as the partner drives it: postWinnersPastCutoff, then a wait (a minute) until it is paid. */
export async function drawThroughPaid<T extends { status: string } = DrawingBody>(stack: Service, key: string, slug: string, drawing: { id: string; cutoffAt: string }, winners: unknown[]): Promise<T> {
  await postWinnersPastCutoff(stack, key, slug, drawing, winners);
  return waitForStatus<T>(stack, key, slug, drawing.id, "paid");
}

/** Where a visitor fetches a drawn drawing's proof. */
export const proofUrl = (stack: Service, slug: string, id: string): string => `${stack.baseUrl}/campaigns/${slug}/draws/${id}/proof.json`;

/** The verifier the service serves, run on the drawing's proof URL with --rpc against the stack's chain and `flags`. */
export function verifyServedProof(stack: Stack, slug: string, id: string, ...flags: string[]): ReturnType<typeof runServedVerifier> {
  return runServedVerifier(stack, [proofUrl(stack, slug, id), "--rpc", stack.rpcUrl, ...flags]);
}

/**
 * The verifier the service serves, run with --rpc against the stack's chain and `flags` on `body` written to the file
 * `name` in the data folder: exactly that body (the verifier fetching the URL again could get another answer).
 */
export function verifyProofFile(stack: Stack, name: string, body: string, ...flags: string[]): ReturnType<typeof runServedVerifier> {
  const file = path.join(stack.dataDir, name);
  writeFileSync(file, body);
  return runServedVerifier(stack, [file, "--rpc", stack.rpcUrl, ...flags]);
}
