// Writes the OpenAPI document (api/src/http/openapi.ts) to api/openapi.json, the committed copy a typed client is
// generated from. test/api/openapi.test.ts fails while the committed file differs: run this after changing a
// request or response schema, and commit the file with the change.
//
//   node --import tsx scripts/openapi.mts
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { openApiJson } from "../api/src/http/openapi.js";

const file = fileURLToPath(new URL("../api/openapi.json", import.meta.url));
writeFileSync(file, openApiJson());
console.log(`wrote ${file}`);
