/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
// Form pieces the campaign screens share: a labelled field with its hint and error (aria-describedby), the
// translation of a domain refusal into the field it names, dollars to cents, and the campaign's sub-navigation.
// No rule lives here: the messages are the domain's; this only places them next to the right input.
import type { Child } from "hono/jsx";
import type { Campaign } from "../../store/campaigns.js";
import type { Viewer } from "./Layout.js";

/** Errors by form field name; "" is the form as a whole. */
export type FieldErrors = Record<string, string>;

const fieldId = (name: string) => `f-${name}`;

function describedBy(name: string, hint: boolean, error: boolean): string | undefined {
  const ids = [hint ? `${fieldId(name)}-hint` : null, error ? `${fieldId(name)}-error` : null].filter(Boolean);
  return ids.length > 0 ? ids.join(" ") : undefined;
}

function HintAndError(props: { name: string; hint?: string | undefined; error?: string | undefined }) {
  return (
    <>
      {props.hint ? (
        <span class="hint" id={`${fieldId(props.name)}-hint`}>
          {props.hint}
        </span>
      ) : null}
      {props.error ? (
        <p class="field-error" id={`${fieldId(props.name)}-error`}>
          {props.error}
        </p>
      ) : null}
    </>
  );
}

export type TextFieldProps = {
  name: string;
  label: string;
  value?: string | undefined;
  type?: "text" | "url" | "number" | "datetime-local" | "email";
  hint?: string | undefined;
  errors: FieldErrors;
  required?: boolean;
  inputmode?: "numeric" | "decimal" | "url" | "text";
  autocomplete?: string;
  /** A distinct id when the same name appears several times on a page (table rows, one form per drawing). */
  id?: string;
};

/** A labelled input; its hint and its error are announced with it (aria-describedby), aria-invalid when wrong. */
export function TextField(props: TextFieldProps) {
  const key = props.id ?? props.name;
  const error = props.errors[key];
  return (
    <div class="field">
      <label for={fieldId(key)}>{props.label}</label>
      <input
        id={fieldId(key)}
        name={props.name}
        type={props.type ?? "text"}
        value={props.value ?? ""}
        required={props.required}
        inputmode={props.inputmode}
        autocomplete={props.autocomplete ?? "off"}
        aria-describedby={describedBy(key, Boolean(props.hint), Boolean(error))}
        aria-invalid={error ? "true" : undefined}
      />
      <HintAndError name={key} hint={props.hint} error={error} />
    </div>
  );
}

export function SelectField(props: { name: string; label: string; value: string; options: readonly (readonly [string, string])[]; hint?: string; errors: FieldErrors }) {
  const error = props.errors[props.name];
  return (
    <div class="field">
      <label for={fieldId(props.name)}>{props.label}</label>
      <select id={fieldId(props.name)} name={props.name} aria-describedby={describedBy(props.name, Boolean(props.hint), Boolean(error))} aria-invalid={error ? "true" : undefined}>
        {props.options.map(([value, text]) => (
          <option value={value} selected={value === props.value}>
            {text}
          </option>
        ))}
      </select>
      <HintAndError name={props.name} hint={props.hint} error={error} />
    </div>
  );
}

/** The error of the form as a whole (one the domain does not pin on a field), announced at once. */
export function FormError(props: { errors: FieldErrors }) {
  const text = props.errors[""];
  return text ? (
    <p class="notice error" role="alert">
      {text}
    </p>
  ) : null;
}

/**
 * The field a domain message names. The domain's messages start with (or name) the setting they are about, in the
 * API's words ("payoutWallet must be...", "drawHour must be...", "guarantee.amountCents ..."); `names` maps those
 * words to the form's field names. The earliest mention wins; unnamed messages belong to the whole form ("").
 */
export function errorsFrom(detail: string, names: Record<string, string>): FieldErrors {
  let best: { at: number; field: string; length: number } | null = null;
  for (const [word, field] of Object.entries(names)) {
    const match = new RegExp(`(^|[^A-Za-z.])${word.replace(/\./g, "\\.")}(?![A-Za-z])`).exec(detail);
    if (!match) continue;
    const at = match.index + match[1]!.length;
    if (!best || at < best.at || (at === best.at && word.length > best.length)) best = { at, field, length: word.length };
  }
  return { [best?.field ?? ""]: detail };
}

/** Dollars as typed in a form ("500", "12.5", "1,000.00") to whole cents; NaN when it is not an amount. */
export function dollarsToCents(text: string): number {
  const value = text.trim().replace(/^\$/, "").replace(/,/g, "");
  const match = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(value);
  if (!match) return Number.NaN;
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}

export const DOLLARS_HINT = "In dollars, e.g. 500 or 12.50.";
export const NOT_DOLLARS = "must be an amount in dollars with at most two decimals, e.g. 500 or 12.50";

/** Cents as a form value in dollars: 50000 -> "500", 1250 -> "12.50". */
export function centsToDollarsInput(cents: number): string {
  const whole = Math.floor(cents / 100);
  const rest = cents % 100;
  return rest === 0 ? String(whole) : `${whole}.${String(rest).padStart(2, "0")}`;
}

/** Cents for people: 1234567 -> "$12,345.67". */
export function money(cents: number): string {
  return `$${(cents / 100).toLocaleString("en-US", { minimumFractionDigits: cents % 100 === 0 ? 0 : 2, maximumFractionDigits: 2 })}`;
}

/** An ISO time as the portal shows it: "2026-11-26 14:55 UTC". */
export function utc(iso: string | null): string {
  return iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "none";
}

/** A datetime-local value ("2026-11-26T14:55", read as UTC) or an ISO time to ISO; "" stays "". */
export function utcInput(text: string): string {
  const value = text.trim();
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value) ? `${value}Z` : value;
}

/** An ISO time as a datetime-local value in UTC. */
export function toUtcInput(iso: string | null): string {
  return iso ? iso.slice(0, 16) : "";
}

/** The fixed words shown after a redirect (`?done=...`): never text from the request. */
const DONE: Record<string, string> = {
  created: "Campaign created as a draft.",
  saved: "Settings saved.",
  activate: "Campaign activated: drawings appear for the next two days.",
  pause: "Campaign paused: upcoming drawings were removed.",
  resume: "Campaign resumed: new drawings are being created.",
  end: "Campaign ended.",
  published: "Prize table published: every open drawing now uses it.",
  extended: "Cutoff extended: the drawing takes a list until its new cutoff.",
  picked: "Guarantee picked: its payout is on its way.",
  links: "Links saved.",
  logo: "Logo uploaded.",
  "logo-removed": "Logo removed.",
};

export function doneNotice(code: string | undefined) {
  const text = code ? DONE[code] : undefined;
  return text ? { kind: "ok" as const, text } : null;
}

/** The campaign's own pages, as a second navigation. */
export function CampaignNav(props: { campaign: Campaign; viewer: NonNullable<Viewer>; current: string }) {
  const base = `/portal/campaigns/${props.campaign.slug}`;
  const links: [string, string][] = [
    [base, "Overview"],
    [`${base}/edit`, "Settings"],
    [`${base}/table`, "Prize table"],
    [`${base}/drawings`, "Drawings"],
  ];
  if (props.viewer.role === "owner") links.push([`${base}/branding`, "Logo and links"]);
  return (
    <nav aria-label={`Campaign ${props.campaign.name}`} class="subnav">
      {links.map(([href, text]) => (
        <a href={href} aria-current={href === props.current ? "page" : undefined}>
          {text}
        </a>
      ))}
    </nav>
  );
}

export function Section(props: { id: string; title: string; children: Child }) {
  return (
    <section aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      {props.children}
    </section>
  );
}
