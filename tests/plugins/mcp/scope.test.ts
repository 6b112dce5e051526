/**
 * `agent mcp add -s local|project|user` (Claude Code's scopes): where each writes, that the host then
 * loads the server from there, that `-e` secrets stay out of the shared .mcp.json unless the project
 * scope is asked for (and then a warning), and `agent mcp remove` finding the scope.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, DEMO_SERVER } from "./_helpers.js";
import { agent, project } from "./_cli.js";

afterAll(cleanup);

const json = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, any>;

describe("agent mcp add --scope", () => {
  it("local is the default: .agent/settings.local.json (git-ignored), secrets included, and the server loads from there", async () => {
    const p = project();
    const add = await agent(p, ["mcp", "add", "--trust", "-e", "TOKEN=sk-live-secret-value", "demo", "--", process.execPath, DEMO_SERVER]);
    expect(add.code, add.stderr).toBe(0);
    const local = path.join(p.dir, ".agent", "settings.local.json");
    expect(add.stdout).toContain(`to ${local} (local scope: this project, only on this machine)`);
    expect(add.stderr).toBe("");
    expect(json(local).mcpServers.demo).toEqual({ command: process.execPath, args: [DEMO_SERVER], env: { TOKEN: "sk-live-secret-value" }, trust: true });
    expect(existsSync(path.join(p.dir, ".mcp.json"))).toBe(false);
    expect(readFileSync(path.join(p.dir, ".agent", ".gitignore"), "utf8")).toMatch(/^settings\.local\.json$/m);
    const call = await agent(p, ["call", "mcp__demo__echo", '{"text":"from local"}']);
    expect(call).toMatchObject({ code: 0, stdout: "from local\n" });
    // agent config shows the file and redacts the secret.
    const config = await agent(p, ["config", "--json"]);
    expect(JSON.parse(config.stdout).files).toContain(local);
    expect(config.stdout).not.toContain("sk-live-secret-value");
  });

  it("project writes .mcp.json, and warns when -e puts a value (not a ${VAR}) in that shared file", async () => {
    const p = project();
    const add = await agent(p, ["mcp", "add", "-s", "project", "-e", "TOKEN=sk-live-secret-value", "-e", "REF=${MY_REF}", "demo", "--", process.execPath, DEMO_SERVER]);
    expect(add.code).toBe(0);
    expect(json(path.join(p.dir, ".mcp.json")).mcpServers.demo.env).toEqual({ TOKEN: "sk-live-secret-value", REF: "${MY_REF}" });
    expect(add.stderr).toContain("is shared with everyone who clones the project, and now holds the value of TOKEN as written");
    expect(add.stderr).toContain('-s local (this machine only), or write "${TOKEN}"');
    const clean = await agent(p, ["mcp", "add", "--scope", "project", "-e", "TOKEN=${TOKEN}", "other", "--", process.execPath, DEMO_SERVER]);
    expect(clean).toMatchObject({ code: 0, stderr: "" });
  });

  it("user writes the user config (the YAML one when that is the file in use, comments kept)", async () => {
    const p = project();
    const add = await agent(p, ["mcp", "add", "-s", "user", "--trust", "demo", "--", process.execPath, DEMO_SERVER]);
    expect(add.code, add.stderr).toBe(0);
    expect(json(path.join(p.configHome, "config.json")).mcpServers.demo.command).toBe(process.execPath);
    expect((await agent(p, ["call", "mcp__demo__upper", '{"text":"u"}'])).stdout).toBe("U\n");

    const q = project();
    writeFileSync(path.join(q.configHome, "config.yaml"), "# my settings\nmaxTurns: 9\n");
    expect((await agent(q, ["mcp", "add", "-s", "user", "remote", "https://example.com/mcp"])).code).toBe(0);
    const yaml = readFileSync(path.join(q.configHome, "config.yaml"), "utf8");
    expect(yaml).toContain("# my settings");
    expect(yaml).toMatch(/mcpServers:\n\s+remote:\n\s+url: https:\/\/example.com\/mcp/);
    expect(existsSync(path.join(q.configHome, "config.json"))).toBe(false);
  });

  it("remove finds the scope, asks which when two have the name, and refuses a bad scope", async () => {
    const p = project();
    expect((await agent(p, ["mcp", "add", "demo", "--", "node", "a.js"])).code).toBe(0);
    expect((await agent(p, ["mcp", "add", "-s", "project", "demo", "--", "node", "b.js"])).code).toBe(0);
    const both = await agent(p, ["mcp", "remove", "demo"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("say which: agent mcp remove -s local demo");
    expect((await agent(p, ["mcp", "remove", "-s", "project", "demo"])).code).toBe(0);
    expect(json(path.join(p.dir, ".mcp.json")).mcpServers).toEqual({});
    const last = await agent(p, ["mcp", "remove", "demo"]);
    expect(last.stdout).toContain(`from ${path.join(p.dir, ".agent", "settings.local.json")}`);
    const bad = await agent(p, ["mcp", "add", "-s", "team", "x", "--", "node"]);
    expect(bad).toMatchObject({ code: 2, stderr: 'agent: --scope must be local, project or user; got "team"\n' });
  });
});
