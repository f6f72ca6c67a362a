// Where a request's strings hold NUL (U+0000): the path named in a 400 (api/src/http/nulGuard.ts).
import { describe, expect, it } from "vitest";
import { nulPath, refuseNul } from "../../api/src/http/nulGuard.js";

describe("nulPath", () => {
  it("names the first string holding NUL by its path, and null when none does", () => {
    expect(nulPath({ winners: [{ id: "a" }, { id: "b", name: "x\0" }] })).toBe("winners[1].name");
    expect(nulPath({ entries: [{ entrantId: "ok" }], drawingId: "\0" })).toBe("drawingId");
    expect(nulPath(["a", "b\0c"])).toBe("[1]");
    expect(nulPath("\0")).toBe("body");
    expect(nulPath({ "k\0": 1 })).toBe("k");
    expect(nulPath({ a: [1, true, null, { b: "plain" }], c: "U+2400 \u2400 is not NUL" })).toBeNull();
  });

  it("refuseNul throws 400 bad_request naming the field, and returns for clean values", () => {
    expect(() => refuseNul({ drawing: "drw_\0" })).toThrow(expect.objectContaining({ status: 400, code: "bad_request", detail: "drawing: must not contain NUL (U+0000)" }));
    expect(() => refuseNul({ drawing: "drw_x", limit: "10" })).not.toThrow();
  });
});
