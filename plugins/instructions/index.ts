/**
 * Project instructions: the instruction files (`AGENTS.md`, `CLAUDE.md`, `.claude/CLAUDE.md`,
 * `CLAUDE.local.md` from the project root down to the working directory, the user's own and
 * `~/.claude/CLAUDE.md`, with Claude Code's `@path` imports; read by `loadInstructions` of agent-host/kit)
 * appended to the system prompt through the `systemPrompt` hook. Read anew each time the prompt is put
 * together, so an edit counts from the next request. Written only against the public API.
 */
import { definePlugin, type PluginContext } from "../../core/index.js";
import { loadInstructions } from "../../kit/index.js";

export default definePlugin({
  name: "instructions",
  setup(ctx: PluginContext) {
    ctx.hooks.systemPrompt.tap("instructions", (prompt) => {
      const { text } = loadInstructions({ root: ctx.workspace.root, cwd: prompt.cwd, userConfigDir: prompt.userConfigDir, workspace: ctx.workspace });
      return text ? { section: text } : undefined;
    });
  },
});
