import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Hex } from "viem";
import { REPO_ROOT } from "../paths.js";

const ARTIFACTS = {
  PrizeDraw: "artifacts/contracts/PrizeDraw.sol/PrizeDraw.json",
  PrizeDrawManager: "artifacts/contracts/PrizeDrawManager.sol/PrizeDrawManager.json",
  MockEntropy: "artifacts/@pythnetwork/entropy-sdk-solidity/MockEntropy.sol/MockEntropy.json",
  TestStablecoin: "artifacts/contracts/test/TestStablecoin.sol/TestStablecoin.json",
  TestEntropyV2: "artifacts/contracts/test/TestEntropyV2.sol/TestEntropyV2.json",
  BlacklistStablecoin: "artifacts/contracts/test/BlacklistStablecoin.sol/BlacklistStablecoin.json",
} as const;

export type ContractName = keyof typeof ARTIFACTS;

export class ArtifactMissingError extends Error {
  readonly code = "artifact_missing";
  override name = "ArtifactMissingError";
}

/** Creation bytecode from Hardhat's artifacts (`npx hardhat compile`). */
export function bytecodeOf(name: ContractName): Hex {
  const path = join(REPO_ROOT, ARTIFACTS[name]);
  try {
    return (JSON.parse(readFileSync(path, "utf8")) as { bytecode: Hex }).bytecode;
  } catch {
    throw new ArtifactMissingError(`${path} is missing: run npx hardhat compile`);
  }
}
