/**
 * `agent mcp serve`, driven by the official MCP SDK client over real stdio and Streamable HTTP: the
 * registry listed with risk annotations, a permitted call, one the rules deny, one that needs approval
 * (asked of a client that can answer, denied with the rule to add for one that cannot), the client named
 * in the audit, prompts and skill resources, the HTTP token and Host checks.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { cleanEnv } from "../../helpers/cli.js";
import path from "node:path";
import { DIST_CLI, REPO_ROOT, assertBuilt } from "../../helpers/paths.js";
import { cleanupTemp, tempProject, type TempProject } from "../../helpers/project.js";

vi.setConfig({ testTimeout: 60_000 });
const clients: Client[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  for (const c of children.splice(0)) c.kill("SIGTERM");
});
afterAll(cleanupTemp);

function project(): TempProject {
  return tempProject({
    "notes.txt": "hello from notes\n",
    ".agentrc.json": { permissions: { deny: ["write_file(secret.txt)"] } },
    ".agent/commands/review.md": "---\ndescription: review a file\n---\nReview $ARGUMENTS carefully.\n",
    ".agent/skills/tidy/SKILL.md": "---\nname: tidy\ndescription: tidy the code\n---\nTidy the code: small functions.\n",
  });
}

async function stdioClient(p: TempProject, capabilities: Record<string, unknown> = {}, extraArgs: string[] = []): Promise<Client> {
  assertBuilt();
  const transport = new StdioClientTransport({ command: process.execPath, args: [DIST_CLI, "mcp", "serve", ...extraArgs], cwd: p.dir, env: cleanEnv({ AGENT_CONFIG_HOME: p.configHome }) as Record<string, string>, stderr: "pipe" });
  const client = new Client({ name: "test-client", version: "1.0.0" }, { capabilities });
  clients.push(client);
  await client.connect(transport);
  return client;
}

const audit = (p: TempProject) =>
  readFileSync(p.auditFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>)
    .filter((r) => r.kind === "call");

describe("agent mcp serve over stdio", () => {
  test("lists the registry with annotations from risk; a permitted call runs, a denied one is isError; the audit names the client", async () => {
    const p = project();
    const client = await stdioClient(p);
    expect(client.getServerVersion()?.name).toBe("agent-host");
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("read_file")?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get("write_file")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get("read_file")?.inputSchema).toMatchObject({ type: "object", properties: { path: expect.anything() } });

    const ok = await client.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
    expect(ok.isError).toBeFalsy();
    expect(JSON.stringify(ok.content)).toContain("hello from notes");

    const denied = await client.callTool({ name: "write_file", arguments: { path: "secret.txt", content: "x" } });
    expect(denied.isError).toBe(true);
    expect(JSON.stringify(denied.content)).toMatch(/deny rule/);

    const records = audit(p);
    expect(records.find((r) => r.name === "read_file")).toMatchObject({ outcome: "ok", caller: "test-client", decision: "allow" });
    expect(records.find((r) => r.name === "write_file")).toMatchObject({ outcome: "denied", caller: "test-client", decision: "deny" });
  });

  test("a call that needs approval: denied with the rule to add for a client that cannot answer", async () => {
    const p = project();
    const client = await stdioClient(p);
    const r = await client.callTool({ name: "write_file", arguments: { path: "out.txt", content: "x" } });
    expect(r.isError).toBe(true);
    expect(r.content).toEqual([{ type: "text", text: expect.stringMatching(/needs approval.*add "write_file\(\/?out\.txt\)" to permissions\.allow/) }]);
  });

  test("a call that needs approval is asked of a client that declares elicitation: accept runs it, decline denies it", async () => {
    const p = project();
    const client = await stdioClient(p, { elicitation: {} });
    const answers: string[] = ["allow_once", "decline"];
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(String(req.params.message));
      const next = answers.shift();
      return next === "decline" ? { action: "decline" } : { action: "accept", content: { decision: next } };
    });
    const allowed = await client.callTool({ name: "write_file", arguments: { path: "out.txt", content: "written" } });
    expect(allowed.isError).toBeFalsy();
    expect(readFileSync(p.path("out.txt"), "utf8")).toBe("written");
    const refused = await client.callTool({ name: "write_file", arguments: { path: "out2.txt", content: "no" } });
    expect(refused.isError).toBe(true);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toContain("write_file(out.txt)");
    expect(audit(p).find((r) => r.name === "write_file" && r.outcome === "ok")).toMatchObject({ by: "user:once", caller: "test-client" });
  });

  test("Markdown commands are prompts; skills are skill:// resources", async () => {
    const p = project();
    const client = await stdioClient(p);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((x) => x.name)).toContain("review");
    const got = await client.getPrompt({ name: "review", arguments: { arguments: "src/a.ts" } });
    expect(got.messages[0]).toMatchObject({ role: "user", content: { type: "text", text: expect.stringContaining("Review src/a.ts carefully.") } });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain("skill://tidy/SKILL.md");
    const read = await client.readResource({ uri: "skill://tidy/SKILL.md" });
    expect(JSON.stringify(read.contents)).toContain("small functions");
  });
});

describe("progress and cancellation", () => {
  test("an MCP server's progress reaches the client; a cancelled call ends aborted in the audit", async () => {
    const everything = path.join(REPO_ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    const p = tempProject({ ".agentrc.json": { mcpServers: { ev: { command: process.execPath, args: [everything, "stdio"] } }, permissions: { allow: ["mcp__ev__*"] } } });
    const client = await stdioClient(p);
    const progress: number[] = [];
    const r = await client.callTool({ name: "mcp__ev__trigger-long-running-operation", arguments: { duration: 1, steps: 3 } }, undefined, { onprogress: (x) => progress.push(x.progress) });
    expect(r.isError).toBeFalsy();
    expect(progress).toEqual([1, 2, 3]);

    const controller = new AbortController();
    const cancelled = client.callTool({ name: "mcp__ev__trigger-long-running-operation", arguments: { duration: 30, steps: 30 } }, undefined, { signal: controller.signal, onprogress: () => controller.abort() });
    await expect(cancelled).rejects.toThrow();
    await vi.waitFor(() => expect(audit(p).find((x) => x.name === "mcp__ev__trigger-long-running-operation" && x.outcome === "aborted")).toBeDefined(), { timeout: 20_000 });
  });
});

describe("loop guard", () => {
  test("a configured server that is agent-host serving is neither started nor served; other servers' tools are", async () => {
    const memory = path.join(REPO_ROOT, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    const p = tempProject({
      ".agentrc.json": {
        mcpServers: {
          self: { command: process.execPath, args: [DIST_CLI, "mcp", "serve"] },
          mem: { command: process.execPath, args: [memory], env: { MEMORY_FILE_PATH: "memory.jsonl" } },
        },
      },
    });
    const client = await stdioClient(p);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("mcp__mem__read_graph");
    expect(names.some((n) => n.startsWith("mcp__self__"))).toBe(false);
    expect(names).toContain("read_file");
  });
});

/** Start `agent mcp serve --http 127.0.0.1:0` and read the address and token it prints. */
async function httpServer(p: TempProject): Promise<{ url: string; token: string }> {
  assertBuilt();
  const child = spawn(process.execPath, [DIST_CLI, "mcp", "serve", "--http", "127.0.0.1:0"], { cwd: p.dir, env: cleanEnv({ AGENT_CONFIG_HOME: p.configHome }), stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let err = "";
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      err += d;
      const url = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)?.[1];
      const token = /Bearer (\S+)/.exec(err)?.[1];
      if (url && token) resolve({ url, token });
    });
    child.on("exit", (code) => reject(new Error(`agent mcp serve --http exited ${code}: ${err}`)));
  });
}

describe("agent mcp serve --http", () => {
  test("with the token a client lists and calls; without it, or with a foreign Host, it is refused", async () => {
    const p = project();
    const { url, token } = await httpServer(p);
    const client = new Client({ name: "http-client", version: "1.0.0" });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    expect((await client.listTools()).tools.some((t) => t.name === "read_file")).toBe(true);
    const r = await client.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
    expect(JSON.stringify(r.content)).toContain("hello from notes");
    expect(audit(p).find((x) => x.name === "read_file")).toMatchObject({ caller: "http-client" });

    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    expect((await fetch(url, { method: "POST", headers, body })).status).toBe(401);
    expect((await fetch(url, { method: "POST", headers: { ...headers, authorization: "Bearer wrong" }, body })).status).toBe(401);
    const port = new URL(url).port;
    const rebound = await new Promise<number>((resolve, reject) => {
      // fetch does not let a page (or a test) set Host; a raw request does, as a rebinding attack's would arrive.
      import("node:http").then(({ request }) => {
        const req = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { ...headers, host: `evil.example:${port}`, authorization: `Bearer ${token}` } }, (res) => resolve(res.statusCode ?? 0));
        req.on("error", reject);
        req.end(body);
      });
    });
    expect(rebound).toBe(403);
  });

  test("--http refuses a non-loopback address", async () => {
    const p = project();
    const { runCli } = await import("../../helpers/cli.js");
    const r = await runCli(["mcp", "serve", "--http", "0.0.0.0:8123"], { cwd: p.dir, configHome: p.configHome });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/loopback address only/);
  });
});
