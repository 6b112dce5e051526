// An example third-party plugin. Published as `agent-plugin-hello`, it is enabled with
// `plugins: ["hello"]` (or `["hello", { greeting: "Hi" }]`) in the project's agent config.
import { definePlugin, defineTool, defineCommand, z } from "agent-host";

export default definePlugin((options = {}) => {
  const greeting = typeof options.greeting === "string" ? options.greeting : "Hello";
  return {
    name: "hello",
    tools: [
      defineTool({
        name: "greet",
        description: "Greet someone by name.",
        risk: "read",
        input: z.object({ name: z.string().min(1).describe("Who to greet") }),
        run: ({ name }) => `${greeting}, ${name}!`,
      }),
    ],
    commands: [
      defineCommand({
        name: "greet",
        description: "Ask the model to greet someone",
        argumentHint: "<name>",
        run: (args) => ({ prompt: `Use the greet tool to greet ${args || "the user"}.` }),
      }),
    ],
    skills: [
      {
        name: "greeting-etiquette",
        description: "How to greet people politely. Use when asked to greet someone.",
        content: "# Greeting etiquette\n\nAlways use the person's preferred name.",
      },
    ],
    // A typed hook handler: deny greetings to nobody in particular.
    beforeToolCall(call) {
      if (call.tool.name === "greet" && call.input.name === "nobody") return { deny: "refusing to greet nobody" };
    },
  };
});
