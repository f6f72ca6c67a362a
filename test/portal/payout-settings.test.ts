// The payout wallet and the large-prize threshold through every door of the real stack. In the portal only owners
// change them: a member who posts a new wallet or threshold (whatever the page showed) is answered 403 and the
// campaign, the chain, the audit log and the webhook outbox stay as they were, while the member's other edits still
// save, and the next draw still pays the owners' wallet. An owner's change is one audit row with old and new values
// and one signed `campaign.payout_settings_changed` delivery to the account's endpoint; the same wallet sent again is
// no change. The partner
// API and the portal show the wallet checksummed. The operator's CLI acts for the account.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "@prizedraw/client";
import { toCampaignId } from "../../api/src/draw/index.js";
import { storePath, type Store } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import { fieldError, PortalClient, signIn } from "../support/portalClient.js";
import { until } from "../support/processes.js";
import { TEST_WALLET, api, createAccount, startStack, type Stack } from "../support/stack.js";
import { clockPast, openDrawings, postWinners } from "../support/partner.js";

const OWNER = "payouts-owner@example.com";
const MEMBER = "payouts-member@example.com";
const SLUG = "payouts-daily";
const NEW_WALLET = "0xa0ee7a142d267c1f36714e4a8f75612f20a79720";
const MEMBERS_WALLET = "0x14dc79964da2c08b23698b3d3cc7ca32193d9955";
const EVENT = "campaign.payout_settings_changed";

type Received = { id: string; timestamp: string; signature: string; body: string };
type EventBody = { type: string; timestamp: string; data: Record<string, unknown> };

let stack: Stack;
let store: Store;
let server: https.Server;
let accountId: string;
let key: string;
let secret: string;
let owner: PortalClient;
let member: PortalClient;
const certDir = mkdtempSync(path.join(tmpdir(), "prizedraw-payouts-"));
const received: Received[] = [];

const campaign = async () => (await store.campaigns.bySlug(SLUG))!;
const setRows = async () => (await store.audit.ofAccount(accountId)).filter((r) => r.subject === SLUG && r.action === "campaign.set");
const payoutEvents = () => received.filter((r) => (JSON.parse(r.body) as EventBody).type === EVENT);
const outboxed = async () => (await store.conn.q().selectFrom("webhook_events").select("type").where("account_id", "=", accountId).execute()).filter((e) => e.type === EVENT).length;
/** The wallet and threshold the chain has for the campaign (the indexer's copy of PrizeDraw's campaign). */
async function onchain(): Promise<{ payoutWallet: string; largePrizeThresholdCents: string }> {
  const response = await fetch(`${stack.indexerUrl}/campaigns/${toCampaignId(SLUG)}`);
  return (await response.json()) as { payoutWallet: string; largePrizeThresholdCents: string };
}
/** The campaign's drawings as the chain has them (committed ones), newest first. */
async function onchainDrawings(): Promise<{ payoutWallet: string; largePrizeThresholdCents: string }[]> {
  const response = await fetch(`${stack.indexerUrl}/campaigns/${toCampaignId(SLUG)}/drawings`);
  return ((await response.json()) as { drawings: { payoutWallet: string; largePrizeThresholdCents: string }[] }).drawings;
}
/** What a refused change must leave as it was: the row (with the values bound onchain), the audit log, the outbox. */
const snapshot = async () => JSON.stringify([await campaign(), await store.audit.ofAccount(accountId), await outboxed()]);

/** The settings form as the page posts it (a member's page has no payout fields; a crafted post adds them). */
const settingsForm = (overrides: Record<string, string> = {}) => ({ name: "Payouts daily", winnersPerDraw: "1", pullUrl: "", endsAt: "", ...overrides });

beforeAll(async () => {
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(certDir, "key.pem"), "-out", path.join(certDir, "cert.pem"), "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], { stdio: "ignore" });
  server = https.createServer({ key: readFileSync(path.join(certDir, "key.pem")), cert: readFileSync(path.join(certDir, "cert.pem")) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ id: String(req.headers["webhook-id"]), timestamp: String(req.headers["webhook-timestamp"]), signature: String(req.headers["webhook-signature"]), body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200).end("thanks");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const hooks = `https://localhost:${(server.address() as AddressInfo).port}/hooks`;
  stack = await startStack({ extraEnv: { PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK: "true", NODE_EXTRA_CA_CERTS: path.join(certDir, "cert.pem"), PRIZEDRAW_WEBHOOK_RETRY_BASE_MS: "300" } });
  store = await openServiceStore(storePath(stack.dataDir));
  ({ accountId, key } = await createAccount(stack, OWNER));
  await stack.cli("member", "add", "--account", accountId, "--email", MEMBER, "--role", "member");
  secret = (await stack.cli("webhook", "create", "--account", accountId, "--url", hooks)).secret as string;
  await stack.cli("campaign", "create", "--account", accountId, "--slug", SLUG, "--name", "Payouts daily", "--mode", "push", "--cadence", "daily", "--winners", "1", "--payout-wallet", TEST_WALLET);
  await stack.cli("campaign", "activate", SLUG);
  // The keeper registers the active campaign onchain with its wallet and threshold.
  await until("registered onchain", async () => ((await campaign()).onchainWallet !== null ? true : undefined), 60_000, 250);
  owner = await signIn(stack, OWNER);
  member = await signIn(stack, MEMBER);
}, 240_000);

afterAll(async () => {
  await store?.close();
  await stack?.stop();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  rmSync(certDir, { recursive: true, force: true });
});

describe("a member", () => {
  it("sees the wallet (checksummed) and the threshold on the settings page, with no field to change them", async () => {
    const page = await member.get(`/portal/campaigns/${SLUG}/edit`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('name="payoutWallet"');
    expect(page.text).not.toContain('name="largePrizeThreshold"');
    expect(page.text).toContain(getAddress(TEST_WALLET));
    expect(page.text).toContain("$500");
    const owners = await owner.get(`/portal/campaigns/${SLUG}/edit`);
    expect(owners.text).toContain(`name="payoutWallet" type="text" value="${getAddress(TEST_WALLET)}"`);
    expect(owners.text).toContain('name="largePrizeThreshold"');
  });

  it("is refused (403) a new payout wallet or threshold, and nothing changes: row, chain, audit log, webhook", async () => {
    const before = await snapshot();
    await member.get(`/portal/campaigns/${SLUG}/edit`);
    const wallet = await member.post(`/portal/campaigns/${SLUG}/edit`, settingsForm({ payoutWallet: MEMBERS_WALLET, largePrizeThreshold: "500" }));
    expect(wallet.status).toBe(403);
    expect(wallet.text).toContain("Not allowed");
    expect(wallet.text).toMatch(/only owners change a campaign&#39;s payout wallet or large-prize threshold/);
    const threshold = await member.post(`/portal/campaigns/${SLUG}/edit`, settingsForm({ largePrizeThreshold: "1000000" }));
    expect(threshold.status).toBe(403);
    // The keeper runs every second: a changed wallet would be on its way to the chain by now.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await snapshot()).toBe(before);
    expect(await campaign()).toMatchObject({ payoutWallet: TEST_WALLET, onchainWallet: TEST_WALLET, largePrizeThresholdCents: 50_000 });
    expect(await onchain()).toMatchObject({ payoutWallet: TEST_WALLET, largePrizeThresholdCents: "50000" });
    expect(payoutEvents()).toEqual([]);
    // The wallet goes onchain with each draw's commit: the next draw still pays the owners' wallet.
    const [open] = await openDrawings<{ id: string; cutoffAt: string }>(stack, key, SLUG);
    await postWinners(stack, key, SLUG, open!.id, ["w-1"]);
    await clockPast(stack, key, SLUG, open!);
    const committed = await until("the draw committed onchain", async () => (await onchainDrawings())[0], 60_000, 250);
    expect(committed.payoutWallet).toBe(TEST_WALLET);
  });

  it("still saves what members may change; the wallet and threshold a form resends as they are are not recorded", async () => {
    await member.get(`/portal/campaigns/${SLUG}/edit`);
    // As the settings form posted it before payouts became owners' only: with the wallet and threshold unchanged.
    const saved = await member.post(`/portal/campaigns/${SLUG}/edit`, settingsForm({ name: "Renamed by member", winnersPerDraw: "2", payoutWallet: TEST_WALLET, largePrizeThreshold: "500" }));
    expect(saved.status).toBe(303);
    expect(await campaign()).toMatchObject({ name: "Renamed by member", winnersPerDraw: 2, payoutWallet: TEST_WALLET, largePrizeThresholdCents: 50_000 });
    expect((await setRows())[0]).toMatchObject({ actor: MEMBER, detail: { fields: ["name", "winnersPerDraw"] } });
    expect(await outboxed()).toBe(0);
  });

  it("creates a draft without a wallet, but is refused (403) one with a wallet, which is not stored", async () => {
    const page = await member.get("/portal/campaigns/new");
    expect(page.text).not.toContain('name="payoutWallet"');
    const draft = { name: "Member's draft", mode: "push", cadence: "daily", drawHour: "20", drawMinute: "0", timezone: "UTC", cutoffMinutes: "60", winnersPerDraw: "1", pullUrl: "" };
    const refused = await member.post("/portal/campaigns/new", { ...draft, slug: "members-draft", payoutWallet: MEMBERS_WALLET });
    expect(refused.status).toBe(403);
    expect(await store.campaigns.bySlug("members-draft")).toBeNull();
    const created = await member.post("/portal/campaigns/new", { ...draft, slug: "members-draft" });
    expect(created.status).toBe(303);
    expect(await store.campaigns.bySlug("members-draft")).toMatchObject({ payoutWallet: null, largePrizeThresholdCents: 50_000 });
  });
});

describe("an owner", () => {
  it("refuses bad input with a 400 by its field, changing nothing", async () => {
    const before = await snapshot();
    await owner.get(`/portal/campaigns/${SLUG}/edit`);
    const bad = [
      [{ payoutWallet: "0x1234" }, "payoutWallet", /^payoutWallet must be a non-zero 0x address/],
      [{ payoutWallet: "0x14dC79964da2C08b23698B3D3cc7Ca32193d9956" }, "payoutWallet", /checksum/],
      [{ largePrizeThreshold: "-5" }, "largePrizeThreshold", /must be an amount in dollars/],
      [{ largePrizeThreshold: "0" }, "largePrizeThreshold", /^largePrizeThresholdCents must be a whole number of cents, at least 1/],
    ] as const;
    for (const [fields, name, words] of bad) {
      const reply = await owner.post(`/portal/campaigns/${SLUG}/edit`, settingsForm({ payoutWallet: TEST_WALLET, largePrizeThreshold: "500", ...fields }));
      expect(reply.status, JSON.stringify(fields)).toBe(400);
      expect(fieldError(reply.text, name), JSON.stringify(fields)).toMatch(words);
    }
    expect(await snapshot()).toBe(before);
  });

  it("changes the wallet: one audit row with old and new, one signed event; the API and the portal show it checksummed", async () => {
    const rows = (await setRows()).length;
    await owner.get(`/portal/campaigns/${SLUG}/edit`);
    const saved = await owner.post(`/portal/campaigns/${SLUG}/edit`, settingsForm({ name: "Renamed by member", winnersPerDraw: "2", payoutWallet: NEW_WALLET, largePrizeThreshold: "500" }));
    expect(saved.status).toBe(303);
    expect((await campaign()).payoutWallet).toBe(NEW_WALLET);
    const after = await setRows();
    expect(after).toHaveLength(rows + 1);
    expect(after[0]).toMatchObject({ actor: OWNER, detail: { fields: ["payoutWallet"], payoutWallet: { old: getAddress(TEST_WALLET), new: getAddress(NEW_WALLET) } } });

    const [delivery] = await until("the event delivered", async () => (payoutEvents().length > 0 ? payoutEvents() : undefined), 30_000, 100);
    const event = verifyWebhook(secret, { "webhook-id": delivery!.id, "webhook-timestamp": delivery!.timestamp, "webhook-signature": delivery!.signature }, delivery!.body);
    expect(event.id).toMatch(/^msg_/);
    expect(event).toMatchObject({
      type: EVENT,
      data: {
        campaign: SLUG,
        changed: ["payoutWallet"],
        payoutWallet: { old: getAddress(TEST_WALLET), new: getAddress(NEW_WALLET) },
        largePrizeThresholdCents: { old: 50_000, new: 50_000 },
        changedBy: OWNER,
        changedAt: after[0]!.at,
      },
    });


    const shown = await api(stack, "GET", `/api/v1/campaigns/${SLUG}`, { key });
    expect(shown.body.campaign).toMatchObject({ payoutWallet: getAddress(NEW_WALLET), largePrizeThresholdCents: 50_000 });
    const listed = await api(stack, "GET", "/api/v1/campaigns", { key });
    expect((listed.body.campaigns as { slug: string; payoutWallet: string }[]).find((c) => c.slug === SLUG)?.payoutWallet).toBe(getAddress(NEW_WALLET));
    expect((await owner.get(`/portal/campaigns/${SLUG}`)).text).toContain(`<code>${getAddress(NEW_WALLET)}</code>`);

    // Saved again as the form sends it (the wallet always in it, now checksummed): no wallet change, no event.
    await owner.get(`/portal/campaigns/${SLUG}/edit`);
    const again = await owner.post(`/portal/campaigns/${SLUG}/edit`, settingsForm({ name: "Renamed by owner", winnersPerDraw: "2", payoutWallet: getAddress(NEW_WALLET), largePrizeThreshold: "500" }));
    expect(again.status).toBe(303);
    expect((await setRows())[0]).toMatchObject({ actor: OWNER, detail: { fields: ["name"] } });
    expect(await outboxed()).toBe(1);
  });

  it("changes the threshold: the event carries both settings with who and when", async () => {
    await owner.get(`/portal/campaigns/${SLUG}/edit`);
    const saved = await owner.post(`/portal/campaigns/${SLUG}/edit`, settingsForm({ name: "Renamed by owner", winnersPerDraw: "2", payoutWallet: getAddress(NEW_WALLET), largePrizeThreshold: "250" }));
    expect(saved.status).toBe(303);
    expect((await setRows())[0]!.detail).toEqual({ fields: ["largePrizeThresholdCents"], largePrizeThresholdCents: { old: 50_000, new: 25_000 } });
    const events = await until("the second event", async () => (payoutEvents().length > 1 ? payoutEvents() : undefined), 30_000, 100);
    expect(JSON.parse(events[1]!.body)).toMatchObject({
      type: EVENT,
      data: { changed: ["largePrizeThresholdCents"], payoutWallet: { old: getAddress(NEW_WALLET), new: getAddress(NEW_WALLET) }, largePrizeThresholdCents: { old: 50_000, new: 25_000 }, changedBy: OWNER },
    });
  });
});

describe("the operator's CLI", () => {
  it("acts for the account: the change is audited and announced with `operator` as who; bad input is refused", async () => {
    await expect(stack.cli("campaign", "set", SLUG, "--payout-wallet", "0x1234")).rejects.toMatchObject({ result: { error: "bad_request" } });
    const set = await stack.cli("campaign", "set", SLUG, "--payout-wallet", TEST_WALLET);
    expect((set.campaign as { payoutWallet: string }).payoutWallet).toBe(getAddress(TEST_WALLET));
    expect((await setRows())[0]).toMatchObject({ actor: "operator", detail: { fields: ["payoutWallet"], payoutWallet: { old: getAddress(NEW_WALLET), new: getAddress(TEST_WALLET) } } });
    const events = await until("the third event", async () => (payoutEvents().length > 2 ? payoutEvents() : undefined), 30_000, 100);
    expect(JSON.parse(events[2]!.body)).toMatchObject({ data: { changedBy: "operator" } });
  });
});
