/**
 * The agent's config files as files: where a project's is found (`CONFIG_SEARCH_PLACES`, from the cwd
 * up to the project root), the user's in their config folder, and how one is loaded, whatever its format (code through jiti, JSON with a BOM
 * accepted, `.agentrc` as JSON or YAML, through cosmiconfig), with an error that says where. What the
 * value means (the schema, the merge, what a folder's trust admits) is the kernel's (core/config/).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parseJson } from "../text/json.js";
import { ConfigError, errorMessage } from "../errors.js";
import { agentHostFor, selfAliases } from "../self-package.js";

export const CONFIG_SEARCH_PLACES = [
  "agent.config.ts",
  "agent.config.mts",
  "agent.config.js",
  "agent.config.mjs",
  ".agentrc",
  ".agentrc.json",
  ".agentrc.yaml",
  ".agentrc.yml",
  "package.json",
];

/** The nearest folder from `cwd` up with `.git` or `package.json`: the project root when no config file says otherwise. */
export function findProjectMarkerDir(cwd: string): string | undefined {
  let dir = cwd;
  for (;;) {
    if (existsSync(path.join(dir, ".git")) || existsSync(path.join(dir, "package.json"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Search one folder for a project config file; `package.json` counts only when it has an `agent` key. */
function findConfigIn(dir: string): string | undefined {
  for (const name of CONFIG_SEARCH_PLACES) {
    const file = path.join(dir, name);
    if (!existsSync(file)) continue;
    try {
      if (!statSync(file).isFile()) continue;
    } catch {
      continue;
    }
    if (name === "package.json") {
      try {
        const pkg = JSON.parse(readFileSync(file, "utf8").replace(/^\uFEFF/, "")) as Record<string, unknown>;
        if (pkg && typeof pkg === "object" && "agent" in pkg) return file;
      } catch {
        // Broken JSON: loading it says what is wrong, with the line and column.
        return file;
      }
      continue;
    }
    return file;
  }
  return undefined;
}

/**
 * Where the project's config lives, without reading it: the config file found from `cwd` up to the
 * project root (the nearest folder with .git or package.json), and that root. For tools that edit it.
 */
export function locateProjectConfig(cwd: string): { projectRoot: string; configFile: string | undefined } {
  const start = path.resolve(cwd);
  const stopDir = findProjectMarkerDir(start) ?? start;
  for (let dir = start; ; dir = path.dirname(dir)) {
    const file = findConfigIn(dir);
    if (file) return { projectRoot: path.dirname(file), configFile: file };
    if (dir === stopDir || path.dirname(dir) === dir) return { projectRoot: stopDir, configFile: undefined };
  }
}

async function tsLoader(filepath: string): Promise<unknown> {
  const { createJiti } = await import("jiti");
  // With no agent-host of its own, the project's config imports the running CLI's (a global `agent`).
  const alias = agentHostFor(filepath).source === "cli" ? selfAliases() : undefined;
  const jiti = createJiti(import.meta.url, { moduleCache: false, fsCache: false, interopDefault: true, alias });
  return jiti.import(filepath, { default: true });
}

/** JSON with a BOM accepted and errors that say line and column. */
const jsonLoader = (_file: string, content: string) => parseJson(content);

/** `.agentrc`: JSON when it looks like JSON (so its errors say where), YAML otherwise. */
async function noExtLoader(file: string, content: string): Promise<unknown> {
  const text = content.replace(/^\uFEFF/, "");
  if (/^\s*[{[]/.test(text)) return parseJson(text);
  const { defaultLoaders } = await import("cosmiconfig");
  return defaultLoaders.noExt(file, text);
}

async function loadFile(filepath: string): Promise<unknown> {
  const { cosmiconfig } = await import("cosmiconfig");
  const explorer = cosmiconfig("agent", {
    searchPlaces: [],
    loaders: { ".ts": tsLoader, ".mts": tsLoader, ".js": tsLoader, ".mjs": tsLoader, ".cjs": tsLoader, ".json": jsonLoader, noExt: noExtLoader },
    cache: false,
  });
  const result = await explorer.load(filepath);
  return result?.config ?? {};
}

/** One config file's value as its format gives it (a code file runs); a file that cannot be loaded is a `ConfigError` saying where. */
export async function loadConfigFile(file: string): Promise<unknown> {
  try {
    return await loadFile(file);
  } catch (err) {
    throw new ConfigError(file, [{ path: "", message: `could not be loaded: ${loadErrorMessage(errorMessage(err), file)}` }]);
  }
}

/**
 * The useful part of a loader's error: cosmiconfig prefixes `JSON Error in <file>:` and appends code
 * frames, jiti puts `<file>:line:col` on a line of its own. Keep the message and say where.
 */
export function loadErrorMessage(message: string, file: string): string {
  const raw = message.split("\n");
  const lines = raw.map((l) => l.trim());
  let where = "";
  const kept: string[] = [];
  for (const [i, l] of lines.entries()) {
    // A code frame (`> 4 | ...` then `  |    ^`) marks the line and column.
    const frame = /^>\s*(\d+)\s*\|/.exec(l);
    if (frame && !where) {
      const caret = /^\s*\|(\s*)\^/.exec(raw[i + 1] ?? "");
      where = ` (line ${frame[1]}${caret ? `, column ${caret[1].length}` : ""})`;
    }
    if (!l || /^(JSON|YAML) Error in /.test(l) || /^(>\s*)?\d+\s*\|/.test(l) || /^\|/.test(l) || /^-*\^$/.test(l)) continue;
    const loc = l.startsWith(file) ? /:(\d+):(\d+)$/.exec(l) : null;
    if (loc) {
      where ||= ` (line ${loc[1]}, column ${loc[2]})`;
      continue;
    }
    kept.push(l);
  }
  let text = (kept[0] ?? firstLine(message)).replace(/ while parsing '.*'\s*$/, "").trim();
  // JSON.parse says "at position N": give the line and column instead.
  const pos = /at position (\d+)/.exec(text);
  if (pos && !where) {
    try {
      const before = readFileSync(file, "utf8").slice(0, Number(pos[1]));
      const line = before.split("\n").length;
      where = ` (line ${line}, column ${Number(pos[1]) - before.lastIndexOf("\n")})`;
    } catch {
      /* keep the position */
    }
  }
  return `${text}${where}`;
}

function firstLine(s: string): string {
  return s.split("\n").find((l) => l.trim()) ?? s;
}

/** The user's config file in their config folder: the first of `config.json`, `config.yaml`, `config.yml` that exists. */
export function findUserConfigFile(dir: string): string | undefined {
  return ["config.json", "config.yaml", "config.yml"].map((name) => path.join(dir, name)).find((file) => existsSync(file));
}

/** A config file that runs as code when it is loaded (`agent.config.ts`, `.mjs` …). */
export function isCodeConfigFile(file: string): boolean {
  return /\.(?:[cm]?js|[cm]?ts)$/.test(file);
}

/** `file` when it is a regular file (what a config folder's optional file must be to be read), else undefined. */
export function regularFile(file: string): string | undefined {
  try {
    return statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}
