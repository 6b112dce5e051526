/**
 * The `systemPrompt` hook: handlers see the base prompt and append sections, in tap order, after a blank
 * line each; blank sections are dropped; a handler that throws, hangs or answers garbage is skipped
 * (reported); every caller of `systemPrompt` (the loop, compaction's measure, a subagent) gets the same text.
 */
import { afterAll, afterEach, expect, test } from "vitest";
import { type Plugin } from "../../core/index.js";
import { systemPrompt, type SystemPromptInfo } from "../../core/embed.js";
import { scriptedProvider } from "../../testing/index.js";
import { closeHosts, testHost } from "../helpers/host.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";
import instructions from "../../plugins/instructions/index.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

test("sections follow the base in tap order; the instructions plugin's first when it is tapped first", async () => {
  const seen: SystemPromptInfo[] = [];
  const project = tempProject({ "AGENTS.md": "Rule one." });
  const model = scriptedProvider([{ text: "ok" }]);
  const extra: Plugin = { name: "extra", systemPrompt: (p) => (seen.push(p), { section: "Extra section." }) };
  const blank: Plugin = { name: "blank", systemPrompt: () => ({ section: "  \n" }) };
  const { host } = await testHost({ project, plugins: [{ name: "model", providers: [model] }, instructions, extra, blank], config: { model: "scripted:x", systemPrompt: "Base." } });
  await host.run("hi");
  expect(model.requests[0].system).toBe("Base.\n\n# Project instructions (AGENTS.md)\n\nRule one.\n\nExtra section.");
  expect(seen[0]).toMatchObject({ base: "Base.", cwd: host.cwd });
  expect(Object.isFrozen(seen[0])).toBe(true);
  // The same text for every caller (compaction measures it, the CLI and subagents build it this way).
  expect(await systemPrompt(host)).toBe(model.requests[0].system);
  expect(await systemPrompt(host, "Other.")).toBe("Other.\n\n# Project instructions (AGENTS.md)\n\nRule one.\n\nExtra section.");
});

test("without a handler the prompt is the base alone: a host without the instructions plugin reads no AGENTS.md", async () => {
  const project = tempProject({ "AGENTS.md": "Rule one." });
  const { host } = await testHost({ project, config: { systemPrompt: "Base." } });
  expect(await systemPrompt(host)).toBe("Base.");
});

test("a handler that throws, hangs or returns garbage is skipped and reported; the others still add theirs", async () => {
  for (const bad of [() => { throw new Error("boom"); }, () => new Promise<never>(() => {}), () => 42 as never] as Plugin["systemPrompt"][]) {
    const { host } = await testHost({ plugins: [{ name: "bad", systemPrompt: bad }, { name: "good", systemPrompt: () => ({ section: "Good." }) }], config: { systemPrompt: "Base.", pluginTimeouts: { callMs: 100 } } });
    expect(await systemPrompt(host)).toBe("Base.\n\nGood.");
    expect(host.problems).toContainEqual(expect.objectContaining({ plugin: "bad", hook: "systemPrompt" }));
    await host.close();
  }
});
