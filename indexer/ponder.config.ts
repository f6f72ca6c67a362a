import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createConfig } from "ponder";
import { EntropyRevealedAbi } from "./abis/EntropyRevealedAbi";
import { PrizeDrawAbi } from "./abis/PrizeDrawAbi";
import { PrizeVaultAbi } from "./abis/PrizeVaultAbi";

// Where the indexer reads the chain from. Every value comes from the environment first, then from the deployment
// record that `deployLocal` writes (`${PRIZEDRAW_DATA_DIR}/deployment.json`). PRIZEDRAW_DATA_DIR is resolved against
// the process's working directory; the start script passes an absolute path.

type DeploymentRecord = {
  chainId?: number;
  rpcUrl?: string;
  prizeDraw?: string;
  vault?: string;
  entropy?: string;
  deployBlock?: number;
};

const LOCAL_CHAIN_ID = 31337;

const dataDir = resolve(process.env.PRIZEDRAW_DATA_DIR ?? "./.data");
const deploymentPath = resolve(dataDir, "deployment.json");

function readDeployment(): DeploymentRecord {
  if (!existsSync(deploymentPath)) return {};
  const raw: unknown = JSON.parse(readFileSync(deploymentPath, "utf8"));
  if (typeof raw !== "object" || raw === null) {
    throw new Error(`${deploymentPath} is not a JSON object.`);
  }
  const record = raw as Record<string, unknown>;
  return {
    chainId: typeof record.chainId === "number" ? record.chainId : undefined,
    rpcUrl: typeof record.rpcUrl === "string" ? record.rpcUrl : undefined,
    prizeDraw: typeof record.prizeDraw === "string" ? record.prizeDraw : undefined,
    vault: typeof record.vault === "string" ? record.vault : undefined,
    entropy: typeof record.entropy === "string" ? record.entropy : undefined,
    deployBlock: typeof record.deployBlock === "number" ? record.deployBlock : undefined,
  };
}

function envInteger(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value.trim() === "") return undefined;
  if (!/^\d+$/.test(value.trim())) throw new Error(`${name} must be a non-negative integer, got "${value}".`);
  return Number(value.trim());
}

function envString(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

// Ponder 0.16 builds this app with a Vite 5 dev server, which registers `process.once("SIGTERM", closeServerAndExit)`
// (and the same on stdin "end"). On SIGTERM that handler calls process.exit() at once, before Ponder's own SIGTERM
// handler has unlocked its schema and closed PGlite: the next start then waits up to 25 s for the stale lock
// ("Schema is locked by a different Ponder app") and recovers as after a crash. The Vite server is already running
// when this file is evaluated, so its handler is removed here and SIGTERM gets Ponder's clean shutdown, like SIGINT.
for (const listener of process.listeners("SIGTERM")) {
  if (listener.name === "closeServerAndExit") process.off("SIGTERM", listener);
}
for (const listener of process.stdin.listeners("end")) {
  if (listener.name === "closeServerAndExit") process.stdin.off("end", listener as (...args: unknown[]) => void);
}

const deployment = readDeployment();

const chainId = envInteger("PRIZEDRAW_CHAIN_ID") ?? deployment.chainId ?? LOCAL_CHAIN_ID;
const rpcUrl = envString("PRIZEDRAW_RPC_URL") ?? deployment.rpcUrl ?? "http://127.0.0.1:8545";
const address = envString("PRIZEDRAW_ADDRESS") ?? deployment.prizeDraw;
const vaultAddress = envString("PRIZEDRAW_VAULT_ADDRESS") ?? deployment.vault;
const entropyAddress = envString("PRIZEDRAW_ENTROPY_ADDRESS") ?? deployment.entropy;
const startBlock = envInteger("PRIZEDRAW_START_BLOCK") ?? deployment.deployBlock ?? 0;

if (address === undefined) {
  throw new Error(
    `No PrizeDraw address: set PRIZEDRAW_ADDRESS (and PRIZEDRAW_RPC_URL, PRIZEDRAW_CHAIN_ID, PRIZEDRAW_START_BLOCK) or deploy first so that ${deploymentPath} exists.`,
  );
}
if (!/^0x[0-9a-fA-F]{40}$/.test(address)) {
  throw new Error(`The PrizeDraw address "${address}" is not a 20-byte hex address.`);
}
if (vaultAddress === undefined || !/^0x[0-9a-fA-F]{40}$/.test(vaultAddress)) {
  throw new Error(
    `No PrizeVault address (got "${vaultAddress ?? ""}"): set PRIZEDRAW_VAULT_ADDRESS (PrizeDraw.vault()) or deploy first so that ${deploymentPath} records it.`,
  );
}
if (entropyAddress === undefined || !/^0x[0-9a-fA-F]{40}$/.test(entropyAddress)) {
  throw new Error(
    `No Entropy address (got "${entropyAddress ?? ""}"): set PRIZEDRAW_ENTROPY_ADDRESS or deploy first so that ${deploymentPath} records it.`,
  );
}

const isLocal = chainId === LOCAL_CHAIN_ID;
const getLogsRange = envInteger("PRIZEDRAW_ETH_GETLOGS_BLOCK_RANGE") ?? (isLocal ? 10_000 : undefined);

const databaseUrl = envString("DATABASE_URL");

export default createConfig({
  database: databaseUrl
    ? { kind: "postgres", connectionString: databaseUrl }
    : { kind: "pglite", directory: resolve(dataDir, "ponder") },
  // One chain: "chain" is the name /status reports it under.
  chains: {
    chain: {
      id: chainId,
      rpc: rpcUrl,
      // A local anvil mines a block per transaction: poll fast so a row is readable well under a second after
      // its receipt. Elsewhere Ponder's default (1 s) is plenty for block times of 2 s and more.
      ...(isLocal ? { pollingInterval: 200 } : {}),
      // A reset local chain keeps its chain id but not its blocks: Ponder's RPC cache (kept per chain id, and
      // shared by every schema of a Postgres database) would replay the old chain's logs. A local node is fast
      // enough to read again on every start.
      ...(isLocal ? { disableCache: true } : {}),
      ...(getLogsRange !== undefined ? { ethGetLogsBlockRange: getLogsRange } : {}),
    },
  },
  contracts: {
    PrizeDraw: {
      abi: PrizeDrawAbi,
      chain: "chain",
      address: address as `0x${string}`,
      startBlock,
    },
    // The prize pool PrizeDraw created: held prizes paid or refused, guarantees picked, moved and paid.
    PrizeVault: {
      abi: PrizeVaultAbi,
      chain: "chain",
      address: vaultAddress as `0x${string}`,
      startBlock,
    },
    // Only the Revealed logs of requests PrizeDraw made: they carry the provider's contribution, which proofs repeat.
    Entropy: {
      abi: EntropyRevealedAbi,
      chain: "chain",
      address: entropyAddress as `0x${string}`,
      startBlock,
      filter: { event: "Revealed", args: { caller: address as `0x${string}` } },
    },
  },
});
