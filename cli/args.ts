/**
 * Running a `CliCommand` on its arguments: subcommand words, options parsed with `node:util` parseArgs
 * (strict; an unknown flag is named, with the closest one suggested), `--help` generated from the
 * declaration, and the context handed to `run`.
 */
import { parseArgs } from "node:util";
import { AgentError, type CliCommand, type CliContext } from "../core/index.js";
import { type CliOption } from "../core/embed.js";
import { closestNames } from "../kit/index.js";

/** What every command's context shares (the CLI fills it in once per process). */
export type BaseContext = Omit<CliContext, "argv" | "values" | "positionals" | "rest">;

function matches(cmd: CliCommand<any>, word: string): boolean {
  return cmd.name === word || (cmd.aliases ?? []).includes(word);
}

export function findCommand(commands: readonly CliCommand<any>[], word: string): CliCommand<any> | undefined {
  return commands.find((c) => matches(c, word));
}

/** `--flag <value>` lines for the help. */
function optionLines(options: Record<string, CliOption>): string[] {
  const rows = Object.entries(options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : "    "}--${name}${o.type === "string" ? ` ${o.valueName ?? "<value>"}` : ""}`;
    return [flag, `${o.description ?? ""}${o.multiple ? " (repeatable)" : ""}`] as const;
  });
  const width = Math.max(0, ...rows.map(([f]) => f.length));
  return rows.map(([f, d]) => `  ${f.padEnd(width)}  ${d}`.trimEnd());
}

export function helpFor(cmd: CliCommand<any>, path: string[]): string {
  const out: string[] = [];
  const words = ["agent", ...path].join(" ");
  out.push(`Usage: ${words}${cmd.subcommands?.length && !cmd.usage ? " <command>" : ""}${cmd.usage ? ` ${cmd.usage}` : ""}`, "", cmd.description);
  if (cmd.subcommands?.length) {
    out.push("", "Commands:");
    const width = Math.max(...cmd.subcommands.map((s) => s.name.length));
    for (const s of cmd.subcommands) out.push(`  ${s.name.padEnd(width)}  ${s.description}`);
    out.push("", `Run ${words} <command> --help for a command's options.`);
  }
  const options = cmd.options ?? {};
  if (Object.keys(options).length) out.push("", "Options:", ...optionLines(options));
  if (cmd.details) out.push("", cmd.details);
  return out.join("\n");
}

/** Flags every command takes (cli/main.ts reads them before the command's own). */
export const GLOBAL_FLAGS = ["--cwd", "--permission-mode", "--dangerously-skip-permissions", "--allowedTools", "--disallowedTools", "--add-dir", "--plugin-dir", "--append-system-prompt", "--debug", "--help", "--version"];

/**
 * parseArgs' messages, as a person would want them: the flag named, the closest one suggested, what
 * to type instead; never Node's own text (which, for one, quotes `'-- "-x"` without closing the quote).
 */
export function usageFromParseError(err: unknown, cmd: Pick<CliCommand<any>, "options" | "passThrough">, path: string[]): AgentError {
  const code = (err as { code?: string }).code;
  const message = (err as Error).message ?? String(err);
  const where = path.length ? `agent ${path.join(" ")}` : "agent";
  const options: Record<string, CliOption> = cmd.options ?? {};
  const flag = /^(?:Unknown option|Option) '([^']+)'/.exec(message)?.[1] ?? "";
  // `-p, --prompt <value>` in Node's text: name the long form.
  const named = /--[\w-]+/.exec(flag)?.[0] ?? flag;
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const known = Object.keys(options).map((n) => `--${n}`);
    const near = closestNames(flag.replace(/^-+/, "--"), [...known, "--help", ...GLOBAL_FLAGS]);
    const hint = cmd.passThrough ? ` If it belongs to the command you are passing on, put -- before it.` : "";
    return new AgentError("E_USAGE", `unknown option ${flag} for ${where}.${near.length ? ` Did you mean ${near[0]}?` : ""}${hint} See ${where} --help.`);
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const long = named.startsWith("--") ? named.slice(2) : (Object.entries(options).find(([, o]) => o.short === named.slice(1))?.[0] ?? named.slice(1));
    const short = options[long]?.short;
    if (/argument missing/.test(message)) return new AgentError("E_USAGE", `${named} needs a value (${where}).`);
    if (/ambiguous/.test(message)) {
      return new AgentError("E_USAGE", `${flag} needs a value (${where}); for a value that starts with "-", write --${long}=-…${short ? ` or -${short}-…` : ""}.`);
    }
    if (/does not take an argument/.test(message)) return new AgentError("E_USAGE", `${named} takes no value (${where}); write just ${named}.`);
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    return new AgentError("E_USAGE", `${where} takes no arguments; got "${/'([^']*)'/.exec(message)?.[1] ?? "one"}". See ${where} --help.`);
  }
  return new AgentError("E_USAGE", `${message.split("\n")[0].replace(/'/g, '"')} (${where})`);
}

/** Run `cmd` on `argv`; `path` is the command words so far. Returns the exit code. */
export async function runCliCommand(cmd: CliCommand<any>, argv: string[], path: string[], base: BaseContext): Promise<number> {
  const subs = cmd.subcommands ?? [];
  const first = argv[0];
  if (subs.length && first !== undefined && !first.startsWith("-")) {
    const sub = findCommand(subs, first);
    if (sub) return runCliCommand(sub, argv.slice(1), [...path, sub.name], base);
    if (first === "help") {
      base.print(helpFor(cmd, path));
      return 0;
    }
    const near = closestNames(first, subs.flatMap((s) => [s.name, ...(s.aliases ?? [])]));
    throw new AgentError("E_USAGE", `unknown command "${first}" for agent ${path.join(" ")}.${near.length ? ` Did you mean "${near[0]}"?` : ""}\n\n${helpFor(cmd, path)}`);
  }
  let own = argv;
  let rest: string[] = [];
  if (cmd.passThrough) {
    const dashes = argv.indexOf("--");
    if (dashes >= 0) {
      own = argv.slice(0, dashes);
      rest = argv.slice(dashes + 1);
    }
  }
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: own,
      options: { ...(cmd.options ?? {}), help: { type: "boolean", short: "h" } } as never,
      allowPositionals: cmd.positionals !== false,
      strict: true,
    }) as never;
  } catch (err) {
    throw usageFromParseError(err, cmd, path);
  }
  if (parsed.values.help || (!cmd.run && subs.length)) {
    base.print(helpFor(cmd, path));
    return parsed.values.help ? 0 : 2;
  }
  if (!cmd.run) return 0;
  const { help: _help, ...values } = parsed.values;
  const ctx: CliContext = { ...base, argv, values, positionals: parsed.positionals, rest };
  const code = await cmd.run(ctx as never);
  return typeof code === "number" ? code : 0;
}
