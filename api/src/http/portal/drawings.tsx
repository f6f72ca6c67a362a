/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
// A campaign's drawings (any team member): by stage, flagged ones first with their reason and a form to extend
// the cutoff (domain extendCutoff, as the CLI's `drawing extend-cutoff`); a pull drawing's fetch history; an entries
// drawing's counts; guarantee periods awaiting a pick with the pick form (domain pickGuarantee, as POST
// .../guarantees/{id}/pick, its body checked by the same zod schema); held prizes and their state (paying or
// refusing one stays with the service's operators).
import { Hono } from "hono";
import { ownCampaign } from "../../domain/campaigns.js";
import { extendCutoff, listDrawings } from "../../domain/drawings.js";
import { ServiceError } from "../../domain/errors.js";
import { pickGuarantee } from "../../domain/guarantees.js";
import { listHeldPrizes } from "../../domain/heldPrizes.js";
import { STAGE, requestedNumber } from "../../domain/publicDraws.js";
import type { Campaign } from "../../store/campaigns.js";
import type { Drawing } from "../../store/drawings.js";
import type { Store } from "../../store/index.js";
import type { PullFetch } from "../../store/pull.js";
import { guaranteePickBody } from "../schemas.js";
import { field, signedIn, type PortalEnv, type SignedIn } from "./guard.js";
import { CampaignNav, Section, TextField, doneNotice, money, utc, utcInput, type FieldErrors } from "./forms.js";
import { Csrf, PortalLayout, type Notice } from "./Layout.js";
import { viewerOf } from "./team.js";

const STAGES = [
  ["open", "Open"],
  ["locked", "Locked"],
  ["drawing", "Waiting for the random value"],
  ["drawn", "Drawn"],
  ["paid", "Paid"],
] as const;

export function drawingRoutes({ store, runCampaign }: { store: Store; runCampaign: (campaignId: string) => void }) {
  const app = new Hono<PortalEnv>();

  const page = async (session: SignedIn, campaign: Campaign, errors: FieldErrors = {}, values: Record<string, string> = {}, notice: Notice = null) => {
    const viewer = viewerOf(session);
    const base = `/portal/campaigns/${campaign.slug}`;
    const drawings = await listDrawings(store, campaign, null);
    const flagged = drawings.filter((d) => d.needsAttention !== null);
    const guarantees = await store.guarantees.list(campaign.id);
    const awaiting = guarantees.filter((g) => g.status === "awaiting_pick");
    const held = await listHeldPrizes(store, campaign.slug);

    // What the cells show, read before rendering: every drawing is flagged or in a stage's table, so each has a list
    // cell (its winners counted, but for entries campaigns); a pull drawing flagged or open shows its fetches.
    const winnerCounts = new Map<string, number>();
    const histories = new Map<string, PullFetch[]>();
    for (const d of drawings) {
      if (campaign.mode !== "entries") winnerCounts.set(d.id, (await store.drawings.winners(d.id)).length);
      if (campaign.mode === "pull" && (d.needsAttention !== null || STAGE[d.status] === "open")) histories.set(d.id, await store.pull.history(d.id));
    }

    const listCell = (d: Drawing) =>
      campaign.mode === "entries"
        ? `${d.entrantCount.toLocaleString("en-US")} entrants, total weight ${d.totalWeight.toLocaleString("en-US")}`
        : `${winnerCounts.get(d.id) ?? 0} of ${d.winnersExpected} winners`;

    const fetches = (d: Drawing) => {
      if (campaign.mode !== "pull") return null;
      const history = histories.get(d.id) ?? [];
      if (history.length === 0) return <span class="hint">no fetch yet</span>;
      return (
        <details>
          <summary>{`${history.length} fetch${history.length === 1 ? "" : "es"}, last: ${history[history.length - 1]!.outcome}`}</summary>
          <ul>
            {history.slice(-20).reverse().map((f) => (
              <li>
                {utc(f.at)}: {f.outcome}
                {f.reason ? ` (${f.reason})` : ""}
              </li>
            ))}
          </ul>
        </details>
      );
    };

    return (
      <PortalLayout title={`Drawings: ${campaign.name}`} viewer={viewer} notice={notice}>
        <CampaignNav campaign={campaign} viewer={viewer} current={`${base}/drawings`} />
        <Section id="flagged" title="Needs attention">
          {flagged.length === 0 ? <p>No drawing is flagged.</p> : null}
          {flagged.map((d) => (
            <article aria-labelledby={`flag-${d.id}`} class="card">
              <h3 id={`flag-${d.id}`}>
                <a href={`${base}/drawings/${d.id}`}>Drawing of {utc(d.drawAt)}</a>
              </h3>
              <p class="field-error">{d.needsAttention}</p>
              <p>
                Cutoff was {utc(d.cutoffAt)}; {listCell(d)}. Extend the cutoff, then send the list (a pull campaign fetches it again by itself).
              </p>
              {fetches(d)}
              <form method="post" action={`${base}/drawings/${d.id}/extend`}>
                <Csrf token={viewer.csrf} />
                <TextField
                  id={`cutoff-${d.id}`}
                  name="cutoffAt"
                  label="New cutoff (UTC)"
                  type="datetime-local"
                  value={values[`cutoff-${d.id}`] ?? ""}
                  hint="Later than now; the draw time moves with it when it is later."
                  errors={errors}
                  required
                />
                <p>
                  <button type="submit">Extend the cutoff</button>
                </p>
              </form>
            </article>
          ))}
        </Section>
        {STAGES.map(([stage, title]) => {
          const rows = drawings.filter((d) => STAGE[d.status] === stage && d.needsAttention === null);
          if (rows.length === 0) return null;
          return (
            <Section id={`stage-${stage}`} title={title}>
              <div class="scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Draw</th>
                      <th scope="col">Cutoff</th>
                      <th scope="col">{campaign.mode === "entries" ? "Entries" : "List"}</th>
                      {campaign.mode === "pull" && stage === "open" ? <th scope="col">Fetches</th> : null}
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((d) => (
                      <tr>
                        <th scope="row">
                          <a href={`${base}/drawings/${d.id}`}>{utc(d.drawAt)}</a>
                          <span class="hint">{requestedNumber(d) === null ? d.id : `number ${requestedNumber(d)} · ${d.id}`}</span>
                        </th>
                        <td>{utc(d.cutoffAt)}</td>
                        <td>{listCell(d)}</td>
                        {campaign.mode === "pull" && stage === "open" ? <td>{fetches(d)}</td> : null}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </Section>
          );
        })}
        {drawings.length === 0 ? <p>No drawings yet{campaign.status === "draft" ? ": activate the campaign to create them" : ""}.</p> : null}
        <Section id="guarantees" title="Guarantees">
          {campaign.guarantee === null ? <p>This campaign has no guarantee.</p> : null}
          {campaign.guarantee !== null && guarantees.length === 0 ? <p>No period has been checked yet.</p> : null}
          {awaiting.map((g) => (
            <article aria-labelledby={`g-${g.id}`} class="card">
              <h3 id={`g-${g.id}`}>
                Period {g.period}: pick who receives {money(g.amountCents)}
              </h3>
              <p>
                From {utc(g.periodStart)} to {utc(g.periodEnd)} no prize reached {money(g.thresholdCents)}. Pick one of the period's winners; a pick is final.
              </p>
              <form method="post" action={`${base}/guarantees/${g.id}/pick`}>
                <Csrf token={viewer.csrf} />
                <TextField id={`winner-${g.id}`} name="winner" label="Winner id" value={values[`winner-${g.id}`] ?? ""} errors={errors} required />
                <TextField
                  id={`drawingId-${g.id}`}
                  name="drawingId"
                  label="Drawing id (only if the winner won more than once in the period)"
                  value={values[`drawingId-${g.id}`] ?? ""}
                  errors={errors}
                />
                <p>
                  <button type="submit">Pick this winner</button>
                </p>
              </form>
            </article>
          ))}
          {guarantees.filter((g) => g.status !== "awaiting_pick").length > 0 ? (
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Period</th>
                    <th scope="col">Status</th>
                    <th scope="col">Picked</th>
                  </tr>
                </thead>
                <tbody>
                  {guarantees
                    .filter((g) => g.status !== "awaiting_pick")
                    .map((g) => (
                      <tr>
                        <th scope="row">
                          {g.period}
                          <span class="hint">
                            {utc(g.periodStart)} to {utc(g.periodEnd)}
                          </span>
                        </th>
                        <td>{g.status.replace("_", " ")}</td>
                        <td>{g.pickedWinner ?? ""}</td>
                      </tr>
                    ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </Section>
        <Section id="held" title="Held prizes">
          <p class="hint">Prizes at or above the large-prize threshold are paid by hand after checks; the service's operators pay or refuse them.</p>
          {held.length === 0 ? (
            <p>None.</p>
          ) : (
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Drawing</th>
                    <th scope="col">Winner</th>
                    <th scope="col" class="num">
                      Prize
                    </th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  {held.map((h) => (
                    <tr>
                      <th scope="row">
                        number {h.number}, position {h.position}
                      </th>
                      <td>{h.winner}</td>
                      <td class="num">{money(h.amountCents)}</td>
                      <td>
                        {h.status}
                        {h.reason ? `: ${h.reason}` : ""}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Section>
      </PortalLayout>
    );
  };

  app.get("/campaigns/:slug/drawings", async (c) => {
    const session = signedIn(c);
    const campaign = await ownCampaign(store, session.accountId, c.req.param("slug"));
    return c.html(await page(session, campaign, {}, {}, doneNotice(c.req.query("done"))));
  });

  app.post("/campaigns/:slug/drawings/:id/extend", async (c) => {
    const session = signedIn(c);
    const campaign = await ownCampaign(store, session.accountId, c.req.param("slug"));
    const id = c.req.param("id").slice(0, 64);
    const typed = field(c, "cutoffAt").slice(0, 64);
    try {
      await extendCutoff(store, campaign.slug, id, utcInput(typed), session.email);
    } catch (error) {
      if (error instanceof ServiceError && error.status !== 403 && error.status !== 401) {
        // By its form when the page shows one (a flagged drawing), else at the top of the page.
        const hasForm = error.status === 400 && (await store.drawings.byId(campaign.id, id))?.needsAttention != null;
        return c.html(await page(session, campaign, { [`cutoff-${id}`]: error.detail }, { [`cutoff-${id}`]: typed }, hasForm ? null : { kind: "error", text: error.detail }), error.status);
      }
      throw error;
    }
    runCampaign(campaign.id);
    return c.redirect(`/portal/campaigns/${campaign.slug}/drawings?done=extended`, 303);
  });

  app.post("/campaigns/:slug/guarantees/:id/pick", async (c) => {
    const session = signedIn(c);
    const campaign = await ownCampaign(store, session.accountId, c.req.param("slug"));
    const id = c.req.param("id").slice(0, 64);
    const typed = { winner: field(c, "winner").slice(0, 1_000), drawingId: field(c, "drawingId").trim().slice(0, 1_000) };
    const values = { [`winner-${id}`]: typed.winner, [`drawingId-${id}`]: typed.drawingId };
    // The API's body schema: the same rules and words for the winner id and the drawing id.
    const parsed = guaranteePickBody.safeParse({ winner: typed.winner, ...(typed.drawingId ? { drawingId: typed.drawingId } : {}) });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const name = issue.path[0] === "drawingId" ? "drawingId" : "winner";
      return c.html(await page(session, campaign, { [`${name}-${id}`]: `${name} ${issue.message}` }, values), 400);
    }
    try {
      await pickGuarantee(store, campaign, id, { winner: parsed.data.winner, drawingId: parsed.data.drawingId }, new Date(), session.email);
    } catch (error) {
      if (error instanceof ServiceError && error.status !== 403 && error.status !== 401) {
        const name = /drawing/i.test(error.detail) && error.status === 404 ? "drawingId" : "winner";
        return c.html(await page(session, campaign, { [`${name}-${id}`]: error.detail }, values, error.status === 400 ? null : { kind: "error", text: error.detail }), error.status);
      }
      throw error;
    }
    runCampaign(campaign.id);
    return c.redirect(`/portal/campaigns/${campaign.slug}/drawings?done=picked`, 303);
  });

  return app;
}
