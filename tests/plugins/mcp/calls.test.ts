/**
 * Calling MCP tools through the gate against fixture servers that misbehave on purpose: errors,
 * crashes, slow tools, progress, huge outputs, colliding names, changing tool lists.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { userMcpLog } from "../../helpers/project.js";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../core/index.js";
import { getMcpStatus } from "../../../plugins/mcp/status.js";
import { cleanup, fixture, isAlive, mcpHost, tempDir, waitFor } from "./_helpers.js";

afterAll(cleanup);

describe("calling MCP tools", () => {
  it("tells tool errors (isError) from protocol errors", async () => {
    const host = await mcpHost({ err: fixture("error-result") });
    expect(await host.tools.call("mcp__err__fail", {})).toMatchObject({
      ok: false,
      outcome: "error",
      output: "it failed",
      error: { code: "E_TOOL_FAILED", message: "it failed" },
    });
    expect(await host.tools.call("mcp__err__throws", {})).toMatchObject({
      ok: false,
      outcome: "error",
      output: "Tool mcp__err__throws failed: the server answered with error -32603: kaboom",
    });
  });

  it("fails a call whose server crashes, then restarts the server on the next call", async () => {
    const host = await mcpHost({ crash: fixture("crash-mid-call") });
    const firstPid = Number((await host.tools.call("mcp__crash__pid", {})).output);
    expect(isAlive(firstPid)).toBe(true);
    const notices: string[] = [];
    host.on((e: AgentEvent) => void (e.type === "notice" && notices.push(e.message)));

    const crashed = await host.tools.call("mcp__crash__crash", {});
    expect(crashed).toMatchObject({ ok: false, outcome: "error" });
    expect(crashed.output).toBe(
      "Tool mcp__crash__crash failed: MCP server crash disconnected during the call: " +
        "the server process exited with code 1 (stderr: crash-mid-call: crashing now). It will be restarted on the next call.",
    );
    expect(getMcpStatus(host)[0]).toMatchObject({ status: "disconnected", error: expect.stringContaining("exited with code 1") });
    expect(notices).toContain(
      "MCP server crash disconnected: the server process exited with code 1 (stderr: crash-mid-call: crashing now). It will be restarted on the next call.",
    );

    // Next call: a new process answers.
    expect(await host.tools.call("mcp__crash__ok", {})).toMatchObject({ ok: true, output: "fine" });
    const secondPid = Number((await host.tools.call("mcp__crash__pid", {})).output);
    expect(secondPid).not.toBe(firstPid);
    expect(isAlive(firstPid)).toBe(false);
    expect(getMcpStatus(host)[0]).toMatchObject({ status: "connected", tools: 3 });
    expect(notices.some((n) => /^MCP server crash reconnected/.test(n))).toBe(true);
  });

  it("gives up restarting after a few attempts with a clear error", async () => {
    const cwd = tempDir();
    const flag = path.join(cwd, "crashed");
    // A server that works once, then exits at once on every restart (a shell wrapper sees the flag file).
    const script = `if [ -e ${flag} ]; then echo "broken after crash" >&2; exit 7; fi; touch ${flag}; exec ${process.execPath} ${fixture("crash-mid-call").args[0]}`;
    const host = await mcpHost({ flaky: { command: "sh", args: ["-c", script] } }, { cwd });
    expect(await host.tools.call("mcp__flaky__ok", {})).toMatchObject({ ok: true });
    await host.tools.call("mcp__flaky__crash", {});
    const next = await host.tools.call("mcp__flaky__ok", {});
    expect(next.output).toBe(
      "Tool mcp__flaky__ok failed: MCP server flaky is not available: the server process exited with code 7 before answering initialize (stderr: broken after crash). " +
        "Gave up after 3 attempts to restart it; run /mcp reconnect flaky to try again.",
    );
    // 1 start + 3 restart attempts; later calls fail without starting it again. The project has no .agent/: the log is in the user's state folder.
    expect(existsSync(path.join(cwd, ".agent", "logs"))).toBe(false);
    const starts = () => readFileSync(userMcpLog(cwd, "flaky"), "utf8").match(/started pid/g)!.length;
    expect(starts()).toBe(4);
    const again = await host.tools.call("mcp__flaky__ok", {});
    expect(again.output).toMatch(/MCP server flaky is not available: .*gave up after 3 attempts/);
    expect(starts()).toBe(4);
    expect(host.problems.map((p) => p.message)).toContain(
      "MCP server flaky could not be restarted: the server process exited with code 7 before answering initialize (stderr: broken after crash). Its tools fail until /mcp reconnect flaky succeeds.",
    );
    // Once the cause is fixed, /mcp reconnect brings it back.
    rmSync(flag);
    expect(await host.commands.run("/mcp reconnect flaky")).toEqual({ output: "MCP server flaky reconnected: 3 tools." });
    expect(await host.tools.call("mcp__flaky__ok", {})).toMatchObject({ ok: true, output: "fine" });
  });

  it("cancels a call past its timeout on the server (notifications/cancelled)", async () => {
    const cwd = tempDir();
    const cancelLog = path.join(cwd, "cancel.log");
    const host = await mcpHost({ slow: { ...fixture("slow-tool"), env: { CANCEL_LOG: cancelLog }, toolTimeout: 300 } }, { cwd });
    const result = await host.tools.call("mcp__slow__slow", { ms: 10_000 });
    expect(result).toMatchObject({ ok: false, outcome: "timeout", output: "Tool mcp__slow__slow timed out after 300 ms and was cancelled." });
    const line = await waitFor(() => {
      try {
        return readFileSync(cancelLog, "utf8").trim();
      } catch {
        return "";
      }
    }, "the server to log the cancellation");
    // With the reason the gate stopped it for (the SDK passes on what our signal says).
    expect(line).toMatch(/^cancelled \d+ .*timed out after 300 ms/);
    // The connection is still good.
    expect(await host.tools.call("mcp__slow__slow", { ms: 1 })).toMatchObject({ ok: true, output: "done" });
  });

  it("cancels a call when the caller aborts", async () => {
    const cwd = tempDir();
    const cancelLog = path.join(cwd, "cancel.log");
    const host = await mcpHost({ slow: { ...fixture("slow-tool"), env: { CANCEL_LOG: cancelLog } } }, { cwd });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await host.tools.call("mcp__slow__slow", { ms: 10_000 }, { signal: controller.signal });
    expect(result).toMatchObject({ ok: false, outcome: "aborted" });
    await waitFor(() => {
      try {
        return /^cancelled \d+( |$)/.test(readFileSync(cancelLog, "utf8").trim());
      } catch {
        return false;
      }
    }, "the server to log the cancellation");
  });

  it("turns progress notifications into tool_progress events", async () => {
    const host = await mcpHost({ slow: fixture("slow-tool") });
    const progress: AgentEvent[] = [];
    host.on((e) => void (e.type === "tool_progress" && progress.push(e)));
    const result = await host.tools.call("mcp__slow__progress", { steps: 3 });
    expect(result).toMatchObject({ ok: true, output: "done" });
    expect(progress).toEqual(
      [1, 2, 3].map((i) => ({ type: "tool_progress", callId: result.callId, name: "mcp__slow__progress", progress: i, total: 3, message: `step ${i}/3` })),
    );
  });

  it("asks for no progress when nobody hears it (no progressToken), and for it when someone does", async () => {
    const cwd = tempDir();
    const log = path.join(cwd, "tokens.log");
    const host = await mcpHost({ slow: { ...fixture("slow-tool"), env: { TOKEN_LOG: log } } }, { cwd });
    expect(await host.tools.call("mcp__slow__progress", { steps: 1 })).toMatchObject({ ok: true, output: "done" });
    const progress: AgentEvent[] = [];
    const off = host.on((e) => void (e.type === "tool_progress" && progress.push(e)));
    await host.tools.call("mcp__slow__progress", { steps: 2 });
    off();
    expect(readFileSync(log, "utf8")).toBe("none\ntoken\n");
    expect(progress).toHaveLength(2);
  });

  it("reads a 5 MiB answer and lets the gate cap it", async () => {
    const host = await mcpHost({ big: { ...fixture("big-output"), maxOutputBytes: 10_000 } });
    const result = await host.tools.call("mcp__big__big", {});
    expect(result.ok).toBe(true);
    expect(result.truncated).toBe(true);
    expect(result.output.startsWith("line 0000001 ")).toBe(true);
    expect(result.output).toContain(`[output truncated: ${5 * 1024 * 1024 - 10_000} of ${5 * 1024 * 1024} bytes cut`);
    // Binary content is summarized, not dumped.
    expect((await host.tools.call("mcp__big__image", {})).output).toBe(
      "[image (image/png, 70 bytes)]\n[resource fixture://big-output/readme.txt (text/plain, 22 bytes of text)]",
    );
  });

  it("keeps tools of two servers with the same tool names apart", async () => {
    const host = await mcpHost({ alpha: fixture("same-names", "--label", "A"), beta: fixture("same-names", "--label", "B") });
    expect(await host.tools.call("mcp__alpha__search", { query: "q" })).toMatchObject({ ok: true, output: 'A:search:{"query":"q"}' });
    expect(await host.tools.call("mcp__beta__search", { query: "q" })).toMatchObject({ ok: true, output: 'B:search:{"query":"q"}' });
    expect(await host.tools.call("mcp__beta__read", { path: "p" })).toMatchObject({ ok: true, output: 'B:read:{"path":"p"}' });
    const tool = host.tools.get("mcp__beta__search")!;
    expect(tool).toMatchObject({ source: "mcp:beta", plugin: "mcp", description: "[MCP:beta] Search (server B)", meta: { mcpServer: "beta", mcpTool: "search" } });
  });

  it("registers 300 tools with odd names, each routed to its original name", async () => {
    const host = await mcpHost({ many: fixture("many-tools") });
    const tools = host.tools.list().filter((t) => t.source === "mcp:many");
    expect(tools).toHaveLength(300);
    for (const t of tools) expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const byOriginal = new Map(tools.map((t) => [t.meta!.mcpTool as string, t.name]));
    for (const original of ["name.with.dots", "name with spaces", "x".repeat(100), "tool_296"]) {
      expect(await host.tools.call(byOriginal.get(original)!, {})).toMatchObject({ ok: true, output: original });
    }
    expect(byOriginal.get("tool_0")).toBe("mcp__many__tool_0");
  });

  it("re-registers a server's tools when it says its list changed", async () => {
    const host = await mcpHost({ lc: fixture("list-changed") });
    expect(host.tools.get("mcp__lc__second")).toBeUndefined();
    expect(await host.tools.call("mcp__lc__add_tool", {})).toMatchObject({ ok: true, output: "added second" });
    await waitFor(() => host.tools.get("mcp__lc__second"), "mcp__lc__second to be registered");
    expect(await host.tools.call("mcp__lc__second", {})).toMatchObject({ ok: true, output: "second" });
    expect(getMcpStatus(host)[0].tools).toBe(3);
  });

  it("applies includeTools/excludeTools and per-tool risk overrides", async () => {
    const host = await mcpHost({
      many: { ...fixture("many-tools"), includeTools: ["tool_1*"], excludeTools: ["tool_10*"], risk: { tool_11: "network", "tool_1?": "write" } },
    });
    const names = host.tools.list().filter((t) => t.source === "mcp:many").map((t) => t.name);
    expect(names).toContain("mcp__many__tool_1");
    expect(names).toContain("mcp__many__tool_199");
    expect(names.some((n) => n.startsWith("mcp__many__tool_10"))).toBe(false);
    expect(names.some((n) => n === "mcp__many__tool_2")).toBe(false);
    expect(host.tools.get("mcp__many__tool_11")!.risk).toBe("network");
    expect(host.tools.get("mcp__many__tool_12")!.risk).toBe("write");
    expect(host.tools.get("mcp__many__tool_123")!.risk).toBe("execute");
  });

  it("applies permission rules and modes to MCP tools like to any tool", async () => {
    const host = await mcpHost(
      { alpha: { ...fixture("same-names", "--label", "A"), trust: true }, beta: fixture("same-names", "--label", "B"), many: fixture("many-tools") },
      { permissionMode: "default", config: { permissions: { deny: ["mcp__beta__*"] } } },
    );
    // A read tool (of a trusted server: see risk.test.ts) runs in default mode; a deny rule with a glob blocks a whole server.
    expect(await host.tools.call("mcp__alpha__search", {})).toMatchObject({ ok: true });
    expect(await host.tools.call("mcp__beta__search", {})).toMatchObject({ ok: false, outcome: "denied" });
    // A tool of unknown risk needs approval; with nobody to ask, it is denied with the rule to add.
    const asked = await host.tools.call("mcp__many__tool_5", {});
    expect(asked).toMatchObject({ ok: false, outcome: "denied" });
    expect(asked.output).toContain('add "mcp__many__tool_5" to permissions.allow');
  });
});
