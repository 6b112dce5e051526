/** Running the built `agent` CLI against a temp project, for the MCP CLI and no-orphans tests. */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DIST_CLI, DIST_INDEX, tempDir } from "./_helpers.js";

export function assertBuilt(): void {
  if (!existsSync(DIST_CLI) || !existsSync(DIST_INDEX)) throw new Error(`The build is missing (${DIST_CLI}). Run "npm run build" before these tests.`);
}

export interface Project {
  dir: string;
  configHome: string;
  write(rel: string, content: string | object): string;
}

/** A temp project with a package.json (so the config search stops there) and an empty user config folder. */
export function project(files: Record<string, string | object> = {}): Project {
  const base = tempDir("agent-mcp-cli-");
  const dir = path.join(base, "project");
  const configHome = path.join(base, "user-config");
  mkdirSync(dir);
  mkdirSync(configHome);
  const write = (rel: string, content: string | object) => {
    const file = path.join(dir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
    return file;
  };
  write("package.json", { name: "p", private: true });
  for (const [rel, content] of Object.entries(files)) write(rel, content);
  return { dir, configHome, write };
}

function env(p: Project, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("AGENT_") && !k.startsWith("VITEST") && k !== "NODE_OPTIONS" && k !== "CI") out[k] = v;
  // The test project is the user's own: trusted.
  return { ...out, AGENT_CONFIG_HOME: p.configHome, NO_COLOR: "1", AGENT_TRUST: "1", ...extra };
}

/** Start `agent <args>` (not waiting). */
export function startAgent(p: Project, args: string[], options: { nodeArgs?: string[]; env?: Record<string, string> } = {}): ChildProcess {
  assertBuilt();
  return spawn(process.execPath, [...(options.nodeArgs ?? []), DIST_CLI, ...args], { cwd: p.dir, env: env(p, options.env), stdio: ["pipe", "pipe", "pipe"] });
}

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function finished(child: ChildProcess, timeoutMs = 30_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`agent did not finish within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export function agent(p: Project, args: string[], options: { nodeArgs?: string[]; env?: Record<string, string>; input?: string } = {}): Promise<Ran> {
  const child = startAgent(p, args, options);
  child.stdin!.end(options.input ?? "");
  return finished(child);
}

/** Processes whose command line contains `marker` (our servers and their children). */
export function processesWith(marker: string): { pid: number; args: string }[] {
  const out = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .map((l) => /^\s*(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => !!m && m[2].includes(marker) && !m[2].startsWith("ps "))
    .map((m) => ({ pid: Number(m[1]), args: m[2] }));
}
