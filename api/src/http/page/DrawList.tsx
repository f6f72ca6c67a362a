/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { STAGE } from "../../domain/publicDraws.js";
import type { CampaignMode } from "../../store/campaigns.js";
import type { Drawing, Winner } from "../../store/drawings.js";
import { dollars, httpsUrl, shortId } from "./format.js";
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
};

const AVATAR_PX = 32;

function stageWords(view: DrawView, mode: CampaignMode, cutoffPassed: boolean): string {
  switch (view.stage) {
    case "open":
      if (cutoffPassed) return "Open: waiting for the winner list";
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

/** The winner's public label: the display name, else a shortened id (ids are public in the proof). */
function WinnerName(props: { winner: Winner }) {
  const { winner } = props;
  const label = winner.displayName ?? shortId(winner.winnerId);
  const avatar = httpsUrl(winner.avatarUrl);
  return (
    <span class="winner">
      {avatar ? (
        <img src={avatar} alt={`Avatar of ${label}`} width={AVATAR_PX} height={AVATAR_PX} loading="lazy" decoding="async" referrerpolicy="no-referrer" />
      ) : null}
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

function Draw(props: { view: DrawView; timezone: string; mode: CampaignMode; now: string }) {
  const { view, timezone, mode, now } = props;
  const d = view.drawing;
  return (
    <article class="draw" id={`draw-${d.id}`}>
      <header>
        <h3>{d.number === null ? "Draw (number given at the draw)" : `Draw #${d.number}`}</h3>
        <Time iso={d.drawAt} timezone={timezone} />
        <span class="status">{stageWords(view, mode, d.cutoffAt <= now)}</span>
      </header>
      {view.proofUrl ? (
        <>
          <WinnersTable view={view} />
          <p>
            <a href={view.proofUrl}>Proof of draw {d.number === null ? "" : `#${d.number}`}</a>
          </p>
        </>
      ) : null}
    </article>
  );
}

/** Past draws, newest first, each drawn one with its winners, prizes and proof. */
export function DrawList(props: { draws: DrawView[]; truncated: boolean; drawsJsonUrl: string; timezone: string; mode: CampaignMode; now: string }) {
  const { draws, truncated, drawsJsonUrl, timezone, mode, now } = props;
  return (
    <section id="draws" aria-labelledby="draws-title">
      <h2 id="draws-title">Draws</h2>
      {draws.length === 0 ? <p>No draws yet.</p> : null}
      {draws.map((view) => (
        <Draw view={view} timezone={timezone} mode={mode} now={now} />
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
