// Ids and names refuse control characters (C0 and C1) and invisible format characters (zero-width characters,
// direction marks, bidirectional overrides and isolates, line and paragraph separators, the byte order mark, tag
// characters outside an emoji flag), whatever door they come in by: the partner lists (POST entries, POST winners,
// a pulled list), the other API bodies (a guarantee pick), and the portal's and the CLI's email addresses. A
// refusal is 400 `{ error, detail }` whose detail names the field, the code point and its position, and it writes
// nothing. Emoji joined by a zero-width joiner and subdivision flags stay accepted, stored exactly as sent.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { guaranteePickBody } from "../../api/src/http/schemas.js";
import { describeZodError, entriesBody, winnersBody } from "../../api/src/lists/schemas.js";
import { interpretList } from "../../api/src/pull/fetcher.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import type { Store } from "../../api/src/store/index.js";
import { signIn, type PortalClient } from "../support/portalClient.js";
import { openDrawings } from "../support/partner.js";
import { TEST_WALLET, api, createAccount, startStack, type Stack } from "../support/stack.js";

/** The penetration test's entrant id: CSI sequences (clear the screen, red text) in C1 controls, then NEL. */
const PEN_TEST_ID = "\u009b2J\u009b31mPWNED\u0085";

/** Refused text: the code point the detail must name, at which character (1-based, counted in code points). */
const REFUSED: { label: string; text: string; codePoint: string; at: number; kind: RegExp }[] = [
  { label: "the penetration test's id (C1 CSI U+009B)", text: PEN_TEST_ID, codePoint: "U+009B", at: 1, kind: /control characters/ },
  { label: "a C1 next line U+0085 at the end", text: "abc\u0085", codePoint: "U+0085", at: 4, kind: /control characters/ },
  { label: "a C0 control U+0001", text: "a\u0001b", codePoint: "U+0001", at: 2, kind: /control characters/ },
  { label: "an escape U+001B", text: "\u001b[2J", codePoint: "U+001B", at: 1, kind: /control characters/ },
  { label: "a zero-width space U+200B", text: "ab\u200Bc", codePoint: "U+200B", at: 3, kind: /format characters/ },
  { label: "a zero-width non-joiner U+200C", text: "a\u200Cb", codePoint: "U+200C", at: 2, kind: /format characters/ },
  { label: "a zero-width joiner between letters U+200D", text: "a\u200Db", codePoint: "U+200D", at: 2, kind: /format characters/ },
  { label: "a left-to-right mark U+200E", text: "\u200Eabc", codePoint: "U+200E", at: 1, kind: /format characters/ },
  { label: "a right-to-left mark U+200F", text: "rlm-\u200Fabc", codePoint: "U+200F", at: 5, kind: /format characters/ },
  { label: "an Arabic letter mark U+061C", text: "x\u061C", codePoint: "U+061C", at: 2, kind: /format characters/ },
  { label: "a soft hyphen U+00AD", text: "in\u00ADvisible", codePoint: "U+00AD", at: 3, kind: /format characters/ },
  { label: "a line separator U+2028", text: "two\u2028lines", codePoint: "U+2028", at: 4, kind: /format characters/ },
  { label: "a paragraph separator U+2029", text: "two\u2029paragraphs", codePoint: "U+2029", at: 4, kind: /format characters/ },
  { label: "a word joiner U+2060", text: "a\u2060b", codePoint: "U+2060", at: 2, kind: /format characters/ },
  { label: "a byte order mark U+FEFF", text: "\uFEFFbom", codePoint: "U+FEFF", at: 1, kind: /format characters/ },
  { label: "a tag character U+E0041 outside a flag", text: "🎉a\u{E0041}", codePoint: "U+E0041", at: 3, kind: /format characters/ },
  { label: "a right-to-left override U+202E", text: "rlo-\u202Egpj.exe", codePoint: "U+202E", at: 5, kind: /bidirectional/ },
  { label: "a pop directional isolate U+2069", text: "x\u2069", codePoint: "U+2069", at: 2, kind: /bidirectional/ },
];

/** Accepted text, stored and answered exactly as sent: emoji sequences use U+200D and tag characters legitimately. */
const ACCEPTED: { label: string; text: string }[] = [
  { label: "a family emoji joined by U+200D", text: "fam-👨‍👩‍👧-1" },
  { label: "a rainbow flag (U+FE0F, U+200D)", text: "🏳️‍🌈" },
  { label: "a technologist with a skin tone (U+1F3FD, U+200D)", text: "👩🏽‍💻" },
  { label: "the flag of England (tag characters after U+1F3F4)", text: "🏴󠁧󠁢󠁥󠁮󠁧󠁿 fan" },
  { label: "letters of several scripts", text: "Ölçü-漢字-رابح" },
  { label: "a combining accent", text: "e\u0301" },
];

/** The one-line refusal a schema gives for `value`, or null when it accepts. */
function refusal<T extends z.ZodType>(schema: T, value: unknown): string | null {
  const parsed = schema.safeParse(value);
  return parsed.success ? null : describeZodError(parsed.error);
}

describe("the list and body schemas (the rule every door shares)", () => {
  const doors: { label: string; schema: z.ZodType; body: (text: string) => unknown; field: string }[] = [
    { label: "POST entries, entrantId", schema: entriesBody, body: (t) => ({ entries: ["ok-1", { entrantId: t }] }), field: "entries[1].entrantId" },
    { label: "POST entries, a bare id", schema: entriesBody, body: (t) => ({ entries: [t] }), field: "entries[0].entrantId" },
    { label: "POST entries, displayName", schema: entriesBody, body: (t) => ({ entries: [{ entrantId: "ok-1", displayName: t }] }), field: "entries[0].displayName" },
    { label: "POST entries, avatarUrl", schema: entriesBody, body: (t) => ({ entries: [{ entrantId: "ok-1", avatarUrl: `https://example.com/${t}.png` }] }), field: "entries[0].avatarUrl" },
    { label: "POST winners, winner", schema: winnersBody, body: (t) => ({ winners: ["ok-1", t] }), field: "winners[1].winner" },
    { label: "POST winners, displayName", schema: winnersBody, body: (t) => ({ winners: [{ winner: "ok-1", displayName: t }] }), field: "winners[0].displayName" },
    { label: "guarantee pick, winner", schema: guaranteePickBody, body: (t) => ({ winner: t }), field: "winner" },
  ];

  for (const door of doors) {
    it(`${door.label}: refuses each character with the field, the code point and its position`, () => {
      for (const c of REFUSED) {
        const detail = refusal(door.schema, door.body(c.text));
        expect(detail, c.label).not.toBeNull();
        expect(detail, c.label).toMatch(c.kind);
        // The avatar URL's text sits after "https://example.com/" (20 characters).
        const at = door.field.endsWith("avatarUrl") ? c.at + 20 : c.at;
        expect(detail, c.label).toBe(`${door.field}: ${detail!.slice(door.field.length + 2)}`);
        expect(detail, c.label).toContain(`${c.codePoint} at character ${at}`);
      }
    });
  }

  it("accepts emoji sequences and letters, unchanged, in ids and names", () => {
    for (const c of ACCEPTED) {
      const parsed = entriesBody.safeParse({ entries: [{ entrantId: c.text, displayName: c.text.slice(0, 40) }] });
      expect(parsed.success, c.label).toBe(true);
      expect(parsed.data!.entries[0]).toMatchObject({ entrantId: c.text });
      expect(winnersBody.safeParse({ winners: [c.text] }).success, c.label).toBe(true);
    }
  });

  it("a pulled list goes through the same rule", () => {
    const outcome = interpretList(JSON.stringify({ winners: ["ok-1", PEN_TEST_ID] }), 2);
    expect(outcome).toMatchObject({ kind: "invalid" });
    expect(JSON.stringify(outcome)).toContain("winners[1].winner");
    expect(JSON.stringify(outcome)).toContain("U+009B at character 1");
    expect(interpretList(JSON.stringify({ winners: ["ok-1", "fam-👨‍👩‍👧-1"] }), 2)).toMatchObject({ kind: "list" });
  });
});

describe("on the stack", () => {
  let stack: Stack;
  let store: Store;
  let key: string;
  let accountId: string;
  let owner: PortalClient;
  const OWNER = "owner@example.com";

  beforeAll(async () => {
    stack = await startStack();
    ({ accountId, key } = await createAccount(stack, OWNER));
    store = await openServiceStore(stack.storeLocation);
    await stack.cli("campaign", "create", "--account", accountId, "--slug", "tc-entries", "--name", "Text entries", "--mode", "entries", "--cadence", "daily", "--winners", "3", "--payout-wallet", TEST_WALLET);
    await stack.cli("campaign", "activate", "tc-entries");
    await stack.cli("campaign", "create", "--account", accountId, "--slug", "tc-push", "--name", "Text push", "--mode", "push", "--cadence", "daily", "--winners", "2", "--payout-wallet", TEST_WALLET);
    await stack.cli("campaign", "activate", "tc-push");
    owner = await signIn(stack, OWNER);
  }, 240_000);

  afterAll(async () => {
    await store?.close();
    await stack?.stop();
  });

  const entryCount = async () => (await api(stack, "GET", "/api/v1/campaigns/tc-entries/entries", { key })).body.count;

  it("POST entries: the penetration test's id is 400 bad_request naming the field and U+009B, and nothing is stored", async () => {
    const r = await api(stack, "POST", "/api/v1/campaigns/tc-entries/entries", { key, body: { entries: ["ok-1", { entrantId: PEN_TEST_ID }] } });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(Object.keys(r.body).sort()).toEqual(["detail", "error"]);
    expect(r.body.error).toBe("bad_request");
    expect(r.body.detail).toBe("entries[1].entrantId: must not contain control characters: U+009B at character 1");
    expect(await entryCount()).toBe(0);
  });

  it("POST entries: every refused character, in an id or a name, is 400 and stores nothing", async () => {
    for (const c of REFUSED) {
      for (const entry of [{ entrantId: c.text }, { entrantId: "ok-2", displayName: c.text }]) {
        const r = await api(stack, "POST", "/api/v1/campaigns/tc-entries/entries", { key, body: { entries: ["ok-1", entry] } });
        expect(r.status, `${c.label}: ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body.error).toBe("bad_request");
        expect(String(r.body.detail), c.label).toContain(`${c.codePoint} at character ${c.at}`);
      }
    }
    expect(await entryCount()).toBe(0);
  });

  it("POST entries: emoji sequences and letters are accepted and answered exactly as sent", async () => {
    const r = await api(stack, "POST", "/api/v1/campaigns/tc-entries/entries", { key, body: { entries: ACCEPTED.map((c) => ({ entrantId: c.text, displayName: c.text })) } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const page = (await api(stack, "GET", "/api/v1/campaigns/tc-entries/entries", { key })).body as { entries: { entrantId: string; displayName: string | null }[] };
    expect(page.entries.map((e) => [e.entrantId, e.displayName])).toEqual(ACCEPTED.map((c) => [c.text, c.text]));
  });

  it("POST winners: a hidden character in a winner id is 400 naming it, and the drawing keeps no list", async () => {
    const [drawing] = await openDrawings<{ id: string }>(stack, key, "tc-push");
    expect(drawing).toBeDefined();
    const route = `/api/v1/campaigns/tc-push/drawings/${drawing!.id}/winners`;
    const r = await api(stack, "POST", route, { key, body: { winners: ["w-1", "w-\u200Bhidden"] } });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body).toEqual({ error: "bad_request", detail: "winners[1].winner: must not contain invisible format characters: U+200B at character 3" });
    const read = await api(stack, "GET", `/api/v1/campaigns/tc-push/drawings/${drawing!.id}`, { key });
    expect((read.body.drawing as { winners: unknown[] }).winners).toEqual([]);
  });

  it("the portal's invite refuses an address with a C1 control, and adds no one", async () => {
    const before = await store.accounts.members(accountId);
    const team = await owner.get("/portal/team");
    expect(team.status).toBe(200);
    const reply = await owner.post("/portal/team/invite", { email: "new\u0085member@example.com", role: "member" });
    expect(reply.status).toBe(400);
    expect(reply.text).toContain("email must not contain control characters: U+0085 at character 4");
    expect(await store.accounts.members(accountId)).toEqual(before);
  });

  it("the CLI's member add refuses an address with a zero-width space, and adds no one", async () => {
    const before = await store.accounts.members(accountId);
    const failed = await stack.cli("member", "add", "--account", accountId, "--email", "zw\u200Bsp@example.com").then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failed).toMatch(/email must not contain invisible format characters: U\+200B at character 3/);
    expect(await store.accounts.members(accountId)).toEqual(before);
  });

  it("a campaign name with a C1 control is refused, and no campaign is made", async () => {
    const failed = await stack
      .cli("campaign", "create", "--account", accountId, "--slug", "tc-name", "--name", "Big\u009b2J draw", "--mode", "push", "--cadence", "daily", "--winners", "2", "--payout-wallet", TEST_WALLET)
      .then(
        () => null,
        (error: Error) => error.message,
      );
    expect(failed).toMatch(/name must not contain control characters: U\+009B at character 4/);
    expect(await store.campaigns.bySlug("tc-name")).toBeNull();
  });
});
