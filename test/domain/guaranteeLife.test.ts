/** A guarantee period's onchain steps and a held decision after a reorg, as pure rules (api/src/domain/guaranteeLife.ts). */
import { describe, expect, it } from "vitest";
import { OnchainGuaranteeStatus, OnchainHeldState } from "../../api/src/chain/port.js";
import {
  confirmedPayment,
  guaranteeChainStep,
  heldDecisionToResend,
  onchainPeriod,
  recheckPaidPeriod,
  type SeenGuaranteePayout,
} from "../../api/src/domain/guaranteeLife.js";

const TX = "0x" + "ab".repeat(32);
const OTHER_TX = "0x" + "cd".repeat(32);

/** The indexer's transfer of onchain period `period` (the service's period + 1) in block 120 at 2026-11-27T12:00:00Z. */
const payout = (period: number, txHash = TX, kind = "guarantee"): SeenGuaranteePayout => ({ kind, period, txHash, blockNumber: 120n, timestamp: 1_795_780_800n });

describe("a guarantee period onchain", () => {
  it("counts periods from 1 in the service and from 0 onchain", () => {
    expect(onchainPeriod({ period: 1 })).toBe(0);
    expect(onchainPeriod({ period: 12 })).toBe(11);
  });

  it("picks then pays a period the chain has not seen, pays one picked, and sends nothing for one paid", () => {
    expect(guaranteeChainStep(OnchainGuaranteeStatus.None)).toBe("pick_then_pay");
    expect(guaranteeChainStep(OnchainGuaranteeStatus.Picked)).toBe("pay");
    expect(guaranteeChainStep(OnchainGuaranteeStatus.Paid)).toBe("nothing");
  });

  it("counts a payment only when the indexer shows its transfer and the chain shows the period paid", () => {
    const guarantee = { period: 3 };
    expect(confirmedPayment(guarantee, [payout(2)], OnchainGuaranteeStatus.Paid)).toEqual({ paidAt: "2026-11-27T12:00:00.000Z", tx: TX, block: 120 });
    // The indexer still shows a transfer a reorg dropped: not paid.
    expect(confirmedPayment(guarantee, [payout(2)], OnchainGuaranteeStatus.Picked)).toBeNull();
    // The chain shows it paid before the indexer has the transfer: not yet recorded.
    expect(confirmedPayment(guarantee, [], OnchainGuaranteeStatus.Paid)).toBeNull();
    // Another period's transfer, or a drawing's, is not this period's.
    expect(confirmedPayment(guarantee, [payout(3), payout(2, TX, "drawing")], OnchainGuaranteeStatus.Paid)).toBeNull();
  });

  it("sends a paid period back to picked when a reorg dropped its payment, and records our transaction's block", () => {
    const guarantee = { period: 3, pickTx: TX };
    expect(recheckPaidPeriod(guarantee, OnchainGuaranteeStatus.Picked, [payout(2)])).toEqual({ kind: "unpaid" });
    expect(recheckPaidPeriod(guarantee, OnchainGuaranteeStatus.None, [])).toEqual({ kind: "unpaid" });
    expect(recheckPaidPeriod(guarantee, OnchainGuaranteeStatus.Paid, [payout(2, TX.toUpperCase().replace("0X", "0x"))])).toEqual({ kind: "block", block: 120 });
    // Paid onchain by a transaction that is not the one recorded (or not yet indexed): nothing to record.
    expect(recheckPaidPeriod(guarantee, OnchainGuaranteeStatus.Paid, [payout(2, OTHER_TX)])).toEqual({ kind: "unchanged" });
    expect(recheckPaidPeriod(guarantee, OnchainGuaranteeStatus.Paid, [])).toEqual({ kind: "unchanged" });
  });
});

describe("a held prize's decision after a reorg", () => {
  it("is sent again, the same, only when the chain shows the prize open again", () => {
    expect(heldDecisionToResend("paid", OnchainHeldState.Open)).toBe("paid");
    expect(heldDecisionToResend("refused", OnchainHeldState.Open)).toBe("refused");
    expect(heldDecisionToResend("paid", OnchainHeldState.Paid)).toBeNull();
    expect(heldDecisionToResend("refused", OnchainHeldState.Refused)).toBeNull();
    // Closed the other way onchain (not by this service's decision): never overturned by a resend.
    expect(heldDecisionToResend("paid", OnchainHeldState.Refused)).toBeNull();
  });
});
