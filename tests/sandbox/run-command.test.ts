/**
 * run_command inside the sandbox, through the gate: a timeout still stops the command and what it left
 * in the background (bwrap between them); the output says what the sandbox refused; where no sandbox
 * works it says so once, or refuses with `sandbox.required`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, test } from "vitest";
import { type Host } from "../../core/index.js";
import { createHost } from "../helpers/host.js";
import toolsPlugin from "../../plugins/tools/index.js";
import { noSandboxTest, sandboxHere } from "../helpers/sandbox.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

const here = await sandboxHere();
const hosts: Host[] = [];
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  cleanupTemp();
});

async function host(config: Record<string, unknown> = {}, files: Record<string, string> = {}): Promise<Host> {
  const p = tempProject(files);
  const h = await createHost({ cwd: p.dir, userConfigDir: false, loadConfigFiles: false, builtins: [{ name: "tools", load: async () => toolsPlugin }], permissionMode: "bypass", config });
  hosts.push(h);
  return h;
}

/** Pids of live processes whose command line is `line` (not bwrap's or bash's, which hold it too). */
function pidsRunning(line: string): number[] {
  const out: number[] = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (state !== "Z" && readFileSync(`/proc/${e}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ") === line) out.push(Number(e));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond(), what).toBe(true);
}

if (here.kind === "bwrap") describe("run_command in bwrap", () => {
  test("a timeout stops the command and its background children inside the sandbox", async () => {
    const h = await host();
    const marker = `${1000 + (process.pid % 997)}.${Date.now() % 1000}`;
    const call = h.tools.call("run_command", { command: `sleep ${marker} & sleep ${marker}; `, timeout_ms: 2000 });
    await until(() => pidsRunning(`sleep ${marker}`).length === 2, "both sleeps started");
    const r = await call;
    expect(r.output).toContain("timed out after 2000 ms");
    await until(() => pidsRunning(`sleep ${marker}`).length === 0, "no sleep left");
  });

  test("the model is told what was refused, and the result says which sandbox ran it", async () => {
    const h = await host();
    const r = await h.tools.call("run_command", { command: "echo x > /etc/agent-rc-pwned; curl -sS -m 5 http://example.invalid/" });
    expect(r.ok).toBe(false);
    expect(r.output).toContain("[sandbox] The OS sandbox refused writing /etc/agent-rc-pwned");
    expect(r.output).toContain('sandbox.network is "none"');
    expect((r.structured as { sandbox: string }).sandbox).toBe("bwrap");
  });

  test("sandbox.enabled: false runs the command outside, and says so once", async () => {
    const h = await host({ sandbox: { enabled: false } });
    const first = await h.tools.call("run_command", { command: "cat /proc/1/cmdline | tr '\\0' ' '" });
    expect(first.output).toContain("without an OS sandbox: switched off (config sandbox.enabled: false)");
    expect(first.output).not.toContain("bwrap");
    const second = await h.tools.call("run_command", { command: "echo again" });
    expect(second.output).not.toContain("[sandbox]");
  });

  test("a protected file the gate let this call write is writable for it; another program's write to it is not", async () => {
    const h = await host({ permissions: { allow: ["run_command(> .mcp.json)", "run_command(node -e *)"] } }, { ".mcp.json": "{}\n" });
    const file = `${h.workspace.root}/.mcp.json`;
    const ok = await h.tools.call("run_command", { command: `echo '{"mcpServers":{}}' > .mcp.json` });
    expect(ok.ok, ok.output).toBe(true);
    expect(readFileSync(file, "utf8")).toBe('{"mcpServers":{}}\n');
    const sneaky = await h.tools.call("run_command", { command: `node -e 'require("fs").writeFileSync(".mcp.json", "pwned")'` });
    expect(sneaky.ok).toBe(false);
    expect(sneaky.output).toContain("a protected file");
    expect(readFileSync(file, "utf8")).toBe('{"mcpServers":{}}\n');
  });

  test("sandbox.allowWrite makes a folder outside writable", async () => {
    const extra = tempProject();
    const h = await host({ sandbox: { allowWrite: [extra.dir] } });
    const r = await h.tools.call("run_command", { command: `${process.execPath} -e 'require("fs").writeFileSync(${JSON.stringify(extra.path("w.txt"))}, "ok")'` });
    expect(r.ok, r.output).toBe(true);
    expect(readFileSync(extra.path("w.txt"), "utf8")).toBe("ok");
  });
});

describe("no sandbox here (a bwrap that does not exist)", () => {
  const saved = process.env.AGENT_SANDBOX_BWRAP;
  afterAll(() => {
    if (saved === undefined) delete process.env.AGENT_SANDBOX_BWRAP;
    else process.env.AGENT_SANDBOX_BWRAP = saved;
  });

  test("the first command says so (output and a notice), the next do not", async () => {
    process.env.AGENT_SANDBOX_BWRAP = "/nonexistent/bwrap";
    const h = await host();
    const notices: string[] = [];
    h.on((e) => {
      if (e.type === "notice") notices.push(e.message);
    });
    const first = await h.tools.call("run_command", { command: "echo one" });
    expect(first.ok).toBe(true);
    expect(first.output).toContain("[sandbox] Commands run without an OS sandbox: bubblewrap (bwrap) is not installed");
    const second = await h.tools.call("run_command", { command: "echo two" });
    expect(second.output).not.toContain("[sandbox]");
    expect(notices.filter((n) => n.includes("without an OS sandbox"))).toHaveLength(1);
  });

  test("sandbox.required refuses the command with a clear error, and nothing runs", async () => {
    process.env.AGENT_SANDBOX_BWRAP = "/nonexistent/bwrap";
    const p = tempProject();
    const h = await host({ sandbox: { required: true } });
    const r = await h.tools.call("run_command", { command: `touch ${p.path("ran")}` });
    expect(r.ok).toBe(false);
    expect(r.output).toContain("config sandbox.required is set and no OS sandbox works here");
    expect(r.output).not.toMatch(/\n\s+at /);
    expect(readdirSync(p.dir)).not.toContain("ran");
  });
});

if (here.kind !== "bwrap") noSandboxTest(here);
