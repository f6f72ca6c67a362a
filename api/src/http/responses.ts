/**
 * Zod schemas of every JSON body the partner API and the public endpoints answer, exactly as the service writes
 * them today (docs/api.md). They are not used to build answers: `openapi.ts` turns them into the OpenAPI document's
 * response schemas, and test/api/openapi.test.ts checks real answers against that document. The type checks at the
 * end keep the domain's view functions and these schemas naming the same fields.
 */
import { z } from "zod";
import type { drawingView } from "../domain/drawings.js";
import type { campaignView, prizeTableView } from "../domain/campaigns.js";
import type { EntriesPage, EntriesResult } from "../domain/entries.js";
import type { ErrorCode } from "../domain/errors.js";
import type { GuaranteeView } from "../domain/guarantees.js";
import type { drawsPage } from "../domain/publicDraws.js";
import type { Readiness } from "../readiness.js";
import type { ErrorBody } from "./errors.js";
import type { RateLimitedError } from "./rateLimit.js";

/** Metadata of the document's schemas: `id` makes a schema a named component (`#/components/schemas/{id}`). */
export type SchemaMeta = { id?: string; description?: string; format?: string };

/**
 * The response schemas' metadata. A registry of its own (not zod's global one), so that the document holds exactly
 * what is registered here and nothing another module described.
 */
export const responseRegistry = z.registry<SchemaMeta>();

/** A named component. */
function component<T extends z.ZodType>(id: string, schema: T, description: string): T {
  responseRegistry.add(schema, { id, description });
  return schema;
}

/** A field's description (a copy, so a schema used in several places keeps each place's own text). */
function described<T extends z.ZodType>(schema: T, description: string): T {
  const copy = schema.clone() as T;
  const format = responseRegistry.get(schema)?.format;
  responseRegistry.add(copy, { ...(format ? { format } : {}), description });
  return copy;
}

/**
 * Every stable `error` code: ErrorCode (domain/errors.ts) plus the HTTP layer's own: `internal`, which only the
 * error handler answers (http/errors.ts), and `rate_limited` (http/rateLimit.ts). The type check below fails when a
 * code is added to ErrorCode and not here.
 */
export const ERROR_CODES = [
  "bad_request",
  "unauthorized",
  "forbidden",
  "not_found",
  "locked",
  "pull_campaign",
  "entries_campaign",
  "campaign_ended",
  "not_entrants_campaign",
  "no_open_drawing",
  "not_taking_entries",
  "too_many_entrants",
  "rejected",
  "invalid_transition",
  "proof_mismatch",
  "idempotency_key_reused",
  "idempotency_in_progress",
  "internal",
  "rate_limited",
] as const;
export type StableErrorCode = (typeof ERROR_CODES)[number];

export const errorCode = component("ErrorCode", z.enum(ERROR_CODES), "Match on it: its values never change within /api/v1. `forbidden` and `invalid_transition` are answered by the portal and the operator CLI only.");

export const errorBody = component(
  "ErrorBody",
  z.object({
    error: errorCode,
    detail: described(z.string(), "For people; for a bad body or query it names the field at fault (`winners[0].avatarUrl: must be an https URL`)."),
  }),
  "Every error, on every endpoint.",
);

/** A JSON Schema `format` (an annotation for readers and generators; the string is not checked against it here). */
function formatted(format: string): z.ZodString {
  const schema = z.string();
  responseRegistry.add(schema, { format });
  return schema;
}

// Times the service writes: ISO 8601 in UTC with milliseconds (2026-11-25T20:00:00.000Z).
const time = formatted("date-time");
const url = formatted("uri");
const int = z.number().int();
const cents = z.number().int().min(0);
/** 0x-prefixed lowercase hex (a 32-byte value, an address or a transaction hash). */
const hex = z.string().regex(/^0x[0-9a-f]*$/);
/** An address as people are shown it: EIP-55 checksummed (mixed case), so a mistyped character shows. */
const checksummedAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

const drawingStatus = z.enum(["open", "locked", "entropy_requested", "settled", "paid"]);
const campaignStatus = z.enum(["draft", "active", "paused", "ended"]);

export const prizeTable = component(
  "PrizeTable",
  z.object({
    id: z.string(),
    version: int,
    denominator: int,
    tiers: described(z.array(z.object({ amountCents: cents, weight: int, odds: z.number() })), "Top prize first; `odds` = weight / denominator."),
    averagePrizeCents: described(z.number(), "Per winner, with the top prize won at most once per draw."),
  }),
  "A prize table.",
);

export const schedule = component(
  "Schedule",
  z.object({
    cadence: z.enum(["hourly", "daily", "weekly", "monthly"]),
    drawHour: int,
    drawMinute: int,
    drawWeekday: described(int.nullable(), "0 Sunday to 6 Saturday, weekly only."),
    drawDayOfMonth: described(int.nullable(), "1 to 31, monthly only; short months use their last day."),
    timezone: z.string(),
    cutoffMinutes: described(int, "Lists close this long before each draw."),
    startsAt: time,
    endsAt: time.nullable(),
  }),
  "When a campaign draws.",
);

export const campaign = component(
  "Campaign",
  z.object({
    slug: z.string(),
    name: z.string(),
    status: campaignStatus,
    mode: described(z.enum(["push", "pull", "entries"]), "push: you post winners; pull: the service fetches them from your URL; entries: you post entrants, the service draws."),
    page: described(url, "The public page."),
    schedule,
    winnersPerDraw: int,
    prizeTable,
    guarantee: z.object({ amountCents: cents, thresholdCents: cents, periodDays: int }).nullable(),
    pullUrl: described(z.string().nullable(), "Pull campaigns: the winners URL masked to its scheme and host; else null."),
    payoutWallet: described(
      checksummedAddress.nullable(),
      "Where the prizes are paid: an EIP-55 checksummed address; null until one is set (a draft). Only the account's owners change it (in the portal); each change is a `campaign.payout_settings_changed` webhook event.",
    ),
    largePrizeThresholdCents: described(cents, "Prizes at or above it are held for a manual payout. Only the account's owners change it, like the wallet."),
    termsUrl: url,
    privacyUrl: url,
    nextDrawing: described(
      z.object({ id: z.string(), drawAt: time, cutoffAt: time, winnersPerDraw: int, averagePrizeCents: z.number() }).nullable(),
      "The drawing taking winners or entries now; null when none (a paused campaign, say).",
    ),
  }),
  "A campaign (GET /api/v1/campaigns/{slug}).",
);

export const campaignResponse = component("CampaignResponse", z.object({ campaign }), "GET a campaign.");

export const campaignList = component(
  "CampaignList",
  z.object({
    campaigns: z.array(campaign).max(100),
    next: described(z.string().nullable(), "Pass it as `after` for the next page; null on the last page."),
  }),
  "The caller's campaigns, newest first, each as GET a campaign shows it.",
);

export const drawingWinner = component(
  "DrawingWinner",
  z.object({
    position: described(int, "From 0."),
    winner: z.string(),
    displayName: z.string().nullable(),
    avatarUrl: z.string().nullable(),
    randomValue: described(hex.optional(), "Once settled."),
    roll: described(int.optional(), "Once settled."),
    amountCents: described(cents.optional(), "Once settled."),
    heldPayout: described(
      z.object({ status: z.enum(["open", "paid", "refused"]), reason: z.string().nullable() }).optional(),
      "Once settled, for a prize held for a manual payout.",
    ),
    heldForManualPayout: described(z.boolean(), "True once a settled prize is at or above the large-prize threshold."),
  }),
  "A drawing's winner, in position order.",
);

export const verification = component(
  "Verification",
  z.object({
    winnersCommitment: z.string().nullable(),
    lockedAt: time.nullable(),
    entropyProvider: described(z.string().nullable(), "`mock` in the test environment, else the provider's address."),
    entropyRequestId: z.string().nullable(),
    entropy: described(z.string().nullable(), "The random value."),
    entropyRevealedAt: time.nullable(),
    prizeTableId: z.string().nullable(),
    final: described(z.boolean(), "True once the random value, and once paid the payout, are in finalized blocks."),
  }),
  "Each step's evidence; nulls until it happens.",
);

export const drawing = component(
  "Drawing",
  z.object({
    id: z.string(),
    number: described(int.nullable(), "Set when the random value is requested; the drawing's id onchain."),
    partnerRound: described(int.nullable(), "Pull campaigns: the `round` your URL sent, if any."),
    drawAt: time,
    cutoffAt: time,
    status: drawingStatus,
    winnersExpected: int,
    needsAttention: described(z.string().nullable(), "Why the drawing is stuck, or null."),
    winners: z.array(drawingWinner),
    heldPrizesOpen: described(int, "Held prizes not yet paid or refused."),
    verification,
    prizeTable: described(prizeTable.nullable(), "The drawing's own table, fixed at the lock."),
  }),
  "A drawing.",
);

export const drawingResponse = component("DrawingResponse", z.object({ drawing }), "One drawing.");
export const drawingList = component("DrawingList", z.object({ drawings: z.array(drawing).max(50) }), "At most 50 drawings, no paging.");

export const entriesResult = component(
  "EntriesResult",
  z.object({
    drawing: z.object({ id: z.string(), drawAt: time, cutoffAt: time }),
    added: int,
    updated: int,
    unchanged: int,
    count: described(int, "The drawing's entrants so far."),
    totalWeight: int,
  }),
  "POST entries: what the request changed and the drawing's running totals.",
);

export const entriesPage = component(
  "EntriesPage",
  z.object({
    count: int,
    totalWeight: int,
    entries: z.array(
      z.object({
        entrantId: z.string(),
        weight: int,
        displayName: z.string().nullable(),
        avatarUrl: z.string().nullable(),
        position: described(int.nullable(), "Set once the list is locked."),
      }),
    ),
    next: described(z.string().nullable(), "Pass as `after` for the next page; null on the last page."),
  }),
  "A page of entrants in arrival order.",
);

export const guarantee = component(
  "Guarantee",
  z.object({
    id: z.string(),
    period: described(int, "From 1."),
    periodStart: time,
    periodEnd: time,
    status: z.enum(["not_needed", "awaiting_pick", "picked", "paid"]),
    amountCents: cents,
  }),
  "A checked guarantee period.",
);

export const guaranteeList = component("GuaranteeList", z.object({ guarantees: z.array(guarantee) }), "Checked periods, first period first.");
export const pickResult = component("PickResult", z.object({ payoutId: z.string() }), "The guarantee's payout.");
export const testClockResult = component("TestClockResult", z.object({ now: described(time, "The campaign's new time.") }), "The test clock moved.");

export const drawsPageSchema = component(
  "DrawsPage",
  z.object({
    campaign: z.object({
      slug: z.string(),
      name: z.string(),
      status: campaignStatus,
      cadence: z.enum(["hourly", "daily", "weekly", "monthly"]),
      timezone: z.string(),
      winnersPerDraw: int,
      page: url,
      campaignId: described(hex, "The campaign's id onchain (32 bytes)."),
      chain: z.object({ chainId: int, contract: z.string(), deployBlock: int }),
      payout: z.object({ chainId: int, contract: z.string(), token: z.string(), tokenDecimals: int }),
    }),
    draws: z.array(
      z.object({
        id: z.string(),
        number: int.nullable(),
        slot: described(hex, "keccak256 of the id, which the onchain commit carries."),
        drawAt: time,
        cutoffAt: time,
        stage: z.enum(["open", "locked", "drawing", "drawn", "paid"]),
        winners: described(int, "How many."),
        winnersCommitment: z.string().nullable(),
        lockedAt: time.nullable(),
        settledAt: time.nullable(),
        paidAt: time.nullable(),
        final: z.boolean(),
        proof: described(url.nullable(), "The proof's URL once drawn."),
      }),
    ),
    nextBefore: described(time.nullable(), "Pass as `before` for the next page; null on the last page."),
  }),
  "draws.json: the campaign and a page of its draws, newest draw time first.",
);

/**
 * proof.json, loosely: its top-level keys (docs/proof-format.md has every field and how it is derived). Loose, so
 * this document does not restate the proof format, which has its own versions.
 */
export const proof = component(
  "Proof",
  z.looseObject({
    proofVersion: int,
    campaign: z.looseObject({ id: z.string(), slug: z.string(), name: z.string() }),
    drawing: z.looseObject({ id: z.string(), number: int, drawAt: time }),
    winnerList: z.looseObject({ winners: z.array(z.string()), commitment: hex, lockedAt: time }),
    entropy: z.looseObject({ provider: z.string(), requestId: z.string(), value: hex, revealedAt: time }),
    prizeTable: z.looseObject({ id: z.string(), version: int, denominator: int, tiers: z.array(z.looseObject({ amountCents: cents, weight: int })) }),
    results: z.array(z.looseObject({ position: int, winner: z.string(), displayName: z.string().nullable(), randomValue: hex, roll: int, amountCents: cents })),
    entrants: z.looseObject({ count: int, totalWeight: int, commitment: hex }).nullable(),
    chain: z.looseObject({ chainId: int, contract: z.string(), commitTx: hex, revealTx: hex }),
    finality: described(z.enum(["provisional", "final"]), "Served proofs only: `final` once the reveal (and payout) are in finalized blocks."),
  }),
  "A draw's proof (format version 6; docs/proof-format.md).",
);

export const health = component("Health", z.object({ ok: z.literal(true) }), "The process runs.");

export const readiness = component(
  "Readiness",
  z.object({
    ready: z.boolean(),
    // The detail: for the metrics token, or in the test environment while no token is set (http/ready.ts).
    store: z.boolean().optional(),
    chain: z.object({ ok: z.boolean(), block: int.nullable() }).optional(),
    indexer: z.object({ ok: z.boolean(), block: int.nullable(), lagBlocks: int.nullable() }).optional(),
    keeper: z
      .object({
        leaseHeld: described(z.boolean(), "This process holds the keeper lease (runs the keeper); a standby process is ready too."),
      })
      .optional(),
  }),
  "Store open, chain reachable, indexer within 5 blocks of it. The rest (each part's state, and whether this process runs the keeper) only with `Authorization: Bearer <METRICS_TOKEN>`, or in the test environment while no token is set.",
);

export const openApiDocument = component(
  "OpenApiDocument",
  z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) }),
  "This document.",
);

// Compile-time checks that the domain's views and these schemas agree. `Same` compares field names (every level
// the views share with the schemas); `Fits` checks a view's values fit the schema's types.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Fits<View, Schema extends z.ZodType> = FitsType<View, z.output<Schema>>;
type FitsType<View, Out> = [View] extends [Out] ? true : false;
type Keys<T> = keyof NonNullable<T>;
function check<T extends true>(): T | undefined {
  return undefined;
}
check<Same<StableErrorCode, ErrorCode | "internal" | RateLimitedError["code"]>>();
check<Fits<ErrorBody & { error: StableErrorCode }, typeof errorBody>>();
check<Fits<Awaited<ReturnType<typeof campaignView>>, typeof campaign>>();
check<Fits<ReturnType<typeof prizeTableView>, typeof prizeTable>>();
type DrawingView = Awaited<ReturnType<typeof drawingView>>;
check<Same<Keys<DrawingView>, Keys<z.output<typeof drawing>>>>();
check<Same<Keys<DrawingView["verification"]>, Keys<z.output<typeof verification>>>>();
check<Same<Keys<DrawingView["winners"][number]>, Keys<z.output<typeof drawingWinner>>>>();
check<FitsType<Omit<DrawingView, "winners">, Omit<z.output<typeof drawing>, "winners">>>();
check<Fits<EntriesResult, typeof entriesResult>>();
check<Fits<EntriesPage, typeof entriesPage>>();
check<Fits<GuaranteeView, typeof guarantee>>();
check<Fits<Readiness, typeof readiness>>();
type DrawsPageView = Awaited<ReturnType<typeof drawsPage>>;
check<Same<Keys<DrawsPageView>, Keys<z.output<typeof drawsPageSchema>>>>();
check<Same<Keys<DrawsPageView["campaign"]>, Keys<z.output<typeof drawsPageSchema>["campaign"]>>>();
check<Same<Keys<DrawsPageView["draws"][number]>, Keys<z.output<typeof drawsPageSchema>["draws"][number]>>>();
