/**
 * The data folder's lock: one stack at a time on a PRIZEDRAW_DATA_DIR. Two stacks on one folder would run two
 * anvils on one state file, two keepers on one SQLite store and two Ponders on one PGlite folder, and wreck all
 * three. `npm start` holds `<data>/stack.lock` for the stack's whole life; it names the holder (pid, host, start
 * time, ports and the pids of the processes it started) so that a second start can say who has the folder, and
 * other tools (the CLI) can find the running service's port.
 *
 * The file is created complete and atomically (written under a private name, then hard-linked to its place,
 * which fails if it exists). A lock whose holder and children are all gone (a crash, a hard kill, a reboot) is
 * stale and taken over; a pid that was reused by an unrelated process is told apart by its start time.
 */
import { existsSync, linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

export const LOCK_FILE = "stack.lock";

export type LockedProcess = { name: string; pid: number; startTicks: string | null };

export type LockHolder = {
  /** What holds the folder, in the user's words: "npm start". */
  command: string;
  pid: number;
  /** The holder's start time as the kernel counts it (/proc/PID/stat), so a reused pid is not mistaken for it. */
  startTicks: string | null;
  host: string;
  bootId: string | null;
  startedAt: string;
  dataDir: string;
  ports: { service: number; indexer: number; chain: number | null };
  /** The service's public base URL (the CLI prints links with it). */
  publicBaseUrl: string;
  /** "stopping" once the holder is shutting down: a start that finds it so waits for it instead of giving up. */
  state: "starting" | "running" | "stopping";
  /** The processes the holder started (anvil, Ponder, the service), kept up to date as they start. */
  children: LockedProcess[];
};

/** A second stack on a folder that is in use; `message` is the one line to print. */
export class DataDirInUseError extends Error {
  override name = "DataDirInUseError";
  constructor(
    readonly holder: LockHolder,
    readonly lockPath: string,
  ) {
    super(describeHolder(holder, lockPath));
  }
}

export function lockPath(dataDir: string): string {
  return join(dataDir, LOCK_FILE);
}

/** The kernel's start time of a process (field 22 of /proc/PID/stat), or null where there is no /proc. */
export function processStartTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null; // fields[0] is field 3 (the state), so field 22 is fields[19]
  } catch {
    return null;
  }
}

function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] ?? null;
  } catch {
    return null;
  }
}

function bootId(): string | null {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return null;
  }
}

/** True when `pid` runs and is the process that was recorded (same start time where it can be read). */
export function processAlive(pid: number, startTicks: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false; // EPERM: it exists, someone else's
  }
  if (processState(pid) === "Z") return false; // exited, not yet reaped
  const now = processStartTicks(pid);
  return startTicks === null || now === null || now === startTicks;
}

/** This machine's view of a holder: on another host (or with no way to tell) it counts as alive. */
function sameMachine(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return false;
  const boot = bootId();
  return holder.bootId === null || boot === null || holder.bootId === boot;
}

/** The processes of a lock still running: the holder first, then its children. Empty when the lock is stale. */
export function liveProcesses(holder: LockHolder): LockedProcess[] {
  if (holder.host !== hostname()) return [{ name: holder.command, pid: holder.pid, startTicks: holder.startTicks }];
  if (!sameMachine(holder)) return []; // written before the machine restarted
  return [{ name: holder.command, pid: holder.pid, startTicks: holder.startTicks }, ...holder.children].filter((p) => processAlive(p.pid, p.startTicks));
}

/** The one line naming who holds the folder and what to do. */
export function describeHolder(holder: LockHolder, path: string): string {
  const folder = holder.dataDir;
  const ports = `port ${holder.ports.service}`;
  if (holder.host !== hostname()) {
    return `data folder ${folder} is in use by ${holder.command} on host ${holder.host} (pid ${holder.pid}, started ${holder.startedAt}, ${ports}); stop it first, or delete ${path} if that stack is gone`;
  }
  const live = liveProcesses(holder);
  if (live.some((p) => p.pid === holder.pid)) {
    return `data folder ${folder} is in use by ${holder.command} (pid ${holder.pid}, started ${holder.startedAt}, ${ports}); stop it first (Ctrl-C in its terminal, or kill ${holder.pid})`;
  }
  const left = live.map((p) => `${p.name} pid ${p.pid}`).join(", ");
  return `data folder ${folder} is still used by processes a stopped ${holder.command} (pid ${holder.pid}, started ${holder.startedAt}) left running: ${left}; stop them first (kill ${live.map((p) => p.pid).join(" ")})`;
}

function parse(text: string): LockHolder | null {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (typeof value.pid !== "number" || typeof value.host !== "string") return null;
    return {
      command: "npm start", startTicks: null, bootId: null, startedAt: "?", dataDir: "?", ports: { service: 0, indexer: 0, chain: null },
      publicBaseUrl: "", state: "running", children: [], ...value,
    } as LockHolder;
  } catch {
    return null;
  }
}

function readHolder(path: string): LockHolder | null | "missing" {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "missing";
    throw error;
  }
  return parse(text);
}

const markPath = (path: string) => `${path}.takeover`;

/** Waits `ms` without giving up the thread (the lock is taken synchronously, before anything else runs). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Takes the takeover mark, or returns false when another live start holds it. A mark left by a start that died
 * holding it is stale: it is removed and the mark taken on a later try.
 */
function takeMark(path: string, draft: string): boolean {
  const mark = markPath(path);
  try {
    linkSync(draft, mark);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const markedBy = readHolder(mark);
  if (markedBy !== "missing" && (markedBy === null || liveProcesses(markedBy).length === 0)) {
    try {
      unlinkSync(mark);
    } catch {
      // another start removed it first
    }
  }
  return false;
}

/** The stack holding `dataDir` now, or null when the folder is free (no lock, or a stale one). */
export function readDataDirLock(dataDir: string): LockHolder | null {
  const holder = readHolder(lockPath(dataDir));
  if (holder === "missing" || holder === null) return null;
  return liveProcesses(holder).length > 0 ? holder : null;
}

export type DataDirLock = {
  path: string;
  holder: LockHolder;
  /** The lock this one replaced, when its stack had died without removing it. */
  tookOver: LockHolder | null;
  /** Records the processes started so far (a later start names them while they run) and the stack's state. */
  update(change: Partial<Pick<LockHolder, "children" | "state">>): void;
  /** Removes the lock if it is still this process's. */
  release(): void;
};

export type LockRequest = Pick<LockHolder, "dataDir" | "command" | "ports" | "publicBaseUrl">;

/**
 * Takes the data folder for this process, or throws DataDirInUseError naming the holder. Only the start that holds
 * the takeover mark (`stack.lock.takeover`, created exclusively like the lock) may remove a stale lock, and it looks
 * again under the mark before removing it: so a start can never remove the lock another start has just made, and of
 * several starts racing for a stale lock exactly one takes the folder. (Before, each moved the stale lock aside and
 * put back what it found live; with three racers a fourth's fresh lock could be removed, and two took the folder.)
 */
export function acquireDataDirLock(request: LockRequest): DataDirLock {
  const path = lockPath(request.dataDir);
  const holder: LockHolder = {
    command: request.command,
    pid: process.pid,
    startTicks: processStartTicks(process.pid),
    host: hostname(),
    bootId: bootId(),
    startedAt: new Date().toISOString(),
    dataDir: request.dataDir,
    ports: request.ports,
    publicBaseUrl: request.publicBaseUrl,
    state: "starting",
    children: [],
  };
  const draft = `${path}.${process.pid}.tmp`;
  const write = () => writeFileSync(draft, `${JSON.stringify(holder, null, 2)}\n`);
  let tookOver: LockHolder | null = null;
  write();
  const deadline = Date.now() + 10_000;
  try {
    for (;;) {
      try {
        linkSync(draft, path);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST" || Date.now() > deadline) throw error;
      }
      const current = readHolder(path);
      if (current === "missing") continue;
      if (current !== null && liveProcesses(current).length > 0) throw new DataDirInUseError(current, path);
      if (!takeMark(path, draft)) {
        pause(10);
        continue;
      }
      try {
        // Under the mark nobody else removes the lock: what is there now is either still the stale one, or a live
        // lock another start made meanwhile (left alone: the next link fails and names it).
        const again = readHolder(path);
        if (again !== "missing" && (again === null || liveProcesses(again).length === 0)) {
          try {
            unlinkSync(path);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
          }
          tookOver = again;
        }
      } finally {
        unlinkSync(markPath(path));
      }
    }
  } finally {
    if (existsSync(draft)) unlinkSync(draft);
  }

  const ours = () => {
    const current = readHolder(path);
    return current !== "missing" && current !== null && current.pid === holder.pid && current.startedAt === holder.startedAt;
  };
  return {
    path,
    holder,
    tookOver,
    update(change) {
      Object.assign(holder, change);
      if (!ours()) return;
      write();
      renameSync(draft, path); // atomic: a reader sees the old record or the new one
    },
    release() {
      if (ours()) unlinkSync(path);
    },
  };
}
