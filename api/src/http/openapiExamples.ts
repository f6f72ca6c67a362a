/**
 * Example answers for the OpenAPI document, one per response schema, typed by the schemas in responses.ts so they
 * cannot name a field the service does not answer (the OpenAPI test also validates each against the document).
 */
import type { z } from "zod";
import type * as r from "./responses.js";

const BASE = "https://draws.example.com";
/** A 32-byte hex value ending in `digit`, for readable examples. */
const h32 = (digit: string) => `0x${"0".repeat(63)}${digit}`;
const ADDRESS = "0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0";

const table: z.output<typeof r.prizeTable> = {
  id: "default",
  version: 1,
  denominator: 100_000,
  tiers: [
    { amountCents: 10_000_000, weight: 1, odds: 0.00001 },
    { amountCents: 500, weight: 99_999, odds: 0.99999 },
  ],
  averagePrizeCents: 600,
};

const drawing: z.output<typeof r.drawing> = {
  id: "drw_01jd8m3k2n4p5q6r7s8t9v0w1x",
  number: 7,
  partnerRound: null,
  drawAt: "2026-11-25T19:00:00.000Z",
  cutoffAt: "2026-11-25T18:30:00.000Z",
  status: "paid",
  winnersExpected: 2,
  needsAttention: null,
  winners: [
    { position: 0, winner: "u-7f3a9c21", displayName: "Ada", avatarUrl: "https://example.com/ada.png", randomValue: h32("1"), roll: 48_213, amountCents: 500, heldForManualPayout: false },
    { position: 1, winner: "u-02be41d8", displayName: null, avatarUrl: null, randomValue: h32("2"), roll: 90_117, amountCents: 500, heldForManualPayout: false },
  ],
  heldPrizesOpen: 0,
  verification: {
    winnersCommitment: h32("3"),
    lockedAt: "2026-11-25T18:30:01.000Z",
    entropyProvider: "mock",
    entropyRequestId: "12",
    entropy: h32("4"),
    entropyRevealedAt: "2026-11-25T19:00:03.000Z",
    prizeTableId: "default",
    final: true,
  },
  prizeTable: table,
};

/** A campaign as GET a campaign (and each item of the list) shows it. */
const CAMPAIGN_EXAMPLE: Examples["CampaignResponse"]["campaign"] = {
  slug: "summer-daily",
  name: "Summer Daily",
  status: "active",
  mode: "push",
  page: `${BASE}/campaigns/summer-daily`,
  schedule: { cadence: "daily", drawHour: 20, drawMinute: 0, drawWeekday: null, drawDayOfMonth: null, timezone: "Europe/Berlin", cutoffMinutes: 30, startsAt: "2026-11-01T00:00:00.000Z", endsAt: null },
  winnersPerDraw: 2,
  prizeTable: table,
  guarantee: { amountCents: 2_000, thresholdCents: 500, periodDays: 30 },
  pullUrl: null,
  payoutWallet: "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720",
  largePrizeThresholdCents: 50_000,
  termsUrl: `${BASE}/terms`,
  privacyUrl: `${BASE}/privacy`,
  nextDrawing: { id: "drw_01jd9a1b2c3d4e5f6g7h8j9k0m", drawAt: "2026-11-26T19:00:00.000Z", cutoffAt: "2026-11-26T18:30:00.000Z", winnersPerDraw: 2, averagePrizeCents: 600 },
};

type Examples = {
  CampaignResponse: z.output<typeof r.campaignResponse>;
  CampaignList: z.output<typeof r.campaignList>;
  DrawingResponse: z.output<typeof r.drawingResponse>;
  DrawingList: z.output<typeof r.drawingList>;
  EntriesResult: z.output<typeof r.entriesResult>;
  EntriesPage: z.output<typeof r.entriesPage>;
  GuaranteeList: z.output<typeof r.guaranteeList>;
  PickResult: z.output<typeof r.pickResult>;
  TestClockResult: z.output<typeof r.testClockResult>;
  DrawsPage: z.output<typeof r.drawsPageSchema>;
  Proof: z.output<typeof r.proof>;
  Health: z.output<typeof r.health>;
  Readiness: z.output<typeof r.readiness>;
  OpenApiDocument: z.output<typeof r.openApiDocument>;
};

export const EXAMPLES: Examples = {
  CampaignResponse: { campaign: CAMPAIGN_EXAMPLE },
  DrawingResponse: { drawing },
  DrawingList: { drawings: [drawing] },
  CampaignList: { campaigns: [CAMPAIGN_EXAMPLE], next: "spring-weekly" },
  EntriesResult: { drawing: { id: drawing.id, drawAt: drawing.drawAt, cutoffAt: drawing.cutoffAt }, added: 1, updated: 1, unchanged: 0, count: 2, totalWeight: 4 },
  EntriesPage: {
    count: 2,
    totalWeight: 4,
    entries: [
      { entrantId: "e-1a2b3c4d", weight: 1, displayName: null, avatarUrl: null, position: null },
      { entrantId: "e-4d5e6f7a", weight: 3, displayName: "Linus", avatarUrl: "https://example.com/l.png", position: null },
    ],
    next: null,
  },
  GuaranteeList: {
    guarantees: [{ id: "gtd_01jd8m3k2n4p5q6r7s8t9v0w1x", period: 1, periodStart: "2026-11-01T00:00:00.000Z", periodEnd: "2026-12-01T00:00:00.000Z", status: "awaiting_pick", amountCents: 2_000 }],
  },
  PickResult: { payoutId: "pay_01jd8m3k2n4p5q6r7s8t9v0w1x" },
  TestClockResult: { now: "2026-11-25T19:30:00.000Z" },
  DrawsPage: {
    campaign: {
      slug: "summer-daily",
      name: "Summer Daily",
      status: "active",
      cadence: "daily",
      timezone: "Europe/Berlin",
      winnersPerDraw: 2,
      page: `${BASE}/campaigns/summer-daily`,
      campaignId: h32("5"),
      chain: { chainId: 84532, contract: ADDRESS, deployBlock: 1_234 },
      payout: { chainId: 84532, contract: ADDRESS, token: "0x5fbdb2315678afecb367f032d93f642f64180aa3", tokenDecimals: 6 },
    },
    draws: [
      {
        id: drawing.id,
        number: 7,
        slot: h32("6"),
        drawAt: drawing.drawAt,
        cutoffAt: drawing.cutoffAt,
        stage: "paid",
        winners: 2,
        winnersCommitment: h32("3"),
        lockedAt: "2026-11-25T18:30:01.000Z",
        settledAt: "2026-11-25T19:00:04.000Z",
        paidAt: "2026-11-25T19:00:06.000Z",
        final: true,
        proof: `${BASE}/campaigns/summer-daily/draws/${drawing.id}/proof.json`,
      },
    ],
    nextBefore: null,
  },
  Proof: {
    proofVersion: 6,
    campaign: { id: "summer-daily", slug: "summer-daily", name: "Summer Daily" },
    drawing: { id: drawing.id, number: 7, drawAt: drawing.drawAt, slot: h32("6") },
    winnerList: { winners: ["u-7f3a9c21", "u-02be41d8"], commitment: h32("3"), lockedAt: "2026-11-25T18:30:01.000Z" },
    entropy: {
      provider: "mock",
      requestId: "12",
      batch: { index: 0, size: 1, contributions: [h32("7")] },
      userContribution: h32("8"),
      providerContribution: null,
      revealedValue: h32("4"),
      requestBlock: { number: 1_271, hash: h32("b") },
      value: h32("c"),
      revealedAt: "2026-11-25T19:00:03.000Z",
      reRequest: null,
    },
    prizeTable: { id: "default", version: 1, denominator: 100_000, tiers: [{ amountCents: 10_000_000, weight: 1, threshold: 1 }, { amountCents: 500, weight: 99_999, threshold: 100_000 }] },
    results: [
      { position: 0, winner: "u-7f3a9c21", displayName: "Ada", randomValue: h32("1"), roll: 48_213, amountCents: 500 },
      { position: 1, winner: "u-02be41d8", displayName: null, randomValue: h32("2"), roll: 90_117, amountCents: 500 },
    ],
    entrants: null,
    chain: { chainId: 84532, contract: ADDRESS, entropy: "0x41c9e39574f40ad34c79f1c99b66a45efb830d4c", commitTx: h32("9"), revealTx: h32("a") },
    finality: "final",
  },
  Health: { ok: true },
  Readiness: { ready: true, store: true, chain: { ok: true, block: 1_280 }, indexer: { ok: true, block: 1_279, lagBlocks: 1 }, keeper: { leaseHeld: true } },
  OpenApiDocument: { openapi: "3.1.0", info: { title: "Prize Draw Service", version: "1" }, paths: {} },
};
