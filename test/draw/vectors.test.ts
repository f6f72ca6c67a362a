import { readFileSync } from "node:fs";
import { encodeAbiParameters, encodePacked, hexToBigInt, keccak256, stringToBytes, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { buildDrawVectors, type DrawVectors } from "../../api/scripts/draw-vectors.js";
import {
  batchUserRandomNumber,
  combineRandomValues,
  drawingSlot,
  drawValue,
  reRequestUserRandomNumber,
  toCampaignId,
  userRandomNumber,
} from "../../api/src/draw/index.js";

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

  it("carry each case's drawing id, slot and user contribution, recomputed through viem", () => {
    const slots = new Set<string>();
    for (const c of committed.cases) {
      expect(typeof c.drawingId).toBe("string");
      expect(c.slot).toBe(keccak256(stringToBytes(c.drawingId)));
      expect(c.slot).toBe(drawingSlot(c.drawingId));
      slots.add(c.slot);
      expect(c.listCommitment).toBe(c.entrants === null ? c.winners.fingerprint : c.entrants.entrantsCommitment);
      const expected = keccak256(
        encodeAbiParameters(
          [{ type: "bytes32" }, { type: "uint64" }, { type: "bytes32" }, { type: "bytes32" }],
          [c.inputs.campaignId, BigInt(c.inputs.number), c.slot, c.listCommitment],
        ),
      );
      expect(c.userRandomNumber).toBe(expected);
      expect(userRandomNumber({ campaignId: c.inputs.campaignId, number: BigInt(c.inputs.number), slot: c.slot, listCommitment: c.listCommitment })).toBe(expected);
    }
    expect(slots.size).toBe(committed.cases.length);
    expect(committed.cases.some((c) => /[^\x20-\x7e]/.test(c.drawingId))).toBe(true); // a UTF-8 id
  });

  it("carry Entropy v2 combinations, recomputed through viem's encodePacked", () => {
    expect(committed.combine.length).toBeGreaterThanOrEqual(4);
    for (const v of committed.combine) {
      const expected = keccak256(encodePacked(["bytes32", "bytes32", "bytes32"], [v.user, v.provider, `0x${"00".repeat(32)}`]));
      expect(v.randomNumber).toBe(expected);
      expect(combineRandomValues(v.user, v.provider)).toBe(expected);
    }
    // Some combine a case's own user contribution.
    const users = new Set(committed.cases.map((c) => c.userRandomNumber));
    expect(committed.combine.some((v) => users.has(v.user))).toBe(true);
  });

  it("carry batch contributions of 1, 2 and 5 drawings, recomputed through viem", () => {
    expect(committed.batches.map((b) => b.members.length)).toEqual([1, 2, 5]);
    for (const b of committed.batches) {
      const lastNumber = new Map<string, bigint>();
      for (const m of b.members) {
        expect(m.campaignId).toBe(toCampaignId(m.slug));
        expect(m.slot).toBe(keccak256(stringToBytes(m.drawingId)));
        const expected = keccak256(
          encodeAbiParameters(
            [{ type: "bytes32" }, { type: "uint64" }, { type: "bytes32" }, { type: "bytes32" }],
            [m.campaignId, BigInt(m.number), m.slot, m.listCommitment],
          ),
        );
        expect(m.userRandomNumber).toBe(expected);
        // Committable in batch order on a fresh contract: each campaign's numbers are 1, 2, 3...
        expect(BigInt(m.number)).toBe((lastNumber.get(m.campaignId) ?? 0n) + 1n);
        lastNumber.set(m.campaignId, BigInt(m.number));
      }
      const contributions = b.members.map((m) => m.userRandomNumber);
      const expected = contributions.length === 1 ? contributions[0] : keccak256(encodePacked(contributions.map(() => "bytes32"), contributions));
      expect(b.userRandomNumber).toBe(expected);
      expect(batchUserRandomNumber(contributions)).toBe(expected);
    }
  });

  it("carry re-request contributions, recomputed through viem's encodeAbiParameters", () => {
    expect(committed.reRequest.length).toBeGreaterThanOrEqual(4);
    for (const v of committed.reRequest) {
      const sequence = BigInt(v.previousSequence);
      const expected = keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint64" }], [v.previousProvider, sequence]));
      expect(v.userRandomNumber).toBe(expected);
      expect(reRequestUserRandomNumber(v.previousProvider, sequence)).toBe(expected);
    }
    // The edges: the zero words, the all-ones words and a sequence past 2^53.
    const sequences = committed.reRequest.map((v) => BigInt(v.previousSequence));
    expect(sequences).toContain(0n);
    expect(sequences).toContain((1n << 64n) - 1n);
    expect(sequences.some((n) => n > BigInt(Number.MAX_SAFE_INTEGER) && n < 1n << 63n)).toBe(true);
    expect(committed.reRequest.map((v) => v.previousProvider)).toContain(`0x${"ff".repeat(20)}`);
  });

  it("carry drawing values (proof version 6), recomputed through viem's encodeAbiParameters", () => {
    expect(committed.drawValue.length).toBeGreaterThanOrEqual(5);
    for (const v of committed.drawValue) {
      const expected = keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "bytes32" }], [v.entropyValue, v.requestBlockHash]));
      expect(v.drawValue).toBe(expected);
      expect(drawValue(v.entropyValue, v.requestBlockHash)).toBe(expected);
    }
    // The edges: both words zero, both all-ones, and each alone (the two differ: the order of the words counts).
    const zero = `0x${"00".repeat(32)}`;
    const ones = `0x${"ff".repeat(32)}`;
    const pairs = committed.drawValue.map((v) => `${v.entropyValue}/${v.requestBlockHash}`);
    for (const pair of [`${zero}/${zero}`, `${ones}/${ones}`, `${ones}/${zero}`, `${zero}/${ones}`]) expect(pairs).toContain(pair);
    expect(new Set(committed.drawValue.map((v) => v.drawValue)).size).toBe(committed.drawValue.length);
    // An Entropy value of the combine vectors is mixed with a real block hash.
    const entropyValues = new Set(committed.combine.map((v) => v.randomNumber));
    expect(committed.drawValue.some((v) => entropyValues.has(v.entropyValue))).toBe(true);
  });

  it("carry a winners case and an entrant case whose value is a drawing value (end to end for proof version 6)", () => {
    const linked = committed.drawValue.filter((v) => v.caseName !== null);
    const cases = linked.map((v) => committed.cases.find((c) => c.name === v.caseName));
    expect(cases.map((c) => c?.entrants === null)).toEqual([true, false]);
    linked.forEach((v, i) => expect(cases[i]?.inputs.entropy).toBe(v.drawValue));
    // Every other case keeps a value of its own: no drawing value was taken as a case's entropy by accident.
    const linkedValues = new Set(linked.map((v) => v.drawValue));
    expect(committed.cases.filter((c) => linkedValues.has(c.inputs.entropy))).toHaveLength(2);
  });
});
