/**
 * The portal's door checks, in one middleware: the session behind the cookie, and for every POST a same-origin
 * check and a CSRF token (the session's, or before sign-in the form cookie's: a double-submit token), so no form
 * can be posted from another site. Pages are never cached and may load nothing from elsewhere.
 */
import { randomBytes } from "node:crypto";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { ForbiddenError, UnauthorizedError } from "../../domain/errors.js";
import { csrfMatches, currentSession } from "../../domain/portal.js";
import type { Member } from "../../store/accounts.js";
import type { Store } from "../../store/index.js";
import type { PortalSession } from "../../store/portal.js";
import { refuseNul } from "../nulGuard.js";

export const SESSION_COOKIE = "pd_session";
const FORM_COOKIE = "pd_form";

export type SignedIn = PortalSession & { member: Member };

export type PortalEnv = {
  Variables: {
    /** The signed-in person, or null. */
    session: SignedIn | null;
    /** The token forms carry when signed out (the form cookie's value). */
    formToken: string;
    /** A POST's parsed form (urlencoded or multipart), after the CSRF check. */
    form: Record<string, string | File>;
  };
};

/** Cookies are `Secure` unless the service is reached over plain http on a loopback address (local use, tests). */
export function cookieSecure(publicBaseUrl: string): boolean {
  const url = new URL(publicBaseUrl);
  return !(url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname));
}

const CSP = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function portalGuard(store: Store, publicBaseUrl: string) {
  const secure = cookieSecure(publicBaseUrl);
  const ownOrigin = new URL(publicBaseUrl).origin;
  return createMiddleware<PortalEnv>(async (c, next) => {
    c.header("Cache-Control", "no-store");
    c.header("Content-Security-Policy", CSP);
    c.header("X-Frame-Options", "DENY");
    const id = getCookie(c, SESSION_COOKIE);
    c.set("session", id ? await currentSession(store, id) : null);
    let formToken = getCookie(c, FORM_COOKIE);
    if (!formToken || !/^[A-Za-z0-9_-]{32}$/.test(formToken)) {
      formToken = randomBytes(24).toString("base64url");
      setCookie(c, FORM_COOKIE, formToken, { httpOnly: true, sameSite: "Strict", secure, path: "/portal" });
    }
    c.set("formToken", formToken);
    if (c.req.method === "POST") {
      // A browser says where a request comes from; a form posted from another site is refused before it is read.
      const site = c.req.header("sec-fetch-site");
      const origin = c.req.header("origin");
      if ((site && site !== "same-origin" && site !== "none") || (origin && origin !== ownOrigin && origin !== new URL(c.req.url).origin)) {
        throw new ForbiddenError("this form was sent from another site: open the portal and send it from there");
      }
      const form = (await c.req.parseBody()) as Record<string, string | File>;
      const presented = typeof form._csrf === "string" ? form._csrf : undefined;
      const session = c.var.session;
      if (!csrfMatches(session ?? { csrfToken: formToken }, presented)) throw new ForbiddenError("this form has expired (or was sent from elsewhere): reload the page and send it again");
      refuseNul(Object.fromEntries(Object.entries(form).filter(([, v]) => typeof v === "string")));
      c.set("form", form);
    }
    await next();
  });
}

/** The signed-in person; signed out, a GET goes to the sign-in page and anything else is refused. */
export function signedIn(c: Context<PortalEnv>): SignedIn {
  const session = c.var.session;
  if (!session) throw new UnauthorizedError("sign in first");
  return session;
}

/** Whether the request's session cookie should be set `Secure` (shared with the sign-in route). */
export function sessionCookie(c: Context<PortalEnv>, id: string, publicBaseUrl: string, maxAgeSeconds: number): void {
  setCookie(c, SESSION_COOKIE, id, { httpOnly: true, sameSite: "Lax", secure: cookieSecure(publicBaseUrl), path: "/portal", maxAge: maxAgeSeconds });
}

/** A form's text field, "" when missing or a file. */
export function field(c: Context<PortalEnv>, name: string): string {
  const value = c.var.form[name];
  return typeof value === "string" ? value : "";
}
