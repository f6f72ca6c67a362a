// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {PrizeDrawRoles} from "./PrizeDrawRoles.sol";

/// @title Treasury
/// @notice Every rule about money, in one place: what is owed, what may leave, when, and how much.
/// @dev Invariants (checked after every step by test/contracts/PrizeDraw.properties.test.ts, which lists the same):
/// 1. Owed money is reserved: `owedCents` is the sum of settled-but-unpaid drawing payouts, unpaid and unrefused
///    held prizes, and picked-but-unpaid guarantees; the admin can never withdraw below it, so the token balance
///    stays at least owedCents x tokenUnitsPerCent as long as the pool covers what is settled.
/// 2. Bounded loss: every token transfer to a winner's wallet passes `_pay`, which draws on the overall
///    allowance and on the campaign's (when the admin set one). An allowance of limit L holds at most L/2 and
///    refills at L/2 per 24 hours, so what leaves in ANY 24-hour window is at most L/2 + L/2 = L, exactly (the
///    highest L in force during the window when the admin changes it), overall and per campaign.
/// 3. A pause stops every payment from the next block until the admin resumes; only the admin resumes. It also stops
///    every operator action that creates, releases or redirects an obligation (`onlyOperatorUnpaused`: campaign
///    registration, threshold changes, commits, held-prize refusals, guarantee picks), so a stolen operator key
///    can add nothing owed, and take nothing off it, while the pause holds. A campaign's wallet may still change
///    (for the recovery of a compromised wallet): that alone moves nothing owed (invariant 6).
/// 4. Every obligation is created and discharged once: a position is settled once, a drawing is paid once, a
///    held prize is paid or refused once, and a guarantee period is picked once, for exactly the registered
///    amount, and paid once.
/// 5. Drawing numbers are gapless per campaign: 1, 2, 3... as commits succeed (see Campaigns).
/// 6. No key alone redirects owed money: a wallet move (PrizeDraw's `moveDrawingWallet`, `moveGuaranteeWallet`) names
///    its destination, which must be the campaign's payout wallet, set by the operator; the admin's call and the
///    operator's setting must agree, so a stolen operator key changing the wallet first makes the move revert.
abstract contract Treasury is PrizeDrawRoles {
    using SafeERC20 for IERC20;

    /// @dev The refill period of an allowance.
    uint256 private constant DAY = 1 days;

    /// @notice A rolling limit: at most `limitCents` in any 24 hours (see the invariants above).
    /// @dev One slot.
    struct Allowance {
        uint64 limitCents;
        uint64 availableCents;
        uint40 updatedAt;
    }

    /// @dev One slot: the owed total, the overall allowance and the pause flag, all read by every payment.
    struct TreasuryState {
        uint64 owedCents;
        uint64 limitCents;
        uint64 availableCents;
        uint40 updatedAt;
        bool paused;
    }

    /// @notice The payout stablecoin.
    IERC20 public immutable token;
    /// @notice Token units per cent: 10^(decimals - 2).
    uint256 public immutable tokenUnitsPerCent;

    TreasuryState private _treasury;
    mapping(bytes32 campaignId => Allowance) private _campaignAllowances;

    /// @notice The overall 24-hour limit (campaignId zero) or a campaign's (0 cents: no campaign limit) changed.
    event LimitChanged(bytes32 indexed campaignId, uint256 previousCents, uint256 newCents);
    event PaymentsPaused(address indexed by);
    event PaymentsResumed(address indexed by);
    event TokensWithdrawn(address indexed to, uint256 amount);
    event NativeWithdrawn(address indexed to, uint256 amount);

    error UnsupportedTokenDecimals(uint8 decimals);
    error InvalidLimit(uint256 cents);
    error PaymentsArePaused();
    error NotPaused();
    /// @notice A payment would take more than the 24-hour limit allows now (`campaignId` zero: the overall one).
    error LimitExceeded(bytes32 campaignId, uint256 cents, uint256 availableCents);
    /// @notice A withdrawal would take tokens that are owed to prizes and guarantees.
    error WithdrawalExceedsFree(uint256 amount, uint256 free);
    error NativeTransferFailed(address to, uint256 amount);

    /// @param token_ The payout stablecoin; at least 2 decimals.
    /// @param dailyLimitCents The overall 24-hour limit on payments.
    constructor(address token_, uint256 dailyLimitCents) {
        if (token_ == address(0)) revert ZeroAddress();
        uint8 decimals = IERC20Metadata(token_).decimals();
        if (decimals < 2 || decimals > 36) revert UnsupportedTokenDecimals(decimals);
        token = IERC20(token_);
        tokenUnitsPerCent = 10 ** (decimals - 2);
        _checkLimit(dailyLimitCents);
        _treasury.limitCents = uint64(dailyLimitCents);
        _treasury.availableCents = uint64(dailyLimitCents / 2);
        _treasury.updatedAt = uint40(block.timestamp);
        emit LimitChanged(bytes32(0), 0, dailyLimitCents);
    }

    /// @notice Accepts native currency (randomness fees are paid by the committing operator, not from here).
    receive() external payable {}

    // ------------------------------------------------------------------ admin and guardian

    /// @notice Sets the overall 24-hour payment limit. What is still available is kept, up to the new half.
    function setDailyLimit(uint256 cents) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _checkLimit(cents);
        TreasuryState storage t = _treasury;
        uint256 available = _refilled(t.limitCents, t.availableCents, t.updatedAt);
        if (available > cents / 2) available = cents / 2;
        emit LimitChanged(bytes32(0), t.limitCents, cents);
        t.limitCents = uint64(cents);
        t.availableCents = uint64(available);
        t.updatedAt = uint40(block.timestamp);
    }

    /// @notice Sets a campaign's own 24-hour limit, on top of the overall one; 0 removes it.
    function setCampaignLimit(bytes32 campaignId, uint256 cents) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (cents != 0) _checkLimit(cents);
        Allowance storage a = _campaignAllowances[campaignId];
        uint256 available = a.limitCents == 0 ? cents / 2 : _refilled(a.limitCents, a.availableCents, a.updatedAt);
        if (available > cents / 2) available = cents / 2;
        emit LimitChanged(campaignId, a.limitCents, cents);
        a.limitCents = uint64(cents);
        a.availableCents = uint64(available);
        a.updatedAt = uint40(block.timestamp);
    }

    /// @notice Stops every payment (drawing payouts, held prizes, guarantees), and the operator's actions on what is
    /// owed, until the admin resumes.
    function pause() external {
        if (!hasRole(GUARDIAN_ROLE, msg.sender) && !hasRole(DEFAULT_ADMIN_ROLE, msg.sender)) {
            revert AccessControlUnauthorizedAccount(msg.sender, GUARDIAN_ROLE);
        }
        _treasury.paused = true;
        emit PaymentsPaused(msg.sender);
    }

    /// @notice Resumes payments.
    function unpause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (!_treasury.paused) revert NotPaused();
        _treasury.paused = false;
        emit PaymentsResumed(msg.sender);
    }

    /// @notice Withdraws payout tokens that nothing owed needs (the free balance; see `balances`).
    function withdrawTokens(address to, uint256 amount) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (to == address(0)) revert ZeroAddress();
        uint256 free = _freeUnits();
        if (amount > free) revert WithdrawalExceedsFree(amount, free);
        emit TokensWithdrawn(to, amount);
        token.safeTransfer(to, amount);
    }

    /// @notice Withdraws native currency sent to the contract.
    function withdrawNative(address payable to, uint256 amount) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (to == address(0)) revert ZeroAddress();
        emit NativeWithdrawn(to, amount);
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert NativeTransferFailed(to, amount);
    }

    // ------------------------------------------------------------------ views

    /// @notice The token balance, what of it is owed (in cents and token units) and what is free to withdraw.
    function balances()
        external
        view
        returns (uint256 tokenBalance, uint256 owedCents, uint256 owedUnits, uint256 freeUnits)
    {
        tokenBalance = token.balanceOf(address(this));
        owedCents = _treasury.owedCents;
        owedUnits = owedCents * tokenUnitsPerCent;
        freeUnits = tokenBalance > owedUnits ? tokenBalance - owedUnits : 0;
    }

    /// @notice The overall limit, what may leave now under it, and whether payments are paused.
    function paymentState() external view returns (uint256 limitCents, uint256 availableCents, bool paused) {
        TreasuryState storage t = _treasury;
        return (t.limitCents, _refilled(t.limitCents, t.availableCents, t.updatedAt), t.paused);
    }

    /// @notice A campaign's own limit (0: none) and what may leave now under it.
    function campaignAllowance(bytes32 campaignId) external view returns (uint256 limitCents, uint256 availableCents) {
        Allowance storage a = _campaignAllowances[campaignId];
        return (a.limitCents, _refilled(a.limitCents, a.availableCents, a.updatedAt));
    }

    // ------------------------------------------------------------------ internal money rules

    /// @dev Settled prizes and picked guarantees become owed.
    function _reserve(uint256 cents) internal {
        _treasury.owedCents += uint64(cents);
    }

    /// @dev A refused held prize is no longer owed.
    function _release(uint256 cents) internal {
        _treasury.owedCents -= uint64(cents);
    }

    /// @dev Pays owed `cents` of `campaignId` to `wallet`: not while paused, within both allowances. The caller
    /// has already recorded the payment (checks-effects-interactions); the transfer comes last.
    function _pay(bytes32 campaignId, address wallet, uint256 cents) internal returns (uint256 amount) {
        TreasuryState storage t = _treasury;
        if (t.paused) revert PaymentsArePaused();
        uint256 available = _refilled(t.limitCents, t.availableCents, t.updatedAt);
        if (cents > available) revert LimitExceeded(bytes32(0), cents, available);
        Allowance storage a = _campaignAllowances[campaignId];
        if (a.limitCents != 0) {
            uint256 campaignAvailable = _refilled(a.limitCents, a.availableCents, a.updatedAt);
            if (cents > campaignAvailable) revert LimitExceeded(campaignId, cents, campaignAvailable);
            a.availableCents = uint64(campaignAvailable - cents);
            a.updatedAt = uint40(block.timestamp);
        }
        t.owedCents -= uint64(cents);
        t.availableCents = uint64(available - cents);
        t.updatedAt = uint40(block.timestamp);
        amount = cents * tokenUnitsPerCent;
        if (amount != 0) token.safeTransfer(wallet, amount);
    }

    /// @inheritdoc PrizeDrawRoles
    function _requireUnpaused() internal view override {
        if (_treasury.paused) revert EnforcedPause();
    }

    /// @dev What an allowance holds now: capped at half the limit, refilled at half the limit per day.
    function _refilled(uint256 limitCents, uint256 availableCents, uint256 updatedAt) private view returns (uint256) {
        uint256 half = limitCents / 2;
        uint256 available = availableCents + (block.timestamp - updatedAt) * half / DAY;
        return available > half ? half : available;
    }

    function _freeUnits() private view returns (uint256) {
        uint256 balance = token.balanceOf(address(this));
        uint256 owed = uint256(_treasury.owedCents) * tokenUnitsPerCent;
        return balance > owed ? balance - owed : 0;
    }

    function _checkLimit(uint256 cents) private pure {
        // Two cents at least, so half of it is a whole cent; at most what 64 bits hold.
        if (cents < 2 || cents > type(uint64).max) revert InvalidLimit(cents);
    }
}
