// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessManager} from "@openzeppelin/contracts/access/manager/AccessManager.sol";
import {PrizeDraw} from "./PrizeDraw.sol";
import {PrizeVault} from "./PrizeVault.sol";
import {PrizeTables} from "./base/PrizeTables.sol";
import {Campaigns} from "./base/Campaigns.sol";

/// @title PrizeDrawManager
/// @notice Who may do what, for the drawing engine (PrizeDraw) and its vault (PrizeVault), with delays that let
/// the guardian see and cancel what the admin does. OpenZeppelin's AccessManager with three parties on three
/// different accounts:
/// - the admin (meant for a multisig) holds ADMIN_ROLE (the manager's own settings: roles, wiring) and
///   GOVERNOR_ROLE (the engine's and the vault's admin functions), both with an execution delay: every admin call
///   (granting or revoking a role, limits, withdrawals, moving a drawing's wallet, resuming payments, the
///   callback's gas, re-wiring a function to another role) waits `adminDelay` after `schedule`, in public, and
///   the guardian may `cancel` it meanwhile. `adminDelay` is at least MIN_ADMIN_DELAY.
/// - the operator (OPERATOR_ROLE, the service's hot key) calls the drawing's functions at once; a newly granted
///   operator (or admin) becomes one only `adminDelay` after the grant takes effect.
/// - the guardian (GUARDIAN_ROLE, a key kept for emergencies) pauses payments and the operator's actions on what
///   is owed at once, and cancels scheduled admin and operator-role operations. It moves no money.
/// @dev Deployment: the constructor grants the roles; the engine (which creates its vault) is deployed with this
/// manager as authority, then the deployer calls `wire` once to map the functions to roles. Until then no
/// restricted function of the engine or the vault can be called by anyone but the admin, through its delay.
contract PrizeDrawManager is AccessManager {
    /// @notice The service's key: commits, tables, campaigns, held-prize decisions, guarantee picks.
    uint64 public constant OPERATOR_ROLE = 1;
    /// @notice Pauses at once; cancels scheduled operations of the admin and operator roles.
    uint64 public constant GUARDIAN_ROLE = 2;
    /// @notice The admin's role for the engine's and the vault's admin functions (AccessManager locks ADMIN_ROLE's
    /// guardian, so the admin's calls run under this role, whose guardian is the guardian).
    uint64 public constant GOVERNOR_ROLE = 3;
    /// @notice The shortest admin delay (and grant delay of the admin and operator roles) this manager accepts.
    uint32 public constant MIN_ADMIN_DELAY = 1 days;
    /// @notice The longest: a longer one would make the admin unable to act within a scheduled operation's week.
    uint32 public constant MAX_ADMIN_DELAY = 30 days;

    /// @notice The account that may call `wire`, once; zero after it did. (Storage, not an immutable: solc 0.8.28's
    /// IR pipeline refuses this contract with one.)
    address public deployer;
    /// @notice The drawing engine `wire` mapped; zero until then.
    address public engine;

    /// @notice The engine's and its vault's functions were mapped to their roles.
    event Wired(address indexed engine, address indexed vault);

    /// @notice `account` already holds `heldRole`; admin, operator and guardian must be distinct accounts.
    error RoleConflict(address account, uint64 heldRole);
    /// @notice An admin delay (or a money role's grant delay) outside MIN_ADMIN_DELAY..MAX_ADMIN_DELAY.
    error AdminDelayOutOfRange(uint32 delay);
    error AlreadyWired();
    /// @notice The admin's roles cannot be renounced; they move by a transfer.
    error AdminRenounceRefused();
    error NotDeployer();
    error ZeroAddress();

    /// @param admin ADMIN_ROLE, with an execution delay of `adminDelay`.
    /// @param operator OPERATOR_ROLE, at once.
    /// @param guardian GUARDIAN_ROLE, at once; guardian of the admin and operator roles.
    /// @param adminDelay seconds every admin call waits after being scheduled, and a new admin or operator after
    /// its grant; MIN_ADMIN_DELAY to MAX_ADMIN_DELAY.
    constructor(address admin, address operator, address guardian, uint32 adminDelay) AccessManager(admin) {
        if (operator == address(0) || guardian == address(0)) revert ZeroAddress();
        _checkAdminDelay(adminDelay);
        deployer = msg.sender;
        // AccessManager granted the admin without a delay: give it its delay (a new delay for an existing member
        // takes effect at once only when raised, as here).
        _grantRole(ADMIN_ROLE, admin, 0, adminDelay);
        _grantRole(GOVERNOR_ROLE, admin, 0, adminDelay);
        _grantRole(OPERATOR_ROLE, operator, 0, 0);
        _grantRole(GUARDIAN_ROLE, guardian, 0, 0);
        _setRoleGuardian(GOVERNOR_ROLE, GUARDIAN_ROLE);
        _setRoleGuardian(OPERATOR_ROLE, GUARDIAN_ROLE);
        for (uint64 role; role <= GOVERNOR_ROLE; ++role) {
            _setGrantDelay(role, adminDelay);
        }
        // The manager's own admin functions are authorized by AccessManager's fixed rules (ADMIN_ROLE, or the
        // role's admin); mapping them to GOVERNOR_ROLE only tells `cancel` whose guardian may cancel them.
        bytes4[10] memory own = [
            this.grantRole.selector,
            this.revokeRole.selector,
            this.setRoleAdmin.selector,
            this.setRoleGuardian.selector,
            this.setGrantDelay.selector,
            this.setTargetAdminDelay.selector,
            this.setTargetFunctionRole.selector,
            this.setTargetClosed.selector,
            this.updateAuthority.selector,
            this.labelRole.selector
        ];
        for (uint256 i; i < own.length; ++i) {
            _setTargetFunctionRole(address(this), own[i], GOVERNOR_ROLE);
        }
    }

    /// @notice Maps every restricted function of the engine and its vault to its role, once, by the deployer, right
    /// after the engine's deployment: the operator's at once (OPERATOR_ROLE), the guardian's pause (GUARDIAN_ROLE),
    /// and the admin's (GOVERNOR_ROLE, after its delay). The map is this contract's: who may call what is read in
    /// one place (`operatorSelectors`, `adminSelectors`, `vaultOperatorSelectors`, `vaultAdminSelectors`,
    /// `vaultGuardianSelectors`).
    /// @param engine_ The PrizeDraw deployed with this manager as its authority.
    function wire(address engine_) external {
        if (engine != address(0)) revert AlreadyWired();
        if (msg.sender != deployer) revert NotDeployer();
        if (engine_ == address(0)) revert ZeroAddress();
        engine = engine_;
        delete deployer;
        address vault = address(PrizeDraw(engine_).vault());
        _mapAll(engine_, operatorSelectors(), OPERATOR_ROLE);
        _mapAll(engine_, adminSelectors(), GOVERNOR_ROLE);
        _mapAll(vault, vaultOperatorSelectors(), OPERATOR_ROLE);
        _mapAll(vault, vaultAdminSelectors(), GOVERNOR_ROLE);
        _mapAll(vault, vaultGuardianSelectors(), GUARDIAN_ROLE);
        emit Wired(engine_, vault);
    }

    /// @notice The engine's functions the operator calls at once.
    function operatorSelectors() public pure returns (bytes4[] memory selectors) {
        selectors = new bytes4[](7);
        selectors[0] = PrizeTables.publishPrizeTable.selector;
        selectors[1] = Campaigns.registerCampaign.selector;
        selectors[2] = Campaigns.setPayoutWallet.selector;
        selectors[3] = Campaigns.setLargePrizeThreshold.selector;
        selectors[4] = PrizeDraw.commitAndRequest.selector;
        selectors[5] = PrizeDraw.recordWinners.selector;
        selectors[6] = PrizeDraw.reRequest.selector;
    }

    /// @notice The engine's admin functions (scheduled, delayed, cancellable by the guardian).
    function adminSelectors() public pure returns (bytes4[] memory selectors) {
        selectors = new bytes4[](2);
        selectors[0] = PrizeDraw.setCallbackGasLimit.selector;
        selectors[1] = PrizeDraw.moveDrawingWallet.selector;
    }

    /// @notice The vault's functions the operator calls at once: held-prize decisions and guarantee picks.
    function vaultOperatorSelectors() public pure returns (bytes4[] memory selectors) {
        selectors = new bytes4[](3);
        selectors[0] = PrizeVault.payHeldPrize.selector;
        selectors[1] = PrizeVault.refuseHeldPrize.selector;
        selectors[2] = PrizeVault.pickGuarantee.selector;
    }

    /// @notice The vault's admin functions (as `adminSelectors`).
    function vaultAdminSelectors() public pure returns (bytes4[] memory selectors) {
        selectors = new bytes4[](6);
        selectors[0] = PrizeVault.setDailyLimit.selector;
        selectors[1] = PrizeVault.setCampaignLimit.selector;
        selectors[2] = PrizeVault.unpause.selector;
        selectors[3] = PrizeVault.withdrawTokens.selector;
        selectors[4] = PrizeVault.withdrawNative.selector;
        selectors[5] = PrizeVault.moveGuaranteeWallet.selector;
    }

    /// @notice The vault's functions the guardian calls at once: the pause.
    function vaultGuardianSelectors() public pure returns (bytes4[] memory selectors) {
        selectors = new bytes4[](1);
        selectors[0] = PrizeVault.pause.selector;
    }

    /// @notice AccessManager's grant, keeping the three roles on three accounts and the admin's delay in range.
    function grantRole(uint64 roleId, address account, uint32 executionDelay) public override {
        if (roleId == ADMIN_ROLE || roleId == GOVERNOR_ROLE) _checkAdminDelay(executionDelay);
        super.grantRole(roleId, account, executionDelay);
    }

    /// @notice AccessManager's grant delay, kept in range for the admin, operator and guardian roles.
    function setGrantDelay(uint64 roleId, uint32 newDelay) public override {
        if (roleId <= GOVERNOR_ROLE) _checkAdminDelay(newDelay);
        super.setGrantDelay(roleId, newDelay);
    }

    /// @notice AccessManager's renounce, refused for the admin's two roles: the admin leaves only by a transfer
    /// (the new admin's scheduled revoke), never leaving the engine and the vault without one.
    function renounceRole(uint64 roleId, address callerConfirmation) public override {
        if (_party(roleId) == ADMIN_ROLE) revert AdminRenounceRefused();
        super.renounceRole(roleId, callerConfirmation);
    }

    /// @dev Refuses one account two of the three parties' roles, whichever way the role arrives.
    function _grantRole(uint64 roleId, address account, uint32 grantDelay, uint32 executionDelay)
        internal
        override
        returns (bool)
    {
        if (account == address(0)) revert ZeroAddress();
        // A grant still waiting out its grant delay counts: two grants run back to back must not give one account
        // two parties' roles once both take effect.
        for (uint64 other; other <= GOVERNOR_ROLE; ++other) {
            if (_party(other) == _party(roleId)) continue;
            (uint48 since,,,) = getAccess(other, account);
            if (since != 0) revert RoleConflict(account, other);
        }
        return super._grantRole(roleId, account, grantDelay, executionDelay);
    }

    /// @dev The constructor's grant delays take effect at once; later changes keep AccessManager's 5-day setback.
    function minSetback() public view override returns (uint32) {
        return address(this).code.length == 0 ? 0 : super.minSetback();
    }

    /// @dev The party a role belongs to: GOVERNOR_ROLE is the admin's, like ADMIN_ROLE.
    function _party(uint64 roleId) private pure returns (uint64) {
        return roleId == GOVERNOR_ROLE ? ADMIN_ROLE : roleId;
    }

    function _mapAll(address target, bytes4[] memory selectors, uint64 roleId) private {
        for (uint256 i; i < selectors.length; ++i) {
            _setTargetFunctionRole(target, selectors[i], roleId);
        }
    }

    function _checkAdminDelay(uint32 delay) private pure {
        if (delay < MIN_ADMIN_DELAY || delay > MAX_ADMIN_DELAY) revert AdminDelayOutOfRange(delay);
    }
}
