import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  FeeCapTooLowError,
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
  WaitForTransactionReceiptTimeoutError,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { MockEntropyAbi, PrizeDrawAbi, PrizeVaultAbi } from "./abis.js";
import type { DeploymentRecord } from "./deployment.js";
import type { ChainFinality } from "../config.js";
import { ChainRevertError, ChainUnavailableError, TransactionReplacedError } from "./errors.js";
import { DEFAULT_MAX_FEE_PER_GAS_WEI, DEFAULT_REPLACE_AFTER_MS, FeeCapReachedError, firstFees, replacementFees, type FeePolicy, type Fees } from "./fees.js";
import { chainFeesWei, chainTransactionReplacements, chainTransactions, chainTransactionsInFlight } from "../metrics/registry.js";

export { ChainRevertError, ChainUnavailableError, TransactionReplacedError } from "./errors.js";

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
  /** The fee cap and how soon an unmined transaction is replaced (chain/fees.ts); defaults there. */
  fees?: Partial<FeePolicy>;
};

/** Sends one prepared call at a nonce with the given fees; answers the transaction's hash. */
type Write = (nonce: number, fees: Fees) => Promise<Hex>;
/** A transaction of ours not yet mined: every hash sent at its nonce (the first, then its replacements). */
type Pending = { functionName: string; key: string; nonce: number; hashes: Hex[]; fees: Fees; write: Write; firstSentAt: number };

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
  readonly feePolicy: FeePolicy;
  /** Calls left waiting at the fee cap (FeeCapReachedError), by key: the same call sent again waits for them. */
  private readonly waitingAtCap = new Map<string, Pending>();
  /** The vault's token units per cent (an immutable), once read. */
  private unitsPerCent: Promise<bigint> | null = null;

  constructor({ rpcUrl, deployment, operatorKey, receiptTimeoutMs = DEFAULT_RECEIPT_TIMEOUT_MS, maxEntropyFeeWei = DEFAULT_MAX_ENTROPY_FEE_WEI, fees = {} }: ChainPortOptions) {
    this.receiptTimeoutMs = receiptTimeoutMs;
    this.maxEntropyFeeWei = maxEntropyFeeWei;
    this.feePolicy = { maxFeePerGasWei: fees.maxFeePerGasWei ?? DEFAULT_MAX_FEE_PER_GAS_WEI, replaceAfterMs: fees.replaceAfterMs ?? DEFAULT_REPLACE_AFTER_MS };
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
    const target = call as { address: Address; value?: bigint } & Parameters<typeof encodeFunctionData>[0];
    return this.submit(functionName, callKey(target.address, encodeFunctionData(target), target.value), async () => {
      const { request } = await this.publicClient.simulateContract(call as Parameters<PublicClient["simulateContract"]>[0]);
      const write = request as Parameters<typeof this.wallet.writeContract>[0];
      // Estimated once, against the chain as it is: a replacement estimated later would run after the first
      // version in the node's pending state (a second registration, say) and revert.
      const limit = gas ?? (await this.publicClient.estimateContractGas(call as Parameters<PublicClient["estimateContractGas"]>[0]));
      return (nonce, fees) => this.wallet.writeContract({ ...write, nonce, ...fees, gas: limit } as typeof write);
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
   * One operator transaction, named by `key` (target, calldata, value): `prepare` checks it (a simulation) and
   * returns how to send it; the send takes the
   * next nonce in turn, priced by the fee policy (chain/fees.ts), and the wait for its receipt (replacing it with
   * higher fees while it is not mined) runs alongside later sends. The same call left waiting at the fee cap by an
   * earlier try is waited for again, never sent a second time. The operator key may also sign in another process
   * (the CLI's held-prize decisions while the service runs): both can take the same nonce, and the node refuses
   * the later one ("nonce too low", "already known", "replacement transaction underpriced"). Such a send is tried
   * again with the node's pending count.
   */
  private async submit(functionName: string, key: string, prepare: () => Promise<Write>): Promise<TransactionReceipt> {
    let sent = false;
    try {
      // Looked up before any simulation: a node may simulate against its pending state, where this call already ran.
      let pending = this.waitingAtCap.get(key);
      this.waitingAtCap.delete(key);
      if (pending === undefined) {
        const write = await prepare();
        const fees = firstFees(await this.feeEstimate(), this.feePolicy.maxFeePerGasWei);
        const { hash, nonce } = await this.broadcast((n) => write(n, fees)).catch((error: unknown) => {
          // The network's base fee is above the cap: a node that takes no transaction below it (anvil) refuses the
          // send, one that does (geth) holds it; either way the caller is told now, and nothing waits.
          if (fees.maxFeePerGas === this.feePolicy.maxFeePerGasWei && isFeeCapTooLow(error)) throw new FeeCapReachedError(functionName, this.feePolicy.maxFeePerGasWei);
          throw error;
        });
        pending = { functionName, key, nonce, hashes: [hash], fees, write, firstSentAt: Date.now() };
      }
      sent = true;
      chainTransactionsInFlight.inc();
      const receipt = await this.receipt(pending).finally(() => chainTransactionsInFlight.dec());
      chainFeesWei.inc(Number(receipt.gasUsed * receipt.effectiveGasPrice));
      const outcome = receipt.status === "success" ? "mined" : "reverted";
      chainTransactions.inc({ function: functionName, outcome });
      if (outcome === "reverted") throw new ChainRevertError(functionName, "TransactionReverted", [receipt.transactionHash]);
      return receipt;
    } catch (error) {
      // A refusal found by the simulation sent nothing; a send that failed or never got its receipt did, or may have.
      if (sent && !(error instanceof ChainRevertError)) chainTransactions.inc({ function: functionName, outcome: error instanceof FeeCapReachedError ? "at_fee_cap" : "failed" });
      throw toChainError(functionName, error);
    }
  }

  /** The network's fee estimate now (EIP-1559: a margin over the base fee, plus the tip). */
  private async feeEstimate(): Promise<Fees> {
    const { maxFeePerGas, maxPriorityFeePerGas } = await this.publicClient.estimateFeesPerGas();
    return { maxFeePerGas, maxPriorityFeePerGas };
  }

  /**
   * Waits for a sent transaction's receipt, replacing it while the node holds it unmined: each `replaceAfterMs`
   * it goes again at its nonce with higher fees (chain/fees.ts), up to the cap. Whichever of its versions is mined
   * is the receipt. Past the receipt timeout, one waiting at the cap is left there (FeeCapReachedError: the same
   * call sent again waits for it); one queued behind lower nonces the node lost has them filled; one the node no
   * longer has was dropped: its nonce gap is filled and the wait gives up (the keeper's retry reads the chain
   * first).
   */
  private async receipt(p: Pending): Promise<TransactionReceipt> {
    for (;;) {
      try {
        return await this.waitMined(p, this.feePolicy.replaceAfterMs);
      } catch (error) {
        if (!(error instanceof WaitForTransactionReceiptTimeoutError)) throw error;
        const mined = await this.receiptOfAny(p);
        if (mined !== null) return mined;
        const late = Date.now() - p.firstSentAt >= this.receiptTimeoutMs;
        if (!(await this.holdsAny(p))) {
          await this.fillGap(p.nonce).catch(() => undefined);
          throw error;
        }
        const minedCount = await this.minedNonceCount();
        if (minedCount > p.nonce) throw new TransactionReplacedError(p.hashes.at(-1)!, "0x", p.nonce);
        if (minedCount < p.nonce) {
          // Queued behind lower nonces: ours are replaced by their own waits. Past the timeout, they were lost
          // (several, when a reorg dropped several transactions): each is filled, so this one can be mined.
          if (!late) continue;
          await this.fill(Array.from({ length: p.nonce - minedCount }, (_, i) => minedCount + i)).catch(() => undefined);
          throw error;
        }
        const next = replacementFees(p.fees, await this.feeEstimate(), this.feePolicy.maxFeePerGasWei);
        if (next === null) {
          if (!late) continue;
          this.waitingAtCap.set(p.key, p);
          throw new FeeCapReachedError(p.functionName, this.feePolicy.maxFeePerGasWei);
        }
        try {
          p.hashes.push(await p.write(p.nonce, next));
          p.fees = next;
          chainTransactionReplacements.inc({ function: p.functionName });
        } catch (sendError) {
          // Mined meanwhile (nonce too low), or the node already has an equal price: the next wait finds out. A
          // node that refuses a fee below the base fee (anvil) is answered as at the cap: the last version waits.
          if (isFeeCapTooLow(sendError) && late) {
            this.waitingAtCap.set(p.key, p);
            throw new FeeCapReachedError(p.functionName, this.feePolicy.maxFeePerGasWei);
          }
          if (!isNonceConflict(sendError) && !isFeeCapTooLow(sendError)) throw sendError;
        }
      }
    }
  }

  /** The receipt of whichever version of the transaction was mined, or null. */
  private async receiptOfAny(p: Pending): Promise<TransactionReceipt | null> {
    for (const hash of p.hashes) {
      const receipt = await this.publicClient.getTransactionReceipt({ hash }).catch(() => null);
      if (receipt !== null) {
        this.minedCount = Math.max(this.minedCount, p.nonce + 1);
        return receipt;
      }
    }
    return null;
  }

  /** Whether the node still holds any version of the transaction (pending or queued). */
  private async holdsAny(p: Pending): Promise<boolean> {
    for (const hash of p.hashes) if ((await this.publicClient.getTransaction({ hash }).catch(() => null)) !== null) return true;
    return false;
  }

  /**
   * One wait for the latest version's receipt. A replacement mined in its place is fine when it is one of ours
   * (an earlier, cheaper version); another transaction mined at the nonce (a gap filler, or a send after the
   * counter was read again from the node) means this call never ran: viem would answer the other's receipt,
   * which must not pass for this call's.
   */
  private async waitMined(p: Pending, timeout: number): Promise<TransactionReceipt> {
    const latest = p.hashes.at(-1)!;
    const replaced: { by?: Hex } = {};
    const receipt = await this.publicClient.waitForTransactionReceipt({ hash: latest, timeout, onReplaced: (r) => (replaced.by = r.transaction.hash) });
    if (replaced.by !== undefined && !p.hashes.some((h) => h.toLowerCase() === replaced.by!.toLowerCase())) throw new TransactionReplacedError(latest, replaced.by, p.nonce);
    this.minedCount = Math.max(this.minedCount, p.nonce + 1);
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
    const call = { address: this.deployment.entropy, abi: EntropyRetryAbi, functionName: "revealWithCallback", args: [provider, sequence, userRandomNumber, providerRevelation] } as const;
    return this.submit("revealWithCallback", callKey(call.address, encodeFunctionData(call), undefined), async () => {
      const gas = await this.publicClient.estimateContractGas({ ...call, account: this.wallet.account });
      return (nonce, fees) => this.wallet.writeContract({ ...call, nonce, ...fees, gas });
    });
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
    const call = { address: this.deployment.entropy, abi: MockEntropyAbi, functionName: "mockReveal", args: [this.deployment.entropyProvider, sequence, randomValue] } as const;
    return this.submit("mockReveal", callKey(call.address, encodeFunctionData(call), undefined), async () => {
      const callbackGas = await this.publicClient.readContract({ address: this.deployment.prizeDraw, abi: PrizeDrawAbi, functionName: "callbackGasLimit" });
      // MockEntropy forwards all gas to the callback, which budgets itself by callbackGasLimit.
      return (nonce, fees) => this.wallet.writeContract({ ...call, nonce, ...fees, gas: BigInt(callbackGas) + REVEAL_OVERHEAD_GAS });
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

/** The node refused a fee cap below its current base fee. */
function isFeeCapTooLow(error: unknown): boolean {
  return error instanceof BaseError && error.walk((e) => e instanceof FeeCapTooLowError) instanceof FeeCapTooLowError;
}

/** What makes two sends the same call: the target, the calldata and the value. */
function callKey(to: Address, data: Hex, value: bigint | undefined): string {
  return `${to.toLowerCase()}:${data}:${value ?? 0n}`;
}

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
