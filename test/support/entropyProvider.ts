// The provider side of the Pyth Entropy v2 commit/reveal protocol, as pure functions (viem), matching
// contracts/test/TestEntropyV2.sol and the real Entropy contract.

import { concat, keccak256, type Hex } from "viem";

const ZERO_32: Hex = `0x${"00".repeat(32)}`;

/**
 * A provider's hash chain x_0..x_{length-1}: x_{length-1} = keccak256(seed) and x_i = keccak256(x_{i+1}).
 * The provider commits x_0 at registration and reveals x_1, x_2, ... for later sequence numbers.
 */
export function hashChain(seed: Hex, length: number): Hex[] {
  if (!Number.isSafeInteger(length) || length < 1) throw new RangeError(`hash chain length must be >= 1, got ${length}`);
  const chain = new Array<Hex>(length);
  let value = keccak256(seed);
  chain[length - 1] = value;
  for (let i = length - 2; i >= 0; i--) {
    value = keccak256(value);
    chain[i] = value;
  }
  return chain;
}

/**
 * The value the provider reveals for `sequence`. The registration occupies `chainStartSequence` (the provider's
 * originalCommitmentSequenceNumber, 0 on a first registration) with x_0, so request `sequence` needs
 * x_{sequence - chainStartSequence}.
 */
export function providerRevelation(chain: Hex[], sequence: bigint, chainStartSequence: bigint): Hex {
  const index = sequence - chainStartSequence;
  if (index < 1n || index >= BigInt(chain.length)) {
    throw new RangeError(`sequence ${sequence} is outside the chain registered at ${chainStartSequence} (length ${chain.length})`);
  }
  return chain[Number(index)] as Hex;
}

/** The random number Entropy v2 delivers: keccak256(user ‖ provider ‖ bytes32(0)) (v2 never uses the blockhash). */
export function combineRandomValues(user: Hex, provider: Hex): Hex {
  return keccak256(concat([user, provider, ZERO_32]));
}
