/**
 * Shared helpers for the MCP tests: real servers (fixtures, the reference servers, the demo server)
 * started over real stdio pipes and real HTTP on 127.0.0.1, and hosts that are always closed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { builtinPlugins } from "../../../cli/builtins.js";
import { type Host } from "../../../core/index.js";
import { createHost } from "../../helpers/host.js";
import { type CreateHostOptions } from "../../../core/embed.js";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const FIXTURES = path.join(REPO, "tests", "fixtures", "mcp");
export const DIST_CLI = path.join(REPO, "dist", "cli.js");
export const DIST_INDEX = path.join(REPO, "dist", "index.js");
export const DEMO_SERVER = path.join(REPO, "dist", "demo-server.js");

const MODULES = path.join(REPO, "node_modules", "@modelcontextprotocol");
export const EVERYTHING = path.join(MODULES, "server-everything", "dist", "index.js");
export const FILESYSTEM = path.join(MODULES, "server-filesystem", "dist", "index.js");
export const MEMORY = path.join(MODULES, "server-memory", "dist", "index.js");

/** A stdio server entry running one of tests/fixtures/mcp/*.mjs with this Node. */
export function fixture(name: string, ...args: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: [path.join(FIXTURES, `${name}.mjs`), ...args] };
}

/** A stdio server entry for a reference server's bin (no npx). */
export function node(script: string, ...args: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: [script, ...args] };
}

const temps: string[] = [];
export function tempDir(prefix = "agent-mcp-"): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  temps.push(dir);
  return dir;
}

const hosts: Host[] = [];

/** A host on a fresh temp project with these MCP servers; bypass mode so permissions stay out of the way. */
export async function mcpHost(mcpServers: Record<string, unknown>, options: Partial<CreateHostOptions> = {}): Promise<Host> {
  const host = await createHost({
    cwd: options.cwd ?? tempDir(),
    userConfigDir: false,
    permissionMode: "bypass",
    builtins: builtinPlugins,
    ...options,
    config: { ...options.config, mcpServers: mcpServers as never },
  });
  hosts.push(host);
  return host;
}

const children: ChildProcess[] = [];

/** Close every host and stop every helper process; remove temp folders. For `afterAll`. */
export async function cleanup(): Promise<void> {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Start a helper server process and wait until a line of its output matches `ready` (group 1 of the
 * match, if any, is returned as the port). Killed by `cleanup()`.
 */
export function startServer(
  args: string[],
  ready: RegExp,
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`server ${args.join(" ")} not ready; output: ${seen}`)), options.timeoutMs ?? 15_000);
    const onData = (d: Buffer) => {
      seen += d.toString();
      const m = ready.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve({ port: Number(m[1] ?? 0), child });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server ${args.join(" ")} exited with ${code}: ${seen}`));
    });
  });
}

/** server-everything over HTTP (`streamableHttp` or `sse`) on a free port of 127.0.0.1. */
export async function startEverything(mode: "streamableHttp" | "sse"): Promise<{ port: number; url: string }> {
  const port = await freePort();
  await startServer([EVERYTHING, mode], /(listening on port|running on port)/i, { env: { PORT: String(port) } });
  return { port, url: `http://127.0.0.1:${port}/${mode === "sse" ? "sse" : "mcp"}` };
}

/** Poll until `fn` returns something truthy. */
export async function waitFor<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 60_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
