#!/usr/bin/env node
// `npm start` to ready, as a user meets it: `node scripts/measure-start.mjs [--runs N]` runs `npm start` N times
// on a fresh data folder and N times warm (the same folder again), alternating, each on free 127.0.0.1 ports in a
// temporary folder. A run's time is from launching `npm start` to the service's GET /ready answering 200 (store
// open, chain reachable, indexer within 5 blocks of the chain head), polled every 100 ms; then the stack is
// stopped with SIGTERM to the npm process and the next run starts once it has exited. Prints one JSON line per run
// and one per kind with the median, minimum and maximum, and the machine's load average before the runs.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const runsArg = process.argv.indexOf("--runs");
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One `npm start` on `dataDir`: seconds to /ready 200, then stopped and waited for. */
async function once(dataDir) {
  const ports = { PORT: await freePort(), CHAIN_PORT: await freePort(), INDEXER_PORT: await freePort() };
  const env = { ...process.env, PRIZEDRAW_DATA_DIR: dataDir, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) };
  const started = performance.now();
  const npm = spawn("npm", ["start"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  for (const stream of [npm.stdout, npm.stderr]) stream.on("data", (d) => (output = (output + d).slice(-20_000)));
  const exited = new Promise((resolve) => npm.once("exit", (code) => resolve(code)));
  let seconds;
  try {
    while (seconds === undefined) {
      if (npm.exitCode !== null) throw new Error(`npm start exited (${npm.exitCode}):\n${output}`);
      if (performance.now() - started > 600_000) throw new Error(`not ready after 600 s:\n${output}`);
      try {
        if ((await fetch(`http://127.0.0.1:${ports.PORT}/ready`)).ok) seconds = (performance.now() - started) / 1000;
      } catch {
        // not up yet
      }
      if (seconds === undefined) await sleep(100);
    }
  } finally {
    if (npm.exitCode === null) npm.kill("SIGTERM"); // npm passes it on: the whole stack stops
    await exited;
  }
  return seconds;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x) => Number(x.toFixed(1));

const times = { fresh: [], warm: [] };
console.log(JSON.stringify({ name: "start.load", loadavg: loadavg().map(round), at: new Date().toISOString() }));
for (let i = 0; i < runs; i++) {
  const dataDir = mkdtempSync(join(tmpdir(), "prizedraw-measure-start-"));
  try {
    for (const kind of ["fresh", "warm"]) {
      const seconds = await once(dataDir);
      times[kind].push(seconds);
      console.log(JSON.stringify({ name: `start.${kind}`, run: i + 1, value: round(seconds), unit: "s" }));
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
for (const kind of ["fresh", "warm"]) {
  const xs = times[kind];
  console.log(JSON.stringify({ name: `start.${kind}.summary`, runs: xs.length, median: round(median(xs)), min: round(Math.min(...xs)), max: round(Math.max(...xs)), unit: "s", loadavg: loadavg().map(round) }));
}
