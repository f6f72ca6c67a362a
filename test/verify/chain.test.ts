// End to end against the real contract: anvil, PrizeDraw with the SDK's MockEntropy (the test environment's
// provider) and with TestEntropyV2 (a provider that behaves like Pyth's Entropy v2: hash-chain revelations, the
// random number keccak256(user, provider, 0)). The proofs (version 6: the contract mixes the request block's hash
// into Entropy's value) are built from the contract's own events and the chain's blocks, so the verifier is checked
// against the Solidity copy of the draw math, and --rpc against real receipts, blocks and logs, the Entropy
// contract's Requested and Revealed events included, and the contract's own discarding of a reveal that came too
// late. Skipped when the anvil binary or the compiled artifacts are missing.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  createPublicClient,
  createWalletClient,
  http,
  parseEventLogs,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import {
  DEFAULT_TABLE,
  REPO_ROOT,
  VERIFIER,
  batchUserRandomNumber,
  combine,
  computeResults,
  drawValue,
  drawingSlot,
  entrantsCommitment,
  fingerprint,
  idToBytes32,
  keccakHex,
  makeEntrants,
  selectEntrantsLinear,
  tableForProof,
  userRandomNumber,
  type Proof,
} from "./fixtures.js";
import { TempDir, closedPort, runVerifier, type JsonReport } from "./run.js";

const ARCH: Record<string, string> = { x64: "amd64", arm64: "arm64" };
const ANVIL = path.join(REPO_ROOT, `node_modules/@foundry-rs/anvil-${process.platform}-${ARCH[process.arch] ?? process.arch}/bin/anvil`);
const artifact = (file: string, name: string) => path.join(REPO_ROOT, "artifacts", file, `${name}.json`);
const ARTIFACTS = {
  prizeDraw: artifact("contracts/PrizeDraw.sol", "PrizeDraw"),
  manager: artifact("contracts/PrizeDrawManager.sol", "PrizeDrawManager"),
  mockEntropy: artifact("@pythnetwork/entropy-sdk-solidity/MockEntropy.sol", "MockEntropy"),
  testEntropy: artifact("contracts/test/TestEntropyV2.sol", "TestEntropyV2"),
  stablecoin: artifact("contracts/test/TestStablecoin.sol", "TestStablecoin"),
};
const available = existsSync(ANVIL) && Object.values(ARTIFACTS).every((f) => existsSync(f));
const load = (file: string) => JSON.parse(readFileSync(file, "utf8")) as { abi: Abi; bytecode: Hex };

// anvil's first two default accounts (public test keys); the roles must be held by distinct accounts.
const OPERATOR = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const PROVIDER_ACCOUNT = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const PROVIDER: Address = PROVIDER_ACCOUNT.address;
const PAYOUT_WALLET: Address = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const ADMIN: Address = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const GUARDIAN: Address = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
const FIRST_DRAW_AT = Date.parse("2026-11-25T20:00:00.000Z") / 1000;

type Deployed = { address: Address; abi: Abi };
type DrawSpec = { number: number; kind: 0 | 1; listCommitment: Hex; winnersExpected: number; entrantCount: number; totalWeight: number };

describe.skipIf(!available)("against the PrizeDraw contract on anvil", () => {
  let anvil: ChildProcess;
  let rpcUrl: string;
  let pub: PublicClient;
  let wallet: WalletClient;
  let token: Deployed;
  const tmp = new TempDir();
  const CAMPAIGN = "summer-daily";

  // Gas is set, not estimated: a reveal's callback must get its whole share.
  async function send(address: Address, abi: Abi, functionName: string, args: unknown[], opts: { value?: bigint; account?: typeof OPERATOR } = {}) {
    const hash = await wallet.writeContract({ address, abi, functionName, args, account: opts.account ?? OPERATOR, chain: foundry, gas: 15_000_000n, value: opts.value });
    const receipt = await pub.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    return receipt;
  }

  async function deploy(file: string, args: unknown[]): Promise<Deployed> {
    const { abi, bytecode } = load(file);
    const hash = await wallet.deployContract({ abi, bytecode, args, account: OPERATOR, chain: foundry });
    const receipt = await pub.waitForTransactionReceipt({ hash });
    return { address: receipt.contractAddress!, abi };
  }

  /**
   * A PrizeDraw drawing from `entropy` (its manager deployed and wired, its vault funded: every commit reserves its
   * worst case), with the default table published and the campaign registered; re-requests after `timeoutBlocks`.
   */
  async function deployPrizeDraw(entropy: Deployed, timeoutBlocks = 256n): Promise<Deployed> {
    const manager = await deploy(ARTIFACTS.manager, [ADMIN, OPERATOR.address, GUARDIAN, 86_400]);
    const prizeDraw = await deploy(ARTIFACTS.prizeDraw, [entropy.address, token.address, manager.address, 5_000_000, 1_000_000_000n, timeoutBlocks]);
    await send(manager.address, manager.abi, "wire", [prizeDraw.address]);
    const vault = (await pub.readContract({ address: prizeDraw.address, abi: prizeDraw.abi, functionName: "vault" })) as Address;
    await send(token.address, token.abi, "mint", [vault, 10n ** 18n]);
    const t = tableForProof(DEFAULT_TABLE);
    await send(prizeDraw.address, prizeDraw.abi, "publishPrizeTable", [idToBytes32(t.id), t.version, t.tiers.map((x) => BigInt(x.amountCents)), t.tiers.map((x) => BigInt(x.weight))]);
    // Campaign id, payout wallet, large-prize threshold; no guarantee (zeros for the guarantee terms, however many).
    const register = prizeDraw.abi.find((x) => x.type === "function" && x.name === "registerCampaign") as Extract<Abi[number], { type: "function" }>;
    const terms = register.inputs.slice(3).map(() => 0n);
    await send(prizeDraw.address, prizeDraw.abi, "registerCampaign", [idToBytes32(CAMPAIGN), PAYOUT_WALLET, 50_000n, ...terms]);
    return prizeDraw;
  }

  beforeAll(async () => {
    const port = await closedPort();
    rpcUrl = `http://127.0.0.1:${port}`;
    anvil = spawn(ANVIL, ["--port", String(port), "--host", "127.0.0.1", "--silent"], { stdio: "ignore" });
    pub = createPublicClient({ chain: foundry, transport: http(rpcUrl) });
    wallet = createWalletClient({ chain: foundry, transport: http(rpcUrl), account: OPERATOR });
    for (let i = 0; ; i++) {
      try {
        await pub.getChainId();
        break;
      } catch (error) {
        if (i > 100) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    token = await deploy(ARTIFACTS.stablecoin, []);
  }, 60_000);

  afterAll(() => {
    tmp.remove();
    if (anvil && anvil.exitCode === null) anvil.kill("SIGTERM");
  });

  const drawingId = (number: number) => `drw_${number}`;
  const drawAtOf = (number: number) => new Date((FIRST_DRAW_AT + 3600 * number) * 1000).toISOString();

  type Requested = { args: { number: bigint; sequence: bigint; provider: Address; userRandomNumber: Hex; batchIndex: bigint; batchSize: bigint } };

  /** Commits a batch of lists under one randomness request; returns the receipt and the request of each drawing. */
  async function commitBatch(prizeDraw: Deployed, specs: DrawSpec[]) {
    const t = tableForProof(DEFAULT_TABLE);
    const commits = specs.map((opts) => ({
      campaignId: idToBytes32(CAMPAIGN),
      number: BigInt(opts.number),
      slot: drawingSlot(drawingId(opts.number)),
      drawAt: FIRST_DRAW_AT + 3600 * opts.number,
      kind: opts.kind,
      listCommitment: opts.listCommitment,
      winnersExpected: opts.winnersExpected,
      entrantCount: opts.entrantCount,
      totalWeight: BigInt(opts.totalWeight),
      tableId: idToBytes32(t.id),
      tableVersion: t.version,
    }));
    const receipt = await send(prizeDraw.address, prizeDraw.abi, "commitAndRequest", [commits, 10n ** 18n], { value: 10n ** 15n });
    const requested = parseEventLogs({ abi: prizeDraw.abi, logs: receipt.logs, eventName: "EntropyRequested" }) as unknown as Requested[];
    return { receipt, requested: requested.map((r) => r.args) };
  }

  /** Commits a list alone (a batch of one) and requests the random value; returns the receipt and the request. */
  async function commit(prizeDraw: Deployed, opts: DrawSpec) {
    const { receipt, requested } = await commitBatch(prizeDraw, [opts]);
    return { receipt, ...requested[0]! };
  }

  /** The prizes the contract awarded, from its PrizeAwarded events. */
  async function prizesOf(prizeDraw: Deployed, number: number, fromBlock: bigint) {
    const awarded = (await pub.getContractEvents({
      address: prizeDraw.address,
      abi: prizeDraw.abi,
      eventName: "PrizeAwarded",
      args: { campaignId: idToBytes32(CAMPAIGN), number: BigInt(number) },
      fromBlock,
    })) as unknown as { args: { position: bigint; randomValue: Hex; roll: bigint; amountCents: bigint } }[];
    return awarded.map((e) => ({ position: Number(e.args.position), randomValue: e.args.randomValue, roll: Number(e.args.roll), amountCents: Number(e.args.amountCents) }));
  }

  type Draw = {
    /** Entropy's value. */
    value: Hex;
    sequence: bigint;
    providerContribution: Hex | null;
    /** The block that holds the revealed request, and the value the contract mixed from it (EntropyRevealed). */
    requestBlock: { number: number; hash: Hex };
    drawValue: Hex;
    chain: Proof["chain"];
    prizes: { position: number; randomValue: Hex; roll: number; amountCents: number }[];
  };

  type Revealed = { args: { number: bigint; entropyValue: Hex; requestBlockHash: Hex; randomValue: Hex } };

  /**
   * The request block of a reveal (`requestBlock`, the commit's or the re-request's) and the drawing value, after
   * checking the reveal's EntropyRevealed of drawing `number` against the chain: it names that block's hash, reports
   * Entropy's `value`, and its mixed value (the proof's `value`) is drawValue of the two.
   */
  async function drawValueOf(prizeDraw: Deployed, reveal: { logs: Parameters<typeof parseEventLogs>[0]["logs"] }, number: number, value: Hex, requestBlock: bigint) {
    const block = await pub.getBlock({ blockNumber: requestBlock });
    const revealed = (parseEventLogs({ abi: prizeDraw.abi, logs: reveal.logs, eventName: "EntropyRevealed" }) as unknown as Revealed[]).filter((e) => e.args.number === BigInt(number));
    expect(revealed).toHaveLength(1);
    const { entropyValue, requestBlockHash, randomValue } = revealed[0]!.args;
    expect([entropyValue, requestBlockHash, randomValue]).toEqual([value, block.hash, drawValue(value, block.hash!)]);
    return { requestBlock: { number: Number(requestBlock), hash: block.hash! }, drawValue: randomValue };
  }

  /**
   * The draw of committed request `c` once `reveal` (a transaction on `entropy`) revealed Entropy's `value`: its request
   * block and drawing value checked against the chain (drawValueOf), its transactions, and the prizes awarded.
   */
  async function revealedDraw(
    prizeDraw: Deployed,
    entropy: Deployed,
    number: number,
    c: Awaited<ReturnType<typeof commit>>,
    reveal: Awaited<ReturnType<typeof send>>,
    value: Hex,
    providerContribution: Hex | null,
  ): Promise<Draw> {
    return {
      value,
      sequence: c.sequence,
      providerContribution,
      ...(await drawValueOf(prizeDraw, reveal, number, value, c.receipt.blockNumber)),
      chain: {
        chainId: foundry.id,
        contract: prizeDraw.address.toLowerCase() as Hex,
        entropy: entropy.address.toLowerCase() as Hex,
        commitTx: c.receipt.transactionHash,
        revealTx: reveal.transactionHash,
      },
      prizes: await prizesOf(prizeDraw, number, reveal.blockNumber),
    };
  }

  /**
   * A version 6 proof of drawing `number` from the chain data: its request serves it alone unless `batch` gives this
   * drawing's index and every member's contribution (the request's user contribution is derived from them);
   * `listCommitment` is the committed list (default the winners' fingerprint).
   */
  function proofFrom(
    number: number,
    winners: string[],
    draw: Draw,
    opts: { provider?: string; batch?: { index: number; contributions: Hex[] }; listCommitment?: Hex } = {},
  ): Proof {
    const slot = drawingSlot(drawingId(number));
    const own = userRandomNumber(CAMPAIGN, number, slot, opts.listCommitment ?? fingerprint(winners));
    const { index, contributions } = opts.batch ?? { index: 0, contributions: [own] };
    return {
      proofVersion: 6,
      campaign: { id: CAMPAIGN, slug: CAMPAIGN, name: "Summer Daily" },
      drawing: { id: drawingId(number), number, drawAt: drawAtOf(number), slot },
      winnerList: { winners, commitment: fingerprint(winners), lockedAt: "2026-11-25T19:30:00.000Z" },
      entropy: {
        provider: opts.provider ?? "mock",
        requestId: String(draw.sequence),
        batch: { index, size: contributions.length, contributions },
        userContribution: batchUserRandomNumber(contributions),
        providerContribution: draw.providerContribution,
        revealedValue: draw.value,
        requestBlock: draw.requestBlock,
        value: draw.drawValue,
        revealedAt: "2026-11-25T19:31:00.000Z",
        reRequest: null,
      },
      prizeTable: tableForProof(DEFAULT_TABLE),
      // Straight from the contract's events.
      results: draw.prizes.map((p) => ({ ...p, winner: winners[p.position]!, displayName: null })),
      entrants: null,
      chain: draw.chain,
    };
  }

  /** Mines `blocks` blocks on anvil. */
  async function mine(blocks: number) {
    await fetch(rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_mine", params: [`0x${blocks.toString(16)}`] }) });
  }

  it("the verifier's event signatures are the contracts'", () => {
    const signatures = (file: string) =>
      load(file)
        .abi.filter((x): x is Extract<Abi[number], { type: "event" }> => x.type === "event")
        .map((e) => `${e.name}(${e.inputs.map((i) => i.type).join(",")})`);
    const source = readFileSync(VERIFIER, "utf8");
    const inVerifier = (name: string) => new RegExp(`"(${name}\\([^)]*\\))"`).exec(source)?.[1];
    const prizeDraw = signatures(ARTIFACTS.prizeDraw);
    for (const name of ["DrawingCommitted", "EntropyRequested", "EntropyReRequested", "EntropyRevealed", "EntropyRevealTooLate", "WinnersRecorded", "PrizeAwarded"]) {
      expect(prizeDraw, name).toContain(inVerifier(name));
    }
    for (const file of [ARTIFACTS.mockEntropy, ARTIFACTS.testEntropy]) {
      for (const name of ["Requested", "Revealed"]) expect(signatures(file), `${name} of ${file}`).toContain(inVerifier(name));
    }
  });

  describe("MockEntropy (the test environment)", () => {
    let prizeDraw: Deployed;
    let mock: Deployed;

    beforeAll(async () => {
      mock = await deploy(ARTIFACTS.mockEntropy, [PROVIDER]);
      prizeDraw = await deployPrizeDraw(mock);
    }, 60_000);

    /** Commits a list, requests and reveals the random value; returns the chain data and the contract's prizes. */
    async function runDraw(opts: DrawSpec): Promise<Draw> {
      const c = await commit(prizeDraw, opts);
      expect(c.userRandomNumber).toBe(userRandomNumber(CAMPAIGN, opts.number, drawingSlot(drawingId(opts.number)), opts.listCommitment));
      const value = keccakHex(`random value of draw ${opts.number}`);
      const reveal = await send(mock.address, mock.abi, "mockReveal", [c.provider, c.sequence, value]);
      return revealedDraw(prizeDraw, mock, opts.number, c, reveal, value, null);
    }

    it("winners draw: the contract's prizes verify offline and with --rpc (version 6)", async () => {
      const winners = Array.from({ length: 25 }, (_, i) => `winner-${i}-${keccakHex(String(i)).slice(2, 12)}`);
      const draw = await runDraw({ number: 1, kind: 0, listCommitment: fingerprint(winners), winnersExpected: winners.length, entrantCount: 0, totalWeight: 0 });
      expect(draw.prizes).toHaveLength(25);
      // The independent generator agrees with the contract too, from the drawing value.
      expect(computeResults(draw.drawValue, CAMPAIGN, 1, DEFAULT_TABLE, winners).map((r) => [r.randomValue, r.roll, r.amountCents])).toEqual(
        draw.prizes.map((p) => [p.randomValue, p.roll, p.amountCents]),
      );
      const file = tmp.write(proofFrom(1, winners, draw));

      const offline = await runVerifier([file]);
      expect(offline.code, offline.output).toBe(0);

      const online = await runVerifier([file, "--rpc", rpcUrl]);
      expect(online.code, online.output).toBe(0);
      for (const line of [
        /^✔ the list was committed under the drawing's slot 0x[0-9a-f]{8}…[0-9a-f]{6} and draw time 2026-11-25T21:00:00\.000Z$/m,
        /^✔ random value requested after the list was committed, in the same transaction/m,
        /^✔ the request's user contribution is the one derived from the batch and entropy\.userContribution/m,
        /^✔ the contract requests its random values from the Entropy contract 0x[0-9a-f]{40}, chain\.entropy$/m,
        /^✔ Entropy 0x[0-9a-f]{8}…[0-9a-f]{6} recorded request \d+ of provider 0x[0-9a-f]{40} with the user contribution derived from the batch$/m,
        /^✔ Entropy 0x[0-9a-f]{8}…[0-9a-f]{6} revealed entropy\.revealedValue for request \d+/m,
        /^✔ the contract's 25 PrizeAwarded events match the results/m,
        /^✔ prize table default v1 equals the one published onchain$/m,
        /^✔ the contract mixed entropy\.revealedValue with the request block's hash 0x[0-9a-f]{8}…[0-9a-f]{6} into entropy\.value 0x[0-9a-f]{8}…[0-9a-f]{6} \(EntropyRevealed\)$/m,
        new RegExp(`^✔ entropy\\.requestBlock is block ${draw.requestBlock.number} of chain 31337 \\(hash 0x[0-9a-f]{8}…[0-9a-f]{6}\\), which holds the commit transaction 0x[0-9a-f]{8}…[0-9a-f]{6}$`, "m"),
        /^✔ the reveal \(block \d+\) came 1 block after the request block \d+, within the 256 whose hash the contract can read$/m,
        /^ℹ test randomness \(mock provider\)/m,
      ]) {
        expect(online.stdout).toMatch(line);
      }

      // A version 5 proof of the same draw (prizes from Entropy's value alone) is self-consistent, but the contract
      // mixed the block hash in: its reveal and its prizes say so.
      const v5 = proofFrom(1, winners, draw);
      v5.proofVersion = 5;
      v5.entropy.value = draw.value;
      delete v5.entropy.revealedValue;
      delete v5.entropy.requestBlock;
      v5.results = computeResults(draw.value, CAMPAIGN, 1, DEFAULT_TABLE, winners);
      const v5File = tmp.write(v5);
      expect((await runVerifier([v5File])).code).toBe(0);
      const v5Run = await runVerifier([v5File, "--rpc", rpcUrl]);
      expect(v5Run.code, v5Run.output).toBe(1);
      expect(v5Run.stdout).toMatch(
        /^✘ no EntropyRevealed event of this drawing in the reveal transaction 0x[0-9a-f]{64}: it holds the EntropyRevealed of a contract that mixes the request block's hash in, whose prizes follow the mixed value \(a version 6 proof\)$/m,
      );
      expect(v5Run.stdout).toMatch(/^✘ the contract's PrizeAwarded events differ from the results/m);

      // A version 6 proof whose results skipped the block hash says so offline.
      const skipped = proofFrom(1, winners, draw);
      skipped.results = computeResults(draw.value, CAMPAIGN, 1, DEFAULT_TABLE, winners);
      const skippedRun = await runVerifier([tmp.write(skipped)]);
      expect(skippedRun.code, skippedRun.output).toBe(1);
      expect(skippedRun.stdout).toMatch(/^ {4}- these follow from entropy\.revealedValue instead of entropy\.value/m);
    });

    it("entries draw: selection, recorded winners and prizes verify with --rpc", async () => {
      const entrants = makeEntrants(150, "anvil-entries", 20);
      const weights = entrants.map((e) => e.weight);
      const hashes = entrants.map((e) => keccakHex(e.id));
      const totalWeight = weights.reduce((a, b) => a + b, 0);
      const commitment = entrantsCommitment(hashes, weights);
      const draw = await runDraw({ number: 2, kind: 1, listCommitment: commitment, winnersExpected: 12, entrantCount: entrants.length, totalWeight });
      const winners = selectEntrantsLinear(draw.drawValue, CAMPAIGN, 2, weights, 12).map((i) => entrants[i]!.id);
      await send(prizeDraw.address, prizeDraw.abi, "recordWinners", [idToBytes32(CAMPAIGN), 2n, fingerprint(winners)]);
      const proof = proofFrom(2, winners, draw, { listCommitment: commitment });
      proof.entrants = { count: entrants.length, totalWeight, commitment, selection: "sequential-weighted-v1", list: hashes.map((hash, i) => ({ hash, weight: weights[i]! })) };
      const run = await runVerifier([tmp.write(proof), "--rpc", rpcUrl, "--entrant", winners[3]!]);
      expect(run.code, run.output).toBe(0);
      expect(run.stdout).toMatch(/^✔ onchain: 150 entrants, total weight \d+, 12 winners expected; the proof agrees$/m);
      expect(run.stdout).toMatch(/^✔ winnerList\.commitment was recorded onchain \(WinnersRecorded, block \d+\)$/m);
      expect(run.stdout).toMatch(/^✔ "[^"]+" won: winner position 3, prize \$/m);
    });

    it("a self-consistent proof with another random value passes offline but fails with --rpc", async () => {
      const winners = ["a-1", "a-2", "a-3"];
      const draw = await runDraw({ number: 3, kind: 0, listCommitment: fingerprint(winners), winnersExpected: 3, entrantCount: 0, totalWeight: 0 });
      const forged = proofFrom(3, winners, draw);
      forged.entropy.revealedValue = keccakHex("a value the service liked better");
      forged.entropy.value = drawValue(forged.entropy.revealedValue, draw.requestBlock.hash);
      forged.results = computeResults(forged.entropy.value, CAMPAIGN, 3, DEFAULT_TABLE, winners);
      const file = tmp.write(forged);

      const offline = await runVerifier([file]);
      expect(offline.code, offline.output).toBe(0);

      const online = await runVerifier([file, "--rpc", rpcUrl]);
      expect(online.code, online.output).toBe(1);
      expect(online.stdout).toMatch(/^✘ onchain random value 0x[0-9a-f]{64}, entropy\.revealedValue 0x[0-9a-f]{64}$/m);
      expect(online.stdout).toMatch(/^✘ onchain the value the prizes follow is 0x[0-9a-f]{64}, entropy\.value is 0x[0-9a-f]{64}$/m);
      expect(online.stdout).toMatch(/Entropy revealed 0x[0-9a-f]{64}, entropy\.revealedValue is 0x[0-9a-f]{64}/);
    });

    it("a proof pointing at another drawing's transactions fails with --rpc", async () => {
      const winners = ["b-1", "b-2"];
      const draw = await runDraw({ number: 4, kind: 0, listCommitment: fingerprint(winners), winnersExpected: 2, entrantCount: 0, totalWeight: 0 });
      const proof = proofFrom(4, winners, draw);
      proof.drawing.number = 3; // transactions of drawing 4, claimed as drawing 3
      proof.results = computeResults(draw.drawValue, CAMPAIGN, 3, DEFAULT_TABLE, winners);
      const run = await runVerifier([tmp.write(proof), "--rpc", rpcUrl]);
      expect(run.code, run.output).toBe(1);
      expect(run.stdout).toMatch(/no DrawingCommitted event of summer-daily #3/);
    });

    it("a self-consistent proof naming another block than the commit's passes offline but fails with --rpc", async () => {
      const winners = ["h-1", "h-2", "h-3"];
      const draw = await runDraw({ number: 5, kind: 0, listCommitment: fingerprint(winners), winnersExpected: 3, entrantCount: 0, totalWeight: 0 });
      // The block after the commit's (the reveal's): a real block with a real hash, not the one the contract used.
      const next = draw.requestBlock.number + 1;
      const forged = proofFrom(5, winners, draw);
      forged.entropy.requestBlock = { number: next, hash: (await pub.getBlock({ blockNumber: BigInt(next) })).hash! };
      forged.entropy.value = drawValue(draw.value, forged.entropy.requestBlock.hash);
      forged.results = computeResults(forged.entropy.value, CAMPAIGN, 5, DEFAULT_TABLE, winners);
      const file = tmp.write(forged);
      expect((await runVerifier([file])).code).toBe(0);

      const online = await runVerifier([file, "--rpc", rpcUrl, "--json"]);
      expect(online.code, online.output).toBe(1);
      const report = JSON.parse(online.stdout) as JsonReport;
      const failed = report.checks.filter((c) => c.status === "fail");
      expect(failed.map((c) => c.id)).toEqual(["rpc.reveal.value", "rpc.requestBlock", "rpc.requestBlock.window", "rpc.prizes"]);
      expect(failed[0]!.message).toMatch(/^onchain the reveal mixed in the request block hash 0x[0-9a-f]{64}, entropy\.requestBlock\.hash is 0x[0-9a-f]{64}$/);
      expect(failed[1]!.message).toBe(`the commit transaction ${forged.chain.commitTx.slice(0, 10)}…${forged.chain.commitTx.slice(-6)} was mined in block ${draw.requestBlock.number}, entropy.requestBlock.number is ${next}`);
      expect(failed[2]!.message).toBe(`the reveal (block ${next}) is not after the request block ${next}`);
    });
  });

  describe.skipIf(!existsSync(ARTIFACTS.testEntropy))("TestEntropyV2 (a provider that behaves like Pyth's)", () => {
    let prizeDraw: Deployed;
    let entropy: Deployed;
    // The provider's hash chain: x[i] = keccak256(x[i + 1]); x[0] is registered, request i reveals x[i].
    const CHAIN_LENGTH = 20;
    const revelations: Hex[] = [];

    beforeAll(async () => {
      entropy = await deploy(ARTIFACTS.testEntropy, [PROVIDER, 0n]);
      revelations[CHAIN_LENGTH - 1] = keccakHex("provider secret");
      for (let i = CHAIN_LENGTH - 2; i >= 0; i--) revelations[i] = keccakHex(Buffer.from(revelations[i + 1]!.slice(2), "hex"));
      await send(entropy.address, entropy.abi, "register", [1000n, revelations[0], BigInt(CHAIN_LENGTH), 0], { account: PROVIDER_ACCOUNT });
      prizeDraw = await deployPrizeDraw(entropy);
    }, 60_000);

    async function runDraw(opts: DrawSpec): Promise<Draw> {
      const c = await commit(prizeDraw, opts);
      const providerContribution = revelations[Number(c.sequence)]!;
      const reveal = await send(entropy.address, entropy.abi, "revealWithCallback", [c.provider, c.sequence, c.userRandomNumber, providerContribution]);
      const value = combine(c.userRandomNumber, providerContribution);
      return revealedDraw(prizeDraw, entropy, opts.number, c, reveal, value, providerContribution);
    }

    it("the origin of the random value verifies offline and with --rpc", async () => {
      const winners = Array.from({ length: 6 }, (_, i) => `real-${i}`);
      const draw = await runDraw({ number: 1, kind: 0, listCommitment: fingerprint(winners), winnersExpected: 6, entrantCount: 0, totalWeight: 0 });
      expect(draw.prizes.map((p) => p.randomValue)).toEqual(computeResults(draw.drawValue, CAMPAIGN, 1, DEFAULT_TABLE, winners).map((r) => r.randomValue));
      const file = tmp.write(proofFrom(1, winners, draw, { provider: PROVIDER.toLowerCase() }));

      const offline = await runVerifier([file]);
      expect(offline.code, offline.output).toBe(0);
      expect(offline.stdout).toMatch(/^✔ entropy\.revealedValue = keccak256\(userContribution, providerContribution, 0\)/m);

      const online = await runVerifier([file, "--rpc", rpcUrl]);
      expect(online.code, online.output).toBe(0);
      expect(online.stdout).toMatch(
        new RegExp(`^✔ the random value is keccak256 of the batch's contribution and provider ${PROVIDER.toLowerCase()}'s revelation 0x[0-9a-f]{8}…[0-9a-f]{6}, as Entropy revealed them$`, "m"),
      );
      expect(online.stdout).toMatch(/^PASS: \d+ checks passed, 1 informational$/m);
    });

    it("a proof with another provider contribution fails offline and with --rpc", async () => {
      const winners = ["real-x", "real-y"];
      const draw = await runDraw({ number: 2, kind: 0, listCommitment: fingerprint(winners), winnersExpected: 2, entrantCount: 0, totalWeight: 0 });
      const proof = proofFrom(2, winners, draw, { provider: PROVIDER.toLowerCase() });
      proof.entropy.providerContribution = keccakHex("not the revelation");
      const file = tmp.write(proof);
      const offline = await runVerifier([file]);
      expect(offline.code, offline.output).toBe(1);
      expect(offline.stdout).toMatch(/^✘ keccak256\(userContribution, providerContribution, 0\) is 0x[0-9a-f]{64}, entropy\.revealedValue is 0x[0-9a-f]{64}$/m);
      const online = await runVerifier([file, "--rpc", rpcUrl]);
      expect(online.code, online.output).toBe(1);
      expect(online.stdout).toMatch(/the Revealed provider contribution is 0x[0-9a-f]{64}, entropy\.providerContribution 0x[0-9a-f]{64}/);
    });

    it("a batch of two drawings under one request: each member's proof verifies offline and with --rpc", async () => {
      const lists = [
        ["batch-a1", "batch-a2"],
        ["batch-b1", "batch-b2", "batch-b3"],
      ];
      const specs: DrawSpec[] = [3, 4].map((number, i) => ({ number, kind: 0, listCommitment: fingerprint(lists[i]!), winnersExpected: lists[i]!.length, entrantCount: 0, totalWeight: 0 }));
      const { receipt, requested } = await commitBatch(prizeDraw, specs);
      const contributions = specs.map((d) => userRandomNumber(CAMPAIGN, d.number, drawingSlot(drawingId(d.number)), d.listCommitment));
      expect(requested.map((r) => [Number(r.number), r.batchIndex, r.batchSize, r.userRandomNumber])).toEqual([
        [3, 0n, 2n, batchUserRandomNumber(contributions)],
        [4, 1n, 2n, batchUserRandomNumber(contributions)],
      ]);
      const { sequence, provider, userRandomNumber: user } = requested[0]!;
      expect(requested[1]!.sequence).toBe(sequence);
      const providerContribution = revelations[Number(sequence)]!;
      const reveal = await send(entropy.address, entropy.abi, "revealWithCallback", [provider, sequence, user, providerContribution]);
      const value = combine(user, providerContribution);
      const chain = {
        chainId: foundry.id,
        contract: prizeDraw.address.toLowerCase() as Hex,
        entropy: entropy.address.toLowerCase() as Hex,
        commitTx: receipt.transactionHash,
        revealTx: reveal.transactionHash,
      };
      const mixed = await drawValueOf(prizeDraw, reveal, 3, value, receipt.blockNumber);
      expect((await drawValueOf(prizeDraw, reveal, 4, value, receipt.blockNumber)).drawValue).toBe(mixed.drawValue);
      for (const [index, d] of specs.entries()) {
        const draw: Draw = { value, sequence, providerContribution, ...mixed, chain, prizes: await prizesOf(prizeDraw, d.number, reveal.blockNumber) };
        expect(draw.prizes).toHaveLength(lists[index]!.length);
        const proof = proofFrom(d.number, lists[index]!, draw, { provider: PROVIDER.toLowerCase(), batch: { index, contributions } });
        const file = tmp.write(proof);
        const offline = await runVerifier([file]);
        expect(offline.code, offline.output).toBe(0);
        expect(offline.stdout).toMatch(new RegExp(`^✔ this drawing's contribution .* is member ${index} of the request's batch of 2$`, "m"));
        const online = await runVerifier([file, "--rpc", rpcUrl]);
        expect(online.code, online.output).toBe(0);
        expect(online.stdout).toMatch(new RegExp(`^✔ request ${sequence} served 2 drawings committed in the same transaction; this drawing is member ${index}, and every member's contribution is the proof's$`, "m"));
        expect(online.stdout).toMatch(/^✔ the random value is keccak256 of the batch's contribution and provider/m);

        // Claiming the other place of the batch fails offline and with --rpc.
        const moved = proofFrom(d.number, lists[index]!, draw, { provider: PROVIDER.toLowerCase(), batch: { index: 1 - index, contributions } });
        const movedRun = await runVerifier([tmp.write(moved), "--rpc", rpcUrl]);
        expect(movedRun.code, movedRun.output).toBe(1);
        expect(movedRun.stdout).toMatch(new RegExp(`this drawing's contribution is at ${index}\\)$`, "m"));
        expect(movedRun.stdout).toMatch(new RegExp(`onchain this drawing is member ${index} of its request's batch, entropy\\.batch\\.index is ${1 - index}`));
      }
      // A proof claiming a batch of one cannot describe a batch member: its own contribution is not the request's.
      const alone = proofFrom(3, lists[0]!, { value, sequence, providerContribution, ...mixed, chain, prizes: await prizesOf(prizeDraw, 3, reveal.blockNumber) }, { provider: PROVIDER.toLowerCase() });
      const aloneRun = await runVerifier([tmp.write(alone), "--rpc", rpcUrl]);
      expect(aloneRun.code, aloneRun.output).toBe(1);
      expect(aloneRun.stdout).toMatch(/^✘ keccak256\(userContribution, providerContribution, 0\) is 0x[0-9a-f]{64}, entropy\.revealedValue is 0x[0-9a-f]{64}$/m);
    });


    it("a re-requested batch: each member's proof verifies offline and with --rpc, the re-request's block mixed in", async () => {
      const lists = [["re-a1", "re-a2"], ["re-b1", "re-b2", "re-b3"]];
      const specs: DrawSpec[] = [5, 6].map((number, i) => ({ number, kind: 0, listCommitment: fingerprint(lists[i]!), winnersExpected: lists[i]!.length, entrantCount: 0, totalWeight: 0 }));
      const { receipt, requested } = await commitBatch(prizeDraw, specs);
      const contributions = specs.map((d) => userRandomNumber(CAMPAIGN, d.number, drawingSlot(drawingId(d.number)), d.listCommitment));
      const { sequence: previous, provider } = requested[0]!;
      await mine(0x101);
      const re = await send(prizeDraw.address, prizeDraw.abi, "reRequest", [idToBytes32(CAMPAIGN), 6n, 10n ** 18n], { value: 10n ** 15n });
      const events = parseEventLogs({ abi: prizeDraw.abi, logs: re.logs, eventName: "EntropyReRequested" }) as unknown as { args: { sequence: bigint; userRandomNumber: Hex } }[];
      expect(events).toHaveLength(2);
      const { sequence, userRandomNumber: user } = events[0]!.args;
      const providerContribution = revelations[Number(sequence)]!;
      const reveal = await send(entropy.address, entropy.abi, "revealWithCallback", [provider, sequence, user, providerContribution]);
      const value = combine(user, providerContribution);
      const chain = { chainId: foundry.id, contract: prizeDraw.address.toLowerCase() as Hex, entropy: entropy.address.toLowerCase() as Hex, commitTx: receipt.transactionHash, revealTx: reveal.transactionHash };
      const mixed = await drawValueOf(prizeDraw, reveal, 5, value, re.blockNumber);
      for (const [index, d] of specs.entries()) {
        const draw: Draw = { value, sequence, providerContribution, ...mixed, chain, prizes: await prizesOf(prizeDraw, d.number, reveal.blockNumber) };
        expect(draw.prizes).toHaveLength(lists[index]!.length);
        const proof = proofFrom(d.number, lists[index]!, draw, { provider: PROVIDER.toLowerCase(), batch: { index, contributions } });
        proof.entropy.userContribution = user;
        proof.entropy.reRequest = {
          previousProvider: provider.toLowerCase() as Hex,
          previousRequestId: String(previous),
          previousUserContribution: batchUserRandomNumber(contributions),
          timeoutBlocks: 256,
          requestTx: re.transactionHash,
          requestedAt: "2026-11-26T19:31:00.000Z",
        };
        const file = tmp.write(proof);
        const offline = await runVerifier([file]);
        expect(offline.code, offline.output).toBe(0);
        const online = await runVerifier([file, "--rpc", rpcUrl]);
        expect(online.code, online.output).toBe(0);
        expect(online.stdout).toMatch(new RegExp(`^✔ entropy\\.requestBlock is block ${re.blockNumber} of chain 31337 \\(hash 0x[0-9a-f]{8}…[0-9a-f]{6}\\), which holds the re-request transaction`, "m"));
      }
    });

    it("a reveal more than 256 blocks after its request is discarded; the re-request, at once, verifies with --rpc", async () => {
      // A deployment whose timeout (1,000 blocks) is longer than the blocks whose hash the contract can read.
      const slow = await deployPrizeDraw(entropy, 1_000n);
      const winners = ["late-1", "late-2"];
      const spec: DrawSpec = { number: 1, kind: 0, listCommitment: fingerprint(winners), winnersExpected: 2, entrantCount: 0, totalWeight: 0 };
      const c = await commit(slow, spec);
      await mine(300);
      const late = await send(entropy.address, entropy.abi, "revealWithCallback", [c.provider, c.sequence, c.userRandomNumber, revelations[Number(c.sequence)]!]);
      const discarded = parseEventLogs({ abi: slow.abi, logs: late.logs, eventName: "EntropyRevealTooLate" }) as unknown as { args: { requestBlock: bigint } }[];
      expect(discarded.map((e) => e.args.requestBlock)).toEqual([c.receipt.blockNumber]);
      expect(parseEventLogs({ abi: slow.abi, logs: late.logs, eventName: "EntropyRevealed" })).toHaveLength(0);

      const re = await send(slow.address, slow.abi, "reRequest", [idToBytes32(CAMPAIGN), 1n, 10n ** 18n], { value: 10n ** 15n });
      expect(re.blockNumber).toBeLessThan(c.receipt.blockNumber + 1_000n);
      const reArgs = (parseEventLogs({ abi: slow.abi, logs: re.logs, eventName: "EntropyReRequested" }) as unknown as { args: { sequence: bigint; userRandomNumber: Hex } }[])[0]!.args;
      const providerContribution = revelations[Number(reArgs.sequence)]!;
      const reveal = await send(entropy.address, entropy.abi, "revealWithCallback", [c.provider, reArgs.sequence, reArgs.userRandomNumber, providerContribution]);
      const value = combine(reArgs.userRandomNumber, providerContribution);
      const draw: Draw = {
        value,
        sequence: reArgs.sequence,
        providerContribution,
        ...(await drawValueOf(slow, reveal, 1, value, re.blockNumber)),
        chain: { chainId: foundry.id, contract: slow.address.toLowerCase() as Hex, entropy: entropy.address.toLowerCase() as Hex, commitTx: c.receipt.transactionHash, revealTx: reveal.transactionHash },
        prizes: await prizesOf(slow, 1, reveal.blockNumber),
      };
      const proof = proofFrom(1, winners, draw, { provider: PROVIDER.toLowerCase() });
      proof.entropy.userContribution = reArgs.userRandomNumber;
      proof.entropy.reRequest = {
        previousProvider: c.provider.toLowerCase() as Hex,
        previousRequestId: String(c.sequence),
        previousUserContribution: c.userRandomNumber,
        timeoutBlocks: 1_000,
        requestTx: re.transactionHash,
        requestedAt: "2026-11-26T19:31:00.000Z",
      };
      const file = tmp.write(proof);
      const offline = await runVerifier([file]);
      expect(offline.code, offline.output).toBe(0);
      expect(offline.stdout).toMatch(/was not revealed within 1,000 blocks, or its reveal came more than 256 blocks after it and was discarded; request \d+ replaced it$/m);
      const online = await runVerifier([file, "--rpc", rpcUrl]);
      expect(online.code, online.output).toBe(0);
      expect(online.stdout).toMatch(
        new RegExp(`^ℹ the reveal of request ${c.sequence} of provider ${c.provider.toLowerCase()} came in block ${late.blockNumber}, ${late.blockNumber - c.receipt.blockNumber} blocks after its request \\(block ${c.receipt.blockNumber}\\), too late to read that block's hash: the contract discarded its value 0x[0-9a-f]{8}…[0-9a-f]{6} unused \\(EntropyRevealTooLate\\), and the re-request followed$`, "m"),
      );
      expect(online.stdout).toMatch(/^✔ the contract's revealTimeoutBlocks\(\) is 1,000, entropy\.reRequest\.timeoutBlocks; the re-request \(block \d+\) came before the commit's block \d+ \+ 1000 = \d+, which the contract allows once it discarded the previous request's reveal as too late \(block \d+\)$/m);
    });
  });
});
