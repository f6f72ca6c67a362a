// Bad input on the real stack (anvil + contracts + Ponder + the service process + the CLI): a generated matrix
// that sends every partner endpoint malformed JSON, wrong types for every field, huge and deeply nested bodies,
// unicode edge cases, wrong content types, wrong methods, bad keys, bad query values and odd paths. Every answer
// must be a 4xx with the spec's `{ error, detail }` body (never a 5xx, never another shape). A few valid requests
// are interleaved; afterwards the store holds exactly what they wrote, read back through the API and from SQLite.
//
// Decisions the matrix pins down (README, "RELIABILITY"):
// - Length limits count characters as Unicode code points, not UTF-16 units or bytes: an id of 200 emoji
//   (800 UTF-8 bytes) is accepted and 201 refused, exactly like 200 and 201 ASCII characters, on every endpoint
//   that takes an id. Combining marks count on their own; ids are not normalized ("é" and "e\u0301" differ).
// - Refused in ids and names: control characters (C0, DEL and C1, NUL included), lone surrogates, format characters
//   (zero-width characters, the direction marks U+200E/U+200F, the bidirectional embedding, override and isolate
//   controls U+202A-U+202E, U+2066-U+2069), line and paragraph separators; allowed: emoji joined by U+200D.
// - A body must be valid UTF-8 (no U+FFFD substitution) with Content-Type application/json (parameters allowed).
// - A wrong method is 404 not_found (no route), with the spec's body, after the key check (401 without a key).
// - Dot segments in a path are resolved as in any URL before routing (`/a/../b` is `/b`, also `%2e%2e`), so a
//   path that resolves to a real route answers as that route, with its key check.

import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { getTypeParser } from "../../api/src/store/engines.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import { api, startStack, type Stack } from "../support/stack.js";
import { rawSqlite } from "../support/store.js";

let stack: Stack;
let key: string;
let accountId: string;
const WALLET = "0x00000000000000000000000000000000000000a1";
const PUSH = "bi-push";
const ENTRIES = "bi-entries";
const CLOCK = "bi-clock";
let d1: string; // the push campaign's first open drawing: winner lists are posted here
let d2: string; // its second open drawing: one valid list
let entriesDrawing: string;

const MiB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------------------------
// Raw HTTP: fetch resolves dot segments and refuses some paths, so the matrix speaks node:http directly.

type Res = { status: number; headers: http.IncomingHttpHeaders; text: string; body: Record<string, unknown> | null };
type Req = {
  method: string;
  path: string;
  /** The Authorization header: the valid key by default; null sends none; a string is sent as is. */
  authorization?: string | null;
  /** Defaults to application/json when there is a body; null sends none. */
  contentType?: string | null;
  body?: string | Buffer;
  /** Sends the body with Transfer-Encoding: chunked (no Content-Length). */
  chunked?: boolean;
  /**
   * For bodies over the limit: read the answer the service gives before the upload ends, as a client using
   * `Expect: 100-continue` would. With a Content-Length only the headers go out (the length alone is refused);
   * chunked, the whole body goes out but not the final empty chunk. Either way no unread bytes are left behind:
   * closing a connection with unread bytes resets it, and a client still uploading may then lose the answer (see
   * README, "Known limits").
   */
  early?: boolean;
  /** A Content-Length other than the body's (only with `early`: nothing is sent after the headers). */
  declaredLength?: number;
};

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function send(req: Req): Promise<Res> {
  const url = new URL(stack.baseUrl);
  const headers: Record<string, string> = {};
  const authorization = req.authorization === undefined ? `Bearer ${key}` : req.authorization;
  if (authorization !== null) headers.authorization = authorization;
  const contentType = req.contentType === undefined ? (req.body !== undefined ? "application/json" : null) : req.contentType;
  if (contentType !== null) headers["content-type"] = contentType;
  const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, "utf8");
  if (body && !req.chunked) headers["content-length"] = String(req.declaredLength ?? body.length);
  return new Promise((resolve, reject) => {
    const r = http.request({ host: url.hostname, port: Number(url.port), method: req.method, path: req.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: Record<string, unknown> | null = null;
        try {
          parsed = JSON.parse(text) as Record<string, unknown>;
        } catch {
          parsed = null;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
      res.on("error", reject);
    });
    r.on("error", reject);
    if (req.early && body) {
      r.on("response", (res) => res.on("end", () => r.destroy()));
      if (req.chunked) for (let i = 0; i < body.length; i += 64 * 1024) r.write(body.subarray(i, i + 64 * 1024));
      else r.flushHeaders();
    } else if (body && req.chunked) {
      for (let i = 0; i < body.length; i += 64 * 1024) r.write(body.subarray(i, i + 64 * 1024));
      r.end();
    } else {
      r.end(body);
    }
  });
}

/** Bytes that are not what node:http would send (a NUL or a space in the request line): through a plain socket. */
function sendRaw(bytes: Buffer): Promise<Res> {
  const url = new URL(stack.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", reject);
    socket.on("close", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const [head = "", text = ""] = raw.split("\r\n\r\n", 2);
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers: http.IncomingHttpHeaders = {};
      for (const line of lines) {
        const i = line.indexOf(":");
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      let parsed: Record<string, unknown> | null = null;
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        parsed = null;
      }
      resolve({ status: Number(statusLine.split(" ")[1] ?? 0), headers, text, body: parsed });
    });
  });
}

/** Why `res` is not a 4xx with exactly `{ error, detail }` (a code string and a non-empty detail), or null. */
function shapeProblem(res: Res): string | null {
  if (res.status < 400 || res.status > 499) return `status ${res.status}: ${res.text.slice(0, 200)}`;
  if (!/^application\/json\b/.test(String(res.headers["content-type"] ?? ""))) return `content-type ${String(res.headers["content-type"])}: ${res.text.slice(0, 200)}`;
  if (res.headers["x-content-type-options"] !== "nosniff") return "no X-Content-Type-Options: nosniff";
  const b = res.body;
  if (!b || typeof b !== "object" || Array.isArray(b)) return `not a JSON object: ${res.text.slice(0, 200)}`;
  if (Object.keys(b).sort().join(",") !== "detail,error") return `keys ${Object.keys(b).join(",")}`;
  if (typeof b.error !== "string" || !/^[a-z_]+$/.test(b.error)) return `error ${JSON.stringify(b.error)}`;
  if (typeof b.detail !== "string" || b.detail.trim() === "") return `detail ${JSON.stringify(b.detail)}`;
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// The endpoints and the generated cases.

type Endpoint = "GET campaign" | "GET drawings" | "GET drawing" | "POST winners" | "POST entries" | "GET entries" | "GET guarantees" | "POST pick" | "POST test-clock";

/** A request expected to be refused: any 4xx with the spec's body, or exactly `status`/`error` when given. */
type BadCase = Req & { endpoint: Endpoint; label: string; status?: number | number[]; error?: string; detail?: RegExp };
/** A valid request; `check` returns what is wrong with its answer (and updates the model of the store). */
type ValidCase = Req & { endpoint: Endpoint; label: string; check: (res: Res) => string | null };

const enc = encodeURIComponent;
const routes = {
  campaign: (slug: string) => `/api/v1/campaigns/${slug}`,
  drawings: (slug: string) => `/api/v1/campaigns/${slug}/drawings`,
  drawing: (slug: string, id: string) => `/api/v1/campaigns/${slug}/drawings/${id}`,
  winners: (slug: string, id: string) => `/api/v1/campaigns/${slug}/drawings/${id}/winners`,
  entries: (slug: string) => `/api/v1/campaigns/${slug}/entries`,
  guarantees: (slug: string) => `/api/v1/campaigns/${slug}/guarantees`,
  pick: (slug: string, id: string) => `/api/v1/campaigns/${slug}/guarantees/${id}/pick`,
  testClock: (slug: string) => `/api/v1/campaigns/${slug}/test-clock`,
};

/** Every route of the partner API with a default slug and id, and whether it takes a body. */
function allRoutes(): { endpoint: Endpoint; method: string; path: (slug: string, id: string) => string; slug: string; id: string }[] {
  return [
    { endpoint: "GET campaign", method: "GET", path: (s) => routes.campaign(s), slug: PUSH, id: "" },
    { endpoint: "GET drawings", method: "GET", path: (s) => routes.drawings(s), slug: PUSH, id: "" },
    { endpoint: "GET drawing", method: "GET", path: (s, i) => routes.drawing(s, i), slug: PUSH, id: d1 },
    { endpoint: "POST winners", method: "POST", path: (s, i) => routes.winners(s, i), slug: PUSH, id: d1 },
    { endpoint: "POST entries", method: "POST", path: (s) => routes.entries(s), slug: ENTRIES, id: "" },
    { endpoint: "GET entries", method: "GET", path: (s) => routes.entries(s), slug: ENTRIES, id: "" },
    { endpoint: "GET guarantees", method: "GET", path: (s) => routes.guarantees(s), slug: PUSH, id: "" },
    { endpoint: "POST pick", method: "POST", path: (s, i) => routes.pick(s, i), slug: PUSH, id: "gtd_nope" },
    { endpoint: "POST test-clock", method: "POST", path: (s) => routes.testClock(s), slug: CLOCK, id: "" },
  ];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type FieldKind = "string" | "nullableString" | "integer" | "array" | "item";

/** Values of every JSON type but the right one for `kind` (null is right for nullable fields). */
function wrongValues(kind: FieldKind): [string, Json][] {
  const all: [string, Json][] = [
    ["a number", 42],
    ["a negative number", -1],
    ["a fraction", 1.5],
    ["a string", "7"],
    ["an empty string", ""],
    ["an empty object", {}],
    ["an object", { a: 1 }],
    ["an empty array", []],
    ["an array", ["x"]],
    ["true", true],
    ["false", false],
    ["null", null],
  ];
  const isString = (v: Json) => typeof v === "string";
  switch (kind) {
    case "string":
      return all.filter(([, v]) => !isString(v) || v === "");
    case "nullableString":
      return all.filter(([, v]) => !isString(v) && v !== null);
    case "integer":
      return all.filter(([, v]) => !(typeof v === "number" && Number.isInteger(v) && v >= 1));
    case "array":
      // ["x"] would be a valid list of one entrant: only non-arrays and the empty array.
      return all.filter(([, v]) => !Array.isArray(v) || v.length === 0);
    case "item":
      // A non-empty string is a valid item (the bare id form); the empty one is not.
      return all.filter(([, v]) => !isString(v) || v === "");
  }
}

function setAt(body: Json, path: (string | number)[], value: Json): Json {
  const copy = structuredClone(body) as Json;
  let cursor = copy as Record<string | number, Json>;
  for (const part of path.slice(0, -1)) cursor = cursor[part] as Record<string | number, Json>;
  cursor[path[path.length - 1]!] = value;
  return copy;
}

const deepArray = (n: number) => "[".repeat(n) + "]".repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);

/** The malformed bodies every POST endpoint gets. */
const MALFORMED: [string, string][] = [
  ["truncated JSON", '{"winners": ["a", '],
  ["trailing garbage", '{"x": 1} trailing'],
  ['{"a":}', '{"a":}'],
  ["a bare string", '"just a string"'],
  ["a number", "42"],
  ["null", "null"],
  ["true", "true"],
  ["an empty array at top level", "[]"],
  ["an array at top level", '[{"winners":["a","b","c"]}]'],
  ["an empty body", ""],
  ["whitespace only", "   \n\t "],
  ["a trailing comma", '{"entries":["a",]}'],
  ["single quotes", "{'entries':['a']}"],
  ["an unquoted key", "{entries:[\"a\"]}"],
  ["NaN", '{"entries":[NaN]}'],
  ["two concatenated objects", '{"a":1}{"b":2}'],
  ["a comment", '{"entries":["a"] /* c */}'],
  ["a __proto__ key", '{"__proto__":{"x":1}}'],
];

/**
 * Bodies that are not UTF-8: the bad bytes sit inside an id of an otherwise valid body, so a lenient decoder
 * (U+FFFD for each) would accept and store an id other than the one sent.
 */
function invalidUtf8(base: Json, idPath: (string | number)[]): [string, Buffer][] {
  const marker = "\u0001BYTES\u0001";
  const [prefix = "", suffix = ""] = JSON.stringify(setAt(base, idPath, `id-${marker}`)).split(JSON.stringify(marker).slice(1, -1));
  return [
    ["a 0xFF byte", Buffer.from([0xff])],
    ["an overlong encoding of '/'", Buffer.from([0xc0, 0xaf])],
    ["a UTF-8-encoded surrogate (CESU)", Buffer.from([0xed, 0xa0, 0x80])],
    ["a truncated 4-byte sequence", Buffer.from([0xf0, 0x9f, 0x98])],
  ].map(([label, bytes]) => [`invalid UTF-8: ${label as string}`, Buffer.concat([Buffer.from(prefix), bytes as Buffer, Buffer.from(suffix)])]);
}

const CONTENT_TYPES: [string, string | null][] = [
  ["text/plain", "text/plain"],
  ["form-urlencoded", "application/x-www-form-urlencoded"],
  ["multipart", "multipart/form-data; boundary=x"],
  ["no content type", null],
  ["application/jsonx", "application/jsonx"],
  ["application/json-seq", "application/json-seq"],
  ["text/json", "text/json"],
];

// Ids on the edge. `ok` ids must be accepted (and stored exactly) wherever an id goes; the others refused.
const e = "😀"; // U+1F600: 1 code point, 2 UTF-16 units, 4 UTF-8 bytes
const LONG = /at most 200 characters/;
const ID_CASES: { label: string; id: string; ok: boolean; detail?: RegExp }[] = [
  { label: "an emoji id", id: `🎉-${e}`, ok: true },
  { label: "200 ASCII characters", id: "a".repeat(200), ok: true },
  { label: "201 ASCII characters", id: "a".repeat(201), ok: false, detail: LONG },
  { label: "200 emoji (800 UTF-8 bytes, 400 UTF-16 units)", id: e.repeat(200), ok: true },
  { label: "201 emoji", id: e.repeat(201), ok: false, detail: LONG },
  { label: "199 ASCII and an emoji (200 characters, 201 UTF-16 units)", id: "b".repeat(199) + e, ok: true },
  { label: "200 ASCII and an emoji", id: "b".repeat(200) + e, ok: false, detail: LONG },
  { label: "200 CJK characters (600 bytes)", id: "漢".repeat(200), ok: true },
  { label: "100 e + combining acute (200 code points)", id: "e\u0301".repeat(100), ok: true },
  { label: "101 e + combining acute (202 code points)", id: "e\u0301".repeat(101), ok: false, detail: LONG },
  { label: "a ZWJ family emoji", id: "fam-👨‍👩‍👧-1", ok: true },
  { label: "a right-to-left mark U+200F", id: "rlm-\u200Fabc", ok: false, detail: /format characters/ },
  { label: "Arabic text", id: "رابح-٧", ok: true },
  { label: "a NUL", id: "nul-\u0000-x", ok: false, detail: /control characters/ },
  { label: "a newline", id: "nl-\n-x", ok: false, detail: /control characters/ },
  { label: "a DEL", id: "del-\u007f-x", ok: false, detail: /control characters/ },
  { label: "a right-to-left override U+202E", id: "rlo-\u202Egpj.exe", ok: false, detail: /bidirectional/ },
  { label: "a left-to-right embedding U+202A", id: "lre-\u202Ax", ok: false, detail: /bidirectional/ },
  { label: "a first-strong isolate U+2068", id: "fsi-\u2068x", ok: false, detail: /bidirectional/ },
  { label: "a lone high surrogate", id: "hi-\uD800-x", ok: false, detail: /surrogate/ },
  { label: "a lone low surrogate", id: "lo-\uDC00-x", ok: false, detail: /surrogate/ },
  { label: "a reversed surrogate pair", id: "rev-\uDE00\uD83D-x", ok: false, detail: /surrogate/ },
  { label: "an empty id", id: "", ok: false, detail: /must not be empty/ },
];

const NAME_CASES: { label: string; name: string; ok: boolean }[] = [
  { label: "40 emoji", name: e.repeat(40), ok: true },
  { label: "41 emoji", name: e.repeat(41), ok: false },
  { label: "41 ASCII", name: "n".repeat(41), ok: false },
  { label: "a right-to-left override", name: "Eve\u202E", ok: false },
  { label: "a lone surrogate", name: "Eve\uD800", ok: false },
  { label: "a tab", name: "Eve\tx", ok: false },
];

const AVATAR_BAD: [string, Json][] = [
  ["an http URL", "http://example.com/a.png"],
  ["a javascript: URL", "javascript:alert(1)"],
  ["a data: URL", "data:image/png;base64,AAAA"],
  ["not a URL", "not a url"],
  ["2,049 characters", `https://example.com/${"a".repeat(2_049 - 20)}`],
  ["a lone surrogate", "https://example.com/\uD800.png"],
];

/** Odd path segments for a slug or an id; every one must be a 4xx. */
const SEGMENTS: [string, string][] = [
  ["..", ".."],
  ["%2e%2e", "%2e%2e"],
  ["%2E%2E/..", "%2E%2E/.."],
  ["%00", "%00"],
  ["a%00b", "a%00b"],
  ["%2F (an encoded slash)", "x%2Fy"],
  ["..%2f..%2fetc%2fpasswd", "..%2f..%2fetc%2fpasswd"],
  ["an encoded emoji", "%F0%9F%8E%89"],
  ["an encoded right-to-left override", "a%E2%80%AEb"],
  ["an encoded lone surrogate (invalid UTF-8)", "%ED%A0%80"],
  ["a broken escape", "%E0%A4%A"],
  ["a bad escape", "%ZZ"],
  ["an encoded space", "a%20b"],
  ["upper case", "BI-PUSH"],
  ["10,000 characters", "s".repeat(10_000)],
  ["20,000 characters (over the 16 KB request line)", "s".repeat(20_000)],
];

function buildBadCases(): BadCase[] {
  const cases: BadCase[] = [];
  const add = (c: BadCase) => cases.push(c);

  // Valid bodies the mutations start from (each valid on its own: the mutation is the only fault).
  const bases: { endpoint: Endpoint; path: string; base: Json; idPath: (string | number)[]; fields: [string, (string | number)[], FieldKind][] }[] = [
    {
      endpoint: "POST winners",
      path: routes.winners(PUSH, d1),
      base: { winners: ["base-a", { winner: "base-b", displayName: "B", avatarUrl: "https://example.com/b.png" }, "base-c"] },
      idPath: ["winners", 0],
      fields: [
        ["winners", ["winners"], "array"],
        ["winners[1]", ["winners", 1], "item"],
        ["winners[1].winner", ["winners", 1, "winner"], "string"],
        ["winners[1].displayName", ["winners", 1, "displayName"], "nullableString"],
        ["winners[1].avatarUrl", ["winners", 1, "avatarUrl"], "nullableString"],
      ],
    },
    {
      endpoint: "POST entries",
      path: routes.entries(ENTRIES),
      base: { entries: ["base-a", { entrantId: "base-b", weight: 2, displayName: "B", avatarUrl: "https://example.com/b.png" }] },
      idPath: ["entries", 0],
      fields: [
        ["entries", ["entries"], "array"],
        ["entries[1]", ["entries", 1], "item"],
        ["entries[1].entrantId", ["entries", 1, "entrantId"], "string"],
        ["entries[1].weight", ["entries", 1, "weight"], "integer"],
        ["entries[1].displayName", ["entries", 1, "displayName"], "nullableString"],
        ["entries[1].avatarUrl", ["entries", 1, "avatarUrl"], "nullableString"],
      ],
    },
    {
      endpoint: "POST pick",
      path: routes.pick(PUSH, "gtd_nope"),
      base: { winner: "base-a", drawingId: "drw_nope" },
      idPath: ["winner"],
      fields: [
        ["winner", ["winner"], "string"],
        ["drawingId", ["drawingId"], "string"],
      ],
    },
    {
      endpoint: "POST test-clock",
      path: routes.testClock(CLOCK),
      base: { advanceBy: "1s" },
      idPath: ["advanceBy"],
      fields: [["advanceBy", ["advanceBy"], "string"]],
    },
  ];

  for (const { endpoint, path, base, idPath, fields } of bases) {
    const post = (label: string, body: string | Buffer, extra: Partial<BadCase> = {}) => add({ endpoint, label, method: "POST", path, body, ...extra });
    for (const [label, body] of MALFORMED) post(`malformed: ${label}`, body, { status: 400, error: "bad_request" });
    for (const [label, bytes] of invalidUtf8(base, idPath)) post(label, bytes, { status: 400, error: "bad_request", detail: /not valid UTF-8/ });
    for (const [field, path2, kind] of fields) {
      for (const [label, value] of wrongValues(kind)) post(`${field} is ${label}`, JSON.stringify(setAt(base, path2, value)), { status: 400, error: "bad_request" });
    }
    post("an unknown top-level field", JSON.stringify({ ...(base as Record<string, Json>), extra: 1 }), { status: 400, error: "bad_request" });
    post("an empty object", "{}", { status: 400, error: "bad_request" });
    for (const [label, type] of CONTENT_TYPES) post(`content type: ${label}`, JSON.stringify(base), { contentType: type, status: 400, error: "bad_request" });
    // Huge: over the route's limit (32 MiB for the two list routes, 4 MiB elsewhere) with a Content-Length, and
    // streamed without one.
    const limitMiB = endpoint === "POST winners" || endpoint === "POST entries" ? 32 : 4;
    const huge = JSON.stringify(setAt(base, fields[fields.length - 1]![1], "h".repeat(limitMiB * MiB + 1024)));
    const tooLarge = { status: 413, error: "bad_request", detail: new RegExp(`larger than ${limitMiB * MiB} bytes`) };
    post(`a body over ${limitMiB} MiB (Content-Length)`, huge, { early: true, ...tooLarge });
    post(`a body over ${limitMiB} MiB (chunked)`, huge, { chunked: true, early: true, ...tooLarge });
    post(`${limitMiB} MiB of whitespace then a value (chunked)`, " ".repeat(limitMiB * MiB + 10) + "{}", { chunked: true, early: true, ...tooLarge });
    post("a Content-Length of 1 GiB", "x", { early: true, declaredLength: 1024 * MiB, ...tooLarge });
    // Deep nesting, at the top and as the value of each field.
    for (const depth of [10_000, 100_000]) {
      post(`[[[...]]] ${depth} levels`, deepArray(depth), { status: 400, error: "bad_request" });
      post(`{"a":{"a":...}} ${depth} levels`, deepObject(depth), { status: 400, error: "bad_request" });
    }
    for (const [field, path2] of fields) {
      const marker = "\u0001DEEP\u0001";
      const withMarker = JSON.stringify(setAt(base, path2, marker));
      post(`${field} is [[[...]]] 10,000 levels`, withMarker.replace(JSON.stringify(marker), deepArray(10_000)), { status: 400, error: "bad_request" });
      post(`${field} is {"a":{"a":...}} 10,000 levels`, withMarker.replace(JSON.stringify(marker), deepObject(10_000)), { status: 400, error: "bad_request" });
    }
  }

  // POST winners: counts, repeats and values (the push drawing takes exactly 3).
  const winners = (list: Json[], label: string, detail?: RegExp) =>
    add({ endpoint: "POST winners", label, method: "POST", path: routes.winners(PUSH, d1), body: JSON.stringify({ winners: list }), status: 400, error: "bad_request", detail });
  winners([], "no winners");
  winners(["a", "b"], "2 winners for 3");
  winners(["a", "b", "c", "d"], "4 winners for 3");
  winners(Array.from({ length: 1_001 }, (_, i) => `w-${i}`), "a 1,001-element winners array");
  winners(Array.from({ length: 100_001 }, (_, i) => `w${i}`), "100,001 winners");
  winners(["a", "b", "a"], "a repeated winner");
  winners(["a", { winner: "a" }, "c"], "a repeated winner in both forms");
  winners(["a", { winner: "b", extra: true }, "c"], "an unknown field in a winner");
  winners(["a", { displayName: "no id" }, "c"], "a winner object without winner");
  for (const c of ID_CASES.filter((x) => !x.ok)) winners([c.id, "x-2", "x-3"], `winner id: ${c.label}`, c.detail);
  for (const c of NAME_CASES.filter((x) => !x.ok)) winners([{ winner: "x-1", displayName: c.name }, "x-2", "x-3"], `displayName: ${c.label}`);
  for (const [label, url] of AVATAR_BAD) winners([{ winner: "x-1", avatarUrl: url }, "x-2", "x-3"], `avatarUrl: ${label}`);
  add({ endpoint: "POST winners", label: "winners to an unknown drawing", method: "POST", path: routes.winners(PUSH, "drw_nope"), body: JSON.stringify({ winners: ["a", "b", "c"] }), status: 404, error: "not_found" });
  add({ endpoint: "POST winners", label: "winners to an entries campaign", method: "POST", path: routes.winners(ENTRIES, entriesDrawing), body: JSON.stringify({ winners: ["a", "b"] }), status: 409 });
  add({ endpoint: "POST winners", label: "winners to the entries drawing through the push campaign", method: "POST", path: routes.winners(PUSH, entriesDrawing), body: JSON.stringify({ winners: ["a", "b", "c"] }), status: 404, error: "not_found" });

  // POST entries: counts, repeats, weights and values.
  const entries = (list: Json[] | string, label: string, status = 400, error = "bad_request", detail?: RegExp) =>
    add({ endpoint: "POST entries", label, method: "POST", path: routes.entries(ENTRIES), body: typeof list === "string" ? list : JSON.stringify({ entries: list }), status, error, detail });
  entries([], "no entries");
  entries(Array.from({ length: 1_001 }, (_, i) => `bad-${i}`), "a 1,001-element entries array");
  entries(["r-1", "r-2", "r-1"], "a repeated entrant");
  entries(["r-1", { entrantId: "r-1", weight: 2 }], "a repeated entrant in both forms");
  for (const [label, weight] of [["0", 0], ["-1", -1], ["1.5", 1.5], ["4,294,967,296", 4_294_967_296], ["2^53", 2 ** 53], ["a numeric string", "3"]] as [string, Json][]) {
    entries([{ entrantId: "w-x", weight }], `weight ${label}`);
  }
  entries('{"entries":[{"entrantId":"w-x","weight":1e400}]}', "weight 1e400 (Infinity)");
  entries('{"entries":[{"entrantId":"w-x","weight":-0}]}', "weight -0");
  entries([{ entrantId: "w-x", extra: 1 }], "an unknown field in an entry");
  entries([{ weight: 2 }], "an entry object without entrantId");
  for (const c of ID_CASES.filter((x) => !x.ok)) entries([c.id], `entrant id: ${c.label}`, 400, "bad_request", c.detail);
  for (const c of NAME_CASES.filter((x) => !x.ok)) entries([{ entrantId: "n-1", displayName: c.name }], `displayName: ${c.label}`);
  for (const [label, url] of AVATAR_BAD) entries([{ entrantId: "n-1", avatarUrl: url }], `avatarUrl: ${label}`);
  add({ endpoint: "POST entries", label: "entries to a push campaign", method: "POST", path: routes.entries(PUSH), body: JSON.stringify({ entries: ["a"] }), status: 409, error: "not_entrants_campaign" });
  add({ endpoint: "POST entries", label: "entries to an unknown campaign", method: "POST", path: routes.entries("no-such"), body: JSON.stringify({ entries: ["a"] }), status: 404, error: "not_found" });

  // POST pick: the body is checked before the guarantee is looked up (the guarantee here does not exist).
  const pick = (body: Json, label: string, detail?: RegExp) => add({ endpoint: "POST pick", label, method: "POST", path: routes.pick(PUSH, "gtd_nope"), body: JSON.stringify(body), status: 400, error: "bad_request", detail });
  for (const c of ID_CASES.filter((x) => !x.ok)) pick({ winner: c.id }, `winner: ${c.label}`, c.detail);
  pick({ winner: "a", drawingId: "" }, "an empty drawingId");
  pick({ winner: "a", drawingId: "d".repeat(65) }, "a 65-character drawingId");
  pick({ winner: "a", drawingId: "drw_\u0000" }, "a drawingId holding NUL", /^drawingId: must not contain control characters: U\+0000 at character 5$/);
  pick({ drawingId: "drw_x" }, "no winner");
  pick({ winner: ["a", "b"] }, "winner as an array of two");
  pick({ winner: Array.from({ length: 1_001 }, (_, i) => `p-${i}`) }, "winner as a 1,001-element array");

  // POST test-clock.
  const clock = (body: Json | string, label: string) =>
    add({ endpoint: "POST test-clock", label, method: "POST", path: routes.testClock(CLOCK), body: typeof body === "string" ? body : JSON.stringify(body), status: 400, error: "bad_request" });
  for (const v of ["90x", "-1h", "1.5h", "1000000d", "", "1 h", "90M", "P1D", "1h30m"]) clock({ advanceBy: v }, `advanceBy ${JSON.stringify(v)}`);
  for (const v of ["yesterday", "2026-13-01T00:00:00Z", "2026-01-01", "1767225600000", "2026-01-01T00:00:00Z\u0000"]) clock({ advanceTo: v }, `advanceTo ${JSON.stringify(v)}`);
  clock({ advanceTo: 1_767_225_600_000 }, "advanceTo as a number");
  clock({ advanceBy: "1s", advanceTo: "2030-01-01T00:00:00Z" }, "both advanceBy and advanceTo");
  clock({ advanceBy: "1s", extra: 1 }, "an unknown field");
  clock({ advanceTo: "9999-12-31T23:59:59Z" }, "advanceTo the year 9999 (drawings past year 9999 would not sort)");
  clock({ advanceBy: "999999d" }, "advanceBy 999999d (2,700 years)");
  clock(JSON.stringify(Array.from({ length: 1_001 }, () => ({ advanceBy: "1s" }))), "a 1,001-element array at top level");

  // Query values.
  const drawingsQ = (query: string, label: string) => add({ endpoint: "GET drawings", label, method: "GET", path: `${routes.drawings(PUSH)}?${query}`, status: 400, error: "bad_request" });
  for (const v of ["", "OPEN", "done", "open,paid", "open%00", "%F0%9F%8E%89", "x".repeat(10_000), "%ED%A0%80"]) drawingsQ(`status=${v}`, `status=${v.slice(0, 40)}`);
  drawingsQ("foo=1", "an unknown parameter");
  drawingsQ("status[]=open", "status[]=open");
  drawingsQ("status=open&limit=5", "status and an unknown limit");
  const entriesQ = (query: string, label: string, status = 400, error = "bad_request") =>
    add({ endpoint: "GET entries", label, method: "GET", path: `${routes.entries(ENTRIES)}?${query}`, status, error });
  for (const v of ["0", "-1", "1001", "1.5", "abc", "", "99999", "1e3", "%201", "0x10", "%EF%BC%91"]) entriesQ(`limit=${v}`, `limit=${v}`);
  for (const v of ["abc", "-1", "1.5", "1234567890123456", "", "0x10", "1e5", "%00"]) entriesQ(`after=${v}`, `after=${v}`);
  entriesQ("drawing=", "drawing= (empty)");
  entriesQ(`drawing=${"d".repeat(65)}`, "drawing of 65 characters");
  entriesQ("drawing=drw_nope", "an unknown drawing", 404, "not_found");
  entriesQ(`drawing=${d1}`, "another campaign's drawing", 404, "not_found");
  entriesQ("drawing=%00", "drawing=%00"); // no value holds NUL: 400 on both engines (http/nulGuard.ts)
  entriesQ("drawing=..%2F..", "drawing=../..", 404, "not_found");
  entriesQ("foo=1", "an unknown parameter");
  entriesQ("limit=10&limit=abc&after=x", "repeated parameters, one bad");
  add({ endpoint: "GET entries", label: "entries of a push campaign", method: "GET", path: routes.entries(PUSH), status: 409, error: "not_entrants_campaign" });
  add({ endpoint: "GET drawing", label: "an unknown drawing", method: "GET", path: routes.drawing(PUSH, "drw_nope"), status: 404, error: "not_found" });
  add({ endpoint: "GET drawing", label: "the entries campaign's drawing through the push campaign", method: "GET", path: routes.drawing(PUSH, entriesDrawing), status: 404, error: "not_found" });

  // Every route: wrong methods (with a key: 404 not_found, no route; without one: 401 first), bad keys, odd paths.
  for (const r of allRoutes()) {
    const path = r.path(r.slug, r.id);
    for (const method of ["PUT", "DELETE", "PATCH"]) {
      add({ endpoint: r.endpoint, label: `${method} with a key`, method, path, body: "{}", status: [404, 405] });
      add({ endpoint: r.endpoint, label: `${method} without a key`, method, path, body: "{}", authorization: null, status: 401, error: "unauthorized" });
    }
    const other = r.method === "GET" ? "POST" : "GET";
    if (!(r.endpoint === "POST entries" || r.endpoint === "GET entries")) {
      add({ endpoint: r.endpoint, label: `${other} (the other method)`, method: other, path, body: other === "POST" ? "{}" : undefined, status: [404, 405] });
    }
    const body = r.method === "POST" ? "{}" : undefined;
    const unauthorized: [string, string | null][] = [
      ["no Authorization header", null],
      ["Basic auth", "Basic dXNlcjpwYXNz"],
      ["Bearer and nothing", "Bearer "],
      ["a malformed key", "Bearer pd_test_garbage"],
      ["the key without Bearer", key],
      ["the key of the other environment", `Bearer ${key.replace("pd_test_", "pd_live_")}`],
      ["the key with a wrong secret", `Bearer ${key.slice(0, -4)}${key.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`],
      ["the key with a suffix", `Bearer ${key}x`],
    ];
    for (const [label, authorization] of unauthorized) add({ endpoint: r.endpoint, label: `auth: ${label}`, method: r.method, path, body, authorization, status: 401, error: "unauthorized" });
    for (const [label, segment] of SEGMENTS) {
      add({ endpoint: r.endpoint, label: `slug ${label}`, method: r.method, path: r.path(segment, r.id || "x"), body });
      if (r.id) add({ endpoint: r.endpoint, label: `id ${label}`, method: r.method, path: r.path(r.slug, segment), body });
    }
    add({ endpoint: r.endpoint, label: "a double slash", method: r.method, path: path.replace("/campaigns/", "/campaigns//"), body, status: 404, error: "not_found" });
    add({ endpoint: r.endpoint, label: "a trailing slash", method: r.method, path: `${path}/`, body, status: 404, error: "not_found" });
    add({ endpoint: r.endpoint, label: "an unknown campaign", method: r.method, path: r.path("no-such-campaign", r.id || "x"), body, status: 404, error: "not_found" });
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------------------------
// The model of what valid requests wrote, and the valid cases.

type Entrant = { entrantId: string; weight: number; displayName: string | null; avatarUrl: string | null };
type Winner = { winner: string; displayName: string | null; avatarUrl: string | null };
const model = {
  d1: null as Winner[] | null,
  d2: null as Winner[] | null,
  entrants: new Map<string, Entrant>(),
  clockMoves: 0,
};

function normalizeWinners(list: Json[]): Winner[] {
  return list.map((w) => (typeof w === "string" ? { winner: w, displayName: null, avatarUrl: null } : { winner: (w as Record<string, string>).winner!, displayName: (w as Record<string, string | null>).displayName ?? null, avatarUrl: (w as Record<string, string | null>).avatarUrl ?? null }));
}

function winnersCase(drawing: "d1" | "d2", list: Json[], label: string): ValidCase {
  const id = drawing === "d1" ? d1 : d2;
  return {
    endpoint: "POST winners",
    label,
    method: "POST",
    path: routes.winners(PUSH, id),
    body: JSON.stringify({ winners: list }),
    check: (res) => {
      const expected = model[drawing] === null ? 201 : 200;
      if (res.status !== expected) return `status ${res.status} (expected ${expected}): ${res.text.slice(0, 200)}`;
      const stored = ((res.body?.drawing as { winners: (Winner & { position: number })[] }).winners ?? []).map(({ winner, displayName, avatarUrl }) => ({ winner, displayName, avatarUrl }));
      model[drawing] = normalizeWinners(list);
      return JSON.stringify(stored) === JSON.stringify(model[drawing]) ? null : `stored ${JSON.stringify(stored).slice(0, 300)}`;
    },
  };
}

function entriesCase(list: Json[], label: string): ValidCase {
  return {
    endpoint: "POST entries",
    label,
    method: "POST",
    path: routes.entries(ENTRIES),
    body: JSON.stringify({ entries: list }),
    check: (res) => {
      if (res.status !== 200) return `status ${res.status}: ${res.text.slice(0, 200)}`;
      const counts = { added: 0, updated: 0, unchanged: 0 };
      for (const item of list) {
        const o = typeof item === "string" ? { entrantId: item } : (item as Record<string, Json>);
        const next: Entrant = { entrantId: o.entrantId as string, weight: (o.weight as number | undefined) ?? 1, displayName: (o.displayName as string | null | undefined) ?? null, avatarUrl: (o.avatarUrl as string | null | undefined) ?? null };
        const before = model.entrants.get(next.entrantId);
        if (!before) counts.added++;
        else if (JSON.stringify(before) === JSON.stringify(next)) counts.unchanged++;
        else counts.updated++;
        model.entrants.set(next.entrantId, next);
      }
      const total = [...model.entrants.values()].reduce((s, x) => s + x.weight, 0);
      const expected = { drawing: entriesDrawing, ...counts, count: model.entrants.size, totalWeight: total };
      const got = { drawing: (res.body?.drawing as { id: string }).id, added: res.body?.added, updated: res.body?.updated, unchanged: res.body?.unchanged, count: res.body?.count, totalWeight: res.body?.totalWeight };
      return JSON.stringify(got) === JSON.stringify(expected) ? null : `got ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`;
    },
  };
}

function buildValidCases(): ValidCase[] {
  const cases: ValidCase[] = [];
  cases.push(winnersCase("d1", ["v-1", "v-2", "v-3"], "a first winner list"));
  cases.push(entriesCase(Array.from({ length: 50 }, (_, i) => (i % 2 ? `ent-${i}` : { entrantId: `ent-${i}`, weight: i + 1 })), "50 entrants, half weighted"));
  for (const c of ID_CASES.filter((x) => x.ok)) {
    cases.push(winnersCase("d1", [c.id, { winner: "v-2", displayName: "Two" }, "v-3"], `winner id: ${c.label}`));
    cases.push(entriesCase([{ entrantId: c.id, weight: 3 }], `entrant id: ${c.label}`));
    cases.push({
      endpoint: "POST pick",
      label: `winner: ${c.label} passes validation (then 404: no such guarantee)`,
      method: "POST",
      path: routes.pick(PUSH, "gtd_nope"),
      body: JSON.stringify({ winner: c.id }),
      check: (res) => (res.status === 404 && res.body?.error === "not_found" ? null : `status ${res.status}: ${res.text.slice(0, 200)}`),
    });
  }
  cases.push(entriesCase(["\u00e9-nfc", "e\u0301-nfc"], "NFC and NFD spellings are two entrants (no normalization)"));
  for (const c of NAME_CASES.filter((x) => x.ok)) {
    cases.push(winnersCase("d1", [{ winner: "v-1", displayName: c.name, avatarUrl: "https://example.com/😀.png" }, "v-2", "v-3"], `displayName: ${c.label}`));
    cases.push(entriesCase([{ entrantId: "named", displayName: c.name }], `entrant displayName: ${c.label}`));
  }
  cases.push(entriesCase(["ent-1", { entrantId: "ent-2", weight: 3 }], "a re-send: unchanged"));
  cases.push(entriesCase([{ entrantId: "ent-1", weight: 9 }, "ent-2", "ent-new"], "an update, a reset weight and a new entrant"));
  cases.push(entriesCase(Array.from({ length: 1_000 }, (_, i) => `k-${i}`), "exactly 1,000 entries"));
  cases.push(entriesCase([{ entrantId: "max-weight", weight: 4_294_967_295, avatarUrl: `https://example.com/${"a".repeat(2_048 - 20)}` }], "the largest weight and a 2,048-character avatar"));
  cases.push(winnersCase("d2", ["second-1", { winner: "second-2", displayName: null, avatarUrl: null }, "second-3"], "the second drawing's list"));
  cases.push({
    endpoint: "POST test-clock",
    label: "a one-second clock move",
    method: "POST",
    path: routes.testClock(CLOCK),
    body: JSON.stringify({ advanceBy: "1s" }),
    check: (res) => {
      if (res.status !== 200 || typeof res.body?.now !== "string") return `status ${res.status}: ${res.text.slice(0, 200)}`;
      model.clockMoves++;
      return null;
    },
  });
  for (const [endpoint, path] of [
    ["GET campaign", routes.campaign(PUSH)],
    ["GET drawings", `${routes.drawings(PUSH)}?status=open`],
    ["GET drawing", routes.drawing(PUSH, d1)],
    ["GET entries", `${routes.entries(ENTRIES)}?limit=1000&after=0&drawing=${entriesDrawing}`],
    ["GET guarantees", routes.guarantees(PUSH)],
  ] as [Endpoint, string][]) {
    cases.push({ endpoint, label: "a valid read", method: "GET", path, check: (res) => (res.status === 200 ? null : `status ${res.status}: ${res.text.slice(0, 200)}`) });
  }
  // The same JSON with a charset parameter and mixed-case type is fine.
  cases.push({ ...winnersCase("d1", ["v-1", "v-2", "v-3"], "Content-Type: Application/JSON; charset=utf-8"), contentType: "Application/JSON; charset=utf-8" });
  return cases;
}

// ---------------------------------------------------------------------------------------------------------------

type Snapshot = Record<string, unknown[]>;
const TABLES = ["accounts", "members", "api_keys", "campaigns", "prize_tables", "drawings", "winners", "entries", "audit_log", "guarantees", "campaign_pauses", "pull_fetches", "staff_alerts"];

/**
 * Every row of TABLES, in insertion order where a check needs it: on SQLite by rowid; on PostgreSQL (the "postgres"
 * project) entries by seq and the audit log by time then id (as the store lists it), the rest by content.
 */
async function snapshot(): Promise<Snapshot> {
  const out: Snapshot = {};
  const url = stack.env.STORE_URL;
  if (url === undefined) {
    const store = await openServiceStore(stack.storeLocation);
    try {
      const db = rawSqlite(store);
      for (const t of TABLES) out[t] = db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all();
    } finally {
      await store.close();
    }
    return out;
  }
  // bigint and numeric columns as numbers, as the store reads them.
  const client = new pg.Client({ connectionString: url, types: { getTypeParser } });
  await client.connect();
  try {
    for (const t of TABLES) {
      const rows = (await client.query<Record<string, unknown>>(`SELECT * FROM ${t}`)).rows;
      const key = (r: Record<string, unknown>) => (t === "entries" ? String(r.seq).padStart(12, "0") : t === "audit_log" ? `${String(r.at)} ${String(r.id)}` : JSON.stringify(r));
      out[t] = rows.sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
    }
  } finally {
    await client.end();
  }
  return out;
}

let before: Snapshot;
const tally: Record<string, { bad: number; valid: number }> = {};

beforeAll(async () => {
  stack = await startStack();
  accountId = (await stack.cli("account", "create", "--email", "owner@example.com")).accountId as string;
  key = (await stack.cli("key", "create", "--account", accountId)).key as string;
  // Draw times 12 hours from now: no cutoff passes (and no drawing is created or locked) while the matrix runs.
  const hour = String((new Date().getUTCHours() + 12) % 24);
  for (const [slug, mode, winners] of [[PUSH, "push", "3"], [ENTRIES, "entries", "2"], [CLOCK, "push", "1"]] as const) {
    await stack.cli("campaign", "create", "--account", accountId, "--slug", slug, "--name", `Bad input ${slug}`, "--mode", mode, "--cadence", "daily", "--hour", hour, "--timezone", "UTC", "--winners", winners, "--payout-wallet", WALLET);
    await stack.cli("campaign", "activate", slug);
  }
  const open = (await api(stack, "GET", routes.drawings(PUSH) + "?status=open", { key })).body.drawings as { id: string }[];
  [d1, d2] = [open[0]!.id, open[1]!.id];
  entriesDrawing = ((await api(stack, "GET", routes.drawings(ENTRIES) + "?status=open", { key })).body.drawings as { id: string }[])[0]!.id;
  before = await snapshot();
}, 240_000);

afterAll(async () => {
  agent.destroy();
  await stack?.stop();
});

describe("the bad-input matrix", () => {
  it("answers every bad request to every partner endpoint with a 4xx { error, detail }, and the valid ones in between normally", async () => {
    const bad = buildBadCases();
    const valid = buildValidCases();
    // Interleave: one valid request after every `step` bad ones, so valid writes happen between refused ones.
    const step = Math.max(1, Math.floor(bad.length / (valid.length + 1)));
    const plan: ({ kind: "bad"; c: BadCase } | { kind: "valid"; c: ValidCase })[] = [];
    bad.forEach((c, i) => {
      plan.push({ kind: "bad", c });
      if ((i + 1) % step === 0 && valid.length > 0) plan.push({ kind: "valid", c: valid.shift()! });
    });
    for (const c of valid) plan.push({ kind: "valid", c });

    const failures: string[] = [];
    for (const step of plan) {
      const { c } = step;
      tally[c.endpoint] ??= { bad: 0, valid: 0 };
      tally[c.endpoint]![step.kind]++;
      let res: Res;
      try {
        res = await send(c);
      } catch (error) {
        failures.push(`${c.endpoint} / ${c.label}: request failed: ${(error as Error).message}`);
        continue;
      }
      if (step.kind === "valid") {
        const problem = step.c.check(res);
        if (problem) failures.push(`VALID ${c.endpoint} / ${c.label}: ${problem}`);
        continue;
      }
      const b = step.c;
      const problem = shapeProblem(res);
      const statuses = b.status === undefined ? null : Array.isArray(b.status) ? b.status : [b.status];
      if (problem) failures.push(`${c.endpoint} / ${c.label}: ${problem}`);
      else if (statuses && !statuses.includes(res.status)) failures.push(`${c.endpoint} / ${c.label}: status ${res.status} (expected ${statuses.join(" or ")}): ${res.text.slice(0, 200)}`);
      else if (b.error && res.body?.error !== b.error) failures.push(`${c.endpoint} / ${c.label}: error ${String(res.body?.error)} (expected ${b.error}): ${String(res.body?.detail).slice(0, 200)}`);
      else if (b.detail && !b.detail.test(String(res.body?.detail))) failures.push(`${c.endpoint} / ${c.label}: detail ${String(res.body?.detail).slice(0, 200)} (expected ${b.detail})`);
    }
    console.log(JSON.stringify({ badInputMatrix: tally, requests: plan.length }));
    expect(failures).toEqual([]);
    expect(Object.keys(tally).sort()).toEqual(allRoutes().map((r) => r.endpoint).sort());
  }, 300_000);

  it("answers requests Node's HTTP parser refuses (a NUL or a space in the request line) with the same body", async () => {
    for (const line of ["GET /api/v1/campaigns/a\u0000b HTTP/1.1", "GET /api/v1/campaigns/a b HTTP/1.1", "GARBAGE", "GET / HTTP/9.9"]) {
      const res = await sendRaw(Buffer.from(`${line}\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`, "latin1"));
      expect([line, shapeProblem(res)]).toEqual([line, null]);
      expect(res.status).toBe(400);
    }
    const long = await send({ method: "GET", path: routes.drawing(PUSH, "i".repeat(20_000)) });
    expect(shapeProblem(long)).toBeNull();
    expect(long.status).toBe(431);
  });

  it("resolves dot segments before routing: a path that resolves to a route answers as that route, key check included", async () => {
    for (const [odd, direct] of [
      [`/api/v1/campaigns/other/../${PUSH}`, routes.campaign(PUSH)],
      [`/api/v1/campaigns/${PUSH}/drawings/%2e%2e/drawings/${d1}`, routes.drawing(PUSH, d1)],
      [`/api/v1/x/%2E%2E/campaigns/${ENTRIES}/entries?limit=5`, `${routes.entries(ENTRIES)}?limit=5`],
    ]) {
      const [a, b] = [await send({ method: "GET", path: odd! }), await send({ method: "GET", path: direct! })];
      expect(a.status).toBe(200);
      expect(a.text).toBe(b.text);
      const anonymous = await send({ method: "GET", path: odd!, authorization: null });
      expect(anonymous.status).toBe(401);
      expect(shapeProblem(anonymous)).toBeNull();
    }
    // Out of the API entirely: the public side's 404, still the spec's body, never a file.
    for (const path of ["/api/v1/../../../etc/passwd", "/api/v1/%2e%2e/%2e%2e/etc/passwd", "/verify/..%2f..%2fpackage.json", "/verify/%2e%2e/%2e%2e/package.json"]) {
      const res = await send({ method: "GET", path, authorization: null });
      expect([path, shapeProblem(res), res.status]).toEqual([path, null, 404]);
    }
  });

  it("leaves the store holding exactly what the valid requests wrote (API and SQLite)", async () => {
    // Through the API: both winner lists, the entrants in arrival order with their data, the running totals.
    for (const [id, expected] of [[d1, model.d1], [d2, model.d2]] as const) {
      const d = (await api(stack, "GET", routes.drawing(PUSH, id), { key })).body.drawing as { winners: (Winner & { position: number })[]; status: string };
      expect(d.status).toBe("open");
      // heldForManualPayout is on every winner, false until the drawing settles.
      expect(d.winners).toEqual(expected!.map((w, position) => ({ position, ...w, heldForManualPayout: false })));
    }
    const listed: Entrant[] = [];
    let after: string | null = null;
    let totals: { count: number; totalWeight: number } | null = null;
    do {
      const page = (await api(stack, "GET", `${routes.entries(ENTRIES)}?limit=100${after ? `&after=${after}` : ""}`, { key })).body as { count: number; totalWeight: number; entries: (Entrant & { position: number | null })[]; next: string | null };
      listed.push(...page.entries.map(({ entrantId, weight, displayName, avatarUrl }) => ({ entrantId, weight, displayName, avatarUrl })));
      totals = { count: page.count, totalWeight: page.totalWeight };
      after = page.next;
    } while (after);
    const expectedEntrants = [...model.entrants.values()];
    const expectedTotal = expectedEntrants.reduce((s, x) => s + x.weight, 0);
    expect(listed).toEqual(expectedEntrants);
    expect(totals).toEqual({ count: expectedEntrants.length, totalWeight: expectedTotal });

    // From the store (read-only queries): row counts and contents equal what the valid requests imply; every table the
    // valid requests do not write is unchanged, row for row.
    const now = await snapshot();
    const winnersRows = now.winners as { drawing_id: string; position: number; winner_id: string; display_name: string | null; avatar_url: string | null }[];
    expect(winnersRows).toHaveLength(model.d1!.length + model.d2!.length);
    for (const [id, expected] of [[d1, model.d1!], [d2, model.d2!]] as const) {
      const rows = winnersRows.filter((r) => r.drawing_id === id).sort((a, b) => a.position - b.position);
      expect(rows.map((r) => ({ winner: r.winner_id, displayName: r.display_name, avatarUrl: r.avatar_url }))).toEqual(expected);
    }
    const entryRows = now.entries as { drawing_id: string; entrant_id: string; weight: number; display_name: string | null; avatar_url: string | null }[];
    expect(entryRows).toHaveLength(expectedEntrants.length);
    expect(entryRows.map((r) => ({ entrantId: r.entrant_id, weight: r.weight, displayName: r.display_name, avatarUrl: r.avatar_url }))).toEqual(expectedEntrants);
    expect(new Set(entryRows.map((r) => r.drawing_id))).toEqual(new Set([entriesDrawing]));
    const drawingRows = now.drawings as { id: string; entrant_count: number; total_weight: number; list_submitted_at: string | null; status: string }[];
    const entriesRow = drawingRows.find((d) => d.id === entriesDrawing)!;
    expect({ count: entriesRow.entrant_count, weight: entriesRow.total_weight }).toEqual({ count: expectedEntrants.length, weight: expectedTotal });
    // The same drawings (no drawing created, removed, locked or numbered by any request); only list and totals moved.
    const stable = (rows: unknown[]) => (rows as Record<string, unknown>[]).map(({ list_submitted_at: _l, entrant_count: _c, total_weight: _w, updated_at: _u, ...rest }) => rest);
    expect(stable(now.drawings!)).toEqual(stable(before.drawings!));
    // The audit log: one row more, the clock move; campaigns unchanged but the clock campaign's offset (and what the
    // keeper mirrors from the chain: it registers an active campaign onchain ahead of its first commit).
    expect(now.audit_log).toHaveLength(before.audit_log!.length + model.clockMoves);
    expect((now.audit_log!.slice(before.audit_log!.length) as { action: string; subject: string }[]).map((r) => [r.action, r.subject])).toEqual([["clock.advance", CLOCK]]);
    const campaigns = (rows: unknown[]) =>
      (rows as Record<string, unknown>[]).map(({ clock_offset_ms: _o, updated_at: _u, onchain_wallet: _w, onchain_threshold_cents: _t, ...rest }) => rest);
    expect(campaigns(now.campaigns!)).toEqual(campaigns(before.campaigns!));
    for (const t of ["accounts", "members", "api_keys", "prize_tables", "guarantees", "campaign_pauses", "pull_fetches", "staff_alerts"]) expect([t, now[t]]).toEqual([t, before[t]]);
  });

  it("logged no unhandled error: nothing reached the 500 path", async () => {
    const { readFileSync } = await import("node:fs");
    const lines = readFileSync(`${stack.dataDir}/service.log`, "utf8").split("\n").filter((l) => l.includes("unhandled error"));
    expect(lines).toEqual([]);
  });
});
