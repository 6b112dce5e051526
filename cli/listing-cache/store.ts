/**
 * The listing cache's writing side (the reading side, and what an entry depends on: key.ts). When the bin
 * found no entry that holds, it leaves what the run must store (`__agentPendingListing`); dist/cli.js then
 * records what the command prints, and stores it once the command ended, only if:
 * - the command said its output is a function of what the entry keys (`admitListing`: built-in plugins
 *   only, no MCP server, no config file that runs as code, no audit log of the config's own: a listing writes
 *   one only there, cli/context.ts `keepsAudit`);
 * - it exited 0 and wrote nothing to stderr (a warning must never turn into a silent hit);
 * - no path it depends on changed while it ran, or just before (a change a stat might not tell apart).
 * Nothing here fails a command: a cache folder that cannot be written only leaves the next run a miss.
 */
import { mkdirSync, readdirSync, realpathSync, statSync, unlinkSync } from "node:fs";
import path from "node:path";
import type { PluginHost } from "../../core/index.js";
import type { PreparedHost } from "../../core/embed.js";
import { writeFileAtomic } from "../../kit/index.js";
import { getMcpStatus } from "../builtins.js";
import { entryText, listingDeps, type Dep, type PendingListing } from "./key.js";

/** Entries kept; the oldest go first. */
export const MAX_LISTING_ENTRIES = 64;

const CODE_CONFIG = /\.(?:[cm]?js|[cm]?ts)$/;

const pending = (globalThis as { __agentPendingListing?: PendingListing }).__agentPendingListing;
let admitted = false;
let stderrWritten = false;
const printed: Buffer[] = [];

/** Keep a copy of what goes to stdout, and note whether anything goes to stderr (index.ts, before the command runs). */
export function recordListing(): void {
  if (!pending) return;
  const out = process.stdout.write.bind(process.stdout) as (...a: unknown[]) => boolean;
  const err = process.stderr.write.bind(process.stderr) as (...a: unknown[]) => boolean;
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    printed.push(typeof chunk === "string" ? Buffer.from(chunk, typeof rest[0] === "string" ? (rest[0] as BufferEncoding) : "utf8") : Buffer.from(chunk));
    return out(chunk, ...rest);
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (chunk.length > 0) stderrWritten = true;
    return err(chunk, ...rest);
  }) as typeof process.stderr.write;
}

/**
 * The listing command's word that its output depends only on what the entry keys. Third-party plugins and
 * code config can read anything; an MCP server's tools come from a server or a cache the entry does not
 * key; an audited listing (the config names a log) writes records a hit would skip. A project's `.agent/` is
 * no bar: what a listing reads there (local settings, skills, agents, commands) is in the entry's paths.
 */
export function admitListing(prepared: PreparedHost, host: PluginHost): void {
  if (!pending) return;
  admitted =
    host.plugins.every((p) => p.from === "builtin" && p.status !== "failed") &&
    !prepared.configFiles.some((f) => CODE_CONFIG.test(f)) &&
    prepared.config.audit?.path === undefined &&
    getMcpStatus(host).length === 0;
}

/** A present path's mtime and ctime (ms), from its sig. */
function times(sig: string): number[] {
  const parts = sig.split(":");
  return parts.length === 7 ? [Number(parts[4]), Number(parts[5])] : [];
}

/**
 * Changed at or after the bin looked (or so close before it that the same stat could hide a second change):
 * git's "racy" entries. Whole-second times come from a filesystem that keeps no finer ones: two seconds' margin.
 */
function racy(sig: string, t0: number): boolean {
  return times(sig).some((ms) => !Number.isFinite(ms) || ms >= t0 - (ms % 1000 === 0 ? 2000 : 20));
}

function sameDeps(a: Dep[], b: Dep[]): boolean {
  return a.length === b.length && a.every(([p, s], i) => p === b[i][0] && s === b[i][1]);
}

/** Store what the command printed, when it may (see the module's comment). Never throws. */
export function finishListing(code: number): void {
  if (!pending || !admitted || code !== 0 || stderrWritten) return;
  try {
    const deps = listingDeps(realpathSync(process.cwd()), pending.binDir);
    if (!deps || !sameDeps(deps, pending.deps) || deps.some(([, sig]) => sig === "?" || racy(sig, pending.t0))) return;
    const dir = path.dirname(pending.file);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileAtomic(pending.file, entryText(pending, deps, code, Buffer.concat(printed)), 0o600);
    // Something said on stderr after the command ended (a plugin's late error, reported before the exit): not a listing to repeat silently.
    const file = pending.file;
    process.once("exit", () => {
      if (stderrWritten) unlinkQuietly(file);
    });
    prune(dir);
  } catch {
    // a read-only home, a full disk: the listing was printed; the next run is a miss
  }
}

/** At most MAX_LISTING_ENTRIES entries: the least recently written go. */
function prune(dir: string): void {
  const entries = readdirSync(dir).filter((n) => n.endsWith(".json"));
  if (entries.length <= MAX_LISTING_ENTRIES) return;
  const aged = entries.map((n) => {
    try {
      return { file: path.join(dir, n), at: statSync(path.join(dir, n)).mtimeMs };
    } catch {
      return { file: path.join(dir, n), at: 0 };
    }
  });
  aged.sort((a, b) => a.at - b.at);
  for (const { file } of aged.slice(0, aged.length - MAX_LISTING_ENTRIES)) unlinkQuietly(file);
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    /* another run removed it */
  }
}
