/**
 * Stateful property test of the prize draw's money rules: fast-check model-based commands (fc.commands +
 * fc.asyncModelRun) on Hardhat's in-process chain, over the engine (PrizeDraw), its vault (PrizeVault) and their
 * manager (PrizeDrawManager). Every call is made by every role (admin, operator, guardian, stranger); the admin's
 * calls are scheduled through the manager, executed (through the manager or on the target itself) or cancelled
 * by the guardian, and time moves in hours, past the admin's delay or past a guarantee period; blocks are mined
 * in runs of their own (past the reveal timeout, or to the last block whose reveal can still read its request
 * block's hash and the first that cannot), and a drawing whose value did not come may be re-requested, once, by
 * the operator. Each command predicts its outcome from the
 * model (success, or the exact custom error, with its arguments where they carry the rule; a limit or a delay
 * that the next block's few seconds could just reach may go either way), and the model then learns what happened
 * from the events of the engine, the vault, the manager and the token.
 *
 * Invariants, checked after EVERY command. 1, 2, 3 and 6 are the @dev list of contracts/PrizeVault.sol (its 4 is
 * 6 here; its 5 is 7 and the held prizes and guarantees of 4); 4, 5, 7 and 8 are otherwise the engine's
 * bookkeeping. Held prizes and guarantees are the vault's: their calls go to it and their events and errors come
 * from it (an error about the drawing itself, from the engine's answer to the vault, comes back through it). How
 * each is checked:
 * 1. Owed money is backed: balances().owedCents <= token balance / unitsPerCent, and owedCents equals both the
 *    model's running total (every OwedChanged event and every payment) and its ghost total: the worst case
 *    (DrawMath.worstCase) of every unpaid drawing less its held prizes already paid or refused, the open held
 *    prizes of paid drawings, and the picked unpaid guarantees. Every OwedChanged reserves or releases exactly
 *    what the events of its transaction announce (the engine's commits and the vault's picks reserve; the
 *    engine's payouts release the worst case less everything the draw awarded; the vault's refusals release the
 *    prize), so nothing else changes what is owed. A commit or a pick that would make owed exceed the balance is
 *    predicted to revert ObligationNotBacked (exact amounts), as is PayoutAboveLimit for a commit whose worst
 *    automatic payout (DrawMath.worstAutomatic), or a guarantee, exceeds vault.maxPaymentCents; a withdrawal never
 *    takes more than the free balance (WithdrawalExceedsFree predicted).
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
 * 7. Guarantees follow real time: every GuaranteePicked happened in a block whose time is at least
 *    guaranteeStart + (period + 1) x guaranteePeriod (guaranteeStart: the block time of the campaign's
 *    CampaignRegistered, which getCampaignTerms must show), so a stolen key creates at most one guarantee per
 *    period of real time. A pick before then is predicted to revert GuaranteePeriodNotEnded (exact end).
 * 8. A drawing's value comes from one request at a time, in time, and in public: every EntropyRevealed answers a
 *    request Entropy held and is the drawing's current one, in a block at most BLOCKHASH_WINDOW after the
 *    request's, with that block's hash and randomValue = drawValue(Entropy's value, hash); a later answer is
 *    EntropyRevealTooLate (the drawing stays Requested, nothing stored), a superseded request's answer is
 *    EntropyCallbackIgnored (each predicted for every reveal); getDrawing's sequence is the current request's and
 *    its randomValue zero until the reveal, then that value. Every EntropyReRequested is the operator's (others
 *    are refused AccessManagedUnauthorized), once per drawing, of a drawing still Requested whose request Entropy
 *    no longer holds or is revealTimeoutBlocks old, with the contribution derived from the request it replaces;
 *    the operator's call is predicted exactly (NotAwaitingReveal, AlreadyReRequested, RevealNotTimedOut with its
 *    due block, or success).
 *
 * Speed (`npm test` runs 10,000 sequences): calls are sent raw (eth_sendTransaction with a fixed gas limit and
 * fee; a reverted call is mined, as before, and its revert data decoded) and asked of Hardhat's chain directly,
 * without the Solidity stack trace Hardhat builds for every revert (`rpc`, propertiesSupport.ts); events are read
 * with raw eth_getLogs and decoded with selectors computed once; each check reads what it compares in one eth_call
 * of contracts/test/PropertyLens.sol; chai is asked only to report a comparison that failed (`verify`). The
 * fixture's state is the same for every sequence (evm_revert), so what the model learns from it, and its first
 * check, are done once and copied for each sequence.
 */
import fc from "fast-check";
import { ethers, network } from "hardhat";
import { loadFixture, reset } from "@nomicfoundation/hardhat-network-helpers";
import { AbiCoder, encodeBytes32String, getAddress, keccak256, toBeHex, toQuantity, toUtf8Bytes, ZeroAddress, ZeroHash } from "ethers";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import type { MockEntropy, PrizeDraw, PropertyLens, TestStablecoin } from "../../typechain-types";
import {
  ADMIN_DELAY,
  BLOCKHASH_WINDOW,
  DEFAULT_TABLE,
  DRAW_EPOCH,
  KIND_ENTRANTS,
  KIND_WINNERS,
  REVEAL_TIMEOUT_BLOCKS,
  ROLE,
  campaignIdOf,
  deployPrizeDraw,
  drawValueOf,
  slotOf,
  winnersFingerprint,
  worstCaseOf,
} from "./helpers";
import { Abi, rpc, verify } from "./propertiesSupport";

const NUM_RUNS = Number(process.env.PROPERTY_RUNS ?? 25);
const MAX_COMMANDS = 40;
/**
 * A run takes under 0.1 s of one core: 0.3 s each leaves room for a busy machine (`npm test` runs 10,000 at nice 19
 * beside other suites), and a shrink gets 5 minutes more, however many runs are asked for.
 */
const TIME_LIMIT_MS = Math.max(200_000, NUM_RUNS * 300 + 300_000);
/**
 * Sequences between two resets of the chain: Hardhat's chain keeps memory for every block it mined, even after
 * evm_revert (some 200 KB a sequence: 1.8 GB after 10,000), which a reset gives back; a reset and the fixture
 * cost about 2 seconds.
 */
const RESET_EVERY = 1_000;
/** Every call's gas limit: more than any call here needs, so nothing is estimated (an estimate runs the call again). */
const GAS = toQuantity(10_000_000);
/**
 * Every call's fee cap, above any base fee here (1 gwei at most: no block is half full, so it only falls), and no
 * tip: with both given, Hardhat does not ask the chain for a fee history before each transaction.
 */
const MAX_FEE_PER_GAS = toQuantity(100_000_000_000n);
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
/** Beta's drawings in the fixture: its guarantee periods 0 to 2 are drawn from the start. */
const BETA_DRAWN = 3;
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
  const lens = (await (await ethers.getContractFactory("PropertyLens")).deploy(draw, vault, manager)) as unknown as PropertyLens;
  // The model learns from here on: the tables and the two campaigns (their registration's block time) first.
  const startBlock = await ethers.provider.getBlockNumber();
  for (const i of PUBLISHED_AT_START) await draw.connect(operator).publishPrizeTable(TABLES[i].id, 1, TABLES[i].amounts, TABLES[i].weights);
  await draw.connect(operator).registerCampaign(CAMPAIGNS[0], wallets[0].address, 50_000, 0, 0);
  await draw.connect(operator).registerCampaign(CAMPAIGNS[1], wallets[1].address, 5_000, 2_500, DAY);
  // A backlog of settled, unpaid drawings of 10,000 cents each (what the model learns first): payouts can then
  // use up the limits whenever they allow, which is what bounded loss is about. Then beta's first drawings, of the
  // same table: at or above beta's 5,000-cent threshold, each holds its prize for the operator (paid or refused
  // later), and beta's first guarantee periods are drawn, so picks succeed once a period of time has passed.
  const backlog = [
    ...Array.from({ length: BACKLOG }, (_, i) => ({ campaignId: CAMPAIGNS[0], number: i + 1 })),
    ...Array.from({ length: BETA_DRAWN }, (_, i) => ({ campaignId: CAMPAIGNS[1], number: i + 1 })),
  ];
  for (const [i, { campaignId, number }] of backlog.entries()) {
    const args: PrizeDraw.CommitStruct = {
      campaignId,
      number,
      slot: slotOf(`backlog_${campaignId}_${number}`),
      drawAt: DRAW_EPOCH + number,
      kind: KIND_WINNERS,
      listCommitment: winnersFingerprint([`backlog-${i}`]),
      winnersExpected: 1,
      entrantCount: 0,
      totalWeight: 0n,
      tableId: TABLES[3].id,
      tableVersion: 1,
    };
    await draw.connect(operator).commitAndRequest([args], 0n);
    await mock.mockReveal(provider.address, i + 1, keccak256(toUtf8Bytes(`backlog-${i}`))); // sequence numbers 1, 2, 3...
  }
  const addresses = {
    draw: await draw.getAddress(),
    vault: await vault.getAddress(),
    manager: await manager.getAddress(),
    token: await token.getAddress(),
    mock: await mock.getAddress(),
    lens: await lens.getAddress(),
  };
  const ifaces: Record<TargetName | "token" | "mock" | "lens", Abi> = {
    draw: new Abi(draw.interface),
    vault: new Abi(vault.interface),
    manager: new Abi(manager.interface),
    token: new Abi(token.interface),
    mock: new Abi(mock.interface),
    lens: new Abi(lens.interface),
  };
  // Raw logs name their contract in lower case.
  const sources = new Map<string, TargetName | "token">([
    [addresses.draw.toLowerCase(), "draw"],
    [addresses.vault.toLowerCase(), "vault"],
    [addresses.manager.toLowerCase(), "manager"],
    [addresses.token.toLowerCase(), "token"],
  ]);
  return { admin, operator, guardian, stranger, wallets, sink, provider, outsider, token, mock, draw, vault, manager, lens, addresses, ifaces, sources, startBlock };
}
type Real = Awaited<ReturnType<typeof propertyFixture>>;

// ------------------------------------------------------------------ model

type DrawingModel = {
  campaign: number;
  number: number;
  kind: number;
  prizeCount: number;
  /** The request now serving it (the commit's, or its re-request's) and that request's block. */
  sequence: bigint;
  requestBlock: number;
  reRequested: boolean;
  /** The drawing's value once revealed (zero until then). */
  value: string;
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
  /** Seconds (0 without a guarantee), and the block time of the registration that its periods count from. */
  guaranteePeriod: number;
  guaranteeStart: number;
  lastNumber: number;
  lastDrawAt: bigint;
  slots: Map<string, number>;
  limitHistory: { ts: number; cents: bigint }[];
};

/** `pickedAt`: the block time of its GuaranteePicked. */
type GuaranteeModel = { status: "Picked" | "Paid"; wallet: string; cents: bigint; pickedAt: number };

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
  tables = new Set<string>();
  campaigns: CampaignModel[] = CAMPAIGNS.map(() => ({
    registered: false,
    wallet: ZeroAddress,
    thresholdCents: 0n,
    guaranteeCents: 0n,
    guaranteePeriod: 0,
    guaranteeStart: 0,
    lastNumber: 0,
    lastDrawAt: 0n,
    slots: new Map(),
    limitHistory: [{ ts: 0, cents: 0n }],
  }));
  drawings = new Map<string, DrawingModel>();
  drawingOrder: string[] = [];
  /** The requests MockEntropy still holds (it forgets one once its callback ran): sequence -> drawing and block. */
  entropyPending = new Map<bigint, { key: string; block: number }>();
  /** The callback event a reveal sent by a command must cause, until learnt. */
  expectedCallback: { name: string; sequence: bigint } | undefined = undefined;
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
  /** Campaigns registered or committed to since the last check: their getCampaignTerms is compared. */
  dirtyCampaigns = new Set<number>();
  dirtyGuarantees = new Set<string>();
  dirtyOps = new Set<string>();
  /** `chainMoves` when the model last read the chain's events: none can have happened since if it is unchanged. */
  learntAt = -1;
  /** The fixture's campaigns and tables are learnt from their events, like everything after them. */
  constructor(r: Real) {
    this.lastBlock = r.startBlock;
    for (const [role, account] of [
      [ROLE.Admin, r.admin],
      [ROLE.Governor, r.admin],
      [ROLE.Operator, r.operator],
      [ROLE.Guardian, r.guardian],
    ] as const) {
      this.members.set(`${role}:${account.address}`, 0);
    }
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

/** The interfaces a revert's error may come from. */
const ERROR_SOURCES = ["draw", "vault", "manager", "token"] as const;

function decodeError(r: Real, e: unknown): { name: string; args: unknown[] } {
  const data = revertData(e);
  if (data !== undefined) {
    for (const abi of ERROR_SOURCES.map((k) => r.ifaces[k])) {
      try {
        const parsed = abi.parseError(data);
        if (parsed) return { name: parsed.name, args: [...parsed.args] };
      } catch {
        // not this interface
      }
    }
    return { name: `raw(${data})`, args: [] };
  }
  return { name: `unknown(${(e as Error).message})`, args: [] };
}

/** A transaction: its target, calldata and value. */
type Call = { to: string; data: string; value?: bigint };

/** `fn(...args)` of one of the fixture's contracts, as a transaction. */
function callOf(r: Real, target: TargetName | "mock", fn: string, args: readonly unknown[], value?: bigint): Call {
  return { to: r.addresses[target], data: r.ifaces[target].encode(fn, args), value };
}

/** Transactions sent and clock moves so far (every one goes through `send` or TimeTravel). */
let chainMoves = 0;

/**
 * Sends `call` from `from` (Hardhat's accounts are unlocked) and resolves once it is mined (automine); a revert
 * rejects with an error whose `data` holds the revert data (`rpc`). Hardhat mines a reverted transaction too (a
 * block without events), as it did when the calls went through ethers.
 */
async function send(from: string, call: Call): Promise<void> {
  chainMoves++;
  const tx: Record<string, string> = { from, to: call.to, data: call.data, gas: GAS, maxFeePerGas: MAX_FEE_PER_GAS, maxPriorityFeePerGas: "0x0" };
  if (call.value) tx.value = toQuantity(call.value);
  await rpc("eth_sendTransaction", [tx]);
}

/** A 32-byte word in hex without 0x: a bytes32 as it is, a number padded. */
function word(x: string | number | bigint): string {
  return typeof x === "string" ? x.slice(2).padStart(64, "0") : x.toString(16).padStart(64, "0");
}

/**
 * eth_call of the lens's `fn` (read or limits) at the latest block: its one argument is encoded by hand (a bytes32
 * for limits; read's bytes32[] as offset, length and items), and its answer returned as 32-byte words, since
 * ethers' ABI coder costs more than the call for the thousands of checks of a sequence run.
 */
async function lensWords(r: Real, fn: "read" | "limits", args: readonly (string | number | bigint)[]): Promise<bigint[]> {
  const words = fn === "read" ? [word(32), word(args.length), ...args.map(word)] : args.map(word);
  const data = r.ifaces.lens.selector(fn) + words.join("");
  const hex = (await rpc("eth_call", [{ to: r.addresses.lens, data }, "latest"])) as string;
  const out: bigint[] = [];
  for (let i = 2; i < hex.length; i += 64) out.push(BigInt(`0x${hex.slice(i, i + 64)}`));
  return fn === "read" ? out.slice(2) : out; // read's answer is a uint256[]: after its offset and length
}

/** Sends a call as `role` and checks it did what `expected` says; returns whether it succeeded. */
async function attempt(r: Real, label: string, role: Role, expected: Expect, call: Call): Promise<boolean> {
  let outcome: { ok: true } | { ok: false; name: string; args: unknown[] };
  try {
    await send(signerOf(r, role).address, call);
    outcome = { ok: true };
  } catch (e) {
    outcome = { ok: false, ...decodeError(r, e) };
  }
  const stat = `${label.split("(")[0]} ${outcome.ok ? "ok" : outcome.name}`;
  STATS.set(stat, (STATS.get(stat) ?? 0) + 1);
  if (outcome.ok) {
    verify(expected.ok, `${label} by ${role} succeeded, expected ${expected.errors.join("|")}`).to.equal(true);
    return true;
  }
  verify(expected.errors, `${label} by ${role} reverted with ${outcome.name}`).to.include(outcome.name);
  const args = expected.args[outcome.name];
  if (args) verify(outcome.args, `${label} by ${role}: the arguments of ${outcome.name}`).to.deep.equal(args);
  return false;
}

/** Whether a payment of `cents` fits the overall and campaign allowances now, surely not, or maybe (refill). */
async function limitExpect(r: Real, campaignId: string, cents: bigint): Promise<Expect> {
  // vault.paymentState() and vault.campaignAllowance(campaignId), in one call.
  const [limit, available, campaignLimit, campaignAvailable] = await lensWords(r, "limits", [campaignId]);
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

/** The events of the operator's actions that create, release or redirect what is owed: none while paused. */
const OPERATOR_OBLIGATION_EVENTS = new Set(["CampaignRegistered", "LargePrizeThresholdChanged", "DrawingCommitted", "HeldPrizeRefused", "GuaranteePicked"]);

/** Blocks' times and hashes, as eth_getBlockByNumber gives them (cleared for every run: evm_revert replaces them). */
const blockInfo = new Map<number, { timestamp: number; hash: string }>();
async function blockOf(block: number): Promise<{ timestamp: number; hash: string }> {
  let b = blockInfo.get(block);
  if (b === undefined) {
    const raw = (await rpc("eth_getBlockByNumber", [toQuantity(block), false])) as { timestamp: string; hash: string };
    b = { timestamp: Number(raw.timestamp), hash: raw.hash };
    blockInfo.set(block, b);
  }
  return b;
}
async function timestampOf(block: number): Promise<number> {
  return (await blockOf(block)).timestamp;
}

/** A log as eth_getLogs returns it (quantities in hex, addresses in lower case). */
type RawLog = { address: string; topics: string[]; data: string; blockNumber: string; logIndex: string; transactionHash: string };

function ordered(logs: RawLog[]): RawLog[] {
  return [...logs].sort((a, b) => Number(a.blockNumber) - Number(b.blockNumber) || Number(a.logIndex) - Number(b.logIndex));
}

/** What one transaction's events announced, to be matched by the events that follow them in it. */
type TxLedger = {
  hash: string;
  reserveCents: bigint; // announced by a commit (the engine's) or a pick (the vault's), not yet in an OwedChanged
  releaseCents: bigint;
  paidUnits: bigint; // payment events
  toWalletsUnits: bigint; // Transfer events to winners' wallets
  withdrawnUnits: bigint; // TokensWithdrawn events
  toSinkUnits: bigint; // Transfer events to the withdrawals' address
  executed?: OpModel; // the admin's operation this transaction executed
};

function closeLedger(t: TxLedger | undefined): void {
  if (!t) return;
  verify([t.reserveCents, t.releaseCents], `invariant 1: obligations announced in ${t.hash} but not reserved or released`).to.deep.equal([0n, 0n]);
  verify(t.toWalletsUnits, `transfers to wallets without payments in ${t.hash}`).to.equal(t.paidUnits);
  verify(t.toSinkUnits, `transfers to the withdrawal address without a withdrawal in ${t.hash}`).to.equal(t.withdrawnUnits);
}

/** A reveal's callback event: the one predicted by the command that sent the reveal (the fixture's predict none). */
function callbackLearnt(m: Model, name: string, sequence: bigint): void {
  const e = m.expectedCallback;
  if (!e) return;
  verify([name, sequence], "invariant 8: a reveal's callback does what was predicted").to.deep.equal([e.name, e.sequence]);
  m.expectedCallback = undefined;
}

/**
 * Reads every new event of the engine, the vault, the manager and the token, updates the model, and checks what
 * each event must satisfy (invariants 1, 3, 4, 6, 8).
 */
async function learn(m: Model, r: Real): Promise<void> {
  if (m.learntAt === chainMoves) return; // nothing sent and no clock moved since the last time
  m.learntAt = chainMoves;
  const head = (await rpc("eth_getBlockByNumber", ["latest", false])) as { number: string; timestamp: string; hash: string };
  const latest = Number(head.number);
  if (latest <= m.lastBlock) return;
  blockInfo.set(latest, { timestamp: Number(head.timestamp), hash: head.hash });
  const addr = r.addresses;
  const filter = { fromBlock: toQuantity(m.lastBlock + 1), toBlock: toQuantity(latest), address: [addr.draw, addr.vault, addr.manager, addr.token] };
  const logs = ordered((await rpc("eth_getLogs", [filter])) as RawLog[]);
  m.lastBlock = latest;
  m.now = await timestampOf(latest);
  const ifaces = r.ifaces;
  const walletSet = new Set(r.wallets.map((w) => w.address));
  let t: TxLedger | undefined;
  for (const log of logs) {
    if (t?.hash !== log.transactionHash) {
      closeLedger(t);
      t = { hash: log.transactionHash, reserveCents: 0n, releaseCents: 0n, paidUnits: 0n, toWalletsUnits: 0n, withdrawnUnits: 0n, toSinkUnits: 0n };
    }
    const tx: TxLedger = t;
    const block = Number(log.blockNumber);
    const ts = await timestampOf(block);
    const source = r.sources.get(log.address.toLowerCase());
    if (!source) throw new Error(`a log of ${log.address}, which eth_getLogs was not asked for`);
    const parsed = ifaces[source].parseLog(log);
    if (!parsed) continue;
    const a = parsed.args;
    /** Invariant 6: an admin action takes effect only inside the execution of a scheduled operation. */
    const adminEffect = (functions: readonly string[] | null) => {
      verify(tx.executed, `invariant 6: ${parsed.name} outside a scheduled operation's execution`).to.not.equal(undefined);
      const fn = ifaces[tx.executed!.targetName].parseCall(tx.executed!.data);
      if (functions) verify(functions, `invariant 6: ${parsed.name} from an execution of ${fn.name}`).to.include(fn.name);
      return fn.args;
    };
    const payment = (campaign: number, cents: bigint, units: bigint) => {
      verify(m.paused, `invariant 3: ${parsed.name} while paused`).to.equal(false);
      verify(units).to.equal(cents * UNITS);
      m.owedCents -= cents;
      m.campaignPayments.push({ ts, campaign, cents });
      tx.paidUnits += units;
    };

    // Invariant 3: while paused, the operator creates, releases or redirects nothing owed (on the engine or the vault).
    if (OPERATOR_OBLIGATION_EVENTS.has(parsed.name)) verify(m.paused, `invariant 3: ${parsed.name} while paused`).to.equal(false);

    if (source === "token") {
      if (parsed.name !== "Transfer") continue;
      if (a.to === addr.vault) m.balanceUnits += a.value;
      if (a.from !== addr.vault) continue;
      verify(m.paused, "invariant 3: a transfer out of the vault while paused").to.equal(false);
      m.balanceUnits -= a.value;
      m.transfers.push({ ts, units: a.value });
      if (a.to === r.sink.address) tx.toSinkUnits += a.value;
      else {
        verify(walletSet.has(a.to), `transfer to a non-winner address ${a.to}`).to.equal(true);
        tx.toWalletsUnits += a.value;
      }
      continue;
    }

    if (source === "manager") {
      switch (parsed.name) {
        case "OperationScheduled": {
          verify(a.caller, "invariant 6: only the admin schedules").to.equal(r.admin.address);
          verify(Number(a.schedule), "invariant 6: executable ADMIN_DELAY after it is scheduled").to.equal(ts + ADMIN_DELAY);
          const targetName = a.target === addr.draw ? "draw" : a.target === addr.vault ? "vault" : "manager";
          verify(a.target, "an operation on the engine, the vault or the manager").to.be.oneOf([addr.draw, addr.vault, addr.manager]);
          const id = a.operationId as string;
          if (!m.ops.has(id)) m.opOrder.push(id);
          const previous = m.ops.get(id);
          verify(previous?.state === "pending" && ts < previous.timepoint + WEEK, "scheduled while still scheduled").to.equal(false);
          m.ops.set(id, { id, target: a.target, targetName, data: a.data, nonce: a.nonce, timepoint: Number(a.schedule), scheduledAt: ts, state: "pending" });
          m.dirtyOps.add(id);
          break;
        }
        case "OperationExecuted": {
          const op = m.ops.get(a.operationId);
          verify(op?.state, "invariant 6: executed without being scheduled").to.equal("pending");
          verify(a.nonce).to.equal(op!.nonce);
          verify(ts - op!.scheduledAt, "invariant 6: executed at least ADMIN_DELAY after it was scheduled").to.be.at.least(ADMIN_DELAY);
          verify(ts, "invariant 6: executed within its week").to.be.below(op!.timepoint + WEEK);
          verify(tx.executed, "one execution per transaction").to.equal(undefined);
          op!.state = "executed";
          tx.executed = op;
          m.dirtyOps.add(op!.id);
          break;
        }
        case "OperationCanceled": {
          const op = m.ops.get(a.operationId);
          verify(op?.state, "cancelled without being scheduled").to.equal("pending");
          op!.state = "canceled";
          m.dirtyOps.add(op!.id);
          break;
        }
        case "RoleGranted": {
          adminEffect(["grantRole"]);
          if (a.newMember) {
            verify(Number(a.since), "a new member waits out the grant delay").to.equal(ts + ADMIN_DELAY);
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
          verify([a.reservedCents, a.releasedCents], "invariant 1: owed changes by exactly what its transaction's events announce").to.deep.equal([
            tx.reserveCents,
            tx.releaseCents,
          ]);
          tx.reserveCents = 0n;
          tx.releaseCents = 0n;
          m.owedCents += BigInt(a.reservedCents) - BigInt(a.releasedCents);
          verify(a.owedCents).to.equal(m.owedCents);
          if (a.reservedCents > 0n) verify(m.owedCents <= m.balanceUnits / UNITS, "invariant 1: a new obligation is backed").to.equal(true);
          break;
        }
        case "LimitChanged":
          adminEffect(["setDailyLimit", "setCampaignLimit"]);
          if (a.campaignId === ZeroHash) m.limitHistory.push({ ts, cents: a.newCents });
          else m.campaigns[campaignIndex(a.campaignId)].limitHistory.push({ ts, cents: a.newCents });
          break;
        case "PaymentsPaused":
          verify(holds(m, ROLE.Guardian, a.by), "invariant 3: only the guardian pauses").to.not.equal("not yet");
          m.paused = true;
          break;
        case "PaymentsResumed":
          adminEffect(["unpause"]);
          m.paused = false;
          break;
        case "TokensWithdrawn":
          adminEffect(["withdrawTokens"]);
          verify(m.paused, "invariant 3: a withdrawal while paused").to.equal(false);
          verify(a.cents, "a withdrawal draws its cents, rounded up, from the allowance").to.equal((a.amount + UNITS - 1n) / UNITS);
          verify(a.amount <= m.freeUnits(), "invariant 1: a withdrawal takes only what nothing owes").to.equal(true);
          tx.withdrawnUnits += a.amount;
          break;
        case "HeldPrizePaid":
        case "HeldPrizeRefused": {
          const ci = campaignIndex(a.campaignId);
          const key = drawingKey(ci, Number(a.number));
          const d = m.drawings.get(key)!;
          const position = Number(a.position);
          verify(d.closed.has(position), `invariant 4: held prize ${key}:${position} closed twice`).to.equal(false);
          verify(d.held.get(position)).to.equal(a.amountCents);
          d.closed.add(position);
          if (parsed.name === "HeldPrizePaid") {
            verify(a.wallet).to.equal(d.wallet);
            payment(ci, a.amountCents, a.tokenAmount);
          } else {
            tx.releaseCents += a.amountCents;
          }
          m.dirty.add(key);
          break;
        }
        case "GuaranteePicked": {
          const ci = campaignIndex(a.campaignId);
          const key = `${ci}:${a.period}`;
          verify(m.guarantees.has(key), `invariant 4: guarantee ${key} picked twice`).to.equal(false);
          verify(a.amountCents, "invariant 4: exactly the registered amount").to.equal(m.campaigns[ci].guaranteeCents);
          verify(Number(a.period)).to.be.lessThan(m.campaigns[ci].lastNumber);
          m.guarantees.set(key, { status: "Picked", wallet: a.wallet, cents: a.amountCents, pickedAt: ts });
          m.dirtyGuarantees.add(key);
          tx.reserveCents += a.amountCents;
          break;
        }
        case "GuaranteePaid": {
          const ci = campaignIndex(a.campaignId);
          const g = m.guarantees.get(`${ci}:${a.period}`);
          verify(g?.status, `invariant 4: guarantee ${ci}:${a.period} paid twice or unpicked`).to.equal("Picked");
          verify(a.wallet).to.equal(g!.wallet);
          verify(a.amountCents).to.equal(g!.cents);
          g!.status = "Paid";
          m.dirtyGuarantees.add(`${ci}:${a.period}`);
          payment(ci, a.amountCents, a.tokenAmount);
          break;
        }
        case "GuaranteeWalletMoved": {
          const [, , to] = adminEffect(["moveGuaranteeWallet"]);
          const ci = campaignIndex(a.campaignId);
          const g = m.guarantees.get(`${ci}:${a.period}`)!;
          verify(a.previousWallet).to.equal(g.wallet);
          verify(a.newWallet, "invariant 6: a move goes to the campaign's wallet").to.equal(m.campaigns[ci].wallet);
          verify(a.newWallet, "invariant 6: a move goes where the admin's call named").to.equal(to);
          g.wallet = a.newWallet;
          m.dirtyGuarantees.add(`${ci}:${a.period}`);
          break;
        }
        default:
          adminEffect(null);
          break;
      }
      continue;
    }

    switch (parsed.name) {
      case "PrizeTablePublished":
        m.tables.add(`${a.tableId}:${a.version}`);
        break;
      case "CampaignRegistered": {
        const c = m.campaigns[campaignIndex(a.campaignId)];
        verify(c.registered, "registered twice").to.equal(false);
        c.registered = true;
        c.wallet = a.payoutWallet;
        c.thresholdCents = a.largePrizeThresholdCents;
        c.guaranteeCents = a.guaranteeCents;
        c.guaranteePeriod = Number(a.guaranteePeriod);
        c.guaranteeStart = ts; // invariant 7: periods count from the registration's block time
        m.dirtyCampaigns.add(campaignIndex(a.campaignId));
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
        verify(n, "invariant 5: numbers are 1, 2, 3...").to.equal(c.lastNumber + 1);
        verify(c.slots.has(a.slot), "slot used twice").to.equal(false);
        verify(a.drawAt > c.lastDrawAt, "draw times increase").to.equal(true);
        verify(a.largePrizeThresholdCents).to.equal(c.thresholdCents);
        verify(a.payoutWallet).to.equal(c.wallet);
        c.lastNumber = n;
        c.lastDrawAt = a.drawAt;
        m.dirtyCampaigns.add(ci);
        c.slots.set(a.slot, n);
        const kind = Number(a.kind);
        const prizeCount = kind === KIND_ENTRANTS ? Math.min(Number(a.winnersExpected), Number(a.entrantCount)) : Number(a.winnersExpected);
        const worst = worstCaseOf(tableOf(a.tableId).amounts, a.largePrizeThresholdCents, prizeCount);
        verify(worst.automaticCents <= m.maxPaymentCents(ci), "a drawing's automatic payout fits a payment's limit").to.equal(true);
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
          requestBlock: 0,
          reRequested: false,
          value: ZeroHash,
          worstCents: worst.totalCents,
          automaticCents: worst.automaticCents,
        });
        m.drawingOrder.push(key);
        m.dirty.add(key);
        break;
      }
      case "EntropyRequested": {
        const key = drawingKey(campaignIndex(a.campaignId), Number(a.number));
        const d = m.drawings.get(key)!;
        d.sequence = a.sequence;
        d.requestBlock = block;
        m.entropyPending.set(a.sequence, { key, block });
        break;
      }
      case "EntropyReRequested": {
        const key = drawingKey(campaignIndex(a.campaignId), Number(a.number));
        const d = m.drawings.get(key)!;
        verify(holds(m, ROLE.Operator, a.by), "invariant 8: only the operator re-requests").to.not.equal("not yet");
        verify(d.status, "invariant 8: only a drawing awaiting its value is re-requested").to.equal("Requested");
        verify(d.reRequested, `invariant 8: drawing ${key} re-requested twice`).to.equal(false);
        verify([a.previousProvider, a.previousSequence, a.provider], "invariant 8: the re-request names the request it replaces").to.deep.equal([
          r.provider.address,
          d.sequence,
          r.provider.address,
        ]);
        const timedOut = block > d.requestBlock + REVEAL_TIMEOUT_BLOCKS;
        verify(timedOut || !m.entropyPending.has(d.sequence), "invariant 8: re-requested before its request timed out or was answered").to.equal(true);
        verify(a.userRandomNumber, "invariant 8: the contribution is fixed by the request it replaces").to.equal(
          keccak256(AbiCoder.defaultAbiCoder().encode(["address", "uint64"], [a.previousProvider, a.previousSequence])),
        );
        d.sequence = a.sequence;
        d.requestBlock = block;
        d.reRequested = true;
        m.entropyPending.set(a.sequence, { key, block });
        m.dirty.add(key);
        break;
      }
      case "EntropyRevealed": {
        const key = drawingKey(campaignIndex(a.campaignId), Number(a.number));
        const d = m.drawings.get(key)!;
        m.dirty.add(key);
        verify(d.status, "revealed twice").to.equal("Requested");
        verify(m.entropyPending.get(a.sequence)?.key, "invariant 8: a reveal answers a request Entropy held").to.equal(key);
        verify([a.provider, a.sequence], "invariant 8: only the drawing's current request is used").to.deep.equal([r.provider.address, d.sequence]);
        verify(block > d.requestBlock && block - d.requestBlock <= BLOCKHASH_WINDOW, "invariant 8: used within BLOCKHASH_WINDOW blocks").to.equal(true);
        verify(a.requestBlockHash, "invariant 8: the hash of the request's block").to.equal((await blockOf(d.requestBlock)).hash);
        verify(a.randomValue, "invariant 8: randomValue = drawValue(entropyValue, requestBlockHash)").to.equal(drawValueOf(a.entropyValue, a.requestBlockHash));
        callbackLearnt(m, parsed.name, a.sequence);
        m.entropyPending.delete(a.sequence);
        d.value = a.randomValue;
        d.status = "Revealed";
        break;
      }
      case "EntropyRevealTooLate": {
        const pending = m.entropyPending.get(a.sequence);
        verify(pending !== undefined && a.provider === r.provider.address, "invariant 8: a late reveal answers a request Entropy held").to.equal(true);
        const d = m.drawings.get(pending!.key)!;
        verify(a.sequence, "invariant 8: only the current request's reveal is discarded as late").to.equal(d.sequence);
        verify(d.status).to.equal("Requested");
        verify(Number(a.requestBlock), "invariant 8: the block of the request the late reveal answers").to.equal(d.requestBlock);
        verify(block - d.requestBlock > BLOCKHASH_WINDOW, "invariant 8: discarded only past BLOCKHASH_WINDOW").to.equal(true);
        callbackLearnt(m, parsed.name, a.sequence);
        m.entropyPending.delete(a.sequence);
        m.dirty.add(pending!.key);
        break;
      }
      case "EntropyCallbackIgnored": {
        const pending = m.entropyPending.get(a.sequence);
        verify(pending !== undefined && a.provider === r.provider.address, "an ignored reveal answers a request Entropy held").to.equal(true);
        verify(m.drawings.get(pending!.key)!.sequence, "invariant 8: only a superseded request's reveal is ignored").to.not.equal(a.sequence);
        callbackLearnt(m, parsed.name, a.sequence);
        m.entropyPending.delete(a.sequence);
        break;
      }
      case "PrizeAwarded": {
        const key = drawingKey(campaignIndex(a.campaignId), Number(a.number));
        const d = m.drawings.get(key)!;
        const position = Number(a.position);
        verify(d.status, "prizes of a revealed drawing only").to.equal("Revealed");
        verify(d.settled.has(position), `invariant 4: position ${key}:${position} settled twice`).to.equal(false);
        verify(position, "positions settle in order").to.equal(d.settled.size);
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
        verify(d.status, "invariant 4: settled once").to.equal("Revealed");
        verify(d.settled.size).to.equal(d.prizeCount);
        verify(a.payoutCents).to.equal(d.payoutCents);
        const heldCents = [...d.held.values()].reduce((s, x) => s + x, 0n);
        verify(a.heldCents).to.equal(heldCents);
        verify(d.payoutCents <= d.automaticCents, "the automatic payout is within its reserved worst case").to.equal(true);
        verify(d.payoutCents + heldCents <= d.worstCents, "the prizes are within the reserved worst case").to.equal(true);
        d.status = "Settled";
        break;
      }
      case "WinnersRecorded": {
        const d = m.drawings.get(drawingKey(campaignIndex(a.campaignId), Number(a.number)))!;
        verify(d.winnersRecorded).to.equal(false);
        d.winnersRecorded = true;
        break;
      }
      case "DrawingPaid": {
        const ci = campaignIndex(a.campaignId);
        const key = drawingKey(ci, Number(a.number));
        const d = m.drawings.get(key)!;
        verify(d.status, `invariant 4: drawing ${key} paid twice`).to.equal("Settled");
        verify(a.wallet).to.equal(d.wallet);
        verify(a.amountCents).to.equal(d.payoutCents);
        d.status = "Paid";
        payment(ci, a.amountCents, a.tokenAmount);
        // What the commit reserved and the draw did not award is no longer owed.
        tx.releaseCents += d.worstCents - d.payoutCents - [...d.held.values()].reduce((s, x) => s + x, 0n);
        m.dirty.add(key);
        break;
      }
      case "DrawingWalletMoved": {
        const [, , to] = adminEffect(["moveDrawingWallet"]);
        const ci = campaignIndex(a.campaignId);
        const key = drawingKey(ci, Number(a.number));
        const d = m.drawings.get(key)!;
        m.dirty.add(key);
        verify(a.previousWallet).to.equal(d.wallet);
        verify(a.newWallet, "invariant 6: a move goes to the campaign's wallet").to.equal(m.campaigns[ci].wallet);
        verify(a.newWallet, "invariant 6: a move goes where the admin's call named").to.equal(to);
        d.wallet = a.newWallet;
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

/** Reads the words of PropertyLens.read in order. */
class Words {
  private i = 0;
  constructor(private readonly w: readonly bigint[]) {}
  next(): bigint {
    if (this.i >= this.w.length) throw new Error("PropertyLens.read returned fewer words than asked for");
    return this.w[this.i++];
  }
  /** An address word, checksummed as the model's `expected` is (computed only when it is another address). */
  address(expected: string): string {
    const word = this.next();
    return BigInt(expected) === word ? expected : getAddress(toBeHex(word, 20));
  }
  done(): boolean {
    return this.i === this.w.length;
  }
}

async function checkInvariants(m: Model, r: Real): Promise<void> {
  // Every number compared below, from one eth_call (PropertyLens.read, in its order).
  const termsOf = [...m.dirtyCampaigns];
  const drawings = [...m.dirty].map((key) => m.drawings.get(key)!);
  const guarantees = [...m.dirtyGuarantees].map((key) => key.split(":").map(Number));
  const ops = [...m.dirtyOps];
  const w = new Words(
    await lensWords(r, "read", [
      ...[CAMPAIGNS.length, termsOf.length, drawings.length, guarantees.length, ops.length],
      ...CAMPAIGNS,
      ...termsOf.map((ci) => CAMPAIGNS[ci]),
      ...drawings.flatMap((d) => [CAMPAIGNS[d.campaign], d.number]),
      ...guarantees.flatMap(([ci, period]) => [CAMPAIGNS[ci], period]),
      ...ops,
    ]),
  );

  // 1. Owed money is backed, and is exactly what the obligations make it.
  const [balance, owedCents, owedUnits, freeUnits] = [w.next(), w.next(), w.next(), w.next()];
  verify(balance, "the vault's balance is what its transfers left").to.equal(m.balanceUnits);
  verify(owedCents, "invariant 1: owedCents equals what the OwedChanged events and payments made it").to.equal(m.owedCents);
  verify(owedCents, "invariant 1: owedCents equals the obligations (worst cases of unsettled drawings, unpaid prizes, guarantees)").to.equal(
    m.ghostOwedCents(),
  );
  verify(owedCents <= balance / UNITS, `invariant 1: owed ${owedCents} cents exceeds the balance of ${balance} units`).to.equal(true);
  verify(owedUnits).to.equal(owedCents * UNITS);
  verify(freeUnits).to.equal(m.freeUnits());
  const [limit, , isPaused] = [w.next(), w.next(), w.next() === 1n];
  verify(isPaused).to.equal(m.paused);
  verify(limit).to.equal(m.limitHistory.at(-1)!.cents);

  // 2. Bounded loss, over every 24-hour window that ends at a transfer out (the worst windows end at one).
  for (let i = 0; i < m.transfers.length; i++) {
    const end = m.transfers[i].ts;
    const sum = m.transfers.filter((t) => t.ts >= end - DAY && t.ts <= end).reduce((s, t) => s + t.units, 0n);
    const highest = limitsDuring(m.limitHistory, end - DAY, end).reduce(max);
    if (process.env.PROPERTY_STATS === "1") MAXRATIO.v = Math.max(MAXRATIO.v, Number((sum * 1000n) / (highest * UNITS)) / 1000);
    verify(sum <= highest * UNITS, `invariant 2: ${sum} units left in the 24 hours to ${end}, limit ${highest} cents`).to.equal(true);
  }
  for (const p of m.campaignPayments) {
    const c = m.campaigns[p.campaign];
    const limits = limitsDuring(c.limitHistory, p.ts - DAY, p.ts);
    if (limits.includes(0n)) continue; // no campaign limit at some point in the window
    const sum = m.campaignPayments
      .filter((q) => q.campaign === p.campaign && q.ts >= p.ts - DAY && q.ts <= p.ts)
      .reduce((s, q) => s + q.cents, 0n);
    const highest = limits.reduce(max);
    verify(sum <= highest, `invariant 2: campaign ${p.campaign} paid ${sum} cents in the 24 hours to ${p.ts}, limit ${highest}`).to.equal(true);
  }

  // 5. Gapless numbers; the registry as the events left it.
  for (let ci = 0; ci < CAMPAIGNS.length; ci++) {
    const c = m.campaigns[ci];
    const [registered, wallet, lastNumber, threshold] = [w.next() === 1n, w.address(c.wallet), w.next(), w.next()];
    verify(registered).to.equal(c.registered);
    verify(wallet).to.equal(c.wallet);
    verify(threshold).to.equal(c.thresholdCents);
    verify(Number(lastNumber), "invariant 5: lastNumber equals the commits that succeeded").to.equal(c.lastNumber);
    verify([...c.slots.values()].sort((x, y) => x - y)).to.deep.equal(Array.from({ length: c.lastNumber }, (_, i) => i + 1));
    verify(w.next()).to.equal(m.maxPaymentCents(ci));
  }
  // The terms of the campaigns registered or committed to since the last check, as their events left them.
  for (const ci of termsOf) {
    const c = m.campaigns[ci];
    const [guaranteeCents, guaranteePeriod, lastDrawAt, guaranteeStart] = [w.next(), w.next(), w.next(), w.next()];
    verify(guaranteeCents).to.equal(c.guaranteeCents);
    verify(Number(guaranteePeriod)).to.equal(c.guaranteePeriod);
    verify(lastDrawAt).to.equal(c.lastDrawAt);
    verify(Number(guaranteeStart), "invariant 7: guarantee periods count from the registration's block time").to.equal(c.guaranteeStart);
  }
  m.dirtyCampaigns.clear();

  // 7. Every guarantee was picked once its period had ended in block time.
  for (const [key, g] of m.guarantees) {
    const [ci, period] = key.split(":").map(Number);
    const c = m.campaigns[ci];
    const endsAt = c.guaranteeStart + (period + 1) * c.guaranteePeriod;
    verify(g.pickedAt >= endsAt, `invariant 7: guarantee ${key} picked at ${g.pickedAt}, before its period ended at ${endsAt}`).to.equal(true);
  }

  // The stored drawings agree with what their events said (4: settled, paid and closed once).
  for (const d of drawings) {
    const [settledCount, heldCount, heldClosed, payoutWallet, status] = [w.next(), w.next(), w.next(), w.address(d.wallet), w.next()];
    const [sequence, randomValue] = [w.next(), w.next()];
    verify(sequence, "invariant 8: getDrawing shows the current request").to.equal(d.sequence);
    verify(randomValue, "invariant 8: getDrawing's randomValue is zero until the reveal, then the drawing's value").to.equal(BigInt(d.value));
    verify(Number(settledCount)).to.equal(d.settled.size);
    verify(Number(heldCount)).to.equal(d.held.size);
    verify(Number(heldClosed)).to.equal(d.closed.size);
    verify(payoutWallet).to.equal(d.wallet);
    verify(status).to.equal(BigInt(["None", "Requested", "Revealed", "Settled", "Paid"].indexOf(d.status)));
  }
  m.dirty.clear();

  // The stored guarantees too (4: picked and paid once, for exactly the registered amount).
  for (const [ci, period] of guarantees) {
    const g = m.guarantees.get(`${ci}:${period}`)!;
    const [status, wallet, cents] = [w.next(), w.address(g.wallet), w.next()];
    verify(status).to.equal(g.status === "Picked" ? 1n : 2n);
    verify(wallet).to.equal(g.wallet);
    verify(cents).to.equal(g.cents);
  }
  m.dirtyGuarantees.clear();

  // The manager's schedule as its events left it (6).
  for (const id of ops) {
    const op = m.ops.get(id)!;
    const [nonce, schedule] = [w.next(), w.next()];
    verify(nonce).to.equal(op.nonce);
    if (op.state !== "pending") verify(schedule).to.equal(0n);
    else if (op.timepoint + WEEK > m.now + CLOCK_MARGIN) verify(schedule).to.equal(BigInt(op.timepoint));
  }
  m.dirtyOps.clear();
  verify(w.done(), "PropertyLens.read returned more words than asked for").to.equal(true);
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
    await attempt(r, this.toString(), this.role, expected, callOf(r, "draw", "publishPrizeTable", [t.id, 1, t.amounts, t.weights]));
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
    await attempt(
      r,
      this.toString(),
      this.role,
      expected,
      callOf(r, "draw", "registerCampaign", [CAMPAIGNS[this.c], wallet, THRESHOLDS[this.threshold], GUARANTEES[this.guarantee], this.periodDays * DAY]),
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
    await attempt(r, this.toString(), this.role, expected, callOf(r, "draw", "setPayoutWallet", [CAMPAIGNS[this.c], r.wallets[this.wallet].address]));
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
    await attempt(r, this.toString(), this.role, expected, callOf(r, "draw", "setLargePrizeThreshold", [CAMPAIGNS[this.c], THRESHOLDS[this.threshold]]));
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
    await attempt(r, this.toString(), this.role, obligationAction(m, r, this.role, expected), callOf(r, "draw", "commitAndRequest", [[args], maxFee], maxFee));
  }
  toString() {
    return `commit(${this.role}, ${this.cPick}, ${this.variant}, ${this.entrants ? "entrants" : "winners"}, ${this.winners}, table${this.table}, ${this.salt})`;
  }
}

/**
 * What the callback of a reveal of `sequence` sent in the next block does: the drawing's current request is used
 * (EntropyRevealed) while the next block can still read its request block's hash (blockhash: at most
 * BLOCKHASH_WINDOW blocks back) and discarded (EntropyRevealTooLate) after; a superseded one is ignored.
 */
function callbackExpect(m: Model, sequence: bigint): string {
  const d = m.drawings.get(m.entropyPending.get(sequence)!.key)!;
  if (d.sequence !== sequence || d.status !== "Requested") return "EntropyCallbackIgnored";
  return m.lastBlock + 1 - d.requestBlock > BLOCKHASH_WINDOW ? "EntropyRevealTooLate" : "EntropyRevealed";
}

/** The provider reveals `sequence` (anyone may send it) and its callback does what the model predicts. */
async function revealRequest(m: Model, r: Real, sequence: bigint, value: string): Promise<void> {
  const name = callbackExpect(m, sequence);
  m.expectedCallback = { name, sequence };
  await send(r.stranger.address, callOf(r, "mock", "mockReveal", [r.provider.address, sequence, value]));
  STATS.set(`reveal ${name}`, (STATS.get(`reveal ${name}`) ?? 0) + 1);
  await learn(m, r);
  verify(m.expectedCallback, `invariant 8: the reveal of ${sequence} emitted ${name}`).to.equal(undefined);
}

/** A reveal of one of the requests Entropy holds: a drawing's current one, or one a re-request superseded. */
class Reveal extends Base {
  constructor(readonly pick: number, readonly seed: number) {
    super();
  }
  async act(m: Model, r: Real) {
    const pending = [...m.entropyPending.keys()];
    if (pending.length === 0) return;
    const sequence = pending[this.pick % pending.length];
    await revealRequest(m, r, sequence, keccak256(toUtf8Bytes(`reveal-${this.seed}-${sequence}`)));
  }
  toString() {
    return `reveal(${this.pick}, ${this.seed})`;
  }
}

/** reRequest of drawing `n` of campaign `ci` by `role`, predicted in the contract's order of checks. */
async function reRequestDrawing(m: Model, r: Real, role: Role, ci: number, n: number, d: DrawingModel | undefined): Promise<void> {
  const [campaignId, number] = [CAMPAIGNS[ci], BigInt(n)];
  let expected: Expect = OK;
  if (!d) expected = failWith("DrawingNotFound", [campaignId, number]);
  else if (d.status !== "Requested") expected = failWith("NotAwaitingReveal", [campaignId, number]);
  else if (d.reRequested) expected = failWith("AlreadyReRequested", [campaignId, number]);
  else if (m.entropyPending.has(d.sequence)) {
    // Entropy still holds the request: it may be revealed until revealTimeoutBlocks after its block.
    const dueBlock = d.requestBlock + REVEAL_TIMEOUT_BLOCKS;
    if (m.lastBlock + 1 <= dueBlock) expected = failWith("RevealNotTimedOut", [campaignId, number, BigInt(dueBlock)]);
  }
  // Allowed during a pause; MockEntropy's fee is 0, so the whole value comes back.
  const maxFee = 10n ** 15n;
  await attempt(r, `reRequest(${role})`, role, asOperator(m, r, role, expected), callOf(r, "draw", "reRequest", [campaignId, number, maxFee], maxFee));
}

class ReRequest extends Base {
  constructor(readonly role: Role, readonly pick: number) {
    super();
  }
  /** Mostly while a drawing awaits its value (so re-requests get somewhere); a fifth try any time. */
  check(m: Readonly<Model>) {
    return this.pick % 5 === 0 || [...m.drawings.values()].some((d) => d.status === "Requested");
  }
  async act(m: Model, r: Real) {
    const { ci, n, d } = pickDrawing(m, this.pick, (x) => x.status === "Requested");
    await reRequestDrawing(m, r, this.role, ci, n, d);
  }
  toString() {
    return `reRequest(${this.role}, ${this.pick})`;
  }
}

/** Mines `count` empty blocks (one second apart): reveal timeouts and the blockhash window are counted in blocks. */
async function mineBlocks(count: number): Promise<void> {
  chainMoves++;
  await rpc("hardhat_mine", [toQuantity(count)]);
}

class MineBlocks extends Base {
  constructor(readonly count: number) {
    super();
  }
  async act() {
    await mineBlocks(this.count);
  }
  toString() {
    return `mineBlocks(${this.count})`;
  }
}

/**
 * The block boundary of one request Entropy holds: mines until the next block is its BLOCKHASH_WINDOW-th after the
 * request's (a reveal still reads the request block's hash; a re-request is still refused RevealNotTimedOut, the
 * timeout being the same 256 blocks here) or the one after (a reveal is too late; a re-request allowed), then in
 * that block reveals it or has `role` re-request its drawing.
 */
class Boundary extends Base {
  constructor(readonly pick: number, readonly after: boolean, readonly reveal: boolean, readonly role: Role) {
    super();
  }
  check(m: Readonly<Model>) {
    return m.entropyPending.size > 0;
  }
  async act(m: Model, r: Real) {
    const pending = [...m.entropyPending.keys()];
    if (pending.length === 0) return;
    const sequence = pending[this.pick % pending.length];
    const { key, block } = m.entropyPending.get(sequence)!;
    const count = block + BLOCKHASH_WINDOW + (this.after ? 1 : 0) - 1 - m.lastBlock;
    if (count > 0) {
      await mineBlocks(count);
      await learn(m, r);
    }
    if (this.reveal) await revealRequest(m, r, sequence, keccak256(toUtf8Bytes(`boundary-${this.pick}-${sequence}`)));
    else {
      const d = m.drawings.get(key)!;
      await reRequestDrawing(m, r, this.role, d.campaign, d.number, d);
    }
  }
  toString() {
    return `boundary(${this.pick}, ${this.after ? "after" : "last"}, ${this.reveal ? "reveal" : `reRequest ${this.role}`})`;
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
    await attempt(r, this.toString(), this.role, expected, callOf(r, "draw", "settle", [CAMPAIGNS[ci], n, this.max]));
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
    await attempt(
      r,
      this.toString(),
      this.role,
      asOperator(m, r, this.role, expected),
      callOf(r, "draw", "recordWinners", [CAMPAIGNS[ci], n, winnersFingerprint([`e-${ci}-${n}`])]),
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
    await attempt(r, this.toString(), this.role, expected, callOf(r, "draw", "payout", [CAMPAIGNS[ci], n]));
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
      const paid = await attempt(r, "payout(drain)", "stranger", expected, callOf(r, "draw", "payout", [CAMPAIGNS[d.campaign], d.number]));
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
    await revealRequest(m, r, d.sequence, keccak256(toUtf8Bytes(`cycle-${this.salt}-${d.sequence}`)));
    if (d.status === "Revealed") {
      await attempt(r, "settle(cycle)", "stranger", OK, callOf(r, "draw", "settle", [id, n, 1_000]));
      await learn(m, r);
    }
    if (d.kind === KIND_ENTRANTS) {
      await attempt(r, "recordWinners(cycle)", "operator", OK, callOf(r, "draw", "recordWinners", [id, n, winnersFingerprint([`e-${this.salt}`])]));
      await learn(m, r);
    }
    const expected = await payoutExpect(m, r, d.campaign, d);
    await attempt(r, "payout(cycle)", "stranger", expected, callOf(r, "draw", "payout", [id, n]));
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
    await attempt(r, this.toString(), this.role, asOperator(m, r, this.role, expected), callOf(r, "vault", "payHeldPrize", [CAMPAIGNS[ci], n, position]));
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
    await attempt(r, this.toString(), this.role, expected, callOf(r, "vault", "refuseHeldPrize", [CAMPAIGNS[ci], n, position, this.noReason ? "" : "checks failed"]));
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
    else {
      let afterEnd: Expect;
      if (m.guarantees.has(`${ci}:${period}`)) afterEnd = fail("GuaranteeAlreadyPicked");
      else if (c.wallet === ZeroAddress) afterEnd = fail("PayoutWalletRequired");
      else if (c.guaranteeCents > m.maxPaymentCents(ci)) {
        // One transfer that no allowance could ever hold would never be paid.
        afterEnd = failWith("PayoutAboveLimit", [CAMPAIGNS[ci], BigInt(period), c.guaranteeCents, m.maxPaymentCents(ci)]);
      } else afterEnd = backingExpect(m, c.guaranteeCents);
      // Invariant 7: not before the period has ended in block time (guaranteePeriodEnd).
      const endsAt = c.guaranteeStart + (period + 1) * c.guaranteePeriod;
      expected = byTime(reached(m, endsAt), afterEnd, failWith("GuaranteePeriodNotEnded", [CAMPAIGNS[ci], BigInt(period), BigInt(endsAt)]));
    }
    await attempt(
      r,
      this.toString(),
      this.role,
      obligationAction(m, r, this.role, expected),
      callOf(r, "vault", "pickGuarantee", [CAMPAIGNS[ci], period, keccak256(toUtf8Bytes(`winner-${this.pick}`))]),
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
  /** Mostly once a guarantee waits for its payment (so payments get somewhere); mode 2 tries any time. */
  check(m: Readonly<Model>) {
    return this.mode === 2 || [...m.guarantees.values()].some((g) => g.status === "Picked");
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
    await attempt(r, this.toString(), this.role, expected, callOf(r, "vault", "payGuarantee", [CAMPAIGNS[ci], period]));
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
    await attempt(r, this.toString(), this.role, expected, callOf(r, "vault", "pause", []));
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
  return { target: r.addresses[targetName], targetName, data: r.ifaces[targetName].encode(fn, args) };
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
      return adminCall(r, "vault", "moveGuaranteeWallet", [CAMPAIGNS[ci], pickPeriod(m, ci, 1, a.pick), moveDestination(m, r, ci, a.to)]);
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
  const parsed = r.ifaces[c.targetName].parseCall(c.data);
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
  await attempt(r, label, role, expected, callOf(r, "manager", "schedule", [c.target, c.data, 0]));
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
    await attempt(r, label, this.role, expected, this.direct ? { to: c.target, data: c.data } : callOf(r, "manager", "execute", [c.target, c.data]));
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
    await attempt(r, `direct:${this.toString()}`, this.role, await directExpect(m, r, this.role, c), { to: c.target, data: c.data });
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
    await attempt(r, label, this.role, expected, callOf(r, "manager", "cancel", [r.admin.address, c.target, c.data]));
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
        calls.push(adminCall(r, "vault", "moveGuaranteeWallet", [id, Number(key.split(":")[1]), to]));
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

/** Why a jump is taken: any time, past the admin's delay, or past a guarantee period. */
type Jump = "any" | "scheduled" | "guarantee";

class TimeTravel extends Base {
  constructor(readonly hours: number, readonly when: Jump = "any") {
    super();
  }
  /**
   * The jumps past the admin's delay are taken while an operation waits (so executions get somewhere), those of
   * a guarantee period's length while a campaign with a guarantee has drawings (so picks get somewhere).
   */
  check(m: Readonly<Model>) {
    if (this.when === "scheduled") return [...m.ops.values()].some((op) => op.state === "pending");
    if (this.when === "guarantee") return m.campaigns.some((c) => c.guaranteeCents > 0n && c.lastNumber > 0);
    return true;
  }
  async act() {
    chainMoves++;
    await network.provider.request({ method: "evm_increaseTime", params: [this.hours * 3600] });
    await network.provider.request({ method: "evm_mine" });
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
const reRequest = fc.tuple(roleMostly("operator"), pick).map(([r, p]) => new ReRequest(r, p));
/** A few blocks, or past the reveal timeout (and the blockhash window) of the requests made so far. */
const mineBlocksArb = fc
  .oneof({ weight: 2, arbitrary: fc.integer({ min: 1, max: 20 }) }, { weight: 3, arbitrary: fc.integer({ min: 240, max: 600 }) })
  .map((n) => new MineBlocks(n));
const boundary = fc.tuple(pick, fc.boolean(), fc.boolean(), roleMostly("operator")).map(([p, after, rev, role]) => new Boundary(p, after, rev, role));
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
const pastAdminDelay = fc.integer({ min: 0, max: 12 }).map((h) => new TimeTravel(ADMIN_DELAY / 3600 + h, "scheduled"));
/** A guarantee period's length (1 to 7 days, as registerCampaign's), so periods end and picks succeed. */
const pastGuaranteePeriod = fc.integer({ min: 1, max: 7 }).map((d) => new TimeTravel(24 * d, "guarantee"));

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
  [6, reRequest],
  [4, mineBlocksArb],
  [6, boundary],
  [3, settle],
  [2, recordWinners],
  [6, payout],
  [3, payHeld],
  [2, refuseHeld],
  [6, pickGuarantee],
  [4, payGuarantee],
  [1, pause],
  [10, schedule],
  [12, execute],
  [2, cancel],
  [2, direct],
  [2, incident],
  [5, timeTravel],
  [8, pastAdminDelay],
  [3, pastGuaranteePeriod],
];
const commands = weighted.flatMap(([n, arb]) => Array.from({ length: n }, () => arb));

// ------------------------------------------------------------------ the property

/** The model of the fixture's state, learnt and checked once, and the hash of the fixture's latest block. */
let initial: { model: Model; hash: string } | undefined;

/**
 * A model of the fixture's state for a new run. loadFixture reverted the chain to the fixture's snapshot (the
 * same latest block, so the same state): what the model learns from it, and its first check, are the same every
 * run, so they are done once and copied.
 */
async function modelOfFixture(r: Real): Promise<Model> {
  const latest = (await rpc("eth_getBlockByNumber", ["latest", false])) as { hash: string };
  if (!initial) {
    const m = new Model(r);
    await learn(m, r);
    await checkInvariants(m, r);
    initial = { model: structuredClone(m), hash: latest.hash };
  }
  verify(latest.hash, "every run starts from the fixture's chain").to.equal(initial.hash);
  return Object.setPrototypeOf(structuredClone(initial.model), Model.prototype) as Model;
}

describe("PrizeDraw stateful properties (fast-check model-based commands)", function () {
  this.timeout(TIME_LIMIT_MS + 100_000);

  it(`keeps every invariant after every command by every role (${NUM_RUNS} runs of up to ${MAX_COMMANDS} commands)`, async () => {
    let runs = 0;
    let total = 0;
    let sequences = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: MAX_COMMANDS, size: "max" }), async (cmds) => {
        if (++sequences % RESET_EVERY === 0) {
          // A new chain, the fixture deployed again and learnt again (its blocks' times are new).
          await reset();
          initial = undefined;
        }
        const r = await loadFixture(propertyFixture);
        blockInfo.clear();
        const m = await modelOfFixture(r);
        await fc.asyncModelRun(() => ({ model: m, real: r }), cmds);
        runs++;
        total += m.commandCount;
        if (process.env.PROPERTY_STATS === "1") console.log(`run: ${m.commandCount} commands, ${m.drawingOrder.length} drawings, ${m.ops.size} operations`);
      }),
      // Shrinking replays commands on the chain: it is cut short when the time limit is reached, reporting the
      // smallest counterexample found by then. A failure prints its seed and path: PROPERTY_SEED and PROPERTY_PATH
      // replay it.
      {
        numRuns: NUM_RUNS,
        endOnFailure: process.env.PROPERTY_SHRINK === "0",
        interruptAfterTimeLimit: TIME_LIMIT_MS,
        markInterruptAsFailure: true,
        ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED) } : {}),
        ...(process.env.PROPERTY_PATH ? { path: process.env.PROPERTY_PATH } : {}),
      },
    );
    if (process.env.PROPERTY_STATS === "1") {
      console.log(`${total} commands in ${runs} runs; max 24h sum / limit: ${MAXRATIO.v}`);
      console.log([...STATS].sort().map(([k, v]) => `${k}: ${v}`).join("\n"));
    }
  });
});
