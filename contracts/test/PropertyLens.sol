// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessManager} from "@openzeppelin/contracts/access/manager/AccessManager.sol";
import {PrizeDraw} from "../PrizeDraw.sol";
import {PrizeVault} from "../PrizeVault.sol";

/// @title PropertyLens
/// @notice TEST-ONLY: every number the property test (test/contracts/PrizeDraw.properties.test.ts) reads after a
/// command, in one eth_call of plain words: separate view calls cost more than the rest of a check, and the test
/// checks after every command of 10,000 sequences. It only calls the contracts' public views. Each call into
/// PrizeDraw costs about as much as a whole eth_call of a small contract, so `read` is asked only for what the
/// check compares. Its query and answer are plain words, which the test encodes and decodes without an ABI coder.
contract PropertyLens {
    PrizeDraw public immutable draw;
    PrizeVault public immutable vault;
    AccessManager public immutable manager;

    constructor(PrizeDraw draw_, PrizeVault vault_, AccessManager manager_) {
        draw = draw_;
        vault = vault_;
        manager = manager_;
    }

    /// @notice `q` is five counts, then as many campaign ids, campaign ids for terms, (campaign id, number) pairs
    /// of drawings, (campaign id, period) pairs of guarantees and operation ids. The answer's words, in order: the
    /// vault's balances() (4) and paymentState() (3, paused as 0 or 1); per campaign getCampaign (4, registered as
    /// 0 or 1) and the vault's maxPaymentCents (1); per campaign for terms getCampaignTerms (4); per drawing
    /// getDrawing's settledCount and heldCount, the vault's heldClosed, getDrawing's payoutWallet, status, sequence and randomValue (7); per
    /// guarantee the vault's getGuarantee (3); per operation the manager's getNonce and getSchedule (2).
    function read(bytes32[] calldata q) external view returns (uint256[] memory w) {
        uint256[5] memory n = [uint256(q[0]), uint256(q[1]), uint256(q[2]), uint256(q[3]), uint256(q[4])];
        w = new uint256[](7 + n[0] * 5 + n[1] * 4 + n[2] * 7 + n[3] * 3 + n[4] * 2);
        (w[0], w[1], w[2], w[3]) = vault.balances();
        bool isPaused;
        (w[4], w[5], isPaused) = vault.paymentState();
        w[6] = isPaused ? 1 : 0;
        uint256 i = 7;
        uint256 k = 5;
        for (uint256 c; c < n[0]; ++c) i = _campaign(w, i, q[k++]);
        for (uint256 t; t < n[1]; ++t) {
            (w[i], w[i + 1], w[i + 2], w[i + 3]) = draw.getCampaignTerms(q[k++]);
            i += 4;
        }
        for (uint256 d; d < n[2]; ++d) {
            i = _drawing(w, i, q[k], uint64(uint256(q[k + 1])));
            k += 2;
        }
        for (uint256 g; g < n[3]; ++g) {
            (PrizeVault.GuaranteeStatus status, address wallet, uint256 cents) = vault.getGuarantee(q[k], uint32(uint256(q[k + 1])));
            (w[i], w[i + 1], w[i + 2]) = (uint256(status), uint160(wallet), cents);
            (i, k) = (i + 3, k + 2);
        }
        for (uint256 o; o < n[4]; ++o) {
            (w[i], w[i + 1]) = (manager.getNonce(q[k]), manager.getSchedule(q[k]));
            (i, k) = (i + 2, k + 1);
        }
    }

    /// @notice What the test's limitExpect needs before a payment: the vault's overall limit and what it allows now,
    /// and the campaign's (paymentState and campaignAllowance).
    function limits(bytes32 campaignId)
        external
        view
        returns (uint256 limitCents, uint256 availableCents, uint256 campaignLimitCents, uint256 campaignAvailableCents)
    {
        (limitCents, availableCents,) = vault.paymentState();
        (campaignLimitCents, campaignAvailableCents) = vault.campaignAllowance(campaignId);
    }

    function _campaign(uint256[] memory w, uint256 i, bytes32 campaignId) private view returns (uint256) {
        (bool registered, address wallet, uint256 lastNumber, uint256 threshold) = draw.getCampaign(campaignId);
        (w[i], w[i + 1], w[i + 2], w[i + 3]) = (registered ? 1 : 0, uint160(wallet), lastNumber, threshold);
        w[i + 4] = vault.maxPaymentCents(campaignId);
        return i + 5;
    }

    function _drawing(uint256[] memory w, uint256 i, bytes32 campaignId, uint64 number) private view returns (uint256) {
        PrizeDraw.DrawingView memory v = draw.getDrawing(campaignId, number);
        (w[i], w[i + 1], w[i + 2]) = (v.settledCount, v.heldCount, vault.heldClosed(campaignId, number));
        (w[i + 3], w[i + 4]) = (uint160(v.payoutWallet), uint256(v.status));
        (w[i + 5], w[i + 6]) = (v.sequence, uint256(v.randomValue));
        return i + 7;
    }
}
