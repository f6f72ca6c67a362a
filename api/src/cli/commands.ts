/**
 * The `prizedraw` CLI's commands and options, written down once: `--help` and `help COMMAND` print them, and
 * the CLI refuses an option that its command does not take (a misspelt or misplaced flag is never ignored).
 */

/** One option of a command: `--flag VALUE`, what it means, and whether the command needs it. */
export type OptionHelp = { flag: string; value?: string; text: string; required?: boolean };

export type CommandHelp = {
  /** The command's words, e.g. "campaign create". */
  name: string;
  /** Positional arguments after the name, e.g. "SLUG DRAWING_ID". */
  args?: string;
  summary: string;
  options: OptionHelp[];
  /** Changes the store (or the chain): the CLI names the store it writes to before it does. */
  mutates: boolean;
  /** Further lines for `help COMMAND`. */
  notes?: string[];
};

const ACCOUNT: OptionHelp = { flag: "account", value: "ID", text: "the account (acc_...)", required: true };
const AS: OptionHelp = { flag: "as", value: "EMAIL", text: "act as this member, who must be an owner; without it the operator acts" };

export const COMMANDS: readonly CommandHelp[] = [
  {
    name: "account create",
    summary: "creates an account with its first owner",
    options: [{ flag: "email", value: "EMAIL", text: "the owner's email", required: true }],
    mutates: true,
    notes: ["Prints { accountId }. npm start already creates a first account (owner@localhost) on a fresh data folder."],
  },
  {
    name: "account list",
    summary: "every account, newest first: its id, owners and members (with roles), number of campaigns, created time",
    options: [],
    mutates: false,
    notes: ["Prints { accounts: [{ id, members: [{ email, role }], campaignCount, createdAt }] }."],
  },
  {
    name: "member add",
    summary: "adds a member to an account, or changes a member's role (owners only; the last owner stays one)",
    options: [ACCOUNT, { flag: "email", value: "EMAIL", text: "the member's email", required: true }, { flag: "role", value: "owner|member", text: "owners may also create and revoke keys (default member)" }, AS],
    mutates: true,
  },
  {
    name: "key create",
    summary: "creates an API key for the account (owners only); the key is printed once",
    options: [ACCOUNT, AS],
    mutates: true,
    notes: ["Prints { key, keyId }. Only a hash of the key is stored: keep the key, it cannot be shown again."],
  },
  {
    name: "key list",
    summary: "the account's API keys, newest first, revoked ones included and marked; never a key's secret nor its hash",
    options: [ACCOUNT],
    mutates: false,
    notes: [
      "Prints { accountId, keys: [{ keyId, prefix, last4, createdAt, createdBy, lastUsedAt, revokedAt, revoked }] }: prefix is what the key starts with (pd_test_<keyId>), last4 the last four characters of its secret, as the portal shows them.",
    ],
  },
  {
    name: "key revoke",
    args: "KEYID",
    summary: "revokes a key at once (owners only)",
    options: [ACCOUNT, AS],
    mutates: true,
  },
  {
    name: "campaign create",
    summary: "creates a draft campaign",
    options: [
      ACCOUNT,
      { flag: "slug", value: "SLUG", text: "1 to 32 lowercase letters, digits and inner hyphens: the public address and onchain id", required: true },
      { flag: "name", value: "NAME", text: "display name, 1 to 100 characters", required: true },
      { flag: "mode", value: "push|pull|entries", text: "how winners arrive: posted (push), fetched from --pull-url (pull), drawn from entries (default pull)" },
      { flag: "cadence", value: "hourly|daily|weekly|monthly", text: "how often it draws", required: true },
      { flag: "hour", value: "H", text: "draw hour 0 to 23 in --timezone (default 20; hourly campaigns take none)" },
      { flag: "minute", value: "M", text: "draw minute 0 to 59 (default 0)" },
      { flag: "weekday", value: "D", text: "weekly: 0 (Sunday) to 6 (Saturday)" },
      { flag: "day-of-month", value: "D", text: "monthly: 1 to 31 (shorter months use their last day)" },
      { flag: "timezone", value: "TZ", text: "IANA time zone of the schedule, e.g. Europe/Berlin (default UTC)" },
      { flag: "cutoff-minutes", value: "C", text: "lists close this many minutes before each draw (default 60; hourly 5)" },
      { flag: "winners", value: "N", text: "winners per draw (default 1): up to 1,000 for push and pull, 100,000 for entries" },
      { flag: "payout-wallet", value: "0x..", text: "where the contract pays prizes; needed to activate" },
      { flag: "pull-url", value: "URL", text: "pull campaigns: the partner's winners URL ({drawingId}, {drawAt}, {date})" },
      { flag: "guarantee", value: "AMOUNT,THRESHOLD[,DAYS]", text: "a guaranteed prize of AMOUNT cents per period of DAYS days (default 30) without a prize of THRESHOLD cents or more" },
      { flag: "large-prize-threshold", value: "CENTS", text: "prizes at or above it are held for a manual payout (default 50000)" },
      { flag: "prize-table", value: "FILE.json", text: "the campaign's own table: [{ \"amountCents\", \"weight\" }, ...] top prize first (default: the service's table)" },
      { flag: "starts-at", value: "ISO", text: "campaign start (default now)" },
      { flag: "ends-at", value: "ISO", text: "end date (default none)" },
      { flag: "terms-url", value: "URL", text: "the campaign's terms (https; default the service's /terms)" },
      { flag: "privacy-url", value: "URL", text: "the campaign's privacy page (https; default the service's /privacy)" },
    ],
    mutates: true,
    notes: ["Prints { campaign }, with its public page under the service's URL. A draft draws nothing: activate it."],
  },
  {
    name: "campaign list",
    summary: "campaigns of every account, newest first: slug, account, name, status, mode, cadence, next drawing, drawings needing attention",
    options: [
      { flag: "account", value: "ID", text: "only this account's campaigns (acc_...)" },
      { flag: "status", value: "draft|active|paused|ended", text: "only campaigns in this status" },
    ],
    mutates: false,
    notes: [
      "Prints { campaigns: [{ slug, accountId, name, status, mode, cadence, nextDrawing: { id, drawAt } | null, drawingsNeedingAttention, createdAt }] }. The next drawing is the open one taking lists now (none unless active); drawingsNeedingAttention counts drawings of any status with a needsAttention note.",
    ],
  },
  { name: "campaign activate", args: "SLUG", summary: "draft to active: drawings appear for the next 48 hours, at least the next two (needs a payout wallet)", options: [], mutates: true },
  { name: "campaign pause", args: "SLUG", summary: "active to paused: upcoming drawings (and lists sent for them) are removed", options: [], mutates: true },
  { name: "campaign resume", args: "SLUG", summary: "paused to active: new drawings are created", options: [], mutates: true },
  { name: "campaign end", args: "SLUG", summary: "ends the campaign for good (drawings already past their cutoff still draw and pay)", options: [], mutates: true },
  {
    name: "campaign set",
    args: "SLUG",
    summary: "changes a campaign's settings (at least one option)",
    options: [
      { flag: "payout-wallet", value: "0x..", text: "a new payout wallet (for later commits; it cannot be removed)" },
      { flag: "winners", value: "N", text: "winners per draw for drawings created from now on" },
      { flag: "ends-at", value: "ISO", text: "a new end date (drawings after it are removed)" },
      { flag: "pull-url", value: "URL", text: "a new winners URL (pull campaigns)" },
    ],
    mutates: true,
  },
  {
    name: "prize-table publish",
    args: "SLUG FILE.json",
    summary: "publishes a new version of the campaign's table; every open drawing moves to it",
    options: [],
    mutates: true,
    notes: ["FILE.json holds [{ \"amountCents\", \"weight\" }, ...] (top prize first) or { \"tiers\": [...] }."],
  },
  {
    name: "drawing list",
    summary: "a campaign's drawings, latest draw time first, at most 200: id, number, status, drawAt, cutoffAt, winners expected and present, needsAttention",
    options: [
      { flag: "campaign", value: "SLUG", text: "the campaign", required: true },
      { flag: "status", value: "open|locked|entropy_requested|settled|paid", text: "only drawings in this status" },
    ],
    mutates: false,
    notes: [
      "Prints { campaign, drawings: [{ id, number, status, drawAt, cutoffAt, winnersExpected, winnersPresent, needsAttention }], more }: the newest 200 at most; more is true when older ones were left out (narrow with --status). number is null until the random value is requested.",
    ],
  },
  {
    name: "drawing extend-cutoff",
    args: "SLUG DRAWING_ID",
    summary: "moves an open drawing's cutoff later (the draw time follows when passed) and clears its flag",
    options: [{ flag: "to", value: "ISO", text: "the new cutoff, later than the campaign's current time", required: true }],
    mutates: true,
  },
  { name: "drawing fetches", args: "SLUG DRAWING_ID", summary: "a pull drawing's fetch history (time, outcome, reason)", options: [], mutates: false },
  { name: "held list", args: "[SLUG]", summary: "prizes held for a manual payout, with their state", options: [], mutates: false },
  {
    name: "held pay",
    args: "SLUG NUMBER POSITION",
    summary: "pays a held prize onchain with the operator key",
    options: [],
    mutates: true,
    notes: ["NUMBER is the drawing's number, POSITION the winner's. Sends a transaction: to RPC_URL, else CHAIN_PORT, else the chain of the stack running on the data folder, with OPERATOR_PRIVATE_KEY (the local operator in the test environment)."],
  },
  {
    name: "held refuse",
    args: "SLUG NUMBER POSITION",
    summary: "refuses a held prize onchain with a reason",
    options: [{ flag: "reason", value: "TEXT", text: "why, 1 to 200 characters (recorded onchain)", required: true }],
    mutates: true,
  },
  {
    name: "webhook create",
    summary: "adds a webhook endpoint to an account; its signing secret is printed once",
    options: [ACCOUNT, { flag: "url", value: "URL", text: "https URL whose host resolves only to public addresses", required: true }],
    mutates: true,
    notes: ["Prints { endpoint, secret }. Deliveries are signed with the secret (Standard Webhooks, docs/api.md \"Webhooks\"): keep it, it cannot be shown again."],
  },
  { name: "webhook list", summary: "an account's webhook endpoints (never their secrets)", options: [ACCOUNT], mutates: false },
  {
    name: "webhook rotate",
    args: "ENDPOINT_ID",
    summary: "gives an endpoint a new signing secret, printed once; the previous one also signs for 24 hours",
    options: [],
    mutates: true,
  },
  { name: "webhook delete", args: "ENDPOINT_ID", summary: "deletes an endpoint: nothing more is sent to it (its history stays)", options: [], mutates: true },
  { name: "webhook deliveries", args: "ENDPOINT_ID", summary: "an endpoint's latest 100 deliveries with their attempts", options: [], mutates: false },
  {
    name: "alerts list",
    summary: "conditions that need a person: the alert history (open and resolved, with their notices) and the pull URL staff alerts",
    options: [],
    mutates: false,
    notes: [
      "Prints { alerts, history }: alerts are the pull URLs that failed in the last 5 minutes before a cutoff (one per drawing);",
      "history the latest 100 alerts, newest first, each with its notices (opened, reminder, resolved) and how its mail and webhook went.",
      "docs/operations.md (\"Alerts\") says what each kind means and what to do.",
    ],
  },
  {
    name: "alerts ack",
    args: "ALERT_ID",
    summary: "acknowledges an open alert: no more reminders (it is still resolved, with a notice, when it clears)",
    options: [],
    mutates: true,
  },
  {
    name: "clock advance",
    args: "SLUG",
    summary: "test environment only: moves the campaign's clock forward",
    options: [
      { flag: "by", value: "DURATION", text: "how far: 30s, 90m, 2h, 1d" },
      { flag: "to", value: "ISO", text: "or to which time (never back; at most 100 years ahead of real time)" },
    ],
    mutates: true,
    notes: ["The running service acts on the move at its next keeper cycle; the partner API's POST .../test-clock acts at once."],
  },
];

/** Options every command takes. */
export const GLOBAL_OPTIONS: readonly OptionHelp[] = [
  { flag: "json", text: "print one JSON object (errors too: { error, detail })" },
  { flag: "help", text: "print this help (also: prizedraw help COMMAND)" },
];

/** What the CLI reads from the environment. */
export const ENVIRONMENT: readonly [string, string][] = [
  ["PRIZEDRAW_DATA_DIR", "the service's data folder; unset: the folder npm start uses by default (.data in the repository)"],
  ["STORE_URL", "the service's store in PostgreSQL (postgres://...), as the service has it; unset: prizedraw.sqlite in the data folder"],
  ["PUBLIC_BASE_URL", "the service's public URL, used in printed links (default http://127.0.0.1:$PORT)"],
  ["PORT", "the service's port, when PUBLIC_BASE_URL is unset (default: what the running stack recorded, else 8787)"],
  ["PRIZEDRAW_ENV", "test (default) or production: the kind of key created; the test clock exists only in test"],
  ["OPERATOR_PRIVATE_KEY, RPC_URL, CHAIN_PORT", "held pay and held refuse: the operator key and the chain (default: the running stack's chain)"],
];

export function findCommand(name: string): CommandHelp | undefined {
  return COMMANDS.find((c) => c.name === name);
}

function optionLine(o: OptionHelp): string {
  const flag = `--${o.flag}${o.value ? ` ${o.value}` : ""}`;
  return `    ${flag.padEnd(38)} ${o.text}${o.required ? " (required)" : ""}`;
}

function usageLine(c: CommandHelp): string {
  const required = c.options.filter((o) => o.required).map((o) => `--${o.flag} ${o.value ?? ""}`.trim());
  const optional = c.options.length > required.length ? ["[options]"] : [];
  return ["prizedraw", c.name, c.args, ...required, ...optional].filter(Boolean).join(" ");
}

function commandBlock(c: CommandHelp, detailed: boolean): string[] {
  const lines = [`  ${usageLine(c)}`, `      ${c.summary}`];
  for (const o of c.options) lines.push(optionLine(o));
  if (detailed) for (const n of c.notes ?? []) lines.push(`      ${n}`);
  return lines;
}

/** `prizedraw --help`: every command with every option. */
export function fullHelp(): string {
  const lines = [
    "prizedraw: the service's operator commands (npm run admin -- COMMAND ...)",
    "",
    "Commands:",
  ];
  for (const c of COMMANDS) lines.push(...commandBlock(c, false));
  lines.push("", "Every command takes:");
  for (const o of GLOBAL_OPTIONS) lines.push(optionLine(o));
  lines.push("", "Environment:");
  for (const [name, text] of ENVIRONMENT) lines.push(`    ${name.padEnd(42)} ${text}`);
  lines.push(
    "",
    "The CLI works on the store in the data folder (prizedraw.sqlite), or STORE_URL's database, and never creates a",
    "store (a file, or the tables in an empty database): npm start (the service) does. Commands that change something",
    "first print which store they use (on stderr).",
    "",
    "prizedraw help COMMAND (e.g. help campaign, help campaign create) shows one command or group with its notes.",
  );
  return lines.join("\n");
}

/** `prizedraw help WORDS`: the commands whose name starts with the words, or null when none does. */
export function commandHelp(words: readonly string[]): string | null {
  const prefix = words.join(" ");
  const matching = COMMANDS.filter((c) => c.name === prefix || c.name.startsWith(`${prefix} `));
  if (words.length === 0 || matching.length === 0) return null;
  const lines: string[] = [];
  for (const c of matching) lines.push(...commandBlock(c, true), "");
  lines.push("Every command also takes --json.");
  return lines.join("\n");
}
