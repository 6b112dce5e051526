/**
 * Running the built CLI (`dist/cli.js`) against the fake model servers, in a temp project with a
 * config file and a small local plugin of test tools. Build first: `npm run build`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { onTestFinished } from "vitest";
import { REPO, startFake, tempDir, type FakeServer, type Turn } from "../core/loop-helpers.js";

export const CLI = path.join(REPO, "dist", "cli.js");

/**
 * Config `tools` for a test whose first model request must carry an MCP server's tools: that request
 * waits for the server's own outcome (connected, or failed at its 30 s connectTimeout), not the 3 s
 * `tools.loadWaitMs` a user gets, which a server starting on a loaded machine overruns.
 */
export const WAIT_FOR_SERVERS = { loadWaitMs: 60_000 };

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" before these tests.`);
}

/** Test tools, as a third-party plugin file would define them (plain JSON Schemas, no imports). */
const TOOLS_PLUGIN = `
import { existsSync } from "node:fs";
import path from "node:path";
export default {
  name: "cli-test-tools",
  tools: [
    { name: "echo", description: "Echo text back", risk: "read",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      run: ({ text }) => "echo: " + text },
    { name: "write_marker", description: "Write a marker file", risk: "write",
      inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      permissionSubject: ({ name }) => name,
      run: async ({ name }, { workspace }) => { (await import("node:fs")).writeFileSync(workspace.resolve(name), "marked"); return "wrote " + name; } },
    { name: "wait_for_go", description: "Waits until a file named go exists", risk: "read", timeoutMs: 10000,
      inputSchema: { type: "object" },
      run: async (_input, { signal, workspace }) => {
        while (!existsSync(path.join(workspace.root, "go"))) {
          if (signal.aborted) throw new Error("cancelled");
          await new Promise((r) => setTimeout(r, 10));
        }
        return "went";
      } },
  ],
};
`;

export interface Project {
  dir: string;
  remove(): Promise<void>;
}

/** A temp project whose `.agentrc.json` points `openai` (or `anthropic`) at `baseURL` and loads the test tools. */
export async function makeProject(config: Record<string, unknown>): Promise<Project> {
  const tmp = await tempDir("agent-cli-");
  await writeFile(path.join(tmp.dir, "package.json"), '{ "name": "cli-test-project", "private": true }\n');
  await writeFile(path.join(tmp.dir, "tools.mjs"), TOOLS_PLUGIN);
  await writeFile(path.join(tmp.dir, ".agentrc.json"), JSON.stringify({ plugins: ["./tools.mjs"], ...config }, null, 2));
  return tmp;
}

/**
 * A fake `openai` model server answering `turns`, and a project whose config points at it (plus `config`),
 * both closed and removed when the test finishes.
 */
export async function fakeOpenAiProject(turns: Turn[], config: Record<string, unknown> = {}): Promise<{ srv: FakeServer; project: Project }> {
  const srv = await startFake("openai", turns);
  onTestFinished(() => srv.close());
  const project = await makeProject({ providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } }, ...config });
  onTestFinished(() => project.remove());
  return { srv, project };
}

/** The environment a CLI run sees: none of the developer's keys, models or user config. */
export function cleanEnv(extra: Record<string, string | undefined> = {}, home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(AGENT_|OPENAI_|ANTHROPIC_|OLLAMA_|NO_COLOR|FORCE_COLOR|CI$)/.test(k)) continue;
    env[k] = v;
  }
  env.AGENT_CONFIG_HOME = path.join(home, ".no-user-config");
  // The test's project is the user's own, trusted; the trust tests pass AGENT_TRUST: undefined.
  env.AGENT_TRUST = "1";
  for (const [k, v] of Object.entries(extra)) if (v === undefined && Object.hasOwn(extra, k)) delete env[k];
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export interface CliRun {
  child: ChildProcess;
  /** Resolves with the first stdout line matching `test` (lines seen so far included). */
  waitForLine(test: (line: string) => boolean): Promise<string>;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

export function spawnCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; nodeArgs?: string[] }): CliRun {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters: { test: (l: string) => boolean; resolve: (l: string) => void }[] = [];
  const lines: string[] = [];
  let partial = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
    const parts = (partial + d).split("\n");
    partial = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const w of waiters.filter((x) => x.test(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  if (options.input !== undefined) child.stdin!.end(options.input);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return {
    child,
    done,
    waitForLine(test) {
      const seen = lines.find(test);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
  };
}

export function runCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; nodeArgs?: string[] }) {
  return spawnCli(args, options).done;
}

/** Parse stream-json output: one JSON object per line. */
export function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
