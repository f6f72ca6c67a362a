/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { Finality } from "../../domain/finality.js";
import { requestedNumber, type STAGE } from "../../domain/publicDraws.js";
import type { CampaignMode } from "../../store/campaigns.js";
import type { Drawing, Winner } from "../../store/drawings.js";
import { dollars, httpsUrl, initials, shortId } from "./format.js";
import { Time } from "./ScheduleSection.js";

export type Stage = (typeof STAGE)[keyof typeof STAGE];

export type DrawView = {
  drawing: Drawing;
  stage: Stage;
  /** The winners shown (drawn draws only), in position order. */
  winners: Winner[];
  /** Winners of a drawn draw not listed on the page (see the proof). */
  moreWinners: number;
  proofUrl: string | null;
  /** Null before the draw has a result (domain/finality.ts). */
  finality: Finality | null;
};

/** The in-browser check: the JSON-RPC endpoint the visitor's browser uses for the chain check (null: offline checks only). */
export type BrowserCheck = { rpcUrl: string | null };

const AVATAR_PX = 32;

function stageWords(view: DrawView, mode: CampaignMode, cutoffPassed: boolean): string {
  switch (view.stage) {
    case "open":
      if (cutoffPassed) return mode === "entries" ? "Open: waiting for entries" : "Open: waiting for the winner list";
      return mode === "entries" ? "Open: taking entries" : "Open: taking winners";
    case "locked":
      return "Locked: list fixed, random value not yet requested";
    case "drawing":
      return "Drawing: waiting for the random value";
    case "drawn":
      return "Drawn: prizes decided, payout pending";
    case "paid":
      return "Paid";
  }
}

/**
 * The winner's avatar over their initials: the image is layered on top and decorative (the name follows it), so
 * an image that fails to load (or has not loaded yet) leaves the initials showing, without any script. The
 * initials are drawn by the stylesheet from data-initials, so they are not part of the name's text when copied.
 */
function Avatar(props: { url: string; label: string }) {
  const letters = initials(props.label);
  // The image carries the initials too: browsers that draw a failed image's pseudo-elements (Chromium, Firefox)
  // cover their broken-image icon with them.
  return (
    <span class="avatar" data-initials={letters} aria-hidden="true">
      <img data-initials={letters} src={props.url} alt="" width={AVATAR_PX} height={AVATAR_PX} loading="lazy" decoding="async" referrerpolicy="no-referrer" />
    </span>
  );
}

/** The winner's public label: the display name, else a shortened id (ids are public in the proof). */
function WinnerName(props: { winner: Winner }) {
  const { winner } = props;
  const label = winner.displayName ?? shortId(winner.winnerId);
  const avatar = httpsUrl(winner.avatarUrl);
  return (
    <span class="winner">
      {avatar ? <Avatar url={avatar} label={label} /> : null}
      <span title={winner.displayName ? undefined : winner.winnerId}>{label}</span>
    </span>
  );
}

function WinnersTable(props: { view: DrawView }) {
  const { view } = props;
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th scope="col" class="num">#</th>
            <th scope="col">Winner</th>
            <th scope="col" class="num">Prize</th>
          </tr>
        </thead>
        <tbody>
          {view.winners.map((w) => (
            <tr>
              <td class="num">{w.position + 1}</td>
              <td>
                <WinnerName winner={w} />
              </td>
              <td class="num">
                {w.amountCents === null ? "pending" : dollars(w.amountCents)}
                {w.held ? <span class="held">held for manual payout</span> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {view.moreWinners > 0 ? (
        <p class="muted">
          <small>and {view.moreWinners.toLocaleString("en-US")} more winners: see the proof.</small>
        </p>
      ) : null}
    </div>
  );
}

/** A 32-byte hex value: shown shortened, the full value in the title and in the text (selecting it copies all of it). */
function Hash(props: { value: string; class?: string }) {
  return (
    <code class={`hash${props.class ? ` ${props.class}` : ""}`} title={props.value}>
      {props.value}
    </code>
  );
}

/** What a draw's list is: its entrant count (entries campaigns), when it locked and the commitment recorded onchain. */
function DrawFacts(props: { drawing: Drawing; mode: CampaignMode; timezone: string }) {
  const { drawing: d, mode, timezone } = props;
  const entries = mode === "entries";
  const commitment = entries ? d.entrantsCommitment : d.winnersCommitment;
  const locked = d.lockedAt !== null;
  if (!entries && !locked) return null;
  return (
    <dl class="facts">
      {entries ? (
        <>
          <dt>Entrants</dt>
          <dd class="entrant-count">
            {d.entrantCount.toLocaleString("en-US")}
            {locked ? "" : " so far"}
            {d.totalWeight !== d.entrantCount ? ` (total weight ${d.totalWeight.toLocaleString("en-US")})` : ""}
          </dd>
        </>
      ) : null}
      {locked ? (
        <>
          <dt>List locked</dt>
          <dd class="locked-at">
            <Time iso={d.lockedAt!} timezone={timezone} />
          </dd>
        </>
      ) : null}
      {commitment ? (
        <>
          <dt>{entries ? "Entrant list commitment" : "Winner list fingerprint"}</dt>
          <dd>
            <Hash value={commitment} class="list-commitment" />
          </dd>
        </>
      ) : null}
    </dl>
  );
}

/**
 * The "check this draw here" button: hidden until the page's module script shows it, so without scripts the page
 * shows only the command-line instructions. The script runs the same verify-draw.mjs in the visitor's browser.
 */
export function CheckHere(props: { proofUrl: string; check: BrowserCheck }) {
  const { proofUrl, check } = props;
  return (
    <div class="check-here" hidden data-proof={proofUrl} data-rpc={check.rpcUrl ?? ""}>
      <button type="button">Check this draw here</button>{" "}
      <small class="muted">
        {check.rpcUrl
          ? `runs the checker in your browser, with the chain check through ${new URL(check.rpcUrl).host}`
          : "runs the checker in your browser (offline checks; for the chain check use the command below with --rpc)"}
      </small>
      <div class="check-result" aria-live="polite"></div>
    </div>
  );
}

function Draw(props: { view: DrawView; timezone: string; mode: CampaignMode; now: string; check: BrowserCheck }) {
  const { view, timezone, mode, now, check } = props;
  const d = view.drawing;
  const number = requestedNumber(d);
  return (
    <article class="draw" id={`draw-${d.id}`}>
      <header>
        <h3>{number === null ? "Draw (number given at the draw)" : `Draw #${number}`}</h3>
        <Time iso={d.drawAt} timezone={timezone} />
        <span class="status">{stageWords(view, mode, d.cutoffAt <= now)}</span>
        {view.finality === "provisional" ? (
          <span class="provisional" title="The blocks carrying this result are not final yet: a chain reorganisation could still change it. The service follows the chain and updates this draw if it does.">
            provisional: not yet final onchain
          </span>
        ) : null}
      </header>
      <DrawFacts drawing={d} mode={mode} timezone={timezone} />
      {view.proofUrl ? (
        <>
          <WinnersTable view={view} />
          <p>
            <a href={view.proofUrl}>Proof of draw {number === null ? "" : `#${number}`}</a>
          </p>
          <CheckHere proofUrl={view.proofUrl} check={check} />
        </>
      ) : null}
    </article>
  );
}

/** Past draws, newest first, each drawn one with its winners, prizes and proof. */
export function DrawList(props: { draws: DrawView[]; truncated: boolean; drawsJsonUrl: string; timezone: string; mode: CampaignMode; now: string; check: BrowserCheck }) {
  const { draws, truncated, drawsJsonUrl, timezone, mode, now, check } = props;
  return (
    <section id="draws" aria-labelledby="draws-title">
      <h2 id="draws-title">Draws</h2>
      {draws.length === 0 ? <p>No draws yet.</p> : null}
      {draws.map((view) => (
        <Draw view={view} timezone={timezone} mode={mode} now={now} check={check} />
      ))}
      <p class="muted">
        <small>
          {truncated ? `The newest ${draws.length} draws are shown. ` : ""}
          The full history, as data: <a href={drawsJsonUrl}>draws.json</a>.
        </small>
      </p>
    </section>
  );
}
