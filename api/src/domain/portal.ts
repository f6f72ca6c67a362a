/**
 * The portal's sign-in (spec, Authentication 8: by emailed link, no password) and sessions. The rules, once:
 * - a link is 32 random bytes, stored only as its SHA-256, used once, and expires (sign-in: 15 minutes; an invite:
 *   7 days, since the invited person may read their mail later);
 * - "send me a link" answers the same whether or not the address is on a team, and is rate-limited per address
 *   (the links mailed to it) and per client (the requests it made); a refused request is not counted, so a third
 *   party's refused requests never extend a lockout, and an address with no team is sent nothing and counts nothing;
 * - mail is handed to the mailer, which sends it off the request path (mail/queue.ts): the answer never waits for
 *   the SMTP server, so neither its time nor an SMTP failure tells whether the address has an account;
 * - invites are limited per address (per team, per day) and per team (per hour), so a team's page cannot be used to
 *   fill someone's inbox;
 * - a session is a row: a random id in an HttpOnly cookie (stored as its SHA-256), a fresh id at every sign-in, an
 *   idle expiry and an absolute one, ended at sign-out or when the member is removed.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Mailer } from "../mail/mailer.js";
import type { Member, Role } from "../store/accounts.js";
import type { Store } from "../store/index.js";
import type { PortalSession } from "../store/portal.js";
import { ServiceError } from "./errors.js";
import { addMember, normalizeEmail, requireOwner, type Actor } from "./team.js";

export const SIGN_IN_LINK_MINUTES = 15;
export const INVITE_LINK_DAYS = 7;
/** A session unused this long ends; none lasts longer than SESSION_ABSOLUTE_HOURS. */
export const SESSION_IDLE_MINUTES = 120;
export const SESSION_ABSOLUTE_HOURS = 12;
/** Sign-in requests per address and per client in RATE_WINDOW_MINUTES. */
export const SIGN_INS_PER_ADDRESS = 5;
export const SIGN_INS_PER_CLIENT = 20;
export const RATE_WINDOW_MINUTES = 15;
/**
 * Invites mailed to one address by one team in INVITE_ADDRESS_WINDOW_HOURS (a lost mail, a typo fixed, a role
 * changed: a few are plenty), and by one team to anyone in INVITE_TEAM_WINDOW_MINUTES (a team set up at once).
 */
export const INVITES_PER_ADDRESS_PER_DAY = 3;
export const INVITE_ADDRESS_WINDOW_HOURS = 24;
export const INVITES_PER_TEAM_PER_HOUR = 20;
export const INVITE_TEAM_WINDOW_MINUTES = 60;

/** "5 minutes", "1 minute", "3 hours": a wait as the pages say it (rounded up). */
function waitText(seconds: number): string {
  const [n, unit] = seconds > 3_600 ? [Math.ceil(seconds / 3_600), "hour"] : [Math.ceil(seconds / 60), "minute"];
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

/** 429: a limit of the portal's mail was reached; `retryAfterSeconds` is the page's Retry-After. */
export class TooManyRequestsError extends Error {
  override name = "TooManyRequestsError";
  readonly code = "too_many_requests";
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * 429: too many sign-in requests for this address or from this client; `retryAfterSeconds` says when the oldest
 * counted request leaves the window.
 */
export class TooManySignInsError extends TooManyRequestsError {
  override name = "TooManySignInsError";
  constructor(retryAfterSeconds: number) {
    super(`too many sign-in requests: try again in ${waitText(retryAfterSeconds)}`, retryAfterSeconds);
  }
}

/** 429: too many invites to this address from this team, or from this team at all; nothing was changed or sent. */
export class TooManyInvitesError extends TooManyRequestsError {
  override name = "TooManyInvitesError";
}

/** A link that is unknown, used or expired: the page says so and offers a new one, whichever it was. */
export class LinkNotValidError extends ServiceError {
  override name = "LinkNotValidError";
  constructor() {
    super(400, "bad_request", "this sign-in link is not valid any more (each link works once, for 15 minutes): ask for a new one");
  }
}

export const hashToken = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex");
const newToken = (): string => randomBytes(32).toString("base64url");

export type LinkUrl = (token: string) => string;

/**
 * Handles "send me a sign-in link": rate-limits, and mails a link when the address is on at least one team. The
 * caller answers the same in every case (the result is for tests and the log, never for the page), and in the same
 * time: the link is written in the transaction that counts the request, and the mail is handed to the mailer, which
 * does not wait for the SMTP server.
 */
export async function requestSignIn(store: Store, mailer: Mailer, input: { email: string; client: string }, linkUrl: LinkUrl, now: Date = new Date()): Promise<"sent" | "no_account"> {
  const email = normalizeEmail(input.email);
  const windowMs = RATE_WINDOW_MINUTES * 60_000;
  const since = new Date(now.getTime() - windowMs).toISOString();
  const [addressKey, clientKey] = [`email:${email}`, `client:${input.client}`];
  const token = newToken();
  const onTeam = await store.tx(async () => {
    const [perAddress, perClient] = await store.portal.attemptsSince([addressKey, clientKey], since);
    const full = [perAddress!.count >= SIGN_INS_PER_ADDRESS && perAddress!, perClient!.count >= SIGN_INS_PER_CLIENT && perClient!].filter((k) => k !== false);
    if (full.length > 0) {
      // Until the oldest counted request of the limit that refuses leaves the window (the later, when both do).
      const waitMs = Math.max(...full.map((k) => (k.oldestAt === null ? 0 : Date.parse(k.oldestAt) + windowMs - now.getTime())));
      throw new TooManySignInsError(Math.max(1, Math.ceil(waitMs / 1_000)));
    }
    const member = (await store.accounts.membershipsOf(email)).length > 0;
    await store.portal.recordAttempts(member ? [addressKey, clientKey] : [clientKey], now.toISOString());
    if (member) {
      await store.portal.insertLink({
        tokenHash: hashToken(token),
        email,
        purpose: "sign_in",
        accountId: null,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + SIGN_IN_LINK_MINUTES * 60_000).toISOString(),
        usedAt: null,
      });
    }
    return member;
  });
  if (!onTeam) return "no_account";
  await mailer.send({
    to: email,
    subject: "Your sign-in link for the prize draw portal",
    text: `Sign in to the prize draw portal with this link (it works once, for ${SIGN_IN_LINK_MINUTES} minutes):\n\n${linkUrl(token)}\n\nIf you did not ask for it, ignore this mail: nothing happens without the link.`,
  });
  return "sent";
}

/**
 * Refuses an invite over a limit (inside the caller's transaction): INVITES_PER_ADDRESS_PER_DAY to one address from
 * this team, INVITES_PER_TEAM_PER_HOUR from this team. The wait is until the oldest counted invite of the limit that
 * refuses leaves its window (the later, when both do).
 */
async function refuseOverInviteLimits(store: Store, accountId: string, email: string, now: Date): Promise<void> {
  const addressWindowMs = INVITE_ADDRESS_WINDOW_HOURS * 3_600_000;
  const teamWindowMs = INVITE_TEAM_WINDOW_MINUTES * 60_000;
  const toAddress = await store.portal.invitesSince(accountId, new Date(now.getTime() - addressWindowMs).toISOString(), email);
  const fromTeam = await store.portal.invitesSince(accountId, new Date(now.getTime() - teamWindowMs).toISOString());
  const refusals: { reason: string; waitMs: number }[] = [];
  const waitFor = (oldestAt: string | null, windowMs: number) => (oldestAt === null ? 0 : Date.parse(oldestAt) + windowMs - now.getTime());
  if (toAddress.count >= INVITES_PER_ADDRESS_PER_DAY) {
    refusals.push({ reason: `${email} was invited ${toAddress.count} times in the last ${INVITE_ADDRESS_WINDOW_HOURS} hours`, waitMs: waitFor(toAddress.oldestAt, addressWindowMs) });
  }
  if (fromTeam.count >= INVITES_PER_TEAM_PER_HOUR) {
    refusals.push({ reason: `this team sent ${fromTeam.count} invites in the last hour`, waitMs: waitFor(fromTeam.oldestAt, teamWindowMs) });
  }
  if (refusals.length === 0) return;
  const seconds = Math.max(1, Math.ceil(Math.max(...refusals.map((r) => r.waitMs)) / 1_000));
  throw new TooManyInvitesError(`${refusals.map((r) => r.reason).join(", and ")}: no invite was sent; try again in ${waitText(seconds)}`, seconds);
}

/**
 * Invites someone to the account's team (owners only): adds them, or changes the role of one already on it, and
 * mails them an invite link. Over an invite limit nothing is changed and nothing is sent (TooManyInvitesError).
 */
export async function inviteMember(
  store: Store,
  mailer: Mailer,
  accountId: string,
  actor: Actor,
  input: { email: string; role: Role },
  linkUrl: LinkUrl,
  now: Date = new Date(),
): Promise<Member> {
  const email = normalizeEmail(input.email);
  const token = newToken();
  const { member, invitedBy } = await store.tx(async () => {
    // The owner check first: a member who is not an owner is told so (403), whatever the limits.
    const by = await requireOwner(store, accountId, actor, "add members or change roles");
    await refuseOverInviteLimits(store, accountId, email, now);
    const added = await addMember(store, accountId, actor, { email, role: input.role }, now);
    await store.portal.insertLink({
      tokenHash: hashToken(token),
      email: added.email,
      purpose: "invite",
      accountId: added.accountId,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + INVITE_LINK_DAYS * 86_400_000).toISOString(),
      usedAt: null,
    });
    return { member: added, invitedBy: by };
  });
  await mailer.send({
    to: member.email,
    subject: "You are invited to a prize draw portal team",
    text: `${invitedBy} added you to their team (role: ${member.role}). Join with this link (it works once, for ${INVITE_LINK_DAYS} days):\n\n${linkUrl(token)}\n\nAfter that, sign in at any time with a link sent to this address.`,
  });
  return member;
}

/** What using a link gives: the address, and the accounts it may choose from (an invite's account first). */
export type UsedLink = { email: string; accountIds: string[] };

/** Uses a link once: unknown, used, expired, or for an address no longer on any team is LinkNotValidError. */
export async function useLink(store: Store, token: string, now: Date = new Date()): Promise<UsedLink> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) throw new LinkNotValidError();
  const tokenHash = hashToken(token);
  return store.tx(async () => {
    const link = await store.portal.link(tokenHash);
    if (!link || link.usedAt !== null || Date.parse(link.expiresAt) <= now.getTime()) throw new LinkNotValidError();
    if (!(await store.portal.useLink(tokenHash, now.toISOString()))) throw new LinkNotValidError();
    const accountIds = (await store.accounts.membershipsOf(link.email)).map((m) => m.accountId);
    if (accountIds.length === 0) throw new LinkNotValidError();
    if (link.accountId && accountIds.includes(link.accountId)) accountIds.sort((a, b) => (a === link.accountId ? -1 : b === link.accountId ? 1 : 0));
    return { email: link.email, accountIds };
  });
}

/** A new session (a fresh id at every sign-in); the id goes to the cookie and is stored only as its hash. */
export async function startSession(store: Store, email: string, accountId: string, now: Date = new Date()): Promise<{ id: string; session: PortalSession }> {
  if (!(await store.accounts.member(accountId, email))) throw new LinkNotValidError();
  const id = newToken();
  const session: PortalSession = {
    idHash: hashToken(id),
    email,
    accountId,
    csrfToken: newToken(),
    createdAt: now.toISOString(),
    lastSeenAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_HOURS * 3_600_000).toISOString(),
    endedAt: null,
  };
  await store.tx(async () => {
    await store.portal.insertSession(session);
    await store.audit.record(email, "portal.sign_in", accountId, {});
  });
  return { id, session };
}

/** The live session behind a cookie id, touched; null when unknown, ended, idle too long, past its end, or the member left. */
export async function currentSession(store: Store, id: string, now: Date = new Date()): Promise<(PortalSession & { member: Member }) | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
  const session = await store.portal.session(hashToken(id));
  if (!session || session.endedAt !== null) return null;
  if (Date.parse(session.expiresAt) <= now.getTime()) return null;
  if (now.getTime() - Date.parse(session.lastSeenAt) > SESSION_IDLE_MINUTES * 60_000) return null;
  const member = await store.accounts.member(session.accountId, session.email);
  if (!member) return null;
  // One write a minute at most: the idle clock does not need more.
  if (now.getTime() - Date.parse(session.lastSeenAt) > 60_000) await store.portal.touchSession(session.idHash, now.toISOString());
  return { ...session, member };
}

export async function endSession(store: Store, id: string, now: Date = new Date()): Promise<void> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return;
  const session = await store.portal.session(hashToken(id));
  if (!session || session.endedAt) return;
  // Two sign-outs at once (two tabs): only the one whose update ends the session writes the audit row.
  await store.tx(async () => {
    if (await store.portal.endSession(session.idHash, now.toISOString())) await store.audit.record(session.email, "portal.sign_out", session.accountId, {});
  });
}

/** Constant-time check of a form's CSRF token against the session's. */
export function csrfMatches(session: Pick<PortalSession, "csrfToken">, presented: string | undefined): boolean {
  if (typeof presented !== "string") return false;
  const a = Buffer.from(session.csrfToken);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}
