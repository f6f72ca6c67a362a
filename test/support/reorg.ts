// Chain reorganisations on the local chain (anvil 1.7's `anvil_reorg`), the canonical chain's view of a drawing,
// and a randomness provider played by the test (MockEntropy.mockReveal from the provider key), for the reorg
// tests.
//
// `anvil_reorg` takes `[depth, txBlockPairs]`: it replaces the last `depth` blocks with `depth` new ones (the head
// number stays the same, the hashes change). The transactions of the replaced blocks are dropped: no receipt, not
// in the node's pool, and their senders' nonces go back. `txBlockPairs` (`[[tx, offset], ...]`, offset 0 to
// depth - 1, tx a JSON request with `from` one of anvil's own accounts, or a raw signed transaction as hex)
// fills the new blocks; `[]` leaves them empty.

import { createPublicClient, createWalletClient, http, toHex, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { randomBytes } from "node:crypto";
import { MockEntropyAbi, PrizeDrawAbi, PrizeVaultAbi } from "../../api/src/chain/abis.js";
import type { DeploymentRecord } from "../../api/src/chain/deployment.js";
import { ANVIL_KEYS } from "../../api/src/config.js";
import { jsonRpc } from "./processes.js";

/** PrizeDraw.Status. */
export const ONCHAIN_STATUS = ["none", "requested", "revealed", "settled", "paid"] as const;

const localChain = (rpcUrl: string) => ({ id: 31337, name: "anvil", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });

export function publicClientFor(rpcUrl: string): PublicClient {
  return createPublicClient({ chain: localChain(rpcUrl), transport: http(rpcUrl) }) as PublicClient;
}

/**
 * Replaces every block from `fromBlock` to the head with empty blocks, dropping their transactions. Mining is
 * paused meanwhile so the depth is exact (a block mined between reading the head and the reorg would leave
 * `fromBlock` in place); the service's sends in that moment wait in the pool. `mining` is what to restore
 * (startStack's default chain: automine plus a block every second).
 */
export async function reorgFrom(
  rpcUrl: string,
  fromBlock: bigint,
  mining: { automine: boolean; intervalSeconds: number } = { automine: true, intervalSeconds: 1 },
): Promise<{ depth: number; head: bigint; oldHash: Hex; newHash: Hex }> {
  const rpc = <T>(method: string, params: unknown[] = []) => jsonRpc<T>(rpcUrl, method, params);
  await rpc("evm_setAutomine", [false]);
  await rpc("evm_setIntervalMining", [0]);
  try {
    const head = BigInt(await rpc<string>("eth_blockNumber"));
    if (fromBlock < 1n || fromBlock > head) throw new Error(`block ${fromBlock} is not between 1 and the head ${head}`);
    const depth = Number(head - fromBlock + 1n);
    const oldHash = (await rpc<{ hash: Hex }>("eth_getBlockByNumber", [toHex(fromBlock), false])).hash;
    await rpc("anvil_reorg", [depth, []]);
    const newHash = (await rpc<{ hash: Hex }>("eth_getBlockByNumber", [toHex(fromBlock), false])).hash;
    const after = BigInt(await rpc<string>("eth_blockNumber"));
    if (newHash === oldHash || after !== head) throw new Error(`anvil_reorg [${depth}, []] did not replace block ${fromBlock} (head ${head} -> ${after})`);
    return { depth, head, oldHash, newHash };
  } finally {
    await rpc("evm_setAutomine", [mining.automine]);
    await rpc("evm_setIntervalMining", [mining.intervalSeconds]);
  }
}

export type ChainDrawing = {
  /** The campaign's last committed number (getCampaign). */
  lastNumber: number;
  /** getDrawing's status, "none" when the number is not committed. */
  status: (typeof ONCHAIN_STATUS)[number];
  sequence: string | null;
  randomValue: Hex | null;
  /** Blocks of this drawing's events on the canonical chain. */
  committedIn: bigint[];
  revealedIn: bigint[];
  settledIn: bigint[];
  paidIn: bigint[];
};

/** What the canonical chain says about one drawing: its state and the blocks of its events. */
export async function chainDrawing(client: PublicClient, deployment: DeploymentRecord, campaignId: Hex, number: number): Promise<ChainDrawing> {
  const address = deployment.prizeDraw;
  const campaign = await client.readContract({ address, abi: PrizeDrawAbi, functionName: "getCampaign", args: [campaignId] });
  const lastNumber = Number(campaign[2]);
  const view = number <= lastNumber ? await client.readContract({ address, abi: PrizeDrawAbi, functionName: "getDrawing", args: [campaignId, BigInt(number)] }) : null;
  const blocks = async (eventName: "DrawingCommitted" | "EntropyRevealed" | "DrawingSettled" | "DrawingPaid") =>
    (await client.getContractEvents({ address, abi: PrizeDrawAbi, eventName, args: { campaignId, number: BigInt(number) }, fromBlock: BigInt(deployment.deployBlock), toBlock: "latest" })).map((e) => e.blockNumber);
  const [committedIn, revealedIn, settledIn, paidIn] = await Promise.all([blocks("DrawingCommitted"), blocks("EntropyRevealed"), blocks("DrawingSettled"), blocks("DrawingPaid")]);
  return {
    lastNumber,
    status: view ? ONCHAIN_STATUS[Number(view.status)]! : "none",
    sequence: view && view.status >= 1 ? view.sequence.toString() : null,
    randomValue: view && view.status >= 2 ? view.randomValue : null,
    committedIn,
    revealedIn,
    settledIn,
    paidIn,
  };
}

/**
 * The randomness provider, played by the test (the service runs with PRIZEDRAW_HOLD_MOCK_REVEAL): while enabled,
 * every request of the watched drawings that is open on the canonical chain gets a fresh random value, as a
 * provider answers the requests it sees. After a reorg that drops a reveal, the request (if it survived) is open
 * again and is answered again, with another value: MockEntropy's value is chosen at reveal time, like the keeper's
 * own mock reveal (crypto.randomBytes).
 */
export class TestProvider {
  enabled = false;
  private readonly watched = new Map<string, { campaignId: Hex; number: number }>();
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private readonly client: PublicClient;
  private readonly wallet;

  constructor(private readonly rpcUrl: string, private readonly deployment: DeploymentRecord) {
    this.client = publicClientFor(rpcUrl);
    this.wallet = createWalletClient({ account: privateKeyToAccount(ANVIL_KEYS.provider), chain: localChain(rpcUrl), transport: http(rpcUrl) });
  }

  watch(campaignId: Hex, number: number): void {
    this.watched.set(`${campaignId}:${number}`, { campaignId, number });
  }

  start(everyMs = 300): void {
    this.timer = setInterval(() => void this.tick(), everyMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** What the provider did for each watched drawing ("campaignId:number"): reveals sent, their outcomes, the last failure. */
  readonly log = new Map<string, { sent: number; mined: number; reverted: number; noReceipt: number; failed: number; lastError: string | null }>();

  private async tick(): Promise<void> {
    if (!this.enabled || this.busy) return;
    this.busy = true;
    try {
      // Each drawing on its own: one whose reveal cannot be sent does not hold back the others' answers.
      for (const [key, { campaignId, number }] of this.watched) {
        const seen = this.log.get(key) ?? { sent: 0, mined: 0, reverted: 0, noReceipt: 0, failed: 0, lastError: null };
        this.log.set(key, seen);
        try {
          const chain = await chainDrawing(this.client, this.deployment, campaignId, number);
          if (chain.status !== "requested" || chain.sequence === null) continue;
          const hash = await this.wallet.writeContract({
            address: this.deployment.entropy,
            abi: MockEntropyAbi,
            functionName: "mockReveal",
            args: [this.deployment.entropyProvider, BigInt(chain.sequence), toHex(randomBytes(32))],
            gas: 3_000_000n,
          });
          seen.sent++;
          // The test chain mines a transaction at once: no receipt within 5 s means a reorg dropped it (it is not
          // kept in the pool), and the next tick sends another.
          const receipt = await this.client.waitForTransactionReceipt({ hash, timeout: 5_000 }).catch(() => null);
          if (!receipt) seen.noReceipt++;
          else if (receipt.status === "success") seen.mined++;
          else seen.reverted++;
        } catch (error) {
          // The next tick tries again (a reorg may have dropped the reveal or moved the nonce meanwhile).
          seen.failed++;
          seen.lastError = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 200);
        }
      }
    } finally {
      this.busy = false;
    }
  }
}

/** PrizeDraw.GuaranteeStatus / PrizeDraw.HeldState. */
export const ONCHAIN_GUARANTEE = ["none", "picked", "paid"] as const;
export const ONCHAIN_HELD = ["open", "paid", "refused"] as const;

export type ChainGuarantee = {
  /** getGuarantee's status. */
  status: (typeof ONCHAIN_GUARANTEE)[number];
  wallet: Hex;
  amountCents: bigint;
  /** Blocks of this period's events on the canonical chain. */
  pickedIn: bigint[];
  paidIn: bigint[];
  /** GuaranteePaid's tokenAmount, one per event, in the order of paidIn. */
  paidTokens: bigint[];
};

/** What the canonical chain says about one guarantee period (the contract counts periods from 0, the service from 1). */
export async function chainGuarantee(client: PublicClient, deployment: DeploymentRecord, campaignId: Hex, onchainPeriod: number): Promise<ChainGuarantee> {
  const address = deployment.vault!;
  const [status, wallet, amountCents] = await client.readContract({ address, abi: PrizeVaultAbi, functionName: "getGuarantee", args: [campaignId, onchainPeriod] });
  const range = { fromBlock: BigInt(deployment.deployBlock), toBlock: "latest" as const };
  const args = { campaignId, period: onchainPeriod };
  const [picked, paid] = await Promise.all([
    client.getContractEvents({ address, abi: PrizeVaultAbi, eventName: "GuaranteePicked", args, ...range }),
    client.getContractEvents({ address, abi: PrizeVaultAbi, eventName: "GuaranteePaid", args, ...range }),
  ]);
  return {
    status: ONCHAIN_GUARANTEE[Number(status)]!,
    wallet,
    amountCents,
    pickedIn: picked.map((e) => e.blockNumber),
    paidIn: paid.map((e) => e.blockNumber),
    paidTokens: paid.map((e) => e.args.tokenAmount!),
  };
}

export type ChainHeldPrize = {
  /** heldPrizeState. */
  state: (typeof ONCHAIN_HELD)[number];
  /** Blocks of this position's HeldPrizePaid / HeldPrizeRefused events on the canonical chain. */
  paidIn: bigint[];
  refusedIn: bigint[];
};

/** What the canonical chain says about one held prize of a drawing. */
export async function chainHeldPrize(client: PublicClient, deployment: DeploymentRecord, campaignId: Hex, number: number, position: number): Promise<ChainHeldPrize> {
  const address = deployment.vault!;
  const state = await client.readContract({ address, abi: PrizeVaultAbi, functionName: "heldPrizeState", args: [campaignId, BigInt(number), BigInt(position)] });
  const range = { fromBlock: BigInt(deployment.deployBlock), toBlock: "latest" as const };
  const args = { campaignId, number: BigInt(number) };
  const [paid, refused] = await Promise.all([
    client.getContractEvents({ address, abi: PrizeVaultAbi, eventName: "HeldPrizePaid", args, ...range }),
    client.getContractEvents({ address, abi: PrizeVaultAbi, eventName: "HeldPrizeRefused", args, ...range }),
  ]);
  const at = (events: { args: { position?: bigint }; blockNumber: bigint }[]) => events.filter((e) => e.args.position === BigInt(position)).map((e) => e.blockNumber);
  return { state: ONCHAIN_HELD[Number(state)]!, paidIn: at(paid), refusedIn: at(refused) };
}
