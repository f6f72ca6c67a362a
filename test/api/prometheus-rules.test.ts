// The recommended Prometheus rules (ops/prometheus/alerts.yml) name only metrics the service exports, so a renamed
// metric cannot leave a rule silently watching nothing; and every rule carries what Alertmanager routes and people
// read: a duration or an instant condition, a severity, a summary and a runbook line.

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ChainPort } from "../../api/src/chain/port.js";
import { registerCollectors } from "../../api/src/metrics/collect.js";
import { registry } from "../../api/src/metrics/registry.js";
import type { Store } from "../../api/src/store/index.js";

const RULES = readFileSync(path.resolve(import.meta.dirname, "../../ops/prometheus/alerts.yml"), "utf8");

/** The service's metric names as a scrape shows them: a histogram's series end in _bucket, _sum and _count. */
function exportedNames(): Set<string> {
  // The scrape-time gauges register with the registry; nothing is read until a scrape, so no store or chain is needed.
  registerCollectors({ store: {} as Store, chain: {} as Pick<ChainPort, "poolBalances" | "operatorBalance"> });
  const names = new Set<string>();
  for (const metric of registry.getMetricsAsArray()) {
    const { name, type } = metric as unknown as { name: string; type: string };
    names.add(name);
    if (type === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(name + suffix);
  }
  return names;
}

/** Each rule's lines: from one `- alert:` to the next. */
function rules(): { name: string; text: string }[] {
  return RULES.split(/\n(?=[ \t]*- alert: )/)
    .slice(1)
    .map((text) => ({ name: /- alert: (\S+)/.exec(text)![1]!, text }));
}

describe("ops/prometheus/alerts.yml", () => {
  it("names only metrics the service exports", () => {
    const exported = exportedNames();
    const used = new Set([...RULES.matchAll(/\bprizedraw_[a-z0-9_]+/g)].map((m) => m[0]));
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
  });

  it("gives every rule an expression, a severity, a summary and a runbook, under one unique name", () => {
    const all = rules();
    expect(all.length).toBeGreaterThan(10);
    expect(new Set(all.map((r) => r.name)).size).toBe(all.length);
    for (const { name, text } of all) {
      expect(text, name).toMatch(/\n\s+expr: \S/);
      expect(text, name).toMatch(/\n\s+severity: (critical|warning)\n/);
      expect(text, name).toMatch(/\n\s+summary: "[^"]+"/);
      expect(text, name).toMatch(/\n\s+runbook: "[^"]+"/);
    }
  });
});
