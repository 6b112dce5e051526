/**
 * The `agent` CLI end to end: spawns the BUILT `node dist/cli.js` in temp projects whose test tools
 * come from a local plugin file importing the built package. AGENT_CONFIG_HOME is always an empty
 * temp folder, so the real user config cannot leak in.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { spawn } from "node:child_process";
import { cleanEnv, runCli, type CliResult } from "../helpers/cli.js";
import { DIST_BIN, DIST_CLI, DIST_INDEX_URL, REPO_ROOT, assertBuilt } from "../helpers/paths.js";
import { cleanupTemp, tempProject, type TempProject } from "../helpers/project.js";
import { loadLoggerOption } from "../helpers/load-logger.js";

afterAll(cleanupTemp);
beforeAll(assertBuilt);
// Each test spawns the CLI, several times for some: generous on a loaded 2-core machine.
vi.setConfig({ testTimeout: 60_000 });

const VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;

const TESTKIT = `
import { definePlugin, z } from ${JSON.stringify(DIST_INDEX_URL)};
export default definePlugin((options) => ({
  name: "testkit",
  tools: [
    { name: "echo", description: "Echo the text back", risk: "read", input: z.object({ text: z.string() }), run: ({ text }) => (options.prefix ?? "") + text },
    { name: "fail", description: "Always fails", risk: "read", input: z.object({}), run: () => { throw new Error("it broke on purpose"); } },
    { name: "writer", description: "Pretends to write", risk: "write", input: z.object({ path: z.string().optional() }), run: () => "written" },
    { name: "big", description: "Large output", risk: "read", input: z.object({}), run: () => "x".repeat(100000) },
    { name: "stuck", description: "Never returns", risk: "read", timeoutMs: 200, input: z.object({}), run: () => new Promise(() => {}) },
    { name: "soft_error", description: "Returns an error result", risk: "read", input: z.object({}), run: () => ({ output: "nothing found", isError: true }) },
  ],
}));
`;

/** A project with the testkit plugin (and whatever else `extra` adds). */
function project(config: Record<string, unknown> = {}, files: Record<string, string | object> = {}): TempProject {
  return tempProject({
    ".agentrc.json": { plugins: [["./testkit.mjs", { prefix: "" }]], ...config },
    "testkit.mjs": TESTKIT,
    ...files,
  });
}

const cli = (p: TempProject, args: string[], input?: string): Promise<CliResult> => runCli(args, { cwd: p.dir, configHome: p.configHome, input });

function json<T = any>(r: CliResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${r.code}):\n${r.stdout}\nstderr:\n${r.stderr}`);
  }
}

describe.concurrent("version and help", () => {
  test("--version, -v and -V print the package version", async () => {
    const p = tempProject();
    for (const flag of ["--version", "-v", "-V"]) {
      const r = await cli(p, [flag]);
      expect(r).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
    }
  });

  test("the package's agent bin answers --version itself and hands every other command to dist/cli.js", async () => {
    const p = project();
    const bin = (args: string[]) => runCli(args, { cwd: p.dir, configHome: p.configHome, entry: DIST_BIN });
    for (const flag of ["--version", "-v", "-V"]) expect(await bin([flag])).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
    for (const args of [["tools"], ["tools", "--json"], ["--help"], ["frobnicate"], ["call", "echo", '{"text":"hi"}']]) {
      const [viaBin, direct] = await Promise.all([bin(args), cli(p, args)]);
      expect(viaBin, args.join(" ")).toEqual(direct);
    }
  });

  test("--help lists every command, the global options and the exit codes", async () => {
    const p = tempProject();
    const r = await cli(p, ["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: agent \[command\] \[options\]/);
    for (const cmd of ["run", "tools", "call", "plugins", "mcp", "config", "audit", "doctor"]) expect(r.stdout).toMatch(new RegExp(`^  ${cmd} `, "m"));
    for (const opt of ["--cwd", "--permission-mode", "--debug", "--help", "--version"]) expect(r.stdout).toContain(opt);
    expect(r.stdout).toContain("Exit codes: 0 success, 1 failure, 2 usage or config error, 3 denied by permission, 129/130/143 interrupted (SIGHUP/SIGINT/SIGTERM).");
    expect((await cli(p, ["help"])).stdout).toBe(r.stdout);
  });

  test("a subcommand's --help prints its usage", async () => {
    const p = tempProject();
    const r = await cli(p, ["call", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: agent call <tool> [json-args] [--json]");
    expect((await cli(p, ["tools", "-h"])).stdout).toContain("Usage: agent tools [--json]");
  });

  test("no command and no terminal: usage error (exit 2) with the help", async () => {
    const p = tempProject();
    const r = await cli(p, []);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Usage: agent");
    expect(r.stderr).toContain("no command given and no terminal");
  });
});

describe.concurrent("heavy modules load lazily", () => {
  /** Run the CLI with a module-load logger; returns the package names / dist files it loaded. */
  async function loaded(p: TempProject, args: string[], entry?: string): Promise<string[]> {
    const r = await runCli(args, { cwd: p.dir, configHome: p.configHome, entry, env: { NODE_OPTIONS: loadLoggerOption(p) } });
    expect(r.code, r.stderr).toBe(0);
    return [...r.stderr.matchAll(/^LOADED (\S+)$/gm)].map((m) => {
      const url = m[1];
      const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
      return nm ? nm[1] : url.slice(url.lastIndexOf("/") + 1);
    });
  }

  test("agent --version imports nothing but the CLI entry", async () => {
    expect(await loaded(tempProject(), ["--version"])).toEqual(["cli.js"]);
    expect(await loaded(tempProject(), ["--version"], DIST_BIN)).toEqual(["cli.cjs"]);
  });

  test("agent tools (built-ins only) loads no MCP SDK, provider SDK, config loader or JSON Schema validator", async () => {
    const mods = await loaded(tempProject(), ["tools"]);
    expect(mods).toContain("cli.js");
    for (const heavy of ["@modelcontextprotocol/", "openai", "@anthropic-ai/sdk", "cosmiconfig", "jiti", "ajv", "zod"]) {
      expect(mods, heavy).not.toContain(heavy);
    }
  });
});

describe.concurrent("usage errors exit 2", () => {
  test("unknown command", async () => {
    const r = await cli(tempProject(), ["frobnicate"]);
    expect(r).toMatchObject({ code: 2, stdout: "" });
    expect(r.stderr).toBe('agent: unknown command "frobnicate". Run agent --help for the list.\n');
  });

  test("unknown flag, on a subcommand and globally", async () => {
    const p = tempProject();
    const sub = await cli(p, ["tools", "--bogus"]);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain("--bogus");
    expect(sub.stderr).not.toMatch(/^\s+at /m);
    const global = await cli(p, ["--bogus"]);
    expect(global.code).toBe(2);
    expect(global.stderr).toBe("agent: unknown option --bogus for agent. See agent --help.\n");
  });

  test("bad --permission-mode, and a flag missing its value", async () => {
    const p = tempProject();
    const r = await cli(p, ["--permission-mode", "yolo", "tools"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--permission-mode must be one of default, plan, acceptEdits, bypass, bypassPermissions, dontAsk; got "yolo"');
    const m = await cli(p, ["tools", "--cwd"]);
    expect(m.code).toBe(2);
    expect(m.stderr).toContain("--cwd needs a value");
  });

  test("audit --tail must be a positive whole number", async () => {
    const r = await cli(tempProject(), ["audit", "--tail", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--tail must be a positive whole number");
  });
});

describe.concurrent("agent tools", () => {
  test("--json: name, description, source, risk and input schema of every tool, sorted", async () => {
    const p = project();
    const r = await cli(p, ["tools", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const tools = json<{ name: string; description: string; source: string; risk: string; inputSchema: any }[]>(r);
    const names = tools.map((t) => t.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    expect(names).toEqual(expect.arrayContaining(["echo", "fail", "writer", "big", "stuck", "soft_error"]));
    const echo = tools.find((t) => t.name === "echo")!;
    expect(echo).toEqual({
      name: "echo",
      description: "Echo the text back",
      source: "testkit",
      risk: "read",
      inputSchema: expect.objectContaining({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
    });
    for (const t of tools) expect(Object.keys(t).sort()).toEqual(["description", "inputSchema", "name", "risk", "source"]);
    // the built-in tools are there too, from the tools plugin
    expect(tools.filter((t) => t.source === "tools").length).toBeGreaterThan(0);
  });

  test("table output with the count and the permission mode", async () => {
    const p = project();
    const r = await cli(p, ["tools", "--permission-mode", "plan"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NAME\s+RISK\s+SOURCE\s+DESCRIPTION$/m);
    expect(r.stdout).toMatch(/^echo\s+read\s+testkit\s+Echo the text back$/m);
    expect(r.stdout).toMatch(/^\d+ tools\. Permission mode: plan\.$/m);
  });

  test("--cwd points at another project", async () => {
    const p = project();
    const elsewhere = tempProject();
    const r = await runCli(["--cwd", p.dir, "tools", "--json"], { cwd: elsewhere.dir, configHome: p.configHome });
    expect(json<{ name: string }[]>(r).some((t) => t.name === "echo")).toBe(true);
  });
});

describe.concurrent("agent call", () => {
  test("ok → exit 0 and the output on stdout", async () => {
    const r = await cli(project(), ["call", "echo", '{"text":"hello"}']);
    expect(r).toMatchObject({ code: 0, stdout: "hello\n" });
  });

  test("--json prints exactly {ok, output}", async () => {
    const r = await cli(project(), ["call", "echo", '{"text":"hello"}', "--json"]);
    expect(r.code).toBe(0);
    expect(json(r)).toEqual({ ok: true, output: "hello" });
  });

  test("plugin options from config reach the tool", async () => {
    const p = tempProject({ ".agentrc.json": { plugins: [["./testkit.mjs", { prefix: ">> " }]] }, "testkit.mjs": TESTKIT });
    expect((await cli(p, ["call", "echo", '{"text":"x"}'])).stdout).toBe(">> x\n");
  });

  test("a tool failure → exit 1; --json gives {ok: false, output, error}", async () => {
    const p = project();
    const r = await cli(p, ["call", "fail", "{}", "--json"]);
    expect(r.code).toBe(1);
    expect(json(r)).toEqual({
      ok: false,
      output: "Tool fail failed: it broke on purpose",
      error: { code: "E_TOOL_FAILED", message: "Tool fail failed: it broke on purpose" },
    });
    const plain = await cli(p, ["call", "fail"]);
    expect(plain).toMatchObject({ code: 1, stdout: "" });
    expect(plain.stderr).toContain("Tool fail failed: it broke on purpose");
    const soft = await cli(p, ["call", "soft_error", "--json"]);
    expect(soft.code).toBe(1);
    expect(json(soft)).toMatchObject({ ok: false, output: "nothing found" });
  });

  test("a timeout → exit 1", async () => {
    const r = await cli(project(), ["call", "stuck", "{}", "--json"]);
    expect(r.code).toBe(1);
    expect(json(r)).toMatchObject({ ok: false, error: { code: "E_TOOL_TIMEOUT" } });
  });

  test("truncated output is flagged in --json", async () => {
    const r = await cli(project(), ["call", "big", "{}", "--json"]);
    expect(r.code).toBe(0);
    const out = json<{ ok: boolean; output: string; truncated?: boolean }>(r);
    expect(out.truncated).toBe(true);
    expect(out.output).toMatch(/\n\[output truncated: 34464 of 100000 bytes cut; the first 65536 bytes are shown\]$/);
  });

  test("bad JSON → exit 2", async () => {
    const r = await cli(project(), ["call", "echo", "{text: hi}"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^agent: json-args is not valid JSON: /);
  });

  test("unknown tool → exit 2 (with a suggestion)", async () => {
    const r = await cli(project(), ["call", "ecko", "{}"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Unknown tool "ecko". Did you mean "echo"?');
  });

  test("invalid input → exit 2, naming the field", async () => {
    const r = await cli(project(), ["call", "echo", '{"text": 5}', "--json"]);
    expect(r.code).toBe(2);
    const out = json(r);
    expect(out).toMatchObject({ ok: false, error: { code: "E_TOOL_INVALID_INPUT" } });
    expect(out.output).toMatch(/^- text: /m);
  });

  test("missing tool name and extra arguments → exit 2", async () => {
    const p = project();
    expect((await cli(p, ["call"])).code).toBe(2);
    const extra = await cli(p, ["call", "echo", "{}", "more"]);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain("unexpected arguments after the JSON: more");
  });

  test("denied → exit 3, naming the rule and the config file; allowed with a mode or a rule", async () => {
    const p = project();
    const r = await cli(p, ["call", "writer", "{}", "--json"]);
    expect(r.code).toBe(3);
    const out = json(r);
    expect(out.error.code).toBe("E_TOOL_DENIED");
    expect(out.output).toContain(`add "writer" to permissions.allow in ${p.path(".agentrc.json")}`);
    const plain = await cli(p, ["call", "writer"]);
    expect(plain.code).toBe(3);
    expect(plain.stderr).toContain("needs approval and there is no terminal to ask");
    expect((await cli(p, ["call", "writer", "--permission-mode", "acceptEdits"])).code).toBe(0);
    expect((await cli(p, ["--permission-mode=bypass", "call", "writer"])).code).toBe(0);
    expect((await cli(p, ["call", "echo", '{"text":"x"}', "--permission-mode", "plan"])).code).toBe(0);
    const q = project({ permissions: { allow: ["writer"] } });
    expect((await cli(q, ["call", "writer"])).stdout).toBe("written\n");
    const d = project({ permissions: { deny: ["echo"] } });
    const denied = await cli(d, ["call", "echo", '{"text":"x"}']);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain('matches the deny rule "echo"');
  });

  test("a path outside the workspace → exit 3, with the reason", async () => {
    const p = project();
    const r = await cli(p, ["call", "read_file", '{"path":"../../etc/passwd"}', "--json"]);
    expect(r.code).toBe(3);
    expect(json(r)).toMatchObject({ ok: false, error: { code: "E_PATH_OUTSIDE_WORKSPACE" } });
    expect(json(r).output).toContain("is outside the workspace");
  });

  test("a reader that stops early (agent tools | head) ends it quietly: exit 0, no stack trace", async () => {
    const p = project();
    const child = spawn(process.execPath, [DIST_CLI, "tools", "--json"], {
      cwd: p.dir,
      env: cleanEnv({ AGENT_CONFIG_HOME: p.configHome }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    // Closed before the CLI has written a byte: its first write fails with EPIPE.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  test('"-" reads the JSON arguments from stdin', async () => {
    const r = await cli(project(), ["call", "echo", "-", "--json"], '{"text":"from stdin"}');
    expect(r.code).toBe(0);
    expect(json(r)).toEqual({ ok: true, output: "from stdin" });
  });
});

describe.concurrent("agent plugins, config, doctor, audit", () => {
  const withBroken = () =>
    project({ plugins: [["./testkit.mjs", {}], "./broken.mjs", "agent-plugin-nowhere"] }, { "broken.mjs": "throw new Error('broken at import');" });

  test("plugins --json lists loaded and failed plugins with reasons", async () => {
    const p = withBroken();
    const r = await cli(p, ["plugins", "--json"]);
    expect(r.code).toBe(0);
    const plugins = json<{ name: string; from: string; status: string; error?: string; tools: number }[]>(r);
    expect(plugins.find((x) => x.name === "testkit")).toMatchObject({ status: "loaded", tools: 6, from: p.path("testkit.mjs") });
    expect(plugins.find((x) => x.from === p.path("broken.mjs"))).toMatchObject({ status: "failed", error: expect.stringContaining("broken at import") });
    expect(plugins.find((x) => x.from === "agent-plugin-nowhere")).toMatchObject({ status: "failed", error: expect.stringContaining("is not installed") });
    expect(plugins.find((x) => x.name === "tools")).toMatchObject({ status: "loaded", from: "builtin" });
  });

  test("plugins (table) says how many failed; the working plugin's tools still run", async () => {
    const p = withBroken();
    const r = await cli(p, ["plugins"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^PLUGIN\s+STATUS\s+FROM\s+DETAILS$/m);
    expect(r.stdout).toMatch(/^testkit\s+loaded\s+.*6 tools/m);
    expect(r.stdout).toContain("2 plugin(s) failed to load.");
    const call = await cli(p, ["call", "echo", '{"text":"still works"}']);
    expect(call).toMatchObject({ code: 0, stdout: "still works\n" });
    expect(call.stderr).toContain("broken at import");
  });

  test("config shows the files, the project root and the resolved config with secrets redacted", async () => {
    const p = project({ model: "openai:gpt-5.4", providers: { openai: { apiKey: "sk-live-should-not-print", baseURL: "http://localhost:1" } } });
    const r = await cli(p, ["config"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Project root: ${p.dir}`);
    expect(r.stdout).toContain(`  ${p.path(".agentrc.json")}`);
    expect(r.stdout).not.toContain("sk-live-should-not-print");
    const j = await cli(p, ["config", "--json"]);
    const file = p.path(".agentrc.json");
    expect(json(j)).toEqual({
      files: [file],
      projectRoot: p.dir,
      trust: { state: "trusted", notLoaded: [] },
      config: {
        model: "openai:gpt-5.4",
        plugins: [[p.path("testkit.mjs"), { prefix: "" }]],
        providers: { openai: { apiKey: "[REDACTED]", baseURL: "http://localhost:1" } },
      },
      // Which file gave each part (here all of it).
      origins: [
        { key: "model", file },
        { key: "plugins", file },
        { key: "providers", file },
      ],
    });
  });

  test("config with no files says so", async () => {
    const r = await cli(tempProject(), ["config"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("none (defaults)");
  });

  test("doctor: exit 0 on a clean project, exit 1 listing the problems otherwise", async () => {
    const clean = await cli(project(), ["doctor"]);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).toContain(`agent ${VERSION} on Node ${process.version}`);
    // No model is a warning, not a problem: only `agent run` and the interactive session need one.
    expect(clean.stdout).toMatch(/^warn model: none configured; agent run and the interactive session need one/m);
    expect(clean.stdout).toContain("No problems found (1 warning above).");
    expect(clean.stdout).toMatch(/^ok\s+plugin testkit$/m);
    const unknownProvider = await cli(project({ model: "nope:some-model" }), ["doctor"]);
    expect(unknownProvider.code).toBe(1);
    expect(unknownProvider.stdout).toMatch(/^FAIL model: nope:some-model: Unknown model provider "nope" in "nope:some-model"\. Registered providers: /m);
    expect(unknownProvider.stdout).toContain("1 problem(s):");
    const bad = await cli(withBroken(), ["doctor"]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^FAIL plugin .*broken\.mjs: .*broken at import/m);
    expect(bad.stdout).toContain("2 problem(s):");
    const j = await cli(withBroken(), ["doctor", "--json"]);
    expect(j.code).toBe(1);
    const report = json(j);
    expect(report.version).toBe(VERSION);
    expect(report.problems).toHaveLength(2);
    expect(report.tools.testkit).toBe(6);
  });

  test("doctor: a rule that names no tool is a warning, with the rule it most likely means", async () => {
    const p = project({ permissions: { deny: ["bash(rm:*)", "Bash(git push:*)"], allow: ["mcp__nowhere__*"] } });
    const r = await cli(p, ["doctor"]);
    expect(r.code, r.stdout).toBe(0);
    const file = p.path(".agentrc.json");
    expect(r.stdout).toContain(`warn permissions.deny[0] "bash(rm:*)" (from ${file}) names no registered tool, so it denies nothing; did you mean "run_command(rm:*)"?`);
    expect(r.stdout).toContain(`warn permissions.allow[0] "mcp__nowhere__*" (from ${file}) names no registered tool, so it allows nothing (is its plugin or MCP server loaded?)`);
    // Claude Code's own name for the tool is an alias: the rule applies, so nothing to warn about.
    expect(r.stdout).not.toContain('warn permissions.deny[1] "Bash(git push:*)"');
    const q = project({ permissions: { deny: ["bash(rm:*)"] } });
    expect(json(await cli(q, ["doctor", "--json"])).warnings).toContain(
      `permissions.deny[0] "bash(rm:*)" (from ${q.path(".agentrc.json")}) names no registered tool, so it denies nothing; did you mean "run_command(rm:*)"?`,
    );
  });

  test("doctor: a deny rule on a shell command says what it cannot see (interpreters with inline code)", async () => {
    const p = project({ permissions: { deny: ["Bash(rm:*)", "read_file(secrets/**)"] } });
    const r = await cli(p, ["doctor"]);
    expect(r.stdout).toContain('note permissions.deny[0] "Bash(rm:*)" meets the command however it is spelt, wrapped or nested, but not what an interpreter does with inline code (python -c');
    expect(r.stdout).not.toContain('note permissions.deny[1]');
    expect(json(await cli(p, ["doctor", "--json"])).notes).toHaveLength(1);
  });

  test("a rule pasted from Claude Code (Bash(rm:*)) denies run_command, even in bypass mode", async () => {
    const p = project({ permissions: { mode: "bypass", deny: ["Bash(rm:*)"] } });
    const denied = await cli(p, ["call", "run_command", '{"command":"echo hi && rm -rf nothing-here"}', "--json"]);
    expect(denied.code, denied.stdout + denied.stderr).toBe(3);
    expect(json(denied).error.code).toBe("E_TOOL_DENIED");
    expect(json(denied).error.message).toContain('deny rule "Bash(rm:*)"');
    const fine = await cli(p, ["call", "run_command", '{"command":"echo hi"}', "--json"]);
    expect(fine.code, fine.stdout + fine.stderr).toBe(0);
  });

  test("audit --tail N --json prints the last N records as JSON lines", async () => {
    const p = project();
    expect((await cli(p, ["call", "echo", '{"text":"one"}'])).code).toBe(0);
    expect((await cli(p, ["call", "writer"])).code).toBe(3);
    expect((await cli(p, ["call", "echo", '{"text":3,"token":"sekrit-token-value"}'])).code).toBe(2);
    const r = await cli(p, ["audit", "--tail", "3", "--json"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
    const file = readFileSync(p.auditFile, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
    // Calls only by default: the registration records every command writes are left out.
    expect(lines).toEqual(file.filter((l) => l.kind === "call").slice(-3));
    expect(lines.at(-1)).toMatchObject({ kind: "call", source: "testkit", name: "echo", outcome: "invalid", args: { text: 3, token: "[REDACTED]" } });
    expect(r.stdout).not.toContain("sekrit-token-value");
    const all = await cli(p, ["audit", "--all", "--json", "--tail", "1000"]);
    const records = all.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
    // Every record, except the calls' write-ahead starts: each is replaced by its call record with the outcome.
    expect(records).toEqual(file.filter((l) => l.kind !== "start"));
    expect(file.filter((l) => l.kind === "start").map((l) => l.callId)).toEqual(records.filter((l) => l.kind === "call" && l.outcome === "ok").map((l) => l.callId));
    expect(records.filter((l) => l.kind === "call").map((l) => [l.name, l.outcome])).toEqual([
      ["echo", "ok"],
      ["writer", "denied"],
      ["echo", "invalid"],
    ]);
    expect(new Set(records.map((l) => l.session)).size).toBe(3);
    const table = await cli(p, ["audit", "-n", "2"]);
    expect(table.stdout).toMatch(/^TIME\s+KIND\s+SOURCE\s+NAME\s+OUTCOME/m);
    expect(table.stdout.trim().split("\n")).toHaveLength(3);
  });

  test("audit with no log yet says where it would be", async () => {
    const p = tempProject();
    const r = await cli(p, ["audit"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`no audit log yet at ${p.path(".agent/audit.jsonl")}`);
  });
});
