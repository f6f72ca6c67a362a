/**
 * A parser of the Prometheus text exposition format (version 0.0.4), strict enough to fail on what a Prometheus
 * server would refuse: every sample belongs to a family declared by `# TYPE`, names and label names are valid,
 * label values are quoted with \\, \" and \n escapes, values are numbers (or NaN, +Inf, -Inf), and no series
 * appears twice.
 */
export type Sample = { name: string; labels: Record<string, string>; value: number };
export type Family = { name: string; type: string; help: string; samples: Sample[] };

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

export class ExpositionError extends Error {
  override name = "ExpositionError";
}

function parseValue(text: string, line: number): number {
  if (text === "NaN") return Number.NaN;
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new ExpositionError(`line ${line}: "${text}" is not a number`);
  return Number(text);
}

/** Reads `{a="1",b="x\"y"}` from `text` at `start` (just after the name); returns the labels and the index after `}`. */
function parseLabels(text: string, start: number, line: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start + 1;
  while (text[i] !== "}") {
    const eq = text.indexOf("=", i);
    if (eq < 0) throw new ExpositionError(`line ${line}: label without "="`);
    const key = text.slice(i, eq);
    if (!LABEL_NAME.test(key)) throw new ExpositionError(`line ${line}: bad label name "${key}"`);
    if (text[eq + 1] !== '"') throw new ExpositionError(`line ${line}: label ${key} is not quoted`);
    let value = "";
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === "\\") {
        const next = text[++j];
        if (next === "n") value += "\n";
        else if (next === "\\" || next === '"') value += next;
        else throw new ExpositionError(`line ${line}: bad escape \\${next ?? ""}`);
      } else value += text[j];
    }
    if (j >= text.length) throw new ExpositionError(`line ${line}: unterminated label value`);
    if (key in labels) throw new ExpositionError(`line ${line}: label ${key} twice`);
    labels[key] = value;
    i = j + 1;
    if (text[i] === ",") i++;
    else if (text[i] !== "}") throw new ExpositionError(`line ${line}: expected "," or "}" after label ${key}`);
  }
  return { labels, end: i + 1 };
}

/** The families of an exposition, by name; a histogram's `_bucket`, `_sum` and `_count` samples are its own. */
export function parseExposition(body: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  const familyOf = (sample: string): Family | undefined =>
    families.get(sample) ?? families.get(sample.replace(/_(bucket|sum|count|total|created)$/, "")) ?? undefined;
  body.split("\n").forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === "") return;
    if (raw.startsWith("#")) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
      if (!m) return; // a plain comment
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!NAME.test(name)) throw new ExpositionError(`line ${line}: bad metric name "${name}"`);
      const family = families.get(name) ?? { name, type: "untyped", help: "", samples: [] };
      if (kind === "TYPE") {
        if (!TYPES.has(rest)) throw new ExpositionError(`line ${line}: unknown type "${rest}"`);
        family.type = rest;
      } else family.help = rest;
      families.set(name, family);
      return;
    }
    const nameEnd = raw.search(/[{ ]/);
    if (nameEnd <= 0) throw new ExpositionError(`line ${line}: no sample`);
    const name = raw.slice(0, nameEnd);
    if (!NAME.test(name)) throw new ExpositionError(`line ${line}: bad metric name "${name}"`);
    let labels: Record<string, string> = {};
    let rest = raw.slice(nameEnd);
    if (rest.startsWith("{")) {
      const parsed = parseLabels(raw, nameEnd, line);
      labels = parsed.labels;
      rest = raw.slice(parsed.end);
    }
    const parts = rest.trim().split(/\s+/);
    if (parts.length < 1 || parts.length > 2 || parts[0] === "") throw new ExpositionError(`line ${line}: expected a value (and an optional timestamp)`);
    const value = parseValue(parts[0]!, line);
    const family = familyOf(name);
    if (!family) throw new ExpositionError(`line ${line}: sample ${name} of no declared family`);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(key)) throw new ExpositionError(`line ${line}: series ${key} twice`);
    seen.add(key);
    family.samples.push({ name, labels, value });
  });
  return families;
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const family of families.values()) {
    for (const s of family.samples) {
      if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) return s.value;
    }
  }
  return undefined;
}
