/**
 * The inline permission question for terminals: what will run (the whole command line, a diff of a
 * file edit), then allow once, always for this session, always for this project (a rule written to
 * `.agent/settings.local.json`, exactly as narrow as what was shown), no, or no with a message for the
 * model. Questions are asked one at a time (concurrent tool calls may ask together), and Ctrl-C while
 * asking denies and cancels the run.
 */
import { existsSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { errorMessage, type PermissionAnswer, type PermissionAsker, type PermissionRequest, type Workspace } from "../../core/index.js";
import { type GrantRequest, type InputRequest } from "../../core/embed.js";
import { addLocalAllowRules, LOCAL_SETTINGS_FILE } from "../../core/embed.js";
import { createStyle, printable, useColor, type Output } from "./_style.js";
import { previewCall, type Preview, type ReadCurrent } from "./diff-preview.js";

/**
 * Ask one line; resolves null on Ctrl-C or end of input. The question may span lines; only its last line
 * is the input prompt. `oneKey`: the answer is one key, taken as pressed (no Enter); Enter alone is "".
 */
export type AskLine = (question: string, options?: { oneKey?: boolean }) => Promise<string | null>;

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
  /** The open host's workspace, to show diffs of file edits (read inside the workspace only). */
  workspace?(): Workspace | undefined;
  /** Write "always for this project" rules; returns the file written. Absent: the answer is not offered. */
  saveProjectRules?(rules: string[]): string;
}

/** The current content of a file, read as the tools will: inside the workspace, or an explanation. */
export function readThrough(workspace: Workspace | undefined): ReadCurrent | undefined {
  if (!workspace) return undefined;
  return (p) => {
    let abs: string;
    try {
      abs = workspace.resolve(p);
    } catch (err) {
      return { error: `${errorMessage(err)}: the tool will refuse it` };
    }
    if (!existsSync(abs)) return { missing: true };
    try {
      return { text: readFileSync(abs, "utf8") };
    } catch (err) {
      return { error: `cannot read ${p}: ${errorMessage(err)}` };
    }
  };
}

/** The options that need the open host: diffs read from its workspace, project rules saved at its root. */
export function hostAware(getHost: () => { workspace: Workspace } | undefined): Pick<PermissionPromptOptions, "workspace" | "saveProjectRules"> {
  return {
    workspace: () => getHost()?.workspace,
    saveProjectRules: (rules) => {
      const host = getHost();
      if (!host) throw new Error("the host is not open");
      return addLocalAllowRules(host.workspace.root, rules).file;
    },
  };
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
      const answer = await options.ask(question, { oneKey: true });
      if (answer === null) return "deny";
      const a = answer.trim().toLowerCase();
      if (a === "y" || a === "yes") return "allow_session";
      if (a === "n" || a === "no" || a === "") return "deny";
    }
  }

  /** A plugin's question (an MCP server's form field): the line typed, or no answer on Ctrl-C / end of input. */
  async function askInput(req: InputRequest): Promise<PermissionAnswer> {
    const answer = await options.ask(printable(req.question));
    return answer === null ? "deny" : { decision: "answer", text: answer };
  }

  async function askOne(req: PermissionRequest | GrantRequest | InputRequest): Promise<PermissionAnswer> {
    if (req.kind === "grant") return askGrant(req);
    if (req.kind === "input") return askInput(req);
    const what = printable(req.subject ? `${req.tool.name}(${req.subject})` : req.tool.name);
    const preview = previewCall(req.tool.name, req.input, s, readThrough(options.workspace?.()));
    // Several parts (a pipeline, a list): the whole line above, then what the rules see in it.
    const parts = req.parts.length > 1 ? [`  ${s.gray("runs:")} ${req.parts.join(s.gray("  ·  "))}`] : [];
    const caution = req.uncertain ? [`  ${s.yellow("part of it is computed when it runs (a substitution, or text the shell parser could not read)")}`] : [];
    // A plugin's (or a command hook's) `ask` says why it wants you to look: show it (as Claude Code shows a hook's reason).
    const why = req.reason.startsWith("plugin:") ? [`  ${s.gray("asked by")} ${req.reason.slice("plugin:".length)}`] : [];
    // A file that decides what the agent may do (its config, .claude/, .git/…) is asked about in every mode: say so.
    const guarded = (req.protectedWrites ?? []).map(
      (w) => `  ${s.yellow("!")} ${s.bold(printable(w.path))}: this file decides what the agent may do (${printable(w.why)}); asked in every permission mode`,
    );
    const project = options.saveProjectRules && req.projectRules?.length ? req.projectRules : [];
    const choices = [
      `  ${s.bold("y")}  yes, once`,
      ...(req.suggestedRules.length ? [`  ${s.bold("a")}  yes, always this session: ${req.suggestedRules.join(", ")}`] : []),
      ...(project.length ? [`  ${s.bold("p")}  yes, always for this project: ${project.join(", ")} ${s.gray(`(saved in ${LOCAL_SETTINGS_FILE})`)}`] : []),
      `  ${s.bold("n")}  no`,
      `  ${s.bold("m")}  no, and tell the model what to do instead`,
    ];
    const body = (p: Preview, all: boolean) => {
      const shown = all ? p.full : p.lines;
      const more = !all && p.hidden ? [`  ${s.gray(`… ${p.hidden} more line${p.hidden === 1 ? "" : "s"} (d shows all)`)}`] : [];
      return [...shown.map((l) => `  ${l}`), ...more];
    };
    let all = false;
    for (;;) {
      const question = [
        `${s.yellow("?")} Allow ${s.bold(what)}  ${s.gray(`risk: ${req.tool.risk} · from ${req.tool.source}`)}`,
        // A subagent's call: say which agent asks (its calls are not the conversation the user is reading).
        ...(req.agent ? [`  ${s.gray("asked by the")} ${s.bold(printable(req.agent.name))} ${s.gray("agent")}`] : []),
        ...body(preview, all),
        ...guarded,
        ...parts,
        ...caution,
        ...why,
        ...choices,
        `${s.yellow(">")} `,
      ].join("\n");
      const answer = await options.ask(question, { oneKey: true });
      if (answer === null) {
        options.onCancel?.();
        return "deny";
      }
      const a = answer.trim().toLowerCase();
      if (a === "y" || a === "yes") return "allow_once";
      if ((a === "a" || a === "always") && req.suggestedRules.length) return "allow_session";
      if (a === "p" && project.length) {
        try {
          const file = options.saveProjectRules!(project);
          options.output.write(`${s.green("✓")} saved ${project.join(", ")} in ${file}\n`);
          return "allow_project";
        } catch (err) {
          options.output.write(`${s.red(`could not save the rule: ${errorMessage(err)}`)}; allowed for this session only\n`);
          return "allow_session";
        }
      }
      if (a === "d" && preview.hidden && !all) {
        all = true;
        continue;
      }
      if (a === "n" || a === "no" || a === "") return "deny";
      if (a === "m") {
        const message = await options.ask(`  ${s.bold("Tell the model")} (Enter for a plain no): `);
        if (message === null) {
          options.onCancel?.();
          return "deny";
        }
        return message.trim() ? { decision: "deny", message: message.trim() } : "deny";
      }
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
  return (question, ask = {}) =>
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
          // One key answers (readline has echoed it by the time this listener runs).
          if (ask.oneKey) {
            const onKey = (s: string | undefined, key: { ctrl?: boolean; meta?: boolean } | undefined) => {
              if (!isAnswerKey(s, key)) return;
              input.off("keypress", onKey);
              output.write("\n");
              finish(s!);
            };
            input.on("keypress", onKey);
            rl.once("close", () => input.off("keypress", onKey));
          }
        }),
      30);
    });
}

/** A printable key pressed on its own (not Enter, not a control or meta chord): a one-key answer. */
export function isAnswerKey(s: string | undefined, key: { ctrl?: boolean; meta?: boolean; name?: string } | undefined): boolean {
  return typeof s === "string" && s.length === 1 && s > " " && s !== "\x7f" && !key?.ctrl && !key?.meta;
}
