/**
 * CLI dispatch: global flags, the subcommand table, error reporting and exit codes.
 * Exit codes: 0 success, 1 the tool/command/run failed, 2 usage or config error, 3 denied by permission.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { AgentError, ConfigError, ExitCode, errorMessage, type ErrorCode } from "../errors.js";
import type { PermissionMode } from "../types.js";
import type { CliContext } from "./context.js";

interface Subcommand {
  summary: string;
  load(): Promise<{ run(args: string[], ctx: CliContext): Promise<number> }>;
}

export const SUBCOMMANDS: Record<string, Subcommand> = {
  run: { summary: "run the agent on a prompt (headless): agent run -p \"...\"", load: () => import("./run.js") },
  tools: { summary: "list registered tools [--json]", load: () => import("./tools.js") },
  call: { summary: "call one tool through the gate: agent call <tool> [json-args] [--json]", load: () => import("./call.js") },
  plugins: { summary: "list plugins, loaded and failed [--json]", load: () => import("./plugins.js") },
  mcp: { summary: "manage MCP servers: list, get, add, remove", load: () => import("../../plugins/mcp/cli.js") },
  config: { summary: "show the resolved config and the files it came from [--json]", load: () => import("./config.js") },
  audit: { summary: "show the audit log [--tail N] [--json]", load: () => import("./audit.js") },
  doctor: { summary: "check config, plugins and tools; report problems", load: () => import("./doctor.js") },
};

const PERMISSION_MODES: PermissionMode[] = ["default", "plan", "acceptEdits", "bypass"];

export function helpText(): string {
  const width = Math.max(...Object.keys(SUBCOMMANDS).map((k) => k.length));
  const lines = Object.entries(SUBCOMMANDS).map(([name, s]) => `  ${name.padEnd(width)}  ${s.summary}`);
  return [
    "Usage: agent [command] [options]",
    "",
    "With no command in a terminal, starts an interactive session.",
    "",
    "Commands:",
    ...lines,
    "",
    "Global options:",
    "  --cwd <dir>                 project folder (default: current folder)",
    "  --permission-mode <mode>    default | plan | acceptEdits | bypass",
    "  --debug                     print stack traces and debug logs",
    "  -h, --help                  show help",
    "  -v, --version               show the version",
    "",
    "Exit codes: 0 success, 1 failure, 2 usage or config error, 3 denied by permission.",
  ].join("\n");
}

/** Split global flags (allowed anywhere) from the subcommand's own arguments. */
function extractGlobals(argv: string[]): { rest: string[]; cwd?: string; mode?: string; debug: boolean; help: boolean; version: boolean } {
  const rest: string[] = [];
  let cwd: string | undefined;
  let mode: string | undefined;
  let debug = false;
  let help = false;
  let version = false;
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
    if (flag === "--cwd") cwd = value();
    else if (flag === "--permission-mode") mode = value();
    else if (flag === "--debug") debug = true;
    else if (flag === "--help" || flag === "-h") help = true;
    else if ((flag === "--version" || flag === "-v") && rest.length === 0) version = true;
    else rest.push(a);
  }
  return { rest, cwd, mode, debug, help, version };
}

export async function main(argv: string[]): Promise<void> {
  let debug = argv.includes("--debug") || process.env.AGENT_DEBUG === "1";
  try {
    const g = extractGlobals(argv);
    debug ||= g.debug;
    if (debug) process.env.AGENT_DEBUG = "1";
    if (g.version) {
      const { version } = await import("./context.js");
      process.stdout.write(`${version()}\n`);
      return;
    }
    if (g.mode !== undefined && !PERMISSION_MODES.includes(g.mode as PermissionMode)) {
      throw new AgentError("E_USAGE", `--permission-mode must be one of ${PERMISSION_MODES.join(", ")}; got "${g.mode}"`);
    }
    const [name, ...args] = g.rest;
    const { createCliContext } = await import("./context.js");
    const ctx = createCliContext({ cwd: g.cwd, permissionMode: g.mode as PermissionMode | undefined, debug });
    if (!name) {
      if (g.help) {
        process.stdout.write(helpText() + "\n");
        return;
      }
      if (process.stdin.isTTY && process.stdout.isTTY) {
        const { runInteractive } = await import("./interactive.js");
        process.exitCode = await runInteractive(ctx);
        return;
      }
      process.stderr.write(`${helpText()}\n\nagent: no command given and no terminal for an interactive session. Use: agent run -p "..."\n`);
      process.exitCode = ExitCode.USAGE;
      return;
    }
    if (name === "help") {
      process.stdout.write(helpText() + "\n");
      return;
    }
    const sub = SUBCOMMANDS[name];
    if (!sub) {
      const what = name.startsWith("-") ? "option" : "command";
      throw new AgentError("E_USAGE", `unknown ${what} "${name}". Run agent --help for the list.`);
    }
    const mod = await sub.load();
    process.exitCode = await mod.run(g.help ? ["--help", ...args] : args, ctx);
  } catch (err) {
    process.exitCode = reportError(err, debug);
  }
}

/** Errors a person fixes in their command line or config: exit 2. */
const USAGE_CODES = new Set<ErrorCode>(["E_USAGE", "E_CONFIG", "E_NO_MODEL", "E_MODEL_NO_KEY", "E_MODEL_CONFIG"]);

/** Print an error for a person and return its exit code. No stack trace unless debugging. */
export function reportError(err: unknown, debug: boolean): number {
  if (err instanceof ConfigError) {
    process.stderr.write(`agent: ${err.message}\n`);
    return ExitCode.USAGE;
  }
  if (err instanceof AgentError) {
    process.stderr.write(`agent: ${err.message}\n`);
    if (debug && err.stack) process.stderr.write(`${err.stack}\n`);
    return USAGE_CODES.has(err.code) ? ExitCode.USAGE : err.code === "E_TOOL_DENIED" ? ExitCode.DENIED : ExitCode.FAILED;
  }
  if ((err as { code?: string })?.code?.startsWith?.("ERR_PARSE_ARGS")) {
    process.stderr.write(`agent: ${errorMessage(err)}\n`);
    return ExitCode.USAGE;
  }
  process.stderr.write(`agent: ${errorMessage(err)}\n`);
  if (debug && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  else process.stderr.write("(run with --debug for details)\n");
  return ExitCode.FAILED;
}

/** `parseArgs` with strict options; `--help` prints `usage` and returns undefined. */
export function parseSubArgs<T extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  options: T,
  usage: string,
  allowPositionals = true,
) {
  const parsed = parseArgs({ args, options: { ...options, help: { type: "boolean", short: "h" } }, allowPositionals, strict: true });
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${usage}\n`);
    return undefined;
  }
  return parsed;
}
