// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {DrawMath} from "../DrawMath.sol";

/// @title DrawMathHarness
/// @notice TEST-ONLY: exposes DrawMath so the shared vectors can be checked onchain for drawing numbers that
/// PrizeDraw itself never reaches (numbers are gapless from 1 and stored in 32 bits, the vectors go to 2^64 - 1).
contract DrawMathHarness {
    function roll(bytes32 entropy, bytes32 campaignId, uint64 number, uint256 position, uint256 denominator)
        external
        pure
        returns (bytes32 value, uint256 rolled)
    {
        return DrawMath.roll(entropy, campaignId, number, position, denominator, DrawMath.rejectionFloor(denominator));
    }

    function rejectionFloor(uint256 denominator) external pure returns (uint256) {
        return DrawMath.rejectionFloor(denominator);
    }

    function userRandomNumber(bytes32 campaignId, uint64 number, bytes32 slot, bytes32 listCommitment)
        external
        pure
        returns (bytes32)
    {
        return DrawMath.userRandomNumber(campaignId, number, slot, listCommitment);
    }

    function batchUserRandomNumber(bytes32[] memory contributions) external pure returns (bytes32) {
        return DrawMath.batchUserRandomNumber(contributions);
    }

    function reRequestUserRandomNumber(address previousProvider, uint64 previousSequence) external pure returns (bytes32) {
        return DrawMath.reRequestUserRandomNumber(previousProvider, previousSequence);
    }

    function drawValue(bytes32 entropyValue, bytes32 requestBlockHash) external pure returns (bytes32) {
        return DrawMath.drawValue(entropyValue, requestBlockHash);
    }
}
