// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IDrawingEngine
/// @notice What the prize vault reads from the drawing engine that created it, to apply its money rules to held
/// prizes and guarantees: facts about drawings and campaigns, never a transfer. Every function is a view.
interface IDrawingEngine {
    /// @notice A campaign's guarantee terms and what the vault checks a pick against.
    /// @param amountCents the guaranteed amount per period (0: the campaign has no guarantee).
    /// @param periodSeconds the length of one period.
    /// @param periodsStart block time of the campaign's registration: period p ends no earlier than
    /// periodsStart + (p + 1) x periodSeconds.
    /// @param committedDrawings drawings committed so far (the campaign's last drawing number).
    /// @param payoutWallet the campaign's current payout wallet (zero while it has none).
    struct GuaranteeTerms {
        uint256 amountCents;
        uint256 periodSeconds;
        uint256 periodsStart;
        uint256 committedDrawings;
        address payoutWallet;
    }

    /// @notice A registered campaign's guarantee terms; reverts CampaignNotRegistered for an unknown campaign.
    function guaranteeTerms(bytes32 campaignId) external view returns (GuaranteeTerms memory terms);

    /// @notice A held prize of a settled drawing (winners recorded, for an entrant draw): the wallet it is paid to
    /// now (the one recorded at commit, or where the admin moved the drawing) and its amount. Reverts
    /// DrawingNotFound, NotSettled, WinnersNotRecorded, PositionNotSettled or NotHeldPrize otherwise.
    function heldPrize(bytes32 campaignId, uint64 number, uint256 position)
        external
        view
        returns (address wallet, uint256 amountCents);
}
