// Partner integration on the real stack: Idempotency-Key on POSTs (a replay answers the first answer and
// changes nothing; the same key with another request is 409 idempotency_key_reused; identical requests sent together
// run once) and Request-Id (on every response, a client's well-formed id kept, the service's log lines carry it).

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAccount, type Stack } from "../support/stack.js";
import { useStack } from "../support/suite.js";
import { campaignWithOpenDrawing, getDrawing } from "../support/partner.js";
import { until } from "../support/processes.js";

let stack: Stack;
let accountId: string;
let key: string;

type Answer = { status: number; body: Record<string, unknown>; headers: Headers };

async function post(route: string, body: unknown, headers: Record<string, string> = {}, withKey = key): Promise<Answer> {
  const response = await fetch(`${stack.baseUrl}${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${withKey}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

async function winnersOf(slug: string, id: string): Promise<string[]> {
  return (await getDrawing(stack, key, slug, id, { check: false })).winners.map((w) => w.winner);
}

/** A push campaign with two winners a draw, activated; answers its first open drawing's id. */
const campaign = async (slug: string) => (await campaignWithOpenDrawing(stack, { accountId, key }, slug, { winners: 2 })).id;

useStack("idem@example.com", (started) => ({ stack, accountId, key } = started));

describe("Idempotency-Key", () => {
  it("replays the first answer for the same key and request, and changes nothing", async () => {
    const id = await campaign("idem-replay");
    const route = `/api/v1/campaigns/idem-replay/drawings/${id}/winners`;
    const first = await post(route, { winners: ["a-1", "a-2"] }, { "Idempotency-Key": "replay-key-1" });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    // Meanwhile the list is replaced by a request without the key: a replay must not bring the old list back.
    expect((await post(route, { winners: ["b-1", "b-2"] })).status).toBe(200); // 200: a list replaced
    const again = await post(route, { winners: ["a-1", "a-2"] }, { "Idempotency-Key": "replay-key-1" });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await winnersOf("idem-replay", id)).toEqual(["b-1", "b-2"]);
  });

  it("replays a refusal too: a bad request with a key gets the same 400 again", async () => {
    const id = await campaign("idem-refusal");
    const route = `/api/v1/campaigns/idem-refusal/drawings/${id}/winners`;
    const first = await post(route, { winners: ["only-one", "only-one"] }, { "Idempotency-Key": "refusal-key" });
    expect(first.status).toBe(400);
    const again = await post(route, { winners: ["only-one", "only-one"] }, { "Idempotency-Key": "refusal-key" });
    expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([400, "true"]);
    expect(again.body).toEqual(first.body);
    expect(await winnersOf("idem-refusal", id)).toEqual([]);
  });

  it("answers 409 idempotency_key_reused for the same key with another body or path, and changes nothing", async () => {
    const id = await campaign("idem-conflict");
    const route = `/api/v1/campaigns/idem-conflict/drawings/${id}/winners`;
    expect((await post(route, { winners: ["c-1", "c-2"] }, { "Idempotency-Key": "conflict-key" })).status).toBe(201);
    const otherBody = await post(route, { winners: ["d-1", "d-2"] }, { "Idempotency-Key": "conflict-key" });
    expect(otherBody.status).toBe(409);
    expect(otherBody.body).toMatchObject({ error: "idempotency_key_reused" });
    expect(typeof otherBody.body.detail).toBe("string");
    const otherPath = await post("/api/v1/campaigns/idem-conflict/test-clock", { advanceBy: "1m" }, { "Idempotency-Key": "conflict-key" });
    expect([otherPath.status, otherPath.body.error]).toEqual([409, "idempotency_key_reused"]);
    expect(await winnersOf("idem-conflict", id)).toEqual(["c-1", "c-2"]);
  });

  it("runs identical requests sent together once: one first answer, the others replay it", async () => {
    const id = await campaign("idem-concurrent");
    const route = `/api/v1/campaigns/idem-concurrent/drawings/${id}/winners`;
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(route, { winners: ["e-1", "e-2"] }, { "Idempotency-Key": "concurrent-key" })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === null)).toHaveLength(1);
    for (const a of answers) expect(a.body).toEqual(answers[0]!.body);
    expect(await winnersOf("idem-concurrent", id)).toEqual(["e-1", "e-2"]);
  });

  it("refuses a malformed key with 400 and keeps keys per account", async () => {
    const id = await campaign("idem-format");
    const route = `/api/v1/campaigns/idem-format/drawings/${id}/winners`;
    const bad = await post(route, { winners: ["f-1", "f-2"] }, { "Idempotency-Key": "has spaces in it" });
    expect([bad.status, bad.body.error]).toEqual([400, "bad_request"]);
    expect(await winnersOf("idem-format", id)).toEqual([]);
    // Another account's same key is its own: no conflict, no replay of this account's answer.
    const other = await createAccount(stack, "idem-other@example.com");
    const otherOpen = await campaignWithOpenDrawing(stack, other, "idem-other", { name: "other", winners: 1 });
    expect((await post(route, { winners: ["g-1", "g-2"] }, { "Idempotency-Key": "shared-key" })).status).toBe(201);
    const theirs = await post(`/api/v1/campaigns/idem-other/drawings/${otherOpen.id}/winners`, { winners: ["h-1"] }, { "Idempotency-Key": "shared-key" }, other.key);
    expect([theirs.status, theirs.headers.get("idempotent-replayed")]).toEqual([201, null]);
  });
});

describe("Request-Id", () => {
  it("is on every response, keeps a client's well-formed id, replaces a malformed one, and the log lines carry it", async () => {
    const own = await fetch(`${stack.baseUrl}/api/v1/campaigns/nope`, { headers: { authorization: `Bearer ${key}`, "Request-Id": "client-req-0001" } });
    expect(own.status).toBe(404);
    expect(own.headers.get("request-id")).toBe("client-req-0001");
    const made = await fetch(`${stack.baseUrl}/health`);
    expect(made.headers.get("request-id")).toMatch(/^req_[0-9a-z]{26}$/);
    const malformed = await fetch(`${stack.baseUrl}/api/v1/campaigns`, { headers: { "Request-Id": "bad id with spaces" } });
    expect(malformed.status).toBe(401);
    const replaced = malformed.headers.get("request-id")!;
    expect(replaced).toMatch(/^req_[0-9a-z]{26}$/);
    // The service's output reaches service.log through a pipe and this process's file stream, a moment after the
    // answer: wait for the two access lines (a liveness bound), then check them.
    const readLog = () => readFileSync(path.join(stack.dataDir, "service.log"), "utf8").split("\n");
    const lineOf = (log: string[], id: string) => log.filter((l) => l.includes(`"requestId":"${id}"`)).map((l) => JSON.parse(l) as { msg: string; status?: number; path?: string });
    const log = await until(
      "both access lines in service.log",
      async () => {
        const lines = readLog();
        return lineOf(lines, "client-req-0001").some((l) => l.msg === "request") && lineOf(lines, replaced).some((l) => l.msg === "request") ? lines : undefined;
      },
      10_000,
    );
    expect(lineOf(log, "client-req-0001")).toContainEqual(expect.objectContaining({ msg: "request", status: 404, path: "/api/v1/campaigns/nope" }));
    expect(lineOf(log, replaced)).toContainEqual(expect.objectContaining({ msg: "request", status: 401 }));
    expect(log.some((l) => l.includes("bad id with spaces"))).toBe(false);
  });
});
