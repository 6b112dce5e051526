/**
 * Running one Markdown command: read the file again (an edit takes effect at once, as in Claude Code),
 * ask for its `allowed-tools` before anything runs (so the grant covers its `!` commands), expand the
 * body through the gate, and hand back the prompt for the model.
 */
import type { CommandContext, CommandResult, PluginContext } from "../../core/index.js";
import { toolRules } from "../../kit/index.js";
import { argumentValues } from "./arguments.js";
import { loadCommand, type FoundCommand } from "./discover.js";
import { expandBody } from "./expand.js";
import { grantPart } from "./grant-part.js";
import { commandModel } from "./model.js";

export interface RunState {
  /** Grant answers by session, command and rules: each is asked once. */
  grants: Map<string, Promise<boolean>>;
  /** Notices given once per host (an unsupported `model`, dropped tools). */
  told: Set<string>;
}

export function newRunState(): RunState {
  return { grants: new Map(), told: new Set() };
}

function grantFor(rules: string[], found: FoundCommand, allowedTools: string[], cctx: CommandContext, plugin: PluginContext, state: RunState): Promise<boolean> {
  const name = found.name;
  // A trusted folder's own command: its allowed-tools apply for its turn (each run asks the host again).
  if (found.root.scope === "project" && plugin.trust.trusted) {
    return plugin.requestGrant({ rules, reason: `command /${name} lists allowed-tools`, part: grantPart(found, allowedTools) });
  }
  const key = [cctx.host.sessionId, name, ...rules].join("\n");
  let answer = state.grants.get(key);
  if (!answer) {
    answer = plugin.requestGrant({ rules, reason: `command /${name} lists allowed-tools` });
    state.grants.set(key, answer);
  }
  return answer;
}

export async function runMarkdownCommand(found: FoundCommand, args: string, cctx: CommandContext, plugin: PluginContext, state: RunState): Promise<CommandResult> {
  const name = found.name;
  const fresh = await loadCommand(found.file, name, found.root);
  if (typeof fresh === "string") throw new Error(`${found.file} ${fresh}`);
  const cmd = fresh.parsed;
  const once = (key: string, say: () => void) => {
    if (state.told.has(key)) return;
    state.told.add(key);
    say();
  };
  const notes: string[] = [];
  const model = commandModel(cmd.model, cctx.host);
  if (model && "skipped" in model) once(`model\n${name}`, () => plugin.log.info(`/${name}: ${model.skipped}.`));
  const turnModel = model && "model" in model ? { model: model.model } : {};
  // A command file of a folder the user has not trusted is text: its ! commands do not run, its allowed-tools grant nothing.
  const untrusted = found.root.scope === "project" && !plugin.trust.trusted;
  if (cmd.allowedTools.length && untrusted) notes.push(`/${name}: allowed-tools not asked for: this folder is not trusted (agent trust).`);
  else if (cmd.allowedTools.length) {
    const { rules, dropped } = toolRules(cmd.allowedTools, cctx.host.tools.list());
    if (dropped.length) {
      once(`dropped\n${name}\n${dropped.join("\n")}`, () => plugin.log.warn(`/${name}: allowed-tools ${dropped.join(", ")} name no tool here; dropped.`));
    }
    // Only the user's own invocation may widen permissions; a command run by code gets the usual rules.
    const granted = rules.length > 0 && cctx.byUser && (await grantFor(rules, found, cmd.allowedTools, cctx, plugin, state));
    if (rules.length && !granted) notes.push(`/${name}: allowed-tools ${rules.join(", ")} not granted; its ! commands ran under the usual permission rules.`);
  }
  const values = argumentValues(found.root.dialect, args, cmd.argumentNames, cctx.host.sessionId);
  const noShell = untrusted ? "this folder is not trusted (agent trust)" : undefined;
  const body = withVars(cmd.body, found.root.vars);
  const { prompt, used } = await expandBody(body, { host: cctx.host, signal: cctx.signal, args: values, ...(noShell ? { noShell } : {}) });
  // As Claude Code does: arguments a body never mentions are appended rather than lost.
  const text = !used && args.trim() ? [prompt, `ARGUMENTS: ${args}`].filter(Boolean).join("\n\n") : prompt;
  if (!text.trim()) return { output: [...notes, `/${name} (${found.file}) gave an empty prompt; nothing was sent.`].join("\n") };
  return notes.length ? { prompt: text, output: notes.join("\n"), ...turnModel } : { prompt: text, ...turnModel };
}

/** `${NAME}` of the root's variables replaced (a plugin's `${CLAUDE_PLUGIN_ROOT}`), the rest left as written. */
function withVars(body: string, vars: Record<string, string> | undefined): string {
  if (!vars) return body;
  return body.replace(/\$\{([A-Z_]+)\}/g, (whole, name: string) => vars[name] ?? whole);
}
