/**
 * No frame a server sends may crash the host: frames nested far too deep, answers to ids never sent,
 * JSON that is not JSON-RPC, random bytes, NULs, byte order marks, huge lines, requests the client
 * has no handler for, and a seeded fuzzer mixing all of them around real answers, over real stdio
 * pipes and real HTTP on 127.0.0.1. Vitest fails a file on any uncaught error, so "it did not
 * crash" is checked by the run itself; each test also checks that the connection still works.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { userMcpLog } from "../../helpers/project.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Host } from "../../../core/index.js";
import { tooDeep } from "../../../kit/index.js";
import { deeperThan, MAX_FRAME_DEPTH } from "../../../plugins/mcp/transport/frame-guard.js";
import { getMcpStatus } from "../../../plugins/mcp/status.js";
import { cleanup, FIXTURES, fixture, mcpHost, startServer, tempDir } from "./_helpers.js";

afterAll(cleanup);

/** A server's log: its hosts' projects have no .agent/, so it is in the user's state folder. */
function logOf(host: Host, server: string): string {
  return readFileSync(userMcpLog(host.cwd, server), "utf8");
}

describe("the depth check", () => {
  it("agrees with core's tooDeep, without recursion", () => {
    const nest = (n: number, leaf: unknown = 1): unknown => {
      let v = leaf;
      for (let i = 0; i < n; i++) v = i % 2 ? [v] : { k: v };
      return v;
    };
    for (const v of [null, 1, "s", [], {}, nest(99), nest(100), nest(101), nest(100, {}), { a: [1, { b: nest(98) }], c: "x" }, nest(1e5)]) {
      expect(deeperThan(v, MAX_FRAME_DEPTH)).toBe(tooDeep(v, MAX_FRAME_DEPTH) !== undefined);
    }
  });
});

describe("frames nested too deep (stdio)", () => {
  let host: Host;
  beforeAll(async () => {
    host = await mcpHost({ deep: fixture("deep-frames") });
  });

  it("survives a response to an unknown id nested 10 000 deep (and a deep notification and request)", async () => {
    expect(await host.tools.call("mcp__deep__poison", {})).toMatchObject({ ok: true, output: "ok" });
    expect(await host.tools.call("mcp__deep__echo", { text: "still here" })).toMatchObject({ ok: true, output: "still here" });
    const status = getMcpStatus(host)[0];
    expect(status).toMatchObject({ status: "connected" });
    expect(status.noise).toBeGreaterThanOrEqual(3);
    expect(logOf(host, "deep")).toMatch(/protocol noise: .*nested more than 100 levels deep/);
  });

  it("fails a call whose own answer is nested too deep, with the reason, and keeps the connection", async () => {
    const pid = getMcpStatus(host)[0].pid;
    const r = await host.tools.call("mcp__deep__deep_answer", {});
    expect(r).toMatchObject({ ok: false, outcome: "error" });
    expect(r.output).toMatch(/^Tool mcp__deep__deep_answer failed: MCP server deep sent an answer that was refused: it is nested more than 100 levels deep \(at result\.x[[\]0]*…\)$/);
    expect(await host.tools.call("mcp__deep__echo", { text: "after" })).toMatchObject({ ok: true, output: "after" });
    expect(getMcpStatus(host)[0]).toMatchObject({ status: "connected", pid });
  });
});

describe("stray frames of every kind (stdio)", () => {
  it("ignores them all, answers the server's requests with JSON-RPC errors, and keeps working", async () => {
    const host = await mcpHost({ stray: fixture("stray-frames") });
    for (let i = 0; i < 2; i++) expect(await host.tools.call("mcp__stray__strays", {})).toMatchObject({ ok: true, output: "ok" });
    const answers = JSON.parse((await host.tools.call("mcp__stray__answers", {})).output) as Record<string, number | string>;
    // Methods we have no handler for: -32601; a request nested too deep: -32600; the one with an object for an id is ignored.
    for (const n of [1, 2]) {
      expect(answers).toMatchObject({ [`acme/frobnicate-${n}`]: -32601, [`completion/complete-${n}`]: -32601, [`resources/list-${n}`]: -32601, [`deep-${n}`]: -32600 });
    }
    expect(Object.keys(answers)).toHaveLength(8);
    const status = getMcpStatus(host)[0];
    expect(status.status).toBe("connected");
    expect(host.problems).toEqual([]);
    const log = logOf(host, "stray");
    expect(log).toContain("an answer to a request it was never sent or that was already answered or cancelled (id 900001)");
    expect(log).toContain('(id "nobody-1")');
    expect(log).toContain("[stdout, not JSON-RPC] \0\0\0\0");
    expect(log).toContain("server info: after a BOM");
    expect(log).toContain("server info: crlf");
    // The 2 MiB line is logged cut, and the log stays small.
    expect(log.length).toBeLessThan(200_000);
  });
});

describe("a seeded fuzzer around real answers (stdio)", () => {
  it.each([1, 2])("seed %i: every call succeeds, the host never crashes", async (seed) => {
    const host = await mcpHost({ fuzz: fixture("fuzz-frames", "--seed", String(seed), "--burst", "100") });
    const pid = getMcpStatus(host)[0].pid;
    // 30 calls, three at a time: 3000 generated frames, with the answers somewhere inside them.
    for (let round = 0; round < 10; round++) {
      const texts = [0, 1, 2].map((i) => `seed ${seed} call ${round * 3 + i}`);
      const results = await Promise.all(texts.map((text) => host.tools.call("mcp__fuzz__echo", { text })));
      expect(results.map((r) => [r.ok, r.output])).toEqual(texts.map((t) => [true, t]));
    }
    const stats = JSON.parse((await host.tools.call("mcp__fuzz__stats", {})).output) as { frames: number; requests: number; unanswered: number; answers: Record<string, number> };
    expect(stats.frames).toBeGreaterThanOrEqual(3000);
    // Every request for a method we do not handle got "method not found".
    expect(stats.requests).toBeGreaterThan(0);
    expect(stats.unanswered).toBe(0);
    expect(stats.answers["-32601"]).toBe(stats.requests);
    const status = getMcpStatus(host)[0];
    expect(status).toMatchObject({ status: "connected", pid });
    expect(status.noise).toBeGreaterThan(1000);
  });
});

describe("Streamable HTTP frames nested too deep", () => {
  let host: Host;
  beforeAll(async () => {
    const { port } = await startServer([path.join(FIXTURES, "deep-http.mjs")], /listening (\d+)/);
    host = await mcpHost({ deep: { type: "http", url: `http://127.0.0.1:${port}/mcp` } }, { cwd: tempDir() });
  });

  it("survives deep frames in a JSON answer and in an SSE stream", async () => {
    expect(host.problems).toEqual([]);
    expect(await host.tools.call("mcp__deep__poison", {})).toMatchObject({ ok: true, output: "ok" });
    expect(await host.tools.call("mcp__deep__poison_sse", {})).toMatchObject({ ok: true, output: "ok" });
    expect(await host.tools.call("mcp__deep__echo", { text: "fine" })).toMatchObject({ ok: true, output: "fine" });
    expect(getMcpStatus(host)[0]).toMatchObject({ status: "connected", transport: "http" });
    expect(getMcpStatus(host)[0].noise).toBeGreaterThanOrEqual(4);
  });

  it("fails a call whose answer is nested too deep, and keeps the session", async () => {
    const r = await host.tools.call("mcp__deep__deep_answer", {});
    expect(r.output).toMatch(/^Tool mcp__deep__deep_answer failed: MCP server deep sent an answer that was refused: it is nested more than 100 levels deep/);
    expect(await host.tools.call("mcp__deep__echo", { text: "again" })).toMatchObject({ ok: true, output: "again" });
  });
});
