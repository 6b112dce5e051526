/**
 * Tool search end to end: the built CLI, an MCP server with 300 tools over stdio, the real provider
 * SDKs against the fake model servers. The first request carries the tool names, not their schemas;
 * the model searches, gets the definitions, and calls the tool in the next turn through the gate.
 */
import path from "node:path";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { REPO, startFake, type FakeServer } from "../../core/loop-helpers.js";
import { WAIT_FOR_SERVERS, assertBuilt, cleanEnv, makeProject, runCli, type Project } from "../../cli/run-helpers.js";

beforeAll(assertBuilt);

const MANY = path.join(REPO, "tests", "fixtures", "mcp", "many-tools.mjs");
let srv: FakeServer | undefined;
let project: Project | undefined;
afterEach(async () => {
  await srv?.close();
  await project?.remove();
  srv = project = undefined;
});

type Body = { tools?: { name?: string; function?: { name: string } }[]; system?: unknown; messages?: { role: string; content: unknown }[] };
const toolNames = (body: Body) => (body.tools ?? []).map((t) => t.function?.name ?? t.name);
const bytes = (body: unknown) => JSON.stringify(body).length;

async function setup(kind: "openai" | "anthropic", config: Record<string, unknown> = {}) {
  srv = await startFake(kind, [
    { text: "Searching.", toolCalls: [{ id: "call_s1", name: "tool_search", arguments: { query: "tool_42" } }] },
    { text: "Calling.", toolCalls: [{ id: "call_t1", name: "mcp__many__tool_42", arguments: {} }] },
    { text: "tool_42 answered." },
  ]);
  project = await makeProject({
    model: kind === "openai" ? "openai:gpt-fake" : "anthropic:claude-fake",
    providers: { [kind]: { baseURL: srv.baseURL, apiKey: "test-key" } },
    mcpServers: { many: { command: process.execPath, args: [MANY] } },
    permissions: { mode: "bypass" },
    // Every test here reads the first request, which must know the server's tools.
    tools: WAIT_FOR_SERVERS,
    ...config,
  });
  return { dir: project.dir, env: cleanEnv({}, project.dir) };
}

describe.each(["openai", "anthropic"] as const)("%s: search, then call", (kind) => {
  test("the first request names 300 tools in a few KB; the searched tool is sent and called next", async () => {
    const { dir, env } = await setup(kind);
    const r = await runCli(["run", "-p", "Use tool 42"], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("tool_42 answered.");
    const [first, second, third] = srv!.requests.map((q) => q.body as Body);
    // Built-in and local tools stay; MCP tools are named in the system prompt instead.
    expect(toolNames(first)).toContain("tool_search");
    expect(toolNames(first)).toContain("read_file");
    expect(toolNames(first).some((n) => n?.startsWith("mcp__many__"))).toBe(false);
    expect(JSON.stringify(first)).toContain("mcp__many__{tool_0,tool_1,");
    expect(bytes(first.tools)).toBeLessThan(10_000);
    // The search result carried the definition; from then on the tool is part of every request.
    expect(JSON.stringify(second.messages)).toContain("mcp__many__tool_42");
    expect(toolNames(second)).toContain("mcp__many__tool_42");
    expect(toolNames(second)).not.toContain("mcp__many__tool_43");
    expect(JSON.stringify(third.messages)).toContain("tool_42");
  });
});

test("mode off sends every schema; a config's alwaysLoad keeps a deferred tool in every request", async () => {
  const { dir, env } = await setup("openai", { toolSearch: { mode: "off" } });
  expect((await runCli(["run", "-p", "Use tool 42"], { cwd: dir, env })).code).toBe(0);
  const off = srv!.requests[0].body as Body;
  expect(toolNames(off).filter((n) => n?.startsWith("mcp__many__")).length).toBeGreaterThan(290);
  expect(toolNames(off)).not.toContain("tool_search");
  await srv!.close();
  await project!.remove();

  const kept = await setup("openai", { toolSearch: { alwaysLoad: ["mcp__many__tool_7*"] } });
  expect((await runCli(["run", "-p", "Use tool 42"], { cwd: kept.dir, env: kept.env })).code).toBe(0);
  const names = toolNames(srv!.requests[0].body as Body);
  expect(names).toContain("mcp__many__tool_7");
  expect(names).toContain("mcp__many__tool_77");
  expect(names).not.toContain("mcp__many__tool_42");
});

test("calling a deferred tool that was never loaded gives a result saying how to load it", async () => {
  srv = await startFake("openai", [
    { text: "Straight in.", toolCalls: [{ id: "call_x", name: "mcp__many__tool_5", arguments: {} }] },
    { text: "ok" },
  ]);
  project = await makeProject({
    model: "openai:gpt-fake",
    providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } },
    mcpServers: { many: { command: process.execPath, args: [MANY] } },
    permissions: { mode: "bypass" },
    tools: WAIT_FOR_SERVERS,
  });
  const r = await runCli(["run", "-p", "go"], { cwd: project.dir, env: cleanEnv({}, project.dir) });
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.stringify(srv.requests[1].body)).toContain('Tool mcp__many__tool_5 is not loaded yet: call tool_search with {\\"names\\": [\\"mcp__many__tool_5\\"]} first');
});

describe("loading many tools", () => {
  test("200 exact names load 20, and searches that load 160 in all never send more than 128 tools", async () => {
    const names = (from: number, n: number) => Array.from({ length: n }, (_, i) => `mcp__many__tool_${from + i}`);
    const searches = Array.from({ length: 8 }, (_, k) => ({ text: "More.", toolCalls: [{ id: `call_m${k}`, name: "tool_search", arguments: { names: names(20 + k * 20, 20) } }] }));
    srv = await startFake("openai", [{ text: "Loading.", toolCalls: [{ id: "call_all", name: "tool_search", arguments: { names: names(0, 200) } }] }, ...searches, { text: "Done." }]);
    project = await makeProject({
      model: "openai:gpt-fake",
      providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } },
      mcpServers: { many: { command: process.execPath, args: [MANY] } },
      permissions: { mode: "bypass" },
      tools: WAIT_FOR_SERVERS,
    });
    const r = await runCli(["run", "-p", "Load everything"], { cwd: project.dir, env: cleanEnv({}, project.dir) });
    expect(r.code, r.stderr).toBe(0);
    const bodies = srv.requests.map((q) => q.body as Body);
    expect(bodies).toHaveLength(10);
    // The 200-name search loaded 20, and said so.
    expect(JSON.stringify(bodies[1].messages)).toContain("Loaded 20 tool(s) (at most 20 a search: ask again for the rest)");
    expect(toolNames(bodies[1]).filter((n) => n?.startsWith("mcp__many__"))).toHaveLength(20);
    for (const body of bodies) expect(toolNames(body).length).toBeLessThanOrEqual(128);
    // The last search's tools are in the last request; the ones loaded first were left out again.
    const last = toolNames(bodies[9]);
    expect(last).toEqual(expect.arrayContaining(names(160, 20)));
    expect(last).not.toContain("mcp__many__tool_0");
  });
});
