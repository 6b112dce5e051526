/** The pretty renderer's tool lines and agent audit's table: a subagent's call names its agent; the session's own calls do not. */
import { expect, test } from "vitest";
import { toolLine } from "../../cli/render/pretty-lines.js";
import { createStyle } from "../../cli/render/_style.js";

const end = { type: "tool_end" as const, callId: "c", name: "read_file", outcome: "ok" as const, durationMs: 3, outputBytes: 1, truncated: false };

test("a subagent's tool line names the agent", () => {
  const s = createStyle(false);
  expect(toolLine({ ...end, agent: { name: "explore", parentCallId: "t" } }, undefined, s, 80)).toBe("✓   explore › read_file 3ms");
  expect(toolLine(end, undefined, s, 80)).toBe("✓ read_file 3ms");
});

test("agent audit names a subagent's calls under their agent", async () => {
  const { nameCell } = await import("../../cli/commands/audit.js");
  expect(nameCell({ kind: "call", name: "read_file", agent: "reviewer", parentCallId: "task_1" })).toBe("reviewer › read_file");
  expect(nameCell({ kind: "call", name: "task" })).toBe("task");
});
