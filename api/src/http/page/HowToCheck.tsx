/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */

/** The two commands that check a draw, what a pass means, and where AI assistants find instructions. */
/** Commits the chain has for the campaign (null while the indexer cannot say) and drawings published here. */
export type CommitCount = { committed: number | null; published: number };

export function HowToCheck(props: { publicBaseUrl: string; exampleProofUrl: string | null; mockEntropy: boolean; drawsJsonUrl: string; commits: CommitCount }) {
  const { publicBaseUrl, exampleProofUrl, mockEntropy, commits } = props;
  const script = `${publicBaseUrl}/verify/verify-draw.mjs`;
  return (
    <section id="check" aria-labelledby="check-title">
      <h2 id="check-title">How to check a draw</h2>
      <p>
        With Node.js 18 or later, download the checker (one file, no packages) and run it on a draw's proof link
        {exampleProofUrl ? ", for example the newest draw's" : ""}:
      </p>
      <pre>
        <code>
          {`curl -sO ${script}\nnode verify-draw.mjs ${exampleProofUrl ?? "<proof URL>"}`}
        </code>
      </pre>
      <p>
        It recomputes the list's fingerprint and every random value, roll and prize, and prints a pass or fail mark for each check. A pass proves that
        the prizes follow from the locked winner list and the random value; it does not prove who should have been on the list.
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
        <p class="held">
          This service runs in the test environment: its random values come from test randomness (the <code>mock</code> provider), which cannot be
          checked independently, and its payouts are not real.
        </p>
      ) : null}
    </section>
  );
}
