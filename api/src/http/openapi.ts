/**
 * The OpenAPI 3.1 document of the partner API and the public endpoints, served at
 * GET /api/v1/openapi.json and committed as api/openapi.json (scripts/openapi.mts writes it). Request schemas
 * come from the zod validators the routes use (schemas.ts, and draws.json's query in routes/public.ts), response
 * schemas from responses.ts, both through zod's own z.toJSONSchema (draft 2020-12, the dialect of OpenAPI 3.1):
 * one source, so the document cannot drift from what the service checks.
 */
import { z } from "zod";
import { drawsQuery } from "./routes/public.js";
import { entriesBody, winnersBody } from "../lists/schemas.js";
import { campaignsQuery, drawingsQuery, entriesQuery, guaranteePickBody, testClockBody } from "./schemas.js";
import { responseRegistry, type SchemaMeta, type StableErrorCode } from "./responses.js";
import { EXAMPLES } from "./openapiExamples.js";

export type JsonSchema = { [key: string]: unknown };
/** The document: a plain JSON object (its shape is OpenAPI 3.1's). */
export type OpenApiDocument = {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string };
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, JsonSchema>>;
  components: {
    schemas: Record<string, JsonSchema>;
    parameters: Record<string, JsonSchema>;
    headers: Record<string, JsonSchema>;
    securitySchemes: Record<string, JsonSchema>;
  };
};

const SCHEMAS = "#/components/schemas/";
const ref = (id: string) => ({ $ref: `${SCHEMAS}${id}` });

/** Request bodies, named as components. */
const requestRegistry = z.registry<SchemaMeta>();
requestRegistry.add(winnersBody, { id: "WinnersBody", description: "POST winners: exactly the drawing's `winnersExpected` items, in position order; each a winner id or an object." });
requestRegistry.add(entriesBody, { id: "EntriesBody", description: "POST entries: 1 to 1,000 entrants, each an entrant id or an object." });
requestRegistry.add(guaranteePickBody, { id: "GuaranteePickBody", description: "`drawingId` only when the winner won more than once in the period." });
requestRegistry.add(testClockBody, { id: "TestClockBody", description: "`advanceBy` (a number and s, m, h or d) or `advanceTo` (an ISO 8601 time with an offset)." });

/**
 * The list items are `z.preprocess` (a bare id stands for `{ <idField>: id }`), which zod describes by its object
 * alone; this adds the bare id as the other alternative, with the id field's own schema (the object's one
 * required field).
 */
function idOrObject(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: JsonSchema }): void {
  const def = ctx.zodSchema._zod.def;
  if (def.type !== "pipe" || def.in._zod.def.type !== "transform") return;
  const object = { ...ctx.jsonSchema };
  const idField = (object.required as string[] | undefined)?.[0];
  const idSchema = idField ? (object.properties as Record<string, JsonSchema>)[idField] : undefined;
  if (!idSchema) throw new Error("openapi: a preprocessed schema that is not a string-or-object item");
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  ctx.jsonSchema.anyOf = [{ ...idSchema, description: `The ${idField} alone.` }, object];
}

/**
 * zod's integers carry the safe-integer range as bounds, which says nothing to a reader; components are written
 * without zod's `$schema`, `$id` and `id` (the document names them).
 */
function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (value === null || typeof value !== "object") return value;
  const out: JsonSchema = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === "minimum" && v === Number.MIN_SAFE_INTEGER) continue;
    if (key === "maximum" && v === Number.MAX_SAFE_INTEGER) continue;
    out[key] = tidy(v);
  }
  return out;
}

function components(registry: z.core.$ZodRegistry<SchemaMeta>, io: "input" | "output"): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(registry, { target: "draft-2020-12", io, metadata: registry, uri: (id) => `${SCHEMAS}${id}`, override: idOrObject });
  const out: Record<string, JsonSchema> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    if (id === "__shared") throw new Error("openapi: a schema was shared without a component id");
    const { $schema: _s, $id: _i, id: _id, ...rest } = schema as JsonSchema;
    out[id] = tidy(rest) as JsonSchema;
  }
  return out;
}

/** A query schema's properties as OpenAPI query parameters (the same strict objects readQuery checks). */
function queryParameters(schema: z.ZodType, descriptions: Record<string, string>): JsonSchema[] {
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io: "output" }) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: "query",
    required: json.required?.includes(name) ?? false,
    ...(descriptions[name] ? { description: descriptions[name] } : {}),
    schema: tidy(s),
  }));
}

const pathParam = (name: string, description: string) => ({ name, in: "path", required: true, description, schema: { type: "string", minLength: 1 } });
const SLUG = pathParam("slug", "The campaign's slug.");
const DRAWING_ID = pathParam("id", "The drawing's id (`drw_...`).");

/** Example `detail`s, by `status:code` or code. */
const ERROR_DETAILS: Record<string, string> = {
  bad_request: "winners[0].avatarUrl: must be an https URL",
  unauthorized: "send the API key as Authorization: Bearer <key>",
  forbidden: "only an owner of the account may do this",
  not_found: "no campaign summer-daily",
  locked: "the cutoff has passed and this list differs from the locked one",
  pull_campaign: "this campaign's winners are fetched from the partner's URL; posting them is refused",
  entries_campaign: "this campaign draws its winners from entries; post entrants to /entries instead",
  campaign_ended: "the campaign has ended and takes no more winners",
  not_entrants_campaign: "this campaign takes winners, not entries",
  no_open_drawing: "no drawing is taking entries now (is the campaign paused?)",
  not_taking_entries: "the drawing stopped taking entries while the request was in flight; nothing was stored",
  too_many_entrants: "this request would take the drawing to 100001 entrants; a drawing takes at most 100000; nothing was stored",
  "400:rejected": "the winner did not win in period 1",
  "413:bad_request": "the body is larger than 4194304 bytes",
  rejected: "guarantee gtd_01jd8m3k2n was already picked; a guarantee is picked once",
  invalid_transition: "an ended campaign cannot be activated",
  proof_mismatch: "the stored winner list does not hash to the onchain commitment; the proof is withheld",
  idempotency_key_reused: "this Idempotency-Key was used with another request (method, path or body) in the last 24 hours: use a new key for a new request",
  idempotency_in_progress: "the first request with this Idempotency-Key is still running: retry in a few seconds",
  internal: "unexpected error; the request was not completed, retry later",
  rate_limited: "more than 1200 requests a minute with this API key (a body counts one more for each whole MiB): retry in 1 s",
};

const STATUS_TEXT: Record<number, string> = {
  400: "Bad request",
  401: "No valid API key",
  404: "Not found",
  409: "Conflict",
  413: "The body is over its size limit (4 MiB; POST winners and POST entries 32 MiB)",
  429: "Over a rate limit (per API key, per client address): wait the seconds in `Retry-After`",
  500: "The service failed; retry later",
};

type Errors = Partial<Record<400 | 401 | 404 | 409 | 413 | 429 | 500, StableErrorCode[]>>;

const RESPONSE_HEADERS = { "Request-Id": { $ref: "#/components/headers/Request-Id" } };
const POST_RESPONSE_HEADERS = { ...RESPONSE_HEADERS, "Idempotent-Replayed": { $ref: "#/components/headers/Idempotent-Replayed" } };

const LIMITED_RESPONSE_HEADERS = { ...RESPONSE_HEADERS, "Retry-After": { $ref: "#/components/headers/Retry-After" } };

/** An error status's answer: `{ error, detail }` with one of `codes`. */
function errorResponse(status: string, codes: StableErrorCode[], headers: Record<string, JsonSchema>): JsonSchema {
  const schema = { allOf: [ref("ErrorBody"), { type: "object", required: ["error"], properties: { error: { enum: codes } } }] };
  const examples = Object.fromEntries(codes.map((code) => [code, { value: { error: code, detail: ERROR_DETAILS[`${status}:${code}`] ?? ERROR_DETAILS[code] } }]));
  return { description: `${STATUS_TEXT[Number(status)]}: ${codes.map((c) => `\`${c}\``).join(", ")}.`, headers, content: { "application/json": { schema, examples } } };
}

/** Every request but GET /health counts towards a rate limit (http/rateLimit.ts). */
const rateLimited = (): Record<string, JsonSchema> => ({ 429: errorResponse("429", ["rate_limited"], LIMITED_RESPONSE_HEADERS) });

function errorResponses(errors: Errors, post: boolean): Record<string, JsonSchema> {
  const all: Errors = { ...errors, 429: ["rate_limited"], 500: ["internal"] };
  if (post) all[409] = [...(all[409] ?? []), "idempotency_key_reused", "idempotency_in_progress"];
  if (post) all[413] = ["bad_request"];
  const out: Record<string, JsonSchema> = {};
  for (const [status, codes] of Object.entries(all)) {
    out[status] = errorResponse(status, codes, status === "429" ? LIMITED_RESPONSE_HEADERS : post ? POST_RESPONSE_HEADERS : RESPONSE_HEADERS);
  }
  // Anything else (408 and 431 from the HTTP server, say) has the same body.
  out.default = { description: "Any other error, in the same shape.", headers: RESPONSE_HEADERS, content: { "application/json": { schema: ref("ErrorBody") } } };
  return out;
}

type Success = { status: number; description: string; schema: string; example: unknown; headers?: Record<string, JsonSchema> };

type OperationSpec = {
  method: "get" | "post";
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: "partner" | "public" | "service";
  /** A partner-API key is required. */
  key: boolean;
  parameters?: JsonSchema[];
  body?: { schema: string; example: unknown };
  success: Success[];
  errors: Errors;
  /** Not JSON: the answer's media type. */
  mediaType?: string;
};

const json = (status: number, description: string, schema: keyof typeof EXAMPLES, headers?: Record<string, JsonSchema>): Success => ({ status, description, schema, example: EXAMPLES[schema], headers });

const CAMPAIGN = "/api/v1/campaigns/{slug}";
const TAKES_WINNERS: StableErrorCode[] = ["not_found"];

/** Every operation, in docs/api.md's order. */
const OPERATIONS: OperationSpec[] = [
  {
    method: "get", path: "/api/v1/campaigns", operationId: "listCampaigns", summary: "List campaigns",
    description: "The caller's campaigns, newest first, a page at a time (default 20, at most 100): pass the answer's `next` as `after` until it is null.",
    tag: "partner", key: true,
    parameters: queryParameters(campaignsQuery, { status: "Only campaigns of this status; without it, every status.", limit: "Page size, 1 to 100; default 20.", after: "The previous page's `next`." }),
    success: [json(200, "A page of campaigns.", "CampaignList")], errors: { 400: ["bad_request"], 401: ["unauthorized"] },
  },
  {
    method: "get", path: CAMPAIGN, operationId: "getCampaign", summary: "Get a campaign", tag: "partner", key: true,
    parameters: [SLUG], success: [json(200, "The campaign.", "CampaignResponse")], errors: { 401: ["unauthorized"], 404: ["not_found"] },
  },
  {
    method: "get", path: `${CAMPAIGN}/drawings`, operationId: "listDrawings", summary: "List drawings",
    description: "At most 50, no paging: open drawings still taking a list (soonest cutoff first), open drawings whose cutoff passed without a list, then every other status, newest first.",
    tag: "partner", key: true,
    parameters: [SLUG, ...queryParameters(drawingsQuery, { status: "Only drawings of this status; without it, every status." })],
    success: [json(200, "The drawings.", "DrawingList")], errors: { 400: ["bad_request"], 401: ["unauthorized"], 404: ["not_found"] },
  },
  {
    method: "get", path: `${CAMPAIGN}/drawings/{id}`, operationId: "getDrawing", summary: "Get a drawing", tag: "partner", key: true,
    parameters: [SLUG, DRAWING_ID], success: [json(200, "The drawing.", "DrawingResponse")], errors: { 401: ["unauthorized"], 404: ["not_found"] },
  },
  {
    method: "post", path: `${CAMPAIGN}/drawings/{id}/winners`, operationId: "postWinners", summary: "Post winners (push campaigns)",
    description: "Before the cutoff any valid list replaces the stored one; after it, the same ids in the same order are accepted (names and avatars updated) and another list is `409 locked`.",
    tag: "partner", key: true, parameters: [SLUG, DRAWING_ID], body: { schema: "WinnersBody", example: { winners: [{ winner: "u-7f3a9c21", displayName: "Ada", avatarUrl: "https://example.com/ada.png" }, "u-02be41d8", "u-c4d5e6f0"] } },
    success: [json(201, "The first list: the drawing.", "DrawingResponse", POST_RESPONSE_HEADERS), json(200, "A list again: the drawing.", "DrawingResponse", POST_RESPONSE_HEADERS)],
    errors: { 400: ["bad_request"], 401: ["unauthorized"], 404: [...TAKES_WINNERS], 409: ["locked", "pull_campaign", "entries_campaign", "campaign_ended"] },
  },
  {
    method: "post", path: `${CAMPAIGN}/entries`, operationId: "postEntries", summary: "Post entries (entries campaigns)",
    description: "The entries go to the drawing whose cutoff is next. All or nothing: a request that fails stores none of its entries.",
    tag: "partner", key: true, parameters: [SLUG], body: { schema: "EntriesBody", example: { entries: ["e-1a2b3c4d", { entrantId: "e-4d5e6f7a", weight: 3, displayName: "Linus", avatarUrl: "https://example.com/l.png" }] } },
    success: [json(200, "What the request changed.", "EntriesResult", POST_RESPONSE_HEADERS)],
    errors: { 400: ["bad_request"], 401: ["unauthorized"], 404: ["not_found"], 409: ["not_entrants_campaign", "campaign_ended", "no_open_drawing", "not_taking_entries", "too_many_entrants"] },
  },
  {
    method: "get", path: `${CAMPAIGN}/entries`, operationId: "listEntries", summary: "List entries", tag: "partner", key: true,
    parameters: [SLUG, ...queryParameters(entriesQuery, { drawing: "A drawing id; without it, the drawing taking entries now.", limit: "1 to 1000, default 100.", after: "The previous page's `next`." })],
    success: [json(200, "A page of entrants.", "EntriesPage")],
    errors: { 400: ["bad_request"], 401: ["unauthorized"], 404: ["not_found"], 409: ["not_entrants_campaign", "no_open_drawing"] },
  },
  {
    method: "get", path: `${CAMPAIGN}/guarantees`, operationId: "listGuarantees", summary: "List guarantee periods", tag: "partner", key: true,
    parameters: [SLUG], success: [json(200, "The checked periods.", "GuaranteeList")], errors: { 401: ["unauthorized"], 404: ["not_found"] },
  },
  {
    method: "post", path: `${CAMPAIGN}/guarantees/{id}/pick`, operationId: "pickGuarantee", summary: "Pick a guarantee winner",
    description: "Not safe to repeat: a repeat of the same pick is `409 rejected`. After a timeout, read the guarantee list before retrying.",
    tag: "partner", key: true, parameters: [SLUG, pathParam("id", "The guarantee's id (`gtd_...`).")], body: { schema: "GuaranteePickBody", example: { winner: "u-02be41d8" } },
    success: [json(201, "Picked: the guarantee's payout.", "PickResult", POST_RESPONSE_HEADERS)],
    errors: { 400: ["bad_request", "rejected"], 401: ["unauthorized"], 404: ["not_found"], 409: ["rejected"] },
  },
  {
    method: "post", path: `${CAMPAIGN}/test-clock`, operationId: "moveTestClock", summary: "Move the test clock (test environment)",
    description: "Forward only, this campaign only, at most 100 years ahead of real time; drawings whose cutoff passed are drawn within seconds. In production this route does not exist (`404 not_found`).",
    tag: "partner", key: true, parameters: [SLUG], body: { schema: "TestClockBody", example: { advanceBy: "90m" } },
    success: [json(200, "The campaign's new time.", "TestClockResult", POST_RESPONSE_HEADERS)],
    errors: { 400: ["bad_request"], 401: ["unauthorized"], 404: ["not_found"] },
  },
  {
    method: "get", path: "/api/v1/openapi.json", operationId: "getOpenApiDocument", summary: "This document", tag: "service", key: false,
    success: [json(200, "The OpenAPI 3.1 document.", "OpenApiDocument")], errors: {},
  },
  {
    method: "get", path: "/campaigns/{slug}/draws.json", operationId: "getDraws", summary: "A campaign's draws (public)",
    description: "Newest draw time first, up to the next drawing. Cached for 15 seconds. A draft campaign is `404` like an unknown one.",
    tag: "public", key: false,
    parameters: [SLUG, ...queryParameters(drawsQuery, { limit: "1 to 100, default 30.", before: "A date (YYYY-MM-DD, the start of that day in the campaign's time zone) or an ISO time with an offset: the previous page's `nextBefore`." })],
    success: [json(200, "The campaign and a page of its draws.", "DrawsPage")], errors: { 400: ["bad_request"], 404: ["not_found"] },
  },
  {
    method: "get", path: "/campaigns/{slug}/draws/{id}/proof.json", operationId: "getProof", summary: "A draw's proof (public)",
    description: "Once drawn (stage drawn or paid); `404` before. A strong ETag; `Cache-Control: public, max-age=86400` once final, `no-cache` while provisional.",
    tag: "public", key: false,
    parameters: [SLUG, DRAWING_ID, { name: "If-None-Match", in: "header", required: false, description: "The ETag of a proof you hold.", schema: { type: "string" } }],
    success: [
      json(200, "The proof.", "Proof", { ...RESPONSE_HEADERS, ETag: { description: "Strong; changes with the proof.", schema: { type: "string" } } }),
      { status: 304, description: "Not modified: the ETag sent is the proof's.", schema: "", example: undefined, headers: RESPONSE_HEADERS },
    ],
    errors: { 404: ["not_found"], 409: ["proof_mismatch"] },
  },
  {
    method: "get", path: "/campaigns/{slug}", operationId: "getCampaignPage", summary: "A campaign's page (public, HTML)", tag: "public", key: false, mediaType: "text/html",
    parameters: [SLUG],
    success: [{ status: 200, description: "The page: odds, schedule, every draw with its winners, prizes and proof.", schema: "", example: undefined }],
    errors: {},
  },
  { method: "get", path: "/verify/verify-draw.mjs", operationId: "getVerifier", summary: "The verifier (docs/verifier.md)", tag: "public", key: false, mediaType: "text/javascript", success: [{ status: 200, description: "The script.", schema: "", example: undefined }], errors: {} },
  { method: "get", path: "/verify/SKILL.md", operationId: "getVerifierSkill", summary: "How an AI assistant checks draws", tag: "public", key: false, mediaType: "text/markdown", success: [{ status: 200, description: "The skill file.", schema: "", example: undefined }], errors: {} },
  { method: "get", path: "/terms", operationId: "getTerms", summary: "The service's terms", tag: "public", key: false, mediaType: "text/html", success: [{ status: 200, description: "The page.", schema: "", example: undefined }], errors: {} },
  { method: "get", path: "/privacy", operationId: "getPrivacy", summary: "The service's privacy page", tag: "public", key: false, mediaType: "text/html", success: [{ status: 200, description: "The page.", schema: "", example: undefined }], errors: {} },
  { method: "get", path: "/health", operationId: "getHealth", summary: "The process runs", tag: "service", key: false, success: [json(200, "Up.", "Health")], errors: {} },
  {
    method: "get", path: "/ready", operationId: "getReady", summary: "Ready to serve", tag: "service", key: false,
    description: "`{ ready }` for anyone; the detail (each part, and whether this process runs the keeper) with `Authorization: Bearer <METRICS_TOKEN>`, or in the test environment while no token is set.",
    success: [json(200, "Ready: the store is open, the chain answers, the indexer is within 5 blocks of it.", "Readiness"), json(503, "Not ready (with the detail, which part).", "Readiness")],
    errors: {},
  },
];

function operation(spec: OperationSpec): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  for (const s of spec.success) {
    const headers = s.headers ?? RESPONSE_HEADERS;
    if (spec.mediaType) responses[s.status] = { description: s.description, headers, content: { [spec.mediaType]: { schema: { type: "string" } } } };
    else if (!s.schema) responses[s.status] = { description: s.description, headers };
    else responses[s.status] = { description: s.description, headers, content: { "application/json": { schema: ref(s.schema), example: s.example } } };
  }
  Object.assign(responses, spec.key || spec.tag === "public" ? errorResponses(spec.errors, spec.method === "post") : spec.path === "/health" ? {} : rateLimited());
  if (spec.mediaType && spec.path === "/campaigns/{slug}") {
    // The page answers an unknown or draft campaign with an HTML page, not JSON.
    responses[404] = { description: "No such campaign (or a draft): an HTML page.", headers: RESPONSE_HEADERS, content: { "text/html": { schema: { type: "string" } } } };
  }
  const parameters = [
    ...(spec.parameters ?? []),
    ...(spec.method === "post" ? [{ $ref: "#/components/parameters/Idempotency-Key" }] : []),
    { $ref: "#/components/parameters/Request-Id" },
  ];
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    security: spec.key ? [{ apiKey: [] }] : [],
    parameters,
    ...(spec.body ? { requestBody: { required: true, content: { "application/json": { schema: ref(spec.body.schema), example: spec.body.example } } } } : {}),
    responses,
  };
}

const DESCRIPTION = [
  "The partner API (under `/api/v1`, with an API key) and the public endpoints (no key) of the prize draw service; docs/api.md explains each.",
  "Generated from the zod schemas the service validates requests with (api/src/lists/schemas.ts, api/src/http/schemas.ts) and those of its answers (api/src/http/responses.ts).",
  "",
  "- Paths are relative to the service's address (`PUBLIC_BASE_URL`; `http://127.0.0.1:8787` under `npm start`).",
  "- Unknown body fields and query parameters are refused (`400 bad_request`). Within v1 fields may be added to answers, never removed or renamed; `error` codes never change.",
  "- Every answer carries `Request-Id`; send your own to have it kept. Every POST takes an optional `Idempotency-Key`.",
  "- Length limits count Unicode code points; ids, names and avatar URLs are also refused for control characters (C0 and C1), invisible format characters (zero-width, direction marks, bidirectional overrides and isolates), line and paragraph separators and lone surrogates (docs/api.md, Characters in ids and names), which these schemas do not express.",
  "- Errors are `{ error, detail }`; besides the statuses listed, the HTTP server answers `408` (the request did not arrive in time) and `431` (request line and headers over 16 KB) with `bad_request`.",
  "- Rate limits: per API key and per client address; over one, `429 rate_limited` with `Retry-After` (whole seconds) and nothing done (docs/api.md, Limits).",
].join("\n");

export function buildOpenApiDocument(): OpenApiDocument {
  const paths: OpenApiDocument["paths"] = {};
  for (const spec of OPERATIONS) (paths[spec.path] ??= {})[spec.method] = operation(spec);
  return {
    openapi: "3.1.0",
    info: { title: "Prize Draw Service", version: "1", description: DESCRIPTION },
    tags: [
      { name: "partner", description: "The partner API: an API key, your own campaigns only." },
      { name: "public", description: "No key; the JSON endpoints allow any origin." },
      { name: "service", description: "The service itself." },
    ],
    paths,
    components: {
      schemas: { ...components(requestRegistry, "input"), ...components(responseRegistry, "output") },
      parameters: {
        "Idempotency-Key": {
          name: "Idempotency-Key", in: "header", required: false,
          description: "Retry a POST safely: the same key with the same request gets the first answer again (24 hours); with another request, `409 idempotency_key_reused`.",
          schema: { type: "string", pattern: "^[\\x21-\\x7e]{1,255}$" }, example: "5f0c9a8e-2b1d-4c3e-9f7a-1d2e3f4a5b6c",
        },
        "Request-Id": {
          name: "Request-Id", in: "header", required: false,
          description: "Your own request id, kept when well formed (else the service makes one).",
          schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{8,128}$" },
        },
      },
      headers: {
        "Request-Id": { description: "The request's id (yours, or `req_...`): quote it to support.", schema: { type: "string" } },
        "Idempotent-Replayed": { description: "`true` when this is the stored answer to an earlier request with the same Idempotency-Key.", schema: { type: "string", enum: ["true"] } },
        "Retry-After": { description: "Whole seconds to wait before the request can pass the limit.", schema: { type: "integer", minimum: 1 } },
      },
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", bearerFormat: "pd_test_... or pd_live_...", description: "`Authorization: Bearer <key>`: test keys work only in the test environment, live keys only in production." },
      },
    },
  };
}

let built: { document: OpenApiDocument; json: string } | undefined;

function memo() {
  if (!built) {
    const document = buildOpenApiDocument();
    built = { document, json: `${JSON.stringify(document, null, 2)}\n` };
  }
  return built;
}

/** The document, built once per process. */
export function openApiDocument(): OpenApiDocument {
  return memo().document;
}

/** The document as api/openapi.json holds it: two-space indented, keys in the order built, a final newline. */
export function openApiJson(): string {
  return memo().json;
}
