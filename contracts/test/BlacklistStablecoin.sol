// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title BlacklistStablecoin
/// @notice TEST-ONLY 6-decimal stablecoin whose issuer can blacklist an account, like USDC: transfers to or from a
/// blacklisted account revert (a blacklisted prize vault can pay nobody). Anyone can mint and blacklist here.
contract BlacklistStablecoin is ERC20 {
    error Blacklisted(address account);

    mapping(address account => bool) public isBlacklisted;

    constructor() ERC20("Blacklist USD", "bUSD") {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function blacklist(address account) external {
        isBlacklisted[account] = true;
    }

    function unblacklist(address account) external {
        isBlacklisted[account] = false;
    }

    function _update(address from, address to, uint256 value) internal override {
        if (isBlacklisted[from]) revert Blacklisted(from);
        if (isBlacklisted[to]) revert Blacklisted(to);
        super._update(from, to, value);
    }
}
