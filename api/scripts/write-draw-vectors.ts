/** Writes test/vectors/draw-vectors.json. Run from the repository root: npx tsx api/scripts/write-draw-vectors.ts */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildDrawVectors } from "./draw-vectors.js";

export const VECTORS_PATH = resolve(dirname(fileURLToPath(import.meta.url)), "../../test/vectors/draw-vectors.json");

const vectors = buildDrawVectors();
mkdirSync(dirname(VECTORS_PATH), { recursive: true });
writeFileSync(VECTORS_PATH, `${JSON.stringify(vectors, null, 2)}\n`);
console.log(`Wrote ${vectors.cases.length} cases to ${VECTORS_PATH}`);
