/**
 * `PluginContext.traceCalls`: a plugin that traces calls gives each running call's trace context, which the
 * tool reads as `ToolCallContext.traceContext` (to pass to the servers it calls); with none, it is undefined.
 */
import { afterEach, describe, expect, test } from "vitest";
import type { ToolDefinition } from "../../core/index.js";
import { createTestHost as make, type TestHost } from "../../testing/index.js";

const echo: ToolDefinition = { name: "echo_trace", description: "Says its trace context.", risk: "read", inputSchema: { type: "object" }, run: (_input, ctx) => JSON.stringify(ctx.traceContext ?? null) };

let t: TestHost | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("trace context of a call", () => {
  test("a tracing plugin's context for the call is the tool's ctx.traceContext", async () => {
    const asked: string[] = [];
    t = await make({
      plugins: [
        { name: "echo", tools: [echo] },
        {
          name: "tracer",
          setup(ctx) {
            ctx.traceCalls((callId) => {
              asked.push(callId);
              return { traceparent: `00-${"a".repeat(32)}-${"b".repeat(16)}-01`, tracestate: `call=${callId}` };
            });
          },
        },
      ],
    });
    const r = await t.host.tools.call("echo_trace", {}, { callId: "c1" });
    expect(JSON.parse(r.output)).toEqual({ traceparent: `00-${"a".repeat(32)}-${"b".repeat(16)}-01`, tracestate: "call=c1" });
    expect(asked).toEqual(["c1"]);
  });

  test("with no tracing plugin it is undefined", async () => {
    t = await make({ plugins: [{ name: "echo", tools: [echo] }] });
    expect((await t.host.tools.call("echo_trace", {})).output).toBe("null");
  });
});
