/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
// The campaigns screens (any team member): the list with what needs attention, a new campaign, its settings, and
// the campaign's overview with its status moves. Every change calls the domain function the CLI calls
// (createCampaign, updateCampaign, transitionCampaign) as the signed-in person; a refusal re-renders the form with
// the domain's words next to the field they name, and nothing is stored. The payout wallet and the large-prize
// threshold are the owners' (domain/payoutSettings.ts): members see them as text, and a member's post that changes
// them anyway is refused by the domain (403).
import { Hono, type Context } from "hono";
import { DEFAULT_LARGE_PRIZE_THRESHOLD_CENTS, campaignView, createCampaign, ownCampaign, transitionCampaign, updateCampaign, type CampaignAction, type CampaignInput, type CampaignSettings, type PullUrlPolicy } from "../../domain/campaigns.js";
import { BadRequestError, ServiceError } from "../../domain/errors.js";
import { checksummed } from "../../domain/payoutSettings.js";
import { campaignAttention, flaggedDrawings } from "../../domain/overview.js";
import { CADENCES, type Cadence, type ScheduleInput } from "../../domain/schedule.js";
import type { Campaign, CampaignMode } from "../../store/campaigns.js";
import type { Drawing } from "../../store/drawings.js";
import type { Store } from "../../store/index.js";
import { maskPullUrl } from "../../pull/url.js";
import { field, signedIn, type PortalEnv, type SignedIn } from "./guard.js";
import {
  CampaignNav,
  DOLLARS_HINT,
  FormError,
  NOT_DOLLARS,
  Section,
  SelectField,
  TextField,
  centsToDollarsInput,
  dollarsToCents,
  doneNotice,
  errorsFrom,
  money,
  toUtcInput,
  utc,
  utcInput,
  type FieldErrors,
} from "./forms.js";
import { Csrf, PortalLayout, type Notice } from "./Layout.js";
import { actorOf, viewerOf } from "./team.js";

export type CampaignScreensDeps = { store: Store; publicBaseUrl: string; runCampaign: (campaignId: string) => void; pullPolicy?: PullUrlPolicy };

/** The API's names of the settings (as the domain's messages use them) to the form's fields. */
const SETTING_FIELDS: Record<string, string> = {
  slug: "slug",
  name: "name",
  mode: "mode",
  cadence: "cadence",
  schedule: "cadence",
  drawHour: "drawHour",
  drawMinute: "drawMinute",
  drawWeekday: "drawWeekday",
  drawDayOfMonth: "drawDayOfMonth",
  timezone: "timezone",
  cutoffMinutes: "cutoffMinutes",
  startsAt: "startsAt",
  endsAt: "endsAt",
  winnersPerDraw: "winnersPerDraw",
  payoutWallet: "payoutWallet",
  pullUrl: "pullUrl",
  largePrizeThresholdCents: "largePrizeThreshold",
  guarantee: "guaranteeAmount",
  "guarantee.amountCents": "guaranteeAmount",
  "guarantee.thresholdCents": "guaranteeThreshold",
  "guarantee.periodDays": "guaranteePeriodDays",
};

const MODES: readonly (readonly [CampaignMode, string])[] = [
  ["pull", "pull: the service fetches the winner list from your URL"],
  ["push", "push: you post the winner list to the API"],
  ["entries", "entries: you send entrants, the service draws the winners"],
];
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

/** Every IANA zone this Node knows, UTC first. */
const TIME_ZONES: readonly string[] = (() => {
  const zones = Intl.supportedValuesOf("timeZone");
  return ["UTC", ...zones.filter((z) => z !== "UTC")];
})();

/** A whole number typed in a form: "" is absent (the default), anything else not an integer is NaN (the domain says why). */
function int(text: string): number | undefined {
  const value = text.trim();
  if (value === "") return undefined;
  return /^-?\d{1,12}$/.test(value) ? Number(value) : Number.NaN;
}

/** The form's values, as typed: re-shown after a refusal. */
type FormValues = Record<string, string>;

const FORM_FIELDS = [
  "name", "slug", "mode", "cadence", "drawHour", "drawMinute", "drawWeekday", "drawDayOfMonth", "timezone", "cutoffMinutes", "startsAt", "endsAt",
  "winnersPerDraw", "payoutWallet", "pullUrl", "largePrizeThreshold", "guaranteeAmount", "guaranteeThreshold", "guaranteePeriodDays",
] as const;

function valuesOf(c: Context<PortalEnv>): FormValues {
  return Object.fromEntries(FORM_FIELDS.map((name) => [name, field(c, name).slice(0, 4_096)]));
}

function valuesFromCampaign(campaign: Campaign): FormValues {
  const s = campaign.schedule;
  return {
    name: campaign.name,
    slug: campaign.slug,
    mode: campaign.mode,
    cadence: s.cadence,
    drawHour: String(s.drawHour),
    drawMinute: String(s.drawMinute),
    drawWeekday: s.drawWeekday === null ? "" : String(s.drawWeekday),
    drawDayOfMonth: s.drawDayOfMonth === null ? "" : String(s.drawDayOfMonth),
    timezone: s.timezone,
    cutoffMinutes: String(s.cutoffMinutes),
    startsAt: toUtcInput(s.startsAt),
    endsAt: toUtcInput(s.endsAt),
    winnersPerDraw: String(campaign.winnersPerDraw),
    payoutWallet: checksummed(campaign.payoutWallet) ?? "",
    // Never the stored pull URL: it is a secret (spec, Pull mode); the form shows it masked beside the field.
    pullUrl: "",
    largePrizeThreshold: centsToDollarsInput(campaign.largePrizeThresholdCents),
    guaranteeAmount: campaign.guarantee ? centsToDollarsInput(campaign.guarantee.amountCents) : "",
    guaranteeThreshold: campaign.guarantee ? centsToDollarsInput(campaign.guarantee.thresholdCents) : "",
    guaranteePeriodDays: campaign.guarantee ? String(campaign.guarantee.periodDays) : "",
  };
}

/** The schedule as the form gives it; fields the cadence does not use are sent as null (the domain refuses values there). */
function scheduleOf(v: FormValues): Omit<ScheduleInput, "endsAt"> {
  const cadence = v.cadence as Cadence;
  const schedule: Omit<ScheduleInput, "endsAt"> = { cadence };
  if (cadence === "hourly") schedule.drawHour = 0;
  else if (int(v.drawHour!) !== undefined) schedule.drawHour = int(v.drawHour!)!;
  if (int(v.drawMinute!) !== undefined) schedule.drawMinute = int(v.drawMinute!)!;
  schedule.drawWeekday = cadence === "weekly" ? (int(v.drawWeekday!) ?? null) : null;
  schedule.drawDayOfMonth = cadence === "monthly" ? (int(v.drawDayOfMonth!) ?? null) : null;
  if (v.timezone) schedule.timezone = v.timezone;
  if (int(v.cutoffMinutes!) !== undefined) schedule.cutoffMinutes = int(v.cutoffMinutes!)!;
  if (v.startsAt) schedule.startsAt = utcInput(v.startsAt);
  return schedule;
}

/** Dollars fields that are not amounts: refused before anything is sent (the form's own format, not a rule). */
function dollarErrors(v: FormValues, names: readonly string[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const name of names) if (v[name]!.trim() !== "" && Number.isNaN(dollarsToCents(v[name]!))) errors[name] = `${name === "largePrizeThreshold" ? "Large-prize threshold" : name === "guaranteeAmount" ? "Guaranteed amount" : "Guarantee threshold"} ${NOT_DOLLARS}`;
  return errors;
}

function guaranteeOf(v: FormValues): CampaignInput["guarantee"] {
  if (v.guaranteeAmount!.trim() === "" && v.guaranteeThreshold!.trim() === "") return null;
  const periodDays = int(v.guaranteePeriodDays!);
  return {
    amountCents: v.guaranteeAmount!.trim() === "" ? Number.NaN : dollarsToCents(v.guaranteeAmount!),
    thresholdCents: v.guaranteeThreshold!.trim() === "" ? Number.NaN : dollarsToCents(v.guaranteeThreshold!),
    ...(periodDays !== undefined ? { periodDays } : {}),
  };
}

/**
 * The payouts fieldset: fields for owners; for members the values as text (the domain refuses their changes, so the
 * form sends none).
 */
function PayoutFields(props: { values: FormValues; errors: FieldErrors; ownersOnly: boolean; campaign?: Campaign | undefined }) {
  const { values: v, errors, campaign } = props;
  if (props.ownersOnly) {
    // A refusal that names a field this page does not show (a post not made from it) is shown here instead.
    const refused = errors.payoutWallet ?? errors.largePrizeThreshold;
    return (
      <fieldset>
        <legend>Payouts</legend>
        <p class="hint">
          Only the account's owners set the payout wallet and the large-prize threshold
          {campaign ? "." : ": ask one to set the wallet before the campaign is activated."}
        </p>
        <dl class="facts">
          <dt>Payout wallet</dt>
          <dd>{campaign?.payoutWallet ? <code>{checksummed(campaign.payoutWallet)}</code> : "none yet"}</dd>
          <dt>Large-prize threshold</dt>
          <dd>{money(campaign?.largePrizeThresholdCents ?? DEFAULT_LARGE_PRIZE_THRESHOLD_CENTS)}</dd>
        </dl>
        {refused ? (
          <p class="field-error" role="alert">
            {refused}
          </p>
        ) : null}
      </fieldset>
    );
  }
  return (
    <fieldset>
      <legend>Payouts</legend>
      <TextField
        name="payoutWallet"
        label="Payout wallet"
        value={v.payoutWallet}
        hint="The 0x address the prizes are paid to; needed to activate. Mixed case must match its checksum. Once set it can be changed, not removed. Owners only: a change is in the audit log and sent to your webhook endpoints."
        errors={errors}
        autocomplete="off"
      />
      <TextField
        name="largePrizeThreshold"
        label="Large-prize threshold (dollars)"
        value={v.largePrizeThreshold}
        inputmode="decimal"
        hint={`${DOLLARS_HINT} Prizes at or above it are held and paid by hand after checks. Default 500. Owners only, like the wallet.`}
        errors={errors}
      />
    </fieldset>
  );
}

/** The settings form, for a new campaign or (with `campaign`) an existing one; `ownersOnly` for a member. */
function SettingsForm(props: { action: string; values: FormValues; errors: FieldErrors; csrf: string; ownersOnly: boolean; campaign?: Campaign }) {
  const { values: v, errors, campaign } = props;
  const creating = !campaign;
  const scheduleEditable = creating || campaign.status === "draft";
  const mode = (campaign?.mode ?? v.mode) as CampaignMode;
  return (
    <form method="post" action={props.action} novalidate>
      <Csrf token={props.csrf} />
      <FormError errors={errors} />
      <fieldset>
        <legend>Campaign</legend>
        <TextField name="name" label="Name" value={v.name} hint="1 to 100 characters, shown on the public page." errors={errors} required />
        {creating ? (
          <>
            <TextField
              name="slug"
              label="Slug"
              value={v.slug}
              hint="The public address and onchain id: 1 to 32 lowercase letters, digits and inner hyphens. It cannot change later."
              errors={errors}
              required
            />
            <SelectField name="mode" label="How winners arrive" value={v.mode || "pull"} options={MODES} hint="It cannot change later." errors={errors} />
          </>
        ) : (
          <p>
            Slug <code>{campaign.slug}</code>, mode {campaign.mode} (these cannot change).
          </p>
        )}
        <TextField
          name="winnersPerDraw"
          label="Winners per draw"
          value={v.winnersPerDraw}
          type="number"
          inputmode="numeric"
          hint="Up to 1,000 for push and pull campaigns, 100,000 for entries. A change applies to drawings created from now on."
          errors={errors}
        />
      </fieldset>
      <fieldset>
        <legend>Schedule</legend>
        {scheduleEditable ? (
          <>
            <SelectField name="cadence" label="Cadence" value={v.cadence || "daily"} options={CADENCES.map((c) => [c, c] as const)} errors={errors} />
            <TextField name="drawHour" label="Draw hour (0 to 23)" value={v.drawHour} type="number" inputmode="numeric" hint="In the time zone below; hourly campaigns use the minute only. Default 20." errors={errors} />
            <TextField name="drawMinute" label="Draw minute (0 to 59)" value={v.drawMinute} type="number" inputmode="numeric" hint="Default 0." errors={errors} />
            <SelectField
              name="drawWeekday"
              label="Weekday (weekly campaigns)"
              value={v.drawWeekday ?? ""}
              options={[["", "not weekly"], ...WEEKDAYS.map((d, i) => [String(i), d] as const)]}
              errors={errors}
            />
            <TextField name="drawDayOfMonth" label="Day of month (monthly campaigns, 1 to 31)" value={v.drawDayOfMonth} type="number" inputmode="numeric" hint="Shorter months use their last day." errors={errors} />
            <SelectField name="timezone" label="Time zone" value={v.timezone || "UTC"} options={TIME_ZONES.map((z) => [z, z] as const)} errors={errors} />
            <TextField name="cutoffMinutes" label="Cutoff (minutes before each draw)" value={v.cutoffMinutes} type="number" inputmode="numeric" hint="Lists close this long before each draw. Default 60 (hourly: 5)." errors={errors} />
            <TextField name="startsAt" label="Start (UTC)" value={v.startsAt} type="datetime-local" hint="Empty: now." errors={errors} />
          </>
        ) : (
          <p id="f-schedule-fixed">
            {describeSchedule(campaign)}. The schedule changes only while a campaign is a draft (its drawings exist already); the end date can change.
          </p>
        )}
        <TextField name="endsAt" label="End (UTC)" value={v.endsAt} type="datetime-local" hint="Empty: no end date. An earlier end removes the drawings after it." errors={errors} />
      </fieldset>
      <PayoutFields values={v} errors={errors} ownersOnly={props.ownersOnly} campaign={campaign} />
      {creating || mode === "pull" ? (
        <fieldset>
          <legend>Pull URL{creating ? " (pull campaigns)" : ""}</legend>
          <TextField
            name="pullUrl"
            label="Winners URL"
            type="url"
            value={creating ? v.pullUrl : ""}
            inputmode="url"
            hint={
              (campaign?.pullUrl ? `Stored: ${maskPullUrl(campaign.pullUrl)} (the rest is kept secret). Leave empty to keep it. ` : "") +
              "https, public host; placeholders {drawingId}, {drawAt}, {date} (hourly campaigns need {drawingId} or {drawAt}). Put an unguessable token in the path."
            }
            errors={errors}
          />
        </fieldset>
      ) : null}
      <fieldset>
        <legend>Guarantee (optional)</legend>
        {scheduleEditable ? (
          <>
            <p class="hint">A minimum prize per period: when a period has no prize at or above the threshold, you pick a winner of it to receive the guaranteed amount. Leave both amounts empty for none. It is fixed once the campaign is active.</p>
            <TextField name="guaranteeAmount" label="Guaranteed amount (dollars)" value={v.guaranteeAmount} inputmode="decimal" hint={DOLLARS_HINT} errors={errors} />
            <TextField name="guaranteeThreshold" label="Guarantee threshold (dollars)" value={v.guaranteeThreshold} inputmode="decimal" hint={DOLLARS_HINT} errors={errors} />
            <TextField name="guaranteePeriodDays" label="Period (days)" value={v.guaranteePeriodDays} type="number" inputmode="numeric" hint="1 to 366; default 30." errors={errors} />
          </>
        ) : (
          <p>
            {campaign.guarantee
              ? `${money(campaign.guarantee.amountCents)} every ${campaign.guarantee.periodDays} days without a prize of ${money(campaign.guarantee.thresholdCents)} or more (fixed once active).`
              : "None (a guarantee can be set only while a campaign is a draft)."}
          </p>
        )}
      </fieldset>
      <p>
        <button type="submit">{creating ? "Create the draft" : "Save settings"}</button>
      </p>
    </form>
  );
}

function describeSchedule(campaign: Campaign): string {
  const s = campaign.schedule;
  const time = `${String(s.drawHour).padStart(2, "0")}:${String(s.drawMinute).padStart(2, "0")}`;
  const when =
    s.cadence === "hourly"
      ? `every hour at minute ${s.drawMinute}`
      : s.cadence === "daily"
        ? `every day at ${time}`
        : s.cadence === "weekly"
          ? `every ${WEEKDAYS[s.drawWeekday ?? 0]} at ${time}`
          : `on day ${s.drawDayOfMonth} of every month at ${time}`;
  return `Draws ${when} (${s.timezone}), lists close ${s.cutoffMinutes} minutes before; started ${utc(s.startsAt)}`;
}

export function campaignListRoutes({ store, publicBaseUrl, runCampaign, pullPolicy = { allowHttpLoopback: false } }: CampaignScreensDeps) {
  const app = new Hono<PortalEnv>();

  app.get("/", async (c) => {
    const session = signedIn(c);
    const campaigns: { campaign: Campaign; flagged: Drawing[] }[] = [];
    for (const campaign of await store.campaigns.ofAccount(session.accountId)) {
      campaigns.push({ campaign, flagged: await flaggedDrawings(store, campaign.id) });
    }
    return c.html(
      <PortalLayout title="Campaigns" viewer={viewerOf(session)}>
        <p>
          <a href="/portal/campaigns/new" class="button">
            New campaign
          </a>
        </p>
        {campaigns.length === 0 ? <p>No campaigns yet.</p> : null}
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Campaign</th>
                <th scope="col">Mode</th>
                <th scope="col">Status</th>
                <th scope="col">Needs attention</th>
              </tr>
            </thead>
            <tbody>
              {campaigns.map(({ campaign, flagged }) => (
                <tr>
                  <th scope="row">
                    <a href={`/portal/campaigns/${campaign.slug}`}>{campaign.name}</a>
                    <span class="hint">
                      {campaign.slug} · <a href={`/portal/campaigns/${campaign.slug}/edit`}>settings</a> · <a href={`/portal/campaigns/${campaign.slug}/table`}>prize table</a> ·{" "}
                      <a href={`/portal/campaigns/${campaign.slug}/drawings`}>drawings</a> · <a href={`${publicBaseUrl}/campaigns/${campaign.slug}`}>public page</a>
                    </span>
                  </th>
                  <td>{campaign.mode}</td>
                  <td>{campaign.status}</td>
                  <td>
                    {flagged.length === 0 ? (
                      "nothing"
                    ) : (
                      <a href={`/portal/campaigns/${campaign.slug}/drawings`}>{`${flagged.length} drawing${flagged.length === 1 ? "" : "s"}: ${flagged[0]!.needsAttention}`}</a>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </PortalLayout>,
    );
  });

  const newPage = (session: SignedIn, values: FormValues, errors: FieldErrors = {}) => (
    <PortalLayout title="New campaign" viewer={viewerOf(session)}>
      <p>A new campaign starts as a draft: it draws nothing and its public page stays hidden until you activate it.</p>
      <SettingsForm action="/portal/campaigns/new" values={values} errors={errors} csrf={session.csrfToken} ownersOnly={session.member.role !== "owner"} />
    </PortalLayout>
  );

  app.get("/campaigns/new", (c) => {
    const session = signedIn(c);
    return c.html(newPage(session, { mode: "pull", cadence: "daily", timezone: "UTC", largePrizeThreshold: "500" }));
  });

  app.post("/campaigns/new", async (c) => {
    const session = signedIn(c);
    const v = valuesOf(c);
    const wrongDollars = dollarErrors(v, ["largePrizeThreshold", "guaranteeAmount", "guaranteeThreshold"]);
    if (Object.keys(wrongDollars).length > 0) return c.html(newPage(session, v, wrongDollars), 400);
    const endsAt = v.endsAt!.trim() === "" ? undefined : utcInput(v.endsAt!);
    const input: CampaignInput = {
      slug: v.slug!.trim(),
      name: v.name!,
      mode: v.mode as CampaignMode,
      schedule: { ...scheduleOf(v), ...(endsAt ? { endsAt } : {}) },
      ...(int(v.winnersPerDraw!) !== undefined ? { winnersPerDraw: int(v.winnersPerDraw!)! } : {}),
      payoutWallet: v.payoutWallet!.trim() || null,
      pullUrl: v.pullUrl!.trim() || null,
      ...(v.largePrizeThreshold!.trim() !== "" ? { largePrizeThresholdCents: dollarsToCents(v.largePrizeThreshold!) } : {}),
      guarantee: guaranteeOf(v),
    };
    try {
      if (!["push", "pull", "entries"].includes(input.mode)) throw new BadRequestError("mode must be push, pull or entries");
      const campaign = await createCampaign(store, session.accountId, input, new Date(), pullPolicy, actorOf(session));
      return c.redirect(`/portal/campaigns/${campaign.slug}?done=created`, 303);
    } catch (error) {
      if (error instanceof ServiceError && (error.status === 400 || error.status === 409)) return c.html(newPage(session, v, errorsFrom(error.detail, SETTING_FIELDS)), error.status);
      throw error;
    }
  });

  const editPage = (session: SignedIn, campaign: Campaign, values: FormValues, errors: FieldErrors = {}, notice: Notice = null) => (
    <PortalLayout title={`Settings: ${campaign.name}`} viewer={viewerOf(session)} notice={notice}>
      <CampaignNav campaign={campaign} viewer={viewerOf(session)} current={`/portal/campaigns/${campaign.slug}/edit`} />
      {campaign.status === "ended" ? (
        <p>This campaign has ended: its settings cannot change.</p>
      ) : (
        <SettingsForm action={`/portal/campaigns/${campaign.slug}/edit`} values={values} errors={errors} csrf={session.csrfToken} ownersOnly={session.member.role !== "owner"} campaign={campaign} />
      )}
    </PortalLayout>
  );

  app.get("/campaigns/:slug/edit", async (c) => {
    const session = signedIn(c);
    const campaign = await ownCampaign(store, session.accountId, c.req.param("slug"));
    return c.html(editPage(session, campaign, valuesFromCampaign(campaign), {}, doneNotice(c.req.query("done"))));
  });

  app.post("/campaigns/:slug/edit", async (c) => {
    const session = signedIn(c);
    const campaign = await ownCampaign(store, session.accountId, c.req.param("slug"));
    const v: FormValues = { ...valuesOf(c), slug: campaign.slug, mode: campaign.mode };
    const draft = campaign.status === "draft";
    const wrongDollars = dollarErrors(v, draft ? ["largePrizeThreshold", "guaranteeAmount", "guaranteeThreshold"] : ["largePrizeThreshold"]);
    if (Object.keys(wrongDollars).length > 0) return c.html(editPage(session, campaign, v, wrongDollars), 400);
    const settings: CampaignSettings = {
      name: v.name!,
      ...(int(v.winnersPerDraw!) !== undefined ? { winnersPerDraw: int(v.winnersPerDraw!)! } : {}),
      ...(v.payoutWallet!.trim() !== "" ? { payoutWallet: v.payoutWallet!.trim() } : {}),
      ...(v.largePrizeThreshold!.trim() !== "" ? { largePrizeThresholdCents: dollarsToCents(v.largePrizeThreshold!) } : {}),
      ...(v.pullUrl!.trim() !== "" ? { pullUrl: v.pullUrl!.trim() } : {}),
      endsAt: v.endsAt!.trim() === "" ? null : utcInput(v.endsAt!),
      ...(draft ? { schedule: scheduleOf(v), guarantee: guaranteeOf(v) } : {}),
    };
    try {
      // A member's change of the wallet or threshold is refused in the domain (403 forbidden: the error page).
      await updateCampaign(store, campaign.slug, settings, new Date(), pullPolicy, actorOf(session));
    } catch (error) {
      if (error instanceof ServiceError && (error.status === 400 || error.status === 409)) return c.html(editPage(session, campaign, v, errorsFrom(error.detail, SETTING_FIELDS)), error.status);
      throw error;
    }
    runCampaign(campaign.id);
    return c.redirect(`/portal/campaigns/${campaign.slug}/edit?done=saved`, 303);
  });

  const overviewPage = async (session: SignedIn, campaign: Campaign, notice: Notice = null, errors: FieldErrors = {}) => {
    const viewer = viewerOf(session);
    const view = await campaignView(store, campaign, { publicBaseUrl });
    const { flagged, awaitingPick: awaiting, heldOpen: held } = await campaignAttention(store, campaign);
    const attention: string[] = [];
    if (campaign.status === "draft") attention.push("Draft: it draws nothing and its public page is hidden until it is activated.");
    if (campaign.status === "draft" && !campaign.payoutWallet) attention.push("No payout wallet yet: set one in Settings before activating.");
    if (flagged.length > 0) attention.push(`${flagged.length} drawing${flagged.length === 1 ? "" : "s"} flagged: ${flagged[0]!.needsAttention}`);
    if (awaiting.length > 0) attention.push(`${awaiting.length} guarantee period${awaiting.length === 1 ? "" : "s"} awaiting your pick.`);
    if (held.length > 0) attention.push(`${held.length} large prize${held.length === 1 ? "" : "s"} held for a manual payout (paid or refused by the service's operators).`);
    const moves: { action: CampaignAction; label: string }[] =
      campaign.status === "draft"
        ? [{ action: "activate", label: "Activate" }]
        : campaign.status === "active"
          ? [{ action: "pause", label: "Pause" }]
          : campaign.status === "paused"
            ? [{ action: "resume", label: "Resume" }]
            : [];
    const base = `/portal/campaigns/${campaign.slug}`;
    return (
      <PortalLayout title={campaign.name} viewer={viewer} notice={notice}>
        <CampaignNav campaign={campaign} viewer={viewer} current={base} />
        <p>
          Status <strong>{campaign.status}</strong> · {campaign.mode} campaign ·{" "}
          {campaign.status === "draft" ? "public page hidden while a draft" : <a href={view.page}>public page</a>}
        </p>
        <Section id="attention" title="Needs attention">
          {attention.length === 0 ? (
            <p>Nothing.</p>
          ) : (
            <ul>
              {attention.map((a) => (
                <li>{a}</li>
              ))}
            </ul>
          )}
          {flagged.length > 0 || awaiting.length > 0 || held.length > 0 ? (
            <p>
              <a href={`${base}/drawings`}>Open the drawings</a>
            </p>
          ) : null}
        </Section>
        <Section id="status" title="Status">
          {moves.map((m) => (
            <form method="post" action={`${base}/status`} class="inline">
              <Csrf token={viewer.csrf} />
              <input type="hidden" name="action" value={m.action} />
              <button type="submit">{m.label}</button>{" "}
            </form>
          ))}
          {campaign.status !== "ended" ? (
            <form method="post" action={`${base}/status`}>
              <Csrf token={viewer.csrf} />
              <input type="hidden" name="action" value="end" />
              <div class="field check">
                <input
                  type="checkbox"
                  id="f-confirm"
                  name="confirm"
                  value="yes"
                  aria-describedby={errors.confirm ? "f-confirm-error" : undefined}
                  aria-invalid={errors.confirm ? "true" : undefined}
                />{" "}
                <label for="f-confirm" class="inline-label">
                  I understand that ending is final: upcoming drawings are removed and the campaign never draws again.
                </label>
                {errors.confirm ? (
                  <p class="field-error" id="f-confirm-error">
                    {errors.confirm}
                  </p>
                ) : null}
              </div>
              <button type="submit" class="danger">
                End the campaign
              </button>
            </form>
          ) : (
            <p>Ended: final. Drawings already past their cutoff still draw and pay.</p>
          )}
        </Section>
        <Section id="summary" title="Settings">
          <dl class="facts">
            <dt>Schedule</dt>
            <dd>{describeSchedule(campaign)}; ends {utc(campaign.schedule.endsAt)}</dd>
            <dt>Winners per draw</dt>
            <dd>{campaign.winnersPerDraw}</dd>
            <dt>Payout wallet</dt>
            <dd>{view.payoutWallet ? <code>{view.payoutWallet}</code> : "none"}</dd>
            <dt>Large-prize threshold</dt>
            <dd>{money(campaign.largePrizeThresholdCents)}</dd>
            <dt>Average prize per winner</dt>
            <dd>{money(view.prizeTable.averagePrizeCents)} (table version {view.prizeTable.version})</dd>
            <dt>Guarantee</dt>
            <dd>{campaign.guarantee ? `${money(campaign.guarantee.amountCents)} per ${campaign.guarantee.periodDays} days below ${money(campaign.guarantee.thresholdCents)}` : "none"}</dd>
            {view.pullUrl ? (
              <>
                <dt>Pull URL</dt>
                <dd>{view.pullUrl}</dd>
              </>
            ) : null}
            <dt>Next drawing</dt>
            <dd>{view.nextDrawing ? `draws ${utc(view.nextDrawing.drawAt)}, lists close ${utc(view.nextDrawing.cutoffAt)}` : "none open"}</dd>
          </dl>
          <p>
            <a href={`${base}/edit`}>Change the settings</a>
          </p>
        </Section>
      </PortalLayout>
    );
  };

  app.get("/campaigns/:slug", async (c) => {
    const session = signedIn(c);
    const campaign = await ownCampaign(store, session.accountId, c.req.param("slug"));
    return c.html(await overviewPage(session, campaign, doneNotice(c.req.query("done"))));
  });

  app.post("/campaigns/:slug/status", async (c) => {
    const session = signedIn(c);
    const campaign = await ownCampaign(store, session.accountId, c.req.param("slug"));
    const action = field(c, "action");
    if (!["activate", "pause", "resume", "end"].includes(action)) throw new BadRequestError("action must be activate, pause, resume or end");
    if (action === "end" && field(c, "confirm") !== "yes") {
      return c.html(await overviewPage(session, campaign, null, { confirm: "Tick the box to confirm: ending a campaign cannot be undone." }), 400);
    }
    let moved: Campaign;
    try {
      moved = await transitionCampaign(store, campaign.slug, action as CampaignAction, new Date(), session.email);
    } catch (error) {
      if (error instanceof ServiceError && (error.status === 400 || error.status === 409)) return c.html(await overviewPage(session, campaign, { kind: "error", text: error.detail }), error.status);
      throw error;
    }
    runCampaign(moved.id);
    return c.redirect(`/portal/campaigns/${campaign.slug}?done=${action}`, 303);
  });

  return app;
}
