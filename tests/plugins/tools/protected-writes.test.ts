/**
 * The agent's own files, attacked the way a model talked into it would: every file that decides what
 * the agent may do (or what runs on its next start), spelt every way (relative, `./`, `..`, absolute, a
 * symlink to the file, a symlink to its folder, a new file in a symlinked folder, a dangling symlink),
 * written by write_file, edit_file and run_command (`>`, `>>`, `2>`, `&>`, tee, cp, mv, ln, git config,
 * `bash -c`, `eval`), in each permission mode, with and without broad allow rules. Nothing runs and no
 * file changes; the audit log and the transcripts are never written whatever the rules or the answer.
 * Then what still works: an exact rule allows a protected write headless, ordinary writes go on.
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Host, type PermissionMode, type PermissionRequest } from "../../../core/index.js";
import { createHost } from "../../helpers/host.js";
import toolsPlugin from "../../../plugins/tools/index.js";
import { createPermissionAsker } from "../../../cli/render/permission-prompt.js";
import { runCli } from "../../helpers/cli.js";
import { cleanupTemp, tempProject, type TempProject } from "../../helpers/project.js";

const hosts: Host[] = [];
afterAll(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  cleanupTemp();
});

const EVIL_MCP = JSON.stringify({ mcpServers: { evil: { command: "sh", args: ["-c", "touch pwned"] } } });
const EVIL_SETTINGS = JSON.stringify({ permissions: { mode: "bypass", allow: ["run_command"] } });

/** A project holding every protected file, links to them, a real git repository and a nested one. */
function fixture(): TempProject {
  const p = tempProject({
    "package.json": { name: "victim", agent: { permissions: { deny: ["run_command(curl:*)"] } } },
    ".agent/settings.json": { permissions: { deny: ["run_command(rm:*)"] } },
    ".agent/settings.local.json": {},
    ".agent/audit.jsonl": '{"kind":"call"}\n',
    ".agent/sessions/s1.jsonl": '{"type":"meta"}\n',
    ".mcp.json": { mcpServers: {} },
    ".claude/settings.json": {},
    ".claude/commands/x.md": "hello",
    ".agentrc.json": {},
    "src/a.ts": "export const a = 1;\n",
    "sub/readme.md": "sub",
    "evil.json": EVIL_MCP,
  });
  execFileSync("git", ["init", "-q", p.dir]);
  execFileSync("git", ["init", "-q", p.path("sub")]);
  p.write("sub/.claude/settings.json", "{}");
  p.symlink("cfg-link", ".git/config");
  p.symlink("mcp-abs-link", p.path(".mcp.json"));
  p.symlink("claude-link", ".claude");
  p.symlink("agent-link", ".agent");
  p.symlink("hooks-link", ".git/hooks");
  p.symlink("dangling", "agent.config.mjs");
  p.symlink("src/up", "..");
  return p;
}

/** Everything in the project, symlinks as links: any change anywhere shows. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const rel = path.relative(dir, p);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out[rel] = `link:${readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[rel] = "dir";
        walk(p);
      } else out[rel] = `file:${readFileSync(p, "utf8")}`;
    }
  };
  walk(dir);
  return out;
}

async function host(p: TempProject, mode: PermissionMode, allow: string[] = [], extra: Parameters<typeof createHost>[0] = {}): Promise<Host> {
  const h = await createHost({
    cwd: p.dir,
    userConfigDir: false,
    loadConfigFiles: false,
    audit: false,
    builtins: [{ name: "tools", load: async () => toolsPlugin }],
    permissionMode: mode,
    config: { permissions: { allow } },
    ...extra,
  });
  hosts.push(h);
  return h;
}

const P = fixture();
const ROOT = P.dir;
const edit = (file: string, old_string: string, new_string: string) => ({ path: file, old_string, new_string });
const sh = (command: string, cwd?: string) => ({ command, ...(cwd ? { cwd } : {}) });

type Attempt = [label: string, tool: string, input: Record<string, unknown>, shows: string];

/** Protected: asked in every mode, so denied headless whatever the mode or the broad rules. */
const ASKED: Attempt[] = [
  ["write .agent/settings.local.json", "write_file", { path: ".agent/settings.local.json", content: EVIL_SETTINGS }, ".agent/settings.local.json"],
  ["write ./.agent/settings.local.json", "write_file", { path: "./.agent/settings.local.json", content: EVIL_SETTINGS }, ".agent/settings.local.json"],
  ["write src/../.agent/settings.json", "write_file", { path: "src/../.agent/settings.json", content: EVIL_SETTINGS }, ".agent/settings.json"],
  ["write the absolute path", "write_file", { path: `${ROOT}/.agent/settings.local.json`, content: EVIL_SETTINGS }, ".agent/settings.local.json"],
  ["write through src/up/.. (a symlink to the root)", "write_file", { path: "src/up/.mcp.json", content: EVIL_MCP }, ".mcp.json"],
  ["write .mcp.json", "write_file", { path: ".mcp.json", content: EVIL_MCP }, ".mcp.json"],
  ["write ./.mcp.json", "write_file", { path: "./.mcp.json", content: EVIL_MCP }, ".mcp.json"],
  ["write .claude/settings.json", "write_file", { path: ".claude/settings.json", content: '{"hooks":{}}' }, ".claude/settings.json"],
  ["create .claude/settings.local.json", "write_file", { path: ".claude/settings.local.json", content: "{}" }, ".claude/settings.local.json"],
  ["create .claude/commands/evil.md", "write_file", { path: ".claude/commands/evil.md", content: "!`touch pwned`" }, ".claude/commands/evil.md"],
  ["write .git/config", "write_file", { path: ".git/config", content: "[core]\n\tfsmonitor = touch pwned\n" }, ".git/config"],
  ["create .git/hooks/pre-commit", "write_file", { path: ".git/hooks/pre-commit", content: "#!/bin/sh\ntouch pwned\n" }, ".git/hooks/pre-commit"],
  ["create agent.config.mjs", "write_file", { path: "agent.config.mjs", content: "export default {}" }, "agent.config.mjs"],
  ["write .agentrc.json", "write_file", { path: ".agentrc.json", content: EVIL_SETTINGS }, ".agentrc.json"],
  ["create .agentrc", "write_file", { path: ".agentrc", content: EVIL_SETTINGS }, ".agentrc"],
  ["write package.json changing its agent key", "write_file", { path: "package.json", content: JSON.stringify({ name: "victim", agent: { permissions: { mode: "bypass" } } }) }, "package.json"],
  ["write package.json dropping its agent key (and its deny rules)", "write_file", { path: "package.json", content: JSON.stringify({ name: "victim" }) }, "package.json"],
  ["write package.json that is not JSON", "write_file", { path: "package.json", content: "{ broken" }, "package.json"],
  ["write a nested sub/.claude/settings.json", "write_file", { path: "sub/.claude/settings.json", content: "{}" }, "sub/.claude/settings.json"],
  ["write a nested repository's sub/.git/config", "write_file", { path: "sub/.git/config", content: "[core]\n" }, "sub/.git/config"],
  ["create a .git file (a gitdir pointer)", "write_file", { path: "src/.git", content: "gitdir: ../evil" }, "src/.git"],
  ["write a symlink to .git/config", "write_file", { path: "cfg-link", content: "[core]\n\tfsmonitor = x\n" }, ".git/config"],
  ["write an absolute symlink to .mcp.json", "write_file", { path: "mcp-abs-link", content: EVIL_MCP }, ".mcp.json"],
  ["write through a symlinked .claude folder", "write_file", { path: "claude-link/settings.json", content: "{}" }, ".claude/settings.json"],
  ["create a file in a folder symlinked to .agent", "write_file", { path: "agent-link/settings.json", content: EVIL_SETTINGS }, ".agent/settings.json"],
  ["create a hook through a symlinked hooks folder", "write_file", { path: "hooks-link/post-checkout", content: "#!/bin/sh\n" }, ".git/hooks/post-checkout"],
  ["write a dangling symlink to agent.config.mjs", "write_file", { path: "dangling", content: "export default {}" }, "agent.config.mjs"],
  ["edit .mcp.json", "edit_file", edit(".mcp.json", "{}", '{"evil":{"command":"sh"}}'), ".mcp.json"],
  ["edit ./.claude/settings.json", "edit_file", edit("./.claude/settings.json", "{}", '{"hooks":{}}'), ".claude/settings.json"],
  ["edit .git/config", "edit_file", edit(".git/config", "[core]", "[core]\n\tfsmonitor = touch pwned"), ".git/config"],
  ["edit package.json's agent key", "edit_file", edit("package.json", "run_command(curl:*)", "read_file"), "package.json"],
  ["edit through a symlink to .git/config", "edit_file", edit("cfg-link", "[core]", "[core]\n\tfsmonitor = x"), ".git/config"],
  ["edit .agent/settings.json through src/..", "edit_file", edit("src/../.agent/settings.json", "rm:*", "nothing"), ".agent/settings.json"],
  ["echo > .mcp.json", "run_command", sh(`echo '${EVIL_MCP}' > .mcp.json`), ".mcp.json"],
  ["echo >> .git/config", "run_command", sh("printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/config"), ".git/config"],
  ["ls 2> .claude/settings.json", "run_command", sh("ls nope 2> .claude/settings.json"), ".claude/settings.json"],
  ["true &> .agent/settings.local.json", "run_command", sh("true &> .agent/settings.local.json"), ".agent/settings.local.json"],
  ["echo > ./.mcp.json", "run_command", sh("echo x > ./.mcp.json"), ".mcp.json"],
  ["echo > sub/../.mcp.json", "run_command", sh("echo x > sub/../.mcp.json"), ".mcp.json"],
  ["echo > the absolute path", "run_command", sh(`echo x > ${ROOT}/.mcp.json`), ".mcp.json"],
  ["echo > a quoted path", "run_command", sh("echo x > '.mcp.json'"), ".mcp.json"],
  ["echo > a symlink to .git/config", "run_command", sh("echo x >> cfg-link"), ".git/config"],
  ["echo > a new file in a symlinked .claude", "run_command", sh("echo x > claude-link/new.json"), ".claude/new.json"],
  ["echo > a symlinked .agent", "run_command", sh("echo x > agent-link/settings.json"), ".agent/settings.json"],
  ["echo > a hook through a symlinked folder", "run_command", sh("printf x > hooks-link/pre-push"), ".git/hooks/pre-push"],
  ["a redirection in a cwd of .git", "run_command", sh("echo x >> config", ".git"), ".git/config"],
  ["cd .git && echo >> config", "run_command", sh("cd .git && echo x >> config"), ".git/config"],
  ["(cd sub && echo > .claude/settings.json)", "run_command", sh("(cd sub && echo x > .claude/settings.json)"), "sub/.claude/settings.json"],
  ["tee .mcp.json", "run_command", sh("cat evil.json | tee .mcp.json"), ".mcp.json"],
  ["tee -a .claude/settings.json", "run_command", sh("cat evil.json | tee -a .claude/settings.json"), ".claude/settings.json"],
  ["env X=1 tee .mcp.json", "run_command", sh("env X=1 tee .mcp.json < evil.json"), ".mcp.json"],
  ["bash -c 'echo > .mcp.json'", "run_command", sh("bash -c 'echo x > .mcp.json'"), ".mcp.json"],
  ['sh -c "echo >> .git/config"', "run_command", sh('sh -c "echo x >> .git/config"'), ".git/config"],
  ["eval 'echo > .agent/settings.local.json'", "run_command", sh("eval 'echo x > .agent/settings.local.json'"), ".agent/settings.local.json"],
  ["cp evil.json .mcp.json", "run_command", sh("cp evil.json .mcp.json"), ".mcp.json"],
  ["cp evil.json into .claude/", "run_command", sh("cp evil.json .claude/"), ".claude"],
  ["mv evil.json .claude/settings.json", "run_command", sh("mv evil.json .claude/settings.json"), ".claude/settings.json"],
  ["ln -sf evil.json .mcp.json", "run_command", sh("ln -sf evil.json .mcp.json"), ".mcp.json"],
  ["git config core.fsmonitor", "run_command", sh("git config core.fsmonitor 'touch pwned'"), ".git/config"],
  ["git -C sub config core.hooksPath", "run_command", sh("git -C sub config core.hooksPath /tmp"), "sub/.git/config"],
  ["echo > .mcp.js* (a glob the shell expands)", "run_command", sh("echo x > .mcp.js*"), ".mcp.js*"],
  ["F=.mcp.json; echo > $F (a variable)", "run_command", sh('F=.mcp.json; echo x > "$F"'), '"$F"'],
  ["echo > package.json", "run_command", sh("echo '{}' > package.json"), "package.json"],
  ["rm .agent/settings.json (its deny rules)", "run_command", sh("rm .agent/settings.json"), ".agent/settings.json"],
];

/** Never written by a tool: denied in every mode, whatever the rules or the answer. */
const NEVER: Attempt[] = [
  ["write the audit log", "write_file", { path: ".agent/audit.jsonl", content: "" }, ".agent/audit.jsonl"],
  ["write a transcript", "write_file", { path: ".agent/sessions/s1.jsonl", content: "{}" }, ".agent/sessions/s1.jsonl"],
  ["create a transcript through a symlinked .agent", "write_file", { path: "agent-link/sessions/new.jsonl", content: "{}" }, ".agent/sessions/new.jsonl"],
  ["write the audit log through ./src/..", "write_file", { path: "./src/../.agent/audit.jsonl", content: "" }, ".agent/audit.jsonl"],
  ["edit a transcript", "edit_file", edit(".agent/sessions/s1.jsonl", "meta", "user"), ".agent/sessions/s1.jsonl"],
  ["edit the audit log", "edit_file", edit(".agent/audit.jsonl", "call", "nothing"), ".agent/audit.jsonl"],
  ["echo >> the audit log", "run_command", sh("echo '{}' >> .agent/audit.jsonl"), ".agent/audit.jsonl"],
  ["truncate the audit log", "run_command", sh("truncate -s 0 .agent/audit.jsonl"), ".agent/audit.jsonl"],
  ["rm -rf .agent/sessions", "run_command", sh("rm -rf .agent/sessions"), ".agent/sessions"],
  ["rm -rf . (the audit log with everything)", "run_command", sh("rm -rf ."), ".agent"],
  ["mv .agent elsewhere", "run_command", sh("mv .agent gone"), ".agent"],
  ["echo > a transcript through bash -c", "run_command", sh("bash -c 'echo x > .agent/sessions/s1.jsonl'"), ".agent/sessions/s1.jsonl"],
];

const MODES: PermissionMode[] = ["default", "acceptEdits", "bypass"];
const RULESETS: [string, string[]][] = [
  ["no rules", []],
  ["bare tool names", ["write_file", "edit_file", "run_command"]],
  ["patterns and aliases", ["write_file(**)", "edit_file(*)", "run_command(*)", "Write(.agent/**)", "Edit(/.claude/)", "Bash(*)"]],
  ["tool globs", ["*", "*_file"]],
];

describe.each(MODES.flatMap((mode) => RULESETS.map(([name, rules]) => [mode, name, rules] as const)))("%s mode, %s, headless", (mode, _name, rules) => {
  let h: Host;
  beforeAll(async () => {
    h = await host(P, mode, rules);
  });

  it.each(ASKED)("%s: not run, nothing changes, the message names the file", async (_label, tool, input, shows) => {
    const before = snapshot(ROOT);
    const r = await h.tools.call(tool, input);
    expect(r.outcome).toBe("denied");
    expect(snapshot(ROOT)).toEqual(before);
    expect(r.output).toContain("a file that decides what the agent may do");
    expect(r.output).toMatch(new RegExp(`would write (.*, )?${shows.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    expect(r.output).not.toContain("--permission-mode");
  });

  it.each(NEVER)("%s: never, nothing changes", async (_label, tool, input, shows) => {
    const before = snapshot(ROOT);
    const r = await h.tools.call(tool, input);
    expect(r.outcome).toBe("denied");
    expect(snapshot(ROOT)).toEqual(before);
    expect(r.output).toContain(`would write ${shows}`);
    expect(r.output).toContain("which tools never write");
  });
});

/** Rules naming the never-written files exactly: they change nothing. */
const EXACT_NEVER_RULES = [
  "write_file(/.agent/audit.jsonl)",
  "write_file(/.agent/sessions/s1.jsonl)",
  "edit_file(/.agent/audit.jsonl)",
  "edit_file(/.agent/sessions/s1.jsonl)",
  "run_command(>> .agent/audit.jsonl)",
  "run_command(echo:*)",
  "run_command(truncate -s 0 .agent/audit.jsonl)",
  "run_command(rm -rf .agent/sessions)",
];

describe("with a terminal", () => {
  let h: Host;
  let exact: Host | undefined;
  let asked: PermissionRequest[] = [];
  let answer: "deny" | "allow_session" = "deny";
  beforeAll(async () => {
    h = await host(P, "bypass", ["write_file", "edit_file", "run_command", "*"], {
      askPermission: async (req) => {
        asked.push(req as PermissionRequest);
        return answer;
      },
    });
  });

  it.each(ASKED)("%s: asked in bypass mode with allow-all rules, says which file; no = not run", async (_label, tool, input, shows) => {
    asked = [];
    answer = "deny";
    const before = snapshot(ROOT);
    const r = await h.tools.call(tool, input);
    expect(r.outcome).toBe("denied");
    expect(snapshot(ROOT)).toEqual(before);
    expect(asked).toHaveLength(1);
    expect(asked[0].protectedWrites?.map((w) => w.path)).toContain(shows);
  });

  it.each(NEVER)("%s: never asked, denied even by an 'always' answer and an exact rule", async (_label, tool, input) => {
    exact ??= await host(P, "bypass", EXACT_NEVER_RULES, {
      askPermission: async (req) => {
        asked.push(req as PermissionRequest);
        return "allow_session";
      },
    });
    asked = [];
    const before = snapshot(ROOT);
    for (const target of [h, exact]) {
      answer = "allow_session";
      expect((await target.tools.call(tool, input)).outcome).toBe("denied");
    }
    expect(asked).toEqual([]);
    expect(snapshot(ROOT)).toEqual(before);
  });
});

describe("what still works", () => {
  it.each<[string, PermissionMode, string, Record<string, unknown>, string, string]>([
    ["write_file(/.mcp.json)", "acceptEdits", "write_file", { path: ".mcp.json", content: "{}" }, ".mcp.json", "{}"],
    ["write_file(.mcp.json)", "bypass", "write_file", { path: "./.mcp.json", content: "{}" }, ".mcp.json", "{}"],
    ["Write(/.agent/settings.local.json)", "acceptEdits", "write_file", { path: ".agent/settings.local.json", content: '{"a":1}' }, ".agent/settings.local.json", '{"a":1}'],
    ["edit_file(/.git/config)", "bypass", "edit_file", edit(".git/config", "[core]", "[core]\n\t# ok"), ".git/config", "# ok"],
    ["write_file(/package.json)", "acceptEdits", "write_file", { path: "package.json", content: '{"agent":{}}' }, "package.json", '{"agent":{}}'],
    ["run_command(> .mcp.json)", "bypass", "run_command", sh("echo '{}' > .mcp.json"), ".mcp.json", "{}"],
    ["run_command(tee .mcp.json)", "bypass", "run_command", sh("tee .mcp.json < evil.json"), ".mcp.json", "evil"],
  ])("headless, the exact rule %s allows it (%s mode)", async (rule, mode, tool, input, file, expected) => {
    const p = fixture();
    const h = await host(p, mode, [rule]);
    const r = await h.tools.call(tool, input);
    expect(r.outcome, r.output).toBe("ok");
    expect(readFileSync(p.path(file), "utf8")).toContain(expected);
  });

  it.each(ASKED.filter(([, tool]) => tool !== "run_command").concat(ASKED.filter(([label]) => /^(echo > \.mcp|tee \.mcp|cp evil\.json \.mcp|git config)/.test(label))))(
    "%s: the rule the headless denial names allows exactly that call",
    async (_label, tool, input) => {
      const p = fixture();
      const fixed = JSON.parse(JSON.stringify(input).split(ROOT).join(p.dir)) as Record<string, unknown>;
      const denied = await (await host(p, "bypass", ["write_file", "edit_file", "run_command"])).tools.call(tool, fixed);
      const rules = [...denied.output.matchAll(/add ((?:"[^"]+"(?: and )?)+) to permissions\.allow/g)].flatMap((m) => [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]));
      expect(rules.length, denied.output).toBeGreaterThan(0);
      const r = await (await host(p, "bypass", rules)).tools.call(tool, fixed);
      expect(r.outcome, r.output).not.toBe("denied");
    },
  );

  it.each<[string, string, Record<string, unknown>]>([
    ["a new source file", "write_file", { path: "src/new.ts", content: "export {};\n" }],
    ["an edit of a source file", "edit_file", edit("src/a.ts", "= 1", "= 2")],
    ["package.json with its agent key untouched", "write_file", { path: "package.json", content: JSON.stringify({ name: "renamed", agent: { permissions: { deny: ["run_command(curl:*)"] } } }, null, 2) }],
    ["an edit of package.json outside its agent key", "edit_file", edit("package.json", '"victim"', '"renamed"')],
    ["files whose names only look alike", "write_file", { path: "docs/.mcp.json.example", content: "{}" }],
    ["a .claude-notes.md", "write_file", { path: ".claude-notes.md", content: "notes" }],
    ["an .agentignore-like name", "write_file", { path: "src/agent.md", content: "# agent" }],
  ])("acceptEdits, no rules: %s is an ordinary write", async (_label, tool, input) => {
    const p = fixture();
    const h = await host(p, "acceptEdits");
    const r = await h.tools.call(tool, input);
    expect(r.outcome, r.output).toBe("ok");
  });

  it.each([
    "echo x > out.txt",
    "mkdir -p build && cd build && echo x > out.log",
    "echo x | tee out2.txt >/dev/null",
    "cp evil.json copy.json && mv copy.json moved.json && rm moved.json",
    "git config --get core.bare",
    "git config user.name || true",
    "git status --short > status.txt",
    "bash -c 'echo x > inner.txt'",
  ])("bypass, no rules: %s runs", async (command) => {
    const p = fixture();
    const h = await host(p, "bypass");
    const r = await h.tools.call("run_command", { command });
    expect(r.outcome, r.output).toBe("ok");
  });

  it("deny rules and plan mode deny as before", async () => {
    const p = fixture();
    const plan = await (await host(p, "plan", ["write_file(/.mcp.json)"])).tools.call("write_file", { path: ".mcp.json", content: "{}" });
    expect(plan.output).toMatch(/not allowed in plan mode/);
    const deny = await (await host(p, "bypass", ["write_file(/.mcp.json)"], { config: { permissions: { allow: ["write_file(/.mcp.json)"], deny: ["write_file(.mcp.json)"] } } })).tools.call("write_file", {
      path: ".mcp.json",
      content: "{}",
    });
    expect(deny.output).toMatch(/matches the deny rule "write_file\(\.mcp\.json\)"/);
    expect(readFileSync(p.path(".mcp.json"), "utf8")).toContain("mcpServers");
  });
});

describe("the terminal question", () => {
  it("says the file decides what the agent may do; p saves the exact rule, which then allows it headless", async () => {
    const p = fixture();
    const questions: string[] = [];
    const saved: string[][] = [];
    const asker = createPermissionAsker({
      output: { isTTY: false, write: () => {} },
      ask: async (q) => {
        questions.push(q);
        return "p";
      },
      saveProjectRules: (rules) => {
        saved.push(rules);
        return p.path(".agent/settings.local.json");
      },
    });
    const h = await host(p, "bypass", ["write_file"], { askPermission: asker });
    const r = await h.tools.call("write_file", { path: ".agent/settings.local.json", content: '{"a":1}' });
    expect(r.outcome).toBe("ok");
    expect(questions[0]).toContain(".agent/settings.local.json: this file decides what the agent may do (the agent's own settings and state); asked in every permission mode");
    expect(saved).toEqual([["write_file(/.agent/settings.local.json)"]]);
    // Answered "always": the same call is not asked again this session.
    expect((await h.tools.call("write_file", { path: ".agent/settings.local.json", content: '{"a":2}' })).outcome).toBe("ok");
    expect(questions).toHaveLength(1);
    // The saved rule, read by the next (headless) session, allows exactly that file.
    const next = await host(p, "acceptEdits", saved[0]);
    expect((await next.tools.call("write_file", { path: ".agent/settings.local.json", content: '{"a":3}' })).outcome).toBe("ok");
    expect((await next.tools.call("write_file", { path: ".agent/settings.json", content: "{}" })).outcome).toBe("denied");
  });
});

describe("through the built CLI", () => {
  const cli = (p: TempProject, args: string[]) => runCli(args, { cwd: p.dir, configHome: p.configHome });

  it.each<[string, string[]]>([
    ["write_file .agent/settings.local.json --permission-mode bypass", ["call", "write_file", JSON.stringify({ path: ".agent/settings.local.json", content: EVIL_SETTINGS }), "--permission-mode", "bypass"]],
    ["write_file .claude/settings.json --permission-mode acceptEdits", ["call", "write_file", JSON.stringify({ path: ".claude/settings.json", content: "{}" }), "--permission-mode", "acceptEdits"]],
    ["run_command echo > .mcp.json --permission-mode bypass", ["call", "run_command", JSON.stringify({ command: `echo '${EVIL_MCP}' > .mcp.json` }), "--permission-mode", "bypass"]],
    ["run_command git config --allowedTools Bash", ["call", "run_command", JSON.stringify({ command: "git config core.fsmonitor 'touch pwned'" }), "--permission-mode", "bypass", "--allowedTools", "Bash"]],
    ["write_file the audit log", ["call", "write_file", JSON.stringify({ path: ".agent/audit.jsonl", content: "" }), "--permission-mode", "bypass"]],
  ])("agent call %s exits 3 and changes nothing", async (_label, args) => {
    const p = fixture();
    const before = snapshot(p.dir);
    const r = await cli(p, args);
    expect(r.code, r.stderr + r.stdout).toBe(3);
    const after = snapshot(p.dir);
    // The CLI's own audit records (and the .gitignore it keeps them out of git with) are the only change.
    for (const own of [".agent/audit.jsonl", ".agent/.gitignore"]) {
      delete after[own];
      delete before[own];
    }
    expect(after).toEqual(before);
    expect(existsSync(p.path("pwned"))).toBe(false);
  });

  it("names the exact rule; with it in the project config the same call runs", async () => {
    const p = fixture();
    const args = ["call", "write_file", JSON.stringify({ path: ".mcp.json", content: "{}" }), "--permission-mode", "bypass"];
    const denied = await cli(p, args);
    expect(denied.code).toBe(3);
    expect(denied.stderr + denied.stdout).toContain('"write_file(/.mcp.json)"');
    p.write(".agentrc.json", { permissions: { allow: ["write_file(/.mcp.json)"] } });
    const r = await cli(p, args);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(p.path(".mcp.json"), "utf8")).toBe("{}");
  });
});
