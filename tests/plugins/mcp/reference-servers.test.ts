/**
 * The reference MCP servers from npm, over real stdio: server-everything (tools, resources, prompts,
 * structured content, binary content, progress), server-filesystem confined to a temp folder, and
 * server-memory with its file in a temp folder.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AgentEvent, Host } from "../../../core/index.js";
import { getMcpStatus } from "../../../plugins/mcp/status.js";
import { cleanup, EVERYTHING, FILESYSTEM, mcpHost, MEMORY, node, tempDir } from "./_helpers.js";

afterAll(cleanup);

describe("server-everything over stdio", () => {
  let host: Host;
  beforeAll(async () => {
    // Trusted: its annotations and names set the risk (an untrusted server's cannot lower it, see risk.test.ts).
    host = await mcpHost({ everything: { ...node(EVERYTHING, "stdio"), trust: true } });
  });

  it("connects and registers its tools with their annotations as risk", () => {
    // Its task-only tool would fail every plain call: it is left out, and the user is told why.
    expect(host.problems.map((p) => p.message)).toEqual([
      'MCP server everything: tool "simulate-research-query" skipped: it runs only as a task (execution.taskSupport "required"), which agent does not call. Its other tools are available.',
    ]);
    expect(host.tools.get("mcp__everything__simulate-research-query")).toBeUndefined();
    const status = getMcpStatus(host)[0];
    expect(status).toMatchObject({ status: "connected", transport: "stdio", resources: true, server: { name: "mcp-servers/everything" } });
    expect(status.tools).toBeGreaterThanOrEqual(10);
    const echo = host.tools.get("mcp__everything__echo")!;
    expect(echo).toMatchObject({ risk: "read", source: "mcp:everything", description: "[MCP:everything] Echoes back the input string" });
    expect(echo.inputSchema).toMatchObject({ type: "object", properties: { message: { type: "string" } }, required: ["message"] });
    // openWorldHint: true → network; readOnlyHint: false → write.
    expect(host.tools.get("mcp__everything__gzip-file-as-resource")!.risk).toBe("network");
    expect(host.tools.get("mcp__everything__toggle-simulated-logging")!.risk).toBe("write");
  });

  it("calls tools: text, structured content, binary content summarized", async () => {
    expect(await host.tools.call("mcp__everything__echo", { message: "hi" })).toMatchObject({ ok: true, output: "Echo: hi" });
    const sum = await host.tools.call("mcp__everything__get-sum", { a: 2, b: 40 });
    expect(sum).toMatchObject({ ok: true, output: expect.stringContaining("42") });
    const weather = await host.tools.call("mcp__everything__get-structured-content", { location: "New York" });
    expect(weather.ok).toBe(true);
    expect(weather.structured).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });
    const image = await host.tools.call("mcp__everything__get-tiny-image", {});
    expect(image.output).toMatch(/^\[image \(image\/png, [\d.]+ (bytes|KiB)\)\]$/m);
    expect(image.output).not.toMatch(/iVBOR/); // no base64 dump
  });

  it("validates input against the tool's JSON Schema before sending", async () => {
    const bad = await host.tools.call("mcp__everything__echo", { message: 42 });
    expect(bad).toMatchObject({ ok: false, outcome: "invalid", output: "Invalid input for mcp__everything__echo:\n- message: must be string" });
  });

  it("reports progress of a long-running operation", async () => {
    const seen: AgentEvent[] = [];
    const off = host.on((e) => void (e.type === "tool_progress" && seen.push(e)));
    const result = await host.tools.call("mcp__everything__trigger-long-running-operation", { duration: 0.3, steps: 3 });
    off();
    expect(result.ok).toBe(true);
    expect(seen.map((e) => (e.type === "tool_progress" ? [e.progress, e.total] : []))).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });

  it("lists and reads resources through a read-only tool", async () => {
    const tool = host.tools.get("mcp__everything__resources")!;
    expect(tool.risk).toBe("read");
    const listing = await host.tools.call("mcp__everything__resources", {});
    expect(listing.output).toContain("- demo://resource/static/document/architecture.md — architecture.md (text/markdown)");
    expect(listing.output).toContain("Resource templates");
    const doc = await host.tools.call("mcp__everything__resources", { uri: "demo://resource/static/document/architecture.md" });
    expect(doc.ok).toBe(true);
    expect(doc.output.length).toBeGreaterThan(100);
    const missing = await host.tools.call("mcp__everything__resources", { uri: "demo://nope" });
    expect(missing).toMatchObject({ ok: false, outcome: "error" });
  });

  it("offers its prompts as slash commands", async () => {
    const cmd = host.commands.get("mcp__everything__args-prompt")!;
    expect(cmd).toMatchObject({ argumentHint: "<city> [state]", source: "mcp:everything" });
    expect(await host.commands.run("/mcp__everything__simple-prompt")).toEqual({ prompt: "This is a simple prompt without arguments." });
    const withArgs = await host.commands.run('/mcp__everything__args-prompt city="San Francisco" state=CA');
    expect(withArgs.prompt).toContain("San Francisco");
    expect(withArgs.prompt).toContain("CA");
    const missing = await host.commands.run("/mcp__everything__args-prompt");
    expect(missing.output).toBe("Command /mcp__everything__args-prompt failed: missing required argument city; usage: <city> [state]");
  });

  it("answers an elicitation it cannot fill with defaults by declining", async () => {
    const result = await host.tools.call("mcp__everything__trigger-elicitation-request", {});
    expect(result.ok).toBe(true);
    expect(result.output).toMatch(/declined/i);
  });

  it("shows status through /mcp", async () => {
    const out = await host.commands.run("/mcp");
    expect(out.output).toMatch(/^everything: connected \(stdio\), \d+ tools$/);
  });
});

describe("the environment of a stdio server", () => {
  it("holds the safe defaults and the server's own env, not the host's secrets", async () => {
    process.env.AGENT_TEST_PARENT_SECRET = "do-not-leak-123";
    try {
      const host = await mcpHost({ everything: { ...node(EVERYTHING, "stdio"), env: { OWN_SETTING: "${AGENT_TEST_PARENT_SECRET:-x}-own" } } });
      const env = JSON.parse((await host.tools.call("mcp__everything__get-env", {})).output) as Record<string, string>;
      expect(env.OWN_SETTING).toBe("do-not-leak-123-own"); // passed on only because the config asked for it
      expect(env.PATH).toBe(process.env.PATH);
      expect(Object.values(env)).not.toContain("do-not-leak-123");
      expect(env.AGENT_TEST_PARENT_SECRET).toBeUndefined();
    } finally {
      delete process.env.AGENT_TEST_PARENT_SECRET;
    }
  });
});

describe("server-filesystem, confined to a temp folder", () => {
  it("with roots (the default), its folders are the workspace roots plus the folder its command line gave it; nothing else", async () => {
    const workspace = tempDir();
    const given = tempDir();
    const outside = tempDir();
    writeFileSync(path.join(workspace, "in-workspace.txt"), "workspace file\n");
    writeFileSync(path.join(given, "given.txt"), "given folder\n");
    writeFileSync(path.join(outside, "secret.txt"), "nope\n");
    const host = await mcpHost({ fs: { ...node(FILESYSTEM, given), trust: true } }, { cwd: workspace });
    // The server asks for the roots after the handshake and applies them when the answer comes: a call made
    // before that (a loaded machine) still sees only its command line's folder. Wait for the condition.
    await vi.waitFor(
      async () => expect(await host.tools.call("mcp__fs__read_text_file", { path: path.join(workspace, "in-workspace.txt") })).toMatchObject({ ok: true, output: "workspace file\n" }),
      { timeout: 60_000, interval: 200 },
    );
    // A .mcp.json written for a client without roots (Claude Code's) keeps working: its folder stays.
    expect(await host.tools.call("mcp__fs__read_text_file", { path: path.join(given, "given.txt") })).toMatchObject({ ok: true, output: "given folder\n" });
    expect((await host.tools.call("mcp__fs__read_text_file", { path: path.join(outside, "secret.txt") })).output).toMatch(/Access denied - path outside allowed directories/);
  });

  it('reads and writes inside, is refused outside ("roots": false keeps the folder it was given)', async () => {
    const dir = tempDir();
    const outside = tempDir();
    writeFileSync(path.join(dir, "hello.txt"), "hello from the sandbox\n");
    writeFileSync(path.join(outside, "secret.txt"), "nope\n");
    const host = await mcpHost({ fs: { ...node(FILESYSTEM, dir), trust: true, roots: false } });
    expect(host.tools.get("mcp__fs__read_text_file")!.risk).toBe("read");
    expect(host.tools.get("mcp__fs__write_file")!.risk).toBe("write");
    expect(await host.tools.call("mcp__fs__read_text_file", { path: path.join(dir, "hello.txt") })).toMatchObject({ ok: true, output: "hello from the sandbox\n" });
    const written = await host.tools.call("mcp__fs__write_file", { path: path.join(dir, "new.txt"), content: "made by a tool" });
    expect(written.ok).toBe(true);
    expect(readFileSync(path.join(dir, "new.txt"), "utf8")).toBe("made by a tool");
    const denied = await host.tools.call("mcp__fs__read_text_file", { path: path.join(outside, "secret.txt") });
    expect(denied).toMatchObject({ ok: false, outcome: "error" });
    expect(denied.output).toMatch(/Access denied - path outside allowed directories/);
  });
});

describe("server-memory, its file in a temp folder", () => {
  it("stores entities, and a call with bad input never reaches the server", async () => {
    const dir = tempDir();
    const file = path.join(dir, "memory.jsonl");
    const host = await mcpHost({ memory: { ...node(MEMORY), env: { MEMORY_FILE_PATH: file } } });
    const bad = await host.tools.call("mcp__memory__create_entities", { entities: [{ name: "x", entityType: "y", observations: "not an array" }] });
    expect(bad).toMatchObject({ ok: false, outcome: "invalid" });
    expect(bad.output).toContain("entities[0].observations: must be array");
    expect(existsSync(file)).toBe(false);

    const created = await host.tools.call("mcp__memory__create_entities", { entities: [{ name: "agent-host", entityType: "project", observations: ["has an MCP plugin"] }] });
    expect(created.ok).toBe(true);
    const graph = await host.tools.call("mcp__memory__read_graph", {});
    expect(graph.output).toContain("has an MCP plugin");
    expect(readFileSync(file, "utf8")).toContain("agent-host");
  });
});
