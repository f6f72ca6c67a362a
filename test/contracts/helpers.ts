import { expect } from "chai";
import { ethers } from "hardhat";
import {
  AbiCoder,
  keccak256,
  toUtf8Bytes,
  encodeBytes32String,
  zeroPadBytes,
  type ContractTransactionReceipt,
  type ContractTransactionResponse,
  type EventLog,
  type Log,
} from "ethers";
import { time } from "@nomicfoundation/hardhat-network-helpers";
import type { BaseContract } from "ethers";
import type { MockEntropy, PrizeDraw, PrizeDrawManager, PrizeVault, TestStablecoin } from "../../typechain-types";

/** An independent computation of the spec's "Draw computation" with ethers, to check the contract against. */
const coder = AbiCoder.defaultAbiCoder();
const TWO_256 = 1n << 256n;

export const DEFAULT_TABLE = {
  id: encodeBytes32String("default"),
  amounts: [10_000_000n, 100_000n, 10_000n, 2_000n, 1_000n, 500n],
  weights: [1n, 10n, 400n, 4_000n, 50_000n, 45_589n],
};

export const KIND_WINNERS = 0;
export const KIND_ENTRANTS = 1;

/** Drawing.status */
export const STATUS = { None: 0n, Requested: 1n, Revealed: 2n, Settled: 3n, Paid: 4n } as const;
/** The vault's heldPrizeState */
export const HELD = { Open: 0n, Paid: 1n, Refused: 2n } as const;
/** The vault's getGuarantee status */
export const GUARANTEE = { None: 0n, Picked: 1n, Paid: 2n } as const;

export const UNITS_PER_CENT = 10_000n; // 6-decimal test stablecoin
export const CALLBACK_GAS_LIMIT = 2_000_000;
/** PrizeDraw.CALLBACK_BASE_GAS and POSITION_GAS: the callback settles (limit - base) / position positions. */
export const CALLBACK_BASE_GAS = 70_000;
export const POSITION_GAS = 8_000;
export function callbackPositionsOf(limit: number): number {
  return Math.floor((limit - CALLBACK_BASE_GAS) / POSITION_GAS);
}
/** PrizeDraw.DRAWING_CALLBACK_GAS (each drawing of a batch after the first) and MAX_BATCH. */
export const DRAWING_CALLBACK_GAS = 50_000;
export const MAX_BATCH = 200;
/** The largest batch a callback gas limit takes: 1 + (limit - base) / per drawing, at most MAX_BATCH. */
export function maxBatchOf(limit: number): number {
  return Math.min(MAX_BATCH, 1 + Math.floor((limit - CALLBACK_BASE_GAS) / DRAWING_CALLBACK_GAS));
}
/**
 * How a batch shares the callback gas limit: CALLBACK_BASE_GAS for the first drawing, DRAWING_CALLBACK_GAS for
 * each further one, and the rest settles positions in batch order, each drawing at most its prize count.
 * `requestGas` is the gas the batch needs (what commitAndRequest asks the provider for).
 */
export function batchShareOf(limit: number, prizeCounts: readonly number[]): { positions: number[]; requestGas: number } {
  let budget = limit - CALLBACK_BASE_GAS - (prizeCounts.length - 1) * DRAWING_CALLBACK_GAS;
  const positions = prizeCounts.map((count) => {
    const p = Math.min(count, Math.floor(budget / POSITION_GAS));
    budget -= p * POSITION_GAS;
    return p;
  });
  return { positions, requestGas: limit - budget };
}
export const ADMIN_DELAY = 3 * 24 * 3600;
/** PrizeDraw.revealTimeoutBlocks in these tests: its floor, PrizeDraw.MIN_REVEAL_TIMEOUT_BLOCKS. */
export const REVEAL_TIMEOUT_BLOCKS = 256;
/** PrizeDrawManager's role ids. */
export const ROLE = { Admin: 0n, Operator: 1n, Guardian: 2n, Governor: 3n } as const;
/** Large enough never to stop a test that is not about limits: 10^12 cents. */
export const LARGE_DAILY_LIMIT = 10n ** 12n;
/** A generous fee cap: the fee is paid from msg.value and the rest refunded. */
export const MAX_FEE = 10n ** 16n;
/** Draw times: drawing n of a campaign is drawn at DRAW_EPOCH + n hours unless a test says otherwise. */
export const DRAW_EPOCH = 1_700_000_000;

/** The slug's ASCII bytes right-padded to 32 (unlike encodeBytes32String, a full 32 bytes is allowed). */
export function campaignIdOf(slug: string): string {
  return zeroPadBytes(toUtf8Bytes(slug), 32);
}

/** A drawing's slot: keccak256 of the service's drawing id. */
export function slotOf(drawingId: string): string {
  return keccak256(toUtf8Bytes(drawingId));
}

export function winnersFingerprint(ids: string[]): string {
  return keccak256(coder.encode(["bytes32[]"], [ids.map((id) => keccak256(toUtf8Bytes(id)))]));
}

/** DrawMath.userRandomNumber: keccak256(abi.encode(bytes32 campaignId, uint64 number, bytes32 slot, bytes32 listCommitment)). */
export function userRandomNumberOf(campaignId: string, num: bigint | number, slot: string, listCommitment: string): string {
  return keccak256(coder.encode(["bytes32", "uint64", "bytes32", "bytes32"], [campaignId, num, slot, listCommitment]));
}

export function expectedRoll(entropy: string, campaignId: string, num: bigint, position: bigint, denominator: bigint) {
  const floor = TWO_256 % denominator;
  for (let retry = 0n; ; retry++) {
    const value = keccak256(
      coder.encode(["bytes32", "bytes32", "uint64", "uint256", "uint256"], [entropy, campaignId, num, position, retry]),
    );
    if (BigInt(value) >= floor) return { randomValue: value, roll: BigInt(value) % denominator, retries: retry };
  }
}

/** DrawMath.drawValue, computed here: keccak256(abi.encode(bytes32 entropyValue, bytes32 requestBlockHash)). */
export function drawValueOf(entropyValue: string, requestBlockHash: string): string {
  return keccak256(coder.encode(["bytes32", "bytes32"], [entropyValue, requestBlockHash]));
}

/** PrizeDraw.BLOCKHASH_WINDOW: a reveal must come within this many blocks of its request. */
export const BLOCKHASH_WINDOW = 256;

/** The hash of block `blockNumber` of the test chain. */
export async function blockHashOf(blockNumber: number | bigint): Promise<string> {
  const block = await ethers.provider.getBlock(Number(blockNumber));
  if (!block?.hash) throw new Error(`no block ${blockNumber}`);
  return block.hash;
}

/**
 * The value every prize of a reveal's drawings follows from, checked against the reveal: each EntropyRevealed of
 * the receipt (one per drawing of the batch) carries `entropyValue` (Entropy's value) and the same request block
 * hash, which is the hash of a block of this chain at most BLOCKHASH_WINDOW blocks before the reveal (block
 * `requestBlock` when given), and its randomValue is drawValueOf(entropyValue, that hash).
 */
export async function revealedDrawValue(
  f: { draw: PrizeDraw },
  receipt: { logs: readonly Log[]; blockNumber: number },
  entropyValue: string,
  requestBlock?: number | bigint,
): Promise<string> {
  const events = findEvents(f, receipt, "EntropyRevealed");
  expect(events.length, "EntropyRevealed in the reveal").to.be.greaterThan(0);
  const requestBlockHash = events[0].args.requestBlockHash as string;
  const block = await ethers.provider.getBlock(requestBlockHash);
  expect(block, `request block hash ${requestBlockHash} is a block of the chain`).to.not.equal(null);
  expect(block!.number).to.be.lessThan(receipt.blockNumber);
  expect(receipt.blockNumber - block!.number).to.be.lessThanOrEqual(BLOCKHASH_WINDOW);
  if (requestBlock !== undefined) expect(block!.number).to.equal(Number(requestBlock));
  const value = drawValueOf(entropyValue, requestBlockHash);
  expect(value).to.not.equal(entropyValue);
  for (const e of events) {
    expect([e.args.entropyValue, e.args.requestBlockHash, e.args.randomValue]).to.deep.equal([entropyValue, requestBlockHash, value]);
  }
  return value;
}

export type ExpectedPrize = { position: bigint; randomValue: string; roll: bigint; tier: bigint; amountCents: bigint; held: boolean };

/** Every prize of a drawing, the top-prize-once rule applied, computed without the contract. */
export function expectedPrizes(
  entropy: string,
  campaignId: string,
  num: bigint,
  count: number,
  amounts: bigint[],
  weights: bigint[],
  largePrizeThresholdCents: bigint,
): ExpectedPrize[] {
  const denominator = weights.reduce((a, b) => a + b, 0n);
  const prizes: ExpectedPrize[] = [];
  let topAwarded = false;
  for (let p = 0n; p < BigInt(count); p++) {
    const { randomValue, roll } = expectedRoll(entropy, campaignId, num, p, denominator);
    let tier = 0n;
    let cumulative = 0n;
    for (let i = 0; i < weights.length; i++) {
      cumulative += weights[i];
      if (roll < cumulative) {
        tier = BigInt(i);
        break;
      }
    }
    if (tier === 0n) {
      if (topAwarded) tier = 1n;
      else topAwarded = true;
    }
    const amountCents = amounts[Number(tier)];
    prizes.push({ position: p, randomValue, roll, tier, amountCents, held: amountCents >= largePrizeThresholdCents });
  }
  return prizes;
}

export function randomBytes32(): string {
  return ethers.hexlify(ethers.randomBytes(32));
}

export type Fixture = Awaited<ReturnType<typeof deployFixture>>;

/**
 * PrizeDraw on the SDK's MockEntropy (fee 0, mockReveal forwards all gas), a 6-decimal stablecoin with 10^15
 * units (10^11 cents) in the pool, the default table and the campaign "summer-daily" paying `wallet`.
 */
export async function deployFixture() {
  const [admin, operator, guardian, stranger, wallet, provider, other, thief, newAdmin] = await ethers.getSigners();
  const token = (await (await ethers.getContractFactory("TestStablecoin")).deploy()) as unknown as TestStablecoin;
  const mock = (await (await ethers.getContractFactory("MockEntropy")).deploy(provider.address)) as unknown as MockEntropy;
  const { draw, vault, manager } = await deployPrizeDraw({ entropy: await mock.getAddress(), token, admin, operator, guardian });
  const campaignId = campaignIdOf("summer-daily");
  await draw.connect(operator).registerCampaign(campaignId, wallet.address, 50_000, 0, 0);
  return { admin, operator, guardian, stranger, wallet, provider, other, thief, newAdmin, token, mock, draw, vault, manager, campaignId };
}

/**
 * The default fixture with its engine deployed again under other settings (a smaller pool, another reveal
 * timeout...): the same mock, token and roles, the default table, and the fixture's campaign registered.
 */
export async function redeployFixture(f: Fixture, settings: { pool?: bigint; revealTimeoutBlocks?: number }): Promise<Fixture> {
  const deployed = await deployPrizeDraw({ entropy: await f.mock.getAddress(), token: f.token, admin: f.admin, operator: f.operator, guardian: f.guardian, ...settings });
  await deployed.draw.connect(f.operator).registerCampaign(f.campaignId, f.wallet.address, 50_000, 0, 0);
  return { ...f, ...deployed };
}

/** A stablecoin the tests can mint (TestStablecoin, BlacklistStablecoin). */
type MintableToken = { getAddress(): Promise<string>; mint(to: string, amount: bigint): Promise<unknown> };

/** The three contracts of a deployment: the engine, the vault it created, and the manager of both. */
export type Deployed = { draw: PrizeDraw; vault: PrizeVault; manager: PrizeDrawManager };

/**
 * Deploys PrizeDrawManager (the three roles on three signers, ADMIN_DELAY) and PrizeDraw (which creates its
 * PrizeVault), wires the roles (the default signer deploys), mints `pool` token units into the vault and, unless
 * told otherwise, publishes the default table (as the operator).
 */
export async function deployPrizeDraw(o: {
  entropy: string;
  token: MintableToken;
  admin: { address: string };
  operator: Parameters<PrizeDraw["connect"]>[0] & { address: string };
  guardian: { address: string };
  callbackGasLimit?: number;
  dailyLimitCents?: bigint;
  revealTimeoutBlocks?: number;
  pool?: bigint;
  defaultTable?: boolean;
}): Promise<Deployed> {
  const manager = (await (await ethers.getContractFactory("PrizeDrawManager")).deploy(
    o.admin.address,
    o.operator.address,
    o.guardian.address,
    ADMIN_DELAY,
  )) as unknown as PrizeDrawManager;
  const draw = (await (await ethers.getContractFactory("PrizeDraw")).deploy(
    o.entropy,
    await o.token.getAddress(),
    await manager.getAddress(),
    o.callbackGasLimit ?? CALLBACK_GAS_LIMIT,
    o.dailyLimitCents ?? LARGE_DAILY_LIMIT,
    o.revealTimeoutBlocks ?? REVEAL_TIMEOUT_BLOCKS,
  )) as unknown as PrizeDraw;
  await (await manager.wire(await draw.getAddress())).wait();
  const vault = (await ethers.getContractAt("PrizeVault", await draw.vault())) as unknown as PrizeVault;
  await o.token.mint(await vault.getAddress(), o.pool ?? 10n ** 15n);
  if (o.defaultTable ?? true) {
    await draw.connect(o.operator).publishPrizeTable(DEFAULT_TABLE.id, 1, DEFAULT_TABLE.amounts, DEFAULT_TABLE.weights);
  }
  return { draw, vault, manager };
}

type AdminCaller = { manager: PrizeDrawManager; admin: Parameters<PrizeDraw["connect"]>[0] };
type Callable = BaseContract & { interface: { encodeFunctionData(name: string, args: readonly unknown[]): string } };

/** The calldata of `target.method(...args)`, for the manager's schedule, execute and cancel. */
export function callData(target: Callable, method: string, args: readonly unknown[]): string {
  return target.interface.encodeFunctionData(method, args);
}

/** Schedules an admin call for the earliest moment the admin's delay allows; returns the scheduled call's receipt. */
export async function scheduleAsAdmin(f: AdminCaller, target: Callable, method: string, args: readonly unknown[]) {
  const data = callData(target, method, args);
  return (await (await f.manager.connect(f.admin).schedule(await target.getAddress(), data, 0)).wait()) as ContractTransactionReceipt;
}

/** Executes a scheduled admin call (reverts with the target's error, or AccessManagerNotReady before the delay). */
export async function executeAsAdmin(f: AdminCaller, target: Callable, method: string, args: readonly unknown[]) {
  const data = callData(target, method, args);
  return (await (await f.manager.connect(f.admin).execute(await target.getAddress(), data)).wait()) as ContractTransactionReceipt;
}

/**
 * An admin call as the admin must make it: scheduled through the manager, visible for ADMIN_DELAY (the chain's
 * clock is moved past it), then executed. Returns the execution's receipt.
 */
export async function asAdmin(f: AdminCaller, target: Callable, method: string, args: readonly unknown[]) {
  await scheduleAsAdmin(f, target, method, args);
  await time.increase(ADMIN_DELAY);
  return executeAsAdmin(f, target, method, args);
}

/**
 * An admin call that must fail when it runs: scheduled, executed after the delay (the execution is handed to
 * `check` for its expectation), then unscheduled, since a refused execution leaves the call scheduled and the
 * same call could not be scheduled again.
 */
export async function refusedAsAdmin(
  f: AdminCaller & { admin: { address: string } },
  target: Callable,
  method: string,
  args: readonly unknown[],
  check: (execution: Promise<unknown>) => PromiseLike<unknown>,
): Promise<void> {
  await scheduleAsAdmin(f, target, method, args);
  await time.increase(ADMIN_DELAY);
  const [to, data] = [await target.getAddress(), callData(target, method, args)];
  await check(f.manager.connect(f.admin).execute(to, data));
  await f.manager.connect(f.admin).cancel(f.admin.address, to, data);
}

/** The id AccessManager gives `caller`'s call of `method` on `target`. */
export async function operationId(f: { manager: PrizeDrawManager }, caller: string, target: Callable, method: string, args: readonly unknown[]) {
  return f.manager.hashOperation(caller, await target.getAddress(), callData(target, method, args));
}

/** Moves the chain's clock to the end of guarantee `period` (the vault's guaranteePeriodEnd) unless it has already passed. */
export async function untilGuaranteePeriodEnd(vault: PrizeVault, campaignId: string, period: number): Promise<void> {
  const endsAt = await vault.guaranteePeriodEnd(campaignId, period);
  if (BigInt(await time.latest()) < endsAt) await time.increaseTo(endsAt);
}

/** The block time of a receipt's block. */
export async function timestampOf(receipt: { blockNumber: number }): Promise<number> {
  return (await ethers.provider.getBlock(receipt.blockNumber))!.timestamp;
}

/**
 * An admin call as a transaction (for matchers that need one, such as changeTokenBalance): scheduled unless the
 * same call is still scheduled (a failed execution leaves it so, since its revert undoes the consumption), the
 * clock moved to the end of its delay when needed, then executed. Rejects with the target's error.
 */
export async function sendAsAdmin(
  f: AdminCaller & { admin: { address: string } },
  target: Callable,
  method: string,
  args: readonly unknown[],
): Promise<ContractTransactionResponse> {
  const address = await target.getAddress();
  const data = callData(target, method, args);
  const admin = f.manager.connect(f.admin);
  const operationId = await f.manager.hashOperation(f.admin.address, address, data);
  if ((await f.manager.getSchedule(operationId)) === 0n) await (await admin.schedule(address, data, 0)).wait();
  const readyAt = Number(await f.manager.getSchedule(operationId));
  // execute is mined in the block after the latest one: ready once that block's time reaches the timepoint.
  if ((await time.latest()) < readyAt - 1) await time.increaseTo(readyAt - 1);
  return admin.execute(address, data);
}

/**
 * DrawMath.worstCase, computed here: the most `count` prizes of a table (amounts top first) can total, and the
 * most of it below `threshold` (the automatic payout, one transfer). The top prize pays at most once (a second
 * top roll pays tier 1), so: the top or the largest other amount once, the largest other amount for the rest.
 */
export function worstCaseOf(
  amounts: readonly bigint[],
  threshold: bigint,
  count: number | bigint,
): { totalCents: bigint; automaticCents: bigint } {
  const n = BigInt(count);
  if (n === 0n) return { totalCents: 0n, automaticCents: 0n };
  const max = (values: readonly bigint[]) => values.reduce((a, b) => (b > a ? b : a), 0n);
  const [top, ...others] = amounts;
  const largest = max(others);
  const largestAutomatic = max(others.filter((a) => a < threshold));
  const topAutomatic = top < threshold ? top : 0n;
  return {
    totalCents: (n - 1n) * largest + max([top, largest]),
    automaticCents: (n - 1n) * largestAutomatic + max([topAutomatic, largestAutomatic]),
  };
}

/** The events `name` in a receipt, parsed with `contract`'s ABI; logs it cannot parse (another contract's) are passed over. */
function eventsNamed(contract: Pick<BaseContract, "interface">, receipt: { logs: readonly Log[] }, name: string): EventLog[] {
  const out: EventLog[] = [];
  for (const log of receipt.logs) {
    let parsed = null;
    try {
      parsed = contract.interface.parseLog(log);
    } catch {
      parsed = null;
    }
    if (parsed && parsed.name === name) out.push({ ...log, args: parsed.args, eventName: parsed.name } as unknown as EventLog);
  }
  return out;
}

/** Events of the vault (OwedChanged, LimitChanged, HeldPrizePaid, GuaranteePicked...) in a receipt, parsed with the vault's ABI. */
export function findVaultEvents(f: { vault: PrizeVault }, receipt: { logs: readonly Log[] }, name: string): EventLog[] {
  return eventsNamed(f.vault, receipt, name);
}

export type CommitOverrides = Partial<{
  slot: string;
  drawAt: number | bigint;
  kind: number;
  listCommitment: string;
  winnersExpected: number;
  entrantCount: number;
  totalWeight: bigint;
  tableId: string;
  tableVersion: number;
  maxFee: bigint;
}>;

/** A valid commit of drawing `num`: slot keccak256("drw_<num>"), draw time DRAW_EPOCH + num hours, 3 winners. */
/** A commit with the fee cap its test sends it under (commitAndRequest takes the cap once per batch). */
export type CommitArgs = PrizeDraw.CommitStruct & { maxFee: bigint };

export function commitArgs(campaignId: string, num: bigint | number, overrides: CommitOverrides = {}): CommitArgs {
  return {
    campaignId,
    number: num,
    slot: overrides.slot ?? slotOf(`drw_${num}`),
    drawAt: overrides.drawAt ?? DRAW_EPOCH + Number(num) * 3600,
    kind: overrides.kind ?? KIND_WINNERS,
    listCommitment: overrides.listCommitment ?? winnersFingerprint(["w-1", "w-2", "w-3"]),
    winnersExpected: overrides.winnersExpected ?? 3,
    entrantCount: overrides.entrantCount ?? 0,
    totalWeight: overrides.totalWeight ?? 0n,
    tableId: overrides.tableId ?? DEFAULT_TABLE.id,
    tableVersion: overrides.tableVersion ?? 1,
    maxFee: overrides.maxFee ?? MAX_FEE,
  };
}

type DrawLike = { draw: PrizeDraw; operator: Fixture["operator"] };

/** Sends a batch of one drawing as the operator with value = maxFee (the excess comes back). */
export function sendCommit(f: DrawLike, args: CommitArgs) {
  return sendBatch(f, [args], args.maxFee);
}

/** Sends commitAndRequest for several drawings (one randomness request) with value = maxFee. */
export function sendBatch(f: DrawLike, batch: readonly CommitArgs[], maxFee: bigint = MAX_FEE) {
  return f.draw.connect(f.operator).commitAndRequest(batch.map(withoutFee), maxFee, { value: maxFee });
}

export function withoutFee({ maxFee: _maxFee, ...commit }: CommitArgs): PrizeDraw.CommitStruct {
  return commit;
}

/** Commits a drawing and returns Pyth's sequence number from the EntropyRequested event. */
export async function commit(f: DrawLike, args: CommitArgs): Promise<bigint> {
  const receipt = (await (await sendCommit(f, args)).wait()) as ContractTransactionReceipt;
  const event = findEvents(f, receipt, "EntropyRequested")[0];
  return event.args.sequence as bigint;
}

export async function reveal(f: Fixture, sequence: bigint, value: string): Promise<ContractTransactionReceipt> {
  return (await (await f.mock.mockReveal(f.provider.address, sequence, value)).wait()) as ContractTransactionReceipt;
}

/** Commits drawing `num` and reveals it with `entropy`; returns the reveal's receipt. */
export async function commitAndReveal(
  f: Fixture,
  campaignId: string,
  num: bigint | number,
  entropy: string,
  overrides: CommitOverrides = {},
): Promise<ContractTransactionReceipt> {
  const sequence = await commit(f, commitArgs(campaignId, num, overrides));
  return reveal(f, sequence, entropy);
}

/** Events of the engine (DrawingCommitted, EntropyRevealed, PrizeAwarded...) in a receipt, parsed with its ABI. */
export function findEvents(f: { draw: PrizeDraw }, receipt: { logs: readonly Log[] }, name: string): EventLog[] {
  return eventsNamed(f.draw, receipt, name);
}

/** PrizeAwarded events of a receipt (of one drawing when `of` names it: a batch's callback awards several), as plain values. */
export function awarded(f: { draw: PrizeDraw }, receipt: { logs: readonly Log[] }, of?: { campaignId: string; num: bigint }): ExpectedPrize[] {
  const events = findEvents(f, receipt, "PrizeAwarded").filter((e) => !of || (e.args.campaignId === of.campaignId && e.args.number === of.num));
  return events.map((e) => ({
    position: e.args.position as bigint,
    randomValue: e.args.randomValue as string,
    roll: e.args.roll as bigint,
    tier: e.args.tier as bigint,
    amountCents: e.args.amountCents as bigint,
    held: e.args.held as boolean,
  }));
}
