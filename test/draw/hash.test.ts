import { encodeAbiParameters, keccak256, stringToHex, toHex } from "viem";
import { describe, expect, it } from "vitest";
import { DrawInputError, drawingSlot, fingerprint, InvalidCampaignIdError, toCampaignId, winnerHash } from "../../api/src/draw/index.js";

describe("winnerHash", () => {
  it("matches known keccak256 vectors (Ethereum keccak, not SHA3-256)", () => {
    expect(winnerHash("")).toBe("0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
    expect(winnerHash("abc")).toBe("0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45");
    // SHA3-256("") would be 0xa7ffc6f8...; make sure that is not what we compute.
    expect(winnerHash("")).not.toBe("0xa7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
  });

  it("hashes the UTF-8 bytes of the id", () => {
    expect(winnerHash("café")).toBe(keccak256("0x636166c3a9"));
    expect(winnerHash("☕")).toBe(keccak256("0xe29895"));
  });
});

describe("fingerprint", () => {
  const ids = ["w-1", "w-2", "w-3"];

  it("is keccak256(abi.encode(bytes32[] winnerHashes))", () => {
    const expected = keccak256(encodeAbiParameters([{ type: "bytes32[]" }], [ids.map(winnerHash)]));
    expect(fingerprint(ids)).toBe(expected);
    expect(fingerprint([])).toBe(keccak256(encodeAbiParameters([{ type: "bytes32[]" }], [[]])));
  });

  it("changes with order, and keeps repeated ids", () => {
    expect(fingerprint(["w-2", "w-1", "w-3"])).not.toBe(fingerprint(ids));
    expect(fingerprint([...ids].sort().reverse())).not.toBe(fingerprint(ids));
    expect(fingerprint(["a", "a"])).not.toBe(fingerprint(["a"]));
  });
});

describe("toCampaignId", () => {
  it("right-pads the ASCII slug to 32 bytes", () => {
    expect(toCampaignId("summer-daily")).toBe(stringToHex("summer-daily", { size: 32 }));
    expect(toCampaignId("summer-daily")).toBe(`0x${"73756d6d65722d6461696c79"}${"0".repeat(40)}`);
    const full = "abcdefghijklmnopqrstuvwxyz-12345";
    expect(toCampaignId(full)).toBe(toHex(full));
  });

  it.each([
    ["empty", ""],
    ["33 bytes", "a".repeat(33)],
    ["non-ASCII", "café"],
    ["a NUL (would collide with the padding)", "abc\u0000"],
    ["a control character", "abc\n"],
  ])("refuses %s", (_label, slug) => {
    let error: unknown;
    try {
      toCampaignId(slug);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidCampaignIdError);
    expect((error as InvalidCampaignIdError).code).toBe("invalid_campaign_id");
  });
});

describe("drawingSlot", () => {
  it("is keccak256 of the drawing id's UTF-8 bytes", () => {
    expect(drawingSlot("drw_abc")).toBe(keccak256(stringToHex("drw_abc")));
    expect(drawingSlot("drw_café")).toBe(keccak256("0x6472775f636166c3a9"));
    expect(drawingSlot("drw_abc")).not.toBe(drawingSlot("drw_abd"));
  });

  it("refuses an empty id", () => {
    expect(() => drawingSlot("")).toThrow(DrawInputError);
  });
});
