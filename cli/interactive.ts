/**
 * `agent` in a terminal: an interactive session. Slash commands from the command registry, `!<command>`
 * through the gate (as run_command: permission, audit) with its output added to the conversation,
 * `@path` attaching a file (read through the gate, inside the workspace; Tab completes paths), answers
 * rendered as Markdown, permission questions inline, Ctrl-C to cancel a run (twice to quit), Ctrl-D to
 * quit. The keyboard side (history, paste, keys during a run) is terminal.ts.
 */
import path from "node:path";
import { AgentError, errorMessage, type Host, type PermissionAsker } from "../core/index.js";
import { resolveModel } from "../core/embed.js";
import { attachFiles, completePath, shellContext } from "./session-input.js";
import { createStyle, useColor, type Style } from "./render/_style.js";
import { createPermissionAsker, hostAware } from "./render/permission-prompt.js";
import { createPrettyRenderer } from "./render/pretty.js";
import { Terminal } from "./terminal.js";
import { wrapText } from "./render/text-width.js";
import { canPrompt, version, type AppContext } from "./context.js";
import { onCtrlC, resumeFromFlags, type SessionFlags } from "./commands/run.js";

export interface SessionOptions {
  model?: string;
  systemPrompt?: string;
  /** Sent as if typed first (`agent "explain this project"`). */
  firstPrompt?: string;
  /** `-c`, `--resume <id>`, `--fork-session`. */
  session?: SessionFlags;
}

/** Before anything of the folder runs: if it ships parts that would run or widen, ask whether to trust it. */
async function trustFirst(ctx: Pick<AppContext, "prepare" | "quietTrust" | "trustFolder">): Promise<void> {
  if (!canPrompt()) return;
  ctx.quietTrust();
  const report = (await ctx.prepare()).trust;
  if (!report.skipped.length) return;
  const { askTrust } = await import("./trust-question.js");
  const { askOnStdin } = await import("./render/permission-prompt.js");
  if (await askTrust(report, askOnStdin())) {
    const { file } = await ctx.trustFolder();
    process.stderr.write(`Trusted ${report.folder} (kept in ${file}).\n`);
  } else process.stderr.write("Not trusted: only what narrows what the agent may do was loaded. Run agent trust to trust it later.\n");
}

export async function runInteractive(ctx: Pick<AppContext, "openHost" | "prepare" | "quietTrust" | "trustFolder">, options: SessionOptions = {}): Promise<number> {
  await trustFirst(ctx);
  const term = new Terminal();
  let cancelRun: (() => void) | undefined;
  let opened: Host | undefined;
  const asker = createPermissionAsker({ ask: (q, o) => term.askDuringRun(q, o), output: process.stdout, onCancel: () => cancelRun?.(), ...hostAware(() => opened) });
  /** The `!command` the user typed and is running: they asked for it, so its question is answered yes (still audited). */
  let typed: string | undefined;
  const host = (opened = await ctx.openHost({
    interactive: false,
    ctrlC: "caller",
    askPermission: (req) => (isTyped(req, typed) ? Promise.resolve("allow_once") : asker(req)),
  }));
  // Servers start now, in the background, while the user types: the prompt never waits for them.
  void host.tools.load();
  const s = createStyle(useColor(process.stdout));
  if (options.model) host.session.model = options.model;
  /** Output of `!` commands, for the model with the next prompt. */
  let context = "";
  /** Ctrl-C while something runs: the first cancels it, a second one quits (as in `agent run`). */
  const running = async <T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const controller = new AbortController();
    const sigint = onCtrlC(host, controller, false);
    const interrupt = () => process.emit("SIGINT", "SIGINT");
    cancelRun = () => controller.abort();
    try {
      return await term.whileRunning(() => fn(controller.signal), interrupt);
    } finally {
      cancelRun = undefined;
      sigint();
    }
  };
  try {
    term.open(path.join(host.workspace.root, ".agent", "history"), (line: string) => complete(host, line));
    banner(host, s);
    const session = options.session ?? {};
    // `agent --resume` with no id: the recent sessions, numbered, to pick with /resume <n>.
    if (session.resume === "") await runCommand(host, "/resume", s);
    else {
      await resumeFromFlags(host, session, (level, message) => process.stdout.write(`${level === "warn" ? s.yellow(message) : s.gray(message)}\n`));
      if (session.continue || session.resume) process.stdout.write(lastTurns(host.session.messages, s));
    }
    let first = options.firstPrompt;
    for (;;) {
      const input = first ?? (await term.readInput());
      first = undefined;
      if (input === null) break;
      const text = input.trim();
      if (!text) continue;
      if (text.startsWith("!")) {
        typed = text.slice(1).trim();
        const added = await running((signal) => shell(host, typed!, s, signal)).finally(() => (typed = undefined));
        if (added) context += added;
        continue;
      }
      let prompt = text;
      let model: string | undefined;
      if (text.startsWith("/")) {
        const outcome = await runCommand(host, text, s);
        if (outcome.exit) break;
        if (outcome.prompt === undefined) continue;
        ({ prompt, model } = outcome as { prompt: string; model?: string });
      } else {
        prompt = await attachFiles(host, text, (line) => process.stdout.write(`${line}\n`), s);
      }
      if (context) {
        prompt = `${context}${prompt}`;
        context = "";
      }
      await running((signal) => runPrompt(host, prompt, signal, options.systemPrompt, model));
    }
    return 0;
  } finally {
    term.close();
    await host.close();
  }
}

function complete(host: Host, line: string): [string[], string] {
  const at = /(?:^|\s)(@\S*)$/.exec(line);
  if (at) return [completePath(host.workspace, at[1].slice(1)).map((p) => `@${p}`), at[1]];
  if (/^\/\S*$/.test(line)) {
    const names = host.commands.list().map((c) => `/${c.name}`).filter((n) => n.startsWith(line));
    return [names.sort(), line];
  }
  return [[], line];
}

function banner(host: Host, s: Style): void {
  const model = host.session.model;
  let shown = model ?? s.yellow("no model");
  try {
    const ref = model ? resolveModel(host, model).ref : undefined;
    if (ref && ref !== model) shown = `${model} (${ref})`;
  } catch (err) {
    shown = `${model} ${s.red(`(${errorMessage(err).split("\n")[0]})`)}`;
  }
  const parts = [`agent ${version()}`, shown, `${host.tools.list().length} tools`, `mode ${host.permissionMode}`];
  process.stdout.write(`${s.bold(parts[0])} ${s.gray("·")} ${parts.slice(1).join(s.gray(" · "))}\n`);
  // Wrapped at words to the terminal's width: the terminal itself would cut a word in two.
  const wrap = (text: string) => wrapText(text, (process.stdout.columns || 80) - 1).join("\n");
  if (!model) process.stdout.write(`${s.yellow(wrap("No model configured: choose one with /model provider:model (see /model), or set AGENT_MODEL."))}\n`);
  process.stdout.write(`${s.gray(wrap("Type a task. /help for commands, !cmd runs a shell command, @path attaches a file (Tab completes), \\ + Enter for a new line, Ctrl-C or Esc cancels, Ctrl-D quits."))}\n\n`);
}

async function runCommand(host: Host, line: string, s: Style): Promise<{ exit?: boolean; prompt?: string; model?: string }> {
  try {
    const result = await host.commands.run(line, { asUser: true });
    if (result.output) process.stdout.write(`${result.output}\n`);
    return { exit: result.exit, prompt: result.prompt, model: result.model };
  } catch (err) {
    process.stdout.write(`${s.red(errorMessage(err))}\n`);
    return {};
  }
}

/** The last few turns of a resumed conversation (what you said, what the model answered), shortened. */
export function lastTurns(messages: readonly { role: string; content: string }[], s: Style, turns = 3): string {
  const said = messages.filter((m) => (m.role === "user" || m.role === "assistant") && m.content.trim());
  const shown = said.slice(-turns * 2);
  if (!shown.length) return "";
  const clip = (t: string) => (t.length > 300 ? `${t.slice(0, 300)}…` : t);
  const lines = shown.map((m) => (m.role === "user" ? `${s.bold(">")} ${clip(m.content.trim())}` : clip(m.content.trim())));
  return `${s.gray(said.length > shown.length ? `… ${said.length - shown.length} earlier messages` : "The conversation so far:")}\n${lines.join("\n\n")}\n\n`;
}

/** A question about exactly the `!command` being run (not a call a hook rewrote into another). */
function isTyped(req: Parameters<PermissionAsker>[0], typed: string | undefined): boolean {
  return typed !== undefined && "tool" in req && req.tool.name === "run_command" && (req.input as { command?: unknown } | undefined)?.command === typed;
}

/** `!<command>`: run_command through the gate (unasked, audited, capped); its output goes to the model next time. */
async function shell(host: Host, command: string, s: Style, signal: AbortSignal): Promise<string | undefined> {
  if (!command) {
    process.stdout.write(s.gray("Type a shell command after !, e.g. !git status\n"));
    return undefined;
  }
  const result = await host.tools.call("run_command", { command }, { signal });
  process.stdout.write(result.output.endsWith("\n") || !result.output ? result.output : `${result.output}\n`);
  if (!result.ok) {
    if (result.error) process.stdout.write(`${s.red(result.error.code === "E_TOOL_DENIED" ? "not run" : "failed")}\n\n`);
    if (result.error?.code === "E_TOOL_DENIED" || result.error?.code === "E_TOOL_ABORTED") return undefined;
  }
  process.stdout.write(s.gray("(added to the conversation: the model sees it with your next message)\n\n"));
  return shellContext(command, result.output);
}

async function runPrompt(host: Host, prompt: string, signal: AbortSignal, systemPrompt: string | undefined, model?: string): Promise<void> {
  const renderer = createPrettyRenderer({ out: process.stdout, err: process.stdout, streamText: true, markdown: true });
  const off = host.on(renderer.handle);
  try {
    await host.run(prompt, { signal, systemPrompt, model });
  } catch (err) {
    // Setup problems (no model, unknown provider): say so and keep the session.
    const s = createStyle(useColor(process.stdout));
    process.stdout.write(`${s.red(err instanceof AgentError ? err.message : `Unexpected error: ${errorMessage(err)}`)}\n`);
    if (err instanceof AgentError && err.code === "E_NO_MODEL") {
      process.stdout.write(s.gray("In this session: /model provider:model or an alias (e.g. /model sonnet).\n"));
    }
  } finally {
    off();
    renderer.dispose();
  }
  // Keep a visible gap between one exchange and the next prompt.
  process.stdout.write("\n");
}
