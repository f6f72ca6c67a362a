// A fake JSON-RPC endpoint holding the contract events of one or more drawings: PrizeDraw's events (built with
// viem from the declarations in contracts/PrizeDraw.sol) and the Entropy contract's Requested and Revealed events
// (Pyth's EntropyEventsV2), with knobs to make the chain disagree with the proofs. A re-requested proof's drawing
// (version 5, or 6 when asked) is committed, requested, left unrevealed (version 6: or revealed too late), re-requested
// (PrizeDraw.reRequest) and revealed under the new request. Version 6 drawings are revealed by the contract that mixes
// the request block's hash in; the chain's blocks have the hashes chainBlockHash gives, unless told otherwise.

import {
  decodeFunctionData,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionResult,
  parseAbi,
  toFunctionSelector,
  type Abi,
  type Hex,
} from "viem";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  DEFAULT_BATCH_OTHERS,
  ENTROPY_CONTRACT,
  batchMembers,
  batchUserRandomNumber,
  contributionOf,
  DEFAULT_TIMEOUT_BLOCKS,
  chainBlockHash,
  drawValue,
  drawingSlot,
  idToBytes32,
  keccakHex,
  reRequestUserRandomNumber,
  userRandomNumber,
  type BatchMember,
  type Proof,
} from "./fixtures.js";

export const PRIZE_DRAW_ABI = parseAbi([
  "event DrawingCommitted(bytes32 indexed campaignId, uint64 indexed number, bytes32 indexed slot, uint40 drawAt, uint8 kind, bytes32 listCommitment, uint32 winnersExpected, uint32 entrantCount, uint64 totalWeight, bytes32 tableId, uint32 tableVersion, uint64 largePrizeThresholdCents, address payoutWallet)",
  "event EntropyRequested(bytes32 indexed campaignId, uint64 indexed number, address provider, uint64 sequence, uint256 fee, bytes32 userRandomNumber)",
  "event EntropyRevealed(bytes32 indexed campaignId, uint64 indexed number, address provider, uint64 sequence, bytes32 randomValue)",
  "event WinnersRecorded(bytes32 indexed campaignId, uint64 indexed number, bytes32 winnersCommitment, uint256 winnerCount)",
  "event PrizeAwarded(bytes32 indexed campaignId, uint64 indexed number, uint256 position, bytes32 randomValue, uint256 roll, uint256 tier, uint256 amountCents, bool held)",
  "function getPrizeTable(bytes32 tableId, uint32 version) view returns (uint256 denominator, uint256[] amountsCents, uint256[] weights, uint256[] thresholds)",
  "function entropy() view returns (address)",
  "event EntropyReRequested(bytes32 indexed campaignId, uint64 indexed number, address previousProvider, uint64 previousSequence, address provider, uint64 sequence, uint256 fee, bytes32 userRandomNumber, address by)",
  "function revealTimeoutBlocks() view returns (uint256)",
]);

/** EntropyRequested as PrizeDraw declares it since batches (the ABI above has it as contracts before batches did). */
export const BATCH_PRIZE_DRAW_ABI = parseAbi([
  "event EntropyRequested(bytes32 indexed campaignId, uint64 indexed number, address provider, uint64 sequence, uint256 fee, bytes32 userRandomNumber, uint256 batchIndex, uint256 batchSize)",
]);

/** The events of PrizeDraw contracts that mix the request block's hash in (version 6 proofs). */
export const BLOCK_HASH_PRIZE_DRAW_ABI = parseAbi([
  "event EntropyRevealed(bytes32 indexed campaignId, uint64 indexed number, address provider, uint64 sequence, bytes32 entropyValue, bytes32 requestBlockHash, bytes32 randomValue)",
  "event EntropyRevealTooLate(address indexed provider, uint64 indexed sequence, uint64 requestBlock, bytes32 entropyValue)",
]);

/** The two events as PrizeDraw contracts before drawing slots declared them. */
export const LEGACY_PRIZE_DRAW_ABI = parseAbi([
  "event DrawingCommitted(bytes32 indexed campaignId, uint64 indexed number, uint8 kind, bytes32 listCommitment, uint32 winnersExpected, uint32 entrantCount, uint64 totalWeight, bytes32 tableId, uint32 tableVersion, uint64 largePrizeThresholdCents)",
  "event EntropyRequested(bytes32 indexed campaignId, uint64 indexed number, address provider, uint64 sequence, uint256 fee)",
]);

/** Pyth Entropy v2's events (EntropyEventsV2.sol). */
export const ENTROPY_ABI = parseAbi([
  "event Requested(address indexed provider, address indexed caller, uint64 indexed sequenceNumber, bytes32 userContribution, uint32 gasLimit, bytes extraArgs)",
  "event Revealed(address indexed provider, address indexed caller, uint64 indexed sequenceNumber, bytes32 randomNumber, bytes32 userContribution, bytes32 providerContribution, bool callbackFailed, bytes callbackReturnValue, uint32 callbackGasUsed, bytes extraArgs)",
]);

export const MOCK_PROVIDER = "0x6cc14824ea2918f5de5c2f75a9da968ad4bd6344";
const ZERO32 = `0x${"00".repeat(32)}` as Hex;
const PAYOUT_WALLET = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc" as Hex;

type Log = {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  transactionHash: Hex;
  transactionIndex: Hex;
  logIndex: Hex;
};

/** What the fake chain says about one drawing; each field defaults to agreeing with the proof. */
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
  /** The last this many prizes are awarded by a later `settle` transaction, 12,345 blocks after the reveal. */
  laterPrizes?: number;
  commitReceiptMissing?: boolean;
  commitReverted?: boolean;
  getLogsRangeLimit?: number;
  /** The events of a PrizeDraw contract before drawing slots (no slot, draw time or user contribution). */
  legacyEvents?: boolean;
  /** DrawingCommitted's slot (default keccak256 of drawing.id) and draw time (default drawing.drawAt). */
  slot?: Hex;
  drawAt?: number;
  /** EntropyRequested's userRandomNumber (default derived from the commit). */
  userRandomNumber?: Hex;
  /** The Entropy contract's Requested.userContribution (default the derived one). */
  entropyUserContribution?: Hex;
  /** The Entropy contract's successful Revealed: user and provider contributions and random number. */
  revealedUser?: Hex;
  revealedProvider?: Hex;
  revealedRandomNumber?: Hex;
  /** A Revealed with callbackFailed true one block before the reveal (a failed callback, retried), with this value. */
  failedReveal?: Hex;
  /** No Entropy contract events at all. */
  noEntropyEvents?: boolean;
  /** What PrizeDraw.entropy() answers (default the proof's chain.entropy). */
  entropyGetter?: Hex;
  /** Committed and requested, not revealed yet (no reveal, prizes or winners). */
  unrevealed?: boolean;
  /**
   * Version 4 proofs (the current contract): the other drawings committed and requested with this one in the commit
   * transaction (default DEFAULT_BATCH_OTHERS) and this drawing's place among them (default the proof's batch.index).
   * `batchSizeEvent` overrides the batchSize the events carry.
   */
  batchOthers?: BatchMember[];
  batchIndex?: number;
  batchSizeEvent?: number;
  /** The block of the commit (default 100). */
  commitBlock?: number;
  /** The chain head (default commit block + 5000). */
  latestBlock?: number;
  /** The block eth_getBlockByNumber("finalized") answers (default 10 below the latest); null: the node refuses the tag. */
  finalizedBlock?: number | null;
  /**
   * Version 5 proofs: `sequence` and `provider` above are the commit's request (default the proof's previous one).
   * The re-request's block (default commit block + timeoutBlocks + 1; the reveal then defaults to 2 blocks later),
   * what its EntropyReRequested says (the previous and the new request, the user contribution), what Entropy's
   * Requested of the new request carries, what revealTimeoutBlocks() answers (null: the call reverts), a re-request
   * transaction that is missing, reverted or without the event, and a late reveal of the previous request (which
   * the contract ignores) with this value.
   */
  reRequestBlock?: number;
  reRequestPreviousProvider?: string;
  reRequestPreviousSequence?: bigint;
  reRequestProvider?: string;
  reRequestSequence?: bigint;
  reRequestUserRandomNumber?: Hex;
  reRequestEntropyUserContribution?: Hex;
  revealTimeoutBlocks?: number | null;
  reRequestReceiptMissing?: boolean;
  reRequestReverted?: boolean;
  reRequestEventMissing?: boolean;
  latePreviousReveal?: Hex;
  /**
   * Version 6: the hash of a block (default chainBlockHash), what the reveal's EntropyRevealed says it mixed in
   * (default the hash of the request's block on this chain) and the drawing value it reports (default drawValue of
   * the two), and the EntropyRevealed of a contract before the block hash instead (a version 5 contract).
   */
  blockHashes?: Record<number, Hex>;
  revealedRequestBlockHash?: Hex;
  revealedDrawValue?: Hex;
  entropyValueEvent?: boolean;
  /**
   * Reveals the contract discarded as too late (EntropyRevealTooLate, in a transaction of its own): of the commit's
   * request or of the re-request's, in `block`, naming `requestBlock` (default the request's block). A re-requested
   * drawing whose commit's request was revealed too late is re-requested in the next block unless reRequestBlock says.
   */
  tooLate?: { of: "commit" | "reRequest"; block: number; requestBlock?: number }[];
};

/** A bare commit, for commits that no proof describes. */
export type BareCommit = { campaignId: string; number: number; slot: Hex; drawAt: number; block: number };

const hex = (n: number | bigint): Hex => `0x${n.toString(16)}`;
const unix = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** The DrawingCommitted arguments of a winners list on the default table: a commit other than the proof's own drawing. */
const otherCommitArgs = (c: { campaignId: string; number: number; slot: Hex; drawAt: number; listCommitment: Hex; winnersExpected: number }) => ({
  campaignId: idToBytes32(c.campaignId),
  number: BigInt(c.number),
  slot: c.slot,
  drawAt: c.drawAt,
  kind: 0,
  listCommitment: c.listCommitment,
  winnersExpected: c.winnersExpected,
  entrantCount: 0,
  totalWeight: 0n,
  tableId: idToBytes32("default"),
  tableVersion: 1,
  largePrizeThresholdCents: 50_000n,
  payoutWallet: PAYOUT_WALLET,
});

export class FakeChain {
  readonly calls: string[] = [];
  /** The [fromBlock, toBlock] of every eth_getLogs call. */
  readonly getLogsRanges: [number, number][] = [];
  private readonly logs: Log[] = [];
  private readonly receipts = new Map<string, unknown>();
  private readonly tables = new Map<string, { weights: number[]; amounts: number[] }>();
  private readonly chainKnobs: ChainKnobs;
  private readonly chainId: number;
  private readonly contract: Hex;
  /** What PrizeDraw.entropy() answers. */
  private readonly entropy: Hex;
  /** Where the Entropy contract's events come from (the proof's chain.entropy). */
  private readonly entropyAddress: Hex;
  /** What PrizeDraw.revealTimeoutBlocks() answers; null: it reverts. */
  private revealTimeout: number | null = DEFAULT_TIMEOUT_BLOCKS;
  private latestBlock = 0;
  /** Blocks whose hash is not chainBlockHash's. */
  private readonly blockHashes = new Map<number, Hex>();

  /**
   * One drawing (`proof` with `knobs`), or several (`[{ proof, knobs }]`, chain-wide `knobs` second) on one
   * contract: drawing i is committed at block 100 + 20 i unless its knobs say otherwise.
   */
  constructor(drawings: Proof | { proof: Proof; knobs?: ChainKnobs }[], knobs: ChainKnobs = {}) {
    const list = Array.isArray(drawings) ? drawings : [{ proof: drawings, knobs }];
    this.chainKnobs = Array.isArray(drawings) ? knobs : { ...knobs };
    const first = list[0]!.proof;
    this.chainId = this.chainKnobs.chainId ?? first.chain.chainId;
    this.contract = first.chain.contract;
    this.entropy = (this.chainKnobs.entropyGetter ?? first.chain.entropy ?? ENTROPY_CONTRACT).toLowerCase() as Hex;
    this.entropyAddress = (first.chain.entropy ?? ENTROPY_CONTRACT).toLowerCase() as Hex;
    for (const [n, h] of Object.entries(this.chainKnobs.blockHashes ?? {})) this.blockHashes.set(Number(n), h);
    list.forEach(({ proof, knobs: k = {} }, i) => this.addDrawing(proof, Array.isArray(drawings) ? k : knobs, 100 + 20 * i));
    if (this.chainKnobs.latestBlock !== undefined) this.latestBlock = this.chainKnobs.latestBlock;
  }

  private make(abi: Abi, address: Hex, eventName: string, args: Record<string, unknown>, block: number, tx: Hex, logIndex: number): Log {
    const event = abi.find((x) => x.type === "event" && x.name === eventName);
    if (!event || event.type !== "event") throw new Error(`no event ${eventName}`);
    const indexed = Object.fromEntries(event.inputs.filter((i) => i.indexed).map((i) => [i.name!, args[i.name!]]));
    const topics = encodeEventTopics({ abi, eventName, args: indexed } as never) as Hex[];
    const inputs = event.inputs.filter((i) => !i.indexed);
    const data = encodeAbiParameters(inputs, inputs.map((i) => args[i.name!]) as never);
    this.latestBlock = Math.max(this.latestBlock, block + 5000);
    return { address, topics, data, blockNumber: hex(block), transactionHash: tx, transactionIndex: "0x0", logIndex: hex(logIndex) };
  }

  /** The hash of block `n` on this chain. */
  blockHash(n: number): Hex {
    return this.blockHashes.get(n) ?? chainBlockHash(n);
  }

  private receipt(tx: Hex, block: number, logs: Log[], status = "0x1") {
    this.receipts.set(tx.toLowerCase(), { transactionHash: tx, blockNumber: hex(block), blockHash: this.blockHash(block), transactionIndex: "0x0", status, logs });
  }

  /** A DrawingCommitted no proof describes (the current event layout), in a transaction of its own. */
  addCommit(c: BareCommit & { listCommitment?: Hex }): void {
    const tx = keccakHex(`commit ${c.campaignId} #${c.number} ${c.slot}`);
    const log = this.make(
      PRIZE_DRAW_ABI,
      this.contract,
      "DrawingCommitted",
      otherCommitArgs({ ...c, listCommitment: c.listCommitment ?? keccakHex("some list"), winnersExpected: 1 }),
      c.block,
      tx,
      0,
    );
    this.logs.push(log);
    this.receipt(tx, c.block, [log]);
  }

  private addDrawing(p: Proof, k: ChainKnobs, defaultCommitBlock: number): void {
    const contract = p.chain.contract;
    const campaignId = idToBytes32(p.campaign.id);
    const number = BigInt(p.drawing.number);
    const isEntries = p.entrants !== null;
    const mock = p.entropy.provider === "mock";
    // Re-requested: the commit's request is the previous one; the new one (the re-request's) is revealed.
    const re = p.proofVersion >= 5 ? (p.entropy.reRequest ?? undefined) : undefined;
    for (const n of Object.keys(k.blockHashes ?? {})) this.blockHashes.set(Number(n), k.blockHashes![Number(n)]!);
    const lateCommit = (k.tooLate ?? []).find((t) => t.of === "commit");
    const provider = (k.provider ?? re?.previousProvider ?? (mock ? MOCK_PROVIDER : p.entropy.provider)) as Hex;
    const sequence = k.sequence ?? BigInt(re?.previousRequestId ?? p.entropy.requestId);
    const servedProvider = re ? ((k.reRequestProvider ?? (mock ? MOCK_PROVIDER : p.entropy.provider)) as Hex) : provider;
    const servedSequence = re ? (k.reRequestSequence ?? BigInt(p.entropy.requestId)) : sequence;
    const commitBlock = k.commitBlock ?? defaultCommitBlock;
    const reRequestBlock = k.reRequestBlock ?? (lateCommit ? lateCommit.block + 1 : commitBlock + (re?.timeoutBlocks ?? 0) + 1);
    const revealBlock = k.revealBlock ?? (re ? reRequestBlock : commitBlock) + 2;
    const listCommitment = k.listCommitment ?? (isEntries ? p.entrants!.commitment : p.winnerList.commitment);
    const slot = k.slot ?? p.drawing.slot ?? drawingSlot(p.drawing.id);
    const ownUser = userRandomNumber(p.campaign.id, p.drawing.number, slot, isEntries ? p.entrants!.commitment : p.winnerList.commitment);
    const abi = k.legacyEvents ? LEGACY_PRIZE_DRAW_ABI : PRIZE_DRAW_ABI;
    // Versions 4 and 5: the current contract's batch. The other members are committed (and requested) in the same transaction.
    const batched = p.proofVersion >= 4;
    const self: BatchMember = { campaignId: p.campaign.id, number: p.drawing.number, slot, listCommitment: isEntries ? p.entrants!.commitment : p.winnerList.commitment };
    const batchIndex = k.batchIndex ?? p.entropy.batch?.index ?? 0;
    const members = batched ? batchMembers(self, batchIndex, k.batchOthers ?? DEFAULT_BATCH_OTHERS) : [self];
    const derivedUser = batched ? batchUserRandomNumber(members.map(contributionOf)) : ownUser;
    this.tables.set(`${p.prizeTable.id}/${p.prizeTable.version}`, {
      weights: k.tableMissing ? [] : (k.tableWeights ?? p.prizeTable.tiers.map((x) => x.weight)),
      amounts: p.prizeTable.tiers.map((x) => x.amountCents),
    });

    // An unrelated log from another contract first: the verifier must pick the right emitter.
    const foreign: Log = {
      address: "0x00000000000000000000000000000000000000aa",
      topics: encodeEventTopics({ abi: PRIZE_DRAW_ABI, eventName: "EntropyRevealed", args: { campaignId, number } }) as Hex[],
      data: encodeAbiParameters([{ type: "address" }, { type: "uint64" }, { type: "bytes32" }], [provider, sequence, keccakHex("not this one")]),
      blockNumber: hex(commitBlock),
      transactionHash: p.chain.commitTx,
      transactionIndex: "0x0",
      logIndex: "0x0",
    };
    const committed = this.make(
      abi,
      contract,
      "DrawingCommitted",
      {
        campaignId,
        number,
        slot,
        drawAt: k.drawAt ?? unix(p.drawing.drawAt),
        kind: isEntries ? 1 : 0,
        listCommitment,
        winnersExpected: k.winnersExpected ?? p.winnerList.winners.length,
        entrantCount: k.entrantCount ?? (isEntries ? p.entrants!.count : 0),
        totalWeight: BigInt(k.totalWeight ?? (isEntries ? p.entrants!.totalWeight : 0)),
        tableId: idToBytes32(k.tableId ?? p.prizeTable.id),
        tableVersion: k.tableVersion ?? p.prizeTable.version,
        largePrizeThresholdCents: 50_000n,
        payoutWallet: PAYOUT_WALLET,
      },
      commitBlock,
      p.chain.commitTx,
      k.requestBeforeCommit ? 3 : 1,
    );
    const entropyRequested = this.make(
      ENTROPY_ABI,
      this.entropyAddress,
      "Requested",
      { provider, caller: contract, sequenceNumber: sequence, userContribution: k.entropyUserContribution ?? derivedUser, gasLimit: 500_000, extraArgs: "0x" },
      commitBlock,
      p.chain.commitTx,
      2,
    );
    const requestArgs = (m: BatchMember, i: number) => ({
      campaignId: idToBytes32(m.campaignId),
      number: BigInt(m.number),
      provider,
      sequence,
      fee: 1000n,
      userRandomNumber: k.userRandomNumber ?? derivedUser,
      batchIndex: BigInt(i),
      batchSize: BigInt(k.batchSizeEvent ?? members.length),
    });
    const requested = this.make(
      batched ? BATCH_PRIZE_DRAW_ABI : abi,
      contract,
      "EntropyRequested",
      batched ? requestArgs(self, batchIndex) : { campaignId, number, provider, sequence, fee: 1000n, userRandomNumber: k.userRandomNumber ?? derivedUser },
      commitBlock,
      p.chain.commitTx,
      k.requestBeforeCommit ? 1 : 3,
    );
    // The other members' commits and requests (log indexes 10 and up, after this drawing's).
    const otherLogs = members.flatMap((m, i) => {
      if (m === self) return [];
      const logIndex = 10 + 2 * i;
      const otherCommitted = this.make(
        PRIZE_DRAW_ABI,
        contract,
        "DrawingCommitted",
        otherCommitArgs({ ...m, drawAt: unix(p.drawing.drawAt) - 3600, winnersExpected: 3 }),
        commitBlock,
        p.chain.commitTx,
        logIndex,
      );
      return [otherCommitted, this.make(BATCH_PRIZE_DRAW_ABI, contract, "EntropyRequested", requestArgs(m, i), commitBlock, p.chain.commitTx, logIndex + 1)];
    });
    const commitLogs = [foreign, committed, ...(k.noEntropyEvents ? [] : [entropyRequested]), requested, ...otherLogs];
    this.logs.push(...commitLogs);
    if (!k.commitReceiptMissing) this.receipt(p.chain.commitTx, commitBlock, commitLogs, k.commitReverted ? "0x0" : "0x1");
    if (re) this.addReRequest(p, k, { contract, members, provider, sequence, servedProvider, servedSequence, block: reRequestBlock, revealBlock });
    for (const t of k.tooLate ?? []) {
      const [of, ofSequence, ofBlock] = t.of === "commit" ? [provider, sequence, commitBlock] : [servedProvider, servedSequence, reRequestBlock];
      const lateTx = keccakHex(`too late ${t.of} ${p.chain.commitTx}`);
      const log = this.make(BLOCK_HASH_PRIZE_DRAW_ABI, contract, "EntropyRevealTooLate", { provider: of, sequence: ofSequence, requestBlock: BigInt(t.requestBlock ?? ofBlock), entropyValue: keccakHex(`late value ${t.of}`) }, t.block, lateTx, 0);
      this.logs.push(log);
      this.receipt(lateTx, t.block, [log]);
    }
    if (k.unrevealed) return;

    // Entropy's value: version 6 proofs keep it in revealedValue.
    const value = k.randomValue ?? p.entropy.revealedValue ?? p.entropy.value;
    const revealLogs: Log[] = [];
    if (!k.noEntropyEvents) {
      const realUser = p.entropy.userContribution ?? derivedUser;
      const revealedArgs = (randomNumber: Hex, failed: boolean) => ({
        provider: servedProvider,
        caller: contract,
        sequenceNumber: servedSequence,
        randomNumber,
        userContribution: k.revealedUser ?? (mock ? ZERO32 : realUser),
        providerContribution: k.revealedProvider ?? (mock ? ZERO32 : (p.entropy.providerContribution ?? ZERO32)),
        callbackFailed: failed,
        callbackReturnValue: "0x",
        callbackGasUsed: failed ? 500_000 : 120_000,
        extraArgs: "0x",
      });
      if (k.failedReveal !== undefined) {
        const failedTx = keccakHex(`failed reveal of ${p.chain.revealTx}`);
        const failedLog = this.make(ENTROPY_ABI, this.entropyAddress, "Revealed", revealedArgs(k.failedReveal, true), revealBlock - 1, failedTx, 0);
        this.logs.push(failedLog);
        this.receipt(failedTx, revealBlock - 1, [failedLog]);
      }
      revealLogs.push(this.make(ENTROPY_ABI, this.entropyAddress, "Revealed", revealedArgs(k.revealedRandomNumber ?? value, false), revealBlock, p.chain.revealTx, 99));
    }
    // Version 6: the contract mixes the hash of the request's block on this chain into the value.
    const requestBlockHash = k.revealedRequestBlockHash ?? this.blockHash(re ? reRequestBlock : commitBlock);
    const revealed =
      p.proofVersion >= 6 && !k.entropyValueEvent
        ? this.make(
            BLOCK_HASH_PRIZE_DRAW_ABI,
            contract,
            "EntropyRevealed",
            { campaignId, number, provider: servedProvider, sequence: servedSequence, entropyValue: value, requestBlockHash, randomValue: k.revealedDrawValue ?? drawValue(value, requestBlockHash) },
            revealBlock,
            p.chain.revealTx,
            0,
          )
        : this.make(PRIZE_DRAW_ABI, contract, "EntropyRevealed", { campaignId, number, provider: servedProvider, sequence: servedSequence, randomValue: value }, revealBlock, p.chain.revealTx, 0);
    const prizes = p.results.slice(0, p.results.length - (k.missingPrizes ?? 0)).map((r, i) =>
      this.make(
        PRIZE_DRAW_ABI,
        contract,
        "PrizeAwarded",
        {
          campaignId,
          number,
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
    const settled = prizes.splice(prizes.length - (k.laterPrizes ?? 0), k.laterPrizes ?? 0);
    if (settled.length) {
      const settleTx = keccakHex(`settle ${p.chain.revealTx}`);
      const settleBlock = revealBlock + 12_345;
      for (const log of settled) log.blockNumber = hex(settleBlock);
      for (const log of settled) log.transactionHash = settleTx;
      this.logs.push(...settled);
      this.receipt(settleTx, settleBlock, settled);
      this.latestBlock = Math.max(this.latestBlock, settleBlock + 10);
    }
    revealLogs.unshift(revealed, ...prizes);
    this.logs.push(...revealLogs);
    if (isEntries && k.winnersCommitment !== null) {
      const recordTx = keccakHex(`record winners tx ${p.chain.revealTx}`);
      this.logs.push(
        this.make(
          PRIZE_DRAW_ABI,
          contract,
          "WinnersRecorded",
          { campaignId, number, winnersCommitment: k.winnersCommitment ?? p.winnerList.commitment, winnerCount: BigInt(p.winnerList.winners.length) },
          revealBlock + 1,
          recordTx,
          0,
        ),
      );
    }
    this.receipt(p.chain.revealTx, revealBlock, revealLogs);
  }

  /**
   * PrizeDraw.reRequest of a version 5 proof's drawing, in its own transaction `block`s after the commit: the batch's
   * EntropyReRequested (one per member) and Entropy's Requested of the new request; and, when asked, Entropy's late
   * reveal of the previous request (PrizeDraw ignores it: no EntropyRevealed).
   */
  private addReRequest(
    p: Proof,
    k: ChainKnobs,
    r: { contract: Hex; members: BatchMember[]; provider: Hex; sequence: bigint; servedProvider: Hex; servedSequence: bigint; block: number; revealBlock: number },
  ): void {
    const re = p.entropy.reRequest!;
    if (k.revealTimeoutBlocks !== undefined) this.revealTimeout = k.revealTimeoutBlocks;
    else this.revealTimeout = re.timeoutBlocks;
    const tx = re.requestTx;
    const user = k.reRequestUserRandomNumber ?? reRequestUserRandomNumber(r.provider, r.sequence);
    const events = k.reRequestEventMissing
      ? []
      : r.members.map((m, i) =>
          this.make(
            PRIZE_DRAW_ABI,
            r.contract,
            "EntropyReRequested",
            {
              campaignId: idToBytes32(m.campaignId),
              number: BigInt(m.number),
              previousProvider: (k.reRequestPreviousProvider ?? r.provider) as Hex,
              previousSequence: k.reRequestPreviousSequence ?? r.sequence,
              provider: r.servedProvider,
              sequence: r.servedSequence,
              fee: 1000n,
              userRandomNumber: user,
              by: "0x90f79bf6eb2c4f870365e785982e1f101e93b906",
            },
            r.block,
            tx,
            1 + i,
          ),
        );
    const entropyRequested = this.make(
      ENTROPY_ABI,
      this.entropyAddress,
      "Requested",
      { provider: r.servedProvider, caller: r.contract, sequenceNumber: r.servedSequence, userContribution: k.reRequestEntropyUserContribution ?? user, gasLimit: 500_000, extraArgs: "0x" },
      r.block,
      tx,
      0,
    );
    const logs = [...(k.noEntropyEvents ? [] : [entropyRequested]), ...events];
    this.logs.push(...logs);
    if (!k.reRequestReceiptMissing) this.receipt(tx, r.block, logs, k.reRequestReverted ? "0x0" : "0x1");
    if (k.latePreviousReveal !== undefined) {
      const lateTx = keccakHex(`late reveal of ${re.previousRequestId}`);
      const late = this.make(
        ENTROPY_ABI,
        this.entropyAddress,
        "Revealed",
        {
          provider: r.provider,
          caller: r.contract,
          sequenceNumber: r.sequence,
          randomNumber: k.latePreviousReveal,
          userContribution: ZERO32,
          providerContribution: ZERO32,
          callbackFailed: false,
          callbackReturnValue: "0x",
          callbackGasUsed: 30_000,
          extraArgs: "0x",
        },
        r.revealBlock - 1,
        lateTx,
        0,
      );
      this.logs.push(late);
      this.receipt(lateTx, r.revealBlock - 1, [late]);
    }
  }

  private answer(method: string, params: unknown[]): { result?: unknown; error?: { code: number; message: string } } {
    const k = this.chainKnobs;
    switch (method) {
      case "eth_chainId":
        return { result: hex(this.chainId) };
      case "eth_blockNumber":
        return { result: hex(this.latestBlock) };
      case "eth_getBlockByNumber": {
        if (typeof params[0] === "string" && /^0x[0-9a-f]+$/i.test(params[0])) {
          const n = Number(BigInt(params[0]));
          return { result: n > this.latestBlock ? null : { number: hex(n), hash: this.blockHash(n), parentHash: n > 0 ? this.blockHash(n - 1) : `0x${"00".repeat(32)}` } };
        }
        if (params[0] !== "finalized") return { error: { code: -32602, message: "only the finalized tag and block numbers are served" } };
        const finalized = this.chainKnobs.finalizedBlock === undefined ? this.latestBlock - 10 : this.chainKnobs.finalizedBlock;
        return finalized === null ? { error: { code: -32602, message: "unknown block tag finalized" } } : { result: { number: hex(finalized) } };
      }
      case "eth_getTransactionReceipt":
        return { result: this.receipts.get(String(params[0]).toLowerCase()) ?? null };
      case "eth_getLogs": {
        const f = params[0] as { address: string; topics: (string | string[] | null)[]; fromBlock: string; toBlock: string };
        const from = Number(BigInt(f.fromBlock));
        const to = f.toBlock === "latest" ? this.latestBlock : Number(BigInt(f.toBlock));
        this.getLogsRanges.push([from, to]);
        if (k.getLogsRangeLimit !== undefined && to - from + 1 > k.getLogsRangeLimit) {
          return { error: { code: -32005, message: `block range too large (limit ${k.getLogsRangeLimit})` } };
        }
        const result = this.logs.filter(
          (l) =>
            l.address.toLowerCase() === f.address.toLowerCase() &&
            Number(BigInt(l.blockNumber)) >= from &&
            Number(BigInt(l.blockNumber)) <= to &&
            // A position given as a list matches any of its topics.
            f.topics.every((t, i) => t === null || (Array.isArray(t) ? t : [t]).some((x) => l.topics[i]?.toLowerCase() === x.toLowerCase())),
        );
        return { result };
      }
      case "eth_call": {
        const call = params[0] as { to: string; data: Hex };
        if (call.to.toLowerCase() !== this.contract.toLowerCase()) return { result: "0x" };
        if (call.data.slice(0, 10) === toFunctionSelector("entropy()")) {
          return { result: encodeFunctionResult({ abi: PRIZE_DRAW_ABI, functionName: "entropy", result: this.entropy }) };
        }
        if (call.data.slice(0, 10) === toFunctionSelector("revealTimeoutBlocks()")) {
          if (this.revealTimeout === null) return { error: { code: 3, message: "execution reverted" } };
          return { result: encodeFunctionResult({ abi: PRIZE_DRAW_ABI, functionName: "revealTimeoutBlocks", result: BigInt(this.revealTimeout) }) };
        }
        const { args } = decodeFunctionData({ abi: PRIZE_DRAW_ABI, data: call.data });
        const [tableId, version] = args as readonly [Hex, number];
        const known = [...this.tables.entries()].find(([key]) => {
          const [id, v] = key.split("/");
          return idToBytes32(id!) === tableId && Number(v) === version;
        });
        if (!known || known[1].weights.length === 0) return { error: { code: 3, message: "execution reverted: PrizeTableNotFound" } };
        const { weights, amounts } = known[1];
        let sum = 0;
        const thresholds = weights.map((w) => (sum += w));
        return {
          result: encodeFunctionResult({
            abi: PRIZE_DRAW_ABI,
            functionName: "getPrizeTable",
            result: [BigInt(sum), amounts.map(BigInt), weights.map(BigInt), thresholds.map(BigInt)],
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
