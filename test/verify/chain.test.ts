// End to end against the real contract: anvil, PrizeDraw with the SDK's MockEntropy, two draws (winners and
// entries). The proofs are built from the contract's own PrizeAwarded events, so the verifier is checked against
// the Solidity copy of the draw math, and --rpc against real receipts and logs.
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
  computeResults,
  entrantsCommitment,
  fingerprint,
  idToBytes32,
  keccakHex,
  makeEntrants,
  selectEntrantsLinear,
  tableForProof,
  type Proof,
} from "./fixtures.js";
import { TempDir, closedPort, runVerifier } from "./run.js";

const ARCH: Record<string, string> = { x64: "amd64", arm64: "arm64" };
const ANVIL = path.join(REPO_ROOT, `node_modules/@foundry-rs/anvil-${process.platform}-${ARCH[process.arch] ?? process.arch}/bin/anvil`);
const artifact = (file: string, name: string) => path.join(REPO_ROOT, "artifacts", file, `${name}.json`);
const ARTIFACTS = {
  prizeDraw: artifact("contracts/PrizeDraw.sol", "PrizeDraw"),
  mockEntropy: artifact("@pythnetwork/entropy-sdk-solidity/MockEntropy.sol", "MockEntropy"),
  stablecoin: artifact("contracts/test/TestStablecoin.sol", "TestStablecoin"),
};
const available = existsSync(ANVIL) && Object.values(ARTIFACTS).every((f) => existsSync(f));
const load = (file: string) => JSON.parse(readFileSync(file, "utf8")) as { abi: Abi; bytecode: Hex };

// anvil's first two default accounts (public test keys).
const OPERATOR = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const PROVIDER: Address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const PAYOUT_WALLET: Address = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

describe.skipIf(!available)("against the PrizeDraw contract on anvil", () => {
  let anvil: ChildProcess;
  let rpcUrl: string;
  let pub: PublicClient;
  let wallet: WalletClient;
  let prizeDraw: { address: Address; abi: Abi };
  let entropy: { address: Address; abi: Abi };
  const tmp = new TempDir();
  const CAMPAIGN = "summer-daily";

  // Gas is set, not estimated: the randomness callback never reverts, so an estimate would find the least gas
  // with which the reveal succeeds, settling no prize at all.
  async function send(address: Address, abi: Abi, functionName: string, args: unknown[]) {
    const hash = await wallet.writeContract({ address, abi, functionName, args, account: OPERATOR, chain: foundry, gas: 15_000_000n });
    const receipt = await pub.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    return receipt;
  }

  async function deploy(file: string, args: unknown[]) {
    const { abi, bytecode } = load(file);
    const hash = await wallet.deployContract({ abi, bytecode, args, account: OPERATOR, chain: foundry });
    const receipt = await pub.waitForTransactionReceipt({ hash });
    return { address: receipt.contractAddress!, abi };
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
    entropy = await deploy(ARTIFACTS.mockEntropy, [PROVIDER]);
    const token = await deploy(ARTIFACTS.stablecoin, []);
    prizeDraw = await deploy(ARTIFACTS.prizeDraw, [entropy.address, token.address, OPERATOR.address, OPERATOR.address, 5_000_000]);
    const t = tableForProof(DEFAULT_TABLE);
    await send(prizeDraw.address, prizeDraw.abi, "publishPrizeTable", [
      idToBytes32(t.id),
      t.version,
      t.tiers.map((x) => BigInt(x.amountCents)),
      t.tiers.map((x) => BigInt(x.weight)),
    ]);
    await send(prizeDraw.address, prizeDraw.abi, "registerCampaign", [idToBytes32(CAMPAIGN), PAYOUT_WALLET, 50_000n]);
  }, 60_000);

  afterAll(() => {
    tmp.remove();
    if (anvil && anvil.exitCode === null) anvil.kill("SIGTERM");
  });

  /** Commits a list, requests and reveals the random value; returns the chain data and the contract's prizes. */
  async function runDraw(opts: { number: number; kind: 0 | 1; listCommitment: Hex; winnersExpected: number; entrantCount: number; totalWeight: number }) {
    const t = tableForProof(DEFAULT_TABLE);
    const commit = await send(prizeDraw.address, prizeDraw.abi, "commitAndRequest", [
      {
        campaignId: idToBytes32(CAMPAIGN),
        number: BigInt(opts.number),
        kind: opts.kind,
        listCommitment: opts.listCommitment,
        winnersExpected: opts.winnersExpected,
        entrantCount: opts.entrantCount,
        totalWeight: BigInt(opts.totalWeight),
        tableId: idToBytes32(t.id),
        tableVersion: t.version,
      },
    ]);
    const requested = parseEventLogs({ abi: prizeDraw.abi, logs: commit.logs, eventName: "EntropyRequested" })[0] as unknown as {
      args: { sequence: bigint; provider: Address };
    };
    const value = keccakHex(`random value of draw ${opts.number}`);
    const reveal = await send(entropy.address, entropy.abi, "mockReveal", [requested.args.provider, requested.args.sequence, value]);
    const awarded = (await pub.getContractEvents({
      address: prizeDraw.address,
      abi: prizeDraw.abi,
      eventName: "PrizeAwarded",
      args: { campaignId: idToBytes32(CAMPAIGN), number: BigInt(opts.number) },
      fromBlock: reveal.blockNumber,
    })) as unknown as { args: { position: bigint; randomValue: Hex; roll: bigint; amountCents: bigint } }[];
    return {
      value,
      sequence: requested.args.sequence,
      chain: { chainId: foundry.id, contract: prizeDraw.address.toLowerCase() as Hex, commitTx: commit.transactionHash, revealTx: reveal.transactionHash },
      prizes: awarded.map((e) => ({ position: Number(e.args.position), randomValue: e.args.randomValue, roll: Number(e.args.roll), amountCents: Number(e.args.amountCents) })),
    };
  }

  function proofFrom(number: number, winners: string[], draw: Awaited<ReturnType<typeof runDraw>>): Proof {
    return {
      proofVersion: 2,
      campaign: { id: CAMPAIGN, slug: CAMPAIGN, name: "Summer Daily" },
      drawing: { id: `drw_${number}`, number, drawAt: "2026-11-25T20:00:00.000Z" },
      winnerList: { winners, commitment: fingerprint(winners), lockedAt: "2026-11-25T19:30:00.000Z" },
      entropy: { provider: "mock", requestId: String(draw.sequence), value: draw.value, revealedAt: "2026-11-25T19:31:00.000Z" },
      prizeTable: tableForProof(DEFAULT_TABLE),
      // Straight from the contract's events.
      results: draw.prizes.map((p) => ({ ...p, winner: winners[p.position]!, displayName: null })),
      entrants: null,
      chain: draw.chain,
    };
  }

  it("the verifier's event signatures are the contract's", () => {
    const abi = load(ARTIFACTS.prizeDraw).abi;
    const signatures = abi
      .filter((x): x is Extract<Abi[number], { type: "event" }> => x.type === "event")
      .map((e) => `${e.name}(${e.inputs.map((i) => i.type).join(",")})`);
    const source = readFileSync(VERIFIER, "utf8");
    for (const name of ["DrawingCommitted", "EntropyRequested", "EntropyRevealed", "WinnersRecorded", "PrizeAwarded"]) {
      const inVerifier = new RegExp(`"(${name}\\([^)]*\\))"`).exec(source)?.[1];
      expect(signatures, name).toContain(inVerifier);
    }
  });

  it("winners draw: the contract's prizes verify offline and with --rpc", async () => {
    const winners = Array.from({ length: 25 }, (_, i) => `winner-${i}-${keccakHex(String(i)).slice(2, 12)}`);
    const draw = await runDraw({ number: 1, kind: 0, listCommitment: fingerprint(winners), winnersExpected: winners.length, entrantCount: 0, totalWeight: 0 });
    expect(draw.prizes).toHaveLength(25);
    const proof = proofFrom(1, winners, draw);
    // The independent generator agrees with the contract too.
    expect(computeResults(draw.value, CAMPAIGN, 1, DEFAULT_TABLE, winners).map((r) => [r.randomValue, r.roll, r.amountCents])).toEqual(
      draw.prizes.map((p) => [p.randomValue, p.roll, p.amountCents]),
    );
    const file = tmp.write(proof);

    const offline = await runVerifier([file]);
    expect(offline.code, offline.output).toBe(0);

    const online = await runVerifier([file, "--rpc", rpcUrl]);
    expect(online.code, online.output).toBe(0);
    expect(online.stdout).toMatch(/^✔ random value requested after the list was committed, in the same transaction/m);
    expect(online.stdout).toMatch(/^✔ the contract's 25 PrizeAwarded events match the results/m);
    expect(online.stdout).toMatch(/^✔ prize table default v1 equals the one published onchain$/m);
  });

  it("entries draw: selection, recorded winners and prizes verify with --rpc", async () => {
    const entrants = makeEntrants(150, "anvil-entries", 20);
    const weights = entrants.map((e) => e.weight);
    const hashes = entrants.map((e) => keccakHex(e.id));
    const totalWeight = weights.reduce((a, b) => a + b, 0);
    const draw = await runDraw({
      number: 2,
      kind: 1,
      listCommitment: entrantsCommitment(hashes, weights),
      winnersExpected: 12,
      entrantCount: entrants.length,
      totalWeight,
    });
    const winners = selectEntrantsLinear(draw.value, CAMPAIGN, 2, weights, 12).map((i) => entrants[i]!.id);
    await send(prizeDraw.address, prizeDraw.abi, "recordWinners", [idToBytes32(CAMPAIGN), 2n, fingerprint(winners)]);
    const proof = proofFrom(2, winners, draw);
    proof.entrants = {
      count: entrants.length,
      totalWeight,
      commitment: entrantsCommitment(hashes, weights),
      selection: "sequential-weighted-v1",
      list: hashes.map((hash, i) => ({ hash, weight: weights[i]! })),
    };
    const run = await runVerifier([tmp.write(proof), "--rpc", rpcUrl]);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/^✔ onchain: 150 entrants, total weight \d+, 12 winners expected; the proof agrees$/m);
    expect(run.stdout).toMatch(/^✔ winnerList\.commitment was recorded onchain \(WinnersRecorded, block \d+\)$/m);
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
