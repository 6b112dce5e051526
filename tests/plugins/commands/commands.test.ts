/** The built-in slash commands, through the host's command registry. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, test } from "vitest";
import { openHost, startFake, type FakeServer, type FakeServerOptions, type TestHost, type Turn } from "../../core/loop-helpers.js";

let srv: FakeServer | undefined;
let t: TestHost | undefined;
afterEach(async () => {
  await t?.close();
  await srv?.close();
  t = srv = undefined;
});

async function host(script: Turn[] = [], serverOpts: FakeServerOptions = {}) {
  srv = await startFake("openai", script, serverOpts);
  t = await openHost("openai", srv, {
    tools: [{ name: "peek", description: "Look at something\nin detail", risk: "read", inputSchema: { type: "object" }, run: () => "" }],
  });
  return t.host;
}

test("/help lists every command with its hint", async () => {
  const h = await host();
  const { output } = await h.commands.run("/help");
  for (const name of ["help", "tools", "model", "mode", "clear", "usage", "exit"]) expect(output).toContain(`/${name}`);
  expect(output).toContain("/mode [default|plan|acceptEdits|bypass]");
  expect(output).toContain("Ctrl-C");
});

test("/tools lists tools with risk and source", async () => {
  const h = await host();
  const { output } = await h.commands.run("/tools");
  expect(output).toMatch(/peek\s+read\s+test-tools\s+Look at something in detail/);
});

test("/exit asks the session to end", async () => {
  const h = await host();
  expect(await h.commands.run("/exit")).toEqual({ exit: true });
});

test("/clear forgets the conversation", async () => {
  const h = await host(["Hi there."]);
  await h.run("Hello");
  expect(h.session.messages).toHaveLength(2);
  expect((await h.commands.run("/clear")).output).toBe("Conversation cleared (2 messages).");
  expect(h.session.messages).toHaveLength(0);
});

test("/model shows, validates and switches the model", async () => {
  const h = await host();
  expect((await h.commands.run("/model")).output).toContain("Model: openai:test-model");
  expect((await h.commands.run("/model nonsense")).output).toContain("is not provider:model");
  expect((await h.commands.run("/model nope:x")).output).toContain('Unknown provider "nope"');
  expect((await h.commands.run("/model anthropic:claude-x")).output).toBe("Model: anthropic:claude-x");
  expect(h.session.model).toBe("anthropic:claude-x");
});

test("/model list asks the provider for its models", async () => {
  const h = await host([], { models: ["gpt-one", "gpt-two"] });
  expect((await h.commands.run("/model list")).output).toBe("  openai:gpt-one\n  openai:gpt-two");
});

test("/mode shows and sets the permission mode when the user types it; the change is audited with who made it", async () => {
  const h = await host();
  expect((await h.commands.run("/mode", { asUser: true })).output).toContain("Permission mode: default");
  expect((await h.commands.run("/mode acceptedits", { asUser: true })).output).toContain("Permission mode: acceptEdits");
  expect(h.permissionMode).toBe("acceptEdits");
  expect((await h.commands.run("/mode yolo", { asUser: true })).output).toContain('Unknown mode "yolo"');
  const audit = readFileSync(path.join(h.workspace.root, ".agent/audit.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  expect(audit.find((r) => r.kind === "mode")).toMatchObject({ source: "user:/mode (plugin commands)", name: "acceptEdits", detail: { from: "default", to: "acceptEdits" } });
});

test("/mode run by code (not typed by the user) cannot change the mode", async () => {
  const h = await host();
  expect((await h.commands.run("/mode bypass")).output).toBe("The permission mode can only be changed by you, typing /mode bypass.");
  expect(h.permissionMode).toBe("default");
});

test("/usage reports the session's tokens", async () => {
  const h = await host([{ text: "ok", usage: { input: 1200, output: 34 } }]);
  await h.run("Hi");
  expect((await h.commands.run("/usage")).output).toBe("Tokens this session: 1,200 in, 34 out.");
});

test("/skills lists registered skills with their source", async () => {
  const h = await host();
  expect((await h.commands.run("/skills")).output).toMatch(/^No skills\./);
  srv = await startFake("openai", []);
  t = await openHost("openai", srv, { plugins: [{ name: "sk", skills: [{ name: "pdf-forms", description: "Fill PDF forms", content: "# x" }] }] });
  expect((await t.host.commands.run("/skills")).output).toMatch(/1 skills:\n\s+pdf-forms\s+sk\s+Fill PDF forms/);
});

test("/plugins shows what each plugin registered, and why one failed", async () => {
  srv = await startFake("openai", []);
  t = await openHost("openai", srv, { plugins: [{ name: "broken", setup: () => { throw new Error("no config for broken"); } }] });
  const { output } = await t.host.commands.run("/plugins");
  expect(output).toMatch(/commands\s+loaded\s+\d+ tools, \d+ commands/);
  expect(output).toMatch(/broken\s+failed\s+no config for broken/);
});

test("/permissions shows the mode, the rules and where they live", async () => {
  srv = await startFake("openai", []);
  t = await openHost("openai", srv, { config: { permissions: { allow: ["peek"], deny: ["run_command(rm:*)"] } } });
  const { output } = await t.host.commands.run("/permissions");
  expect(output).toContain("Mode: default (change it with /mode)");
  expect(output).toContain("deny  run_command(rm:*)");
  expect(output).toContain("allow peek");
  expect(output).toContain("ask   (none)");
});

test("/audit shows the last records; a bad count is explained", async () => {
  const h = await host();
  await h.tools.call("peek", {});
  const { output } = await h.commands.run("/audit 5");
  expect(output).toMatch(/^Last \d+ of .*audit\.jsonl:/);
  expect(output).toMatch(/call\s+peek\s+ok/);
  expect((await h.commands.run("/audit lots")).output).toBe('Usage: /audit [n], n a positive whole number; got "lots".');
});
