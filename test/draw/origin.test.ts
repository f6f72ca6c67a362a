import { encodeAbiParameters, encodePacked, keccak256, stringToBytes, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import {
  combineRandomValues,
  DrawInputError,
  drawingSlot,
  fingerprint,
  toCampaignId,
  userRandomNumber,
} from "../../api/src/draw/index.js";

const campaignId = toCampaignId("summer-daily");
const slot = drawingSlot("drw_abc");
const listCommitment = fingerprint(["w-1", "w-2"]);

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("expected an error");
}

describe("userRandomNumber", () => {
  it("is keccak256(abi.encode(bytes32 campaignId, uint64 number, bytes32 slot, bytes32 listCommitment))", () => {
    const expected = keccak256(
      encodeAbiParameters(
        [{ type: "bytes32" }, { type: "uint64" }, { type: "bytes32" }, { type: "bytes32" }],
        [campaignId, 7n, slot, listCommitment],
      ),
    );
    expect(userRandomNumber({ campaignId, number: 7n, slot, listCommitment })).toBe(expected);
    // A safe-integer number is the same drawing.
    expect(userRandomNumber({ campaignId, number: 7, slot, listCommitment })).toBe(expected);
  });

  it("covers the whole uint64 range", () => {
    const max = (1n << 64n) - 1n;
    expect(userRandomNumber({ campaignId, number: max, slot, listCommitment })).toBe(
      keccak256(
        encodeAbiParameters([{ type: "bytes32" }, { type: "uint64" }, { type: "bytes32" }, { type: "bytes32" }], [campaignId, max, slot, listCommitment]),
      ),
    );
  });

  it("changes with every input", () => {
    const base = userRandomNumber({ campaignId, number: 7n, slot, listCommitment });
    expect(userRandomNumber({ campaignId: toCampaignId("summer-weekly"), number: 7n, slot, listCommitment })).not.toBe(base);
    expect(userRandomNumber({ campaignId, number: 8n, slot, listCommitment })).not.toBe(base);
    expect(userRandomNumber({ campaignId, number: 7n, slot: drawingSlot("drw_abd"), listCommitment })).not.toBe(base);
    expect(userRandomNumber({ campaignId, number: 7n, slot, listCommitment: fingerprint(["w-2", "w-1"]) })).not.toBe(base);
  });

  it("lowercases nothing away: upper-case hex gives the same value", () => {
    const upper = (h: Hex): Hex => `0x${h.slice(2).toUpperCase()}`;
    expect(userRandomNumber({ campaignId: upper(campaignId), number: 7n, slot: upper(slot), listCommitment: upper(listCommitment) })).toBe(
      userRandomNumber({ campaignId, number: 7n, slot, listCommitment }),
    );
  });

  it.each([
    ["a negative number", { number: -1n }],
    ["a number above uint64", { number: 1n << 64n }],
    ["a fractional number", { number: 1.5 }],
    ["a short slot", { slot: "0x1234" }],
    ["a non-hex list commitment", { listCommitment: `0x${"zz".repeat(32)}` }],
  ])("refuses %s", (_label, change) => {
    const error = thrown(() => userRandomNumber({ campaignId, number: 7n, slot, listCommitment, ...(change as object) }));
    expect(error).toBeInstanceOf(DrawInputError);
  });
});

describe("combineRandomValues", () => {
  it("is keccak256(abi.encodePacked(user, provider, bytes32(0))) (Entropy v2, no block hash)", () => {
    const user = keccak256(stringToBytes("user"));
    const provider = keccak256(stringToBytes("provider"));
    const zero: Hex = `0x${"00".repeat(32)}`;
    expect(combineRandomValues(user, provider)).toBe(keccak256(encodePacked(["bytes32", "bytes32", "bytes32"], [user, provider, zero])));
    expect(combineRandomValues(user, provider)).not.toBe(combineRandomValues(provider, user));
    expect(combineRandomValues(zero, zero)).toBe(keccak256(new Uint8Array(96)));
  });

  it("refuses values that are not 32 bytes", () => {
    expect(thrown(() => combineRandomValues("0x12", keccak256("0x")))).toBeInstanceOf(DrawInputError);
  });
});
