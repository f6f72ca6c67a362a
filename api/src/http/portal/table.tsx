/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
// The prize table editor (any team member): rows of (amount in dollars, weight). "Preview" checks the rows with the
// draw library's validatePrizeTable and shows each tier's odds and the exact averagePrizeCents for the campaign's
// winners per draw; "Publish" (offered only under a preview of the same rows) calls publishCampaignTable, which
// moves every still-open drawing to the new version (spec, Prize table rule 7).
import { createHash } from "node:crypto";
import { Hono } from "hono";
import { nextTableVersion, ownCampaign, publishCampaignTable } from "../../domain/campaigns.js";
import { ServiceError } from "../../domain/errors.js";
import { MAX_TIERS, PrizeTableError, averagePrizeCents, validatePrizeTable, type PrizeTable, type PrizeTierInput } from "../../draw/index.js";
import type { Campaign } from "../../store/campaigns.js";
import type { Store } from "../../store/index.js";
import { field, signedIn, type PortalEnv, type SignedIn } from "./guard.js";
import { CampaignNav, DOLLARS_HINT, FormError, NOT_DOLLARS, Section, centsToDollarsInput, doneNotice, dollarsToCents, money, type FieldErrors } from "./forms.js";
import { Csrf, PortalLayout, type Notice } from "./Layout.js";
import { viewerOf } from "./team.js";

type Row = { amount: string; weight: string };

/** What a preview shows: the checked table and its average for the campaign's winners per draw. */
type Preview = { table: PrizeTable; averageCents: number; fingerprint: string };

const fingerprintOf = (tiers: PrizeTierInput[]) => createHash("sha256").update(JSON.stringify(tiers)).digest("hex").slice(0, 32);

function rowsOf(form: Record<string, string | File>): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < MAX_TIERS; i++) {
    const amount = typeof form[`amount${i}`] === "string" ? (form[`amount${i}`] as string).slice(0, 32) : "";
    const weight = typeof form[`weight${i}`] === "string" ? (form[`weight${i}`] as string).slice(0, 32) : "";
    rows.push({ amount, weight });
  }
  return rows;
}

/** The rows as tiers (blank rows dropped); the form's own format errors by field (amount<i>, weight<i>). */
function tiersOf(rows: Row[]): { tiers: PrizeTierInput[]; index: number[]; errors: FieldErrors } {
  const tiers: PrizeTierInput[] = [];
  const index: number[] = [];
  const errors: FieldErrors = {};
  rows.forEach((row, i) => {
    if (row.amount.trim() === "" && row.weight.trim() === "") return;
    const amountCents = dollarsToCents(row.amount);
    if (Number.isNaN(amountCents)) errors[`amount${i}`] = `Amount ${NOT_DOLLARS}`;
    const weight = /^\d{1,16}$/.test(row.weight.trim()) ? Number(row.weight.trim()) : Number.NaN;
    tiers.push({ amountCents, weight });
    index.push(i);
  });
  return { tiers, index, errors };
}

/** A refusal of the draw library pinned on the row and column it names (its `tier` is the index among filled rows). */
function tableErrors(error: PrizeTableError, index: number[]): FieldErrors {
  if (error.tier === null) return { "": error.message };
  const row = index[error.tier] ?? 0;
  const column = error.code === "bad_amount" || error.code === "prize_too_large" ? "amount" : "weight";
  return { [`${column}${row}`]: error.message };
}

export function tableRoutes({ store, runCampaign }: { store: Store; runCampaign: (campaignId: string) => void }) {
  const app = new Hono<PortalEnv>();

  const page = async (session: SignedIn, campaign: Campaign, rows: Row[], errors: FieldErrors, preview: Preview | null, notice: Notice = null) => {
    const viewer = viewerOf(session);
    const current = await store.prizeTables.get(campaign.tableId, campaign.tableVersion);
    // The version a publish would make, read before rendering (shown only under a preview of a campaign not ended).
    const publishVersion = preview && campaign.status !== "ended" ? await nextTableVersion(store, campaign.slug) : null;
    const base = `/portal/campaigns/${campaign.slug}`;
    return (
      <PortalLayout title={`Prize table: ${campaign.name}`} viewer={viewer} notice={notice}>
        <CampaignNav campaign={campaign} viewer={viewer} current={`${base}/table`} />
        <p>
          In force: {current?.id === campaign.slug ? `the campaign's own table, version ${campaign.tableVersion}` : "the service's default table"}. Publishing a new version moves every drawing
          still open to it; locked and past drawings keep the table they drew with.
        </p>
        {campaign.status === "ended" ? (
          <p>This campaign has ended: its table cannot change.</p>
        ) : (
          <form method="post" action={`${base}/table`} novalidate>
            <Csrf token={viewer.csrf} />
            <FormError errors={errors} />
            <p class="hint" id="rows-hint">
              Top prize first, at least two tiers and at most {MAX_TIERS}. {DOLLARS_HINT} Each weight is a whole number above 0; a tier's odds are its weight
              divided by the sum of the weights (at most 2,147,483,647). Leave a row empty to drop it.
            </p>
            <div class="scroll">
              <table>
                <caption class="hint">Tiers</caption>
                <thead>
                  <tr>
                    <th scope="col">Tier</th>
                    <th scope="col">Prize (dollars)</th>
                    <th scope="col">Weight</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((row, i) => (
                    <tr>
                      <th scope="row">{i + 1}</th>
                      <td>
                        <label for={`f-amount${i}`} class="visually-hidden">{`Tier ${i + 1} prize in dollars`}</label>
                        <input
                          id={`f-amount${i}`}
                          name={`amount${i}`}
                          value={row.amount}
                          inputmode="decimal"
                          autocomplete="off"
                          aria-describedby={errors[`amount${i}`] ? `f-amount${i}-error` : "rows-hint"}
                          aria-invalid={errors[`amount${i}`] ? "true" : undefined}
                        />
                        {errors[`amount${i}`] ? (
                          <p class="field-error" id={`f-amount${i}-error`}>
                            {errors[`amount${i}`]}
                          </p>
                        ) : null}
                      </td>
                      <td>
                        <label for={`f-weight${i}`} class="visually-hidden">{`Tier ${i + 1} weight`}</label>
                        <input
                          id={`f-weight${i}`}
                          name={`weight${i}`}
                          value={row.weight}
                          inputmode="numeric"
                          autocomplete="off"
                          aria-describedby={errors[`weight${i}`] ? `f-weight${i}-error` : "rows-hint"}
                          aria-invalid={errors[`weight${i}`] ? "true" : undefined}
                        />
                        {errors[`weight${i}`] ? (
                          <p class="field-error" id={`f-weight${i}-error`}>
                            {errors[`weight${i}`]}
                          </p>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {preview ? <input type="hidden" name="previewed" value={preview.fingerprint} /> : null}
            <p>
              <button type="submit" name="intent" value="preview" class={preview ? "secondary" : undefined}>
                Preview
              </button>{" "}
              {preview ? (
                <button type="submit" name="intent" value="publish">
                  Publish version {publishVersion}
                </button>
              ) : null}
            </p>
          </form>
        )}
        {preview ? (
          <Section id="preview" title="Preview">
            <p>
              Average prize per winner with {campaign.winnersPerDraw} winner{campaign.winnersPerDraw === 1 ? "" : "s"} per draw (the top prize is won at most once per
              draw): <strong id="preview-average">{money(preview.averageCents)}</strong> ({preview.averageCents} cents).
            </p>
            <div class="scroll">
              <table>
                <caption class="hint">Odds per tier, out of {preview.table.denominator.toLocaleString("en-US")} rolls</caption>
                <thead>
                  <tr>
                    <th scope="col">Prize</th>
                    <th scope="col" class="num">
                      Weight
                    </th>
                    <th scope="col" class="num">
                      Odds
                    </th>
                    <th scope="col" class="num">
                      About 1 in
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {preview.table.tiers.map((t) => (
                    <tr>
                      <th scope="row">{money(t.amountCents)}</th>
                      <td class="num">{t.weight.toLocaleString("en-US")}</td>
                      <td class="num">{`${(t.odds * 100).toPrecision(4)}%`}</td>
                      <td class="num">{Math.round(1 / t.odds).toLocaleString("en-US")}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </Section>
        ) : null}
      </PortalLayout>
    );
  };

  const rowsFromTable = (table: PrizeTable | null): Row[] => {
    const rows: Row[] = (table?.tiers ?? []).map((t) => ({ amount: centsToDollarsInput(t.amountCents), weight: String(t.weight) }));
    while (rows.length < Math.min(MAX_TIERS, (table?.tiers.length ?? 0) + 2)) rows.push({ amount: "", weight: "" });
    return rows;
  };

  app.get("/campaigns/:slug/table", async (c) => {
    const session = signedIn(c);
    const campaign = await ownCampaign(store, session.accountId, c.req.param("slug"));
    return c.html(await page(session, campaign, rowsFromTable(await store.prizeTables.get(campaign.tableId, campaign.tableVersion)), {}, null, doneNotice(c.req.query("done"))));
  });

  app.post("/campaigns/:slug/table", async (c) => {
    const session = signedIn(c);
    const campaign = await ownCampaign(store, session.accountId, c.req.param("slug"));
    const rows = rowsOf(c.var.form);
    let last = -1;
    rows.forEach((r, i) => {
      if (r.amount !== "" || r.weight !== "") last = i;
    });
    // The filled rows and two empty ones to add a tier (the form has at most MAX_TIERS rows).
    const shown = rows.slice(0, Math.min(MAX_TIERS, Math.max(2, last + 3)));
    const { tiers, index, errors } = tiersOf(rows);
    if (Object.keys(errors).length > 0) return c.html(await page(session, campaign, shown, errors, null), 400);
    let preview: Preview;
    try {
      const table = validatePrizeTable({ id: campaign.slug, version: await nextTableVersion(store, campaign.slug), tiers });
      preview = { table, averageCents: averagePrizeCents(table, campaign.winnersPerDraw), fingerprint: fingerprintOf(tiers) };
    } catch (error) {
      if (error instanceof PrizeTableError) return c.html(await page(session, campaign, shown, tableErrors(error, index), null), 400);
      throw error;
    }
    if (field(c, "intent") !== "publish") return c.html(await page(session, campaign, shown, {}, preview));
    if (field(c, "previewed") !== preview.fingerprint) {
      return c.html(await page(session, campaign, shown, {}, preview, { kind: "error", text: "The rows changed since the preview: check this preview, then publish." }), 409);
    }
    try {
      await publishCampaignTable(store, campaign.slug, tiers, new Date(), session.email);
    } catch (error) {
      if (error instanceof ServiceError && (error.status === 400 || error.status === 409)) return c.html(await page(session, campaign, shown, { "": error.detail }, null), error.status);
      throw error;
    }
    runCampaign(campaign.id);
    return c.redirect(`/portal/campaigns/${campaign.slug}/table?done=published`, 303);
  });

  return app;
}
