// The ABIs are generated into the indexer (scripts/export-abis.mjs), which types its events with them.
export { PrizeDrawAbi } from "../../../indexer/abis/PrizeDrawAbi.js";
export { MockEntropyAbi } from "../../../indexer/abis/MockEntropyAbi.js";
export { TestStablecoinAbi } from "../../../indexer/abis/TestStablecoinAbi.js";
