// Alerts that reach a person, on the real stack: the service mails ALERT_EMAIL through a real SMTP server (the test's
// catcher) and POSTs the operator webhook (a local http server, which PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK lets it
// reach), each notice signed as partner webhooks are and checked with the partners' verifier. A push drawing left
// without a list 31 minutes past its cutoff, and a pull campaign whose URL fails in the last 5 minutes before its
// cutoff, each give exactly one alert mail and one webhook, then a reminder (PRIZEDRAW_ALERT_REMIND_SECONDS), then a
// resolution when the condition clears (a later cutoff; the URL answering). A keeper lease taken away, and the
// operator's gas money below ALERT_GAS_MIN_WEI, are told and resolved too. `prizedraw alerts list` shows it all.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "@prizedraw/client";
import { ANVIL_KEYS } from "../../api/src/config.js";
import type { NoticeBody } from "../../api/src/notify/notices.js";
import { openStore } from "../../api/src/store/index.js";
import { generateSecret } from "../../api/src/webhooks/signature.js";
import { jsonRpc, sleep, until } from "../support/processes.js";
import { activeCampaign, campaignWithOpenDrawing, clockTo, openDrawings } from "../support/partner.js";
import { startSmtp, type CaughtMail, type SmtpCatcher } from "../support/smtp.js";
import { createAccount, startStack, type Stack } from "../support/stack.js";

const STAFF = "staff@example.com";
const SECRET = generateSecret();
const REMIND_SECONDS = 4;
const MIN = 60_000;

type Received = { id: string; timestamp: string; signature: string; body: string; event: NoticeBody };

let stack: Stack;
let smtp: SmtpCatcher;
let hooks: http.Server;
let lists: http.Server;
/** The partner's winners URL server: http://127.0.0.1:PORT. */
let listsBase: string;
let accountId: string;
let key: string;
/** Every operator webhook received, in arrival order. */
const received: Received[] = [];
/** What the partner's winners URL answers, per drawing id (500 when unset). */
const answers = new Map<string, { status: number; body: unknown }>();

/** The notice kind of a mail, from its subject: ALERT, REMINDER or RESOLVED. */
const mailKind = (m: CaughtMail): string => /\] (ALERT|REMINDER|RESOLVED)\b/.exec(m.subject)?.[1] ?? "?";
/** The staff's mails whose subject names `subject` (a drawing id, or a summary's words), as kinds in arrival order. */
const mailsAbout = (subject: string): string[] => smtp.to(STAFF).filter((m) => m.subject.includes(subject)).map(mailKind);
/** The webhooks about alert `key`, as types in arrival order. */
const hooksAbout = (key: string): Received[] => received.filter((r) => r.event.data.alert.key === key);

/** Waits until the notices about an alert are `kinds` by mail and `types` by webhook, at least. */
async function waitNotices(mailSubject: string, alertKey: string, kinds: string[]): Promise<void> {
  const types = kinds.map((k) => `alert.${k === "ALERT" ? "opened" : k.toLowerCase()}`);
  await until(
    `${kinds.join(", ")} about ${alertKey}`,
    async () => (mailsAbout(mailSubject).join() === kinds.join() && hooksAbout(alertKey).map((r) => r.event.type).join() === types.join() ? true : undefined),
    60_000,
    100,
  );
}

/** Every webhook received verifies with the secret, as a partner verifies its own. */
function expectSigned(requests: readonly Received[]): void {
  for (const r of requests) {
    expect(verifyWebhook(SECRET, { "webhook-id": r.id, "webhook-timestamp": r.timestamp, "webhook-signature": r.signature }, r.body)).toMatchObject({ id: r.id, type: r.event.type });
  }
  expect(new Set(requests.map((r) => r.id)).size).toBe(requests.length);
}

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

beforeAll(async () => {
  smtp = await startSmtp();
  hooks = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ id: String(req.headers["webhook-id"]), timestamp: String(req.headers["webhook-timestamp"]), signature: String(req.headers["webhook-signature"]), body, event: JSON.parse(body) as NoticeBody });
      res.writeHead(204).end();
    });
  });
  lists = http.createServer((req, res) => {
    const id = /\/winners\/(drw_[a-z0-9]+)/.exec(req.url ?? "")?.[1] ?? "";
    const answer = answers.get(id) ?? { status: 500, body: { error: "down" } };
    res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
  });
  const [hooksPort, listsPort] = [await listen(hooks), await listen(lists)];
  listsBase = `http://127.0.0.1:${listsPort}`;
  stack = await startStack({
    extraEnv: {
      SMTP_URL: smtp.url,
      ALERT_EMAIL: STAFF,
      ALERT_WEBHOOK_URL: `http://127.0.0.1:${hooksPort}/ops/alerts`,
      ALERT_WEBHOOK_SECRET: SECRET,
      PRIZEDRAW_ALERT_REMIND_SECONDS: String(REMIND_SECONDS),
      PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK: "true",
    },
  });
  ({ accountId, key } = await createAccount(stack, "alerts@example.com"));
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await smtp?.close();
  for (const server of [hooks, lists]) {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  }
});

describe("alerts", () => {
  it("a drawing stuck past the threshold: one alert mail and one signed webhook, a reminder, and a resolution when its cutoff moves", async () => {
    const drawing = await campaignWithOpenDrawing(stack, { accountId, key }, "stuck-push");
    const alertKey = `drawing_stuck:${drawing.id}`;
    const cutoff = Date.parse(drawing.cutoffAt);
    // No list at the cutoff: the keeper flags it; 31 minutes on (the default threshold is 30) it is stuck.
    await clockTo(stack, key, "stuck-push", cutoff + 31 * MIN);
    await waitNotices(drawing.id, alertKey, ["ALERT"]);
    const [opened] = hooksAbout(alertKey);
    expect(opened!.event.data.alert).toMatchObject({ kind: "drawing_stuck", severity: "critical", campaign: "stuck-push", drawingId: drawing.id, reminders: 0, resolvedAt: null });
    expect(opened!.event.data.alert.detail).toMatch(/^open since .*; its note: no winners at the cutoff/);
    const mail = smtp.to(STAFF).find((m) => m.subject.includes(drawing.id))!;
    expect(mail.subject).toBe(`[prizedraw] ALERT critical: drawing ${drawing.id} of stuck-push is stuck open`);
    expect(mail.text).toContain(`What to do: `);

    await waitNotices(drawing.id, alertKey, ["ALERT", "REMINDER"]);
    // The operator moves the cutoff (the partner then sends the list): the condition clears.
    await stack.cli("drawing", "extend-cutoff", "stuck-push", drawing.id, "--to", new Date(cutoff + 24 * 60 * MIN).toISOString());
    await until("resolved", async () => (mailsAbout(drawing.id).at(-1) === "RESOLVED" && hooksAbout(alertKey).at(-1)?.event.type === "alert.resolved" ? true : undefined), 30_000, 100);
    // Nothing more once resolved.
    await sleep((REMIND_SECONDS + 1) * 1_000);
    const kinds = mailsAbout(drawing.id);
    expect(kinds.filter((k) => k === "ALERT")).toHaveLength(1);
    expect(kinds.filter((k) => k === "REMINDER").length).toBeGreaterThanOrEqual(1);
    expect(kinds.at(-1)).toBe("RESOLVED");
    expect(kinds.filter((k) => k === "RESOLVED")).toHaveLength(1);
    expect(hooksAbout(alertKey).map((r) => r.event.type)).toEqual(kinds.map((k) => `alert.${k === "ALERT" ? "opened" : k.toLowerCase()}`));
    expectSigned(hooksAbout(alertKey));
  });

  it("a pull URL failing in the last 5 minutes: one alert mail and one signed webhook, a reminder, and a resolution when it answers", async () => {
    const base = listsBase;
    await activeCampaign(stack, accountId, "pull-fail", { mode: "pull", winners: 2, flags: ["--pull-url", `${base}/winners/{drawingId}`] });
    const open = (await openDrawings(stack, key, "pull-fail")).find((d) => Date.parse(d.cutoffAt) - Date.now() > 10 * MIN)!;
    const alertKey = `pull_failing:${open.id}`;
    const cutoff = Date.parse(open.cutoffAt);
    // The last fetch slot, 4 minutes before the cutoff, and the URL answers 500.
    await clockTo(stack, key, "pull-fail", cutoff - 4 * MIN);
    await waitNotices(open.id, alertKey, ["ALERT"]);
    const [opened] = hooksAbout(alertKey);
    expect(opened!.event.data.alert).toMatchObject({ kind: "pull_failing", severity: "critical", campaign: "pull-fail", drawingId: open.id });
    expect(opened!.event.data.alert.detail).toMatch(/4 min before the cutoff .* gave an error: HTTP 500/);
    await waitNotices(open.id, alertKey, ["ALERT", "REMINDER"]);

    // A minute more: the failed fetch is still within 5 minutes of the new cutoff, so the alert stays until the URL
    // answers at the new last slot.
    await stack.cli("drawing", "extend-cutoff", "pull-fail", open.id, "--to", new Date(cutoff + MIN).toISOString());
    answers.set(open.id, { status: 200, body: { winners: ["w-1", "w-2"] } });
    await sleep(2_000);
    expect(mailsAbout(open.id)).not.toContain("RESOLVED");
    await clockTo(stack, key, "pull-fail", cutoff - 3 * MIN);
    await until("resolved", async () => (mailsAbout(open.id).at(-1) === "RESOLVED" && hooksAbout(alertKey).at(-1)?.event.type === "alert.resolved" ? true : undefined), 30_000, 100);
    expect(((await stack.cli("drawing", "fetches", "pull-fail", open.id)).fetches as { outcome: string }[]).map((f) => f.outcome)).toEqual(["error", "stored"]);
    const kinds = mailsAbout(open.id);
    expect(kinds.filter((k) => k === "ALERT")).toHaveLength(1);
    expect(kinds.filter((k) => k === "REMINDER").length).toBeGreaterThanOrEqual(1);
    expect(kinds.filter((k) => k === "RESOLVED")).toHaveLength(1);
    expectSigned(hooksAbout(alertKey));

    // The CLI lists the staff alert and the history; nothing anywhere holds the URL.
    const listed = await stack.cli("alerts", "list");
    expect(listed.alerts).toContainEqual(expect.objectContaining({ kind: "pull_url_failing", campaignSlug: "pull-fail", drawingId: open.id }));
    const history = listed.history as { key: string; resolvedAt: string | null; reminders: number; notices: { type: string; mail: string; webhook: string }[] }[];
    const entry = history.find((h) => h.key === alertKey)!;
    expect(entry.resolvedAt).not.toBeNull();
    expect(entry.notices.map((n) => [n.type, n.mail, n.webhook])).toEqual([
      ["alert.opened", "sent", "sent"],
      ...Array.from({ length: entry.reminders }, () => ["alert.reminder", "sent", "sent"]),
      ["alert.resolved", "sent", "sent"],
    ]);
    for (const text of [...smtp.mails.map((m) => m.raw), ...received.map((r) => r.body)]) expect(text).not.toContain(base);
  });

  it("a keeper lease taken away: told by the process that lost it, resolved once it runs the keeper again", async () => {
    const store = await openStore(stack.storeLocation, { create: false });
    try {
      // Another holder takes the lease for 6 seconds (as if the service's had run out).
      expect(await store.leases.acquire("keeper", "elsewhere:1:000000", Date.now(), 6_000, () => true)).toBe(true);
    } finally {
      await store.close();
    }
    await until("lease_lost told", async () => received.find((r) => r.event.data.alert.kind === "lease_lost" && r.event.type === "alert.opened"), 30_000, 100);
    const alertKey = received.find((r) => r.event.data.alert.kind === "lease_lost")!.event.data.alert.key;
    expect(alertKey).toMatch(/^lease_lost:.+:\d+:[0-9a-f]{12}$/);
    // Mail goes through the SMTP queue: it may arrive after the webhook.
    await waitNotices("keeper lease", alertKey, ["ALERT", "RESOLVED"]);
    expectSigned(hooksAbout(alertKey));
  });

  it("the operator's gas money below ALERT_GAS_MIN_WEI: told, and resolved once it is topped up", async () => {
    const operator = privateKeyToAccount(ANVIL_KEYS.operator).address;
    const balance = BigInt(await jsonRpc<string>(stack.rpcUrl, "eth_getBalance", [operator, "latest"]));
    stack.env.ALERT_GAS_MIN_WEI = String(balance * 2n);
    await stack.restartService();
    await until("gas_low told", async () => (hooksAbout("gas_low").length > 0 ? true : undefined), 60_000, 100);
    await jsonRpc(stack.rpcUrl, "anvil_setBalance", [operator, `0x${(balance * 4n).toString(16)}`]);
    await until("gas_low resolved", async () => (hooksAbout("gas_low").at(-1)?.event.type === "alert.resolved" && mailsAbout("gas money").at(-1) === "RESOLVED" ? true : undefined), 60_000, 100);
    expect(hooksAbout("gas_low")[0]!.event.data.alert).toMatchObject({ severity: "warning", summary: "the operator account is running out of gas money" });
    expect(mailsAbout("gas money").filter((k) => k === "ALERT")).toHaveLength(1);
    expectSigned(hooksAbout("gas_low"));
  });
});
