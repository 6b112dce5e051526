import { describe, expect, it } from "vitest";
import { DEFAULT_CONNECT_TIMEOUT_MS, isPlainStdioEntry, McpServerConfigSchema, parseServers } from "../../../plugins/mcp/config.js";
import { expandVars } from "../../../plugins/mcp/config/expand.js";

const root = "/project";
const env = { HOME: "/home/me", TOKEN: "t0k", EMPTY: "" };

describe("MCP server config", () => {
  it("reads the stdio and remote shapes other clients write", () => {
    const { servers, problems } = parseServers(
      {
        fs: { command: "npx", args: ["-y", "server", "${HOME}/docs"], env: { KEY: "${TOKEN}" }, cwd: "sub" },
        remote: { url: "https://example.com/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
        legacy: { type: "sse", url: "http://127.0.0.1:9/sse" },
        gemini: { httpUrl: "http://127.0.0.1:9/mcp", timeout: 5000 },
      },
      { root, env },
    );
    expect(problems).toEqual([]);
    const [fs, remote, legacy, gemini] = servers;
    expect(fs).toMatchObject({ transport: "stdio", command: "npx", args: ["-y", "server", "/home/me/docs"], env: { KEY: "t0k" }, cwd: "/project/sub" });
    expect(fs.connectTimeout).toBe(DEFAULT_CONNECT_TIMEOUT_MS);
    expect(remote).toMatchObject({ transport: "auto", url: "https://example.com/mcp", headers: { Authorization: "Bearer t0k" } });
    expect(legacy.transport).toBe("sse");
    expect(gemini).toMatchObject({ transport: "http", toolTimeout: 5000 });
  });

  it("reads oauth (Claude Code's clientId, callbackPort, scopes, plus ours), sampling and roots; checks what a grant needs", () => {
    const { servers, problems } = parseServers(
      {
        pre: { url: "https://a.example/mcp", oauth: { clientId: "cli", clientSecret: "${TOKEN}", callbackPort: 8976, scopes: "read write" }, sampling: "allow", roots: false },
        plain: { url: "https://b.example/mcp" },
        ownToken: { url: "https://c.example/mcp", headers: { authorization: "Bearer x" } },
        off: { url: "https://d.example/mcp", oauth: false },
        m2m: { url: "https://e.example/mcp", oauth: { grant: "client_credentials", clientId: "bot" } },
        local: { command: "x", oauth: { clientId: "y" } },
      },
      { root, env },
    );
    const byName = Object.fromEntries(servers.map((s) => [s.name, s]));
    expect(byName.pre).toMatchObject({ oauth: { clientId: "cli", clientSecret: "t0k", callbackPort: 8976, scopes: "read write", grant: "authorization_code" }, sampling: "allow", roots: false });
    // Without an oauth key, a remote server is authorized by OAuth when it answers 401...
    expect(byName.plain).toMatchObject({ oauth: { grant: "authorization_code" }, sampling: "ask", roots: true });
    // ...unless you give it its own Authorization header, or say "oauth": false.
    expect(byName.ownToken.oauth).toBe(false);
    expect(byName.off.oauth).toBe(false);
    expect(byName.local.oauth).toBe(false);
    expect(problems.map((p) => [p.server, p.fatal, p.message])).toEqual([
      ["m2m", true, 'mcpServers.m2m.oauth: the client_credentials grant needs "clientId" and "clientSecret" or "privateKey"'],
      ["local", false, "mcpServers.local.oauth: only remote (url) servers use OAuth; ignored"],
    ]);
    const bad = parseServers({ s: { url: "https://a.example/mcp", oauth: { clientID: "x" } } }, { root, env });
    expect(bad.problems[0].message).toMatch(/^mcpServers\.s\.oauth: expected false, or an object with clientId/);
  });

  it("expands ${VAR} and ${VAR:-default}", () => {
    expect(expandVars("${TOKEN}-${MISSING:-dflt}-${EMPTY:-e}", env)).toEqual({ value: "t0k-dflt-e", missing: [] });
    expect(expandVars("a${MISSING}b", env)).toEqual({ value: "ab", missing: ["MISSING"] });
  });

  it("warns about unset variables and likely typos but still loads the server", () => {
    const { servers, problems } = parseServers({ s: { command: "x", arg: ["y"], env: { A: "${NOPE}" } } }, { root, env });
    expect(servers).toHaveLength(1);
    expect(problems.map((p) => [p.fatal, p.message])).toEqual([
      [false, 'mcpServers.s.arg: unknown key (ignored); did you mean "args"?'],
      [false, "mcpServers.s.env.A: ${NOPE} is not set; it was replaced by an empty string"],
    ]);
  });

  it("reports bad entries per server with the key path and what was expected, and keeps the others", () => {
    const { servers, problems } = parseServers(
      {
        good: { command: "node" },
        none: {},
        both: { command: "x", url: "http://x" },
        args: { command: "x", args: "npx -y foo" },
        item: { command: "x", args: ["ok", { no: 1 }] },
        timeout: { command: "x", connectTimeout: -5 },
        url: { url: "ftp://x" },
        risk: { command: "x", risk: { search: "safe" } },
        notObject: "npx foo",
      },
      { root, env },
    );
    expect(servers.map((s) => s.name)).toEqual(["good"]);
    const byServer = Object.fromEntries(problems.map((p) => [p.server, p.message]));
    expect(byServer.none).toBe('mcpServers.none: needs "command" (a local server started over stdio) or "url" (a remote HTTP/SSE server)');
    expect(byServer.both).toMatch(/^mcpServers\.both: has both "command" and "url"/);
    expect(byServer.args).toBe('mcpServers.args.args: expected an array of strings, got the string "npx -y foo"');
    expect(byServer.item).toBe("mcpServers.item.args[1]: expected a string, got an object");
    expect(byServer.timeout).toBe("mcpServers.timeout.connectTimeout: expected a positive whole number of milliseconds, got the number -5");
    expect(byServer.url).toBe('mcpServers.url.url: expected an http(s) URL, got the string "ftp://x"');
    expect(byServer.risk).toBe('mcpServers.risk.risk.search: expected "read", "write", "execute" or "network", got the string "safe"');
    expect(byServer.notObject).toMatch(/^mcpServers\.notObject: expected an object like/);
    expect(problems.every((p) => p.fatal)).toBe(true);
  });

  it("refuses numbers and booleans in args, env and headers, naming the key (JSON keeps no text for them: 1.0 would become \"1\")", () => {
    const { servers, problems } = parseServers(
      {
        args: { command: "x", args: ["--port", 8080] },
        env: { command: "x", env: { N: 1.0, OK: "1" } },
        headers: { url: "http://127.0.0.1:9/mcp", headers: { "X-Debug": true } },
        fine: { command: "x", args: ["--port", "8080"], env: { N: "1.0" } },
      },
      { root, env },
    );
    expect(servers.map((s) => [s.name, s.args, s.env])).toEqual([["fine", ["--port", "8080"], { N: "1.0" }]]);
    expect(problems.map((p) => [p.server, p.fatal, p.message])).toEqual([
      ["args", true, "mcpServers.args.args[1]: expected a string, got the number 8080 (put it in quotes: a number is not passed on as written)"],
      ["env", true, "mcpServers.env.env.N: expected a string, got the number 1 (put it in quotes: a number is not passed on as written)"],
      ["headers", true, 'mcpServers.headers.headers.X-Debug: expected a string, got boolean true (put it in quotes: a boolean is not passed on as written)'],
    ]);
  });

  it("reads trust: true (Gemini CLI's key, taken here to mean: believe this server's hints about its tools)", () => {
    const { servers, problems } = parseServers({ t: { command: "x", trust: true }, u: { command: "x" }, bad: { command: "x", trust: "yes" } }, { root, env });
    expect(servers.map((s) => [s.name, s.trust])).toEqual([["t", true], ["u", false]]);
    expect(problems.map((p) => p.message)).toEqual(['mcpServers.bad.trust: expected true or false, got the string "yes"']);
  });
});

describe("the shortcut past zod for plain stdio entries", () => {
  const plain: object[] = [
    { command: "node" },
    { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], env: { MEMORY_FILE_PATH: "/tmp/m.jsonl" } },
    { type: "stdio", command: "uvx", args: [], env: {}, cwd: "tools" },
  ];
  const near: unknown[] = [
    { command: "" },
    { command: 1 },
    { command: "node", args: ["a", 1] },
    { command: "node", args: "a b" },
    { command: "node", args: [, "x"] },
    { command: "node", env: { A: 1 } },
    { command: "node", env: ["A"] },
    { command: "node", env: JSON.parse('{"__proto__": "x"}') },
    { command: "node", cwd: "" },
    { command: "node", type: "http" },
    { command: "node", disabled: true },
    { command: "node", comand: "typo" },
    { url: "http://127.0.0.1:9/mcp" },
    Object.assign(Object.create({ inherited: 1 }), { command: "node" }),
  ];

  it("takes only entries McpServerConfigSchema accepts as they are", () => {
    for (const e of plain) {
      expect(isPlainStdioEntry(e), JSON.stringify(e)).toBe(true);
      expect(McpServerConfigSchema.safeParse(e)).toEqual({ success: true, data: e });
    }
    for (const e of near) expect(isPlainStdioEntry(e as object), JSON.stringify(e)).toBe(false);
  });

  it("gives the same servers and problems as the schema path", () => {
    const entries = Object.fromEntries([...plain, ...near].map((e, i) => [`s${i}`, e]));
    const viaShortcut = parseServers(entries, { root, env });
    // The same entries, each made to miss the shortcut by a key the schema passes through.
    const viaSchema = parseServers(Object.fromEntries(Object.entries(entries).map(([k, e]) => [k, { ...(e as object), "x-note": 1 }])), { root, env });
    expect(viaShortcut.servers).toEqual(viaSchema.servers);
    expect(viaShortcut.problems.filter((p) => !p.message.includes("x-note"))).toEqual(viaSchema.problems.filter((p) => !p.message.includes("x-note")));
  });
});
