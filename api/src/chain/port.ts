import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  NonceTooLowError,
  parseAbi,
  parseEventLogs,
  type Abi,
  type Account,
  type Address,
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
import { MockEntropyAbi, PrizeDrawAbi, PrizeVaultAbi } from "./abis.js";
import type { DeploymentRecord } from "./deployment.js";
import type { ChainFinality } from "../config.js";
import { chainFeesWei, chainTransactions, chainTransactionsInFlight } from "../metrics/registry.js";

/** MockEntropy's own work around the callback. */
const REVEAL_OVERHEAD_GAS = 200_000n;

/** `abi` with the errors of `other` it does not declare itself, so a refusal passed on from `other` keeps its name. */
function withErrorsOf<A extends Abi, B extends Abi>(abi: A, other: B) {
  return [...abi, ...other.filter((item) => item.type === "error" && !abi.some((own) => own.type === "error" && own.name === item.name))];
}

/**
 * The engine's ABI with the errors of the vault it calls, so that a refusal there (ObligationNotBacked,
 * PaymentsArePaused, LimitExceeded) is named like the engine's own.
 */
const ENGINE_CALL_ABI = withErrorsOf(PrizeDrawAbi, PrizeVaultAbi);

/**
 * The vault's ABI with the engine's errors, which its held-prize and guarantee calls pass on when the engine
 * refuses the facts they ask for (NotHeldPrize, NotSettled, CampaignNotRegistered).
 */
const VAULT_CALL_ABI = withErrorsOf(PrizeVaultAbi, PrizeDrawAbi);

type WriteName = ContractFunctionName<typeof PrizeDrawAbi, "nonpayable" | "payable">;
type WriteArgs<N extends WriteName> = ContractFunctionArgs<typeof PrizeDrawAbi, "nonpayable" | "payable", N>;
type VaultWriteName = ContractFunctionName<typeof PrizeVaultAbi, "nonpayable">;
type VaultWriteArgs<N extends VaultWriteName> = ContractFunctionArgs<typeof PrizeVaultAbi, "nonpayable", N>;

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

/**
 * Pyth Entropy v2's retry path: anyone may deliver a revealed value again when the consumer's callback failed
 * (Entropy records it as failed and keeps the request). The same call Pyth's own keeper makes.
 */
export const EntropyRetryAbi = parseAbi([
  "function revealWithCallback(address provider, uint64 sequenceNumber, bytes32 userRandomNumber, bytes32 providerRevelation)",
  "event Revealed(address indexed provider, address indexed caller, uint64 indexed sequenceNumber, bytes32 randomNumber, bytes32 userContribution, bytes32 providerContribution, bool callbackFailed, bytes callbackReturnValue, uint32 callbackGasUsed, bytes extraArgs)",
]);

/** A PrizeDraw `Commit` (see the contract) without its fee cap: what commitAndRequest locks onchain. */
export type CommitInput = {
  campaignId: Hex;
  number: bigint;
  /** keccak256 of the drawing's id (draw library `drawingSlot`). */
  slot: Hex;
  /** The drawing's draw time, unix seconds. */
  drawAt: number;
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
  /** The most a commit pays the randomness provider, in wei; a higher quote is refused onchain. */
  maxEntropyFeeWei?: bigint;
};

/** 0.001 ether: far above Pyth's fees on Base (a few millionths of an ether), far below a loss worth a theft. */
export const DEFAULT_MAX_ENTROPY_FEE_WEI = 10n ** 15n;

export const DEFAULT_RECEIPT_TIMEOUT_MS = 180_000;

/** A drawing as PrizeDraw's batch calls name it. */
export type DrawingRef = { campaignId: Hex; number: bigint };

/** PrizeDraw.Status: where a drawing stands onchain (getDrawing's `status`). */
export const OnchainDrawingStatus = { None: 0, Requested: 1, Revealed: 2, Settled: 3, Paid: 4 } as const;
/** PrizeVault.GuaranteeStatus: a guarantee period's payment onchain. */
export const OnchainGuaranteeStatus = { None: 0, Picked: 1, Paid: 2 } as const;
/** PrizeVault.HeldState: a held prize onchain. */
export const OnchainHeldState = { Open: 0, Paid: 1, Refused: 2 } as const;

/** A campaign's registry entry (PrizeDraw.getCampaign). */
export type OnchainCampaign = { registered: boolean; payoutWallet: Address; lastNumber: bigint; largePrizeThresholdCents: bigint };
/** The randomness request now serving a drawing (PrizeDraw.requestOf). */
export type OnchainRequest = { provider: Address; sequence: bigint; reRequested: boolean };
/** The prize pool in whole cents (PrizeVault.balances): token balance, owed to winners, free to withdraw. */
export type PoolBalances = { balanceCents: bigint; owedCents: bigint; freeCents: bigint };
/** A guarantee period's payment (PrizeVault.getGuarantee); `status` is an OnchainGuaranteeStatus. */
export type OnchainGuarantee = { status: number; wallet: Address; amountCents: bigint };

/**
 * The service's port to the chain: sends the operator's transactions, several in flight at once, waits for
 * receipts, and turns reverts into ChainRevertError with the contract's custom error name.
 *
 * Nonces: the port numbers its transactions itself, so a second send does not wait for the first's receipt
 * (on a chain with 2-second blocks, waiting allowed one operator transaction per block). The counter starts
 * from, and after any failed send returns to, the node's pending count. A transaction the node dropped (its
 * receipt never comes: ChainUnavailableError after receiptTimeoutMs) would leave a gap that every later
 * transaction waits behind; the port fills the gap with an empty transfer to itself at that nonce, and the
 * keeper's retry (which reads the chain first) sends the step again.
 *
 * A reorg can take back transactions the port saw mined (anvil does not put them back in its pool; a node that
 * does may mine them again or not): the account's count goes back below the counter, and a send numbered from it
 * would wait in the node's queue behind the gap. So each send first checks that the chain still has every
 * transaction of the port's that it saw mined, and counts again from the node when it does not.
 */
export class ChainPort {
  readonly publicClient: PublicClient;
  readonly deployment: DeploymentRecord;
  private readonly wallet: WalletClient<Transport, Chain, Account>;
  private readonly chain: Chain;
  private readonly transport: Transport;
  /** Serializes nonce assignment and broadcast (not the wait for receipts). */
  private sending: Promise<unknown> = Promise.resolve();
  /** The next nonce to use; null: ask the node for its pending count. */
  private nextNonce: number | null = null;
  /**
   * One past the highest nonce of this port's transactions seen mined (a receipt came): while the counter is in
   * use, the account's mined count below it means a reorg took back a transaction of ours.
   */
  private minedCount = 0;
  private readonly receiptTimeoutMs: number;
  readonly maxEntropyFeeWei: bigint;
  /** The vault's token units per cent (an immutable), once read. */
  private unitsPerCent: Promise<bigint> | null = null;

  constructor({ rpcUrl, deployment, operatorKey, receiptTimeoutMs = DEFAULT_RECEIPT_TIMEOUT_MS, maxEntropyFeeWei = DEFAULT_MAX_ENTROPY_FEE_WEI }: ChainPortOptions) {
    this.receiptTimeoutMs = receiptTimeoutMs;
    this.maxEntropyFeeWei = maxEntropyFeeWei;
    const chain: Chain = {
      id: deployment.chainId,
      name: `chain-${deployment.chainId}`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    };
    const transport = http(rpcUrl, { retryCount: 2, timeout: 10_000 });
    this.deployment = deployment;
    this.chain = chain;
    this.transport = transport;
    this.publicClient = createPublicClient({ chain, transport, pollingInterval: 250 }) as PublicClient;
    this.wallet = createWalletClient({ account: privateKeyToAccount(operatorKey), chain, transport });
  }

  get operatorAddress(): Hex {
    return this.wallet.account.address;
  }

  /**
   * Simulates (to surface a named revert without spending gas), sends, and waits for the receipt. The gas is
   * the node's estimate unless `gas` is given: PrizeDraw's settle and callback fail rather than stop early when
   * gas is short, so an estimate covers all the work asked for. The simulation runs against the chain's latest
   * state, so a send that depends on another's effects waits for that one's receipt first.
   */
  send<N extends WriteName>(functionName: N, args: WriteArgs<N>, options: { value?: bigint; gas?: bigint } = {}): Promise<TransactionReceipt> {
    return this.simulateAndSend(functionName, this.operatorCall(functionName, args, options.value), options.gas);
  }

  /**
   * A PrizeVault call of the operator's (held-prize decisions, guarantee picks) or anyone's (a guarantee's
   * payment), sent as `send` sends the engine's.
   */
  sendToVault<N extends VaultWriteName>(functionName: N, args: VaultWriteArgs<N>): Promise<TransactionReceipt> {
    return this.simulateAndSend(functionName, { address: this.vaultAddress(), abi: VAULT_CALL_ABI, functionName, args, account: this.wallet.account });
  }

  /** Simulates `call` (a refusal surfaces named, nothing spent), then sends it with the next nonce (`submit`). */
  private simulateAndSend(functionName: string, call: object, gas?: bigint): Promise<TransactionReceipt> {
    return this.submit(functionName, async () => {
      const { request } = await this.publicClient.simulateContract(call as Parameters<PublicClient["simulateContract"]>[0]);
      return (nonce: number) => this.wallet.writeContract({ ...(request as Parameters<typeof this.wallet.writeContract>[0]), nonce, ...(gas === undefined ? {} : { gas }) });
    });
  }

  /** The vault's address: every deployment of the contract version this code speaks records it. */
  vaultAddress(): Address {
    const vault = this.deployment.vault;
    if (vault === undefined) throw new ChainRevertError("vault", "NoVaultInDeployment", []);
    return vault;
  }

  /** A PrizeDraw call as the operator would send it (simulated or estimated). */
  private operatorCall<N extends WriteName>(functionName: N, args: WriteArgs<N>, value: bigint | undefined) {
    return { address: this.deployment.prizeDraw, abi: ENGINE_CALL_ABI, functionName, args, account: this.wallet.account, ...(value === undefined ? {} : { value }) };
  }

  /** Estimated gas of a PrizeDraw call as the operator (a revert surfaces as ChainRevertError). */
  async estimate<N extends WriteName>(functionName: N, args: WriteArgs<N>, value?: bigint): Promise<bigint> {
    try {
      return await this.publicClient.estimateContractGas(this.operatorCall(functionName, args, value) as Parameters<PublicClient["estimateContractGas"]>[0]);
    } catch (error) {
      throw toChainError(functionName, error);
    }
  }

  /**
   * One operator transaction: `prepare` checks it (a simulation) and returns how to send it with a nonce; the
   * send takes the next nonce in turn, and the wait for its receipt runs alongside later sends. The operator key
   * may also sign in another process (the CLI's held-prize decisions while the service runs): both can take the
   * same nonce, and the node refuses the later one ("nonce too low", "already known", "replacement transaction
   * underpriced"). Such a send is tried again with the node's pending count.
   */
  private async submit(functionName: string, prepare: () => Promise<(nonce: number) => Promise<Hex>>): Promise<TransactionReceipt> {
    let sent = false;
    try {
      const write = await prepare();
      const { hash, nonce } = await this.broadcast(write);
      sent = true;
      chainTransactionsInFlight.inc();
      const receipt = await this.receipt(hash, nonce).finally(() => chainTransactionsInFlight.dec());
      chainFeesWei.inc(Number(receipt.gasUsed * receipt.effectiveGasPrice));
      const outcome = receipt.status === "success" ? "mined" : "reverted";
      chainTransactions.inc({ function: functionName, outcome });
      if (outcome === "reverted") throw new ChainRevertError(functionName, "TransactionReverted", [hash]);
      return receipt;
    } catch (error) {
      // A refusal found by the simulation sent nothing; a send that failed or never got its receipt did, or may have.
      if (sent && !(error instanceof ChainRevertError)) chainTransactions.inc({ function: functionName, outcome: "failed" });
      throw toChainError(functionName, error);
    }
  }

  /**
   * Waits for a sent transaction's receipt. Past the timeout, one the node still holds (queued behind a lower
   * nonce, say) is waited for once more; one the node no longer has was dropped or replaced: its nonce gap is
   * filled and the wait gives up.
   */
  private async receipt(hash: Hex, nonce: number): Promise<TransactionReceipt> {
    try {
      return await this.waitMined(hash, nonce);
    } catch (error) {
      if (error instanceof TransactionReplacedError) throw error;
      const held = await this.publicClient.getTransaction({ hash }).catch(() => null);
      if (held === null) {
        await this.fillGap(nonce).catch(() => undefined);
        throw error;
      }
      try {
        return await this.waitMined(hash, nonce);
      } catch (again) {
        if (again instanceof TransactionReplacedError) throw again;
        // Still held after two timeouts: queued behind lower nonces the node lost (several, when a reorg dropped
        // several transactions). Each is filled, so this one and those queued behind it can be mined.
        const mined = await this.minedNonceCount().catch(() => nonce);
        await this.fill(Array.from({ length: Math.max(0, nonce - mined) }, (_, i) => mined + i)).catch(() => undefined);
        throw again;
      }
    }
  }

  /**
   * One wait for a transaction's receipt. Another transaction mined at its nonce (a gap filler, or a send after
   * the counter was read again from the node) means this one never ran: viem would answer the other's receipt,
   * which must not pass for this call's.
   */
  private async waitMined(hash: Hex, nonce: number): Promise<TransactionReceipt> {
    const replaced: { by?: Hex } = {};
    const receipt = await this.publicClient.waitForTransactionReceipt({ hash, timeout: this.receiptTimeoutMs, onReplaced: (r) => (replaced.by = r.transaction.hash) });
    if (replaced.by !== undefined) throw new TransactionReplacedError(hash, replaced.by, nonce);
    this.minedCount = Math.max(this.minedCount, nonce + 1);
    return receipt;
  }

  /** Sends with the next nonce, one broadcast at a time. */
  private broadcast(write: (nonce: number) => Promise<Hex>): Promise<{ hash: Hex; nonce: number }> {
    return this.serially(async () => {
      for (let attempt = 1; ; attempt++) {
        const nonce = await this.nonceForSend();
        try {
          const hash = await write(nonce);
          this.nextNonce = nonce + 1;
          return { hash, nonce };
        } catch (error) {
          // Nothing was sent, or the nonce was taken: count again from the node.
          this.nextNonce = null;
          if (attempt >= NONCE_CONFLICT_ATTEMPTS || !isNonceConflict(error)) throw error;
          await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
        }
      }
    });
  }

  /** Runs `work` after every broadcast (or gap fill) queued before it: nonces are taken one at a time. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const result = this.sending.then(work, work);
    this.sending = result.catch(() => undefined);
    return result;
  }

  /**
   * The counter, while the chain still has every transaction this port saw mined (a count ahead of it, from
   * another process with the key, is taken over); else, as when it is unset, the node's pending count. One read
   * of the account's mined count per send: without it, a reorg that dropped mined transactions of ours leaves
   * every later send queued behind the gap until a receipt timeout.
   */
  private async nonceForSend(): Promise<number> {
    if (this.nextNonce !== null) {
      const seen = this.minedCount;
      const mined = await this.minedNonceCount();
      if (mined >= seen) return Math.max(this.nextNonce, mined);
      this.minedCount = mined;
      this.nextNonce = null;
    }
    return this.pendingNonce();
  }

  private pendingNonce(): Promise<number> {
    return this.publicClient.getTransactionCount({ address: this.wallet.account.address, blockTag: "pending" });
  }

  /** The account's transactions in the latest block's state: every nonce below it is mined. */
  private minedNonceCount(): Promise<number> {
    return this.publicClient.getTransactionCount({ address: this.wallet.account.address, blockTag: "latest" });
  }

  /**
   * A transaction whose receipt never came and that the node no longer has: if its nonce is still unused and
   * this port sent transactions after it, an empty transfer to the operator itself takes the nonce, so those are
   * not stuck behind the gap (a node that keeps them queued mines them then; anvil drops them with it, and their
   * own waits end the same way). The counter starts again from the node's pending count.
   */
  private async fillGap(nonce: number): Promise<void> {
    const sentAfter = this.nextNonce !== null && this.nextNonce > nonce + 1;
    this.nextNonce = null;
    const mined = await this.minedNonceCount();
    if (mined > nonce || !sentAfter) return;
    await this.fill([nonce]);
  }

  /**
   * An empty transfer to the operator itself at each of `nonces`, in order, between other broadcasts; a nonce
   * taken meanwhile (mined, or sent by another process with the key) is skipped. The counter then starts again
   * from the node's pending count.
   */
  private fill(nonces: readonly number[]): Promise<void> {
    const address = this.wallet.account.address;
    return this.serially(async () => {
      try {
        for (const nonce of nonces) {
          await this.wallet.sendTransaction({ to: address, value: 0n, nonce }).catch((error: unknown) => {
            if (!isNonceConflict(error)) throw error;
          });
        }
      } finally {
        this.nextNonce = null;
      }
    });
  }

  publishPrizeTable(tableId: Hex, version: number, amountsCents: readonly bigint[], weights: readonly bigint[]) {
    return this.send("publishPrizeTable", [tableId, version, amountsCents, weights]);
  }

  /** Registers a campaign with its guarantee terms (zero cents: none; the period in seconds). */
  registerCampaign(campaignId: Hex, payoutWallet: Hex, largePrizeThresholdCents: bigint, guarantee: { cents: bigint; periodSeconds: bigint }) {
    return this.send("registerCampaign", [campaignId, payoutWallet, largePrizeThresholdCents, guarantee.cents, guarantee.periodSeconds]);
  }

  setPayoutWallet(campaignId: Hex, wallet: Hex) {
    return this.send("setPayoutWallet", [campaignId, wallet]);
  }

  setLargePrizeThreshold(campaignId: Hex, cents: bigint) {
    return this.send("setLargePrizeThreshold", [campaignId, cents]);
  }

  /**
   * Locks a batch of lists (any campaigns; one campaign's numbers in order) and requests one random value for
   * them all. The request's fee follows the batch's callback gas, which the contract works out; the configured
   * cap is sent and what the fee leaves is refunded in the same transaction, and a quote above the cap is refused
   * onchain (FeeAboveCap).
   */
  commitAndRequest(commits: readonly CommitInput[]) {
    return this.send("commitAndRequest", [commits, this.maxEntropyFeeWei], { value: this.maxEntropyFeeWei });
  }

  /**
   * Re-requests, once, the random value of a drawing whose request the provider has not revealed within the
   * contract's `revealTimeoutBlocks` (PrizeDraw.reRequest, which re-requests the drawing's whole batch). Refused
   * onchain before the timeout (RevealNotTimedOut), after a re-request (AlreadyReRequested) and for a failed
   * callback (CallbackFailedRetryIt: retried with its value instead). The fee cap is sent; the rest is refunded.
   */
  reRequest(campaignId: Hex, number: bigint) {
    return this.send("reRequest", [campaignId, number, this.maxEntropyFeeWei], { value: this.maxEntropyFeeWei });
  }

  /** The request now serving a drawing. */
  async requestOf(campaignId: Hex, number: bigint): Promise<OnchainRequest> {
    const [provider, sequence, reRequested] = await this.publicClient.readContract({ address: this.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "requestOf", args: [campaignId, number] });
    return { provider, sequence, reRequested };
  }

  /** Gas of committing `commits` in one transaction (for sizing batches to the block). */
  estimateCommit(commits: readonly CommitInput[]) {
    return this.estimate("commitAndRequest", [commits, this.maxEntropyFeeWei], this.maxEntropyFeeWei);
  }

  /** PrizeDraw's callback gas rules: what a batch's callback needs besides its positions. */
  async callbackBudget(): Promise<{ limit: bigint; base: bigint; perDrawing: bigint; perPosition: bigint; maxBatch: bigint }> {
    const read = (functionName: "callbackGasLimit" | "CALLBACK_BASE_GAS" | "DRAWING_CALLBACK_GAS" | "POSITION_GAS" | "MAX_BATCH") =>
      this.publicClient.readContract({ address: this.deployment.prizeDraw, abi: PrizeDrawAbi, functionName }).then(BigInt);
    const [limit, base, perDrawing, perPosition, maxBatch] = await Promise.all([
      read("callbackGasLimit"), read("CALLBACK_BASE_GAS"), read("DRAWING_CALLBACK_GAS"), read("POSITION_GAS"), read("MAX_BATCH"),
    ]);
    return { limit, base, perDrawing, perPosition, maxBatch };
  }

  /** Settles up to `maxPositions` more prizes (at most 8,000 gas each; README's gas figures). settle never
   * stops early, so the node's gas estimate covers every position asked for. */
  settle(campaignId: Hex, number: bigint, maxPositions: bigint) {
    return this.send("settle", [campaignId, number, maxPositions]);
  }

  recordWinners(campaignId: Hex, number: bigint, winnersCommitment: Hex) {
    return this.send("recordWinners", [campaignId, number, winnersCommitment]);
  }

  payout(campaignId: Hex, number: bigint) {
    return this.send("payout", [campaignId, number]);
  }

  /** Pays several settled drawings in one transaction; one that cannot be paid refuses the whole call. */
  payoutMany(drawings: readonly DrawingRef[]) {
    return this.send("payoutMany", [drawings]);
  }

  estimatePayout(drawings: readonly DrawingRef[]) {
    return this.estimate("payoutMany", [drawings]);
  }

  /** The block gas limit of the latest block. */
  /** The number of the block the node calls `tag` (finalized or safe): steps at or below it are final. */
  async finalizedBlock(tag: ChainFinality): Promise<bigint> {
    try {
      return (await this.publicClient.getBlock({ blockTag: tag })).number;
    } catch (error) {
      throw toChainError(`eth_getBlockByNumber(${tag})`, error);
    }
  }

  async blockGasLimit(): Promise<bigint> {
    return (await this.publicClient.getBlock({ blockTag: "latest" })).gasLimit;
  }

  payHeldPrize(campaignId: Hex, number: bigint, position: bigint) {
    return this.sendToVault("payHeldPrize", [campaignId, number, position]);
  }

  refuseHeldPrize(campaignId: Hex, number: bigint, position: bigint, reason: string) {
    return this.sendToVault("refuseHeldPrize", [campaignId, number, position, reason]);
  }

  /** Records a finished period's guarantee as owed (exactly the registered amount, once per period). */
  pickGuarantee(campaignId: Hex, period: number, winnerHash: Hex) {
    return this.sendToVault("pickGuarantee", [campaignId, period, winnerHash]);
  }

  /** The earliest block time (unix seconds) at which guarantee `period` can be picked: counted from the registration. */
  guaranteePeriodEnd(campaignId: Hex, period: number): Promise<bigint> {
    return this.publicClient.readContract({ address: this.vaultAddress(), abi: PrizeVaultAbi, functionName: "guaranteePeriodEnd", args: [campaignId, period] });
  }

  /** The latest block's time (unix seconds). */
  async latestBlockTime(): Promise<bigint> {
    try {
      return (await this.publicClient.getBlock({ blockTag: "latest" })).timestamp;
    } catch (error) {
      throw toChainError("eth_getBlockByNumber(latest)", error);
    }
  }

  /**
   * The local anvil chain of the test environment only: mines the next block at `timestamp` (unix seconds, later
   * than the latest block's), so a rule the contract bounds by block time follows a campaign's test clock. Anvil's
   * later blocks go on from there: its clock never goes back.
   */
  async advanceLocalChainTime(timestamp: bigint): Promise<void> {
    const anvil = createTestClient({ chain: this.chain, transport: this.transport, mode: "anvil" });
    await anvil.setNextBlockTimestamp({ timestamp });
    await anvil.mine({ blocks: 1 });
  }

  payGuarantee(campaignId: Hex, period: number) {
    return this.sendToVault("payGuarantee", [campaignId, period]);
  }

  /**
   * Delivers a revealed value again through Entropy's retry path, after the consumer's callback failed. The
   * gas is the node's estimate: the callback either settles its whole share or fails, so the estimate covers it.
   */
  retryCallback(provider: Hex, sequence: bigint, userRandomNumber: Hex, providerRevelation: Hex): Promise<TransactionReceipt> {
    return this.submit("revealWithCallback", async () => (nonce) =>
      this.wallet.writeContract({
        address: this.deployment.entropy,
        abi: EntropyRetryAbi,
        functionName: "revealWithCallback",
        args: [provider, sequence, userRandomNumber, providerRevelation],
        nonce,
      }),
    );
  }

  /** Entropy's Revealed events of one request (a failed callback's first, then the successful retry's). */
  async revealedEvents(provider: Hex, sequence: bigint, fromBlock: bigint) {
    return this.publicClient.getContractEvents({
      address: this.deployment.entropy,
      abi: EntropyRetryAbi,
      eventName: "Revealed",
      args: { provider, sequenceNumber: sequence },
      fromBlock,
      toBlock: "latest",
    });
  }

  /** The prize pool (PrizeVault.balances) in cents: its token balance, what is owed, and what is free. */
  async poolBalances(): Promise<PoolBalances> {
    const address = this.vaultAddress();
    // An immutable of the vault: read once.
    this.unitsPerCent ??= this.publicClient.readContract({ address, abi: PrizeVaultAbi, functionName: "tokenUnitsPerCent" }).catch((error: unknown) => {
      this.unitsPerCent = null;
      throw error;
    });
    const [[tokenBalance, owedCents, , freeUnits], unitsPerCent] = await Promise.all([
      this.publicClient.readContract({ address, abi: PrizeVaultAbi, functionName: "balances" }),
      this.unitsPerCent,
    ]);
    return { balanceCents: tokenBalance / unitsPerCent, owedCents, freeCents: freeUnits / unitsPerCent };
  }

  /** The operator's native balance in wei: what pays for its transactions and the randomness fees. */
  operatorBalance(): Promise<bigint> {
    return this.publicClient.getBalance({ address: this.wallet.account.address });
  }

  /** One position's held prize: an OnchainHeldState. */
  heldPrizeState(campaignId: Hex, number: bigint, position: bigint): Promise<number> {
    return this.publicClient.readContract({ address: this.vaultAddress(), abi: PrizeVaultAbi, functionName: "heldPrizeState", args: [campaignId, number, position] });
  }

  /** A guarantee period's onchain payment (`period` counted from 0, as the contract does). */
  async getGuarantee(campaignId: Hex, period: number): Promise<OnchainGuarantee> {
    const [status, wallet, amountCents] = await this.publicClient.readContract({ address: this.vaultAddress(), abi: PrizeVaultAbi, functionName: "getGuarantee", args: [campaignId, period] });
    return { status, wallet, amountCents };
  }

  /**
   * Test environment: reveals a MockEntropy request with `randomValue` (the service draws it with a
   * cryptographically secure generator). Sent through the same queue as the operator's other transactions.
   */
  revealMock(sequence: bigint, randomValue: Hex): Promise<TransactionReceipt> {
    if (!this.deployment.mockEntropy) throw new ChainRevertError("mockReveal", "NotMockEntropy", []);
    return this.submit("mockReveal", async () => {
      const callbackGas = await this.publicClient.readContract({ address: this.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "callbackGasLimit" });
      return (nonce) => this.wallet.writeContract({
        nonce,
        address: this.deployment.entropy,
        abi: MockEntropyAbi,
        functionName: "mockReveal",
        args: [this.deployment.entropyProvider, sequence, randomValue],
        // MockEntropy forwards all gas to the callback, which budgets itself by callbackGasLimit.
        gas: BigInt(callbackGas) + REVEAL_OVERHEAD_GAS,
      });
    });
  }

  getDrawing(campaignId: Hex, number: bigint) {
    return this.publicClient.readContract({ address: this.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "getDrawing", args: [campaignId, number] });
  }

  /** A campaign's registry entry; `registered` false (and zeros) for an unknown id. */
  async getCampaign(campaignId: Hex): Promise<OnchainCampaign> {
    const [registered, payoutWallet, lastNumber, largePrizeThresholdCents] = await this.publicClient.readContract({ address: this.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "getCampaign", args: [campaignId] });
    return { registered, payoutWallet, lastNumber, largePrizeThresholdCents };
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

/** Sends refused for a nonce another sender took are tried this many times in all. */
const NONCE_CONFLICT_ATTEMPTS = 4;

/** The node refused a send because its nonce was taken (by this key signing in another process). */
function isNonceConflict(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  if (error.walk((e) => e instanceof NonceTooLowError)) return true;
  return /nonce too low|already known|replacement transaction underpriced|nonce has already been used/i.test(error.details ?? error.message);
}

function toChainError(functionName: string, error: unknown): Error {
  if (error instanceof ChainRevertError || error instanceof ChainUnavailableError) return error;
  if (error instanceof BaseError) {
    const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError) {
      // An error PrizeDraw does not declare (a token's own, say) is named by its selector so it can be looked up.
      const name = revert.data?.errorName ?? revert.reason ?? (revert.signature ? `unknown error ${revert.signature}` : "UnknownRevert");
      return new ChainRevertError(functionName, name, revert.data?.args ?? []);
    }
    return new ChainUnavailableError(`${functionName}: ${error.shortMessage}`);
  }
  return new ChainUnavailableError(`${functionName}: ${error instanceof Error ? error.message : String(error)}`);
}
