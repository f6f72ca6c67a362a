/**
 * A relayer's fee discipline: every operator transaction is signed with explicit EIP-1559 fees, never above a
 * configured cap; one still unmined when its deadline passes is replaced at the same nonce with fees at least
 * 12.5 % higher (the replacement rule nodes enforce, geth's 10 % included) or the network's current estimate when
 * that is higher. At the cap nothing can be replaced: the transaction waits there and the caller is told
 * (FeeCapReachedError), never left waiting in silence. Pure: the port (chain/port.ts) reads the estimates and sends.
 */
import { ChainUnavailableError } from "./errors.js";

/** What a transaction pays per gas (wei). */
export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

export type FeePolicy = {
  /** The most any transaction may pay per gas (wei); the port never signs above it. */
  maxFeePerGasWei: bigint;
  /** A transaction still unmined this long after it was sent (or last replaced) is replaced with higher fees. */
  replaceAfterMs: number;
};

/** 50 gwei: hundreds of times what Base charges on a normal day, and a bound on what a runaway spike can cost. */
export const DEFAULT_MAX_FEE_PER_GAS_WEI = 50_000_000_000n;
/** About 15 blocks on Base: a transaction priced for the current base fee is mined in one or two. */
export const DEFAULT_REPLACE_AFTER_MS = 30_000;

/** The replacement rule: each fee at least 12.5 % above the one it replaces (rounded up). */
export function bumped(fees: Fees): Fees {
  const up = (wei: bigint) => (wei * 1_125n + 999n) / 1_000n;
  return { maxFeePerGas: up(fees.maxFeePerGas), maxPriorityFeePerGas: up(fees.maxPriorityFeePerGas) };
}

/** The fees of a first send: the network's estimate, held under the cap (the tip never above the fee). */
export function firstFees(estimate: Fees, cap: bigint): Fees {
  const maxFeePerGas = estimate.maxFeePerGas < cap ? estimate.maxFeePerGas : cap;
  const maxPriorityFeePerGas = estimate.maxPriorityFeePerGas < maxFeePerGas ? estimate.maxPriorityFeePerGas : maxFeePerGas;
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/**
 * The fees of a replacement of a transaction sent with `sent`: the higher of 12.5 % more and the current
 * estimate, each; null when the cap leaves no valid replacement (it must exceed `sent` by the rule in both fees).
 */
export function replacementFees(sent: Fees, estimate: Fees, cap: bigint): Fees | null {
  const floor = bumped(sent);
  const max = (a: bigint, b: bigint) => (a > b ? a : b);
  const maxFeePerGas = max(floor.maxFeePerGas, estimate.maxFeePerGas);
  const maxPriorityFeePerGas = max(floor.maxPriorityFeePerGas, estimate.maxPriorityFeePerGas);
  const capped = maxFeePerGas > cap ? cap : maxFeePerGas;
  const tip = maxPriorityFeePerGas > capped ? capped : maxPriorityFeePerGas;
  if (capped < floor.maxFeePerGas || tip < floor.maxPriorityFeePerGas) return null;
  return { maxFeePerGas: capped, maxPriorityFeePerGas: tip };
}

/**
 * A transaction priced at the cap stayed unmined past the receipt timeout: the network asks more than the operator
 * allows. It stays queued at the cap (mined if fees fall), and the same call sent again resumes waiting for it.
 */
export class FeeCapReachedError extends ChainUnavailableError {
  override name = "FeeCapReachedError";
  readonly feeCapReached = true;
  constructor(
    readonly functionName: string,
    readonly capWei: bigint,
  ) {
    super(`${functionName}: not mined at the fee cap of ${formatGwei(capWei)} gwei per gas (MAX_FEE_PER_GAS_GWEI); it waits at the cap`);
  }
}

/** Wei as gwei with up to 9 decimals, for messages. */
export function formatGwei(wei: bigint): string {
  const whole = wei / 1_000_000_000n;
  const rest = (wei % 1_000_000_000n).toString().padStart(9, "0").replace(/0+$/, "");
  return rest === "" ? whole.toString() : `${whole}.${rest}`;
}
