// The OpenAPI document against the real service: the committed api/openapi.json is the generated one,
// every example in it fits its schema, and on one stack every operation is called over HTTP (successes and the
// usual refusals) with each answer's body checked against the document's schema for that operation and status
// by a JSON Schema 2020-12 validator.

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import AjvModule from "ajv/dist/2020.js";
import formatsModule from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument, openApiJson, type JsonSchema } from "../../api/src/http/openapi.js";
import { until } from "../support/processes.js";
import { createAccount, startStack, type Stack } from "../support/stack.js";
import { activeCampaign, guaranteeCampaign } from "../support/partner.js";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const doc = openApiDocument();

type Operation = {
  operationId: string;
  method: string;
  path: string;
  requestBody?: { content: Record<string, { schema: JsonSchema; example?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema; example?: unknown; examples?: Record<string, { value: unknown }> }> }>;
};

const operations = new Map<string, Operation>();
for (const [route, methods] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(methods)) operations.set(op.operationId as string, { ...(op as Omit<Operation, "method" | "path">), method, path: route });
}

// The components live in one schema the validator knows; a response schema refers to them by that schema's URI.
const DOC_URI = "urn:prizedraw:openapi";
const ajv = new AjvModule.default({ strict: false, allErrors: true });
formatsModule.default(ajv);
ajv.addSchema({ $id: DOC_URI, components: { schemas: doc.components.schemas } });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();

function validate(schema: JsonSchema, value: unknown): string | null {
  const text = JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_URI}#/components/`);
  let check = validators.get(text);
  if (!check) validators.set(text, (check = ajv.compile(JSON.parse(text) as JsonSchema)));
  return check(value) ? null : ajv.errorsText(check.errors, { separator: "\n" });
}

describe("the document", () => {
  it("is the committed api/openapi.json (run `node --import tsx scripts/openapi.mts` after changing a schema)", () => {
    expect(readFileSync(path.join(REPO_ROOT, "api/openapi.json"), "utf8")).toBe(openApiJson());
  });

  it("is OpenAPI 3.1 with unique operation ids, each with a summary, security and a Request-Id response header", () => {
    expect(doc.openapi).toBe("3.1.0");
    const ids = Object.values(doc.paths).flatMap((m) => Object.values(m).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const op of operations.values()) {
      expect(op, op.operationId).toMatchObject({ summary: expect.any(String), security: expect.any(Array) });
      for (const [status, response] of Object.entries(op.responses)) {
        expect((response as { headers?: Record<string, unknown> }).headers, `${op.operationId} ${status}`).toHaveProperty("Request-Id");
      }
      const params = (op as unknown as { parameters: { $ref?: string }[] }).parameters.map((p) => p.$ref);
      expect(params.includes("#/components/parameters/Idempotency-Key"), op.operationId).toBe(op.method === "post");
    }
  });

  it("names every error code of api/src/domain/errors.ts, and every partner-facing one in some operation", () => {
    const source = readFileSync(path.join(REPO_ROOT, "api/src/domain/errors.ts"), "utf8");
    const union = /export type ErrorCode =([^;]+);/.exec(source)![1]!;
    const codes = [...union.matchAll(/"([a-z_]+)"/g)].map((m) => m[1]!);
    expect(codes.length).toBeGreaterThan(10);
    const documented = (doc.components.schemas.ErrorCode as { enum: string[] }).enum;
    for (const code of [...codes, "internal"]) expect(documented, code).toContain(code);
    const text = JSON.stringify(doc.paths);
    // forbidden and invalid_transition come from the portal and the CLI only.
    for (const code of documented.filter((c) => c !== "forbidden" && c !== "invalid_transition")) expect(text, code).toContain(`"${code}"`);
  });

  it("holds examples that fit their schemas, and request schemas that take what docs/api.md shows", () => {
    let checked = 0;
    for (const op of operations.values()) {
      const request = op.requestBody?.content["application/json"];
      if (request) {
        expect(validate(request.schema, request.example), `${op.operationId} request example`).toBeNull();
        checked++;
      }
      for (const [status, response] of Object.entries(op.responses)) {
        const media = response.content?.["application/json"];
        if (!media) continue;
        const examples = [...(media.example === undefined ? [] : [media.example]), ...Object.values(media.examples ?? {}).map((e) => e.value)];
        for (const example of examples) {
          expect(validate(media.schema, example), `${op.operationId} ${status} example`).toBeNull();
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
    const winners = operations.get("postWinners")!.requestBody!.content["application/json"]!.schema;
    expect(validate(winners, { winners: ["u-1", { winner: "u-2", displayName: null }] })).toBeNull();
    expect(validate(winners, { winners: [""] })).not.toBeNull();
    expect(validate(winners, { winners: [{ winner: "u-1", extra: 1 }] })).not.toBeNull();
    const clock = operations.get("moveTestClock")!.requestBody!.content["application/json"]!.schema;
    expect(validate(clock, { advanceBy: "90m" })).toBeNull();
    expect(validate(clock, { advanceTo: "2026-11-25T20:00:00Z" })).toBeNull();
    expect(validate(clock, { advanceBy: "soon" })).not.toBeNull();
    // Answers are checked through the components: a drawing without its fields, or with one too many, fails.
    const drawing = (operations.get("getDrawing")!.responses["200"]!.content!["application/json"]!.example as { drawing: Record<string, unknown> }).drawing;
    const schema = { $ref: "#/components/schemas/DrawingResponse" };
    expect(validate(schema, { drawing: { id: "drw_1" } })).not.toBeNull();
    expect(validate(schema, { drawing: { ...drawing, extra: true } })).not.toBeNull();
    expect(validate(schema, { drawing: { ...drawing, status: "lost" } })).not.toBeNull();
  });
});

describe("real answers", () => {
  let stack: Stack;
  let key: string;
  /** operationId -> statuses seen. */
  const exercised = new Map<string, Set<number>>();

  type Call = { params?: Record<string, string>; query?: Record<string, string>; body?: unknown; rawBody?: string; headers?: Record<string, string>; key?: string | null; invalid?: boolean };
  type Answer = { status: number; body: Record<string, unknown>; headers: Headers };

  /**
   * Calls an operation by the document's method and path, and checks the answer against the document: the status
   * is documented (or falls under `default`), a JSON body fits that status's schema, another media type is the one
   * documented, and Request-Id is there. A valid request's body is also checked against the request schema.
   */
  async function call(operationId: string, options: Call = {}): Promise<Answer> {
    const op = operations.get(operationId);
    if (!op) throw new Error(`no operation ${operationId}`);
    const route = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(options.params?.[name] ?? `missing-${name}`));
    const query = options.query ? `?${new URLSearchParams(options.query)}` : "";
    const headers: Record<string, string> = { ...options.headers };
    const secured = (op as unknown as { security: unknown[] }).security.length > 0;
    const useKey = options.key === undefined ? (secured ? key : null) : options.key;
    if (useKey) headers.authorization = `Bearer ${useKey}`;
    if (options.body !== undefined || options.rawBody !== undefined) headers["content-type"] = "application/json";
    if (options.body !== undefined && !options.invalid) {
      const schema = op.requestBody?.content["application/json"]?.schema;
      expect(schema, `${operationId} takes a body`).toBeDefined();
      expect(validate(schema!, options.body), `${operationId} request body`).toBeNull();
    }
    const response = await fetch(`${stack.baseUrl}${route}${query}`, {
      method: op.method.toUpperCase(),
      headers,
      body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    });
    const text = await response.text();
    const label = `${operationId} ${response.status} ${text.slice(0, 300)}`;
    const documented = op.responses[String(response.status)] ?? op.responses.default;
    expect(documented, `${label}: status not documented`).toBeDefined();
    expect(response.headers.get("request-id"), label).toMatch(/^req_/);
    const type = (response.headers.get("content-type") ?? "").split(";")[0]!;
    const media = Object.keys(documented!.content ?? {});
    let body: Record<string, unknown> = {};
    if (media.length === 0) {
      expect(text, label).toBe("");
    } else {
      expect(media, label).toContain(type);
      if (type === "application/json") {
        body = JSON.parse(text) as Record<string, unknown>;
        expect(validate(documented!.content![type]!.schema, body), label).toBeNull();
      }
    }
    (exercised.get(operationId) ?? exercised.set(operationId, new Set()).get(operationId)!).add(response.status);
    return { status: response.status, body, headers: response.headers };
  }

  const HOUR = 3_600_000;
  const DAY = 24 * HOUR;
  let start: number;
  type Drawing = { id: string; status: string; cutoffAt: string };
  let drawn: Drawing;

  beforeAll(async () => {
    stack = await startStack();
    let accountId: string;
    ({ accountId, key } = await createAccount(stack, "openapi@example.com"));
    // A daily push campaign whose guarantee periods (one day) start at S, a little ahead of real time, and draw at
    // S+12h; every prize 100 cents, under the 500-cent threshold, so its first period awaits a pick.
    start = await guaranteeCampaign(stack, accountId, "oa-push", { name: "OpenAPI push", prizeCents: 100, guarantee: "2000,500,1" });
    await activeCampaign(stack, accountId, "oa-entries", { name: "OpenAPI entries", mode: "entries", winners: 2 });
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it("serves the document without a key, identical to the committed one", async () => {
    const r = await call("getOpenApiDocument");
    expect(r.status).toBe(200);
    expect(r.body).toEqual(JSON.parse(readFileSync(path.join(REPO_ROOT, "api/openapi.json"), "utf8")));
  });

  it("service and static public endpoints", async () => {
    expect((await call("getHealth")).status).toBe(200);
    expect([200, 503]).toContain((await call("getReady")).status);
    for (const id of ["getVerifier", "getVerifierSkill", "getTerms", "getPrivacy"]) expect((await call(id)).status).toBe(200);
  });

  it("campaigns and drawings, with 401 and 404", async () => {
    const listed = await call("listCampaigns", { query: { limit: "1" } });
    expect(listed.body).toMatchObject({ campaigns: [{ slug: "oa-entries" }], next: "oa-entries" });
    expect((await call("listCampaigns", { query: { after: "oa-entries" } })).body).toMatchObject({ campaigns: [{ slug: "oa-push" }], next: null });
    expect((await call("listCampaigns", { query: { limit: "0" } })).body.error).toBe("bad_request");
    expect((await call("listCampaigns", { key: null })).status).toBe(401);
    expect((await call("getCampaign", { params: { slug: "oa-push" } })).body).toMatchObject({ campaign: { slug: "oa-push", mode: "push" } });
    expect((await call("getCampaign", { params: { slug: "oa-push" }, key: null })).status).toBe(401);
    expect((await call("getCampaign", { params: { slug: "oa-push" }, key: "pd_test_nope_nope" })).status).toBe(401);
    expect((await call("getCampaign", { params: { slug: "no-such-campaign" } })).body.error).toBe("not_found");
    expect((await call("listDrawings", { params: { slug: "oa-push" } })).status).toBe(200);
    expect((await call("listDrawings", { params: { slug: "oa-push" }, query: { status: "bogus" } })).body.error).toBe("bad_request");
    expect((await call("listDrawings", { params: { slug: "oa-push" }, query: { sort: "x" } })).status).toBe(400);
    expect((await call("getDrawing", { params: { slug: "oa-push", id: "drw_missing" } })).status).toBe(404);
  });

  it("winners, idempotency, the test clock, a drawn drawing and its proof", async () => {
    const slug = "oa-push";
    const open = await call("listDrawings", { params: { slug }, query: { status: "open" } });
    const [first, second] = open.body.drawings as Drawing[];
    const params = { slug, id: first!.id };
    const list = { winners: [{ winner: "alice", displayName: "Alice", avatarUrl: "https://example.com/a.png" }, "bob"] };
    const idem = { "Idempotency-Key": "oa-key-1" };
    expect((await call("postWinners", { params, body: list, headers: idem })).status).toBe(201);
    const replay = await call("postWinners", { params, body: list, headers: idem });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await call("postWinners", { params, body: { winners: ["alice", "carol"] }, headers: idem })).body.error).toBe("idempotency_key_reused");
    expect((await call("postWinners", { params, body: list })).status).toBe(200);
    expect((await call("postWinners", { params, body: { winners: ["alice"] } })).status).toBe(400);
    expect((await call("postWinners", { params, body: { winners: [{ winner: "a", avatarUrl: "http://x" }, "b"] }, invalid: true })).status).toBe(400);
    expect((await call("postWinners", { params, rawBody: "{" })).status).toBe(400);
    expect((await call("postWinners", { params: { slug: "oa-entries", id: first!.id }, body: list })).body.error).toBe("entries_campaign");

    expect((await call("moveTestClock", { params: { slug }, body: { advanceBy: "soon" }, invalid: true })).status).toBe(400);
    expect((await call("moveTestClock", { params: { slug }, body: { advanceTo: new Date(Date.parse(first!.cutoffAt) + 1_000).toISOString() } })).status).toBe(200);
    drawn = await until("drawing paid", async () => {
      const d = (await call("getDrawing", { params })).body.drawing as Drawing;
      return d.status === "paid" ? d : undefined;
    }, 60_000, 500);
    expect((await call("postWinners", { params, body: { winners: ["carol", "dave"] } })).body.error).toBe("locked");

    const proof = await until("proof served", async () => {
      const r = await call("getProof", { params: { slug, id: drawn.id } });
      return r.status === 200 ? r : undefined;
    }, 30_000, 500);
    expect(proof.body).toMatchObject({ proofVersion: 6, drawing: { id: drawn.id } });
    expect((await call("getProof", { params: { slug, id: drawn.id }, headers: { "If-None-Match": proof.headers.get("etag")! } })).status).toBe(304);
    expect((await call("getProof", { params: { slug, id: second!.id } })).status).toBe(404);

    const draws = await call("getDraws", { params: { slug }, query: { limit: "5" } });
    expect((draws.body.draws as { id: string }[]).map((d) => d.id)).toContain(drawn.id);
    expect((await call("getDraws", { params: { slug }, query: { limit: "0" } })).status).toBe(400);
    expect((await call("getDraws", { params: { slug: "no-such-campaign" } })).status).toBe(404);
    expect((await call("getCampaignPage", { params: { slug } })).status).toBe(200);
    expect((await call("getCampaignPage", { params: { slug: "no-such-campaign" } })).status).toBe(404);
  });

  it("entries, with 400 and 409", async () => {
    const slug = "oa-entries";
    const posted = await call("postEntries", { params: { slug }, body: { entries: ["e-1", { entrantId: "e-2", weight: 3, displayName: "Two", avatarUrl: "https://example.com/2.png" }] } });
    expect(posted.body).toMatchObject({ added: 2, count: 2, totalWeight: 4 });
    expect((await call("postEntries", { params: { slug }, body: { entries: [] }, invalid: true })).status).toBe(400);
    expect((await call("postEntries", { params: { slug: "oa-push" }, body: { entries: ["e-1"] } })).body.error).toBe("not_entrants_campaign");
    const page = await call("listEntries", { params: { slug }, query: { limit: "1" } });
    expect(page.body.next).not.toBeNull();
    expect((await call("listEntries", { params: { slug }, query: { after: page.body.next as string } })).status).toBe(200);
    expect((await call("listEntries", { params: { slug }, query: { limit: "0" } })).status).toBe(400);
    expect((await call("listEntries", { params: { slug: "oa-push" } })).body.error).toBe("not_entrants_campaign");
  });

  it("guarantees: the period awaiting a pick, the pick and its refusals", async () => {
    const slug = "oa-push";
    expect((await call("listGuarantees", { params: { slug } })).status).toBe(200);
    await call("moveTestClock", { params: { slug }, body: { advanceTo: new Date(start + DAY + 60_000).toISOString() } });
    const [period] = await until("a checked period", async () => {
      const list = (await call("listGuarantees", { params: { slug } })).body.guarantees as { id: string; status: string }[];
      return list.length > 0 ? list : undefined;
    }, 30_000, 500);
    expect(period!.status).toBe("awaiting_pick");
    const params = { slug, id: period!.id };
    expect((await call("pickGuarantee", { params, body: { winner: "nobody" } })).body.error).toBe("rejected");
    expect((await call("pickGuarantee", { params: { slug, id: "gtd_missing" }, body: { winner: "alice" } })).status).toBe(404);
    expect((await call("pickGuarantee", { params, body: { winner: "alice" } })).status).toBe(201);
    const again = await call("pickGuarantee", { params, body: { winner: "alice" } });
    expect([again.status, again.body.error]).toEqual([409, "rejected"]);
  });

  it("exercised every operation in the document", () => {
    expect([...operations.keys()].filter((id) => !exercised.has(id))).toEqual([]);
  });
});
