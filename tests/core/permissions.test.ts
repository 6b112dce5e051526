/** Permission decisions: every mode × risk, rule precedence, globs, patterns, compound commands, asking. */
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { z, type PermissionRequest, type Risk, type ToolDefinition } from "../../core/index.js";
import { decide } from "../helpers/decide.js";
import { compileRules, parseRule } from "../../kit/rules/parse.js";
import { suggestRule, suggestRules } from "../../kit/rules/exact-rules.js";
import { shellCommands as shellSubjects } from "../../kit/shell/index.js";
import { wildcardMatcher } from "../../kit/text/glob.js";
import type { PermissionMode } from "../../core/types.js";
import { closeHosts, hostWithTools } from "../helpers/host.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const NO_RULES = compileRules(undefined);

describe("modes × risks (no rules)", () => {
  const TABLE: Record<PermissionMode, Record<Risk, "allow" | "ask" | "deny">> = {
    default: { read: "allow", write: "ask", execute: "ask", network: "ask" },
    plan: { read: "allow", write: "deny", execute: "deny", network: "deny" },
    acceptEdits: { read: "allow", write: "allow", execute: "ask", network: "ask" },
    bypass: { read: "allow", write: "allow", execute: "allow", network: "allow" },
  };
  const cases = (Object.entries(TABLE) as [PermissionMode, Record<Risk, string>][]).flatMap(([mode, risks]) =>
    (Object.entries(risks) as [Risk, string][]).map(([risk, expected]) => [mode, risk, expected] as const),
  );
  test.each(cases)("%s mode, %s risk → %s", (mode, risk, expected) => {
    expect(decide(NO_RULES, mode, "some_tool", risk, undefined)).toEqual({ decision: expected, by: `mode:${mode}` });
  });
});

describe("rules", () => {
  const rules = (r: { allow?: string[]; ask?: string[]; deny?: string[] }) => compileRules(r);

  test("deny beats ask beats allow, whatever the order they are listed in", () => {
    expect(decide(rules({ allow: ["t"], deny: ["t"] }), "default", "t", "read", undefined)).toEqual({ decision: "deny", by: "t" });
    expect(decide(rules({ allow: ["t"], ask: ["t"] }), "default", "t", "read", undefined)).toEqual({ decision: "ask", by: "t" });
    expect(decide(rules({ ask: ["t"], deny: ["t*"] }), "default", "t", "read", undefined)).toEqual({ decision: "deny", by: "t*" });
    expect(decide(rules({ allow: ["t"], ask: ["t"], deny: ["t"] }), "bypass", "t", "read", undefined).decision).toBe("deny");
  });

  test("rules beat the mode: allow a write tool in default mode, deny a read tool in bypass mode", () => {
    expect(decide(rules({ allow: ["write_file"] }), "default", "write_file", "write", undefined)).toEqual({ decision: "allow", by: "write_file" });
    expect(decide(rules({ deny: ["read_file"] }), "bypass", "read_file", "read", undefined)).toEqual({ decision: "deny", by: "read_file" });
    // an explicit ask rule asks even in bypass and acceptEdits modes
    expect(decide(rules({ ask: ["read_file"] }), "bypass", "read_file", "read", undefined).decision).toBe("ask");
    expect(decide(rules({ ask: ["write_file"] }), "acceptEdits", "write_file", "write", undefined).decision).toBe("ask");
  });

  test("plan mode stays read-only: an allow rule does not let a write tool through", () => {
    expect(decide(rules({ allow: ["write_file"] }), "plan", "write_file", "write", undefined)).toEqual({ decision: "deny", by: "mode:plan" });
    expect(decide(rules({ ask: ["read_file"] }), "plan", "read_file", "read", undefined).decision).toBe("ask");
  });

  test("globs on the tool name: mcp__github__* and ?", () => {
    const r = rules({ allow: ["mcp__github__*"], deny: ["mcp__github__delete_?epo"] });
    expect(decide(r, "default", "mcp__github__create_issue", "network", undefined)).toEqual({ decision: "allow", by: "mcp__github__*" });
    expect(decide(r, "default", "mcp__github__delete_repo", "network", undefined).decision).toBe("deny");
    expect(decide(r, "default", "mcp__gitlab__create_issue", "network", undefined).decision).toBe("ask");
    expect(decide(r, "default", "xmcp__github__create_issue", "network", undefined).decision).toBe("ask");
    // regex characters in rules are literal
    expect(parseRule("a.b").tool("axb")).toBe(false);
  });

  test("a plainly named rule matches a tool by its alias; globs match real names only", () => {
    const shell = { name: "run_command", aliases: ["Bash"] };
    const r = rules({ deny: ["Bash(rm:*)"], allow: ["Bash(npm test:*)"] });
    expect(decide(r, "bypass", shell, "execute", ["rm -rf /"])).toEqual({ decision: "deny", by: "Bash(rm:*)" });
    expect(decide(r, "default", shell, "execute", ["npm test"])).toEqual({ decision: "allow", by: "Bash(npm test:*)" });
    expect(decide(r, "default", "run_command", "execute", ["npm test"]).decision).toBe("ask");
    expect(decide(rules({ allow: ["Ba*"] }), "default", shell, "execute", ["npm test"]).decision).toBe("ask");
    expect(decide(rules({ deny: ["Bash"] }), "bypass", shell, "execute", ["ls"]).decision).toBe("deny");
  });

  test("patterns: run_command(npm test:*) matches npm test and its arguments, nothing else", async () => {
    const r = rules({ allow: ["run_command(npm test:*)"] });
    const d = async (cmd: string) => decide(r, "default", "run_command", "execute", await shellSubjects(cmd)).decision;
    expect(await d("npm test")).toBe("allow");
    expect(await d("npm test -- --watch=false")).toBe("allow");
    expect(await d("npm test:unit")).toBe("allow");
    expect(await d("  npm test  ")).toBe("allow");
    expect(await d("npm testing")).toBe("ask");
    expect(await d("npm install")).toBe("ask");
    expect(await d("npx npm test")).toBe("ask");
  });

  test("patterns with * anywhere, (*) and () cover every use; a pattern never matches a tool without a subject", () => {
    expect(wildcardMatcher("src/**")("src/a/b.ts")).toBe(true);
    expect(wildcardMatcher("src/**")("test/a.ts")).toBe(false);
    expect(wildcardMatcher("*.md")("docs/README.md")).toBe(true);
    expect(wildcardMatcher("git status")("git status --short")).toBe(false);
    const r = rules({ allow: ["write_file(src/**)", "read_file(*)"] });
    expect(decide(r, "default", "write_file", "write", ["src/index.ts"]).decision).toBe("allow");
    expect(decide(r, "default", "write_file", "write", ["package.json"]).decision).toBe("ask");
    expect(decide(r, "default", "write_file", "write", undefined).decision).toBe("ask");
    expect(decide(r, "plan", "read_file", "read", undefined)).toEqual({ decision: "allow", by: "read_file(*)" });
  });

  test("compound commands: every part must be allowed, any part can be denied", async () => {
    const allowTest = rules({ allow: ["run_command(npm test:*)"] });
    const subjects = await shellSubjects("npm test && rm -rf x");
    expect(subjects).toEqual(["npm test", "rm -rf x"]);
    expect(decide(allowTest, "default", "run_command", "execute", subjects).decision).toBe("ask");
    expect(decide(allowTest, "acceptEdits", "run_command", "execute", subjects).decision).toBe("ask");
    const withDeny = rules({ allow: ["run_command(npm test:*)"], deny: ["run_command(rm:*)"] });
    expect(decide(withDeny, "default", "run_command", "execute", subjects)).toEqual({ decision: "deny", by: "run_command(rm:*)" });
    expect(decide(withDeny, "bypass", "run_command", "execute", subjects).decision).toBe("deny");
    for (const cmd of ["npm test; rm -rf x", "npm test || rm -rf x", "npm test | rm -rf x", "npm test & rm -rf x", "npm test\nrm -rf x"]) {
      expect(decide(withDeny, "default", "run_command", "execute", await shellSubjects(cmd)).decision, cmd).toBe("deny");
      expect(decide(allowTest, "default", "run_command", "execute", await shellSubjects(cmd)).decision, cmd).toBe("ask");
    }
  });

  test("compound commands: several allow rules together can cover every part", async () => {
    const r = rules({ allow: ["run_command(cd:*)", "run_command(npm test:*)"] });
    expect(decide(r, "default", "run_command", "execute", await shellSubjects("cd app && npm test"))).toEqual({
      decision: "allow",
      by: "run_command(cd:*), run_command(npm test:*)",
    });
    expect(decide(r, "default", "run_command", "execute", await shellSubjects("cd app && npm test && rm -rf x")).decision).toBe("ask");
  });

  test("command substitution is never allowed by a pattern", async () => {
    const r = rules({ allow: ["run_command(npm test:*)", "run_command(echo:*)"] });
    for (const cmd of ["npm test $(rm -rf x)", "echo `rm -rf x`", "npm test <(cat /etc/passwd)"]) {
      expect(decide(r, "default", "run_command", "execute", await shellSubjects(cmd)).decision, cmd).toBe("ask");
    }
  });

  test("a deny rule cannot be dodged by decorating the command", async () => {
    const r = rules({ deny: ["run_command(rm:*)"], allow: ["run_command"] });
    for (const cmd of ["(rm -rf x)", "{ rm -rf x; }", "sudo rm -rf x", "FOO=1 rm -rf x", "env A='b c' rm x", "/bin/rm -rf x", "\\rm x", "! rm x", "npm test && (cd y && rm -rf x)"]) {
      expect(decide(r, "bypass", "run_command", "execute", await shellSubjects(cmd)), cmd).toEqual({ decision: "deny", by: "run_command(rm:*)" });
    }
    expect(decide(r, "default", "run_command", "execute", await shellSubjects("rmdir x")).decision).toBe("allow");
  });

  test("stripped forms are only added for deny and ask; they never widen an allow rule", async () => {
    expect(await shellSubjects("sudo rm x")).toEqual(["sudo rm x", "rm x"]);
    expect(await shellSubjects("npm test")).toEqual(["npm test"]);
    const r = rules({ allow: ["run_command(npm test:*)"] });
    for (const cmd of ["sudo npm test", "PATH=/tmp/evil npm test", "npm test > ~/.bashrc"]) {
      expect(decide(r, "default", "run_command", "execute", await shellSubjects(cmd)).decision, cmd).toBe("ask");
    }
  });

  test("suggestRule gives exactly what was asked, never broader", () => {
    expect(suggestRule("run_command", ["npm run build --watch"])).toBe("run_command(npm run build --watch)");
    expect(suggestRule("run_command", ["npm test"])).toBe("run_command(npm test)");
    expect(suggestRule("write_file", ["src/a.ts"])).toBe("write_file(src/a.ts)");
    expect(suggestRule("mcp__x__y", undefined)).toBe("mcp__x__y");
  });

  test("suggestRules gives one exact rule per part of a compound command, never the bare tool", async () => {
    expect(suggestRules("run_command", await shellSubjects("cd app && npm run build --watch && npm run build --x"))).toEqual([
      "run_command(cd app)",
      "run_command(npm run build --watch)",
      "run_command(npm run build --x)",
    ]);
    // Command substitution cannot be described by a rule: nothing is suggested (the user may allow it once).
    expect(suggestRules("run_command", await shellSubjects("echo $(date)"))).toEqual([]);
  });
});

describe("permissions in the gate", () => {
  const ran: string[] = [];
  const tool = (name: string, risk: Risk): ToolDefinition => ({
    name,
    description: `${risk} tool`,
    risk,
    input: z.object({ command: z.string().optional() }),
    permissionSubject: (i: { command?: string }) => (i.command === undefined ? undefined : shellSubjects(i.command)),
    run: (i: { command?: string }) => {
      ran.push(`${name}:${i.command ?? ""}`);
      return "done";
    },
  });
  const TOOLS = [tool("reader", "read"), tool("writer", "write"), tool("run_command", "execute"), tool("fetcher", "network")];

  test.each([
    ["default", ["reader"]],
    ["plan", ["reader"]],
    ["acceptEdits", ["reader", "writer"]],
    ["bypass", ["reader", "writer", "run_command", "fetcher"]],
  ] as const)("headless, %s mode runs exactly %j", async (mode, expected) => {
    const { host, audit } = await hostWithTools(TOOLS, { permissionMode: mode });
    const results = await Promise.all(TOOLS.map((t) => host.tools.call(t.name, {})));
    const allowed = TOOLS.filter((_, i) => results[i].ok).map((t) => t.name);
    expect(allowed).toEqual(expected);
    for (const r of results.filter((x) => !x.ok)) expect(r).toMatchObject({ outcome: "denied", error: { code: "E_TOOL_DENIED" } });
    // every call is audited, allowed or not, with the decision and what decided it
    const calls = audit().filter((r) => r.kind === "call");
    expect(calls).toHaveLength(4);
    for (const c of calls) {
      expect(c.decision).toBe(expected.includes(c.name) ? "allow" : "deny");
      expect(c.by).toBe(`mode:${mode}`);
    }
  });

  test("a permissionSubject that throws fails closed: denied even in bypass, the tool never runs", async () => {
    const run = vi.fn(() => "ran");
    const fragile: ToolDefinition = {
      name: "fragile",
      description: "subject extraction breaks on some input",
      risk: "execute",
      input: z.object({ command: z.string() }),
      permissionSubject: (i: { command: string }) => {
        if (i.command.includes("\0")) throw new Error("NUL in command");
        return i.command;
      },
      run,
    };
    const { host, audit } = await hostWithTools([fragile], { permissionMode: "bypass", config: { permissions: { deny: ["fragile(rm:*)"] } } });
    const r = await host.tools.call("fragile", { command: "rm -rf x\0" });
    expect(r).toMatchObject({ outcome: "denied", output: "Permission denied: fragile was not run because its permission check failed (NUL in command)." });
    expect(run).not.toHaveBeenCalled();
    expect(audit().find((x) => x.kind === "call")).toMatchObject({ decision: "deny", by: "permissionSubject" });
    expect((await host.tools.call("fragile", { command: "ls" })).ok).toBe(true);
  });

  test("the mode comes from config, is overridden by the option, and can be changed on the host", async () => {
    const { host } = await hostWithTools(TOOLS, { config: { permissions: { mode: "acceptEdits" } } });
    expect(host.permissionMode).toBe("acceptEdits");
    expect((await host.tools.call("writer", {})).ok).toBe(true);
    host.permissionMode = "plan";
    expect((await host.tools.call("writer", {})).outcome).toBe("denied");
    const { host: h2 } = await hostWithTools(TOOLS, { config: { permissions: { mode: "acceptEdits" } }, permissionMode: "bypass" });
    expect(h2.permissionMode).toBe("bypass");
  });

  test("headless ask: denied with a message naming the rule to add and the config file", async () => {
    const project = tempProject({ ".agentrc.json": { permissions: { allow: ["reader"] } } });
    const { host } = await hostWithTools(TOOLS, { project, loadConfigFiles: true, userConfigDir: project.configHome });
    const r = await host.tools.call("run_command", { command: "npm run build --prod" });
    expect(r.outcome).toBe("denied");
    expect(r.output).toBe(
      `Permission denied: run_command(npm run build --prod) (risk: execute) needs approval and there is no terminal to ask. ` +
        `To allow it, add "run_command(npm run build --prod)" to permissions.allow in ${project.path(".agentrc.json")}, or run with --permission-mode bypass.`,
    );
    const w = await host.tools.call("writer", {});
    expect(w.output).toContain('add "writer" to permissions.allow');
    expect(w.output).toContain("--permission-mode acceptEdits");
    // following the advice works
    const { host: h2 } = await hostWithTools(TOOLS, { config: { permissions: { allow: ["run_command(npm run:*)"] } } });
    expect((await h2.tools.call("run_command", { command: "npm run build --prod" })).ok).toBe(true);
  });

  test("headless ask with the config in package.json names the agent key", async () => {
    const project = tempProject({ "package.json": { name: "p", agent: { permissions: { allow: ["reader"] } } } });
    const { host } = await hostWithTools(TOOLS, { project, loadConfigFiles: true, userConfigDir: project.configHome });
    const r = await host.tools.call("writer", {});
    expect(r.output).toContain(`add "writer" to agent.permissions.allow in ${project.path("package.json")}`);
  });

  test("headless ask names the project config, not the user config, when both exist", async () => {
    const project = tempProject({ ".agentrc.yaml": "maxTurns: 3\n" });
    const { writeFile } = await import("../helpers/project.js");
    writeFile(`${project.configHome}/config.json`, { maxTurns: 2 });
    const { host } = await hostWithTools(TOOLS, { project, loadConfigFiles: true, userConfigDir: project.configHome });
    expect((await host.tools.call("writer", {})).output).toContain(`permissions.allow in ${project.path(".agentrc.yaml")}`);
  });

  test("headless ask without any config file suggests where to create one", async () => {
    const { host, project } = await hostWithTools(TOOLS);
    const r = await host.tools.call("fetcher", {});
    expect(r.output).toContain('add "fetcher" to permissions.allow in');
    expect(r.output).toContain(project.dir);
  });

  test("a deny rule gives a message naming the rule", async () => {
    const { host } = await hostWithTools(TOOLS, { config: { permissions: { deny: ["run_command(rm:*)"] } }, permissionMode: "bypass" });
    const r = await host.tools.call("run_command", { command: "rm -rf /" });
    expect(r.output).toBe('Permission denied: run_command(rm -rf /) was not run because it matches the deny rule "run_command(rm:*)".');
    const p = await (await hostWithTools(TOOLS, { permissionMode: "plan" })).host.tools.call("writer", {});
    expect(p.output).toBe("Permission denied: writer was not run because write tools are not allowed in plan mode.");
  });

  test("a call's duration leaves out the time the user took to answer", async () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    try {
      const { host, audit } = await hostWithTools(TOOLS, {
        askPermission: async () => {
          vi.advanceTimersByTime(90_000); // a long think
          return "allow_once";
        },
      });
      const r = await host.tools.call("writer", {});
      expect(r.ok).toBe(true);
      expect(r.durationMs).toBeLessThan(90_000);
      expect(audit().find((x) => x.kind === "call")?.durationMs).toBeLessThan(90_000);
    } finally {
      vi.useRealTimers();
    }
  });

  test("the asker is handed the call id; an unanswered question is denied as headless, naming the rule to add", async () => {
    const asked: PermissionRequest[] = [];
    const { host } = await hostWithTools(TOOLS, {
      askPermission: async (req) => {
        asked.push(req as PermissionRequest);
        return "unanswered";
      },
    });
    const r = await host.tools.call("writer", {}, { callId: "c-unanswered" });
    expect(asked.map((a) => a.callId)).toEqual(["c-unanswered"]);
    expect(r).toMatchObject({ ok: false, outcome: "denied" });
    expect(r.output).toMatch(/no terminal to ask\. To allow it, add "writer"/);
  });

  test("asker: allow once asks every time; always-for-this-session asks once; deny denies", async () => {
    const answers: string[] = [];
    const asked: PermissionRequest[] = [];
    const events: string[] = [];
    const { host } = await hostWithTools(TOOLS, {
      askPermission: async (req) => {
        asked.push(req as PermissionRequest);
        return (answers.shift() ?? "deny") as never;
      },
    });
    host.on((e) => {
      if (e.type === "permission_request") events.push(`request:${e.suggestedRule}`);
      if (e.type === "permission_decision") events.push(`decision:${e.decision}:${e.by}`);
    });
    answers.push("allow_once");
    expect((await host.tools.call("writer", {})).ok).toBe(true);
    answers.push("allow_once");
    expect((await host.tools.call("writer", {})).ok).toBe(true);
    expect(asked).toHaveLength(2);

    answers.push("allow_session");
    expect((await host.tools.call("run_command", { command: "npm test --silent" })).ok).toBe(true);
    expect(asked[2]).toMatchObject({ subject: "npm test --silent", suggestedRule: "run_command(npm test --silent)", reason: "mode:default" });
    expect(asked[2].tool.name).toBe("run_command");
    // the same command: not asked again
    expect((await host.tools.call("run_command", { command: "npm test --silent" })).ok).toBe(true);
    expect(asked).toHaveLength(3);
    // outside the granted rule: asked again, and denied
    answers.push("deny");
    const denied = await host.tools.call("run_command", { command: "npm publish" });
    expect(denied).toMatchObject({ outcome: "denied", output: "Permission denied by the user: run_command(npm publish) was not run." });
    expect(asked).toHaveLength(4);
    expect(events).toEqual([
      "request:writer",
      "decision:allow:user",
      "request:writer",
      "decision:allow:user",
      "request:run_command(npm test --silent)",
      "decision:allow:user",
      "request:run_command(npm publish)",
      "decision:deny:user",
    ]);
  });

  test("always-for-this-session on a compound command grants exactly each part, nothing broader", async () => {
    const asked: PermissionRequest[] = [];
    const answers = ["allow_session", "deny"];
    const { host } = await hostWithTools(TOOLS, {
      askPermission: async (req) => {
        asked.push(req as PermissionRequest);
        return answers.shift() as never;
      },
    });
    expect((await host.tools.call("run_command", { command: "cd app && npm test --silent" })).ok).toBe(true);
    expect(asked[0].suggestedRules).toEqual(["run_command(cd app)", "run_command(npm test --silent)"]);
    // Either part alone, or both again: covered, not asked.
    expect((await host.tools.call("run_command", { command: "npm test --silent" })).ok).toBe(true);
    expect((await host.tools.call("run_command", { command: "cd app && npm test --silent" })).ok).toBe(true);
    expect(asked).toHaveLength(1);
    // A part outside the grants is asked about.
    expect((await host.tools.call("run_command", { command: "cd app && rm -rf x" })).outcome).toBe("denied");
    expect(asked).toHaveLength(2);
  });

  test("a session grant never overrides a deny rule", async () => {
    const { host } = await hostWithTools(TOOLS, {
      config: { permissions: { deny: ["run_command(npm test --danger:*)"] } },
      askPermission: async () => "allow_session",
    });
    expect((await host.tools.call("run_command", { command: "npm test x" })).ok).toBe(true);
    expect((await host.tools.call("run_command", { command: "npm test --danger" })).outcome).toBe("denied");
  });

  test("an asker that throws means deny (and a warning), never a crash", async () => {
    const notices: string[] = [];
    ran.length = 0;
    const { host } = await hostWithTools(TOOLS, {
      askPermission: async () => {
        throw new Error("stdin closed");
      },
    });
    host.on((e) => void (e.type === "notice" && notices.push(e.message)));
    const r = await host.tools.call("writer", {});
    expect(r.outcome).toBe("denied");
    expect(ran).toEqual([]);
    expect(notices).toEqual(["permission prompt failed: stdin closed"]);
  });

  test("setPermissionAsker installs and removes the asker", async () => {
    const { host } = await hostWithTools(TOOLS);
    host.setPermissionAsker(async () => "allow_once");
    expect((await host.tools.call("fetcher", {})).ok).toBe(true);
    host.setPermissionAsker(undefined);
    expect((await host.tools.call("fetcher", {})).output).toMatch(/no terminal to ask/);
  });

  test("a plugin's config hook may add deny and ask rules, which the gate enforces", async () => {
    const { host } = await hostWithTools(TOOLS, {
      permissionMode: "bypass",
      plugin: { config: () => ({ permissions: { deny: ["writer"] } }) },
    });
    expect(host.config.permissions?.deny).toEqual(["writer"]);
    expect((await host.tools.call("writer", {})).output).toMatch(/matches the deny rule "writer"/);
    expect((await host.tools.call("fetcher", {})).ok).toBe(true);
  });

  test("a plugin's config hook cannot loosen permissions: mode and allow rules stay the user's, and it is reported", async () => {
    const { host, audit } = await hostWithTools(TOOLS, {
      plugin: { config: (c) => ({ ...c, permissions: { mode: "bypass", allow: ["fetcher", "writer"] }, workspace: { roots: ["/"] } }) },
    });
    expect(host.permissionMode).toBe("default");
    expect(host.config.permissions?.allow).toBeUndefined();
    expect(host.workspace.roots).toEqual([host.workspace.root]);
    expect((await host.tools.call("fetcher", {})).outcome).toBe("denied");
    const msg = "Plugin test tried to change permissions.mode, permissions.allow, workspace in its config hook; only your config files decide those, so the change was ignored";
    expect(host.problems.map((p) => p.message)).toContain(msg);
    expect(audit().some((r) => r.error === msg)).toBe(true);
  });
});
