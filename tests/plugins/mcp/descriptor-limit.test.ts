/**
 * A low `ulimit -n`: the servers that fit connect, the ones past the limit are refused with a reason
 * that names it, and the host does not crash. Started all at once, every server failed with EMFILE
 * (the SDK's import alone opens ~140 files at once), so none could connect.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CORE_PACKAGES } from "../../../plugins/mcp/transport/sdk.js";
import { StartQueue } from "../../../plugins/mcp/transport/start-queue.js";
import { cleanEnv } from "../../helpers/cli.js";
import { assertBuilt, project } from "./_cli.js";
import { DIST_CLI, MEMORY, REPO } from "./_helpers.js";

/** server-memory itself needs ~150 descriptors to start (zod's locales), so the limit is above that; 40 servers do not fit under it. */
const LIMIT = 150;
const SERVERS = 40;

function listUnderLimit(dir: string, configHome: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  assertBuilt();
  return new Promise((resolve, reject) => {
    // `ulimit -n` sets the hard limit too: node cannot raise it back.
    const child = spawn("bash", ["-c", `ulimit -n ${LIMIT} && exec "$0" "$@"`, process.execPath, DIST_CLI, "mcp", "list", "--json"], {
      cwd: dir,
      env: cleanEnv({ AGENT_CONFIG_HOME: configHome }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("MCP servers under a low descriptor limit", () => {
  it(`connects the servers that fit under ulimit -n ${LIMIT} and refuses the rest, naming the limit`, async () => {
    const servers: Record<string, object> = {};
    const p = project();
    for (let i = 0; i < SERVERS; i++) servers[`memory${i}`] = { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: path.join(p.dir, `memory${i}.jsonl`) } };
    p.write(".mcp.json", { mcpServers: servers });

    const r = await listUnderLimit(p.dir, p.configHome);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.code).toBe(0);
    const listed = JSON.parse(r.stdout) as { name: string; status: string; tools: number; error?: string }[];
    expect(listed).toHaveLength(SERVERS);
    const connected = listed.filter((s) => s.status === "connected");
    const failed = listed.filter((s) => s.status !== "connected");
    expect(connected.length).toBeGreaterThan(0);
    expect(failed.length).toBeGreaterThan(0);
    for (const s of connected) expect(s.tools).toBeGreaterThan(0);
    for (const s of failed) expect(s.error).toMatch(new RegExp(`^too many open files: the process may hold ${LIMIT} descriptors \\(ulimit -n\\)`));
  }, 180_000);
});

describe("StartQueue", () => {
  it("admits every start at once while descriptors last", async () => {
    const queue = new StartQueue(() => ({ limit: 1000, open: 20 }), 24);
    let running = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const starts = Array.from({ length: 25 }, () =>
      queue.run(4, () => {
        most = Math.max(most, ++running);
        return new Promise<void>((resolve) => gates.push(() => (running--, resolve())));
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(most).toBe(25);
    for (const open of gates) open();
    expect(await Promise.all(starts)).toEqual(Array(25).fill(undefined));
  });

  it("queues starts while others run and refuses, with the limit, what cannot fit once none runs", async () => {
    // Each start that finishes keeps its 4 descriptors (a connected server).
    const counts = { limit: 64, open: 20 };
    const queue = new StartQueue(() => ({ ...counts }), 24);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        queue.run(4, async () => {
          counts.open += 4;
          await new Promise((r) => setImmediate(r));
        }),
      ),
    );
    const ran = results.filter((r) => r === undefined).length;
    expect(ran).toBe(5);
    expect(counts.open).toBe(40);
    for (const reason of results.filter((r) => r !== undefined)) expect(reason).toMatch(/^too many open files: the process may hold 64 descriptors \(ulimit -n\) and holds 40;/);
  });
});

describe("the SDK packages loaded one file at a time", () => {
  it("are every package the modules of sdk-core.ts import", () => {
    const files = ["transport/sdk-core.ts", "client/sdk-client.ts", "transport/stdio-transport.ts", "transport/frame-guard.ts", "tool-list.ts"];
    const imported = new Set<string>();
    for (const f of files) {
      const text = readFileSync(path.join(REPO, "plugins", "mcp", f), "utf8");
      for (const m of text.matchAll(/^(?:import|export) (?!type )[^;]*? from "(@modelcontextprotocol\/(?:client|core)[^"]*)"/gms)) imported.add(m[1]!);
    }
    expect(imported.size).toBeGreaterThan(0);
    expect([...imported].filter((p) => !CORE_PACKAGES.includes(p))).toEqual([]);
  });
});
