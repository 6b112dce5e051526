/**
 * CLI subcommands a plugin contributes (`agent <name> …`), typed. The `agent` entry parses only the
 * first word, finds the command's owner, parses the rest with the command's declared options and hands
 * it a `CliContext`. Built-in commands (`agent run`, `agent tools`, …) are declared the same way.
 */
import type { OpenHostOptions, PluginHost, PreparedHost } from "./host-types.js";
import type { PermissionMode } from "./types.js";

/** One option of a command, as `node:util` `parseArgs` takes it, plus help text. */
export interface CliOption {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  /** One line for the generated help. */
  description?: string;
  /** Shown after the flag in the help, e.g. `<file>`. */
  valueName?: string;
}

/** The parsed values of a command's options. */
export type CliValues<O extends Record<string, CliOption>> = {
  [K in keyof O]?: O[K]["type"] extends "boolean"
    ? O[K]["multiple"] extends true
      ? boolean[]
      : boolean
    : O[K]["multiple"] extends true
      ? string[]
      : string;
};

export interface CliCommand<O extends Record<string, CliOption> = Record<string, CliOption>> {
  /** The word after `agent` (or after the parent command): letters, digits and `-`. */
  name: string;
  /** One line for `agent --help`. */
  description: string;
  /** Other words that run it (e.g. `ls` for `list`). */
  aliases?: string[];
  /** Shown by `--help` after `Usage: agent <name>`, e.g. `<server> [--json]`. */
  usage?: string;
  /** More help text, printed after the options. */
  details?: string;
  options?: O;
  /** Whether positional arguments are accepted (default true). */
  positionals?: boolean;
  /** Arguments after the first `--` are passed on untouched in `ctx.rest` (e.g. a server's command line). */
  passThrough?: boolean;
  /** `agent <name> <sub> …`: the first positional picks one; with no positional, `run` (if any) runs. */
  subcommands?: CliCommand<any>[];
  run?(ctx: CliContext<CliValues<O>>): Promise<number | void> | number | void;
}

/** Options for opening the host from a CLI command. */
export interface CliOpenHostOptions extends OpenHostOptions {
  /** Ask permission questions on the terminal when there is one (default false for plugin commands). */
  interactive?: boolean;
  /** Do not print startup problems and notices to stderr. */
  quiet?: boolean;
  /**
   * The CLI opens hosts lazily (`true`): tool sources such as MCP servers start only when a call or a
   * run needs them. Pass `false` for a command that lists everything (`agent tools`, `agent mcp list`).
   */
  lazyTools?: boolean;
}

/** What a CLI command's `run` receives. */
export interface CliContext<V = Record<string, unknown>> {
  /** The command's own arguments, as typed (after the command words). */
  readonly argv: readonly string[];
  readonly values: V;
  readonly positionals: string[];
  /** Arguments after `--` when the command declares `passThrough`. */
  readonly rest: string[];
  /** The project folder (`--cwd`, else the current folder). */
  readonly cwd: string;
  readonly debug: boolean;
  /** `--permission-mode`, when given. */
  readonly permissionMode?: PermissionMode;
  /** Config read and plugins loaded, nothing set up or started: for commands that only read or edit config. */
  prepare(): Promise<PreparedHost>;
  /**
   * The host, set up, as plugins see it (a plugin's command cannot change the permission mode either);
   * the CLI closes it after `run` returns, stopping every child process.
   */
  openHost(options?: CliOpenHostOptions): Promise<PluginHost>;
  /** Write to stdout (a newline is added when missing). */
  print(text: string): void;
  /** Write a value as indented JSON to stdout. */
  printJson(value: unknown): void;
  /** Write a message to stderr (a newline is added when missing). */
  warn(text: string): void;
  /** A plain text table: columns sized to their content. */
  table(rows: string[][], header?: string[]): string;
  /** Stop with a usage error: the message is printed and the CLI exits 2. */
  usageError(message: string): never;
}
