import { createPublicClient, createWalletClient, http, parseAbi, type Account, type Address, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ANVIL_KEYS } from "../config.js";
import { MockEntropyAbi, PrizeDrawAbi, PrizeDrawManagerAbi, TestStablecoinAbi } from "./abis.js";
import { bytecodeOf } from "./artifacts.js";
import { CONTRACT_VERSION, deploymentPath, readDeployment, writeDeployment, type DeploymentRecord } from "./deployment.js";

/** TestEntropyV2's constructor (defaultProvider, pythFeeInWei): all deployLocal needs of its ABI. */
const TestEntropyV2DeployAbi = parseAbi(["constructor(address defaultProvider, uint128 pythFeeInWei)"]);

/** Gas requested for (and budgeted by) the randomness callback; README's gas figures show what it covers. */
export const DEFAULT_CALLBACK_GAS_LIMIT = 2_000_000;
/**
 * The local prize pool: 1,000,000,000 dollars of the 6-decimal test stablecoin. Every commit reserves its drawing's
 * worst case until it is settled (the default table's top prize, 100,000 dollars, and 1,000 dollars for each further
 * winner), so the pool bounds how many drawings can be in flight at once: here about 9,800 of three winners.
 */
const LOCAL_POOL_UNITS = 1_000_000_000n * 100n * 10_000n;
/**
 * The local chain's 24-hour payment limit: twice the pool (at most half of the limit leaves at once, the other
 * half refills over the day; see the README's "Prize money"), so the local pool can pay its top prize.
 */
const LOCAL_DAILY_LIMIT_CENTS = 2n * 1_000_000_000n * 100n;
/**
 * The local chain's reveal timeout: the contract's floor, 256 blocks (about 4 minutes of anvil's 1-second blocks),
 * so a test can reach it.
 */
export const LOCAL_REVEAL_TIMEOUT_BLOCKS = 256;
/**
 * Seconds every admin call waits between its scheduling and its execution on the local chain: the contract's
 * floor (PrizeDrawManager.MIN_ADMIN_DELAY, one day). Local rehearsals of admin actions move anvil's clock.
 */
const LOCAL_ADMIN_DELAY = 86_400;

export type DeployLocalOptions = {
  rpcUrl: string;
  dataDir: string;
  /**
   * Tests only. `"test-entropy-v2"` deploys contracts/test/TestEntropyV2.sol (the real Entropy v2's rules: gas-capped
   * callback, failure recorded, retry) instead of MockEntropy; the provider (anvil account 2) must register a hash
   * chain before the first commit and reveal each request itself.
   */
  randomness?: "mock" | "test-entropy-v2";
  /** Tests only. `"blacklist"` deploys contracts/test/BlacklistStablecoin.sol, whose transfers to a blacklisted wallet revert. */
  token?: "stablecoin" | "blacklist";
};

/** A real network's deployment inputs (`npm run deploy -- --network NAME`). */
export type DeployRemoteOptions = {
  rpcUrl: string;
  dataDir: string;
  /** The deploying key (it pays for the deployment and nothing else). */
  deployerKey: Hex;
  entropy: Address;
  token: Address;
  /** The admin (a multisig on a real network). */
  admin: Address;
  operator: Address;
  /** Pauses payments in an emergency. Admin, operator and guardian must be three different accounts. */
  guardian: Address;
  /** Seconds every admin call waits between its scheduling and its execution (1 to 30 days). */
  adminDelay: number;
  /** The overall 24-hour payment limit in cents. */
  dailyLimitCents: bigint;
  callbackGasLimit: number;
  /** Blocks without a reveal after which anyone may re-request a drawing's value, once (256 to 1,000,000). */
  revealTimeoutBlocks: number;
  /** The network's chain id: a different chain behind rpcUrl is refused before anything is sent. */
  expectedChainId: number;
};

/** A deployment refused before any transaction was sent; the message says what to fix. */
export class DeployRefusedError extends Error {
  readonly code = "deploy_refused";
  override name = "DeployRefusedError";
}

type DeployWallet = ReturnType<typeof clientsFor>["wallet"];

function clientsFor(rpcUrl: string, chainId: number, account: Account) {
  const transport = http(rpcUrl);
  const chain = { id: chainId, name: `chain-${chainId}`, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } };
  return { publicClient: createPublicClient({ chain, transport }) as PublicClient, wallet: createWalletClient({ account, chain, transport }) };
}

/** Deploys PrizeDraw against Pyth Entropy and a real stablecoin, and writes the deployment record. */
export async function deployRemote(o: DeployRemoteOptions): Promise<DeploymentRecord> {
  let chainId: number;
  try {
    chainId = await createPublicClient({ transport: http(o.rpcUrl, { retryCount: 1 }) }).getChainId();
  } catch {
    // Only the host: a provider's URL often carries an API key in its path.
    throw new DeployRefusedError(`cannot reach the RPC at ${new URL(o.rpcUrl).host}: check the URL and that the node is up`);
  }
  if (chainId !== o.expectedChainId) throw new DeployRefusedError(`the RPC answers chain ${chainId}, not ${o.expectedChainId}: fix the RPC URL`);
  if (readDeployment(o.dataDir) !== null) {
    throw new DeployRefusedError(`${deploymentPath(o.dataDir)} already records a deployment: move it away or use another PRIZEDRAW_DATA_DIR`);
  }
  const deployer = privateKeyToAccount(o.deployerKey);
  const admin = o.admin;
  if (new Set([admin.toLowerCase(), o.operator.toLowerCase(), o.guardian.toLowerCase()]).size !== 3) {
    throw new DeployRefusedError("ADMIN_ADDRESS, OPERATOR_ADDRESS and GUARDIAN_ADDRESS must be three different accounts");
  }
  const { publicClient, wallet } = clientsFor(o.rpcUrl, chainId, deployer);
  const [provider, decimals, genesis] = await Promise.all([
    publicClient.readContract({ address: o.entropy, abi: MockEntropyAbi, functionName: "getDefaultProvider" }),
    publicClient.readContract({ address: o.token, abi: TestStablecoinAbi, functionName: "decimals" }),
    publicClient.getBlock({ blockNumber: 0n }),
  ]);
  if (o.adminDelay < 86_400 || o.adminDelay > 30 * 86_400) {
    throw new DeployRefusedError(`ADMIN_DELAY_SECONDS must be 86400 to 2592000 (1 to 30 days), got ${o.adminDelay}`);
  }
  if (!Number.isInteger(o.revealTimeoutBlocks) || o.revealTimeoutBlocks < 256 || o.revealTimeoutBlocks > 1_000_000) {
    throw new DeployRefusedError(`REVEAL_TIMEOUT_BLOCKS must be 256 to 1000000, got ${o.revealTimeoutBlocks}`);
  }
  const contracts = await deployContracts(publicClient, wallet, {
    entropy: o.entropy,
    token: o.token,
    admin,
    operator: o.operator,
    guardian: o.guardian,
    adminDelay: o.adminDelay,
    callbackGasLimit: o.callbackGasLimit,
    dailyLimitCents: o.dailyLimitCents,
    revealTimeoutBlocks: o.revealTimeoutBlocks,
  });
  const prizeDraw = contracts.prizeDraw;
  const record: DeploymentRecord = {
    chainId,
    rpcUrl: o.rpcUrl,
    genesisHash: genesis.hash,
    prizeDraw: prizeDraw.address,
    vault: contracts.vault,
    manager: contracts.manager.address,
    revealTimeoutBlocks: o.revealTimeoutBlocks,
    entropy: o.entropy,
    entropyProvider: provider,
    mockEntropy: false,
    token: o.token,
    tokenDecimals: decimals,
    admin,
    operator: o.operator,
    guardian: o.guardian,
    contractVersion: CONTRACT_VERSION,
    deployBlock: Number(contracts.manager.blockNumber),
    deployedAt: new Date().toISOString(),
  };
  writeDeployment(o.dataDir, record);
  return record;
}

type ContractInputs = Pick<DeployRemoteOptions, "entropy" | "token" | "admin" | "operator" | "guardian" | "adminDelay" | "callbackGasLimit" | "dailyLimitCents" | "revealTimeoutBlocks">;

/**
 * The three contracts, in order: the manager (the roles, with the admin's delay), the engine (which creates its
 * vault), and the manager's one-time wiring of the engine's and vault's functions to their roles, sent by the
 * deploying key, which holds no role.
 */
async function deployContracts(publicClient: PublicClient, wallet: DeployWallet, o: ContractInputs) {
  const manager = await deployed(
    publicClient,
    await wallet.deployContract({ abi: PrizeDrawManagerAbi, bytecode: bytecodeOf("PrizeDrawManager"), args: [o.admin, o.operator, o.guardian, o.adminDelay] }),
  );
  const prizeDraw = await deployed(
    publicClient,
    await wallet.deployContract({ abi: PrizeDrawAbi, bytecode: bytecodeOf("PrizeDraw"), args: [o.entropy, o.token, manager.address, o.callbackGasLimit, o.dailyLimitCents, BigInt(o.revealTimeoutBlocks)] }),
  );
  const wired = await publicClient.waitForTransactionReceipt({
    hash: await wallet.writeContract({ address: manager.address, abi: PrizeDrawManagerAbi, functionName: "wire", args: [prizeDraw.address] }),
  });
  if (wired.status !== "success") throw new Error(`wiring the manager (${wired.transactionHash}) failed`);
  const vault = await publicClient.readContract({ address: prizeDraw.address, abi: PrizeDrawAbi, functionName: "vault" });
  return { manager, prizeDraw, vault };
}

async function deployed(client: PublicClient, hash: Hex): Promise<{ address: Address; blockNumber: bigint }> {
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`deployment ${hash} failed`);
  return { address: receipt.contractAddress, blockNumber: receipt.blockNumber };
}

/**
 * Deploys the test environment on a local chain: the 6-decimal test stablecoin, the SDK's MockEntropy and
 * PrizeDraw (admin = anvil account 0, operator = account 1, guardian = account 3), funds the prize pool, and writes the
 * deployment record into `dataDir`.
 */
export async function deployLocal({ rpcUrl, dataDir, randomness = "mock", token: tokenKind = "stablecoin" }: DeployLocalOptions): Promise<DeploymentRecord> {
  const admin = privateKeyToAccount(ANVIL_KEYS.admin);
  const operator = privateKeyToAccount(ANVIL_KEYS.operator);
  const provider = privateKeyToAccount(ANVIL_KEYS.provider);
  const guardian = privateKeyToAccount(ANVIL_KEYS.guardian);
  const chainId = await createPublicClient({ transport: http(rpcUrl) }).getChainId();
  const { publicClient, wallet } = clientsFor(rpcUrl, chainId, admin);
  const genesis = await publicClient.getBlock({ blockNumber: 0n });

  const token = await deployed(
    publicClient,
    await wallet.deployContract({ abi: TestStablecoinAbi, bytecode: bytecodeOf(tokenKind === "blacklist" ? "BlacklistStablecoin" : "TestStablecoin") }),
  );
  const entropy = await deployed(
    publicClient,
    randomness === "test-entropy-v2"
      ? await wallet.deployContract({ abi: TestEntropyV2DeployAbi, bytecode: bytecodeOf("TestEntropyV2"), args: [provider.address, 0n] })
      : await wallet.deployContract({ abi: MockEntropyAbi, bytecode: bytecodeOf("MockEntropy"), args: [provider.address] }),
  );
  const contracts = await deployContracts(publicClient, wallet, {
    entropy: entropy.address,
    token: token.address,
    admin: admin.address,
    operator: operator.address,
    guardian: guardian.address,
    adminDelay: LOCAL_ADMIN_DELAY,
    callbackGasLimit: DEFAULT_CALLBACK_GAS_LIMIT,
    dailyLimitCents: LOCAL_DAILY_LIMIT_CENTS,
    revealTimeoutBlocks: LOCAL_REVEAL_TIMEOUT_BLOCKS,
  });
  const prizeDraw = contracts.prizeDraw;
  await publicClient.waitForTransactionReceipt({
    hash: await wallet.writeContract({ address: token.address, abi: TestStablecoinAbi, functionName: "mint", args: [contracts.vault, LOCAL_POOL_UNITS] }),
  });

  const record: DeploymentRecord = {
    chainId,
    rpcUrl,
    genesisHash: genesis.hash,
    prizeDraw: prizeDraw.address,
    vault: contracts.vault,
    manager: contracts.manager.address,
    revealTimeoutBlocks: LOCAL_REVEAL_TIMEOUT_BLOCKS,
    entropy: entropy.address,
    entropyProvider: provider.address,
    mockEntropy: randomness === "mock",
    token: token.address,
    tokenDecimals: 6,
    admin: admin.address,
    operator: operator.address,
    guardian: guardian.address,
    contractVersion: CONTRACT_VERSION,
    deployBlock: Number(token.blockNumber),
    deployedAt: new Date().toISOString(),
  };
  writeDeployment(dataDir, record);
  return record;
}
