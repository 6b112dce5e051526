/**
 * The tool events on the host's public hooks: PreToolUse votes in `permission` (so its allow can skip
 * a question the mode would ask, its ask can force one, its updatedInput is validated and decided
 * again by the gate), PermissionRequest answers in `permissionRequest`, PostToolUse and
 * PostToolUseFailure run in `afterToolCall`, and Notification hears `permission_request` events.
 * Everything a hook decides goes through the gate's checks, exactly as a TypeScript plugin's would.
 */
import path from "node:path";
import { type CallAgentInfo, type PermissionPromptAnswer, type PermissionVote, type PluginContext, type RegisteredTool, type ToolResult } from "../../core/index.js";
import { shellSubjects } from "../../kit/index.js";
import type { Dispatcher } from "./dispatch.js";
import { TOOL_MAP, claudeName, failureText, fromClaudeInput, outputText, toClaudeInput, toClaudeResponse, toolNames } from "./tool-map.js";

/** How hooks' context reaches the model next to a tool result (the host marks plugin context the same way). */
export function withContext(output: string, contexts: readonly string[]): string {
  return contexts.length ? `${output}\n\n<context from="hooks">\n${contexts.join("\n\n")}\n</context>` : output;
}

/** Whether the tool's permission subjects are paths (the built-in file tools). */
function pathTool(tool: RegisteredTool): boolean {
  const m = Object.hasOwn(TOOL_MAP, tool.name) ? TOOL_MAP[tool.name] : undefined;
  return !!m && m.paths.length > 0 && tool.aliases?.includes(m.claude) === true;
}

/** What rules would see in a call, for `if` after the permission step (where the gate handed them over). */
async function subjectsOf(tool: RegisteredTool, input: unknown, root: string): Promise<string[] | undefined> {
  const i = (input ?? {}) as Record<string, unknown>;
  if (claudeName(tool) === "Bash" && typeof i.command === "string") return shellSubjects(i.command);
  if (pathTool(tool)) {
    const abs = path.resolve(root, typeof i.path === "string" ? i.path : ".");
    const rel = path.relative(root, abs);
    return [rel === "" ? "." : rel.startsWith("..") || path.isAbsolute(rel) ? abs : rel.split(path.sep).join("/")];
  }
  return undefined;
}

/** Claude Code's `permission_suggestions`, from the rules that would allow the call. */
function suggestions(tool: RegisteredTool, rules: readonly string[]) {
  return rules.map((r) => {
    const open = r.indexOf("(");
    const content = open < 0 ? undefined : r.slice(open + 1, -1);
    return { type: "addRules", rules: [{ toolName: claudeName(tool), ...(content ? { ruleContent: content } : {}) }], behavior: "allow", destination: "session" };
  });
}

export function tapToolHooks(ctx: PluginContext, d: Dispatcher): void {
  const root = ctx.workspace.root;
  // PreToolUse context waits here for the call's result (bounded: a call stopped after the permission step never takes it).
  const pending = new Map<string, string[]>();
  const keep = (callId: string, contexts: string[]) => {
    pending.set(callId, contexts);
    if (pending.size > 1000) pending.delete(pending.keys().next().value!);
  };
  // A subagent's call says which agent makes it, as Claude Code's do (the agent's id is the task call that started it).
  const base = (tool: RegisteredTool, input: unknown, agent?: CallAgentInfo) => ({
    ...(agent ? { agent_id: agent.parentCallId ?? agent.name, agent_type: agent.name } : {}),
    tool_name: claudeName(tool),
    tool_input: toClaudeInput(tool, input, root),
  });

  if (d.has("PreToolUse")) {
    ctx.hooks.permission.tapPromise("PreToolUse", async (check): Promise<PermissionVote | void> => {
      const c = await d.run("PreToolUse", {
        names: toolNames(check.tool),
        fields: { ...base(check.tool, check.input, check.agent), tool_use_id: check.callId },
        callId: check.callId,
        signal: check.signal,
        call: { tool: check.tool, subjects: check.subjects, paths: pathTool(check.tool) },
      });
      if (!c.ran) return;
      const vote: PermissionVote = {};
      if (c.stop) {
        ctx.stopRun(c.stop);
        vote.decision = "deny";
        vote.reason = `A PreToolUse hook stopped the run: ${c.stop}`;
      } else if (c.decision === "allow" || c.decision === "ask" || c.decision === "deny") {
        vote.decision = c.decision;
        if (c.reason) vote.reason = `PreToolUse hook: ${c.reason}`;
      }
      if (c.contexts.length) {
        if (vote.decision === "deny") vote.reason = withContext(vote.reason ?? "Denied by a PreToolUse hook.", c.contexts);
        else keep(check.callId, c.contexts);
      }
      if (c.updatedInput !== undefined && vote.decision !== "deny") vote.input = fromClaudeInput(check.tool, c.updatedInput, root);
      return Object.keys(vote).length ? vote : undefined;
    });
  }

  if (d.has("PermissionRequest")) {
    ctx.hooks.permissionRequest.tapPromise("PermissionRequest", async (req): Promise<PermissionPromptAnswer | void> => {
      const c = await d.run("PermissionRequest", {
        names: toolNames(req.tool),
        fields: { ...base(req.tool, req.input, req.agent), permission_suggestions: suggestions(req.tool, req.suggestedRules) },
        callId: req.callId,
        signal: req.signal,
        call: { tool: req.tool, subjects: req.subjects, paths: pathTool(req.tool) },
      });
      if (c.stop) ctx.stopRun(c.stop);
      if (c.decision === "deny") return { decision: "deny", reason: c.reason ? `PermissionRequest hook: ${c.reason}` : "denied by a PermissionRequest hook" };
      if (c.decision === "allow") return { decision: "allow", ...(c.updatedInput !== undefined ? { input: fromClaudeInput(req.tool, c.updatedInput, root) } : {}) };
    });
  }

  if (d.has("PreToolUse") || d.has("PostToolUse") || d.has("PostToolUseFailure")) {
    ctx.hooks.afterToolCall.tapPromise("PostToolUse", async (result, call): Promise<ToolResult | void> => {
      const before = pending.get(call.callId) ?? [];
      pending.delete(call.callId);
      // Failures of a tool that ran (it threw, timed out or reported an error); a cancelled call fires nothing.
      const event = result.ok ? "PostToolUse" : result.outcome === "error" || result.outcome === "timeout" ? "PostToolUseFailure" : undefined;
      let contexts = before;
      let output = result.output;
      if (event && d.has(event)) {
        const tool = call.tool;
        const fields: Record<string, unknown> = { ...base(tool, call.input, call.agent), tool_use_id: call.callId, ...(result.durationMs > 0 ? { duration_ms: Math.round(result.durationMs) } : {}) };
        if (event === "PostToolUse") fields.tool_response = toClaudeResponse(tool, call.input, result as ToolResult, root);
        else Object.assign(fields, { error: failureText(tool, result as ToolResult), is_interrupt: false });
        const c = await d.run(event, { names: toolNames(tool), fields, callId: call.callId, call: { tool, subjects: await subjectsOf(tool, call.input, root), paths: pathTool(tool) } });
        if (c.stop) ctx.stopRun(c.stop);
        contexts = [...contexts, ...c.contexts];
        if (c.updatedOutput !== undefined) output = outputText(c.updatedOutput);
      }
      if (!contexts.length && output === result.output) return;
      return { ...(result as ToolResult), output: withContext(output, contexts) };
    });
  }

  if (d.has("Notification")) {
    // The user is about to be asked in a terminal: Claude Code's `permission_prompt` notification.
    ctx.hooks.event.tap({ name: "Notification", types: ["permission_request"] }, (e) => {
      if (e.type !== "permission_request") return;
      const what = e.subject ? `${e.name}(${e.subject})` : e.name;
      void d
        .run("Notification", { names: ["permission_prompt"], fields: { message: `agent needs your permission to use ${what}`, title: "Permission needed", notification_type: "permission_prompt" }, callId: e.callId })
        .catch((err: unknown) => ctx.log.warn(`Notification hook failed: ${String(err)}`));
    });
  }
}
