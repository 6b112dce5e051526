/**
 * OAuth for remote MCP servers through the built CLI, against the project's own authorization-server
 * fixture (tests/fixtures/oauth/server.mjs: metadata discovery, dynamic registration or a
 * pre-registered client, PKCE, refresh, expiry, 403 step-up, client_credentials). The browser is
 * tests/conformance/browser.mjs (BROWSER), which follows the redirects as an approving user would.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PtySession } from "../../cli/pty.js";
import { agent, project, type Project } from "./_cli.js";
import { cleanup, REPO, startServer } from "./_helpers.js";

const FIXTURE = path.join(REPO, "tests/fixtures/oauth/server.mjs");
const BROWSER = `${process.execPath} ${path.join(REPO, "tests/conformance/browser.mjs")}`;

afterAll(cleanup);

async function oauthServer(...flags: string[]) {
  const { port } = await startServer([FIXTURE, ...flags], /listening (\d+)/);
  const base = `http://127.0.0.1:${port}`;
  return { url: `${base}/mcp`, stats: async () => (await fetch(`${base}/stats`)).json() as Promise<Record<string, any>>, expire: () => fetch(`${base}/expire`) };
}

function withServer(url: string, oauth?: object): Project {
  return project({ ".mcp.json": { mcpServers: { remote: { type: "http", url, ...(oauth ? { oauth } : {}) } } } });
}

const tokenFiles = (p: Project) => readdirSync(path.join(p.configHome, "mcp-oauth")).map((f) => path.join(p.configHome, "mcp-oauth", f));

describe("MCP OAuth through the CLI", () => {
  it("headless: needs login, named; login (dynamic registration, PKCE) stores tokens 0600; calls work; logout forgets", { timeout: 60_000 }, async () => {
    const s = await oauthServer();
    const p = withServer(s.url);
    const before = await agent(p, ["mcp", "list"]);
    expect(before.stdout).toMatch(/remote\s+http\s+-\s+needs login/);
    const call = await agent(p, ["--permission-mode", "bypass", "call", "mcp__remote__whoami", "{}"]);
    expect(call.code).not.toBe(0);
    expect(call.stderr + call.stdout).toContain("agent mcp login remote");

    const login = await agent(p, ["mcp", "login", "remote"], { env: { BROWSER } });
    expect(login.stderr).toContain("/authorize?");
    // The scope of the 401's WWW-Authenticate, not every scope the server supports (SEP-835).
    expect(login.stdout).toMatch(/Logged in to remote \(scope mcp:read\), until /);
    const stats = await s.stats();
    expect(stats.registrations).toBe(1);
    expect(stats.authorizations[0]).toMatchObject({ code_challenge_method: "S256", resource: s.url, client_id: "dyn-1" });

    const [file] = tokenFiles(p);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(readFileSync(file, "utf8"));
    expect(stored.tokens.access_token).toMatch(/^at-/);
    // Never in the project: not in .mcp.json, not in the audit log.
    expect(readFileSync(path.join(p.dir, ".mcp.json"), "utf8")).not.toContain(stored.tokens.access_token);

    const ok = await agent(p, ["--permission-mode", "bypass", "call", "mcp__remote__whoami", "{}"]);
    expect(ok.stdout).toContain("scopes: mcp:read");
    const list = await agent(p, ["mcp", "list"]);
    expect(list.stdout).toMatch(/remote\s+http\s+\S+\s+connected\s+3\s+authorized \(60 min left\)/);
    // A server that echoes the token back: the audit log has it redacted.
    await agent(p, ["--permission-mode", "bypass", "call", "mcp__remote__echo_token", "{}"]);
    const audit = readFileSync(path.join(p.dir, ".agent/audit.jsonl"), "utf8");
    expect(audit).toContain("bad token [REDACTED:mcpServers.remote.oauth.access_token]");
    expect(audit).not.toContain(stored.tokens.access_token);
    expect(audit).not.toContain(stored.tokens.refresh_token);

    const out = await agent(p, ["mcp", "logout", "remote"]);
    expect(out.stdout).toContain("Logged out of remote");
    expect(tokenFiles(p)).toEqual([]);
    expect((await agent(p, ["mcp", "list"])).stdout).toMatch(/needs login/);
    // Logging out again (after a listing that found the server's metadata): nothing was logged in, and it says so.
    const again = await agent(p, ["mcp", "logout", "remote"]);
    expect(again.stdout).toBe("remote had no stored login.\n");
  });

  it("an expired token is refreshed before connecting, without a login", { timeout: 60_000 }, async () => {
    const s = await oauthServer("--expires", "30");
    const p = withServer(s.url);
    expect((await agent(p, ["mcp", "login", "remote"], { env: { BROWSER } })).code).toBe(0);
    const first = JSON.parse(readFileSync(tokenFiles(p)[0], "utf8")).tokens.access_token;
    // 30 s left is inside the refresh margin: the next command refreshes first.
    const ok = await agent(p, ["--permission-mode", "bypass", "call", "mcp__remote__whoami", "{}"]);
    expect(ok.code).toBe(0);
    const grants = (await s.stats()).grants.map((g: { grant: string }) => g.grant);
    expect(grants).toEqual(["authorization_code", "refresh_token"]);
    expect(JSON.parse(readFileSync(tokenFiles(p)[0], "utf8")).tokens.access_token).not.toBe(first);
    expect(readFileSync(path.join(p.dir, ".agent/logs/mcp-remote.log"), "utf8")).toContain("was refreshed");
  });

  it("a pre-registered client (no dynamic registration), and a step-up on 403 insufficient_scope", { timeout: 60_000 }, async () => {
    const s = await oauthServer("--no-dcr");
    const p = withServer(s.url, { clientId: "pre-client", clientSecret: "pre-secret-0123456789", scopes: "mcp:read" });
    expect((await agent(p, ["mcp", "login", "remote"], { env: { BROWSER } })).stdout).toContain("scope mcp:read)");
    const stats = await s.stats();
    expect(stats.registrations).toBe(0);
    expect(stats.grants[0]).toMatchObject({ grant: "authorization_code", method: "client_secret_basic", client_id: "pre-client" });
    // The client secret from the config never lands in the token store.
    expect(readFileSync(tokenFiles(p)[0], "utf8")).not.toContain("pre-secret-0123456789");
    const denied = await agent(p, ["--permission-mode", "bypass", "call", "mcp__remote__admin_tool", "{}"]);
    expect(denied.code).not.toBe(0);
    expect(denied.stdout + denied.stderr).toContain("needs authorization (scope mcp:read mcp:admin): run `agent mcp login remote`");
    // The next login asks for the scope the server wanted (the configured scopes would win: none here).
    const p2 = withServer(s.url, { clientId: "pre-client", clientSecret: "pre-secret-0123456789" });
    expect((await agent(p2, ["mcp", "login", "remote"], { env: { BROWSER } })).code).toBe(0);
    const again = await agent(p2, ["--permission-mode", "bypass", "call", "mcp__remote__admin_tool", "{}"]);
    expect(again.stdout + again.stderr).toContain("needs authorization (scope mcp:read mcp:admin)");
    expect((await agent(p2, ["mcp", "login", "remote"], { env: { BROWSER } })).stdout).toContain("(scope mcp:read mcp:admin)");
    expect((await agent(p2, ["--permission-mode", "bypass", "call", "mcp__remote__admin_tool", "{}"])).stdout).toContain("admin done");
  });

  it("client_credentials: no browser, authorized on connect", { timeout: 60_000 }, async () => {
    const s = await oauthServer();
    const p = withServer(s.url, { grant: "client_credentials", clientId: "pre-client", clientSecret: "pre-secret-0123456789" });
    const ok = await agent(p, ["--permission-mode", "bypass", "call", "mcp__remote__whoami", "{}"]);
    expect(ok.stdout).toContain("scopes: mcp:read");
    expect((await s.stats()).grants).toMatchObject([{ grant: "client_credentials", client_id: "pre-client" }]);
    expect((await agent(p, ["mcp", "list"])).stdout).toMatch(/client credentials/);
  });

  it("in a terminal, a server that needs a login offers it; yes logs in and the call goes on", { timeout: 60_000 }, async () => {
    const s = await oauthServer();
    const p = withServer(s.url);
    const pty = new PtySession(p.dir, { ...process.env, AGENT_CONFIG_HOME: p.configHome, BROWSER }, ["--permission-mode", "bypass", "call", "mcp__remote__whoami", "{}"]);
    try {
      await pty.waitFor("MCP server remote needs authorization. Log in now? (opens the browser)");
      await pty.prompt();
      pty.type("y\r");
      expect(await pty.exited).toBe(0);
      expect(pty.text).toContain("scopes: mcp:read");
      expect(tokenFiles(p)).toHaveLength(1);
    } finally {
      pty.kill();
    }
  });
});
