/** `agent run -p "<prompt>"`: the agent loop, headless, for scripts and CI. */
import { fstatSync } from "node:fs";
import { AgentError, ExitCode, type AgentEvent, type Host, type ModelErrorCode } from "../../core/index.js";
import { DEFAULT_MAX_TURNS, type RunResult } from "../../core/embed.js";
import { canPrompt, type AppContext } from "../context.js";
import type { KeyGuard } from "../render/key-guard.js";
import { defineAppCommand } from "./_define.js";

const FORMATS = ["text", "json", "stream-json"] as const;
type Format = (typeof FORMATS)[number];

/** Model failures that are really configuration problems: exit 2 like other config errors. */
const CONFIG_CODES = new Set<string>(["E_MODEL_NO_KEY", "E_MODEL_CONFIG"] satisfies ModelErrorCode[]);

const DETAILS = `Runs the agent on one prompt: the model answers and calls tools until the task is done.
The prompt comes from -p (or the arguments), or from stdin when it is piped; with -p, piped
input is added after the prompt (git diff | agent run -p "review this"). agent -p "..." is the same.

Global options apply too: --permission-mode, --allowedTools, --disallowedTools, --add-dir,
--append-system-prompt, --cwd, --debug (see agent --help). With no terminal to ask, tools that
need approval are denied: allow them with permissions.allow in the config, or --permission-mode.

Sessions: every run is saved (.agent/sessions/<id>.jsonl); -c continues the newest session of
this project, --resume <id> a given one (a unique start of the id is enough; agent sessions lists
them), and --fork-session with either continues a copy under a new id.

Output: text streams the answer to stdout (only the final answer when stdout is not a terminal)
and tool calls to stderr; json prints one object at the end; stream-json prints one event per line.
Exit codes: 0 finished; 1 the model failed, or the run stopped at --max-turns or the output token
limit; 2 usage or config error (no model, no API key); 130 cancelled with Ctrl-C.`;

/** `-c`, `--resume`, `--fork-session`: shared by `agent run` and the interactive session. */
export const SESSION_OPTIONS = {
  continue: { type: "boolean", short: "c", description: "continue the most recent session of this project" },
  resume: { type: "string", short: "r", valueName: "<id>", description: "continue the session with this id (or a unique start of it)" },
  "fork-session": { type: "boolean", description: "with -c or --resume: continue a copy, under a new session id" },
} as const;

export default defineAppCommand({
  name: "run",
  description: 'run the agent on a prompt (headless): agent run -p "..."',
  usage: "[-p <prompt>] [options]",
  details: DETAILS,
  options: {
    prompt: { type: "string", short: "p", valueName: "<text>", description: "the task" },
    model: { type: "string", short: "m", valueName: "<p:m>", description: "provider:model or an alias: sonnet, opus, haiku, gpt, gpt-mini, config modelAliases (default: AGENT_MODEL, then config \"model\")" },
    "max-turns": { type: "string", valueName: "<n>", description: "stop after n model requests (default: config maxTurns, else 50)" },
    "output-format": { type: "string", valueName: "<fmt>", description: "text (default) | json | stream-json" },
    "system-prompt": { type: "string", valueName: "<text>", description: "replace the system prompt for this run" },
    ...SESSION_OPTIONS,
  },
  run: (ctx) => runHeadless(ctx.values, ctx.positionals, ctx),
});

export type SessionFlags = { continue?: boolean; resume?: string; "fork-session"?: boolean };

export function checkSessionFlags(v: SessionFlags): void {
  if (v["fork-session"] && !v.continue && v.resume === undefined) throw new AgentError("E_USAGE", "--fork-session needs -c/--continue or --resume <id>: it forks the session they name.");
  if (v.continue && v.resume !== undefined) throw new AgentError("E_USAGE", "-c/--continue and --resume <id> both name a session; give one.");
}

/** Resume what the flags name, if anything; says what was resumed (and what a damaged transcript lost). */
export async function resumeFromFlags(host: Host, v: SessionFlags, say: (level: "info" | "warn", message: string) => void): Promise<void> {
  if (!v.continue && v.resume === undefined) return;
  const r = await host.session.resume(v.resume ?? "last", { fork: v["fork-session"] === true });
  if (r.damaged) say("warn", r.damaged);
  say("info", r.forked ? `Forked session ${r.from} as ${r.id} (${r.messages} messages).` : `Resumed session ${r.id} (${r.messages} messages).`);
}

async function runHeadless(
  v: { prompt?: string; model?: string; "max-turns"?: string; "output-format"?: string; "system-prompt"?: string } & SessionFlags,
  positionals: string[],
  ctx: Pick<AppContext, "openHost" | "prepare" | "warn" | "table">,
): Promise<number> {
  const format = (v["output-format"] ?? "text") as Format;
  if (!FORMATS.includes(format)) throw new AgentError("E_USAGE", `--output-format must be one of ${FORMATS.join(", ")}; got "${format}"`);
  checkSessionFlags(v);
  if (v.resume === "") {
    // No id and no terminal to pick in: the sessions, and what to type.
    const { printSessions } = await import("./sessions.js");
    printSessions({ print: ctx.warn, table: ctx.table }, (await ctx.prepare()).projectRoot);
    throw new AgentError("E_USAGE", "--resume needs a session id here (no terminal to pick one in): one of those above, e.g. agent run --resume <id> -p \"...\"");
  }
  const maxTurns = v["max-turns"] === undefined ? undefined : Number(v["max-turns"]);
  if (maxTurns !== undefined && !(Number.isInteger(maxTurns) && maxTurns > 0)) {
    throw new AgentError("E_USAGE", `--max-turns must be a positive whole number; got "${v["max-turns"]}"`);
  }

  const prompt = await readPrompt(v.prompt ?? (positionals.length ? positionals.join(" ") : undefined));
  if (!prompt.text.trim()) throw new AgentError("E_USAGE", 'no prompt: pass -p "<what to do>", or pipe it on stdin.');

  // Ask permission on the terminal only when stdin is the terminal (not the prompt's pipe).
  const ask = !prompt.fromStdin && canPrompt();
  const controller = new AbortController();
  let opened: Host | undefined;
  let guard: KeyGuard | undefined;
  // Renderers, the prompt (diff) and Markdown load only when a run happens: listing commands stays fast.
  const [{ askOnStdin, createPermissionAsker, hostAware }, { guardKeys }] = await Promise.all([import("../render/permission-prompt.js"), import("../render/key-guard.js")]);
  const onStdin = askOnStdin();
  const askLine = async (q: string) => {
    guard?.suspend();
    try {
      return await onStdin(q);
    } finally {
      guard?.resume();
    }
  };
  const host = (opened = await ctx.openHost({
    ctrlC: "caller",
    askPermission: ask ? createPermissionAsker({ ask: askLine, output: process.stderr, onCancel: () => controller.abort(), ...hostAware(() => opened) }) : undefined,
  }));
  try {
    const renderer = await createRenderer(format, maxTurns ?? host.config.maxTurns ?? DEFAULT_MAX_TURNS);
    const off = host.on(renderer.handle);
    // The session first (a `/compact` prompt works on the resumed conversation). A notice event (stream-json);
    // a damaged tail is a warning, printed on stderr whatever the format.
    await resumeFromFlags(host, v, (level, message) => host.emit({ type: "notice", level, source: "sessions", message }));
    // `/review src/x.ts` runs the command first, as in the interactive session; its prompt is what the model gets.
    const expanded = await expandCommand(host, prompt.text, controller.signal);
    // With json / stream-json, stdout is the machine's: what a command says before its prompt runs goes to stderr.
    const said = format !== "text" && expanded.prompt !== undefined ? process.stderr : process.stdout;
    if (expanded.output !== undefined) said.write(expanded.output.endsWith("\n") ? expanded.output : `${expanded.output}\n`);
    if (expanded.prompt === undefined) {
      off();
      return ExitCode.OK;
    }
    const stopCtrlC = onCtrlC(host, controller);
    // Keys typed in the terminal while it works must not garble the spinner line (stdin is the terminal).
    if (ask && process.stderr.isTTY) guard = guardKeys();
    let result: RunResult;
    try {
      result = await host.run(expanded.prompt, { model: expanded.model ?? v.model, maxTurns, signal: controller.signal, systemPrompt: v["system-prompt"] });
    } finally {
      guard?.stop();
      guard = undefined;
      stopCtrlC();
      off();
    }
    renderer.finish();
    return exitCodeFor(result);
  } finally {
    await host.close();
  }
}

/**
 * A prompt whose first word is a registered slash command is that command, run as the user typed it
 * (an MCP prompt's server is started for it); any other prompt (including `/usr/bin/foo is slow`) goes
 * to the model as written.
 */
async function expandCommand(host: Host, text: string, signal: AbortSignal): Promise<{ prompt?: string; output?: string; model?: string }> {
  const m = /^\/(\S+)/.exec(text.trimStart());
  if (!m) return { prompt: text };
  // A command a tool source brings (an MCP server's prompt, `/mcp__server__prompt`) exists once that source is loaded.
  if (!host.commands.get(m[1])) await host.tools.load({ names: [m[1]] });
  if (!host.commands.get(m[1])) return { prompt: text };
  const result = await host.commands.run(text.trimStart(), { signal, asUser: true });
  return { prompt: result.prompt, output: result.output, model: result.model };
}

export function exitCodeFor(result: RunResult): number {
  if (result.ok) return ExitCode.OK;
  if (result.reason === "aborted") return 130;
  if (result.error && CONFIG_CODES.has(result.error.code)) return ExitCode.USAGE;
  return ExitCode.FAILED;
}

async function createRenderer(format: Format, maxTurns: number | undefined): Promise<{ handle(e: AgentEvent): void; finish(): void }> {
  if (format === "json") return (await import("../render/json.js")).createJsonRenderer(process.stdout);
  if (format === "stream-json") return (await import("../render/stream-json.js")).createStreamJsonRenderer(process.stdout);
  const { createPrettyRenderer } = await import("../render/pretty.js");
  const pretty = createPrettyRenderer({ out: process.stdout, err: process.stderr, maxTurns, markdown: !!process.stdout.isTTY });
  return { handle: pretty.handle, finish: pretty.dispose };
}

/** First Ctrl-C cancels the run; a second one exits right away (closing the host, so no child outlives us). */
export function onCtrlC(host: Host, controller: AbortController, notice = true): () => void {
  const handler = () => {
    if (!controller.signal.aborted) {
      if (notice) process.stderr.write("\nCancelling… (press Ctrl-C again to quit)\n");
      controller.abort();
      return;
    }
    void host.close().finally(() => process.exit(130));
  };
  process.on("SIGINT", handler);
  return () => process.off("SIGINT", handler);
}

/**
 * The prompt from the flag, and from stdin when piped: alone when there is no flag; appended when
 * there is one and stdin is a pipe or a file (never waiting on a terminal or an idle socket).
 */
async function readPrompt(flag: string | undefined): Promise<{ text: string; fromStdin: boolean }> {
  if (process.stdin.isTTY) return { text: flag ?? "", fromStdin: false };
  if (flag === undefined) return { text: await readStdin(), fromStdin: true };
  if (!stdinIsPipeOrFile()) return { text: flag, fromStdin: false };
  const piped = (await readStdin()).trim();
  return { text: piped ? `${flag}\n\n${piped}` : flag, fromStdin: true };
}

function stdinIsPipeOrFile(): boolean {
  try {
    const st = fstatSync(0);
    return st.isFIFO() || st.isFile();
  } catch {
    return false;
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
