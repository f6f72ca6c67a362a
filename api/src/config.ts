import { isAbsolute, resolve } from "node:path";
import { z } from "zod";
import type { Hex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";

/** One deployment of the service is one environment (DESIGN.md section 3). */
export type Environment = "test" | "production";

/** The service's configuration, from the variables of DESIGN.md section 10; every one has a working default. */
export type Config = {
  env: Environment;
  /** Absolute path: SQLite file, anvil state, Ponder's PGlite, deployment record. */
  dataDir: string;
  /**
   * The service's store in PostgreSQL (`postgres://user:password@host:port/db`), or undefined: the SQLite file in
   * the data folder (store/index.ts `storePath`). It holds a password: messages name it with `storeLabel` only.
   */
  storeUrl: string | undefined;
  port: number;
  publicBaseUrl: string;
  chainPort: number;
  /** The chain's RPC; the local anvil unless RPC_URL is set. */
  rpcUrl: string;
  /** True when the service runs its own anvil (RPC_URL unset). */
  localChain: boolean;
  indexerPort: number;
  indexerUrl: string;
  databaseUrl: string | undefined;
  keeperIntervalSeconds: number;
  pullAllowHttpLoopback: boolean;
  /** Test environment only: webhook retries wait this base, doubling, instead of 5 s, 5 min, ... (webhooks/retry.ts). */
  webhookRetryBaseMs: number | null;
  /** A drawing waiting longer than this for its random value is flagged (needsAttention). */
  entropyTimeoutSeconds: number;
  /** A sent transaction without a receipt after this long is given up on (and its nonce reused on retry). */
  txTimeoutSeconds: number;
  /** An operator transaction not mined this long after it was sent (or replaced) is replaced with higher fees. */
  txReplaceSeconds: number;
  /** The most an operator transaction pays per gas, in wei (MAX_FEE_PER_GAS_GWEI). */
  maxFeePerGasWei: bigint;
  /** Test environment only: the service does not reveal MockEntropy requests itself (tests play the provider). */
  holdMockReveal: boolean;
  /** The operator's key; in the test environment anvil's well-known account 1 by default. */
  operatorPrivateKey: Hex | undefined;
  /**
   * The block tag that says a step can no longer be reorganised away: `finalized` (the default; on Base the L2
   * block whose batch is in a finalized L1 block) or `safe` (its batch is on L1, not yet finalized).
   */
  chainFinality: ChainFinality;
  /** Outgoing mail (portal links): smtp(s)://user:password@host:port; unset in test: the outbox (/portal/outbox). */
  smtpUrl: string | undefined;
  mailFrom: string;
  /**
   * GET /metrics needs `Authorization: Bearer <this>` when set. Unset: open in the test environment, off (404) in
   * production, where the figures (the pool, the operator's balance) are the operator's business.
   */
  metricsToken: string | undefined;
  /** Reverse proxies in front of the service whose X-Forwarded-For is trusted for the client's address (0: none). */
  trustedProxyHops: number;
  /** Requests a minute allowed in this process (docs/operations.md, "Rate limits"); 0 turns a limit off. */
  rateLimits: RateLimits;
  /** Node's HTTP server guards (docs/operations.md, "Connections and timeouts"). */
  http: HttpLimits;
  /** Conditions that need a person, and where their notices go (docs/operations.md, "Alerts"). */
  alerts: AlertSettings;
};

/** When a condition needs a person, and who is told (docs/operations.md, "Alerts"). */
export type AlertSettings = {
  /** Mail recipients of every notice (ALERT_EMAIL); empty: no mail. */
  emails: string[];
  /** The operator webhook (ALERT_WEBHOOK_URL), signed with `webhookSecret` as partner webhooks are; unset: none. */
  webhookUrl: string | undefined;
  webhookSecret: string | undefined;
  /** An alert still active is reminded this long after its last notice. */
  remindMs: number;
  /** A drawing this long in one unfinished status is stuck. */
  stuckMs: number;
  /** The pool's free balance must cover this many days of the active campaigns' prizes (0: not checked). */
  poolDays: number;
  /** The operator's balance must be at least this many wei (0: not checked). */
  gasMinWei: bigint;
};

/**
 * Requests a minute, each a token bucket holding a minute's worth (a burst may spend it at once) that refills evenly;
 * 0: no limit. `perKey` counts a request's declared body too (http/rateLimit.ts, requestCost).
 */
export type RateLimits = {
  /** Per API key, on /api/v1. */
  perKey: number;
  /** Per client address on /api/v1, checked before the key. */
  apiPerClient: number;
  /** Per client address everywhere else (public endpoints, pages, portal, /ready), /health excepted. */
  publicPerClient: number;
};

/** What one client may hold of the HTTP server: connections at once, and time to send a request. */
export type HttpLimits = {
  /** Open connections at once (Node's server.maxConnections); a connection over it is closed at once. */
  maxConnections: number;
  /** Time to send a whole request, body included; later it is answered 408 and the connection closed. */
  requestTimeoutSeconds: number;
  /** Time to send the request line and headers (at most requestTimeoutSeconds). */
  headersTimeoutSeconds: number;
};

/** The node's block tags a result can be final at (see README, "Reorgs and finality"). */
export type ChainFinality = "finalized" | "safe";

/** A configuration the service refuses to start with; `message` says what to fix. */
export class ConfigError extends Error {
  readonly code = "config_invalid";
  override name = "ConfigError";
}

/**
 * The local chain's finality: anvil reports `finalized` as 2 epochs and `safe` as 1 epoch behind the head, so 15
 * slots per epoch put the finalized block 30 blocks back (30 s at one block a second), the depth Ponder treats as
 * final on chains it does not know (31337 among them), so the indexer and the service agree on what can still move.
 */
export const LOCAL_CHAIN_FINALITY_ARGS = ["--slots-in-an-epoch", "15"] as const;

/** Anvil's well-known development keys: public knowledge, valid only on a local test chain. */
export const ANVIL_KEYS = {
  admin: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  operator: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  /** Account 2: MockEntropy's default provider address. */
  provider: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  /** Account 3: the guardian, which may pause payments. */
  guardian: "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
} as const satisfies Record<string, Hex>;

/** The mnemonic of anvil's (and Hardhat's) ten funded development accounts: public knowledge. */
const DEVELOPMENT_MNEMONIC = "test test test test test test test test test test test junk";
/** The local development chain's id (anvil, Hardhat). */
export const LOCAL_CHAIN_ID = 31337;

/**
 * True when `privateKey` is one of the ten development accounts every anvil and Hardhat node funds: anyone holds
 * them, so outside a local chain such a key is no secret at all.
 */
export function isPublicDevelopmentKey(privateKey: Hex): boolean {
  const address = privateKeyToAccount(privateKey).address;
  for (let addressIndex = 0; addressIndex < 10; addressIndex++) {
    if (mnemonicToAccount(DEVELOPMENT_MNEMONIC, { addressIndex }).address === address) return true;
  }
  return false;
}

const port = z.coerce.number().int().min(1).max(65_535);
/** Requests a minute; 0 turns the limit off. */
const perMinute = z.coerce.number().int().min(0).max(1_000_000);
const bool = z.enum(["true", "false"]).transform((v) => v === "true");

const schema = z.object({
  PRIZEDRAW_ENV: z.enum(["test", "production"]).default("test"),
  PRIZEDRAW_DATA_DIR: z.string().min(1).default("./.data"),
  PORT: port.default(8787),
  PUBLIC_BASE_URL: z.url().optional(),
  CHAIN_PORT: port.default(8545),
  RPC_URL: z.url().optional(),
  INDEXER_PORT: port.default(42069),
  INDEXER_URL: z.url().optional(),
  DATABASE_URL: z.string().min(1).optional(),
  STORE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/i, "must be postgres://... or postgresql://... (unset it for the SQLite file in the data folder)")
    .refine(isUrl, "is not a valid URL")
    .optional(),
  KEEPER_INTERVAL_SECONDS: z.coerce.number().positive().optional(),
  PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK: bool.default(false),
  PRIZEDRAW_WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).max(3_600_000).optional(),
  PRIZEDRAW_ENTROPY_TIMEOUT_SECONDS: z.coerce.number().positive().default(600),
  PRIZEDRAW_TX_TIMEOUT_SECONDS: z.coerce.number().positive().default(180),
  PRIZEDRAW_TX_REPLACE_SECONDS: z.coerce.number().positive().max(3_600).default(30),
  // Decimal gwei (Base's fees are fractions of a gwei); at most 10,000 gwei, far above any sane price.
  MAX_FEE_PER_GAS_GWEI: z
    .string()
    .regex(/^\d{1,5}(\.\d{1,9})?$/, "must be gwei, a number such as 50 or 0.5 (at most 9 decimals)")
    .refine((v) => Number(v) > 0 && Number(v) <= 10_000, "must be more than 0 and at most 10000 gwei")
    .default("50"),
  PRIZEDRAW_HOLD_MOCK_REVEAL: bool.default(false),
  CHAIN_FINALITY: z.enum(["finalized", "safe"]).default("finalized"),
  SMTP_URL: z.string().regex(/^smtps?:\/\/\S+$/, "must be smtp://... or smtps://...").optional(),
  MAIL_FROM: z.string().min(3).max(200).default("Prize Draw <no-reply@localhost>"),
  TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(5).default(0),
  // Far above a partner's use (the spec: polling once a minute per campaign is enough); benchmarks and test suites
  // that drive one key or address flat out turn them off (RATE_LIMITS=off: the test stack does).
  RATE_LIMITS: z.enum(["on", "off"]).default("on"),
  RATE_LIMIT_PER_KEY: perMinute.default(1_200),
  RATE_LIMIT_API_PER_CLIENT: perMinute.default(2_400),
  RATE_LIMIT_PUBLIC_PER_CLIENT: perMinute.default(1_200),
  HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  // A 32 MiB list in 60 s needs about 4.5 Mbit/s: any partner backend has that; a client trickling bytes does not.
  HTTP_REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60),
  HTTP_HEADERS_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3_600).default(15),
  // Comma-separated addresses; each checked loosely (the SMTP server is the judge of a mailbox).
  ALERT_EMAIL: z
    .string()
    .transform((v) => v.split(",").map((a) => a.trim()).filter((a) => a !== ""))
    .pipe(z.array(z.string().regex(/^[^\s@,]+@[^\s@,]+$/, "must be comma-separated email addresses")).max(20))
    .optional(),
  ALERT_WEBHOOK_URL: z.url().max(2_048).optional(),
  ALERT_WEBHOOK_SECRET: z.string().regex(/^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/, "must be whsec_ followed by the base64 of 24 to 64 random bytes").optional(),
  ALERT_REMIND_MINUTES: z.coerce.number().int().min(1).max(10_080).default(60),
  ALERT_STUCK_MINUTES: z.coerce.number().int().min(1).max(10_080).default(30),
  ALERT_POOL_DAYS: z.coerce.number().min(0).max(365).default(7),
  ALERT_GAS_MIN_WEI: z.string().regex(/^\d{1,40}$/, "must be a whole number of wei").default("10000000000000000"),
  PRIZEDRAW_ALERT_REMIND_SECONDS: z.coerce.number().int().min(1).max(3_600).optional(),
  METRICS_TOKEN: z.string().regex(/^[\x21-\x7e]{24,200}$/, "must be 24 to 200 printable characters without spaces (a long random token)").optional(),
  OPERATOR_PRIVATE_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, "must be 0x followed by 64 hex digits")
    .optional(),
});

function isUrl(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The store for messages and logs: a SQLite file's path, or a PostgreSQL database as its engine and host only (the
 * URL's user and password, and any parameters, stay out of logs).
 */
export function storeLabel(location: string): string {
  if (!/^postgres(ql)?:\/\//i.test(location)) return location;
  try {
    return `PostgreSQL at ${new URL(location).host || "localhost"}`;
  } catch {
    return "PostgreSQL";
  }
}

/** Reads and checks the configuration; throws ConfigError naming the variable at fault. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${String(issue?.path[0] ?? "configuration")}: ${issue?.message ?? "invalid"}`);
  }
  const v = parsed.data;
  const production = v.PRIZEDRAW_ENV === "production";
  if (production && v.PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK) {
    throw new ConfigError("PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK=true is for the test environment only; unset it in production");
  }
  if (production && v.PRIZEDRAW_WEBHOOK_RETRY_BASE_MS !== undefined) throw new ConfigError("PRIZEDRAW_WEBHOOK_RETRY_BASE_MS is for the test environment only; unset it in production");
  if (production && v.PRIZEDRAW_HOLD_MOCK_REVEAL) throw new ConfigError("PRIZEDRAW_HOLD_MOCK_REVEAL is for the test environment only; unset it in production");
  if (production && !v.RPC_URL) throw new ConfigError("RPC_URL: production needs a real network (set RPC_URL)");
  if (production && !v.OPERATOR_PRIVATE_KEY) throw new ConfigError("OPERATOR_PRIVATE_KEY: production needs the operator's key");
  // Node refuses a headers timeout longer than the request's (the headers are part of the request).
  if (v.HTTP_HEADERS_TIMEOUT_SECONDS > v.HTTP_REQUEST_TIMEOUT_SECONDS) {
    throw new ConfigError(`HTTP_HEADERS_TIMEOUT_SECONDS (${v.HTTP_HEADERS_TIMEOUT_SECONDS}) must be at most HTTP_REQUEST_TIMEOUT_SECONDS (${v.HTTP_REQUEST_TIMEOUT_SECONDS})`);
  }
  const limited = v.RATE_LIMITS === "on";
  if (production && v.PRIZEDRAW_ALERT_REMIND_SECONDS !== undefined) throw new ConfigError("PRIZEDRAW_ALERT_REMIND_SECONDS is for the test environment only; unset it in production (ALERT_REMIND_MINUTES)");
  if (v.ALERT_WEBHOOK_URL !== undefined && v.ALERT_WEBHOOK_SECRET === undefined) throw new ConfigError("ALERT_WEBHOOK_SECRET: the operator webhook is signed; set a whsec_ secret with ALERT_WEBHOOK_URL");
  if (production && v.ALERT_WEBHOOK_URL !== undefined && !v.ALERT_WEBHOOK_URL.startsWith("https://")) throw new ConfigError("ALERT_WEBHOOK_URL must be https");

  const dataDir = isAbsolute(v.PRIZEDRAW_DATA_DIR) ? v.PRIZEDRAW_DATA_DIR : resolve(cwd, v.PRIZEDRAW_DATA_DIR);
  return {
    env: v.PRIZEDRAW_ENV,
    dataDir,
    storeUrl: v.STORE_URL,
    port: v.PORT,
    publicBaseUrl: (v.PUBLIC_BASE_URL ?? `http://127.0.0.1:${v.PORT}`).replace(/\/+$/, ""),
    chainPort: v.CHAIN_PORT,
    rpcUrl: v.RPC_URL ?? `http://127.0.0.1:${v.CHAIN_PORT}`,
    localChain: v.RPC_URL === undefined,
    indexerPort: v.INDEXER_PORT,
    indexerUrl: (v.INDEXER_URL ?? `http://127.0.0.1:${v.INDEXER_PORT}`).replace(/\/+$/, ""),
    databaseUrl: v.DATABASE_URL,
    keeperIntervalSeconds: v.KEEPER_INTERVAL_SECONDS ?? (production ? 300 : 10),
    pullAllowHttpLoopback: v.PRIZEDRAW_PULL_ALLOW_HTTP_LOOPBACK,
    webhookRetryBaseMs: v.PRIZEDRAW_WEBHOOK_RETRY_BASE_MS ?? null,
    entropyTimeoutSeconds: v.PRIZEDRAW_ENTROPY_TIMEOUT_SECONDS,
    txTimeoutSeconds: v.PRIZEDRAW_TX_TIMEOUT_SECONDS,
    txReplaceSeconds: v.PRIZEDRAW_TX_REPLACE_SECONDS,
    maxFeePerGasWei: gweiToWei(v.MAX_FEE_PER_GAS_GWEI),
    holdMockReveal: v.PRIZEDRAW_HOLD_MOCK_REVEAL,
    operatorPrivateKey: (v.OPERATOR_PRIVATE_KEY as Hex | undefined) ?? (production ? undefined : ANVIL_KEYS.operator),
    chainFinality: v.CHAIN_FINALITY,
    smtpUrl: v.SMTP_URL,
    mailFrom: v.MAIL_FROM,
    metricsToken: v.METRICS_TOKEN,
    trustedProxyHops: v.TRUSTED_PROXY_HOPS,
    rateLimits: {
      perKey: limited ? v.RATE_LIMIT_PER_KEY : 0,
      apiPerClient: limited ? v.RATE_LIMIT_API_PER_CLIENT : 0,
      publicPerClient: limited ? v.RATE_LIMIT_PUBLIC_PER_CLIENT : 0,
    },
    http: {
      maxConnections: v.HTTP_MAX_CONNECTIONS,
      requestTimeoutSeconds: v.HTTP_REQUEST_TIMEOUT_SECONDS,
      headersTimeoutSeconds: v.HTTP_HEADERS_TIMEOUT_SECONDS,
    },
    alerts: {
      emails: v.ALERT_EMAIL ?? [],
      webhookUrl: v.ALERT_WEBHOOK_URL,
      webhookSecret: v.ALERT_WEBHOOK_SECRET,
      remindMs: v.PRIZEDRAW_ALERT_REMIND_SECONDS !== undefined ? v.PRIZEDRAW_ALERT_REMIND_SECONDS * 1_000 : v.ALERT_REMIND_MINUTES * 60_000,
      stuckMs: v.ALERT_STUCK_MINUTES * 60_000,
      poolDays: v.ALERT_POOL_DAYS,
      gasMinWei: BigInt(v.ALERT_GAS_MIN_WEI),
    },
  };
}

/** "0.5" gwei as 500000000n wei, exactly (no floating point). */
function gweiToWei(gwei: string): bigint {
  const [whole, fraction = ""] = gwei.split(".");
  return BigInt(whole!) * 1_000_000_000n + BigInt(fraction.padEnd(9, "0"));
}
