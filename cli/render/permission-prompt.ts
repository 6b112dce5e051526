/**
 * The inline permission question for terminals: allow once, always for this session, or deny.
 * Questions are asked one at a time (concurrent tool calls may ask together), and Ctrl-C while
 * asking denies and cancels the run.
 */
import { createInterface } from "node:readline";
import type { GrantRequest, PermissionAnswer, PermissionAsker, PermissionRequest } from "../../core/index.js";
import { summarizeInput } from "./_format.js";
import { createStyle, useColor, type Output } from "./_style.js";

/** Ask one line; resolves null on Ctrl-C or end of input. The question may span lines; only its last line is the input prompt. */
export type AskLine = (question: string) => Promise<string | null>;

/** Split a question into what is printed once and the one-line prompt readline redraws as the user types. */
export function splitQuestion(question: string): { preamble: string; prompt: string } {
  const i = question.lastIndexOf("\n");
  return { preamble: question.slice(0, i + 1), prompt: question.slice(i + 1) };
}

export interface PermissionPromptOptions {
  ask: AskLine;
  /** For colours. */
  output: Output;
  /** Called when the user pressed Ctrl-C at the question: cancel the run. */
  onCancel?(): void;
}

export function createPermissionAsker(options: PermissionPromptOptions): PermissionAsker {
  const s = createStyle(useColor(options.output));
  let queue: Promise<unknown> = Promise.resolve();

  /** A plugin asks to allow rules for the session (a skill's allowed-tools): yes or no, never silent. */
  async function askGrant(req: GrantRequest): Promise<PermissionAnswer> {
    const question =
      `${s.yellow("?")} ${s.bold(req.plugin)} asks to allow ${s.bold(req.rules.join(", "))} for the rest of this session  ${s.gray(`(${req.reason})`)}\n` +
      `  ${s.bold("y")} yes   ${s.bold("n")} no (the tools still ask each time)\n` +
      `${s.yellow(">")} `;
    for (;;) {
      const answer = await options.ask(question);
      if (answer === null) return "deny";
      const a = answer.trim().toLowerCase();
      if (a === "y" || a === "yes") return "allow_session";
      if (a === "n" || a === "no" || a === "") return "deny";
    }
  }

  async function askOne(req: PermissionRequest | GrantRequest): Promise<PermissionAnswer> {
    if (req.kind === "grant") return askGrant(req);
    const what = req.subject ? `${req.tool.name}(${req.subject})` : req.tool.name;
    // Several parts (a pipeline, a list): the input exactly as it will run, then what the rules see in it.
    const detail = req.subject ? "" : summarizeInput(req.input, 200);
    const parts = !req.subject && req.parts.length > 1 ? `\n  ${s.gray("runs:")} ${req.parts.join(s.gray("  ·  "))}` : "";
    const caution = req.uncertain ? `\n  ${s.yellow("part of it is computed when it runs (a substitution, or text the shell parser could not read)")}` : "";
    const always = req.suggestedRules.length ? `${s.bold("a")} always this session (${req.suggestedRule})   ` : "";
    const question =
      `${s.yellow("?")} Allow ${s.bold(what)}${detail ? ` ${detail}` : ""}  ${s.gray(`risk: ${req.tool.risk} · from ${req.tool.source}`)}${parts}${caution}\n` +
      `  ${s.bold("y")} yes, once   ${always}${s.bold("n")} no\n` +
      `${s.yellow(">")} `;
    for (;;) {
      const answer = await options.ask(question);
      if (answer === null) {
        options.onCancel?.();
        return "deny";
      }
      const a = answer.trim().toLowerCase();
      if (a === "y" || a === "yes") return "allow_once";
      if ((a === "a" || a === "always") && req.suggestedRules.length) return "allow_session";
      if (a === "n" || a === "no" || a === "") return "deny";
    }
  }

  return (req) => {
    const answer = queue.then(() => askOne(req));
    queue = answer.catch(() => undefined);
    return answer;
  };
}

/** An `AskLine` on its own readline (for `agent run` in a terminal). */
export function askOnStdin(input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): AskLine {
  return (question) =>
    new Promise((resolve) => {
      const rl = createInterface({ input, output, terminal: true });
      let done = false;
      const finish = (value: string | null) => {
        if (done) return;
        done = true;
        rl.close();
        resolve(value);
      };
      rl.on("SIGINT", () => {
        output.write("\n");
        finish(null);
      });
      rl.on("close", () => finish(null));
      // Keys typed while the run went are still buffered: read and drop them first, so an eager
      // "y" + Enter cannot answer a question nobody has seen yet (the poll phase before the
      // setImmediate reads them, even when the timer fires late).
      setTimeout(() =>
        setImmediate(() => {
          if (done) return;
          (rl as unknown as { line: string; cursor: number }).line = "";
          (rl as unknown as { cursor: number }).cursor = 0;
          const { preamble, prompt } = splitQuestion(question);
          output.write(preamble);
          rl.question(prompt, (a) => finish(a));
        }),
      30);
    });
}
