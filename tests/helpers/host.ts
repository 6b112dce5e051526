/**
 * Hosts for tests: no built-in plugins, no user config, a temp project as cwd, audit on in the
 * project's `.agent/audit.jsonl`. Every host made here is closed by `closeHosts()`.
 */
import { existsSync, readFileSync } from "node:fs";
import { createHost as createKernelHost, type Host, type Plugin, type ToolDefinition } from "../../core/index.js";
import { type CreateHostOptions } from "../../core/embed.js";
import { createCommandSandbox } from "../../sandbox/index.js";
import { claudeSettingsSource } from "../../plugins/claude-settings/index.js";
import { tempProject, type TempProject } from "./project.js";

const open: Host[] = [];

/** `createHost` as the CLI composes it: with the OS sandbox and Claude Code's settings as a config source (the kernel has neither). */
export function createHost(options: CreateHostOptions = {}): Promise<Host> {
  return createKernelHost({ sandbox: createCommandSandbox, configSources: [claudeSettingsSource], ...options });
}

export interface TestHost {
  host: Host;
  project: TempProject;
  /** Audit records written so far. */
  audit(): Record<string, any>[];
}

export async function testHost(options: CreateHostOptions & { project?: TempProject } = {}): Promise<TestHost> {
  const project = options.project ?? tempProject();
  const { project: _p, ...rest } = options;
  const host = await createHost({ cwd: project.dir, builtins: [], userConfigDir: false, loadConfigFiles: false, ...rest });
  open.push(host);
  return { host, project, audit: () => readAudit(project.auditFile) };
}

/** A host with one inline plugin holding `tools` (and whatever else `plugin` adds). */
export async function hostWithTools(
  tools: ToolDefinition[],
  options: CreateHostOptions & { project?: TempProject; plugin?: Partial<Plugin> } = {},
): Promise<TestHost> {
  const { plugin, ...rest } = options;
  return testHost({ ...rest, plugins: [{ name: "test", tools, ...plugin }, ...(rest.plugins ?? [])] });
}

export function readAudit(file: string): Record<string, any>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);
}

export async function closeHosts(): Promise<void> {
  await Promise.all(open.splice(0).map((h) => h.close()));
}
