/**
 * OpenTelemetry export from real `agent run` processes to a real OTLP/HTTP JSON receiver on 127.0.0.1:
 * an invoke_agent span per run with chat and execute_tool children (GenAI attributes, token usage, the
 * permission decision), metrics and audit log records; tool inputs only with telemetry.logToolContent,
 * redacted; nothing exported with no OTEL endpoint or with OTEL_SDK_DISABLED.
 */
import { createServer, type Server } from "node:http";
import path from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { telemetrySettings } from "../../../plugins/telemetry/settings.js";
import { fakeOpenAiProject, spawnCli, cleanEnv } from "../../cli/run-helpers.js";
import { REPO_ROOT } from "../../helpers/paths.js";

vi.setConfig({ testTimeout: 60_000 });

interface Received {
  path: string;
  contentType: string;
  body: any;
}

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** An OTLP/HTTP receiver that keeps every JSON request it gets. */
async function otlpReceiver(): Promise<{ url: string; got: Received[] }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8").on("data", (d: string) => (text += d));
    req.on("end", () => {
      const contentType = String(req.headers["content-type"]);
      got.push({ path: req.url ?? "", contentType, body: contentType.includes("json") ? JSON.parse(text) : text });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, got };
}

const spansOf = (got: Received[]) => got.filter((g) => g.path === "/v1/traces").flatMap((g) => g.body.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans)));
const logsOf = (got: Received[]) => got.filter((g) => g.path === "/v1/logs").flatMap((g) => g.body.resourceLogs.flatMap((r: any) => r.scopeLogs.flatMap((s: any) => s.logRecords)));
const attr = (item: any, key: string) => {
  const v = item.attributes.find((a: any) => a.key === key)?.value;
  return v === undefined ? undefined : (v.stringValue ?? v.intValue ?? v.doubleValue ?? v.boolValue);
};

async function run(project: { dir: string }, env: Record<string, string | undefined>): Promise<{ code: number | null; stderr: string }> {
  const r = spawnCli(["run", "-p", "read the notes"], { cwd: project.dir, env: cleanEnv(env, project.dir) });
  return r.done;
}

const script = [{ toolCalls: [{ id: "call_t1", name: "read_file", arguments: { path: "package.json" } }] }, { text: "The notes are read." }];

describe("telemetry export", () => {
  test("a run exports invoke_agent, chat <model> and execute_tool spans, metrics and audit log records", async () => {
    const otlp = await otlpReceiver();
    const { project } = await fakeOpenAiProject(script, { model: "openai:gpt-fake" });
    const r = await run(project, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test" });
    expect(r.code, r.stderr).toBe(0);
    // Flushed before the process exited: nothing to wait for.
    expect(otlp.got.every((g) => g.contentType.startsWith("application/json"))).toBe(true);
    const spans = spansOf(otlp.got);
    const agent = spans.find((s) => s.name === "invoke_agent agent-host");
    const chats = spans.filter((s) => s.name === "chat gpt-fake");
    const tool = spans.find((s) => s.name === "execute_tool read_file");
    expect(agent).toBeDefined();
    expect(chats).toHaveLength(2);
    expect(tool).toBeDefined();
    expect(attr(agent, "gen_ai.operation.name")).toBe("invoke_agent");
    expect(attr(agent, "gen_ai.conversation.id")).toEqual(expect.any(String));
    expect(attr(chats[0], "gen_ai.provider.name")).toBe("openai");
    expect(attr(chats[0], "gen_ai.request.model")).toBe("gpt-fake");
    expect(Number(attr(chats[0], "gen_ai.usage.input_tokens"))).toBeGreaterThan(0);
    expect(attr(tool, "gen_ai.tool.call.id")).toBe("call_t1");
    expect(attr(tool, "agent_host.permission.decision")).toBe("allow");
    expect(attr(tool, "agent_host.tool.outcome")).toBe("ok");
    expect(attr(tool, "agent_host.tool.risk")).toBe("read");
    // One trace: the model requests and the tool call are children of the run.
    for (const child of [...chats, tool]) {
      expect(child.traceId).toBe(agent.traceId);
      expect(child.parentSpanId).toBe(agent.spanId);
    }
    // No tool content by default.
    expect(attr(tool, "gen_ai.tool.call.arguments")).toBeUndefined();
    const resource = otlp.got.find((g) => g.path === "/v1/traces")!.body.resourceSpans[0].resource;
    expect(resource.attributes).toEqual(expect.arrayContaining([{ key: "service.name", value: { stringValue: "agent-host" } }, { key: "deployment.environment", value: { stringValue: "test" } }]));

    const metrics = otlp.got.filter((g) => g.path === "/v1/metrics").flatMap((g) => g.body.resourceMetrics.flatMap((r: any) => r.scopeMetrics.flatMap((s: any) => s.metrics.map((m: any) => m.name))));
    expect(metrics).toEqual(expect.arrayContaining(["gen_ai.client.token.usage", "gen_ai.client.operation.duration", "agent_host.tool.calls"]));
    const audit = logsOf(otlp.got).find((l) => attr(l, "event.name") === "agent_host.audit.call");
    expect(audit).toMatchObject({ traceId: tool.traceId, spanId: tool.spanId });
    expect(attr(audit, "agent_host.tool.outcome")).toBe("ok");
  });

  test("a subagent (the task tool) is an invoke_agent span under its task call, with its chat and execute_tool spans beneath it", async () => {
    const otlp = await otlpReceiver();
    const { project } = await fakeOpenAiProject(
      [
        { toolCalls: [{ id: "call_task1", name: "task", arguments: { description: "read the notes", prompt: "Read package.json.", subagent_type: "general-purpose" } }] },
        { toolCalls: [{ id: "call_sub1", name: "read_file", arguments: { path: "package.json" } }] },
        { text: "package.json names the project." },
        { text: "The agent read it." },
      ],
      { model: "openai:gpt-fake" },
    );
    const r = await run(project, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_METRICS_EXPORTER: "none", OTEL_LOGS_EXPORTER: "none" });
    expect(r.code, r.stderr).toBe(0);
    const spans = spansOf(otlp.got);
    const run0 = spans.find((s) => s.name === "invoke_agent agent-host");
    const task = spans.find((s) => s.name === "execute_tool task");
    const sub = spans.find((s) => s.name === "invoke_agent general-purpose");
    expect(task?.parentSpanId).toBe(run0.spanId);
    expect(sub).toBeDefined();
    expect(sub.parentSpanId).toBe(task.spanId);
    expect(sub.traceId).toBe(run0.traceId);
    expect(attr(sub, "gen_ai.operation.name")).toBe("invoke_agent");
    expect(attr(sub, "gen_ai.agent.name")).toBe("general-purpose");
    expect(attr(sub, "gen_ai.conversation.id")).toBe(attr(run0, "gen_ai.conversation.id"));
    expect(attr(sub, "agent_host.stop_reason")).toBe("end_turn");
    expect(Number(attr(sub, "agent_host.turns"))).toBe(2);
    // The agent's two model requests and its read_file call are its children, not the run's.
    const chats = spans.filter((s) => s.name === "chat gpt-fake");
    expect(chats).toHaveLength(4);
    const subChats = chats.filter((c) => c.parentSpanId === sub.spanId);
    const finish = (c: any) => c.attributes.find((a: any) => a.key === "gen_ai.response.finish_reasons")?.value.arrayValue.values.map((v: any) => v.stringValue);
    expect(subChats.map(finish)).toEqual([["tool_calls"], ["stop"]]);
    expect(Number(attr(subChats[0], "gen_ai.usage.input_tokens"))).toBeGreaterThan(0);
    expect(chats.filter((c) => c.parentSpanId === run0.spanId)).toHaveLength(2);
    const read = spans.find((s) => s.name === "execute_tool read_file");
    expect(read.parentSpanId).toBe(sub.spanId);
    expect(attr(read, "gen_ai.tool.call.id")).toBe("call_sub1");
    // The agent's span lies within its task call's, its chats within it (each span's clock is anchored to
    // Date.now() when it starts: to the millisecond).
    const ms = (ns: string) => Number(BigInt(ns) / 1_000_000n);
    const within = (inner: any, outer: any) => {
      expect(ms(inner.startTimeUnixNano)).toBeGreaterThanOrEqual(ms(outer.startTimeUnixNano) - 2);
      expect(ms(inner.endTimeUnixNano)).toBeLessThanOrEqual(ms(outer.endTimeUnixNano) + 2);
    };
    within(sub, task);
    for (const c of subChats) within(c, sub);
  });

  test("an MCP tool call carries the execute_tool span's trace context in _meta (SEP-414); with telemetry off, none", async () => {
    const otlp = await otlpReceiver();
    const server = path.join(REPO_ROOT, "tests/plugins/telemetry/echo-meta-server.mjs");
    const turns = [{ toolCalls: [{ id: "call_m1", name: "mcp__meta__echo_meta", arguments: {} }] }, { text: "seen" }];
    const { srv, project } = await fakeOpenAiProject([...turns, ...turns], {
      model: "openai:gpt-fake",
      mcpServers: { meta: { command: process.execPath, args: [server] } },
      permissions: { allow: ["mcp__meta__echo_meta"] },
    });
    const r = await run(project, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_METRICS_EXPORTER: "none", OTEL_LOGS_EXPORTER: "none" });
    expect(r.code, r.stderr).toBe(0);
    const tool = spansOf(otlp.got).find((s) => s.name === "execute_tool mcp__meta__echo_meta");
    expect(attr(tool, "agent_host.tool.outcome")).toBe("ok");
    // What the server got in its request's _meta, as its tool result came back to the model.
    const resultOf = (i: number) => JSON.parse(srv.requests[i].body.messages.find((m: any) => m.role === "tool").content);
    expect(resultOf(1)).toMatchObject({ traceparent: `00-${tool.traceId}-${tool.spanId}-01` });

    const off = await run(project, {});
    expect(off.code, off.stderr).toBe(0);
    expect(resultOf(3)?.traceparent).toBeUndefined();
    expect(JSON.stringify(resultOf(3))).not.toContain("trace");
  });

  test("spans the sampler drops are not exported (OTEL_TRACES_SAMPLER); the audit log records and metrics still are", async () => {
    const otlp = await otlpReceiver();
    const { project } = await fakeOpenAiProject(script, { model: "openai:gpt-fake" });
    const r = await run(project, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_TRACES_SAMPLER: "always_off" });
    expect(r.code, r.stderr).toBe(0);
    expect(spansOf(otlp.got)).toEqual([]);
    const audit = logsOf(otlp.got).find((l) => attr(l, "event.name") === "agent_host.audit.call");
    expect(attr(audit, "gen_ai.tool.name")).toBe("read_file");
    expect(attr(audit, "agent_host.tool.outcome")).toBe("ok");
    expect(otlp.got.some((g) => g.path === "/v1/metrics")).toBe(true);
  });

  test("telemetry.logToolContent puts tool inputs on spans and log records, redacted", async () => {
    const otlp = await otlpReceiver();
    const secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    const { project } = await fakeOpenAiProject([{ toolCalls: [{ id: "call_s1", name: "grep", arguments: { pattern: secret } }] }, { text: "ok" }], { model: "openai:gpt-fake", telemetry: { logToolContent: true } });
    const r = await run(project, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url });
    expect(r.code, r.stderr).toBe(0);
    const tool = spansOf(otlp.got).find((s) => s.name === "execute_tool grep");
    const args = String(attr(tool, "gen_ai.tool.call.arguments"));
    expect(args).toContain("pattern");
    expect(args).not.toContain(secret);
    expect(JSON.stringify(otlp.got)).not.toContain(secret);
  });

  test("http/protobuf sends every signal as protobuf", async () => {
    const otlp = await otlpReceiver();
    const { project } = await fakeOpenAiProject(script, { model: "openai:gpt-fake" });
    const r = await run(project, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" });
    expect(r.code, r.stderr).toBe(0);
    expect(otlp.got.map((g) => g.path).sort()).toEqual(expect.arrayContaining(["/v1/logs", "/v1/metrics", "/v1/traces"]));
    for (const g of otlp.got) expect(g.contentType).toBe("application/x-protobuf");
    // The span names are strings in the protobuf bytes.
    expect(otlp.got.filter((g) => g.path === "/v1/traces").map((g) => g.body).join("")).toContain("execute_tool read_file");
  });

  test("nothing is exported with no OTEL endpoint, or with OTEL_SDK_DISABLED=true", async () => {
    const otlp = await otlpReceiver();
    const { project } = await fakeOpenAiProject([...script, ...script], { model: "openai:gpt-fake" });
    // Every other OTEL variable set, but no endpoint: off.
    expect((await run(project, { OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_SERVICE_NAME: "x", OTEL_EXPORTER_OTLP_HEADERS: "a=b" })).code).toBe(0);
    expect((await run(project, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_SDK_DISABLED: "true" })).code).toBe(0);
    expect(otlp.got).toEqual([]);
  });

  test("settings: off without an endpoint or telemetry.enabled; per-signal endpoints and protocols; grpc is refused with a reason", () => {
    expect(telemetrySettings({}, undefined)).toBeUndefined();
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }, { enabled: false })).toBeUndefined();
    expect(telemetrySettings({}, { enabled: true })?.signals).toEqual(["traces", "metrics", "logs"]);
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://x/v1/traces" }, undefined)).toMatchObject({ signals: ["traces"], protocol: { traces: "http/json" } });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://x", OTEL_METRICS_EXPORTER: "none", OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: "http/protobuf" }, undefined)).toMatchObject({ signals: ["traces", "logs"], protocol: { logs: "http/protobuf", traces: "http/json" }, serviceName: "agent-host" });
    expect(() => telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://x", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, undefined)).toThrow(/grpc is not built in/);
  });
});
