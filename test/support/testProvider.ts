// The randomness provider's side for stack tests on contracts/test/TestEntropyV2.sol: registers a hash chain for
// the provider account (anvil account 2) and runs a reveal loop that answers every Requested event with
// revealWithCallback, sent with the node's gas estimate unpadded (as Pyth's keeper sends it).

import { createPublicClient, createWalletClient, http, parseAbi, toHex, type Address, type Chain, type Hex, type TransactionReceipt } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ANVIL_KEYS } from "../../api/src/config.js";
import { hashChain, providerRevelation } from "./entropyProvider.js";
import { sleep } from "./processes.js";

/** What the tests use of TestEntropyV2 (contracts/test/TestEntropyV2.sol and the SDK's IEntropyV2 events). */
export const TestEntropyV2Abi = parseAbi([
  "function register(uint128 feeInWei, bytes32 commitment, uint64 chainLength, uint32 defaultGasLimit)",
  "function revealWithCallback(address provider, uint64 sequenceNumber, bytes32 userRandomNumber, bytes32 providerRevelation)",
  "function setCallbackGasShortfall(uint32 gas)",
  "function callbackGasShortfall() view returns (uint32)",
  "error InsufficientGas()",
  "error IncorrectRevelation()",
  "error NoSuchRequest()",
  "struct ProviderInfo { uint128 feeInWei; uint128 accruedFeesInWei; bytes32 originalCommitment; uint64 originalCommitmentSequenceNumber; bytes commitmentMetadata; bytes uri; uint64 endSequenceNumber; uint64 sequenceNumber; bytes32 currentCommitment; uint64 currentCommitmentSequenceNumber; address feeManager; uint32 maxNumHashes; uint32 defaultGasLimit; }",
  "function getProviderInfoV2(address provider) view returns (ProviderInfo info)",
  "event Requested(address indexed provider, address indexed caller, uint64 indexed sequenceNumber, bytes32 userContribution, uint32 gasLimit, bytes extraArgs)",
  "event Revealed(address indexed provider, address indexed caller, uint64 indexed sequenceNumber, bytes32 randomNumber, bytes32 userContribution, bytes32 providerContribution, bool callbackFailed, bytes callbackReturnValue, uint32 callbackGasUsed, bytes extraArgs)",
]);

export function localChain(rpcUrl: string, chainId: number): Chain {
  return { id: chainId, name: `chain-${chainId}`, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } };
}

export type RegisteredProvider = {
  address: Address;
  /** x_0..x_{length-1}; x_0 is the registered commitment. */
  chain: Hex[];
  /** originalCommitmentSequenceNumber of the registration (request `s` needs x_{s - chainStart}). */
  chainStart: bigint;
  revelation: (sequence: bigint) => Hex;
};

/**
 * Registers anvil account 2 (the deployment's default provider) on TestEntropyV2 with a fresh hash chain.
 * `defaultGasLimit` is the provider's default callback gas limit (Pyth's is 500,000 on Base).
 */
export async function registerTestProvider(
  rpcUrl: string,
  entropy: Address,
  options: { seed?: Hex; chainLength?: number; feeInWei?: bigint; defaultGasLimit?: number } = {},
): Promise<RegisteredProvider> {
  const account = privateKeyToAccount(ANVIL_KEYS.provider);
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ transport });
  const chain = localChain(rpcUrl, await publicClient.getChainId());
  const wallet = createWalletClient({ account, chain, transport });
  const length = options.chainLength ?? 64;
  const values = hashChain(options.seed ?? toHex(`provider seed ${Date.now()} ${Math.random()}`), length);
  const hash = await wallet.writeContract({
    address: entropy,
    abi: TestEntropyV2Abi,
    functionName: "register",
    args: [options.feeInWei ?? 10_000_000_000n, values[0]!, BigInt(length), options.defaultGasLimit ?? 500_000],
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`provider registration ${hash} reverted`);
  const info = await publicClient.readContract({ address: entropy, abi: TestEntropyV2Abi, functionName: "getProviderInfoV2", args: [account.address] });
  if (info.originalCommitment !== values[0]) throw new Error(`registered commitment ${info.originalCommitment}, expected ${values[0]}`);
  const chainStart = info.originalCommitmentSequenceNumber;
  return { address: account.address, chain: values, chainStart, revelation: (sequence) => providerRevelation(values, sequence, chainStart) };
}

/** One reveal the loop sent. */
export type ProviderReveal = {
  sequence: bigint;
  requester: Address;
  userContribution: Hex;
  providerRevelation: Hex;
  /** eth_estimateGas of the reveal, as the node answered it; the transaction's gas limit is exactly this. */
  estimate: bigint;
  hash: Hex;
  receipt: TransactionReceipt;
};

export type TestProvider = {
  /** Reveals sent so far, by sequence number (one per request: the loop never reveals a sequence twice). */
  reveals: Map<bigint, ProviderReveal>;
  /** Errors of the loop (estimate or send failures), in order; a failed attempt is tried again next round. */
  errors: string[];
  /** Resolves with the reveal of `sequence` once the loop has sent it and has its receipt. */
  waitForReveal: (sequence: bigint, timeoutMs?: number) => Promise<ProviderReveal>;
  /** An outage: while offline the loop reveals nothing (it still reads requests). */
  setOnline: (online: boolean) => void;
  /** Never reveals `sequence` until `release(sequence)`: a request the provider lost. */
  withhold: (sequence: bigint) => void;
  release: (sequence: bigint) => void;
  stop: () => Promise<void>;
};

/**
 * Plays the provider: every `intervalMs` reads TestEntropyV2's Requested events for the provider since the last
 * round and, for each sequence not revealed yet, sends revealWithCallback with gas = the node's estimate (no
 * padding). A request whose callback then failed is left to the service's keeper (Entropy's retry path).
 */
export function startTestProvider(options: { rpcUrl: string; entropy: Address; provider: RegisteredProvider; fromBlock: bigint; intervalMs?: number }): TestProvider {
  const { rpcUrl, entropy, provider } = options;
  const account = privateKeyToAccount(ANVIL_KEYS.provider);
  if (account.address.toLowerCase() !== provider.address.toLowerCase()) throw new Error("the provider account is anvil account 2");
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ transport });
  const reveals = new Map<bigint, ProviderReveal>();
  const errors: string[] = [];
  const pending = new Map<bigint, { requester: Address; userContribution: Hex }>();
  let scannedTo = options.fromBlock - 1n;
  let stopped = false;
  let online = true;
  const withheld = new Set<bigint>();

  const round = async () => {
    const head = await publicClient.getBlockNumber();
    if (head > scannedTo) {
      const logs = await publicClient.getContractEvents({
        address: entropy,
        abi: TestEntropyV2Abi,
        eventName: "Requested",
        args: { provider: provider.address },
        fromBlock: scannedTo + 1n,
        toBlock: head,
      });
      for (const log of logs) {
        const sequence = log.args.sequenceNumber!;
        if (!reveals.has(sequence)) pending.set(sequence, { requester: log.args.caller!, userContribution: log.args.userContribution! });
      }
      scannedTo = head;
    }
    for (const [sequence, request] of [...pending]) {
      if (stopped || !online) return;
      if (withheld.has(sequence)) continue;
      try {
        const chain = localChain(rpcUrl, await publicClient.getChainId());
        const wallet = createWalletClient({ account, chain, transport });
        const revelation = provider.revelation(sequence);
        const call = {
          address: entropy,
          abi: TestEntropyV2Abi,
          functionName: "revealWithCallback",
          args: [provider.address, sequence, request.userContribution, revelation],
          account,
        } as const;
        const estimate = await publicClient.estimateContractGas(call);
        const hash = await wallet.writeContract({ ...call, gas: estimate });
        const receipt = await publicClient.waitForTransactionReceipt({ hash });
        pending.delete(sequence);
        reveals.set(sequence, { sequence, requester: request.requester, userContribution: request.userContribution, providerRevelation: revelation, estimate, hash, receipt });
      } catch (error) {
        errors.push(`sequence ${sequence}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
      }
    }
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        await round();
      } catch (error) {
        errors.push(`round: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
      }
      await sleep(options.intervalMs ?? 250);
    }
  })();

  return {
    reveals,
    errors,
    waitForReveal: async (sequence, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const reveal = reveals.get(sequence);
        if (reveal) return reveal;
        if (Date.now() > deadline) throw new Error(`the test provider did not reveal sequence ${sequence} within ${timeoutMs} ms; errors: ${errors.join("; ") || "none"}`);
        await sleep(100);
      }
    },
    setOnline: (value) => {
      online = value;
    },
    withhold: (sequence) => {
      withheld.add(sequence);
    },
    release: (sequence) => {
      withheld.delete(sequence);
    },
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
