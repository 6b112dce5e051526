/**
 * What a newcomer from Claude Code meets on the first day (issue 26), as they meet it: the built CLI
 * in a temp project. `agent help <cmd>`, Claude Code's permission-mode names, a path outside the
 * workspace audited as denied, read-only commands that leave no `.agent/` behind and write no audit record.
 */
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { runCli, type CliResult } from "../helpers/cli.js";
import { DIST_INDEX_URL, assertBuilt } from "../helpers/paths.js";
import { cleanupTemp, tempProject, type TempProject } from "../helpers/project.js";

afterAll(cleanupTemp);
beforeAll(assertBuilt);
vi.setConfig({ testTimeout: 120_000 });

const WRITER = `
import { definePlugin, z } from ${JSON.stringify(DIST_INDEX_URL)};
export default definePlugin({
  name: "testkit",
  tools: [{ name: "writer", description: "Pretends to write", risk: "write", input: z.object({}), run: () => "written" }],
});
`;

const project = (): TempProject => tempProject({ ".agentrc.json": { plugins: ["./testkit.mjs"] }, "testkit.mjs": WRITER });
const cli = (p: TempProject, args: string[], env?: Record<string, string | undefined>): Promise<CliResult> => runCli(args, { cwd: p.dir, configHome: p.configHome, env, timeoutMs: 90_000 });

describe.concurrent("agent help <command>", () => {
  test("prints that command's help, as <command> --help does (a subcommand too)", async () => {
    const p = tempProject();
    const [help, flag] = await Promise.all([cli(p, ["help", "tools"]), cli(p, ["tools", "--help"])]);
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toContain("Usage: agent tools");
    expect(help.stdout).toBe(flag.stdout);
    const sub = await cli(p, ["help", "plugin", "add"]);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toMatch(/^Usage: agent plugin add /);
  });

  test("an unknown command after help is a usage error with a suggestion", async () => {
    const r = await cli(tempProject(), ["help", "tool"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "tool". Did you mean "tools"?');
  });
});

describe.concurrent("Claude Code's permission modes", () => {
  test("bypassPermissions and --dangerously-skip-permissions allow a write tool (still audited)", async () => {
    const p = project();
    expect((await cli(p, ["call", "writer"])).code).toBe(3);
    const a = await cli(p, ["--permission-mode", "bypassPermissions", "call", "writer"]);
    expect(a).toMatchObject({ code: 0, stdout: "written\n" });
    const b = await cli(p, ["--dangerously-skip-permissions", "call", "writer"]);
    expect(b).toMatchObject({ code: 0, stdout: "written\n" });
    const calls = readFileSync(p.auditFile, "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((r) => r.kind === "call");
    expect(calls.map((c) => [c.outcome, c.by])).toEqual([["denied", expect.any(String)], ["ok", "mode:bypass"], ["ok", "mode:bypass"]]);
  });

  test("acceptEdits, plan, default and dontAsk are accepted; dontAsk denies what would ask", async () => {
    const p = project();
    expect((await cli(p, ["--permission-mode", "acceptEdits", "call", "writer"])).code).toBe(0);
    expect((await cli(p, ["--permission-mode", "plan", "call", "writer"])).code).toBe(3);
    expect((await cli(p, ["--permission-mode", "default", "call", "writer"])).code).toBe(3);
    expect((await cli(p, ["--permission-mode", "dontAsk", "call", "writer"])).code).toBe(3);
    const typo = await cli(p, ["--permission-mode", "dontask", "tools"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean "dontAsk"?');
  });
});

describe.concurrent("the workspace boundary", () => {
  test("a path outside the workspace exits 3 and is audited as denied", async () => {
    const p = project();
    const r = await cli(p, ["call", "read_file", '{"path":"/etc/hostname"}']);
    expect(r.code).toBe(3);
    const last = readFileSync(p.auditFile, "utf8").trim().split("\n").map((l) => JSON.parse(l)).at(-1);
    expect(last).toMatchObject({ kind: "call", name: "read_file", outcome: "denied" });
  });
});

describe.concurrent("read-only commands", () => {
  test("tools, commands, plugins, doctor, skills, agents, mcp list and --help leave no .agent/ in a folder that has none", async () => {
    const p = project();
    for (const args of [["tools"], ["commands"], ["plugins"], ["doctor"], ["skills"], ["agents"], ["mcp", "list"], ["--help"], ["help", "tools"]]) {
      const r = await cli(p, args);
      expect(r.code, `agent ${args.join(" ")}: ${r.stderr}`).toBeLessThanOrEqual(1);
      expect(existsSync(p.path(".agent")), `agent ${args.join(" ")} created .agent/`).toBe(false);
    }
  });

  test("where .agent/ exists, a listing writes no audit record; the config's own audit log gets its registrations", async () => {
    const p = project();
    p.write(".agent/audit.jsonl", "");
    for (const args of [["tools"], ["tools", "--json"], ["commands"], ["plugins"], ["skills"], ["agents"], ["doctor"], ["mcp", "list"]]) {
      const r = await cli(p, args);
      expect(r.code, `agent ${args.join(" ")}: ${r.stderr}`).toBeLessThanOrEqual(1);
    }
    expect(readFileSync(p.auditFile, "utf8")).toBe("");
    // The user asked for a log of their own: a listing is audited there.
    p.write(".agentrc.json", { plugins: ["./testkit.mjs"], audit: { path: "logs/agent-audit.jsonl" } });
    expect((await cli(p, ["tools"])).code).toBe(0);
    const records = readFileSync(p.path("logs/agent-audit.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(records.some((r) => r.kind === "register" && r.source === "testkit")).toBe(true);
    expect(readFileSync(p.auditFile, "utf8")).toBe("");
  });
});

describe.concurrent("a code config that imports agent-host, with a global agent", () => {
  const CONFIG = `import { defineConfig } from "agent-host";
import { createTestHost } from "agent-host/testing";
export default defineConfig({ model: typeof createTestHost === "function" ? "openai:gpt-4o" : "none", permissions: { allow: ["read_file"] } });
`;

  test("the project has no agent-host: the CLI's own is used, and agent doctor says so", async () => {
    const p = tempProject({ "agent.config.ts": CONFIG });
    const config = await cli(p, ["config", "--json"]);
    expect(config.stderr).toBe("");
    expect(JSON.parse(config.stdout).config).toMatchObject({ model: "openai:gpt-4o", permissions: { allow: ["read_file"] } });
    const doctor = await cli(p, ["doctor"]);
    expect(doctor.stdout).toContain(`${p.path("agent.config.ts")} imports agent-host`);
    expect(doctor.stdout).toContain("from this agent's own package");
  });

  test("the file's own mistakes are reported, not a missing agent-host", async () => {
    const p = tempProject({ "agent.config.ts": `import { defineConfig } from "agent-host";\nexport default defineConfig({ permisions: {} });\n` });
    const r = await cli(p, ["tools"]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain("Cannot find module");
    expect(r.stderr).toContain("permisions");
  });

  test("a project with agent-host of its own imports that one", async () => {
    const p = tempProject({
      "agent.config.mjs": `import { defineConfig, marker } from "agent-host";\nexport default defineConfig({ model: marker });\n`,
      "node_modules/agent-host/package.json": { name: "agent-host", version: "9.9.9", type: "module", exports: { ".": "./index.js" } },
      "node_modules/agent-host/index.js": `export const defineConfig = (c) => c;\nexport const marker = "openai:from-the-project";\n`,
    });
    const config = await cli(p, ["config", "--json"]);
    expect(JSON.parse(config.stdout).config.model).toBe("openai:from-the-project");
    const doctor = await cli(p, ["doctor"]);
    expect(doctor.stdout).toContain(`imports agent-host 9.9.9 from the project (${p.path("node_modules/agent-host")})`);
  });
});

describe.concurrent("agent plugins", () => {
  test("counts the skills a plugin ships (skillDirs), as agent skills lists them", async () => {
    const p = tempProject({
      ".agentrc.json": { plugins: ["./shipper/index.mjs"] },
      "shipper/package.json": { name: "agent-plugin-shipper", version: "1.0.0", type: "module" },
      "shipper/index.mjs": `export default { name: "shipper", skillDirs: ["skills"] };\n`,
      "shipper/skills/greet-guide/SKILL.md": "---\nname: greet-guide\ndescription: How to greet.\n---\nSay hello.\n",
    });
    const skills = await cli(p, ["skills", "--json"]);
    expect(JSON.parse(skills.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ name: "greet-guide", source: "shipper" })]));
    const plugins = await cli(p, ["plugins", "--json"]);
    expect(JSON.parse(plugins.stdout).find((x: { name: string }) => x.name === "shipper")).toMatchObject({ status: "loaded", skills: 1 });
    expect((await cli(p, ["plugins"])).stdout).toMatch(/shipper\s+loaded\s+.*0 tools, 0 commands, 1 skills/);
  });
});
