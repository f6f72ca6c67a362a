/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
// One drawing as its team sees it (any member): what happened and when, the list's fingerprint or commitment, the
// random value, every winner with roll, prize and held state (domain drawingView, the partner API's GET of a
// drawing), the public proof and page, and the in-browser check: the same checker the public page runs.
import { Hono } from "hono";
import { ownCampaign } from "../../domain/campaigns.js";
import { drawingOf, drawingView } from "../../domain/drawings.js";
import { STAGE, isDrawn, proofUrl } from "../../domain/publicDraws.js";
import type { Store } from "../../store/index.js";
import { CheckHere } from "../page/DrawList.js";
import { CHECK_SCRIPT_PATH } from "../routes/page.js";
import { signedIn, type PortalEnv } from "./guard.js";
import { CampaignNav, Section, money, utc } from "./forms.js";
import { PortalLayout } from "./Layout.js";
import { viewerOf } from "./team.js";

const STAGE_WORDS: Record<(typeof STAGE)[keyof typeof STAGE], string> = {
  open: "open: taking its list",
  locked: "locked: waiting to be drawn",
  drawing: "waiting for the random value",
  drawn: "drawn: prizes being paid",
  paid: "paid",
};

/**
 * The page's policy: the portal's own (guard.ts) plus the checker's fetch of the proof from this origin or the
 * public base URL's. The check runs offline here (no RPC endpoint); the public page adds the chain check.
 */
function drawingCsp(publicBaseUrl: string): string {
  const connect = new Set(["'self'", new URL(publicBaseUrl).origin]);
  return `default-src 'none'; style-src 'self'; script-src 'self'; connect-src ${[...connect].join(" ")}; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;
}

export function drawingPageRoutes({ store, publicBaseUrl }: { store: Store; publicBaseUrl: string }) {
  const app = new Hono<PortalEnv>();

  app.get("/campaigns/:slug/drawings/:id", async (c) => {
    const session = signedIn(c);
    const viewer = viewerOf(session);
    const campaign = await ownCampaign(store, session.accountId, c.req.param("slug"));
    const drawing = await drawingOf(store, campaign, c.req.param("id").slice(0, 64));
    const view = await drawingView(store, drawing);
    const base = `/portal/campaigns/${campaign.slug}`;
    const drawn = isDrawn(drawing);
    const proof = drawn ? proofUrl(publicBaseUrl, campaign, drawing) : null;
    const entries = campaign.mode === "entries";
    const commitment = entries ? drawing.entrantsCommitment : view.verification.winnersCommitment;
    const settled = view.winners.some((w) => w.amountCents !== undefined);
    c.header("Content-Security-Policy", drawingCsp(publicBaseUrl));
    return c.html(
      <PortalLayout title={`Drawing of ${utc(drawing.drawAt)}`} viewer={viewer} script={proof ? CHECK_SCRIPT_PATH : undefined}>
        <CampaignNav campaign={campaign} viewer={viewer} current={`${base}/drawings`} />
        <p>
          <a href={`${base}/drawings`}>All drawings of {campaign.name}</a>
        </p>
        {drawing.needsAttention ? (
          <p class="notice error" role="alert">
            {drawing.needsAttention} (<a href={`${base}/drawings#flagged`}>Needs attention</a>)
          </p>
        ) : null}
        <dl class="facts">
          <dt>Status</dt>
          <dd class="drawing-status">{STAGE_WORDS[STAGE[drawing.status]]}</dd>
          <dt>Number</dt>
          <dd>{view.number === null ? "given when the random value is requested" : view.number}</dd>
          <dt>Id</dt>
          <dd>
            <code>{drawing.id}</code>
          </dd>
          <dt>Cutoff</dt>
          <dd>{utc(drawing.cutoffAt)}</dd>
          <dt>Draw time</dt>
          <dd>{utc(drawing.drawAt)}</dd>
          <dt>{entries ? "Entries" : "List"}</dt>
          <dd>
            {entries
              ? `${drawing.entrantCount.toLocaleString("en-US")} entrants, total weight ${drawing.totalWeight.toLocaleString("en-US")}; ${drawing.winnersExpected} to draw`
              : `${view.winners.length} of ${drawing.winnersExpected} winners`}
          </dd>
          {drawing.lockedAt ? (
            <>
              <dt>List locked</dt>
              <dd>{utc(drawing.lockedAt)}</dd>
            </>
          ) : null}
          {commitment ? (
            <>
              <dt>{entries ? "Entrant list commitment" : "Winner list fingerprint"}</dt>
              <dd>
                <code class="commitment">{commitment}</code>
              </dd>
            </>
          ) : null}
          {view.verification.entropy ? (
            <>
              <dt>Random value</dt>
              <dd>
                <code>{view.verification.entropy}</code>
                <span class="hint">
                  revealed {utc(view.verification.entropyRevealedAt)}; {view.verification.final ? "final onchain" : "provisional: its block is not final yet"}
                </span>
              </dd>
            </>
          ) : null}
        </dl>
        <Section id="winners" title="Winners">
          {view.winners.length === 0 ? (
            <p>{entries ? "Drawn from the entrants once the random value arrives." : "No list yet."}</p>
          ) : (
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Position</th>
                    <th scope="col">Winner</th>
                    {settled ? (
                      <>
                        <th scope="col" class="num">
                          Roll
                        </th>
                        <th scope="col" class="num">
                          Prize
                        </th>
                        <th scope="col">Payment</th>
                      </>
                    ) : null}
                  </tr>
                </thead>
                <tbody>
                  {view.winners.map((w) => (
                    <tr>
                      <th scope="row">{w.position}</th>
                      <td>
                        {w.winner}
                        {w.displayName ? <span class="hint">{w.displayName}</span> : null}
                      </td>
                      {settled ? (
                        <>
                          <td class="num">{w.roll ?? ""}</td>
                          <td class="num">{w.amountCents === undefined || w.amountCents === null ? "" : money(w.amountCents)}</td>
                          <td>
                            {w.heldPayout
                              ? `held for a manual payout: ${w.heldPayout.status}${w.heldPayout.reason ? ` (${w.heldPayout.reason})` : ""}`
                              : w.amountCents === 0
                                ? "no prize"
                                : drawing.status === "paid"
                                  ? "paid onchain"
                                  : "being paid"}
                          </td>
                        </>
                      ) : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Section>
        <Section id="proof" title="Proof">
          {proof ? (
            <>
              <p>
                <a href={proof}>The proof of this draw</a> (public, as anyone sees it) and{" "}
                <a href={`${publicBaseUrl}/campaigns/${campaign.slug}#draw-${drawing.id}`}>the draw on the campaign's public page</a>, whose check adds the chain.
              </p>
              <CheckHere proofUrl={proof} check={{ rpcUrl: null }} />
              <p class="hint">
                From a terminal: <code>{`node verify-draw.mjs ${proof} --rpc <RPC URL of the chain>`}</code> (the checker: <a href={`${publicBaseUrl}/verify/verify-draw.mjs`}>verify-draw.mjs</a>)
              </p>
            </>
          ) : (
            <p>A proof is published once the drawing is drawn.</p>
          )}
        </Section>
      </PortalLayout>,
    );
  });

  return app;
}
