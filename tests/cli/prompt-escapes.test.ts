/**
 * Text from outside cannot act on the terminal in a question: a command the model wrote with escape
 * sequences (to erase the line that shows `rm -rf`), a file's content in a diff, an MCP server's
 * question. Control characters are shown as \xNN; newlines, tabs and CRLF line ends read as they are.
 */
import { expect, test } from "vitest";
import type { PermissionRequest, RegisteredTool } from "../../core/index.js";
import { printable } from "../../cli/render/_style.js";
import { createPermissionAsker } from "../../cli/render/permission-prompt.js";

const tool = { name: "run_command", description: "run", risk: "execute", source: "tools", plugin: "tools", inputSchema: { type: "object" } } as RegisteredTool;
const hidden = "rm -rf ~/work\r\x1b[2K\x1b[1Aecho harmless";

test("printable shows control characters, keeps newlines, tabs and CRLF line ends", () => {
  expect(printable(hidden)).toBe("rm -rf ~/work\\x0d\\x1b[2K\\x1b[1Aecho harmless");
  expect(printable("a\tb\r\nc\n\u009bd\x07")).toBe("a\tb\nc\n\\x9bd\\x07");
  expect(printable("plain text, ünïcode ✓")).toBe("plain text, ünïcode ✓");
});

test("the permission question shows the whole command, escapes made visible; a plugin's question too", async () => {
  const asked: string[] = [];
  const asker = createPermissionAsker({ ask: async (q) => (asked.push(q), "n"), output: { write: () => true, isTTY: false } as never });
  const request: PermissionRequest = {
    tool,
    input: { command: hidden },
    subject: hidden,
    parts: [hidden],
    uncertain: false,
    suggestedRule: "run_command(rm -rf ~/work)",
    suggestedRules: [],
    projectRules: [],
    reason: "mode:default",
  };
  expect(await asker(request)).toBe("deny");
  expect(asked[0]).not.toContain("\x1b[2K");
  expect(asked[0]).not.toContain("\r");
  expect(asked[0]).toContain("rm -rf ~/work\\x0d\\x1b[2K\\x1b[1Aecho harmless");
  await asker({ kind: "input", plugin: "mcp", question: "Name?\x1b]0;pwned\x07 " } as never);
  expect(asked[1]).toBe("Name?\\x1b]0;pwned\\x07 ");
});
