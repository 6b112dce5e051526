/**
 * Command hooks: policies and automation as shell scripts, in Claude Code's contract, so the hooks of
 * a `.claude/settings.json` run unchanged. Config `hooks` (Claude Code's shape) and `hooksConfig`
 * (`failClosed`, `disabled`). Written only against the public API: each event is a tap on one of the
 * host's hooks, and every decision a script makes goes through the gate like any plugin's. The full
 * reference is README.md in this folder.
 */
import { definePlugin } from "../../core/index.js";
import { DEFAULT_PLUGIN_TIMEOUTS } from "../../core/embed.js";
import { HooksConfigSchema, HooksSchema, planHooks } from "./config.js";
import { Dispatcher } from "./dispatch.js";
import { tapSessionHooks } from "./session-hooks.js";
import { tapToolHooks } from "./tool-hooks.js";
import { Transcript } from "./transcript.js";

/** The commands one event's hooks would run, for the trust question. */
function describeHooks(entry: unknown, event: string): string | undefined {
  const commands: string[] = [];
  for (const group of Array.isArray(entry) ? entry : []) {
    for (const hook of Array.isArray(group?.hooks) ? group.hooks : []) if (typeof hook?.command === "string") commands.push(hook.command);
  }
  return commands.length ? `on ${event} runs ${commands.join(" ; ")}` : undefined;
}

export default definePlugin({
  name: "hooks",
  configSections: {
    // Each settings file adds its hooks to the others', as in Claude Code. Hooks are policies: only the
    // user's files set them (a plugin's config hook can neither drop nor add one).
    // From a folder the user has not trusted, no hook runs: each event's hooks are asked about on their own.
    hooks: { schema: HooksSchema, merge: "concat", userOnly: true, trust: { entries: "hooks", describe: describeHooks } },
    hooksConfig: { schema: HooksConfigSchema, userOnly: true },
  },
  setup(ctx) {
    const t = ctx.config.pluginTimeouts;
    const bounds = { callMs: t?.callMs ?? DEFAULT_PLUGIN_TIMEOUTS.callMs, shutdownMs: t?.shutdownMs ?? DEFAULT_PLUGIN_TIMEOUTS.shutdownMs };
    const { plan, warnings } = planHooks(ctx.config.hooks, ctx.config.hooksConfig, bounds);
    for (const message of warnings) ctx.report({ kind: "config", level: "warning", message });
    if (!plan.size) return;
    const dispatcher = new Dispatcher(ctx, plan, new Transcript(ctx));
    tapToolHooks(ctx, dispatcher);
    tapSessionHooks(ctx, dispatcher);
  },
});
