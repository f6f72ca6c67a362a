// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IEntropyV2} from "@pythnetwork/entropy-sdk-solidity/IEntropyV2.sol";
import {IEntropyConsumer} from "@pythnetwork/entropy-sdk-solidity/IEntropyConsumer.sol";

/// @title TestEntropyConsumer
/// @notice TEST-ONLY Entropy v2 consumer: requests through IEntropyV2, and its callback burns a configurable
///         amount of gas or reverts on demand, recording what it received.
contract TestEntropyConsumer is IEntropyConsumer {
    /// @notice The callback was told to revert.
    error CallbackRejected(uint64 sequence);

    /// @notice Emitted by every callback that completes.
    event CallbackReceived(uint64 indexed sequence, address indexed provider, bytes32 randomNumber, uint256 count);

    IEntropyV2 public immutable entropy;

    /// @notice Gas the callback burns before recording (approximately; the loop overshoots by a few dozen gas).
    uint256 public gasToBurn;
    /// @notice Whether the callback reverts with CallbackRejected.
    bool public shouldRevert;

    /// @notice Number of completed callbacks (packed with lastProvider to keep the callback cheap).
    uint64 public callbackCount;
    /// @notice Provider of the last completed callback.
    address public lastProvider;
    /// @notice Random number received per sequence number.
    mapping(uint64 => bytes32) public randomNumberOf;

    /// @param entropy_ The Entropy contract allowed to call back.
    constructor(address entropy_) {
        entropy = IEntropyV2(entropy_);
    }

    /// @notice Sets the callback's behaviour.
    /// @param gasToBurn_ Gas to burn in the callback.
    /// @param shouldRevert_ Whether the callback reverts.
    function setBehaviour(uint256 gasToBurn_, bool shouldRevert_) external {
        gasToBurn = gasToBurn_;
        shouldRevert = shouldRevert_;
    }

    /// @notice requestV2(provider, userRandomNumber, gasLimit), forwarding msg.value as the fee.
    /// @return sequence The assigned sequence number.
    function request(
        address provider,
        bytes32 userRandomNumber,
        uint32 gasLimit
    ) external payable returns (uint64 sequence) {
        sequence = entropy.requestV2{value: msg.value}(provider, userRandomNumber, gasLimit);
    }

    /// @notice requestV2(), forwarding msg.value as the fee.
    /// @return sequence The assigned sequence number.
    function requestDefault() external payable returns (uint64 sequence) {
        sequence = entropy.requestV2{value: msg.value}();
    }

    /// @notice requestV2(gasLimit), forwarding msg.value as the fee.
    /// @return sequence The assigned sequence number.
    function requestWithGasLimit(uint32 gasLimit) external payable returns (uint64 sequence) {
        sequence = entropy.requestV2{value: msg.value}(gasLimit);
    }

    /// @notice requestV2(provider, gasLimit), forwarding msg.value as the fee.
    /// @return sequence The assigned sequence number.
    function requestFromProvider(address provider, uint32 gasLimit) external payable returns (uint64 sequence) {
        sequence = entropy.requestV2{value: msg.value}(provider, gasLimit);
    }

    function getEntropy() internal view override returns (address) {
        return address(entropy);
    }

    function entropyCallback(uint64 sequence, address provider, bytes32 randomNumber) internal override {
        uint256 start = gasleft();
        uint256 toBurn = gasToBurn;
        while (start - gasleft() < toBurn) {}
        if (shouldRevert) revert CallbackRejected(sequence);
        callbackCount += 1;
        lastProvider = provider;
        randomNumberOf[sequence] = randomNumber;
        emit CallbackReceived(sequence, provider, randomNumber, callbackCount);
    }
}
