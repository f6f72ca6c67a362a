import type { Hex, PublicClient } from "viem";
import { drawValue } from "../../api/src/draw/index.js";

/**
 * The value a drawing's prizes follow from, computed without the contract: Entropy's value mixed with the hash of
 * the block that holds the request (the commit's, or the re-request's), as the node reports that block.
 */
export async function drawValueAt(client: Pick<PublicClient, "getBlock">, requestBlock: bigint | string, entropyValue: Hex): Promise<Hex> {
  const block = await client.getBlock({ blockNumber: BigInt(requestBlock) });
  return drawValue(entropyValue, block.hash);
}
