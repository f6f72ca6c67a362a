// Portal sign-out on a real store (a temporary SQLite file): two sign-outs of one session at once (two tabs) end it
// once and write one audit row; a third finds it ended and writes nothing.

import { beforeEach, expect, it } from "vitest";
import { currentSession, endSession, startSession } from "../../api/src/domain/portal.js";
import { createAccount } from "../../api/src/domain/team.js";
import { type Store } from "../../api/src/store/index.js";
import { storeFilePerTest } from "../support/store.js";

const files = storeFilePerTest("portal-session");
let store: Store;

beforeEach(async () => {
  store = await files.open();
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
