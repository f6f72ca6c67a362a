/** The fee discipline's rules (api/src/chain/fees.ts), without a chain. */
import { describe, expect, it } from "vitest";
import { FeeCapReachedError, bumped, firstFees, formatGwei, replacementFees } from "../../api/src/chain/fees.js";
import { ChainUnavailableError } from "../../api/src/chain/errors.js";

const GWEI = 1_000_000_000n;

describe("fees", () => {
  it("bumps both fees by at least 12.5 %, rounding up", () => {
    expect(bumped({ maxFeePerGas: 8n * GWEI, maxPriorityFeePerGas: 8n })).toEqual({ maxFeePerGas: 9n * GWEI, maxPriorityFeePerGas: 9n });
    // 7 wei x 1.125 = 7.875: rounded up to 8, never down to a replacement the node refuses.
    expect(bumped({ maxFeePerGas: 7n, maxPriorityFeePerGas: 1n })).toEqual({ maxFeePerGas: 8n, maxPriorityFeePerGas: 2n });
  });

  it("sends first at the estimate, held under the cap with the tip never above the fee", () => {
    expect(firstFees({ maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: GWEI }, 50n * GWEI)).toEqual({ maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: GWEI });
    expect(firstFees({ maxFeePerGas: 80n * GWEI, maxPriorityFeePerGas: 60n * GWEI }, 50n * GWEI)).toEqual({ maxFeePerGas: 50n * GWEI, maxPriorityFeePerGas: 50n * GWEI });
  });

  it("replaces at the higher of 12.5 % more and the current estimate, each fee", () => {
    const sent = { maxFeePerGas: 2n * GWEI, maxPriorityFeePerGas: GWEI };
    // The base fee jumped: the estimate wins for the fee, the rule for the tip.
    expect(replacementFees(sent, { maxFeePerGas: 40n * GWEI, maxPriorityFeePerGas: GWEI }, 50n * GWEI)).toEqual({ maxFeePerGas: 40n * GWEI, maxPriorityFeePerGas: 1_125_000_000n });
    // A quiet network: 12.5 % more still, or the node keeps the old one.
    expect(replacementFees(sent, { maxFeePerGas: GWEI, maxPriorityFeePerGas: 1n }, 50n * GWEI)).toEqual({ maxFeePerGas: 2_250_000_000n, maxPriorityFeePerGas: 1_125_000_000n });
  });

  it("stops at the cap: clipped while still a valid replacement, none once it cannot be", () => {
    const sent = { maxFeePerGas: 40n * GWEI, maxPriorityFeePerGas: GWEI };
    expect(replacementFees(sent, { maxFeePerGas: 90n * GWEI, maxPriorityFeePerGas: GWEI }, 50n * GWEI)).toEqual({ maxFeePerGas: 50n * GWEI, maxPriorityFeePerGas: 1_125_000_000n });
    expect(replacementFees({ maxFeePerGas: 50n * GWEI, maxPriorityFeePerGas: GWEI }, { maxFeePerGas: 90n * GWEI, maxPriorityFeePerGas: GWEI }, 50n * GWEI)).toBeNull();
    // Under the cap but within 12.5 % of it: no valid replacement either.
    expect(replacementFees({ maxFeePerGas: 46n * GWEI, maxPriorityFeePerGas: GWEI }, { maxFeePerGas: 90n * GWEI, maxPriorityFeePerGas: GWEI }, 50n * GWEI)).toBeNull();
    // A tip that cannot rise 12.5 % under the cap: none.
    expect(replacementFees({ maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: 48n * GWEI }, { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI }, 50n * GWEI)).toBeNull();
  });

  it("says the cap in gwei, as a chain fault the keeper flags", () => {
    const error = new FeeCapReachedError("commitAndRequest", 500_000_000n);
    expect(error).toBeInstanceOf(ChainUnavailableError);
    expect(error.message).toBe("commitAndRequest: not mined at the fee cap of 0.5 gwei per gas (MAX_FEE_PER_GAS_GWEI); it waits at the cap");
    expect(formatGwei(50n * GWEI)).toBe("50");
    expect(formatGwei(1n)).toBe("0.000000001");
  });
});
