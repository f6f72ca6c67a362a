/**
 * Stateful property test of the prize draw's money rules: fast-check model-based commands (fc.commands +
 * fc.asyncModelRun) on Hardhat's in-process chain, over the engine (PrizeDraw), its vault (PrizeVault) and their
 * manager (PrizeDrawManager). Every call is made by every role (admin, operator, guardian, stranger); the admin's
 * calls are scheduled through the manager, executed (through the manager or on the target itself) or cancelled
 * by the guardian, and time moves in hours or past the admin's delay. Each command predicts its outcome from the
 * model (success, or the exact custom error, with its arguments where they carry the rule; a limit or a delay
 * that the next block's few seconds could just reach may go either way), and the model then learns what happened
 * from the events of the engine, the vault, the manager and the token.
 *
 * Invariants, checked after EVERY command. 1, 2, 3 and 6 are the @dev list of contracts/PrizeVault.sol (its 4 is
 * 6 here); 4 and 5 are the engine's bookkeeping. How each is checked:
 * 1. Owed money is backed: balances().owedCents <= token balance / unitsPerCent, and owedCents equals both the
 *    model's running total (every OwedChanged event and every payment) and its ghost total: the worst case
 *    (DrawMath.worstCase) of every unpaid drawing less its held prizes already paid or refused, the open held
 *    prizes of paid drawings, and the picked unpaid guarantees. Every OwedChanged reserves or releases exactly
 *    what the engine's events of its transaction announce (commits and picks reserve; a payout releases the worst
 *    case less everything the draw awarded; a refusal releases the prize), so only the engine changes what is
 *    owed. A commit or a pick that would make owed exceed the balance is predicted to revert ObligationNotBacked
 *    (exact amounts), as is PayoutAboveLimit for a commit whose worst automatic payout (DrawMath.worstAutomatic),
 *    or a guarantee, exceeds vault.maxPaymentCents; a withdrawal never takes more than the free balance
 *    (WithdrawalExceedsFree predicted).
 * 2. Bounded loss: the token transfers out of the vault (winners' payouts and the admin's withdrawals alike) within
 *    any 24-hour window sum to at most the highest overall limit in force during that window; the same for a
 *    campaign's payments and its own limit (windows in which the campaign had no limit are skipped).
 * 3. A pause stops every transfer out: no payment, withdrawal or Transfer from the vault between PaymentsPaused
 *    (the guardian's alone) and PaymentsResumed, and every payment or executed withdrawal attempted while paused
 *    reverts PaymentsArePaused. It stops the operator's actions on what is owed too: no CampaignRegistered,
 *    LargePrizeThresholdChanged, DrawingCommitted, HeldPrizeRefused or GuaranteePicked while paused, and each such
 *    call by an operator reverts EnforcedPause.
 * 4. Every obligation is created and discharged once: a position is settled once (PrizeAwarded per
 *    (campaign, number, position) at most once), a drawing is settled and paid once, a held prize is paid or
 *    refused once, and a guarantee period is picked once, for exactly the registered amount, and paid once.
 * 5. Drawing numbers are gapless per campaign: getCampaign's lastNumber equals the number of commits that
 *    succeeded, numbered 1, 2, 3...
 * 6. No single key moves owed money: every DrawingWalletMoved and GuaranteeWalletMoved goes to the campaign's payout
 *    wallet of that moment (set by the operator), which the admin's call named (a move naming another address is
 *    refused MoveDestinationMismatch); and every admin action that took effect (a limit, the resume, a withdrawal,
 *    a move, the callback gas, a role grant) ran inside the execution of an operation the admin scheduled at least
 *    ADMIN_DELAY before (OperationExecuted's block time against its OperationScheduled's), within its week. Only
 *    the admin's scheduling succeeds; an unscheduled call, or one before its delay, reverts
 *    AccessManagerNotScheduled or AccessManagerNotReady, and one the guardian cancelled AccessManagerNotScheduled.
 */
import { expect } from "chai";
import fc from "fast-check";
import { ethers, network } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { AbiCoder, encodeBytes32String, keccak256, toUtf8Bytes, ZeroAddress, ZeroHash, type Interface, type Log } from "ethers";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import type { MockEntropy, PrizeDraw, TestStablecoin } from "../../typechain-types";
import {
  ADMIN_DELAY,
  DEFAULT_TABLE,
  DRAW_EPOCH,
  KIND_ENTRANTS,
  KIND_WINNERS,
  ROLE,
  campaignIdOf,
  deployPrizeDraw,
  slotOf,
  winnersFingerprint,
  worstCaseOf,
} from "./helpers";

const NUM_RUNS = Number(process.env.PROPERTY_RUNS ?? 25);
const MAX_COMMANDS = 40;
/** A run takes about a second: the runs and a shrink of a few minutes fit, however many runs are asked for. */
const TIME_LIMIT_MS = Math.max(200_000, NUM_RUNS * 3_000);
const DAY = 86_400;
/** AccessManager.expiration(): an operation not executed within a week of its timepoint can no longer be. */
const WEEK = 7 * DAY;
/** PrizeDrawManager.MIN_ADMIN_DELAY and MAX_ADMIN_DELAY. */
const MIN_ADMIN_DELAY = DAY;
const MAX_ADMIN_DELAY = 30 * DAY;
/** The next block is mined this many seconds after the latest at most (instant mining at a test's pace). */
const CLOCK_MARGIN = 120;

const ROLES = ["admin", "operator", "guardian", "stranger"] as const;
type Role = (typeof ROLES)[number];

const CAMPAIGNS = ["alpha", "beta", "gamma"].map(campaignIdOf);
const TABLES = [
  DEFAULT_TABLE,
  { id: encodeBytes32String("generous"), amounts: [200_000n, 20_000n, 2_000n], weights: [1n, 2n, 7n] },
  { id: encodeBytes32String("small"), amounts: [5_000n, 500n, 100n], weights: [1n, 4n, 5n] }, // not published at first
  { id: encodeBytes32String("flat"), amounts: [10_000n, 10_000n], weights: [1n, 1n] }, // published; drains the limits
];
const PUBLISHED_AT_START = [0, 1, 3];
const BACKLOG = 24;
const THRESHOLDS = [1_000n, 50_000n, 10n ** 12n];
const GUARANTEES = [0n, 2_500n, 100_000n];
const DAILY_LIMITS = [100_000n, 300_000n, 2_000_000n];
const CAMPAIGN_LIMITS = [0n, 50_000n, 500_000n];
const CALLBACK_LIMITS = [100_000, 150_000, 2_000_000];
const INITIAL_DAILY_LIMIT = 100_000n;
const UNITS = 10_000n;
/**
 * The pool: one unpaid drawing of the default table (its 100,000-dollar top prize reserved until its payout) fits
 * beside the backlog, a second does not, so commits meet ObligationNotBacked as a run goes on.
 */
const POOL_CENTS = 11_000_000n;
/** A withdrawal of 600 dollars: more than an allowance of the lowest limit ever holds, within the others'. */
const WITHDRAW_CHUNK_UNITS = 60_000n * UNITS;

// ------------------------------------------------------------------ fixture

async function propertyFixture() {
  const signers = await ethers.getSigners();
  const [admin, operator, guardian, stranger] = signers;
  const wallets = signers.slice(4, 8);
  const sink = signers[8]; // the only address withdrawals go to
  const provider = signers[9];
  const outsider = signers[10]; // named by a grant the manager refuses
  const token = (await (await ethers.getContractFactory("TestStablecoin")).deploy()) as unknown as TestStablecoin;
  const mock = (await (await ethers.getContractFactory("MockEntropy")).deploy(provider.address)) as unknown as MockEntropy;
  const { draw, vault, manager } = await deployPrizeDraw({
    entropy: await mock.getAddress(),
    token,
    admin,
    operator,
    guardian,
    callbackGasLimit: 150_000, // 10 positions per callback: larger drawings need settle()
    dailyLimitCents: INITIAL_DAILY_LIMIT,
    pool: POOL_CENTS * UNITS,
    defaultTable: false,
  });
  for (const i of PUBLISHED_AT_START) await draw.connect(operator).publishPrizeTable(TABLES[i].id, 1, TABLES[i].amounts, TABLES[i].weights);
  await draw.connect(operator).registerCampaign(CAMPAIGNS[0], wallets[0].address, 50_000, 0, 0);
  await draw.connect(operator).registerCampaign(CAMPAIGNS[1], wallets[1].address, 5_000, 2_500, DAY);
  const startBlock = await ethers.provider.getBlockNumber();
  // A backlog of settled, unpaid drawings of 10,000 cents each (what the model learns first): payouts can then
  // use up the limits whenever they allow, which is what bounded loss is about.
  for (let n = 1; n <= BACKLOG; n++) {
    const args: PrizeDraw.CommitStruct = {
      campaignId: CAMPAIGNS[0],
      number: n,
      slot: slotOf(`backlog_${n}`),
      drawAt: DRAW_EPOCH + n,
      kind: KIND_WINNERS,
      listCommitment: winnersFingerprint([`backlog-${n}`]),
      winnersExpected: 1,
      entrantCount: 0,
      totalWeight: 0n,
      tableId: TABLES[3].id,
      tableVersion: 1,
    };
    await draw.connect(operator).commitAndRequest([args], 0n);
    await mock.mockReveal(provider.address, n, keccak256(toUtf8Bytes(`backlog-${n}`)));
  }
  const addresses = {
    draw: await draw.getAddress(),
    vault: await vault.getAddress(),
    manager: await manager.getAddress(),
    token: await token.getAddress(),
  };
  return { admin, operator, guardian, stranger, wallets, sink, provider, outsider, token, mock, draw, vault, manager, addresses, startBlock };
}
type Real = Awaited<ReturnType<typeof propertyFixture>>;

// ------------------------------------------------------------------ model

type DrawingModel = {
  campaign: number;
  number: number;
  kind: number;
  prizeCount: number;
  sequence: bigint;
  status: "Requested" | "Revealed" | "Settled" | "Paid";
  settled: Set<number>;
  held: Map<number, bigint>; // position -> cents
  notHeld: Set<number>;
  closed: Set<number>;
  winnersRecorded: boolean;
  wallet: string;
  payoutCents: bigint;
  /** What its commit reserved (DrawMath.worstCase), and the most of it below the threshold (worstAutomatic). */
  worstCents: bigint;
  automaticCents: bigint;
};

type CampaignModel = {
  registered: boolean;
  wallet: string;
  thresholdCents: bigint;
  guaranteeCents: bigint;
  lastNumber: number;
  lastDrawAt: bigint;
  slots: Map<string, number>;
  limitHistory: { ts: number; cents: bigint }[];
};

type GuaranteeModel = { status: "Picked" | "Paid"; wallet: string; cents: bigint };

type TargetName = "draw" | "vault" | "manager";

/** A call of an admin function: what the manager schedules, executes and cancels. */
type AdminCall = { target: string; targetName: TargetName; data: string };

/** A scheduled operation of the admin, as the manager's events told it. */
type OpModel = AdminCall & {
  id: string;
  nonce: bigint;
  timepoint: number;
  scheduledAt: number;
  state: "pending" | "executed" | "canceled";
};

class Model {
  tables = new Set<string>(PUBLISHED_AT_START.map(tableKey));
  campaigns: CampaignModel[] = CAMPAIGNS.map(() => ({
    registered: false,
    wallet: ZeroAddress,
    thresholdCents: 0n,
    guaranteeCents: 0n,
    lastNumber: 0,
    lastDrawAt: 0n,
    slots: new Map(),
    limitHistory: [{ ts: 0, cents: 0n }],
  }));
  drawings = new Map<string, DrawingModel>();
  drawingOrder: string[] = [];
  guarantees = new Map<string, GuaranteeModel>();
  paused = false;
  /** What is owed as the vault's OwedChanged events and the payments made it. */
  owedCents = 0n;
  /** The vault's token balance, from the token's Transfer events. */
  balanceUnits = POOL_CENTS * UNITS;
  limitHistory: { ts: number; cents: bigint }[] = [{ ts: 0, cents: INITIAL_DAILY_LIMIT }];
  transfers: { ts: number; units: bigint }[] = [];
  campaignPayments: { ts: number; campaign: number; cents: bigint }[] = [];
  ops = new Map<string, OpModel>();
  opOrder: string[] = [];
  /** `${roleId}:${account}` -> the time the membership starts (a grant waits out the grant delay). */
  members = new Map<string, number>();
  lastBlock: number;
  /** The latest block's time. */
  now = 0;
  commandCount = 0;
  dirty = new Set<string>();
  dirtyOps = new Set<string>();
  constructor(r: Real) {
    this.lastBlock = r.startBlock;
    Object.assign(this.campaigns[0], { registered: true, wallet: r.wallets[0].address, thresholdCents: 50_000n });
    Object.assign(this.campaigns[1], { registered: true, wallet: r.wallets[1].address, thresholdCents: 5_000n, guaranteeCents: 2_500n });
    for (const [role, account] of [
      [ROLE.Admin, r.admin],
      [ROLE.Governor, r.admin],
      [ROLE.Operator, r.operator],
      [ROLE.Guardian, r.guardian],
    ] as const) {
      this.members.set(`${role}:${account.address}`, 0);
    }
  }
  pending(): string[] {
    return this.drawingOrder.filter((k) => this.drawings.get(k)!.status === "Requested");
  }
  freeUnits(): bigint {
    const owed = this.owedCents * UNITS;
    return this.balanceUnits > owed ? this.balanceUnits - owed : 0n;
  }
  /** vault.maxPaymentCents: half the overall limit, half the campaign's when it has a lower one. */
  maxPaymentCents(ci: number): bigint {
    let cents = this.limitHistory.at(-1)!.cents / 2n;
    const campaignLimit = this.campaigns[ci].limitHistory.at(-1)!.cents;
    if (campaignLimit !== 0n && campaignLimit / 2n < cents) cents = campaignLimit / 2n;
    return cents;
  }
  /**
   * What must be owed, from the obligations themselves: an unpaid drawing's worst case less its held prizes
   * already paid or refused, a paid one's open held prizes, and the picked unpaid guarantees.
   */
  ghostOwedCents(): bigint {
    let owed = 0n;
    for (const d of this.drawings.values()) {
      let closedCents = 0n;
      let openCents = 0n;
      for (const [position, cents] of d.held) {
        if (d.closed.has(position)) closedCents += cents;
        else openCents += cents;
      }
      owed += d.status === "Paid" ? openCents : d.worstCents - closedCents;
    }
    for (const g of this.guarantees.values()) if (g.status === "Picked") owed += g.cents;
    return owed;
  }
}

function tableKey(i: number): string {
  return `${TABLES[i].id}:1`;
}
function drawingKey(c: number, n: number): string {
  return `${c}:${n}`;
}
function campaignIndex(id: string): number {
  const i = CAMPAIGNS.indexOf(id);
  if (i < 0) throw new Error(`unknown campaign ${id}`);
  return i;
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);

function tableOf(tableId: string): (typeof TABLES)[number] {
  const t = TABLES.find((x) => x.id === tableId);
  if (!t) throw new Error(`unknown table ${tableId}`);
  return t;
}

/** AccessManager.hashOperation. */
function operationId(caller: string, target: string, data: string): string {
  return keccak256(AbiCoder.defaultAbiCoder().encode(["address", "address", "bytes"], [caller, target, data]));
}

// ------------------------------------------------------------------ expectations and calls

/** What a call may do: succeed (ok) and/or revert with one of `errors`, whose arguments are checked when given. */
type Expect = { ok: boolean; errors: string[]; args: Record<string, readonly unknown[]> };
const OK: Expect = { ok: true, errors: [], args: {} };
const fail = (...errors: string[]): Expect => ({ ok: false, errors, args: {} });
const failWith = (error: string, args: readonly unknown[]): Expect => ({ ok: false, errors: [error], args: { [error]: args } });
const either = (...errors: string[]): Expect => ({ ok: true, errors, args: {} });
function merge(a: Expect, b: Expect): Expect {
  return { ok: a.ok || b.ok, errors: [...new Set([...a.errors, ...b.errors])], args: { ...a.args, ...b.args } };
}

/** Whether a moment is reached by the next block: surely, surely not, or within the next block's few seconds. */
type When = "reached" | "not yet" | "maybe";
function reached(m: Readonly<Model>, at: number): When {
  if (at <= m.now + 1) return "reached";
  return at > m.now + CLOCK_MARGIN ? "not yet" : "maybe";
}
/** `then` once `when` is reached, `before` until then, either at the boundary. */
function byTime(when: When, then: Expect, before: Expect): Expect {
  return when === "reached" ? then : when === "not yet" ? before : merge(then, before);
}
/** Whether `account` holds `role` at the next block (a grant's membership starts after the grant delay). */
function holds(m: Readonly<Model>, role: bigint, account: string): When {
  const since = m.members.get(`${role}:${account}`);
  return since === undefined ? "not yet" : reached(m, since);
}

/** Outcomes per call and result, printed with PROPERTY_STATS=1. */
const STATS = new Map<string, number>();
const MAXRATIO = { v: 0 };

function signerOf(r: Real, role: Role): HardhatEthersSigner {
  return r[role];
}

/** An operator function (immediate): `expected` for an operator, AccessManagedUnauthorized for anyone else. */
function asOperator(m: Model, r: Real, role: Role, expected: Expect): Expect {
  const address = signerOf(r, role).address;
  return byTime(holds(m, ROLE.Operator, address), expected, failWith("AccessManagedUnauthorized", [address]));
}
/** An operator action on what is owed: the role first, then the pause, then the action's own checks. */
function obligationAction(m: Model, r: Real, role: Role, expected: Expect): Expect {
  return asOperator(m, r, role, m.paused ? fail("EnforcedPause") : expected);
}

function revertData(e: unknown): string | undefined {
  const seen = new Set<unknown>();
  const stack = [e];
  while (stack.length) {
    const x = stack.pop() as Record<string, unknown> | undefined;
    if (!x || typeof x !== "object" || seen.has(x)) continue;
    seen.add(x);
    if (typeof x.data === "string" && x.data.startsWith("0x")) return x.data;
    for (const k of ["error", "info", "cause", "data"]) stack.push(x[k] as Record<string, unknown>);
  }
  return undefined;
}

function interfaces(r: Real): Record<TargetName | "token", Interface> {
  return { draw: r.draw.interface, vault: r.vault.interface, manager: r.manager.interface, token: r.token.interface };
}

function decodeError(r: Real, e: unknown): { name: string; args: unknown[] } {
  const data = revertData(e);
  if (data !== undefined) {
    for (const iface of Object.values(interfaces(r))) {
      try {
        const parsed = iface.parseError(data);
        if (parsed) return { name: parsed.name, args: [...parsed.args] };
      } catch {
        // not this interface
      }
    }
    return { name: `raw(${data})`, args: [] };
  }
  return { name: `unknown(${(e as Error).message})`, args: [] };
}

/** Sends a call as `role` and checks it did what `expected` says; returns whether it succeeded. */
async function attempt(
  r: Real,
  label: string,
  role: Role,
  expected: Expect,
  send: (signer: HardhatEthersSigner) => Promise<{ wait(): Promise<unknown> }>,
): Promise<boolean> {
  let outcome: { ok: true } | { ok: false; name: string; args: unknown[] };
  try {
    const tx = await send(signerOf(r, role));
    await tx.wait();
    outcome = { ok: true };
  } catch (e) {
    outcome = { ok: false, ...decodeError(r, e) };
  }
  const stat = `${label.split("(")[0]} ${outcome.ok ? "ok" : outcome.name}`;
  STATS.set(stat, (STATS.get(stat) ?? 0) + 1);
  if (outcome.ok) {
    expect(expected.ok, `${label} by ${role} succeeded, expected ${expected.errors.join("|")}`).to.equal(true);
    return true;
  }
  expect(expected.errors, `${label} by ${role} reverted with ${outcome.name}`).to.include(outcome.name);
  const args = expected.args[outcome.name];
  if (args) expect(outcome.args, `${label} by ${role}: the arguments of ${outcome.name}`).to.deep.equal(args);
  return false;
}

/** Whether a payment of `cents` fits the overall and campaign allowances now, surely not, or maybe (refill). */
async function limitExpect(r: Real, campaignId: string, cents: bigint): Promise<Expect> {
  const [limit, available] = await r.vault.paymentState();
  const [campaignLimit, campaignAvailable] = await r.vault.campaignAllowance(campaignId);
  // The next block may be a few seconds later than the latest: up to two minutes of refill.
  const margin = (l: bigint) => ((l / 2n) * BigInt(CLOCK_MARGIN)) / BigInt(DAY) + 1n;
  const fitsNow = cents <= available && (campaignLimit === 0n || cents <= campaignAvailable);
  if (fitsNow) return OK;
  const surelyNot = cents > available + margin(limit) || (campaignLimit !== 0n && cents > campaignAvailable + margin(campaignLimit));
  return surelyNot ? fail("LimitExceeded") : either("LimitExceeded");
}

/** A new obligation of `cents`: refused, with the exact amounts, when owed would exceed the pool (invariant 1). */
function backingExpect(m: Model, cents: bigint): Expect {
  const owed = m.owedCents + cents;
  const balanceCents = m.balanceUnits / UNITS;
  return owed > balanceCents ? failWith("ObligationNotBacked", [owed, balanceCents]) : OK;
}

// ------------------------------------------------------------------ learning from events and checking invariants

const blockTimes = new Map<number, number>();
async function timestampOf(block: number): Promise<number> {
  let t = blockTimes.get(block);
  if (t === undefined) {
    t = (await ethers.provider.getBlock(block))!.timestamp;
    blockTimes.set(block, t);
  }
  return t;
}

function ordered(logs: Log[]): Log[] {
  return [...logs].sort((a, b) => a.blockNumber - b.blockNumber || a.index - b.index);
}

/** What one transaction's events announced, to be matched by the events that follow them in it. */
type TxLedger = {
  hash: string;
  reserveCents: bigint; // announced by the engine, not yet in an OwedChanged
  releaseCents: bigint;
  paidUnits: bigint; // payment events
  toWalletsUnits: bigint; // Transfer events to winners' wallets
  withdrawnUnits: bigint; // TokensWithdrawn events
  toSinkUnits: bigint; // Transfer events to the withdrawals' address
  executed?: OpModel; // the admin's operation this transaction executed
};

function closeLedger(t: TxLedger | undefined): void {
  if (!t) return;
  expect([t.reserveCents, t.releaseCents], `invariant 1: obligations announced in ${t.hash} but not reserved or released`).to.deep.equal([0n, 0n]);
  expect(t.toWalletsUnits, `transfers to wallets without payments in ${t.hash}`).to.equal(t.paidUnits);
  expect(t.toSinkUnits, `transfers to the withdrawal address without a withdrawal in ${t.hash}`).to.equal(t.withdrawnUnits);
}

/**
 * Reads every new event of the engine, the vault, the manager and the token, updates the model, and checks what
 * each event must satisfy (invariants 1, 3, 4, 6).
 */
async function learn(m: Model, r: Real): Promise<void> {
  const latest = await ethers.provider.getBlockNumber();
  if (latest <= m.lastBlock) return;
  const addr = r.addresses;
  const logs = ordered(await ethers.provider.getLogs({ fromBlock: m.lastBlock + 1, toBlock: latest, address: [addr.draw, addr.vault, addr.manager, addr.token] }));
  m.lastBlock = latest;
  m.now = await timestampOf(latest);
  const ifaces = interfaces(r);
  const walletSet = new Set(r.wallets.map((w) => w.address));
  let t: TxLedger | undefined;
  for (const log of logs) {
    if (t?.hash !== log.transactionHash) {
      closeLedger(t);
      t = { hash: log.transactionHash, reserveCents: 0n, releaseCents: 0n, paidUnits: 0n, toWalletsUnits: 0n, withdrawnUnits: 0n, toSinkUnits: 0n };
    }
    const tx: TxLedger = t;
    const ts = await timestampOf(log.blockNumber);
    const source = log.address === addr.draw ? "draw" : log.address === addr.vault ? "vault" : log.address === addr.manager ? "manager" : "token";
    const parsed = ifaces[source].parseLog(log);
    if (!parsed) continue;
    const a = parsed.args;
    /** Invariant 6: an admin action takes effect only inside the execution of a scheduled operation. */
    const adminEffect = (functions: readonly string[] | null) => {
      expect(tx.executed, `invariant 6: ${parsed.name} outside a scheduled operation's execution`).to.not.equal(undefined);
      const fn = ifaces[tx.executed!.targetName].parseTransaction({ data: tx.executed!.data })!;
      if (functions) expect(functions, `invariant 6: ${parsed.name} from an execution of ${fn.name}`).to.include(fn.name);
      return fn.args;
    };
    const payment = (campaign: number, cents: bigint, units: bigint) => {
      expect(m.paused, `invariant 3: ${parsed.name} while paused`).to.equal(false);
      expect(units).to.equal(cents * UNITS);
      m.owedCents -= cents;
      m.campaignPayments.push({ ts, campaign, cents });
      tx.paidUnits += units;
    };

    if (source === "token") {
      if (parsed.name !== "Transfer") continue;
      if (a.to === addr.vault) m.balanceUnits += a.value;
      if (a.from !== addr.vault) continue;
      expect(m.paused, "invariant 3: a transfer out of the vault while paused").to.equal(false);
      m.balanceUnits -= a.value;
      m.transfers.push({ ts, units: a.value });
      if (a.to === r.sink.address) tx.toSinkUnits += a.value;
      else {
        expect(walletSet.has(a.to), `transfer to a non-winner address ${a.to}`).to.equal(true);
        tx.toWalletsUnits += a.value;
      }
      continue;
    }

    if (source === "manager") {
      switch (parsed.name) {
        case "OperationScheduled": {
          expect(a.caller, "invariant 6: only the admin schedules").to.equal(r.admin.address);
          expect(Number(a.schedule), "invariant 6: executable ADMIN_DELAY after it is scheduled").to.equal(ts + ADMIN_DELAY);
          const targetName = a.target === addr.draw ? "draw" : a.target === addr.vault ? "vault" : "manager";
          expect(a.target, "an operation on the engine, the vault or the manager").to.be.oneOf([addr.draw, addr.vault, addr.manager]);
          const id = a.operationId as string;
          if (!m.ops.has(id)) m.opOrder.push(id);
          const previous = m.ops.get(id);
          expect(previous?.state === "pending" && ts < previous.timepoint + WEEK, "scheduled while still scheduled").to.equal(false);
          m.ops.set(id, { id, target: a.target, targetName, data: a.data, nonce: a.nonce, timepoint: Number(a.schedule), scheduledAt: ts, state: "pending" });
          m.dirtyOps.add(id);
          break;
        }
        case "OperationExecuted": {
          const op = m.ops.get(a.operationId);
          expect(op?.state, "invariant 6: executed without being scheduled").to.equal("pending");
          expect(a.nonce).to.equal(op!.nonce);
          expect(ts - op!.scheduledAt, "invariant 6: executed at least ADMIN_DELAY after it was scheduled").to.be.at.least(ADMIN_DELAY);
          expect(ts, "invariant 6: executed within its week").to.be.below(op!.timepoint + WEEK);
          expect(tx.executed, "one execution per transaction").to.equal(undefined);
          op!.state = "executed";
          tx.executed = op;
          m.dirtyOps.add(op!.id);
          break;
        }
        case "OperationCanceled": {
          const op = m.ops.get(a.operationId);
          expect(op?.state, "cancelled without being scheduled").to.equal("pending");
          op!.state = "canceled";
          m.dirtyOps.add(op!.id);
          break;
        }
        case "RoleGranted": {
          adminEffect(["grantRole"]);
          if (a.newMember) {
            expect(Number(a.since), "a new member waits out the grant delay").to.equal(ts + ADMIN_DELAY);
            m.members.set(`${a.roleId}:${a.account}`, Number(a.since));
          }
          break;
        }
        default:
          // Any other change of who may do what (revocations, role settings) is the admin's, scheduled too.
          adminEffect(null);
          break;
      }
      continue;
    }

    if (source === "vault") {
      switch (parsed.name) {
        case "OwedChanged": {
          expect([a.reservedCents, a.releasedCents], "invariant 1: owed changes by exactly what the engine's events announce").to.deep.equal([
            tx.reserveCents,
            tx.releaseCents,
          ]);
          tx.reserveCents = 0n;
          tx.releaseCents = 0n;
          m.owedCents += BigInt(a.reservedCents) - BigInt(a.releasedCents);
          expect(a.owedCents).to.equal(m.owedCents);
          if (a.reservedCents > 0n) expect(m.owedCents <= m.balanceUnits / UNITS, "invariant 1: a new obligation is backed").to.equal(true);
          break;
        }
        case "LimitChanged":
          adminEffect(["setDailyLimit", "setCampaignLimit"]);
          if (a.campaignId === ZeroHash) m.limitHistory.push({ ts, cents: a.newCents });
          else m.campaigns[campaignIndex(a.campaignId)].limitHistory.push({ ts, cents: a.newCents });
          break;
        case "PaymentsPaused":
          expect(holds(m, ROLE.Guardian, a.by), "invariant 3: only the guardian pauses").to.not.equal("not yet");
          m.paused = true;
          break;
        case "PaymentsResumed":
          adminEffect(["unpause"]);
          m.paused = false;
          break;
        case "TokensWithdrawn":
          adminEffect(["withdrawTokens"]);
          expect(m.paused, "invariant 3: a withdrawal while paused").to.equal(false);
          expect(a.cents, "a withdrawal draws its cents, rounded up, from the allowance").to.equal((a.amount + UNITS - 1n) / UNITS);
          expect(a.amount <= m.freeUnits(), "invariant 1: a withdrawal takes only what nothing owes").to.equal(true);
          tx.withdrawnUnits += a.amount;
          break;
        default:
          adminEffect(null);
          break;
      }
      continue;
    }

    // Invariant 3: while paused, the operator creates, releases or redirects nothing owed.
    if (["CampaignRegistered", "LargePrizeThresholdChanged", "DrawingCommitted", "HeldPrizeRefused", "GuaranteePicked"].includes(parsed.name)) {
      expect(m.paused, `invariant 3: ${parsed.name} while paused`).to.equal(false);
    }
    switch (parsed.name) {
      case "PrizeTablePublished":
        m.tables.add(`${a.tableId}:${a.version}`);
        break;
      case "CampaignRegistered": {
        const c = m.campaigns[campaignIndex(a.campaignId)];
        expect(c.registered, "registered twice").to.equal(false);
        c.registered = true;
        c.wallet = a.payoutWallet;
        c.thresholdCents = a.largePrizeThresholdCents;
        c.guaranteeCents = a.guaranteeCents;
        break;
      }
      case "PayoutWalletChanged":
        m.campaigns[campaignIndex(a.campaignId)].wallet = a.newWallet;
        break;
      case "LargePrizeThresholdChanged":
        m.campaigns[campaignIndex(a.campaignId)].thresholdCents = a.newCents;
        break;
      case "DrawingCommitted": {
        const ci = campaignIndex(a.campaignId);
        const c = m.campaigns[ci];
        const n = Number(a.number);
        expect(n, "invariant 5: numbers are 1, 2, 3...").to.equal(c.lastNumber + 1);
        expect(c.slots.has(a.slot), "slot used twice").to.equal(false);
        expect(a.drawAt > c.lastDrawAt, "draw times increase").to.equal(true);
        expect(a.largePrizeThresholdCents).to.equal(c.thresholdCents);
        expect(a.payoutWallet).to.equal(c.wallet);
        c.lastNumber = n;
        c.lastDrawAt = a.drawAt;
        c.slots.set(a.slot, n);
        const kind = Number(a.kind);
        const prizeCount = kind === KIND_ENTRANTS ? Math.min(Number(a.winnersExpected), Number(a.entrantCount)) : Number(a.winnersExpected);
        const worst = worstCaseOf(tableOf(a.tableId).amounts, a.largePrizeThresholdCents, prizeCount);
        expect(worst.automaticCents <= m.maxPaymentCents(ci), "a drawing's automatic payout fits a payment's limit").to.equal(true);
        tx.reserveCents += worst.totalCents;
        const key = drawingKey(ci, n);
        m.drawings.set(key, {
          campaign: ci,
          number: n,
          kind,
          prizeCount,
          sequence: 0n,
          status: "Requested",
          settled: new Set(),
          held: new Map(),
          notHeld: new Set(),
          closed: new Set(),
          winnersRecorded: false,
          wallet: a.payoutWallet,
          payoutCents: 0n,
          worstCents: worst.totalCents,
          automaticCents: worst.automaticCents,
        });
        m.drawingOrder.push(key);
        m.dirty.add(key);
        break;
      }
      case "EntropyRequested":
        m.drawings.get(drawingKey(campaignIndex(a.campaignId), Number(a.number)))!.sequence = a.sequence;
        break;
      case "EntropyRevealed": {
        const key = drawingKey(campaignIndex(a.campaignId), Number(a.number));
        const d = m.drawings.get(key)!;
        m.dirty.add(key);
        expect(d.status, "revealed twice").to.equal("Requested");
        d.status = "Revealed";
        break;
      }
      case "PrizeAwarded": {
        const key = drawingKey(campaignIndex(a.campaignId), Number(a.number));
        const d = m.drawings.get(key)!;
        const position = Number(a.position);
        expect(d.settled.has(position), `invariant 4: position ${key}:${position} settled twice`).to.equal(false);
        expect(position, "positions settle in order").to.equal(d.settled.size);
        d.settled.add(position);
        if (a.held) d.held.set(position, a.amountCents);
        else {
          d.notHeld.add(position);
          d.payoutCents += a.amountCents;
        }
        m.dirty.add(key);
        break;
      }
      case "DrawingSettled": {
        const d = m.drawings.get(drawingKey(campaignIndex(a.campaignId), Number(a.number)))!;
        expect(d.status, "invariant 4: settled once").to.equal("Revealed");
        expect(d.settled.size).to.equal(d.prizeCount);
        expect(a.payoutCents).to.equal(d.payoutCents);
        const heldCents = [...d.held.values()].reduce((s, x) => s + x, 0n);
        expect(a.heldCents).to.equal(heldCents);
        expect(d.payoutCents <= d.automaticCents, "the automatic payout is within its reserved worst case").to.equal(true);
        expect(d.payoutCents + heldCents <= d.worstCents, "the prizes are within the reserved worst case").to.equal(true);
        d.status = "Settled";
        break;
      }
      case "WinnersRecorded": {
        const d = m.drawings.get(drawingKey(campaignIndex(a.campaignId), Number(a.number)))!;
        expect(d.winnersRecorded).to.equal(false);
        d.winnersRecorded = true;
        break;
      }
      case "DrawingPaid": {
        const ci = campaignIndex(a.campaignId);
        const key = drawingKey(ci, Number(a.number));
        const d = m.drawings.get(key)!;
        expect(d.status, `invariant 4: drawing ${key} paid twice`).to.equal("Settled");
        expect(a.wallet).to.equal(d.wallet);
        expect(a.amountCents).to.equal(d.payoutCents);
        d.status = "Paid";
        payment(ci, a.amountCents, a.tokenAmount);
        // What the commit reserved and the draw did not award is no longer owed.
        tx.releaseCents += d.worstCents - d.payoutCents - [...d.held.values()].reduce((s, x) => s + x, 0n);
        m.dirty.add(key);
        break;
      }
      case "HeldPrizePaid":
      case "HeldPrizeRefused": {
        const ci = campaignIndex(a.campaignId);
        const key = drawingKey(ci, Number(a.number));
        const d = m.drawings.get(key)!;
        const position = Number(a.position);
        expect(d.closed.has(position), `invariant 4: held prize ${key}:${position} closed twice`).to.equal(false);
        expect(d.held.get(position)).to.equal(a.amountCents);
        d.closed.add(position);
        if (parsed.name === "HeldPrizePaid") {
          expect(a.wallet).to.equal(d.wallet);
          payment(ci, a.amountCents, a.tokenAmount);
        } else {
          tx.releaseCents += a.amountCents;
        }
        m.dirty.add(key);
        break;
      }
      case "DrawingWalletMoved": {
        const [, , to] = adminEffect(["moveDrawingWallet"]);
        const ci = campaignIndex(a.campaignId);
        const key = drawingKey(ci, Number(a.number));
        const d = m.drawings.get(key)!;
        m.dirty.add(key);
        expect(a.previousWallet).to.equal(d.wallet);
        expect(a.newWallet, "invariant 6: a move goes to the campaign's wallet").to.equal(m.campaigns[ci].wallet);
        expect(a.newWallet, "invariant 6: a move goes where the admin's call named").to.equal(to);
        d.wallet = a.newWallet;
        break;
      }
      case "GuaranteePicked": {
        const ci = campaignIndex(a.campaignId);
        const key = `${ci}:${a.period}`;
        expect(m.guarantees.has(key), `invariant 4: guarantee ${key} picked twice`).to.equal(false);
        expect(a.amountCents, "invariant 4: exactly the registered amount").to.equal(m.campaigns[ci].guaranteeCents);
        expect(Number(a.period)).to.be.lessThan(m.campaigns[ci].lastNumber);
        m.guarantees.set(key, { status: "Picked", wallet: a.wallet, cents: a.amountCents });
        tx.reserveCents += a.amountCents;
        break;
      }
      case "GuaranteePaid": {
        const ci = campaignIndex(a.campaignId);
        const g = m.guarantees.get(`${ci}:${a.period}`);
        expect(g?.status, `invariant 4: guarantee ${ci}:${a.period} paid twice or unpicked`).to.equal("Picked");
        expect(a.wallet).to.equal(g!.wallet);
        expect(a.amountCents).to.equal(g!.cents);
        g!.status = "Paid";
        payment(ci, a.amountCents, a.tokenAmount);
        break;
      }
      case "GuaranteeWalletMoved": {
        const [, , to] = adminEffect(["moveGuaranteeWallet"]);
        const ci = campaignIndex(a.campaignId);
        const g = m.guarantees.get(`${ci}:${a.period}`)!;
        expect(a.previousWallet).to.equal(g.wallet);
        expect(a.newWallet, "invariant 6: a move goes to the campaign's wallet").to.equal(m.campaigns[ci].wallet);
        expect(a.newWallet, "invariant 6: a move goes where the admin's call named").to.equal(to);
        g.wallet = a.newWallet;
        break;
      }
      case "CallbackGasLimitChanged":
        adminEffect(["setCallbackGasLimit"]);
        break;
      default:
        break;
    }
  }
  closeLedger(t);
}

/** The limits in force at any time during [from, to]: the one in force at `from` and every one set up to `to`. */
function limitsDuring(history: { ts: number; cents: bigint }[], from: number, to: number): bigint[] {
  let atStart = history[0].cents;
  const out: bigint[] = [];
  for (const h of history) {
    if (h.ts <= from) atStart = h.cents;
    else if (h.ts <= to) out.push(h.cents);
  }
  return [atStart, ...out];
}

async function checkInvariants(m: Model, r: Real): Promise<void> {
  // 1. Owed money is backed, and is exactly what the obligations make it.
  const [balance, owedCents, owedUnits, freeUnits] = await r.vault.balances();
  expect(balance, "the vault's balance is what its transfers left").to.equal(m.balanceUnits);
  expect(owedCents, "invariant 1: owedCents equals what the OwedChanged events and payments made it").to.equal(m.owedCents);
  expect(owedCents, "invariant 1: owedCents equals the obligations (worst cases of unsettled drawings, unpaid prizes, guarantees)").to.equal(
    m.ghostOwedCents(),
  );
  expect(owedCents <= balance / UNITS, `invariant 1: owed ${owedCents} cents exceeds the balance of ${balance} units`).to.equal(true);
  expect(owedUnits).to.equal(owedCents * UNITS);
  expect(freeUnits).to.equal(m.freeUnits());
  const [limit, , isPaused] = await r.vault.paymentState();
  expect(isPaused).to.equal(m.paused);
  expect(limit).to.equal(m.limitHistory.at(-1)!.cents);

  // 2. Bounded loss, over every 24-hour window that ends at a transfer out (the worst windows end at one).
  for (let i = 0; i < m.transfers.length; i++) {
    const end = m.transfers[i].ts;
    const sum = m.transfers.filter((t) => t.ts >= end - DAY && t.ts <= end).reduce((s, t) => s + t.units, 0n);
    const highest = limitsDuring(m.limitHistory, end - DAY, end).reduce(max);
    if (process.env.PROPERTY_STATS === "1") MAXRATIO.v = Math.max(MAXRATIO.v, Number((sum * 1000n) / (highest * UNITS)) / 1000);
    expect(sum <= highest * UNITS, `invariant 2: ${sum} units left in the 24 hours to ${end}, limit ${highest} cents`).to.equal(true);
  }
  for (const p of m.campaignPayments) {
    const c = m.campaigns[p.campaign];
    const limits = limitsDuring(c.limitHistory, p.ts - DAY, p.ts);
    if (limits.includes(0n)) continue; // no campaign limit at some point in the window
    const sum = m.campaignPayments
      .filter((q) => q.campaign === p.campaign && q.ts >= p.ts - DAY && q.ts <= p.ts)
      .reduce((s, q) => s + q.cents, 0n);
    const highest = limits.reduce(max);
    expect(sum <= highest, `invariant 2: campaign ${p.campaign} paid ${sum} cents in the 24 hours to ${p.ts}, limit ${highest}`).to.equal(true);
  }

  // 5. Gapless numbers; the registry as the events left it.
  for (let ci = 0; ci < CAMPAIGNS.length; ci++) {
    const c = m.campaigns[ci];
    const [registered, wallet, lastNumber, threshold] = await r.draw.getCampaign(CAMPAIGNS[ci]);
    expect(registered).to.equal(c.registered);
    expect(wallet).to.equal(c.wallet);
    expect(threshold).to.equal(c.thresholdCents);
    expect(Number(lastNumber), "invariant 5: lastNumber equals the commits that succeeded").to.equal(c.lastNumber);
    expect([...c.slots.values()].sort((x, y) => x - y)).to.deep.equal(Array.from({ length: c.lastNumber }, (_, i) => i + 1));
    expect(await r.vault.maxPaymentCents(CAMPAIGNS[ci])).to.equal(m.maxPaymentCents(ci));
  }

  // The stored drawings agree with what their events said (4: settled, paid and closed once).
  for (const key of m.dirty) {
    const d = m.drawings.get(key)!;
    const s = await r.draw.getDrawing(CAMPAIGNS[d.campaign], d.number);
    expect(Number(s.settledCount)).to.equal(d.settled.size);
    expect(Number(s.heldCount)).to.equal(d.held.size);
    expect(Number(s.heldClosed)).to.equal(d.closed.size);
    expect(s.payoutWallet).to.equal(d.wallet);
    expect(s.status).to.equal(BigInt(["None", "Requested", "Revealed", "Settled", "Paid"].indexOf(d.status)));
  }
  m.dirty.clear();

  // The manager's schedule as its events left it (6).
  for (const id of m.dirtyOps) {
    const op = m.ops.get(id)!;
    expect(await r.manager.getNonce(id)).to.equal(op.nonce);
    if (op.state !== "pending") expect(await r.manager.getSchedule(id)).to.equal(0n);
    else if (op.timepoint + WEEK > m.now + CLOCK_MARGIN) expect(await r.manager.getSchedule(id)).to.equal(BigInt(op.timepoint));
  }
  m.dirtyOps.clear();
}

// ------------------------------------------------------------------ commands

type Cmd = fc.AsyncCommand<Model, Real>;

abstract class Base implements Cmd {
  check(_m: Readonly<Model>): boolean {
    return true;
  }
  async run(m: Model, r: Real): Promise<void> {
    m.commandCount++;
    await this.act(m, r);
    await learn(m, r);
    await checkInvariants(m, r);
  }
  abstract act(m: Model, r: Real): Promise<void>;
  abstract toString(): string;
}

/** A drawing: mostly one `want` accepts (so calls get somewhere), sometimes any, sometimes one that does not exist. */
function pickDrawing(m: Model, pick: number, want: (d: DrawingModel) => boolean = () => true): { ci: number; n: number; d?: DrawingModel } {
  if (m.drawingOrder.length === 0 || pick % 11 === 10) {
    const ci = pick % CAMPAIGNS.length;
    return { ci, n: m.campaigns[ci].lastNumber + 1 };
  }
  const wanted = m.drawingOrder.filter((k) => want(m.drawings.get(k)!));
  const from = wanted.length > 0 && pick % 4 !== 0 ? wanted : m.drawingOrder;
  const d = m.drawings.get(from[pick % from.length])!;
  return { ci: d.campaign, n: d.number, d };
}

class PublishTable extends Base {
  constructor(readonly role: Role, readonly table: number) {
    super();
  }
  async act(m: Model, r: Real) {
    const t = TABLES[this.table];
    const expected = asOperator(m, r, this.role, m.tables.has(tableKey(this.table)) ? fail("PrizeTableExists") : OK);
    await attempt(r, this.toString(), this.role, expected, (s) => r.draw.connect(s).publishPrizeTable(t.id, 1, t.amounts, t.weights));
  }
  toString() {
    return `publishTable(${this.role}, ${this.table})`;
  }
}

class RegisterCampaign extends Base {
  constructor(
    readonly role: Role,
    readonly c: number,
    readonly wallet: number, // -1: none yet (a draft)
    readonly threshold: number,
    readonly guarantee: number,
    readonly periodDays: number,
  ) {
    super();
  }
  async act(m: Model, r: Real) {
    const wallet = this.wallet < 0 ? ZeroAddress : r.wallets[this.wallet].address;
    const expected = obligationAction(m, r, this.role, m.campaigns[this.c].registered ? fail("CampaignAlreadyRegistered") : OK);
    await attempt(r, this.toString(), this.role, expected, (s) =>
      r.draw.connect(s).registerCampaign(CAMPAIGNS[this.c], wallet, THRESHOLDS[this.threshold], GUARANTEES[this.guarantee], this.periodDays * DAY),
    );
  }
  toString() {
    return `registerCampaign(${this.role}, c${this.c}, w${this.wallet}, t${this.threshold}, g${this.guarantee}, ${this.periodDays}d)`;
  }
}

class SetPayoutWallet extends Base {
  constructor(readonly role: Role, readonly c: number, readonly wallet: number) {
    super();
  }
  async act(m: Model, r: Real) {
    // Allowed during a pause: the recovery of a compromised wallet.
    const expected = asOperator(m, r, this.role, m.campaigns[this.c].registered ? OK : fail("CampaignNotRegistered"));
    await attempt(r, this.toString(), this.role, expected, (s) => r.draw.connect(s).setPayoutWallet(CAMPAIGNS[this.c], r.wallets[this.wallet].address));
  }
  toString() {
    return `setPayoutWallet(${this.role}, c${this.c}, w${this.wallet})`;
  }
}

class SetThreshold extends Base {
  constructor(readonly role: Role, readonly c: number, readonly threshold: number) {
    super();
  }
  async act(m: Model, r: Real) {
    const expected = obligationAction(m, r, this.role, m.campaigns[this.c].registered ? OK : fail("CampaignNotRegistered"));
    await attempt(r, this.toString(), this.role, expected, (s) => r.draw.connect(s).setLargePrizeThreshold(CAMPAIGNS[this.c], THRESHOLDS[this.threshold]));
  }
  toString() {
    return `setLargePrizeThreshold(${this.role}, c${this.c}, t${this.threshold})`;
  }
}

/** A commit as the service makes it, or with one thing a rogue operator (or a retry) gets wrong. */
type Variant = "good" | "reuseSlot" | "rogueSlot" | "sameTime" | "earlierTime" | "skipNumber" | "replayNumber";

/** Mostly a registered campaign (so the cycle gets going), sometimes any. */
function pickCampaign(m: Model, pick: number, want: (c: CampaignModel) => boolean = (c) => c.registered): number {
  const eligible = m.campaigns.map((c, i) => (want(c) ? i : -1)).filter((i) => i >= 0);
  if (eligible.length === 0 || pick % 5 === 0) return pick % CAMPAIGNS.length;
  return eligible[pick % eligible.length];
}

class Commit extends Base {
  constructor(
    readonly role: Role,
    readonly cPick: number,
    readonly variant: Variant,
    readonly entrants: boolean,
    readonly winners: number,
    readonly table: number,
    readonly salt: number,
  ) {
    super();
  }
  async act(m: Model, r: Real) {
    const ci = pickCampaign(m, this.cPick);
    const c = m.campaigns[ci];
    const next = c.lastNumber + 1;
    const v = this.variant;
    const num = v === "skipNumber" ? next + 1 : v === "replayNumber" ? Math.max(c.lastNumber, 1) : next;
    const used = [...c.slots.keys()];
    const slot =
      v === "reuseSlot" && used.length > 0
        ? used[this.salt % used.length]
        : v === "rogueSlot"
          ? slotOf(`rogue_${ci}_${m.commandCount}_${this.salt}`)
          : slotOf(`drw_${ci}_${num}_${m.commandCount}`);
    const later = (c.lastDrawAt === 0n ? BigInt(DRAW_EPOCH) : c.lastDrawAt) + 3600n;
    const drawAt = v === "sameTime" ? c.lastDrawAt : v === "earlierTime" ? (c.lastDrawAt > 0n ? c.lastDrawAt - 1n : 0n) : later;
    const table = m.tables.has(tableKey(this.table)) || this.salt % 4 === 0 ? this.table : 0;
    const entrantCount = this.entrants ? 1 + (this.salt % 15) : 0;
    const args: PrizeDraw.CommitStruct = {
      campaignId: CAMPAIGNS[ci],
      number: num,
      slot,
      drawAt,
      kind: this.entrants ? KIND_ENTRANTS : KIND_WINNERS,
      listCommitment: this.entrants ? keccak256(toUtf8Bytes(`entrants-${this.salt}`)) : winnersFingerprint([`w-${this.salt}`]),
      winnersExpected: this.winners,
      entrantCount,
      totalWeight: BigInt(entrantCount * 2),
      tableId: TABLES[table].id,
      tableVersion: 1,
    };
    const maxFee = 10n ** 15n;
    // The contract's order of checks.
    let expected: Expect = OK;
    if (!c.registered) expected = fail("CampaignNotRegistered");
    else if (num !== next) expected = fail("NumberOutOfSequence");
    else if (c.slots.has(slot)) expected = fail("SlotAlreadyUsed");
    else if (drawAt <= c.lastDrawAt) expected = fail("DrawTimeNotLater");
    else if (c.wallet === ZeroAddress) expected = fail("PayoutWalletRequired");
    else if (!m.tables.has(tableKey(table))) expected = fail("PrizeTableNotFound");
    else {
      // The money rules: an automatic payout no allowance could hold is refused, then a worst case the pool
      // cannot back.
      const prizeCount = this.entrants ? Math.min(this.winners, entrantCount) : this.winners;
      const worst = worstCaseOf(TABLES[table].amounts, c.thresholdCents, prizeCount);
      const maxCents = m.maxPaymentCents(ci);
      if (worst.automaticCents > maxCents) expected = failWith("PayoutAboveLimit", [CAMPAIGNS[ci], BigInt(num), worst.automaticCents, maxCents]);
      else expected = backingExpect(m, worst.totalCents);
    }
    await attempt(r, this.toString(), this.role, obligationAction(m, r, this.role, expected), (s) =>
      r.draw.connect(s).commitAndRequest([args], maxFee, { value: maxFee }),
    );
  }
  toString() {
    return `commit(${this.role}, ${this.cPick}, ${this.variant}, ${this.entrants ? "entrants" : "winners"}, ${this.winners}, table${this.table}, ${this.salt})`;
  }
}

class Reveal extends Base {
  constructor(readonly pick: number, readonly seed: number) {
    super();
  }
  async act(m: Model, r: Real) {
    const pending = m.pending();
    if (pending.length === 0) return;
    const d = m.drawings.get(pending[this.pick % pending.length])!;
    await (await r.mock.connect(r.stranger).mockReveal(r.provider.address, d.sequence, keccak256(toUtf8Bytes(`reveal-${this.seed}-${d.sequence}`)))).wait();
    STATS.set("reveal ok", (STATS.get("reveal ok") ?? 0) + 1);
  }
  toString() {
    return `reveal(${this.pick}, ${this.seed})`;
  }
}

class Settle extends Base {
  constructor(readonly role: Role, readonly pick: number, readonly max: number) {
    super();
  }
  async act(m: Model, r: Real) {
    const { ci, n, d } = pickDrawing(m, this.pick, (x) => x.status === "Revealed");
    let expected: Expect = OK;
    if (!d) expected = fail("DrawingNotFound");
    else if (d.status === "Requested") expected = fail("NotRevealed");
    else if (d.status !== "Revealed" || this.max === 0) expected = fail("NothingToSettle");
    await attempt(r, this.toString(), this.role, expected, (s) => r.draw.connect(s).settle(CAMPAIGNS[ci], n, this.max));
  }
  toString() {
    return `settle(${this.role}, ${this.pick}, ${this.max})`;
  }
}

class RecordWinners extends Base {
  constructor(readonly role: Role, readonly pick: number) {
    super();
  }
  async act(m: Model, r: Real) {
    const { ci, n, d } = pickDrawing(m, this.pick, (x) => x.kind === KIND_ENTRANTS && x.status !== "Requested" && !x.winnersRecorded);
    let expected: Expect = OK;
    if (!d) expected = fail("DrawingNotFound");
    else if (d.kind !== KIND_ENTRANTS) expected = fail("NotEntrantDrawing");
    else if (d.status === "Requested") expected = fail("NotRevealed");
    else if (d.winnersRecorded) expected = fail("WinnersAlreadyRecorded");
    await attempt(r, this.toString(), this.role, asOperator(m, r, this.role, expected), (s) =>
      r.draw.connect(s).recordWinners(CAMPAIGNS[ci], n, winnersFingerprint([`e-${ci}-${n}`])),
    );
  }
  toString() {
    return `recordWinners(${this.role}, ${this.pick})`;
  }
}

async function payoutExpect(m: Model, r: Real, ci: number, d: DrawingModel | undefined): Promise<Expect> {
  if (!d) return fail("DrawingNotFound");
  if (d.status === "Paid") return fail("AlreadyPaid");
  if (d.status !== "Settled") return fail("NotSettled");
  if (d.kind === KIND_ENTRANTS && !d.winnersRecorded) return fail("WinnersNotRecorded");
  if (m.paused) return fail("PaymentsArePaused");
  return limitExpect(r, CAMPAIGNS[ci], d.payoutCents);
}

class Payout extends Base {
  constructor(readonly role: Role, readonly pick: number) {
    super();
  }
  async act(m: Model, r: Real) {
    const { ci, n, d } = pickDrawing(m, this.pick, (x) => x.status === "Settled");
    const expected = await payoutExpect(m, r, ci, d);
    await attempt(r, this.toString(), this.role, expected, (s) => r.draw.connect(s).payout(CAMPAIGNS[ci], n));
  }
  toString() {
    return `payout(${this.role}, ${this.pick})`;
  }
}

/** Anyone pays every payable drawing, in order, as far as the limits allow: concentrates payments in time. */
class Drain extends Base {
  async act(m: Model, r: Real) {
    let refused = 0;
    for (const key of m.drawingOrder) {
      const d = m.drawings.get(key)!;
      if (d.status !== "Settled" || (d.kind === KIND_ENTRANTS && !d.winnersRecorded)) continue;
      const expected = await payoutExpect(m, r, d.campaign, d);
      const paid = await attempt(r, "payout(drain)", "stranger", expected, (s) => r.draw.connect(s).payout(CAMPAIGNS[d.campaign], d.number));
      await learn(m, r);
      if (!paid && ++refused === 3) break;
    }
  }
  toString() {
    return "drain()";
  }
}

/** The whole cycle of one drawing as the service runs it: commit, reveal, settle, record the winners, pay out. */
class Cycle extends Base {
  constructor(
    readonly cPick: number,
    readonly entrants: boolean,
    readonly winners: number,
    readonly table: number,
    readonly salt: number,
  ) {
    super();
  }
  async act(m: Model, r: Real) {
    const count = m.drawingOrder.length;
    await new Commit("operator", this.cPick, "good", this.entrants, this.winners, this.table, this.salt).act(m, r);
    await learn(m, r);
    if (m.drawingOrder.length === count) return; // refused, as the commit predicted
    const d = m.drawings.get(m.drawingOrder[count])!;
    const [id, n] = [CAMPAIGNS[d.campaign], d.number];
    await (await r.mock.connect(r.stranger).mockReveal(r.provider.address, d.sequence, keccak256(toUtf8Bytes(`cycle-${this.salt}-${d.sequence}`)))).wait();
    await learn(m, r);
    if (d.status === "Revealed") {
      await attempt(r, "settle(cycle)", "stranger", OK, (s) => r.draw.connect(s).settle(id, n, 1_000));
      await learn(m, r);
    }
    if (d.kind === KIND_ENTRANTS) {
      await attempt(r, "recordWinners(cycle)", "operator", OK, (s) => r.draw.connect(s).recordWinners(id, n, winnersFingerprint([`e-${this.salt}`])));
      await learn(m, r);
    }
    const expected = await payoutExpect(m, r, d.campaign, d);
    await attempt(r, "payout(cycle)", "stranger", expected, (s) => r.draw.connect(s).payout(id, n));
  }
  toString() {
    return `cycle(${this.cPick}, ${this.entrants ? "entrants" : "winners"}, ${this.winners}, table${this.table}, ${this.salt})`;
  }
}

/** A position of a drawing: mode 0 an open or closed held one, 1 any settled one, 2 one past the settled ones. */
function pickPosition(d: DrawingModel | undefined, mode: number, pick: number): number {
  if (!d) return pick % 5;
  const held = [...d.held.keys()];
  const open = held.filter((p) => !d.closed.has(p));
  if (mode === 0 && open.length > 0 && pick % 4 !== 0) return open[pick % open.length];
  if (mode === 0 && held.length > 0) return held[pick % held.length];
  if (mode <= 1 && d.settled.size > 0) return pick % d.settled.size;
  return d.settled.size + (pick % 3);
}

function closeExpect(d: DrawingModel | undefined, position: number): Expect | undefined {
  if (!d) return fail("DrawingNotFound");
  if (d.status !== "Settled" && d.status !== "Paid") return fail("NotSettled");
  if (d.kind === KIND_ENTRANTS && !d.winnersRecorded) return fail("WinnersNotRecorded");
  if (!d.settled.has(position)) return fail("PositionNotSettled");
  if (!d.held.has(position)) return fail("NotHeldPrize");
  if (d.closed.has(position)) return fail("HeldPrizeClosed");
  return undefined;
}

class PayHeld extends Base {
  constructor(readonly role: Role, readonly pick: number, readonly mode: number, readonly posPick: number) {
    super();
  }
  async act(m: Model, r: Real) {
    const { ci, n, d } = pickDrawing(m, this.pick, (x) => [...x.held.keys()].some((p) => !x.closed.has(p)));
    const position = pickPosition(d, this.mode, this.posPick);
    let expected = closeExpect(d, position);
    if (!expected) expected = m.paused ? fail("PaymentsArePaused") : await limitExpect(r, CAMPAIGNS[ci], d!.held.get(position)!);
    await attempt(r, this.toString(), this.role, asOperator(m, r, this.role, expected), (s) => r.draw.connect(s).payHeldPrize(CAMPAIGNS[ci], n, position));
  }
  toString() {
    return `payHeldPrize(${this.role}, ${this.pick}, ${this.mode}, ${this.posPick})`;
  }
}

class RefuseHeld extends Base {
  constructor(readonly role: Role, readonly pick: number, readonly mode: number, readonly posPick: number, readonly noReason: boolean) {
    super();
  }
  async act(m: Model, r: Real) {
    const { ci, n, d } = pickDrawing(m, this.pick, (x) => [...x.held.keys()].some((p) => !x.closed.has(p)));
    const position = pickPosition(d, this.mode, this.posPick);
    const expected = obligationAction(m, r, this.role, this.noReason ? fail("ReasonRequired") : (closeExpect(d, position) ?? OK));
    await attempt(r, this.toString(), this.role, expected, (s) =>
      r.draw.connect(s).refuseHeldPrize(CAMPAIGNS[ci], n, position, this.noReason ? "" : "checks failed"),
    );
  }
  toString() {
    return `refuseHeldPrize(${this.role}, ${this.pick}, ${this.mode}, ${this.posPick}, ${this.noReason ? "no reason" : "reason"})`;
  }
}

/** A guarantee period: mode 0 the lowest not picked, 1 one already picked (or 0), 2 the first not yet drawn. */
function pickPeriod(m: Model, ci: number, mode: number, pick: number): number {
  const picked = [...m.guarantees.keys()].filter((k) => k.startsWith(`${ci}:`)).map((k) => Number(k.split(":")[1]));
  if (mode === 1) return picked.length ? picked[pick % picked.length] : 0;
  if (mode === 2) return m.campaigns[ci].lastNumber + (pick % 2);
  let p = 0;
  while (picked.includes(p)) p++;
  return p;
}

class PickGuarantee extends Base {
  constructor(readonly role: Role, readonly cPick: number, readonly mode: number, readonly pick: number) {
    super();
  }
  async act(m: Model, r: Real) {
    const ci = pickCampaign(m, this.cPick, (c) => c.guaranteeCents > 0n);
    const c = m.campaigns[ci];
    const period = pickPeriod(m, ci, this.mode, this.pick);
    let expected: Expect;
    if (!c.registered) expected = fail("CampaignNotRegistered");
    else if (c.guaranteeCents === 0n) expected = fail("NoGuarantee");
    else if (period >= c.lastNumber) expected = fail("GuaranteePeriodNotDrawn");
    else if (m.guarantees.has(`${ci}:${period}`)) expected = fail("GuaranteeAlreadyPicked");
    else if (c.wallet === ZeroAddress) expected = fail("PayoutWalletRequired");
    else if (c.guaranteeCents > m.maxPaymentCents(ci)) {
      // One transfer that no allowance could ever hold would never be paid.
      expected = failWith("PayoutAboveLimit", [CAMPAIGNS[ci], BigInt(period), c.guaranteeCents, m.maxPaymentCents(ci)]);
    } else expected = backingExpect(m, c.guaranteeCents);
    await attempt(r, this.toString(), this.role, obligationAction(m, r, this.role, expected), (s) =>
      r.draw.connect(s).pickGuarantee(CAMPAIGNS[ci], period, keccak256(toUtf8Bytes(`winner-${this.pick}`))),
    );
  }
  toString() {
    return `pickGuarantee(${this.role}, ${this.cPick}, ${this.mode}, ${this.pick})`;
  }
}

class PayGuarantee extends Base {
  constructor(readonly role: Role, readonly cPick: number, readonly mode: number, readonly pick: number) {
    super();
  }
  async act(m: Model, r: Real) {
    // Mostly a campaign with a picked, unpaid guarantee.
    const owing = new Set([...m.guarantees].filter(([, g]) => g.status === "Picked").map(([k]) => Number(k.split(":")[0])));
    const ci = pickCampaign(m, this.cPick, (c) => owing.has(m.campaigns.indexOf(c)));
    const period = pickPeriod(m, ci, this.mode === 0 ? 1 : this.mode, this.pick);
    const g = m.guarantees.get(`${ci}:${period}`);
    let expected: Expect;
    if (g?.status === "Paid") expected = fail("GuaranteeAlreadyPaid");
    else if (!g) expected = fail("GuaranteeNotPicked");
    else if (m.paused) expected = fail("PaymentsArePaused");
    else expected = await limitExpect(r, CAMPAIGNS[ci], g.cents);
    await attempt(r, this.toString(), this.role, expected, (s) => r.draw.connect(s).payGuarantee(CAMPAIGNS[ci], period));
  }
  toString() {
    return `payGuarantee(${this.role}, ${this.cPick}, ${this.mode}, ${this.pick})`;
  }
}

class Pause extends Base {
  constructor(readonly role: Role) {
    super();
  }
  async act(m: Model, r: Real) {
    const address = signerOf(r, this.role).address;
    const expected = byTime(holds(m, ROLE.Guardian, address), OK, failWith("AccessManagedUnauthorized", [address]));
    await attempt(r, this.toString(), this.role, expected, (s) => r.vault.connect(s).pause());
  }
  toString() {
    return `pause(${this.role})`;
  }
}

// ------------------------------------------------------------------ the admin's calls, through the manager

/** An admin action as generated; its arguments are resolved against the model when the command runs. */
type AdminAction =
  | { kind: "setDailyLimit"; limit: number }
  | { kind: "setCampaignLimit"; c: number; limit: number }
  | { kind: "unpause" }
  | { kind: "withdrawTokens"; amount: "small" | "chunk" | "overFree"; units: number }
  | { kind: "moveDrawingWallet"; pick: number; to: number | null }
  | { kind: "moveGuaranteeWallet"; cPick: number; pick: number; to: number | null }
  | { kind: "setCallbackGasLimit"; limit: number }
  | { kind: "grantRole"; grant: number };

/** The grants the admin schedules on the manager: who, which role, what execution delay. */
const GRANTS: { role: bigint; to: "stranger" | "operator" | "outsider" | "admin"; delay: number }[] = [
  { role: ROLE.Operator, to: "stranger", delay: 0 }, // a second operator, from the end of the grant delay
  { role: ROLE.Guardian, to: "operator", delay: 0 }, // refused: RoleConflict (one account, one party)
  { role: ROLE.Admin, to: "outsider", delay: 3600 }, // refused: AdminDelayOutOfRange
  { role: ROLE.Governor, to: "admin", delay: ADMIN_DELAY }, // the admin's own delay again: nothing changes
];

/** `kind(role, arguments...)`: the stats count by what precedes the parenthesis. */
function actionLabel(a: AdminAction, role: Role): string {
  const args = Object.entries(a)
    .filter(([k]) => k !== "kind")
    .map(([, v]) => (v === null ? "campaign's" : String(v)));
  return `${a.kind}(${[role, ...args].join(", ")})`;
}

/**
 * The destination a wallet move names: the campaign's current wallet (`to` null, as an admin who checked it names
 * it), or one of the test wallets, which may be another (invariant 6: a move goes only where the campaign's wallet,
 * set by the operator, and the admin's call agree).
 */
function moveDestination(m: Model, r: Real, ci: number, to: number | null): string {
  return to === null ? m.campaigns[ci].wallet : r.wallets[to]!.address;
}

function adminCall(r: Real, targetName: TargetName, fn: string, args: readonly unknown[]): AdminCall {
  return { target: r.addresses[targetName], targetName, data: interfaces(r)[targetName].encodeFunctionData(fn, args) };
}

/** The call an action makes now (a move names a drawing and a destination of this moment). */
function resolveAction(m: Model, r: Real, a: AdminAction): AdminCall {
  switch (a.kind) {
    case "setDailyLimit":
      return adminCall(r, "vault", "setDailyLimit", [DAILY_LIMITS[a.limit]]);
    case "setCampaignLimit":
      return adminCall(r, "vault", "setCampaignLimit", [CAMPAIGNS[a.c], CAMPAIGN_LIMITS[a.limit]]);
    case "unpause":
      return adminCall(r, "vault", "unpause", []);
    case "withdrawTokens": {
      // Withdrawals keep the pool generous: a small amount, 600 dollars, or one unit more than is free now.
      const amount = a.amount === "overFree" ? m.freeUnits() + 1n : a.amount === "chunk" ? WITHDRAW_CHUNK_UNITS : BigInt(a.units);
      return adminCall(r, "vault", "withdrawTokens", [r.sink.address, amount]);
    }
    case "moveDrawingWallet": {
      // Mostly a drawing an admin would move: unpaid, on a wallet the campaign has since changed.
      const { ci, n } = pickDrawing(m, a.pick, (x) => x.wallet !== m.campaigns[x.campaign].wallet && !(x.status === "Paid" && x.closed.size === x.held.size));
      return adminCall(r, "draw", "moveDrawingWallet", [CAMPAIGNS[ci], n, moveDestination(m, r, ci, a.to)]);
    }
    case "moveGuaranteeWallet": {
      const ci = pickCampaign(m, a.cPick, (c) => c.guaranteeCents > 0n);
      return adminCall(r, "draw", "moveGuaranteeWallet", [CAMPAIGNS[ci], pickPeriod(m, ci, 1, a.pick), moveDestination(m, r, ci, a.to)]);
    }
    case "setCallbackGasLimit":
      return adminCall(r, "draw", "setCallbackGasLimit", [CALLBACK_LIMITS[a.limit]]);
    case "grantRole": {
      const g = GRANTS[a.grant];
      return adminCall(r, "manager", "grantRole", [g.role, r[g.to].address, g.delay]);
    }
  }
}

function functionOf(r: Real, c: AdminCall): { name: string; args: readonly unknown[] } {
  const parsed = interfaces(r)[c.targetName].parseTransaction({ data: c.data })!;
  return { name: parsed.name, args: [...parsed.args] };
}
const selectorOf = (c: AdminCall) => c.data.slice(0, 10);

/** What a move to `to` gives once the obligation exists: refused unless `to` is the campaign's wallet. */
function moveExpect(m: Model, ci: number, to: string, recorded: string): Expect {
  if (to === ZeroAddress) return fail("ZeroAddress");
  const campaignWallet = m.campaigns[ci].wallet;
  if (to !== campaignWallet) return failWith("MoveDestinationMismatch", [CAMPAIGNS[ci], to, campaignWallet]);
  return to === recorded ? fail("NothingToMove") : OK;
}

/** PrizeDrawManager.grantRole's first check: the admin's execution delay in range. */
function adminDelayExpect(role: bigint, delay: bigint): Expect | undefined {
  const outOfRange = delay < MIN_ADMIN_DELAY || delay > MAX_ADMIN_DELAY;
  return (role === ROLE.Admin || role === ROLE.Governor) && outOfRange ? failWith("AdminDelayOutOfRange", [delay]) : undefined;
}

/** PrizeDrawManager.grantRole: the admin's delay in range, then one account for one party. */
function grantExpect(m: Model, role: bigint, account: string, delay: bigint): Expect {
  const delayCheck = adminDelayExpect(role, delay);
  if (delayCheck) return delayCheck;
  const party = role === ROLE.Governor ? ROLE.Admin : role;
  let expected = OK;
  for (const other of [ROLE.Admin, ROLE.Operator, ROLE.Guardian]) {
    if (other === party) continue;
    const conflict = failWith("RoleConflict", [account, other]);
    const held = holds(m, other, account);
    if (held === "reached") return expected === OK ? conflict : merge(expected, conflict);
    if (held === "maybe") expected = merge(expected, conflict);
  }
  return expected;
}

/** What the admin function itself does when its call runs now, as the model predicts it. */
async function effectExpect(m: Model, r: Real, c: AdminCall): Promise<Expect> {
  const { name, args } = functionOf(r, c);
  switch (name) {
    case "setDailyLimit":
    case "setCampaignLimit":
    case "setCallbackGasLimit":
      return OK;
    case "unpause":
      return m.paused ? OK : fail("NotPaused");
    case "withdrawTokens": {
      // Only the free balance, then like any payment: the pause and the overall allowance (invariants 1 to 3).
      const amount = args[1] as bigint;
      const free = m.freeUnits();
      if (amount > free) return failWith("WithdrawalExceedsFree", [amount, free]);
      if (m.paused) return fail("PaymentsArePaused");
      return limitExpect(r, ZeroHash, (amount + UNITS - 1n) / UNITS);
    }
    case "moveDrawingWallet": {
      const ci = campaignIndex(args[0] as string);
      const d = m.drawings.get(drawingKey(ci, Number(args[1])));
      if (!d) return fail("DrawingNotFound");
      if (d.status === "Paid" && d.closed.size === d.held.size) return fail("NothingToMove");
      return moveExpect(m, ci, args[2] as string, d.wallet);
    }
    case "moveGuaranteeWallet": {
      const ci = campaignIndex(args[0] as string);
      const g = m.guarantees.get(`${ci}:${args[1]}`);
      if (g?.status !== "Picked") return fail("GuaranteeNotPicked");
      return moveExpect(m, ci, args[2] as string, g.wallet);
    }
    case "grantRole":
      return grantExpect(m, args[0] as bigint, args[1] as string, args[2] as bigint);
    default:
      throw new Error(`no prediction for ${name}`);
  }
}

/** The role an admin call needs: the manager's own functions are ADMIN_ROLE's, the engine's and vault's GOVERNOR_ROLE's. */
const roleFor = (c: AdminCall) => (c.targetName === "manager" ? ROLE.Admin : ROLE.Governor);

/** The admin's scheduled operation `id` consumed now: refused before its delay, after its week, or unscheduled. */
function consumeExpect(m: Model, id: string, then: Expect): Expect {
  const op = m.ops.get(id);
  if (op?.state !== "pending") return failWith("AccessManagerNotScheduled", [id]);
  const ready = byTime(reached(m, op.timepoint + WEEK), failWith("AccessManagerExpired", [id]), then);
  return byTime(reached(m, op.timepoint), ready, failWith("AccessManagerNotReady", [id]));
}

/** Schedules `c` as `role`: only a holder of its role with a delay may, the same call once at a time (until it expires). */
async function scheduleCall(m: Model, r: Real, role: Role, c: AdminCall, label: string): Promise<void> {
  const address = signerOf(r, role).address;
  const id = operationId(address, c.target, c.data);
  const op = m.ops.get(id);
  const again = op?.state === "pending" ? byTime(reached(m, op.timepoint + WEEK), OK, failWith("AccessManagerAlreadyScheduled", [id])) : OK;
  const expected = byTime(holds(m, roleFor(c), address), again, failWith("AccessManagerUnauthorizedCall", [address, c.target, selectorOf(c)]));
  await attempt(r, label, role, expected, (s) => r.manager.connect(s).schedule(c.target, c.data, 0));
}

class Schedule extends Base {
  constructor(readonly role: Role, readonly action: AdminAction) {
    super();
  }
  async act(m: Model, r: Real) {
    await scheduleCall(m, r, this.role, resolveAction(m, r, this.action), `schedule:${this.toString()}`);
  }
  toString() {
    return actionLabel(this.action, this.role);
  }
}

/** Pending, its delay passed and its week not. */
function isReady(m: Readonly<Model>, op: OpModel): boolean {
  return op.state === "pending" && reached(m, op.timepoint) === "reached" && reached(m, op.timepoint + WEEK) === "not yet";
}

/**
 * One of the admin's operations (there is one): mostly one `want` accepts, else a pending one, sometimes any
 * (executed and cancelled ones included).
 */
function pickOperation(m: Model, pick: number, want: (op: OpModel) => boolean = () => true): OpModel {
  const ops = m.opOrder.map((id) => m.ops.get(id)!);
  const pending = ops.filter((op) => op.state === "pending");
  const wanted = pending.filter(want);
  const from = pick % 5 === 0 ? ops : wanted.length > 0 && pick % 5 !== 1 ? wanted : pending.length > 0 ? pending : ops;
  return from[pick % from.length];
}

/** Executes one of the admin's operations, through the manager's execute or by calling the target itself. */
class Execute extends Base {
  constructor(readonly role: Role, readonly pick: number, readonly direct: boolean) {
    super();
  }
  /**
   * Once something was scheduled (Direct covers calls never scheduled), and mostly once an operation is ready, so
   * that executions get somewhere; a quarter try whatever is there (not ready, executed, cancelled, expired).
   */
  check(m: Readonly<Model>) {
    return m.ops.size > 0 && (this.pick % 4 === 0 || [...m.ops.values()].some((op) => isReady(m, op)));
  }
  async act(m: Model, r: Real) {
    const c = pickOperation(m, this.pick, (op) => isReady(m, op));
    const expected = this.direct ? await directExpect(m, r, this.role, c) : await executeExpect(m, r, this.role, c);
    const label = `${this.direct ? "executeOnTarget" : "execute"}:${functionOf(r, c).name}(${this.role}, ${this.pick})`;
    await attempt(r, label, this.role, expected, (s) =>
      this.direct ? s.sendTransaction({ to: c.target, data: c.data }) : r.manager.connect(s).execute(c.target, c.data),
    );
  }
  toString() {
    return `${this.direct ? "executeOnTarget" : "execute"}(${this.role}, ${this.pick})`;
  }
}

async function executeExpect(m: Model, r: Real, role: Role, c: AdminCall): Promise<Expect> {
  const address = signerOf(r, role).address;
  const then = consumeExpect(m, operationId(address, c.target, c.data), await effectExpect(m, r, c));
  return byTime(holds(m, roleFor(c), address), then, failWith("AccessManagerUnauthorizedCall", [address, c.target, selectorOf(c)]));
}

/** A call of an admin function on its target, not through execute: it consumes the caller's scheduled operation. */
async function directExpect(m: Model, r: Real, role: Role, c: AdminCall): Promise<Expect> {
  const address = signerOf(r, role).address;
  const then = consumeExpect(m, operationId(address, c.target, c.data), await effectExpect(m, r, c));
  if (c.targetName !== "manager") return byTime(holds(m, ROLE.Governor, address), then, failWith("AccessManagedUnauthorized", [address]));
  // PrizeDrawManager.grantRole checks the admin's delay before AccessManager checks the caller.
  const { args } = functionOf(r, c);
  const delayCheck = adminDelayExpect(args[0] as bigint, args[2] as bigint);
  if (delayCheck) return delayCheck;
  return byTime(holds(m, ROLE.Admin, address), then, failWith("AccessManagerUnauthorizedAccount", [address, ROLE.Admin]));
}

/** An admin call made directly, never scheduled as such: the admin's reverts AccessManagerNotScheduled. */
class Direct extends Base {
  constructor(readonly role: Role, readonly action: AdminAction) {
    super();
  }
  async act(m: Model, r: Real) {
    const c = resolveAction(m, r, this.action);
    await attempt(r, `direct:${this.toString()}`, this.role, await directExpect(m, r, this.role, c), (s) =>
      s.sendTransaction({ to: c.target, data: c.data }),
    );
  }
  toString() {
    return actionLabel(this.action, this.role);
  }
}

/** The guardian cancels one of the admin's operations (the admin may too; nobody else). */
class Cancel extends Base {
  constructor(readonly role: Role, readonly pick: number) {
    super();
  }
  check(m: Readonly<Model>) {
    return m.ops.size > 0;
  }
  async act(m: Model, r: Real) {
    const c = pickOperation(m, this.pick);
    const address = signerOf(r, this.role).address;
    const id = operationId(r.admin.address, c.target, c.data);
    let expected: Expect;
    if (m.ops.get(id)?.state !== "pending") expected = failWith("AccessManagerNotScheduled", [id]);
    else if (address === r.admin.address) expected = OK;
    else {
      // Every admin function here (the manager's own included) is GOVERNOR_ROLE's, whose guardian is GUARDIAN_ROLE.
      const unauthorized = failWith("AccessManagerUnauthorizedCancel", [address, r.admin.address, c.target, selectorOf(c)]);
      expected = byTime(holds(m, ROLE.Guardian, address), OK, byTime(holds(m, ROLE.Admin, address), OK, unauthorized));
    }
    const label = `cancel:${functionOf(r, c).name}(${this.role}, ${this.pick})`;
    await attempt(r, label, this.role, expected, (s) => r.manager.connect(s).cancel(r.admin.address, c.target, c.data));
  }
  toString() {
    return `cancel(${this.role}, ${this.pick})`;
  }
}

/**
 * The recovery from a compromised partner wallet: the guardian pauses, the operator sets the campaign's new
 * wallet (allowed while paused), and the admin schedules the move of its latest unpaid drawings and picked
 * guarantees to that wallet, naming it, and the resume. Time and the executions are the other commands'.
 */
class Incident extends Base {
  constructor(readonly cPick: number, readonly wallet: number) {
    super();
  }
  async act(m: Model, r: Real) {
    if (!m.paused) await new Pause("guardian").act(m, r);
    await learn(m, r);
    const ci = pickCampaign(m, this.cPick);
    await new SetPayoutWallet("operator", ci, this.wallet).act(m, r);
    await learn(m, r);
    const id = CAMPAIGNS[ci];
    const to = m.campaigns[ci].wallet;
    const calls: AdminCall[] = [];
    const unpaid = m.drawingOrder
      .map((k) => m.drawings.get(k)!)
      .filter((d) => d.campaign === ci && d.wallet !== to && !(d.status === "Paid" && d.closed.size === d.held.size));
    for (const d of unpaid.slice(-3)) calls.push(adminCall(r, "draw", "moveDrawingWallet", [id, d.number, to]));
    for (const [key, g] of m.guarantees) {
      if (key.startsWith(`${ci}:`) && g.status === "Picked" && g.wallet !== to) {
        calls.push(adminCall(r, "draw", "moveGuaranteeWallet", [id, Number(key.split(":")[1]), to]));
      }
    }
    calls.push(adminCall(r, "vault", "unpause", []));
    for (const c of calls) {
      await scheduleCall(m, r, "admin", c, `schedule:${functionOf(r, c).name}(incident)`);
      await learn(m, r);
    }
  }
  toString() {
    return `incident(${this.cPick}, w${this.wallet})`;
  }
}

class TimeTravel extends Base {
  constructor(readonly hours: number, readonly whileScheduled = false) {
    super();
  }
  /** The jumps past the admin's delay are taken while an operation waits (so executions get somewhere). */
  check(m: Readonly<Model>) {
    return !this.whileScheduled || [...m.ops.values()].some((op) => op.state === "pending");
  }
  async act() {
    await network.provider.send("evm_increaseTime", [this.hours * 3600]);
    await network.provider.send("evm_mine", []);
  }
  toString() {
    return `timeTravel(${this.hours}h)`;
  }
}

// ------------------------------------------------------------------ arbitraries

/** Mostly the role a call is meant for, sometimes anyone. */
const roleMostly = (role: Role) => fc.oneof({ weight: 5, arbitrary: fc.constant(role) }, { weight: 1, arbitrary: fc.constantFrom(...ROLES) });
const anyRole = fc.constantFrom(...ROLES);
const campaign = fc.integer({ min: 0, max: CAMPAIGNS.length - 1 });
const pick = fc.nat({ max: 1_000 });

const publishTable = fc.tuple(roleMostly("operator"), fc.integer({ min: 0, max: TABLES.length - 1 })).map(([r, t]) => new PublishTable(r, t));
const registerCampaign = fc
  .tuple(roleMostly("operator"), campaign, fc.integer({ min: -1, max: 3 }), fc.nat({ max: 2 }), fc.nat({ max: 2 }), fc.integer({ min: 1, max: 7 }))
  .map(([r, c, w, t, g, p]) => new RegisterCampaign(r, c, w, t, g, p));
const setPayoutWallet = fc.tuple(roleMostly("operator"), campaign, fc.nat({ max: 3 })).map(([r, c, w]) => new SetPayoutWallet(r, c, w));
const setThreshold = fc.tuple(roleMostly("operator"), campaign, fc.nat({ max: 2 })).map(([r, c, t]) => new SetThreshold(r, c, t));
const commit = fc
  .tuple(
    roleMostly("operator"),
    pick,
    fc.oneof(
      { weight: 12, arbitrary: fc.constant<Variant>("good") },
      { weight: 1, arbitrary: fc.constantFrom<Variant>("reuseSlot", "rogueSlot", "sameTime", "earlierTime", "skipNumber", "replayNumber") },
    ),
    fc.boolean(),
    fc.integer({ min: 1, max: 12 }),
    fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.nat({ max: TABLES.length - 1 }) }),
    pick,
  )
  .map(([r, c, v, e, w, tb, salt]) => new Commit(r, c, v, e, w, tb, salt));
const cycle = fc
  .tuple(
    pick,
    fc.nat({ max: 3 }).map((n) => n === 0),
    fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 4 }) }, { weight: 1, arbitrary: fc.integer({ min: 5, max: 12 }) }),
    fc.constantFrom(0, 1, 2, 3, 3, 3),
    pick,
  )
  .map(([c, e, w, t, salt]) => new Cycle(c, e, w, t, salt));
const drain = fc.constant(null).map(() => new Drain());
const reveal = fc.tuple(pick, pick).map(([p, s]) => new Reveal(p, s));
const settle = fc.tuple(anyRole, pick, fc.nat({ max: 10 })).map(([r, p, positions]) => new Settle(r, p, positions));
const recordWinners = fc.tuple(roleMostly("operator"), pick).map(([r, p]) => new RecordWinners(r, p));
const payout = fc.tuple(anyRole, pick).map(([r, p]) => new Payout(r, p));
const payHeld = fc.tuple(roleMostly("operator"), pick, fc.nat({ max: 2 }), pick).map(([r, p, mode, pos]) => new PayHeld(r, p, mode, pos));
const refuseHeld = fc
  .tuple(roleMostly("operator"), pick, fc.nat({ max: 2 }), pick, fc.nat({ max: 5 }).map((n) => n === 0))
  .map(([r, p, mode, pos, none]) => new RefuseHeld(r, p, mode, pos, none));
const pickGuarantee = fc.tuple(roleMostly("operator"), pick, fc.nat({ max: 2 }), pick).map(([r, c, mode, p]) => new PickGuarantee(r, c, mode, p));
const payGuarantee = fc.tuple(anyRole, pick, fc.nat({ max: 2 }), pick).map(([r, c, mode, p]) => new PayGuarantee(r, c, mode, p));
const pause = roleMostly("guardian").map((r) => new Pause(r));

/** A move's destination: mostly the campaign's wallet, sometimes any test wallet (the campaign's or another). */
const moveTo = fc.option(fc.nat({ max: 3 }), { freq: 3, nil: null });
const adminAction: fc.Arbitrary<AdminAction> = fc.oneof(
  fc.nat({ max: DAILY_LIMITS.length - 1 }).map((limit): AdminAction => ({ kind: "setDailyLimit", limit })),
  fc.tuple(campaign, fc.nat({ max: CAMPAIGN_LIMITS.length - 1 })).map(([c, limit]): AdminAction => ({ kind: "setCampaignLimit", c, limit })),
  fc.constant<AdminAction>({ kind: "unpause" }),
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom("small" as const, "chunk" as const, "overFree" as const), fc.integer({ min: 1, max: 10_000_000 }))
      .map(([amount, units]): AdminAction => ({ kind: "withdrawTokens", amount, units })),
  },
  { weight: 2, arbitrary: fc.tuple(pick, moveTo).map(([p, to]): AdminAction => ({ kind: "moveDrawingWallet", pick: p, to })) },
  fc.tuple(pick, pick, moveTo).map(([c, p, to]): AdminAction => ({ kind: "moveGuaranteeWallet", cPick: c, pick: p, to })),
  fc.nat({ max: CALLBACK_LIMITS.length - 1 }).map((limit): AdminAction => ({ kind: "setCallbackGasLimit", limit })),
  fc.nat({ max: GRANTS.length - 1 }).map((grant): AdminAction => ({ kind: "grantRole", grant })),
);
const schedule = fc.tuple(roleMostly("admin"), adminAction).map(([r, a]) => new Schedule(r, a));
const execute = fc
  .tuple(roleMostly("admin"), pick, fc.nat({ max: 3 }).map((n) => n === 0))
  .map(([r, p, direct]) => new Execute(r, p, direct));
const direct = fc.tuple(anyRole, adminAction).map(([r, a]) => new Direct(r, a));
const cancel = fc.tuple(roleMostly("guardian"), pick).map(([r, p]) => new Cancel(r, p));
const incident = fc.tuple(pick, fc.nat({ max: 3 })).map(([c, w]) => new Incident(c, w));
const timeTravel = fc
  .oneof({ weight: 3, arbitrary: fc.integer({ min: 4, max: 14 }) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 30 }) })
  .map((h) => new TimeTravel(h));
/** Past the admin's delay, so scheduled operations become executable (and, a week on, expire). */
const pastAdminDelay = fc.integer({ min: 0, max: 12 }).map((h) => new TimeTravel(ADMIN_DELAY / 3600 + h, true));

/** fc.commands picks each entry equally often: the drawing cycle is listed several times so runs get far into it. */
const weighted: [number, fc.Arbitrary<Cmd>][] = [
  [2, publishTable],
  [2, registerCampaign],
  [2, setPayoutWallet],
  [1, setThreshold],
  [6, commit],
  [8, cycle],
  [5, drain],
  [6, reveal],
  [3, settle],
  [2, recordWinners],
  [6, payout],
  [3, payHeld],
  [2, refuseHeld],
  [3, pickGuarantee],
  [2, payGuarantee],
  [1, pause],
  [10, schedule],
  [12, execute],
  [2, cancel],
  [2, direct],
  [2, incident],
  [5, timeTravel],
  [8, pastAdminDelay],
];
const commands = weighted.flatMap(([n, arb]) => Array.from({ length: n }, () => arb));

// ------------------------------------------------------------------ the property

describe("PrizeDraw stateful properties (fast-check model-based commands)", function () {
  this.timeout(TIME_LIMIT_MS + 100_000);

  it(`keeps every invariant after every command by every role (${NUM_RUNS} runs of up to ${MAX_COMMANDS} commands)`, async () => {
    let runs = 0;
    let total = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: MAX_COMMANDS, size: "max" }), async (cmds) => {
        const r = await loadFixture(propertyFixture);
        blockTimes.clear();
        const m = new Model(r);
        await learn(m, r);
        await checkInvariants(m, r);
        await fc.asyncModelRun(() => ({ model: m, real: r }), cmds);
        runs++;
        total += m.commandCount;
        if (process.env.PROPERTY_STATS === "1") console.log(`run: ${m.commandCount} commands, ${m.drawingOrder.length} drawings, ${m.ops.size} operations`);
      }),
      // Shrinking replays commands on the chain: it is cut short after a few minutes, reporting the smallest
      // counterexample found by then.
      { numRuns: NUM_RUNS, endOnFailure: process.env.PROPERTY_SHRINK === "0", interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: true },
    );
    if (process.env.PROPERTY_STATS === "1") {
      console.log(`${total} commands in ${runs} runs; max 24h sum / limit: ${MAXRATIO.v}`);
      console.log([...STATS].sort().map(([k, v]) => `${k}: ${v}`).join("\n"));
    }
  });
});
