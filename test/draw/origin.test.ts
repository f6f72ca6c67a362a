import { encodeAbiParameters, encodePacked, getAddress, keccak256, stringToBytes, type Address, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import {
  combineRandomValues,
  DrawInputError,
  drawingSlot,
  drawValue,
  fingerprint,
  reRequestUserRandomNumber,
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

describe("reRequestUserRandomNumber", () => {
  const provider: Address = "0x52deaa1c84233f7bb8c8a45baede41091c616506";
  const encoded = (p: Address, sequence: bigint) => keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint64" }], [p, sequence]));

  it("is keccak256(abi.encode(address previousProvider, uint64 previousSequence)), DrawMath's", () => {
    expect(reRequestUserRandomNumber(provider, 1_234n)).toBe(encoded(provider, 1_234n));
    // Both words zero: keccak256 of 64 zero bytes.
    expect(reRequestUserRandomNumber("0x0000000000000000000000000000000000000000", 0n)).toBe(keccak256(new Uint8Array(64)));
    const max = (1n << 64n) - 1n;
    expect(reRequestUserRandomNumber(`0x${"ff".repeat(20)}`, max)).toBe(encoded(`0x${"ff".repeat(20)}`, max));
  });

  it("reads a checksummed address as the same provider", () => {
    expect(reRequestUserRandomNumber(getAddress(provider), 7n)).toBe(reRequestUserRandomNumber(provider, 7n));
  });

  it("changes with the provider and with the sequence, and is not a drawing's contribution", () => {
    const base = reRequestUserRandomNumber(provider, 7n);
    expect(reRequestUserRandomNumber("0x6cc14824ea2918f5de5c2f75a9da968ad4bd6344", 7n)).not.toBe(base);
    expect(reRequestUserRandomNumber(provider, 8n)).not.toBe(base);
    expect(base).not.toBe(userRandomNumber({ campaignId, number: 7n, slot, listCommitment }));
  });

  it.each([
    ["a short address", "0x1234" as Address, 7n],
    ["a bytes32 as the address", keccak256("0x") as unknown as Address, 7n],
    ["a negative sequence", provider, -1n],
    ["a sequence above uint64", provider, 1n << 64n],
    ["a sequence given as a number", provider, 7 as unknown as bigint],
  ])("refuses %s", (_label, p, sequence) => {
    expect(thrown(() => reRequestUserRandomNumber(p, sequence))).toBeInstanceOf(DrawInputError);
  });
});

describe("drawValue", () => {
  const entropyValue = keccak256(stringToBytes("entropy value"));
  const blockHash = keccak256(stringToBytes("request block"));
  const zero: Hex = `0x${"00".repeat(32)}`;

  it("is keccak256(abi.encode(bytes32 entropyValue, bytes32 requestBlockHash)), DrawMath's", () => {
    expect(drawValue(entropyValue, blockHash)).toBe(keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "bytes32" }], [entropyValue, blockHash])));
    expect(drawValue(zero, zero)).toBe(keccak256(new Uint8Array(64)));
  });

  it("depends on both words and on their order, and is neither of them", () => {
    const base = drawValue(entropyValue, blockHash);
    expect(base).not.toBe(drawValue(blockHash, entropyValue));
    expect(base).not.toBe(drawValue(entropyValue, keccak256(stringToBytes("another block"))));
    expect(base).not.toBe(drawValue(keccak256(stringToBytes("another value")), blockHash));
    expect([entropyValue, blockHash]).not.toContain(base);
    // Entropy's value alone (the value versions 2 to 5 used) is not what a version 6 draw follows.
    expect(base).not.toBe(combineRandomValues(entropyValue, blockHash));
  });

  it("reads upper-case hex as the same words", () => {
    const upper = (h: Hex): Hex => `0x${h.slice(2).toUpperCase()}`;
    expect(drawValue(upper(entropyValue), upper(blockHash))).toBe(drawValue(entropyValue, blockHash));
  });

  it.each([
    ["a short entropy value", "0x12" as Hex, blockHash],
    ["a short block hash", entropyValue, "0x12" as Hex],
    ["a non-hex block hash", entropyValue, `0x${"zz".repeat(32)}` as Hex],
  ])("refuses %s", (_label, value, hash) => {
    expect(thrown(() => drawValue(value, hash))).toBeInstanceOf(DrawInputError);
  });
});
