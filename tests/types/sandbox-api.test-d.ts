/**
 * Type tests of the sandbox part of the public API: a tool wraps its spawn with `ctx.sandbox`, a plugin
 * finds the same on its setup context, an embedder builds one for a workspace, and the config key's
 * shape. Checked by vitest's typecheck; nothing here runs.
 */
import { describe, expectTypeOf, test } from "vitest";
import { defineConfig, definePlugin, defineTool, z, type CommandSandbox, type SandboxedSpawn, type Workspace } from "../../core/index.js";
import { type SandboxSpawnSpec, type SandboxStatus } from "../../core/embed.js";
import { createCommandSandbox } from "../../cli/builtins.js";

describe("the sandbox for plugin authors", () => {
  test("a tool wraps the process it starts and explains what the sandbox refused", () => {
    defineTool({
      name: "make",
      description: "run make",
      risk: "execute",
      input: z.object({}),
      async run(_input, ctx) {
        expectTypeOf(ctx.sandbox).toEqualTypeOf<CommandSandbox>();
        const w = await ctx.sandbox.wrap({ file: "make", args: [], cwd: ctx.cwd, env: { ...process.env, ...ctx.env } });
        expectTypeOf(w).toEqualTypeOf<SandboxedSpawn>();
        expectTypeOf(w.args).toEqualTypeOf<string[]>();
        expectTypeOf(w.kind).toEqualTypeOf<"bwrap" | "seatbelt" | "none">();
        expectTypeOf(w.explain({ stdout: "", stderr: "", exitCode: 1 })).toEqualTypeOf<string | undefined>();
        // @ts-expect-error explain needs the exit code: a command that succeeded is read differently
        w.explain({ stdout: "", stderr: "" });
        // @ts-expect-error the spec names an absolute folder to run in
        await ctx.sandbox.wrap({ file: "make", args: [], env: {} });
        w.dispose();
        return w.notice ?? "ok";
      },
    });
  });

  test("a plugin's setup has it too, with the hooks opt-in and the status", () => {
    definePlugin({
      name: "hooks-like",
      async setup(ctx) {
        expectTypeOf(ctx.sandbox.hooks).toEqualTypeOf<boolean>();
        const st = await ctx.sandbox.status();
        expectTypeOf(st).toEqualTypeOf<SandboxStatus>();
        expectTypeOf(st.reason).toEqualTypeOf<string | undefined>();
        expectTypeOf(ctx.sandbox.describe()).toEqualTypeOf<string>();
        // @ts-expect-error whether hooks are sandboxed is the user's setting, not the plugin's
        ctx.sandbox.hooks = false;
      },
    });
  });

  test("an embedder builds one from config, and the config key is typed", () => {
    const ws = {} as Workspace;
    expectTypeOf(createCommandSandbox({ network: ["registry.npmjs.org"], allowWrite: ["~/.cache"] }, ws)).toEqualTypeOf<CommandSandbox>();
    expectTypeOf<SandboxSpawnSpec["cwd"]>().toEqualTypeOf<string>();
    defineConfig({ sandbox: { enabled: true, required: false, hooks: true, denyRead: ["secrets"], network: "none" } });
    // @ts-expect-error network is "none", "all" or a list of hosts
    defineConfig({ sandbox: { network: "some" } });
  });
});
