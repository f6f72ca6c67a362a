// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {PrizeDrawAccess} from "./PrizeDrawAccess.sol";

/// @title Campaigns
/// @notice The campaign registry: payout wallet, large-prize threshold, guarantee terms, and the bookkeeping that
/// binds each commit to its drawing (gapless numbers, slots used once, draw times strictly increasing).
abstract contract Campaigns is PrizeDrawAccess {
    /// @notice Shortest and longest guarantee period.
    uint256 public constant MIN_GUARANTEE_PERIOD = 1 days;
    uint256 public constant MAX_GUARANTEE_PERIOD = 366 days;
    uint256 private constant MAX_GUARANTEE_CENTS = 100_000_000;

    /// @dev Two slots. Slot 0: wallet, last number, last draw time, flag (30 bytes). Slot 1: threshold, guarantee
    /// terms, index and guarantee start (29 bytes). `lastNumber` is stored in 32 bits (hourly draws for 490,000 years).
    struct Campaign {
        address payoutWallet;
        uint32 lastNumber;
        uint40 lastDrawAt;
        bool registered;
        uint64 largePrizeThresholdCents;
        uint64 guaranteeCents;
        uint32 guaranteePeriod;
        uint32 index; // 1-based registration order: how a randomness batch lists its drawings in 8 bytes
        uint40 guaranteeStart; // block time of the registration: period p ends no earlier than start + (p+1) x period
    }

    mapping(bytes32 campaignId => Campaign) internal _campaigns;
    /// @dev The drawing number each used slot was committed under.
    mapping(bytes32 campaignId => mapping(bytes32 slot => uint64 number)) internal _slotNumbers;
    mapping(uint32 index => bytes32 campaignId) internal _campaignIdAt;
    uint32 private _campaignCount;

    /// @notice Guarantee terms: a payment of exactly `guaranteeCents` per period of `guaranteePeriod` seconds, at
    /// most once per period; zero cents for none.
    event CampaignRegistered(
        bytes32 indexed campaignId,
        address payoutWallet,
        uint256 largePrizeThresholdCents,
        uint256 guaranteeCents,
        uint256 guaranteePeriod
    );
    /// @notice Applies to drawings committed from now on; committed ones keep the wallet of their commit.
    event PayoutWalletChanged(bytes32 indexed campaignId, address previousWallet, address newWallet);
    event LargePrizeThresholdChanged(bytes32 indexed campaignId, uint256 previousCents, uint256 newCents);

    error InvalidCampaignId();
    error CampaignAlreadyRegistered(bytes32 campaignId);
    error CampaignNotRegistered(bytes32 campaignId);
    error PayoutWalletRequired(bytes32 campaignId);
    error InvalidLargePrizeThreshold(uint256 cents);
    error InvalidGuaranteeTerms(uint256 cents, uint256 period);

    /// @notice Registers a campaign. The payout wallet may be zero for now (a draft) but, once set, only changes.
    /// @param largePrizeThresholdCents prizes at or above it are held for manual payout; above 0.
    /// @param guaranteeCents the guaranteed amount per period (0: no guarantee), at most 100,000,000.
    /// @param guaranteePeriod seconds, 1 to 366 days (ignored without a guarantee). Periods are counted onchain
    /// from this transaction's block time: period p cannot be picked before start + (p + 1) x guaranteePeriod. The
    /// service's periods start at the campaign's start (never before it is registered) and stop counting while the
    /// campaign is paused, so they end at or after that bound: it never holds up an honest pick, and a stolen key
    /// can create at most one guarantee per period of real time.
    function registerCampaign(
        bytes32 campaignId,
        address payoutWallet,
        uint256 largePrizeThresholdCents,
        uint256 guaranteeCents,
        uint256 guaranteePeriod
    ) external operatorUnpaused {
        if (campaignId == bytes32(0)) revert InvalidCampaignId();
        Campaign storage campaign = _campaigns[campaignId];
        if (campaign.registered) revert CampaignAlreadyRegistered(campaignId);
        _checkThreshold(largePrizeThresholdCents);
        if (guaranteeCents != 0) {
            if (guaranteeCents > MAX_GUARANTEE_CENTS || guaranteePeriod < MIN_GUARANTEE_PERIOD || guaranteePeriod > MAX_GUARANTEE_PERIOD) {
                revert InvalidGuaranteeTerms(guaranteeCents, guaranteePeriod);
            }
        } else {
            guaranteePeriod = 0;
        }
        uint32 index = ++_campaignCount;
        _campaignIdAt[index] = campaignId;
        campaign.index = index;
        campaign.registered = true;
        campaign.payoutWallet = payoutWallet;
        campaign.largePrizeThresholdCents = uint64(largePrizeThresholdCents);
        campaign.guaranteeCents = uint64(guaranteeCents);
        campaign.guaranteePeriod = uint32(guaranteePeriod);
        campaign.guaranteeStart = uint40(block.timestamp);
        emit CampaignRegistered(campaignId, payoutWallet, largePrizeThresholdCents, guaranteeCents, guaranteePeriod);
    }

    /// @notice Changes the campaign's payout wallet for drawings committed from now on. Zero is refused: a
    /// wallet can be changed, never removed. Committed drawings keep theirs (only the admin may move one, naming
    /// this wallet). Allowed during a pause, unlike the operator's other actions on what is owed: recovering from a
    /// compromised partner wallet sets the new one while paused, and the change alone moves nothing owed (commits
    /// and guarantee picks, which would use it, wait for the resume; a move needs the admin).
    function setPayoutWallet(bytes32 campaignId, address wallet) external restricted {
        Campaign storage campaign = _registered(campaignId);
        if (wallet == address(0)) revert PayoutWalletRequired(campaignId);
        emit PayoutWalletChanged(campaignId, campaign.payoutWallet, wallet);
        campaign.payoutWallet = wallet;
    }

    /// @notice Changes the large-prize threshold for drawings committed from now on.
    function setLargePrizeThreshold(bytes32 campaignId, uint256 cents) external operatorUnpaused {
        Campaign storage campaign = _registered(campaignId);
        _checkThreshold(cents);
        emit LargePrizeThresholdChanged(campaignId, campaign.largePrizeThresholdCents, cents);
        campaign.largePrizeThresholdCents = uint64(cents);
    }

    /// @notice A campaign's registry entry.
    function getCampaign(bytes32 campaignId)
        external
        view
        returns (bool registered, address payoutWallet, uint64 lastNumber, uint64 largePrizeThresholdCents)
    {
        Campaign storage c = _campaigns[campaignId];
        return (c.registered, c.payoutWallet, c.lastNumber, c.largePrizeThresholdCents);
    }



    /// @notice A campaign's guarantee terms, the draw time of its last commit and the block time its guarantee
    /// periods are counted from (unix seconds).
    function getCampaignTerms(bytes32 campaignId)
        external
        view
        returns (uint256 guaranteeCents, uint256 guaranteePeriod, uint256 lastDrawAt, uint256 guaranteeStart)
    {
        Campaign storage c = _campaigns[campaignId];
        return (c.guaranteeCents, c.guaranteePeriod, c.lastDrawAt, c.guaranteeStart);
    }

    /// @notice The drawing number a slot was committed under (0: the slot is unused).
    function numberOfSlot(bytes32 campaignId, bytes32 slot) external view returns (uint64) {
        return _slotNumbers[campaignId][slot];
    }

    function _registered(bytes32 campaignId) internal view returns (Campaign storage campaign) {
        campaign = _campaigns[campaignId];
        if (!campaign.registered) revert CampaignNotRegistered(campaignId);
    }

    function _checkThreshold(uint256 cents) private pure {
        if (cents == 0 || cents > type(uint64).max) revert InvalidLargePrizeThreshold(cents);
    }
}
