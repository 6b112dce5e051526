/**
 * An exclusive lock on a file, across processes: `<file>.lock` created exclusively next to it, holding
 * the owner's pid, host and start time. Why in-house and not `proper-lockfile`: every config writer
 * here is synchronous, and proper-lockfile's `lockSync` cannot wait (no retries), keeps its stale check
 * to the lock's mtime (so a kill -9'd owner blocks for its whole stale period), and brings three
 * packages. Here a lock whose owner is dead (same host, pid gone) is taken over at once; one older
 * than `staleMs` is too (a pid reused, another host); waits are bounded and end in a clear error.
 *
 * Breaking a stale lock happens under `<file>.lock.break` (held for microseconds), so two processes
 * that judge the same lock stale cannot both remove it and one of them remove a fresh lock instead.
 */
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync, rmSync, statSync, utimesSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { AgentError, errorMessage } from "../errors.js";

export interface FileLockOptions {
  /** How long to wait for another process's lock before failing. Default 10 s (`AGENT_LOCK_WAIT_MS`). */
  readonly waitMs?: number;
  /** A lock older than this is taken over even when its pid is alive. Default 30 s. */
  readonly staleMs?: number;
  /** Told once when the wait is not short (default: a line on stderr). */
  readonly onWait?: (holder: string) => void;
}

interface Owner {
  pid: number;
  host: string;
  since: string;
  token: string;
}

const DEFAULT_WAIT_MS = 10_000;
const DEFAULT_STALE_MS = 30_000;
/** After this long waiting, the user is told what is being waited for. */
const NOTICE_AFTER_MS = 1_000;
/** Locks this process holds (by lock file): a nested sync lock on one of them would wait on itself. */
const held = new Set<string>();

export const lockFileOf = (file: string): string => `${file}.lock`;

function waitBound(options: FileLockOptions | undefined): number {
  const env = Number(process.env.AGENT_LOCK_WAIT_MS);
  return options?.waitMs ?? (Number.isFinite(env) && env >= 0 ? env : DEFAULT_WAIT_MS);
}

function readOwner(lock: string): { owner: Partial<Owner> | undefined; ino: number; mtimeMs: number } | undefined {
  try {
    const st = statSync(lock);
    let owner: Partial<Owner> | undefined;
    try {
      owner = JSON.parse(readFileSync(lock, "utf8")) as Partial<Owner>;
    } catch {
      /* empty or torn: only its age can tell */
    }
    return { owner, ino: st.ino, mtimeMs: st.mtimeMs };
  } catch {
    return undefined; // gone: try again
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function isStale(seen: NonNullable<ReturnType<typeof readOwner>>, staleMs: number): boolean {
  const { owner } = seen;
  if (owner && typeof owner.pid === "number" && owner.host === hostname() && !alive(owner.pid)) return true;
  return Date.now() - seen.mtimeMs > staleMs;
}

function describe(file: string, seen: ReturnType<typeof readOwner>): string {
  const o = seen?.owner;
  const who = o && typeof o.pid === "number" ? `another agent process (pid ${o.pid}${o.host && o.host !== hostname() ? ` on ${o.host}` : ""})` : "another agent process";
  const since = o?.since ?? (seen ? new Date(seen.mtimeMs).toISOString() : "a moment ago");
  return `${who} holds the lock on ${file} since ${since}`;
}

/** Create the lock file with our owner record; false when it exists. */
function tryCreate(lock: string, owner: Owner): boolean {
  let fd: number;
  try {
    fd = openSync(lock, "wx", 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    writeSync(fd, JSON.stringify(owner));
  } catch (err) {
    closeSync(fd);
    rmSync(lock, { force: true });
    throw err;
  }
  closeSync(fd);
  return true;
}

/** Remove `seen` (judged stale) unless it changed meanwhile; serialised with other breakers. */
function breakStale(lock: string, seen: NonNullable<ReturnType<typeof readOwner>>, staleMs: number): void {
  const breaker = `${lock}.break`;
  const me: Owner = { pid: process.pid, host: hostname(), since: new Date().toISOString(), token: randomBytes(8).toString("hex") };
  if (!tryCreate(breaker, me)) {
    // A breaker killed mid-break leaves this behind; it is stale by the same rules.
    const b = readOwner(breaker);
    if (b && isStale(b, staleMs)) rmSync(breaker, { force: true });
    return;
  }
  try {
    const now = readOwner(lock);
    if (now && now.ino === seen.ino && now.owner?.token === seen.owner?.token && isStale(now, staleMs)) rmSync(lock, { force: true });
  } finally {
    rmSync(breaker, { force: true });
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleepSync = (ms: number) => Atomics.wait(sleeper, 0, 0, ms);

function lockError(file: string, err: unknown): AgentError {
  return new AgentError("E_CONFIG", `could not lock ${file} to change it (${errorMessage(err)}); nothing was changed.`, { cause: err });
}

/** One attempt: the lock taken (its owner record), or what holds it. */
function attempt(file: string, lock: string, staleMs: number): Owner | NonNullable<ReturnType<typeof readOwner>> | undefined {
  const owner: Owner = { pid: process.pid, host: hostname(), since: new Date().toISOString(), token: randomBytes(8).toString("hex") };
  try {
    if (tryCreate(lock, owner)) return owner;
  } catch (err) {
    throw lockError(file, err);
  }
  const seen = readOwner(lock);
  if (seen && isStale(seen, staleMs)) {
    breakStale(lock, seen, staleMs);
    return undefined;
  }
  return seen;
}

function release(lock: string, owner: Owner): void {
  held.delete(lock);
  // Only our own: a lock taken over as stale (we were too slow) is someone else's now.
  if (readOwner(lock)?.owner?.token === owner.token) rmSync(lock, { force: true });
}

const isOwner = (v: unknown): v is Owner => !!v && typeof (v as Owner).token === "string" && !("ino" in (v as object));

function timedOut(file: string, lock: string, seen: ReturnType<typeof readOwner>, waited: number): AgentError {
  return new AgentError(
    "E_FILE_LOCKED",
    `${describe(file, seen)}; waited ${(waited / 1000).toFixed(1)} s and changed nothing. Try again when it is done; if no agent process is running, delete ${lock}.`,
  );
}

/**
 * One wait for the lock on `file`: each call says how long it has waited, throws once the bound is
 * passed, and tells the holder (once) after a second of waiting.
 */
function lockWait(file: string, lock: string, options: FileLockOptions | undefined): (seen: ReturnType<typeof readOwner>) => number {
  const bound = waitBound(options);
  const start = Date.now();
  let told = false;
  return (seen) => {
    const waited = Date.now() - start;
    if (waited >= bound) throw timedOut(file, lock, seen, waited);
    if (!told && seen && waited >= NOTICE_AFTER_MS) {
      told = true;
      (options?.onWait ?? ((h) => process.stderr.write(`agent: waiting: ${h}\n`)))(describe(file, seen));
    }
    return bound - waited;
  };
}

/** Run `fn` holding the lock on `file` (synchronously: it must not await). */
export function withFileLock<T>(file: string, fn: () => T, options?: FileLockOptions): T {
  const lock = lockFileOf(file);
  if (held.has(lock)) throw new AgentError("E_FILE_LOCKED", `${file} is already being changed by this process (a nested change of the same file); nothing was changed.`);
  const staleMs = options?.staleMs ?? DEFAULT_STALE_MS;
  const waited = lockWait(file, lock, options);
  let pause = 2;
  for (;;) {
    const got = attempt(file, lock, staleMs);
    if (isOwner(got)) {
      held.add(lock);
      try {
        return fn();
      } finally {
        release(lock, got);
      }
    }
    const left = waited(got);
    sleepSync(Math.min(pause, left) + Math.random() * pause);
    pause = Math.min(pause * 2, 50);
  }
}

/**
 * The same lock held across awaits (an `npm install` editing package.json): waits without blocking
 * the event loop, and keeps the lock fresh while held so it is never judged stale by its age.
 */
export async function withFileLockAsync<T>(file: string, fn: () => Promise<T>, options?: FileLockOptions): Promise<T> {
  const lock = lockFileOf(file);
  const staleMs = options?.staleMs ?? DEFAULT_STALE_MS;
  const waited = lockWait(file, lock, options);
  for (;;) {
    const got = held.has(lock) ? readOwner(lock) : attempt(file, lock, staleMs);
    if (isOwner(got)) {
      held.add(lock);
      const beat = setInterval(() => {
        try {
          const t = new Date();
          utimesSync(lock, t, t);
        } catch {
          /* taken over or gone: release checks the token */
        }
      }, Math.max(50, Math.floor(staleMs / 3)));
      beat.unref();
      try {
        return await fn();
      } finally {
        clearInterval(beat);
        release(lock, got);
      }
    }
    waited(got);
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
  }
}
