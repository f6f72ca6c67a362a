// End to end against the real contract: anvil, PrizeDraw with the SDK's MockEntropy (the test environment's
// provider) and with TestEntropyV2 (a provider that behaves like Pyth's Entropy v2: hash-chain revelations, the
// random number keccak256(user, provider, 0)). The proofs are built from the contract's own events, so the
// verifier is checked against the Solidity copy of the draw math, and --rpc against real receipts and logs,
// the Entropy contract's Requested and Revealed events included.
// Skipped when the anvil binary or the compiled artifacts are missing.

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
import { TempDir, closedPort, runVerifier } from "./run.js";

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
   * worst case), with the default table published and the campaign registered.
   */
  async function deployPrizeDraw(entropy: Deployed): Promise<Deployed> {
    const manager = await deploy(ARTIFACTS.manager, [ADMIN, OPERATOR.address, GUARDIAN, 86_400]);
    const prizeDraw = await deploy(ARTIFACTS.prizeDraw, [entropy.address, token.address, manager.address, 5_000_000, 1_000_000_000n, 256n]);
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
    value: Hex;
    sequence: bigint;
    providerContribution: Hex | null;
    chain: Proof["chain"];
    prizes: { position: number; randomValue: Hex; roll: number; amountCents: number }[];
  };

  /**
   * A version 3 proof of drawing `number` from the chain data (version 2: `version: 2`; version 4: `batch`, this
   * drawing's index and every member's contribution, with the request's user contribution derived from them).
   */
  function proofFrom(
    number: number,
    winners: string[],
    draw: Draw,
    opts: { provider?: string; version?: 2 | 3; batch?: { index: number; contributions: Hex[] } } = {},
  ): Proof {
    const version = opts.version ?? 3;
    const slot = drawingSlot(drawingId(number));
    const proof: Proof = {
      proofVersion: version,
      campaign: { id: CAMPAIGN, slug: CAMPAIGN, name: "Summer Daily" },
      drawing: { id: drawingId(number), number, drawAt: drawAtOf(number), slot },
      winnerList: { winners, commitment: fingerprint(winners), lockedAt: "2026-11-25T19:30:00.000Z" },
      entropy: {
        provider: opts.provider ?? "mock",
        requestId: String(draw.sequence),
        userContribution: userRandomNumber(CAMPAIGN, number, slot, fingerprint(winners)),
        providerContribution: draw.providerContribution,
        value: draw.value,
        revealedAt: "2026-11-25T19:31:00.000Z",
      },
      prizeTable: tableForProof(DEFAULT_TABLE),
      // Straight from the contract's events.
      results: draw.prizes.map((p) => ({ ...p, winner: winners[p.position]!, displayName: null })),
      entrants: null,
      chain: draw.chain,
    };
    if (opts.batch !== undefined) {
      const { index, contributions } = opts.batch;
      const e = proof.entropy;
      proof.proofVersion = 4;
      proof.entropy = {
        provider: e.provider,
        requestId: e.requestId,
        batch: { index, size: contributions.length, contributions },
        userContribution: batchUserRandomNumber(contributions),
        providerContribution: e.providerContribution,
        value: e.value,
        revealedAt: e.revealedAt,
      };
    }
    if (version === 2) {
      delete proof.drawing.slot;
      delete proof.entropy.userContribution;
      delete proof.entropy.providerContribution;
      delete proof.chain.entropy;
    }
    return proof;
  }

  it("the verifier's event signatures are the contracts'", () => {
    const signatures = (file: string) =>
      load(file)
        .abi.filter((x): x is Extract<Abi[number], { type: "event" }> => x.type === "event")
        .map((e) => `${e.name}(${e.inputs.map((i) => i.type).join(",")})`);
    const source = readFileSync(VERIFIER, "utf8");
    const inVerifier = (name: string) => new RegExp(`"(${name}\\([^)]*\\))"`).exec(source)?.[1];
    const prizeDraw = signatures(ARTIFACTS.prizeDraw);
    for (const name of ["DrawingCommitted", "EntropyRequested", "EntropyReRequested", "EntropyRevealed", "WinnersRecorded", "PrizeAwarded"]) {
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
      return {
        value,
        sequence: c.sequence,
        providerContribution: null,
        chain: {
          chainId: foundry.id,
          contract: prizeDraw.address.toLowerCase() as Hex,
          entropy: mock.address.toLowerCase() as Hex,
          commitTx: c.receipt.transactionHash,
          revealTx: reveal.transactionHash,
        },
        prizes: await prizesOf(prizeDraw, opts.number, reveal.blockNumber),
      };
    }

    it("winners draw: the contract's prizes verify offline and with --rpc (version 3 and version 2)", async () => {
      const winners = Array.from({ length: 25 }, (_, i) => `winner-${i}-${keccakHex(String(i)).slice(2, 12)}`);
      const draw = await runDraw({ number: 1, kind: 0, listCommitment: fingerprint(winners), winnersExpected: winners.length, entrantCount: 0, totalWeight: 0 });
      expect(draw.prizes).toHaveLength(25);
      // The independent generator agrees with the contract too.
      expect(computeResults(draw.value, CAMPAIGN, 1, DEFAULT_TABLE, winners).map((r) => [r.randomValue, r.roll, r.amountCents])).toEqual(
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
        /^✔ the request's user contribution is the one derived from the commit and entropy\.userContribution/m,
        /^✔ the contract requests its random values from the Entropy contract 0x[0-9a-f]{40}, chain\.entropy$/m,
        /^✔ Entropy 0x[0-9a-f]{8}…[0-9a-f]{6} recorded request \d+ of provider 0x[0-9a-f]{40} with the user contribution derived from the commit$/m,
        /^✔ Entropy 0x[0-9a-f]{8}…[0-9a-f]{6} revealed entropy\.value for request \d+/m,
        /^✔ the contract's 25 PrizeAwarded events match the results/m,
        /^✔ prize table default v1 equals the one published onchain$/m,
        /^ℹ test randomness \(mock provider\)/m,
      ]) {
        expect(online.stdout).toMatch(line);
      }

      // A version 2 proof of the same draw still verifies against the current contract.
      const v2 = await runVerifier([tmp.write(proofFrom(1, winners, draw, { version: 2 })), "--rpc", rpcUrl]);
      expect(v2.code, v2.output).toBe(0);
    });

    it("entries draw: selection, recorded winners and prizes verify with --rpc", async () => {
      const entrants = makeEntrants(150, "anvil-entries", 20);
      const weights = entrants.map((e) => e.weight);
      const hashes = entrants.map((e) => keccakHex(e.id));
      const totalWeight = weights.reduce((a, b) => a + b, 0);
      const commitment = entrantsCommitment(hashes, weights);
      const draw = await runDraw({ number: 2, kind: 1, listCommitment: commitment, winnersExpected: 12, entrantCount: entrants.length, totalWeight });
      const winners = selectEntrantsLinear(draw.value, CAMPAIGN, 2, weights, 12).map((i) => entrants[i]!.id);
      await send(prizeDraw.address, prizeDraw.abi, "recordWinners", [idToBytes32(CAMPAIGN), 2n, fingerprint(winners)]);
      const proof = proofFrom(2, winners, draw);
      proof.entropy.userContribution = userRandomNumber(CAMPAIGN, 2, drawingSlot(drawingId(2)), commitment);
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
      forged.entropy.value = keccakHex("a value the service liked better");
      forged.results = computeResults(forged.entropy.value, CAMPAIGN, 3, DEFAULT_TABLE, winners);
      const file = tmp.write(forged);

      const offline = await runVerifier([file]);
      expect(offline.code, offline.output).toBe(0);

      const online = await runVerifier([file, "--rpc", rpcUrl]);
      expect(online.code, online.output).toBe(1);
      expect(online.stdout).toMatch(/^✘ onchain random value 0x[0-9a-f]{64}, entropy\.value 0x[0-9a-f]{64}$/m);
      expect(online.stdout).toMatch(/Entropy revealed 0x[0-9a-f]{64}, entropy\.value is 0x[0-9a-f]{64}/);
    });

    it("a proof pointing at another drawing's transactions fails with --rpc", async () => {
      const winners = ["b-1", "b-2"];
      const draw = await runDraw({ number: 4, kind: 0, listCommitment: fingerprint(winners), winnersExpected: 2, entrantCount: 0, totalWeight: 0 });
      const proof = proofFrom(4, winners, draw);
      proof.drawing.number = 3; // transactions of drawing 4, claimed as drawing 3
      proof.results = computeResults(proof.entropy.value, CAMPAIGN, 3, DEFAULT_TABLE, winners);
      const run = await runVerifier([tmp.write(proof), "--rpc", rpcUrl]);
      expect(run.code, run.output).toBe(1);
      expect(run.stdout).toMatch(/no DrawingCommitted event of summer-daily #3/);
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
      return {
        value,
        sequence: c.sequence,
        providerContribution,
        chain: {
          chainId: foundry.id,
          contract: prizeDraw.address.toLowerCase() as Hex,
          entropy: entropy.address.toLowerCase() as Hex,
          commitTx: c.receipt.transactionHash,
          revealTx: reveal.transactionHash,
        },
        prizes: await prizesOf(prizeDraw, opts.number, reveal.blockNumber),
      };
    }

    it("the origin of the random value verifies offline and with --rpc", async () => {
      const winners = Array.from({ length: 6 }, (_, i) => `real-${i}`);
      const draw = await runDraw({ number: 1, kind: 0, listCommitment: fingerprint(winners), winnersExpected: 6, entrantCount: 0, totalWeight: 0 });
      expect(draw.prizes.map((p) => p.randomValue)).toEqual(computeResults(draw.value, CAMPAIGN, 1, DEFAULT_TABLE, winners).map((r) => r.randomValue));
      const file = tmp.write(proofFrom(1, winners, draw, { provider: PROVIDER.toLowerCase() }));

      const offline = await runVerifier([file]);
      expect(offline.code, offline.output).toBe(0);
      expect(offline.stdout).toMatch(/^✔ entropy\.value = keccak256\(userContribution, providerContribution, 0\)/m);

      const online = await runVerifier([file, "--rpc", rpcUrl]);
      expect(online.code, online.output).toBe(0);
      expect(online.stdout).toMatch(
        new RegExp(`^✔ the random value is keccak256 of the commit's contribution and provider ${PROVIDER.toLowerCase()}'s revelation 0x[0-9a-f]{8}…[0-9a-f]{6}, as Entropy revealed them$`, "m"),
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
      expect(offline.stdout).toMatch(/^✘ keccak256\(userContribution, providerContribution, 0\) is 0x[0-9a-f]{64}, entropy\.value is 0x[0-9a-f]{64}$/m);
      const online = await runVerifier([file, "--rpc", rpcUrl]);
      expect(online.code, online.output).toBe(1);
      expect(online.stdout).toMatch(/the Revealed provider contribution is 0x[0-9a-f]{64}, entropy\.providerContribution 0x[0-9a-f]{64}/);
    });

    it("a batch of two drawings under one request: each member's version 4 proof verifies offline and with --rpc", async () => {
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
      for (const [index, d] of specs.entries()) {
        const draw: Draw = { value, sequence, providerContribution, chain, prizes: await prizesOf(prizeDraw, d.number, reveal.blockNumber) };
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
      // A version 3 proof cannot describe a batch member: its own contribution is not the request's.
      const v3 = proofFrom(3, lists[0]!, { value, sequence, providerContribution, chain, prizes: await prizesOf(prizeDraw, 3, reveal.blockNumber) }, { provider: PROVIDER.toLowerCase() });
      const v3Run = await runVerifier([tmp.write(v3), "--rpc", rpcUrl]);
      expect(v3Run.code, v3Run.output).toBe(1);
      expect(v3Run.stdout).toMatch(/^✘ keccak256\(userContribution, providerContribution, 0\) is 0x[0-9a-f]{64}, entropy\.value is 0x[0-9a-f]{64}$/m);
    });


    it("a re-requested batch: each member's version 5 proof verifies offline and with --rpc", async () => {
      const lists = [["re-a1", "re-a2"], ["re-b1", "re-b2", "re-b3"]];
      const specs: DrawSpec[] = [5, 6].map((number, i) => ({ number, kind: 0, listCommitment: fingerprint(lists[i]!), winnersExpected: lists[i]!.length, entrantCount: 0, totalWeight: 0 }));
      const { receipt, requested } = await commitBatch(prizeDraw, specs);
      const contributions = specs.map((d) => userRandomNumber(CAMPAIGN, d.number, drawingSlot(drawingId(d.number)), d.listCommitment));
      const { sequence: previous, provider } = requested[0]!;
      await fetch(rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_mine", params: ["0x101"] }) });
      const re = await send(prizeDraw.address, prizeDraw.abi, "reRequest", [idToBytes32(CAMPAIGN), 6n, 10n ** 18n], { value: 10n ** 15n });
      const events = parseEventLogs({ abi: prizeDraw.abi, logs: re.logs, eventName: "EntropyReRequested" }) as unknown as { args: { sequence: bigint; userRandomNumber: Hex } }[];
      expect(events).toHaveLength(2);
      const { sequence, userRandomNumber: user } = events[0]!.args;
      const providerContribution = revelations[Number(sequence)]!;
      const reveal = await send(entropy.address, entropy.abi, "revealWithCallback", [provider, sequence, user, providerContribution]);
      const value = combine(user, providerContribution);
      const chain = { chainId: foundry.id, contract: prizeDraw.address.toLowerCase() as Hex, entropy: entropy.address.toLowerCase() as Hex, commitTx: receipt.transactionHash, revealTx: reveal.transactionHash };
      for (const [index, d] of specs.entries()) {
        const draw: Draw = { value, sequence, providerContribution, chain, prizes: await prizesOf(prizeDraw, d.number, reveal.blockNumber) };
        expect(draw.prizes).toHaveLength(lists[index]!.length);
        const proof = proofFrom(d.number, lists[index]!, draw, { provider: PROVIDER.toLowerCase(), batch: { index, contributions } });
        proof.proofVersion = 5;
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
      }
    });
  });
});
