/**
 * A call made for a subagent (`CallOptions.agent`): refused outside the agent's tools, bounded by a
 * narrower mode, and named in the audit record, the tool events, the hooks' views and the question.
 */
import { afterAll, afterEach, describe, expect, test } from "vitest";
import type { AgentEvent, PermissionRequest, ToolCallInfo, ToolDefinition } from "../../core/index.js";
import { closeHosts, hostWithTools } from "../helpers/host.js";
import { cleanupTemp } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const look: ToolDefinition = { name: "look", description: "Reads.", risk: "read", inputSchema: { type: "object" }, run: () => "seen" };
const change: ToolDefinition = { name: "change", description: "Writes.", risk: "write", inputSchema: { type: "object" }, run: () => "changed" };
const agent = { name: "reviewer", parentCallId: "task_1" };

describe("calls made for a subagent", () => {
  test("a tool outside the agent's tools is refused and audited with the agent and its parent call", async () => {
    const { host, audit } = await hostWithTools([look, change], { permissionMode: "bypass" });
    const refused = await host.tools.call("change", {}, { agent: { ...agent, tools: ["look"] } });
    expect(refused).toMatchObject({ ok: false, outcome: "denied" });
    expect(refused.output).toBe("Tool change is not available to the reviewer agent; its tools are: look.");
    expect((await host.tools.call("look", {}, { agent: { ...agent, tools: ["look"] } })).output).toBe("seen");
    await host.close();
    const calls = audit().filter((r) => r.kind === "call");
    expect(calls).toEqual([
      expect.objectContaining({ name: "change", outcome: "denied", by: "agent:reviewer", agent: "reviewer", parentCallId: "task_1" }),
      expect.objectContaining({ name: "look", outcome: "ok", agent: "reviewer", parentCallId: "task_1" }),
    ]);
  });

  test("a narrower mode denies what only the session's mode allowed; a wider one changes nothing", async () => {
    const { host } = await hostWithTools([look, change], { permissionMode: "acceptEdits" });
    const inPlan = await host.tools.call("change", {}, { agent: { name: "planner", mode: "plan" } });
    expect(inPlan.output).toBe("Permission denied: change (risk: write) was not run because the planner agent runs in plan mode, which does not allow it.");
    expect((await host.tools.call("change", {}, { agent: { name: "careful", mode: "default" } })).outcome).toBe("denied");
    expect((await host.tools.call("look", {}, { agent: { name: "planner", mode: "plan" } })).output).toBe("seen");
    expect((await host.tools.call("change", {}, { agent: { name: "wide", mode: "bypass" } })).output).toBe("changed");
  });

  test("a narrower mode leaves an allow rule standing, except plan", async () => {
    const { host } = await hostWithTools([change], { permissionMode: "acceptEdits", config: { permissions: { allow: ["change"] } } });
    expect((await host.tools.call("change", {}, { agent: { name: "careful", mode: "default" } })).output).toBe("changed");
    expect((await host.tools.call("change", {}, { agent: { name: "planner", mode: "plan" } })).outcome).toBe("denied");
  });

  test("events, hook views and the permission question name the agent", async () => {
    const seen: { before?: ToolCallInfo; after?: ToolCallInfo; check?: unknown; prompt?: unknown; asked?: PermissionRequest } = {};
    const events: AgentEvent[] = [];
    const { host } = await hostWithTools([change], {
      askPermission: async (req) => {
        seen.asked = req as PermissionRequest;
        return "allow_once";
      },
      plugin: {
        setup(ctx) {
          ctx.hooks.beforeToolCall.tap("t", (call) => void (seen.before = call));
          ctx.hooks.afterToolCall.tap("t", (_r, call) => void (seen.after = call));
          ctx.hooks.permission.tap("t", (check) => void (seen.check = check.agent));
          ctx.hooks.permissionRequest.tap("t", (info) => void (seen.prompt = info.agent));
        },
      },
    });
    host.on((e) => void events.push(e));
    expect((await host.tools.call("change", {}, { agent })).output).toBe("changed");
    expect(seen.asked?.agent).toEqual(agent);
    expect(seen.check).toEqual(agent);
    expect(seen.prompt).toEqual(agent);
    expect(seen.before?.agent).toEqual(agent);
    expect(seen.after?.agent).toEqual(agent);
    expect(events.filter((e) => e.type === "tool_start" || e.type === "tool_end").map((e) => (e as { agent?: unknown }).agent)).toEqual([agent, agent]);
    // The main conversation's calls carry no agent.
    seen.before = undefined;
    await host.tools.call("change", {});
    expect(seen.before).not.toHaveProperty("agent");
  });
});
