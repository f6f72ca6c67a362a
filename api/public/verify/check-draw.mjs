// check-draw.mjs: the campaign page's "Check this draw here" button. It runs the checker people download
// (./verify-draw.mjs, the same file) in the visitor's browser and shows its marks under the draw.
//
// Progressive enhancement: the page renders each button's box hidden and works without scripts (the
// command-line instructions stay); this module only shows the boxes and wires the buttons. It is loaded by src
// from the service's own origin (the page's Content-Security-Policy allows no inline script and no eval).
//
// Each box carries data-proof (the proof's URL) and data-rpc (the JSON-RPC endpoint for the chain check, or empty
// for the offline checks only). When the endpoint cannot be used from here, the offline checks are shown with a
// note saying so, and how to run the chain check from a terminal.

import { verifyDraw } from "./verify-draw.mjs";

const MARK = { pass: "✔", fail: "✘", info: "ℹ" };

function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  if (text !== null) node.textContent = text;
  return node;
}

function markItem(check) {
  const li = el("li", { class: `mark mark-${check.status}`, "data-status": check.status, "data-id": check.id }, `${MARK[check.status] ?? "?"} ${check.message}`);
  if (check.details && check.details.length) {
    const ul = el("ul");
    for (const line of check.details) ul.append(el("li", {}, line));
    li.append(ul);
  }
  return li;
}

/** The report's marks, its summary line first; `note` (if any) says why the chain check did not run. */
function render(out, report, proofUrl, rpcUrl, note) {
  out.replaceChildren();
  const status = report.error ? "error" : report.ok ? "pass" : "fail";
  out.setAttribute("data-result", status);
  const headline = report.error
    ? `✘ The checker could not use this proof: ${report.error}`
    : `${report.ok ? "✔" : "✘"} ${report.summary.line}${note ? " (offline checks only)" : rpcUrl ? " (with the chain check)" : " (offline checks)"}`;
  out.append(el("p", { class: `check-summary mark-${status === "pass" ? "pass" : "fail"}` }, headline));
  if (note) out.append(el("p", { class: "check-note mark-info" }, note));
  const list = el("ul", { class: "marks" });
  for (const check of report.checks) list.append(markItem(check));
  out.append(list);
  if (note && rpcUrl) {
    out.append(el("p", { class: "muted" }, "For the chain check from a terminal:"));
    out.append(el("pre", {}, `node verify-draw.mjs ${proofUrl} --rpc ${rpcUrl}`));
  }
}

async function check(box, button, out) {
  const proofUrl = box.dataset.proof;
  const rpcUrl = box.dataset.rpc || null;
  button.disabled = true;
  out.setAttribute("data-result", "running");
  out.replaceChildren(el("p", { class: "muted" }, rpcUrl ? "Checking the proof and the chain…" : "Checking the proof…"));
  try {
    let report = await verifyDraw(proofUrl, { rpcUrl });
    let note = null;
    // Unusable RPC (unreachable, or refusing this page): the proof's own checks still run, said plainly.
    if (report.error && rpcUrl && /\bRPC\b/.test(report.error)) {
      note = `The chain check could not run from this browser: ${report.error}.`;
      report = await verifyDraw(proofUrl, {});
    }
    render(out, report, proofUrl, rpcUrl, note);
  } catch (error) {
    out.setAttribute("data-result", "error");
    out.replaceChildren(el("p", { class: "check-summary mark-fail" }, `✘ The check stopped: ${(error && error.message) || String(error)}`));
  } finally {
    button.disabled = false;
    button.textContent = "Check this draw again";
  }
}

for (const box of document.querySelectorAll(".check-here[data-proof]")) {
  const button = box.querySelector("button");
  const out = box.querySelector(".check-result");
  if (!button || !out) continue;
  button.addEventListener("click", () => check(box, button, out));
  box.hidden = false;
}
