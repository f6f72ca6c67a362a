/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
// The pragmas above: the service runs under tsx from the repository root, whose tsconfig has no JSX settings.
import type { Child } from "hono/jsx";
import { html } from "hono/html";

/**
 * One small stylesheet for every page: system fonts, a narrow column, tables that scroll sideways on phones. The
 * body's colours are the browser's own (Canvas, CanvasText), set explicitly so that contrast checkers see the dark
 * scheme's background rather than assume white.
 */
const STYLE = `
:root { color-scheme: light dark; --muted: #5b6470; --line: #d8dde3; --note: #8a4b00; --warn-bg: #fff4e0; --pass: #1a7f37; --fail: #c62828; --chip: #e3e8ee; }
@media (prefers-color-scheme: dark) { :root { --muted: #a3acb7; --line: #3a4048; --note: #f0b060; --warn-bg: #3a2a10; --pass: #5fd07a; --fail: #ff7b72; --chip: #313840; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, Segoe UI, Roboto, Helvetica Neue, Arial, sans-serif; background-color: Canvas; color: CanvasText; }
main, footer { max-width: 44rem; margin: 0 auto; padding: 0 1rem; }
main { padding-top: 1rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0.5rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 2rem 0 0.5rem; }
h3 { font-size: 1rem; margin: 0; }
p, ul { margin: 0.5rem 0; }
a { color: inherit; text-decoration-thickness: 1px; text-underline-offset: 2px; overflow-wrap: anywhere; }
.muted, small { color: var(--muted); }
.status { display: inline-block; padding: 0 0.5rem; border: 1px solid var(--line); border-radius: 1rem; font-size: 0.875rem; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: 0.5rem 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.375rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: middle; }
th { font-size: 0.875rem; color: var(--muted); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
tfoot td { font-weight: 600; border-bottom: 0; }
.draw { border-top: 1px solid var(--line); padding: 0.75rem 0; }
.draw header { display: flex; flex-wrap: wrap; gap: 0.25rem 0.75rem; align-items: baseline; }
.winner { display: flex; align-items: center; gap: 0.5rem; }
.winner span { overflow-wrap: anywhere; }
.avatar { position: relative; flex: none; display: inline-block; width: 32px; height: 32px; border-radius: 50%; overflow: hidden; background: var(--chip); }
.avatar img { position: absolute; top: 0; left: 0; width: 100%; height: 100%; object-fit: cover; }
.avatar::before, .avatar img::after { content: attr(data-initials); position: absolute; top: 0; left: 0; width: 100%; height: 100%; background: var(--chip); font-size: 0.8125rem; font-weight: 600; line-height: 32px; text-align: center; }
.warning { margin: 0 0 1rem; padding: 0.75rem 1rem; border: 2px solid var(--note); border-radius: 0.5rem; background: var(--warn-bg); }
.warning strong { display: block; font-size: 1.125rem; color: var(--note); }
.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.125rem 0.75rem; margin: 0.5rem 0; font-size: 0.875rem; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; min-width: 0; }
.hash { display: inline-block; max-width: 100%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; vertical-align: bottom; }
.check-here { margin: 0.5rem 0; }
.check-here button, .lookup-row button { font: inherit; padding: 0.375rem 0.875rem; border: 1px solid currentColor; border-radius: 0.375rem; background: transparent; color: inherit; cursor: pointer; }
.check-here button[disabled], .lookup-row button[disabled] { cursor: progress; opacity: 0.7; }
.lookup-form label { display: block; font-weight: 600; margin-top: 0.5rem; }
.lookup-row { display: flex; flex-wrap: wrap; gap: 0.5rem; margin: 0.25rem 0 0.5rem; }
.lookup-row input { flex: 1 1 12rem; min-width: 0; font: inherit; padding: 0.375rem 0.5rem; border: 1px solid var(--muted); border-radius: 0.375rem; background: transparent; color: inherit; }
.lookup-summary { font-weight: 600; overflow-wrap: anywhere; }
.lookup-draws { list-style: none; padding: 0; }
.lookup-draw { border-top: 1px solid var(--line); padding: 0.5rem 0; }
.lookup-draw p { margin: 0.125rem 0; overflow-wrap: anywhere; }
.lookup-won .lookup-headline { color: var(--pass); font-weight: 600; }
.marks { list-style: none; padding: 0; font-size: 0.875rem; }
.marks li { margin: 0.125rem 0; overflow-wrap: anywhere; }
.marks ul { list-style: disc; padding-left: 1.5rem; color: var(--muted); }
.mark-pass { color: var(--pass); }
.mark-fail { color: var(--fail); font-weight: 600; }
.mark-info { color: var(--muted); }
.check-summary { font-weight: 600; }
.held { color: var(--note); font-size: 0.875rem; }
td .held { display: block; white-space: normal; }
.provisional { margin-left: 0.5rem; padding: 0 0.375rem; border: 1px solid var(--note); border-radius: 0.25rem; color: var(--note); font-size: 0.8125rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; padding: 0.5rem 0.75rem; border: 1px solid var(--line); border-radius: 0.25rem; font-size: 0.8125rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
footer { margin: 2rem auto; padding-top: 1rem; border-top: 1px solid var(--line); font-size: 0.875rem; }
footer a { margin-right: 1rem; }
`;
// JSX escapes text, also inside <style>: the sheet must hold nothing that escaping would change.
if (/[<>&"']/.test(STYLE)) throw new Error("the page stylesheet must not contain < > & \" or '");

export type FooterLink = { href: string; label: string };

/**
 * The HTML document: no external assets, one inline stylesheet, and no scripts but the service's own module
 * scripts `scripts` names (same origin, loaded by src: the CSP forbids inline scripts).
 */
export function Layout(props: { title: string; footer: FooterLink[]; scripts?: string[]; children: Child }) {
  return html`<!DOCTYPE html>${(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{props.title}</title>
        <style>{STYLE}</style>
        {(props.scripts ?? []).map((src) => (
          <script type="module" src={src}></script>
        ))}
      </head>
      <body>
        <main>{props.children}</main>
        <footer>
          {props.footer.map((link) => (
            <a href={link.href}>{link.label}</a>
          ))}
        </footer>
      </body>
    </html>
  )}`;
}
