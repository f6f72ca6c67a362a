// lookup-entry.mjs: the campaign page's "Look up your entry" form. An entrant types the id the campaign gave them;
// the browser looks for it in the public proof of every draw shown on the page and says, per draw, whether the id
// was on the locked list (entries campaigns: its arrival position, weight and chance) and what it won.
//
// The id never leaves the browser. The proofs are public and the same for everyone: the module fetches each one by
// the URL the page already shows (no query, no header or body carrying the id) and runs the served checker on it,
// `verifyDraw(proof, { entrant: id })` of ./verify-draw.mjs, the very code behind `node verify-draw.mjs <proof>
// --entrant <id>`. So the id is hashed (keccak256 of its UTF-8 bytes), matched and given its chance exactly as on the
// command line, and each draw's proof is checked offline on the way: an answer read from a proof that fails its own
// checks is marked as not to be relied on.
//
// Progressive enhancement: the page renders the form hidden, with the command-line way to do the same beside it;
// this module shows the form. Loaded by src from the service's origin only (the page's policy allows no inline
// script). Everything shown is set with textContent, and ids with their hidden characters made visible.
//
// `lookupEntry` and `lookupSummary` are pure (no DOM, no network) and run under Node too, where the tests call them.

import { printable, verifyDraw } from "./verify-draw.mjs";

const GROUPED = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** Whole cents as dollars, as the page writes prizes: 1000 -> "$10.00". */
function dollars(cents) {
  return `$${GROUPED.format(Math.floor(cents / 100))}.${String(cents % 100).padStart(2, "0")}`;
}

function count(n) {
  return Number(n).toLocaleString("en-US");
}

function plural(n, one, many) {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** A chance as the checker prints it: three significant digits, never in exponent form. */
function percentText(p) {
  const x = p * 100;
  if (x === 0) return "0%";
  if (x < 1e-6) return "less than 0.000001%";
  return `${Number(x.toPrecision(3))}%`;
}

/** The chance in words, from the checker's facts (its winChance): exact with one winner or when everyone wins. */
function chanceText(facts, entrants, winners) {
  if (facts.chanceExact && facts.chance === 1) return `certain: ${plural(winners, "winner", "winners")} drawn from ${plural(entrants.size, "entrant", "entrants")}, so every entrant wins`;
  if (facts.chanceExact) return `exactly ${count(facts.weight)} in ${count(entrants.totalWeight)} (${percentText(facts.chance)}), one winner drawn in proportion to weight`;
  return `about ${percentText(facts.chance)} (${count(winners)} winners drawn one at a time in proportion to weight; an approximation)`;
}

/** "winner #2 of 3, prize $10.00" for each position the id won (0-based in the proof, numbered from 1 as on the page). */
function winsText(facts, winners) {
  return facts.winnerPositions
    .map((p, k) => {
      const prize = facts.prizesCents[k];
      return `winner #${p + 1} of ${count(winners)}, ${prize === null || prize === undefined ? "prize not in the proof" : `prize ${dollars(prize)}`}`;
    })
    .join("; ");
}

/** Positions 0-based in the proof, shown from 1 with the proof's own index beside them. */
function positionsText(positions, size, field) {
  const places = positions.map((p) => `${count(p + 1)}`).join(", ");
  const indexes = positions.map((p) => `${field}[${p}]`).join(", ");
  return `${positions.length === 1 ? "position" : "positions"} ${places} of ${count(size)} (${indexes} in the proof)`;
}

/**
 * @typedef {{
 *   drawing: { id: string | null, number: string | null, drawAt: string | null },
 *   status: "won" | "entered" | "absent" | "error",
 *   headline: string,
 *   details: string[],
 *   trust: { ok: boolean, text: string } | null,
 * }} EntryView
 * What a lookup says about one draw: `status` is "won" (the id won at least once), "entered" (on the entrant list,
 * not selected), "absent" (not on the list) or "error" (the proof could not be used); `headline` and `details` in
 * words; `trust` whether the proof passed its own offline checks (null when it could not be read).
 */

/**
 * Looks `id` up in one draw's proof (its parsed JSON, or its URL: fetched then, and nothing else sent) with the
 * checker's `verifyDraw(proof, { entrant: id })`, offline. Never throws. Returns an EntryView.
 */
export async function lookupEntry(proof, id) {
  let parsed = null;
  const report = await verifyDraw(proof, { entrant: id, onProof: (p) => (parsed = p) });
  const drawing = parsed
    ? { id: parsed.drawing.id, number: String(parsed.drawing.number), drawAt: parsed.drawing.drawAt }
    : { id: null, number: null, drawAt: null };
  const facts = report.entrant;
  if (!parsed || !facts) {
    const failed = report.checks.find((c) => c.status === "fail");
    const reason = report.error ?? (failed ? failed.message : "the checker stopped before the lookup");
    return { drawing, status: "error", headline: `Could not look in this draw's proof: ${reason}`, details: [], trust: null };
  }
  const trust = report.ok
    ? { ok: true, text: `The proof passes its ${count(report.summary.passed)} offline checks; “Check this draw here” adds the chain check.` }
    : { ok: false, text: `✘ This proof fails ${count(report.summary.failed)} of its own checks: do not rely on this answer. “Check this draw here” shows which.` };
  const winners = parsed.winners.length;
  const entrants = parsed.entrants;

  if (!entrants) {
    // A winner list: being on it is winning.
    if (!facts.won) return { drawing, status: "absent", headline: `Not on the winner list: none of its ${plural(winners, "winner has", "winners have")} this id.`, details: [], trust };
    return {
      drawing,
      status: "won",
      headline: `Won: ${winsText(facts, winners)}.`,
      details: [`On the locked winner list at ${positionsText(facts.winnerPositions, winners, "winnerList.winners")}.`],
      trust,
    };
  }

  if (!facts.inList) {
    return { drawing, status: "absent", headline: `Not in the entrant list: none of its ${plural(entrants.size, "entry has", "entries have")} this id's hash.`, details: [], trust };
  }
  const details = [
    `In the locked entrant list at arrival ${positionsText(facts.positions, entrants.size, "entrants.list")}, weight ${count(facts.weight)} of ${count(entrants.totalWeight)}.`,
    `Chance of winning: ${chanceText(facts, entrants, winners)}.`,
  ];
  if (facts.won) return { drawing, status: "won", headline: `Won: ${winsText(facts, winners)}.`, details, trust };
  return { drawing, status: "entered", headline: `In the list, not selected: not among the ${plural(winners, "winner", "winners")}.`, details, trust };
}

/** One line over every draw looked up: how many lists held the id and how many times it won. */
export function lookupSummary(views, id) {
  const label = `“${printable(id)}”`;
  const looked = views.filter((v) => v.status !== "error");
  const found = looked.filter((v) => v.status === "won" || v.status === "entered").length;
  const won = looked.filter((v) => v.status === "won").length;
  const unread = views.length - looked.length;
  const tail = unread ? ` ${plural(unread, "proof", "proofs")} could not be read.` : "";
  if (looked.length === 0) return `No draw's proof could be read: ${label} was not looked up.`;
  const one = looked.length === 1;
  if (found === 0) return `${label} is not in the list of ${one ? "the draw" : `any of the ${count(looked.length)} draws`} looked up.${tail}`;
  const where = one ? "the list of the draw" : `the lists of ${count(found)} of the ${count(looked.length)} draws`;
  const wins = won === 0 ? "it did not win" : one ? "it won" : `it won in ${plural(won, "draw", "draws")}`;
  return `${label} is in ${where} looked up; ${wins}.${tail}`;
}

// ---------------------------------------------------------------------------------------------- the page

function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  if (text !== null) node.textContent = text;
  return node;
}

/** The draw's name as the page shows it ("Draw #3" and its time), linking to it; the proof's words otherwise. */
function drawLabel(view) {
  const article = view.drawing.id ? document.getElementById(`draw-${view.drawing.id}`) : null;
  if (!article) return el("strong", {}, view.drawing.number ? `Draw #${view.drawing.number}` : "A draw");
  const heading = article.querySelector("h3");
  const time = article.querySelector("header time");
  const words = [heading && heading.textContent, time && time.textContent].filter(Boolean).join(", ");
  const link = el("a", { href: `#${article.id}` }, words || `Draw #${view.drawing.number}`);
  const strong = el("strong");
  strong.append(link);
  return strong;
}

function renderView(view, proofUrl) {
  const li = el("li", { class: `lookup-draw lookup-${view.status}`, "data-status": view.status, "data-proof": proofUrl });
  if (view.drawing.id) li.setAttribute("data-drawing", view.drawing.id);
  li.append(drawLabel(view), el("p", { class: "lookup-headline" }, view.headline));
  for (const line of view.details) li.append(el("p", { class: "lookup-detail" }, line));
  if (view.trust) li.append(el("p", { class: view.trust.ok ? "lookup-trust muted" : "lookup-trust mark-fail" }, view.trust.text));
  return li;
}

/** The proofs of the draws shown on the page, newest first: the URLs the page already links to. */
function pageProofs() {
  return [...new Set(Array.from(document.querySelectorAll("#draws [data-proof]"), (node) => node.getAttribute("data-proof")).filter(Boolean))];
}

async function lookUp(input, button, out) {
  const id = input.value;
  if (id === "") return;
  const proofs = pageProofs();
  button.disabled = true;
  out.setAttribute("data-result", "running");
  const summary = el("p", { class: "lookup-summary" }, `Looking in ${plural(proofs.length, "draw's proof", "draws' proofs")}…`);
  const list = el("ul", { class: "lookup-draws" });
  out.replaceChildren(summary, list);
  if (id.trim() !== id) out.append(el("p", { class: "muted" }, "The id starts or ends with a space: ids are matched exactly as typed."));
  const views = [];
  try {
    // One at a time, newest first, each shown as it is answered: proofs can be large, and the first draws are the
    // ones an entrant usually wants.
    for (const url of proofs) {
      const view = await lookupEntry(url, id);
      views.push(view);
      list.append(renderView(view, url));
      summary.textContent = `Looked in ${count(views.length)} of ${plural(proofs.length, "draw", "draws")}…`;
    }
    summary.textContent = lookupSummary(views, id);
    out.setAttribute("data-result", "done");
  } catch (error) {
    summary.textContent = `The lookup stopped: ${printable((error && error.message) || String(error))}`;
    out.setAttribute("data-result", "error");
  } finally {
    button.disabled = false;
  }
}

function start() {
  const section = document.getElementById("lookup");
  const form = section && section.querySelector("form.lookup-form");
  const input = form && form.querySelector("input");
  const button = form && form.querySelector("button");
  const out = section && section.querySelector(".lookup-result");
  if (!form || !input || !button || !out) return;
  form.addEventListener("submit", (event) => {
    // The form is never submitted: the page's policy (form-action 'none') would refuse it anyway, and the field has
    // no name, so not even a stray submit could carry the id.
    event.preventDefault();
    if (!button.disabled) lookUp(input, button, out);
  });
  form.hidden = false;
}

if (typeof document !== "undefined") start();
