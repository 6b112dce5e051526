/**
 * What the npm e2e test does as an author and as a user: build and pack packages, install tarballs
 * into a project with real npm (offline, from the npm cache), run the CLI that npm installed.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { closureLock, readLockfile } from "../../cli/npm-lock.js";
import { cleanEnv } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";

export interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** npm never goes online here: every package must come from the cache (CI's `npm ci` fills it). */
const OFFLINE = { npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };

export function exec(file: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env ?? cleanEnv(OFFLINE), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timeoutMs = options.timeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${file} ${args.join(" ")} did not finish within ${timeoutMs} ms.\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Run a setup step; a failure throws with its output (and the fix when the cache lacks a package). */
async function step(file: string, args: string[], cwd: string): Promise<string> {
  const r = await exec(file, args, { cwd, timeoutMs: 120_000 });
  if (r.code === 0) return r.stdout;
  const hint = /ENOTCACHED/.test(r.stderr)
    ? `\nThe npm cache lacks a package: run "npm ci" in ${REPO_ROOT} once (CI does).`
    : /declaration file for module 'agent-host'/.test(r.stdout + r.stderr)
      ? `\n${REPO_ROOT}/dist/index.d.ts is missing: run "npm run build" (or one was running meanwhile).`
      : "";
  throw new Error(`${path.basename(file)} ${args.join(" ")} (in ${cwd}) exited ${r.code}${hint}\n${r.stdout}\n${r.stderr}`);
}

/**
 * A copy of the example package in `dir`, built with the repository's tsup. Its node_modules holds
 * what the author's `npm install` would: typescript (for the .d.ts) and agent-host (the peer, here
 * this repository, whose `exports` point at its build).
 */
export async function buildExample(dir: string): Promise<string> {
  const source = path.join(REPO_ROOT, "examples/agent-plugin-example");
  const skip = new Set([path.join(source, "node_modules"), path.join(source, "dist")]);
  cpSync(source, dir, { recursive: true, filter: (f) => !skip.has(f) });
  mkdirSync(path.join(dir, "node_modules"));
  symlinkSync(path.join(REPO_ROOT, "node_modules/typescript"), path.join(dir, "node_modules/typescript"));
  symlinkSync(REPO_ROOT, path.join(dir, "node_modules/agent-host"));
  await step(path.join(REPO_ROOT, "node_modules/.bin/tsup"), [], dir);
  return dir;
}

export interface Packed {
  /** Absolute path of the tarball. */
  file: string;
  /** Paths inside the package, as `npm pack` lists them. */
  files: string[];
}

/** `npm pack` the package in `dir` into `dest`. */
export async function pack(dir: string, dest: string): Promise<Packed> {
  const out = JSON.parse(await step("npm", ["pack", "--json", "--pack-destination", dest], dir)) as { filename: string; files: { path: string }[] }[];
  return { file: path.join(dest, out[0].filename), files: out[0].files.map((f) => f.path) };
}

/**
 * A new project in `dir` with the tarballs installed by `npm install --offline`. Its lockfile is made
 * from agent-host's own (closureLock), so npm needs no registry metadata for agent-host's dependencies.
 */
export async function installProject(dir: string, tarballs: string[]): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const host = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  const project = { name: "e2e-project", version: "1.0.0" };
  const lock = closureLock(readLockfile(path.join(REPO_ROOT, "package-lock.json"))!, { ...project, dependencies: host.dependencies });
  if (!lock) throw new Error("package-lock.json lacks some of agent-host's dependencies");
  // The project itself depends on nothing yet: agent-host's dependencies are placed, `npm install` adds the rest.
  delete lock.packages[""].dependencies;
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ ...project, private: true }, null, 2));
  writeFileSync(path.join(dir, "package-lock.json"), JSON.stringify(lock, null, 2));
  await addTarballs(dir, tarballs);
}

/** `npm install --offline` of the tarballs (copied into `dir` first) in the project in `dir`. */
export async function addTarballs(dir: string, tarballs: string[]): Promise<void> {
  const local = tarballs.map((t) => {
    cpSync(t, path.join(dir, path.basename(t)));
    return `./${path.basename(t)}`;
  });
  await step("npm", ["install", "--offline", "--no-audit", "--no-fund", ...local], dir);
}

/** The `agent` that npm installed in `project` (not the repository's dist/), with only `configHome` as user config. */
export function agent(project: string, configHome: string, args: string[]): Promise<ExecResult> {
  return exec(path.join(project, "node_modules/.bin/agent"), args, { cwd: project, env: cleanEnv({ ...OFFLINE, AGENT_CONFIG_HOME: configHome }) });
}
