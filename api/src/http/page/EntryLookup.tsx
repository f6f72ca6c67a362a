/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { CampaignMode } from "../../store/campaigns.js";

/**
 * "Look up your entry": an entrant types their id and sees, for each draw shown, whether it was on the locked list
 * and what it won. The form is rendered hidden and shown by the page's lookup script (verify/lookup-entry.mjs),
 * which reads the draws' public proofs in the browser; without scripts the section gives the command that answers
 * the same for one draw. The id field has no name, so a submitted form could not carry the id anywhere.
 */
export function EntryLookup(props: { mode: CampaignMode; exampleProofUrl: string; truncated: boolean }) {
  const entries = props.mode === "entries";
  return (
    <section id="lookup" aria-labelledby="lookup-title">
      <h2 id="lookup-title">Look up your entry</h2>
      <p>
        {entries
          ? "Type the entrant id the campaign gave you to see, for each draw above, whether your entry was on the locked list (its place, its weight and the chance it had) and what it won."
          : "Type the id the campaign knows you by to see, for each draw above, whether it was on the locked winner list and what it won."}{" "}
        Your browser fetches the draws' public proofs and looks for the id in them itself: the id is not sent anywhere.
        {props.truncated ? " Only the draws shown here are looked up: for an older one (draws.json lists them all), use the command below." : ""}
      </p>
      <form class="lookup-form" hidden>
        <label for="lookup-id">{entries ? "Your entrant id" : "Your id"}</label>
        <div class="lookup-row">
          <input id="lookup-id" type="text" autocomplete="off" autocapitalize="none" spellcheck={false} required />
          <button type="submit">Look up</button>
        </div>
      </form>
      <div class="lookup-result" aria-live="polite"></div>
      <p>For one draw from a terminal (no scripts needed), run the checker with your id:</p>
      <pre>
        <code id="lookup-command">{`node verify-draw.mjs ${props.exampleProofUrl} --entrant <${entries ? "your entrant id" : "your id"}>`}</code>
      </pre>
    </section>
  );
}
