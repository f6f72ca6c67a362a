/**
 * `npm run deploy -- --network NAME`: deploys PrizeDrawManager, PrizeDraw and its PrizeVault to a real network and writes the deployment record
 * into PRIZEDRAW_DATA_DIR (then run the service with RPC_URL, PRIZEDRAW_ENV=production, OPERATOR_PRIVATE_KEY).
 *
 * Configuration (environment): DEPLOY_RPC_URL (or RPC_URL), DEPLOYER_PRIVATE_KEY (pays for the deployment,
 * holds no role), ADMIN_ADDRESS (a multisig: limits, resume, withdrawals, wallet moves), OPERATOR_ADDRESS (the
 * service's key), GUARDIAN_ADDRESS (pauses payments), three different accounts; DAILY_LIMIT_CENTS (the overall
 * 24-hour payment limit; README "Prize money" says how to size it), ADMIN_DELAY_SECONDS (172800: every admin
 * call waits two days between its scheduling and its execution; 86400 to 2592000), PAYOUT_TOKEN_ADDRESS and PYTH_ENTROPY_ADDRESS (defaults:
 * the network's USDC and Pyth Entropy, below), CALLBACK_GAS_LIMIT (500000), REVEAL_TIMEOUT_BLOCKS (43200: 24 hours of Base's 2-second blocks without a reveal before
 * anyone may re-request a drawing's value, once; 256 to 1000000).
 * `--network local` deploys the test environment on a local chain instead (what npm start does).
 */
import { isAddress, type Address, type Hex } from "viem";
import { loadConfig } from "../api/src/config.js";
import { deployLocal, deployRemote } from "../api/src/chain/deploy.js";
import { deploymentPath, readDeployment } from "../api/src/chain/deployment.js";

/** Pyth Entropy as published at docs.pyth.network/entropy/contract-addresses; USDC as published by Circle. */
const NETWORKS: Record<string, { chainId: number; entropy: Address; usdc: Address }> = {
  "base-sepolia": { chainId: 84532, entropy: "0x41c9e39574F40Ad34c79f1C99B66A45eFB830d4c", usdc: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" },
  base: { chainId: 8453, entropy: "0x6E7D74FA7d5c90FEF9F0512987605a6d546181Bb", usdc: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" },
};

function fail(line: string): never {
  console.error(`[deploy] ${line}`);
  process.exit(1);
}

function address(name: string, fallback?: Address): Address {
  const value = process.env[name] ?? fallback;
  if (!value) fail(`${name} is not set`);
  if (!isAddress(value)) fail(`${name}=${value} is not an address`);
  return value;
}

/** Default 500,000: Pyth's default provider limit on Base. The bounds are PrizeDraw's MIN/MAX_CALLBACK_GAS_LIMIT. */
function callbackGasLimit(): number {
  const raw = process.env.CALLBACK_GAS_LIMIT ?? "500000";
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 100_000 || value > 15_000_000) fail(`CALLBACK_GAS_LIMIT=${raw} must be a whole number from 100000 to 15000000`);
  return value;
}

function wholeNumber(name: string, fallback: string | undefined, min: number, max: number): number {
  const raw = process.env[name] ?? fallback;
  if (raw === undefined) fail(`${name} is not set`);
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) fail(`${name}=${raw} must be a whole number from ${min} to ${max}`);
  return value;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf("--network");
  const name = at >= 0 ? process.argv[at + 1] : undefined;
  if (!name) fail(`usage: npm run deploy -- --network ${[...Object.keys(NETWORKS), "local"].join("|")}`);
  const config = loadConfig({ ...process.env, PRIZEDRAW_ENV: "test", RPC_URL: undefined, OPERATOR_PRIVATE_KEY: undefined });
  if (name === "local") {
    if (readDeployment(config.dataDir) !== null) fail(`${deploymentPath(config.dataDir)} already records a deployment: move it away or use another PRIZEDRAW_DATA_DIR`);
    const record = await deployLocal({ rpcUrl: process.env.RPC_URL ?? config.rpcUrl, dataDir: config.dataDir });
    console.log(JSON.stringify(record, null, 2));
    return;
  }
  const network = NETWORKS[name] ?? fail(`unknown network ${name}: use one of ${Object.keys(NETWORKS).join(", ")}, local`);
  const rpcUrl = process.env.DEPLOY_RPC_URL ?? process.env.RPC_URL ?? fail("DEPLOY_RPC_URL (or RPC_URL) is not set");
  const key = process.env.DEPLOYER_PRIVATE_KEY;
  if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) fail("DEPLOYER_PRIVATE_KEY must be 0x followed by 64 hex digits");
  const record = await deployRemote({
    rpcUrl,
    dataDir: config.dataDir,
    deployerKey: key as Hex,
    entropy: address("PYTH_ENTROPY_ADDRESS", network.entropy),
    token: address("PAYOUT_TOKEN_ADDRESS", network.usdc),
    admin: address("ADMIN_ADDRESS"),
    operator: address("OPERATOR_ADDRESS"),
    guardian: address("GUARDIAN_ADDRESS"),
    adminDelay: wholeNumber("ADMIN_DELAY_SECONDS", "172800", 86_400, 2_592_000),
    dailyLimitCents: BigInt(wholeNumber("DAILY_LIMIT_CENTS", undefined, 2, Number.MAX_SAFE_INTEGER)),
    callbackGasLimit: callbackGasLimit(),
    revealTimeoutBlocks: wholeNumber("REVEAL_TIMEOUT_BLOCKS", "43200", 256, 1_000_000),
    expectedChainId: network.chainId,
  });
  console.log(JSON.stringify(record, null, 2));
}

void main().catch((error: unknown) => fail(error instanceof Error ? error.message.split("\n")[0]! : String(error)));
