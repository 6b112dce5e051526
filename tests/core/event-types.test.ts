/**
 * An `event` tap may name the event types it wants: it hears only those, and a host whose taps all
 * name other types builds no tool events for a call and asks no progress of its tools
 * (`ctx.wantsProgress`). A tap without types, or a `host.on` listener, hears everything, as before.
 */
import { afterAll, afterEach, expect, test } from "vitest";
import { z, type AgentEvent, type ToolDefinition } from "../../core/index.js";
import { closeHosts, hostWithTools } from "../helpers/host.js";
import { cleanupTemp } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const seen: boolean[] = [];
const probe: ToolDefinition = {
  name: "probe",
  description: "says whether progress is wanted",
  input: z.object({}),
  risk: "read",
  run: (_i, ctx) => {
    seen.push(ctx.wantsProgress);
    ctx.progress({ progress: 1, total: 1 });
    return "ok";
  },
};

test("a typed tap hears only its types; with no one else listening, a call builds no tool events and wants no progress", async () => {
  seen.length = 0;
  const heard: AgentEvent["type"][] = [];
  const t = await hostWithTools([probe], {
    plugin: { setup: (ctx) => ctx.hooks.event.tap({ name: "only-ends", types: ["tool_end"] }, (e) => void heard.push(e.type)) },
  });
  expect((await t.host.tools.call("probe", {})).ok).toBe(true);
  expect(heard).toEqual(["tool_end"]);
  expect(seen).toEqual([false]); // tool_progress is heard by no one

  const all: AgentEvent["type"][] = [];
  const off = t.host.on((e) => void all.push(e.type));
  await t.host.tools.call("probe", {});
  off();
  expect(seen).toEqual([false, true]);
  expect(all).toEqual(["tool_start", "tool_progress", "tool_end"]);
  expect(heard).toEqual(["tool_end", "tool_end"]);
});

test("a tap for other types only: no tool event is built at all", async () => {
  seen.length = 0;
  const heard: string[] = [];
  const t = await hostWithTools([probe], {
    plugin: { setup: (ctx) => ctx.hooks.event.tap({ name: "compactions", types: ["compaction"] }, (e) => void heard.push(e.type)) },
  });
  await t.host.tools.call("probe", {});
  expect(heard).toEqual([]);
  expect(seen).toEqual([false]);
});

test("bad types are the plugin's error, reported; the host goes on", async () => {
  const t = await hostWithTools([probe], {
    plugins: [{ name: "bad-tap", setup: (ctx) => ctx.hooks.event.tap({ name: "bad", types: "tool_end" as never }, () => {}) }],
  });
  expect(t.host.problems.map((p) => p.message).join("\n")).toMatch(/event tap types must be an array of event type names/);
  expect((await t.host.tools.call("probe", {})).ok).toBe(true);
});
