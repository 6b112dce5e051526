/**
 * The conversation's events on the host's public hooks: SessionStart (context for the system prompt),
 * UserPromptSubmit (block the prompt, or add context to it), Stop (make the run go on, bounded by the
 * host), PreCompact (block compaction), SubagentStart / SubagentStop (told, not asked) and SessionEnd.
 */
import type { PluginContext } from "../../core/index.js";
import type { Dispatcher } from "./dispatch.js";

export function tapSessionHooks(ctx: PluginContext, d: Dispatcher): void {
  if (d.has("SessionStart")) {
    ctx.hooks.sessionStart.tapPromise("SessionStart", async (s) => {
      const c = await d.run("SessionStart", { names: [s.source], fields: { source: s.source, model: s.model }, signal: s.signal });
      if (c.contexts.length) return { context: c.contexts.join("\n\n") };
    });
  }
  if (d.has("UserPromptSubmit")) {
    ctx.hooks.userPromptSubmit.tapPromise("UserPromptSubmit", async (p) => {
      const c = await d.run("UserPromptSubmit", { names: [], fields: { prompt: p.prompt }, signal: p.signal });
      if (c.decision === "block") return { block: c.reason ?? "blocked by a UserPromptSubmit hook" };
      if (c.stop) return { block: c.stop };
      if (c.contexts.length) return { context: c.contexts.join("\n\n") };
    });
  }
  if (d.has("Stop")) {
    ctx.hooks.stop.tapPromise("Stop", async (s) => {
      const c = await d.run("Stop", { names: [], fields: { stop_hook_active: s.stopHookActive, last_assistant_message: s.lastMessage }, signal: s.signal });
      if (c.stop) {
        ctx.log.warn(`Stop hook: ${c.stop}`);
        return;
      }
      if (c.decision === "continue" && c.reason) return { continue: `Stop hook: ${c.reason}` };
    });
  }
  if (d.has("PreCompact")) {
    ctx.hooks.preCompact.tapPromise("PreCompact", async (x) => {
      const c = await d.run("PreCompact", { names: [x.trigger], fields: { trigger: x.trigger, custom_instructions: x.instructions } });
      if (c.decision === "block") return { block: c.reason ?? "blocked by a PreCompact hook" };
    });
  }
  // Subagents (the task tool): who starts, and what it answered when it stops. Its id is the task call's.
  if (d.has("SubagentStart")) {
    ctx.hooks.subagentStart.tapPromise("SubagentStart", async (s) => {
      await d.run("SubagentStart", { names: [s.agent], fields: { agent_id: s.parentCallId ?? s.agent, agent_type: s.agent } });
    });
  }
  if (d.has("SubagentStop")) {
    ctx.hooks.subagentStop.tapPromise("SubagentStop", async (s) => {
      await d.run("SubagentStop", { names: [s.agent], fields: { agent_id: s.parentCallId ?? s.agent, agent_type: s.agent, stop_hook_active: false, last_assistant_message: s.text } });
    });
  }
  if (d.has("SessionEnd")) {
    ctx.hooks.sessionEnd.tapPromise("SessionEnd", async (s) => {
      // Claude Code's reasons: `clear` for /clear, `other` for the rest (here: the host closing).
      const reason = s.reason === "clear" ? "clear" : "other";
      await d.run("SessionEnd", { names: [reason], fields: { reason }, sessionId: s.sessionId });
    });
  }
}
