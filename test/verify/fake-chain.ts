// A fake JSON-RPC endpoint holding the contract events of one proof's drawing, built with viem from the
// contract's event declarations (contracts/PrizeDraw.sol), with knobs to make the chain disagree with the proof.

import {
  decodeFunctionData,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionResult,
  parseAbi,
  type Hex,
} from "viem";
import type { IncomingMessage, ServerResponse } from "node:http";
import { idToBytes32, keccakHex, type Proof } from "./fixtures.js";

export const PRIZE_DRAW_ABI = parseAbi([
  "event DrawingCommitted(bytes32 indexed campaignId, uint64 indexed number, uint8 kind, bytes32 listCommitment, uint32 winnersExpected, uint32 entrantCount, uint64 totalWeight, bytes32 tableId, uint32 tableVersion, uint64 largePrizeThresholdCents)",
  "event EntropyRequested(bytes32 indexed campaignId, uint64 indexed number, address provider, uint64 sequence, uint256 fee)",
  "event EntropyRevealed(bytes32 indexed campaignId, uint64 indexed number, address provider, uint64 sequence, bytes32 randomValue)",
  "event WinnersRecorded(bytes32 indexed campaignId, uint64 indexed number, bytes32 winnersCommitment, uint256 winnerCount)",
  "event PrizeAwarded(bytes32 indexed campaignId, uint64 indexed number, uint256 position, bytes32 randomValue, uint256 roll, uint256 tier, uint256 amountCents, bool held)",
  "function getPrizeTable(bytes32 tableId, uint32 version) view returns (uint256 denominator, uint256[] amountsCents, uint256[] weights, uint256[] thresholds)",
]);

export const MOCK_PROVIDER = "0x6cc14824ea2918f5de5c2f75a9da968ad4bd6344";

type Log = {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  transactionHash: Hex;
  transactionIndex: Hex;
  logIndex: Hex;
};

/** What the fake chain says; each field defaults to agreeing with the proof. */
export type ChainKnobs = {
  chainId?: number;
  listCommitment?: Hex;
  winnersExpected?: number;
  entrantCount?: number;
  totalWeight?: number;
  tableId?: string;
  tableVersion?: number;
  sequence?: bigint;
  provider?: string;
  randomValue?: Hex;
  requestBeforeCommit?: boolean;
  revealBlock?: number;
  winnersCommitment?: Hex | null;
  tableWeights?: number[];
  tableMissing?: boolean;
  prizeAmounts?: Record<number, number>;
  missingPrizes?: number;
  commitReceiptMissing?: boolean;
  commitReverted?: boolean;
  getLogsRangeLimit?: number;
};

const hex = (n: number | bigint): Hex => `0x${n.toString(16)}`;

export class FakeChain {
  readonly calls: string[] = [];
  private readonly commitBlock = 100;
  private readonly logs: Log[] = [];
  private readonly receipts = new Map<string, unknown>();

  constructor(
    private readonly proof: Proof,
    private readonly knobs: ChainKnobs = {},
  ) {
    const p = proof;
    const k = knobs;
    const contract = p.chain.contract;
    const campaignId = idToBytes32(p.campaign.id);
    const number = BigInt(p.drawing.number);
    const isEntries = p.entrants !== null;
    const provider = (k.provider ?? (p.entropy.provider === "mock" ? MOCK_PROVIDER : p.entropy.provider)) as Hex;
    const sequence = k.sequence ?? BigInt(p.entropy.requestId);
    const revealBlock = k.revealBlock ?? this.commitBlock + 2;

    const make = (eventName: string, args: Record<string, unknown>, block: number, tx: Hex, logIndex: number): Log => {
      const event = PRIZE_DRAW_ABI.find((x) => x.type === "event" && x.name === eventName)!;
      if (event.type !== "event") throw new Error("not an event");
      const topics = encodeEventTopics({ abi: PRIZE_DRAW_ABI, eventName: eventName as "PrizeAwarded", args: { campaignId, number } }) as Hex[];
      const inputs = (event.inputs as readonly { name?: string; type: string; indexed?: boolean }[]).filter((i) => !i.indexed);
      const data = encodeAbiParameters(inputs, inputs.map((i) => args[i.name!]) as never);
      return { address: contract, topics, data, blockNumber: hex(block), transactionHash: tx, transactionIndex: "0x0", logIndex: hex(logIndex) };
    };

    // An unrelated log from another contract first: the verifier must pick the right emitter.
    const foreign: Log = {
      address: "0x00000000000000000000000000000000000000aa",
      topics: encodeEventTopics({ abi: PRIZE_DRAW_ABI, eventName: "EntropyRevealed", args: { campaignId, number } }) as Hex[],
      data: encodeAbiParameters(
        [{ type: "address" }, { type: "uint64" }, { type: "bytes32" }],
        [provider, sequence, keccakHex("not this one")],
      ),
      blockNumber: hex(this.commitBlock),
      transactionHash: p.chain.commitTx,
      transactionIndex: "0x0",
      logIndex: "0x0",
    };
    const committed = make(
      "DrawingCommitted",
      {
        kind: isEntries ? 1 : 0,
        listCommitment: k.listCommitment ?? (isEntries ? p.entrants!.commitment : p.winnerList.commitment),
        winnersExpected: k.winnersExpected ?? p.winnerList.winners.length,
        entrantCount: k.entrantCount ?? (isEntries ? p.entrants!.count : 0),
        totalWeight: BigInt(k.totalWeight ?? (isEntries ? p.entrants!.totalWeight : 0)),
        tableId: idToBytes32(k.tableId ?? p.prizeTable.id),
        tableVersion: k.tableVersion ?? p.prizeTable.version,
        largePrizeThresholdCents: 50_000n,
      },
      this.commitBlock,
      p.chain.commitTx,
      k.requestBeforeCommit ? 2 : 1,
    );
    const requested = make("EntropyRequested", { provider, sequence, fee: 1000n }, this.commitBlock, p.chain.commitTx, k.requestBeforeCommit ? 1 : 2);
    const commitLogs = [foreign, committed, requested];
    const revealed = make("EntropyRevealed", { provider, sequence, randomValue: k.randomValue ?? p.entropy.value }, revealBlock, p.chain.revealTx, 0);
    const prizes = p.results.slice(0, p.results.length - (k.missingPrizes ?? 0)).map((r, i) =>
      make(
        "PrizeAwarded",
        {
          position: BigInt(r.position),
          randomValue: r.randomValue,
          roll: BigInt(r.roll),
          tier: 0n,
          amountCents: BigInt(k.prizeAmounts?.[r.position] ?? r.amountCents),
          held: r.amountCents >= 50_000,
        },
        revealBlock,
        p.chain.revealTx,
        1 + i,
      ),
    );
    const revealLogs = [revealed, ...prizes];
    this.logs.push(...commitLogs, ...revealLogs);
    if (isEntries && k.winnersCommitment !== null) {
      const recordTx = keccakHex("record winners tx");
      this.logs.push(
        make("WinnersRecorded", { winnersCommitment: k.winnersCommitment ?? p.winnerList.commitment, winnerCount: BigInt(p.winnerList.winners.length) }, revealBlock + 1, recordTx, 0),
      );
    }
    const receipt = (tx: Hex, block: number, logs: Log[], status = "0x1") => ({
      transactionHash: tx,
      blockNumber: hex(block),
      transactionIndex: "0x0",
      status,
      logs,
    });
    if (!k.commitReceiptMissing) this.receipts.set(p.chain.commitTx, receipt(p.chain.commitTx, this.commitBlock, commitLogs, k.commitReverted ? "0x0" : "0x1"));
    this.receipts.set(p.chain.revealTx, receipt(p.chain.revealTx, revealBlock, revealLogs));
  }

  private latest(): number {
    return this.commitBlock + 5000;
  }

  private answer(method: string, params: unknown[]): { result?: unknown; error?: { code: number; message: string } } {
    const p = this.proof;
    const k = this.knobs;
    switch (method) {
      case "eth_chainId":
        return { result: hex(k.chainId ?? p.chain.chainId) };
      case "eth_blockNumber":
        return { result: hex(this.latest()) };
      case "eth_getTransactionReceipt":
        return { result: this.receipts.get(String(params[0]).toLowerCase()) ?? null };
      case "eth_getLogs": {
        const f = params[0] as { address: string; topics: (string | null)[]; fromBlock: string; toBlock: string };
        const from = Number(BigInt(f.fromBlock));
        const to = f.toBlock === "latest" ? this.latest() : Number(BigInt(f.toBlock));
        if (k.getLogsRangeLimit !== undefined && to - from + 1 > k.getLogsRangeLimit) {
          return { error: { code: -32005, message: `block range too large (limit ${k.getLogsRangeLimit})` } };
        }
        const result = this.logs.filter(
          (l) =>
            l.address.toLowerCase() === f.address.toLowerCase() &&
            Number(BigInt(l.blockNumber)) >= from &&
            Number(BigInt(l.blockNumber)) <= to &&
            f.topics.every((t, i) => t === null || l.topics[i]?.toLowerCase() === t.toLowerCase()),
        );
        return { result };
      }
      case "eth_call": {
        const call = params[0] as { to: string; data: Hex };
        const { args } = decodeFunctionData({ abi: PRIZE_DRAW_ABI, data: call.data });
        const [tableId, version] = args as readonly [Hex, number];
        const t = p.prizeTable;
        if (k.tableMissing || tableId !== idToBytes32(t.id) || version !== t.version) {
          return { error: { code: 3, message: "execution reverted: PrizeTableNotFound" } };
        }
        const weights = k.tableWeights ?? t.tiers.map((x) => x.weight);
        let sum = 0;
        const thresholds = weights.map((w) => (sum += w));
        return {
          result: encodeFunctionResult({
            abi: PRIZE_DRAW_ABI,
            functionName: "getPrizeTable",
            result: [BigInt(sum), t.tiers.map((x) => BigInt(x.amountCents)), weights.map(BigInt), thresholds.map(BigInt)],
          }),
        };
      }
      default:
        return { error: { code: -32601, message: `method ${method} not found` } };
    }
  }

  handler = (req: IncomingMessage, res: ServerResponse): void => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => (body += d));
    req.on("end", () => {
      const request = JSON.parse(body) as { id: number; method: string; params: unknown[] };
      this.calls.push(request.method);
      const answer = this.answer(request.method, request.params);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: request.id, ...answer }));
    });
  };
}
