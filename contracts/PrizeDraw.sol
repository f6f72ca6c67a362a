// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IEntropyV2} from "@pythnetwork/entropy-sdk-solidity/IEntropyV2.sol";
import {IEntropyConsumer} from "@pythnetwork/entropy-sdk-solidity/IEntropyConsumer.sol";
import {DrawMath} from "./DrawMath.sol";

/// @title PrizeDraw
/// @notice Onchain half of the prize draw service. For each drawing the service commits the fingerprint of a
/// locked list (winners, or weighted entrants) and only then requests a random value from Pyth Entropy. The
/// randomness callback fixes every prize with the spec's draw computation; anyone can finish a settlement that
/// did not fit the callback's gas budget, and recompute any roll with the view functions.
/// @dev Ids: a campaign id is its slug as ASCII right-padded to 32 bytes; a drawing is (campaignId, number)
/// with number 1, 2, 3... per campaign and no gaps. Money is in whole cents; token units = cents x 10^(decimals-2).
contract PrizeDraw is AccessControl, IEntropyConsumer {
    using SafeERC20 for IERC20;

    // ------------------------------------------------------------------ constants

    /// @notice The service's key: publishes tables, registers campaigns, commits drawings, pays.
    bytes32 public constant OPERATOR_ROLE = keccak256("OPERATOR_ROLE");

    uint256 public constant MIN_TIERS = 2;
    /// @dev Bounds the tier scan done for every roll.
    uint256 public constant MAX_TIERS = 16;
    uint256 public constant MAX_DENOMINATOR = 2_147_483_647;
    uint256 public constant MAX_PRIZE_CENTS = 100_000_000;
    uint256 public constant MAX_ENTRANTS = 100_000;
    uint256 public constant MAX_WEIGHT = type(uint32).max;
    /// @dev Bounds a drawing's settlement (and the service's selection) to the entrant cap.
    uint256 public constant MAX_WINNERS = 100_000;

    uint8 public constant KIND_WINNERS = 0;
    uint8 public constant KIND_ENTRANTS = 1;

    uint32 public constant MIN_CALLBACK_GAS_LIMIT = 100_000;
    uint32 public constant MAX_CALLBACK_GAS_LIMIT = 15_000_000;

    /// @dev Gas kept back in a settlement batch for its final writes and the settlement event.
    uint256 private constant FINALIZE_GAS = 20_000;
    /// @dev Upper bound of one position's settlement, a held prize's storage write (22,100) included.
    uint256 private constant POSITION_GAS = 30_000;
    /// @dev Held in `randomValue` from the commit until the reveal. Writing the slot non-zero at commit moves
    /// the 20,000-gas zero-to-non-zero write out of the callback, whose gas is scarce (capped and prepaid
    /// through the provider's fee), into the operator's commit transaction.
    bytes32 private constant REVEAL_PENDING = bytes32(uint256(1));

    // ------------------------------------------------------------------ types

    enum Status {
        None,
        Requested, // committed, random value requested
        Revealed, // random value stored, prizes partly computed
        Settled, // every prize computed
        Paid // the draw's non-held prizes transferred
    }

    /// @dev Two slots: the wallet, the last drawing number and the flag share one.
    struct Campaign {
        address payoutWallet;
        uint64 lastNumber;
        bool registered;
        uint64 largePrizeThresholdCents;
    }

    /// @dev Tiers are packed four to a slot as amountCents << 32 | threshold (DrawMath.packTier).
    struct PrizeTable {
        uint32 denominator;
        uint64[] tiers;
    }

    /// @dev Slots: 0 listCommitment, 1 winnersCommitment (entrant draws only), 2 randomValue, 3 tableId,
    /// 4 counts and state, 5 provider and settlement progress, 6 money and reveal time. Every slot the
    /// callback writes is already non-zero from the commit (randomValue holds REVEAL_PENDING), so the
    /// callback pays 2,900 per write instead of 20,000.
    struct Drawing {
        bytes32 listCommitment;
        bytes32 winnersCommitment;
        bytes32 randomValue;
        bytes32 tableId;
        // slot 4 (30 bytes)
        uint64 sequence;
        uint64 totalWeight;
        uint32 tableVersion;
        uint32 winnersExpected;
        uint32 entrantCount;
        uint8 kind;
        Status status;
        // slot 5 (32 bytes)
        address provider;
        uint32 prizeCount;
        uint32 settledCount;
        uint32 topPosition; // position + 1 of the top prize; 0 while none awarded
        // slot 6 (29 bytes)
        uint64 largePrizeThresholdCents;
        uint48 payoutCents;
        uint48 heldCents;
        uint32 heldCount;
        uint40 revealedAt;
    }

    /// @notice Input of commitAndRequest.
    /// @param kind KIND_WINNERS (listCommitment = fingerprint of the winner ids) or KIND_ENTRANTS
    /// (listCommitment = entrant commitment, DESIGN.md section 6).
    /// @param entrantCount,totalWeight zero for winner draws.
    struct Commit {
        bytes32 campaignId;
        uint64 number;
        uint8 kind;
        bytes32 listCommitment;
        uint32 winnersExpected;
        uint32 entrantCount;
        uint64 totalWeight;
        bytes32 tableId;
        uint32 tableVersion;
    }

    /// @notice Everything stored about a drawing, for block explorers and the service.
    struct DrawingView {
        Status status;
        uint8 kind;
        bytes32 listCommitment;
        bytes32 winnersCommitment;
        uint32 winnersExpected;
        uint32 entrantCount;
        uint64 totalWeight;
        bytes32 tableId;
        uint32 tableVersion;
        uint64 largePrizeThresholdCents;
        address provider;
        uint64 sequence;
        bytes32 randomValue;
        uint40 revealedAt;
        uint32 prizeCount;
        uint32 settledCount;
        uint32 topPosition;
        uint48 payoutCents;
        uint48 heldCents;
        uint32 heldCount;
    }

    struct RequestRef {
        bytes32 campaignId;
        uint64 number;
    }

    /// @dev A settlement batch's inputs and running totals, kept in memory (one storage write at the end).
    struct Batch {
        bytes32 campaignId;
        uint64 number;
        bytes32 randomValue;
        uint256 denominator;
        uint256 floor;
        uint256 threshold;
        uint64[] tiers;
        uint256 topPosition;
        uint256 payoutCents;
        uint256 heldCents;
        uint256 heldCount;
    }

    struct HeldPrize {
        uint32 amountCents;
        bool paid;
    }

    // ------------------------------------------------------------------ storage

    IEntropyV2 public immutable entropy;
    IERC20 public immutable token;
    /// @notice Token units per cent: 10^(decimals - 2).
    uint256 public immutable tokenUnitsPerCent;

    /// @notice Gas requested for the randomness callback; also the callback's own settlement budget.
    uint32 public callbackGasLimit;

    mapping(bytes32 campaignId => Campaign) private _campaigns;
    mapping(bytes32 tableId => mapping(uint32 version => PrizeTable)) private _tables;
    mapping(bytes32 campaignId => mapping(uint64 number => Drawing)) private _drawings;
    mapping(address provider => mapping(uint64 sequence => RequestRef)) private _requests;
    mapping(bytes32 campaignId => mapping(uint64 number => mapping(uint256 position => HeldPrize))) private _held;
    mapping(bytes32 campaignId => mapping(bytes32 guaranteeId => bool)) private _guaranteePaid;

    // ------------------------------------------------------------------ events

    event PrizeTablePublished(
        bytes32 indexed tableId,
        uint32 indexed version,
        uint256 denominator,
        uint256[] amountsCents,
        uint256[] weights,
        uint256[] thresholds
    );
    event CampaignRegistered(bytes32 indexed campaignId, address payoutWallet, uint256 largePrizeThresholdCents);
    event PayoutWalletChanged(bytes32 indexed campaignId, address previousWallet, address newWallet);
    event LargePrizeThresholdChanged(bytes32 indexed campaignId, uint256 previousCents, uint256 newCents);
    event CallbackGasLimitChanged(uint32 previousLimit, uint32 newLimit);
    /// @notice A list is locked: its commitment, counts, table and large-prize threshold are fixed.
    event DrawingCommitted(
        bytes32 indexed campaignId,
        uint64 indexed number,
        uint8 kind,
        bytes32 listCommitment,
        uint32 winnersExpected,
        uint32 entrantCount,
        uint64 totalWeight,
        bytes32 tableId,
        uint32 tableVersion,
        uint64 largePrizeThresholdCents
    );
    /// @notice The random value was requested after the commitment, in the same transaction.
    event EntropyRequested(
        bytes32 indexed campaignId, uint64 indexed number, address provider, uint64 sequence, uint256 fee
    );
    event EntropyRevealed(
        bytes32 indexed campaignId, uint64 indexed number, address provider, uint64 sequence, bytes32 randomValue
    );
    /// @notice A callback that matches no pending request; ignored so the callback never reverts.
    event EntropyCallbackIgnored(address indexed provider, uint64 indexed sequence, bytes32 randomValue);
    /// @notice One position's prize: `randomValue` is the accepted value (after rejection), `tier` 0 is the top prize.
    event PrizeAwarded(
        bytes32 indexed campaignId,
        uint64 indexed number,
        uint256 position,
        bytes32 randomValue,
        uint256 roll,
        uint256 tier,
        uint256 amountCents,
        bool held
    );
    event DrawingSettled(
        bytes32 indexed campaignId,
        uint64 indexed number,
        uint256 prizeCount,
        uint256 payoutCents,
        uint256 heldCount,
        uint256 heldCents
    );
    /// @notice Entrant draws: the commitment of the winners the service selected from the entrants.
    event WinnersRecorded(bytes32 indexed campaignId, uint64 indexed number, bytes32 winnersCommitment, uint256 winnerCount);
    event DrawingPaid(
        bytes32 indexed campaignId, uint64 indexed number, address wallet, uint256 amountCents, uint256 tokenAmount
    );
    event HeldPrizePaid(
        bytes32 indexed campaignId,
        uint64 indexed number,
        uint256 position,
        address wallet,
        uint256 amountCents,
        uint256 tokenAmount
    );
    event GuaranteePaid(
        bytes32 indexed campaignId,
        bytes32 indexed guaranteeId,
        bytes32 winnerHash,
        address wallet,
        uint256 amountCents,
        uint256 tokenAmount
    );
    event TokensWithdrawn(address indexed to, uint256 amount);
    event NativeWithdrawn(address indexed to, uint256 amount);

    // ------------------------------------------------------------------ errors

    error ZeroAddress();
    error UnsupportedTokenDecimals(uint8 decimals);
    error InvalidCallbackGasLimit(uint32 limit);
    error TooFewTiers(uint256 count);
    error TooManyTiers(uint256 count);
    error TierLengthMismatch(uint256 amounts, uint256 weights);
    error ZeroWeight(uint256 tier);
    error WeightsDoNotSumToDenominator(uint256 sum, uint256 denominator);
    error DenominatorTooLarge(uint256 denominator);
    error PrizeTooLarge(uint256 tier, uint256 amountCents);
    error InvalidTableId();
    error InvalidTableVersion();
    error PrizeTableExists(bytes32 tableId, uint32 version);
    error PrizeTableNotFound(bytes32 tableId, uint32 version);
    error InvalidCampaignId();
    error CampaignAlreadyRegistered(bytes32 campaignId);
    error CampaignNotRegistered(bytes32 campaignId);
    error PayoutWalletRequired(bytes32 campaignId);
    error InvalidLargePrizeThreshold(uint256 cents);
    error NumberOutOfSequence(bytes32 campaignId, uint64 expected, uint64 given);
    error InvalidKind(uint8 kind);
    error EmptyCommitment();
    error NoWinners();
    error TooManyWinners(uint256 count);
    error InvalidEntrantCounts(uint256 entrantCount, uint256 totalWeight);
    error InsufficientFee(uint256 fee, uint256 available);
    error DrawingNotFound(bytes32 campaignId, uint64 number);
    error NotRevealed(bytes32 campaignId, uint64 number);
    error NothingToSettle(bytes32 campaignId, uint64 number);
    error NotEntrantDrawing(bytes32 campaignId, uint64 number);
    error WinnersAlreadyRecorded(bytes32 campaignId, uint64 number);
    error WinnersNotRecorded(bytes32 campaignId, uint64 number);
    error NotSettled(bytes32 campaignId, uint64 number);
    error AlreadyPaid(bytes32 campaignId, uint64 number);
    error NotHeldPrize(bytes32 campaignId, uint64 number, uint256 position);
    error HeldPrizeAlreadyPaid(bytes32 campaignId, uint64 number, uint256 position);
    error PositionNotSettled(bytes32 campaignId, uint64 number, uint256 position);
    error InvalidGuarantee();
    error NativeTransferFailed(address to, uint256 amount);
    error GuaranteeAlreadyPaid(bytes32 campaignId, bytes32 guaranteeId);

    // ------------------------------------------------------------------ construction

    /// @param entropy_ Pyth Entropy (IEntropyV2), or MockEntropy in the test environment.
    /// @param token_ The payout stablecoin; at least 2 decimals.
    /// @param admin Holds DEFAULT_ADMIN_ROLE: grants roles, sets the callback gas limit, withdraws funds.
    /// @param operator Holds OPERATOR_ROLE: the service's key.
    /// @param callbackGasLimit_ Gas requested for (and budgeted by) the randomness callback.
    constructor(address entropy_, address token_, address admin, address operator, uint32 callbackGasLimit_) {
        if (entropy_ == address(0) || token_ == address(0) || admin == address(0) || operator == address(0)) {
            revert ZeroAddress();
        }
        uint8 decimals = IERC20Metadata(token_).decimals();
        if (decimals < 2 || decimals > 36) revert UnsupportedTokenDecimals(decimals);
        entropy = IEntropyV2(entropy_);
        token = IERC20(token_);
        tokenUnitsPerCent = 10 ** (decimals - 2);
        _setCallbackGasLimit(callbackGasLimit_);
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(OPERATOR_ROLE, operator);
    }

    /// @notice Accepts native currency to pay the randomness fees.
    receive() external payable {}

    // ------------------------------------------------------------------ admin

    /// @notice Sets the gas requested for the callback, which is also the callback's settlement budget.
    function setCallbackGasLimit(uint32 limit) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setCallbackGasLimit(limit);
    }

    /// @notice Withdraws payout tokens (for example to move the prize pool).
    function withdrawTokens(address to, uint256 amount) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (to == address(0)) revert ZeroAddress();
        emit TokensWithdrawn(to, amount);
        token.safeTransfer(to, amount);
    }

    /// @notice Withdraws native currency held for randomness fees.
    function withdrawNative(address payable to, uint256 amount) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (to == address(0)) revert ZeroAddress();
        emit NativeWithdrawn(to, amount);
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert NativeTransferFailed(to, amount);
    }

    // ------------------------------------------------------------------ prize tables and campaigns

    /// @notice Publishes prize table (`tableId`, `version`), top prize first. Enforces the spec's rules: at least
    /// 2 tiers (at most MAX_TIERS), weights above 0 summing to a denominator of at most 2,147,483,647, and
    /// amounts of at most 100,000,000 cents. A published table never changes.
    /// @param tableId ASCII id right-padded to 32 bytes, e.g. bytes32("default").
    function publishPrizeTable(bytes32 tableId, uint32 version, uint256[] calldata amountsCents, uint256[] calldata weights)
        external
        onlyRole(OPERATOR_ROLE)
    {
        if (tableId == bytes32(0)) revert InvalidTableId();
        if (version == 0) revert InvalidTableVersion();
        uint256 count = amountsCents.length;
        if (count != weights.length) revert TierLengthMismatch(count, weights.length);
        if (count < MIN_TIERS) revert TooFewTiers(count);
        if (count > MAX_TIERS) revert TooManyTiers(count);
        PrizeTable storage table = _tables[tableId][version];
        if (table.denominator != 0) revert PrizeTableExists(tableId, version);

        uint256[] memory thresholds = new uint256[](count);
        uint256 sum;
        for (uint256 i; i < count; ++i) {
            if (weights[i] == 0) revert ZeroWeight(i);
            if (amountsCents[i] > MAX_PRIZE_CENTS) revert PrizeTooLarge(i, amountsCents[i]);
            // Checked against the cap each step so the sum cannot overflow whatever the weights.
            if (weights[i] > MAX_DENOMINATOR || sum + weights[i] > MAX_DENOMINATOR) {
                revert DenominatorTooLarge(sum + (weights[i] > MAX_DENOMINATOR ? MAX_DENOMINATOR : weights[i]));
            }
            sum += weights[i];
            thresholds[i] = sum;
        }

        table.denominator = uint32(sum);
        for (uint256 i; i < count; ++i) {
            table.tiers.push(DrawMath.packTier(amountsCents[i], thresholds[i]));
        }
        emit PrizeTablePublished(tableId, version, sum, amountsCents, weights, thresholds);
    }

    /// @notice Registers a campaign. The payout wallet may be zero for now (a draft) but, once set, only changes.
    /// @param largePrizeThresholdCents prizes at or above it are held for manual payout; above 0.
    function registerCampaign(bytes32 campaignId, address payoutWallet, uint256 largePrizeThresholdCents)
        external
        onlyRole(OPERATOR_ROLE)
    {
        if (campaignId == bytes32(0)) revert InvalidCampaignId();
        Campaign storage campaign = _campaigns[campaignId];
        if (campaign.registered) revert CampaignAlreadyRegistered(campaignId);
        _checkThreshold(largePrizeThresholdCents);
        campaign.registered = true;
        campaign.payoutWallet = payoutWallet;
        campaign.largePrizeThresholdCents = uint64(largePrizeThresholdCents);
        emit CampaignRegistered(campaignId, payoutWallet, largePrizeThresholdCents);
    }

    /// @notice Changes the campaign's payout wallet. Zero is refused: a wallet can be changed, never removed.
    function setPayoutWallet(bytes32 campaignId, address wallet) external onlyRole(OPERATOR_ROLE) {
        Campaign storage campaign = _registered(campaignId);
        if (wallet == address(0)) revert PayoutWalletRequired(campaignId);
        emit PayoutWalletChanged(campaignId, campaign.payoutWallet, wallet);
        campaign.payoutWallet = wallet;
    }

    /// @notice Changes the large-prize threshold for drawings committed from now on.
    function setLargePrizeThreshold(bytes32 campaignId, uint256 cents) external onlyRole(OPERATOR_ROLE) {
        Campaign storage campaign = _registered(campaignId);
        _checkThreshold(cents);
        emit LargePrizeThresholdChanged(campaignId, campaign.largePrizeThresholdCents, cents);
        campaign.largePrizeThresholdCents = uint64(cents);
    }

    // ------------------------------------------------------------------ drawing cycle

    /// @notice Locks a drawing's list onchain and requests its random value, in one transaction. The number
    /// must be the campaign's last plus one, so a retried transaction is refused instead of drawing twice.
    /// The fee comes from msg.value plus the contract's native balance.
    /// @return sequence Pyth's sequence number, the drawing's entropyRequestId.
    function commitAndRequest(Commit calldata c) external payable onlyRole(OPERATOR_ROLE) returns (uint64 sequence) {
        Drawing storage d = _commit(c);
        uint32 gasLimit = callbackGasLimit;
        uint256 fee = entropy.getFeeV2(d.provider, gasLimit);
        if (address(this).balance < fee) revert InsufficientFee(fee, address(this).balance);
        // The sequence number is only known from the call, so it is stored after it. Entropy is fixed at
        // construction and trusted; a callback inside requestV2 would find no request and be ignored.
        sequence = entropy.requestV2{value: fee}(d.provider, gasLimit);
        d.sequence = sequence;
        _requests[d.provider][sequence] = RequestRef(c.campaignId, c.number);
        emit EntropyRequested(c.campaignId, c.number, d.provider, sequence, fee);
    }

    /// @notice Computes up to `maxPositions` more prizes of a revealed drawing. Permissionless: anyone can
    /// finish a settlement the callback's gas budget did not cover.
    /// @return settled Positions computed by this call.
    function settle(bytes32 campaignId, uint64 number, uint256 maxPositions) external returns (uint256 settled) {
        Drawing storage d = _drawings[campaignId][number];
        if (d.status == Status.None) revert DrawingNotFound(campaignId, number);
        if (d.status == Status.Requested) revert NotRevealed(campaignId, number);
        if (d.status != Status.Revealed || maxPositions == 0) revert NothingToSettle(campaignId, number);
        return _settle(campaignId, number, d, maxPositions, 0, type(uint256).max);
    }

    /// @notice Entrant draws: records the commitment (fingerprint) of the winners the service selected from
    /// the locked entrants with the revealed random value. The selection is checked offchain by the verifier.
    function recordWinners(bytes32 campaignId, uint64 number, bytes32 winnersCommitment)
        external
        onlyRole(OPERATOR_ROLE)
    {
        Drawing storage d = _drawing(campaignId, number);
        if (d.kind != KIND_ENTRANTS) revert NotEntrantDrawing(campaignId, number);
        if (d.status == Status.Requested) revert NotRevealed(campaignId, number);
        if (d.winnersCommitment != bytes32(0)) revert WinnersAlreadyRecorded(campaignId, number);
        if (winnersCommitment == bytes32(0)) revert EmptyCommitment();
        d.winnersCommitment = winnersCommitment;
        emit WinnersRecorded(campaignId, number, winnersCommitment, d.prizeCount);
    }

    /// @notice Pays a settled drawing: one transfer of the sum of its prizes below the large-prize threshold
    /// to the campaign's payout wallet. Held prizes are paid one by one with payHeldPrize.
    function payout(bytes32 campaignId, uint64 number) external onlyRole(OPERATOR_ROLE) {
        Drawing storage d = _drawing(campaignId, number);
        if (d.status == Status.Paid) revert AlreadyPaid(campaignId, number);
        if (d.status != Status.Settled) revert NotSettled(campaignId, number);
        if (d.kind == KIND_ENTRANTS && d.winnersCommitment == bytes32(0)) revert WinnersNotRecorded(campaignId, number);
        address wallet = _payoutWallet(campaignId);
        d.status = Status.Paid;
        uint256 cents = d.payoutCents;
        uint256 amount = cents * tokenUnitsPerCent;
        emit DrawingPaid(campaignId, number, wallet, cents, amount);
        if (amount != 0) token.safeTransfer(wallet, amount);
    }

    /// @notice Pays one held prize (at or above the drawing's large-prize threshold), once, after the operator's checks.
    function payHeldPrize(bytes32 campaignId, uint64 number, uint256 position) external onlyRole(OPERATOR_ROLE) {
        Drawing storage d = _drawing(campaignId, number);
        if (position >= d.settledCount) revert PositionNotSettled(campaignId, number, position);
        if (d.kind == KIND_ENTRANTS && d.winnersCommitment == bytes32(0)) revert WinnersNotRecorded(campaignId, number);
        HeldPrize storage held = _held[campaignId][number][position];
        if (held.amountCents == 0) revert NotHeldPrize(campaignId, number, position);
        if (held.paid) revert HeldPrizeAlreadyPaid(campaignId, number, position);
        address wallet = _payoutWallet(campaignId);
        held.paid = true;
        uint256 cents = held.amountCents;
        uint256 amount = cents * tokenUnitsPerCent;
        emit HeldPrizePaid(campaignId, number, position, wallet, cents, amount);
        token.safeTransfer(wallet, amount);
    }

    /// @notice Pays a guarantee (a minimum prize per period) as its own transfer, once per `guaranteeId`.
    /// @param winnerHash keccak256 of the picked winner's id, for the record.
    function payGuarantee(bytes32 campaignId, bytes32 guaranteeId, bytes32 winnerHash, uint256 amountCents)
        external
        onlyRole(OPERATOR_ROLE)
    {
        _registered(campaignId);
        if (guaranteeId == bytes32(0) || winnerHash == bytes32(0) || amountCents == 0 || amountCents > MAX_PRIZE_CENTS) {
            revert InvalidGuarantee();
        }
        if (_guaranteePaid[campaignId][guaranteeId]) revert GuaranteeAlreadyPaid(campaignId, guaranteeId);
        address wallet = _payoutWallet(campaignId);
        _guaranteePaid[campaignId][guaranteeId] = true;
        uint256 amount = amountCents * tokenUnitsPerCent;
        emit GuaranteePaid(campaignId, guaranteeId, winnerHash, wallet, amountCents, amount);
        token.safeTransfer(wallet, amount);
    }

    // ------------------------------------------------------------------ randomness callback

    /// @dev Called through IEntropyConsumer._entropyCallback, which refuses any caller but the Entropy contract.
    /// Never reverts: an unknown or repeated callback is ignored with an event, and settlement stops within
    /// the callback gas budget, leaving the rest to `settle`.
    function entropyCallback(uint64 sequence, address provider, bytes32 randomNumber) internal override {
        uint256 startGas = gasleft();
        RequestRef memory ref = _requests[provider][sequence];
        Drawing storage d = _drawings[ref.campaignId][ref.number];
        if (ref.campaignId == bytes32(0) || d.status != Status.Requested) {
            emit EntropyCallbackIgnored(provider, sequence, randomNumber);
            return;
        }
        d.randomValue = randomNumber;
        d.status = Status.Revealed;
        d.revealedAt = uint40(block.timestamp);
        emit EntropyRevealed(ref.campaignId, ref.number, provider, sequence, randomNumber);
        _settle(ref.campaignId, ref.number, d, type(uint256).max, startGas, callbackGasLimit);
    }

    /// @inheritdoc IEntropyConsumer
    function getEntropy() internal view override returns (address) {
        return address(entropy);
    }

    // ------------------------------------------------------------------ views

    /// @notice A campaign's registry entry.
    function getCampaign(bytes32 campaignId)
        external
        view
        returns (bool registered, address payoutWallet, uint64 lastNumber, uint64 largePrizeThresholdCents)
    {
        Campaign storage c = _campaigns[campaignId];
        return (c.registered, c.payoutWallet, c.lastNumber, c.largePrizeThresholdCents);
    }

    /// @notice A published prize table, top prize first; `thresholds[i]` is tier i's exclusive upper roll.
    function getPrizeTable(bytes32 tableId, uint32 version)
        external
        view
        returns (uint256 denominator, uint256[] memory amountsCents, uint256[] memory weights, uint256[] memory thresholds)
    {
        PrizeTable storage table = _tables[tableId][version];
        if (table.denominator == 0) revert PrizeTableNotFound(tableId, version);
        uint256 count = table.tiers.length;
        amountsCents = new uint256[](count);
        weights = new uint256[](count);
        thresholds = new uint256[](count);
        uint256 previous;
        for (uint256 i; i < count; ++i) {
            uint64 packed = table.tiers[i];
            amountsCents[i] = packed >> 32;
            thresholds[i] = uint32(packed);
            weights[i] = thresholds[i] - previous;
            previous = thresholds[i];
        }
        return (table.denominator, amountsCents, weights, thresholds);
    }

    /// @notice Everything stored about drawing `number` of a campaign. For winner draws `winnersCommitment`
    /// equals `listCommitment`.
    function getDrawing(bytes32 campaignId, uint64 number) external view returns (DrawingView memory v) {
        Drawing storage d = _drawing(campaignId, number);
        v.status = d.status;
        v.kind = d.kind;
        v.listCommitment = d.listCommitment;
        v.winnersCommitment = d.kind == KIND_WINNERS ? d.listCommitment : d.winnersCommitment;
        v.winnersExpected = d.winnersExpected;
        v.entrantCount = d.entrantCount;
        v.totalWeight = d.totalWeight;
        v.tableId = d.tableId;
        v.tableVersion = d.tableVersion;
        v.largePrizeThresholdCents = d.largePrizeThresholdCents;
        v.provider = d.provider;
        v.sequence = d.sequence;
        v.randomValue = d.status == Status.Requested ? bytes32(0) : d.randomValue;
        v.revealedAt = d.revealedAt;
        v.prizeCount = d.prizeCount;
        v.settledCount = d.settledCount;
        v.topPosition = d.topPosition;
        v.payoutCents = d.payoutCents;
        v.heldCents = d.heldCents;
        v.heldCount = d.heldCount;
    }

    /// @notice The random value and roll of `position` for any entropy: the spec's formula with rejection.
    function computeRoll(bytes32 entropyValue, bytes32 campaignId, uint64 number, uint256 position, uint256 denominator)
        external
        pure
        returns (bytes32 randomValue, uint256 roll)
    {
        if (denominator == 0 || denominator > MAX_DENOMINATOR) revert DenominatorTooLarge(denominator);
        return DrawMath.roll(entropyValue, campaignId, number, position, denominator, DrawMath.rejectionFloor(denominator));
    }

    /// @notice The tier and prize a roll selects in a published table (before the top-prize-once rule).
    function tierOf(bytes32 tableId, uint32 version, uint256 roll) external view returns (uint256 tier, uint256 amountCents) {
        PrizeTable storage table = _tables[tableId][version];
        if (table.denominator == 0) revert PrizeTableNotFound(tableId, version);
        return DrawMath.tierOf(table.tiers, roll);
    }

    /// @notice Recomputes the prize of a settled position from stored data, top-prize-once rule included.
    function prizeAt(bytes32 campaignId, uint64 number, uint256 position)
        external
        view
        returns (bytes32 randomValue, uint256 roll, uint256 tier, uint256 amountCents, bool held)
    {
        Drawing storage d = _drawing(campaignId, number);
        if (position >= d.settledCount) revert PositionNotSettled(campaignId, number, position);
        PrizeTable storage table = _tables[d.tableId][d.tableVersion];
        uint64[] memory tiers = table.tiers;
        (randomValue, roll) = DrawMath.roll(
            d.randomValue, campaignId, number, position, table.denominator, DrawMath.rejectionFloor(table.denominator)
        );
        (tier, amountCents) = DrawMath.tierOf(tiers, roll);
        if (tier == 0 && d.topPosition != position + 1) (tier, amountCents) = (1, tiers[1] >> 32);
        held = amountCents >= d.largePrizeThresholdCents;
    }

    /// @notice A held prize's amount (0 when the position's prize is not held) and whether it was paid.
    function heldPrize(bytes32 campaignId, uint64 number, uint256 position) external view returns (uint256 amountCents, bool paid) {
        HeldPrize storage held = _held[campaignId][number][position];
        return (held.amountCents, held.paid);
    }

    /// @notice Whether guarantee `guaranteeId` of a campaign was paid.
    function isGuaranteePaid(bytes32 campaignId, bytes32 guaranteeId) external view returns (bool) {
        return _guaranteePaid[campaignId][guaranteeId];
    }

    /// @notice A campaign id from its slug: the ASCII bytes right-padded to 32 (at most 32 bytes).
    function toCampaignId(string calldata slug) external pure returns (bytes32 id) {
        bytes calldata raw = bytes(slug);
        if (raw.length == 0 || raw.length > 32) revert InvalidCampaignId();
        return bytes32(raw);
    }

    /// @notice The fingerprint of a winner list: keccak256(abi.encode(bytes32[] of keccak256(id bytes))).
    function winnersFingerprint(string[] calldata winnerIds) external pure returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](winnerIds.length);
        for (uint256 i; i < winnerIds.length; ++i) {
            hashes[i] = keccak256(bytes(winnerIds[i]));
        }
        return keccak256(abi.encode(hashes));
    }

    // ------------------------------------------------------------------ internals

    /// @dev Computes prizes from `settledCount` on, at most `maxPositions`, while the gas used since
    /// `startGas` stays within `budget` (callback; `settle` passes no budget) and enough gas is left to
    /// write the progress, so running short ends the batch instead of reverting it.
    function _settle(
        bytes32 campaignId,
        uint64 number,
        Drawing storage d,
        uint256 maxPositions,
        uint256 startGas,
        uint256 budget
    ) private returns (uint256 settled) {
        PrizeTable storage table = _tables[d.tableId][d.tableVersion];
        Batch memory b = Batch({
            campaignId: campaignId,
            number: number,
            randomValue: d.randomValue,
            denominator: table.denominator,
            floor: DrawMath.rejectionFloor(table.denominator),
            threshold: d.largePrizeThresholdCents,
            tiers: table.tiers,
            topPosition: d.topPosition,
            payoutCents: d.payoutCents,
            heldCents: d.heldCents,
            heldCount: d.heldCount
        });
        uint256 position = d.settledCount;
        uint256 end = d.prizeCount;
        if (end - position > maxPositions) end = position + maxPositions;

        for (; position < end; ++position) {
            uint256 left = gasleft();
            if (left < POSITION_GAS + FINALIZE_GAS) break;
            if (budget != type(uint256).max && startGas - left + POSITION_GAS + FINALIZE_GAS > budget) break;
            _settlePosition(b, position);
            ++settled;
        }

        d.settledCount = uint32(position);
        d.topPosition = uint32(b.topPosition);
        d.payoutCents = uint48(b.payoutCents);
        d.heldCents = uint48(b.heldCents);
        d.heldCount = uint32(b.heldCount);
        if (position == d.prizeCount) {
            d.status = Status.Settled;
            emit DrawingSettled(campaignId, number, position, b.payoutCents, b.heldCount, b.heldCents);
        }
    }

    /// @dev One position's roll, tier (top-prize-once rule applied) and prize, accumulated into the batch.
    function _settlePosition(Batch memory b, uint256 position) private {
        (bytes32 value, uint256 rolled) = DrawMath.roll(b.randomValue, b.campaignId, b.number, position, b.denominator, b.floor);
        (uint256 tier, uint256 amount) = DrawMath.tierOf(b.tiers, rolled);
        if (tier == 0) {
            // Top-prize-once rule: a second top roll in the same draw pays the second tier.
            if (b.topPosition != 0) (tier, amount) = (1, b.tiers[1] >> 32);
            else b.topPosition = position + 1;
        }
        bool held = amount >= b.threshold;
        if (held) {
            _held[b.campaignId][b.number][position].amountCents = uint32(amount);
            b.heldCents += amount;
            ++b.heldCount;
        } else {
            b.payoutCents += amount;
        }
        emit PrizeAwarded(b.campaignId, b.number, position, value, rolled, tier, amount, held);
    }

    /// @dev Checks a commit and stores the drawing (state Requested); commitAndRequest then requests the value.
    function _commit(Commit calldata c) private returns (Drawing storage d) {
        Campaign storage campaign = _registered(c.campaignId);
        uint64 expected = campaign.lastNumber + 1;
        if (c.number != expected) revert NumberOutOfSequence(c.campaignId, expected, c.number);
        if (c.listCommitment == bytes32(0)) revert EmptyCommitment();
        if (c.winnersExpected == 0) revert NoWinners();
        if (c.winnersExpected > MAX_WINNERS) revert TooManyWinners(c.winnersExpected);
        uint32 prizeCount = c.winnersExpected;
        if (c.kind == KIND_WINNERS) {
            if (c.entrantCount != 0 || c.totalWeight != 0) revert InvalidEntrantCounts(c.entrantCount, c.totalWeight);
        } else if (c.kind == KIND_ENTRANTS) {
            if (
                c.entrantCount == 0 || c.entrantCount > MAX_ENTRANTS || c.totalWeight < c.entrantCount
                    || c.totalWeight > uint256(c.entrantCount) * MAX_WEIGHT
            ) revert InvalidEntrantCounts(c.entrantCount, c.totalWeight);
            // Rolls depend only on positions: an entrant draw has a prize per winner it can select.
            if (c.entrantCount < prizeCount) prizeCount = c.entrantCount;
        } else {
            revert InvalidKind(c.kind);
        }
        if (_tables[c.tableId][c.tableVersion].denominator == 0) revert PrizeTableNotFound(c.tableId, c.tableVersion);

        campaign.lastNumber = c.number;
        d = _drawings[c.campaignId][c.number];
        d.listCommitment = c.listCommitment;
        d.randomValue = REVEAL_PENDING;
        d.tableId = c.tableId;
        d.totalWeight = c.totalWeight;
        d.tableVersion = c.tableVersion;
        d.winnersExpected = c.winnersExpected;
        d.entrantCount = c.entrantCount;
        d.kind = c.kind;
        d.status = Status.Requested;
        d.provider = entropy.getDefaultProvider();
        d.prizeCount = prizeCount;
        d.largePrizeThresholdCents = campaign.largePrizeThresholdCents;
        _emitCommitted(c, campaign.largePrizeThresholdCents);
    }

    function _emitCommitted(Commit calldata c, uint64 largePrizeThresholdCents) private {
        emit DrawingCommitted(
            c.campaignId,
            c.number,
            c.kind,
            c.listCommitment,
            c.winnersExpected,
            c.entrantCount,
            c.totalWeight,
            c.tableId,
            c.tableVersion,
            largePrizeThresholdCents
        );
    }

    function _registered(bytes32 campaignId) private view returns (Campaign storage campaign) {
        campaign = _campaigns[campaignId];
        if (!campaign.registered) revert CampaignNotRegistered(campaignId);
    }

    function _drawing(bytes32 campaignId, uint64 number) private view returns (Drawing storage d) {
        d = _drawings[campaignId][number];
        if (d.status == Status.None) revert DrawingNotFound(campaignId, number);
    }

    function _payoutWallet(bytes32 campaignId) private view returns (address wallet) {
        wallet = _campaigns[campaignId].payoutWallet;
        if (wallet == address(0)) revert PayoutWalletRequired(campaignId);
    }

    function _checkThreshold(uint256 cents) private pure {
        if (cents == 0 || cents > type(uint64).max) revert InvalidLargePrizeThreshold(cents);
    }

    function _setCallbackGasLimit(uint32 limit) private {
        if (limit < MIN_CALLBACK_GAS_LIMIT || limit > MAX_CALLBACK_GAS_LIMIT) revert InvalidCallbackGasLimit(limit);
        emit CallbackGasLimitChanged(callbackGasLimit, limit);
        callbackGasLimit = limit;
    }
}
