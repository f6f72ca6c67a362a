// The alert settings as loadConfig reads them (api/src/config.ts): the documented defaults, ALERT_EMAIL's list, the
// operator webhook's secret required with its URL, and the test-only reminder in seconds refused in production.

import { describe, expect, it } from "vitest";
import { ANVIL_KEYS, ConfigError, loadConfig } from "../../api/src/config.js";

const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
const PRODUCTION = { PRIZEDRAW_ENV: "production", RPC_URL: "https://rpc.example.com", OPERATOR_PRIVATE_KEY: ANVIL_KEYS.operator };

describe("alert settings", () => {
  it("default to no channel, reminders every 60 minutes, stuck after 30, 7 days of pool, 0.01 ether of gas", () => {
    expect(loadConfig({}, "/tmp").alerts).toEqual({ emails: [], webhookUrl: undefined, webhookSecret: undefined, remindMs: 3_600_000, stuckMs: 1_800_000, poolDays: 7, gasMinWei: 10n ** 16n });
  });

  it("read ALERT_EMAIL as a comma-separated list and the thresholds as given", () => {
    const alerts = loadConfig(
      { ALERT_EMAIL: " ops@example.com, oncall@example.com ,", ALERT_WEBHOOK_URL: "https://hooks.example.com/in", ALERT_WEBHOOK_SECRET: SECRET, ALERT_REMIND_MINUTES: "15", ALERT_STUCK_MINUTES: "10", ALERT_POOL_DAYS: "0", ALERT_GAS_MIN_WEI: "0" },
      "/tmp",
    ).alerts;
    expect(alerts).toEqual({ emails: ["ops@example.com", "oncall@example.com"], webhookUrl: "https://hooks.example.com/in", webhookSecret: SECRET, remindMs: 900_000, stuckMs: 600_000, poolDays: 0, gasMinWei: 0n });
    expect(loadConfig({ PRIZEDRAW_ALERT_REMIND_SECONDS: "3" }, "/tmp").alerts.remindMs).toBe(3_000);
  });

  it("refuses what cannot work, naming the variable", () => {
    const refusals: [Record<string, string>, RegExp][] = [
      [{ ALERT_EMAIL: "ops@example.com, not-an-address" }, /^ALERT_EMAIL: must be comma-separated email addresses/],
      [{ ALERT_WEBHOOK_URL: "https://hooks.example.com/in" }, /^ALERT_WEBHOOK_SECRET: the operator webhook is signed/],
      [{ ALERT_WEBHOOK_URL: "https://hooks.example.com/in", ALERT_WEBHOOK_SECRET: "whsec_short" }, /^ALERT_WEBHOOK_SECRET: must be whsec_/],
      [{ ALERT_REMIND_MINUTES: "0" }, /^ALERT_REMIND_MINUTES:/],
      [{ ALERT_GAS_MIN_WEI: "0.5" }, /^ALERT_GAS_MIN_WEI: must be a whole number of wei/],
      [{ ...PRODUCTION, PRIZEDRAW_ALERT_REMIND_SECONDS: "3" }, /^PRIZEDRAW_ALERT_REMIND_SECONDS is for the test environment only/],
      [{ ...PRODUCTION, ALERT_WEBHOOK_URL: "http://hooks.example.com/in", ALERT_WEBHOOK_SECRET: SECRET }, /^ALERT_WEBHOOK_URL must be https/],
    ];
    for (const [env, message] of refusals) {
      expect(() => loadConfig(env, "/tmp")).toThrow(ConfigError);
      expect(() => loadConfig(env, "/tmp")).toThrow(message);
    }
  });
});
