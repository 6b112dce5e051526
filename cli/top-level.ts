/**
 * What `agent` means without a command word, as in Claude Code: `agent -p "..."` (or `--print`) is
 * `agent run`; `agent "a prompt"` and `agent --model sonnet` start an interactive session (with that
 * first prompt, that model). Anything else falls through to the command lookup.
 */
import { AgentError, type CliCommand } from "../core/index.js";
import { defineAppCommand } from "./commands/_define.js";
import runCommand, { SESSION_OPTIONS, checkSessionFlags } from "./commands/run.js";

const PRINT = new Set(["-p", "--print", "--prompt"]);

export const sessionCommand = defineAppCommand({
  name: "agent",
  description: "An interactive session in the terminal (the same options as agent run where they make sense).",
  usage: '["<first prompt>"] [--model <m>] [--system-prompt <text>] [-c | --resume <id>] [--fork-session]',
  options: {
    model: { type: "string", short: "m", valueName: "<p:m>", description: "provider:model or an alias (sonnet, opus, haiku, gpt, …)" },
    "system-prompt": { type: "string", valueName: "<text>", description: "replace the system prompt for this session" },
    ...SESSION_OPTIONS,
  },
  async run(ctx) {
    checkSessionFlags(ctx.values);
    // `agent --resume` with no id and no terminal to pick in: the recent sessions, printed.
    if (ctx.values.resume === "" && (!process.stdin.isTTY || !process.stdout.isTTY)) {
      const { printSessions } = await import("./commands/sessions.js");
      return printSessions(ctx, (await ctx.prepare()).projectRoot);
    }
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new AgentError("E_USAGE", 'no terminal for an interactive session. Use: agent -p "..."');
    }
    const { runInteractive } = await import("./interactive.js");
    return runInteractive(ctx, {
      model: ctx.values.model,
      systemPrompt: ctx.values["system-prompt"],
      firstPrompt: ctx.positionals.length ? ctx.positionals.join(" ") : undefined,
      session: { continue: ctx.values.continue, resume: ctx.values.resume, "fork-session": ctx.values["fork-session"] },
    });
  },
});

/** The command and arguments for a command line that starts with an option or a prompt; undefined for a command word. */
export function topLevel(rest: string[], isCommand: (word: string) => boolean): { command: CliCommand<any>; argv: string[]; path: string[] } | undefined {
  const first = rest[0];
  if (first === undefined) return undefined;
  // A word is a command (or a mistyped one, reported as such) unless it holds a space: then it is a prompt.
  if (!first.startsWith("-") && (isCommand(first) || !/\s/.test(first))) return undefined;
  const dashes = rest.indexOf("--");
  const own = dashes < 0 ? rest : rest.slice(0, dashes);
  const at = own.findIndex((a) => PRINT.has(a) || a.startsWith("--prompt=") || /^-p./.test(a));
  if (at < 0) return { command: sessionCommand, argv: rest, path: [] };
  const argv = [...rest];
  if (PRINT.has(argv[at])) {
    // Claude Code's -p is a switch: the prompt may be the next word, the other words, or stdin.
    const next = argv[at + 1];
    if (next !== undefined && !next.startsWith("-")) argv.splice(at, 1, "--prompt");
    else argv.splice(at, 1);
  }
  return { command: runCommand, argv, path: ["run"] };
}
