/**
 * `agent` in a terminal: an interactive session. Readline with history (kept in `.agent/history`),
 * `\` + Enter for multi-line input, slash commands from the command registry, permission questions
 * inline, Ctrl-C to cancel a run (twice to quit), Ctrl-D to quit.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createInterface, type Interface } from "node:readline";
import { AgentError, errorMessage, type Host } from "../core/index.js";
import { createStyle, useColor, type Style } from "./render/_style.js";
import { createPermissionAsker, splitQuestion } from "./render/permission-prompt.js";
import { createPrettyRenderer } from "./render/pretty.js";
import { version, type AppContext } from "./context.js";
import { onCtrlC } from "./commands/run.js";

const HISTORY_SIZE = 500;
const PROMPT = "> ";
const CONTINUATION = "… ";

export async function runInteractive(ctx: AppContext): Promise<number> {
  const term = new Terminal();
  let cancelRun: (() => void) | undefined;
  const host = await ctx.openHost({
    interactive: false,
    ctrlC: "caller",
    askPermission: createPermissionAsker({ ask: (q) => term.askDuringRun(q), output: process.stdout, onCancel: () => cancelRun?.() }),
  });
  const s = createStyle(useColor(process.stdout));
  try {
    term.open(path.join(host.workspace.root, ".agent", "history"));
    banner(host, s);
    for (;;) {
      const input = await term.readInput();
      if (input === null) break;
      const text = input.trim();
      if (!text) continue;
      let prompt = text;
      if (text.startsWith("/")) {
        const outcome = await runCommand(host, text, s);
        if (outcome.exit) break;
        if (outcome.prompt === undefined) continue;
        prompt = outcome.prompt;
      }
      const controller = new AbortController();
      cancelRun = () => controller.abort();
      await term.whileRunning(() => runPrompt(host, prompt, controller), () => onCtrlC(host, controller, false));
      cancelRun = undefined;
    }
    return 0;
  } finally {
    term.close();
    await host.close();
  }
}

function banner(host: Host, s: Style): void {
  const model = host.session.model;
  const parts = [`agent ${version()}`, model ?? s.yellow("no model"), `${host.tools.list().length} tools`, `mode ${host.permissionMode}`];
  process.stdout.write(`${s.bold(parts[0])} ${s.gray("·")} ${parts.slice(1).join(s.gray(" · "))}\n`);
  if (!model) process.stdout.write(s.yellow("No model configured: choose one with /model provider:model (see /model), or set AGENT_MODEL.\n"));
  process.stdout.write(s.gray("Type a task. /help for commands, \\ + Enter for a new line, Ctrl-C cancels, Ctrl-D quits.\n\n"));
}

async function runCommand(host: Host, line: string, s: Style): Promise<{ exit?: boolean; prompt?: string }> {
  try {
    const result = await host.commands.run(line, { asUser: true });
    if (result.output) process.stdout.write(`${result.output}\n`);
    return { exit: result.exit, prompt: result.prompt };
  } catch (err) {
    process.stdout.write(`${s.red(errorMessage(err))}\n`);
    return {};
  }
}

async function runPrompt(host: Host, prompt: string, controller: AbortController): Promise<void> {
  const renderer = createPrettyRenderer({ out: process.stdout, err: process.stdout, streamText: true });
  const off = host.on(renderer.handle);
  try {
    await host.run(prompt, { signal: controller.signal });
  } catch (err) {
    // Setup problems (no model, unknown provider): say so and keep the session.
    const s = createStyle(useColor(process.stdout));
    process.stdout.write(`${s.red(err instanceof AgentError ? err.message : `Unexpected error: ${errorMessage(err)}`)}\n`);
    if (err instanceof AgentError && err.code === "E_NO_MODEL") {
      process.stdout.write(s.gray("In this session: /model provider:model (e.g. /model openai:gpt-4.1).\n"));
    }
  } finally {
    off();
    renderer.dispose();
  }
  // Keep a visible gap between one exchange and the next prompt.
  process.stdout.write("\n");
}

/**
 * The session's readline. While a run goes, it is paused and the terminal is back in cooked mode,
 * so Ctrl-C is a real SIGINT (cancelling the run) and typing does not garble the output; a permission
 * question takes the line back for one answer.
 */
class Terminal {
  private rl: Interface | undefined;
  private pending: ((line: string | null) => void) | undefined;
  private asking = false;
  private lastCtrlC = 0;
  private historyFile: string | undefined;

  open(historyFile: string): void {
    this.historyFile = historyFile;
    const rl = createInterface({
      input: process.stdin,
      output: process.stdout,
      terminal: true,
      history: loadHistory(historyFile),
      historySize: HISTORY_SIZE,
      removeHistoryDuplicates: true,
    });
    this.rl = rl;
    rl.on("line", (line) => this.deliver(line));
    rl.on("close", () => this.deliver(null));
    rl.on("SIGINT", () => this.onCtrlC());
    rl.on("history", (h: string[]) => saveHistory(historyFile, h));
  }

  /** One input: lines ending in `\` continue on the next. Null at Ctrl-D, or Ctrl-C twice. */
  async readInput(): Promise<string | null> {
    const lines: string[] = [];
    for (let prompt = PROMPT; ; prompt = CONTINUATION) {
      const line = await this.ask(prompt);
      if (line === null) return lines.length ? lines.join("\n") : null;
      if (!line.endsWith("\\")) {
        lines.push(line);
        return lines.join("\n");
      }
      lines.push(line.slice(0, -1));
    }
  }

  /** Run `fn` with the line released: cooked mode, Ctrl-C handled by `installCtrlC` as a signal. */
  async whileRunning(fn: () => Promise<void>, installCtrlC: () => () => void): Promise<void> {
    this.rl?.pause();
    setRawMode(false);
    const uninstall = installCtrlC();
    try {
      await fn();
    } finally {
      uninstall();
      setRawMode(true);
    }
  }

  /** A permission question in the middle of a run. Null when the user pressed Ctrl-C. */
  async askDuringRun(question: string): Promise<string | null> {
    setRawMode(true);
    this.asking = true;
    try {
      await this.discardTypeAhead();
      const { preamble, prompt } = splitQuestion(question);
      process.stdout.write(preamble);
      const answer = await this.ask(prompt);
      // Answers are not worth keeping in the history.
      const h = (this.rl as unknown as { history?: string[] } | undefined)?.history;
      if (answer !== null && h?.[0] === answer) h.shift();
      return answer;
    } finally {
      this.asking = false;
      this.rl?.pause();
      setRawMode(false);
    }
  }

  /**
   * Keys typed during the run wait in the terminal's buffer and would answer the question the moment
   * readline reads again (an eager "y" + Enter allowing a call nobody has seen). Read them now, with no
   * one waiting for a line, so they are dropped; then clear any half-typed line.
   */
  private async discardTypeAhead(): Promise<void> {
    const rl = this.rl;
    if (!rl) return;
    const history = (rl as unknown as { history?: string[] }).history;
    const kept = history?.length;
    rl.resume();
    // Buffered keys are readable at once; the setImmediate makes sure a poll phase (which reads them)
    // has run after the wait, even on a loaded machine where the timer fires late.
    await new Promise((r) => setTimeout(r, 30));
    await new Promise((r) => setImmediate(r));
    // Dropped lines do not belong in the history either.
    if (history && kept !== undefined && history.length > kept) history.splice(0, history.length - kept);
    (rl as unknown as { line: string; cursor: number }).line = "";
    (rl as unknown as { cursor: number }).cursor = 0;
  }

  close(): void {
    const rl = this.rl;
    this.rl = undefined;
    rl?.close();
  }

  private ask(prompt: string): Promise<string | null> {
    const rl = this.rl;
    if (!rl) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.pending = resolve;
      rl.setPrompt(prompt);
      rl.prompt();
    });
  }

  private deliver(line: string | null): void {
    const p = this.pending;
    this.pending = undefined;
    // Lines typed while nothing was asked (during a run) are dropped rather than answering later questions.
    p?.(line);
  }

  private onCtrlC(): void {
    const rl = this.rl!;
    if (this.asking) {
      process.stdout.write("^C\n");
      this.deliver(null);
      return;
    }
    if (rl.line) {
      // Clear what was typed, as shells do.
      process.stdout.write("^C\n");
      (rl as unknown as { line: string; cursor: number }).line = "";
      (rl as unknown as { cursor: number }).cursor = 0;
      rl.prompt();
      return;
    }
    const now = Date.now();
    if (now - this.lastCtrlC < 2000) {
      process.stdout.write("\n");
      this.deliver(null);
      return;
    }
    this.lastCtrlC = now;
    process.stdout.write("\n(press Ctrl-C again to quit, or type /exit)\n");
    rl.prompt();
  }
}

function setRawMode(on: boolean): void {
  if (process.stdin.isTTY) process.stdin.setRawMode(on);
}

function loadHistory(file: string): string[] {
  try {
    // Stored oldest first, one entry per line (newlines inside an entry escaped); readline wants newest first.
    return readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => l.replace(/\\n/g, "\n"))
      .reverse()
      .slice(0, HISTORY_SIZE);
  } catch {
    return [];
  }
}

function saveHistory(file: string, history: string[]): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${[...history].reverse().map((l) => l.replace(/\n/g, "\\n")).join("\n")}\n`);
  } catch {
    // History is a convenience: never fail the session over it.
  }
}
