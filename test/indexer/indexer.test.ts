// The Ponder indexer for real: anvil, the contracts deployed by deployLocal, `ponder start` on a fresh data dir.
// Drives a full cycle (table, campaign, winner draw with a settle batch, payout, guarantee picked and paid, entrant
// draw with recordWinners, held prizes paid and refused, an ignored callback) and checks that every event is readable through the indexer's
// HTTP routes after its receipt (the latency is reported, not asserted), equal to what the contract says. Then restarts Ponder on the same data.

import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createClient } from "@ponder/client";
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  http,
  keccak256,
  parseEventLogs,
  toHex,
  type Abi,
  type Address,
  type ContractFunctionArgs,
  type ContractFunctionName,
  type Hex,
  type TransactionReceipt,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployLocal } from "../../api/src/chain/deploy.js";
import { drawingSlot, userRandomNumber } from "../../api/src/draw/index.js";
import { MockEntropyAbi } from "../../indexer/abis/MockEntropyAbi.js";
import { PrizeDrawAbi } from "../../indexer/abis/PrizeDrawAbi.js";
import { PrizeVaultAbi } from "../../indexer/abis/PrizeVaultAbi.js";
import { TestStablecoinAbi } from "../../indexer/abis/TestStablecoinAbi.js";
import * as ponderSchema from "../../indexer/ponder.schema.js";
import { drawValueAt } from "../support/drawValue.js";
import { freePort, jsonRpc, mineBlocks, startAnvil, startPonder, stop, until, type Proc } from "../support/processes.js";

// Anvil's well-known development keys (public; valid only on a local chain).
const OPERATOR_KEY: Hex = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"; // account 1
const STRANGER_KEY: Hex = "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6"; // account 3

/** How long a row may take to show before the test gives up: liveness, not speed (latency is reported below). */
const VISIBLE_WITHIN_MS = 60_000;
const TABLE_ID = toHex("default", { size: 32 });
const AMOUNTS = [10_000_000n, 100_000n, 10_000n, 2_000n, 1_000n, 500n];
const WEIGHTS = [1n, 10n, 400n, 4_000n, 50_000n, 45_589n];
const STATUS = ["none", "requested", "revealed", "settled", "paid"] as const;
/** Guarantee terms the campaign registers: 25 dollars per day. */
const GUARANTEE_CENTS = 2_500n;
const GUARANTEE_PERIOD = 86_400n;
/** The most a commit pays the randomness provider (wei). */
const MAX_FEE = 10n ** 15n;
/** Draw times strictly increase per campaign: drawing n is drawn n hours after the test's start. */
const DRAW_TIME_BASE = Math.floor(Date.now() / 1000);
/** PrizeDraw.HeldState */
const HELD_STATE = { open: 0, paid: 1, refused: 2 } as const;

/** ASCII right-padded to 32 bytes, like bytes32("summer-daily"). */
function bytes32Ascii(text: string): Hex {
  return `0x${Buffer.from(text, "ascii").toString("hex").padEnd(64, "0")}`;
}

// ------------------------------------------------------------------ JSON shapes served by indexer/src/api

type DrawingJson = {
  id: string;
  campaignId: Hex;
  number: string;
  slot: Hex;
  drawAt: string;
  kind: number;
  listCommitment: Hex;
  winnersCommitment: Hex | null;
  winnersExpected: number;
  entrantCount: number;
  totalWeight: string;
  tableId: Hex;
  tableVersion: string;
  largePrizeThresholdCents: string;
  prizeCount: number;
  provider: Hex | null;
  sequence: string | null;
  fee: string | null;
  userRandomNumber: Hex | null;
  batchIndex: number | null;
  batchSize: number | null;
  commitBlock: string;
  commitTimestamp: string;
  commitTx: Hex;
  previousProvider: Hex | null;
  previousSequence: string | null;
  previousUserRandomNumber: Hex | null;
  reRequestFee: string | null;
  reRequestBy: Hex | null;
  reRequestBlock: string | null;
  reRequestTimestamp: string | null;
  reRequestTx: Hex | null;
  entropyValue: Hex | null;
  requestBlockHash: Hex | null;
  randomValue: Hex | null;
  revealBlock: string | null;
  revealTimestamp: string | null;
  revealTx: Hex | null;
  status: "requested" | "revealed" | "settled" | "paid";
  settledCount: number;
  settleBlock: string | null;
  settleTimestamp: string | null;
  settleTx: Hex | null;
  payoutCents: string | null;
  heldCount: number | null;
  heldCents: string | null;
  winnerCount: number | null;
  winnersRecordedBlock: string | null;
  winnersRecordedTx: Hex | null;
  payoutWallet: Hex;
  payoutTokenAmount: string | null;
  paidBlock: string | null;
  paidTimestamp: string | null;
  payoutTx: Hex | null;
};
type PrizeJson = {
  id: string;
  campaignId: Hex;
  number: string;
  position: number;
  randomValue: Hex;
  roll: string;
  tier: number;
  amountCents: string;
  held: boolean;
  heldStatus: "open" | "paid" | "refused" | null;
  heldReason: string | null;
  heldClosedTx: Hex | null;
  blockNumber: string;
  txHash: Hex;
};
type CampaignJson = {
  id: Hex;
  payoutWallet: Hex;
  largePrizeThresholdCents: string;
  guaranteeCents: string;
  guaranteePeriod: string;
  lastNumber: string;
  registeredBlock: string;
  registeredTx: Hex;
  updatedBlock: string;
};
type PrizeTableJson = {
  id: string;
  tableId: Hex;
  version: string;
  denominator: number;
  amountsCents: number[];
  weights: number[];
  thresholds: number[];
  blockNumber: string;
  timestamp: string;
  txHash: Hex;
};
type PayoutJson = {
  id: string;
  kind: "drawing" | "held" | "guarantee";
  campaignId: Hex;
  number: string | null;
  position: number | null;
  period: number | null;
  wallet: Hex;
  amountCents: string;
  tokenAmount: string;
  blockNumber: string;
  logIndex: number;
  timestamp: string;
  txHash: Hex;
};
/** A drawing of the same randomness request, as /drawings/:campaignId/:number lists it. */
type BatchMemberJson = { campaignId: Hex; number: string; slot: Hex; listCommitment: Hex; batchIndex: number | null };
type HeadJson = { chainId: number | null; blockNumber: string | null; blockTimestamp: string | null; ready: boolean };

// ------------------------------------------------------------------ state

const tmp = mkdtempSync(path.join(os.tmpdir(), "prizedraw-indexer-test-"));
const schemaName = `t_${process.pid}_${Date.now().toString(36)}`;
let anvil: Proc | undefined;
let ponder: Proc | undefined;
let ponderPort = 0;
let rpcUrl = "";
let prizeDraw: Address;
let vault: Address;
let entropy: Address;
let token: Address;
let provider: Address;
let ponderEnv: Record<string, string> = {};
let ponderRuns = 0;

const operator = privateKeyToAccount(OPERATOR_KEY);
const stranger = privateKeyToAccount(STRANGER_KEY);
const payoutWallet1: Address = "0x00000000000000000000000000000000000a11ce";
const payoutWallet2: Address = "0x000000000000000000000000000000000000b0b0";
const CAMPAIGN = bytes32Ascii("summer-daily");

let pub: ReturnType<typeof createPublicClient>;
let opWallet: ReturnType<typeof createWalletClient>;
let strangerWallet: ReturnType<typeof createWalletClient>;

const latencies: { label: string; ms: number }[] = [];

// ------------------------------------------------------------------ helpers

function baseUrl(): string {
  return `http://127.0.0.1:${ponderPort}`;
}

async function get<T>(route: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${baseUrl()}${route}`);
  const text = await res.text();
  return { status: res.status, body: (text === "" ? null : JSON.parse(text)) as T };
}

async function launchPonder(env: Record<string, string>): Promise<void> {
  ponderRuns += 1;
  ponder = startPonder({ port: ponderPort, schema: schemaName, env, log: path.join(tmp, `ponder-${ponderRuns}.log`) });
  const p = ponder;
  await until("Ponder /ready", async () => ((await fetch(`${baseUrl()}/ready`).catch(() => undefined))?.status === 200 ? true : undefined), 120_000, 100, p);
}

type Receipt = TransactionReceipt & { seenAt: number };

/** Sends a transaction and polls for its receipt every 5 ms; `seenAt` is when the receipt was first readable. */
async function send<
  const abi extends Abi,
  name extends ContractFunctionName<abi, "nonpayable" | "payable">,
  args extends ContractFunctionArgs<abi, "nonpayable" | "payable", name>,
>(wallet: ReturnType<typeof createWalletClient>, to: Address, abi: abi, functionName: name, args: args, gas?: bigint, value?: bigint): Promise<Receipt> {
  const account = wallet.account;
  if (account === undefined) throw new Error("wallet without account");
  const { request } = await pub.simulateContract({ account, address: to, abi, functionName, args, gas, value } as never);
  const hash = await wallet.writeContract({ ...(request as object), gas } as never);
  const receipt = await until(`receipt of ${functionName}`, () => pub.getTransactionReceipt({ hash }).catch(() => undefined), 10_000, 5);
  const seenAt = performance.now();
  if (receipt.status !== "success") throw new Error(`${functionName} reverted`);
  return { ...receipt, seenAt };
}

const op = <name extends ContractFunctionName<typeof PrizeDrawAbi, "nonpayable" | "payable">>(
  functionName: name,
  args: ContractFunctionArgs<typeof PrizeDrawAbi, "nonpayable" | "payable", name>,
) => send(opWallet, prizeDraw, PrizeDrawAbi, functionName, args);

/** The operator's call to the vault (held-prize decisions, guarantee picks) or anyone's (a guarantee's payment). */
const vaultOp = <name extends ContractFunctionName<typeof PrizeVaultAbi, "nonpayable" | "payable">>(
  functionName: name,
  args: ContractFunctionArgs<typeof PrizeVaultAbi, "nonpayable" | "payable", name>,
) => send(opWallet, vault, VAULT_CALL_ABI, functionName, args as never);

/** The vault's ABI with the engine's errors, which its calls pass on (NotHeldPrize, CampaignNotRegistered). */
const VAULT_CALL_ABI = [...PrizeVaultAbi, ...PrizeDrawAbi.filter((item) => item.type === "error")] as const;

/** The contract's custom error name a refused call reverts with (its simulation's), or a failure when it is sent. */
async function revertName(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error === undefined) throw new Error("expected a revert, the call succeeded");
  if (!(error instanceof BaseError)) throw error;
  const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(revert instanceof ContractFunctionRevertedError)) throw error;
  return revert.data?.errorName ?? revert.reason ?? "UnknownRevert";
}

/** Polls `route` until `ready(body)` holds and records the latency from the receipt. */
async function visible<T>(label: string, receipt: Receipt, route: string, ready: (body: T) => boolean): Promise<T> {
  const body = await until(
    `${label} via ${route}`,
    async () => {
      const res = await get<T>(route);
      return res.status === 200 && ready(res.body) ? res.body : undefined;
    },
    VISIBLE_WITHIN_MS,
    10,
    ponder,
  );
  const ms = performance.now() - receipt.seenAt;
  latencies.push({ label, ms });
  return body;
}

/** Like `visible`, over /sql with the typed @ponder/client (tables without an HTTP route). */
async function visibleSql<T>(label: string, receipt: Receipt, read: () => Promise<T>, ready: (rows: T) => boolean): Promise<T> {
  const rows = await until(
    `${label} over /sql`,
    async () => {
      const r = await read();
      return ready(r) ? r : undefined;
    },
    VISIBLE_WITHIN_MS,
    10,
    ponder,
  );
  const ms = performance.now() - receipt.seenAt;
  latencies.push({ label: `${label} (/sql)`, ms });
  return rows;
}

const sqlClient = () => createClient(`${baseUrl()}/sql`, { schema: ponderSchema });

function prizeDrawLogs(receipt: TransactionReceipt) {
  return parseEventLogs({ abi: PrizeDrawAbi, logs: receipt.logs.filter((l) => l.address.toLowerCase() === prizeDraw.toLowerCase()) });
}

function vaultLogs(receipt: TransactionReceipt) {
  return parseEventLogs({ abi: PrizeVaultAbi, logs: receipt.logs.filter((l) => l.address.toLowerCase() === vault.toLowerCase()) });
}

const drawingRoute = (number: bigint) => `/drawings/${CAMPAIGN}/${number}`;

/** The indexed drawing equals PrizeDraw.getDrawing field by field. */
async function expectDrawingMatchesContract(d: DrawingJson): Promise<void> {
  const v = await pub.readContract({ address: prizeDraw, abi: PrizeDrawAbi, functionName: "getDrawing", args: [d.campaignId, BigInt(d.number)] });
  expect(d.status).toBe(STATUS[v.status]);
  expect(d.kind).toBe(v.kind);
  expect(d.listCommitment).toBe(v.listCommitment.toLowerCase());
  const zero = `0x${"0".repeat(64)}`;
  expect(d.winnersCommitment ?? zero).toBe(v.winnersCommitment.toLowerCase());
  expect(d.winnersExpected).toBe(v.winnersExpected);
  expect(d.entrantCount).toBe(v.entrantCount);
  expect(d.totalWeight).toBe(v.totalWeight.toString());
  expect(d.tableId).toBe(v.tableId.toLowerCase());
  expect(d.tableVersion).toBe(String(v.tableVersion));
  expect(d.largePrizeThresholdCents).toBe(v.largePrizeThresholdCents.toString());
  // The provider is not stored onchain (it is in EntropyRequested, checked by commit()); the wallet is.
  expect(d.payoutWallet).toBe(v.payoutWallet.toLowerCase());
  expect(d.sequence).toBe(v.sequence.toString());
  expect(d.randomValue ?? zero).toBe(v.randomValue.toLowerCase());
  expect(d.revealTimestamp ?? "0").toBe(String(v.revealedAt));
  expect(d.prizeCount).toBe(v.prizeCount);
  expect(d.settledCount).toBe(v.settledCount);
  if (d.status === "settled" || d.status === "paid") {
    expect(d.payoutCents).toBe(v.payoutCents.toString());
    expect(d.heldCents).toBe(v.heldCents.toString());
    expect(d.heldCount).toBe(v.heldCount);
  }
}

/** Every PrizeAwarded log of `receipts` has its row, equal field by field, and matches PrizeDraw.prizeAt. */
async function expectPrizesMatchLogs(prizes: PrizeJson[], receipts: TransactionReceipt[]): Promise<void> {
  const awarded = receipts.flatMap((r) =>
    prizeDrawLogs(r)
      .filter((l) => l.eventName === "PrizeAwarded")
      .map((l) => ({ log: l, receipt: r })),
  );
  expect(prizes.length).toBe(awarded.length);
  for (const { log, receipt } of awarded) {
    if (log.eventName !== "PrizeAwarded") continue;
    const a = log.args;
    const row = prizes[Number(a.position)];
    expect(row).toBeDefined();
    if (row === undefined) continue;
    expect(row).toMatchObject({
      id: `${a.campaignId.toLowerCase()}:${a.number}:${a.position}`,
      campaignId: a.campaignId.toLowerCase(),
      number: a.number.toString(),
      position: Number(a.position),
      randomValue: a.randomValue.toLowerCase(),
      roll: a.roll.toString(),
      tier: Number(a.tier),
      amountCents: a.amountCents.toString(),
      held: a.held,
      blockNumber: receipt.blockNumber.toString(),
      txHash: receipt.transactionHash.toLowerCase(),
    });
  }
  // Spot-check a few positions against the contract's own recomputation.
  for (const row of [prizes[0], prizes[prizes.length - 1]]) {
    if (row === undefined) continue;
    const [randomValue, roll, tier, amountCents, held] = await pub.readContract({
      address: prizeDraw,
      abi: PrizeDrawAbi,
      functionName: "prizeAt",
      args: [row.campaignId, BigInt(row.number), BigInt(row.position)],
    });
    expect([row.randomValue, row.roll, row.tier, row.amountCents, row.held]).toEqual([
      randomValue.toLowerCase(),
      roll.toString(),
      Number(tier),
      amountCents.toString(),
      held,
    ]);
  }
}

async function commit(number: bigint, kind: 0 | 1, winnersExpected: number, entrantCount = 0, totalWeight = 0n) {
  const listCommitment = keccak256(toHex(`list-${number}`));
  const slot = drawingSlot(`drw_indexer_${number}`);
  const drawAt = DRAW_TIME_BASE + Number(number) * 3600;
  const [, campaignWallet] = await pub.readContract({ address: prizeDraw, abi: PrizeDrawAbi, functionName: "getCampaign", args: [CAMPAIGN] });
  const gasLimit = await pub.readContract({ address: prizeDraw, abi: PrizeDrawAbi, functionName: "callbackGasLimit" });
  const fee = await pub.readContract({ address: entropy, abi: MockEntropyAbi, functionName: "getFeeV2", args: [provider, gasLimit] });
  const receipt = await send(
    opWallet,
    prizeDraw,
    PrizeDrawAbi,
    "commitAndRequest",
    [[{ campaignId: CAMPAIGN, number, slot, drawAt, kind, listCommitment, winnersExpected, entrantCount, totalWeight, tableId: TABLE_ID, tableVersion: 1 }], MAX_FEE],
    undefined,
    fee,
  );
  const logs = prizeDrawLogs(receipt);
  expect(logs.map((l) => l.eventName)).toEqual(["DrawingCommitted", "EntropyRequested"]);
  const committed = logs[0];
  if (committed?.eventName !== "DrawingCommitted") throw new Error("no DrawingCommitted");
  expect(committed.args).toMatchObject({ slot, drawAt, payoutWallet: campaignWallet });
  const requested = logs[1];
  if (requested?.eventName !== "EntropyRequested") throw new Error("no EntropyRequested");
  expect(requested.args.fee).toBe(fee);
  expect(requested.args.userRandomNumber).toBe(userRandomNumber({ campaignId: CAMPAIGN, number, slot, listCommitment }));
  expect([requested.args.batchIndex, requested.args.batchSize]).toEqual([0n, 1n]);
  const d = await visible<{ drawing: DrawingJson; batchMembers: BatchMemberJson[] }>(`commit #${number}`, receipt, drawingRoute(number), (b) => b.drawing.sequence !== null);
  // A batch of one: the drawing is its request's only member.
  expect(d.batchMembers).toEqual([{ campaignId: CAMPAIGN, number: String(number), slot, listCommitment, batchIndex: 0 }]);
  expect(d.drawing).toMatchObject({
    id: `${CAMPAIGN}:${number}`,
    status: "requested",
    slot,
    drawAt: String(drawAt),
    payoutWallet: campaignWallet.toLowerCase(),
    kind,
    listCommitment,
    winnersCommitment: kind === 0 ? listCommitment : null,
    provider: requested.args.provider.toLowerCase(),
    sequence: requested.args.sequence.toString(),
    fee: requested.args.fee.toString(),
    userRandomNumber: requested.args.userRandomNumber.toLowerCase(),
    batchIndex: 0,
    batchSize: 1,
    commitBlock: receipt.blockNumber.toString(),
    commitTx: receipt.transactionHash,
    randomValue: null,
    settledCount: 0,
  });
  const block = await pub.getBlock({ blockNumber: receipt.blockNumber });
  expect(d.drawing.commitTimestamp).toBe(block.timestamp.toString());
  await expectDrawingMatchesContract(d.drawing);
  return { sequence: requested.args.sequence, provider: requested.args.provider, listCommitment };
}

/** Reveals through MockEntropy (from a stranger's account), finishes with settle() if the callback's share did not cover every position. */
async function revealAndSettle(number: bigint, sequence: bigint, randomValue: Hex): Promise<{ drawing: DrawingJson; prizes: PrizeJson[]; receipts: Receipt[] }> {
  // Explicit gas: MockEntropy forwards all of it to the callback, which settles exactly its commit's
  // callbackPositions (and fails when given less).
  const reveal = await send(strangerWallet, entropy, MockEntropyAbi, "mockReveal", [provider, sequence, randomValue], 3_000_000n);
  const revealLogs = prizeDrawLogs(reveal);
  expect(revealLogs[0]?.eventName).toBe("EntropyRevealed");
  const view = await pub.readContract({ address: prizeDraw, abi: PrizeDrawAbi, functionName: "getDrawing", args: [CAMPAIGN, number] });
  expect(view.settledCount).toBe(Math.min(view.prizeCount, view.callbackPositions));
  const revealed = await visible<{ drawing: DrawingJson; prizes: PrizeJson[] }>(
    `reveal #${number}`,
    reveal,
    drawingRoute(number),
    (b) => b.drawing.randomValue !== null && b.drawing.settledCount === view.settledCount,
  );
  const requestBlock = revealed.drawing.reRequestBlock ?? revealed.drawing.commitBlock;
  expect(revealed.drawing).toMatchObject({
    entropyValue: randomValue.toLowerCase(),
    requestBlockHash: (await pub.getBlock({ blockNumber: BigInt(requestBlock) })).hash,
    randomValue: await drawValueAt(pub, requestBlock, randomValue),
    revealBlock: reveal.blockNumber.toString(),
    revealTx: reveal.transactionHash,
    status: STATUS[view.status],
  });
  await expectDrawingMatchesContract(revealed.drawing);
  const receipts: Receipt[] = [reveal];
  if (STATUS[view.status] === "revealed") {
    // The callback's share did not cover every position: anyone may finish with settle().
    const settle = await send(strangerWallet, prizeDraw, PrizeDrawAbi, "settle", [CAMPAIGN, number, 100_000n], 10_000_000n);
    receipts.push(settle);
    const settled = await visible<{ drawing: DrawingJson }>(`settle #${number}`, settle, drawingRoute(number), (b) => b.drawing.status === "settled");
    expect(settled.drawing.settleTx).toBe(settle.transactionHash);
  } else {
    expect(revealed.drawing.settleTx).toBe(reveal.transactionHash);
  }
  // The drawing and its prizes are two reads of the index, which can fall on either side of Ponder's write of one
  // block: read again until they agree, as the service's IndexerClient does.
  const final = {
    body: await until(
      `drawing #${number} with its prizes`,
      async () => {
        const res = await get<{ drawing: DrawingJson; prizes: PrizeJson[] }>(drawingRoute(number));
        return res.status === 200 && res.body.prizes.length === res.body.drawing.settledCount ? res.body : undefined;
      },
      VISIBLE_WITHIN_MS,
      10,
      ponder,
    ),
  };
  expect(final.body.drawing.status).toBe("settled");
  await expectDrawingMatchesContract(final.body.drawing);
  await expectPrizesMatchLogs(final.body.prizes, receipts);
  const settledLog = receipts.flatMap(prizeDrawLogs).find((l) => l.eventName === "DrawingSettled");
  if (settledLog?.eventName !== "DrawingSettled") throw new Error("no DrawingSettled");
  expect(final.body.drawing).toMatchObject({
    payoutCents: settledLog.args.payoutCents.toString(),
    heldCents: settledLog.args.heldCents.toString(),
    heldCount: Number(settledLog.args.heldCount),
    prizeCount: Number(settledLog.args.prizeCount),
  });
  return { drawing: final.body.drawing, prizes: final.body.prizes, receipts };
}

async function expectPayoutRow(receipt: Receipt, kind: PayoutJson["kind"]): Promise<PayoutJson> {
  const log = [...prizeDrawLogs(receipt), ...vaultLogs(receipt)].find((l) => l.eventName === "DrawingPaid" || l.eventName === "HeldPrizePaid" || l.eventName === "GuaranteePaid");
  if (log === undefined || log.logIndex === null) throw new Error("no payout log");
  const id = `${receipt.transactionHash}:${log.logIndex}`;
  const body = await visible<{ payouts: PayoutJson[] }>(`${kind} payout`, receipt, `/payouts?campaignId=${CAMPAIGN}`, (b) => b.payouts.some((p) => p.id === id));
  const row = body.payouts.find((p) => p.id === id);
  if (row === undefined) throw new Error("unreachable");
  const a = log.args as { wallet: Address; amountCents: bigint; tokenAmount: bigint };
  const block = await pub.getBlock({ blockNumber: receipt.blockNumber });
  expect(row).toMatchObject({
    kind,
    campaignId: CAMPAIGN,
    wallet: a.wallet.toLowerCase(),
    amountCents: a.amountCents.toString(),
    tokenAmount: a.tokenAmount.toString(),
    blockNumber: receipt.blockNumber.toString(),
    logIndex: log.logIndex,
    timestamp: block.timestamp.toString(),
    txHash: receipt.transactionHash,
  });
  // tokens really moved: the token amount is cents x 10^(6-2)
  expect(BigInt(row.tokenAmount)).toBe(BigInt(row.amountCents) * 10_000n);
  return row;
}

// ------------------------------------------------------------------ lifecycle

beforeAll(async () => {
  const anvilPort = await freePort();
  ponderPort = await freePort();
  rpcUrl = `http://127.0.0.1:${anvilPort}`;
  anvil = startAnvil(anvilPort, path.join(tmp, "anvil-state.json"), path.join(tmp, "anvil.log"));
  const transport = http(rpcUrl);
  pub = createPublicClient({ chain: foundry, transport, pollingInterval: 20 });
  opWallet = createWalletClient({ chain: foundry, transport, account: operator, pollingInterval: 20 });
  strangerWallet = createWalletClient({ chain: foundry, transport, account: stranger, pollingInterval: 20 });
  const a = anvil;
  await until("anvil", () => pub.getBlockNumber().then(() => true), 20_000, 50, a);

  const record = await deployLocal({ rpcUrl, dataDir: tmp });
  prizeDraw = record.prizeDraw;
  vault = record.vault!;
  entropy = record.entropy;
  token = record.token;
  provider = record.entropyProvider;

  ponderEnv = {
    PRIZEDRAW_DATA_DIR: tmp,
    PRIZEDRAW_RPC_URL: rpcUrl,
    PRIZEDRAW_CHAIN_ID: String(record.chainId),
    PRIZEDRAW_ADDRESS: record.prizeDraw,
    PRIZEDRAW_VAULT_ADDRESS: record.vault!,
    PRIZEDRAW_START_BLOCK: String(record.deployBlock),
  };
  await launchPonder(ponderEnv);
}, 180_000);

afterAll(async () => {
  await stop(ponder);
  await stop(anvil);
  if (process.env.KEEP_INDEXER_TEST_DIR === undefined) rmSync(tmp, { recursive: true, force: true });
  else console.log(`indexer test data kept in ${tmp}`);
}, 60_000);

// ------------------------------------------------------------------ the cycle

describe("Ponder indexer over a full PrizeDraw cycle", () => {
  let drawing1: { drawing: DrawingJson; prizes: PrizeJson[] } | undefined;

  it("answers /health, /ready, /status, /head, and 400/404 on bad or unknown input", async () => {
    expect((await fetch(`${baseUrl()}/health`)).status).toBe(200);
    expect((await fetch(`${baseUrl()}/ready`)).status).toBe(200);
    const status = await get<Record<string, { id: number; block: { number: number } }>>("/status");
    expect(status.body.chain?.id).toBe(31337);
    const head = await until(
      "head near the chain's",
      async () => {
        const h = (await get<HeadJson>("/head")).body;
        const chainHead = await pub.getBlockNumber();
        return h.blockNumber !== null && BigInt(h.blockNumber) >= chainHead - 1n ? h : undefined;
      },
      5_000,
    );
    expect(head).toMatchObject({ chainId: 31337, ready: true });
    const headBlock = await pub.getBlock({ blockNumber: BigInt(head.blockNumber ?? "0") });
    expect(head.blockTimestamp).toBe(headBlock.timestamp.toString());

    for (const route of [
      "/drawings/0x1234/1",
      `/drawings/${CAMPAIGN}/abc`,
      `/drawings/${CAMPAIGN}/-1`,
      `/drawings/${CAMPAIGN}/1.5`,
      `/drawings/${CAMPAIGN}/18446744073709551616`,
      "/campaigns/summer-daily",
      `/campaigns/${CAMPAIGN}zz/drawings`,
      `/prize-tables/${TABLE_ID}/4294967296`,
      `/prize-tables/nope/1`,
      "/payouts?campaignId=0x12",
    ]) {
      const res = await get<{ error: string; detail: string }>(route);
      expect({ route, status: res.status, error: res.body.error }).toEqual({ route, status: 400, error: "bad_request" });
      expect(res.body.detail).toEqual(expect.any(String));
    }
    for (const route of [drawingRoute(1n), `/campaigns/${CAMPAIGN}`, `/prize-tables/${TABLE_ID}/1`]) {
      const res = await get<{ error: string }>(route);
      expect({ route, status: res.status, body: res.body }).toEqual({ route, status: 404, body: { error: "not_found" } });
    }
    expect((await get<{ drawings: unknown[] }>(`/campaigns/${CAMPAIGN}/drawings`)).body).toEqual({ drawings: [] });
    expect((await get<{ payouts: unknown[] }>("/payouts")).body).toEqual({ payouts: [] });
  });

  it("indexes a published prize table", async () => {
    const receipt = await op("publishPrizeTable", [TABLE_ID, 1, AMOUNTS, WEIGHTS]);
    const row = await visible<PrizeTableJson>("publishPrizeTable", receipt, `/prize-tables/${TABLE_ID}/1`, () => true);
    const [denominator, amounts, weights, thresholds] = await pub.readContract({
      address: prizeDraw,
      abi: PrizeDrawAbi,
      functionName: "getPrizeTable",
      args: [TABLE_ID, 1],
    });
    expect(row).toEqual({
      id: `${TABLE_ID}:1`,
      tableId: TABLE_ID,
      version: "1",
      denominator: Number(denominator),
      amountsCents: amounts.map(Number),
      weights: weights.map(Number),
      thresholds: thresholds.map(Number),
      blockNumber: receipt.blockNumber.toString(),
      timestamp: (await pub.getBlock({ blockNumber: receipt.blockNumber })).timestamp.toString(),
      txHash: receipt.transactionHash,
    });
    expect(row.denominator).toBe(100_000);
    expect(row.thresholds.at(-1)).toBe(100_000);
  });

  it("indexes a campaign, its wallet change and threshold change", async () => {
    const registered = await op("registerCampaign", [CAMPAIGN, payoutWallet1, 100_000_000n, GUARANTEE_CENTS, GUARANTEE_PERIOD]);
    let row = await visible<CampaignJson>("registerCampaign", registered, `/campaigns/${CAMPAIGN}`, () => true);
    expect(row).toEqual({
      id: CAMPAIGN,
      payoutWallet: payoutWallet1,
      largePrizeThresholdCents: "100000000",
      guaranteeCents: GUARANTEE_CENTS.toString(),
      guaranteePeriod: GUARANTEE_PERIOD.toString(),
      lastNumber: "0",
      registeredBlock: registered.blockNumber.toString(),
      registeredTx: registered.transactionHash,
      updatedBlock: registered.blockNumber.toString(),
    });
    const changed = await op("setPayoutWallet", [CAMPAIGN, payoutWallet2]);
    row = await visible<CampaignJson>("setPayoutWallet", changed, `/campaigns/${CAMPAIGN}`, (b) => b.payoutWallet === payoutWallet2);
    expect(row.updatedBlock).toBe(changed.blockNumber.toString());
    const threshold = await op("setLargePrizeThreshold", [CAMPAIGN, 5_000_000n]);
    row = await visible<CampaignJson>("setLargePrizeThreshold", threshold, `/campaigns/${CAMPAIGN}`, (b) => b.largePrizeThresholdCents === "5000000");
    const [registeredFlag, wallet, lastNumber, cents] = await pub.readContract({ address: prizeDraw, abi: PrizeDrawAbi, functionName: "getCampaign", args: [CAMPAIGN] });
    expect(registeredFlag).toBe(true);
    expect([row.payoutWallet, row.lastNumber, row.largePrizeThresholdCents]).toEqual([wallet.toLowerCase(), lastNumber.toString(), cents.toString()]);
    const [guaranteeCents, guaranteePeriod] = await pub.readContract({ address: prizeDraw, abi: PrizeDrawAbi, functionName: "getCampaignTerms", args: [CAMPAIGN] });
    expect([row.guaranteeCents, row.guaranteePeriod]).toEqual([guaranteeCents.toString(), guaranteePeriod.toString()]);
  });

  it("indexes a winner draw from commit to payout, settle batch included", async () => {
    // 300 positions are more than the callback settles ((2,000,000 - 60,000) / 8,000 = 242): the reveal
    // settles part, settle() the rest.
    const { sequence } = await commit(1n, 0, 300);
    const campaign = (await get<CampaignJson>(`/campaigns/${CAMPAIGN}`)).body;
    expect(campaign.lastNumber).toBe("1");
    const settled = await revealAndSettle(1n, sequence, keccak256(toHex("random-1")));
    drawing1 = settled;
    expect(settled.prizes.map((p) => p.position)).toEqual([...Array(300).keys()]);
    expect(settled.receipts).toHaveLength(2); // the reveal and one settle()

    const paid = await op("payout", [CAMPAIGN, 1n]);
    const row = await expectPayoutRow(paid, "drawing");
    expect(row).toMatchObject({ number: "1", position: null, period: null, wallet: payoutWallet2, amountCents: drawing1.drawing.payoutCents });
    const d = await visible<{ drawing: DrawingJson }>("payout drawing row", paid, drawingRoute(1n), (b) => b.drawing.status === "paid");
    expect(d.drawing).toMatchObject({ payoutWallet: payoutWallet2, payoutTokenAmount: row.tokenAmount, paidBlock: paid.blockNumber.toString(), payoutTx: paid.transactionHash, paidTimestamp: row.timestamp });
    await expectDrawingMatchesContract(d.drawing);
  });

  it("indexes a guarantee picked by the operator and paid by anyone", async () => {
    const sql = sqlClient();
    const winnerHash = keccak256(toHex("winner-1"));
    // One drawing committed so far: period 0 is the only one that can need a guarantee.
    expect(await revertName(vaultOp("pickGuarantee", [CAMPAIGN, 1, winnerHash]))).toBe("GuaranteePeriodNotDrawn");
    expect(await revertName(send(strangerWallet, vault, VAULT_CALL_ABI, "pickGuarantee", [CAMPAIGN, 0, winnerHash]))).toBe("AccessManagedUnauthorized");
    // Not before the period's end in block time (a day after the registration): anvil's clock moves there, one block.
    expect(await revertName(vaultOp("pickGuarantee", [CAMPAIGN, 0, winnerHash]))).toBe("GuaranteePeriodNotEnded");
    const endsAt = await pub.readContract({ address: vault, abi: PrizeVaultAbi, functionName: "guaranteePeriodEnd", args: [CAMPAIGN, 0] });
    await jsonRpc(rpcUrl, "evm_setNextBlockTimestamp", [Number(endsAt)]);
    await jsonRpc(rpcUrl, "evm_mine");

    const picked = await vaultOp("pickGuarantee", [CAMPAIGN, 0, winnerHash]);
    const expectedRow = {
      id: `${CAMPAIGN}:0`,
      campaignId: CAMPAIGN,
      period: 0,
      winnerHash,
      wallet: payoutWallet2,
      amountCents: GUARANTEE_CENTS,
      status: "picked",
      pickedTx: picked.transactionHash,
      paidTx: null,
    };
    const pickedRows = await visibleSql("GuaranteePicked", picked, () => sql.db.select().from(ponderSchema.guarantee), (r) => r.length > 0);
    expect(pickedRows).toEqual([expectedRow]);
    expect(await pub.readContract({ address: vault, abi: PrizeVaultAbi, functionName: "getGuarantee", args: [CAMPAIGN, 0] })).toEqual([1, payoutWallet2, GUARANTEE_CENTS]);
    // Once per period: exactly the registered amount, never a second pick.
    expect(await revertName(vaultOp("pickGuarantee", [CAMPAIGN, 0, keccak256(toHex("winner-2"))]))).toBe("GuaranteeAlreadyPicked");

    // payGuarantee is permissionless: the money can only go to the wallet recorded at the pick.
    const paid = await send(strangerWallet, vault, VAULT_CALL_ABI, "payGuarantee", [CAMPAIGN, 0]);
    const row = await expectPayoutRow(paid, "guarantee");
    expect(row).toMatchObject({ period: 0, number: null, position: null, wallet: payoutWallet2, amountCents: GUARANTEE_CENTS.toString() });
    const paidRows = await visibleSql("GuaranteePaid", paid, () => sql.db.select().from(ponderSchema.guarantee), (r) => r[0]?.status === "paid");
    expect(paidRows).toEqual([{ ...expectedRow, status: "paid", paidTx: paid.transactionHash }]);
    expect(await pub.readContract({ address: vault, abi: PrizeVaultAbi, functionName: "getGuarantee", args: [CAMPAIGN, 0] })).toEqual([2, payoutWallet2, GUARANTEE_CENTS]);
    expect(await revertName(vaultOp("payGuarantee", [CAMPAIGN, 0]))).toBe("GuaranteeAlreadyPaid");
  });

  it("indexes an entrant draw with recorded winners", async () => {
    const { sequence } = await commit(2n, 1, 5, 3, 10n);
    const before = (await get<{ drawing: DrawingJson }>(drawingRoute(2n))).body.drawing;
    expect(before).toMatchObject({ winnersCommitment: null, entrantCount: 3, totalWeight: "10", prizeCount: 3 });
    const { drawing, prizes } = await revealAndSettle(2n, sequence, keccak256(toHex("random-2")));
    expect(prizes).toHaveLength(3);
    expect(drawing.winnersCommitment).toBeNull();

    const winnersCommitment = keccak256(toHex("winners-2"));
    const recorded = await op("recordWinners", [CAMPAIGN, 2n, winnersCommitment]);
    const d = await visible<{ drawing: DrawingJson }>("recordWinners", recorded, drawingRoute(2n), (b) => b.drawing.winnersCommitment !== null);
    expect(d.drawing).toMatchObject({ winnersCommitment, winnerCount: 3, winnersRecordedBlock: recorded.blockNumber.toString(), winnersRecordedTx: recorded.transactionHash });
    await expectDrawingMatchesContract(d.drawing);

    const paid = await op("payout", [CAMPAIGN, 2n]);
    await expectPayoutRow(paid, "drawing");
    await visible<{ drawing: DrawingJson }>("payout #2", paid, drawingRoute(2n), (b) => b.drawing.status === "paid");
  });

  it("indexes held prizes and their one-by-one payment or refusal", async () => {
    const lowered = await op("setLargePrizeThreshold", [CAMPAIGN, 500n]);
    await visible<CampaignJson>("setLargePrizeThreshold low", lowered, `/campaigns/${CAMPAIGN}`, (b) => b.largePrizeThresholdCents === "500");
    const { sequence } = await commit(3n, 0, 3);
    const { drawing, prizes } = await revealAndSettle(3n, sequence, keccak256(toHex("random-3")));
    expect(drawing.largePrizeThresholdCents).toBe("500");
    expect(prizes.every((p) => p.held && p.heldStatus === "open" && p.heldReason === null && p.heldClosedTx === null)).toBe(true);
    expect(drawing).toMatchObject({ heldCount: 3, payoutCents: "0" });

    const paid = await op("payout", [CAMPAIGN, 3n]);
    const zeroPayout = await expectPayoutRow(paid, "drawing");
    expect(zeroPayout.amountCents).toBe("0");

    // Held prizes are paid (or refused) after the operator's checks: a stranger cannot pay one.
    expect(await revertName(send(strangerWallet, vault, VAULT_CALL_ABI, "payHeldPrize", [CAMPAIGN, 3n, 0n]))).toBe("AccessManagedUnauthorized");
    const heldState = (position: number) =>
      pub.readContract({ address: vault, abi: PrizeVaultAbi, functionName: "heldPrizeState", args: [CAMPAIGN, 3n, BigInt(position)] });
    for (const position of [0, 2]) {
      const receipt = await vaultOp("payHeldPrize", [CAMPAIGN, 3n, BigInt(position)]);
      const row = await expectPayoutRow(receipt, "held");
      expect(row).toMatchObject({ number: "3", position, period: null, amountCents: prizes[position]?.amountCents });
      const d = await visible<{ prizes: PrizeJson[] }>(`held prize ${position}`, receipt, drawingRoute(3n), (b) => b.prizes[position]?.heldStatus === "paid");
      expect(d.prizes[position]).toMatchObject({ heldClosedTx: receipt.transactionHash, heldReason: null });
      expect(await heldState(position)).toBe(HELD_STATE.paid);
    }
    expect(await heldState(1)).toBe(HELD_STATE.open);

    // Refusing one: the reason is on the record, and nothing is paid.
    const reason = "winner failed the identity check";
    const refused = await vaultOp("refuseHeldPrize", [CAMPAIGN, 3n, 1n, reason]);
    expect(vaultLogs(refused).map((l) => l.eventName)).toEqual(["HeldPrizeRefused", "OwedChanged"]);
    expect(prizeDrawLogs(refused)).toEqual([]);
    const r = await visible<{ prizes: PrizeJson[] }>("held prize refused", refused, drawingRoute(3n), (b) => b.prizes[1]?.heldStatus === "refused");
    expect(r.prizes[1]).toMatchObject({ heldStatus: "refused", heldReason: reason, heldClosedTx: refused.transactionHash, amountCents: prizes[1]?.amountCents });
    expect(await heldState(1)).toBe(HELD_STATE.refused);
    // A closed held prize is closed for good.
    expect(await revertName(vaultOp("payHeldPrize", [CAMPAIGN, 3n, 1n]))).toBe("HeldPrizeClosed");
    expect(await revertName(vaultOp("refuseHeldPrize", [CAMPAIGN, 3n, 0n, reason]))).toBe("HeldPrizeClosed");

    const after = (await get<{ prizes: PrizeJson[] }>(drawingRoute(3n))).body.prizes;
    expect(after.map((p) => p.heldStatus)).toEqual(["paid", "refused", "paid"]);
    const view = await pub.readContract({ address: prizeDraw, abi: PrizeDrawAbi, functionName: "getDrawing", args: [CAMPAIGN, 3n] });
    expect(view.heldCount).toBe(3);
    expect(await pub.readContract({ address: vault, abi: PrizeVaultAbi, functionName: "heldClosed", args: [CAMPAIGN, 3n] })).toBe(3n);
  });

  it("indexes an ignored randomness callback, readable over /sql", async () => {
    // Only the Entropy contract may call back: impersonate it (anvil) and call back for an unknown sequence.
    await pub.request({ method: "anvil_impersonateAccount" as never, params: [entropy] as never });
    await pub.request({ method: "anvil_setBalance" as never, params: [entropy, "0xde0b6b3a7640000"] as never });
    const randomValue = keccak256(toHex("stray"));
    const impersonated = createWalletClient({ chain: foundry, transport: http(rpcUrl), account: entropy, pollingInterval: 20 });
    const hash = await impersonated.writeContract({ address: prizeDraw, abi: PrizeDrawAbi, functionName: "_entropyCallback", args: [999_999n, provider, randomValue] });
    await pub.request({ method: "anvil_stopImpersonatingAccount" as never, params: [entropy] as never });
    const receipt = await until("ignored callback receipt", () => pub.getTransactionReceipt({ hash }).catch(() => undefined), 10_000, 5);
    const seenAt = performance.now();
    expect(prizeDrawLogs(receipt).map((l) => l.eventName)).toEqual(["EntropyCallbackIgnored"]);

    const sql = createClient(`${baseUrl()}/sql`, { schema: ponderSchema });
    const rows = await until(
      "ignored_callback row over /sql",
      async () => {
        const r = await sql.db.select().from(ponderSchema.ignoredCallback);
        return r.length > 0 ? r : undefined;
      },
      VISIBLE_WITHIN_MS,
    );
    latencies.push({ label: "EntropyCallbackIgnored (/sql)", ms: performance.now() - seenAt });
    expect(rows).toEqual([
      {
        id: `${hash}:${receipt.logs[0]?.logIndex}`,
        provider: provider.toLowerCase(),
        sequence: 999_999n,
        randomValue,
        blockNumber: receipt.blockNumber,
        timestamp: (await pub.getBlock({ blockNumber: receipt.blockNumber })).timestamp,
        txHash: hash,
      },
    ]);
    // The typed client reads the other tables too.
    const prizes = await sql.db.select().from(ponderSchema.prize);
    expect(prizes).toHaveLength(300 + 3 + 3);
  });

  it("lists a campaign's drawings newest first and its payouts in chain order", async () => {
    const list = (await get<{ drawings: DrawingJson[] }>(`/campaigns/${CAMPAIGN}/drawings`)).body.drawings;
    expect(list.map((d) => [d.number, d.status])).toEqual([
      ["3", "paid"],
      ["2", "paid"],
      ["1", "paid"],
    ]);
    const payouts = (await get<{ payouts: PayoutJson[] }>(`/payouts?campaignId=${CAMPAIGN}`)).body.payouts;
    expect(payouts.map((p) => p.kind)).toEqual(["drawing", "guarantee", "drawing", "drawing", "held", "held"]);
    const blocks = payouts.map((p) => BigInt(p.blockNumber));
    expect([...blocks].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(blocks);
    expect((await get<{ payouts: PayoutJson[] }>(`/payouts?campaignId=${bytes32Ascii("other")}`)).body.payouts).toEqual([]);
    expect((await get<{ payouts: PayoutJson[] }>("/payouts")).body.payouts).toEqual(payouts);
    const balance = await pub.readContract({ address: token, abi: TestStablecoinAbi, functionName: "balanceOf", args: [payoutWallet2] });
    expect(balance).toBe(payouts.reduce((sum, p) => sum + BigInt(p.tokenAmount), 0n));
    // What is still owed is exactly the open held prizes (every payout paid, the refused prize released).
    const open = (await Promise.all(list.map((d) => get<{ prizes: PrizeJson[] }>(drawingRoute(BigInt(d.number))))))
      .flatMap((res) => res.body.prizes)
      .filter((p) => p.heldStatus === "open")
      .reduce((sum, p) => sum + BigInt(p.amountCents), 0n);
    const [, owedCents] = await pub.readContract({ address: vault, abi: PrizeVaultAbi, functionName: "balances" });
    expect(owedCents).toBe(open);
  });

  it("indexes a batch of two drawings of two campaigns under one randomness request", async () => {
    const other = bytes32Ascii("batch-other");
    await op("registerCampaign", [other, payoutWallet1, 50_000n, 0n, 0n]);
    const members = [
      { campaignId: CAMPAIGN, number: 4n, slot: drawingSlot("drw_indexer_batch_a"), listCommitment: keccak256(toHex("batch list a")) },
      { campaignId: other, number: 1n, slot: drawingSlot("drw_indexer_batch_b"), listCommitment: keccak256(toHex("batch list b")) },
    ];
    const gasLimit = await pub.readContract({ address: prizeDraw, abi: PrizeDrawAbi, functionName: "callbackGasLimit" });
    const fee = await pub.readContract({ address: entropy, abi: MockEntropyAbi, functionName: "getFeeV2", args: [provider, gasLimit] });
    const commits = members.map((m) => ({
      ...m,
      drawAt: DRAW_TIME_BASE + Number(m.number) * 3600,
      kind: 0,
      winnersExpected: 2,
      entrantCount: 0,
      totalWeight: 0n,
      tableId: TABLE_ID,
      tableVersion: 1,
    }));
    const receipt = await send(opWallet, prizeDraw, PrizeDrawAbi, "commitAndRequest", [commits, MAX_FEE], undefined, fee);
    const logs = prizeDrawLogs(receipt);
    expect(logs.map((l) => l.eventName)).toEqual(["DrawingCommitted", "DrawingCommitted", "EntropyRequested", "EntropyRequested"]);
    const requests = logs.flatMap((l) => (l.eventName === "EntropyRequested" ? [l.args] : []));
    const own = members.map((m) => userRandomNumber(m));
    const user = keccak256(`0x${own.map((c) => c.slice(2)).join("")}`);
    expect(requests.map((r) => [r.campaignId, r.number, r.batchIndex, r.batchSize, r.userRandomNumber])).toEqual([
      [CAMPAIGN, 4n, 0n, 2n, user],
      [other, 1n, 1n, 2n, user],
    ]);
    const sequence = requests[0]!.sequence;
    expect(requests[1]!.sequence).toBe(sequence);

    const expectedMembers: BatchMemberJson[] = members.map((m, i) => ({ campaignId: m.campaignId, number: String(m.number), slot: m.slot, listCommitment: m.listCommitment, batchIndex: i }));
    for (const [i, m] of members.entries()) {
      const d = await visible<{ drawing: DrawingJson; batchMembers: BatchMemberJson[] }>(
        `batch commit member ${i}`,
        receipt,
        `/drawings/${m.campaignId}/${m.number}`,
        (b) => b.drawing.sequence !== null && b.batchMembers.length === 2,
      );
      expect(d.drawing).toMatchObject({ status: "requested", sequence: sequence.toString(), userRandomNumber: user, batchIndex: i, batchSize: 2, commitTx: receipt.transactionHash });
      expect(d.batchMembers).toEqual(expectedMembers);
      await expectDrawingMatchesContract(d.drawing);
    }

    // One reveal serves both: same random value, each settled with its own prizes.
    const randomValue = keccak256(toHex("random-batch"));
    const reveal = await send(strangerWallet, entropy, MockEntropyAbi, "mockReveal", [provider, sequence, randomValue], 3_000_000n);
    expect(prizeDrawLogs(reveal).filter((l) => l.eventName === "EntropyRevealed")).toHaveLength(2);
    for (const m of members) {
      const d = await visible<{ drawing: DrawingJson; prizes: PrizeJson[]; batchMembers: BatchMemberJson[] }>(
        `batch reveal ${m.number}`,
        reveal,
        `/drawings/${m.campaignId}/${m.number}`,
        (b) => b.drawing.status === "settled" && b.prizes.length === b.drawing.settledCount,
      );
      expect(d.drawing).toMatchObject({ entropyValue: randomValue, randomValue: await drawValueAt(pub, receipt.blockNumber, randomValue), revealTx: reveal.transactionHash, batchSize: 2 });
      expect(d.prizes).toHaveLength(2);
      expect(d.batchMembers).toEqual(expectedMembers);
      await expectDrawingMatchesContract(d.drawing);
    }
  });

  it("indexes a re-request after the reveal timeout, with the request it replaced; the first request's late reveal changes nothing", async () => {
    const number = 5n;
    const { sequence: first, provider: firstProvider } = await commit(number, 0, 2);
    const before = (await get<{ drawing: DrawingJson }>(drawingRoute(number))).body.drawing;
    expect(before).toMatchObject({ previousSequence: null, previousProvider: null, reRequestTx: null });
    const timeout = await pub.readContract({ address: prizeDraw, abi: PrizeDrawAbi, functionName: "revealTimeoutBlocks" });
    expect(await revertName(op("reRequest", [CAMPAIGN, number, MAX_FEE]))).toBe("RevealNotTimedOut");
    // Past the timeout (blocks mined one at a time: Ponder needs every block), the operator re-requests once.
    const head = await pub.getBlockNumber({ cacheTime: 0 });
    await mineBlocks(rpcUrl, Math.max(0, Number(BigInt(before.commitBlock) + timeout + 1n - head)));
    const reRequested = await op("reRequest", [CAMPAIGN, number, MAX_FEE]);
    const [event] = prizeDrawLogs(reRequested);
    if (event?.eventName !== "EntropyReRequested") throw new Error("no EntropyReRequested");
    const second = event.args.sequence;
    expect(second).not.toBe(first);
    const d = await visible<{ drawing: DrawingJson; batchMembers: BatchMemberJson[] }>("re-request", reRequested, drawingRoute(number), (b) => b.drawing.reRequestTx !== null);
    const block = await pub.getBlock({ blockNumber: reRequested.blockNumber });
    expect(d.drawing).toMatchObject({
      status: "requested",
      previousProvider: firstProvider.toLowerCase(),
      previousSequence: first.toString(),
      previousUserRandomNumber: before.userRandomNumber,
      provider: event.args.provider.toLowerCase(),
      sequence: second.toString(),
      userRandomNumber: keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint64" }], [firstProvider, first])),
      fee: before.fee, // the commit's fee; the re-request's is its own
      reRequestFee: event.args.fee.toString(),
      reRequestBy: opWallet.account!.address.toLowerCase(),
      reRequestBlock: reRequested.blockNumber.toString(),
      reRequestTimestamp: block.timestamp.toString(),
      reRequestTx: reRequested.transactionHash,
      commitTx: before.commitTx,
    });
    // The batch is found under the new request: this drawing alone.
    expect(d.batchMembers.map((m) => m.number)).toEqual([String(number)]);
    expect(await revertName(op("reRequest", [CAMPAIGN, number, MAX_FEE]))).toBe("AlreadyReRequested");

    // The first request revealed late is ignored; the new one settles the drawing.
    const late = await send(strangerWallet, entropy, MockEntropyAbi, "mockReveal", [provider, first, keccak256(toHex("late"))], 3_000_000n);
    expect(prizeDrawLogs(late).map((l) => l.eventName)).toEqual(["EntropyCallbackIgnored"]);
    const settled = await revealAndSettle(number, second, keccak256(toHex("re-requested value")));
    expect(settled.drawing).toMatchObject({
      previousSequence: first.toString(),
      sequence: second.toString(),
      reRequestTx: reRequested.transactionHash,
      entropyValue: keccak256(toHex("re-requested value")),
      // Mixed with the re-request's block, not the commit's.
      randomValue: await drawValueAt(pub, reRequested.blockNumber, keccak256(toHex("re-requested value"))),
    });
  });

  it("indexes a reveal that came too late for the request block's hash; the drawing stays requested and is re-requested at once", async () => {
    const number = 6n;
    const { sequence } = await commit(number, 0, 2);
    const before = (await get<{ drawing: DrawingJson }>(drawingRoute(number))).body.drawing;
    // 257 blocks after the commit's block, blockhash() of it is zero.
    const head = await pub.getBlockNumber({ cacheTime: 0 });
    await mineBlocks(rpcUrl, Math.max(0, Number(BigInt(before.commitBlock) + 256n - head)));
    const entropyValue = keccak256(toHex("too late"));
    const late = await send(strangerWallet, entropy, MockEntropyAbi, "mockReveal", [provider, sequence, entropyValue], 3_000_000n);
    expect(late.blockNumber - BigInt(before.commitBlock)).toBeGreaterThan(256n); // the exact boundary: test/contracts
    const [event] = prizeDrawLogs(late);
    expect(event?.eventName).toBe("EntropyRevealTooLate");
    const sql = sqlClient();
    const rows = await until(
      "late_reveal row over /sql",
      async () => {
        const r = await sql.db.select().from(ponderSchema.lateReveal);
        return r.length > 0 ? r : undefined;
      },
      VISIBLE_WITHIN_MS,
    );
    expect(rows).toEqual([
      {
        id: `${late.transactionHash}:${late.logs.find((l) => l.address.toLowerCase() === prizeDraw.toLowerCase())?.logIndex}`,
        provider: provider.toLowerCase(),
        sequence,
        requestBlock: BigInt(before.commitBlock),
        entropyValue,
        blockNumber: late.blockNumber,
        timestamp: (await pub.getBlock({ blockNumber: late.blockNumber })).timestamp,
        txHash: late.transactionHash,
      },
    ]);
    const after = (await get<{ drawing: DrawingJson }>(drawingRoute(number))).body.drawing;
    expect(after).toMatchObject({ status: "requested", randomValue: null, entropyValue: null, revealTx: null });
    // Entropy no longer holds the request, so the one re-request needs no timeout, and its reveal settles.
    const reRequested = await op("reRequest", [CAMPAIGN, number, MAX_FEE]);
    const [again] = prizeDrawLogs(reRequested);
    if (again?.eventName !== "EntropyReRequested") throw new Error("no EntropyReRequested");
    await visible<{ drawing: DrawingJson }>("re-request after a late reveal", reRequested, drawingRoute(number), (b) => b.drawing.reRequestTx !== null);
    const settled = await revealAndSettle(number, again.args.sequence, keccak256(toHex("in time")));
    expect(settled.drawing.randomValue).toBe(await drawValueAt(pub, reRequested.blockNumber, keccak256(toHex("in time"))));
  });

  it("reports the receipt-to-route latency", () => {
    const sorted = latencies.map((l) => l.ms).sort((a, b) => a - b);
    const pick = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
    const summary = {
      metric: "indexer_receipt_to_route_ms",
      samples: sorted.length,
      median: Math.round(pick(0.5)),
      p95: Math.round(pick(0.95)),
      max: Math.round(sorted.at(-1) ?? NaN),
      min: Math.round(sorted[0] ?? NaN),
    };
    console.log(JSON.stringify(summary));
    // A figure, not a timed assertion: this machine is shared, so latency is reported (the README's table), and
    // only the number of samples is checked.
    expect(sorted.length).toBeGreaterThanOrEqual(20);
  });

  it("keeps its data across a restart on the same data dir, and goes on indexing", async () => {
    const snapshot = async () => ({
      drawings: (await get<{ drawings: DrawingJson[] }>(`/campaigns/${CAMPAIGN}/drawings`)).body,
      d1: (await get<unknown>(drawingRoute(1n))).body,
      d3: (await get<unknown>(drawingRoute(3n))).body,
      campaign: (await get<unknown>(`/campaigns/${CAMPAIGN}`)).body,
      table: (await get<unknown>(`/prize-tables/${TABLE_ID}/1`)).body,
      payouts: (await get<unknown>("/payouts")).body,
    });
    const before = await snapshot();
    expect((before.d1 as { prizes: PrizeJson[] }).prizes).toEqual(drawing1?.prizes);

    const code = await stop(ponder);
    expect(code).toBe(0);
    const chainHead = await pub.getBlockNumber();
    // This time only the data dir: the RPC URL, chain id, address and start block come from deployment.json.
    const restartedAt = performance.now();
    await launchPonder({ PRIZEDRAW_DATA_DIR: tmp });
    // A clean stop released the schema's lock: no 25 s wait for a stale lock.
    expect(ponder?.output()).not.toContain("Schema is locked");
    // /ready means the backfill reached the finalized block; the blocks after it (Ponder reverts them on restart,
    // as after a crash) are indexed live right after. /head says when the indexer has caught up.
    await until("/head at the chain's head again", async () => {
      const h = (await get<HeadJson>("/head")).body;
      return h.blockNumber !== null && BigInt(h.blockNumber) >= chainHead ? true : undefined;
    }, 30_000, 50, ponder);
    console.log(JSON.stringify({ metric: "indexer_restart_to_head_ms", ms: Math.round(performance.now() - restartedAt) }));
    expect(await snapshot()).toEqual(before);

    const receipt = await op("setPayoutWallet", [CAMPAIGN, payoutWallet1]);
    await visible<CampaignJson>("setPayoutWallet after restart", receipt, `/campaigns/${CAMPAIGN}`, (b) => b.payoutWallet === payoutWallet1);
  });
});
