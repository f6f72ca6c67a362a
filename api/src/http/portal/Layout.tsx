/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
// The partner portal's document: one stylesheet (/portal/portal.css), server-rendered forms that work without
// scripts, and one small module script (/portal/portal.js) for the copy button.
import { randomBytes } from "node:crypto";
import type { Child } from "hono/jsx";
import { html } from "hono/html";
import type { Role } from "../../store/accounts.js";

/** Who is signed in, for the header; null on the signed-out pages. */
export type Viewer = { email: string; role: Role; accountId: string; csrf: string } | null;

/** Every form carries the session's (or, signed out, the form cookie's) token: see portal/guard.ts. */
export function Csrf(props: { token: string }) {
  return <input type="hidden" name="_csrf" value={props.token} />;
}

/** A form whose result is shown once also carries a token of this page view: see portal/once.ts. */
export function Once() {
  return <input type="hidden" name="_once" value={randomBytes(16).toString("base64url")} />;
}

/** A notice at the top of a page: a result ("Key revoked") or an error the form could not take. */
export type Notice = { kind: "ok" | "error"; text: string } | null;

/** `script`: one more of the service's own module scripts for this page (the drawing page's in-browser check). */
export function PortalLayout(props: { title: string; viewer: Viewer; notice?: Notice; script?: string; children: Child }) {
  const { viewer, notice } = props;
  return html`<!DOCTYPE html>${(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* same-origin, not no-referrer: under no-referrer Chromium sends `Origin: null` with a form, which the
            same-origin check refuses; other sites still get no referrer (so no sign-in token leaks). */}
        <meta name="referrer" content="same-origin" />
        <title>{`${props.title} · Prize draw portal`}</title>
        <link rel="stylesheet" href="/portal/portal.css" />
        <script type="module" src="/portal/portal.js"></script>
        {props.script ? <script type="module" src={props.script}></script> : null}
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <nav aria-label="Portal">
            <a href="/portal" class="brand">Prize draw portal</a>
            {viewer ? (
              <>
                <a href="/portal">Campaigns</a>
                <a href="/portal/campaigns/new">New campaign</a>
                {viewer.role === "owner" ? <a href="/portal/team">Team</a> : null}
                {viewer.role === "owner" ? <a href="/portal/keys">API keys</a> : null}
                {viewer.role === "owner" ? <a href="/portal/webhooks">Webhooks</a> : null}
                {viewer.role === "owner" ? <a href="/portal/audit">Audit log</a> : null}
              </>
            ) : null}
          </nav>
          {viewer ? (
            <form method="post" action="/portal/sign-out" class="signout">
              <Csrf token={viewer.csrf} />
              <span class="who">
                {viewer.email} ({viewer.role})
              </span>{" "}
              <button type="submit">Sign out</button>
            </form>
          ) : null}
        </header>
        <main id="main" tabindex={-1}>
          <h1>{props.title}</h1>
          {notice ? (
            <p class={`notice ${notice.kind}`} role={notice.kind === "error" ? "alert" : "status"}>
              {notice.text}
            </p>
          ) : null}
          {props.children}
        </main>
      </body>
    </html>
  )}`;
}

/** The portal's one stylesheet: system fonts, contrast that passes in light and dark, usable at phone widths. */
export const PORTAL_CSS = `
:root { color-scheme: light dark; --fg: #16191d; --bg: #ffffff; --muted: #4f5863; --line: #c9d0d8; --accent: #0b57d0; --ok-bg: #e6f4ea; --ok: #14532d; --err-bg: #fdecea; --err: #8c1d18; }
@media (prefers-color-scheme: dark) { :root { --fg: #eef1f4; --bg: #15181c; --muted: #b4bcc6; --line: #3d444d; --accent: #8ab4f8; --ok-bg: #12351f; --ok: #b7efc5; --err-bg: #3d1715; --err: #ffb4ab; } }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: var(--bg); font: 16px/1.5 system-ui, -apple-system, Segoe UI, Roboto, Helvetica Neue, Arial, sans-serif; }
a { color: var(--accent); }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 0.5rem; top: 0.5rem; background: var(--bg); padding: 0.25rem 0.5rem; }
header.top { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; justify-content: space-between; align-items: center; padding: 0.5rem 1rem; border-bottom: 1px solid var(--line); }
header.top nav { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
.brand { font-weight: 700; color: var(--fg); text-decoration: none; }
.who { color: var(--muted); font-size: 0.875rem; }
main { max-width: 52rem; margin: 0 auto; padding: 1rem; }
main:focus { outline: none; }
h1 { font-size: 1.5rem; margin: 0.5rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 0.5rem; }
label { display: block; font-weight: 600; margin: 0.75rem 0 0.25rem; }
.hint { display: block; font-weight: 400; color: var(--muted); font-size: 0.875rem; }
input, select, textarea, button { font: inherit; color: inherit; max-width: 100%; }
input[type=text], input[type=email], input[type=url], input[type=number], input[type=datetime-local], select, textarea { width: 100%; max-width: 28rem; padding: 0.4rem 0.5rem; border: 1px solid var(--muted); border-radius: 0.25rem; background: var(--bg); }
button, .button { display: inline-block; padding: 0.4rem 0.9rem; border: 1px solid var(--accent); border-radius: 0.25rem; background: var(--accent); color: var(--bg); cursor: pointer; text-decoration: none; }
button.secondary { background: transparent; color: var(--accent); }
button.danger { border-color: var(--err); background: transparent; color: var(--err); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.notice { padding: 0.5rem 0.75rem; border-radius: 0.25rem; }
.notice.ok { background: var(--ok-bg); color: var(--ok); }
.notice.error { background: var(--err-bg); color: var(--err); }
.field-error { color: var(--err); font-size: 0.875rem; margin: 0.25rem 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.4rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 0.875rem; color: var(--muted); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.inline { display: inline; }
.secret { display: block; padding: 0.5rem; border: 1px solid var(--line); border-radius: 0.25rem; overflow-wrap: anywhere; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
fieldset { border: 1px solid var(--line); border-radius: 0.25rem; margin: 1rem 0; padding: 0.25rem 0.75rem 0.75rem; }
legend { font-weight: 700; padding: 0 0.25rem; }
.subnav { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; margin: 0 0 1rem; padding-bottom: 0.5rem; border-bottom: 1px solid var(--line); }
.subnav a[aria-current=page] { font-weight: 700; color: var(--fg); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.check input { width: 1.25rem; height: 1.25rem; vertical-align: middle; }
label.inline-label { display: inline; font-weight: 400; }
.card { border: 1px solid var(--line); border-radius: 0.25rem; padding: 0.5rem 0.75rem; margin: 0.75rem 0; }
h3 { font-size: 1rem; margin: 0.25rem 0; }
dl.facts { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: 0.25rem 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
@media (max-width: 30rem) { dl.facts { grid-template-columns: 1fr; } dl.facts dd { margin-bottom: 0.5rem; } }
img.logo { object-fit: contain; vertical-align: middle; margin-right: 0.5rem; }
code.detail { overflow-wrap: anywhere; font-size: 0.8125rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; border: 1px solid var(--line); padding: 0.5rem; }
.check-result ul { padding-left: 1.25rem; }
.mark-pass { color: var(--ok); }
.mark-fail { color: var(--err); }
`;

/** Progressive enhancement: a "Copy" button next to a one-time secret (the page works without it). */
export const PORTAL_JS = `
for (const button of document.querySelectorAll("button[data-copy]")) {
  button.hidden = false;
  button.addEventListener("click", async () => {
    const target = document.getElementById(button.dataset.copy);
    if (!target) return;
    await navigator.clipboard.writeText(target.textContent.trim());
    button.textContent = "Copied";
  });
}
`;
