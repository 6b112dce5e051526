/**
 * The listing cache (issue 26, item 11): `agent tools` (`commands`, `plugins`) answered by the CommonJS bin
 * (dist/cli.cjs) from what the last identical run printed, before Node's ES module loader, zod, the kernel or
 * any plugin loads. This module is what the bin runs, so it uses Node's built-in modules only.
 *
 * An entry holds the exact stdout and exit code of a run and the state of every file and folder that run
 * could have read (`listingDeps`). Its name hashes what no file says: the CLI's build, the command line, the
 * folder, the whole environment, Node and its options, the user, what stdout is (a terminal or not). It answers
 * only when each of those paths stats as it did (device, inode, size, mtime, ctime, mode; or absent). A stale
 * listing is a defect, a miss only costs time: when in doubt, it misses. The ES module side (store.ts) writes
 * an entry after a run that exited 0, wrote nothing to stderr and read nothing a stat cannot vouch for.
 */
import { createHash } from "node:crypto";
import { fstatSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/** `AGENT_NO_LISTING_CACHE=1`: never answer from the cache, never write it. */
export const NO_LISTING_CACHE = "AGENT_NO_LISTING_CACHE";

/** Bumped when an entry's shape or meaning changes: older entries then miss. */
const FORMAT = 1;

/**
 * The commands answered from the cache, and the arguments that may follow them (one of each at most). Each
 * says after its run whether the output may be stored (store.ts `admitListing`); `agent skills` and `agent
 * agents` are plugins' commands, which cannot.
 */
const CACHED: Readonly<Record<string, readonly string[]>> = { tools: ["--json"], commands: ["--json"], plugins: ["--json"] };

/** The config loader's search places (kit/fs/config-file.ts CONFIG_SEARCH_PLACES: tests/cli/listing-cache keeps them equal; the bin cannot import kit). */
export const CONFIG_NAMES = ["agent.config.ts", "agent.config.mts", "agent.config.js", "agent.config.mjs", ".agentrc", ".agentrc.json", ".agentrc.yaml", ".agentrc.yml", "package.json"];

/** Read in each folder from the cwd up (the project root is one of them): config, Claude Code's settings, MCP servers, local settings. */
const FOLDER_FILES = [...CONFIG_NAMES, ".mcp.json", ".claude/settings.json", ".claude/settings.local.json", ".agent/settings.local.json"];
/**
 * Only whether they exist matters: `.git` marks the project root (git rewrites it all the time); `.agent/` and
 * `.claude/` are kept for caution, since what a listing reads in them is stat-ed above and below (a listing
 * writes no audit log, `.agent/` or not: cli/context.ts `keepsAudit`).
 */
const FOLDER_MARKERS = [".git", ".agent", ".claude"];
/** How deep each kind of folder is read: a skill's SKILL.md; agents 3 folders down (plugins/agents); commands at any depth (a folder deeper than this is not cached). */
const SKILLS = 1;
const AGENTS = 3;
const COMMANDS = 8;
/**
 * Folders whose files a listing reads, with how deep: skills (each skill's name is in the `skill` tool's
 * input schema), agents and Markdown commands (a broken file is reported on stderr; a command's
 * `allowed-tools` is a part of the folder's trust). Each entry is stat-ed, so an added, removed or edited file shows.
 */
const FOLDER_TREES: readonly [string, number][] = [
  [".agent/skills", SKILLS],
  [".agents/skills", SKILLS],
  [".claude/skills", SKILLS],
  [".agent/agents", AGENTS],
  [".claude/agents", AGENTS],
  [".agent/commands", COMMANDS],
  [".claude/commands", COMMANDS],
];
/** cosmiconfig's own configuration, looked for in the cwd when it loads a config file. */
const COSMICONFIG_META = ["package.yaml", ...["json", "yaml", "yml", "js", "ts", "cjs", "mjs"].map((e) => `.config/config.${e}`)];
/** More paths than this under those folders: not cached (the stats would cost more than they save). */
const MAX_TREE_PATHS = 500;

/** A path and its state: `-` absent; `x:d`/`x:f` present (only existence counts); else type, dev, ino, size, mtime, ctime, mode. */
export type Dep = [path: string, sig: string];

export interface PendingListing {
  /** The identity hash (the entry's name is its start). */
  key: string;
  file: string;
  /** The paths' states before the command ran (store.ts stats them again after: a change in between is not cached). */
  deps: Dep[];
  /** When the bin started (ms since the epoch): a path changed after it is not trusted to have been seen. */
  t0: number;
  binDir: string;
}

export type Lookup = { hit: { stdout: Buffer; code: number; file: string } } | { pending: PendingListing } | undefined;

export function cacheableArgs(argv: readonly string[]): boolean {
  const [name, ...rest] = argv;
  if (name === undefined || !Object.hasOwn(CACHED, name) || rest.length > CACHED[name].length) return false;
  return rest.every((a, i) => CACHED[name].includes(a) && rest.indexOf(a) === i);
}

/** Where entries live: the user's cache folder, never the project (a listing leaves no `.agent/` behind). */
export function listingCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CACHE_HOME || path.join(homedir(), ".cache"), "agent-host", "listings");
}

/** The user config folder, as kit's defaultUserConfigDir finds it (a test keeps them equal). */
export function userConfigDirOf(env: NodeJS.ProcessEnv): string {
  return env.AGENT_CONFIG_HOME || path.join(env.XDG_CONFIG_HOME || path.join(homedir(), ".config"), "agent");
}

/** Claude Code's managed settings, as plugins/claude-settings finds them. */
function managedSettings(env: NodeJS.ProcessEnv): string | undefined {
  if (env.AGENT_CLAUDE_MANAGED_SETTINGS) return env.AGENT_CLAUDE_MANAGED_SETTINGS;
  if (process.platform === "darwin") return "/Library/Application Support/ClaudeCode/managed-settings.json";
  return process.platform === "linux" ? "/etc/claude-code/managed-settings.json" : undefined;
}

/** A path's state: see `Dep`. `existence`: whether it is there, and a file or a folder. */
export function statSig(file: string, existence = false): string {
  let st;
  try {
    st = statSync(file, { throwIfNoEntry: false });
  } catch {
    return "?"; // unreadable (EACCES, ELOOP): never equal to what a later stat says, so never a hit
  }
  if (!st) return "-";
  const type = st.isDirectory() ? "d" : st.isFile() ? "f" : "o";
  return existence ? `x:${type}` : `${type}:${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.mode}`;
}

/** The state the stored sig was taken in, again. */
function sameSig([file, sig]: Dep): boolean {
  return sig !== "?" && statSig(file, sig.startsWith("x:")) === sig;
}

/**
 * Every path `agent tools` may read for its answer, from the cwd and the environment: each folder from the
 * cwd to the filesystem root (the config search, project markers, Claude Code's and local settings, skills,
 * agents, commands), the user's config folder (config, folder trust, installed plugins, skills, agents,
 * commands), Claude Code's user and managed settings and its user folders, the skills bundled with this CLI,
 * and the shell the `run_command` tool names. Undefined: too many to stat.
 */
export function listingDeps(cwd: string, binDir: string, env: NodeJS.ProcessEnv = process.env): Dep[] | undefined {
  const deps = new Map<string, string>();
  const add = (file: string, existence = false) => void (deps.has(file) || deps.set(file, statSig(file, existence)));
  let budget = MAX_TREE_PATHS;
  /** The folder and everything under it down to `depth` levels; false when there is too much (or deeper). */
  const tree = (dir: string, depth: number, strict = depth === COMMANDS): boolean => {
    add(dir);
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return true; // absent or not a folder (its sig says which), or unreadable (its sig changes when that does)
    }
    if ((budget -= entries.length) < 0) return false;
    for (const e of entries.sort()) {
      const full = path.join(dir, e);
      add(full);
      if (!deps.get(full)?.startsWith("d:")) continue;
      if (depth > 0 ? !tree(full, depth - 1, strict) : strict) return false;
    }
    return true;
  };
  const home = homedir();
  const userDir = userConfigDirOf(env);
  for (const name of COSMICONFIG_META) add(path.join(cwd, name));
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    for (const name of FOLDER_FILES) add(path.join(dir, name));
    for (const name of FOLDER_MARKERS) add(path.join(dir, name), true);
    for (const [rel, depth] of FOLDER_TREES) if (!tree(path.join(dir, rel), depth)) return undefined;
    if (path.dirname(dir) === dir) break;
  }
  for (const name of ["config.json", "config.yaml", "config.yml", "trusted-folders.json", "plugins", "plugins/lock.json"]) add(path.join(userDir, name));
  add(path.join(env.CLAUDE_CONFIG_DIR || path.join(home, ".claude"), "settings.json"));
  const managed = managedSettings(env);
  if (managed) add(managed);
  add("/bin/bash", true);
  const userTrees: [string, number][] = [
    [path.join(userDir, "skills"), SKILLS],
    [path.join(userDir, "agents"), AGENTS],
    [path.join(userDir, "commands"), COMMANDS],
    [path.join(home, ".agents", "skills"), SKILLS],
    [path.join(home, ".claude", "skills"), SKILLS],
    [path.join(home, ".claude", "agents"), AGENTS],
    [path.join(home, ".claude", "commands"), COMMANDS],
    [path.join(binDir, "..", "skills"), SKILLS],
  ];
  for (const [dir, depth] of userTrees) if (!tree(dir, depth)) return undefined;
  return [...deps];
}

/**
 * What stdout is: a listing is escaped for a terminal and written as it is elsewhere. A character device is
 * named by its device number (a terminal's is a terminal's), which costs a stat; node:tty costs more.
 */
function stdoutKind(): string {
  const st = fstatSync(1);
  return st.isCharacterDevice() ? `c:${st.rdev}` : st.isFIFO() ? "p" : st.isSocket() ? "s" : st.isFile() ? "f" : "o";
}

/** What no stat says: the CLI build, the command line, the folder, the environment (whole), Node, the user, what stdout is. */
function identity(argv: readonly string[], binDir: string, version: string, cwd: string): string {
  const env = Object.keys(process.env)
    .sort()
    .map((k) => [k, process.env[k]]);
  const what = { format: FORMAT, binDir, version, cli: statSig(path.join(binDir, "cli.js")), argv, cwd, env, node: process.execPath, nodeVersion: process.version, execArgv: process.execArgv, uid: process.getuid?.(), stdout: stdoutKind() };
  return createHash("sha256").update(JSON.stringify(what)).digest("hex");
}

interface Entry {
  format: number;
  key: string;
  deps: Dep[];
  code: number;
  stdout: string;
}

function readEntry(file: string, key: string): Entry | undefined {
  try {
    const e = JSON.parse(readFileSync(file, "utf8")) as Partial<Entry>;
    if (e.format !== FORMAT || e.key !== key || !Array.isArray(e.deps) || typeof e.code !== "number" || typeof e.stdout !== "string") return undefined;
    return e.deps.every((d) => Array.isArray(d) && typeof d[0] === "string" && typeof d[1] === "string") ? (e as Entry) : undefined;
  } catch {
    return undefined; // absent, unreadable, corrupt: a miss
  }
}

/** The entry for this exact listing, if every path it depends on is as it was; else what the run must store; undefined: not cached. */
export function lookupListing(argv: readonly string[], binDir: string, version: string): Lookup {
  if (!cacheableArgs(argv) || process.env[NO_LISTING_CACHE] === "1") return undefined;
  try {
    const t0 = Date.now();
    const cwd = realpathSync(process.cwd());
    const key = identity(argv, binDir, version, cwd);
    const file = path.join(listingCacheDir(), `${key.slice(0, 40)}.json`);
    const entry = readEntry(file, key);
    if (entry && entry.deps.every(sameSig)) return { hit: { stdout: Buffer.from(entry.stdout, "base64"), code: entry.code, file } };
    const deps = listingDeps(cwd, binDir);
    return deps ? { pending: { key, file, deps, t0, binDir } } : undefined;
  } catch {
    return undefined; // no cwd, no home: run as if there were no cache
  }
}

export function entryText(p: PendingListing, deps: Dep[], code: number, stdout: Buffer): string {
  const entry: Entry = { format: FORMAT, key: p.key, deps, code, stdout: stdout.toString("base64") };
  return JSON.stringify(entry);
}
