// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title TestStablecoin
/// @notice A 6-decimal stand-in for USDC, used only in the test environment. Anyone can mint.
contract TestStablecoin is ERC20 {
    constructor() ERC20("Test USD", "tUSD") {}

    /// @notice 6 decimals, like USDC: one cent is 10^4 units.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Mints `amount` units to `to`. Test environment only: there is no access control.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
