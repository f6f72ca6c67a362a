import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "../logger.js";
import type { Store } from "../store/index.js";

/**
 * One keeper at a time. Several service processes may share one store (one SQLite file on one machine
 * today); each runs HTTP, but only the holder of the "keeper" lease runs keeper cycles, pull fetches and webhook
 * sends. The holder renews the lease every LEASE_RENEW_MS for LEASE_TTL_MS; a standby tries as often, so it takes
 * over within TTL + one try (about 20 s) of the holder's death, and at its next try (within 5 s) when the holder
 * was a process of this machine that no longer runs (a SIGKILL, a crash). A clean stop releases the lease: a
 * standby takes it at its next try.
 *
 * A lease is not a fence: a holder paused past its expiry (a stopped process, a frozen VM) may finish a chain send
 * it had begun when it wakes. The keeper confirms the lease between steps, so it stops before the next one, and
 * the contract refuses a second number or payout for a drawing.
 */
export const KEEPER_LEASE = "keeper";
export const LEASE_TTL_MS = 15_000;
export const LEASE_RENEW_MS = 5_000;

/** A holder id for this process: `host:pid:random` (the random part tells two runs with one pid apart). */
export function newHolderId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(6).toString("hex")}`;
}

/**
 * True when `holder` was a process of this machine that no longer runs: its lease need not run out. A holder on
 * another host, or one whose id cannot be read, is never taken for gone (its lease expires on its own).
 */
export function holderGone(holder: string): boolean {
  const parts = holder.split(":");
  if (parts.length !== 3 || parts[0] !== hostname()) return false;
  const pid = Number(parts[1]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false; // this process (an id of an earlier lease object) is alive by definition
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH"; // EPERM: it runs, as another user
  }
}

export type KeeperLeaseDeps = {
  store: Store;
  logger: Logger;
  /** Called when this process takes the lease: start the work. */
  onAcquired: () => void;
  /** Called when this process loses the lease (taken by another, or not renewed in time): stop the work. */
  onLost: () => void;
  ttlMs?: number;
  renewMs?: number;
};

/** This process's side of the keeper lease: tries to take it or renews it every `renewMs`. */
export class KeeperLease {
  readonly holder = newHolderId();
  private held = false;
  /** When the lease this process holds runs out, as this process last wrote it. */
  private expiresAt = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Between start() and stop(): a try that ends after stop() takes no work up. */
  private active = false;
  /** The try under way, if any: tries never overlap (a try still waiting on the store when the next is due skips it). */
  private trying: Promise<void> | null = null;
  private readonly ttlMs: number;
  private readonly renewMs: number;

  constructor(private readonly deps: KeeperLeaseDeps) {
    this.ttlMs = deps.ttlMs ?? LEASE_TTL_MS;
    this.renewMs = deps.renewMs ?? LEASE_RENEW_MS;
  }

  /**
   * Tries to take the lease now (the work starts at once when it is free), then every `renewMs`. Resolves when the
   * first try has ended; never rejects.
   */
  start(): Promise<void> {
    if (this.timer) return this.trying ?? Promise.resolve();
    this.active = true;
    const first = this.tick();
    this.timer = setInterval(() => void this.tick(), this.renewMs);
    return first;
  }

  /**
   * Stops trying and gives the lease up if held (the work is the caller's to stop). A try under way ends first: it
   * may just have taken the lease, which is then given up here.
   */
  async stop(): Promise<void> {
    this.active = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.trying) await this.trying;
    if (!this.held) return;
    this.held = false;
    try {
      if (await this.deps.store.leases.release(KEEPER_LEASE, this.holder)) this.deps.logger.info({ holder: this.holder }, "keeper lease released");
    } catch (error) {
      this.deps.logger.warn({ holder: this.holder, err: message(error) }, "keeper lease not released; it expires on its own");
    }
  }

  /** Whether this process holds the lease, as far as it knows without asking the store (cheap: every step). */
  holds(): boolean {
    return this.held && Date.now() < this.expiresAt;
  }

  /**
   * Whether this process still holds the lease, checked against the store (between the phases of a cycle). A lease
   * another process took meanwhile is lost here: the work stops before its next step.
   */
  async confirm(): Promise<boolean> {
    if (!this.holds()) return false;
    let current;
    try {
      current = await this.deps.store.leases.current(KEEPER_LEASE);
    } catch (error) {
      this.deps.logger.warn({ err: message(error) }, "keeper lease not readable; carrying on until it runs out");
      return true;
    }
    if (current?.holder === this.holder && current.expiresAt > Date.now()) return true;
    this.lose(current ? `now held by ${current.holder}` : "no longer in the store");
    return false;
  }

  /** One try to take or renew the lease; while one is under way, a new call joins it. Never rejects. */
  private tick(): Promise<void> {
    if (this.trying) return this.trying;
    const attempt = this.tryLease()
      .catch((error: unknown) => {
        this.deps.logger.warn({ holder: this.holder, err: message(error) }, "keeper lease try failed; retrying");
      })
      .finally(() => {
        this.trying = null;
      });
    this.trying = attempt;
    return attempt;
  }

  private async tryLease(): Promise<void> {
    const { store, logger } = this.deps;
    const now = Date.now();
    let before;
    let ok: boolean;
    try {
      before = await store.leases.current(KEEPER_LEASE);
      ok = await store.leases.acquire(KEEPER_LEASE, this.holder, now, this.ttlMs, holderGone);
    } catch (error) {
      // A busy or failing store: keep what is held until it runs out (holds() says false from then on).
      logger.warn({ holder: this.holder, err: message(error) }, "keeper lease not renewed; retrying");
      return;
    }
    if (ok) {
      this.expiresAt = now + this.ttlMs;
      if (this.held) return;
      this.held = true;
      // Stopped while this try waited on the store: stop() gives the lease up again; no work starts.
      if (!this.active) return;
      const previous = before && before.holder !== this.holder ? before : null;
      const from = previous ? { from: previous.holder, fromState: previous.expiresAt <= now ? "expired" : "process gone" } : {};
      logger.info({ holder: this.holder, ttlMs: this.ttlMs, ...from }, "keeper lease acquired: this process runs the keeper");
      this.deps.onAcquired();
    } else if (this.held) {
      let holder: string;
      try {
        holder = (await store.leases.current(KEEPER_LEASE))?.holder ?? "nobody";
      } catch {
        holder = "another process (the store did not say which)";
      }
      this.lose(`now held by ${holder}`);
    }
  }

  private lose(reason: string): void {
    if (!this.held) return;
    this.held = false;
    this.expiresAt = 0;
    this.deps.logger.warn({ holder: this.holder, reason }, "keeper lease lost: this process stops the keeper");
    this.deps.onLost();
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
