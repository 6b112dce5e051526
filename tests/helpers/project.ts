/**
 * Temporary project folders. Each has its own empty `AGENT_CONFIG_HOME` so the real user config
 * can never leak into a test, and a `package.json` (unless `marker: false`) so the config search
 * stops at the project root instead of walking up through the temp folder.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { projectFolderName } from "../../kit/index.js";

const created: string[] = [];

export interface TempProject {
  /** The project folder (a real path). */
  dir: string;
  /** An empty folder to use as AGENT_CONFIG_HOME (the user config folder). */
  configHome: string;
  /** Absolute path of a file in the project. */
  path(rel: string): string;
  /** Write a file (objects are written as JSON), creating folders; returns its absolute path. */
  write(rel: string, content: string | object): string;
  /** Create a symlink `rel` → `target` (absolute or relative to the link's folder). */
  symlink(rel: string, target: string): string;
  /** The audit log at its default place. */
  auditFile: string;
}

/** A fresh temporary folder, removed by `cleanupTemp()`. */
export function tempDir(prefix = "agent-test-"): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

export function writeFile(file: string, content: string | object): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return file;
}

export function tempProject(files: Record<string, string | object> = {}, options: { marker?: boolean } = {}): TempProject {
  const base = tempDir();
  const dir = path.join(base, "project");
  const configHome = path.join(base, "user-config");
  mkdirSync(dir);
  mkdirSync(configHome);
  if (options.marker !== false && !("package.json" in files)) writeFile(path.join(dir, "package.json"), { name: "temp-project", private: true });
  for (const [rel, content] of Object.entries(files)) writeFile(path.join(dir, rel), content);
  return {
    dir,
    configHome,
    path: (rel) => path.resolve(dir, rel),
    write: (rel, content) => writeFile(path.resolve(dir, rel), content),
    symlink: (rel, target) => {
      const link = path.resolve(dir, rel);
      mkdirSync(path.dirname(link), { recursive: true });
      symlinkSync(target, link);
      return link;
    },
    auditFile: path.join(dir, ".agent", "audit.jsonl"),
  };
}

/** Remove every temp folder created so far (call from `afterAll`). */
export function cleanupTemp(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * Where a project with no `.agent/` (when its host set up) has its MCP servers' tool cache and logs: a folder of
 * its own in the user's cache and state folders, `$XDG_CACHE_HOME/agent-host/mcp/<project>-<hash>/` and
 * `$XDG_STATE_HOME/agent-host/logs/<project>-<hash>/` (the suite's own folders: vitest.config.ts; or `env`'s).
 */
export function userMcpCache(dir: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CACHE_HOME!, "agent-host", "mcp", projectFolderName(dir));
}

export function userMcpLog(dir: string, server: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_STATE_HOME!, "agent-host", "logs", projectFolderName(dir), `mcp-${server}.log`);
}
