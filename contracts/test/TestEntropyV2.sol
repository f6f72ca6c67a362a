// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IEntropyV2} from "@pythnetwork/entropy-sdk-solidity/IEntropyV2.sol";
import {IEntropyConsumer} from "@pythnetwork/entropy-sdk-solidity/IEntropyConsumer.sol";
import {EntropyStructsV2} from "@pythnetwork/entropy-sdk-solidity/EntropyStructsV2.sol";
import {EntropyErrors} from "@pythnetwork/entropy-sdk-solidity/EntropyErrors.sol";
import {EntropyEvents} from "@pythnetwork/entropy-sdk-solidity/EntropyEvents.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";

/// @title TestEntropyV2
/// @notice TEST-ONLY randomness provider that behaves like the real Pyth Entropy v2 contract
///         (pyth-network/pyth-crosschain, target_chains/ethereum/contracts/contracts/entropy/Entropy.sol)
///         on every point a consumer relies on: hash-chain commitments, sequence numbers, fees scaled by the
///         callback gas limit, the v2 events, and the callback failure / recovery flow of `revealWithCallback`.
///         Never deploy this to a real network: it is not upgradeable, has no governance, no fee withdrawal,
///         and carries one fault-injection hook (`setCallbackGasShortfall`) that the real contract does not have.
/// @dev Written independently from the real source; the rules it follows are:
///      - register: the registration occupies the provider's current sequence number (0 the first time) with x_0;
///        requests get the following numbers, and a request for sequence i verifies x_{i - start}.
///      - request: effective gas limit = roundUp10k(max(gasLimit, provider.defaultGasLimit)) (gasLimit 0 means the
///        default), stored as gasLimit10k; if the provider's defaultGasLimit is 0 the request has no gas limit.
///      - fee: providerFee = feeInWei + (rounded(gasLimit) - defaultGasLimit) * feeInWei / defaultGasLimit when the
///        rounded limit exceeds the default (else feeInWei); total = providerFee + pythFee.
///      - random number = keccak256(abi.encodePacked(userRandomNumber, providerRevelation, bytes32(0))); v2
///        requests never use the blockhash.
///      - a capped callback that fails is recorded as CALLBACK_FAILED only if the call had its whole cap available
///        (startingGas * 31 / 32 > cap); otherwise the reveal reverts with InsufficientGas. This is the rule after
///        pyth-crosschain PR #3106 (which dropped the older "or it returned revert data" alternative).
///      Storage is a plain mapping rather than the real contract's 32-slot hash table; a cleared request reads
///      back as all zeros (the real one may keep stale fields but always has sequenceNumber == 0).
contract TestEntropyV2 is IEntropyV2 {
    /// @notice Gas limits are stored in units of this many gas.
    uint32 public constant TEN_THOUSAND = 10_000;
    /// @notice The largest gas limit representable as gasLimit10k (uint16 units of 10k gas).
    uint32 public constant MAX_GAS_LIMIT = uint32(type(uint16).max) * TEN_THOUSAND;

    // Same values as the SDK's EntropyStatusConstants (that file has no pragma, so importing it warns).
    uint8 internal constant CALLBACK_NOT_NECESSARY = 0;
    uint8 internal constant CALLBACK_NOT_STARTED = 1;
    uint8 internal constant CALLBACK_IN_PROGRESS = 2;
    uint8 internal constant CALLBACK_FAILED = 3;

    /// @dev At most this many bytes of a failed callback's return data are kept (as in the real contract).
    uint16 internal constant MAX_RETURN_DATA = 256;

    /// @notice TEST-ONLY: emitted when the callback gas shortfall fault hook changes. Not part of the real contract.
    event CallbackGasShortfallSet(uint32 oldShortfall, uint32 newShortfall);

    /// @notice The account that deployed this contract; the only one allowed to set the fault hook.
    address public immutable deployer;

    address private immutable _defaultProvider;
    uint128 private _pythFeeInWei;
    uint128 private _accruedPythFeesInWei;
    bytes32 private _seed;
    uint32 private _callbackGasShortfall;

    mapping(address => EntropyStructsV2.ProviderInfo) private _providers;
    mapping(address => mapping(uint64 => EntropyStructsV2.Request)) private _requests;

    /// @notice Deploys the provider contract.
    /// @param defaultProvider The provider used by the `requestV2` / `getFeeV2` overloads without a provider.
    /// @param pythFeeInWei The flat protocol fee added to every request (may be 0).
    constructor(address defaultProvider, uint128 pythFeeInWei) {
        if (defaultProvider == address(0)) revert EntropyErrors.AssertionFailure();
        deployer = msg.sender;
        _defaultProvider = defaultProvider;
        _pythFeeInWei = pythFeeInWei;
    }

    // ---------------------------------------------------------------------------------------------
    // Providers
    // ---------------------------------------------------------------------------------------------

    /// @notice Registers msg.sender as a provider, or rotates its commitment if it is already registered.
    /// @dev The provider draws x_{N-1} at random, sets x_i = keccak256(x_{i+1}) and commits x_0. The registration
    ///      occupies the provider's current sequence number (0 on the first registration); the next request gets
    ///      the following number and needs x_1. Accrued fees are kept across rotations.
    /// @param feeInWei Fee charged per request at the default gas limit.
    /// @param commitment x_0 of the new hash chain.
    /// @param chainLength Number of values in the chain including x_0 (must be at least 1).
    /// @param defaultGasLimit Callback gas limit given to requests that ask for less (0 disables gas limits, as in
    ///        the real contract: callbacks then run with all remaining gas and are never recorded as failed).
    function register(uint128 feeInWei, bytes32 commitment, uint64 chainLength, uint32 defaultGasLimit) external {
        if (chainLength == 0) revert EntropyErrors.AssertionFailure();
        _roundUpTo10k(defaultGasLimit); // reverts with MaxGasLimitExceeded when not representable

        EntropyStructsV2.ProviderInfo storage info = _providers[msg.sender];
        uint64 start = info.sequenceNumber;
        info.feeInWei = feeInWei;
        info.originalCommitment = commitment;
        info.originalCommitmentSequenceNumber = start;
        info.currentCommitment = commitment;
        info.currentCommitmentSequenceNumber = start;
        info.endSequenceNumber = start + chainLength;
        info.defaultGasLimit = defaultGasLimit;
        info.sequenceNumber = start + 1;

        emit Registered(msg.sender, bytes(""));
    }

    /// @notice Changes msg.sender's provider fee (as the real `setProviderFee`).
    /// @param newFeeInWei The new fee per request at the default gas limit.
    function setProviderFee(uint128 newFeeInWei) external {
        EntropyStructsV2.ProviderInfo storage info = _registered(msg.sender);
        uint128 oldFee = info.feeInWei;
        info.feeInWei = newFeeInWei;
        emit ProviderFeeUpdated(msg.sender, oldFee, newFeeInWei, bytes(""));
    }

    /// @notice Changes msg.sender's default callback gas limit (as the real `setDefaultGasLimit`).
    /// @param gasLimit The new default gas limit; must not exceed MAX_GAS_LIMIT.
    function setDefaultGasLimit(uint32 gasLimit) external {
        EntropyStructsV2.ProviderInfo storage info = _registered(msg.sender);
        _roundUpTo10k(gasLimit);
        uint32 oldLimit = info.defaultGasLimit;
        info.defaultGasLimit = gasLimit;
        emit ProviderDefaultGasLimitUpdated(msg.sender, oldLimit, gasLimit, bytes(""));
    }

    // ---------------------------------------------------------------------------------------------
    // Requests
    // ---------------------------------------------------------------------------------------------

    /// @notice Requests a random number from the default provider with its default gas limit and a
    ///         user contribution drawn from the in-contract PRNG.
    /// @return assignedSequenceNumber The request's sequence number.
    function requestV2() external payable override returns (uint64 assignedSequenceNumber) {
        assignedSequenceNumber = _request(_defaultProvider, _nextPseudoRandom(), 0);
    }

    /// @notice Requests a random number from the default provider with a callback gas limit and a
    ///         user contribution drawn from the in-contract PRNG.
    /// @param gasLimit Callback gas limit (0 = the provider's default; rounded up to 10k; never below the default).
    /// @return assignedSequenceNumber The request's sequence number.
    function requestV2(uint32 gasLimit) external payable override returns (uint64 assignedSequenceNumber) {
        assignedSequenceNumber = _request(_defaultProvider, _nextPseudoRandom(), gasLimit);
    }

    /// @notice Requests a random number from `provider` with a callback gas limit and a user contribution
    ///         drawn from the in-contract PRNG.
    /// @param provider The provider to request from.
    /// @param gasLimit Callback gas limit (0 = the provider's default; rounded up to 10k; never below the default).
    /// @return assignedSequenceNumber The request's sequence number.
    function requestV2(
        address provider,
        uint32 gasLimit
    ) external payable override returns (uint64 assignedSequenceNumber) {
        assignedSequenceNumber = _request(provider, _nextPseudoRandom(), gasLimit);
    }

    /// @notice Requests a random number from `provider` with the caller's own contribution and a callback gas limit.
    /// @dev msg.sender becomes the requester and receives `_entropyCallback`. Reverts with InsufficientFee unless
    ///      msg.value >= getFeeV2(provider, gasLimit); excess value is kept, as in the real contract.
    /// @param provider The provider to request from.
    /// @param userRandomNumber The caller's contribution to the random number.
    /// @param gasLimit Callback gas limit (0 = the provider's default; rounded up to 10k; never below the default).
    /// @return assignedSequenceNumber The request's sequence number.
    function requestV2(
        address provider,
        bytes32 userRandomNumber,
        uint32 gasLimit
    ) external payable override returns (uint64 assignedSequenceNumber) {
        assignedSequenceNumber = _request(provider, userRandomNumber, gasLimit);
    }

    function _request(address provider, bytes32 userRandomNumber, uint32 gasLimit) internal returns (uint64 seq) {
        EntropyStructsV2.ProviderInfo storage info = _providers[provider];
        if (info.sequenceNumber == 0) revert EntropyErrors.NoSuchProvider();

        seq = info.sequenceNumber;
        if (seq >= info.endSequenceNumber) revert EntropyErrors.OutOfRandomness();
        info.sequenceNumber = seq + 1;

        if (msg.value < getFeeV2(provider, gasLimit)) revert EntropyErrors.InsufficientFee();
        uint128 providerFee = _providerFee(info, gasLimit);
        info.accruedFeesInWei += providerFee;
        _accruedPythFeesInWei += SafeCast.toUint128(msg.value) - providerFee;

        uint32 numHashes = SafeCast.toUint32(seq - info.currentCommitmentSequenceNumber);
        if (info.maxNumHashes != 0 && numHashes > info.maxNumHashes) revert EntropyErrors.LastRevealedTooOld();

        uint16 gasLimit10k = 0;
        if (info.defaultGasLimit != 0) {
            gasLimit10k = _roundUpTo10k(gasLimit < info.defaultGasLimit ? info.defaultGasLimit : gasLimit);
        }

        _requests[provider][seq] = EntropyStructsV2.Request({
            provider: provider,
            sequenceNumber: seq,
            numHashes: numHashes,
            commitment: keccak256(bytes.concat(constructUserCommitment(userRandomNumber), info.currentCommitment)),
            blockNumber: SafeCast.toUint64(block.number),
            requester: msg.sender,
            useBlockhash: false,
            callbackStatus: CALLBACK_NOT_STARTED,
            gasLimit10k: gasLimit10k
        });

        emit Requested(provider, msg.sender, seq, userRandomNumber, uint32(gasLimit10k) * TEN_THOUSAND, bytes(""));
    }

    // ---------------------------------------------------------------------------------------------
    // Reveal
    // ---------------------------------------------------------------------------------------------

    /// @notice Fulfils a request and delivers the random number to the requester's `_entropyCallback`.
    ///         Anyone may call it.
    /// @dev First attempt of a request with a gas limit: the callback runs with at most its gas limit (minus the
    ///      test-only shortfall) and its revert is caught. On success the request is cleared and
    ///      Revealed(callbackFailed=false) is emitted. On failure, if the call had its whole limit available
    ///      (startingGas * 31 / 32 > limit) the request is kept as CALLBACK_FAILED and CallbackFailed plus
    ///      Revealed(callbackFailed=true, return data, gas used) are emitted; otherwise the transaction reverts with
    ///      InsufficientGas so that gas estimation settles on an amount at which the callback really runs.
    ///      A retry of a CALLBACK_FAILED request (and any request without a gas limit) clears the request, then calls
    ///      the callback with all remaining gas, reverting the whole transaction if the callback reverts.
    /// @param provider The request's provider.
    /// @param sequenceNumber The request's sequence number.
    /// @param userRandomNumber The user contribution given at request time.
    /// @param providerRevelation The provider's hash-chain value for this sequence number.
    function revealWithCallback(
        address provider,
        uint64 sequenceNumber,
        bytes32 userRandomNumber,
        bytes32 providerRevelation
    ) external {
        EntropyStructsV2.Request storage req = _activeRequest(provider, sequenceNumber);
        uint8 status = req.callbackStatus;
        if (status != CALLBACK_NOT_STARTED && status != CALLBACK_FAILED) revert EntropyErrors.InvalidRevealCall();

        RevealContext memory r = RevealContext({
            provider: provider,
            requester: req.requester,
            sequenceNumber: sequenceNumber,
            randomNumber: _verifyAndCombine(req, userRandomNumber, providerRevelation),
            userRandomNumber: userRandomNumber,
            providerRevelation: providerRevelation
        });

        if (req.gasLimit10k != 0 && status == CALLBACK_NOT_STARTED) {
            _firstCallback(req, r);
        } else {
            _uncappedCallback(r);
        }
    }

    /// @dev The values of one reveal, grouped to keep the stack small.
    struct RevealContext {
        address provider;
        address requester;
        uint64 sequenceNumber;
        bytes32 randomNumber;
        bytes32 userRandomNumber;
        bytes32 providerRevelation;
    }

    /// @dev First attempt of a request with a gas limit: capped call, failure recorded or InsufficientGas.
    function _firstCallback(EntropyStructsV2.Request storage req, RevealContext memory r) internal {
        uint256 gasCap = uint256(req.gasLimit10k) * TEN_THOUSAND;
        // TEST-ONLY fault: the callback may get less than its cap (see setCallbackGasShortfall).
        uint256 callGas = gasCap > _callbackGasShortfall ? gasCap - _callbackGasShortfall : 0;
        bytes memory payload = abi.encodeCall(
            IEntropyConsumer._entropyCallback,
            (r.sequenceNumber, r.provider, r.randomNumber)
        );

        req.callbackStatus = CALLBACK_IN_PROGRESS; // re-entrancy guard
        uint256 startingGas = gasleft();
        (bool success, bytes memory ret) = _boundedCall(r.requester, callGas, payload);
        uint32 gasUsed = SafeCast.toUint32(startingGas - gasleft());
        req.callbackStatus = CALLBACK_NOT_STARTED;

        if (success) {
            _emitRevealed(r, false, ret, gasUsed);
            delete _requests[r.provider][r.sequenceNumber];
        } else if ((startingGas * 31) / 32 > gasCap) {
            // The callback had its whole cap available (63/64 of startingGas is forwarded; 31/32 is a margin),
            // so it failed on its own: record it and keep the request for a retry.
            req.callbackStatus = CALLBACK_FAILED;
            emit EntropyEvents.CallbackFailed(
                r.provider,
                r.requester,
                r.sequenceNumber,
                r.userRandomNumber,
                r.providerRevelation,
                r.randomNumber,
                ret
            );
            _emitRevealed(r, true, ret, gasUsed);
        } else {
            // The transaction itself did not carry enough gas to give the callback its cap.
            revert EntropyErrors.InsufficientGas();
        }
    }

    /// @dev Retry of a failed callback (or a request without a gas limit): the request is cleared first
    ///      (checks-effects-interactions), then the callback runs with all remaining gas and its revert bubbles up.
    function _uncappedCallback(RevealContext memory r) internal {
        delete _requests[r.provider][r.sequenceNumber];
        uint256 startingGas = gasleft();
        if (r.requester.code.length != 0) {
            IEntropyConsumer(r.requester)._entropyCallback(r.sequenceNumber, r.provider, r.randomNumber);
        }
        uint32 gasUsed = SafeCast.toUint32(startingGas - gasleft());
        _emitRevealed(r, false, bytes(""), gasUsed);
    }

    function _emitRevealed(RevealContext memory r, bool callbackFailed, bytes memory ret, uint32 gasUsed) internal {
        emit Revealed(
            r.provider,
            r.requester,
            r.sequenceNumber,
            r.randomNumber,
            r.userRandomNumber,
            r.providerRevelation,
            callbackFailed,
            ret,
            gasUsed,
            bytes("")
        );
    }

    /// @dev Checks both revelations against the request's commitment, advances the provider's current commitment
    ///      and returns the combined random number.
    function _verifyAndCombine(
        EntropyStructsV2.Request storage req,
        bytes32 userRandomNumber,
        bytes32 providerRevelation
    ) internal returns (bytes32 randomNumber) {
        bytes32 providerCommitment = providerRevelation;
        for (uint256 i = req.numHashes; i > 0; --i) {
            providerCommitment = keccak256(bytes.concat(providerCommitment));
        }
        if (keccak256(bytes.concat(constructUserCommitment(userRandomNumber), providerCommitment)) != req.commitment) {
            revert EntropyErrors.IncorrectRevelation();
        }

        randomNumber = combineRandomValues(userRandomNumber, providerRevelation, bytes32(0));

        EntropyStructsV2.ProviderInfo storage info = _providers[req.provider];
        if (info.currentCommitmentSequenceNumber < req.sequenceNumber) {
            info.currentCommitmentSequenceNumber = req.sequenceNumber;
            info.currentCommitment = providerRevelation;
        }
    }

    /// @dev A call that forwards at most `gasCap` gas and copies at most MAX_RETURN_DATA bytes of return data,
    ///      so a callee cannot make the caller run out of gas by returning a huge payload.
    function _boundedCall(
        address target,
        uint256 gasCap,
        bytes memory payload
    ) internal returns (bool success, bytes memory ret) {
        ret = new bytes(MAX_RETURN_DATA);
        uint256 copied;
        assembly ("memory-safe") {
            success := call(gasCap, target, 0, add(payload, 0x20), mload(payload), 0, 0)
            copied := returndatasize()
            if gt(copied, MAX_RETURN_DATA) {
                copied := MAX_RETURN_DATA
            }
            mstore(ret, copied)
            returndatacopy(add(ret, 0x20), 0, copied)
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Views
    // ---------------------------------------------------------------------------------------------

    /// @notice The provider used by the overloads without a provider argument.
    /// @return provider The default provider's address.
    function getDefaultProvider() external view override returns (address provider) {
        provider = _defaultProvider;
    }

    /// @notice A provider's configuration and hash-chain position.
    /// @dev commitmentMetadata, uri, feeManager and maxNumHashes are always empty / zero here.
    /// @param provider The provider's address.
    /// @return info The provider's stored information (all zero when it never registered).
    function getProviderInfoV2(
        address provider
    ) external view override returns (EntropyStructsV2.ProviderInfo memory info) {
        info = _providers[provider];
    }

    /// @notice An in-flight request.
    /// @param provider The request's provider.
    /// @param sequenceNumber The request's sequence number.
    /// @return req The stored request; all zero (in particular sequenceNumber == 0) once it has been fulfilled.
    function getRequestV2(
        address provider,
        uint64 sequenceNumber
    ) external view override returns (EntropyStructsV2.Request memory req) {
        req = _requests[provider][sequenceNumber];
    }

    /// @notice Fee for a request to the default provider with its default gas limit.
    /// @return feeAmount The fee in wei.
    function getFeeV2() external view override returns (uint128 feeAmount) {
        feeAmount = getFeeV2(_defaultProvider, 0);
    }

    /// @notice Fee for a request to the default provider with a callback gas limit.
    /// @param gasLimit The requested callback gas limit.
    /// @return feeAmount The fee in wei.
    function getFeeV2(uint32 gasLimit) external view override returns (uint128 feeAmount) {
        feeAmount = getFeeV2(_defaultProvider, gasLimit);
    }

    /// @notice Fee for a request to `provider` with a callback gas limit: the provider's fee, scaled up by the
    ///         rounded gas limit when it exceeds the provider's default gas limit, plus the protocol fee.
    /// @param provider The provider.
    /// @param gasLimit The requested callback gas limit.
    /// @return feeAmount The fee in wei.
    function getFeeV2(address provider, uint32 gasLimit) public view override returns (uint128 feeAmount) {
        feeAmount = _providerFee(_providers[provider], gasLimit) + _pythFeeInWei;
    }

    /// @notice The flat protocol fee added to every request.
    /// @return feeAmount The fee in wei.
    function getPythFee() external view returns (uint128 feeAmount) {
        feeAmount = _pythFeeInWei;
    }

    /// @notice Protocol fees (and any overpayment) collected so far.
    /// @return accruedPythFeesInWei The amount in wei.
    function getAccruedPythFees() external view returns (uint128 accruedPythFeesInWei) {
        accruedPythFeesInWei = _accruedPythFeesInWei;
    }

    /// @notice The commitment stored for a user contribution: keccak256(userRandomNumber).
    /// @param userRandomness The user contribution.
    /// @return userCommitment Its hash.
    function constructUserCommitment(bytes32 userRandomness) public pure returns (bytes32 userCommitment) {
        userCommitment = keccak256(bytes.concat(userRandomness));
    }

    /// @notice The random number delivered for a pair of contributions (v2 requests pass blockHash = 0).
    /// @param userRandomness The user contribution.
    /// @param providerRandomness The provider's revelation.
    /// @param blockHash Always bytes32(0) for v2 requests.
    /// @return combinedRandomness keccak256(abi.encodePacked(userRandomness, providerRandomness, blockHash)).
    function combineRandomValues(
        bytes32 userRandomness,
        bytes32 providerRandomness,
        bytes32 blockHash
    ) public pure returns (bytes32 combinedRandomness) {
        combinedRandomness = keccak256(abi.encodePacked(userRandomness, providerRandomness, blockHash));
    }

    // ---------------------------------------------------------------------------------------------
    // TEST-ONLY fault hook (not part of the real Entropy contract)
    // ---------------------------------------------------------------------------------------------

    /// @notice TEST-ONLY, NOT PART OF THE REAL ENTROPY CONTRACT. Makes every capped (first-attempt) callback run
    ///         with `gas` less than its request's gas limit, while the failure rule still judges against the full
    ///         limit. Models a chain whose gas schedule made the consumer's callback costlier than the consumer
    ///         estimated: a callback that fits its limit can then fail "with its full limit" and be recorded as
    ///         CALLBACK_FAILED, exercising the retry path. Retries (uncapped) are not affected. Default 0.
    /// @dev Only the deployer may call it.
    /// @param gas The shortfall in gas (0 turns the fault off).
    function setCallbackGasShortfall(uint32 gas) external {
        if (msg.sender != deployer) revert EntropyErrors.Unauthorized();
        emit CallbackGasShortfallSet(_callbackGasShortfall, gas);
        _callbackGasShortfall = gas;
    }

    /// @notice TEST-ONLY: the current callback gas shortfall (see setCallbackGasShortfall).
    /// @return gas The shortfall in gas.
    function callbackGasShortfall() external view returns (uint32 gas) {
        gas = _callbackGasShortfall;
    }

    // ---------------------------------------------------------------------------------------------
    // Internals
    // ---------------------------------------------------------------------------------------------

    function _registered(address provider) internal view returns (EntropyStructsV2.ProviderInfo storage info) {
        info = _providers[provider];
        if (info.sequenceNumber == 0) revert EntropyErrors.NoSuchProvider();
    }

    function _activeRequest(
        address provider,
        uint64 sequenceNumber
    ) internal view returns (EntropyStructsV2.Request storage req) {
        req = _requests[provider][sequenceNumber];
        if (req.sequenceNumber == 0 || req.sequenceNumber != sequenceNumber || req.provider != provider) {
            revert EntropyErrors.NoSuchRequest();
        }
    }

    /// @dev Provider fee: feeInWei, plus a proportional share for the rounded gas limit above the default.
    ///      Rounds down, like the real contract.
    function _providerFee(
        EntropyStructsV2.ProviderInfo storage info,
        uint32 gasLimit
    ) internal view returns (uint128 fee) {
        uint32 rounded = uint32(_roundUpTo10k(gasLimit)) * TEN_THOUSAND;
        uint32 defaultLimit = info.defaultGasLimit;
        fee = info.feeInWei;
        if (defaultLimit > 0 && rounded > defaultLimit) {
            fee += (uint128(rounded - defaultLimit) * info.feeInWei) / defaultLimit;
        }
    }

    /// @dev Gas in units of 10k, rounded up; reverts above MAX_GAS_LIMIT.
    function _roundUpTo10k(uint32 gas) internal pure returns (uint16) {
        if (gas > MAX_GAS_LIMIT) revert EntropyErrors.MaxGasLimitExceeded();
        uint32 units = gas / TEN_THOUSAND;
        if (units * TEN_THOUSAND < gas) units += 1;
        return uint16(units);
    }

    /// @dev In-contract PRNG for the overloads without a user contribution (like the real contract's `random()`).
    function _nextPseudoRandom() internal returns (bytes32 value) {
        value = keccak256(abi.encodePacked(block.timestamp, block.prevrandao, msg.sender, _seed));
        _seed = value;
    }
}
