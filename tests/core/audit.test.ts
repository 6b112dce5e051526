/**
 * The audit log: records for registrations, calls and commands with the documented fields;
 * secrets never reach the file; finished records survive `kill -9` of the host.
 */
import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { AuditLog } from "../../core/gate/audit.js";
import { z, type ToolDefinition } from "../../core/index.js";
import { cleanEnv } from "../helpers/cli.js";
import { closeHosts, hostWithTools, readAudit, testHost } from "../helpers/host.js";
import { DIST_INDEX_URL, assertBuilt } from "../helpers/paths.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const echo: ToolDefinition = {
  name: "echo",
  description: "echo",
  risk: "read",
  input: z.object({}).passthrough(),
  run: (i) => JSON.stringify(i),
};

describe("audit records", () => {
  test("a call record has the documented fields", async () => {
    const { host, audit } = await hostWithTools([echo], { sessionId: "session-1" });
    const r = await host.tools.call("echo", { path: "src/a.ts" }, { callId: "c1" });
    const rec = audit().find((x) => x.kind === "call")!;
    expect(rec).toEqual({
      time: expect.stringMatching(ISO),
      session: "session-1",
      kind: "call",
      source: "test",
      name: "echo",
      callId: "c1",
      args: { path: "src/a.ts" },
      decision: "allow",
      by: "mode:default",
      outcome: "ok",
      durationMs: expect.any(Number),
      outputBytes: Buffer.byteLength(r.output),
      truncated: false,
    });
  });

  test("a registration record per plugin and kind, with the names", async () => {
    const { audit } = await hostWithTools([echo, { ...echo, name: "echo2" }], { sessionId: "s" });
    expect(audit().find((x) => x.kind === "register")).toEqual({
      time: expect.stringMatching(ISO),
      session: "s",
      kind: "register",
      source: "test",
      name: "test",
      outcome: "ok",
      detail: { kind: "tool", count: 2, names: ["echo", "echo2"] },
    });
  });

  test("command records: ok and error, with arguments and duration", async () => {
    const { host, audit } = await testHost({
      config: {
        plugins: [
          {
            name: "cmds",
            commands: [
              { name: "hello", description: "greet", run: (args) => `hello ${args}` },
              {
                name: "broken",
                description: "fails",
                run: () => {
                  throw new Error("command exploded");
                },
              },
            ],
          },
        ],
      },
    });
    expect(await host.commands.run("/hello world")).toEqual({ output: "hello world" });
    expect((await host.commands.run("/broken")).output).toBe("Command /broken failed: command exploded");
    const recs = audit().filter((x) => x.kind === "command");
    expect(recs).toEqual([
      expect.objectContaining({ kind: "command", source: "cmds", name: "hello", args: "world", outcome: "ok", durationMs: expect.any(Number) }),
      expect.objectContaining({ kind: "command", source: "cmds", name: "broken", outcome: "error", error: "command exploded" }),
    ]);
  });

  test("a plugin can write its own records through ctx.audit, redacted", async () => {
    const { audit } = await testHost({
      config: {
        plugins: [{ name: "mcp", setup: (ctx) => ctx.audit({ kind: "register", name: "server-x", outcome: "connected", detail: { token: "abc" } }) }],
      },
    });
    expect(audit().find((x) => x.name === "server-x")).toMatchObject({ source: "mcp", outcome: "connected", detail: { token: "[REDACTED]" } });
  });

  test("secrets in arguments and errors never reach the file", async () => {
    const saved = process.env.AGENT_AUDIT_TEST_SECRET;
    process.env.AGENT_AUDIT_TEST_SECRET = "env-secret-value-123";
    try {
      const leaky: ToolDefinition = {
        name: "leaky",
        description: "fails with a secret in the message",
        risk: "read",
        input: z.object({}).passthrough(),
        run: () => {
          throw new Error("auth failed for ghp_abcdefghijklmnopqrstuvwxyz0123456789 using env-secret-value-123");
        },
      };
      const { host, project } = await hostWithTools([echo, leaky]);
      await host.tools.call("echo", {
        apiKey: "plain-api-key-value",
        headers: { Authorization: "Bearer header-bearer-token" },
        command: "curl -H 'Authorization: Bearer inline-bearer-token' -d env-secret-value-123",
        note: "use sk-proj-abcdefghijklmnopqrstu",
        password: "hunter2-password",
      });
      await host.tools.call("leaky", {});
      const text = readFileSync(project.auditFile, "utf8");
      for (const secret of ["plain-api-key-value", "header-bearer-token", "inline-bearer-token", "env-secret-value-123", "sk-proj-abcdefghijklmnopqrstu", "hunter2-password", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"]) {
        expect(text).not.toContain(secret);
      }
      expect(text).toContain("[REDACTED:AGENT_AUDIT_TEST_SECRET]");
    } finally {
      if (saved === undefined) delete process.env.AGENT_AUDIT_TEST_SECRET;
      else process.env.AGENT_AUDIT_TEST_SECRET = saved;
    }
  });

  test("long arguments are shortened", async () => {
    const { host, audit } = await hostWithTools([echo]);
    await host.tools.call("echo", { content: "x".repeat(5000) });
    expect(audit().find((x) => x.kind === "call")?.args.content).toBe(`${"x".repeat(200)}…(+4800 chars)`);
  });

  test("the file is private to the user", async () => {
    const { host, project } = await hostWithTools([echo]);
    await host.tools.call("echo", {});
    expect(statSync(project.auditFile).mode & 0o777).toBe(0o600);
  });

  test("a custom path from config, or none when disabled", async () => {
    const a = await hostWithTools([echo], { config: { audit: { path: "logs/agent.jsonl" } } });
    await a.host.tools.call("echo", {});
    expect(readAudit(a.project.path("logs/agent.jsonl")).some((r) => r.kind === "call")).toBe(true);
    const b = await hostWithTools([echo], { config: { audit: { enabled: false } } });
    await b.host.tools.call("echo", {});
    expect(b.audit()).toEqual([]);
    const c = await hostWithTools([echo], { audit: false });
    await c.host.tools.call("echo", {});
    expect(c.audit()).toEqual([]);
  });

  test("an unwritable audit log is reported once; calls are refused (fail closed), or run with audit.onError warn", async () => {
    const project = tempProject({ "blocker": "a file where a folder should be" });
    const { host } = await hostWithTools([echo], { project, config: { audit: { path: "blocker/audit.jsonl" } } });
    // The host's own records (registrations) already failed: no call runs.
    const refused = await host.tools.call("echo", { a: 2 });
    expect(refused.ok).toBe(false);
    expect(refused.error?.code).toBe("E_AUDIT_UNAVAILABLE");
    expect(refused.output).toMatch(/the audit log .*blocker\/audit\.jsonl cannot be written \(E\w+\), and every call must be recorded/);
    const problems = host.problems.filter((p) => p.message.includes("audit log"));
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toContain("blocker/audit.jsonl is not writable");
    const warned = await hostWithTools([echo], { project, config: { audit: { path: "blocker/audit.jsonl", onError: "warn" } } });
    expect((await warned.host.tools.call("echo", { a: 1 })).ok).toBe(true);
    expect((await warned.host.tools.call("echo", { a: 2 })).ok).toBe(true);
    expect(warned.host.problems.filter((p) => p.message.includes("calls run unrecorded"))).toHaveLength(1);
  });

  test("appends: two hosts (sessions) share one file", async () => {
    const project = tempProject();
    const a = await hostWithTools([echo], { project, sessionId: "one" });
    await a.host.tools.call("echo", {});
    await a.host.close();
    const b = await hostWithTools([echo], { project, sessionId: "two" });
    await b.host.tools.call("echo", {});
    expect(b.audit().filter((r) => r.kind === "call").map((r) => r.session)).toEqual(["one", "two"]);
  });

  test("a call's record is in the file when its promise resolves, also for calls finishing in the same tick", async () => {
    const { host, project } = await hostWithTools([echo]);
    const onDisk = (callId: string) => readAudit(project.auditFile).some((r) => r.kind === "call" && r.callId === callId);
    // A plain `.then` is the earliest a caller can look; the tool answers synchronously, so the calls finish together.
    const seen = await Promise.all(Array.from({ length: 16 }, (_, i) => host.tools.call("echo", { i }).then((r) => onDisk(r.callId))));
    expect(seen).toEqual(Array.from({ length: 16 }, () => true));
    const denied = await host.tools.call("nope", {}).then((r) => onDisk(r.callId));
    expect(denied).toBe(true);
  });

  test("records queued in one tick are written together, in order, before a later microtask; write() is immediate", async () => {
    const project = tempProject();
    const log = new AuditLog(project.auditFile, "s");
    for (let i = 0; i < 3; i++) log.queue({ kind: "call", source: "x", name: `q${i}`, outcome: "ok" });
    await Promise.resolve();
    expect(readAudit(project.auditFile).map((r) => r.name)).toEqual(["q0", "q1", "q2"]);
    log.queue({ kind: "call", source: "x", name: "q3", outcome: "ok" });
    log.write({ kind: "plugin", source: "x", name: "w", outcome: "ok" });
    expect(readAudit(project.auditFile).map((r) => r.name)).toEqual(["q0", "q1", "q2", "q3", "w"]);
    log.close();
  });

  test("a record whose arguments cannot be summarized or serialized is still written, without them", () => {
    const project = tempProject();
    const log = new AuditLog(project.auditFile, "s");
    const throwing = Object.defineProperty({}, "boom", {
      enumerable: true,
      get() {
        throw new Error("getter exploded");
      },
    });
    log.queue({ kind: "call", source: "x", name: "bigint", args: { n: 1n }, outcome: "ok" });
    log.queue({ kind: "call", source: "x", name: "getter", args: throwing, outcome: "ok" });
    log.close();
    expect(readAudit(project.auditFile).map((r) => [r.name, r.args, r.outcome, r.unserializable])).toEqual([
      ["bigint", undefined, "ok", expect.stringContaining("BigInt")],
      ["getter", undefined, "ok", "getter exploded"],
    ]);
  });

  test("strings that need escaping survive the record (quotes, backslashes, newlines, emoji, lone surrogates)", () => {
    const project = tempProject();
    const log = new AuditLog(project.auditFile, 's"1');
    const text = 'quote " backslash \\ newline \n tab \t bell \u0007 emoji 😀 lone \ud800 sep \u2028';
    log.write({ kind: "call", source: 'plug"in', name: "n\\m", args: { text }, outcome: "ok", error: text, durationMs: 1.005, truncated: true });
    log.close();
    const [rec] = readAudit(project.auditFile);
    // A lone surrogate is written escaped (as JSON.stringify does), so even it comes back unchanged.
    expect(rec).toMatchObject({ session: 's"1', source: 'plug"in', name: "n\\m", args: { text }, error: text, truncated: true });
  });

  test("durations are written rounded to hundredths, exactly as JSON would write them", () => {
    const project = tempProject();
    const log = new AuditLog(project.auditFile, "s");
    const durations = [0, 0.004, 0.005, 0.1, 0.125, 1.005, 12.3, 99.999, 1234.56789, 60_000, 1e15, NaN];
    for (const d of durations) log.queue({ kind: "call", source: "x", name: "n", outcome: "ok", durationMs: d });
    log.close();
    const lines = readFileSync(project.auditFile, "utf8").trim().split("\n");
    expect(lines.map((l) => /"durationMs":([^,}]*)/.exec(l)?.[1])).toEqual(durations.map((d) => JSON.stringify(Math.round(d * 100) / 100)));
  });

  test("AuditLog without a file writes nothing and never throws", () => {
    const log = new AuditLog(undefined, "s");
    expect(() => log.write({ kind: "call", source: "x", name: "y", outcome: "ok" })).not.toThrow();
    log.close();
  });
});

describe("crash durability", () => {
  const N = 25;
  /** A child host (the BUILT package) that makes N calls, reports each, then either waits or kills itself. */
  const script = (selfKill: boolean) => `
import { createHost, z } from ${JSON.stringify(DIST_INDEX_URL)};
const host = await createHost({
  cwd: process.cwd(),
  builtins: [],
  userConfigDir: false,
  plugins: [{ name: "crashy", tools: [{ name: "work", description: "w", risk: "read", input: z.object({ i: z.number() }), run: ({ i }) => "done " + i }] }],
});
for (let i = 0; i < ${N}; i++) {
  const r = await host.tools.call("work", { i });
  if (!r.ok) { console.error(r.output); process.exit(1); }
  process.stdout.write("finished " + i + "\\n");
}
${selfKill ? 'process.kill(process.pid, "SIGKILL");' : 'process.stdout.write("waiting\\n"); setInterval(() => {}, 1000);'}
`;

  async function runChild(selfKill: boolean) {
    assertBuilt();
    const project = tempProject({ "child.mjs": script(selfKill) });
    const child = spawn(process.execPath, ["child.mjs"], { cwd: project.dir, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (!selfKill && out.includes("waiting\n")) child.kill("SIGKILL");
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on("close", (_code, sig) => resolve(sig)));
    return { project, signal, out, err };
  }

  test.each([
    ["killed by the parent", false],
    ["killing itself", true],
  ])("every finished call is in the file after kill -9 (%s)", async (_how, selfKill) => {
    const { project, signal, out, err } = await runChild(selfKill);
    expect(err).toBe("");
    expect(signal).toBe("SIGKILL");
    expect(out.match(/^finished \d+$/gm)).toHaveLength(N);
    const calls = readAudit(project.auditFile).filter((r) => r.kind === "call");
    expect(calls).toHaveLength(N);
    expect(calls.map((r) => r.args.i)).toEqual(Array.from({ length: N }, (_, i) => i));
    expect(calls.every((r) => r.outcome === "ok" && r.source === "crashy")).toBe(true);
  });
});
