// The keeper's alert watch (api/src/keeper/alerts.ts) on a real SQLite store, with the chain's two reads and the
// two channels played by the test: a stuck drawing is opened once (a mail to each recipient, one webhook signed as
// partner webhooks are), reminded, and resolved when its cutoff moves; a webhook the endpoint refuses is sent again
// at the next check with the same webhook-id; a failed chain read resolves nothing; an acknowledged alert is not
// reminded; a lost lease is told at once by the process that lost it and resolved by the next check.

import { describe, expect, it } from "vitest";
import pino from "pino";
import { verifyWebhook } from "@prizedraw/client";
import { createCampaign, transitionCampaign } from "../../api/src/domain/campaigns.js";
import { extendCutoff } from "../../api/src/domain/drawings.js";
import { advanceClock } from "../../api/src/domain/testClock.js";
import { AlertWatch } from "../../api/src/keeper/alerts.js";
import type { Mail } from "../../api/src/mail/queue.js";
import type { NoticeBody } from "../../api/src/notify/notices.js";
import { createNotifier } from "../../api/src/notify/notifier.js";
import type { SendResult } from "../../api/src/webhooks/send.js";
import { generateSecret } from "../../api/src/webhooks/signature.js";
import type { Store } from "../../api/src/store/index.js";
import { newAccount, storeFilePerTest } from "../support/store.js";

const WALLET = "0x00000000000000000000000000000000000000a1";
const MIN = 60_000;
const REMIND_MS = 200;
const ETHER = 10n ** 18n;

type Posted = { url: string; headers: Record<string, string>; body: string };

/** The watch with both channels, the chain's answers and the endpoint's answer set by the test. */
function watchOn(store: Store) {
  const secret = generateSecret();
  const mails: Mail[] = [];
  const posted: Posted[] = [];
  const chain = { freeCents: 10n ** 12n, balanceWei: 100n * ETHER, down: false };
  const endpoint: { answer: SendResult } = { answer: { status: 204, snippet: "" } };
  const notifier = createNotifier(
    { emails: ["ops@example.com", "oncall@example.com"], webhook: { url: "https://alerts.example.com/in?token=t0ps3cret", secret, allowLoopback: false } },
    { send: async (mail) => void mails.push(mail) },
    async (url, headers, body) => {
      posted.push({ url, headers, body });
      return endpoint.answer;
    },
  );
  const watch = new AlertWatch({
    store,
    logger: pino({ level: "silent" }),
    chain: {
      poolBalances: async () => {
        if (chain.down) throw new Error("connection refused");
        return { balanceCents: chain.freeCents, owedCents: 0n, freeCents: chain.freeCents };
      },
      operatorBalance: async () => {
        if (chain.down) throw new Error("connection refused");
        return chain.balanceWei;
      },
    },
    notifier,
    settings: { remindMs: REMIND_MS, stuckMs: 30 * MIN, poolDays: 7, gasMinWei: ETHER },
    // Checks are made by the test (checkNow), the chain read at each.
    checkMs: 3_600_000,
    chainEveryMs: 0,
  });
  const bodies = () => posted.map((p) => JSON.parse(p.body) as NoticeBody);
  return { watch, secret, mails, posted, bodies, chain, endpoint };
}

async function stuckPushDrawing(store: Store) {
  const now = new Date();
  const accountId = await newAccount(store, now);
  const schedule = { cadence: "daily" as const, drawHour: 20, timezone: "UTC", startsAt: now.toISOString() };
  await createCampaign(store, accountId, { slug: "stalled", name: "Stalled", mode: "push", winnersPerDraw: 2, payoutWallet: WALLET, schedule }, now);
  const campaign = await transitionCampaign(store, "stalled", "activate", now);
  const [first] = (await store.drawings.list(campaign.id, "open", 10)).sort((a, b) => a.cutoffAt.localeCompare(b.cutoffAt));
  // No list came, and the campaign's clock is 31 minutes past the cutoff.
  await advanceClock(store, campaign.id, new Date(Date.parse(first!.cutoffAt) + 31 * MIN), now);
  return { campaign, drawing: first! };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the alert watch", () => {
  const files = storeFilePerTest("alert-watch");

  it("opens a stuck drawing once, reminds it, resolves it when its cutoff moves; a refused webhook is sent again", async () => {
    const store = await files.open();
    const { watch, secret, mails, posted, bodies, endpoint } = watchOn(store);
    const { drawing } = await stuckPushDrawing(store);
    watch.start();
    try {
      await watch.checkNow();
      const [open] = await store.alerts.unresolved();
      expect(open).toMatchObject({ key: `drawing_stuck:${drawing.id}`, kind: "drawing_stuck", severity: "critical", campaignSlug: "stalled", drawingId: drawing.id, reminders: 0 });
      expect(mails.map((m) => m.to)).toEqual(["ops@example.com", "oncall@example.com"]);
      expect(mails[0]!.subject).toBe(`[prizedraw] ALERT critical: drawing ${drawing.id} of stalled is stuck open`);
      expect(mails[0]!.text).toContain(`prizedraw alerts ack ${open!.id}`);
      expect(posted).toHaveLength(1);
      expect(verifyWebhook(secret, posted[0]!.headers, posted[0]!.body)).toMatchObject({ type: "alert.opened", data: { alert: { id: open!.id, key: open!.key, action: expect.stringContaining("extend-cutoff") } } });
      // Nothing more while the condition lasts and the reminder is not due.
      await watch.checkNow();
      expect([mails.length, posted.length]).toEqual([2, 1]);

      // The reminder, whose webhook the endpoint refuses: tried again at the next check, same webhook-id.
      await pause(REMIND_MS);
      endpoint.answer = { status: 503, snippet: "down" };
      await watch.checkNow();
      expect(mails.map((m) => m.subject.split(":")[0])).toEqual(["[prizedraw] ALERT critical", "[prizedraw] ALERT critical", "[prizedraw] REMINDER 1 critical", "[prizedraw] REMINDER 1 critical"]);
      expect(bodies().map((b) => b.type)).toEqual(["alert.opened", "alert.reminder"]);
      const [history] = await store.alerts.history();
      expect(history!.notices.map((n) => [n.type, n.mail, n.webhook, n.webhookAttempts, n.lastError])).toEqual([
        ["alert.opened", "sent", "sent", 1, null],
        ["alert.reminder", "sent", "pending", 1, "webhook: answered HTTP 503"],
      ]);
      endpoint.answer = { status: 200, snippet: "ok" };
      await watch.checkNow();
      expect(posted.map((p) => p.headers["webhook-id"])).toEqual([posted[0]!.headers["webhook-id"], posted[1]!.headers["webhook-id"], posted[1]!.headers["webhook-id"]]);
      expect((await store.alerts.history())[0]!.notices.map((n) => n.webhook)).toEqual(["sent", "sent"]);

      // The operator gives the drawing a later cutoff: resolved, once.
      await extendCutoff(store, "stalled", drawing.id, new Date(Date.now() + 3 * 24 * 60 * MIN).toISOString());
      await watch.checkNow();
      await watch.checkNow();
      expect(await store.alerts.unresolved()).toEqual([]);
      expect(bodies().map((b) => b.type)).toEqual(["alert.opened", "alert.reminder", "alert.reminder", "alert.resolved"]);
      expect(bodies().at(-1)!.data.alert).toMatchObject({ key: `drawing_stuck:${drawing.id}`, reminders: 1, resolvedAt: expect.any(String) });
      expect(mails.filter((m) => m.subject.startsWith("[prizedraw] RESOLVED"))).toHaveLength(2);
      // The webhook's URL (and its token) is in no notice.
      for (const text of [...mails.map((m) => m.text), ...posted.map((p) => p.body)]) expect(text).not.toContain("t0ps3cret");
    } finally {
      watch.stop();
    }
  });

  it("resolves nothing the chain could not tell, and reminds no acknowledged alert", async () => {
    const store = await files.open();
    const { watch, bodies, chain } = watchOn(store);
    chain.balanceWei = ETHER / 2n;
    watch.start();
    try {
      await watch.checkNow();
      const [gas] = await store.alerts.unresolved();
      expect(gas).toMatchObject({ key: "gas_low", severity: "warning", detail: "its balance is 0.5 (native currency), below the 1 set as the minimum (ALERT_GAS_MIN_WEI)" });
      chain.down = true;
      await pause(REMIND_MS);
      expect(await store.alerts.acknowledge(gas!.id, "operator", new Date().toISOString())).toMatchObject({ acknowledgedBy: "operator" });
      await watch.checkNow();
      expect((await store.alerts.unresolved()).map((a) => a.key)).toEqual(["gas_low"]);
      expect(bodies().map((b) => b.type)).toEqual(["alert.opened"]);
      chain.down = false;
      chain.balanceWei = 2n * ETHER;
      await watch.checkNow();
      expect(await store.alerts.unresolved()).toEqual([]);
      expect(bodies().map((b) => `${b.type} ${b.data.alert.key}`)).toEqual(["alert.opened gas_low", "alert.resolved gas_low"]);
    } finally {
      watch.stop();
    }
  });

  it("tells a lost lease at once, from the process that lost it; the next check resolves it", async () => {
    const store = await files.open();
    const { watch, mails, bodies } = watchOn(store);
    await watch.leaseLost("host-a:123:abcdef");
    expect(bodies().map((b) => `${b.type} ${b.data.alert.key}`)).toEqual(["alert.opened lease_lost:host-a:123:abcdef"]);
    expect(mails).toHaveLength(2);
    const [notice] = (await store.alerts.history())[0]!.notices;
    expect(notice).toMatchObject({ mail: "sent", webhook: "sent", webhookAttempts: 1 });
    // The same holder's loss told twice (the lease callback again) is one alert.
    await watch.leaseLost("host-a:123:abcdef");
    expect(bodies()).toHaveLength(1);
    watch.start();
    try {
      await watch.checkNow();
      expect(bodies().map((b) => b.type)).toEqual(["alert.opened", "alert.resolved"]);
      expect(await store.alerts.unresolved()).toEqual([]);
    } finally {
      watch.stop();
    }
  });
});
