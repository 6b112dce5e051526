/**
 * Folder trust in the host library: the decision and its fingerprint, what a folder's files may still do
 * untrusted (narrow) and what they may not (widen), through `prepareHost` with real files.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createHost, type PluginContext } from "../../core/index.js";
import { addLocalAllowRules, prepareHost, trustDecision, trustedFolders, trustPreparedFolder, untrustFolder, type TrustItem } from "../../core/embed.js";
import { cleanupTemp, tempDir, tempProject } from "../helpers/project.js";

afterAll(cleanupTemp);

const prepare = (dir: string, configHome: string, trust?: boolean) => prepareHost({ cwd: dir, userConfigDir: configHome, ...(trust !== undefined ? { trust } : {}) });
const names = (items: readonly TrustItem[]) => items.map((i) => `${i.kind}:${i.name}`).sort();

function withoutEnvTrust<T>(fn: () => Promise<T>): Promise<T> {
  const saved = process.env.AGENT_TRUST;
  delete process.env.AGENT_TRUST;
  return fn().finally(() => {
    if (saved === undefined) delete process.env.AGENT_TRUST;
    else process.env.AGENT_TRUST = saved;
  });
}

describe("what a folder's files may do untrusted", () => {
  const widening = {
    permissions: { mode: "acceptEdits", allow: ["run_command", "write_file"], ask: ["grep"], deny: ["read_file(.env)"], grants: "allow" },
    env: { BASH_ENV: "x" },
    plugins: ["./p.mjs", ["agent-plugin-x", { token: "t" }]],
    workspace: { roots: ["/"] },
    audit: { enabled: false },
    providers: { openai: { baseURL: "http://127.0.0.1:1/v1" } },
    compat: { claude: false },
    disabledPlugins: ["hooks"],
    tools: { timeoutMs: 1000, overrides: { run_command: { risk: "read", timeoutMs: 5 } } },
    model: "openai:gpt-x",
    systemPrompt: "be brief",
  };

  it("keeps every narrowing part and none of the widening ones", () =>
    withoutEnvTrust(async () => {
      const p = tempProject({ ".agentrc.json": widening });
      const prepared = await prepare(p.dir, p.configHome);
      const c = prepared.config;
      expect(c.permissions).toEqual({ ask: ["grep"], deny: ["read_file(.env)"], allow: [] });
      expect(c.env).toEqual({});
      expect(c.plugins).toEqual([]);
      expect(c.workspace?.roots).toEqual([]);
      expect(c.audit).toBeUndefined();
      expect(c.providers).toEqual({});
      expect(c.compat).toBeUndefined();
      expect(c.disabledPlugins).toBeUndefined();
      expect(c.tools).toEqual({ timeoutMs: 1000, overrides: { run_command: { timeoutMs: 5 } } });
      expect(c.model).toBe("openai:gpt-x");
      expect(c.systemPrompt).toBe("be brief");
      expect(prepared.trust.state).toBe("untrusted");
      expect(names(prepared.trust.skipped)).toEqual(
        [
          "allow rule:run_command",
          "allow rule:write_file",
          "audit setting:" + JSON.stringify({ enabled: false }),
          "compat setting:claude: false",
          "disabled plugins:hooks",
          "environment variable:BASH_ENV",
          "grants:allow",
          "permission mode:acceptEdits",
          `plugin:${p.path("p.mjs")}`,
          "plugin:agent-plugin-x",
          "provider settings:openai",
          "risk override:run_command",
          "workspace root:/",
        ].sort(),
      );
    }));

  it("a mode no wider than the user's own applies; plan always does", () =>
    withoutEnvTrust(async () => {
      const plan = tempProject({ ".agentrc.json": { permissions: { mode: "plan" } } });
      expect((await prepare(plan.dir, plan.configHome)).config.permissions?.mode).toBe("plan");
      const wide = tempProject({ ".agentrc.json": { permissions: { mode: "acceptEdits" } } });
      writeFileSync(path.join(wide.configHome, "config.json"), JSON.stringify({ permissions: { mode: "bypass" } }));
      // The user chose bypass: a folder asking for acceptEdits narrows it, and applies.
      expect((await prepare(wide.dir, wide.configHome)).config.permissions?.mode).toBe("acceptEdits");
    }));

  it("the user's own config is never narrowed, and createHost({ config }) is the embedder's", () =>
    withoutEnvTrust(async () => {
      const p = tempProject();
      writeFileSync(path.join(p.configHome, "config.json"), JSON.stringify({ permissions: { allow: ["run_command"] }, env: { MINE: "1" } }));
      const prepared = await prepareHost({ cwd: p.dir, userConfigDir: p.configHome, config: { permissions: { allow: ["write_file"] } } });
      expect(prepared.config.permissions?.allow).toEqual(["run_command", "write_file"]);
      expect(prepared.config.env).toEqual({ MINE: "1" });
    }));

  it("plugin sections: an inert one applies, an entries one is asked about entry by entry, an unknown one is held back", () =>
    withoutEnvTrust(async () => {
      const p = tempProject({
        ".agentrc.json": { skills: { always: ["x"] }, mcpServers: { a: { command: "a" }, b: { url: "http://127.0.0.1:1" } }, hooks: { Stop: [{ hooks: [{ type: "command", command: "x" }] }] }, nobodys: { x: 1 } },
      });
      const prepared = await prepareHost({ cwd: p.dir, userConfigDir: p.configHome, builtins: (await import("../../cli/builtins.js")).builtinPlugins });
      expect(prepared.config.skills).toEqual({ always: ["x"] });
      expect(prepared.config.mcpServers ?? {}).toEqual({});
      expect(prepared.config.hooks).toBeUndefined();
      expect(names(prepared.trust.skipped)).toEqual(["MCP server:a", "MCP server:b", "config section:nobodys", "hooks:Stop"]);
      // Not an unknown-key error: a section the folder's own (unloaded) plugin may own is only held back.
      expect(prepared.problems.filter((x) => x.message.includes("nobodys"))).toEqual([]);
    }));
});

describe("the decision", () => {
  it("is the user's, keyed by the real path; a symlinked path to the folder is the same folder", () =>
    withoutEnvTrust(async () => {
      const p = tempProject({ ".agentrc.json": { permissions: { allow: ["run_command"] } } });
      const link = path.join(tempDir(), "link");
      symlinkSync(p.dir, link);
      const trusted = await prepare(link, p.configHome, true);
      trustPreparedFolder(trusted);
      expect(trustedFolders(p.configHome).map((f) => f.path)).toEqual([p.dir]);
      const again = await prepare(p.dir, p.configHome);
      expect(again.trust.state).toBe("trusted");
      expect(again.config.permissions?.allow).toEqual(["run_command"]);
      expect(untrustFolder(p.configHome, link)).toBe(true);
      expect((await prepare(p.dir, p.configHome)).trust.state).toBe("untrusted");
    }));

  it("holds back a part added or changed after it, and only that part", () =>
    withoutEnvTrust(async () => {
      const p = tempProject({ ".agentrc.json": { permissions: { allow: ["read_file", "grep"] } } });
      trustPreparedFolder(await prepare(p.dir, p.configHome, true));
      p.write(".agentrc.json", { permissions: { allow: ["read_file", "grep", "run_command"] } });
      const changed = await prepare(p.dir, p.configHome);
      expect(changed.trust.state).toBe("changed");
      expect(changed.config.permissions?.allow).toEqual(["read_file", "grep"]);
      expect(names(changed.trust.skipped)).toEqual(["allow rule:run_command"]);
    }));

  it("what agent-host writes on the user's answer (always for this project) applies; a hand or a pull changing that file is checked part by part", () =>
    withoutEnvTrust(async () => {
      const p = tempProject({ ".agentrc.json": { permissions: { allow: ["read_file"] } } });
      const savedHome = process.env.AGENT_CONFIG_HOME;
      process.env.AGENT_CONFIG_HOME = p.configHome;
      try {
        trustPreparedFolder(await prepare(p.dir, p.configHome, true));
        addLocalAllowRules(p.dir, ["run_command(npm test)"]);
        const after = await prepare(p.dir, p.configHome);
        expect(after.trust.state).toBe("trusted");
        expect(after.config.permissions?.allow).toEqual(["read_file", "run_command(npm test)"]);
        // Changed by something else: the parts it holds are checked against the decision, and the new ones held back.
        p.write(".agent/settings.local.json", { permissions: { allow: ["run_command(npm test)", "run_command"] } });
        const pulled = await prepare(p.dir, p.configHome);
        expect(pulled.trust.state).toBe("changed");
        expect(pulled.config.permissions?.allow).toEqual(["read_file"]);
      } finally {
        if (savedHome === undefined) delete process.env.AGENT_CONFIG_HOME;
        else process.env.AGENT_CONFIG_HOME = savedHome;
      }
    }));

  it("a parent's covers its subfolders; home's and /'s do not; a trust file that is not JSON trusts nothing", () =>
    withoutEnvTrust(async () => {
      const home = tempDir();
      const child = path.join(home, "repo");
      mkdirSync(child);
      writeFileSync(path.join(child, "package.json"), "{}");
      const configHome = tempDir();
      const savedHome = process.env.HOME;
      process.env.HOME = home;
      try {
        writeFileSync(path.join(configHome, "trusted-folders.json"), JSON.stringify({ version: 1, folders: [{ path: home, trustedAt: "x" }, { path: "/", trustedAt: "x" }] }));
        expect(trustDecision(configHome, child)).toBeUndefined();
        expect(trustDecision(configHome, home)?.path).toBe(home);
        const parent = path.dirname(home);
        writeFileSync(path.join(configHome, "trusted-folders.json"), JSON.stringify({ version: 1, folders: [{ path: parent, trustedAt: "x" }] }));
        expect(trustDecision(configHome, child)?.path).toBe(parent);
        expect((await prepare(child, configHome)).trust).toMatchObject({ state: "trusted", source: "parent" });
        writeFileSync(path.join(configHome, "trusted-folders.json"), "{ not json");
        expect((await prepare(child, configHome)).trust.state).toBe("untrusted");
      } finally {
        process.env.HOME = savedHome;
      }
    }));

  it("AGENT_TRUST=1 trusts for the run, AGENT_TRUST=0 never; the host's option wins over both", async () => {
    const p = tempProject({ ".agentrc.json": { permissions: { allow: ["run_command"] } } });
    const saved = process.env.AGENT_TRUST;
    try {
      process.env.AGENT_TRUST = "1";
      expect((await prepare(p.dir, p.configHome)).trust).toMatchObject({ state: "trusted", source: "env" });
      expect((await prepare(p.dir, p.configHome, false)).trust.state).toBe("untrusted");
      process.env.AGENT_TRUST = "0";
      trustPreparedFolder(await prepare(p.dir, p.configHome, true));
      expect((await prepare(p.dir, p.configHome)).trust.state).toBe("untrusted");
      expect((await prepare(p.dir, p.configHome, true)).trust).toMatchObject({ state: "trusted", source: "option" });
    } finally {
      process.env.AGENT_TRUST = saved;
    }
  });
});

describe("a grant for a part the user trusted", () => {
  it("lasts until the run ends, needs the part inside the trusted folder, and is refused untrusted", async () => {
    const p = tempProject({ ".claude/commands/x.md": "---\nallowed-tools: Bash(echo:*)\n---\nx\n" });
    let ctx: PluginContext | undefined;
    const spy = { name: "spy", setup: (c: PluginContext) => void (ctx = c) };
    const part = { kind: "command allowed-tools", name: "/x", file: p.path(".claude/commands/x.md"), value: ["Bash(echo:*)"] };
    const host = await createHost({ cwd: p.dir, userConfigDir: p.configHome, trust: true, builtins: [{ name: "tools", load: async () => (await import("../../plugins/tools/index.js")).default }], plugins: [spy] });
    try {
      const echo = () => host.tools.call("run_command", { command: "echo hi" });
      expect((await echo()).outcome).toBe("denied");
      expect(await ctx!.requestGrant({ rules: ["run_command(echo:*)"], reason: "test", part: { ...part, file: "/etc/hosts" } })).toBe(false);
      expect(await ctx!.requestGrant({ rules: ["run_command(echo:*)"], reason: "test", part })).toBe(true);
      expect((await echo()).outcome).toBe("ok");
      await host.run("no model: the run ends at once").catch(() => {});
      expect((await echo()).outcome).toBe("denied");
    } finally {
      await host.close();
    }
    const untrusted = await createHost({ cwd: p.dir, userConfigDir: p.configHome, trust: false, plugins: [spy] });
    try {
      expect(await ctx!.requestGrant({ rules: ["run_command(echo:*)"], reason: "test", part })).toBe(false);
    } finally {
      await untrusted.close();
    }
  });
});

