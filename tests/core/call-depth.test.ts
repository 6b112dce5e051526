/**
 * Calls made from inside a tool nest at most MAX_CALL_DEPTH (8) deep: a plugin tool that calls itself
 * through the `host.tools.call` its ctx gave it (or two that call each other, or a hook that calls a
 * tool) ends with an `E_TOOL_DEPTH` error result, audited like any call, instead of recursing until
 * the process holds gigabytes. Independent callers, parallel ones included, never share a depth.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import type { PluginContext, ToolResult } from "../../core/index.js";
import { MAX_CALL_DEPTH } from "../../core/gate/gate.js";
import { cleanEnv, runCli } from "../helpers/cli.js";
import { closeHosts, testHost } from "../helpers/host.js";
import { assertBuilt, DIST_CLI } from "../helpers/paths.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const schema = { type: "object", properties: { n: { type: "number" } } } as const;

/** A plugin whose tools get `host` from their setup ctx, as a plugin author would write it. */
function recursing(tools: (host: PluginContext["host"]) => { name: string; run: (args: any) => Promise<unknown> }[]) {
  return {
    name: "recursing",
    setup(ctx: PluginContext) {
      for (const t of tools(ctx.host)) ctx.tools.add({ description: t.name, risk: "read", inputSchema: schema, ...t } as never);
    },
  };
}

describe("a tool calling tools from its run", () => {
  test(`a tool that calls itself: the call ${MAX_CALL_DEPTH + 1} levels deep is refused with E_TOOL_DEPTH, nothing of it runs, and it is audited`, async () => {
    expect(MAX_CALL_DEPTH).toBe(8);
    const ran: number[] = [];
    const { host, audit } = await testHost({
      plugins: [
        recursing((h) => [
          {
            name: "self",
            run: async ({ n = 1 }) => {
              ran.push(n);
              const r = await h.tools.call("self", { n: n + 1 });
              return r.ok ? r.output : `level ${n} got ${r.error?.code}: ${r.output}`;
            },
          },
        ]),
      ],
    });
    const r = await host.tools.call("self", {});
    expect(r.ok).toBe(true);
    expect(r.output).toMatch(/^level 8 got E_TOOL_DEPTH: Call to self refused: it was made from inside 8 nested tool calls/);
    expect(ran).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await expect.poll(() => audit().filter((a) => a.kind === "call" && a.name === "self").length).toBe(9);
    const records = audit().filter((a) => a.kind === "call" && a.name === "self");
    const refused = records.filter((a) => a.outcome === "error");
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ args: { n: 9 }, error: expect.stringContaining("refused") });
    // The depth is not left behind: the next call from outside starts at the top again.
    ran.length = 0;
    expect((await host.tools.call("self", {})).output).toMatch(/^level 8 got E_TOOL_DEPTH/);
    expect(ran).toHaveLength(8);
  });

  test("mutual recursion (A → B → A …) counts too; the refusal reaches the top as the tool's own error when it throws it on", async () => {
    const calls: string[] = [];
    const rethrow = (r: ToolResult) => {
      if (!r.ok) throw Object.assign(new Error(r.output), { code: r.error?.code });
      return r.output;
    };
    const { host } = await testHost({
      plugins: [
        recursing((h) => [
          { name: "ping", run: async () => (calls.push("ping"), rethrow(await h.tools.call("pong", {}))) },
          { name: "pong", run: async () => (calls.push("pong"), rethrow(await h.tools.call("ping", {}))) },
        ]),
      ],
    });
    const r = await host.tools.call("ping", {});
    expect(r).toMatchObject({ ok: false, outcome: "error", error: { code: "E_TOOL_DEPTH" } });
    expect(r.output).toContain("Call to ping refused");
    expect(calls).toEqual(["ping", "pong", "ping", "pong", "ping", "pong", "ping", "pong"]);
  });

  test("independent callers do not share a depth: 12 parallel top-level calls, each nesting 8 deep across timers, all succeed; a tool's own parallel sub-calls are each one level deeper", async () => {
    const { host } = await testHost({
      plugins: [
        recursing((h) => [
          {
            name: "nest",
            run: async ({ n = 1 }) => {
              await sleep(1);
              if (n >= 8) return "bottom";
              const r = await h.tools.call("nest", { n: n + 1 });
              return r.ok ? r.output : `failed at ${n}: ${r.output}`;
            },
          },
          {
            name: "fan",
            run: async ({ n = 1 }) => {
              if (n >= 8) return "leaf";
              const rs = await Promise.all([1, 2, 3].map(() => h.tools.call("fan", { n: n + 1 })));
              const bad = rs.find((r) => !r.ok);
              return bad ? `failed at ${n}: ${bad.output}` : n === 7 ? "3 leaves" : rs[0]!.output;
            },
          },
        ]),
      ],
    });
    const results = await Promise.all(Array.from({ length: 12 }, () => host.tools.call("nest", {})));
    expect(results.map((r) => r.output)).toEqual(Array(12).fill("bottom"));
    // A fan-out 6 levels deep (3^6 calls): every branch is as deep as its own chain, never the sum.
    expect((await host.tools.call("fan", { n: 2 })).output).toBe("3 leaves");
  });

  test("a beforeToolCall hook that calls a tool (which runs the hook again) ends too", async () => {
    let hookRuns = 0;
    const { host } = await testHost({
      plugins: [
        recursing(() => [{ name: "plain", run: async () => "ran" }]),
        {
          name: "looping-policy",
          setup(ctx: PluginContext) {
            ctx.hooks.beforeToolCall.tapPromise("looping-policy", async () => {
              hookRuns++;
              await ctx.host.tools.call("plain", {});
              return undefined;
            });
          },
        },
      ],
    });
    const r = await host.tools.call("plain", {});
    expect(r).toMatchObject({ ok: true, output: "ran" });
    expect(hookRuns).toBe(MAX_CALL_DEPTH);
  });
});

describe("the built CLI", () => {
  function project(plugin: string) {
    const p = tempProject();
    writeFileSync(p.path("recurse.mjs"), plugin);
    writeFileSync(p.path(".agentrc.json"), JSON.stringify({ plugins: ["./recurse.mjs"] }));
    return p;
  }

  test("agent call of a plugin tool that calls itself without end exits 1 with E_TOOL_DEPTH, under a 96 MB heap limit", async () => {
    const p = project(`
      let host;
      export default {
        name: "recurse",
        setup(ctx) {
          host = ctx.host;
          ctx.tools.add({
            name: "recurse",
            description: "calls itself",
            risk: "read",
            inputSchema: { type: "object", properties: {} },
            // Whatever the inner call says is thrown on, its code kept: the attacker's tool gives up nothing.
            run: async () => {
              const r = await host.tools.call("recurse", {});
              if (!r.ok) throw Object.assign(new Error(r.output), { code: r.error.code });
              return r.output;
            },
          });
        },
      };
    `);
    // A heap far too small for a recursion that does not end: an out-of-memory crash would show here.
    const r = await runCli(["call", "recurse", "{}", "--json"], { cwd: p.dir, configHome: p.configHome, env: { NODE_OPTIONS: "--max-old-space-size=96" } });
    expect(r.stderr).not.toMatch(/heap out of memory|Allocation failed/);
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout) as { ok: boolean; error: { code: string; message: string } };
    expect(out).toMatchObject({ ok: false, error: { code: "E_TOOL_DEPTH" } });
    expect(out.error.message).toContain("Call to recurse refused: it was made from inside 8 nested tool calls");

    // Without --json: the message on stderr, exit 1.
    const plain = await runCli(["call", "recurse", "{}"], { cwd: p.dir, configHome: p.configHome });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain("refused: it was made from inside 8 nested tool calls");
    const audit = await runCli(["audit", "--json", "--tail", "50"], { cwd: p.dir, configHome: p.configHome });
    const records = audit.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as { name: string; outcome: string; error?: string });
    const recurse = records.filter((a) => a.name === "recurse");
    // Two runs of the command: 8 calls that ran (each failed with the refusal) and the refused one, each time.
    expect(recurse).toHaveLength(18);
    expect(recurse.every((a) => a.outcome === "error" && a.error?.includes("refused"))).toBe(true);
  });

  test("the process stays small: a recursing tool run with a 64 MB heap limit finishes (no OOM)", () => {
    assertBuilt();
    const p = project(`
      let host;
      export default {
        name: "recurse",
        setup(ctx) {
          host = ctx.host;
          ctx.tools.add({ name: "recurse", description: "calls itself", risk: "read", inputSchema: { type: "object", properties: {} },
            run: async () => (await host.tools.call("recurse", {})).output });
        },
      };
    `);
    const r = spawnSync(process.execPath, ["--max-old-space-size=64", DIST_CLI, "call", "recurse", "{}"], { cwd: p.dir, env: cleanEnv({ AGENT_CONFIG_HOME: p.configHome }), encoding: "utf8", timeout: 60_000 });
    expect(r.signal).toBeNull();
    // The naive tool passes the refusal up as its output: a result, not a crash.
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("Call to recurse refused");
  });
});
