// Portal sign-out on a real store (a temporary SQLite file): two sign-outs of one session at once (two tabs) end it
// once and write one audit row; a third finds it ended and writes nothing.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { currentSession, endSession, startSession } from "../../api/src/domain/portal.js";
import { createAccount } from "../../api/src/domain/team.js";
import { type Store } from "../../api/src/store/index.js";
import { openServiceStore } from "../../api/src/serviceStore.js";

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "portal-session-"));
  store = await openServiceStore(path.join(dir, "store.sqlite"));
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

it("ends a session once under concurrent sign-outs: one audit row", async () => {
  const { accountId } = await createAccount(store, "owner@example.com");
  const { id } = await startSession(store, "owner@example.com", accountId);
  expect(await currentSession(store, id)).not.toBeNull();
  await Promise.all([endSession(store, id), endSession(store, id), endSession(store, id)]);
  await endSession(store, id);
  expect(await currentSession(store, id)).toBeNull();
  const signOuts = (await store.audit.ofAccount(accountId)).filter((e) => e.action === "portal.sign_out");
  expect(signOuts).toHaveLength(1);
});
