#!/usr/bin/env node
// `npm run bench`: every benchmark, one JSON line per figure: { name, value, unit, baseline?, ratio? }.
// Ratios compare two things measured in the same run (these machines are shared and noisy); gas is exact.
// `npm run bench -- provisional-proof public`: only the benchmarks whose command names one of those words.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

const env = { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: "true", NO_COLOR: "1" };

const benches = [
  ["npx", ["hardhat", "run", "scripts/bench-gas.ts"]],
  ["npx", ["tsx", "api/scripts/bench-selection.ts"], "api/scripts/bench-selection.ts"],
  ["node", ["api/scripts/bench-verifier.mjs"], "api/scripts/bench-verifier.mjs"],
  ["npx", ["tsx", "api/scripts/bench-ingest.ts"], "api/scripts/bench-ingest.ts"],
  ["npx", ["tsx", "api/scripts/bench-public.ts"], "api/scripts/bench-public.ts"],
  // A final proof.json served by two service processes on one PostgreSQL store against one.
  ["npx", ["tsx", "api/scripts/bench-processes.ts"], "api/scripts/bench-processes.ts"],
  // A 100,000-entrant drawing's provisional proof.json under 8 clients, with /health and a partner read probed.
  ["npx", ["tsx", "api/scripts/bench-provisional-proof.ts"], "api/scripts/bench-provisional-proof.ts"],
  // Many simultaneous drawings on a 2 s block chain (BENCH_CAMPAIGNS, default 1000; minutes, up to a 20-minute limit).
  ["npx", ["tsx", "api/scripts/bench-throughput.ts"], "api/scripts/bench-throughput.ts"],
];

const only = process.argv.slice(2);
let failed = false;
for (const [command, args, requires] of benches) {
  if (requires && !existsSync(requires)) continue;
  if (only.length > 0 && !only.some((word) => args.join(" ").includes(word))) continue;
  const code = await new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "inherit"] });
    // Only JSON lines go to stdout, so the output stays machine-readable.
    let buffer = "";
    child.stdout.on("data", (chunk) => {
      buffer += chunk;
      const lines = buffer.split("\n");
      buffer = lines.pop();
      for (const line of lines) if (line.startsWith("{")) console.log(line);
    });
    child.on("close", (c) => resolve(c ?? 1));
  });
  if (code !== 0) {
    failed = true;
    console.error(`bench failed: ${command} ${args.join(" ")} (exit ${code})`);
  }
}
process.exit(failed ? 1 : 0);
