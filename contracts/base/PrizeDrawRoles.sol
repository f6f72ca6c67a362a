// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";

/// @title PrizeDrawRoles
/// @notice Who may do what. Three roles, always held by three different accounts:
/// - the admin (DEFAULT_ADMIN_ROLE, one account, meant for a multisig): sets limits, resumes payments, withdraws
///   free funds, moves an unpaid drawing to a campaign's new wallet, grants the other roles. It moves only in two
///   steps with a delay: the admin starts a transfer, and the new account accepts it once `adminDelay` passed.
/// - the operator (OPERATOR_ROLE, the service's hot key): publishes tables, registers campaigns, commits lists,
///   pays or refuses held prizes, picks guarantees;
/// - the guardian (GUARDIAN_ROLE, a key kept for emergencies): pauses at once every payment and every operator
///   action that creates, releases or redirects what is owed (`onlyOperatorUnpaused`).
/// @dev A minimal form of OpenZeppelin's AccessControlDefaultAdminRules (its full form does not fit the code
/// size limit beside the rest of PrizeDraw): one admin, two steps, a fixed delay.
abstract contract PrizeDrawRoles is AccessControl {
    /// @notice The service's key.
    bytes32 public constant OPERATOR_ROLE = keccak256("OPERATOR_ROLE");
    /// @notice Pauses payments; only the admin resumes them.
    bytes32 public constant GUARDIAN_ROLE = keccak256("GUARDIAN_ROLE");

    /// @notice Seconds between starting an admin transfer and its acceptance.
    uint48 public immutable adminDelay;
    /// @notice The one holder of DEFAULT_ADMIN_ROLE.
    address public admin;
    /// @notice The account a started transfer moves the admin role to, and from when it may accept.
    address public pendingAdmin;
    uint48 public pendingAdminAcceptableAt;

    event AdminTransferStarted(address indexed newAdmin, uint48 acceptableAt);
    event AdminTransferCanceled(address indexed newAdmin);

    /// @notice `account` already holds `heldRole`; admin, operator and guardian must be distinct accounts.
    error RoleConflict(address account, bytes32 heldRole);
    /// @notice The admin role moves only through beginAdminTransfer and acceptAdminTransfer.
    error AdminTransferRequired();
    error NoAdminTransfer();
    error ZeroAddress();
    error AdminTransferNotReady(uint48 acceptableAt);

    /// @notice An operator action that creates, releases or redirects what is owed, while the guardian's pause holds.
    error EnforcedPause();

    /// @dev The operator's actions on obligations (registering a campaign, changing its large-prize threshold,
    /// commits, refusing a held prize, picking a guarantee): the role first, then the pause (Treasury's flag), so a
    /// stolen operator key can do none of them between the guardian's pause and the admin's resume.
    modifier onlyOperatorUnpaused() {
        _checkRole(OPERATOR_ROLE);
        _requireUnpaused();
        _;
    }

    constructor(uint48 adminDelay_, address admin_, address operator, address guardian) {
        adminDelay = adminDelay_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin_);
        _grantRole(OPERATOR_ROLE, operator);
        _grantRole(GUARDIAN_ROLE, guardian);
    }

    /// @notice Starts moving the admin role to `newAdmin` (replacing any transfer in progress).
    function beginAdminTransfer(address newAdmin) external onlyRole(DEFAULT_ADMIN_ROLE) {
        uint48 acceptableAt = uint48(block.timestamp) + adminDelay;
        pendingAdmin = newAdmin;
        pendingAdminAcceptableAt = acceptableAt;
        emit AdminTransferStarted(newAdmin, acceptableAt);
    }

    /// @notice Cancels the admin transfer in progress.
    function cancelAdminTransfer() external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (pendingAdmin == address(0)) revert NoAdminTransfer();
        emit AdminTransferCanceled(pendingAdmin);
        delete pendingAdmin;
        delete pendingAdminAcceptableAt;
    }

    /// @notice The pending admin takes the role once the delay passed; the previous admin loses it.
    function acceptAdminTransfer() external {
        address newAdmin = pendingAdmin;
        if (newAdmin == address(0) || msg.sender != newAdmin) revert NoAdminTransfer();
        if (block.timestamp < pendingAdminAcceptableAt) revert AdminTransferNotReady(pendingAdminAcceptableAt);
        delete pendingAdmin;
        delete pendingAdminAcceptableAt;
        _revokeRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(DEFAULT_ADMIN_ROLE, newAdmin);
    }

    /// @inheritdoc AccessControl
    function grantRole(bytes32 role, address account) public override onlyRole(getRoleAdmin(role)) {
        if (role == DEFAULT_ADMIN_ROLE) revert AdminTransferRequired();
        _grantRole(role, account);
    }

    /// @inheritdoc AccessControl
    function revokeRole(bytes32 role, address account) public override onlyRole(getRoleAdmin(role)) {
        if (role == DEFAULT_ADMIN_ROLE) revert AdminTransferRequired();
        _revokeRole(role, account);
    }

    /// @inheritdoc AccessControl
    function renounceRole(bytes32 role, address callerConfirmation) public override {
        if (role == DEFAULT_ADMIN_ROLE) revert AdminTransferRequired();
        super.renounceRole(role, callerConfirmation);
    }

    /// @dev Refuses to give one account two of the three roles, whichever way the role arrives.
    function _grantRole(bytes32 role, address account) internal override returns (bool) {
        if (account == address(0)) revert ZeroAddress();
        _refuseConflict(role, DEFAULT_ADMIN_ROLE, account);
        _refuseConflict(role, OPERATOR_ROLE, account);
        _refuseConflict(role, GUARDIAN_ROLE, account);
        if (role == DEFAULT_ADMIN_ROLE) admin = account;
        return super._grantRole(role, account);
    }

    /// @dev Reverts EnforcedPause while payments are paused (the flag lives with the money rules, in Treasury).
    function _requireUnpaused() internal view virtual;

    function _refuseConflict(bytes32 role, bytes32 other, address account) private view {
        if (role != other && hasRole(other, account)) revert RoleConflict(account, other);
    }
}
