/**
 * The alert watch: at every check (every keeper interval, at most CHECK_MAX_MS apart, on its own timer so a pull URL
 * failing in the last minutes before a cutoff is told within seconds, not at the next keeper cycle) it observes
 * (keeper/alertObservation.ts), asks the rules which conditions are active (domain/alerts.ts), opens, reminds,
 * rewords and resolves alerts in one store transaction, each change with its notice, and then sends the notices
 * still pending (notify/notifier.ts): a mail to ALERT_EMAIL, a signed POST to ALERT_WEBHOOK_URL. A channel that
 * fails is tried again at the next check, for NOTICE_GIVE_UP_MS; nothing here ever stops the keeper (every failure
 * is logged). Runs only in the keeper lease's holder, which starts and stops it with the rest of the work.
 */
import {
  ALERT_ACTIONS,
  evaluateAlerts,
  leaseLostCondition,
  planAlerts,
  type AlertCondition,
  type AlertKind,
  type AlertRules,
} from "../domain/alerts.js";
import type { Logger } from "../logger.js";
import { noticeBody, type AlertSnapshot, type NoticeType } from "../notify/notices.js";
import type { Notifier } from "../notify/notifier.js";
import type { AlertNotice, StoredAlert } from "../store/alerts.js";
import type { Store } from "../store/index.js";
import { AlertObserver, type AlertChainReads } from "./alertObservation.js";
import { describeError } from "./context.js";
import { PULL_ALERT_WINDOW_MS } from "./pull.js";

/** Checks are at most this far apart, whatever the keeper's interval. */
export const CHECK_MAX_MS = 30_000;
/** The chain (pool, gas) is read at most this often. */
const CHAIN_EVERY_MAX_MS = 60_000;
/** The chain unanswered this long is an outage. */
export const CHAIN_OUTAGE_MS = 5 * 60_000;
/** A notice's channel still failing this long after the notice is given up (logged). */
export const NOTICE_GIVE_UP_MS = 24 * 3_600_000;
/** Notices sent per check at most (oldest first); the rest wait for the next. */
const NOTICES_PER_CHECK = 50;

export type AlertWatchSettings = {
  remindMs: number;
  stuckMs: number;
  poolDays: number;
  gasMinWei: bigint;
};

export type AlertWatchDeps = {
  store: Store;
  logger: Logger;
  chain: AlertChainReads;
  notifier: Notifier;
  settings: AlertWatchSettings;
  /** Between checks (the keeper's interval, at most CHECK_MAX_MS). */
  checkMs: number;
  /** The chain is read at most this often (default: five checks, at most CHAIN_EVERY_MAX_MS). */
  chainEveryMs?: number;
};

export class AlertWatch {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** A check under way: a tick meanwhile is skipped (the next one comes soon enough). */
  private checking = false;
  /** Checks and lease-lost notices run one after the other. */
  private tail: Promise<void> = Promise.resolve();
  private readonly observer: AlertObserver;
  private readonly rules: AlertRules;

  constructor(private readonly deps: AlertWatchDeps) {
    this.observer = new AlertObserver({ store: deps.store, chain: deps.chain, chainEveryMs: deps.chainEveryMs ?? Math.min(CHAIN_EVERY_MAX_MS, 5 * deps.checkMs), pullWindowMs: PULL_ALERT_WINDOW_MS });
    this.rules = { stuckMs: deps.settings.stuckMs, pullWindowMs: PULL_ALERT_WINDOW_MS, poolDays: deps.settings.poolDays, gasMinWei: deps.settings.gasMinWei, chainOutageMs: CHAIN_OUTAGE_MS };
  }

  start(): void {
    if (this.timer) return;
    this.running = true;
    this.timer = setInterval(() => this.tick(), this.deps.checkMs);
    this.tick();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One check now, after whatever runs; resolves when it is done. Never rejects. */
  checkNow(): Promise<void> {
    return this.serial(() => this.check());
  }

  /**
   * This process lost the keeper lease: a `lease_lost` alert, told at once by this process (its watch has stopped;
   * the next holder's resolves it). The notice is recorded as sent before it is sent, so the next holder's watch
   * never sends it too; a channel that fails goes back to pending for that watch to retry.
   */
  leaseLost(holder: string): Promise<void> {
    return this.serial(async () => {
      const { store, notifier } = this.deps;
      const at = new Date().toISOString();
      const condition = leaseLostCondition(holder, at);
      const recorded = await store.tx(async () => {
        if ((await store.alerts.unresolved()).some((a) => a.key === condition.key)) return null;
        const alert = await store.alerts.open(condition, at);
        const body = noticeBody("alert.opened", snapshot(alert), at);
        const notice = await store.alerts.addNotice({ alertId: alert.id, type: "alert.opened", body, createdAt: at, mail: notifier.mails ? "sent" : "off", webhook: notifier.webhooks ? "sent" : "off" });
        return { alert, notice };
      });
      if (recorded === null) return;
      this.logChange("opened", recorded.alert);
      const claimed = { ...recorded.notice, mail: notifier.mails ? "pending" : "off", webhook: notifier.webhooks ? "pending" : "off" } as const;
      await this.deliver(claimed, new Date());
    });
  }

  private tick(): void {
    if (this.checking) return;
    this.checking = true;
    void this.serial(() => this.check()).finally(() => {
      this.checking = false;
    });
  }

  /** Runs `work` after what is under way; a failure is logged, never thrown. */
  private serial(work: () => Promise<void>): Promise<void> {
    const next = this.tail.then(work).catch((error: unknown) => {
      this.deps.logger.warn({ err: describeError(error) }, "alert check failed; retrying at the next check");
    });
    this.tail = next;
    return next;
  }

  private async check(): Promise<void> {
    if (!this.running) return;
    const now = new Date();
    const observation = await this.observer.observe(now);
    const evaluation = evaluateAlerts(observation, this.rules);
    await this.apply(evaluation.active, evaluation.unobserved, now);
    await this.sendPending(now);
  }

  /** Opens, reminds, rewords and resolves, with their notices, in one transaction; logs each change once committed. */
  private async apply(active: readonly AlertCondition[], unobserved: readonly AlertKind[], now: Date): Promise<void> {
    const { store, notifier, settings } = this.deps;
    const at = now.toISOString();
    const changes: { change: "opened" | "reminded" | "resolved"; alert: StoredAlert }[] = [];
    await store.tx(async () => {
      const open = await store.alerts.unresolved();
      const plan = planAlerts(open, { active: [...active], unobserved: [...unobserved] }, now, settings.remindMs);
      const notify = async (type: NoticeType, alert: StoredAlert) => {
        const body = noticeBody(type, snapshot(alert), at);
        await store.alerts.addNotice({ alertId: alert.id, type, body, createdAt: at, mail: notifier.mails ? "pending" : "off", webhook: notifier.webhooks ? "pending" : "off" });
      };
      for (const condition of plan.open) {
        const alert = await store.alerts.open(condition, at);
        await notify("alert.opened", alert);
        changes.push({ change: "opened", alert });
      }
      for (const { alert, condition } of plan.remind) {
        const reminded = await store.alerts.remind(alert.id, condition, at);
        await notify("alert.reminder", reminded);
        changes.push({ change: "reminded", alert: reminded });
      }
      for (const { alert, condition } of plan.refresh) await store.alerts.reword(alert.id, condition);
      for (const alert of plan.resolve) {
        const resolved = await store.alerts.resolve(alert.id, at);
        await notify("alert.resolved", resolved);
        changes.push({ change: "resolved", alert: resolved });
      }
    });
    for (const { change, alert } of changes) this.logChange(change, alert);
  }

  private logChange(change: "opened" | "reminded" | "resolved", alert: StoredAlert): void {
    const fields = { alert: alert.kind, key: alert.key, alertId: alert.id, severity: alert.severity, campaign: alert.campaignSlug, drawingId: alert.drawingId };
    if (change === "resolved") this.deps.logger.info(fields, `alert resolved: ${alert.summary}`);
    else this.deps.logger.warn({ ...fields, reminders: alert.reminders }, `alert ${change}: ${alert.summary}`);
  }

  /** The notices still pending, oldest first; after a webhook failure the later ones wait (the endpoint is down). */
  private async sendPending(now: Date): Promise<void> {
    let webhookDown = false;
    for (const notice of await this.deps.store.alerts.pendingNotices(NOTICES_PER_CHECK)) {
      if (!this.running) return;
      const delivered = await this.deliver(notice, now, webhookDown);
      if (!delivered.webhook) webhookDown = true;
    }
  }

  /**
   * Sends a notice's pending channels and records how each went: sent, still pending (tried again at the next
   * check), or failed once NOTICE_GIVE_UP_MS has passed since the notice. Returns whether the webhook went (or was
   * not due).
   */
  private async deliver(notice: AlertNotice, now: Date, skipWebhook = false): Promise<{ webhook: boolean }> {
    const { store, notifier, logger } = this.deps;
    const giveUp = now.getTime() - Date.parse(notice.createdAt) >= NOTICE_GIVE_UP_MS;
    const where = { alertNoticeId: notice.id, eventId: notice.eventId, type: notice.type };
    if (notice.mail === "pending") {
      try {
        await notifier.mail(notice.body);
        await store.alerts.markMail(notice.id, "sent");
      } catch (error) {
        const err = describeError(error);
        await store.alerts.markMail(notice.id, giveUp ? "failed" : "pending", `mail: ${err.message}`);
        logger.warn({ ...where, err }, giveUp ? "alert mail given up" : "alert mail not sent; retrying at the next check");
      }
    }
    if (notice.webhook !== "pending" || skipWebhook) return { webhook: notice.webhook !== "pending" };
    const outcome = await notifier.webhook(notice.eventId, notice.body, now);
    if (outcome.ok) {
      await store.alerts.recordWebhookAttempt(notice.id, "sent", null);
      return { webhook: true };
    }
    // The URL may hold a token: the log names the notice, never the URL.
    await store.alerts.recordWebhookAttempt(notice.id, giveUp ? "failed" : "pending", `webhook: ${outcome.error}`);
    logger.warn({ ...where, error: outcome.error }, giveUp ? "operator webhook given up for this notice" : "operator webhook not delivered; retrying at the next check");
    return { webhook: false };
  }
}

/** The alert as its notices show it. */
function snapshot(alert: StoredAlert): AlertSnapshot {
  return {
    id: alert.id,
    key: alert.key,
    kind: alert.kind,
    severity: alert.severity,
    summary: alert.summary,
    detail: alert.detail,
    action: ALERT_ACTIONS[alert.kind as AlertKind] ?? "see docs/operations.md, \"Alerts\"",
    campaign: alert.campaignSlug,
    drawingId: alert.drawingId,
    openedAt: alert.openedAt,
    reminders: alert.reminders,
    acknowledgedAt: alert.acknowledgedAt,
    resolvedAt: alert.resolvedAt,
  };
}
