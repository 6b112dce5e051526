/**
 * The mechanics of protected paths, as pure functions of paths and names (and the file system where a
 * path leads): the names that count in a root and at any depth in it (the folders `.agent/`, `.claude/`
 * and `.git/`, the files `.mcp.json`, `agent.config.*`, `.agentrc*`, and `package.json` when a write changes
 * its `agent` key), the state tools never write (`.agent/sessions/`, `.agent/audit.jsonl`, the configured
 * audit log), and how a declared write is judged: as spelt (`..` taken lexically, as the file tools do) and
 * through every symlink (`..` taken physically, as the OS does); either being protected is enough. Names
 * are compared ignoring case where file systems usually do (macOS, Windows). Which places are protected
 * for a host (its roots, its audit log, the user's folders) and what the gate does about a hit are the
 * kernel's (core/gate/protected-paths.ts, core/gate/permissions.ts).
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { isInside } from "./path-inside.js";
import { linkOf, realTarget } from "./real-path.js";
import { isAgentConfigName } from "./user-config-dir.js";

export type ProtectionLevel = "ask" | "never";

export interface Protection {
  level: ProtectionLevel;
  /** What the file is, for the prompt and messages. */
  why: string;
}

/** A protected file a call would write, with the subject an exact rule must name to allow it. */
export interface ProtectedWrite extends Protection {
  /** Where it leads, as rules see paths (relative to the project root, or absolute). */
  path: string;
  subject?: string;
}

/** Where protected files are, besides their names: the roots, the audit log, the user's config folders. */
export interface ProtectedPlaces {
  roots: readonly string[];
  auditFiles: readonly string[];
  userDirs: readonly { dir: string; why: string }[];
}

/** A file a call would write, as a tool declares it (the contract's `FileWrite` is this shape). */
export interface DeclaredWrite {
  /** The file: absolute, or relative to `cwd`. */
  path: string;
  /** The folder a relative `path` is taken from: absolute, or relative to the project root (default: the root). */
  cwd?: string;
  /**
   * The permission subject (one of the call's `permissionSubject`s) this write belongs to: an allow rule
   * must name exactly it to allow the write without asking. Default: `path` as a path subject.
   */
  subject?: string;
  /**
   * For a `package.json`: false when the write leaves its `agent` key as it is (then it is an ordinary
   * write; `changesAgentKey(before, after)` tells). Absent: taken to change it.
   */
  changesAgentKey?: boolean;
  /** Where it writes is only known when it runs (a variable, a glob): judged as a protected write. */
  uncertain?: boolean;
  /** It removes or replaces `path` with everything under it (`rm -r`, `mv`): protected when anything protected is inside. */
  tree?: boolean;
}

const FOLD = process.platform === "darwin" || process.platform === "win32";
const fold = (s: string) => (FOLD ? s.toLowerCase() : s);

const FOLDERS = new Map([
  [".agent", "the agent's own settings and state"],
  [".claude", "Claude Code's settings, hooks and commands, which the agent reads too"],
  [".git", "git's config and hooks, which run commands on the next git call"],
]);

/**
 * Whether a text (a command line) names anything protected at all: a cheap test before parsing it for
 * the files it writes. Built from the same names as the rules above.
 */
export function mentionsProtectedName(text: string): boolean {
  return [...FOLDERS.keys(), ".mcp.json", "agent.config", ".agentrc"].some((n) => text.includes(n));
}

const UNKNOWN: Protection = { level: "ask", why: "where it writes is only known when it runs: it may be such a file" };

function inside(child: string, parent: string): boolean {
  return isInside(fold(child), fold(parent));
}

/** The names that matter: relative to the root that holds the path, else the whole path. */
function segmentsOf(abs: string, roots: readonly string[]): string[] {
  const root = roots.filter((r) => inside(abs, r)).sort((a, b) => b.length - a.length)[0];
  return (root ? path.relative(root, abs) : abs).split(/[\\/]+/).filter(Boolean).map(fold);
}

function neverWhy(abs: string, segs: string[], places: ProtectedPlaces): string | undefined {
  if (places.auditFiles.some((f) => fold(f) === fold(abs))) return "the audit log";
  for (let i = 0; i < segs.length - 1; i++) {
    if (segs[i] !== ".agent") continue;
    if (segs[i + 1] === "sessions") return "the agent's session transcripts";
    if (segs[i + 1] === "audit.jsonl" && i + 2 === segs.length) return "the audit log";
  }
  return undefined;
}

function fileWhy(name: string, changesAgentKey: boolean | undefined): string | undefined {
  if (name === ".mcp.json") return "the MCP servers the agent starts";
  if (isAgentConfigName(name)) return "the agent's config";
  if (name === "package.json" && changesAgentKey !== false) return "the agent's config, in its agent key";
  return undefined;
}

/** Why writing `abs` (a path as it leads) is protected, or undefined for an ordinary file. */
export function protectionOf(abs: string, places: ProtectedPlaces, changesAgentKey?: boolean): Protection | undefined {
  const segs = segmentsOf(abs, places.roots);
  const never = neverWhy(abs, segs, places);
  if (never) return { level: "never", why: never };
  const user = places.userDirs.find((u) => inside(abs, u.dir));
  if (user) return { level: "ask", why: user.why };
  const folder = segs.find((s) => FOLDERS.has(s));
  if (folder) return { level: "ask", why: FOLDERS.get(folder)! };
  const why = segs.length ? fileWhy(segs[segs.length - 1], changesAgentKey) : undefined;
  return why ? { level: "ask", why } : undefined;
}

/** A protection found inside a folder, and where. */
type Inside = Protection & { at: string };

/**
 * For a write that removes or replaces a whole folder: the strongest protection of what is inside it (the
 * audit log, the user's folders, and the protected entries at the top of it and of each root in it).
 */
export function protectionUnder(dir: string, places: ProtectedPlaces): Inside | undefined {
  const found: Inside[] = [];
  for (const f of places.auditFiles) if (inside(f, dir)) found.push({ level: "never", why: "the audit log", at: f });
  for (const u of places.userDirs) if (inside(u.dir, dir)) found.push({ level: "ask", why: u.why, at: u.dir });
  for (const d of [dir, ...places.roots.filter((r) => inside(r, dir))]) found.push(...protectedChildren(d, places));
  return found.find((p) => p.level === "never") ?? found[0];
}

/** The protected entries directly in `dir`, and the transcripts and audit log in it or in an `.agent` there. */
function protectedChildren(dir: string, places: ProtectedPlaces): Inside[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const hits = names.filter((n) => FOLDERS.has(fold(n)) || fileWhy(fold(n), undefined));
  const state = (d: string) => [path.join(d, "sessions"), path.join(d, "audit.jsonl")];
  const paths = [...state(dir), ...hits.flatMap((n) => [path.join(dir, n), ...state(path.join(dir, n))])];
  return paths.filter((p) => linkOf(p) !== undefined).flatMap((p) => {
    const found = protectionOf(p, places);
    return found ? [{ ...found, at: p }] : [];
  });
}

/** How the gate sees one declared write. */
export interface WriteJudge {
  root: string;
  places: ProtectedPlaces;
  /** A path as rules see it (relative to the project root, or absolute). */
  display(abs: string): string;
}

/** The protected writes among a tool's declared ones (strings are paths relative to the project root). */
export function judgeWrites(list: readonly (string | DeclaredWrite)[] | undefined, judge: WriteJudge): ProtectedWrite[] {
  const out: ProtectedWrite[] = [];
  for (const item of list ?? []) {
    const w: DeclaredWrite = typeof item === "string" ? { path: item } : item;
    const hit = judgeWrite(w, judge);
    if (hit) out.push(hit);
  }
  return out;
}

function judgeWrite(w: DeclaredWrite, judge: WriteJudge): ProtectedWrite | undefined {
  const p = String(w.path);
  const cwd = w.cwd === undefined ? judge.root : path.isAbsolute(w.cwd) ? w.cwd : `${judge.root}/${w.cwd}`;
  const lexical = path.resolve(cwd, p);
  const subject = w.subject ?? judge.display(lexical);
  if (w.uncertain) return { ...UNKNOWN, path: p, subject };
  let candidates: string[];
  try {
    // Where it really leads first (named so in messages), then as spelt.
    candidates = [...new Set([realTarget(path.isAbsolute(p) ? p : `${cwd}/${p}`), realTarget(lexical), lexical])];
  } catch (err) {
    return { level: "ask", why: `where it leads cannot be told (${(err as Error).message})`, path: judge.display(lexical), subject };
  }
  const found = candidates.flatMap((c) => {
    const own = protectionOf(c, judge.places, w.changesAgentKey);
    const under = w.tree ? protectionUnder(c, judge.places) : undefined;
    const list: ProtectedWrite[] = own ? [{ ...own, path: judge.display(c), subject }] : [];
    return under ? [...list, { level: under.level, why: under.why, path: judge.display(under.at), subject }] : list;
  });
  return found.find((f) => f.level === "never") ?? found[0];
}

/**
 * Whether a new text of a `package.json` changes its `agent` key (the agent's config there) from the
 * current one (undefined: the file does not exist). Text that is not JSON counts as a change.
 */
export function changesAgentKey(before: string | undefined, after: string | undefined): boolean {
  const a = agentKey(before);
  const b = agentKey(after);
  return a === null || b === null || a !== b;
}

/** The `agent` key as JSON text (undefined when absent); null when the text is not JSON. */
function agentKey(text: string | undefined): string | undefined | null {
  if (text === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(text.replace(/^\uFEFF/, ""));
    if (!v || typeof v !== "object" || Array.isArray(v) || !Object.hasOwn(v, "agent")) return undefined;
    return JSON.stringify((v as { agent: unknown }).agent) ?? "undefined";
  } catch {
    return null;
  }
}
