// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title DrawMath
/// @notice The draw computation of the spec ("Draw computation"), the single Solidity copy of the rule.
/// The TypeScript library (api/src/draw) and the verifier (api/public/verify/verify-draw.mjs) implement the
/// same rule; shared test vectors keep the three equal.
library DrawMath {
    /// @notice 2^256 mod `denominator`: random values below it are discarded (rejection sampling), so that
    /// every roll in 0..denominator-1 is equally likely.
    function rejectionFloor(uint256 denominator) internal pure returns (uint256) {
        return (type(uint256).max % denominator + 1) % denominator;
    }

    /// @notice keccak256(abi.encode(bytes32 entropy, bytes32 campaignId, uint64 drawingNumber, uint256 position, uint256 retry)).
    /// @dev Hashes in scratch memory past the free memory pointer without moving it: a settlement batch
    /// computes thousands of these, and abi.encode would grow memory (and its quadratic cost) every time.
    function randomValue(bytes32 entropy, bytes32 campaignId, uint64 drawingNumber, uint256 position, uint256 retry)
        internal
        pure
        returns (bytes32 value)
    {
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, entropy)
            mstore(add(ptr, 0x20), campaignId)
            mstore(add(ptr, 0x40), and(drawingNumber, 0xffffffffffffffff))
            mstore(add(ptr, 0x60), position)
            mstore(add(ptr, 0x80), retry)
            value := keccak256(ptr, 0xa0)
        }
    }

    /// @notice The user contribution of a drawing's randomness request:
    /// keccak256(abi.encode(bytes32 campaignId, uint64 number, bytes32 slot, bytes32 listCommitment)).
    /// Derived from the commit, so the random value (keccak256 of this and the provider's revelation) is fixed
    /// by the committed list and nobody, the operator included, can choose it after seeing the list.
    function userRandomNumber(bytes32 campaignId, uint64 number, bytes32 slot, bytes32 listCommitment)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(campaignId, number, slot, listCommitment));
    }

    /// @notice The user contribution of a randomness request serving a batch of drawings, given each drawing's
    /// userRandomNumber in batch order: a batch of one uses its drawing's as is (so a single drawing's request is
    /// as before batches), a larger one keccak256 of them all, concatenated.
    function batchUserRandomNumber(bytes32[] memory contributions) internal pure returns (bytes32) {
        if (contributions.length == 1) return contributions[0];
        return keccak256(abi.encodePacked(contributions));
    }

    /// @notice The user contribution of a re-request (PrizeDraw.reRequest): bound to the request it replaces, whose
    /// provider and sequence number are public, so the second request's value is as fixed as the first's.
    function reRequestUserRandomNumber(address previousProvider, uint64 previousSequence) internal pure returns (bytes32) {
        return keccak256(abi.encode(previousProvider, previousSequence));
    }

    /// @notice A drawing's random value, from which every prize follows: keccak256(abi.encode(bytes32 entropyValue,
    /// bytes32 requestBlockHash)), Entropy's value for the request mixed with the hash of the block that holds the
    /// request. Nobody knows that hash when the operator signs the commit (or the re-request), so neither the
    /// operator nor a provider that knows its own future values, together or alone, can steer the value by choosing a
    /// slot, a moment or a sequence number.
    function drawValue(bytes32 entropyValue, bytes32 requestBlockHash) internal pure returns (bytes32) {
        return keccak256(abi.encode(entropyValue, requestBlockHash));
    }

    /// @notice The accepted random value of `position` and its roll in 0..denominator-1.
    /// @param floor rejectionFloor(denominator), passed in so a batch computes it once.
    /// @dev The retry loop ends with probability 1; a retry happens with probability below denominator / 2^256.
    function roll(bytes32 entropy, bytes32 campaignId, uint64 number, uint256 position, uint256 denominator, uint256 floor)
        internal
        pure
        returns (bytes32 value, uint256 rolled)
    {
        uint256 retry;
        while (true) {
            value = randomValue(entropy, campaignId, number, position, retry);
            if (uint256(value) >= floor) return (value, uint256(value) % denominator);
            unchecked {
                ++retry;
            }
        }
    }

    /// @notice Packs a tier as amountCents << 32 | threshold (its exclusive upper roll), the storage form.
    function packTier(uint256 amountCents, uint256 threshold) internal pure returns (uint64) {
        return uint64((amountCents << 32) | threshold);
    }

    /// @notice The most `count` prizes can total when the top prize is `top` and the largest other is `largest`.
    /// Each position pays one tier's amount; the top tier (0) at most once, a second top roll paying tier 1. So no
    /// more than: the top or the largest other amount once, and the largest other amount for every other position.
    function worstCase(uint256 top, uint256 largest, uint256 count) internal pure returns (uint256) {
        if (count == 0) return 0;
        return (count - 1) * largest + (top > largest ? top : largest);
    }

    /// @notice The most `count` prizes of a table can total below `threshold`: a drawing's automatic payout (prizes
    /// at or above the threshold are held). `worstCase` over the amounts below the threshold.
    function worstAutomatic(uint64[] memory tiers, uint256 threshold, uint256 count) internal pure returns (uint256) {
        uint256 top = tiers[0] >> 32;
        uint256 largest;
        for (uint256 i = 1; i < tiers.length; ++i) {
            uint256 amount = tiers[i] >> 32;
            if (amount < threshold && amount > largest) largest = amount;
        }
        return worstCase(top < threshold ? top : 0, largest, count);
    }

    /// @notice The tier whose run of rolls contains `rolled`: the first whose threshold exceeds it.
    /// @dev Tiers are at most PrizeTables.MAX_TIERS, so the scan is bounded.
    function tierOf(uint64[] memory tiers, uint256 rolled) internal pure returns (uint256 tier, uint256 amountCents) {
        uint256 count = tiers.length;
        for (uint256 i; i < count; ++i) {
            uint64 packed = tiers[i];
            if (rolled < uint32(packed)) return (i, packed >> 32);
        }
        // Unreachable for a roll below the denominator: the last threshold equals the denominator.
        return (count - 1, tiers[count - 1] >> 32);
    }
}
