/** The drawing's transitions as pure rules (api/src/domain/drawingLife.ts), without a store, a chain or a keeper. */
import { describe, expect, it } from "vitest";
import {
  CHAIN_FAULT_PREFIX,
  ENTROPY_LATE,
  NO_ENTRANTS_AT_CUTOFF,
  NO_WINNERS_AT_CUTOFF,
  chainFaultNote,
  cutoffReached,
  lockEntrantList,
  lockWinnerList,
  movedOn,
  numbered,
  onCampaignClock,
  paid,
  requested,
  settled,
  steppedBack,
} from "../../api/src/domain/drawingLife.js";
import { openDrawing } from "../../api/src/domain/campaigns.js";
import { entrantsCommitment, fingerprint, winnerHash } from "../../api/src/draw/index.js";
import type { Campaign } from "../../api/src/store/campaigns.js";
import type { Drawing } from "../../api/src/store/drawings.js";

const NOW = new Date("2026-11-27T12:00:00.000Z");

const campaign = (over: Partial<Campaign> = {}): Campaign => ({
  id: "cmp_1",
  accountId: "acc_1",
  slug: "summer-daily",
  name: "Summer Daily",
  mode: "push",
  status: "active",
  schedule: { cadence: "daily", drawHour: 12, drawMinute: 0, drawWeekday: null, drawDayOfMonth: null, timezone: "UTC", cutoffMinutes: 30, startsAt: "2026-11-01T00:00:00.000Z", endsAt: null },
  winnersPerDraw: 2,
  payoutWallet: null,
  largePrizeThresholdCents: 50_000,
  guarantee: null,
  termsUrl: null,
  privacyUrl: null,
  pullUrl: null,
  tableId: "default",
  tableVersion: 1,
  clockOffsetMs: 0,
  onchainWallet: null,
  onchainThresholdCents: null,
  createdAt: "2026-11-01T00:00:00.000Z",
  updatedAt: "2026-11-01T00:00:00.000Z",
  ...over,
});

const drawing = (over: Partial<Drawing> = {}): Drawing => ({
  ...openDrawing(campaign(), { drawAt: new Date("2026-11-27T12:00:00.000Z"), cutoffAt: new Date("2026-11-27T11:30:00.000Z") }, "drw_1", new Date("2026-11-26T12:00:00.000Z")),
  ...over,
});

describe("locking at the cutoff", () => {
  it("waits for the cutoff on the campaign's clock", () => {
    expect(cutoffReached(drawing(), new Date("2026-11-27T11:29:59.999Z"))).toBe(false);
    expect(cutoffReached(drawing(), new Date("2026-11-27T11:30:00.000Z"))).toBe(true);
  });

  it("locks a complete winner list with its fingerprint, clearing a note", () => {
    const step = lockWinnerList(drawing({ needsAttention: NO_WINNERS_AT_CUTOFF }), ["w-1", "w-2"], NOW);
    expect(step).toEqual({ kind: "moved", drawing: drawing({ status: "locked", lockedAt: NOW.toISOString(), winnersCommitment: fingerprint(["w-1", "w-2"]) }) });
  });

  it("flags a list shorter or longer than the winners expected, and changes nothing else", () => {
    for (const ids of [[], ["w-1"], ["w-1", "w-2", "w-3"]]) expect(lockWinnerList(drawing(), ids, NOW)).toEqual({ kind: "flagged", note: NO_WINNERS_AT_CUTOFF });
  });

  it("locks an entrant list in arrival order with its commitment, or flags an empty one", () => {
    const entrants = [{ entrantId: "e-2", weight: 3 }, { entrantId: "e-1", weight: 1 }];
    const step = lockEntrantList(drawing({ entrantCount: 2, totalWeight: 4 }), entrants, NOW);
    expect(step.kind).toBe("moved");
    if (step.kind !== "moved") return;
    expect(step.drawing).toMatchObject({ status: "locked", lockedAt: NOW.toISOString(), needsAttention: null });
    expect(step.drawing.entrantsCommitment).toBe(entrantsCommitment([{ idHash: winnerHash("e-2"), weight: 3n }, { idHash: winnerHash("e-1"), weight: 1n }]));
    // Arrival order is part of the commitment.
    const swapped = lockEntrantList(drawing(), [...entrants].reverse(), NOW);
    expect(swapped.kind === "moved" && swapped.drawing.entrantsCommitment).not.toBe(step.drawing.entrantsCommitment);
    expect(lockEntrantList(drawing(), [], NOW)).toEqual({ kind: "flagged", note: NO_ENTRANTS_AT_CUTOFF });
  });
});

describe("numbering", () => {
  it("takes the next number after this service's and the chain's", () => {
    expect(numbered(drawing(), 4, 4)).toEqual({ drawing: drawing({ number: 5 }), foreignCommit: false });
    expect(numbered(drawing(), 0, 0).drawing.number).toBe(1);
  });

  it("notes numbers committed onchain outside the service, one or several", () => {
    const one = numbered(drawing(), 2, 3);
    expect(one.foreignCommit).toBe(true);
    expect(one.drawing).toMatchObject({ number: 4, needsAttention: "number 3 was committed onchain outside this service: the operator key may be in other hands (rotate it); the campaign audit names them" });
    expect(numbered(drawing(), 2, 5).drawing.needsAttention).toMatch(/^numbers 3 to 5 were committed onchain outside this service/);
  });

  it("keeps the drawing's own note when the chain is not ahead", () => {
    expect(numbered(drawing({ needsAttention: "something else" }), 7, 3).drawing).toMatchObject({ number: 8, needsAttention: "something else" });
  });
});

describe("chain faults", () => {
  it("words a contract refusal and clears it once the drawing moves on, keeping other notes", () => {
    const note = chainFaultNote("payout", "PaymentsPaused");
    expect(note).toBe(`${CHAIN_FAULT_PREFIX}payout refused by the contract (PaymentsPaused); retried every cycle`);
    expect(movedOn(drawing({ needsAttention: note })).needsAttention).toBeNull();
    expect(movedOn(drawing({ needsAttention: ENTROPY_LATE })).needsAttention).toBeNull();
    expect(movedOn(drawing({ needsAttention: NO_WINNERS_AT_CUTOFF })).needsAttention).toBe(NO_WINNERS_AT_CUTOFF);
  });
});

describe("commit, reveal and payout", () => {
  const locked = drawing({ status: "locked", number: 3, lockedAt: "2026-11-27T11:30:00.000Z", winnersCommitment: fingerprint(["w-1", "w-2"]) });

  it("a commit records the request (and its transaction when this run sent it)", () => {
    expect(requested(locked, { provider: "mock", requestId: "9", commitTx: "0xabc" })).toEqual({ ...locked, status: "entropy_requested", entropyProvider: "mock", entropyRequestId: "9", commitTx: "0xabc" });
    // Found committed by an earlier run: the transaction stays as stored.
    expect(requested({ ...locked, needsAttention: chainFaultNote("commitAndRequest", "FeeAboveCap") }, { provider: null, requestId: "9" })).toEqual({ ...locked, status: "entropy_requested", entropyRequestId: "9", needsAttention: null });
  });

  it("settles from the indexed reveal, with block times on the campaign's clock and never before the lock", () => {
    const c = campaign({ clockOffsetMs: 86_400_000 });
    const indexed = { provider: "0xp", randomValue: "0xv", revealTimestamp: 1_764_244_800n, settleTimestamp: 1_764_244_801n, revealTx: "0xr", revealBlock: 12n };
    const next = settled(c, { ...locked, status: "entropy_requested" }, indexed);
    expect(next).toMatchObject({ status: "settled", entropyProvider: "0xp", entropyValue: "0xv", revealTx: "0xr", revealBlock: 12, entropyRevealedAt: onCampaignClock(c, indexed.revealTimestamp, locked.lockedAt) });
    expect(Date.parse(next.entropyRevealedAt!)).toBeGreaterThanOrEqual(Date.parse(locked.lockedAt!));
    expect(Date.parse(next.settledAt!)).toBeGreaterThanOrEqual(Date.parse(next.entropyRevealedAt!));
    // A provider already known is kept.
    expect(settled(c, { ...locked, entropyProvider: "mock" }, indexed).entropyProvider).toBe("mock");
  });

  it("pays from the indexed payout", () => {
    const settledDrawing = { ...locked, status: "settled" as const, settledAt: "2026-11-27T12:00:05.000Z" };
    const next = paid(campaign(), settledDrawing, { paidTimestamp: 1_764_244_806n, paidBlock: 14n });
    expect(next).toMatchObject({ status: "paid", paidBlock: 14 });
    expect(Date.parse(next.paidAt!)).toBeGreaterThanOrEqual(Date.parse(settledDrawing.settledAt));
  });

  it("moves block times onto the campaign's clock, capped at its now and floored at the step before", () => {
    const c = campaign({ clockOffsetMs: 60_000 });
    const blockSeconds = BigInt(Math.floor(Date.now() / 1000) - 3_600);
    expect(onCampaignClock(c, null, null)).toBeNull();
    expect(onCampaignClock(c, blockSeconds, null)).toBe(new Date(Number(blockSeconds) * 1_000 + 60_000).toISOString());
    expect(onCampaignClock(c, blockSeconds, "2099-01-01T00:00:00.000Z")).toBe("2099-01-01T00:00:00.000Z");
    const future = BigInt(Math.floor(Date.now() / 1000) + 3_600);
    expect(Date.parse(onCampaignClock(c, future, null)!)).toBeLessThanOrEqual(Date.now() + 60_000 + 1_000);
  });
});

describe("stepping back after a reorg", () => {
  const paidDrawing = drawing({
    status: "paid", number: 3, lockedAt: "2026-11-27T11:30:00.000Z", winnersCommitment: "0xw", entropyProvider: "mock", entropyRequestId: "9",
    entropyValue: "0xv", entropyRevealedAt: "2026-11-27T12:00:01.000Z", settledAt: "2026-11-27T12:00:02.000Z", paidAt: "2026-11-27T12:00:03.000Z",
    commitTx: "0xc", revealTx: "0xr", revealBlock: 12, paidBlock: 14,
  });

  it("to settled: only the payout is forgotten", () => {
    expect(steppedBack(paidDrawing, "settled", "push")).toEqual({ ...paidDrawing, status: "settled", paidAt: null, paidBlock: null });
  });

  it("to entropy_requested: the reveal and what followed it are forgotten; an entries drawing's selection too", () => {
    const back = { ...paidDrawing, status: "entropy_requested", paidAt: null, paidBlock: null, entropyValue: null, entropyRevealedAt: null, settledAt: null, revealTx: null, revealBlock: null };
    expect(steppedBack(paidDrawing, "entropy_requested", "push")).toEqual(back);
    expect(steppedBack(paidDrawing, "entropy_requested", "entries")).toEqual({ ...back, winnersCommitment: null });
  });

  it("to locked: the commit is forgotten too, the number stays", () => {
    const back = steppedBack(paidDrawing, "locked", "push");
    expect(back).toMatchObject({ status: "locked", number: 3, entropyProvider: null, entropyRequestId: null, commitTx: null, entropyValue: null, winnersCommitment: "0xw" });
  });
});
