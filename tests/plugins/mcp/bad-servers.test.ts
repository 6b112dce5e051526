/**
 * Servers that answer badly cost only what they got wrong: a tool with an invalid schema (not the
 * whole server), a JSON-RPC error to one call (not the connection, nor the calls running beside it),
 * a flood of stderr (not the disk).
 */
import { existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../../core/index.js";
import { getMcpStatus } from "../../../plugins/mcp/status.js";
import { checkTool, danglingRef } from "../../../plugins/mcp/tool-list.js";
import { MAX_LOG_BYTES } from "../../../plugins/mcp/transport/server-log.js";
import { cleanup, fixture, mcpHost, tempDir } from "./_helpers.js";

afterAll(cleanup);

describe("a tools/list with invalid schemas", () => {
  let host: Host;
  beforeAll(async () => {
    host = await mcpHost({ bad: fixture("bad-schemas") });
  });

  it("keeps the valid tools usable", async () => {
    const names = host.tools.list().filter((t) => t.source === "mcp:bad").map((t) => t.name);
    expect(names.sort()).toEqual(["mcp__bad__good", "mcp__bad__nested_ok", "mcp__bad__no_type"]);
    expect(await host.tools.call("mcp__bad__good", { q: "x" })).toMatchObject({ ok: true, output: 'good {"q":"x"}' });
    expect(await host.tools.call("mcp__bad__nested_ok", { a: "y" })).toMatchObject({ ok: true });
    // No "type" but "properties": taken as an object schema (and validated as one).
    expect(host.tools.get("mcp__bad__no_type")!.inputSchema).toMatchObject({ type: "object", properties: { q: { type: "string" } } });
    expect(await host.tools.call("mcp__bad__no_type", { q: 1 })).toMatchObject({ ok: false, outcome: "invalid" });
    expect(getMcpStatus(host)[0]).toMatchObject({ status: "connected", tools: 3 });
  });

  it("reports each skipped tool with its name and the reason, as a whole sentence", () => {
    const messages = host.problems.filter((p) => p.kind === "server" && p.name === "bad").map((p) => p.message);
    const tail = ". Its other tools are available.";
    expect(messages).toEqual([
      `MCP server bad: tool "string_type" skipped: its inputSchema has type "string"; it must be "object"${tail}`,
      `MCP server bad: tool "array_type" skipped: its inputSchema has type ["object"]; it must be "object"${tail}`,
      `MCP server bad: tool "dangling_ref" skipped: its inputSchema has a $ref to "#/$defs/missing", which the schema does not define${tail}`,
      `MCP server bad: tool "no_schema" skipped: it has no inputSchema (MCP requires one, of type "object")${tail}`,
      `MCP server bad: tool "not_an_object" skipped: its inputSchema is not a JSON Schema object (got the string "object")${tail}`,
      `MCP server bad: tool "bad_output" skipped: its outputSchema has type "array"; it must be "object"${tail}`,
      `MCP server bad: tool "#9" skipped: it has no "name" (got nothing)${tail}`,
    ]);
    expect(getMcpStatus(host)[0].skippedTools?.map((t) => t.name)).toEqual(["string_type", "array_type", "dangling_ref", "no_schema", "not_an_object", "bad_output", "#9"]);
  });

  it("checks schemas without trusting their shape", () => {
    expect(danglingRef({ $defs: { a: { $ref: "#/$defs/b" }, b: {} }, properties: { x: { $ref: "#/$defs/a" } } })).toBeUndefined();
    expect(danglingRef({ properties: { x: { $ref: "#/properties/y" } } })).toBe("#/properties/y");
    expect(danglingRef({ $defs: { "a/b": {} }, properties: { x: { $ref: "#/$defs/a~1b" } } })).toBeUndefined();
    expect(danglingRef({ properties: { x: { $ref: "#here" }, y: { $anchor: "here" } } })).toBeUndefined();
    expect(danglingRef({ properties: { x: { $ref: "https://example.com/other.json" } } })).toBe("https://example.com/other.json");
    expect(checkTool({ name: "t", inputSchema: {} }, 0)).toMatchObject({ tool: { inputSchema: { type: "object" } } });
    // A tool that runs only as a task would fail every call: left out, with the reason.
    expect(checkTool({ name: "t", inputSchema: { type: "object" }, execution: { taskSupport: "required" } }, 0)).toMatchObject({ skipped: { reason: expect.stringMatching(/runs only as a task/) } });
    expect(checkTool({ name: "t", inputSchema: { type: "object" }, execution: { taskSupport: "optional" } }, 0)).toHaveProperty("tool");
    expect(checkTool({ name: "t", inputSchema: { $ref: "#/$defs/x", $defs: { x: {} } } }, 0)).toMatchObject({ skipped: { reason: 'its inputSchema has no "type" (MCP requires type "object")' } });
    expect(checkTool({ name: "t", inputSchema: { properties: {}, items: {} } }, 0)).toMatchObject({ skipped: { reason: 'its inputSchema has no "type" and has "items", so it is not clearly an object schema' } });
    expect(checkTool({ name: "t", inputSchema: { type: "object" }, annotations: { readOnlyHint: "yes" } }, 0)).toMatchObject({
      skipped: { name: "t", reason: "annotations.readOnlyHint: Invalid input: expected boolean, received string" },
    });
  });
});

describe("JSON-RPC error answers to tools/call", () => {
  let host: Host;
  beforeAll(async () => {
    host = await mcpHost({ e: fixture("jsonrpc-errors") });
  });

  it("are tool errors with the server's code and message; a call in flight beside them is untouched", async () => {
    const pid = Number((await host.tools.call("mcp__e__pid", {})).output);
    const slow = host.tools.call("mcp__e__slow", { ms: 400 });
    const closed = await host.tools.call("mcp__e__fail", { code: -32000, message: "tool threw" });
    expect(closed).toMatchObject({
      ok: false,
      outcome: "error",
      output: 'Tool mcp__e__fail failed: the server answered with error -32000: tool threw (data: {"detail":"from the fixture"})',
    });
    const timeout = await host.tools.call("mcp__e__fail", { code: -32001, message: "upstream timed out" });
    expect(timeout.output).toBe('Tool mcp__e__fail failed: the server answered with error -32001: upstream timed out (data: {"detail":"from the fixture"})');
    expect((await host.tools.call("mcp__e__fail", { code: -32602, message: "bad\nmulti-line\nmessage" })).output).toContain("error -32602: bad multi-line message");
    expect(await slow).toMatchObject({ ok: true, output: "slow done" });
    // Same process: nothing was restarted, nothing was reported.
    expect(Number((await host.tools.call("mcp__e__pid", {})).output)).toBe(pid);
    expect(getMcpStatus(host)[0]).toMatchObject({ status: "connected", pid });
    expect(host.problems).toEqual([]);
  });

  it("fails a call whose error answer is not valid JSON-RPC at once, with the reason", async () => {
    const r = await host.tools.call("mcp__e__bad_error", {});
    expect(r.output).toBe("Tool mcp__e__bad_error failed: MCP server e sent an answer that was refused: its error code is not an integer");
    expect(await host.tools.call("mcp__e__slow", { ms: 1 })).toMatchObject({ ok: true });
  });
});

describe("a server that floods stderr", () => {
  it("keeps its log under 1 MiB while it runs, rotating to .log.1", async () => {
    const cwd = tempDir();
    const log = path.join(cwd, ".agent", "logs", "mcp-flood.log");
    // A big log left by an earlier session is rotated too.
    mkdirSync(path.dirname(log), { recursive: true });
    writeFileSync(log, "old session\n".repeat(200_000));
    const host = await mcpHost({ flood: fixture("stderr-flood", "--at-start", "1") }, { cwd });
    for (let i = 0; i < 3; i++) {
      const r = await host.tools.call("mcp__flood__flood", { mb: 1 });
      expect(r.output).toMatch(/^flooded \d+$/);
      expect(statSync(log).size).toBeLessThanOrEqual(MAX_LOG_BYTES);
      expect(statSync(`${log}.1`).size).toBeLessThanOrEqual(MAX_LOG_BYTES);
    }
    // The newest lines are kept.
    const last = Number((await host.tools.call("mcp__flood__flood", { mb: 0.1 })).output.split(" ")[1]);
    await host.close();
    const text = readFileSync(log, "utf8");
    expect(text).toContain(`flood line ${last} `);
    expect(existsSync(`${log}.2`)).toBe(false);
    expect(readFileSync(`${log}.1`, "utf8")).not.toContain("old session");
  });
});
