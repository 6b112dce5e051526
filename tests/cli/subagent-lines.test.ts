/** The pretty renderer's tool lines: a subagent's call names its agent; the session's own calls do not. */
import { expect, test } from "vitest";
import { toolLine } from "../../cli/render/pretty-lines.js";
import { createStyle } from "../../cli/render/_style.js";

const end = { type: "tool_end" as const, callId: "c", name: "read_file", outcome: "ok" as const, durationMs: 3, outputBytes: 1, truncated: false };

test("a subagent's tool line names the agent", () => {
  const s = createStyle(false);
  expect(toolLine({ ...end, agent: { name: "explore", parentCallId: "t" } }, undefined, s, 80)).toBe("✓   explore › read_file 3ms");
  expect(toolLine(end, undefined, s, 80)).toBe("✓ read_file 3ms");
});
