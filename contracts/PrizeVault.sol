// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {AccessManaged} from "@openzeppelin/contracts/access/manager/AccessManaged.sol";

/// @title PrizeVault
/// @notice The prize pool: it alone holds the payout tokens, and every rule about what is owed, what may leave,
/// when and how much is here. Its drawing engine (PrizeDraw, which created it) tells it what becomes owed and
/// what to pay; the admin (through PrizeDrawManager's delay) sets limits and withdraws what nothing owes; the
/// guardian pauses.
/// @dev Invariants (each checked after every step by test/contracts/PrizeDraw.properties.test.ts):
/// 1. Owed money is backed: `owedCents` (every committed drawing's worst-case prizes until its payout, less the
///    held prizes already paid or refused; then its open held prizes; and every picked unpaid guarantee) never
///    exceeds the token balance in cents. A new obligation that would break this is refused (`ObligationNotBacked`) when it is created, at the
///    commit or the pick, never discovered at payout; a withdrawal cannot take what is owed.
/// 2. Bounded loss: every token transfer out (winners' payouts and the admin's withdrawals alike) passes `_spend`,
///    which draws on the overall allowance and, for a campaign's payments, on the campaign's. An allowance of limit
///    L holds at most L/2 and refills at L/2 per 24 hours, so what leaves in ANY 24-hour window is at most L
///    (the highest L in force during the window).
/// 3. A pause stops every transfer out from the next block until the admin resumes, and (through the engine's
///    `operatorUnpaused` check) every operator action that creates, releases or redirects an obligation.
/// 4. Only the engine changes what is owed, and only the admin's scheduled calls change the limits or withdraw:
///    no single key moves owed money (the admin's calls wait out its delay in public; the guardian can cancel).
contract PrizeVault is AccessManaged {
    using SafeERC20 for IERC20;

    /// @dev The refill period of an allowance.
    uint256 private constant DAY = 1 days;

    /// @notice A rolling limit: at most `limitCents` in any 24 hours. One slot.
    struct Allowance {
        uint64 limitCents;
        uint64 availableCents;
        uint40 updatedAt;
    }

    /// @dev One slot: the owed total, the overall allowance and the pause flag, all read by every payment.
    struct VaultState {
        uint64 owedCents;
        uint64 limitCents;
        uint64 availableCents;
        uint40 updatedAt;
        bool paused;
    }

    /// @notice The drawing engine that created this vault: the only account that changes what is owed.
    address public immutable engine;
    /// @notice The payout stablecoin.
    IERC20 public immutable token;
    /// @notice Token units per cent: 10^(decimals - 2).
    uint256 public immutable tokenUnitsPerCent;

    VaultState private _state;
    mapping(bytes32 campaignId => Allowance) private _campaignAllowances;
    /// @dev How many campaigns have a limit of their own: with none, a commit checks only the overall cap.
    uint256 private _campaignLimitCount;

    /// @notice The overall 24-hour limit (campaignId zero) or a campaign's (0 cents: no campaign limit) changed.
    event LimitChanged(bytes32 indexed campaignId, uint256 previousCents, uint256 newCents);
    /// @param by The guardian that paused.
    event PaymentsPaused(address indexed by);
    /// @param by The caller: the PrizeDrawManager, which executes the admin's scheduled resume.
    event PaymentsResumed(address indexed by);
    /// @notice Free tokens left the pool; `cents` (rounded up) was drawn from the overall allowance.
    event TokensWithdrawn(address indexed to, uint256 amount, uint256 cents);
    event NativeWithdrawn(address indexed to, uint256 amount);
    /// @notice What is owed changed by `reservedCents` more and `releasedCents` less (payments are in their events).
    event OwedChanged(uint256 reservedCents, uint256 releasedCents, uint256 owedCents);

    error NotEngine(address caller);
    error ZeroAddress();
    error UnsupportedTokenDecimals(uint8 decimals);
    error InvalidLimit(uint256 cents);
    error PaymentsArePaused();
    error NotPaused();
    /// @notice A transfer would take more than the 24-hour limit allows now (`campaignId` zero: the overall one).
    error LimitExceeded(bytes32 campaignId, uint256 cents, uint256 availableCents);
    /// @notice A new obligation would make what is owed exceed the pool.
    error ObligationNotBacked(uint256 owedCents, uint256 balanceCents);
    /// @notice A withdrawal would take tokens that are owed.
    error WithdrawalExceedsFree(uint256 amount, uint256 free);
    error NativeTransferFailed(address to, uint256 amount);

    modifier onlyEngine() {
        if (msg.sender != engine) revert NotEngine(msg.sender);
        _;
    }

    /// @param manager The PrizeDrawManager: the admin sets limits and withdraws, the guardian pauses.
    /// @param token_ The payout stablecoin; 2 to 36 decimals.
    /// @param dailyLimitCents The overall 24-hour limit on transfers out.
    constructor(address manager, address token_, uint256 dailyLimitCents) AccessManaged(manager) {
        if (token_ == address(0)) revert ZeroAddress();
        uint8 decimals = IERC20Metadata(token_).decimals();
        if (decimals < 2 || decimals > 36) revert UnsupportedTokenDecimals(decimals);
        engine = msg.sender;
        token = IERC20(token_);
        tokenUnitsPerCent = 10 ** (decimals - 2);
        _checkLimit(dailyLimitCents);
        _state.limitCents = uint64(dailyLimitCents);
        _state.availableCents = uint64(dailyLimitCents / 2);
        _state.updatedAt = uint40(block.timestamp);
        emit LimitChanged(bytes32(0), 0, dailyLimitCents);
    }

    // ------------------------------------------------------------------ the engine

    /// @notice Adds `reserveCents` to what is owed and takes `releaseCents` off it; refused when the result
    /// exceeds the pool (invariant 1). The engine reserves a drawing's worst case at its commit (released down to
    /// what the draw awarded at its payout), a guarantee at its pick, and releases a refused held prize.
    function adjustOwed(uint256 reserveCents, uint256 releaseCents) external onlyEngine {
        VaultState storage s = _state;
        uint256 owed = s.owedCents + reserveCents - releaseCents;
        if (reserveCents != 0) {
            uint256 balanceCents = token.balanceOf(address(this)) / tokenUnitsPerCent;
            if (owed > balanceCents) revert ObligationNotBacked(owed, balanceCents);
        }
        s.owedCents = uint64(owed);
        emit OwedChanged(reserveCents, releaseCents, owed);
    }

    /// @notice Pays owed `cents` of `campaignId` to `wallet`: not while paused, within both allowances; and takes
    /// `releaseCents` more off what is owed (a drawing's reserve that its draw did not award). The engine has
    /// already recorded the payment (checks-effects-interactions); the transfer comes last.
    function pay(bytes32 campaignId, address wallet, uint256 cents, uint256 releaseCents)
        external
        onlyEngine
        returns (uint256 amount)
    {
        _spend(campaignId, cents);
        uint256 owed = _state.owedCents - cents - releaseCents;
        _state.owedCents = uint64(owed);
        if (releaseCents != 0) emit OwedChanged(0, releaseCents, owed);
        amount = cents * tokenUnitsPerCent;
        if (amount != 0) token.safeTransfer(wallet, amount);
    }

    // ------------------------------------------------------------------ admin and guardian

    /// @notice Sets the overall 24-hour limit. What is still available is kept, up to the new half.
    function setDailyLimit(uint256 cents) external restricted {
        _checkLimit(cents);
        VaultState storage s = _state;
        uint256 available = _refilled(s.limitCents, s.availableCents, s.updatedAt);
        if (available > cents / 2) available = cents / 2;
        emit LimitChanged(bytes32(0), s.limitCents, cents);
        s.limitCents = uint64(cents);
        s.availableCents = uint64(available);
        s.updatedAt = uint40(block.timestamp);
    }

    /// @notice Sets a campaign's own 24-hour limit, on top of the overall one; 0 removes it.
    function setCampaignLimit(bytes32 campaignId, uint256 cents) external restricted {
        if (cents != 0) _checkLimit(cents);
        Allowance storage a = _campaignAllowances[campaignId];
        uint256 available = a.limitCents == 0 ? cents / 2 : _refilled(a.limitCents, a.availableCents, a.updatedAt);
        if (available > cents / 2) available = cents / 2;
        emit LimitChanged(campaignId, a.limitCents, cents);
        if (a.limitCents == 0 && cents != 0) ++_campaignLimitCount;
        else if (a.limitCents != 0 && cents == 0) --_campaignLimitCount;
        a.limitCents = uint64(cents);
        a.availableCents = uint64(available);
        a.updatedAt = uint40(block.timestamp);
    }

    /// @notice Stops every transfer out, and the operator's actions on what is owed, until the admin resumes.
    function pause() external restricted {
        _state.paused = true;
        emit PaymentsPaused(msg.sender);
    }

    /// @notice Resumes payments.
    function unpause() external restricted {
        if (!_state.paused) revert NotPaused();
        _state.paused = false;
        emit PaymentsResumed(msg.sender);
    }

    /// @notice Withdraws `amount` token units that nothing owed needs (the free balance; see `balances`), within
    /// the pause and the overall 24-hour limit like any payment.
    function withdrawTokens(address to, uint256 amount) external restricted {
        if (to == address(0)) revert ZeroAddress();
        uint256 free = _freeUnits();
        if (amount > free) revert WithdrawalExceedsFree(amount, free);
        uint256 cents = (amount + tokenUnitsPerCent - 1) / tokenUnitsPerCent;
        _spend(bytes32(0), cents);
        emit TokensWithdrawn(to, amount, cents);
        token.safeTransfer(to, amount);
    }

    /// @notice Withdraws native currency sent to the vault (none is owed to anyone).
    function withdrawNative(address payable to, uint256 amount) external restricted {
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
        owedCents = _state.owedCents;
        owedUnits = owedCents * tokenUnitsPerCent;
        freeUnits = tokenBalance > owedUnits ? tokenBalance - owedUnits : 0;
    }

    /// @notice The overall limit, what may leave now under it, and whether payments are paused.
    function paymentState() external view returns (uint256 limitCents, uint256 availableCents, bool isPaused) {
        VaultState storage s = _state;
        return (s.limitCents, _refilled(s.limitCents, s.availableCents, s.updatedAt), s.paused);
    }

    /// @notice A campaign's own limit (0: none) and what may leave now under it.
    function campaignAllowance(bytes32 campaignId) external view returns (uint256 limitCents, uint256 availableCents) {
        Allowance storage a = _campaignAllowances[campaignId];
        return (a.limitCents, _refilled(a.limitCents, a.availableCents, a.updatedAt));
    }

    /// @notice The largest single payment a campaign can ever make under the limits in force: half the overall
    /// limit, and half the campaign's when it has one (an allowance never holds more).
    function maxPaymentCents(bytes32 campaignId) external view returns (uint256 cents) {
        cents = _state.limitCents / 2;
        uint256 campaignLimit = _campaignAllowances[campaignId].limitCents;
        if (campaignLimit != 0 && campaignLimit / 2 < cents) cents = campaignLimit / 2;
    }

    /// @notice The largest single payment under the overall limit (half of it), and whether any campaign has a
    /// limit of its own (then `maxPaymentCents` may be lower for it).
    function paymentCaps() external view returns (uint256 overallCents, bool campaignLimits) {
        return (_state.limitCents / 2, _campaignLimitCount != 0);
    }

    /// @notice Whether payments (and the operator's actions on what is owed) are paused.
    function paused() external view returns (bool) {
        return _state.paused;
    }

    /// @notice Accepts native currency (randomness fees are paid by the committing operator, not from here).
    receive() external payable {}

    // ------------------------------------------------------------------ internals

    /// @dev Draws `cents` from the overall allowance and, for a campaign's payment, the campaign's: invariants 2, 3.
    function _spend(bytes32 campaignId, uint256 cents) private {
        VaultState storage s = _state;
        if (s.paused) revert PaymentsArePaused();
        uint256 available = _refilled(s.limitCents, s.availableCents, s.updatedAt);
        if (cents > available) revert LimitExceeded(bytes32(0), cents, available);
        if (campaignId != bytes32(0)) {
            Allowance storage a = _campaignAllowances[campaignId];
            if (a.limitCents != 0) {
                uint256 campaignAvailable = _refilled(a.limitCents, a.availableCents, a.updatedAt);
                if (cents > campaignAvailable) revert LimitExceeded(campaignId, cents, campaignAvailable);
                a.availableCents = uint64(campaignAvailable - cents);
                a.updatedAt = uint40(block.timestamp);
            }
        }
        s.availableCents = uint64(available - cents);
        s.updatedAt = uint40(block.timestamp);
    }

    /// @dev What an allowance holds now: capped at half the limit, refilled at half the limit per day.
    function _refilled(uint256 limitCents, uint256 availableCents, uint256 updatedAt) private view returns (uint256) {
        uint256 half = limitCents / 2;
        uint256 available = availableCents + (block.timestamp - updatedAt) * half / DAY;
        return available > half ? half : available;
    }

    function _freeUnits() private view returns (uint256) {
        uint256 balance = token.balanceOf(address(this));
        uint256 owed = uint256(_state.owedCents) * tokenUnitsPerCent;
        return balance > owed ? balance - owed : 0;
    }

    function _checkLimit(uint256 cents) private pure {
        // Two cents at least, so half of it is a whole cent; at most what 64 bits hold.
        if (cents < 2 || cents > type(uint64).max) revert InvalidLimit(cents);
    }
}
