/**
 * The rules of alerts (api/src/domain/alerts.ts), without a store, a chain or a keeper: which conditions an
 * observation shows (a stuck drawing in each status, a pull URL failing in the last 5 minutes, a payout refused, a
 * foreign commit, a randomness provider late, the chain unanswered, the pool and the gas money low), and what the
 * plan does with them beside the open alerts (open, remind, keep quiet when acknowledged, reword, resolve, leave
 * alone what was not observed).
 */
import { describe, expect, it } from "vitest";
import {
  dailyPrizeCents,
  drawsPerDay,
  evaluateAlerts,
  inStatusSince,
  leaseLostCondition,
  planAlerts,
  type AlertObservation,
  type AlertRules,
  type ObservedDrawing,
  type OpenAlert,
} from "../../api/src/domain/alerts.js";
import { ENTROPY_LATE, NO_WINNERS_AT_CUTOFF, chainFaultNote, foreignCommitNote } from "../../api/src/domain/drawingLife.js";

const MIN = 60_000;
const CUTOFF = "2026-11-27T11:30:00.000Z";
const at = (offsetMs: number, from = CUTOFF): string => new Date(Date.parse(from) + offsetMs).toISOString();

const RULES: AlertRules = { stuckMs: 30 * MIN, pullWindowMs: 5 * MIN, poolDays: 7, gasMinWei: 10n ** 16n, chainOutageMs: 5 * MIN };

function seen(over: Partial<ObservedDrawing["drawing"]> = {}, rest: Partial<Omit<ObservedDrawing, "drawing">> = {}): ObservedDrawing {
  return {
    campaignSlug: "summer-daily",
    mode: "push",
    campaignNow: at(31 * MIN),
    lastFetch: null,
    ...rest,
    drawing: { id: "drw_1", status: "open", cutoffAt: CUTOFF, lockedAt: null, settledAt: null, needsAttention: null, entropyProvider: null, ...over },
  };
}

function observation(over: Partial<AlertObservation> = {}): AlertObservation {
  return { drawings: [], pool: { freeCents: 1_000_000n, dailyPrizeCents: 10_000n }, operatorBalanceWei: 10n ** 18n, chainFailingSince: null, now: "2026-11-27T12:00:00.000Z", ...over };
}

const keys = (o: AlertObservation, rules: AlertRules = RULES) => evaluateAlerts(o, rules).active.map((c) => c.key);

describe("a stuck drawing", () => {
  it("is an open drawing the stuck threshold past its cutoff, on its campaign's clock", () => {
    expect(keys(observation({ drawings: [seen({ needsAttention: NO_WINNERS_AT_CUTOFF })] }))).toEqual(["drawing_stuck:drw_1"]);
    expect(keys(observation({ drawings: [seen({}, { campaignNow: at(29 * MIN) })] }))).toEqual([]);
    expect(keys(observation({ drawings: [seen({}, { campaignNow: at(30 * MIN) })] }))).toEqual(["drawing_stuck:drw_1"]);
    // Before the cutoff nothing is late, whatever the drawing's age.
    expect(keys(observation({ drawings: [seen({}, { campaignNow: at(-1) })] }))).toEqual([]);
  });

  it("counts from the lock for a locked or requested drawing, from the settlement for a settled one; never a paid one", () => {
    const lockedAt = at(20 * MIN);
    expect(inStatusSince({ ...seen().drawing, status: "locked", lockedAt })).toBe(lockedAt);
    expect(keys(observation({ drawings: [seen({ status: "locked", lockedAt }, { campaignNow: at(49 * MIN) })] }))).toEqual([]);
    expect(keys(observation({ drawings: [seen({ status: "entropy_requested", lockedAt }, { campaignNow: at(50 * MIN) })] }))).toEqual(["drawing_stuck:drw_1"]);
    const settledAt = at(40 * MIN);
    expect(keys(observation({ drawings: [seen({ status: "settled", lockedAt, settledAt }, { campaignNow: at(69 * MIN) })] }))).toEqual([]);
    expect(keys(observation({ drawings: [seen({ status: "settled", lockedAt, settledAt }, { campaignNow: at(70 * MIN) })] }))).toEqual(["drawing_stuck:drw_1"]);
    expect(keys(observation({ drawings: [seen({ status: "paid", lockedAt, settledAt }, { campaignNow: at(5 * 24 * 60 * MIN) })] }))).toEqual([]);
  });

  it("says its status, since when, the threshold and its note, and is critical", () => {
    const [c] = evaluateAlerts(observation({ drawings: [seen({ needsAttention: NO_WINNERS_AT_CUTOFF })] }), RULES).active;
    expect(c).toEqual({
      key: "drawing_stuck:drw_1",
      kind: "drawing_stuck",
      severity: "critical",
      summary: "drawing drw_1 of summer-daily is stuck open",
      detail: `open since ${CUTOFF} (its campaign's clock), longer than 30 min; its note: ${NO_WINNERS_AT_CUTOFF}`,
      campaignSlug: "summer-daily",
      drawingId: "drw_1",
    });
  });
});

describe("a pull URL failing before the cutoff", () => {
  const pull = (lastFetch: ObservedDrawing["lastFetch"], over: Partial<ObservedDrawing["drawing"]> = {}, campaignNow = at(-3 * MIN)) =>
    seen(over, { mode: "pull", lastFetch, campaignNow });

  it("is an open pull drawing whose latest fetch failed within 5 minutes of its cutoff", () => {
    const failed = { at: at(-4 * MIN), outcome: "error" as const, reason: "HTTP 500" };
    const [c] = evaluateAlerts(observation({ drawings: [pull(failed)] }), RULES).active;
    expect(c).toMatchObject({ key: "pull_failing:drw_1", kind: "pull_failing", severity: "critical", campaignSlug: "summer-daily", drawingId: "drw_1" });
    expect(c!.detail).toBe(`the fetch at ${failed.at}, 4 min before the cutoff at ${CUTOFF}, gave an error: HTTP 500`);
    expect(keys(observation({ drawings: [pull({ ...failed, outcome: "invalid", reason: "exactly 2 winners expected" })] }))).toEqual(["pull_failing:drw_1"]);
    expect(keys(observation({ drawings: [pull({ ...failed, at: at(-5 * MIN) })] }))).toEqual(["pull_failing:drw_1"]);
  });

  it("is not a failure earlier than that, a fetch that answered, a push campaign, or a drawing no longer open", () => {
    const failed = { at: at(-4 * MIN), outcome: "error" as const, reason: "HTTP 500" };
    expect(keys(observation({ drawings: [pull({ ...failed, at: at(-6 * MIN) })] }))).toEqual([]);
    expect(keys(observation({ drawings: [pull({ at: at(-4 * MIN), outcome: "stored", reason: null })] }))).toEqual([]);
    expect(keys(observation({ drawings: [pull({ at: at(-4 * MIN), outcome: "not_ready", reason: "HTTP 404" })] }))).toEqual([]);
    expect(keys(observation({ drawings: [seen({}, { lastFetch: failed, campaignNow: at(-3 * MIN) })] }))).toEqual([]);
    expect(keys(observation({ drawings: [pull(failed, { status: "locked", lockedAt: CUTOFF }, at(MIN))] }))).toEqual([]);
  });

  it("clears when the cutoff moves further out than 5 minutes from the failed fetch, and stays when it moves less", () => {
    const failed = { at: at(-4 * MIN), outcome: "error" as const, reason: "HTTP 500" };
    expect(keys(observation({ drawings: [pull(failed, { cutoffAt: at(MIN) })] }))).toEqual(["pull_failing:drw_1"]);
    expect(keys(observation({ drawings: [pull(failed, { cutoffAt: at(2 * MIN) })] }))).toEqual([]);
  });

  it("stands in for the stuck alert of its drawing once the cutoff passes without a list", () => {
    const failed = { at: at(-4 * MIN), outcome: "error" as const, reason: "HTTP 500" };
    expect(keys(observation({ drawings: [pull(failed, { needsAttention: NO_WINNERS_AT_CUTOFF }, at(45 * MIN))] }))).toEqual(["pull_failing:drw_1"]);
  });
});

describe("conditions a drawing's note names", () => {
  it("a payout the token refuses, at once and instead of the stuck alert", () => {
    const note = chainFaultNote("payout", "unknown error 0x12345678");
    const refused = seen({ status: "settled", lockedAt: CUTOFF, settledAt: at(MIN), needsAttention: note }, { campaignNow: at(2 * MIN) });
    expect(evaluateAlerts(observation({ drawings: [refused] }), RULES).active).toEqual([
      expect.objectContaining({ key: "payout_refused:drw_1", kind: "payout_refused", severity: "critical", detail: note }),
    ]);
    expect(keys(observation({ drawings: [{ ...refused, campaignNow: at(3 * 60 * MIN) }] }))).toEqual(["payout_refused:drw_1"]);
    // payoutMany's refusal is the same condition; another function's refusal is only a stuck drawing in time.
    expect(keys(observation({ drawings: [{ ...refused, drawing: { ...refused.drawing, needsAttention: chainFaultNote("payoutMany", "X") } }] }))).toEqual(["payout_refused:drw_1"]);
    const paused = seen({ status: "locked", lockedAt: CUTOFF, needsAttention: chainFaultNote("commitAndRequest", "EnforcedPause") }, { campaignNow: at(31 * MIN) });
    expect(keys(observation({ drawings: [paused] }))).toEqual(["drawing_stuck:drw_1"]);
  });

  it("a foreign commit, for as long as the drawing carries the note", () => {
    const note = foreignCommitNote(3, 4);
    expect(keys(observation({ drawings: [seen({ status: "entropy_requested", lockedAt: CUTOFF, needsAttention: note }, { campaignNow: at(MIN) })] }))).toEqual(["foreign_commit:drw_1"]);
  });

  it("a randomness provider late: one alert per provider naming its drawings, and no stuck alert for them", () => {
    const late = (id: string, provider: string | null) => seen({ id, status: "entropy_requested", lockedAt: CUTOFF, needsAttention: ENTROPY_LATE, entropyProvider: provider }, { campaignNow: at(60 * MIN) });
    const { active } = evaluateAlerts(observation({ drawings: [late("drw_b", "0xabc"), late("drw_a", "0xabc"), late("drw_c", null)] }), RULES);
    expect(active.map((c) => c.key)).toEqual(["provider_outage:0xabc", "provider_outage:unknown"]);
    expect(active[0]).toMatchObject({ summary: "the randomness provider 0xabc has not revealed 2 drawings in time", detail: "waiting past the entropy timeout: drw_a, drw_b", drawingId: null });
  });
});

describe("the chain, the pool and the gas money", () => {
  it("the chain unanswered for the outage time is an outage; a shorter gap is not", () => {
    expect(keys(observation({ chainFailingSince: "2026-11-27T11:56:00.000Z", pool: null, operatorBalanceWei: null }))).toEqual([]);
    expect(keys(observation({ chainFailingSince: "2026-11-27T11:55:00.000Z", pool: null, operatorBalanceWei: null }))).toEqual(["chain_unreachable"]);
  });

  it("a pool whose free balance covers fewer than the set days of prizes is low; 0 days turns the check off", () => {
    expect(keys(observation({ pool: { freeCents: 69_999n, dailyPrizeCents: 10_000n } }))).toEqual(["pool_low"]);
    expect(keys(observation({ pool: { freeCents: 70_000n, dailyPrizeCents: 10_000n } }))).toEqual([]);
    expect(keys(observation({ pool: { freeCents: 0n, dailyPrizeCents: 10_000n } }), { ...RULES, poolDays: 0 })).toEqual([]);
    // No active campaign draws anything: nothing to cover.
    expect(keys(observation({ pool: { freeCents: 0n, dailyPrizeCents: 0n } }))).toEqual([]);
    const [c] = evaluateAlerts(observation({ pool: { freeCents: 1_234_567n, dailyPrizeCents: 500_000n } }), RULES).active;
    expect(c).toMatchObject({ severity: "warning", detail: "free $12,345.67; the active campaigns' prizes average $5,000.00 a day, so 7 days need $35,000.00 (ALERT_POOL_DAYS)" });
  });

  it("gas money below the minimum is low; a 0 minimum turns the check off", () => {
    expect(keys(observation({ operatorBalanceWei: 10n ** 16n - 1n }))).toEqual(["gas_low"]);
    expect(keys(observation({ operatorBalanceWei: 10n ** 16n }))).toEqual([]);
    expect(keys(observation({ operatorBalanceWei: 0n }), { ...RULES, gasMinWei: 0n })).toEqual([]);
    expect(evaluateAlerts(observation({ operatorBalanceWei: 5n * 10n ** 15n }), RULES).active[0]?.detail).toBe(
      "its balance is 0.005 (native currency), below the 0.01 set as the minimum (ALERT_GAS_MIN_WEI)",
    );
  });

  it("what was not read is not judged: its kinds are listed as unobserved", () => {
    expect(evaluateAlerts(observation({ pool: null, operatorBalanceWei: null }), RULES)).toEqual({ active: [], unobserved: ["pool_low", "gas_low"] });
  });

  it("a day of prizes: draws a day, times winners, times the average prize", () => {
    expect([drawsPerDay("hourly"), drawsPerDay("daily"), drawsPerDay("weekly")]).toEqual([24, 1, 1 / 7]);
    expect(dailyPrizeCents({ cadence: "hourly", winnersPerDraw: 3, averagePrizeCents: 250 })).toBe(18_000n);
    expect(dailyPrizeCents({ cadence: "weekly", winnersPerDraw: 7, averagePrizeCents: 100 })).toBe(100n);
    expect(dailyPrizeCents({ cadence: "monthly", winnersPerDraw: 1, averagePrizeCents: 365 })).toBe(12n);
  });
});

describe("the plan", () => {
  const NOW = new Date("2026-11-27T12:00:00.000Z");
  const REMIND = 60 * MIN;
  const stuck = evaluateAlerts(observation({ drawings: [seen()] }), RULES).active[0]!;
  const openAlert = (over: Partial<OpenAlert> = {}): OpenAlert => ({
    id: 1,
    key: stuck.key,
    kind: stuck.kind,
    summary: stuck.summary,
    detail: stuck.detail,
    lastNotifiedAt: new Date(NOW.getTime() - 10 * MIN).toISOString(),
    acknowledgedAt: null,
    ...over,
  });

  it("opens a condition without an open alert, once however often it is listed", () => {
    expect(planAlerts([], { active: [stuck, stuck], unobserved: [] }, NOW, REMIND)).toEqual({ open: [stuck], remind: [], refresh: [], resolve: [] });
  });

  it("keeps quiet about an open alert until the reminder interval has passed since its last notice", () => {
    expect(planAlerts([openAlert()], { active: [stuck], unobserved: [] }, NOW, REMIND)).toEqual({ open: [], remind: [], refresh: [], resolve: [] });
    const due = openAlert({ lastNotifiedAt: new Date(NOW.getTime() - REMIND).toISOString() });
    expect(planAlerts([due], { active: [stuck], unobserved: [] }, NOW, REMIND).remind).toEqual([{ alert: due, condition: stuck }]);
  });

  it("never reminds an acknowledged alert, but still rewords and resolves it", () => {
    const acked = openAlert({ lastNotifiedAt: "2026-11-01T00:00:00.000Z", acknowledgedAt: "2026-11-01T00:05:00.000Z", detail: "older wording" });
    expect(planAlerts([acked], { active: [stuck], unobserved: [] }, NOW, REMIND)).toEqual({ open: [], remind: [], refresh: [{ alert: acked, condition: stuck }], resolve: [] });
    expect(planAlerts([acked], { active: [], unobserved: [] }, NOW, REMIND).resolve).toEqual([acked]);
  });

  it("resolves an alert whose condition cleared, but not one whose kind was not observed this time", () => {
    const pool = openAlert({ id: 2, key: "pool_low", kind: "pool_low" });
    expect(planAlerts([openAlert(), pool], { active: [], unobserved: ["pool_low"] }, NOW, REMIND).resolve).toEqual([openAlert()]);
  });

  it("resolves a lost lease at the first plan: whoever plans holds the lease", () => {
    const lost = leaseLostCondition("host:42:abc", NOW.toISOString());
    expect(lost).toMatchObject({ key: "lease_lost:host:42:abc", kind: "lease_lost", severity: "warning" });
    const open = openAlert({ id: 3, key: lost.key, kind: lost.kind });
    expect(planAlerts([open], { active: [], unobserved: ["pool_low", "gas_low"] }, NOW, REMIND).resolve).toEqual([open]);
  });
});
