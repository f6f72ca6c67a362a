import { parseAbi } from "viem";

/**
 * The test token that blacklists like USDC (contracts/test/BlacklistStablecoin.sol): transfers to or from a
 * blacklisted account revert. Stacks started with `deploy: { token: "blacklist" }` use it.
 */
export const BlacklistStablecoinAbi = parseAbi([
  "function blacklist(address account)",
  "function unblacklist(address account)",
  "function isBlacklisted(address account) view returns (bool)",
  "function balanceOf(address account) view returns (uint256)",
]);
