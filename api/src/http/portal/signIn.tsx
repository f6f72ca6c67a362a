/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
// Sign-in by emailed link (spec, Authentication 8), sign-out, and the test environment's outbox.
import { Hono } from "hono";
import { deleteCookie, getCookie } from "hono/cookie";
import { z } from "zod";
import { BadRequestError, NotFoundError } from "../../domain/errors.js";
import { SESSION_ABSOLUTE_HOURS, SIGN_IN_LINK_MINUTES, endSession, requestSignIn, startSession, useLink } from "../../domain/portal.js";
import type { Mailer } from "../../mail/mailer.js";
import type { Store } from "../../store/index.js";
import { SESSION_COOKIE, field, sessionCookie, type PortalEnv } from "./guard.js";
import { Csrf, PortalLayout } from "./Layout.js";
import { clientAddress } from "../clientAddress.js";

export type SignInDeps = { store: Store; mailer: Mailer; publicBaseUrl: string; env: "test" | "production"; trustedProxyHops?: number };

const signInForm = z.object({ email: z.string().trim().min(3, "enter your email address").max(254, "an email address has at most 254 characters") });

function SignInForm(props: { token: string; email?: string; error?: string }) {
  return (
    <form method="post" action="/portal/sign-in" novalidate>
      <Csrf token={props.token} />
      <label for="email">
        Email address
        <span class="hint">We send a sign-in link to this address. No password.</span>
      </label>
      <input id="email" name="email" type="email" autocomplete="email" required value={props.email ?? ""} aria-invalid={props.error ? "true" : undefined} aria-describedby={props.error ? "email-error" : undefined} />
      {props.error ? (
        <p id="email-error" class="field-error">
          {props.error}
        </p>
      ) : null}
      <p>
        <button type="submit">Send me a sign-in link</button>
      </p>
    </form>
  );
}

export function signInRoutes({ store, mailer, publicBaseUrl, env, trustedProxyHops = 0 }: SignInDeps) {
  const app = new Hono<PortalEnv>();
  const linkUrl = (token: string) => `${publicBaseUrl}/portal/auth?token=${encodeURIComponent(token)}`;

  app.get("/sign-in", (c) => {
    if (c.var.session) return c.redirect("/portal", 303);
    return c.html(
      <PortalLayout title="Sign in" viewer={null}>
        <SignInForm token={c.var.formToken} />
        {mailer.kind === "outbox" ? (
          <p class="hint">
            Test environment without SMTP_URL: the link is in the service's output and in the <a href="/portal/outbox">outbox</a>.
          </p>
        ) : null}
      </PortalLayout>,
    );
  });

  app.post("/sign-in", async (c) => {
    const parsed = signInForm.safeParse({ email: field(c, "email") });
    const email = parsed.success ? parsed.data.email : field(c, "email").slice(0, 254);
    const again = (error: string) =>
      c.html(
        <PortalLayout title="Sign in" viewer={null}>
          <SignInForm token={c.var.formToken} email={email} error={error} />
        </PortalLayout>,
        400,
      );
    if (!parsed.success) return again(parsed.error.issues[0]!.message);
    const client = clientAddress(c, trustedProxyHops);
    try {
      await requestSignIn(store, mailer, { email: parsed.data.email, client }, linkUrl);
    } catch (error) {
      if (error instanceof BadRequestError) return again("this is not an email address");
      throw error;
    }
    // The same answer whether or not the address is on a team, in the same time (the mail is sent off the request
    // path, and an SMTP failure is logged, never shown): the page never tells who has an account.
    return c.html(
      <PortalLayout title="Check your mail" viewer={null} notice={{ kind: "ok", text: "If this address is on a team, a sign-in link is on its way." }}>
        <p>
          The link works once, for {SIGN_IN_LINK_MINUTES} minutes. <a href="/portal/sign-in">Ask for another</a> if it does not arrive.
        </p>
      </PortalLayout>,
    );
  });

  // The emailed link opens a page with one button: mail scanners that fetch links do not use it up.
  app.get("/auth", (c) => {
    const token = (c.req.query("token") ?? "").slice(0, 100);
    return c.html(
      <PortalLayout title="Sign in" viewer={null}>
        <form method="post" action="/portal/auth">
          {/* Already signed in (a second link, an invite): the session's token, which the guard then checks. */}
          <Csrf token={c.var.session?.csrfToken ?? c.var.formToken} />
          <input type="hidden" name="token" value={token} />
          <p>
            <button type="submit">Continue to the portal</button>
          </p>
        </form>
      </PortalLayout>,
    );
  });

  app.post("/auth", async (c) => {
    const used = await useLink(store, field(c, "token"));
    const old = getCookie(c, SESSION_COOKIE);
    if (old) await endSession(store, old);
    // A person on several teams signs in to the one an invite named, else the first they joined.
    const { id } = await startSession(store, used.email, used.accountIds[0]!);
    sessionCookie(c, id, publicBaseUrl, SESSION_ABSOLUTE_HOURS * 3_600);
    return c.redirect("/portal", 303);
  });

  app.post("/sign-out", async (c) => {
    const id = getCookie(c, SESSION_COOKIE);
    if (id) await endSession(store, id);
    deleteCookie(c, SESSION_COOKIE, { path: "/portal" });
    return c.html(
      <PortalLayout title="Signed out" viewer={null} notice={{ kind: "ok", text: "You are signed out." }}>
        <p>
          <a href="/portal/sign-in">Sign in again</a>
        </p>
      </PortalLayout>,
    );
  });

  // The test environment's mail, when no SMTP server is configured: links to click, never in production.
  app.get("/outbox", async (c) => {
    if (env !== "test" || mailer.kind !== "outbox") throw new NotFoundError("no outbox: mail goes out by SMTP");
    const mails = await store.portal.outbox();
    return c.html(
      <PortalLayout title="Outbox (test environment)" viewer={null}>
        <p class="hint">Mail the service would have sent, newest first. Set SMTP_URL to send real mail.</p>
        {mails.length === 0 ? <p>No mail yet.</p> : null}
        {mails.map((m) => (
          <article>
            <h2>{m.subject}</h2>
            <p class="hint">
              To {m.to}, {m.createdAt}
            </p>
            <pre>{m.body}</pre>
          </article>
        ))}
      </PortalLayout>,
    );
  });

  return app;
}
