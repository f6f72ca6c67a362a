// Helpers to run the verifier as a child process, the way strangers run it.

import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, expect } from "vitest";
import { FakeChain, type ChainKnobs } from "./fake-chain.js";
import { VERIFIER, type Proof } from "./fixtures.js";

/** The verifier's `--json` report: the result and every check. */
export type JsonReport = { ok: boolean; checks: { id: string; status: "pass" | "fail" | "info"; message: string; details?: string[] }[] };

export type Run = { code: number | null; stdout: string; stderr: string; output: string; ms: number };

/** Runs `node verify-draw.mjs ...args` asynchronously (so in-process HTTP servers keep answering). */
export function runVerifier(args: string[], timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [VERIFIER, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, output: stdout + stderr, ms: performance.now() - started });
    });
  });
}

export class TempDir {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), "verify-draw-test-"));
  private n = 0;
  write(value: unknown, name = `proof-${++this.n}.json`): string {
    const file = path.join(this.dir, name);
    writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
    return file;
  }
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A TempDir for the calling test file's proofs, removed after its tests, and the verifier run on a proof written there
 * with `flags`.
 */
export function proofFolder(): { tmp: TempDir; verify: (proof: unknown, ...flags: string[]) => Promise<Run> } {
  const tmp = new TempDir();
  afterAll(() => tmp.remove());
  return { tmp, verify: (proof, ...flags) => runVerifier([tmp.write(proof), ...flags]) };
}

/** Serves a request handler on 127.0.0.1 at a free port. */
export async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; close: () => Promise<void>; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const s = await serve((_req, res) => res.end());
  const port = Number(new URL(s.url).port);
  await s.close();
  return port;
}

/** The verifier failed the proof: exit 1, a line matching `expected`, and the FAIL summary. */
export function expectFails(run: Run, expected: RegExp): void {
  expect(run.code, run.output).toBe(1);
  expect(run.stdout).toMatch(expected);
  expect(run.stdout).toMatch(/^FAIL: /m);
}

/** The output holds no stack trace. */
export function hasStackTrace(text: string): boolean {
  return /^\s{4}at /m.test(text) || /\n\s+at .+:\d+:\d+\)?$/m.test(text);
}

/** Runs the verifier with --rpc on `proof` (written to `tmp`) against a fake chain built from `onChain` (default the proof itself). */
export async function verifyWithChain(tmp: TempDir, proof: Proof, knobs: ChainKnobs = {}, onChain: Proof = proof, ...flags: string[]): Promise<Run> {
  const chain = new FakeChain(onChain, knobs);
  const server = await serve(chain.handler);
  try {
    return await runVerifier([tmp.write(proof), "--rpc", server.url, ...flags]);
  } finally {
    await server.close();
  }
}
