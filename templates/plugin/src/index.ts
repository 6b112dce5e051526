/**
 * __PACKAGE__: a plugin for agent-host. A project enables it in its config (`.agentrc.json`):
 *   { "plugins": ["__NAME__"] }  or, with options,  { "plugins": [["__NAME__", { "greeting": "Hi" }]] }
 * The host imports this module and calls its default export with those options.
 */
import { defineCommand, definePlugin, defineTool, isCallTo, z } from "agent-host";

// The options a project may set. The host checks them against this schema before calling the factory
// below: a wrong option is a config error naming it, and the defaults fill in what is left out.
// Use the `z` agent-host exports (not a zod of your own), so host and plugin share one zod.
const Options = z.object({
  greeting: z.string().min(1).default("Hello"),
  /** Names the tool refuses to greet (enforced by the `beforeToolCall` policy below). */
  refuse: z.array(z.string()).default([]),
});

/** The options as a config file gives them (every key optional). */
export type PluginOptions = z.input<typeof Options>;

export default definePlugin(Options, ({ greeting, refuse }) => {
  // A tool the model can call. Every call, from the model or from `agent call`, goes through the
  // host's gate: the input is checked against the zod schema, permissions apply (`read` tools run
  // without asking by default), and the call is audited.
  const greet = defineTool({
    name: "__TOOL__",
    description: "Greet someone by name.",
    risk: "read",
    input: z.object({ name: z.string().min(1).describe("Who to greet") }),
    run: ({ name }) => `${greeting}, ${name}!`,
  });

  return {
    name: "__NAME__",
    tools: [greet],
    commands: [
      // A slash command: `/__COMMAND__ Ada` sends the prompt it returns to the model.
      defineCommand({
        name: "__COMMAND__",
        description: "Ask the model to greet someone",
        argumentHint: "<name>",
        run: (args) => ({ prompt: `Use the __TOOL__ tool to greet ${args.trim() || "the user"}.` }),
      }),
    ],
    // Folders of SKILL.md skills, relative to this package (published through package.json `files`).
    skillDirs: ["skills"],
    // A policy: runs before every tool call, whichever plugin the tool is from. `isCallTo` checks the
    // call is to our tool and gives `call.input` that tool's input type. Returning `{ deny }` stops it.
    beforeToolCall(call) {
      if (isCallTo(call, greet) && refuse.includes(call.input.name)) {
        return { deny: `__NAME__ is configured not to greet ${call.input.name}` };
      }
    },
  };
});
