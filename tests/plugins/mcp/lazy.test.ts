/**
 * Servers start when their tools are needed, through the built CLI with real stdio servers: a local
 * call starts none, an MCP call starts its own server only, a run with a warm tool cache sends its
 * first request before a slow server is up, `agent tools` with warm caches starts none and loads no SDK code, a cold one waits a bounded time and tells the model, and a
 * cached tool the server no longer has gives an error the model can act on.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { startFake, toolResults, type FakeServer } from "../../core/loop-helpers.js";
import { runCli } from "../../helpers/cli.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { cleanupTemp, tempProject, userMcpCache, type TempProject } from "../../helpers/project.js";

afterAll(cleanupTemp);
const SLOW = path.join(REPO_ROOT, "tests", "fixtures", "mcp", "slow-start.mjs");

let srv: FakeServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

/** A project with servers a, b, c (slow-start.mjs, each with its own ready file). */
function project(config: Record<string, unknown> = {}): TempProject {
  const p = tempProject();
  const server = (name: string) => ({ command: process.execPath, args: [SLOW], env: { READY_FILE: p.path(`ready-${name}`), SLOW_START_MS: "${SLOW_START_MS:-0}", TOOLS: "${TOOLS:-echo}" } });
  p.write(".mcp.json", { mcpServers: { a: server("a"), b: server("b"), c: server("c") } });
  p.write(".agentrc.json", { permissions: { mode: "bypass" }, ...config });
  return p;
}
const started = (p: TempProject) => ["a", "b", "c"].filter((n) => existsSync(p.path(`ready-${n}`)));
const cli = (p: TempProject, args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: p.dir, configHome: p.configHome, env });

describe("what starts", () => {
  test("a local tool call starts no server; an MCP call starts its own server only, and caches its tools", async () => {
    const p = project();
    const local = await cli(p, ["call", "read_file", '{"path":"package.json"}']);
    expect(local.code, local.stderr).toBe(0);
    expect(started(p)).toEqual([]);
    expect(existsSync(p.path(".agent/logs"))).toBe(false);

    const mcp = await cli(p, ["call", "mcp__b__echo", '{"text":"hi"}']);
    expect(mcp.code, mcp.stderr).toBe(0);
    expect(mcp.stdout).toBe("echo:hi\n");
    expect(started(p)).toEqual(["b"]);
    expect(readdirSync(p.path(".agent/cache/mcp")).filter((f) => f.startsWith("b-"))).toHaveLength(1);
  });

  test("agent tools and agent mcp list start every server; the listing shows the cache", async () => {
    const p = project();
    const tools = await cli(p, ["tools"]);
    expect(tools.stdout).toMatch(/mcp__c__echo/);
    expect(started(p)).toEqual(["a", "b", "c"]);
    const list = JSON.parse((await cli(p, ["mcp", "list", "--json"])).stdout) as { name: string; status: string; cache: { state: string } }[];
    expect(list.map((s) => [s.name, s.status, s.cache.state])).toEqual([
      ["a", "connected", "warm"],
      ["b", "connected", "warm"],
      ["c", "connected", "warm"],
    ]);
  });
});

/** A `--import` preload whose loader hook records every module URL the process resolves, into `record`. */
function recordingLoads(p: TempProject): { nodeOptions: string; loaded(): string } {
  const record = p.path("loaded.txt");
  const hook = p.path("hook.mjs");
  writeFileSync(hook, `import { appendFileSync } from "node:fs";\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(record)}, r.url + "\\n"); return r; }\n`);
  writeFileSync(p.path("preload.mjs"), `import { register } from "node:module";\nregister(${JSON.stringify(new URL(`file://${hook}`).href)});\n`);
  writeFileSync(record, "");
  return { nodeOptions: `--import ${p.path("preload.mjs")}`, loaded: () => readFileSync(record, "utf8") };
}

describe("agent tools with warm tool caches", () => {
  test("lists every server's cached tools, starts none and loads no SDK code; a server without a cache is started", async () => {
    const p = project();
    expect((await cli(p, ["tools"])).code).toBe(0);
    expect(started(p)).toEqual(["a", "b", "c"]);
    for (const n of ["a", "b", "c"]) rmSync(p.path(`ready-${n}`));

    const loads = recordingLoads(p);
    const warm = await cli(p, ["tools", "--json"], { NODE_OPTIONS: loads.nodeOptions });
    expect(warm.code, warm.stderr).toBe(0);
    expect((JSON.parse(warm.stdout) as { name: string }[]).map((t) => t.name).filter((n) => n.startsWith("mcp__"))).toEqual(["mcp__a__echo", "mcp__b__echo", "mcp__c__echo"]);
    expect(started(p)).toEqual([]);
    // The hook saw the CLI load (so it works), and nothing of the SDK or its validator.
    expect(loads.loaded()).toContain("/dist/cli.js");
    expect(loads.loaded()).not.toContain("@modelcontextprotocol/");
    expect(loads.loaded()).not.toMatch(/node_modules\/ajv/);

    // A listing leaves no .agent/: the caches are in the user's cache folder, in this project's own folder.
    expect(existsSync(p.path(".agent"))).toBe(false);
    const cache = userMcpCache(p.dir);
    expect(readdirSync(cache).filter((f) => /^[abc]-[0-9a-f]{8}\.json$/.test(f))).toHaveLength(3);
    // A server whose cache is gone is started (and only that one); the others still list from the cache.
    for (const f of readdirSync(cache).filter((f) => f.startsWith("b-"))) rmSync(path.join(cache, f));
    const cold = await cli(p, ["tools"]);
    expect(cold.stdout).toMatch(/mcp__a__echo[\s\S]*mcp__b__echo[\s\S]*mcp__c__echo/);
    expect(started(p)).toEqual(["b"]);
  });
});

describe("agent run", () => {
  test("warm cache: the first request goes out with the cached tools before the slow server is up", async () => {
    const p = project({ toolSearch: { mode: "off" } });
    expect((await cli(p, ["mcp", "list"])).code).toBe(0); // warms the cache (SLOW_START_MS 0)
    let readyWhenAsked: string[] | undefined;
    srv = await startFake("openai", [
      () => {
        readyWhenAsked = ["a", "b", "c"].filter((n) => readFileSync(p.path(`ready-${n}`), "utf8").split("\n").filter(Boolean).length > 1);
        return { text: "done" };
      },
    ]);
    p.write(".agentrc.json", { model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "k" } }, toolSearch: { mode: "off" } });
    const r = await cli(p, ["run", "-p", "hi"], { SLOW_START_MS: "4000" });
    expect(r.code, r.stderr).toBe(0);
    // None of the second starts had answered when the model was asked, yet their tools were offered.
    expect(readyWhenAsked).toEqual([]);
    const names = (srv.requests[0].body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    expect(names).toEqual(expect.arrayContaining(["mcp__a__echo", "mcp__b__echo", "mcp__c__echo", "read_file"]));
  });

  test("cold cache: the first request waits at most tools.loadWaitMs, and the model is told what is still loading", async () => {
    const p = project();
    srv = await startFake("openai", [
      { text: "Waiting.", toolCalls: [{ id: "w", name: "run_command", arguments: { command: "sleep 2" } }] },
      { text: "done" },
    ]);
    p.write(".agentrc.json", { model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "k" } }, permissions: { mode: "bypass" }, tools: { loadWaitMs: 100 }, toolSearch: { mode: "off" } });
    const r = await cli(p, ["run", "-p", "hi"], { SLOW_START_MS: "1000" });
    expect(r.code, r.stderr).toBe(0);
    const [first, second] = srv.requests.map((q) => q.body as { tools: { function: { name: string } }[]; messages: { content: unknown }[] });
    expect(JSON.stringify(first.messages[0])).toContain("Tools still loading (they join a later turn): mcp:a, mcp:b, mcp:c.");
    expect(first.tools.map((t) => t.function.name).some((n) => n.startsWith("mcp__"))).toBe(false);
    expect(second.tools.map((t) => t.function.name)).toEqual(expect.arrayContaining(["mcp__a__echo", "mcp__b__echo", "mcp__c__echo"]));
    expect(JSON.stringify(second.messages[0])).not.toContain("Tools still loading");
  });
});

test("a cached tool the server no longer has: the model's call says so, and the live list replaces the cached one", async () => {
  const p = project({ toolSearch: { mode: "off" } });
  expect((await cli(p, ["mcp", "list"], { TOOLS: "echo,old" })).code).toBe(0); // the cache lists old
  srv = await startFake("openai", [{ text: "", toolCalls: [{ id: "o", name: "mcp__a__old", arguments: { text: "x" } }] }, { text: "done" }]);
  p.write(".agentrc.json", { model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "k" } }, permissions: { mode: "bypass" }, toolSearch: { mode: "off" } });
  const r = await cli(p, ["run", "-p", "hi"], { TOOLS: "echo" });
  expect(r.code, r.stderr).toBe(0);
  const [first, second] = srv.requests.map((q) => q.body as { tools: { function: { name: string } }[] });
  // The first request offered the cached tool; the call got an answer the model can act on.
  expect(first.tools.map((t) => t.function.name)).toContain("mcp__a__old");
  expect(toolResults("openai", srv.requests[1])[0]).toMatchObject({
    id: "o",
    content: "Error: Tool mcp__a__old is no longer offered by MCP server a (it was in the cached list of its tools); the current tools are registered now.",
    isError: true,
  });
  expect(second.tools.map((t) => t.function.name)).not.toContain("mcp__a__old");
  // The run set up before its audit log made .agent/: it read and rewrote the user's cache, which holds the live list now.
  const entry = readdirSync(userMcpCache(p.dir)).find((f) => f.startsWith("a-"))!;
  expect((JSON.parse(readFileSync(path.join(userMcpCache(p.dir), entry), "utf8")) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(["echo"]);
  expect(existsSync(p.path(".agent/cache"))).toBe(false);
  // A call by hand does not find the tool at all.
  const again = await cli(p, ["call", "mcp__a__old", '{"text":"x"}']);
  expect(again.code).toBe(2);
  expect(again.stderr).toContain('Unknown tool "mcp__a__old"');
});
