/**
 * A campaign's payout settings: the wallet its prizes are paid to, and its large-prize threshold (prizes at or above
 * it are held and paid by hand after checks). Together they decide where prize money goes and which prizes a person
 * checks first, so only the account's owners change them, and the service's operator, who acts for any account (the
 * CLI without `--as`). Every door reaches them through createCampaign or updateCampaign, which call this module, so
 * a member is refused `forbidden` (403) in the portal exactly as anywhere else. A change is a value that differs from
 * the stored one (the portal's form sends both with every save): it is audited with its old and new values and
 * announced by the `campaign.payout_settings_changed` webhook event, in the transaction that makes it.
 */
import { getAddress } from "viem";
import type { Campaign } from "../store/campaigns.js";
import type { Store } from "../store/index.js";
import { enqueueEvent } from "../webhooks/outbox.js";
import { requireOwner, type Actor } from "./team.js";

export type PayoutSettings = Pick<Campaign, "payoutWallet" | "largePrizeThresholdCents">;
export type PayoutField = keyof PayoutSettings;

/** A setting's value before and after a change. */
export type Transition<T> = { old: T; new: T };

/** The event's `data` (docs/api.md, Webhooks): both settings, which of them changed, who changed them and when. */
export type PayoutSettingsChanged = {
  campaign: string;
  changed: PayoutField[];
  payoutWallet: Transition<string | null>;
  largePrizeThresholdCents: Transition<number>;
  /** The owner's email, or `operator`. */
  changedBy: string;
  changedAt: string;
};

export const PAYOUT_SETTINGS_CHANGED = "campaign.payout_settings_changed";

/** What requireOwner's refusal says only owners do. */
const OWNERS_ONLY = "change a campaign's payout wallet or large-prize threshold";

/**
 * A wallet as people and partners are shown it: EIP-55 checksummed, so a mistyped character is visible. The store
 * keeps it in lower case (an input in mixed case must match its checksum before it is stored).
 */
export function checksummed(wallet: string | null): string | null {
  return wallet === null ? null : getAddress(wallet);
}

/** The payout settings that differ between `before` and `after`; wallets are compared whatever their case. */
export function changedPayoutFields(before: PayoutSettings, after: PayoutSettings): PayoutField[] {
  const fields: PayoutField[] = [];
  if ((before.payoutWallet?.toLowerCase() ?? null) !== (after.payoutWallet?.toLowerCase() ?? null)) fields.push("payoutWallet");
  if (before.largePrizeThresholdCents !== after.largePrizeThresholdCents) fields.push("largePrizeThresholdCents");
  return fields;
}

/**
 * Refuses a change of `fields` to anyone but an owner of the account or the operator (403 forbidden); returns the
 * name the audit log records, or null when nothing changes (then anyone who may edit the campaign may send them).
 */
export async function requirePayoutOwner(store: Store, accountId: string, actor: Actor, fields: readonly PayoutField[]): Promise<string | null> {
  return fields.length === 0 ? null : requireOwner(store, accountId, actor, OWNERS_ONLY);
}

/** The audit row's old and new value of each changed field (wallets checksummed). */
export function payoutAuditDetail(before: PayoutSettings, after: PayoutSettings, fields: readonly PayoutField[]): Partial<Record<PayoutField, Transition<string | number | null>>> {
  const detail: Partial<Record<PayoutField, Transition<string | number | null>>> = {};
  for (const field of fields) detail[field] = transition(before, after)[field];
  return detail;
}

function transition(before: PayoutSettings, after: PayoutSettings): { payoutWallet: Transition<string | null>; largePrizeThresholdCents: Transition<number> } {
  return {
    payoutWallet: { old: checksummed(before.payoutWallet), new: checksummed(after.payoutWallet) },
    largePrizeThresholdCents: { old: before.largePrizeThresholdCents, new: after.largePrizeThresholdCents },
  };
}

/**
 * Records `campaign.payout_settings_changed` for the account's endpoints (none: nothing). The campaign's id is the
 * event's subject, so one campaign's changes reach an endpoint in the order they were made.
 */
export async function announcePayoutChange(store: Store, before: Campaign, after: Campaign, fields: readonly PayoutField[], by: string, at: Date): Promise<void> {
  if (fields.length === 0) return;
  const data: PayoutSettingsChanged = { campaign: after.slug, changed: [...fields], ...transition(before, after), changedBy: by, changedAt: at.toISOString() };
  await enqueueEvent(store, after.accountId, PAYOUT_SETTINGS_CHANGED, after.id, data, at);
}
