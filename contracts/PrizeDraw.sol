// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IEntropyV2} from "@pythnetwork/entropy-sdk-solidity/IEntropyV2.sol";
import {IEntropyConsumer} from "@pythnetwork/entropy-sdk-solidity/IEntropyConsumer.sol";
import {EntropyStructsV2} from "@pythnetwork/entropy-sdk-solidity/EntropyStructsV2.sol";
import {EntropyStatusConstants} from "@pythnetwork/entropy-sdk-solidity/EntropyStatusConstants.sol";
import {DrawMath} from "./DrawMath.sol";
import {PrizeDrawAccess} from "./base/PrizeDrawAccess.sol";
import {PrizeTables} from "./base/PrizeTables.sol";
import {Campaigns} from "./base/Campaigns.sol";
import {PrizeVault} from "./PrizeVault.sol";
import {IDrawingEngine} from "./interfaces/IDrawingEngine.sol";

/// @title PrizeDraw
/// @notice Onchain half of the prize draw service. For each drawing the operator commits the fingerprint of a
/// locked list (winners, or weighted entrants), bound to the drawing's slot and draw time, and in the same
/// transaction requests a random value from Pyth Entropy whose user contribution is derived from that commit.
/// The randomness callback fixes the prizes with the spec's draw computation; anyone can finish a settlement and
/// trigger a payout, which can only go to the wallet the commit recorded. The tokens and every rule about them
/// (what is owed, limits, pause, payouts, held prizes, guarantees, withdrawals) live in the PrizeVault this
/// contract creates, which reads the facts it needs here (IDrawingEngine); who may call what lives in
/// PrizeDrawManager.
/// @dev Ids: a campaign id is its slug as ASCII right-padded to 32 bytes; a drawing is (campaignId, number)
/// with number 1, 2, 3... per campaign and no gaps; its slot is keccak256 of the service's drawing id.
/// Money is in whole cents; token units = cents x 10^(decimals-2).
contract PrizeDraw is PrizeDrawAccess, PrizeTables, Campaigns, IEntropyConsumer, IDrawingEngine {
    // ------------------------------------------------------------------ constants

    uint256 public constant MAX_ENTRANTS = 100_000;
    uint256 public constant MAX_WEIGHT = type(uint32).max;
    /// @dev Bounds a drawing's settlement (and the service's selection) to the entrant cap.
    uint256 public constant MAX_WINNERS = 100_000;

    uint8 public constant KIND_WINNERS = 0;
    uint8 public constant KIND_ENTRANTS = 1;

    uint32 public constant MIN_CALLBACK_GAS_LIMIT = 100_000;
    uint32 public constant MAX_CALLBACK_GAS_LIMIT = 15_000_000;
    /// @notice Gas the callback needs besides its positions (reveal bookkeeping, events, the owed total).
    uint256 public constant CALLBACK_BASE_GAS = 70_000;
    /// @notice Upper bound of one position's settlement (roll, tier scan, event); a retry is ~2^-225 likely.
    uint256 public constant POSITION_GAS = 8_000;
    /// @notice Gas the callback needs for each drawing of a batch after the first (CALLBACK_BASE_GAS covers
    /// the first): its member entry, reveal bookkeeping, events and settlement totals.
    uint256 public constant DRAWING_CALLBACK_GAS = 50_000;
    /// @notice Most drawings one commit, and so one randomness request and its callback, takes.
    uint256 public constant MAX_BATCH = 200;
    /// @notice Bounds of `revealTimeoutBlocks`: at least 256 blocks (a provider's keeper retries for minutes), at
    /// most 1,000,000.
    uint256 public constant MIN_REVEAL_TIMEOUT_BLOCKS = 256;
    uint256 public constant MAX_REVEAL_TIMEOUT_BLOCKS = 1_000_000;

    /// @notice Blocks whose hash the EVM still returns (`blockhash`): a reveal must come within them of its request.
    uint256 public constant BLOCKHASH_WINDOW = 256;

    // ------------------------------------------------------------------ types

    enum Status {
        None,
        Requested, // committed, random value requested
        Revealed, // random value stored, prizes partly computed
        Settled, // every prize computed
        Paid // the draw's non-held prizes transferred
    }

    /// @dev Slots: 0 listCommitment, 1 winnersCommitment (entrant draws only), 2 request, counts and state, 3
    /// wallet and settlement progress, 4 money and reveal time: a commit writes four. The random value is kept
    /// once per request (a batch's drawings share it) and the table under its 4-byte reference. Every slot the
    /// callback writes is already non-zero from the commit, so the callback pays 2,900 per write, not 20,000.
    struct Drawing {
        bytes32 listCommitment;
        bytes32 winnersCommitment;
        // slot 2 (32 bytes)
        uint64 request; // index of the randomness request (1, 2, 3... over all campaigns)
        uint64 totalWeight;
        uint32 tableRef;
        uint32 winnersExpected;
        uint32 entrantCount;
        uint8 kind;
        Status status;
        uint16 callbackPositions; // positions the callback settles, fixed by the gas requested at commit
        // slot 3 (32 bytes)
        address payoutWallet; // fixed at commit; only the admin moves it
        uint32 prizeCount;
        uint32 settledCount;
        uint32 topPosition; // position + 1 of the top prize; 0 while none awarded
        // slot 4 (32 bytes)
        uint64 largePrizeThresholdCents;
        uint48 payoutCents;
        uint48 heldCents;
        uint32 heldCount;
        uint40 revealedAt;
    }

    /// @notice A drawing as getDrawing shows it: the stored fields with its request's sequence number and random
    /// value and its table's id and version.
    struct DrawingView {
        bytes32 listCommitment;
        bytes32 winnersCommitment;
        bytes32 randomValue;
        bytes32 tableId;
        uint64 sequence;
        uint64 totalWeight;
        uint32 tableVersion;
        uint32 winnersExpected;
        uint32 entrantCount;
        uint8 kind;
        Status status;
        uint16 callbackPositions;
        address payoutWallet;
        uint32 prizeCount;
        uint32 settledCount;
        uint32 topPosition;
        uint64 largePrizeThresholdCents;
        uint48 payoutCents;
        uint48 heldCents;
        uint32 heldCount;
        uint40 revealedAt;
    }

    /// @notice One drawing of commitAndRequest's batch.
    /// @param slot keccak256 of the service's drawing id: a slot is committed once per campaign.
    /// @param drawAt the drawing's draw time (unix seconds), later than the campaign's last commit's.
    /// @param kind KIND_WINNERS (listCommitment = fingerprint of the winner ids) or KIND_ENTRANTS
    /// (listCommitment = entrant commitment, README "Entrant selection").
    /// @param entrantCount,totalWeight zero for winner draws.
    struct Commit {
        bytes32 campaignId;
        uint64 number;
        bytes32 slot;
        uint40 drawAt;
        uint8 kind;
        bytes32 listCommitment;
        uint32 winnersExpected;
        uint32 entrantCount;
        uint64 totalWeight;
        bytes32 tableId;
        uint32 tableVersion;
    }

    struct DrawingRef {
        bytes32 campaignId;
        uint64 number;
    }

    /// @dev A randomness request and the batch of drawings it serves (listed in `_members`). Two slots. A re-request
    /// replaces its provider and sequence in place (same index, same members) and sets `reRequested`.
    struct Request {
        address provider;
        uint64 sequence;
        uint16 size;
        bool reRequested;
        // Until the callback: the number of the block that holds the request (below 2^64; a revealed value is a
        // keccak256 hash, below 2^64 with odds of 2^-192). Writing the slot non-zero at the request moves the
        // 20,000-gas zero-to-non-zero write out of the callback, whose gas is scarce (capped and prepaid through
        // the provider's fee), and tells the callback which block hash to mix in. Then DrawMath.drawValue.
        bytes32 randomValue;
    }

    /// @dev A settlement step's inputs and running totals, kept in memory (one storage write at the end).
    struct Settlement {
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

    // ------------------------------------------------------------------ storage

    IEntropyV2 public immutable entropy;
    /// @notice Blocks after a request without a reveal after which anyone may re-request the drawing's value, once
    /// (`reRequest`). Fixed at deployment: 43,200 on a chain of 2-second blocks is 24 hours.
    uint256 public immutable revealTimeoutBlocks;
    /// @notice The prize pool this engine created: it holds the tokens and pays.
    PrizeVault public immutable vault;
    /// @notice Token units per cent of the payout token (the vault's), for the payment events.
    uint256 public immutable tokenUnitsPerCent;

    /// @notice Gas requested for the randomness callback; fixes how many positions the callback settles.
    uint32 public callbackGasLimit;
    /// @dev Requests made so far; a request's index is its place in this count.
    uint64 private _requestCount;

    mapping(bytes32 campaignId => mapping(uint64 number => Drawing)) private _drawings;
    mapping(uint64 request => Request) private _requests;
    mapping(address provider => mapping(uint64 sequence => uint64 request)) private _requestIndex;
    /// @dev A request's drawings, four to a word, each `campaign index << 32 | number` (8 bytes instead of 64).
    mapping(uint64 request => mapping(uint256 word => uint256 members)) private _members;
    // ------------------------------------------------------------------ events

    event CallbackGasLimitChanged(uint32 previousLimit, uint32 newLimit);
    /// @notice A list is locked under its slot and draw time: commitment, counts, table, threshold and the
    /// wallet its payouts go to are fixed.
    event DrawingCommitted(
        bytes32 indexed campaignId,
        uint64 indexed number,
        bytes32 indexed slot,
        uint40 drawAt,
        uint8 kind,
        bytes32 listCommitment,
        uint32 winnersExpected,
        uint32 entrantCount,
        uint64 totalWeight,
        bytes32 tableId,
        uint32 tableVersion,
        uint64 largePrizeThresholdCents,
        address payoutWallet
    );
    /// @notice The random value was requested after the commitment, in the same transaction, with a user
    /// contribution derived from every commit of the batch (DrawMath.batchUserRandomNumber); this drawing is
    /// member `batchIndex` of `batchSize`. `fee` is the whole request's.
    event EntropyRequested(
        bytes32 indexed campaignId,
        uint64 indexed number,
        address provider,
        uint64 sequence,
        uint256 fee,
        bytes32 userRandomNumber,
        uint256 batchIndex,
        uint256 batchSize
    );
    /// @notice The drawing's request (`previousProvider`, `previousSequence`) was not revealed within
    /// `revealTimeoutBlocks`, so the operator (`by`) requested its batch again, once, in public: (`provider`,
    /// `sequence`) now serves it, with user contribution `userRandomNumber` (DrawMath.reRequestUserRandomNumber of
    /// the previous request). A late reveal of the previous request is ignored. `fee` is the whole re-request's.
    event EntropyReRequested(
        bytes32 indexed campaignId,
        uint64 indexed number,
        address previousProvider,
        uint64 previousSequence,
        address provider,
        uint64 sequence,
        uint256 fee,
        bytes32 userRandomNumber,
        address by
    );
    /// @notice The drawing's random value arrived: Pyth Entropy's `entropyValue` for (`provider`, `sequence`), mixed
    /// with `requestBlockHash`, the hash of the block that holds the request (the commit's, or the re-request's),
    /// into `randomValue` = DrawMath.drawValue(entropyValue, requestBlockHash), from which every prize follows.
    event EntropyRevealed(
        bytes32 indexed campaignId,
        uint64 indexed number,
        address provider,
        uint64 sequence,
        bytes32 entropyValue,
        bytes32 requestBlockHash,
        bytes32 randomValue
    );
    /// @notice A reveal that came more than BLOCKHASH_WINDOW blocks after its request (`requestBlock`), when the
    /// request block's hash is no longer readable (or, never in practice, in the request's own block, whose hash is
    /// not known yet either): its value is discarded, unused, and the request's drawings stay
    /// requested until their one re-request (allowed at once, since Entropy no longer holds the request). Using it
    /// without the hash would let a provider that waits out the window remove the part of the value nobody knew.
    event EntropyRevealTooLate(address indexed provider, uint64 indexed sequence, uint64 requestBlock, bytes32 entropyValue);
    /// @notice A callback that matches no pending request; ignored so the callback never reverts on it.
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
    /// @notice The admin moved an unpaid drawing to the campaign's current wallet, which it named.
    event DrawingWalletMoved(bytes32 indexed campaignId, uint64 indexed number, address previousWallet, address newWallet);

    // ------------------------------------------------------------------ errors

    error InvalidCallbackGasLimit(uint32 limit);
    error EmptyBatch();
    error BatchTooLarge(uint256 size, uint256 maxSize);
    error NumberOutOfSequence(bytes32 campaignId, uint64 expected, uint64 given);
    error InvalidSlot();
    error SlotAlreadyUsed(bytes32 campaignId, bytes32 slot, uint64 number);
    error DrawTimeNotLater(bytes32 campaignId, uint40 lastDrawAt, uint40 drawAt);
    error InvalidKind(uint8 kind);
    error EmptyCommitment();
    error NoWinners();
    error TooManyWinners(uint256 count);
    error InvalidEntrantCounts(uint256 entrantCount, uint256 totalWeight);
    error FeeAboveCap(uint256 fee, uint256 maxFee);
    error InsufficientFee(uint256 fee, uint256 sent);
    error DrawingNotFound(bytes32 campaignId, uint64 number);
    error NotRevealed(bytes32 campaignId, uint64 number);
    error NothingToSettle(bytes32 campaignId, uint64 number);
    error NotEntrantDrawing(bytes32 campaignId, uint64 number);
    error WinnersAlreadyRecorded(bytes32 campaignId, uint64 number);
    error WinnersNotRecorded(bytes32 campaignId, uint64 number);
    error NotSettled(bytes32 campaignId, uint64 number);
    error AlreadyPaid(bytes32 campaignId, uint64 number);
    error NotHeldPrize(bytes32 campaignId, uint64 number, uint256 position);
    error PositionNotSettled(bytes32 campaignId, uint64 number, uint256 position);
    error NothingToMove(bytes32 campaignId, uint64 number);
    /// @notice A wallet move named `to`, but the campaign's payout wallet is `campaignWallet`.
    error MoveDestinationMismatch(bytes32 campaignId, address to, address campaignWallet);
    error FeeRefundFailed(address to, uint256 amount);
    error InvalidRevealTimeout(uint256 blocks);
    /// @notice Only a drawing still waiting for its random value (Requested) can be re-requested.
    error NotAwaitingReveal(bytes32 campaignId, uint64 number);
    /// @notice A drawing's value is re-requested at most once.
    error AlreadyReRequested(bytes32 campaignId, uint64 number);
    /// @notice The request may still be revealed until block `dueBlock`.
    error RevealNotTimedOut(bytes32 campaignId, uint64 number, uint256 dueBlock);
    /// @notice The provider revealed and the callback failed: retry it with the same value (Entropy's
    /// revealWithCallback), never ask for another.
    error CallbackFailedRetryIt(bytes32 campaignId, uint64 number);
    /// @notice A drawing's automatic payout could reach `worstCents`, more than one payment may ever be under the limits (`maxCents`: half the overall 24-hour limit,
    /// or of the campaign's); raise the limit, or the threshold.
    error PayoutAboveLimit(bytes32 campaignId, uint64 number, uint256 worstCents, uint256 maxCents);

    // ------------------------------------------------------------------ construction

    /// @param entropy_ Pyth Entropy (IEntropyV2), or a test provider in the test environment.
    /// @param token_ The payout stablecoin; at least 2 decimals. The vault created here holds it.
    /// @param manager The PrizeDrawManager deciding who may call what, for this contract and its vault.
    /// @param callbackGasLimit_ Gas requested for the randomness callback.
    /// @param dailyLimitCents the vault's overall 24-hour limit on transfers out (see PrizeVault).
    /// @param revealTimeoutBlocks_ blocks without a reveal after which a drawing may be re-requested, once.
    constructor(
        address entropy_,
        address token_,
        address manager,
        uint32 callbackGasLimit_,
        uint256 dailyLimitCents,
        uint256 revealTimeoutBlocks_
    ) PrizeDrawAccess(manager) {
        if (entropy_ == address(0) || manager == address(0)) revert ZeroAddress();
        if (revealTimeoutBlocks_ < MIN_REVEAL_TIMEOUT_BLOCKS || revealTimeoutBlocks_ > MAX_REVEAL_TIMEOUT_BLOCKS) {
            revert InvalidRevealTimeout(revealTimeoutBlocks_);
        }
        entropy = IEntropyV2(entropy_);
        revealTimeoutBlocks = revealTimeoutBlocks_;
        PrizeVault vault_ = new PrizeVault(manager, token_, dailyLimitCents);
        vault = vault_;
        tokenUnitsPerCent = vault_.tokenUnitsPerCent();
        _setCallbackGasLimit(callbackGasLimit_);
    }

    // ------------------------------------------------------------------ admin

    /// @notice Sets the gas requested for the callback; drawings committed from now on settle
    /// (limit - CALLBACK_BASE_GAS) / POSITION_GAS positions in their callback.
    function setCallbackGasLimit(uint32 limit) external restricted {
        _setCallbackGasLimit(limit);
    }

    /// @notice Moves an unpaid drawing (its payout or any open held prize) to `to`: the way out when the token
    /// refuses the wallet recorded at commit. Two keys must agree on the destination: `to` must be the campaign's
    /// current wallet (set by the operator), so neither a stolen operator key that changes the campaign's wallet
    /// before this transaction is mined, nor the admin alone, can send the money somewhere else.
    /// @param to The destination the admin checked: the campaign's current payout wallet.
    function moveDrawingWallet(bytes32 campaignId, uint64 number, address to) external restricted {
        Drawing storage d = _drawing(campaignId, number);
        if (d.status == Status.Paid && vault.heldClosed(campaignId, number) == d.heldCount) {
            revert NothingToMove(campaignId, number);
        }
        _checkMoveTo(campaignId, to);
        if (to == d.payoutWallet) revert NothingToMove(campaignId, number);
        emit DrawingWalletMoved(campaignId, number, d.payoutWallet, to);
        d.payoutWallet = to;
    }


    // ------------------------------------------------------------------ drawing cycle

    /// @notice Locks a batch of drawings' lists onchain (of one campaign or many) and requests one random value
    /// for all of them, in one transaction. Each number must be its campaign's last plus one, each slot unused
    /// and each draw time later than the campaign's last commit's, so a retried transaction is refused instead
    /// of drawing twice and a list cannot be drawn again under another drawing. The request's user
    /// contribution is derived from every commit of the batch, so the random value is fixed by the lists; each
    /// drawing's rolls stay its own because they hash its campaign and number. The callback's gas is shared:
    /// CALLBACK_BASE_GAS, DRAWING_CALLBACK_GAS per further drawing, and up to `callbackGasLimit` in all
    /// settles positions in batch order (at most each drawing's prize count); the request asks for exactly that
    /// gas (`batchCallbackGas`), so its fee follows the batch. The fee is paid from msg.value (up to `maxFee`);
    /// the rest is refunded.
    /// @return sequence Pyth's sequence number, every drawing's entropyRequestId.
    function commitAndRequest(Commit[] calldata commits, uint256 maxFee)
        external
        payable
        operatorUnpaused
        returns (uint64 sequence)
    {
        (uint64 request, bytes32 userRandomNumber, uint32 gasLimit) = _commitBatch(commits);
        address provider = entropy.getDefaultProvider();
        uint256 fee = entropy.getFeeV2(provider, gasLimit);
        if (fee > maxFee) revert FeeAboveCap(fee, maxFee);
        if (msg.value < fee) revert InsufficientFee(fee, msg.value);
        // The sequence number is only known from the call, so it is stored after it. Entropy is fixed at
        // construction and trusted; a callback inside requestV2 would find no request and be ignored.
        sequence = entropy.requestV2{value: fee}(provider, userRandomNumber, gasLimit);
        _recordRequest(commits, request, provider, sequence, fee, userRandomNumber);
        if (msg.value > fee) {
            (bool ok,) = msg.sender.call{value: msg.value - fee}("");
            if (!ok) revert FeeRefundFailed(msg.sender, msg.value - fee);
        }
    }

    /// @notice Asks again, once, for the random value of a drawing whose request has not been revealed within
    /// `revealTimeoutBlocks` blocks, or whose reveal came too late to use (EntropyRevealTooLate; at once then):
    /// liveness without a hidden re-draw. The operator's (the fee is paid from
    /// msg.value, up to `maxFee`; the rest is refunded), allowed during a pause, and public: the drawing's whole
    /// batch is re-requested from the current default provider with the callback gas its commit fixed, and
    /// `EntropyReRequested` names both requests for every drawing of it; a late reveal of the first request is
    /// ignored from then on, and a second re-request is refused. Not open to anyone: a provider knows its future
    /// values, so one that withheld a reveal could otherwise pad the provider's sequence with requests of its own
    /// and re-request at the sequence whose value it prefers. A failed callback is not a missing value: it is
    /// retried with that value (CallbackFailedRetryIt), within BLOCKHASH_WINDOW blocks of the request; a retry after
    /// that is discarded like any late reveal, and the drawing is re-requested.
    /// @return sequence The new request's sequence number.
    function reRequest(bytes32 campaignId, uint64 number, uint256 maxFee) external payable restricted returns (uint64 sequence) {
        Drawing storage d = _drawing(campaignId, number);
        if (d.status != Status.Requested) revert NotAwaitingReveal(campaignId, number);
        uint64 index = d.request;
        Request storage r = _requests[index];
        if (r.reRequested) revert AlreadyReRequested(campaignId, number);
        (address previousProvider, uint64 previousSequence) = (r.provider, r.sequence);
        EntropyStructsV2.Request memory pending = entropy.getRequestV2(previousProvider, previousSequence);
        // Entropy keeps a request until its callback succeeds; one it no longer knows can never be revealed (a
        // reveal that came too late for the request block's hash was discarded here, and Entropy forgot it).
        if (pending.sequenceNumber == previousSequence) {
            if (pending.callbackStatus == EntropyStatusConstants.CALLBACK_FAILED) revert CallbackFailedRetryIt(campaignId, number);
            uint256 dueBlock = uint256(pending.blockNumber) + revealTimeoutBlocks;
            if (block.number <= dueBlock) revert RevealNotTimedOut(campaignId, number, dueBlock);
        }
        (DrawingRef[] memory members, uint32 gasLimit) = _membersOf(index, r.size);
        address provider = entropy.getDefaultProvider();
        uint256 fee = entropy.getFeeV2(provider, gasLimit);
        if (fee > maxFee) revert FeeAboveCap(fee, maxFee);
        if (msg.value < fee) revert InsufficientFee(fee, msg.value);
        bytes32 userRandomNumber = DrawMath.reRequestUserRandomNumber(previousProvider, previousSequence);
        r.reRequested = true;
        delete _requestIndex[previousProvider][previousSequence];
        sequence = entropy.requestV2{value: fee}(provider, userRandomNumber, gasLimit);
        (r.provider, r.sequence, r.randomValue) = (provider, sequence, bytes32(block.number));
        _requestIndex[provider][sequence] = index;
        for (uint256 i; i < members.length; ++i) {
            emit EntropyReRequested(
                members[i].campaignId,
                members[i].number,
                previousProvider,
                previousSequence,
                provider,
                sequence,
                fee,
                userRandomNumber,
                msg.sender
            );
        }
        if (msg.value > fee) {
            (bool ok,) = msg.sender.call{value: msg.value - fee}("");
            if (!ok) revert FeeRefundFailed(msg.sender, msg.value - fee);
        }
    }

    /// @notice Computes up to `maxPositions` more prizes of a revealed drawing. Permissionless: anyone can
    /// finish a settlement the callback did not cover. Reverts rather than stopping early when gas is short,
    /// so a gas estimate covers the positions asked for.
    /// @return settled Positions computed by this call.
    function settle(bytes32 campaignId, uint64 number, uint256 maxPositions) external returns (uint256 settled) {
        Drawing storage d = _drawing(campaignId, number);
        if (d.status == Status.Requested) revert NotRevealed(campaignId, number);
        if (d.status != Status.Revealed || maxPositions == 0) revert NothingToSettle(campaignId, number);
        return _settle(campaignId, number, d, maxPositions);
    }

    /// @notice Entrant draws: records the commitment (fingerprint) of the winners the service selected from
    /// the locked entrants with the revealed random value. The selection is checked offchain by the verifier.
    function recordWinners(bytes32 campaignId, uint64 number, bytes32 winnersCommitment)
        external
        restricted
    {
        Drawing storage d = _drawing(campaignId, number);
        if (d.kind != KIND_ENTRANTS) revert NotEntrantDrawing(campaignId, number);
        if (d.status == Status.Requested) revert NotRevealed(campaignId, number);
        if (d.winnersCommitment != bytes32(0)) revert WinnersAlreadyRecorded(campaignId, number);
        if (winnersCommitment == bytes32(0)) revert EmptyCommitment();
        d.winnersCommitment = winnersCommitment;
        emit WinnersRecorded(campaignId, number, winnersCommitment, d.prizeCount);
    }

    // ------------------------------------------------------------------ payouts

    /// @notice Pays a settled drawing: one transfer of the sum of its prizes below the large-prize threshold to
    /// the wallet recorded at its commit. Permissionless: anyone may trigger it; the money can only go there.
    function payout(bytes32 campaignId, uint64 number) external {
        _payout(campaignId, number);
    }

    /// @notice Pays several settled drawings (of any campaigns) in one transaction, as `payout` does each; one
    /// that cannot be paid reverts the whole call. Permissionless.
    function payoutMany(DrawingRef[] calldata drawings) external {
        for (uint256 i; i < drawings.length; ++i) {
            _payout(drawings[i].campaignId, drawings[i].number);
        }
    }





    // ------------------------------------------------------------------ randomness callback

    /// @dev Called through IEntropyConsumer._entropyCallback, which refuses any caller but the Entropy contract.
    /// An unknown or repeated callback is ignored with an event, and so is one later than BLOCKHASH_WINDOW blocks
    /// after its request (EntropyRevealTooLate). A known one mixes the request block's hash into the value
    /// (DrawMath.drawValue) and reveals every drawing of its batch
    /// and settles exactly the positions their commit paid gas for (`callbackPositions`); it runs out of gas,
    /// failing, when given less: Entropy then records the callback as failed and anyone can retry it with the
    /// same value, and a gas estimate of the reveal covers the callback's whole share instead of finding a limit
    /// at which it does nothing. The loop is bounded by MAX_BATCH.
    function entropyCallback(uint64 sequence, address provider, bytes32 randomNumber) internal override {
        uint64 index = _requestIndex[provider][sequence];
        Request storage request = _requests[index];
        uint256 size = request.size;
        uint256 pending = uint256(request.randomValue);
        // Unknown (size 0) or answered before (a hash, not a block number): ignored below.
        if (size == 0 || pending > type(uint64).max) {
            emit EntropyCallbackIgnored(provider, sequence, randomNumber);
            return;
        }
        bytes32 requestBlockHash = blockhash(pending);
        if (requestBlockHash == bytes32(0)) {
            emit EntropyRevealTooLate(provider, sequence, uint64(pending), randomNumber);
            return;
        }
        bytes32 value = DrawMath.drawValue(randomNumber, requestBlockHash);
        request.randomValue = value;
        mapping(uint256 => uint256) storage members = _members[index];
        uint256 word;
        for (uint256 i; i < size; ++i) {
            if (i % 4 == 0) word = members[i / 4];
            (bytes32 campaignId, uint64 number) = _memberOf(word, i);
            Drawing storage d = _drawings[campaignId][number];
            d.status = Status.Revealed;
            d.revealedAt = uint40(block.timestamp);
            emit EntropyRevealed(campaignId, number, provider, sequence, randomNumber, requestBlockHash, value);
            _settle(campaignId, number, d, d.callbackPositions);
        }
    }

    /// @inheritdoc IDrawingEngine
    function heldPrize(bytes32 campaignId, uint64 number, uint256 position)
        external
        view
        returns (address wallet, uint256 amountCents)
    {
        Drawing storage d = _drawing(campaignId, number);
        if (d.status != Status.Settled && d.status != Status.Paid) revert NotSettled(campaignId, number);
        _requireWinners(d, campaignId, number);
        bool held;
        (,,, amountCents, held) = prizeAt(campaignId, number, position);
        if (!held) revert NotHeldPrize(campaignId, number, position);
        wallet = d.payoutWallet;
    }

    /// @inheritdoc IDrawingEngine
    function guaranteeTerms(bytes32 campaignId) external view returns (GuaranteeTerms memory terms) {
        Campaign storage c = _registered(campaignId);
        terms = GuaranteeTerms(c.guaranteeCents, c.guaranteePeriod, c.guaranteeStart, c.lastNumber, c.payoutWallet);
    }

    /// @notice The randomness request now serving a drawing, and whether it is a re-request.
    function requestOf(bytes32 campaignId, uint64 number)
        external
        view
        returns (address provider, uint64 sequence, bool reRequested)
    {
        Request storage r = _requests[_drawing(campaignId, number).request];
        return (r.provider, r.sequence, r.reRequested);
    }





    /// @inheritdoc PrizeDrawAccess
    function _requireUnpaused() internal view override {
        if (vault.paused()) revert EnforcedPause();
    }

    /// @inheritdoc IEntropyConsumer
    function getEntropy() internal view override returns (address) {
        return address(entropy);
    }

    // ------------------------------------------------------------------ views

    /// @notice Everything stored about drawing `number` of a campaign. For winner draws `winnersCommitment`
    /// equals `listCommitment`; `randomValue` is zero until the reveal.
    function getDrawing(bytes32 campaignId, uint64 number) external view returns (DrawingView memory v) {
        Drawing storage d = _drawing(campaignId, number);
        Request storage request = _requests[d.request];
        PrizeTable storage table = _tables[d.tableRef];
        v.listCommitment = d.listCommitment;
        v.winnersCommitment = d.kind == KIND_WINNERS ? d.listCommitment : d.winnersCommitment;
        if (d.status != Status.Requested) v.randomValue = request.randomValue;
        v.tableId = table.tableId;
        v.sequence = request.sequence;
        v.totalWeight = d.totalWeight;
        v.tableVersion = table.version;
        v.winnersExpected = d.winnersExpected;
        v.entrantCount = d.entrantCount;
        v.kind = d.kind;
        v.status = d.status;
        v.callbackPositions = d.callbackPositions;
        v.payoutWallet = d.payoutWallet;
        v.prizeCount = d.prizeCount;
        v.settledCount = d.settledCount;
        v.topPosition = d.topPosition;
        v.largePrizeThresholdCents = d.largePrizeThresholdCents;
        v.payoutCents = d.payoutCents;
        v.heldCents = d.heldCents;
        v.heldCount = d.heldCount;
        v.revealedAt = d.revealedAt;
    }

    /// @notice Recomputes the prize of a settled position from stored data, top-prize-once rule included.
    function prizeAt(bytes32 campaignId, uint64 number, uint256 position)
        public
        view
        returns (bytes32 randomValue, uint256 roll, uint256 tier, uint256 amountCents, bool held)
    {
        Drawing storage d = _drawing(campaignId, number);
        if (position >= d.settledCount) revert PositionNotSettled(campaignId, number, position);
        PrizeTable storage table = _tables[d.tableRef];
        uint64[] memory tiers = table.tiers;
        (randomValue, roll) = DrawMath.roll(
            _requests[d.request].randomValue,
            campaignId,
            number,
            position,
            table.denominator,
            DrawMath.rejectionFloor(table.denominator)
        );
        (tier, amountCents) = DrawMath.tierOf(tiers, roll);
        if (tier == 0 && d.topPosition != position + 1) (tier, amountCents) = (1, tiers[1] >> 32);
        held = amountCents >= d.largePrizeThresholdCents;
    }



    // ------------------------------------------------------------------ internals

    /// @dev Computes prizes from `settledCount` on, at most `maxPositions`. No gas checks: a batch either
    /// completes or reverts, so whoever sends it (an estimate included) pays for all of it. What the commit
    /// reserved beyond the prizes awarded is released at the payout, so the callback never calls the vault.
    function _settle(bytes32 campaignId, uint64 number, Drawing storage d, uint256 maxPositions)
        private
        returns (uint256 settled)
    {
        PrizeTable storage table = _tables[d.tableRef];
        Settlement memory b = Settlement({
            campaignId: campaignId,
            number: number,
            randomValue: _requests[d.request].randomValue,
            denominator: table.denominator,
            floor: DrawMath.rejectionFloor(table.denominator),
            threshold: d.largePrizeThresholdCents,
            tiers: table.tiers,
            topPosition: d.topPosition,
            payoutCents: d.payoutCents,
            heldCents: d.heldCents,
            heldCount: d.heldCount
        });
        uint256 start = d.settledCount;
        uint256 end = d.prizeCount;
        if (end - start > maxPositions) end = start + maxPositions;
        for (uint256 position = start; position < end; ++position) {
            _settlePosition(b, position);
        }
        settled = end - start;
        d.settledCount = uint32(end);
        d.topPosition = uint32(b.topPosition);
        d.payoutCents = uint48(b.payoutCents);
        d.heldCents = uint48(b.heldCents);
        d.heldCount = uint32(b.heldCount);
        if (end == d.prizeCount) {
            d.status = Status.Settled;
            emit DrawingSettled(campaignId, number, end, b.payoutCents, b.heldCount, b.heldCents);
        }
    }

    /// @dev One position's roll, tier (top-prize-once rule applied) and prize, accumulated into the batch.
    /// Held prizes are not stored: payHeldPrize recomputes them (prizeAt), which keeps the callback cheap.
    function _settlePosition(Settlement memory b, uint256 position) private {
        (bytes32 value, uint256 rolled) = DrawMath.roll(b.randomValue, b.campaignId, b.number, position, b.denominator, b.floor);
        (uint256 tier, uint256 amount) = DrawMath.tierOf(b.tiers, rolled);
        if (tier == 0) {
            // Top-prize-once rule: a second top roll in the same draw pays the second tier.
            if (b.topPosition != 0) (tier, amount) = (1, b.tiers[1] >> 32);
            else b.topPosition = position + 1;
        }
        bool held = amount >= b.threshold;
        if (held) {
            b.heldCents += amount;
            ++b.heldCount;
        } else {
            b.payoutCents += amount;
        }
        emit PrizeAwarded(b.campaignId, b.number, position, value, rolled, tier, amount, held);
    }

    /// @dev Commits every drawing of a batch under the next request index, shares the callback's gas among
    /// them and lists them as the request's members; returns the request's user contribution and the callback
    /// gas the batch needs.
    function _commitBatch(Commit[] calldata commits)
        private
        returns (uint64 request, bytes32 userRandomNumber, uint32 gasLimit)
    {
        uint256 size = commits.length;
        uint256 budget = _positionBudget(size);
        gasLimit = callbackGasLimit;
        request = ++_requestCount;
        mapping(uint256 => uint256) storage members = _members[request];
        bytes32[] memory contributions = new bytes32[](size);
        uint256 word;
        uint256 reservedCents;
        // The limits in force, read once for the batch: the overall cap on one payment, and whether any campaign
        // has a lower one of its own (then each drawing asks the vault for its campaign's).
        (uint256 overallMaxCents, bool campaignLimits) = vault.paymentCaps();
        uint256 maxCents = campaignLimits ? 0 : overallMaxCents;
        for (uint256 i; i < size; ++i) {
            Commit calldata c = commits[i];
            (uint256 member, uint256 worstCents) = _commit(c, request, maxCents);
            reservedCents += worstCents;
            budget = _shareCallbackGas(c, budget);
            contributions[i] = DrawMath.userRandomNumber(c.campaignId, c.number, c.slot, c.listCommitment);
            word |= member << ((i % 4) * 64);
            if (i % 4 == 3 || i + 1 == size) {
                members[i / 4] = word;
                word = 0;
            }
        }
        userRandomNumber = DrawMath.batchUserRandomNumber(contributions);
        gasLimit -= uint32(budget);
        // Every drawing's worst case is owed from its commit: refused here when the pool cannot back it.
        vault.adjustOwed(reservedCents, 0);
    }

    /// @dev Gives a just committed drawing the positions its callback settles out of the batch's remaining
    /// `budget` (in batch order, at most its prize count); returns what is left.
    function _shareCallbackGas(Commit calldata c, uint256 budget) private returns (uint256) {
        Drawing storage d = _drawings[c.campaignId][c.number];
        uint256 positions = budget / POSITION_GAS;
        if (positions > d.prizeCount) positions = d.prizeCount;
        d.callbackPositions = uint16(positions);
        return budget - positions * POSITION_GAS;
    }

    /// @dev Ties the request to the batch just committed and announces it for every drawing.
    function _recordRequest(
        Commit[] calldata commits,
        uint64 request,
        address provider,
        uint64 sequence,
        uint256 fee,
        bytes32 userRandomNumber
    ) private {
        uint256 size = commits.length;
        _requests[request] = Request(provider, sequence, uint16(size), false, bytes32(block.number));
        _requestIndex[provider][sequence] = request;
        for (uint256 i; i < size; ++i) {
            Commit calldata c = commits[i];
            emit EntropyRequested(c.campaignId, c.number, provider, sequence, fee, userRandomNumber, i, size);
        }
    }

    /// @dev Member `i` of a request's batch, from the word of `_members` that holds it (four 8-byte entries to a
    /// word, each `campaign index << 32 | number`).
    function _memberOf(uint256 word, uint256 i) private view returns (bytes32 campaignId, uint64 number) {
        uint256 member = uint64(word >> ((i % 4) * 64));
        return (_campaignIdAt[uint32(member >> 32)], uint32(member));
    }

    /// @dev A request's drawings in batch order, and the callback gas the commit asked for them: CALLBACK_BASE_GAS,
    /// DRAWING_CALLBACK_GAS per further drawing and POSITION_GAS per position its callback settles.
    function _membersOf(uint64 index, uint256 size) private view returns (DrawingRef[] memory members, uint32 gasLimit) {
        members = new DrawingRef[](size);
        mapping(uint256 => uint256) storage words = _members[index];
        uint256 gas = CALLBACK_BASE_GAS + (size - 1) * DRAWING_CALLBACK_GAS;
        uint256 word;
        for (uint256 i; i < size; ++i) {
            if (i % 4 == 0) word = words[i / 4];
            (bytes32 campaignId, uint64 number) = _memberOf(word, i);
            members[i] = DrawingRef(campaignId, number);
            gas += uint256(_drawings[campaignId][number].callbackPositions) * POSITION_GAS;
        }
        gasLimit = uint32(gas);
    }

    /// @dev Gas left for settling positions in the callback of a batch of `size`, after every drawing's share.
    function _positionBudget(uint256 size) private view returns (uint256) {
        uint256 limit = callbackGasLimit;
        uint256 maxSize = 1 + (limit - CALLBACK_BASE_GAS) / DRAWING_CALLBACK_GAS;
        if (maxSize > MAX_BATCH) maxSize = MAX_BATCH;
        if (size == 0) revert EmptyBatch();
        if (size > maxSize) revert BatchTooLarge(size, maxSize);
        return limit - CALLBACK_BASE_GAS - (size - 1) * DRAWING_CALLBACK_GAS;
    }

    /// @dev Checks a commit and stores the drawing (state Requested); commitAndRequest then requests the value.
    /// Returns its batch member entry (campaign index << 32 | number) and the most its prizes can total.
    /// @param maxCents The cap on one payment for every campaign of the batch; 0: ask the vault per campaign.
    function _commit(Commit calldata c, uint64 request, uint256 maxCents)
        private
        returns (uint256 member, uint256 worstCents)
    {
        Campaign storage campaign = _registered(c.campaignId);
        uint64 expected = uint64(campaign.lastNumber) + 1;
        if (c.number != expected || expected > type(uint32).max) revert NumberOutOfSequence(c.campaignId, expected, c.number);
        if (c.slot == bytes32(0)) revert InvalidSlot();
        uint64 slotNumber = _slotNumbers[c.campaignId][c.slot];
        if (slotNumber != 0) revert SlotAlreadyUsed(c.campaignId, c.slot, slotNumber);
        if (c.drawAt <= campaign.lastDrawAt) revert DrawTimeNotLater(c.campaignId, campaign.lastDrawAt, c.drawAt);
        address wallet = campaign.payoutWallet;
        if (wallet == address(0)) revert PayoutWalletRequired(c.campaignId);
        uint32 prizeCount = _checkList(c);
        uint32 tableRef = _tableRef(c.tableId, c.tableVersion);
        worstCents = _worstCase(c, tableRef, campaign.largePrizeThresholdCents, prizeCount, maxCents);

        campaign.lastNumber = uint32(c.number);
        campaign.lastDrawAt = c.drawAt;
        _slotNumbers[c.campaignId][c.slot] = c.number;
        Drawing storage d = _drawings[c.campaignId][c.number];
        d.listCommitment = c.listCommitment;
        d.request = request;
        d.tableRef = tableRef;
        d.totalWeight = c.totalWeight;
        d.winnersExpected = c.winnersExpected;
        d.entrantCount = c.entrantCount;
        d.kind = c.kind;
        d.status = Status.Requested;
        d.payoutWallet = wallet;
        d.prizeCount = prizeCount;
        d.largePrizeThresholdCents = campaign.largePrizeThresholdCents;
        _emitCommitted(c, campaign.largePrizeThresholdCents, wallet);
        member = uint256(campaign.index) << 32 | c.number;
    }

    /// @dev The most a drawing's prizes can total; refuses one whose automatic payout (a single transfer) could
    /// exceed what an allowance can ever hold, which would leave it unpayable. The tiers are scanned only when the
    /// whole worst case is above the cap (the automatic payout is part of it).
    function _worstCase(Commit calldata c, uint32 tableRef, uint256 threshold, uint256 prizeCount, uint256 maxCents)
        private
        view
        returns (uint256 worstCents)
    {
        PrizeTable storage table = _tables[tableRef];
        worstCents = DrawMath.worstCase(table.topCents, table.largestCents, prizeCount);
        if (maxCents == 0) maxCents = vault.maxPaymentCents(c.campaignId);
        if (worstCents <= maxCents) return worstCents;
        uint256 automaticCents = DrawMath.worstAutomatic(table.tiers, threshold, prizeCount);
        if (automaticCents > maxCents) revert PayoutAboveLimit(c.campaignId, c.number, automaticCents, maxCents);
    }

    /// @dev The list's counts; returns the number of prizes the drawing computes.
    function _checkList(Commit calldata c) private pure returns (uint32 prizeCount) {
        if (c.listCommitment == bytes32(0)) revert EmptyCommitment();
        if (c.winnersExpected == 0) revert NoWinners();
        if (c.winnersExpected > MAX_WINNERS) revert TooManyWinners(c.winnersExpected);
        prizeCount = c.winnersExpected;
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
    }

    function _emitCommitted(Commit calldata c, uint64 largePrizeThresholdCents, address wallet) private {
        emit DrawingCommitted(
            c.campaignId,
            c.number,
            c.slot,
            c.drawAt,
            c.kind,
            c.listCommitment,
            c.winnersExpected,
            c.entrantCount,
            c.totalWeight,
            c.tableId,
            c.tableVersion,
            largePrizeThresholdCents,
            wallet
        );
    }

    function _payout(bytes32 campaignId, uint64 number) private {
        Drawing storage d = _drawing(campaignId, number);
        if (d.status == Status.Paid) revert AlreadyPaid(campaignId, number);
        if (d.status != Status.Settled) revert NotSettled(campaignId, number);
        _requireWinners(d, campaignId, number);
        d.status = Status.Paid;
        uint256 cents = d.payoutCents;
        address wallet = d.payoutWallet;
        // The commit reserved the worst case; what the draw did not award is no longer owed.
        PrizeTable storage table = _tables[d.tableRef];
        uint256 unawarded = DrawMath.worstCase(table.topCents, table.largestCents, d.prizeCount) - cents - d.heldCents;
        emit DrawingPaid(campaignId, number, wallet, cents, cents * tokenUnitsPerCent);
        vault.pay(campaignId, wallet, cents, unawarded);
    }


    function _requireWinners(Drawing storage d, bytes32 campaignId, uint64 number) private view {
        if (d.kind == KIND_ENTRANTS && d.winnersCommitment == bytes32(0)) revert WinnersNotRecorded(campaignId, number);
    }

    function _drawing(bytes32 campaignId, uint64 number) private view returns (Drawing storage d) {
        d = _drawings[campaignId][number];
        if (d.status == Status.None) revert DrawingNotFound(campaignId, number);
    }

    /// @dev A wallet move's destination is bound to the campaign's wallet: the admin and the operator agree on it.
    function _checkMoveTo(bytes32 campaignId, address to) private view {
        if (to == address(0)) revert ZeroAddress();
        address campaignWallet = _campaigns[campaignId].payoutWallet;
        if (to != campaignWallet) revert MoveDestinationMismatch(campaignId, to, campaignWallet);
    }

    function _setCallbackGasLimit(uint32 limit) private {
        if (limit < MIN_CALLBACK_GAS_LIMIT || limit > MAX_CALLBACK_GAS_LIMIT) revert InvalidCallbackGasLimit(limit);
        emit CallbackGasLimitChanged(callbackGasLimit, limit);
        callbackGasLimit = limit;
    }
}
