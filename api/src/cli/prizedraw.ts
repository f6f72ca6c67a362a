/**
 * The `prizedraw` CLI: the partner portal's jobs (accounts, keys, campaigns, tables) and the operator's (held
 * prizes, alerts, the test clock) from a terminal, on the same store as the running service (its SQLite file, or
 * STORE_URL's PostgreSQL database). Every command takes `--json` to print one JSON object; `--help` and
 * `help COMMAND` list the commands (`commands.ts`); `where.ts` decides which store it works on.
 * `npm run admin -- ...` runs it too.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ConfigError, storeLabel, type Config } from "../config.js";
import {
  campaignView,
  campaignNow,
  createCampaign,
  publishCampaignTable,
  transitionCampaign,
  updateCampaign,
  type CampaignAction,
  type CampaignInput,
} from "../domain/campaigns.js";
import { ServiceError } from "../domain/errors.js";
import { OPERATOR, addMember, createAccount, createKey, listKeys, revokeKey, type Actor } from "../domain/team.js";
import { CADENCES, type Cadence } from "../domain/schedule.js";
import { prizeTableView } from "../domain/campaigns.js";
import { advanceClock, durationMs } from "../domain/testClock.js";
import { parseTime } from "../domain/times.js";
import { CAMPAIGN_STATUSES, type CampaignMode, type CampaignStatus } from "../store/campaigns.js";
import { DRAWING_STATUSES, type DrawingStatus } from "../store/drawings.js";
import { accountsOverview, campaignsOverview, drawingsOverview } from "../domain/overview.js";
import { StoreMissingError, type Store } from "../store/index.js";
import { openServiceStore } from "../serviceStore.js";
import { ChainPort } from "../chain/port.js";
import { readDeployment } from "../chain/deployment.js";
import { decideHeldPrize, listHeldPrizes } from "../domain/heldPrizes.js";
import { extendCutoff } from "../domain/drawings.js";
import type { PrizeTierInput } from "../draw/index.js";
import { commandHelp, findCommand, fullHelp, type CommandHelp } from "./commands.js";
import { locate, noStoreMessage, storeLine, type Workplace } from "./where.js";
import { isWebhookCommand, runWebhookCommand } from "./webhooks.js";
import { listText } from "./tables.js";

/** A usage or permission problem: printed as one line, exit code 2. */
export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly code: string = "cli_error",
  ) {
    super(message);
  }
}

const OPTIONS = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  email: { type: "string" },
  account: { type: "string" },
  campaign: { type: "string" },
  status: { type: "string" },
  role: { type: "string" },
  as: { type: "string" },
  slug: { type: "string" },
  name: { type: "string" },
  mode: { type: "string" },
  cadence: { type: "string" },
  hour: { type: "string" },
  minute: { type: "string" },
  weekday: { type: "string" },
  "day-of-month": { type: "string" },
  timezone: { type: "string" },
  "cutoff-minutes": { type: "string" },
  winners: { type: "string" },
  "payout-wallet": { type: "string" },
  "pull-url": { type: "string" },
  guarantee: { type: "string" },
  "large-prize-threshold": { type: "string" },
  "prize-table": { type: "string" },
  "starts-at": { type: "string" },
  "ends-at": { type: "string" },
  "terms-url": { type: "string" },
  "privacy-url": { type: "string" },
  to: { type: "string" },
  reason: { type: "string" },
  by: { type: "string" },
  url: { type: "string" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"];

function need(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== "string" || value === "") throw new CliError(`--${name} is required`);
  return value;
}

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new CliError(`--${name} must be an integer`);
  return Number(value);
}

/** `--status`: one of the statuses listed, or null when not given. */
function statusOf<S extends string>(value: string | undefined, statuses: readonly S[]): S | null {
  if (value === undefined) return null;
  if (!(statuses as readonly string[]).includes(value)) throw new CliError(`--status must be one of ${statuses.join(", ")}`);
  return value as S;
}

function tiersFrom(file: string): PrizeTierInput[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    throw new CliError(`${file} is not a readable JSON file`);
  }
  const tiers = Array.isArray(json) ? json : (json as { tiers?: unknown }).tiers;
  if (!Array.isArray(tiers)) throw new CliError(`${file} must hold [{ "amountCents", "weight" }, ...] or { "tiers": [...] }`);
  return tiers as PrizeTierInput[];
}

/** `--as EMAIL` acts as that team member (owner-only actions are refused for members); without it the operator acts. */
function actorOf(as: string | undefined): Actor {
  return as === undefined ? OPERATOR : { kind: "member", email: as };
}

export type CliResult = Record<string, unknown>;

type Parsed = { values: Values; positionals: string[]; command: CommandHelp };

/**
 * Parses a command line: the command must be one of `commands.ts` and every option one it takes (a misspelt
 * or misplaced option is refused, never ignored).
 */
export function parseCommand(argv: string[]): Parsed {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const name = positionals.slice(0, 2).join(" ");
  const command = findCommand(name);
  if (!command) {
    const group = commandHelp(positionals.slice(0, 1)) ? ` (see prizedraw help ${positionals[0]})` : " (see prizedraw --help)";
    throw new CliError(positionals.length === 0 ? "no command given: see prizedraw --help" : `unknown command "${positionals.join(" ")}"${group}`);
  }
  for (const [option, value] of Object.entries(values)) {
    if (value === undefined || option === "json" || option === "help") continue;
    if (!command.options.some((o) => o.flag === option)) throw new CliError(`--${option} is not an option of "${command.name}" (see prizedraw help ${command.name})`);
  }
  return { values, positionals, command };
}

/** Runs one command; returns what `--json` prints. */
export async function run(argv: string[], store: Store, config: Pick<Config, "env" | "publicBaseUrl"> & Partial<Pick<Config, "pullAllowHttpLoopback">>): Promise<CliResult> {
  const pullPolicy = { allowHttpLoopback: config.env === "test" && config.pullAllowHttpLoopback === true };
  const { values, positionals } = parseCommand(argv);
  const [noun, verb, ...rest] = positionals;
  const now = new Date();
  switch (`${noun} ${verb}`) {
    // Team rules live in domain/team.ts: owners add members and create or revoke keys; `--as` names who acts.
    case "account create":
      return { accountId: (await createAccount(store, need(values, "email"), now)).accountId };
    // The lists (domain/overview.ts, and team.ts's keys as owners see them): what exists, never a key's secret.
    case "account list":
      return { accounts: await accountsOverview(store) };
    case "campaign list": {
      const status = statusOf<CampaignStatus>(values.status, CAMPAIGN_STATUSES);
      return { campaigns: await campaignsOverview(store, { accountId: values.account ?? null, status }, now) };
    }
    case "key list": {
      const accountId = need(values, "account");
      const keys = await listKeys(store, accountId, OPERATOR);
      return { accountId, keys: keys.map((k) => ({ ...k, revoked: k.revokedAt !== null })) };
    }
    case "drawing list": {
      const slug = need(values, "campaign");
      const status = statusOf<DrawingStatus>(values.status, DRAWING_STATUSES);
      return { campaign: slug, ...(await drawingsOverview(store, slug, status)) };
    }
    case "member add": {
      const accountId = need(values, "account");
      const role = values.role ?? "member";
      if (role !== "owner" && role !== "member") throw new CliError("--role must be owner or member");
      const member = await addMember(store, accountId, actorOf(values.as), { email: need(values, "email"), role }, now);
      return { accountId, email: member.email, role: member.role };
    }
    case "key create":
      return await createKey(store, config.env, need(values, "account"), actorOf(values.as), now);
    case "key revoke": {
      const accountId = need(values, "account");
      const keyId = rest[0];
      if (!keyId) throw new CliError("usage: prizedraw key revoke --account ID KEYID");
      return await revokeKey(store, accountId, actorOf(values.as), keyId, now);
    }
    case "campaign create": {
      const accountId = need(values, "account");
      if (!(await store.accounts.accountExists(accountId))) throw new CliError(`no account ${accountId}`);
      const cadence = need(values, "cadence") as Cadence;
      if (!CADENCES.includes(cadence)) throw new CliError(`--cadence must be one of ${CADENCES.join(", ")}`);
      const mode = (values.mode ?? "pull") as CampaignMode;
      if (!["push", "pull", "entries"].includes(mode)) throw new CliError("--mode must be push, pull or entries");
      const guarantee = values.guarantee?.split(",").map((v) => integer("guarantee", v.trim()));
      const input: CampaignInput = {
        slug: need(values, "slug"),
        name: need(values, "name"),
        mode,
        schedule: {
          cadence,
          ...(values.hour !== undefined ? { drawHour: integer("hour", values.hour) } : {}),
          ...(values.minute !== undefined ? { drawMinute: integer("minute", values.minute) } : {}),
          ...(values.weekday !== undefined ? { drawWeekday: integer("weekday", values.weekday) } : {}),
          ...(values["day-of-month"] !== undefined ? { drawDayOfMonth: integer("day-of-month", values["day-of-month"]) } : {}),
          ...(values.timezone !== undefined ? { timezone: values.timezone } : {}),
          ...(values["cutoff-minutes"] !== undefined ? { cutoffMinutes: integer("cutoff-minutes", values["cutoff-minutes"]) } : {}),
          ...(values["starts-at"] !== undefined ? { startsAt: values["starts-at"] } : {}),
          ...(values["ends-at"] !== undefined ? { endsAt: values["ends-at"] } : {}),
        },
        winnersPerDraw: integer("winners", values.winners),
        payoutWallet: values["payout-wallet"] ?? null,
        pullUrl: values["pull-url"] ?? null,
        largePrizeThresholdCents: integer("large-prize-threshold", values["large-prize-threshold"]),
        guarantee: guarantee ? { amountCents: guarantee[0] ?? NaN, thresholdCents: guarantee[1] ?? NaN, periodDays: guarantee[2] } : null,
        prizeTable: values["prize-table"] ? tiersFrom(values["prize-table"]) : null,
        termsUrl: values["terms-url"] ?? null,
        privacyUrl: values["privacy-url"] ?? null,
      };
      const campaign = await createCampaign(store, accountId, input, now, pullPolicy);
      return { campaign: await campaignView(store, campaign, config) };
    }
    case "campaign activate":
    case "campaign pause":
    case "campaign resume":
    case "campaign end": {
      const slug = rest[0];
      if (!slug) throw new CliError(`usage: prizedraw campaign ${verb} SLUG`);
      const campaign = await transitionCampaign(store, slug, verb as CampaignAction, now);
      return { campaign: await campaignView(store, campaign, config) };
    }
    case "campaign set": {
      const slug = rest[0];
      if (!slug) throw new CliError("usage: prizedraw campaign set SLUG --payout-wallet 0x.. | --winners N | --ends-at ISO | --pull-url URL");
      if (["payout-wallet", "winners", "ends-at", "pull-url"].every((k) => values[k as keyof Values] === undefined)) {
        throw new CliError("campaign set needs at least one of --payout-wallet, --winners, --ends-at, --pull-url");
      }
      const campaign = await updateCampaign(store, slug, {
        ...(values["payout-wallet"] !== undefined ? { payoutWallet: values["payout-wallet"] } : {}),
        ...(values.winners !== undefined ? { winnersPerDraw: integer("winners", values.winners) } : {}),
        ...(values["ends-at"] !== undefined ? { endsAt: values["ends-at"] } : {}),
        ...(values["pull-url"] !== undefined ? { pullUrl: values["pull-url"] } : {}),
      }, now, pullPolicy);
      return { campaign: await campaignView(store, campaign, config) };
    }
    case "prize-table publish": {
      const [slug, file] = rest;
      if (!slug || !file) throw new CliError("usage: prizedraw prize-table publish SLUG FILE.json");
      const table = await publishCampaignTable(store, slug, tiersFrom(file), now);
      const campaign = (await store.campaigns.bySlug(slug))!;
      return { prizeTable: prizeTableView(table, campaign.winnersPerDraw) };
    }
    case "drawing extend-cutoff": {
      const [slug, drawingId] = rest;
      if (!slug || !drawingId) throw new CliError("usage: prizedraw drawing extend-cutoff SLUG DRAWING_ID --to ISO");
      const drawing = await extendCutoff(store, slug, drawingId, need(values, "to"), "operator", now);
      return { drawing: { id: drawing.id, cutoffAt: drawing.cutoffAt, drawAt: drawing.drawAt } };
    }
    case "held list":
      return { heldPrizes: await listHeldPrizes(store, rest[0]) };
    case "alerts list": {
      return { alerts: await store.pull.alerts(), history: await store.alerts.history() };
    }
    case "alerts ack": {
      const id = rest[0];
      if (!id || !/^\d{1,15}$/.test(id)) throw new CliError("usage: prizedraw alerts ack ALERT_ID (the number prizedraw alerts list shows)");
      const alert = await store.alerts.acknowledge(Number(id), "operator", now.toISOString());
      if (!alert) throw new CliError(`no open alert ${id}`, "not_found");
      return { alert };
    }
    case "drawing fetches": {
      const [slug, drawingId] = rest;
      if (!slug || !drawingId) throw new CliError("usage: prizedraw drawing fetches SLUG DRAWING_ID");
      const campaign = await store.campaigns.bySlug(slug);
      const drawing = campaign ? await store.drawings.byId(campaign.id, drawingId) : null;
      if (!drawing) throw new CliError(`no drawing ${drawingId} in ${slug}`);
      return { drawingId, fetches: await store.pull.history(drawing.id) };
    }
    case "clock advance": {
      if (config.env !== "test") throw new CliError("the test clock exists only in the test environment");
      const slug = rest[0];
      if (!slug) throw new CliError("usage: prizedraw clock advance SLUG --by 90m | --to ISO");
      const campaign = await store.campaigns.bySlug(slug);
      if (!campaign) throw new CliError(`no campaign ${slug}`);
      let target: Date;
      if (values.by !== undefined) {
        if (!/^\d{1,6}(s|m|h|d)$/.test(values.by)) throw new CliError("--by must be a duration like 90m, 2h, 1d or 30s");
        target = new Date(campaignNow(campaign).getTime() + durationMs(values.by));
      } else {
        target = parseTime("--to", need(values, "to"));
      }
      const moved = await advanceClock(store, campaign.id, target, now);
      // The running service's keeper picks the move up on its next cycle (or at once through the HTTP route).
      return { slug, now: campaignNow(moved, now).toISOString() };
    }
    default:
      throw new CliError(`"${noun} ${verb}" cannot run here (see prizedraw help ${noun} ${verb})`);
  }
}

function print(result: CliResult, json: boolean, command: string): void {
  if (json) {
    console.log(JSON.stringify(result));
    return;
  }
  const list = listText(command, result);
  if (list !== null) {
    console.log(list);
    return;
  }
  for (const [key, value] of Object.entries(result)) console.log(`${key}: ${typeof value === "string" ? value : JSON.stringify(value, null, 2)}`);
}

/**
 * `held pay SLUG NUMBER POSITION` and `held refuse SLUG NUMBER POSITION --reason TEXT`: the operator's decision on a
 * held prize, sent onchain with the operator key (OPERATOR_PRIVATE_KEY; the local chain's in the test environment).
 */
export async function runHeldDecision(argv: string[], store: Store, config: Config): Promise<CliResult> {
  const { values, positionals } = parseCommand(argv);
  const [, verb, slug, numberText, positionText] = positionals;
  const number = integer("NUMBER", numberText);
  const position = integer("POSITION", positionText);
  if (!slug || number === undefined || position === undefined) throw new CliError(`usage: held ${verb} SLUG NUMBER POSITION${verb === "refuse" ? " --reason TEXT" : ""}`);
  if (verb === "refuse" && !values.reason) throw new CliError("held refuse needs --reason TEXT");
  const deployment = readDeployment(config.dataDir);
  if (!deployment) throw new CliError(`no deployment record in ${config.dataDir}: start the stack with npm start`);
  if (!config.operatorPrivateKey) throw new CliError("OPERATOR_PRIVATE_KEY is not set");
  const chain = new ChainPort({ rpcUrl: config.rpcUrl, deployment, operatorKey: config.operatorPrivateKey, receiptTimeoutMs: config.txTimeoutSeconds * 1_000, fees: { maxFeePerGasWei: config.maxFeePerGasWei, replaceAfterMs: config.txReplaceSeconds * 1_000 } });
  const decision = verb === "pay" ? ({ pay: true } as const) : ({ pay: false, reason: values.reason! } as const);
  return { heldPrize: await decideHeldPrize(store, chain, slug, number, position, decision) };
}

/** Opens the store `where` names; a STORE_URL database that cannot be reached is a one-line error naming its host. */
async function openWorkStore(where: Workplace): Promise<Store> {
  try {
    // The CLI never creates a store: the service does at its first start (a SQLite file is checked in locate()).
    return await openServiceStore(where.store, { create: false });
  } catch (error) {
    if (error instanceof StoreMissingError) throw new CliError(noStoreMessage(where), "no_store");
    if (where.storeFrom !== "STORE_URL") throw error;
    const reason = (error instanceof Error && error.message) || String((error as { code?: unknown }).code ?? error);
    throw new CliError(`cannot open the store in ${storeLabel(where.store)} (STORE_URL): ${reason}`, "store_unavailable");
  }
}

/**
 * The command line: help needs nothing; every other command needs the service's store (`where.ts`), and one that
 * changes something names the store on stderr before it acts.
 */
async function main(argv: string[]): Promise<void> {
  const json = argv.includes("--json");
  try {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: false });
    if (positionals[0] === "help" || positionals.length === 0 || values.help === true) {
      const words = positionals[0] === "help" ? positionals.slice(1) : positionals;
      const text = words.length === 0 ? fullHelp() : commandHelp(words);
      if (text === null) throw new CliError(`no command "${words.join(" ")}" (see prizedraw --help)`);
      console.log(text);
      return;
    }
    const { command, values: parsed, positionals: words } = parseCommand(argv);
    const { config, where } = locate();
    if (!where.storeExists) throw new CliError(noStoreMessage(where), "no_store");
    if (command.mutates) console.error(storeLine(where));
    const store = await openWorkStore(where);
    try {
      const held = command.name === "held pay" || command.name === "held refuse";
      if (isWebhookCommand(command.name)) print(await runWebhookCommand(command.name, words.slice(2), parsed, store, config), json, command.name);
      else print(held ? await runHeldDecision(argv, store, config) : await run(argv, store, config), json, command.name);
    } finally {
      await store.close();
    }
  } catch (error) {
    const known = error instanceof CliError || error instanceof ServiceError || error instanceof ConfigError || (error instanceof TypeError && "code" in error);
    const message = error instanceof ServiceError ? `${error.code}: ${error.detail}` : error instanceof Error ? error.message : String(error);
    const code = error instanceof ServiceError ? error.code : error instanceof CliError ? error.code : "cli_error";
    if (json) console.log(JSON.stringify({ error: code, detail: message }));
    else console.error(`prizedraw: ${message}`);
    process.exit(known ? 2 : 1);
  }
}

if (process.argv[1] && /prizedraw\.(ts|mjs|js)$/.test(process.argv[1])) void main(process.argv.slice(2));
