/**
 * Getting sources onto this machine with the user's own tools: git (their credentials, their config)
 * for git sources, npm for npm sources. Never a shell: programs and arguments as lists. Git never
 * prompts (GIT_TERMINAL_PROMPT=0): a source that needs a login says so instead of hanging.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
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

/**
 * Install an npm package (a name, `name@version`, or a tarball or folder path) into a new folder under
 * `parent`, its dependencies with it (no install scripts run); returns the package's folder. The
 * folder's package.json records which name the spec installed, whatever form it had.
 */
export async function npmFetch(spec: string, parent: string, registry?: string): Promise<string> {
  const dir = mkdtempSync(path.join(parent, ".npm-"));
  writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ name: "agent-plugin-fetch", private: true })}\n`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  await tool(npm, ["install", "--prefix", dir, "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock", ...(registry ? ["--registry", registry] : []), spec]);
  const deps = (JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { dependencies?: Record<string, string> }).dependencies ?? {};
  const name = Object.keys(deps)[0];
  if (!name) throw new Error(`npm installed nothing for ${spec}`);
  const modules = path.join(dir, "node_modules");
  const pkg = path.join(modules, name);
  // Its dependencies move inside it, so the package folder alone is the plugin (and all of it is hashed).
  const others = readdirSync(modules).filter((e) => e !== ".bin" && !e.startsWith(".") && e !== name.split("/")[0]);
  if (name.startsWith("@")) others.push(...readdirSync(path.join(modules, name.split("/")[0])).filter((e) => e !== name.split("/")[1]).map((e) => path.join(name.split("/")[0], e)));
  for (const other of others) {
    mkdirSync(path.dirname(path.join(pkg, "node_modules", other)), { recursive: true });
    renameSync(path.join(modules, other), path.join(pkg, "node_modules", other));
  }
  return pkg;
}

/** Whether a string names a git remote rather than a folder: a URL git understands, or `owner/repo` on GitHub. */
export function gitUrlOf(spec: string): { url: string; ref?: string } | undefined {
  const [base, ref] = spec.split("#", 2) as [string, string | undefined];
  if (/^(https?|ssh|git|file):\/\//.test(base) || /^[\w.-]+@[\w.-]+:/.test(base)) return { url: base, ...(ref ? { ref } : {}) };
  if (/^[A-Za-z0-9][\w.-]*\/[\w.-]+$/.test(base) && !base.startsWith(".")) return { url: `https://github.com/${base}.git`, ...(ref ? { ref } : {}) };
  return undefined;
}
