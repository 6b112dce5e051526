/**
 * The markdown-commands plugin: every `.md` file under a commands folder (discover.ts) is a slash
 * command whose body, expanded when it runs (run.ts), is the prompt sent to the model. Claude Code's
 * `.claude/commands` files work as they do there. Written only against the public plugin API.
 *
 * Precedence: built-in commands > project files (`.agent` before `.claude`) > user files > other
 * plugins' commands > skills. This plugin is `enforce: "pre"` and comes right after the built-in
 * `commands` plugin, so its registrations follow the built-ins' and precede everyone else's; the
 * registration gate keeps the first of a name and reports the rest. A clash between two files is
 * reported here, with both paths.
 */
import os from "node:os";
import { definePlugin, type CommandDefinition, type ConfigEnv, type PluginContext } from "../../core/index.js";
import { commandRoots, discoverCommands, pluginCommandRoots, type FoundCommand } from "./discover.js";
import { grantPart } from "./grant-part.js";
import type { RunState } from "./run.js";

function definition(found: FoundCommand, ctx: PluginContext, state: () => Promise<RunState>): CommandDefinition {
  const { parsed } = found;
  return {
    name: found.name,
    description: parsed.description,
    ...(parsed.argumentHint ? { argumentHint: parsed.argumentHint } : {}),
    source: found.root.label,
    async run(args, cctx) {
      // Loaded on first use: listing commands never pays for shell-quote and the expander.
      const { runMarkdownCommand } = await import("./run.js");
      return runMarkdownCommand(found, args, cctx, ctx, await state());
    },
  };
}

/**
 * A project command's `allowed-tools` are a part of the folder the user decides on with its trust: named
 * here, so the trust question and `agent doctor` show them and the decision covers them as they are.
 */
async function admitCommandGrants(env: ConfigEnv): Promise<void> {
  const roots = commandRoots({ projectRoot: env.projectRoot, userConfigDir: undefined, home: os.homedir() }).filter((r) => r.scope === "project");
  const found = await discoverCommands(roots);
  if (!found.commands.some((c) => c.parsed.allowedTools.length)) return;
  for (const c of found.commands) if (c.parsed.allowedTools.length) env.trust.admit(grantPart(c, c.parsed.allowedTools));
}

export default definePlugin({
  name: "markdown-commands",
  enforce: "pre",
  async config(_config, env) {
    await admitCommandGrants(env);
  },
  setup(ctx) {
    let state: Promise<RunState> | undefined;
    const runState = () => (state ??= import("./run.js").then((m) => m.newRunState()));
    ctx.hooks.registerCommands.tap("discover", async (registrar) => {
      const roots = [...commandRoots({ projectRoot: ctx.workspace.root, userConfigDir: ctx.userConfigDir, home: os.homedir() }), ...pluginCommandRoots(ctx.host.plugins)];
      const found = await discoverCommands(roots);
      for (const p of found.problems) ctx.report({ kind: "config", name: p.path, message: `Command file ${p.path} skipped: ${p.message}` });
      for (const s of found.shadowed) {
        ctx.report({
          kind: "config",
          name: s.name,
          message: `Command /${s.name}: ${s.winner.file} (${s.winner.root.label}) is used; ${s.loser.file} (${s.loser.root.label}) is shadowed by it`,
        });
      }
      for (const cmd of found.commands) {
        // A refusal (a built-in's name) is reported by the registration gate; the file is named here too.
        if (!registrar.add(definition(cmd, ctx, runState))) ctx.log.debug(`/${cmd.name} from ${cmd.file} was not registered`);
      }
    });
  },
});
