// The ABIs are generated into the indexer (scripts/export-abis.mjs), which types its events with them.
export { PrizeDrawAbi } from "../../../indexer/abis/PrizeDrawAbi.js";
export { PrizeVaultAbi } from "../../../indexer/abis/PrizeVaultAbi.js";
export { PrizeDrawManagerAbi } from "../../../indexer/abis/PrizeDrawManagerAbi.js";
export { MockEntropyAbi } from "../../../indexer/abis/MockEntropyAbi.js";
export { TestStablecoinAbi } from "../../../indexer/abis/TestStablecoinAbi.js";
