// Hardhat (ethers) helpers for contracts/test/TestEntropyV2.sol: the provider's hash chain and a deployed,
// registered provider that can reveal. The same functions for viem live in test/support/entropyProvider.ts.

import { ethers } from "hardhat";
import { setBalance } from "@nomicfoundation/hardhat-network-helpers";
import { concat, keccak256, ZeroHash, type ContractTransactionResponse, type Signer } from "ethers";
import type { TestEntropyV2 } from "../../typechain-types";

/** x_0..x_{length-1} with x_{length-1} = keccak256(seed) and x_i = keccak256(x_{i+1}); x_0 is the commitment. */
export function hashChain(seed: string, length: number): string[] {
  if (!Number.isSafeInteger(length) || length < 1) throw new RangeError(`hash chain length must be >= 1, got ${length}`);
  const chain = new Array<string>(length);
  chain[length - 1] = keccak256(seed);
  for (let i = length - 2; i >= 0; i--) chain[i] = keccak256(chain[i + 1]);
  return chain;
}

/** The revelation for `sequence` of a chain registered at `chainStartSequence`: x_{sequence - chainStartSequence}. */
export function providerRevelation(chain: string[], sequence: bigint, chainStartSequence: bigint): string {
  const index = sequence - chainStartSequence;
  if (index < 1n || index >= BigInt(chain.length)) {
    throw new RangeError(`sequence ${sequence} is outside the chain registered at ${chainStartSequence} (length ${chain.length})`);
  }
  return chain[Number(index)];
}

/** keccak256(user ‖ provider ‖ bytes32(0)): the random number Entropy v2 delivers. */
export function combineRandomValues(user: string, provider: string): string {
  return keccak256(concat([user, provider, ZeroHash]));
}

export type TestEntropyOptions = {
  /** Provider fee per request at the default gas limit (default 1000 wei). */
  feeInWei?: bigint;
  /** Protocol fee added to every request (default 0). */
  pythFeeInWei?: bigint;
  /** Provider's default callback gas limit (default 100,000, the SDK MockEntropy's value). */
  defaultGasLimit?: number;
  /** Hash chain length including the commitment (default 256). */
  chainLength?: number;
  /** Seed of the provider's chain (default: random). */
  seed?: string;
  /** Provider account (default: a fresh funded wallet, so no test signer's nonce is used). */
  provider?: Signer;
};

export type RevealOptions = {
  /** Gas limit of the reveal transaction (default: the node's estimate). */
  gasLimit?: bigint | number;
  /** Account that sends the reveal (default: the provider). Anyone may reveal. */
  from?: Signer;
};

export type TestEntropy = Awaited<ReturnType<typeof deployTestEntropy>>;

/**
 * Deploys TestEntropyV2 from `signer` (which may then set its fault hook), registers a provider with a fresh hash
 * chain, and returns a `reveal` that sends revealWithCallback with the right revelation for a sequence number.
 */
export async function deployTestEntropy(signer: Signer, options: TestEntropyOptions = {}) {
  const feeInWei = options.feeInWei ?? 1000n;
  const defaultGasLimit = options.defaultGasLimit ?? 100_000;
  const chainLength = options.chainLength ?? 256;
  const seed = options.seed ?? ethers.hexlify(ethers.randomBytes(32));
  let provider = options.provider;
  if (!provider) {
    const wallet = ethers.Wallet.createRandom().connect(ethers.provider);
    await setBalance(wallet.address, 10n ** 20n);
    provider = wallet;
  }
  const providerAddress = await provider.getAddress();

  const factory = await ethers.getContractFactory("TestEntropyV2", signer);
  const entropy = (await factory.deploy(providerAddress, options.pythFeeInWei ?? 0n)) as unknown as TestEntropyV2;
  await entropy.waitForDeployment();

  const chain = hashChain(seed, chainLength);
  await (await entropy.connect(provider).register(feeInWei, chain[0], chainLength, defaultGasLimit)).wait();
  const chainStartSequence = (await entropy.getProviderInfoV2(providerAddress)).originalCommitmentSequenceNumber;

  function revelation(sequence: bigint): string {
    return providerRevelation(chain, sequence, chainStartSequence);
  }

  async function reveal(
    sequence: bigint,
    userRandomNumber: string,
    opts: RevealOptions = {},
  ): Promise<ContractTransactionResponse> {
    const from = opts.from ?? provider!;
    const overrides = opts.gasLimit === undefined ? {} : { gasLimit: opts.gasLimit };
    return entropy.connect(from).revealWithCallback(providerAddress, sequence, userRandomNumber, revelation(sequence), overrides);
  }

  return { entropy, provider, providerAddress, chain, chainStartSequence, revelation, reveal };
}
