import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  http,
  parseEventLogs,
  type Account,
  type Chain,
  type ContractFunctionArgs,
  type ContractFunctionName,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
  type Transport,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { MockEntropyAbi, PrizeDrawAbi } from "./abis.js";
import type { DeploymentRecord } from "./deployment.js";

/** settle(): fixed part and per-position upper bound (a held prize's storage write included). */
const SETTLE_BASE_GAS = 100_000n;
const SETTLE_GAS_PER_POSITION = 30_000n;
const MAX_TX_GAS = 15_000_000n;
/** MockEntropy's own work around the callback. */
const REVEAL_OVERHEAD_GAS = 200_000n;

type WriteName = ContractFunctionName<typeof PrizeDrawAbi, "nonpayable" | "payable">;
type WriteArgs<N extends WriteName> = ContractFunctionArgs<typeof PrizeDrawAbi, "nonpayable" | "payable", N>;

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

/** A PrizeDraw `Commit` (see the contract): what commitAndRequest locks onchain. */
export type CommitInput = {
  campaignId: Hex;
  number: bigint;
  kind: 0 | 1;
  listCommitment: Hex;
  winnersExpected: number;
  entrantCount: number;
  totalWeight: bigint;
  tableId: Hex;
  tableVersion: number;
};

export type ChainPortOptions = {
  rpcUrl: string;
  deployment: DeploymentRecord;
  operatorKey: Hex;
  /** How long to wait for a sent transaction's receipt before giving up on it (default 180 s). */
  receiptTimeoutMs?: number;
};

export const DEFAULT_RECEIPT_TIMEOUT_MS = 180_000;

/**
 * The service's port to the chain: sends the operator's transactions one at a time, waits for receipts, and
 * turns reverts into ChainRevertError with the contract's custom error name.
 *
 * Nonces: each send takes the operator's pending transaction count from the node. Sends are serialized and each
 * waits for its receipt, so that count is the next nonce; and a transaction the node dropped (its receipt never
 * comes: ChainUnavailableError after receiptTimeoutMs) frees its nonce for the keeper's retry. A local nonce
 * counter (viem's nonceManager) would skip past it instead and every later transaction would wait behind the
 * gap until a restart.
 */
export class ChainPort {
  readonly publicClient: PublicClient;
  readonly deployment: DeploymentRecord;
  private readonly wallet: WalletClient<Transport, Chain, Account>;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly receiptTimeoutMs: number;

  constructor({ rpcUrl, deployment, operatorKey, receiptTimeoutMs = DEFAULT_RECEIPT_TIMEOUT_MS }: ChainPortOptions) {
    this.receiptTimeoutMs = receiptTimeoutMs;
    const chain: Chain = {
      id: deployment.chainId,
      name: `chain-${deployment.chainId}`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    };
    const transport = http(rpcUrl, { retryCount: 2, timeout: 10_000 });
    this.deployment = deployment;
    this.publicClient = createPublicClient({ chain, transport, pollingInterval: 250 }) as PublicClient;
    this.wallet = createWalletClient({ account: privateKeyToAccount(operatorKey), chain, transport });
  }

  get operatorAddress(): Hex {
    return this.wallet.account.address;
  }

  /**
   * Simulates (to surface a named revert without spending gas), sends, and waits for the receipt.
   * `gas` must be given for calls that stop early instead of reverting when gas is short (settle, the
   * reveal's callback): an estimate would find a limit that succeeds having done nothing.
   */
  send<N extends WriteName>(functionName: N, args: WriteArgs<N>, options: { value?: bigint; gas?: bigint } = {}): Promise<TransactionReceipt> {
    const { value, gas } = options;
    const run = async (): Promise<TransactionReceipt> => {
      try {
        const { request } = await this.publicClient.simulateContract({
          address: this.deployment.prizeDraw,
          abi: PrizeDrawAbi,
          functionName,
          args,
          account: this.wallet.account,
          ...(value === undefined ? {} : { value }),
        } as Parameters<PublicClient["simulateContract"]>[0]);
        const hash = await this.wallet.writeContract({ ...(request as Parameters<typeof this.wallet.writeContract>[0]), ...(gas === undefined ? {} : { gas }) });
        const receipt = await this.publicClient.waitForTransactionReceipt({ hash, timeout: this.receiptTimeoutMs });
        if (receipt.status !== "success") throw new ChainRevertError(functionName, "TransactionReverted", [hash]);
        return receipt;
      } catch (error) {
        throw toChainError(functionName, error);
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  publishPrizeTable(tableId: Hex, version: number, amountsCents: readonly bigint[], weights: readonly bigint[]) {
    return this.send("publishPrizeTable", [tableId, version, amountsCents, weights]);
  }

  registerCampaign(campaignId: Hex, payoutWallet: Hex, largePrizeThresholdCents: bigint) {
    return this.send("registerCampaign", [campaignId, payoutWallet, largePrizeThresholdCents]);
  }

  setPayoutWallet(campaignId: Hex, wallet: Hex) {
    return this.send("setPayoutWallet", [campaignId, wallet]);
  }

  setLargePrizeThreshold(campaignId: Hex, cents: bigint) {
    return this.send("setLargePrizeThreshold", [campaignId, cents]);
  }

  /** Locks a list and requests its random value; the fee is quoted from the provider first. */
  async commitAndRequest(commit: CommitInput) {
    const fee = await this.entropyFee();
    return this.send("commitAndRequest", [commit], { value: fee });
  }

  /** Settles up to `maxPositions` more prizes (about 5,000 gas each; see README's gas figures). */
  settle(campaignId: Hex, number: bigint, maxPositions: bigint) {
    const gas = SETTLE_BASE_GAS + maxPositions * SETTLE_GAS_PER_POSITION;
    return this.send("settle", [campaignId, number, maxPositions], { gas: gas < MAX_TX_GAS ? gas : MAX_TX_GAS });
  }

  recordWinners(campaignId: Hex, number: bigint, winnersCommitment: Hex) {
    return this.send("recordWinners", [campaignId, number, winnersCommitment]);
  }

  payout(campaignId: Hex, number: bigint) {
    return this.send("payout", [campaignId, number]);
  }

  payHeldPrize(campaignId: Hex, number: bigint, position: bigint) {
    return this.send("payHeldPrize", [campaignId, number, position]);
  }

  payGuarantee(campaignId: Hex, guaranteeId: Hex, winnerHash: Hex, amountCents: bigint) {
    return this.send("payGuarantee", [campaignId, guaranteeId, winnerHash, amountCents]);
  }

  /**
   * Test environment: reveals a MockEntropy request with `randomValue` (the service draws it with a
   * cryptographically secure generator). Sent through the same queue as the operator's other transactions.
   */
  revealMock(sequence: bigint, randomValue: Hex): Promise<TransactionReceipt> {
    if (!this.deployment.mockEntropy) throw new ChainRevertError("mockReveal", "NotMockEntropy", []);
    const run = async (): Promise<TransactionReceipt> => {
      try {
        const callbackGas = await this.publicClient.readContract({ address: this.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "callbackGasLimit" });
        const hash = await this.wallet.writeContract({
          address: this.deployment.entropy,
          abi: MockEntropyAbi,
          functionName: "mockReveal",
          args: [this.deployment.entropyProvider, sequence, randomValue],
          // MockEntropy forwards all gas to the callback, which budgets itself by callbackGasLimit.
          gas: BigInt(callbackGas) + REVEAL_OVERHEAD_GAS,
        });
        return await this.publicClient.waitForTransactionReceipt({ hash, timeout: this.receiptTimeoutMs });
      } catch (error) {
        throw toChainError("mockReveal", error);
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  async entropyFee(): Promise<bigint> {
    const limit = await this.publicClient.readContract({ address: this.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "callbackGasLimit" });
    return this.publicClient.readContract({
      address: this.deployment.entropy,
      abi: MockEntropyAbi,
      functionName: "getFeeV2",
      args: [this.deployment.entropyProvider, limit],
    });
  }

  getDrawing(campaignId: Hex, number: bigint) {
    return this.publicClient.readContract({ address: this.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "getDrawing", args: [campaignId, number] });
  }

  getCampaign(campaignId: Hex) {
    return this.publicClient.readContract({ address: this.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "getCampaign", args: [campaignId] });
  }

  /** Whether guarantee `guaranteeId` (bytes32) of a campaign was paid: the keeper reads it before paying. */
  isGuaranteePaid(campaignId: Hex, guaranteeId: Hex) {
    return this.publicClient.readContract({ address: this.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "isGuaranteePaid", args: [campaignId, guaranteeId] });
  }

  /** PrizeDraw events of a receipt, decoded (reads the keeper needs before the indexer catches up). */
  events(receipt: TransactionReceipt) {
    return parseEventLogs({ abi: PrizeDrawAbi, logs: receipt.logs.filter((l) => l.address.toLowerCase() === this.deployment.prizeDraw.toLowerCase()) });
  }

  async blockNumber(): Promise<bigint> {
    try {
      return await this.publicClient.getBlockNumber({ cacheTime: 0 });
    } catch (error) {
      throw toChainError("eth_blockNumber", error);
    }
  }
}

function toChainError(functionName: string, error: unknown): Error {
  if (error instanceof ChainRevertError || error instanceof ChainUnavailableError) return error;
  if (error instanceof BaseError) {
    const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError) {
      return new ChainRevertError(functionName, revert.data?.errorName ?? revert.reason ?? "UnknownRevert", revert.data?.args ?? []);
    }
    return new ChainUnavailableError(`${functionName}: ${error.shortMessage}`);
  }
  return new ChainUnavailableError(`${functionName}: ${error instanceof Error ? error.message : String(error)}`);
}
