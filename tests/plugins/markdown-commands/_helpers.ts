/**
 * Markdown-command tests run a real host: the built-in `tools`, `commands` and `markdown-commands`
 * plugins, in a temp project with its own user config folder, and HOME pointed at a temp folder so
 * the real `~/.claude/commands` never leaks in.
 */
import path from "node:path";
import { afterAll, afterEach, beforeEach } from "vitest";
import { builtinPlugins } from "../../../cli/builtins.js";
import { type AgentConfig, type AgentEvent, type Host } from "../../../core/index.js";
import { createHost } from "../../helpers/host.js";
import { type CreateHostOptions } from "../../../core/embed.js";
import { readAudit } from "../../helpers/host.js";
import { cleanupTemp, tempDir, tempProject, writeFile, type TempProject } from "../../helpers/project.js";

export interface MdHost {
  host: Host;
  project: TempProject;
  /** The temp HOME (`~/.claude/commands` lives under it). */
  home: string;
  events: AgentEvent[];
  logs: { level: string; msg: string }[];
  audit(): Record<string, any>[];
  /** Run `/line` as the user typed it. */
  run(line: string): ReturnType<Host["commands"]["run"]>;
}

const open: Host[] = [];
let home = "";
const realHome = process.env.HOME;

/** Call once per test file: a fresh HOME per test, everything closed and removed after. */
export function useMdHosts(): void {
  beforeEach(() => {
    home = tempDir("agent-home-");
    process.env.HOME = home;
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((h) => h.close()));
  });
  afterAll(() => {
    process.env.HOME = realHome;
    cleanupTemp();
  });
}

export interface MdHostOptions extends Omit<CreateHostOptions, "cwd" | "config"> {
  config?: AgentConfig;
  /** Files in the user config folder (`commands/x.md`). */
  userFiles?: Record<string, string>;
  /** Files under HOME (`.claude/commands/x.md`). */
  homeFiles?: Record<string, string>;
  /** Built-in plugins to load; default tools, commands and markdown-commands. */
  builtinNames?: string[];
}

export async function mdHost(files: Record<string, string | object>, options: MdHostOptions = {}): Promise<MdHost> {
  const { config, userFiles = {}, homeFiles = {}, builtinNames = ["tools", "commands", "markdown-commands"], ...rest } = options;
  const project = tempProject(files);
  for (const [rel, text] of Object.entries(userFiles)) writeFile(path.join(project.configHome, rel), text);
  for (const [rel, text] of Object.entries(homeFiles)) writeFile(path.join(home, rel), text);
  const logs: { level: string; msg: string }[] = [];
  const log = (level: string) => (msg: string) => logs.push({ level, msg });
  const host = await createHost({
    cwd: project.dir,
    userConfigDir: project.configHome,
    builtins: builtinPlugins.filter((b) => builtinNames.includes(b.name)),
    logger: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") },
    config,
    ...rest,
  });
  open.push(host);
  const events: AgentEvent[] = [];
  host.on((e) => events.push(e));
  return {
    host,
    project,
    home,
    events,
    logs,
    audit: () => readAudit(project.auditFile),
    run: (line) => host.commands.run(line, { asUser: true }),
  };
}

/** A command file: frontmatter fields (omitted when empty), then the body. */
export function md(body: string, frontmatter: Record<string, string> = {}): string {
  const fm = Object.entries(frontmatter).map(([k, v]) => `${k}: ${v}`);
  return fm.length ? `---\n${fm.join("\n")}\n---\n${body}\n` : `${body}\n`;
}
