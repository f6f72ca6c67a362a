// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessManaged} from "@openzeppelin/contracts/access/manager/AccessManaged.sol";

/// @title PrizeDrawAccess
/// @notice The engine's side of PrizeDrawManager: restricted functions ask the manager who may call them (the
/// operator's at once, the admin's after its delay), and the operator's actions on what is owed also wait out the
/// guardian's pause, whose flag lives in the vault.
abstract contract PrizeDrawAccess is AccessManaged {
    /// @notice An operator action that creates, releases or redirects what is owed, while the guardian's pause holds.
    error EnforcedPause();
    error ZeroAddress();

    /// @dev The operator's actions on obligations (registering a campaign, changing its large-prize threshold,
    /// commits, refusing a held prize, picking a guarantee): the role first, then the pause, so a stolen operator
    /// key can do none of them between the guardian's pause and the admin's resume.
    modifier operatorUnpaused() {
        _checkCanCall(_msgSender(), _msgData());
        _requireUnpaused();
        _;
    }

    constructor(address manager) AccessManaged(manager) {}

    /// @dev Reverts EnforcedPause while the vault's payments are paused.
    function _requireUnpaused() internal view virtual;
}
