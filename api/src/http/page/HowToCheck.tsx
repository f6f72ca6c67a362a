/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { CampaignMode } from "../../store/campaigns.js";

/** Commits the chain has for the campaign (null while the indexer cannot say) and drawings published here. */
export type CommitCount = { committed: number | null; published: number };

/** What a passing check proves, in the words of the campaign's mode: the service selects winners only in entries campaigns. */
function WhatAPassProves(props: { mode: CampaignMode }) {
  if (props.mode === "entries") {
    return (
      <p id="check-proves">
        It recomputes the entrant list's commitment, selects the winners again from the committed list with the random value (each entrant's chance in
        proportion to their weight) and recomputes every random value, roll and prize, printing a pass or fail mark for each check. A pass proves that
        the winners were selected from the entrant list committed before the random value existed, and that their prizes follow from it. The list
        holds the entries the campaign sent: anyone who entered can check that their own entry was on it, with the entrant id the campaign gave them.
      </p>
    );
  }
  return (
    <p id="check-proves">
      It recomputes the list's fingerprint and every random value, roll and prize, and prints a pass or fail mark for each check. A pass proves that the
      prizes follow from the locked winner list and the random value; it does not prove who should have been on the list.
    </p>
  );
}

/** The commands that check a draw, what a pass means, and where AI assistants find instructions. */
export function HowToCheck(props: {
  publicBaseUrl: string;
  exampleProofUrl: string | null;
  mockEntropy: boolean;
  drawsJsonUrl: string;
  commits: CommitCount;
  mode: CampaignMode;
  browserRpc: string | null;
}) {
  const { publicBaseUrl, exampleProofUrl, mockEntropy, commits, mode } = props;
  const script = `${publicBaseUrl}/verify/verify-draw.mjs`;
  const proof = exampleProofUrl ?? "<proof URL>";
  return (
    <section id="check" aria-labelledby="check-title">
      <h2 id="check-title">How to check a draw</h2>
      <p>
        With Node.js 18 or later, download the checker (one file, no packages) and run it on a draw's proof link
        {exampleProofUrl ? ", for example the newest draw's" : ""}:
      </p>
      <pre>
        <code>{`curl -sO ${script}\nnode verify-draw.mjs ${proof}`}</code>
      </pre>
      <WhatAPassProves mode={mode} />
      {mode === "entries" ? (
        <>
          <p>To check your own entry (whether it was on the list, the chance it had, and whether it won):</p>
          <pre>
            <code id="entrant-command">{`node verify-draw.mjs ${proof} --entrant <your entrant id>`}</code>
          </pre>
        </>
      ) : null}
      <p>
        Add <code>--rpc &lt;RPC URL of chain&gt;</code> to check against the chain that the list was committed before the random value was requested
        and that this is the value revealed. The “Check this draw here” button beside each draw runs the same checker in your browser
        {props.browserRpc ? ", with the chain check" : " (offline checks)"}; it needs scripts, the command line does not.
      </p>
      <p id="commit-count">
        {commits.committed === null
          ? `${commits.published} ${commits.published === 1 ? "drawing is" : "drawings are"} published here; the count of commits onchain is unavailable right now.`
          : `${commits.committed} ${commits.committed === 1 ? "drawing was" : "drawings were"} committed onchain, ${commits.published} ${commits.published === 1 ? "is" : "are"} published here.`}
      </p>
      {commits.committed !== null && commits.committed > commits.published ? (
        <p class="held">
          {commits.committed - commits.published} onchain {commits.committed - commits.published === 1 ? "commit is" : "commits are"} not published here. A
          draw committed twice could have been picked from its outcomes: run the campaign check below and ask the campaign.
        </p>
      ) : null}
      <p>To check that every drawing committed onchain is published, with no slot or draw time used twice:</p>
      <pre>
        <code>{`node verify-draw.mjs --campaign ${props.drawsJsonUrl} --rpc <RPC URL of chain>`}</code>
      </pre>
      <p>
        For AI assistants: <a href={`${publicBaseUrl}/verify/SKILL.md`}>SKILL.md</a> explains how to find draws, fetch proofs and read the checker's
        marks.
      </p>
      {mockEntropy ? (
        <p class="muted">
          <small>
            In this test environment the random values come from test randomness (the <code>mock</code> provider): the checker marks their origin ℹ
            (information), since it cannot be checked independently.
          </small>
        </p>
      ) : null}
    </section>
  );
}
