// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {DrawMath} from "../DrawMath.sol";
import {PrizeDrawAccess} from "./PrizeDrawAccess.sol";

/// @title PrizeTables
/// @notice Published prize tables: (id, version), top prize first, the spec's rules enforced, never changed.
abstract contract PrizeTables is PrizeDrawAccess {
    uint256 public constant MIN_TIERS = 2;
    /// @dev Bounds the tier scan done for every roll.
    uint256 public constant MAX_TIERS = 16;
    uint256 public constant MAX_DENOMINATOR = 2_147_483_647;
    uint256 public constant MAX_PRIZE_CENTS = 100_000_000;

    /// @dev Tiers are packed four to a slot as amountCents << 32 | threshold (DrawMath.packTier).
    /// @dev Stored under a 4-byte reference, which is what a drawing records (instead of 36 bytes of id and
    /// version: a storage slot less per commit).
    /// `topCents` and `largestCents` (the largest amount after the top) bound what a drawing can award, read at
    /// every commit and payout without the tiers.
    struct PrizeTable {
        uint32 denominator;
        uint32 version;
        uint64 topCents;
        uint64 largestCents;
        bytes32 tableId;
        uint64[] tiers;
    }

    mapping(uint32 ref => PrizeTable) internal _tables;
    mapping(bytes32 tableId => mapping(uint32 version => uint32 ref)) private _tableRefs;
    uint32 private _tableCount;

    event PrizeTablePublished(
        bytes32 indexed tableId,
        uint32 indexed version,
        uint256 denominator,
        uint256[] amountsCents,
        uint256[] weights,
        uint256[] thresholds
    );

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

    /// @notice Publishes prize table (`tableId`, `version`), top prize first. Enforces the spec's rules: at least
    /// 2 tiers (at most MAX_TIERS), weights above 0 summing to a denominator of at most 2,147,483,647, and
    /// amounts of at most 100,000,000 cents. A published table never changes.
    /// @param tableId ASCII id right-padded to 32 bytes, e.g. bytes32("default").
    function publishPrizeTable(bytes32 tableId, uint32 version, uint256[] calldata amountsCents, uint256[] calldata weights)
        external
        restricted
    {
        if (tableId == bytes32(0)) revert InvalidTableId();
        if (version == 0) revert InvalidTableVersion();
        uint256 count = amountsCents.length;
        if (count != weights.length) revert TierLengthMismatch(count, weights.length);
        if (count < MIN_TIERS) revert TooFewTiers(count);
        if (count > MAX_TIERS) revert TooManyTiers(count);
        if (_tableRefs[tableId][version] != 0) revert PrizeTableExists(tableId, version);

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

        uint32 ref = ++_tableCount;
        _tableRefs[tableId][version] = ref;
        PrizeTable storage table = _tables[ref];
        table.tableId = tableId;
        table.version = version;
        table.denominator = uint32(sum);
        table.topCents = uint64(amountsCents[0]);
        uint256 largest;
        for (uint256 i; i < count; ++i) {
            table.tiers.push(DrawMath.packTier(amountsCents[i], thresholds[i]));
            if (i != 0 && amountsCents[i] > largest) largest = amountsCents[i];
        }
        table.largestCents = uint64(largest);
        emit PrizeTablePublished(tableId, version, sum, amountsCents, weights, thresholds);
    }

    /// @notice A published prize table, top prize first; `thresholds[i]` is tier i's exclusive upper roll.
    function getPrizeTable(bytes32 tableId, uint32 version)
        external
        view
        returns (uint256 denominator, uint256[] memory amountsCents, uint256[] memory weights, uint256[] memory thresholds)
    {
        PrizeTable storage table = _table(tableId, version);
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

    /// @notice The tier and prize a roll selects in a published table (before the top-prize-once rule).
    function tierOf(bytes32 tableId, uint32 version, uint256 roll) external view returns (uint256 tier, uint256 amountCents) {
        return DrawMath.tierOf(_table(tableId, version).tiers, roll);
    }

    function _table(bytes32 tableId, uint32 version) internal view returns (PrizeTable storage table) {
        return _tables[_tableRef(tableId, version)];
    }

    function _tableRef(bytes32 tableId, uint32 version) internal view returns (uint32 ref) {
        ref = _tableRefs[tableId][version];
        if (ref == 0) revert PrizeTableNotFound(tableId, version);
    }
}
