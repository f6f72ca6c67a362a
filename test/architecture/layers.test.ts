/**
 * The service's rooms import downwards only: request -> http/ -> domain/ -> store/, chain/, pull/, draw/, lists/,
 * outbound/ (the address guard of pull fetches and webhook deliveries),
 * with keeper/ scheduling, webhooks/ recording and delivering, cli/ as another door, and main.ts (with the other
 * top-level files) wiring them. A file that reaches back up is named here, with the import that does it.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../../api/src");

/** Who may not import whom: the room of the importing file, and the rooms it must not import. */
const FORBIDDEN: Record<string, readonly string[]> = {
  store: ["domain", "http", "keeper", "webhooks", "cli"],
  draw: ["domain", "http", "keeper", "webhooks", "cli"],
  pull: ["domain", "http", "keeper", "webhooks", "cli"],
  chain: ["domain", "http", "keeper", "webhooks", "cli"],
  lists: ["domain", "http", "keeper", "webhooks", "cli", "store", "chain", "pull", "draw"],
  outbound: ["domain", "http", "keeper", "webhooks", "cli", "store", "chain", "pull", "draw", "lists"],
  domain: ["http", "keeper", "cli"],
  keeper: ["http", "cli"],
  webhooks: ["http", "keeper", "cli"],
  notify: ["domain", "http", "keeper", "cli", "store", "chain", "pull", "draw", "lists"],
  cli: ["http"],
};

type Import = { from: string; to: string; specifier: string };

/** A file's room: its first folder under api/src, or "." for the top-level files (main.ts, config.ts...). */
function roomOf(file: string): string {
  const parts = file.split("/");
  return parts.length > 1 ? parts[0]! : ".";
}

/** The rule each import breaks (none for an allowed one), worded for the reader who must fix it. */
function violations(imports: readonly Import[]): string[] {
  const out: string[] = [];
  for (const { from, to, specifier } of imports) {
    const a = roomOf(from);
    const b = roomOf(to);
    if (a === b) continue;
    if (FORBIDDEN[a]?.includes(b)) out.push(`${from} imports ${specifier}: ${a}/ must not import from ${b}/`);
    else if (b === "http" && from !== "main.ts") out.push(`${from} imports ${specifier}: only main.ts and http/ itself import from http/`);
  }
  return out;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)/g;

/** Every relative import (static, re-export, or dynamic) of the TypeScript files under api/src, resolved to files. */
function sourceImports(): Import[] {
  const files = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => /\.tsx?$/.test(f)).map((f) => f.split(path.sep).join("/"));
  const out: Import[] = [];
  for (const from of files) {
    const text = readFileSync(path.join(SRC, from), "utf8");
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2]!;
      if (!specifier.startsWith(".")) continue;
      const to = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
      out.push({ from, to, specifier });
    }
  }
  return out;
}

describe("the layers of api/src", () => {
  it("finds the imports it judges (a scan that saw nothing would pass anything)", () => {
    const imports = sourceImports();
    expect(imports.length).toBeGreaterThan(300);
    // Known edges of each kind: static, type-only, and dynamic.
    expect(imports).toContainEqual(expect.objectContaining({ from: "main.ts", to: "http/app.js" }));
    expect(imports).toContainEqual(expect.objectContaining({ from: "domain/drawings.ts", to: "lists/schemas.js" }));
    expect(imports.some((i) => i.from.startsWith("cli/") && i.to.startsWith("domain/"))).toBe(true);
  });

  it("names each kind of import that reaches back up", () => {
    expect(
      violations([
        { from: "store/index.ts", to: "webhooks/events.js", specifier: "../webhooks/events.js" },
        { from: "pull/fetcher.ts", to: "http/schemas.js", specifier: "../http/schemas.js" },
        { from: "domain/campaigns.ts", to: "keeper/keeper.js", specifier: "../keeper/keeper.js" },
        { from: "lists/schemas.ts", to: "store/drawings.js", specifier: "../store/drawings.js" },
        { from: "readiness.ts", to: "http/errors.js", specifier: "./http/errors.js" },
        // Allowed: downwards, within a room, and main.ts wiring the app.
        { from: "domain/drawings.ts", to: "store/index.js", specifier: "../store/index.js" },
        { from: "http/routes/public.ts", to: "http/schemas.js", specifier: "../schemas.js" },
        { from: "main.ts", to: "http/app.js", specifier: "./http/app.js" },
      ]),
    ).toEqual([
      "store/index.ts imports ../webhooks/events.js: store/ must not import from webhooks/",
      "pull/fetcher.ts imports ../http/schemas.js: pull/ must not import from http/",
      "domain/campaigns.ts imports ../keeper/keeper.js: domain/ must not import from keeper/",
      "lists/schemas.ts imports ../store/drawings.js: lists/ must not import from store/",
      "readiness.ts imports ./http/errors.js: only main.ts and http/ itself import from http/",
    ]);
  });

  it("no file imports a room above its own", () => {
    expect(violations(sourceImports())).toEqual([]);
  });
});
