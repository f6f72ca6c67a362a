// The payout settings rule on a real store, without the stack: a campaign's payout wallet and large-prize threshold
// decide where prize money goes and which prizes are checked by hand, so only the account's owners (and the
// service's operator) change them. A member's change is refused `forbidden` and leaves the row, the audit log and
// the webhook outbox as they were; a member's other edits still go through. An owner's change writes one audit row
// with old and new values (wallets checksummed) and one `campaign.payout_settings_changed` event; resending the
// values a campaign has is no change. The partner API's view shows the wallet checksummed.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { getAddress } from "viem";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { campaignView, createCampaign, updateCampaign, type CampaignInput } from "../../api/src/domain/campaigns.js";
import { OPERATOR, addMember, createAccount, type Actor } from "../../api/src/domain/team.js";
import type { Campaign } from "../../api/src/store/campaigns.js";
import type { Store } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";
import { createEndpoint } from "../../api/src/webhooks/endpoints.js";

const OWNER = "owner@example.com";
const MEMBER = "member@example.com";
const SLUG = "payouts";
const WALLET = "0x00000000000000000000000000000000000000a1";
const NEW_WALLET = "0xa0ee7a142d267c1f36714e4a8f75612f20a79720";
const MEMBERS_WALLET = "0x14dc79964da2c08b23698b3d3cc7ca32193d9955";
const owner: Actor = { kind: "member", email: OWNER };
const member: Actor = { kind: "member", email: MEMBER };

type EventBody = { type: string; timestamp: string; data: Record<string, unknown> };

let dir: string;
let store: Store;
let accountId: string;

const campaign = async (): Promise<Campaign> => (await store.campaigns.bySlug(SLUG))!;
const auditRows = async () => (await store.audit.ofAccount(accountId)).filter((r) => r.subject === SLUG);
/** The settings rows, newest first (rows written in one millisecond keep no order between them: one action only). */
const setRows = async () => (await auditRows()).filter((r) => r.action === "campaign.set");
const events = async (): Promise<EventBody[]> =>
  (await store.conn.q().selectFrom("webhook_events").select(["body", "seq"]).orderBy("seq").execute()).map((r) => JSON.parse(r.body) as EventBody);
/** Everything a refused change must leave as it was. */
const snapshot = async () => JSON.stringify([await campaign(), await auditRows(), await events()]);

const input = (overrides: Partial<CampaignInput> = {}): CampaignInput => ({
  slug: SLUG,
  name: "Payouts",
  mode: "push",
  winnersPerDraw: 1,
  payoutWallet: WALLET,
  schedule: { cadence: "daily", drawHour: 12, timezone: "UTC" },
  ...overrides,
});

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "payout-settings-"));
  store = await openServiceStore(path.join(dir, "store.sqlite"));
  ({ accountId } = await createAccount(store, OWNER));
  await addMember(store, accountId, OPERATOR, { email: MEMBER, role: "member" });
  await createEndpoint(store, accountId, "https://127.0.0.1/hook", { allowLoopback: true });
  await createCampaign(store, accountId, input(), new Date());
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a member", () => {
  it("is refused a new payout wallet (403 forbidden), and nothing changes: row, audit log, events", async () => {
    const before = await snapshot();
    await expect(updateCampaign(store, SLUG, { name: "Payouts", payoutWallet: MEMBERS_WALLET }, new Date(), undefined, member)).rejects.toMatchObject({
      status: 403,
      code: "forbidden",
      detail: expect.stringMatching(/only owners/),
    });
    expect(await snapshot()).toBe(before);
    expect((await campaign()).payoutWallet).toBe(WALLET);
  });

  it("is refused a new large-prize threshold, and nothing changes", async () => {
    const before = await snapshot();
    await expect(updateCampaign(store, SLUG, { largePrizeThresholdCents: 100_000_000 }, new Date(), undefined, member)).rejects.toMatchObject({ status: 403, code: "forbidden" });
    expect(await snapshot()).toBe(before);
    expect((await campaign()).largePrizeThresholdCents).toBe(50_000);
  });

  it("still renames the campaign while resending its wallet (in either case) and threshold: only the name is recorded", async () => {
    await updateCampaign(store, SLUG, { name: "Renamed", payoutWallet: getAddress(WALLET), largePrizeThresholdCents: 50_000 }, new Date(), undefined, member);
    await updateCampaign(store, SLUG, { name: "Renamed again", payoutWallet: WALLET }, new Date(), undefined, member);
    expect(await campaign()).toMatchObject({ name: "Renamed again", payoutWallet: WALLET, largePrizeThresholdCents: 50_000 });
    expect((await setRows()).map((r) => [r.actor, r.action, r.detail])).toEqual([
      [MEMBER, "campaign.set", { fields: ["name"] }],
      [MEMBER, "campaign.set", { fields: ["name"] }],
    ]);
    expect(await events()).toEqual([]);
  });

  it("creates a draft without a wallet and with the default threshold, but not with a wallet or another threshold", async () => {
    await expect(createCampaign(store, accountId, input({ slug: "members-own", payoutWallet: MEMBERS_WALLET }), new Date(), undefined, member)).rejects.toMatchObject({ status: 403, code: "forbidden" });
    await expect(createCampaign(store, accountId, input({ slug: "members-own", payoutWallet: null, largePrizeThresholdCents: 100_000_000 }), new Date(), undefined, member)).rejects.toMatchObject({ status: 403, code: "forbidden" });
    expect(await store.campaigns.bySlug("members-own")).toBeNull();
    const draft = await createCampaign(store, accountId, input({ slug: "members-own", payoutWallet: null, largePrizeThresholdCents: 50_000 }), new Date(), undefined, member);
    expect(draft).toMatchObject({ payoutWallet: null, largePrizeThresholdCents: 50_000 });
  });
});

describe("an owner", () => {
  it("changes the wallet: one audit row with old and new (checksummed), one event; resending it is no change", async () => {
    const at = new Date();
    await updateCampaign(store, SLUG, { name: "Payouts", payoutWallet: NEW_WALLET, largePrizeThresholdCents: 50_000 }, at, undefined, owner);
    expect((await campaign()).payoutWallet).toBe(NEW_WALLET);
    const rows = await setRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor: OWNER, action: "campaign.set", detail: { fields: ["payoutWallet"], payoutWallet: { old: getAddress(WALLET), new: getAddress(NEW_WALLET) } } });
    const [event, ...more] = await events();
    expect(more).toEqual([]);
    expect(event).toEqual({
      type: "campaign.payout_settings_changed",
      timestamp: at.toISOString(),
      data: {
        campaign: SLUG,
        changed: ["payoutWallet"],
        payoutWallet: { old: getAddress(WALLET), new: getAddress(NEW_WALLET) },
        largePrizeThresholdCents: { old: 50_000, new: 50_000 },
        changedBy: OWNER,
        changedAt: at.toISOString(),
      },
    });

    // The form sends the wallet with every save: the same wallet again (checksummed this time) is not a change.
    await updateCampaign(store, SLUG, { name: "Payouts", payoutWallet: getAddress(NEW_WALLET), largePrizeThresholdCents: 50_000 }, new Date(), undefined, owner);
    expect(await setRows()).toHaveLength(1);
    expect(await events()).toHaveLength(1);
  });

  it("changes the threshold: the event carries both settings, the audit row the threshold's old and new", async () => {
    await updateCampaign(store, SLUG, { largePrizeThresholdCents: 12_500 }, new Date(), undefined, owner);
    expect((await setRows()).map((r) => r.detail)).toEqual([{ fields: ["largePrizeThresholdCents"], largePrizeThresholdCents: { old: 50_000, new: 12_500 } }]);
    expect((await events()).map((e) => e.data)).toEqual([
      expect.objectContaining({ changed: ["largePrizeThresholdCents"], payoutWallet: { old: getAddress(WALLET), new: getAddress(WALLET) }, largePrizeThresholdCents: { old: 50_000, new: 12_500 }, changedBy: OWNER }),
    ]);
  });

  it("is refused bad input with 400 bad_request, and nothing changes", async () => {
    const before = await snapshot();
    for (const settings of [{ payoutWallet: "0x1234" }, { payoutWallet: "0x14dC79964da2C08b23698B3D3cc7Ca32193d9956" }, { largePrizeThresholdCents: -5 }, { largePrizeThresholdCents: 0 }, { largePrizeThresholdCents: 1.5 }]) {
      await expect(updateCampaign(store, SLUG, settings, new Date(), undefined, owner), JSON.stringify(settings)).rejects.toMatchObject({ status: 400, code: "bad_request" });
    }
    expect(await snapshot()).toBe(before);
  });
});

describe("the operator (the CLI)", () => {
  it("acts for the account: the change is recorded with `operator` as who", async () => {
    await updateCampaign(store, SLUG, { payoutWallet: NEW_WALLET });
    expect(await setRows()).toEqual([expect.objectContaining({ actor: "operator", detail: expect.objectContaining({ fields: ["payoutWallet"] }) })]);
    expect((await events())[0]!.data).toMatchObject({ changedBy: "operator" });
  });
});

describe("the partner API's view", () => {
  it("shows the payout wallet checksummed, and the threshold", async () => {
    await updateCampaign(store, SLUG, { payoutWallet: NEW_WALLET }, new Date(), undefined, owner);
    const view = await campaignView(store, await campaign(), { publicBaseUrl: "https://draws.example" });
    expect(view).toMatchObject({ payoutWallet: getAddress(NEW_WALLET), largePrizeThresholdCents: 50_000 });
  });
});
