// `npm run deploy -- --network NAME` for real, against an anvil that calls itself Base Sepolia (chain 84532):
// PrizeDraw deployed with the script's own inputs against an entropy contract and a 6-decimal token already on
// the chain, the record written and matching the contract; every bad input ends with one line, sends no
// transaction and writes no record.

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createPublicClient, http, type Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrizeDrawAbi, PrizeDrawManagerAbi, PrizeVaultAbi } from "../../api/src/chain/abis.js";
import { deployLocal } from "../../api/src/chain/deploy.js";
import { CONTRACT_VERSION, type DeploymentRecord } from "../../api/src/chain/deployment.js";
import { REPO_ROOT, freePort, inheritedEnv, spawnProcess, startAnvil, stop, until, type Proc } from "../support/processes.js";

const BASE_SEPOLIA = 84532;
/** anvil's account 3: a deployer that does nothing else on this chain, so its nonce counts its deployments. */
const DEPLOYER_KEY = "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6";
const DEPLOYER = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const OPERATOR = "0x00000000000000000000000000000000000000b7";
/** The admin (a multisig on a real network) and the guardian: neither is the deployer, which holds no role. */
const ADMIN = "0x00000000000000000000000000000000000000a1";
const GUARDIAN = "0x00000000000000000000000000000000000000c3";

const tmp = mkdtempSync(path.join(tmpdir(), "prizedraw-deploy-test-"));
let anvil: Proc;
let rpcUrl: string;
let existing: DeploymentRecord;

const client = () => createPublicClient({ transport: http(rpcUrl) });

function runDeploy(network: string, env: Record<string, string | undefined>): Proc {
  const full = { ...inheritedEnv(["PRIZEDRAW_*", "DEPLOY*", "RPC_URL"]), ...env };
  for (const [key, value] of Object.entries(full)) if (value === undefined) delete full[key];
  return spawnProcess("deploy", process.execPath, ["--import", "tsx", path.join(REPO_ROOT, "scripts/deploy.mts"), "--network", network], {
    env: full,
    cwd: REPO_ROOT,
    log: path.join(tmp, "deploy.log"),
  });
}

/** The inputs of a good deployment into `dataDir`; each bad-input case spoils one. */
function goodEnv(dataDir: string): Record<string, string> {
  return {
    PRIZEDRAW_DATA_DIR: dataDir,
    DEPLOY_RPC_URL: rpcUrl,
    DEPLOYER_PRIVATE_KEY: DEPLOYER_KEY,
    OPERATOR_ADDRESS: OPERATOR,
    ADMIN_ADDRESS: ADMIN,
    GUARDIAN_ADDRESS: GUARDIAN,
    DAILY_LIMIT_CENTS: "5000000",
    PYTH_ENTROPY_ADDRESS: existing.entropy,
    PAYOUT_TOKEN_ADDRESS: existing.token,
  };
}

beforeAll(async () => {
  const port = await freePort();
  rpcUrl = `http://127.0.0.1:${port}`;
  anvil = startAnvil(port, path.join(tmp, "anvil-state.json"), path.join(tmp, "anvil.log"), ["--chain-id", String(BASE_SEPOLIA)]);
  await until("anvil", async () => ((await client().getChainId()) === BASE_SEPOLIA ? true : undefined), 20_000, 100, anvil);
  // An entropy contract (the SDK's MockEntropy) and a 6-decimal token to deploy against, as Pyth and USDC are on Base.
  existing = await deployLocal({ rpcUrl, dataDir: path.join(tmp, "existing") });
}, 60_000);

afterAll(async () => {
  await stop(anvil);
  rmSync(tmp, { recursive: true, force: true });
});

describe("npm run deploy -- --network base-sepolia", () => {
  const dataDir = path.join(tmp, "base-sepolia");

  it("deploys PrizeDraw with the given entropy, token and operator, and records what the chain holds", async () => {
    const proc = runDeploy("base-sepolia", goodEnv(dataDir));
    expect(await proc.exited).toBe(0);
    expect(proc.output()).not.toContain(DEPLOYER_KEY.slice(2));
    const record = JSON.parse(readFileSync(path.join(dataDir, "deployment.json"), "utf8")) as DeploymentRecord;
    expect(record).toMatchObject({
      chainId: BASE_SEPOLIA,
      rpcUrl,
      mockEntropy: false,
      entropy: existing.entropy,
      entropyProvider: existing.entropyProvider,
      token: existing.token,
      tokenDecimals: 6,
      admin: ADMIN,
      operator: OPERATOR,
      guardian: GUARDIAN,
      contractVersion: CONTRACT_VERSION,
      revealTimeoutBlocks: 43_200,
    });
    const genesis = await client().getBlock({ blockNumber: 0n });
    expect(record.genesisHash).toBe(genesis.hash);
    const read = <T>(functionName: string, args: unknown[] = []) =>
      client().readContract({ address: record.prizeDraw as Address, abi: PrizeDrawAbi, functionName, args } as never) as Promise<T>;
    const readVault = <T>(functionName: string, args: unknown[] = []) =>
      client().readContract({ address: record.vault as Address, abi: PrizeVaultAbi, functionName, args } as never) as Promise<T>;
    const role = (id: bigint, account: Address) =>
      client().readContract({ address: record.manager as Address, abi: PrizeDrawManagerAbi, functionName: "hasRole", args: [id, account] });
    expect((await read<string>("entropy")).toLowerCase()).toBe(existing.entropy.toLowerCase());
    expect((await read<string>("vault")).toLowerCase()).toBe(record.vault!.toLowerCase());
    expect((await readVault<string>("token")).toLowerCase()).toBe(existing.token.toLowerCase());
    expect((await readVault<string>("engine")).toLowerCase()).toBe(record.prizeDraw.toLowerCase());
    expect(await read<number>("callbackGasLimit")).toBe(500_000);
    expect(await read<bigint>("revealTimeoutBlocks")).toBe(43_200n); // REVEAL_TIMEOUT_BLOCKS' default: 24 hours of 2-second blocks
    expect((await read<string>("authority")).toLowerCase()).toBe(record.manager!.toLowerCase());
    // [member, execution delay]: the admin's calls (roles 0 and 3) wait ADMIN_DELAY_SECONDS; the deployer holds nothing.
    expect(await role(0n, ADMIN)).toEqual([true, 172_800]);
    expect(await role(3n, ADMIN)).toEqual([true, 172_800]);
    expect(await role(1n, OPERATOR)).toEqual([true, 0]);
    expect(await role(2n, GUARDIAN)).toEqual([true, 0]);
    for (const id of [0n, 1n, 2n, 3n]) expect((await role(id, DEPLOYER))[0]).toBe(false);
    expect((await readVault<readonly [bigint, bigint, boolean]>("paymentState"))[0]).toBe(5_000_000n);
    const deployedAt = await client().getTransactionReceipt({ hash: (await client().getBlock({ blockNumber: BigInt(record.deployBlock), includeTransactions: true })).transactions[0]!.hash });
    expect(deployedAt.contractAddress?.toLowerCase()).toBe(record.manager!.toLowerCase());
    // The manager, the engine (which creates the vault) and the manager's one-time wiring.
    expect(await client().getTransactionCount({ address: DEPLOYER })).toBe(3);
  });

  it("refuses to overwrite a deployment record, sending nothing", async () => {
    const before = readFileSync(path.join(dataDir, "deployment.json"), "utf8");
    const proc = runDeploy("base-sepolia", goodEnv(dataDir));
    expect(await proc.exited).toBe(1);
    expect(proc.output().trim()).toBe(`[deploy] ${path.join(dataDir, "deployment.json")} already records a deployment: move it away or use another PRIZEDRAW_DATA_DIR`);
    expect(readFileSync(path.join(dataDir, "deployment.json"), "utf8")).toBe(before);
    expect(await client().getTransactionCount({ address: DEPLOYER })).toBe(3);
  });

  it("ends every bad input with one line, sending nothing and writing no record", async () => {
    const fresh = path.join(tmp, "bad");
    const deadPort = await freePort();
    const cases: { network: string; env: Record<string, string | undefined>; line: string | RegExp }[] = [
      { network: "base", env: {}, line: `[deploy] the RPC answers chain ${BASE_SEPOLIA}, not 8453: fix the RPC URL` },
      { network: "base-sepolia", env: { GUARDIAN_ADDRESS: OPERATOR }, line: "[deploy] ADMIN_ADDRESS, OPERATOR_ADDRESS and GUARDIAN_ADDRESS must be three different accounts" },
      { network: "base-sepolia", env: { ADMIN_ADDRESS: undefined }, line: "[deploy] ADMIN_ADDRESS is not set" },
      { network: "base-sepolia", env: { DAILY_LIMIT_CENTS: undefined }, line: "[deploy] DAILY_LIMIT_CENTS is not set" },
      { network: "base-sepolia", env: { DAILY_LIMIT_CENTS: "1" }, line: `[deploy] DAILY_LIMIT_CENTS=1 must be a whole number from 2 to ${Number.MAX_SAFE_INTEGER}` },
      { network: "base-sepolia", env: { REVEAL_TIMEOUT_BLOCKS: "255" }, line: "[deploy] REVEAL_TIMEOUT_BLOCKS=255 must be a whole number from 256 to 1000000" },
      { network: "mainnet", env: {}, line: "[deploy] unknown network mainnet: use one of base-sepolia, base, local" },
      { network: "base-sepolia", env: { DEPLOYER_PRIVATE_KEY: undefined }, line: "[deploy] DEPLOYER_PRIVATE_KEY must be 0x followed by 64 hex digits" },
      { network: "base-sepolia", env: { DEPLOYER_PRIVATE_KEY: "0x1234" }, line: "[deploy] DEPLOYER_PRIVATE_KEY must be 0x followed by 64 hex digits" },
      { network: "base-sepolia", env: { OPERATOR_ADDRESS: undefined }, line: "[deploy] OPERATOR_ADDRESS is not set" },
      { network: "base-sepolia", env: { OPERATOR_ADDRESS: "0xnot-an-address" }, line: "[deploy] OPERATOR_ADDRESS=0xnot-an-address is not an address" },
      { network: "base-sepolia", env: { ADMIN_DELAY_SECONDS: "3600" }, line: "[deploy] ADMIN_DELAY_SECONDS=3600 must be a whole number from 86400 to 2592000" },
      { network: "base-sepolia", env: { CALLBACK_GAS_LIMIT: "lots" }, line: "[deploy] CALLBACK_GAS_LIMIT=lots must be a whole number from 100000 to 15000000" },
      { network: "base-sepolia", env: { CALLBACK_GAS_LIMIT: "99999" }, line: "[deploy] CALLBACK_GAS_LIMIT=99999 must be a whole number from 100000 to 15000000" },
      { network: "base-sepolia", env: { DEPLOY_RPC_URL: `http://127.0.0.1:${deadPort}/v2/secret-api-key` }, line: `[deploy] cannot reach the RPC at 127.0.0.1:${deadPort}: check the URL and that the node is up` },
    ];
    for (const c of cases) {
      const proc = runDeploy(c.network, { ...goodEnv(fresh), ...c.env });
      expect(await proc.exited, c.network + JSON.stringify(c.env)).toBe(1);
      const output = proc.output().trim();
      expect(output.split("\n"), output).toHaveLength(1);
      if (typeof c.line === "string") expect(output).toBe(c.line);
      else expect(output).toMatch(c.line);
      expect(output).not.toContain(DEPLOYER_KEY.slice(2));
      expect(output).not.toContain("secret-api-key");
      expect(existsSync(path.join(fresh, "deployment.json"))).toBe(false);
    }
    expect(await client().getTransactionCount({ address: DEPLOYER })).toBe(3);
    // 14 deploy processes one after another: a liveness bound for a loaded machine, not a speed target.
  }, 240_000);

});
