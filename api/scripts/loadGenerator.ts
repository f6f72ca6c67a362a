import http from "node:http";
import { percentile } from "./benchOutput.js";

export type LoadResult = { rps: number; p50: number; p99: number; errors: number };

/**
 * GETs `url` from `concurrency` keep-alive loops for `durationMs`; returns requests/s and latency percentiles of the
 * answers with `okStatus` (others count as errors). `headers` go with every request (e.g. If-None-Match).
 */
export async function loadRoute(url: string, durationMs: number, options: { concurrency?: number; headers?: Record<string, string>; okStatus?: number } = {}): Promise<LoadResult> {
  const concurrency = options.concurrency ?? 32;
  const okStatus = options.okStatus ?? 200;
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + durationMs;
  const one = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = http.get({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, agent, headers: options.headers }, (res) => {
        res.on("data", () => undefined);
        res.on("end", () => {
          if (res.statusCode === okStatus) latencies.push(performance.now() - started);
          else errors++;
          resolve();
        });
      });
      req.on("error", () => {
        errors++;
        resolve();
      });
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) await one();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}
