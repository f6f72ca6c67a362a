/**
 * Stateful property test of PrizeDraw: fast-check model-based commands (fc.commands + fc.asyncModelRun) on
 * Hardhat's in-process chain. Every contract call is made by every role (admin, operator, guardian, stranger),
 * and time moves in hours. Each command predicts its outcome from the model (success, or the exact custom error;
 * a limit that the next block's refill could just cover may go either way), and the model then learns what
 * happened from the contract's and the token's events.
 *
 * Invariants, checked after EVERY command. They are the @dev list of contracts/base/Treasury.sol, and how each
 * is checked here:
 * 1. Owed money is reserved: balances().owedCents equals the settled-but-unpaid drawing payouts, plus the open
 *    held prizes, plus the picked-but-unpaid guarantees (summed from the events); the admin never withdraws below
 *    it, so the token balance is at least owedCents x unitsPerCent (the pool is funded so settled prizes never
 *    exceed it).
 * 2. Bounded loss: the token transfers out of the contract to winner wallets (Transfer events) within any
 *    24-hour window sum to at most the highest overall limit in force during that window; the same for a
 *    campaign's payments and its own limit (windows in which the campaign had no limit are skipped).
 * 3. A pause stops every payment: no payment event between PaymentsPaused and PaymentsResumed, and every
 *    payment attempted while paused reverts with PaymentsArePaused. It stops the operator's actions on what is owed
 *    too: no CampaignRegistered, LargePrizeThresholdChanged, DrawingCommitted, HeldPrizeRefused or GuaranteePicked
 *    while paused, and each such call by the operator reverts with EnforcedPause.
 * 4. Every obligation is created and discharged once: a position is settled once (PrizeAwarded per
 *    (campaign, number, position) at most once), a drawing is paid once (DrawingPaid at most once), a held prize
 *    is paid or refused once, and a guarantee period is picked once, for exactly the registered amount, and paid
 *    once.
 * 5. Drawing numbers are gapless per campaign: getCampaign's lastNumber equals the number of commits that
 *    succeeded, numbered 1, 2, 3...
 * 6. A wallet move needs two keys: every DrawingWalletMoved and GuaranteeWalletMoved goes to the campaign's payout
 *    wallet of that moment (set by the operator), which the admin's call named; a move naming any other address is
 *    refused with MoveDestinationMismatch.
 */
import { expect } from "chai";
import fc from "fast-check";
import { ethers, network } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { encodeBytes32String, keccak256, toUtf8Bytes, ZeroAddress, ZeroHash, type ContractTransactionResponse, type Log } from "ethers";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import type { MockEntropy, PrizeDraw, TestStablecoin } from "../../typechain-types";
import { DEFAULT_TABLE, DRAW_EPOCH, KIND_ENTRANTS, KIND_WINNERS, campaignIdOf, deployPrizeDraw, slotOf, winnersFingerprint } from "./helpers";

const NUM_RUNS = Number(process.env.PROPERTY_RUNS ?? 25);
const MAX_COMMANDS = 40;
const DAY = 86_400;

const ROLES = ["admin", "operator", "guardian", "stranger"] as const;
type Role = (typeof ROLES)[number];

const ADMIN_ROLE = ZeroHash;
const OPERATOR_ROLE = ethers.id("OPERATOR_ROLE");
const GUARDIAN_ROLE = ethers.id("GUARDIAN_ROLE");

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

// ------------------------------------------------------------------ fixture

async function propertyFixture() {
  const signers = await ethers.getSigners();
  const [admin, operator, guardian, stranger] = signers;
  const wallets = signers.slice(4, 8);
  const sink = signers[8]; // the only address withdrawals go to
  const provider = signers[9];
  const token = (await (await ethers.getContractFactory("TestStablecoin")).deploy()) as unknown as TestStablecoin;
  const mock = (await (await ethers.getContractFactory("MockEntropy")).deploy(provider.address)) as unknown as MockEntropy;
  const draw = await deployPrizeDraw({
    entropy: await mock.getAddress(),
    token,
    admin,
    operator,
    guardian,
    callbackGasLimit: 150_000, // 11 positions per callback: larger drawings need settle()
    dailyLimitCents: INITIAL_DAILY_LIMIT,
    pool: 10n ** 18n, // 10^14 cents: far more than any run can settle
    defaultTable: false,
  });
  for (const i of PUBLISHED_AT_START) await draw.connect(operator).publishPrizeTable(TABLES[i].id, 1, TABLES[i].amounts, TABLES[i].weights);
  await draw.connect(operator).registerCampaign(CAMPAIGNS[0], wallets[0].address, 50_000, 0, 0);
  await draw.connect(operator).registerCampaign(CAMPAIGNS[1], wallets[1].address, 5_000, 2_500, DAY);
  const startBlock = await ethers.provider.getBlockNumber();
  const startTime = (await ethers.provider.getBlock(startBlock))!.timestamp;
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
  return { admin, operator, guardian, stranger, wallets, sink, provider, token, mock, draw, startBlock, startTime };
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
};

type CampaignModel = {
  registered: boolean;
  wallet: string;
  guaranteeCents: bigint;
  lastNumber: number;
  lastDrawAt: bigint;
  slots: Map<string, number>;
  limitHistory: { ts: number; cents: bigint }[];
};

type GuaranteeModel = { status: "Picked" | "Paid"; wallet: string; cents: bigint };

class Model {
  tables = new Set<string>(PUBLISHED_AT_START.map(tableKey));
  campaigns: CampaignModel[] = CAMPAIGNS.map(() => ({
    registered: false,
    wallet: ZeroAddress,
    guaranteeCents: 0n,
    lastNumber: 0,
    lastDrawAt: 0n,
    slots: new Map(),
    limitHistory: [{ ts: 0, cents: 0n }],
  }));
  drawings = new Map<string, DrawingModel>();
  drawingOrder: string[] = [];
  bySequence = new Map<bigint, string>();
  guarantees = new Map<string, GuaranteeModel>();
  paused = false;
  owedCents = 0n;
  limitHistory: { ts: number; cents: bigint }[] = [{ ts: 0, cents: INITIAL_DAILY_LIMIT }];
  transfers: { ts: number; units: bigint }[] = [];
  campaignPayments: { ts: number; campaign: number; cents: bigint }[] = [];
  lastBlock: number;
  commandCount = 0;
  dirty = new Set<string>();
  constructor(startBlock: number) {
    this.lastBlock = startBlock;
    const alpha = this.campaigns[0];
    alpha.registered = true;
  }
  pending(): string[] {
    return this.drawingOrder.filter((k) => this.drawings.get(k)!.status === "Requested");
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

// ------------------------------------------------------------------ expectations and calls

/** What a call may do: succeed (ok) and/or revert with one of `errors`. */
type Expect = { ok: boolean; errors: string[] };
const OK: Expect = { ok: true, errors: [] };
const fail = (...errors: string[]): Expect => ({ ok: false, errors });
/** An operator action on what is owed (onlyOperatorUnpaused): while paused, refused before any other check. */
const unlessPaused = (m: { paused: boolean }, expected: Expect): Expect => (m.paused ? fail("EnforcedPause") : expected);
const either = (...errors: string[]): Expect => ({ ok: true, errors });

/** Outcomes per call and result, printed with PROPERTY_STATS=1. */
const STATS = new Map<string, number>();
const MAXRATIO = { v: 0 };

function signerOf(r: Real, role: Role): HardhatEthersSigner {
  return r[role];
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

function decodeError(r: Real, e: unknown): { name: string; args: unknown[] } {
  const data = revertData(e);
  if (data !== undefined) {
    for (const iface of [r.draw.interface, r.token.interface]) {
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

/**
 * Sends a call as `role`. A role outside `allowed` must be refused with AccessControlUnauthorizedAccount (for the
 * role `refusedRole`); an allowed one must do what `expected` says.
 */
async function attempt(
  r: Real,
  label: string,
  role: Role,
  allowed: readonly Role[] | "anyone",
  refusedRole: string,
  expected: Expect,
  send: (signer: HardhatEthersSigner) => Promise<ContractTransactionResponse>,
): Promise<boolean> {
  const signer = signerOf(r, role);
  const authorized = allowed === "anyone" || allowed.includes(role);
  let outcome: { ok: true } | { ok: false; name: string; args: unknown[] };
  try {
    const tx = await send(signer);
    await tx.wait();
    outcome = { ok: true };
  } catch (e) {
    outcome = { ok: false, ...decodeError(r, e) };
  }
  const stat = `${label.split("(")[0]} ${authorized ? (outcome.ok ? "ok" : (outcome as { name: string }).name) : "unauthorized"}`;
  STATS.set(stat, (STATS.get(stat) ?? 0) + 1);
  if (!authorized) {
    expect(outcome.ok, `${label} by ${role} must be refused`).to.equal(false);
    if (!outcome.ok) {
      expect(outcome.name, `${label} by ${role}`).to.equal("AccessControlUnauthorizedAccount");
      expect(outcome.args, `${label} by ${role}`).to.deep.equal([signer.address, refusedRole]);
    }
    return false;
  }
  if (outcome.ok) {
    expect(expected.ok, `${label} by ${role} succeeded, expected ${expected.errors.join("|")}`).to.equal(true);
    return true;
  }
  expect(expected.errors, `${label} by ${role} reverted with ${outcome.name}`).to.include(outcome.name);
  return false;
}

/** Whether a payment of `cents` fits the overall and campaign allowances now, surely not, or maybe (refill). */
async function limitExpect(r: Real, campaignId: string, cents: bigint): Promise<Expect> {
  const [limit, available] = await r.draw.paymentState();
  const [campaignLimit, campaignAvailable] = await r.draw.campaignAllowance(campaignId);
  // The next block may be a few seconds later than the latest: up to two minutes of refill.
  const margin = (l: bigint) => ((l / 2n) * 120n) / BigInt(DAY) + 1n;
  const fitsNow = cents <= available && (campaignLimit === 0n || cents <= campaignAvailable);
  if (fitsNow) return OK;
  const surelyNot = cents > available + margin(limit) || (campaignLimit !== 0n && cents > campaignAvailable + margin(campaignLimit));
  return surelyNot ? fail("LimitExceeded") : either("LimitExceeded");
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

/** Reads every new event of the contract and the token, updates the model, and checks invariants 3 and 4. */
async function learn(m: Model, r: Real): Promise<{ names: string[] }> {
  const latest = await ethers.provider.getBlockNumber();
  if (latest <= m.lastBlock) return { names: [] };
  const drawAddress = await r.draw.getAddress();
  const tokenAddress = await r.token.getAddress();
  const logs = ordered(await ethers.provider.getLogs({ fromBlock: m.lastBlock + 1, toBlock: latest, address: [drawAddress, tokenAddress] }));
  m.lastBlock = latest;
  const names: string[] = [];
  const walletSet = new Set(r.wallets.map((w) => w.address));
  const paidUnitsByTx = new Map<string, bigint>();
  const transferUnitsByTx = new Map<string, bigint>();
  for (const log of logs) {
    const ts = await timestampOf(log.blockNumber);
    if (log.address === tokenAddress) {
      const parsed = r.token.interface.parseLog(log)!;
      if (parsed.name !== "Transfer" || parsed.args.from !== drawAddress) continue;
      const to = parsed.args.to as string;
      const value = parsed.args.value as bigint;
      if (to === r.sink.address) continue; // a withdrawal (checked by TokensWithdrawn below)
      expect(walletSet.has(to), `transfer to a non-winner address ${to}`).to.equal(true);
      m.transfers.push({ ts, units: value });
      transferUnitsByTx.set(log.transactionHash, (transferUnitsByTx.get(log.transactionHash) ?? 0n) + value);
      continue;
    }
    const parsed = r.draw.interface.parseLog(log)!;
    names.push(parsed.name);
    const a = parsed.args;
    const payment = (campaign: number, cents: bigint, units: bigint) => {
      expect(m.paused, `invariant 3: ${parsed.name} while paused`).to.equal(false);
      m.owedCents -= cents;
      m.campaignPayments.push({ ts, campaign, cents });
      paidUnitsByTx.set(log.transactionHash, (paidUnitsByTx.get(log.transactionHash) ?? 0n) + units);
      expect(units).to.equal(cents * UNITS);
    };
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
        c.guaranteeCents = a.guaranteeCents;
        break;
      }
      case "PayoutWalletChanged":
        m.campaigns[campaignIndex(a.campaignId)].wallet = a.newWallet;
        break;
      case "DrawingCommitted": {
        const ci = campaignIndex(a.campaignId);
        const c = m.campaigns[ci];
        const n = Number(a.number);
        expect(n, "invariant 5: numbers are 1, 2, 3...").to.equal(c.lastNumber + 1);
        expect(c.slots.has(a.slot), "slot used twice").to.equal(false);
        expect(a.drawAt > c.lastDrawAt, "draw times increase").to.equal(true);
        c.lastNumber = n;
        c.lastDrawAt = a.drawAt;
        c.slots.set(a.slot, n);
        const kind = Number(a.kind);
        const prizeCount = kind === KIND_ENTRANTS ? Math.min(Number(a.winnersExpected), Number(a.entrantCount)) : Number(a.winnersExpected);
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
        });
        m.drawingOrder.push(key);
        m.dirty.add(key);
        break;
      }
      case "EntropyRequested": {
        const key = drawingKey(campaignIndex(a.campaignId), Number(a.number));
        m.drawings.get(key)!.sequence = a.sequence;
        m.bySequence.set(a.sequence, key);
        break;
      }
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
        m.owedCents += a.amountCents;
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
        expect(d.status).to.equal("Revealed");
        expect(d.settled.size).to.equal(d.prizeCount);
        expect(a.payoutCents).to.equal(d.payoutCents);
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
          m.owedCents -= a.amountCents;
        }
        m.dirty.add(key);
        break;
      }
      case "DrawingWalletMoved": {
        const ci = campaignIndex(a.campaignId);
        const key = drawingKey(ci, Number(a.number));
        const d = m.drawings.get(key)!;
        m.dirty.add(key);
        expect(a.previousWallet).to.equal(d.wallet);
        expect(a.newWallet, "invariant 6: a move goes to the campaign's wallet").to.equal(m.campaigns[ci].wallet);
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
        m.owedCents += a.amountCents;
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
        const ci = campaignIndex(a.campaignId);
        const g = m.guarantees.get(`${ci}:${a.period}`)!;
        expect(a.previousWallet).to.equal(g.wallet);
        expect(a.newWallet, "invariant 6: a move goes to the campaign's wallet").to.equal(m.campaigns[ci].wallet);
        g.wallet = a.newWallet;
        break;
      }
      case "LimitChanged":
        if (a.campaignId === ZeroHash) m.limitHistory.push({ ts, cents: a.newCents });
        else m.campaigns[campaignIndex(a.campaignId)].limitHistory.push({ ts, cents: a.newCents });
        break;
      case "PaymentsPaused":
        m.paused = true;
        break;
      case "PaymentsResumed":
        m.paused = false;
        break;
      default:
        break;
    }
  }
  // Every transfer to a winner is exactly a recorded payment.
  for (const [tx, units] of transferUnitsByTx) expect(paidUnitsByTx.get(tx) ?? 0n, `transfer without a payment in ${tx}`).to.equal(units);
  for (const [tx, units] of paidUnitsByTx) if (units > 0n) expect(transferUnitsByTx.get(tx)).to.equal(units);
  return { names };
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
  // 1. Owed money is reserved.
  const [balance, owedCents, owedUnits] = await r.draw.balances();
  expect(owedCents, "invariant 1: owedCents equals the sum of what the events made owed").to.equal(m.owedCents);
  expect(balance >= owedUnits, "invariant 1: balance covers what is owed").to.equal(true);
  expect(owedUnits).to.equal(owedCents * UNITS);
  expect((await r.draw.paymentState()).paused).to.equal(m.paused);

  // 2. Bounded loss, over every 24-hour window that ends at a payment (the worst windows end at one).
  for (let i = 0; i < m.transfers.length; i++) {
    const end = m.transfers[i].ts;
    const sum = m.transfers.filter((t) => t.ts >= end - DAY && t.ts <= end).reduce((s, t) => s + t.units, 0n);
    const limit = limitsDuring(m.limitHistory, end - DAY, end).reduce((x, y) => (x > y ? x : y));
    if (process.env.PROPERTY_STATS === "1") MAXRATIO.v = Math.max(MAXRATIO.v, Number((sum * 1000n) / (limit * UNITS)) / 1000);
    expect(sum <= limit * UNITS, `invariant 2: ${sum} units left in the 24 hours to ${end}, limit ${limit} cents`).to.equal(true);
  }
  for (const p of m.campaignPayments) {
    const c = m.campaigns[p.campaign];
    const limits = limitsDuring(c.limitHistory, p.ts - DAY, p.ts);
    if (limits.includes(0n)) continue; // no campaign limit at some point in the window
    const sum = m.campaignPayments
      .filter((q) => q.campaign === p.campaign && q.ts >= p.ts - DAY && q.ts <= p.ts)
      .reduce((s, q) => s + q.cents, 0n);
    const limit = limits.reduce((x, y) => (x > y ? x : y));
    expect(sum <= limit, `invariant 2: campaign ${p.campaign} paid ${sum} cents in the 24 hours to ${p.ts}, limit ${limit}`).to.equal(true);
  }

  // 5. Gapless numbers.
  for (let ci = 0; ci < CAMPAIGNS.length; ci++) {
    const c = m.campaigns[ci];
    const [registered, wallet, lastNumber] = await r.draw.getCampaign(CAMPAIGNS[ci]);
    expect(registered).to.equal(c.registered);
    expect(wallet).to.equal(c.wallet);
    expect(Number(lastNumber), "invariant 5: lastNumber equals the commits that succeeded").to.equal(c.lastNumber);
    expect([...c.slots.values()].sort((x, y) => x - y)).to.deep.equal(Array.from({ length: c.lastNumber }, (_, i) => i + 1));
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
}

// ------------------------------------------------------------------ commands

type Cmd = fc.AsyncCommand<Model, Real>;

abstract class Base implements Cmd {
  check(): boolean {
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
    const expected = m.tables.has(tableKey(this.table)) ? fail("PrizeTableExists") : OK;
    await attempt(r, this.toString(), this.role, ["operator"], OPERATOR_ROLE, expected, (s) =>
      r.draw.connect(s).publishPrizeTable(t.id, 1, t.amounts, t.weights),
    );
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
    const expected = unlessPaused(m, m.campaigns[this.c].registered ? fail("CampaignAlreadyRegistered") : OK);
    await attempt(r, this.toString(), this.role, ["operator"], OPERATOR_ROLE, expected, (s) =>
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
    const expected = m.campaigns[this.c].registered ? OK : fail("CampaignNotRegistered");
    await attempt(r, this.toString(), this.role, ["operator"], OPERATOR_ROLE, expected, (s) =>
      r.draw.connect(s).setPayoutWallet(CAMPAIGNS[this.c], r.wallets[this.wallet].address),
    );
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
    const expected = unlessPaused(m, m.campaigns[this.c].registered ? OK : fail("CampaignNotRegistered"));
    await attempt(r, this.toString(), this.role, ["operator"], OPERATOR_ROLE, expected, (s) =>
      r.draw.connect(s).setLargePrizeThreshold(CAMPAIGNS[this.c], THRESHOLDS[this.threshold]),
    );
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
    await attempt(r, this.toString(), this.role, ["operator"], OPERATOR_ROLE, unlessPaused(m, expected), (s) =>
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
    await attempt(r, this.toString(), this.role, "anyone", "", expected, (s) => r.draw.connect(s).settle(CAMPAIGNS[ci], n, this.max));
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
    await attempt(r, this.toString(), this.role, ["operator"], OPERATOR_ROLE, expected, (s) =>
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
    await attempt(r, this.toString(), this.role, "anyone", "", expected, (s) => r.draw.connect(s).payout(CAMPAIGNS[ci], n));
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
      const paid = await attempt(r, "payout(drain)", "stranger", "anyone", "", expected, (s) => r.draw.connect(s).payout(CAMPAIGNS[d.campaign], d.number));
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
      await attempt(r, "settle(cycle)", "stranger", "anyone", "", OK, (s) => r.draw.connect(s).settle(id, n, 1_000));
      await learn(m, r);
    }
    if (d.kind === KIND_ENTRANTS) {
      await attempt(r, "recordWinners(cycle)", "operator", ["operator"], OPERATOR_ROLE, OK, (s) =>
        r.draw.connect(s).recordWinners(id, n, winnersFingerprint([`e-${this.salt}`])),
      );
      await learn(m, r);
    }
    const expected = await payoutExpect(m, r, d.campaign, d);
    await attempt(r, "payout(cycle)", "stranger", "anyone", "", expected, (s) => r.draw.connect(s).payout(id, n));
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

function closeExpect(m: Model, d: DrawingModel | undefined, position: number): Expect | undefined {
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
    let expected = closeExpect(m, d, position);
    if (!expected) expected = m.paused ? fail("PaymentsArePaused") : await limitExpect(r, CAMPAIGNS[ci], d!.held.get(position)!);
    await attempt(r, this.toString(), this.role, ["operator"], OPERATOR_ROLE, expected, (s) => r.draw.connect(s).payHeldPrize(CAMPAIGNS[ci], n, position));
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
    const expected = unlessPaused(m, this.noReason ? fail("ReasonRequired") : (closeExpect(m, d, position) ?? OK));
    await attempt(r, this.toString(), this.role, ["operator"], OPERATOR_ROLE, expected, (s) =>
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
    let expected: Expect = OK;
    if (!c.registered) expected = fail("CampaignNotRegistered");
    else if (c.guaranteeCents === 0n) expected = fail("NoGuarantee");
    else if (period >= c.lastNumber) expected = fail("GuaranteePeriodNotDrawn");
    else if (m.guarantees.has(`${ci}:${period}`)) expected = fail("GuaranteeAlreadyPicked");
    else if (c.wallet === ZeroAddress) expected = fail("PayoutWalletRequired");
    await attempt(r, this.toString(), this.role, ["operator"], OPERATOR_ROLE, unlessPaused(m, expected), (s) =>
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
    const ci = pickCampaign(m, this.cPick, (c) => c.guaranteeCents > 0n);
    const period = pickPeriod(m, ci, this.mode === 0 ? 1 : this.mode, this.pick);
    const g = m.guarantees.get(`${ci}:${period}`);
    let expected: Expect;
    if (g?.status === "Paid") expected = fail("GuaranteeAlreadyPaid");
    else if (!g) expected = fail("GuaranteeNotPicked");
    else if (m.paused) expected = fail("PaymentsArePaused");
    else expected = await limitExpect(r, CAMPAIGNS[ci], g.cents);
    await attempt(r, this.toString(), this.role, "anyone", "", expected, (s) => r.draw.connect(s).payGuarantee(CAMPAIGNS[ci], period));
  }
  toString() {
    return `payGuarantee(${this.role}, ${this.cPick}, ${this.mode}, ${this.pick})`;
  }
}

/**
 * The destination a wallet move names: the campaign's current wallet (`to` null, as an admin who checked it names
 * it), or one of the test wallets, which may be another (invariant 2: a move goes only where the campaign's wallet,
 * set by the operator, and the admin's call agree).
 */
function moveDestination(m: Model, r: Real, ci: number, to: number | null): string {
  return to === null ? m.campaigns[ci].wallet : r.wallets[to]!.address;
}

/** What a wallet move to `to` gives once the obligation exists: refused unless `to` is the campaign's wallet. */
function moveExpect(m: Model, ci: number, to: string, recorded: string): Expect {
  if (to === ZeroAddress) return fail("ZeroAddress");
  if (to !== m.campaigns[ci].wallet) return fail("MoveDestinationMismatch");
  return to === recorded ? fail("NothingToMove") : OK;
}

class MoveGuaranteeWallet extends Base {
  constructor(readonly role: Role, readonly cPick: number, readonly pick: number, readonly to: number | null) {
    super();
  }
  async act(m: Model, r: Real) {
    const ci = pickCampaign(m, this.cPick, (c) => c.guaranteeCents > 0n);
    const period = pickPeriod(m, ci, 1, this.pick);
    const g = m.guarantees.get(`${ci}:${period}`);
    const to = moveDestination(m, r, ci, this.to);
    const expected = g?.status !== "Picked" ? fail("GuaranteeNotPicked") : moveExpect(m, ci, to, g.wallet);
    await attempt(r, this.toString(), this.role, ["admin"], ADMIN_ROLE, expected, (s) => r.draw.connect(s).moveGuaranteeWallet(CAMPAIGNS[ci], period, to));
  }
  toString() {
    return `moveGuaranteeWallet(${this.role}, ${this.cPick}, ${this.pick}, ${this.to === null ? "campaign's" : `w${this.to}`})`;
  }
}

class MoveDrawingWallet extends Base {
  constructor(readonly role: Role, readonly pick: number, readonly to: number | null) {
    super();
  }
  async act(m: Model, r: Real) {
    // Mostly a drawing an admin would move: unpaid, on a wallet the campaign has since changed.
    const { ci, n, d } = pickDrawing(m, this.pick, (x) => x.wallet !== m.campaigns[x.campaign].wallet && !(x.status === "Paid" && x.closed.size === x.held.size));
    const to = moveDestination(m, r, ci, this.to);
    let expected: Expect;
    if (!d) expected = fail("DrawingNotFound");
    else if (d.status === "Paid" && d.closed.size === d.held.size) expected = fail("NothingToMove");
    else expected = moveExpect(m, ci, to, d.wallet);
    await attempt(r, this.toString(), this.role, ["admin"], ADMIN_ROLE, expected, (s) => r.draw.connect(s).moveDrawingWallet(CAMPAIGNS[ci], n, to));
  }
  toString() {
    return `moveDrawingWallet(${this.role}, ${this.pick}, ${this.to === null ? "campaign's" : `w${this.to}`})`;
  }
}

class WithdrawTokens extends Base {
  constructor(readonly role: Role, readonly overFree: boolean, readonly units: number) {
    super();
  }
  async act(m: Model, r: Real) {
    const [, , , free] = await r.draw.balances();
    // Withdrawals keep the pool generous: a small amount, or one unit more than is free (refused).
    const amount = this.overFree ? free + 1n : BigInt(this.units) < free ? BigInt(this.units) : free;
    const expected = amount > free ? fail("WithdrawalExceedsFree") : OK;
    await attempt(r, this.toString(), this.role, ["admin"], ADMIN_ROLE, expected, (s) => r.draw.connect(s).withdrawTokens(r.sink.address, amount));
  }
  toString() {
    return `withdrawTokens(${this.role}, ${this.overFree ? "free + 1" : this.units})`;
  }
}

class SetDailyLimit extends Base {
  constructor(readonly role: Role, readonly limit: number) {
    super();
  }
  async act(m: Model, r: Real) {
    await attempt(r, this.toString(), this.role, ["admin"], ADMIN_ROLE, OK, (s) => r.draw.connect(s).setDailyLimit(DAILY_LIMITS[this.limit]));
  }
  toString() {
    return `setDailyLimit(${this.role}, ${DAILY_LIMITS[this.limit]})`;
  }
}

class SetCampaignLimit extends Base {
  constructor(readonly role: Role, readonly c: number, readonly limit: number) {
    super();
  }
  async act(m: Model, r: Real) {
    await attempt(r, this.toString(), this.role, ["admin"], ADMIN_ROLE, OK, (s) => r.draw.connect(s).setCampaignLimit(CAMPAIGNS[this.c], CAMPAIGN_LIMITS[this.limit]));
  }
  toString() {
    return `setCampaignLimit(${this.role}, c${this.c}, ${CAMPAIGN_LIMITS[this.limit]})`;
  }
}

class SetCallbackGasLimit extends Base {
  constructor(readonly role: Role, readonly limit: number) {
    super();
  }
  async act(m: Model, r: Real) {
    await attempt(r, this.toString(), this.role, ["admin"], ADMIN_ROLE, OK, (s) => r.draw.connect(s).setCallbackGasLimit(CALLBACK_LIMITS[this.limit]));
  }
  toString() {
    return `setCallbackGasLimit(${this.role}, ${CALLBACK_LIMITS[this.limit]})`;
  }
}

class Pause extends Base {
  constructor(readonly role: Role) {
    super();
  }
  async act(m: Model, r: Real) {
    await attempt(r, this.toString(), this.role, ["guardian", "admin"], GUARDIAN_ROLE, OK, (s) => r.draw.connect(s).pause());
  }
  toString() {
    return `pause(${this.role})`;
  }
}

class Unpause extends Base {
  constructor(readonly role: Role) {
    super();
  }
  async act(m: Model, r: Real) {
    await attempt(r, this.toString(), this.role, ["admin"], ADMIN_ROLE, m.paused ? OK : fail("NotPaused"), (s) => r.draw.connect(s).unpause());
  }
  toString() {
    return `unpause(${this.role})`;
  }
}

class TimeTravel extends Base {
  constructor(readonly hours: number) {
    super();
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
const roleFor = (role: Role) => fc.oneof({ weight: 5, arbitrary: fc.constant(role) }, { weight: 1, arbitrary: fc.constantFrom(...ROLES) });
const anyRole = fc.constantFrom(...ROLES);
const campaign = fc.integer({ min: 0, max: CAMPAIGNS.length - 1 });
const pick = fc.nat({ max: 1_000 });

const publishTable = fc.tuple(roleFor("operator"), fc.integer({ min: 0, max: TABLES.length - 1 })).map(([r, t]) => new PublishTable(r, t));
const registerCampaign = fc
  .tuple(roleFor("operator"), campaign, fc.integer({ min: -1, max: 3 }), fc.nat({ max: 2 }), fc.nat({ max: 2 }), fc.integer({ min: 1, max: 7 }))
  .map(([r, c, w, t, g, p]) => new RegisterCampaign(r, c, w, t, g, p));
const setPayoutWallet = fc.tuple(roleFor("operator"), campaign, fc.nat({ max: 3 })).map(([r, c, w]) => new SetPayoutWallet(r, c, w));
const setThreshold = fc.tuple(roleFor("operator"), campaign, fc.nat({ max: 2 })).map(([r, c, t]) => new SetThreshold(r, c, t));
const commit = fc
  .tuple(
    roleFor("operator"),
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
const settle = fc.tuple(anyRole, pick, fc.nat({ max: 10 })).map(([r, p, max]) => new Settle(r, p, max));
const recordWinners = fc.tuple(roleFor("operator"), pick).map(([r, p]) => new RecordWinners(r, p));
const payout = fc.tuple(anyRole, pick).map(([r, p]) => new Payout(r, p));
const payHeld = fc.tuple(roleFor("operator"), pick, fc.nat({ max: 2 }), pick).map(([r, p, mode, pos]) => new PayHeld(r, p, mode, pos));
const refuseHeld = fc
  .tuple(roleFor("operator"), pick, fc.nat({ max: 2 }), pick, fc.nat({ max: 5 }).map((n) => n === 0))
  .map(([r, p, mode, pos, none]) => new RefuseHeld(r, p, mode, pos, none));
const pickGuarantee = fc.tuple(roleFor("operator"), pick, fc.nat({ max: 2 }), pick).map(([r, c, mode, p]) => new PickGuarantee(r, c, mode, p));
const payGuarantee = fc.tuple(anyRole, pick, fc.nat({ max: 2 }), pick).map(([r, c, mode, p]) => new PayGuarantee(r, c, mode, p));
/** A move's destination: mostly the campaign's wallet, sometimes any test wallet (the campaign's or another). */
const moveTo = fc.option(fc.nat({ max: 3 }), { freq: 3, nil: null });
const moveGuaranteeWallet = fc.tuple(roleFor("admin"), pick, pick, moveTo).map(([r, c, p, to]) => new MoveGuaranteeWallet(r, c, p, to));
const moveDrawingWallet = fc.tuple(roleFor("admin"), pick, moveTo).map(([r, p, to]) => new MoveDrawingWallet(r, p, to));
const withdrawTokens = fc.tuple(roleFor("admin"), fc.boolean(), fc.integer({ min: 1, max: 10_000_000 })).map(([r, o, u]) => new WithdrawTokens(r, o, u));
const setDailyLimit = fc.tuple(roleFor("admin"), fc.nat({ max: DAILY_LIMITS.length - 1 })).map(([r, l]) => new SetDailyLimit(r, l));
const setCampaignLimit = fc
  .tuple(roleFor("admin"), campaign, fc.nat({ max: CAMPAIGN_LIMITS.length - 1 }))
  .map(([r, c, l]) => new SetCampaignLimit(r, c, l));
const setCallbackGasLimit = fc.tuple(roleFor("admin"), fc.nat({ max: CALLBACK_LIMITS.length - 1 })).map(([r, l]) => new SetCallbackGasLimit(r, l));
const pause = roleFor("guardian").map((r) => new Pause(r));
const unpause = roleFor("admin").map((r) => new Unpause(r));
const timeTravel = fc
  .oneof({ weight: 3, arbitrary: fc.integer({ min: 4, max: 14 }) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 30 }) })
  .map((h) => new TimeTravel(h));

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
  [2, moveGuaranteeWallet],
  [2, moveDrawingWallet],
  [1, withdrawTokens],
  [1, setDailyLimit],
  [1, setCampaignLimit],
  [1, setCallbackGasLimit],
  [1, pause],
  [1, unpause],
  [5, timeTravel],
];
const commands = weighted.flatMap(([n, arb]) => Array.from({ length: n }, () => arb));

// ------------------------------------------------------------------ the property

describe("PrizeDraw stateful properties (fast-check model-based commands)", function () {
  this.timeout(300_000);

  it(`keeps every invariant after every command by every role (${NUM_RUNS} runs of up to ${MAX_COMMANDS} commands)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: MAX_COMMANDS, size: "max" }), async (cmds) => {
        const r = await loadFixture(propertyFixture);
        blockTimes.clear();
        const m = new Model(r.startBlock);
        m.campaigns[0].wallet = r.wallets[0].address;
        Object.assign(m.campaigns[1], { registered: true, wallet: r.wallets[1].address, guaranteeCents: 2_500n });
        await learn(m, r);
        await checkInvariants(m, r);
        await fc.asyncModelRun(() => ({ model: m, real: r }), cmds);
        if (process.env.PROPERTY_STATS === "1") console.log(`run: ${m.commandCount} commands, ${m.drawingOrder.length} drawings`);
      }),
      // Shrinking replays commands on the chain: it is cut short after a few minutes, reporting the smallest
      // counterexample found by then.
      { numRuns: NUM_RUNS, endOnFailure: process.env.PROPERTY_SHRINK === "0", interruptAfterTimeLimit: 200_000, markInterruptAsFailure: true },
    );
    if (process.env.PROPERTY_STATS === "1") console.log(`max 24h sum / limit: ${MAXRATIO.v}`);
    if (process.env.PROPERTY_STATS === "1") console.log([...STATS].sort().map(([k, v]) => `${k}: ${v}`).join("\n"));
  });
});
