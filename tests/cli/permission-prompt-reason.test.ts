/** The terminal question shows why a plugin (a command hook's `ask`) wants the user to look; a question from the mode shows no such line. */
import { expect, test } from "vitest";
import type { PermissionRequest, RegisteredTool } from "../../core/index.js";
import { createPermissionAsker } from "../../cli/render/permission-prompt.js";

const tool = { name: "run_command", description: "run", risk: "execute", source: "tools", plugin: "tools", inputSchema: { type: "object" } } as RegisteredTool;
const request = (reason: string): PermissionRequest => ({
  tool,
  input: { command: "git push" },
  subject: "git push",
  parts: ["git push"],
  uncertain: false,
  suggestedRule: "run_command(git push)",
  suggestedRules: ["run_command(git push)"],
  projectRules: [],
  reason,
});

test("a plugin's reason is shown with the question", async () => {
  const asked: string[] = [];
  const asker = createPermissionAsker({ ask: async (q) => (asked.push(q), "n"), output: { write: () => true, isTTY: false } as never });
  expect(await asker(request("plugin:hooks: PreToolUse hook: pushing needs a person"))).toBe("deny");
  expect(await asker(request("mode:default"))).toBe("deny");
  expect(asked[0]).toContain("asked by hooks: PreToolUse hook: pushing needs a person");
  expect(asked[1]).not.toContain("asked by");
});

test("a subagent's call says which agent asks", async () => {
  const asked: string[] = [];
  const asker = createPermissionAsker({ ask: async (q) => (asked.push(q), "y"), output: { write: () => true, isTTY: false } as never });
  expect(await asker({ ...request("mode:default"), agent: { name: "code-reviewer", parentCallId: "t1" } })).toBe("allow_once");
  expect(asked[0]).toMatch(/\? Allow .*run_command\(git push\).*\n.*asked by the .*code-reviewer.* agent/);
});
