/**
 * Where Markdown commands live, highest precedence first: the project (`.agent/commands`, then
 * `.claude/commands`), then the user (`<config home>/commands`, then `~/.claude/commands`). The project
 * wins as project config wins over user config: its commands are versioned with its code. A file's
 * name is its path under the folder without `.md`, with `/` as `:` (`git/commit.md` is `/git:commit`).
 */
import { readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import type { Dialect } from "./arguments.js";
import { parseCommandFile, type CommandFile } from "./frontmatter.js";

export interface CommandRoot {
  dir: string;
  /** `plugin`: a plugin's `commandDirs` (installed by the user, so not the folder's to trust). */
  scope: "project" | "user" | "plugin";
  dialect: Dialect;
  /** Shown as the command's source, e.g. `project:.claude/commands`. */
  label: string;
  /** Put before every name with a `:` (a plugin's name: `/plugin:command`, as Claude Code shows them). */
  prefix?: string;
  /** `${NAME}` placeholders replaced in the body (a plugin's `${CLAUDE_PLUGIN_ROOT}`). */
  vars?: Record<string, string>;
}

export interface FoundCommand {
  name: string;
  /** The Markdown file. */
  file: string;
  root: CommandRoot;
  parsed: CommandFile;
}

export interface Discovery {
  commands: FoundCommand[];
  /** Files skipped: unreadable, invalid frontmatter, a name commands cannot have. */
  problems: { path: string; message: string }[];
  /** Same name twice: the first found is used. */
  shadowed: { name: string; winner: FoundCommand; loser: FoundCommand }[];
}

/** The registry's rule for command names. */
const NAME_RE = /^[a-zA-Z0-9_:.-]{1,64}$/;

export function commandRoots(o: { projectRoot: string; userConfigDir: string | undefined; home: string }): CommandRoot[] {
  const roots: CommandRoot[] = [
    { dir: path.join(o.projectRoot, ".agent", "commands"), scope: "project", dialect: "agent", label: "project:.agent/commands" },
    { dir: path.join(o.projectRoot, ".claude", "commands"), scope: "project", dialect: "claude", label: "project:.claude/commands" },
  ];
  if (o.userConfigDir) roots.push({ dir: path.join(o.userConfigDir, "commands"), scope: "user", dialect: "agent", label: "user:config" });
  roots.push({ dir: path.join(o.home, ".claude", "commands"), scope: "user", dialect: "claude", label: "user:~/.claude/commands" });
  return roots;
}

/** The commands folders plugins ship (`commandDirs`), after the project's and the user's. */
export function pluginCommandRoots(plugins: readonly { name: string; status: string; dir?: string; commandDirs?: readonly string[] }[]): CommandRoot[] {
  return plugins.flatMap((p) =>
    p.status !== "loaded"
      ? []
      : (p.commandDirs ?? []).map((dir): CommandRoot => ({
          dir,
          scope: "plugin",
          dialect: "claude",
          label: `plugin:${p.name}`,
          prefix: p.name,
          ...(p.dir ? { vars: { CLAUDE_PLUGIN_ROOT: p.dir, PLUGIN_ROOT: p.dir } } : {}),
        })),
  );
}

async function realDir(dir: string): Promise<string | undefined> {
  try {
    return (await stat(dir)).isDirectory() ? await realpath(dir) : undefined;
  } catch {
    return undefined;
  }
}

/** Read and check one file; a string is the reason it is skipped. */
export async function loadCommand(file: string, name: string, root: CommandRoot): Promise<FoundCommand | string> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    return `could not be read: ${(err as Error).message}`;
  }
  const parsed = await parseCommandFile(text, `Markdown command ${path.basename(file)}`);
  return parsed.ok ? { name, file, root, parsed: parsed.file } : parsed.error;
}

export async function discoverCommands(roots: CommandRoot[]): Promise<Discovery> {
  const out: Discovery = { commands: [], problems: [], shadowed: [] };
  const byName = new Map<string, FoundCommand>();
  const seen = new Set<string>();
  for (const root of roots) {
    const real = await realDir(root.dir);
    if (!real || seen.has(real)) continue; // the same folder reached twice (the home folder as project) counts once
    seen.add(real);
    // Loaded only when a commands folder exists.
    const { glob } = await import("tinyglobby");
    const files = (await glob("**/*.md", { cwd: root.dir, onlyFiles: true, followSymbolicLinks: true })).sort();
    for (const rel of files) {
      const file = path.join(root.dir, rel);
      const name = [root.prefix, ...rel.slice(0, -".md".length).split(/[\\/]/)].filter(Boolean).join(":");
      if (!NAME_RE.test(name)) {
        out.problems.push({ path: file, message: `"${name}" is not a valid command name (letters, digits, _ - . : only, at most 64 characters)` });
        continue;
      }
      const found = await loadCommand(file, name, root);
      if (typeof found === "string") {
        out.problems.push({ path: file, message: found });
        continue;
      }
      const winner = byName.get(name);
      if (winner) {
        out.shadowed.push({ name, winner, loser: found });
        continue;
      }
      byName.set(name, found);
      out.commands.push(found);
    }
  }
  return out;
}
