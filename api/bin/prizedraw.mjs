#!/usr/bin/env node
// The prizedraw CLI: bundles api/src (scripts/build-service.mjs, a fraction of a second) and runs the bundle, as
// `npm start` runs the service.
import { CLI_ENTRY, buildService } from "../../scripts/build-service.mjs";

await buildService();
process.argv[1] = CLI_ENTRY;
await import(CLI_ENTRY);
