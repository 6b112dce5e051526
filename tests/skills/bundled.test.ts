/** The skills bundled with agent-host pass the same checks as anyone's, and what they tell the model exists. */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { parseSkillFile } from "../../kit/index.js";
import { REPO_ROOT } from "../helpers/paths.js";

const DIR = path.join(REPO_ROOT, "skills");
const folders = readdirSync(DIR);

test("there are at least two bundled skills", () => {
  expect(folders.length).toBeGreaterThanOrEqual(2);
});

test.each(folders)("%s is a valid SKILL.md", async (folder) => {
  const file = path.join(DIR, folder, "SKILL.md");
  const parsed = await parseSkillFile(file, readFileSync(file, "utf8"));
  expect(parsed.ok ? "" : parsed.error).toBe("");
  if (!parsed.ok) return;
  expect(parsed.skill.description.length).toBeGreaterThan(100);
  expect(parsed.skill.body.length).toBeGreaterThan(500);
});

test("the commands and files the skills name are real", async () => {
  const plugin = readFileSync(path.join(DIR, "agent-host-plugin/SKILL.md"), "utf8");
  const api = readFileSync(path.join(REPO_ROOT, "core/index.ts"), "utf8");
  for (const name of ["definePlugin", "defineTool", "defineCommand", "defineCliCommand", "isCallTo"]) {
    expect(plugin).toContain(name);
    expect(api).toContain(name);
  }
  const mcp = readFileSync(path.join(DIR, "mcp-troubleshooting/SKILL.md"), "utf8");
  for (const phrase of ["agent mcp list", "agent mcp get", ".agent/logs/mcp-", "/mcp reconnect", "agent audit"]) expect(mcp).toContain(phrase);
  const connection = readFileSync(path.join(REPO_ROOT, "plugins/mcp/session.ts"), "utf8") + readFileSync(path.join(REPO_ROOT, "plugins/mcp/transport/stdio-process.ts"), "utf8");
  for (const text of ["not JSON-RPC", "command not found", "exited with code"]) expect(connection).toContain(text);
});
