#!/usr/bin/env node
// The prizedraw CLI: runs api/src/cli/prizedraw.ts through tsx (the service ships as TypeScript).
import { register } from "tsx/esm/api";

register();
process.argv[1] = new URL("../src/cli/prizedraw.ts", import.meta.url).pathname;
await import("../src/cli/prizedraw.ts");
