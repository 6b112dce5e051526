/**
 * The plugin in a real host: tools through the real gate, commands as a user types them, and the
 * agent loop against a scripted model. Nothing is mocked.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createTestHost, type ScriptedTurn, type TestHost } from "agent-host/testing";
import { afterEach, expect, test } from "vitest";

// The plugin is loaded the way a project's config loads it, `[file, options]`, so its options are
// validated and defaulted exactly as they will be for users.
const PLUGIN = fileURLToPath(new URL("../src/index.ts", import.meta.url));

const hosts: TestHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((t) => t.close()));
});

async function host(options: Record<string, unknown> = {}, model?: ScriptedTurn[]): Promise<TestHost> {
  const t = await createTestHost({ plugins: [[PLUGIN, options]], model });
  hosts.push(t);
  return t;
}

test("the tool runs through the gate, with the configured greeting", async () => {
  const t = await host({ greeting: "Hi" });
  expect(await t.call("__TOOL__", { name: "Ada" })).toMatchObject({ ok: true, outcome: "ok", output: "Hi, Ada!" });
  // The gate checks the input against the tool's schema before the tool runs.
  expect(await t.call("__TOOL__", {})).toMatchObject({ ok: false, outcome: "invalid" });
});

test("the slash command returns a prompt for the model", async () => {
  const t = await host();
  expect(await t.command("/__COMMAND__ Ada")).toMatchObject({ prompt: expect.stringContaining("greet Ada") });
});

test("the policy denies greeting a refused name", async () => {
  const t = await host({ refuse: ["Mallory"] });
  const result = await t.call("__TOOL__", { name: "Mallory" });
  expect(result).toMatchObject({ ok: false, outcome: "denied" });
  expect(result.output).toContain("not to greet Mallory");
  expect(await t.call("__TOOL__", { name: "Ada" })).toMatchObject({ ok: true, output: "Hello, Ada!" });
});

test("bad options are a config error naming the option", async () => {
  await expect(createTestHost({ plugins: [[PLUGIN, { greeting: 42 }]] })).rejects.toThrow(/greeting/);
});

test("it loads with its tool and command, and its skill has the frontmatter skills need", async () => {
  const t = await host();
  expect(t.host.plugins.find((p) => p.name === "__NAME__")).toMatchObject({ status: "loaded" });
  // By name, not by count: adding a second tool or command keeps this test true.
  expect(t.host.tools.get("__TOOL__")?.plugin).toBe("__NAME__");
  expect(t.host.commands.list().some((c) => c.plugin === "__NAME__")).toBe(true);
  // agent-host lists skills from `skillDirs` once the package is installed in a project (`agent skills`).
  const skill = readFileSync(new URL("../skills/__BARE__-guide/SKILL.md", import.meta.url), "utf8");
  expect(skill).toMatch(/^---\nname: __BARE__-guide\ndescription: \S.*\n---\n/);
});

test("in the agent loop, the model calls the tool and gets its result", async () => {
  const t = await host({}, [{ toolCalls: [{ name: "__TOOL__", input: { name: "Ada" } }] }, { text: "I greeted Ada." }]);
  const run = await t.host.run("Please greet Ada");
  expect(run).toMatchObject({ ok: true, toolCalls: 1, text: "I greeted Ada." });
  // The second request carries the tool's result back to the model.
  const second = t.model!.requests[1];
  expect(second.messages).toContainEqual(expect.objectContaining({ role: "tool", name: "__TOOL__", content: "Hello, Ada!" }));
});
