import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Address, Hex } from "viem";

/**
 * The PrizeDraw interface this code speaks: 7 since held prizes and guarantees are the vault's (paid, refused,
 * picked and their events there; the manager holds the role map); 6 since the callback mixes the request block's hash into the value
 * (EntropyRevealed carries both); 5 added the one public re-request and guarantees bounded in block time; 4 put
 * the tokens in a PrizeVault the engine creates and the roles in a PrizeDrawManager with delays (3: commits carry
 * slot, draw time and fee cap, payouts are permissionless and limited, held prizes and guarantees are recorded
 * onchain). Records without it are 2.
 */
export const CONTRACT_VERSION = 7;

/** What was deployed where: written by the deploy step, read by the start script, the indexer and the service. */
export type DeploymentRecord = {
  chainId: number;
  rpcUrl: string;
  /** Hash of block 0 when deployed: a different genesis means the chain was reset. */
  genesisHash: Hex;
  /** The drawing engine, which the service calls and the indexer reads. */
  prizeDraw: Address;
  /** The PrizeVault the engine created: the prize pool is funded here. Absent in records before version 4. */
  vault?: Address;
  /** The PrizeDrawManager: roles and the admin's scheduled operations. Absent in records before version 4. */
  manager?: Address;
  /** PrizeDraw.revealTimeoutBlocks: blocks without a reveal before a drawing's one public re-request. Absent before version 5. */
  revealTimeoutBlocks?: number;
  entropy: Address;
  /** The randomness provider the contract requests from; MockEntropy's default provider in test. */
  entropyProvider: Address;
  /** True when `entropy` is the SDK's MockEntropy (test environment only). */
  mockEntropy: boolean;
  token: Address;
  tokenDecimals: number;
  admin: Address;
  operator: Address;
  /** Pauses payments (PrizeDrawManager's GUARDIAN_ROLE); absent in records of contract version 2. */
  guardian?: Address;
  /** PrizeDraw's interface version; a record of another version needs a new deployment (see start). */
  contractVersion: number;
  deployBlock: number;
  deployedAt: string;
};

const hex = z.string().regex(/^0x[0-9a-fA-F]*$/);
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

const recordSchema = z.object({
  chainId: z.number().int().positive(),
  rpcUrl: z.string(),
  genesisHash: hex,
  prizeDraw: address,
  vault: address.optional(),
  manager: address.optional(),
  revealTimeoutBlocks: z.number().int().positive().optional(),
  entropy: address,
  entropyProvider: address,
  mockEntropy: z.boolean(),
  token: address,
  tokenDecimals: z.number().int(),
  admin: address,
  operator: address,
  guardian: address.optional(),
  contractVersion: z.number().int().default(2),
  deployBlock: z.number().int().nonnegative(),
  deployedAt: z.string(),
});

export class DeploymentRecordError extends Error {
  readonly code = "deployment_record_invalid";
  override name = "DeploymentRecordError";
}

export function deploymentPath(dataDir: string): string {
  return join(dataDir, "deployment.json");
}

/** The record in `dataDir`, or null when there is none. Throws DeploymentRecordError when it is unreadable. */
export function readDeployment(dataDir: string): DeploymentRecord | null {
  const path = deploymentPath(dataDir);
  if (!existsSync(path)) return null;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new DeploymentRecordError(`${path} is not valid JSON: delete it to redeploy`);
  }
  const parsed = recordSchema.safeParse(json);
  if (!parsed.success) {
    throw new DeploymentRecordError(`${path}: ${parsed.error.issues[0]?.path.join(".")} is invalid: delete it to redeploy`);
  }
  return parsed.data as DeploymentRecord;
}

/** Writes the record atomically (temp file, then rename) so a crash never leaves half a record. */
export function writeDeployment(dataDir: string, record: DeploymentRecord): void {
  mkdirSync(dataDir, { recursive: true });
  const path = deploymentPath(dataDir);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}
