/** Tool lists written for other agents (allowed-tools, Claude Code rules) as this host's permission rules. */
import { expect, test } from "vitest";
import { builtinPlugins } from "../../cli/builtins.js";
import { splitToolList, toolRules } from "../../kit/index.js";
import { closeHosts, testHost } from "../helpers/host.js";

test("a list splits on spaces and commas outside parentheses", () => {
  expect(splitToolList("Bash(git log:*) Read, Write  Grep,Bash(npm test:*)")).toEqual(["Bash(git log:*)", "Read", "Write", "Grep", "Bash(npm test:*)"]);
  expect(splitToolList(["Bash(echo (x))", "Read"])).toEqual(["Bash(echo (x))", "Read"]);
  expect(splitToolList(undefined)).toEqual([]);
});

test("Claude Code's names map through the aliases the built-in tools declare; unknown names are dropped", async () => {
  const { host } = await testHost({ builtins: builtinPlugins.filter((b) => b.name === "tools") });
  try {
    const list = ["Bash(git add:*)", "Read", "Write", "Edit", "MultiEdit", "Glob", "LS", "Grep", "Task", "run_command(ls)", "nope(x)", "Bash(rm:*))"];
    expect(toolRules(list, host.tools.list())).toEqual({
      rules: ["run_command(git add:*)", "read_file", "write_file", "edit_file", "list_files", "grep", "run_command(ls)"],
      dropped: ["Task", "nope(x)", "Bash(rm:*))"],
    });
  } finally {
    await closeHosts();
  }
});
