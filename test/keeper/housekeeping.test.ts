// What the keeper's housekeeping deletes (keeper/housekeeping.ts), on both engines (a temporary SQLite file and a
// private PostgreSQL server): idempotency answers after 24 hours; portal links, sessions and test mail a day after
// they ended; webhook events with their deliveries and attempts 30 days after the event, never one still pending,
// at most 500 events a run. Everything younger stays.

import { describe, expect, it } from "vitest";
import { newId } from "../../api/src/store/ids.js";
import { WEBHOOK_PRUNE_BATCH, pruneExpired } from "../../api/src/keeper/housekeeping.js";
import type { Store } from "../../api/src/store/index.js";
import type { PortalSession } from "../../api/src/store/portal.js";
import { ENGINES, newAccount, storesOnBothEngines } from "../support/store.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse("2026-11-27T12:00:00.000Z");
const at = (msBeforeNow: number) => new Date(NOW - msBeforeNow).toISOString();

const stores = storesOnBothEngines("housekeeping");

const account = (store: Store): Promise<string> => newAccount(store, new Date(at(60 * DAY)));

/** An event `age` before now; its deliveries (one per endpoint of the account) are left pending. */
async function event(store: Store, accountId: string, age: number): Promise<string> {
  const id = newId("msg");
  await store.webhooks.enqueue({ id, accountId, type: "drawing.paid", subjectId: newId("drw"), body: "{}", createdAt: at(age) }, at(age - 3 * DAY));
  return id;
}

describe.each(ENGINES)("housekeeping on %s", (engine) => {
  it("deletes only what is past its retention, and webhook events 500 a run", async () => {
    const store = stores[engine]!;

    // Webhooks. An account without endpoints: 600 events 45 days old (no deliveries), the oldest in the table.
    const quiet = await account(store);
    for (let i = 0; i < 600; i++) await event(store, quiet, 45 * DAY);
    // An account with an endpoint: events 40, 35, 33 and 10 days old: delivered, failed, still pending, delivered.
    const partner = await account(store);
    const endpointId = newId("whk");
    await store.webhooks.insertEndpoint({ id: endpointId, accountId: partner, url: "https://hooks.example/x", secret: "s", previousSecret: null, previousExpiresAt: null, createdAt: at(60 * DAY), deletedAt: null });
    const delivered = await event(store, partner, 40 * DAY);
    const failed = await event(store, partner, 35 * DAY);
    const pending = await event(store, partner, 33 * DAY);
    const recent = await event(store, partner, 10 * DAY);
    const deliveries = await store.webhooks.deliveries(endpointId, 10);
    const deliveryOf = (eventId: string) => deliveries.find((d) => d.eventId === eventId)!.id;
    const attempt = (age: number, httpStatus: number) => ({ at: at(age), httpStatus, error: null, durationMs: 12, responseSnippet: "ok" });
    await store.webhooks.recordAttempt(deliveryOf(delivered), attempt(40 * DAY, 200), { status: "delivered", nextAttemptAt: null });
    await store.webhooks.recordAttempt(deliveryOf(failed), attempt(35 * DAY, 500), { status: "failed", nextAttemptAt: null });
    await store.webhooks.recordAttempt(deliveryOf(pending), attempt(33 * DAY, 503), { status: "pending", nextAttemptAt: at(0) });
    await store.webhooks.recordAttempt(deliveryOf(recent), attempt(10 * DAY, 204), { status: "delivered", nextAttemptAt: null });

    // Portal links: expired 2 days ago (unused, and used), 1 hour ago, and valid.
    const link = async (hash: string, expiresAgo: number, usedAt: string | null) => {
      await store.portal.insertLink({ tokenHash: hash, email: "a@example.com", purpose: "sign_in", accountId: null, createdAt: at(expiresAgo + 15 * 60_000), expiresAt: at(expiresAgo), usedAt: null });
      if (usedAt !== null) expect(await store.portal.useLink(hash, usedAt)).toBe(true);
    };
    await link(`${engine}-l-old`, 2 * DAY, null);
    await link(`${engine}-l-old-used`, 2 * DAY, at(2 * DAY + 60_000));
    await link(`${engine}-l-recent`, HOUR, null);
    await link(`${engine}-l-valid`, -10 * 60_000, null);
    // Sessions: ended 2 days ago, expired 2 days ago, ended 1 hour ago, open.
    const session = async (hash: string, expiresAgo: number, endedAgo: number | null) => {
      const s: PortalSession = { idHash: hash, email: "a@example.com", accountId: partner, csrfToken: "c", createdAt: at(10 * DAY), lastSeenAt: at(3 * DAY), expiresAt: at(expiresAgo), endedAt: null };
      await store.portal.insertSession(s);
      if (endedAgo !== null) expect(await store.portal.endSession(hash, at(endedAgo))).toBe(true);
    };
    await session(`${engine}-s-ended`, -DAY, 2 * DAY);
    await session(`${engine}-s-expired`, 2 * DAY, null);
    await session(`${engine}-s-ended-recently`, -DAY, HOUR);
    await session(`${engine}-s-open`, -DAY, null);
    // Test mail, 2 days and 1 hour old; idempotency keys 25 and 23 hours old.
    await store.portal.addMail("a@example.com", "old", "body", at(2 * DAY));
    await store.portal.addMail("a@example.com", "new", "body", at(HOUR));
    await store.idempotency.claim(partner, "old-key", "h", at(25 * HOUR), at(48 * HOUR));
    await store.idempotency.claim(partner, "new-key", "h", at(23 * HOUR), at(48 * HOUR));

    // Run 1: the 500 oldest events only (all of the quiet account's); every portal row and key past retention.
    expect(await pruneExpired(store, NOW)).toEqual({ idempotencyKeys: 1, portalRows: 5, webhookEvents: WEBHOOK_PRUNE_BATCH });
    expect((await store.webhooks.deliveries(endpointId, 10)).map((d) => d.eventId).sort()).toEqual([delivered, failed, pending, recent].sort());
    // Run 2: the quiet account's last 100, then the partner's delivered and failed ones; not the pending one.
    expect(await pruneExpired(store, NOW)).toEqual({ idempotencyKeys: 0, portalRows: 0, webhookEvents: 102 });
    expect((await store.webhooks.deliveries(endpointId, 10)).map((d) => d.eventId).sort()).toEqual([pending, recent].sort());
    expect(await store.webhooks.attempts(deliveryOf(delivered))).toEqual([]);
    expect(await store.webhooks.attempts(deliveryOf(failed))).toEqual([]);
    expect(await store.webhooks.attempts(deliveryOf(pending))).toHaveLength(1);
    expect(await store.webhooks.attempts(deliveryOf(recent))).toHaveLength(1);
    // Run 3: nothing left to delete.
    expect(await pruneExpired(store, NOW)).toEqual({ idempotencyKeys: 0, portalRows: 0, webhookEvents: 0 });

    for (const gone of ["l-old", "l-old-used"]) expect(await store.portal.link(`${engine}-${gone}`)).toBeNull();
    for (const kept of ["l-recent", "l-valid"]) expect(await store.portal.link(`${engine}-${kept}`)).not.toBeNull();
    for (const gone of ["s-ended", "s-expired"]) expect(await store.portal.session(`${engine}-${gone}`)).toBeNull();
    for (const kept of ["s-ended-recently", "s-open"]) expect(await store.portal.session(`${engine}-${kept}`)).not.toBeNull();
    expect((await store.portal.outbox()).map((m) => m.subject)).toEqual(["new"]);
    expect(await store.idempotency.get(partner, "old-key")).toBeNull();
    expect(await store.idempotency.get(partner, "new-key")).not.toBeNull();
  });
});
