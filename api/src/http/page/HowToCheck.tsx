/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */

/** The two commands that check a draw, what a pass means, and where AI assistants find instructions. */
export function HowToCheck(props: { publicBaseUrl: string; exampleProofUrl: string | null; mockEntropy: boolean }) {
  const { publicBaseUrl, exampleProofUrl, mockEntropy } = props;
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
