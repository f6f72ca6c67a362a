/**
 * The portal's sign-in (spec, Authentication 8: by emailed link, no password) and sessions. The rules, once:
 * - a link is 32 random bytes, stored only as its SHA-256, used once, and expires (sign-in: 15 minutes; an invite:
 *   7 days, since the invited person may read their mail later);
 * - "send me a link" answers the same whether or not the address is on a team, and is rate-limited per address
 *   (the links mailed to it) and per client (the requests it made); a refused request is not counted, so a third
 *   party's refused requests never extend a lockout, and an address with no team is sent nothing and counts nothing;
 * - a session is a row: a random id in an HttpOnly cookie (stored as its SHA-256), a fresh id at every sign-in, an
 *   idle expiry and an absolute one, ended at sign-out or when the member is removed.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Mailer } from "../mail/mailer.js";
import type { Member } from "../store/accounts.js";
import type { Store } from "../store/index.js";
import type { PortalSession } from "../store/portal.js";
import { ServiceError } from "./errors.js";
import { normalizeEmail } from "./team.js";

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
 * 429: too many sign-in requests for this address or from this client; `retryAfterSeconds` says when the oldest
 * counted request leaves the window (the page's Retry-After).
 */
export class TooManySignInsError extends Error {
  override name = "TooManySignInsError";
  readonly code = "too_many_requests";
  constructor(readonly retryAfterSeconds: number) {
    super(`too many sign-in requests: try again in ${Math.ceil(retryAfterSeconds / 60)} minute${retryAfterSeconds > 60 ? "s" : ""}`);
  }
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
 * caller answers the same in every case (the result is for tests and the log, never for the page).
 */
export async function requestSignIn(store: Store, mailer: Mailer, input: { email: string; client: string }, linkUrl: LinkUrl, now: Date = new Date()): Promise<"sent" | "no_account"> {
  const email = normalizeEmail(input.email);
  const windowMs = RATE_WINDOW_MINUTES * 60_000;
  const since = new Date(now.getTime() - windowMs).toISOString();
  const [addressKey, clientKey] = [`email:${email}`, `client:${input.client}`];
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
    return member;
  });
  if (!onTeam) return "no_account";
  const token = newToken();
  await store.portal.insertLink({
    tokenHash: hashToken(token),
    email,
    purpose: "sign_in",
    accountId: null,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + SIGN_IN_LINK_MINUTES * 60_000).toISOString(),
    usedAt: null,
  });
  await mailer.send({
    to: email,
    subject: "Your sign-in link for the prize draw portal",
    text: `Sign in to the prize draw portal with this link (it works once, for ${SIGN_IN_LINK_MINUTES} minutes):\n\n${linkUrl(token)}\n\nIf you did not ask for it, ignore this mail: nothing happens without the link.`,
  });
  return "sent";
}

/** Mails an invite link to a member an owner just added (team.addMember made the membership). */
export async function sendInvite(store: Store, mailer: Mailer, member: Member, invitedBy: string, linkUrl: LinkUrl, now: Date = new Date()): Promise<void> {
  const token = newToken();
  await store.portal.insertLink({
    tokenHash: hashToken(token),
    email: member.email,
    purpose: "invite",
    accountId: member.accountId,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + INVITE_LINK_DAYS * 86_400_000).toISOString(),
    usedAt: null,
  });
  await mailer.send({
    to: member.email,
    subject: "You are invited to a prize draw portal team",
    text: `${invitedBy} added you to their team (role: ${member.role}). Join with this link (it works once, for ${INVITE_LINK_DAYS} days):\n\n${linkUrl(token)}\n\nAfter that, sign in at any time with a link sent to this address.`,
  });
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
