/**
 * Protected paths in core: which paths count (names in every root and at any depth, the user's config
 * folders, the audit log and transcripts), how a path is followed to where it leads, what makes a rule
 * name a call exactly, and how the gate decides for any tool: a `write` tool with path subjects is
 * protected without saying so, `writes` tells the rest (and package.json's agent key), plugins' votes
 * and answers cannot skip the question, extra roots and user folders count, a configured audit log is
 * never written.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z, type FileWrite, type PermissionRequest, type Plugin, type ToolDefinition } from "../../core/index.js";
import { type CreateHostOptions } from "../../core/embed.js";
import { protectedPlaces } from "../../core/gate/protected-paths.js";
import { changesAgentKey, judgeWrites, protectionOf } from "../../kit/fs/protected-paths.js";
import { realTarget } from "../../kit/fs/real-path.js";
import { namesExactly } from "../../kit/rules/match.js";
import { parseRule } from "../../kit/rules/parse.js";
import { closeHosts, hostWithTools, testHost } from "../helpers/host.js";
import { cleanupTemp, tempDir, tempProject } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

describe("protectionOf", () => {
  const root = "/w/project";
  const extra = "/w/shared";
  const places = { roots: [root, extra], auditFiles: ["/w/project/logs/audit.jsonl"], userDirs: [{ dir: "/home/me/.config/agent", why: "the user's agent config folder" }] };
  it.each<[string, "ask" | "never" | undefined]>([
    [".agent/settings.local.json", "ask"],
    [".agent/settings.json", "ask"],
    [".agent/commands/x.md", "ask"],
    [".agent/audit.jsonl", "never"],
    [".agent/sessions/abc.jsonl", "never"],
    [".agent/sessions", "never"],
    ["logs/audit.jsonl", "never"],
    ["logs/other.jsonl", undefined],
    [".mcp.json", "ask"],
    ["agent.config.ts", "ask"],
    ["agent.config.mjs", "ask"],
    [".agentrc", "ask"],
    [".agentrc.yaml", "ask"],
    ["package.json", "ask"],
    [".claude/settings.json", "ask"],
    [".claude/agents/x.md", "ask"],
    [".git/config", "ask"],
    [".git/hooks/pre-commit", "ask"],
    [".git", "ask"],
    // Nested projects and repositories read their own.
    ["packages/a/.claude/settings.json", "ask"],
    ["packages/a/.git/config", "ask"],
    ["packages/a/.mcp.json", "ask"],
    ["packages/a/.agent/sessions/x.jsonl", "never"],
    // Ordinary files, whatever they look like.
    ["src/agent.ts", undefined],
    ["docs/.mcp.json.example", undefined],
    [".claude-notes.md", undefined],
    [".gitignore", undefined],
    [".github/workflows/ci.yml", undefined],
    ["agentrc", undefined],
    ["src/constructor/__proto__/toString.ts", undefined],
  ])("%s in the project root: %s", (rel, level) => {
    expect(protectionOf(path.join(root, rel), places)?.level).toBe(level);
  });

  it("counts in extra roots, the user's folders anywhere, and package.json only when its agent key changes", () => {
    expect(protectionOf(`${extra}/.claude/settings.json`, places)?.level).toBe("ask");
    expect(protectionOf(`${extra}/.mcp.json`, places)?.level).toBe("ask");
    expect(protectionOf("/home/me/.config/agent/config.json", places)).toEqual({ level: "ask", why: "the user's agent config folder" });
    expect(protectionOf(`${root}/package.json`, places, false)).toBeUndefined();
    expect(protectionOf(`${root}/package.json`, places, true)?.level).toBe("ask");
  });

  it.skipIf(process.platform === "darwin" || process.platform === "win32")("on a case-sensitive file system .Agent is another folder", () => {
    expect(protectionOf(`${root}/.Agent/settings.json`, places)).toBeUndefined();
    expect(protectionOf(`${root}/.MCP.json`, places)).toBeUndefined();
  });
});

describe("realTarget", () => {
  it("follows symlinks to files and folders, dangling ones too, and takes .. where the link really is", () => {
    const d = tempDir();
    mkdirSync(path.join(d, "real/inner"), { recursive: true });
    writeFileSync(path.join(d, "real/file"), "x");
    symlinkSync(path.join(d, "real/file"), path.join(d, "to-file"));
    symlinkSync("real/inner", path.join(d, "to-inner"));
    symlinkSync("nowhere/yet", path.join(d, "dangling"));
    symlinkSync("loop", path.join(d, "loop"));
    expect(realTarget(path.join(d, "to-file"))).toBe(path.join(d, "real/file"));
    expect(realTarget(path.join(d, "to-inner/new.txt"))).toBe(path.join(d, "real/inner/new.txt"));
    // The OS takes `..` after a symlink from where the link leads, not from where it is spelt.
    expect(realTarget(path.join(d, "to-inner") + "/../x")).toBe(path.join(d, "real/x"));
    expect(realTarget(path.join(d, "dangling"))).toBe(path.join(d, "nowhere/yet"));
    expect(realTarget(path.join(d, "missing/a/b"))).toBe(path.join(d, "missing/a/b"));
    expect(() => realTarget(path.join(d, "loop"))).toThrow(/symbolic links/);
  });
});

describe("changesAgentKey", () => {
  it.each<[string | undefined, string | undefined, boolean]>([
    ['{"name":"a"}', '{"name":"b"}', false],
    ['{"agent":{"x":1},"name":"a"}', '{"name":"b","agent":{"x":1}}', false],
    [undefined, '{"name":"new"}', false],
    ['{"agent":{"x":1}}', '{"agent":{"x":2}}', true],
    ['{"agent":{"x":1}}', '{"name":"a"}', true],
    ['{"name":"a"}', '{"name":"a","agent":{}}', true],
    [undefined, '{"agent":{}}', true],
    ['{"name":"a"}', "{ not json", true],
    ["\uFEFF{\"name\":\"a\"}", '{"name":"b"}', false],
  ])("%j → %j: %s", (before, after, changed) => {
    expect(changesAgentKey(before, after)).toBe(changed);
  });
});

describe("namesExactly", () => {
  const target = { name: "write_file", aliases: ["Write"] };
  it.each<[string, string, "path" | "text", boolean]>([
    ["write_file(.mcp.json)", ".mcp.json", "path", true],
    ["write_file(/.mcp.json)", ".mcp.json", "path", true],
    ["Write(/.agent/settings.local.json)", ".agent/settings.local.json", "path", true],
    ["write_file(/src/\\[id\\].json)", "src/[id].json", "path", true],
    ["write_file(//abs/x/.mcp.json)", "/abs/x/.mcp.json", "path", true],
    ["write_file", ".mcp.json", "path", false],
    ["write_file(*)", ".mcp.json", "path", false],
    ["write_file(**)", ".mcp.json", "path", false],
    ["write_file(.claude/)", ".claude/settings.json", "path", false],
    ["write_file(.claude)", ".claude/settings.json", "path", false],
    ["write_file(settings.json)", ".claude/settings.json", "path", false],
    ["write_file(/.mcp.jso?)", ".mcp.json", "path", false],
    ["write_file(/.mcp.jso[n])", ".mcp.json", "path", false],
    ["*_file(/.mcp.json)", ".mcp.json", "path", false],
    ["write_file(/other.json)", ".mcp.json", "path", false],
  ])("%s names %s: %s", (rule, subject, kind, exact) => {
    expect(namesExactly(parseRule(rule), target, subject, kind)).toBe(exact);
  });
  it.each<[string, string, boolean]>([
    ["run_command(> .mcp.json)", "> .mcp.json", true],
    ["Bash(> .mcp.json)", "> .mcp.json", true],
    ["run_command(> .mcp.json:*)", "> .mcp.json", false],
    ["run_command(> *)", "> .mcp.json", false],
    ["run_command", "> .mcp.json", false],
  ])("%s names %s: %s", (rule, subject, exact) => {
    expect(namesExactly(parseRule(rule), { name: "run_command", aliases: ["Bash"] }, subject, "text")).toBe(exact);
  });
});

describe("judgeWrites", () => {
  it("judges each declared write where it leads, with the subject an exact rule must name", () => {
    const p = tempProject({ ".mcp.json": "{}" });
    p.symlink("alias.json", ".mcp.json");
    const judge = { root: p.dir, places: protectedPlaces([p.dir], undefined), display: (abs: string) => path.relative(p.dir, abs) || "." };
    const list: (string | FileWrite)[] = ["src/a.ts", "alias.json", { path: "config", cwd: ".git", subject: "> config" }, { path: "?", uncertain: true, subject: "> $X" }];
    expect(judgeWrites(list, judge).map(({ path: at, subject, level }) => ({ at, subject, level }))).toEqual([
      { at: ".mcp.json", subject: "alias.json", level: "ask" },
      { at: ".git/config", subject: "> config", level: "ask" },
      { at: "?", subject: "> $X", level: "ask" },
    ]);
  });
});

/** A write tool of a third party: path subjects, no `writes`. */
const appendTool: ToolDefinition<{ file: string; text: string }> = {
  name: "append_note",
  description: "Append text to a file",
  risk: "write",
  input: z.object({ file: z.string(), text: z.string() }),
  permissionSubject: (i) => i.file,
  subjectKind: "path",
  run: ({ file, text }, ctx) => {
    writeFileSync(ctx.workspace.resolve(file), text, { flag: "a" });
    return "ok";
  },
};

/** A tool that says what it writes, including whether a package.json's agent key changes. */
const saveTool: ToolDefinition<{ target: string; agentKey?: boolean; fail?: boolean }> = {
  name: "save",
  description: "Save something",
  risk: "execute",
  input: z.object({ target: z.string(), agentKey: z.boolean().optional(), fail: z.boolean().optional() }),
  permissionSubject: (i) => `save ${i.target}`,
  writes: (i) => {
    if (i.fail) throw new Error("cannot tell");
    return [{ path: i.target, subject: `save ${i.target}`, ...(i.agentKey === undefined ? {} : { changesAgentKey: i.agentKey }) }];
  },
  run: ({ target }, ctx) => {
    writeFileSync(ctx.workspace.resolve(target), "saved");
    return "ok";
  },
};

const readTool: ToolDefinition<{ file: string }> = {
  name: "peek",
  description: "Read a file",
  risk: "read",
  input: z.object({ file: z.string() }),
  permissionSubject: (i) => i.file,
  subjectKind: "path",
  run: ({ file }, ctx) => readFileSync(ctx.workspace.resolve(file), "utf8"),
};

const tools = (options: CreateHostOptions & { plugin?: Partial<Plugin> } = {}) => hostWithTools([appendTool, saveTool, readTool] as ToolDefinition[], options);

describe("the gate, for any tool", () => {
  it("a write tool with path subjects is protected without saying so; reading is never", async () => {
    const { host, project } = await tools({ permissionMode: "bypass", config: { permissions: { allow: ["append_note", "peek"] } } });
    project.write(".git/config", "[core]\n");
    expect(await host.tools.call("append_note", { file: ".git/config", text: "\tfsmonitor = x\n" })).toMatchObject({ outcome: "denied" });
    expect(readFileSync(project.path(".git/config"), "utf8")).toBe("[core]\n");
    expect(await host.tools.call("peek", { file: ".git/config" })).toMatchObject({ ok: true, output: "[core]\n" });
    expect(await host.tools.call("append_note", { file: "notes.md", text: "x" })).toMatchObject({ ok: true });
  });

  it("`writes` names what a tool writes, with its subject; a throwing `writes` denies; changesAgentKey: false makes package.json ordinary", async () => {
    const { host, project } = await tools({ permissionMode: "bypass" });
    expect((await host.tools.call("save", { target: ".mcp.json" })).output).toContain('add "save(save .mcp.json)"');
    expect(await host.tools.call("save", { target: "out.txt", fail: true })).toMatchObject({ outcome: "denied", output: expect.stringContaining("its writes() threw: cannot tell") });
    expect(await host.tools.call("save", { target: "package.json" })).toMatchObject({ outcome: "denied" });
    expect(await host.tools.call("save", { target: "package.json", agentKey: true })).toMatchObject({ outcome: "denied" });
    expect(await host.tools.call("save", { target: "package.json", agentKey: false })).toMatchObject({ ok: true });
    expect(readFileSync(project.path("package.json"), "utf8")).toBe("saved");
    const exact = await tools({ permissionMode: "bypass", config: { permissions: { allow: ["save(save .mcp.json)"] } } });
    expect(await exact.host.tools.call("save", { target: ".mcp.json" })).toMatchObject({ ok: true });
  });

  it("the audit says who decided; the question carries the protected files, an ordinary one none", async () => {
    const asked: PermissionRequest[] = [];
    const { host, audit } = await tools({ askPermission: async (r) => (asked.push(r as PermissionRequest), "deny") });
    await host.tools.call("append_note", { file: ".claude/settings.json", text: "{}" });
    await host.tools.call("append_note", { file: "notes.md", text: "x" });
    expect(asked.map((r) => r.protectedWrites)).toEqual([[{ path: ".claude/settings.json", why: expect.stringContaining("Claude Code") }], undefined]);
    expect(asked[0].reason).toBe("protected:.claude/settings.json");
    const headless = await tools({ permissionMode: "bypass" });
    await headless.host.tools.call("append_note", { file: ".agent/audit.jsonl", text: "{}" });
    expect(headless.audit().find((r) => r.kind === "call")).toMatchObject({ decision: "deny", by: "protected:.agent/audit.jsonl" });
    expect(audit().filter((r) => r.kind === "call").map((r) => r.by)).toEqual(["user", "user"]);
  });
});

describe("plugins cannot skip the question", () => {
  it("a permission allow vote, a permissionRequest allow, a rewrite onto a protected file: still asked (headless: denied); a deny answer counts", async () => {
    const allow: Plugin = { name: "yes", permission: () => ({ decision: "allow" }) };
    const answer: Plugin = { name: "answers", permissionRequest: () => ({ decision: "allow" }) };
    const rewrite: Plugin = { name: "rewriter", permission: (c) => ((c.input as { file: string }).file === "notes.md" ? { input: { file: ".mcp.json", text: "{}" } } : undefined) };
    for (const plugin of [allow, answer, rewrite]) {
      const { host, project } = await testHost({ permissionMode: "bypass", plugins: [{ name: "t", tools: [appendTool as ToolDefinition] }, plugin] });
      const r = await host.tools.call("append_note", { file: plugin === rewrite ? "notes.md" : ".mcp.json", text: "{}" });
      expect(r.outcome, plugin.name).toBe("denied");
      expect(r.output).toContain("a file that decides what the agent may do");
      expect(existsSync(project.path(".mcp.json"))).toBe(false);
    }
    const asked: PermissionRequest[] = [];
    const deny: Plugin = { name: "no", permissionRequest: () => ({ decision: "deny", reason: "not today" }) };
    const { host } = await testHost({
      plugins: [{ name: "t", tools: [appendTool as ToolDefinition] }, deny],
      askPermission: async (r) => (asked.push(r as PermissionRequest), "allow_once"),
    });
    expect((await host.tools.call("append_note", { file: ".mcp.json", text: "{}" })).output).toContain("not today");
    expect(asked).toEqual([]);
  });
});

describe("roots, user folders, the audit log", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of ["AGENT_CONFIG_HOME", "XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR"]) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  it("an extra root's own files, and the user's config folders inside it, are protected; an exact // rule allows one", async () => {
    const shared = tempDir();
    process.env.AGENT_CONFIG_HOME = path.join(shared, "agent-home");
    process.env.CLAUDE_CONFIG_DIR = path.join(shared, "claude-home");
    const config = { workspace: { roots: [shared] } };
    const { host } = await tools({ permissionMode: "bypass", config });
    for (const file of [".mcp.json", ".claude/settings.json", "agent-home/config.json", "claude-home/settings.json", "sub/.git/config"]) {
      const r = await host.tools.call("append_note", { file: path.join(shared, file), text: "x" });
      expect(r.outcome, file).toBe("denied");
    }
    expect((await host.tools.call("append_note", { file: path.join(shared, "agent-home/config.json"), text: "x" })).output).toContain("the user's agent config folder");
    expect((await host.tools.call("append_note", { file: path.join(shared, "notes.md"), text: "x" })).ok).toBe(true);
    const exact = await tools({ permissionMode: "bypass", config: { ...config, permissions: { allow: [`append_note(/${shared}/.mcp.json)`] } } });
    expect((await exact.host.tools.call("append_note", { file: path.join(shared, ".mcp.json"), text: "{}" })).ok).toBe(true);
  });

  it("$XDG_CONFIG_HOME/agent counts when $AGENT_CONFIG_HOME is not set", async () => {
    const shared = tempDir();
    delete process.env.AGENT_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = path.join(shared, "xdg");
    mkdirSync(path.join(shared, "xdg/other"), { recursive: true });
    const { host } = await tools({ permissionMode: "bypass", config: { workspace: { roots: [shared] } } });
    expect((await host.tools.call("append_note", { file: path.join(shared, "xdg/agent/config.json"), text: "x" })).outcome).toBe("denied");
    expect((await host.tools.call("append_note", { file: path.join(shared, "xdg/other/config.json"), text: "x" })).ok).toBe(true);
  });

  it("a configured audit log is never written, whatever the rule or the answer", async () => {
    const { host, project } = await tools({ audit: "logs/audit.jsonl", permissionMode: "bypass", config: { permissions: { allow: ["append_note(/logs/audit.jsonl)"] } }, askPermission: async () => "allow_session" });
    await host.tools.call("append_note", { file: "notes.md", text: "x" });
    const before = readFileSync(project.path("logs/audit.jsonl"), "utf8");
    const r = await host.tools.call("append_note", { file: "./logs/../logs/audit.jsonl", text: '{"forged":true}\n' });
    expect(r).toMatchObject({ outcome: "denied", output: expect.stringContaining("the audit log, which tools never write") });
    expect(readFileSync(project.path("logs/audit.jsonl"), "utf8").startsWith(before)).toBe(true);
    // Only the host's own records (the denied call's among them), no line the tool wrote.
    const lines = readFileSync(project.path("logs/audit.jsonl"), "utf8").trim().split("\n");
    expect(lines.every((l) => typeof JSON.parse(l).time === "string" && !("forged" in JSON.parse(l)))).toBe(true);
  });
});
