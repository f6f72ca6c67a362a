/**
 * The list commands' readable output (`account list`, `campaign list`, `key list`, `drawing list` without
 * `--json`): one aligned row per item under a header, times as stored (UTC), "-" for nothing. `--json` prints
 * the same result as one object instead.
 */
import type { accountsOverview, campaignsOverview, drawingsOverview } from "../domain/overview.js";
import type { listKeys } from "../domain/team.js";

type AccountRow = Awaited<ReturnType<typeof accountsOverview>>[number];
type CampaignRow = Awaited<ReturnType<typeof campaignsOverview>>[number];
type KeyRow = Awaited<ReturnType<typeof listKeys>>[number] & { revoked: boolean };
type DrawingRow = Awaited<ReturnType<typeof drawingsOverview>>["drawings"][number];

/** Columns padded to their widest cell; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

const orNone = (value: string | number | null): string => (value === null ? "-" : String(value));

function accounts(rows: readonly AccountRow[]): string {
  if (rows.length === 0) return "No accounts.";
  return table(
    ["ACCOUNT", "CREATED", "CAMPAIGNS", "TEAM"],
    rows.map((a) => [a.id, a.createdAt, String(a.campaignCount), a.members.map((m) => `${m.email} (${m.role})`).join(", ") || "-"]),
  );
}

function campaigns(rows: readonly CampaignRow[]): string {
  if (rows.length === 0) return "No campaigns.";
  return table(
    ["SLUG", "ACCOUNT", "STATUS", "MODE", "CADENCE", "NEXT DRAWING", "NEEDS ATTENTION", "NAME"],
    rows.map((c) => [
      c.slug,
      c.accountId,
      c.status,
      c.mode,
      c.cadence,
      c.nextDrawing ? `${c.nextDrawing.id} at ${c.nextDrawing.drawAt}` : "none",
      c.drawingsNeedingAttention === 0 ? "-" : `${c.drawingsNeedingAttention} drawing${c.drawingsNeedingAttention === 1 ? "" : "s"}`,
      c.name,
    ]),
  );
}

function keys(accountId: string, rows: readonly KeyRow[]): string {
  if (rows.length === 0) return `No keys for ${accountId}.`;
  return table(
    ["KEY ID", "KEY", "CREATED", "CREATED BY", "LAST USED", "REVOKED"],
    rows.map((k) => [k.keyId, `${k.prefix}_…${k.last4}`, k.createdAt, orNone(k.createdBy), orNone(k.lastUsedAt), k.revoked ? `revoked ${k.revokedAt}` : "-"]),
  );
}

function drawings(slug: string, rows: readonly DrawingRow[], more: boolean): string {
  if (rows.length === 0) return `No drawings in ${slug}.`;
  const text = table(
    ["DRAWING", "NUMBER", "STATUS", "DRAW AT", "CUTOFF AT", "WINNERS", "NEEDS ATTENTION"],
    rows.map((d) => [d.id, orNone(d.number), d.status, d.drawAt, d.cutoffAt, `${d.winnersPresent}/${d.winnersExpected}`, orNone(d.needsAttention)]),
  );
  return more ? `${text}\n(the newest ${rows.length} drawings: older ones are left out; --status narrows the list)` : text;
}

/** The readable form of a list command's result, or null for any other command (printed as key: value lines). */
export function listText(command: string, result: Record<string, unknown>): string | null {
  switch (command) {
    case "account list":
      return accounts(result.accounts as AccountRow[]);
    case "campaign list":
      return campaigns(result.campaigns as CampaignRow[]);
    case "key list":
      return keys(result.accountId as string, result.keys as KeyRow[]);
    case "drawing list":
      return drawings(result.campaign as string, result.drawings as DrawingRow[], result.more === true);
    default:
      return null;
  }
}
