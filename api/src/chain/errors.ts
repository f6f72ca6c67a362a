import type { Hex } from "viem";

/** The contract refused a call; `errorName` is its custom error (e.g. "NumberOutOfSequence"). */
export class ChainRevertError extends Error {
  readonly code = "chain_revert";
  override name = "ChainRevertError";
  constructor(
    readonly functionName: string,
    readonly errorName: string,
    readonly errorArgs: readonly unknown[],
  ) {
    super(`${functionName} reverted with ${errorName}`);
  }
}

/** The chain could not be reached or did not answer as expected. */
export class ChainUnavailableError extends Error {
  readonly code = "chain_unavailable";
  override name = "ChainUnavailableError";
}

/**
 * A sent transaction will never run: another one took its nonce (a gap filler, or a send numbered again from the
 * node after a reorg dropped this one). The step is sent again by the keeper's next try, which reads the chain first.
 */
export class TransactionReplacedError extends ChainUnavailableError {
  override name = "TransactionReplacedError";
  constructor(
    readonly hash: Hex,
    readonly replacedBy: Hex,
    readonly nonce: number,
  ) {
    super(`transaction ${hash} (nonce ${nonce}) was replaced by ${replacedBy}`);
  }
}
