// A partner's https server on loopback for the stack suites (pull URLs, webhook endpoints): a self-signed certificate
// for localhost that only the service process trusts (NODE_EXTRA_CA_CERTS), reached under the test environment's
// loopback allowance (PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK). Start it before the stack and pass `serviceEnv` to it.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { RequestListener } from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";

export type PartnerServer = {
  server: https.Server;
  /** https://localhost:PORT */
  origin: string;
  /** What the service needs to reach it: the certificate to trust and the loopback allowance. */
  serviceEnv: Record<string, string>;
  /** Closes every connection and the server, and removes the certificate. */
  close: () => Promise<void>;
};

/** Starts the server on a free port of 127.0.0.1 with a new certificate (in a `name`-… temporary folder); `handler` answers. */
export async function startPartnerServer(name: string, handler: RequestListener): Promise<PartnerServer> {
  const certDir = mkdtempSync(path.join(tmpdir(), `${name}-`));
  const [keyFile, certFile] = [path.join(certDir, "key.pem"), path.join(certDir, "cert.pem")];
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyFile, "-out", certFile, "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], { stdio: "ignore" });
  const server = https.createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    server,
    origin: `https://localhost:${(server.address() as AddressInfo).port}`,
    serviceEnv: { PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK: "true", NODE_EXTRA_CA_CERTS: certFile },
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}

/**
 * The suite's partner server: started in a beforeAll and closed in an afterAll that this registers. Call it before
 * the stack's hooks (useStack, or the suite's own), so that the stack starts after the server and stops before it.
 * The answer reads the started server; it throws if read before the suite's beforeAll ran.
 */
export function usePartnerServer(name: string, handler: RequestListener): Omit<PartnerServer, "close"> {
  let started: PartnerServer | undefined;
  beforeAll(async () => {
    started = await startPartnerServer(name, handler);
  });
  afterAll(async () => {
    await started?.close();
  });
  const get = (): PartnerServer => {
    if (started === undefined) throw new Error("the partner server starts in the suite's beforeAll");
    return started;
  };
  return {
    get server() {
      return get().server;
    },
    get origin() {
      return get().origin;
    },
    get serviceEnv() {
      return get().serviceEnv;
    },
  };
}
