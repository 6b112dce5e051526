/**
 * Folder trust from outside (the attempts and their table: ./fixture.ts): an untrusted folder's widening
 * settings (allow rules, bypass, acceptEdits, grants, env, risk overrides, roots, audit, provider URL,
 * compat, disabledPlugins, servers, hooks) apply nowhere, and the CLI says once what it did not load; then
 * the same folders trusted (AGENT_TRUST=1) run what they ship: the probes are live.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hostileFolders } from "./fixture.js";

const h = hostileFolders();
const { run } = h;

describe("an untrusted folder widens nothing", () => {
  const dir = () => h.repos[".agentrc.json"];

  // The four code-config folders ship the same widening files (common()); their config exports {}: one stands for them.
  const WIDENING = ["agent.config.mjs", ".agentrc.json", ".agentrc.yaml", ".agentrc", "package.json#agent"];
  it("allow rules, bypass and acceptEdits from the folder allow no command and no write", async () => {
    for (const folder of WIDENING.map((n) => h.repos[n])) {
      const cmd = await run(["call", "run_command", JSON.stringify({ command: h.touch("allowed-command") })], folder);
      expect(cmd.code).toBe(3);
      const w = await run(["call", "write_file", '{"path":"written.txt","content":"x"}'], folder);
      expect(w.code).toBe(3);
      expect(existsSync(path.join(folder, "written.txt"))).toBe(false);
    }
    expect(h.markers()).toEqual([]);
  }, 120_000);

  it("the folder's deny rule still applies (it narrows)", async () => {
    const r = await run(["call", "read_file", '{"path":"secret.txt"}'], dir());
    expect(r.code).toBe(3);
    expect(r.stderr + r.stdout).toContain("read_file(secret.txt)");
  });

  it("the resolved config holds no widening part of the folder", async () => {
    for (const name of [".agentrc.json", ".agentrc.yaml", ".agentrc", "package.json#agent"]) {
      const r = await run(["config", "--json"], h.repos[name]);
      expect(r.code).toBe(0);
      const { config } = JSON.parse(r.stdout) as { config: Record<string, any> };
      expect(config.permissions?.allow ?? []).toEqual([]);
      expect(config.permissions?.mode).toBeUndefined();
      expect(config.permissions?.grants).toBeUndefined();
      expect(config.permissions?.deny).toContain("read_file(secret.txt)");
      expect(config.env ?? {}).toEqual({});
      expect(config.workspace?.roots ?? []).toEqual([]);
      expect(config.audit).toBeUndefined();
      expect(config.compat).toBeUndefined();
      expect(config.disabledPlugins).toBeUndefined();
      expect(config.providers.openai.baseURL).toBe(h.modelURL);
      expect(config.tools?.overrides?.run_command?.risk).toBeUndefined();
      expect(config.mcpServers ?? {}).toEqual({});
      expect(config.hooks).toBeUndefined();
      expect(config.plugins).toEqual(["agent-plugin-mine"]);
    }
  }, 60_000);

  it("says once on stderr what was not loaded and how to trust it; doctor lists it", async () => {
    const r = await run(["tools"], dir());
    const lines = r.stderr.split("\n").filter((l) => l.includes("not trusted"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/MCP servers? .*evilstdio/);
    expect(lines[0]).toContain("agent trust");
    const d = await run(["doctor"], dir());
    expect(d.stdout).toContain("folder trust: not trusted");
    expect(d.stdout).toMatch(/plugin\s+\.\/evil-plugin\.mjs|plugin\s+.*evil-plugin\.mjs/);
    expect(d.stdout).toMatch(/MCP server\s+evilstdio: runs node -e/);
    expect(d.stdout).toMatch(/hooks\s+PreToolUse: on PreToolUse runs/);
    expect(d.stdout).not.toContain("sk-user-own");
    // agent mcp names the servers it did not start, and why, rather than "none configured".
    const list = await run(["mcp", "list"], dir());
    expect(list.stdout).toMatch(/Not loaded .*agent trust.*evilstdio, evilremote/);
    const get = await run(["mcp", "get", "evilstdio"], dir());
    expect(get.code).toBe(2);
    expect(get.stderr).toContain('MCP server "evilstdio"');
    expect(get.stderr).toContain("agent trust");
    expect(h.markers()).toEqual([]);
    expect(h.hits).toEqual([]);
  }, 60_000);
  // A skill's allowed-tools and a command's ! line: `call skill` and the run of /evil, in every folder (untrusted-*.test.ts).
});

describe("trusted, the same folders run what they ship (the probes are live)", () => {
  it("AGENT_TRUST=1: code config, plugins, servers, provider settings and env all apply", async () => {
    const dir = h.repos[".agentrc.json"];
    await run(["tools"], h.repos["agent.config.mjs"], { AGENT_TRUST: "1" });
    expect(h.markers()).toContain("config-mjs");
    await run(["tools"], h.repos["agent.config.ts"], { AGENT_TRUST: "1" });
    expect(h.markers()).toContain("config-ts");
    await run(["tools"], dir, { AGENT_TRUST: "1" });
    // The folder's provider URL is used: the request goes to the canary, not to the user's model server.
    await run(["-p", "hi"], dir, { AGENT_TRUST: "1" });
    expect(h.hits.some((hit) => hit.startsWith("/provider-rcjson"))).toBe(true);
    await run(["call", "run_command", '{"command":"true"}'], dir, { AGENT_TRUST: "1" });
    const seen = h.markers();
    for (const m of ["plugin-local-agentrcjson", "plugin-npm-agentrcjson", "mcp-rc-rcjson", "bashenv-agentrcjson"]) expect(seen).toContain(m);
    expect(h.hits.some((hit) => hit.startsWith("/mcp-rc-rcjson"))).toBe(true);
  }, 120_000);

  it.each([["agent.config.js"], ["agent.config.mts"]])("%s runs once trusted", async (name) => {
    await run(["tools"], h.repos[name], { AGENT_TRUST: "1" });
    expect(h.markers()).toContain(name === "agent.config.js" ? "config-js" : "config-mts");
  }, 60_000);

  it("Claude Code files and .mcp.json of a trusted folder: hooks, servers, env run", async () => {
    const dir = h.repos["agent.config.mjs"];
    const r = await run(["-p", "hi"], dir, { AGENT_TRUST: "1" });
    expect(r.code, r.stderr).toBe(0);
    await run(["tools"], dir, { AGENT_TRUST: "1" });
    const seen = h.markers();
    for (const m of ["hook-claude-agentconfigmjs-SessionStart", "hook-claudelocal-agentconfigmjs-PreToolUse", "hook-local-agentconfigmjs-UserPromptSubmit", "mcp-stdio-agentconfigmjs", "plugin-shadow-agentconfigmjs"]) expect(seen).toContain(m);
  }, 120_000);
});
