/**
 * CLI dispatch: global flags, the first word, its owner (a built-in command or a plugin's), error
 * reporting and exit codes. Exit codes: 0 success, 1 the tool/command/run failed, 2 usage or config
 * error, 3 denied by permission, 129/130/143 interrupted (SIGHUP/SIGINT/SIGTERM).
 */
import { AgentError, ConfigError, ExitCode, errorMessage, type CliCommand, type ErrorCode } from "../core/index.js";
import { pluginPreparedView, pluginView } from "../core/embed.js";
import { closestNames } from "../kit/index.js";
import { findCommand, GLOBAL_FLAGS, helpFor, runCliCommand, type BaseContext } from "./args.js";
import { addDir, cliPermissionMode, pluginDir, RULE_FLAGS, takeRules, type RunFlags } from "./flags.js";
import { topLevel } from "./top-level.js";
import { CORE_COMMANDS } from "./commands/index.js";
import { createAppContext, type AppContext } from "./context.js";
import { watchStrayErrors } from "./stray-errors.js";
import { printableFor } from "./render/_style.js";
import { redactString } from "../kit/index.js";

const GLOBAL_HELP = [
  "Global options:",
  "  --cwd <dir>                 project folder (default: current folder)",
  "  --permission-mode <mode>    default | plan | acceptEdits | bypass (Claude Code's bypassPermissions and dontAsk too)",
  "  --dangerously-skip-permissions  the same as --permission-mode bypass (every call still audited)",
  "  --allowedTools <rules>      allow these for this run: Read \"Bash(git log:*)\" (repeatable; commas or spaces)",
  "  --disallowedTools <rules>   deny these for this run, whatever else allows them",
  "  --add-dir <dir>             another folder the tools may use in this run (repeatable)",
  "  --plugin-dir <dir>          load this plugin folder for this run (Claude Code plugin or Agent Plugins package; repeatable)",
  "  --append-system-prompt <t>  add this to the end of the system prompt (agent -p, agent run, a session)",
  "  --debug                     print stack traces and debug logs",
  "  -h, --help                  show help",
  "  -v, --version               show the version",
  "",
  "Exit codes: 0 success, 1 failure, 2 usage or config error, 3 denied by permission, 129/130/143 interrupted (SIGHUP/SIGINT/SIGTERM).",
].join("\n");

function rootHelp(plugins: { plugin: string; command: CliCommand<any> }[], note?: string): string {
  const all = [...CORE_COMMANDS.map((c) => ({ name: c.name, description: c.description })), ...plugins.map((p) => ({ name: p.command.name, description: `${p.command.description} (plugin ${p.plugin})` }))];
  const width = Math.max(...all.map((c) => c.name.length));
  return [
    "Usage: agent [command] [options]",
    '       agent -p "<prompt>" [run options]    (the same as agent run -p)',
    '       agent ["<prompt>"] [--model <m>] [--system-prompt <text>] [-c | --resume <id>]     (a session)',
    "",
    "With no command in a terminal, starts an interactive session (with a first prompt, if given).",
    "",
    "Commands:",
    ...all.map((c) => `  ${c.name.padEnd(width)}  ${c.description}`),
    ...(note ? ["", note] : []),
    "",
    GLOBAL_HELP,
  ].join("\n");
}

/** Split global flags (allowed anywhere before `--`) from the command's own arguments. */
function extractGlobals(argv: string[]): { rest: string[]; cwd?: string; mode?: string; debug: boolean; help: boolean; version: boolean; flags: RunFlags } {
  const rest: string[] = [];
  const g = { cwd: undefined as string | undefined, mode: undefined as string | undefined, debug: false, help: false, version: false, flags: { allow: [], deny: [], addDirs: [] } as RunFlags };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    const [flag, inline] = a.startsWith("--") && a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      const v = argv[++i];
      if (v === undefined) throw new AgentError("E_USAGE", `${flag} needs a value`);
      return v;
    };
    if (flag === "--cwd") g.cwd = value();
    else if (flag === "--permission-mode") g.mode = value();
    else if (flag === "--dangerously-skip-permissions") g.mode = "bypass";
    else if (flag === "--debug") g.debug = true;
    else if (Object.hasOwn(RULE_FLAGS, flag)) i = takeRules(argv, i, flag, inline, g.flags);
    else if (flag === "--add-dir") addDir(value(), g.flags);
    else if (flag === "--plugin-dir") pluginDir(value(), g.flags);
    else if (flag === "--append-system-prompt") g.flags.appendSystemPrompt = [g.flags.appendSystemPrompt, value()].filter(Boolean).join("\n\n");
    else if (flag === "--help" || flag === "-h") g.help = true;
    else if ((flag === "--version" || flag === "-v") && rest.length === 0) g.version = true;
    else rest.push(a);
  }
  return { rest, ...g };
}

/** Plugin commands, the built-in names (then the first plugin) winning a clash; a clash is reported once. */
async function pluginCommands(ctx: AppContext): Promise<{ plugin: string; command: CliCommand<any> }[]> {
  const prepared = await ctx.prepare();
  const owner = new Map<string, string>(CORE_COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])].map((n) => [n, "a built-in command"] as const)));
  const out: { plugin: string; command: CliCommand<any> }[] = [];
  for (const entry of prepared.cliCommands) {
    const name = entry.command?.name;
    if (typeof name !== "string" || !/^[a-z][a-z0-9-]*$/.test(name) || typeof entry.command.description !== "string") {
      warnOnce(`agent: plugin ${entry.plugin} declares a CLI command without a valid name and description; it was ignored.`);
      continue;
    }
    const taken = owner.get(name);
    // A plugin may add subcommands to another plugin's command (`agent mcp serve` beside `agent mcp list`):
    // a declaration with subcommands and no `run` of its own is merged into the first, its clashing words ignored.
    const first = taken && taken !== "a built-in command" ? out.findIndex((o) => o.command.name === name) : -1;
    if (first >= 0 && entry.command.subcommands?.length && !entry.command.run) {
      out[first] = { ...out[first], command: mergeSubcommands(out[first].command, entry, warnOnce) };
      continue;
    }
    if (taken) {
      warnOnce(`agent: plugin ${entry.plugin}'s command "${name}" was ignored: ${taken === "a built-in command" ? taken : `plugin ${taken}`} has that name.`);
      continue;
    }
    owner.set(name, entry.plugin);
    out.push(entry);
  }
  return out;
}

/** `into` with the subcommands of `from` it does not have already (a clash is reported and the first kept). */
function mergeSubcommands(into: CliCommand<any>, from: { plugin: string; command: CliCommand<any> }, warn: (line: string) => void): CliCommand<any> {
  const subs = [...(into.subcommands ?? [])];
  for (const sub of from.command.subcommands ?? []) {
    if (findCommand(subs, sub.name)) warn(`agent: plugin ${from.plugin}'s command "${into.name} ${sub.name}" was ignored: "${into.name}" already has it.`);
    else subs.push(sub);
  }
  return { ...into, subcommands: subs };
}

const warned = new Set<string>();
function warnOnce(line: string): void {
  if (warned.has(line)) return;
  warned.add(line);
  process.stderr.write(`${printableFor(process.stderr, line)}\n`);
}

export async function main(argv: string[]): Promise<number> {
  let debug = argv.includes("--debug") || process.env.AGENT_DEBUG === "1";
  let ctx: AppContext | undefined;
  // Installed for the rest of the process: a late rejection must not crash the exit either.
  watchStrayErrors(() => ctx?.preparedSoFar?.plugins ?? [], () => debug);
  try {
    const g = extractGlobals(argv);
    debug ||= g.debug;
    if (debug) process.env.AGENT_DEBUG = "1";
    if (g.version) {
      process.stdout.write(`${(await import("./context.js")).version()}\n`);
      return ExitCode.OK;
    }
    const mode = g.mode === undefined ? undefined : cliPermissionMode(g.mode);
    ctx = createAppContext({ cwd: g.cwd, permissionMode: mode?.mode, neverAsk: mode?.neverAsk, debug, flags: g.flags });
    // `agent help <command> [sub]` is `agent <command> [sub] --help` (as npm and git have it).
    if (g.rest[0] === "help" && g.rest.length > 1) {
      g.rest.shift();
      g.help = true;
    }
    bareResume(g.rest);
    const [name, ...args] = g.rest;
    // These say in full what of the folder is trusted; the one-line notice would only repeat it.
    if (name === "trust" || name === "untrust" || name === "doctor") ctx.quietTrust();
    if (!name || name === "help") {
      if (name === "help" || g.help) {
        // Plugins' command descriptions are theirs: shown, not obeyed.
        process.stdout.write(`${printableFor(process.stdout, await rootHelpText(ctx))}\n`);
        return ExitCode.OK;
      }
      if (process.stdin.isTTY && process.stdout.isTTY) {
        const { runInteractive } = await import("./interactive.js");
        return await runInteractive(ctx);
      }
      process.stderr.write(`${printableFor(process.stderr, await rootHelpText(ctx))}\n\nagent: no command given and no terminal for an interactive session. Use: agent -p "..."\n`);
      return ExitCode.USAGE;
    }
    // `agent -p "..."` is `agent run -p "..."`; `agent --model sonnet` or `agent "a prompt"` is a session.
    const top = topLevel(g.rest, (n) => !!findCommand(CORE_COMMANDS, n));
    let command = top?.command ?? findCommand(CORE_COMMANDS, name);
    let base: BaseContext = ctx;
    if (!command && !name.startsWith("-")) {
      command = findCommand((await pluginCommands(ctx)).map((p) => p.command), name);
      // A plugin's command gets the host as plugins see it, whatever it asks for.
      const app = ctx;
      base = { ...ctx, prepare: async () => pluginPreparedView(await app.prepare()), openHost: async (options) => pluginView(await app.openHost(options)) };
    }
    if (!command) {
      const what = name.startsWith("-") ? "option" : "command";
      const known = name.startsWith("-") ? GLOBAL_FLAGS : [...CORE_COMMANDS.map((c) => c.name), ...(await pluginCommands(ctx).catch(() => [])).map((p) => p.command.name)];
      const near = closestNames(name, known);
      throw new AgentError("E_USAGE", `unknown ${what} "${name}".${near.length ? ` Did you mean "${near[0]}"?` : ""} Run agent --help for the list.`);
    }
    try {
      const own = top?.argv ?? args;
      const code = await runCliCommand(command, g.help ? withHelp(own) : own, top?.path ?? [command.name], base);
      // Interrupted (SIGINT, SIGTERM, SIGHUP): the exit code says so (130, 143, 129), however the command then ended.
      const interrupted = ctx.interrupted.aborted ? (ctx.interrupted.reason as { exitCode?: number } | undefined)?.exitCode : undefined;
      return interrupted ?? code;
    } finally {
      await Promise.all([ctx.opened?.close(), ctx.closeSessionHosts()]);
    }
  } catch (err) {
    return reportError(err, debug);
  }
}

/** `--resume` (or `-r`) with no id after it, as Claude Code allows: `--resume=` (empty), meaning "let me pick". */
function bareResume(rest: string[]): void {
  const end = rest.includes("--") ? rest.indexOf("--") : rest.length;
  for (let i = 0; i < end; i++) {
    if ((rest[i] === "--resume" || rest[i] === "-r") && (i + 1 >= end || rest[i + 1].startsWith("-"))) rest[i] = "--resume=";
  }
}

/** `--help` after the command words and before any `--` (what follows `--` belongs to another program). */
function withHelp(args: string[]): string[] {
  const dashes = args.indexOf("--");
  return dashes < 0 ? [...args, "--help"] : [...args.slice(0, dashes), "--help", ...args.slice(dashes)];
}

async function rootHelpText(ctx: AppContext): Promise<string> {
  try {
    return rootHelp(await pluginCommands(ctx));
  } catch (err) {
    return rootHelp([], `(Commands of plugins are not listed: ${errorMessage(err).split("\n")[0]})`);
  }
}

/** Errors a person fixes in their command line or config: exit 2. */
const USAGE_CODES = new Set<ErrorCode>(["E_USAGE", "E_CONFIG", "E_NO_MODEL", "E_MODEL_NO_KEY", "E_MODEL_CONFIG", "E_COMMAND_NOT_FOUND"]);

/**
 * Print an error for a person and return its exit code. No stack trace unless debugging. The message
 * may quote a server, a plugin or a config file: redacted as the audit log is, and on a terminal its
 * control characters are shown, not obeyed.
 */
export function reportError(err: unknown, debug: boolean): number {
  const say = (text: string) => process.stderr.write(`${printableFor(process.stderr, redactString(text))}\n`);
  if (err instanceof ConfigError) {
    say(`agent: ${err.message}`);
    return ExitCode.USAGE;
  }
  if (err instanceof AgentError) {
    say(`agent: ${err.message}`);
    if (debug && err.stack) say(err.stack);
    return USAGE_CODES.has(err.code) ? ExitCode.USAGE : err.code === "E_TOOL_DENIED" ? ExitCode.DENIED : ExitCode.FAILED;
  }
  say(`agent: ${errorMessage(err)}`);
  if (debug && err instanceof Error && err.stack) say(err.stack);
  else process.stderr.write("(run with --debug for details)\n");
  return ExitCode.FAILED;
}

export { helpFor };
