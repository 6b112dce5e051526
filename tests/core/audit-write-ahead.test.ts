/**
 * The audit log is write-ahead: a call's `start` record (tool, decision, redacted input) is on disk
 * before its tool has the call, so a host killed mid-call leaves a record of what it was doing, which
 * `agent audit` shows as "no outcome"; a start that cannot be written (a full disk) means the tool never
 * runs. `agent audit --json --tail all` streams every record, oldest first, across rotated files.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { MAX_UNTRACKED_IN_FLIGHT } from "../../core/gate/gate.js";
import { z, type PluginContext, type ToolDefinition } from "../../core/index.js";
import { cleanEnv, runCli } from "../helpers/cli.js";
import { closeHosts, hostWithTools, readAudit, testHost } from "../helpers/host.js";
import { DIST_INDEX_URL, assertBuilt } from "../helpers/paths.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const records = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

describe("write-ahead start records", () => {
  test("the start record, with the decision and the redacted input, is on disk when the tool's run begins", async () => {
    let seen: Record<string, any>[] = [];
    let file = "";
    const look: ToolDefinition = {
      name: "look",
      description: "reads the audit log from inside its own run",
      risk: "read",
      input: z.object({ path: z.string(), token: z.string() }),
      run: () => {
        seen = records(file);
        return "ok";
      },
    };
    const { host, project } = await hostWithTools([look]);
    file = project.auditFile;
    const r = await host.tools.call("look", { path: "src/a.ts", token: "ghp_abcdefghijklmnopqrstuvwxyz0123456789" }, { callId: "c-1" });
    expect(r.ok).toBe(true);
    const start = seen.filter((x) => x.kind === "start");
    expect(start).toEqual([expect.objectContaining({ kind: "start", name: "look", callId: "c-1", decision: "allow", outcome: "started", args: expect.objectContaining({ path: "src/a.ts" }) })]);
    expect(JSON.stringify(start)).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    // No outcome yet while it ran; afterwards the call record follows the start.
    expect(seen.some((x) => x.kind === "call" && x.callId === "c-1")).toBe(false);
    const after = records(file).filter((x) => x.callId === "c-1").map((x) => `${x.kind}:${x.outcome}`);
    expect(after).toEqual(["start:started", "call:ok"]);
  });

  test("parallel calls: each start is on disk before its own tool runs, each call has one start and one outcome", async () => {
    let file = "";
    const missing: string[] = [];
    const t: ToolDefinition = {
      name: "par",
      description: "p",
      risk: "read",
      input: z.object({ i: z.number() }),
      run: async ({ i }, ctx) => {
        if (!records(file).some((x) => x.kind === "start" && x.callId === ctx.callId)) missing.push(String(i));
        await new Promise((r) => setImmediate(r));
        return String(i);
      },
    };
    const { host, project } = await hostWithTools([t]);
    file = project.auditFile;
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => host.tools.call("par", { i })));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(missing).toEqual([]);
    const all = records(file);
    for (const r of results) expect(all.filter((x) => x.callId === r.callId).map((x) => x.kind)).toEqual(["start", "call"]);
  });

  test("a call denied or refused before it starts has no start record (nothing ran)", async () => {
    const t: ToolDefinition = { name: "w", description: "w", risk: "write", input: z.object({}), run: () => "ran" };
    const { host, audit } = await hostWithTools([t], { permissionMode: "default" });
    const r = await host.tools.call("w", {});
    expect(r.outcome).toBe("denied");
    expect(audit().filter((x) => x.callId === r.callId).map((x) => x.kind)).toEqual(["call"]);
  });

  test("a full disk when the call would start: refused with E_AUDIT_UNAVAILABLE, the tool never runs", async () => {
    const p = tempProject();
    mkdirSync(p.path(".agent"), { recursive: true });
    symlinkSync("/dev/full", p.path(".agent/full.jsonl"));
    let runs = 0;
    const t: ToolDefinition = { name: "count", description: "c", risk: "read", input: z.object({}), run: () => String(++runs) };
    const { host } = await hostWithTools([t], { project: p, config: { audit: { path: ".agent/full.jsonl" } } });
    const results = await Promise.all([host.tools.call("count", {}), host.tools.call("count", {})]);
    expect(results.map((r) => r.error?.code)).toEqual(["E_AUDIT_UNAVAILABLE", "E_AUDIT_UNAVAILABLE"]);
    expect(runs).toBe(0);
  });
});

describe("a host killed mid-call", () => {
  const script = `
import { createHost, z } from ${JSON.stringify(DIST_INDEX_URL)};
const host = await createHost({
  cwd: process.cwd(), builtins: [], userConfigDir: false,
  plugins: [{ name: "hangs", tools: [
    { name: "quick", description: "q", risk: "read", input: z.object({}), run: () => "done" },
    { name: "hang", description: "h", risk: "read", input: z.object({ what: z.string() }), run: () => { process.stdout.write("running\\n"); return new Promise(() => {}); } },
  ] }],
});
await host.tools.call("quick", {});
void host.tools.call("hang", { what: "migrate the database" });
setInterval(() => {}, 1000);
`;

  test("leaves its start record; agent audit shows the call with no outcome (table, --outcome, --json, --tail all)", async () => {
    assertBuilt();
    const project = tempProject({ "child.mjs": script });
    const child = spawn(process.execPath, ["child.mjs"], { cwd: project.dir, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (out.includes("running\n")) child.kill("SIGKILL");
    });
    const signal = await new Promise((resolve) => child.on("close", (_c, sig) => resolve(sig)));
    expect(signal).toBe("SIGKILL");
    const raw = readAudit(project.auditFile);
    expect(raw.filter((r) => r.kind === "start").map((r) => r.name)).toEqual(["quick", "hang"]);
    expect(raw.filter((r) => r.kind === "call").map((r) => r.name)).toEqual(["quick"]);

    const opts = { cwd: project.dir, configHome: project.configHome };
    const table = await runCli(["audit"], opts);
    expect(table.code).toBe(0);
    const rows = table.stdout.split("\n").filter((l) => /quick|hang/.test(l));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/quick.*ok/);
    expect(rows[1]).toMatch(/hang.*no outcome.*migrate the database/);

    const open = await runCli(["audit", "--outcome", "no outcome", "--json"], opts);
    expect(open.stdout.trim().split("\n").map((l) => JSON.parse(l))).toEqual([expect.objectContaining({ kind: "call", name: "hang", outcome: "no outcome", args: { what: "migrate the database" } })]);

    const all = await runCli(["audit", "--json", "--tail", "all"], opts);
    expect(all.stdout.trim().split("\n").map((l) => `${JSON.parse(l).name}:${JSON.parse(l).outcome}`)).toEqual(["quick:ok", "hang:no outcome"]);
  });
});

describe("agent audit --json --tail all", () => {
  test("streams every call oldest first across the rotated files, a start replaced by its outcome wherever that is", async () => {
    const p = tempProject();
    mkdirSync(p.path(".agent"), { recursive: true });
    const rec = (kind: string, name: string, callId: string, outcome: string) => JSON.stringify({ time: "2026-12-01T00:00:00.000Z", kind, source: "t", name, callId, outcome });
    // Oldest in .2; the call "b" starts in .1 and ends in the live log.
    writeFileSync(`${p.auditFile}.2`, `${rec("start", "a", "1", "started")}\n${rec("call", "a", "1", "ok")}\n`);
    writeFileSync(`${p.auditFile}.1`, `${rec("start", "b", "2", "started")}\n${rec("register", "x", "", "ok")}\n`);
    writeFileSync(p.auditFile, `${rec("start", "c", "3", "started")}\n${rec("call", "b", "2", "error")}\nnot a record\n`);
    const r = await runCli(["audit", "--json", "--tail", "all"], { cwd: p.dir, configHome: p.configHome });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n").map((l) => `${JSON.parse(l).name}:${JSON.parse(l).outcome}`)).toEqual(["a:ok", "b:error", "c:no outcome"]);
    expect(r.stderr).toContain("1 line of the log is not a record");
    const bad = await runCli(["audit", "--tail", "some"], { cwd: p.dir, configHome: p.configHome });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tail must be a positive whole number or "all"');
  });
});

describe("callsTools: false", () => {
  test("is checked at registration", async () => {
    const { host } = await testHost({ plugins: [{ name: "p", tools: [{ name: "bad", description: "b", risk: "read", inputSchema: { type: "object" }, callsTools: "no" as never, run: () => "x" }] }] });
    expect(host.tools.get("bad")).toBeUndefined();
    expect(host.problems.map((x) => x.message).join("\n")).toContain("callsTools must be true or false");
  });

  test("a tool that says it calls no tools and calls itself without end ends with E_TOOL_DEPTH, not out of memory", async () => {
    let runs = 0;
    const { host } = await testHost({
      plugins: [
        {
          name: "liar",
          setup(ctx: PluginContext) {
            ctx.tools.add({
              name: "liar",
              description: "l",
              risk: "read",
              inputSchema: { type: "object" },
              callsTools: false,
              run: async () => {
                runs++;
                const r = await ctx.host.tools.call("liar", {});
                return r.ok ? r.output : `${r.error?.code}`;
              },
            });
          },
        },
      ],
    });
    const r = await host.tools.call("liar", {});
    expect(r.output).toBe("E_TOOL_DEPTH");
    expect(runs).toBe(MAX_UNTRACKED_IN_FLIGHT);
  });

  test("a hook that calls tools still has its depth counted for such a tool: the recursion ends with E_TOOL_DEPTH", async () => {
    let hookCalls = 0;
    const codes: string[] = [];
    const { host } = await testHost({
      plugins: [
        {
          name: "loop",
          setup(ctx: PluginContext) {
            ctx.tools.add({ name: "leaf", description: "l", risk: "read", inputSchema: { type: "object" }, callsTools: false, run: () => "leaf" });
            ctx.hooks.beforeToolCall.tapPromise("again", async () => {
              hookCalls++;
              const r = await ctx.host.tools.call("leaf", {});
              if (r.error) codes.push(r.error.code);
              return r.ok ? undefined : { deny: r.error?.code ?? "?" };
            });
          },
        },
      ],
    });
    const r = await host.tools.call("leaf", {});
    expect(r.outcome).toBe("denied");
    // Eight levels ran their hook; the ninth call was refused before it, and the refusal came back up.
    expect(hookCalls).toBe(8);
    expect(codes[0]).toBe("E_TOOL_DEPTH");
  });
});

describe("who called", () => {
  test("CallOptions.caller is in both audit records and on tool_start; tool_end carries the decision", async () => {
    const t: ToolDefinition = { name: "who", description: "w", risk: "read", input: z.object({}), run: () => "ok" };
    const { host, project } = await hostWithTools([t]);
    const events: any[] = [];
    host.on((e) => events.push(e));
    const r = await host.tools.call("who", {}, { callId: "c-who", caller: "mcp:test-client" });
    expect(r.ok).toBe(true);
    const mine = records(project.auditFile).filter((x) => x.callId === "c-who");
    expect(mine.map((x) => `${x.kind}:${x.caller}`)).toEqual(["start:mcp:test-client", "call:mcp:test-client"]);
    expect(events.find((e) => e.type === "tool_start")).toMatchObject({ caller: "mcp:test-client" });
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({ decision: "allow", by: expect.any(String) });
    await host.tools.call("who", {}, { callId: "c-plain" });
    expect(records(project.auditFile).filter((x) => x.callId === "c-plain").every((x) => !("caller" in x))).toBe(true);
  });
});
