import type { Environment } from "../config.js";
import type { Member, Role } from "../store/accounts.js";
import type { Store } from "../store/index.js";
import { BadRequestError, ForbiddenError, NotFoundError } from "./errors.js";
import { newId } from "../store/ids.js";
import { KEY_PREFIX, issueKey } from "./keys.js";
import { characterProblem } from "../lists/characters.js";

/**
 * Accounts, their team and their API keys (spec, Authentication 2): owners add members and create or revoke keys;
 * other members cannot. Every door (the CLI today, the portal later) calls these functions, so the rule lives once.
 */

/**
 * Who acts: a member of the account, named by email (the portal's signed-in person, the CLI's `--as`), or the
 * service's operator (the CLI without `--as`: staff acting for the account, outside the team's rules).
 */
export type Actor = { kind: "operator" } | { kind: "member"; email: string };

export const OPERATOR: Actor = { kind: "operator" };
export const ROLES: readonly Role[] = ["owner", "member"];

/**
 * Emails are compared trimmed and in lower case: `Owner@Example.com` is owner@example.com. An address is shown on the
 * team page, in the audit log and in the operator's log, and is a mail's recipient, so it is under the character
 * rule of ids and names (lists/characters.ts); the refusal names the character rather than echoing the address.
 */
export function normalizeEmail(email: string): string {
  const hidden = characterProblem(email);
  if (hidden !== null) throw new BadRequestError(`email ${hidden}`);
  const value = email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(value) || value.length > 254) throw new BadRequestError(`${JSON.stringify(email.slice(0, 80))} is not an email address`);
  return value;
}

async function requireAccount(store: Store, accountId: string): Promise<void> {
  if (!(await store.accounts.accountExists(accountId))) throw new NotFoundError(`no account ${accountId}`);
}

/**
 * Checks that `actor` may manage the account's team and keys; returns the name the audit log records. A member who
 * is not an owner, or someone who is not on the team, is refused (403 forbidden).
 */
export async function requireOwner(store: Store, accountId: string, actor: Actor, action: string): Promise<string> {
  await requireAccount(store, accountId);
  if (actor.kind === "operator") return "operator";
  const email = normalizeEmail(actor.email);
  const member = await store.accounts.member(accountId, email);
  if (!member) throw new ForbiddenError(`${email} is not on the team of ${accountId}: only its owners ${action}`);
  if (member.role !== "owner") throw new ForbiddenError(`${email} is a member, not an owner: only owners ${action}`);
  return email;
}

/** A new account with its first owner. */
export async function createAccount(store: Store, ownerEmail: string, now: Date = new Date()): Promise<{ accountId: string; owner: string }> {
  const email = normalizeEmail(ownerEmail);
  const accountId = newId("acc");
  await store.tx(async () => {
    await store.accounts.createAccount(accountId, now.toISOString());
    await store.accounts.addMember({ id: newId("mem"), accountId, email, role: "owner", createdAt: now.toISOString() });
    await store.audit.record("operator", "account.create", accountId, { owner: email });
  });
  return { accountId, owner: email };
}

/**
 * Adds a member, or changes the role of one already on the team (owners only). The last owner cannot become a
 * member: an account without an owner could never create or revoke a key again.
 */
export async function addMember(store: Store, accountId: string, actor: Actor, input: { email: string; role: Role }, now: Date = new Date()): Promise<Member> {
  if (!ROLES.includes(input.role)) throw new BadRequestError("role must be owner or member");
  const email = normalizeEmail(input.email);
  return store.tx(async () => {
    const by = await requireOwner(store, accountId, actor, "add members or change roles");
    const existing = await store.accounts.member(accountId, email);
    if (existing?.role === "owner" && input.role !== "owner" && (await store.accounts.owners(accountId)).length === 1) {
      throw new BadRequestError(`${email} is the account's only owner: add another owner first`);
    }
    const member: Member = { id: existing?.id ?? newId("mem"), accountId, email: existing?.email ?? email, role: input.role, createdAt: existing?.createdAt ?? now.toISOString() };
    await store.accounts.addMember(member);
    await store.audit.record(by, existing ? "member.role" : "member.add", accountId, { email, role: input.role });
    return member;
  });
}

/** A new API key of this environment (owners only); the key itself is returned once and never stored. */
export async function createKey(store: Store, env: Environment, accountId: string, actor: Actor, now: Date = new Date()): Promise<{ key: string; keyId: string }> {
  return store.tx(async () => {
    const by = await requireOwner(store, accountId, actor, "create API keys");
    const issued = issueKey(env);
    await store.accounts.insertKey({ keyId: issued.keyId, accountId, environment: env, secretHash: issued.hash, last4: issued.last4, createdBy: by, createdAt: now.toISOString(), revokedAt: null, lastUsedAt: null });
    await store.audit.record(by, "key.create", accountId, { keyId: issued.keyId });
    return { key: issued.key, keyId: issued.keyId };
  });
}

/** Revokes a key at once (owners only); revoking a revoked key again is harmless. */
export async function revokeKey(store: Store, accountId: string, actor: Actor, keyId: string, now: Date = new Date()): Promise<{ keyId: string; revoked: true }> {
  return store.tx(async () => {
    const by = await requireOwner(store, accountId, actor, "revoke API keys");
    if (!(await store.accounts.revokeKey(accountId, keyId, now.toISOString()))) throw new NotFoundError(`account ${accountId} has no key ${keyId}`);
    await store.audit.record(by, "key.revoke", accountId, { keyId });
    return { keyId, revoked: true };
  });
}

/** Removes a member from the team (owners only) and ends their portal sessions; the last owner cannot be removed. */
export async function removeMember(store: Store, accountId: string, actor: Actor, email: string, now: Date = new Date()): Promise<{ email: string; removed: true }> {
  const address = normalizeEmail(email);
  return store.tx(async () => {
    const by = await requireOwner(store, accountId, actor, "remove members");
    const existing = await store.accounts.member(accountId, address);
    if (!existing) throw new NotFoundError(`${address} is not on the team`);
    if (existing.role === "owner" && (await store.accounts.owners(accountId)).length === 1) throw new BadRequestError(`${address} is the account's only owner: add another owner first`);
    await store.accounts.removeMember(accountId, address);
    await store.portal.endSessionsOf(accountId, existing.email, now.toISOString());
    await store.audit.record(by, "member.remove", accountId, { email: address });
    return { email: address, removed: true };
  });
}

/** The team as the portal shows it to owners (who manage it): who, with which role. */
export async function listTeam(store: Store, accountId: string, actor: Actor): Promise<Member[]> {
  await requireOwner(store, accountId, actor, "manage the team");
  return store.accounts.members(accountId);
}

/**
 * The account's keys as owners see them, newest first, revoked ones included: id, the key's public prefix (its
 * environment's prefix and id, `pd_test_<keyId>`: what a key starts with, never its secret) and the secret's last
 * four characters, who made it and when, last use, revocation.
 */
export async function listKeys(store: Store, accountId: string, actor: Actor) {
  await requireOwner(store, accountId, actor, "see API keys");
  return (await store.accounts.keys(accountId)).map((k) => ({
    keyId: k.keyId,
    prefix: `${KEY_PREFIX[k.environment]}${k.keyId}`,
    last4: k.last4,
    createdBy: k.createdBy,
    createdAt: k.createdAt,
    lastUsedAt: k.lastUsedAt,
    revokedAt: k.revokedAt,
  }));
}

/** The account's audit log as owners see it (its own rows and its campaigns' and drawings'), newest first. */
export async function accountAudit(store: Store, accountId: string, actor: Actor, limit = 200) {
  await requireOwner(store, accountId, actor, "see the audit log");
  return store.audit.ofAccount(accountId, limit);
}
