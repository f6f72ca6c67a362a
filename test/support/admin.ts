import { createPublicClient, createWalletClient, encodeFunctionData, http, type Abi, type Address, type Hex, type TransactionReceipt } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { PrizeDrawManagerAbi } from "../../api/src/chain/abis.js";
import { ANVIL_KEYS } from "../../api/src/config.js";
import type { DeploymentRecord } from "../../api/src/chain/deployment.js";
import { jsonRpc } from "./processes.js";

/** deployLocal's admin delay (PrizeDrawManager.MIN_ADMIN_DELAY): every admin call waits this long onchain. */
export const LOCAL_ADMIN_DELAY_SECONDS = 86_400;

export type AdminCall = { address: Address; abi: Abi; functionName: string; args?: readonly unknown[] };

/**
 * An admin call on the local chain as the admin must make it: scheduled through the PrizeDrawManager, anvil's clock
 * moved past the admin delay (one block mined), then executed. Returns the execution's receipt (status "success" or
 * a revert surfaced by viem).
 */
export async function asAdmin(deployment: DeploymentRecord, rpcUrl: string, call: AdminCall): Promise<TransactionReceipt> {
  const manager = deployment.manager;
  if (manager === undefined) throw new Error("the deployment record names no PrizeDrawManager");
  const chain = { id: deployment.chainId, name: "anvil", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } };
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });
  const admin = createWalletClient({ account: privateKeyToAccount(ANVIL_KEYS.admin), chain, transport: http(rpcUrl) });
  const data: Hex = encodeFunctionData({ abi: call.abi, functionName: call.functionName, args: call.args ?? [] } as Parameters<typeof encodeFunctionData>[0]);
  const scheduled = await publicClient.waitForTransactionReceipt({
    hash: await admin.writeContract({ address: manager, abi: PrizeDrawManagerAbi, functionName: "schedule", args: [call.address, data, 0] }),
  });
  if (scheduled.status !== "success") throw new Error(`scheduling ${call.functionName} failed`);
  await jsonRpc(rpcUrl, "evm_increaseTime", [LOCAL_ADMIN_DELAY_SECONDS]);
  await jsonRpc(rpcUrl, "evm_mine");
  return publicClient.waitForTransactionReceipt({
    hash: await admin.writeContract({ address: manager, abi: PrizeDrawManagerAbi, functionName: "execute", args: [call.address, data] }),
  });
}
