/**
 * What the client offers servers, through the built CLI: roots (the workspace's folders as file://
 * URIs, `--add-dir` included), sampling (the session's model, only with a yes: denied headless unless
 * the server's `"sampling": "allow"`, audited, tokens counted) and elicitation (headless: the form's
 * defaults, or a decline).
 */
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { PtySession } from "../../cli/pty.js";
import { startFakeOpenAI } from "../../fixtures/models/fake-openai.mjs";
import { agent, project } from "./_cli.js";
import { cleanup, FIXTURES, mcpHost } from "./_helpers.js";

const SERVER = { command: process.execPath, args: [path.join(FIXTURES, "client-features.mjs")] };
const servers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  await cleanup();
});

const call = (p: ReturnType<typeof project>, tool: string, extra: string[] = []) => agent(p, [...extra, "--permission-mode", "bypass", "call", `mcp__feat__${tool}`, "{}"]);

describe("MCP client features through the CLI", () => {
  it("roots: the project root and --add-dir folders, as file:// URIs", { timeout: 30_000 }, async () => {
    const p = project({ ".mcp.json": { mcpServers: { feat: SERVER } } });
    const extra = path.join(path.dirname(p.dir), "extra");
    mkdirSync(extra);
    const r = await call(p, "roots", ["--add-dir", extra]);
    expect(r.code).toBe(0);
    const { roots } = JSON.parse(r.stdout);
    expect(roots.map((x: { uri: string }) => x.uri)).toEqual([pathToFileURL(p.dir).href, pathToFileURL(extra).href]);
    expect(roots[0].name).toBe("project");
  });

  it("sampling: refused headless by default (the server is told why), sent to the model with \"allow\", audited", { timeout: 30_000 }, async () => {
    const srv = await startFakeOpenAI([{ text: "hello, server", usage: { input: 11, output: 3 } }]);
    servers.push(srv);
    const model = { model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } } };
    const asked = project({ ".agentrc.json": model, ".mcp.json": { mcpServers: { feat: SERVER } } });
    const denied = await call(asked, "ask_model");
    expect(denied.code).not.toBe(0);
    expect(denied.stdout + denied.stderr).toContain(`the user declined MCP server feat's sampling request (with no terminal to ask, set "sampling": "allow"`);
    expect(srv.requests).toHaveLength(0);

    const allowed = project({ ".agentrc.json": model, ".mcp.json": { mcpServers: { feat: { ...SERVER, sampling: "allow" } } } });
    const ok = await call(allowed, "ask_model");
    expect(ok.stdout).toContain("model openai:gpt-fake said: hello, server");
    expect(srv.requests).toHaveLength(1);
    expect(JSON.stringify(srv.requests[0].body.messages)).toContain("Say hello to the server");
    const audit = readFileSync(path.join(allowed.dir, ".agent/audit.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    expect(audit.find((a) => a.outcome === "sampling")).toMatchObject({ name: "feat", detail: { model: "openai:gpt-fake", approvedBy: "config", inputTokens: 11, outputTokens: 3 } });
  });
});

it("sampling: its tokens are added to the session's usage", { timeout: 30_000 }, async () => {
  const srv = await startFakeOpenAI([{ text: "counted", usage: { input: 20, output: 5 } }]);
  servers.push(srv);
  const host = await mcpHost({ feat: { ...SERVER, sampling: "allow" } }, { config: { model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "k" } } } as never });
  const before = { ...host.session.usage };
  expect((await host.tools.call("mcp__feat__ask_model", {})).output).toContain("said: counted");
  expect(host.session.usage).toEqual({ inputTokens: before.inputTokens + 20, outputTokens: before.outputTokens + 5 });
});

describe("asked in a terminal (a pseudo-terminal)", () => {
  it("elicitation: each field typed and checked against its schema; Enter keeps a default", { timeout: 30_000 }, async () => {
    const p = project({ ".mcp.json": { mcpServers: { feat: SERVER } } });
    const pty = new PtySession(p.dir, { ...process.env, AGENT_CONFIG_HOME: p.configHome }, ["--permission-mode", "bypass", "call", "mcp__feat__form", "{}"]);
    try {
      await pty.waitFor("MCP server feat asks: Who are you?");
      await pty.prompt();
      pty.type("y\r");
      await pty.waitFor("Name (string, required, at least 2 characters)");
      pty.type("A\r");
      await pty.waitFor("must NOT have fewer than 2 characters");
      pty.type("Ann\r");
      await pty.waitFor("Age (integer, required, ≥ 0, ≤ 150)");
      pty.type("old\r");
      await pty.waitFor("not a number");
      pty.type("200\r");
      await pty.waitFor("must be <= 150");
      pty.type("42\r");
      await pty.waitFor("3. blue");
      pty.type("\r");
      await pty.waitFor("Subscribe (boolean");
      pty.type("y\r");
      expect(await pty.exited).toBe(0);
      expect(pty.text).toContain('{"action":"accept","content":{"name":"Ann","age":42,"colour":"green","subscribe":true}}');
    } finally {
      pty.kill();
    }
  });

  it("sampling: the server named in the question; yes sends it to the model", { timeout: 30_000 }, async () => {
    const srv = await startFakeOpenAI([{ text: "hi from the model" }]);
    servers.push(srv);
    const p = project({ ".agentrc.json": { model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } } }, ".mcp.json": { mcpServers: { feat: SERVER } } });
    const pty = new PtySession(p.dir, { ...process.env, AGENT_CONFIG_HOME: p.configHome }, ["--permission-mode", "bypass", "call", "mcp__feat__ask_model", "{}"]);
    try {
      await pty.waitFor('MCP server feat asks to use the model (sampling, up to 50 tokens): "Say hello to the server"');
      await pty.prompt();
      pty.type("y\r");
      expect(await pty.exited).toBe(0);
      expect(pty.text).toContain("model openai:gpt-fake said: hi from the model");
    } finally {
      pty.kill();
    }
  });
});
