import { readFileSync } from "node:fs";
import { encodeAbiParameters, hexToBigInt, keccak256, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { buildDrawVectors, type DrawVectors } from "../../api/scripts/draw-vectors.js";

const committed = JSON.parse(readFileSync(new URL("../vectors/draw-vectors.json", import.meta.url), "utf8")) as DrawVectors;

describe("draw vectors", () => {
  it("are what the library computes now (regenerate with npx tsx api/scripts/write-draw-vectors.ts)", () => {
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildDrawVectors())));
  });

  it("cover the cases the contract test relies on", () => {
    const names = committed.cases.map((c) => c.name);
    expect(names).toContain("default-single");
    expect(names.some((n) => n.startsWith("top-prize-once"))).toBe(true);
    expect(committed.cases.some((c) => c.entrants !== null)).toBe(true);
    // The top-prize-once rule is exercised: a tier-0 roll paid as tier 1.
    expect(committed.cases.some((c) => c.expected.results.some((r) => r.roll < (c.inputs.table.thresholds[0] ?? 0) && r.tier === 1))).toBe(true);
    expect(committed.cases.some((c) => c.expected.results.some((r) => r.held))).toBe(true);
  });

  it("recompute from their own inputs through viem's ABI encoder", () => {
    for (const c of committed.cases) {
      const { entropy, campaignId, number, table } = c.inputs;
      let topPaid = false;
      c.expected.results.forEach((r, position) => {
        expect(r.position).toBe(position);
        const value = keccak256(
          encodeAbiParameters(
            [{ type: "bytes32" }, { type: "bytes32" }, { type: "uint64" }, { type: "uint256" }, { type: "uint256" }],
            [entropy, campaignId, BigInt(number), BigInt(position), 0n],
          ),
        );
        // No vector needs a retry (chance below denominator / 2^256); the accepted value is retry 0.
        expect(r.randomValue).toBe(value);
        expect(BigInt(r.roll)).toBe(hexToBigInt(value) % BigInt(table.denominator));
        let tier = table.thresholds.findIndex((t) => r.roll < t);
        if (tier === 0 && topPaid) tier = 1;
        if (tier === 0) topPaid = true;
        expect(r.tier).toBe(tier);
        expect(r.amountCents).toBe(table.amountsCents[tier]);
        expect(r.held).toBe(r.amountCents >= c.inputs.largePrizeThresholdCents);
      });
      const hashes = c.winners.ids.map((id) => keccak256(new TextEncoder().encode(id)));
      expect(c.winners.winnerHashes).toEqual(hashes);
      expect(c.winners.fingerprint).toBe(keccak256(encodeAbiParameters([{ type: "bytes32[]" }], [hashes])));
      if (c.entrants !== null) {
        const e = c.entrants;
        expect(e.entrantsCommitment).toBe(
          keccak256(encodeAbiParameters([{ type: "bytes32[]" }, { type: "uint256[]" }], [e.idHashes as Hex[], e.weights.map(BigInt)])),
        );
        expect(c.winners.ids).toEqual(e.selectedPositions.map((p) => e.ids[p]));
        expect(c.expected.prizeCount).toBe(Math.min(c.inputs.count, e.count));
      }
      expect(c.expected.results).toHaveLength(c.expected.prizeCount);
    }
  });
});
