/**
 * The loop with a real MCP server in it: the demo server (built to dist/demo-server.js) over stdio,
 * loaded by the MCP plugin from config. The model's calls reach the server through the gate and the
 * results go back to the model; Ctrl-C cancels an MCP call on the server.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, expect, test, vi } from "vitest";
import { openHost, REPO, FIXTURES, startFake, tempDir, toolNamesOf, toolResults, type FakeServer, type TestHost } from "./loop-helpers.js";
import { assertBuilt } from "../cli/run-helpers.js";

const DEMO = path.join(REPO, "dist", "demo-server.js");

beforeAll(assertBuilt);

let srv: FakeServer | undefined;
let t: TestHost | undefined;
let scratch: Awaited<ReturnType<typeof tempDir>> | undefined;
afterEach(async () => {
  await t?.close();
  await srv?.close();
  await scratch?.remove();
  t = srv = scratch = undefined;
});

test("the model calls demo-server tools through the gate and gets their results", async () => {
  srv = await startFake("openai", [
    {
      text: "Calling the demo server.",
      toolCalls: [
        { id: "mcp_1", name: "mcp__demo__echo", arguments: { text: "round trip" } },
        { id: "mcp_2", name: "mcp__demo__add", arguments: { a: 2, b: 3 } },
      ],
    },
    "Echo and add both worked.",
  ]);
  t = await openHost("openai", srv, {
    builtins: ["mcp", "openai"],
    config: { mcpServers: { demo: { command: process.execPath, args: [DEMO], trust: true } } },
  });
  const result = await t.host.run("Use the demo server");

  expect(result).toMatchObject({ ok: true, text: "Echo and add both worked.", toolCalls: 2 });
  expect(toolNamesOf("openai", srv.requests[0])).toEqual(expect.arrayContaining(["mcp__demo__echo", "mcp__demo__add", "mcp__demo__upper"]));
  const echoTool = srv.requests[0].body.tools.find((x: { function: { name: string } }) => x.function.name === "mcp__demo__echo");
  expect(echoTool.function.parameters).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
  expect(t.events.filter((e) => e.type === "tool_start")).toEqual([
    expect.objectContaining({ callId: "mcp_1", name: "mcp__demo__echo", risk: "read" }),
    expect.objectContaining({ callId: "mcp_2", name: "mcp__demo__add", risk: "read" }),
  ]);
  const results = toolResults("openai", srv.requests[1]);
  expect(results.map((r) => r.id)).toEqual(["mcp_1", "mcp_2"]);
  expect(results[0]).toMatchObject({ content: "round trip", isError: false });
  expect(results[1].content).toContain("5");
});

test("cancelling the run cancels the MCP call on the server", async () => {
  scratch = await tempDir("agent-loop-mcp-");
  const cancelLog = path.join(scratch.dir, "cancel.log");
  const startLog = path.join(scratch.dir, "start.log");
  srv = await startFake("openai", [{ toolCalls: [{ id: "slow_1", name: "mcp__slow__slow", arguments: { ms: 30_000 } }] }]);
  t = await openHost("openai", srv, {
    builtins: ["mcp", "openai"],
    config: {
      mcpServers: { slow: { command: process.execPath, args: [path.join(FIXTURES, "mcp", "slow-tool.mjs")], env: { CANCEL_LOG: cancelLog, START_LOG: startLog } } },
      tools: { overrides: { "mcp__slow__*": { risk: "read" } } },
    },
  });
  const controller = new AbortController();
  // Cancel once the server is running the call: aborting right after tool_start can land while the gate
  // still compiles the tool's schema (first call), and then the call is rightly never sent at all.
  t.host.on((e) => {
    if (e.type !== "tool_start") return;
    const abort = () => controller.abort();
    void vi.waitFor(() => readFileSync(startLog, "utf8"), { timeout: 15_000, interval: 10 }).then(abort, abort);
  });
  const result = await t.host.run("Be slow", { signal: controller.signal });

  expect(result.reason).toBe("aborted");
  expect(t.events.find((e) => e.type === "tool_end")).toMatchObject({ name: "mcp__slow__slow", outcome: "aborted" });
  await vi.waitFor(() => expect(readFileSync(cancelLog, "utf8")).toMatch(/^cancelled /m));
});
