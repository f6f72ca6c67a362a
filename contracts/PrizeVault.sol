// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {AccessManaged} from "@openzeppelin/contracts/access/manager/AccessManaged.sol";
import {IDrawingEngine} from "./interfaces/IDrawingEngine.sol";

/// @title PrizeVault
/// @notice The prize pool: it alone holds the payout tokens, and every rule about what is owed, what may leave,
/// when and how much is here. Its drawing engine (PrizeDraw, which created it) tells it what a commit makes owed
/// and what a drawing's automatic payout is; held prizes (paid or refused one by one after the operator's checks)
/// and guarantees (picked once per finished period, then paid) are decided here, from facts the engine reports
/// (IDrawingEngine). The admin (through PrizeDrawManager's delay) sets limits, moves a guarantee's wallet and
/// withdraws what nothing owes; the guardian pauses.
/// @dev Invariants (each checked after every step by test/contracts/PrizeDraw.properties.test.ts):
/// 1. Owed money is backed: `owedCents` (every committed drawing's worst-case prizes until its payout, less the
///    held prizes already paid or refused; then its open held prizes; and every picked unpaid guarantee) never
///    exceeds the token balance in cents. A new obligation that would break this is refused (`ObligationNotBacked`) when it is created, at the
///    commit or the pick, never discovered at payout; a withdrawal cannot take what is owed.
/// 2. Bounded loss: every token transfer out (winners' payouts and the admin's withdrawals alike) passes `_spend`,
///    which draws on the overall allowance and, for a campaign's payments, on the campaign's. An allowance of limit
///    L holds at most L/2 and refills at L/2 per 24 hours, so what leaves in ANY 24-hour window is at most L
///    (the highest L in force during the window).
/// 3. A pause stops every transfer out from the next block until the admin resumes, and every operator action that
///    creates, releases or redirects an obligation: the engine's (`operatorUnpaused`: registrations, thresholds,
///    commits) and this vault's (held-prize refusals, guarantee picks).
/// 4. Only the engine's commits and payouts, and the operator's held-prize decisions and guarantee picks here,
///    change what is owed; only the admin's scheduled calls change the limits, move a guarantee or withdraw: no
///    single key moves owed money (the admin's calls wait out its delay in public; the guardian can cancel).
/// 5. Paid once: a held prize is closed (paid or refused) at most once, a guarantee period is picked at most once
///    and paid at most once, and a guarantee period is picked only after its end in block time.
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

    /// @notice A held prize: Open (owed) until the operator pays or refuses it.
    enum HeldState {
        Open,
        Paid,
        Refused
    }

    /// @notice A guarantee period's payment.
    enum GuaranteeStatus {
        None,
        Picked,
        Paid
    }

    /// @dev One slot.
    struct GuaranteePayment {
        address wallet;
        uint64 amountCents;
        GuaranteeStatus status;
    }

    /// @dev One slot: the owed total, the overall allowance and the pause flag, all read by every payment.
    struct VaultState {
        uint64 owedCents;
        uint64 limitCents;
        uint64 availableCents;
        uint40 updatedAt;
        bool paused;
    }

    /// @notice The drawing engine that created this vault: its commits and payouts change what is owed, and it
    /// reports the facts held prizes and guarantees are checked against.
    address public immutable engine;
    /// @notice The payout stablecoin.
    IERC20 public immutable token;
    /// @notice Token units per cent: 10^(decimals - 2).
    uint256 public immutable tokenUnitsPerCent;

    VaultState private _state;
    mapping(bytes32 campaignId => Allowance) private _campaignAllowances;
    /// @dev How many campaigns have a limit of their own: with none, a commit checks only the overall cap.
    uint256 private _campaignLimitCount;
    mapping(bytes32 campaignId => mapping(uint64 number => mapping(uint256 position => HeldState))) private _held;
    /// @dev Held prizes of a drawing paid or refused so far.
    mapping(bytes32 campaignId => mapping(uint64 number => uint256 closed)) private _heldClosed;
    mapping(bytes32 campaignId => mapping(uint32 period => GuaranteePayment)) private _guarantees;

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
    /// @notice A held prize was paid, after the operator's checks, to the drawing's wallet.
    event HeldPrizePaid(
        bytes32 indexed campaignId,
        uint64 indexed number,
        uint256 position,
        address wallet,
        uint256 amountCents,
        uint256 tokenAmount
    );
    /// @notice The operator refused a held prize after its checks; the amount is no longer owed.
    event HeldPrizeRefused(bytes32 indexed campaignId, uint64 indexed number, uint256 position, uint256 amountCents, string reason);
    /// @notice A guarantee of a finished period is owed to the campaign's wallet of this moment.
    event GuaranteePicked(bytes32 indexed campaignId, uint32 indexed period, bytes32 winnerHash, address wallet, uint256 amountCents);
    /// @notice A picked guarantee was paid to the wallet recorded at its pick (or where the admin moved it).
    event GuaranteePaid(
        bytes32 indexed campaignId, uint32 indexed period, address wallet, uint256 amountCents, uint256 tokenAmount
    );
    /// @notice The admin moved a picked, unpaid guarantee to the campaign's current wallet, which it named.
    event GuaranteeWalletMoved(bytes32 indexed campaignId, uint32 indexed period, address previousWallet, address newWallet);

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
    /// @notice An operator action that creates, releases or redirects what is owed, while the guardian's pause holds.
    error EnforcedPause();
    /// @notice The held prize was already paid or refused: it is closed once.
    error HeldPrizeClosed(bytes32 campaignId, uint64 number, uint256 position);
    /// @notice A refusal names its reason, for the record.
    error ReasonRequired();
    /// @notice The campaign was registered without a guarantee.
    error NoGuarantee(bytes32 campaignId);
    /// @notice Every period that can need a guarantee holds a committed drawing: `period` must be below
    /// `committedDrawings`.
    error GuaranteePeriodNotDrawn(bytes32 campaignId, uint32 period, uint32 committedDrawings);
    /// @notice Period `period` ends in block time at `endsAt` at the earliest (`guaranteePeriodEnd`).
    error GuaranteePeriodNotEnded(bytes32 campaignId, uint32 period, uint256 endsAt);
    /// @notice A period's guarantee is picked once.
    error GuaranteeAlreadyPicked(bytes32 campaignId, uint32 period);
    /// @notice Only a picked, unpaid guarantee can be paid or moved.
    error GuaranteeNotPicked(bytes32 campaignId, uint32 period);
    /// @notice A period's guarantee is paid once.
    error GuaranteeAlreadyPaid(bytes32 campaignId, uint32 period);
    /// @notice A pick names its winner's hash (keccak256 of the id), never zero.
    error InvalidWinnerHash();
    /// @notice The campaign has no payout wallet to owe the guarantee to.
    error PayoutWalletRequired(bytes32 campaignId);
    /// @notice A guarantee of `cents` is more than one payment may ever be under the limits (`maxCents`: half the
    /// overall 24-hour limit, or of the campaign's); raise the limit.
    error PayoutAboveLimit(bytes32 campaignId, uint64 period, uint256 worstCents, uint256 maxCents);
    /// @notice The guarantee is already owed to that wallet.
    error NothingToMove(bytes32 campaignId, uint64 period);
    /// @notice A wallet move named `to`, but the campaign's payout wallet is `campaignWallet`.
    error MoveDestinationMismatch(bytes32 campaignId, address to, address campaignWallet);

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
    /// what the draw awarded at its payout).
    function adjustOwed(uint256 reserveCents, uint256 releaseCents) external onlyEngine {
        _adjustOwed(reserveCents, releaseCents);
    }

    /// @notice Pays owed `cents` of `campaignId` to `wallet`: not while paused, within both allowances; and takes
    /// `releaseCents` more off what is owed (a drawing's reserve that its draw did not award). The engine has
    /// already recorded the payment (checks-effects-interactions); the transfer comes last.
    function pay(bytes32 campaignId, address wallet, uint256 cents, uint256 releaseCents)
        external
        onlyEngine
        returns (uint256 amount)
    {
        return _payOwed(campaignId, wallet, cents, releaseCents);
    }

    // ------------------------------------------------------------------ held prizes (the operator's checks)

    /// @notice Pays one held prize (at or above its drawing's large-prize threshold), once, after the operator's
    /// checks, to the drawing's wallet (the one recorded at commit, or where the admin moved the drawing). Within
    /// the pause and the limits like every payment.
    function payHeldPrize(bytes32 campaignId, uint64 number, uint256 position) external restricted {
        (address wallet, uint256 cents) = _closeHeld(campaignId, number, position, HeldState.Paid);
        emit HeldPrizePaid(campaignId, number, position, wallet, cents, cents * tokenUnitsPerCent);
        _payOwed(campaignId, wallet, cents, 0);
    }

    /// @notice Refuses one held prize after the operator's checks, with the reason on the record; the amount is no
    /// longer owed. Not while paused: a stolen operator key could otherwise release every held prize for the
    /// admin's withdrawal.
    function refuseHeldPrize(bytes32 campaignId, uint64 number, uint256 position, string calldata reason)
        external
        restricted
    {
        _requireUnpaused();
        if (bytes(reason).length == 0) revert ReasonRequired();
        (, uint256 cents) = _closeHeld(campaignId, number, position, HeldState.Refused);
        emit HeldPrizeRefused(campaignId, number, position, cents, reason);
        _adjustOwed(0, cents);
    }

    // ------------------------------------------------------------------ guarantees

    /// @notice Records the guarantee of `period` (0-based) as owed to the campaign's current wallet: exactly the
    /// registered amount, once per period, and only once the period has ended in block time
    /// (`guaranteePeriodEnd`, counted from the campaign's registration). Every period that can need a guarantee
    /// also holds at least one committed drawing, so `period` must be below the campaign's committed drawings. A
    /// key cannot mint payments for periods that never ran: at most one guarantee per period of real time, each
    /// within what one payment may be under the limits, and refused when the pool cannot back it. Not while paused.
    /// @param winnerHash keccak256 of the picked winner's id, for the record.
    function pickGuarantee(bytes32 campaignId, uint32 period, bytes32 winnerHash) external restricted {
        _requireUnpaused();
        IDrawingEngine.GuaranteeTerms memory terms = IDrawingEngine(engine).guaranteeTerms(campaignId);
        uint256 cents = terms.amountCents;
        if (cents == 0) revert NoGuarantee(campaignId);
        if (winnerHash == bytes32(0)) revert InvalidWinnerHash();
        if (period >= terms.committedDrawings) revert GuaranteePeriodNotDrawn(campaignId, period, uint32(terms.committedDrawings));
        uint256 endsAt = _periodEnd(terms, period);
        if (block.timestamp < endsAt) revert GuaranteePeriodNotEnded(campaignId, period, endsAt);
        GuaranteePayment storage g = _guarantees[campaignId][period];
        if (g.status != GuaranteeStatus.None) revert GuaranteeAlreadyPicked(campaignId, period);
        address wallet = terms.payoutWallet;
        if (wallet == address(0)) revert PayoutWalletRequired(campaignId);
        // A guarantee is one transfer: it must fit what an allowance can ever hold, or it could never be paid.
        uint256 maxCents = maxPaymentCents(campaignId);
        if (cents > maxCents) revert PayoutAboveLimit(campaignId, period, cents, maxCents);
        g.wallet = wallet;
        g.amountCents = uint64(cents);
        g.status = GuaranteeStatus.Picked;
        emit GuaranteePicked(campaignId, period, winnerHash, wallet, cents);
        _adjustOwed(cents, 0);
    }

    /// @notice Pays a picked guarantee to the wallet recorded at its pick. Permissionless: the money can only go
    /// there.
    function payGuarantee(bytes32 campaignId, uint32 period) external {
        GuaranteePayment storage g = _guarantees[campaignId][period];
        if (g.status == GuaranteeStatus.Paid) revert GuaranteeAlreadyPaid(campaignId, period);
        if (g.status != GuaranteeStatus.Picked) revert GuaranteeNotPicked(campaignId, period);
        g.status = GuaranteeStatus.Paid;
        uint256 cents = g.amountCents;
        emit GuaranteePaid(campaignId, period, g.wallet, cents, cents * tokenUnitsPerCent);
        _payOwed(campaignId, g.wallet, cents, 0);
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

    /// @notice Moves a picked, unpaid guarantee to `to`: the way out when the token refuses the wallet recorded at
    /// the pick. Two keys must agree on the destination: `to` must be the campaign's current wallet (set by the
    /// operator), so neither a stolen operator key that changes the campaign's wallet before this transaction is
    /// mined, nor the admin alone, can send the money somewhere else.
    /// @param to The destination the admin checked: the campaign's current payout wallet.
    function moveGuaranteeWallet(bytes32 campaignId, uint32 period, address to) external restricted {
        GuaranteePayment storage g = _guarantees[campaignId][period];
        if (g.status != GuaranteeStatus.Picked) revert GuaranteeNotPicked(campaignId, period);
        if (to == address(0)) revert ZeroAddress();
        address campaignWallet = IDrawingEngine(engine).guaranteeTerms(campaignId).payoutWallet;
        if (to != campaignWallet) revert MoveDestinationMismatch(campaignId, to, campaignWallet);
        if (to == g.wallet) revert NothingToMove(campaignId, period);
        emit GuaranteeWalletMoved(campaignId, period, g.wallet, to);
        g.wallet = to;
    }

    // ------------------------------------------------------------------ views

    /// @notice A held prize's state: Open (owed), Paid or Refused.
    function heldPrizeState(bytes32 campaignId, uint64 number, uint256 position) external view returns (HeldState) {
        return _held[campaignId][number][position];
    }

    /// @notice How many of a drawing's held prizes were paid or refused.
    function heldClosed(bytes32 campaignId, uint64 number) external view returns (uint256) {
        return _heldClosed[campaignId][number];
    }

    /// @notice A guarantee period's payment: status, wallet and amount.
    function getGuarantee(bytes32 campaignId, uint32 period)
        external
        view
        returns (GuaranteeStatus status, address wallet, uint256 amountCents)
    {
        GuaranteePayment storage g = _guarantees[campaignId][period];
        return (g.status, g.wallet, g.amountCents);
    }

    /// @notice The earliest block time at which guarantee period `period` (0-based) of a registered campaign can be
    /// picked: its registration's block time plus (period + 1) periods.
    function guaranteePeriodEnd(bytes32 campaignId, uint32 period) external view returns (uint256) {
        return _periodEnd(IDrawingEngine(engine).guaranteeTerms(campaignId), period);
    }

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
    function maxPaymentCents(bytes32 campaignId) public view returns (uint256 cents) {
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

    /// @dev Changes what is owed; a reserve is refused when the result exceeds the pool (invariant 1).
    function _adjustOwed(uint256 reserveCents, uint256 releaseCents) private {
        VaultState storage s = _state;
        uint256 owed = s.owedCents + reserveCents - releaseCents;
        if (reserveCents != 0) {
            uint256 balanceCents = token.balanceOf(address(this)) / tokenUnitsPerCent;
            if (owed > balanceCents) revert ObligationNotBacked(owed, balanceCents);
        }
        s.owedCents = uint64(owed);
        emit OwedChanged(reserveCents, releaseCents, owed);
    }

    /// @dev The one way owed money leaves: within the pause and the limits (`_spend`), off what is owed, then the
    /// transfer last (checks-effects-interactions; the caller has recorded the payment).
    function _payOwed(bytes32 campaignId, address wallet, uint256 cents, uint256 releaseCents)
        private
        returns (uint256 amount)
    {
        _spend(campaignId, cents);
        uint256 owed = _state.owedCents - cents - releaseCents;
        _state.owedCents = uint64(owed);
        if (releaseCents != 0) emit OwedChanged(0, releaseCents, owed);
        amount = cents * tokenUnitsPerCent;
        if (amount != 0) token.safeTransfer(wallet, amount);
    }

    /// @dev Checks a held prize with the engine and closes it (paid or refused), once; returns its wallet and amount.
    function _closeHeld(bytes32 campaignId, uint64 number, uint256 position, HeldState closeAs)
        private
        returns (address wallet, uint256 cents)
    {
        (wallet, cents) = IDrawingEngine(engine).heldPrize(campaignId, number, position);
        mapping(uint256 => HeldState) storage states = _held[campaignId][number];
        if (states[position] != HeldState.Open) revert HeldPrizeClosed(campaignId, number, position);
        states[position] = closeAs;
        ++_heldClosed[campaignId][number];
    }

    function _periodEnd(IDrawingEngine.GuaranteeTerms memory terms, uint32 period) private pure returns (uint256) {
        return terms.periodsStart + (uint256(period) + 1) * terms.periodSeconds;
    }

    /// @dev The operator's actions on what is owed wait out the guardian's pause (after the role check).
    function _requireUnpaused() private view {
        if (_state.paused) revert EnforcedPause();
    }

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
