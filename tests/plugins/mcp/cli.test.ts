/** `agent mcp ...`, `agent tools` and `agent call` with MCP servers, through the built CLI. */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, DEMO_SERVER, EVERYTHING, fixture, tempDir } from "./_helpers.js";
import { agent, project } from "./_cli.js";

afterAll(cleanup);

// Trusted, so its tools' names set their risk (echo, add, upper: read) and they run in default mode.
const demo = { command: process.execPath, args: [DEMO_SERVER], trust: true };

describe("agent mcp list / get", () => {
  const p = project({
    ".mcp.json": { mcpServers: { demo, down: fixture("exit-immediately"), off: { ...demo, disabled: true } } },
  });

  it("lists every server with transport, protocol revision, status, tools, time and the error", async () => {
    const r = await agent(p, ["mcp", "list"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(/^NAME\s+TRANSPORT\s+PROTOCOL\s+STATUS\s+TOOLS\s+AUTH\s+TIME\s+DETAIL$/);
    // AUTH is "-" for stdio servers (OAuth is for remote ones).
    expect(lines[1]).toMatch(new RegExp(`^demo\\s+stdio\\s+2026-07-28\\s+connected\\s+3\\s+-\\s+\\d+ ms\\s+${process.execPath} ${DEMO_SERVER}$`));
    expect(lines[2]).toMatch(/^down\s+stdio\s+-\s+failed\s+0\s+-\s+\d+ ms\s+the server process exited with code 3 before answering initialize: fatal: boom$/);
    expect(lines[3]).toMatch(/^off\s+stdio\s+-\s+disabled\s+0\s+-\s+-\s+/);
    expect(r.stdout).toContain("3 servers: 1 connected, 1 failed, 1 disabled.");
    expect(r.stderr).toBe("");
  });

  it("prints JSON with --json", async () => {
    const r = await agent(p, ["mcp", "list", "--json"]);
    expect(r.code).toBe(0);
    const servers = JSON.parse(r.stdout) as { name: string; status: string; tools: number; transport: string; connectMs?: number }[];
    expect(servers.map((s) => [s.name, s.status, s.tools, s.transport])).toEqual([
      ["demo", "connected", 3, "stdio"],
      ["down", "failed", 0, "stdio"],
      ["off", "disabled", 0, "stdio"],
    ]);
    expect(servers[0].connectMs).toBeGreaterThan(0);
  });

  it("shows one server's tools with risk and input", async () => {
    const r = await agent(p, ["mcp", "get", "demo"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("status:  connected (stdio,");
    expect(r.stdout).toContain("server:  demo-server 0.1.0");
    expect(r.stdout).toContain("Tools (3 from the server, plus mcp__demo__resources to list and read its resources):");
    expect(r.stdout).toContain("/mcp__demo__greet <name>  [MCP:demo] Asks the model to greet someone by name");
    expect(r.stdout).toMatch(/mcp__demo__add\s+read\s+\[MCP:demo\] Adds two numbers/);
    expect(r.stdout).toContain("input: a: number (required), b: number (required)");
    const json = JSON.parse((await agent(p, ["mcp", "get", "demo", "--json"])).stdout);
    expect(json.toolList.map((t: { name: string; mcpName: string; risk: string }) => [t.name, t.mcpName, t.risk])).toEqual([
      ["mcp__demo__echo", "echo", "read"],
      ["mcp__demo__add", "add", "read"],
      ["mcp__demo__upper", "upper", "read"],
      ["mcp__demo__resources", null, "read"],
    ]);
    expect(json.toolList[0].inputSchema).toMatchObject({ type: "object", required: ["text"] });
  });

  it("get and list count a server's tools alike; the resources helper is named apart", async () => {
    const q = project({ ".mcp.json": { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } } });
    const [listed] = JSON.parse((await agent(q, ["mcp", "list", "--json"])).stdout);
    expect(listed.tools).toBeGreaterThan(0);
    const r = await agent(q, ["mcp", "get", "everything"]);
    expect(r.stdout).toContain(`Tools (${listed.tools} from the server, plus mcp__everything__resources to list and read its resources):`);
  });

  it("exits 1 for a failed server and 2 for an unknown one", async () => {
    expect((await agent(p, ["mcp", "get", "down"])).code).toBe(1);
    const unknown = await agent(p, ["mcp", "get", "nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('agent: no MCP server named "nope". Configured: demo, down, off.\n');
  });

  it("shows MCP tools in agent tools and calls them with agent call", async () => {
    const tools = await agent(p, ["tools", "--json"]);
    const list = JSON.parse(tools.stdout) as { name: string; source: string }[];
    expect(list.filter((t) => t.source === "mcp:demo").map((t) => t.name).sort()).toEqual(["mcp__demo__add", "mcp__demo__echo", "mcp__demo__resources", "mcp__demo__upper"]);
    const call = await agent(p, ["call", "mcp__demo__upper", '{"text":"shout"}']);
    expect(call).toMatchObject({ code: 0, stdout: "SHOUT\n" });
    // Only the server the call needs is started: the broken one is not even tried.
    expect(call.stderr).toBe("");
    const invalid = await agent(p, ["call", "mcp__demo__add", '{"a":"x","b":1}']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain("Invalid input for mcp__demo__add:\n- a: must be number");
  });
});

describe("agent mcp login / logout of a server that has no login", () => {
  const p = project({ ".mcp.json": { mcpServers: { demo, off: { ...demo, disabled: true } } } });

  it("is a usage error (exit 2) with the reason, for a local server, a disabled one and an unknown one", async () => {
    for (const [args, reason] of [
      [["mcp", "login", "demo"], "MCP server demo is a local (stdio) server: it has no login"],
      [["mcp", "logout", "demo"], "MCP server demo is a local (stdio) server: it has no login"],
      [["mcp", "login", "off"], 'no enabled MCP server named "off" (it is disabled or misconfigured)'],
      [["mcp", "login", "nosuch"], 'no MCP server named "nosuch". Configured: demo, off.'],
    ] as const) {
      const r = await agent(p, [...args]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain(reason);
    }
  });
});

describe("agent mcp add / remove", () => {
  it("adds stdio and remote servers to .mcp.json, keeping what is there", async () => {
    const p = project();
    // An existing file, 4-space indented, with another key and a server.
    writeFileSync(path.join(p.dir, ".mcp.json"), JSON.stringify({ $comment: "team servers", mcpServers: { keep: { command: "x" } } }, null, 4));
    const add = await agent(p, ["mcp", "add", "-s", "project", "--env", "TOKEN=${MY_TOKEN}", "demo", "--", process.execPath, DEMO_SERVER, "--flag"]);
    expect(add.code).toBe(0);
    expect(add.stdout).toContain(`Added local (stdio) MCP server "demo" to ${path.join(p.dir, ".mcp.json")}`);
    const remote = await agent(p, ["mcp", "add", "-s", "project", "--transport", "http", "--header", "Authorization: Bearer ${API_KEY}", "api", "https://example.com/mcp"]);
    expect(remote.code).toBe(0);
    const text = readFileSync(path.join(p.dir, ".mcp.json"), "utf8");
    expect(text.startsWith('{\n    "$comment": "team servers",\n    "mcpServers": {\n        "keep"')).toBe(true);
    expect(JSON.parse(text)).toEqual({
      $comment: "team servers",
      mcpServers: {
        keep: { command: "x" },
        demo: { command: process.execPath, args: [DEMO_SERVER, "--flag"], env: { TOKEN: "${MY_TOKEN}" } },
        api: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer ${API_KEY}" } },
      },
    });

    const dup = await agent(p, ["mcp", "add", "-s", "project", "demo", "--", "node", "x.js"]);
    expect(dup.code).toBe(2);
    expect(dup.stderr).toContain('an MCP server named "demo" is already in');

    const removed = await agent(p, ["mcp", "remove", "demo"]);
    expect(removed).toMatchObject({ code: 0, stdout: `Removed MCP server "demo" from ${path.join(p.dir, ".mcp.json")}.\n` });
    expect(Object.keys(JSON.parse(readFileSync(path.join(p.dir, ".mcp.json"), "utf8")).mcpServers)).toEqual(["keep", "api"]);
  });

  it("creates .mcp.json when missing, and the added server works", async () => {
    const p = project();
    expect((await agent(p, ["mcp", "add", "--scope", "project", "demo", "--", process.execPath, DEMO_SERVER])).code).toBe(0);
    expect(existsSync(path.join(p.dir, ".mcp.json"))).toBe(true);
    // Not trusted: its tools are "execute" whatever their names say, so headless default mode refuses them.
    const refused = await agent(p, ["call", "mcp__demo__echo", '{"text":"added"}']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("Permission denied: mcp__demo__echo (risk: execute) needs approval");
    expect((await agent(p, ["mcp", "remove", "demo"])).code).toBe(0);
    expect((await agent(p, ["mcp", "add", "-s", "project", "--trust", "demo", "--", process.execPath, DEMO_SERVER])).code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(p.dir, ".mcp.json"), "utf8")).mcpServers.demo).toEqual({ command: process.execPath, args: [DEMO_SERVER], trust: true });
    const call = await agent(p, ["call", "mcp__demo__echo", '{"text":"added"}']);
    expect(call).toMatchObject({ code: 0, stdout: "added\n" });
  });

  it("explains usage mistakes", async () => {
    const p = project({ ".agentrc.json": { mcpServers: { fromConfig: { command: "x" } } } });
    const noDash = await agent(p, ["mcp", "add", "fs", "npx", "-y", "server"]);
    expect(noDash.code).toBe(2);
    expect(noDash.stderr).toContain("unknown option -y for agent mcp add. If it belongs to the command you are passing on, put -- before it.");
    const badName = await agent(p, ["mcp", "add", "my server", "--", "x"]);
    expect(badName.stderr).toContain('server name "my server" may only use letters, digits, _ and -');
    const badUrl = await agent(p, ["mcp", "add", "--transport", "http", "r", "not-a-url"]);
    expect(badUrl.stderr).toBe('agent: mcpServers.r.url: expected an http(s) URL, got the string "not-a-url"\n');
    const notThere = await agent(p, ["mcp", "remove", "ghost"]);
    expect(notThere).toMatchObject({ code: 2, stderr: 'agent: no MCP server named "ghost". Configured: fromConfig.\n' });
    const elsewhere = await agent(p, ["mcp", "remove", "fromConfig"]);
    expect(elsewhere.stderr).toBe(`agent: MCP server "fromConfig" is defined in ${path.join(p.dir, ".agentrc.json")}, not in .mcp.json; remove it there.\n`);
  });
});

describe("no MCP servers configured", () => {
  it("never loads the MCP SDK", async () => {
    const dir = tempDir();
    const record = path.join(dir, "loaded.txt");
    const hook = path.join(dir, "hook.mjs");
    const preload = path.join(dir, "preload.mjs");
    // A loader hook that records every module URL resolved in the process.
    writeFileSync(hook, `import { appendFileSync } from "node:fs";\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(record)}, r.url + "\\n"); return r; }\n`);
    writeFileSync(preload, `import { register } from "node:module";\nregister(${JSON.stringify(new URL(`file://${hook}`).href)});\n`);
    const p = project({ ".mcp.json": { mcpServers: { off: { command: "x", disabled: true } } } });
    const r = await agent(p, ["tools"], { nodeArgs: ["--import", preload] });
    expect(r.code).toBe(0);
    const loaded = readFileSync(record, "utf8");
    expect(loaded).toContain("/dist/cli.js");
    expect(loaded).not.toContain("@modelcontextprotocol/");
    // The same check sees the SDK when a server is enabled.
    writeFileSync(record, "");
    p.write(".mcp.json", { mcpServers: { demo } });
    await agent(p, ["tools"], { nodeArgs: ["--import", preload] });
    expect(readFileSync(record, "utf8")).toContain("@modelcontextprotocol/");
  });
});
