/**
 * Getting sources onto this machine with the user's own tools: git (their credentials, their config)
 * for git sources, npm for npm sources. Never a shell: programs and arguments as lists. Git never
 * prompts (GIT_TERMINAL_PROMPT=0): a source that needs a login says so instead of hanging.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

async function tool(program: string, args: string[], cwd?: string): Promise<string> {
  try {
    const { stdout } = await run(program, args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" }, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { code?: string; stderr?: string; message: string };
    if (e.code === "ENOENT") throw new Error(`${program} is not installed (it is needed for this source)`);
    const said = (e.stderr ?? "").trim().split("\n").filter(Boolean).slice(-2).join(" ");
    throw new Error(`${program} ${args[0]} failed: ${said || e.message}`);
  }
}

/** Clone `url` (at `ref`, a branch or tag, when given) into a new folder under `parent`; returns it. */
export async function gitClone(url: string, parent: string, ref?: string): Promise<string> {
  const dir = mkdtempSync(path.join(parent, ".clone-"));
  await tool("git", ["clone", "--quiet", "--depth", "1", ...(ref ? ["--branch", ref] : []), "--", url, dir]);
  return dir;
}

/** Bring a clone to its remote's newest commit (of `ref`, or the branch it was cloned at). */
export async function gitUpdate(dir: string, ref?: string): Promise<void> {
  await tool("git", ["fetch", "--quiet", "--depth", "1", "origin", ref ?? "HEAD"], dir);
  await tool("git", ["reset", "--quiet", "--hard", "FETCH_HEAD"], dir);
}

/** Check out a commit of a clone (a marketplace entry's `sha`), fetching it when the shallow clone lacks it. */
export async function gitCheckout(dir: string, sha: string): Promise<void> {
  await tool("git", ["fetch", "--quiet", "--depth", "1", "origin", sha], dir).catch(() => undefined);
  await tool("git", ["checkout", "--quiet", sha], dir);
}

/** Install an npm package into a new folder under `parent` (no scripts run); returns the package's folder. */
export async function npmFetch(spec: string, parent: string, registry?: string): Promise<string> {
  const dir = mkdtempSync(path.join(parent, ".npm-"));
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  await tool(npm, ["install", "--prefix", dir, "--no-save", "--ignore-scripts", "--no-audit", "--no-fund", ...(registry ? ["--registry", registry] : []), spec]);
  const modules = path.join(dir, "node_modules");
  const name = spec.startsWith("@") ? spec.split("@").slice(0, 2).join("@") : spec.split("@")[0];
  const found = readdirSync(modules).includes(name.split("/")[0]) ? path.join(modules, name) : undefined;
  if (!found) throw new Error(`npm installed nothing named ${name}`);
  return found;
}

/** Whether a string names a git remote rather than a folder: a URL git understands, or `owner/repo` on GitHub. */
export function gitUrlOf(spec: string): { url: string; ref?: string } | undefined {
  const [base, ref] = spec.split("#", 2) as [string, string | undefined];
  if (/^(https?|ssh|git|file):\/\//.test(base) || /^[\w.-]+@[\w.-]+:/.test(base)) return { url: base, ...(ref ? { ref } : {}) };
  if (/^[A-Za-z0-9][\w.-]*\/[\w.-]+$/.test(base) && !base.startsWith(".")) return { url: `https://github.com/${base}.git`, ...(ref ? { ref } : {}) };
  return undefined;
}
