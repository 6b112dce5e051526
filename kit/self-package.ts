/**
 * The running agent-host package, for code the host loads that imports `agent-host` (a config file, a
 * plugin): where its public entries are, and which copy a file would get. A project with its own
 * agent-host in node_modules gets that one; any other gets the running CLI's, so a config written as the
 * README shows works with a globally installed `agent`. A plugin's module is imported the same way
 * (`importResolvingSelf`).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { hostVersion } from "./version.js";

/** The running host's own public entry (dist/index.js when built), or undefined when running from source. */
export function selfEntry(): string | undefined {
  if (!import.meta.url.endsWith(".js")) return undefined;
  const url = new URL("./index.js", import.meta.url);
  return existsSync(url) ? url.href : undefined;
}

/** jiti aliases: `agent-host` and its public subpaths to the running host's files (none from source). */
export function selfAliases(): Record<string, string> | undefined {
  const self = selfEntry();
  if (!self) return undefined;
  const file = (name: string) => fileURLToPath(new URL(`./${name}.js`, self));
  // Longest first: jiti matches an alias as a prefix.
  return { "agent-host/testing": file("testing"), "agent-host/kit": file("kit"), "agent-host/embed": file("embed"), "agent-host/builtins": file("builtins"), "agent-host/package.json": fileURLToPath(new URL("../package.json", self)), "agent-host": file("index") };
}

export interface AgentHostCopy {
  /** `project`: the project's node_modules has agent-host; `cli`: the running CLI's own package. */
  source: "project" | "cli";
  /** The package folder. */
  dir: string;
  version: string;
}

/** The agent-host package in a node_modules at or above `dir`, if any. */
function projectCopy(dir: string): string | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const candidate = path.join(d, "node_modules", "agent-host");
    if (existsSync(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(d) === d) return undefined;
  }
}

/** Which agent-host `import "agent-host"` in `file` gets: the project's own, else the running CLI's. */
export function agentHostFor(file: string): AgentHostCopy {
  const own = projectCopy(path.dirname(file));
  if (own) {
    let version = "unknown";
    try {
      version = (JSON.parse(readFileSync(path.join(own, "package.json"), "utf8")) as { version?: string }).version ?? version;
    } catch {
      /* an unreadable package.json: the version stays unknown */
    }
    return { source: "project", dir: own, version };
  }
  const self = selfEntry();
  return { source: "cli", dir: self ? path.dirname(path.dirname(fileURLToPath(self))) : fileURLToPath(new URL("..", import.meta.url)), version: hostVersion() };
}

const TS_EXT = /\.(c|m)?tsx?$/;

let selfResolution: Promise<void> | undefined;
/**
 * Make `import "agent-host"` (and `agent-host/testing`, `/kit`, `/embed`) inside plugins resolve to the running host,
 * wherever the plugin lives: a plugin in a project works with a globally installed `agent`, and host
 * and plugins share one zod. Once registered it stays, for every later import.
 */
function ensureSelfResolution(file: string): Promise<void> {
  selfResolution ??= (async () => {
    const self = selfEntry();
    if (!self) return;
    const { register } = await import("node:module");
    const hook = `let self;
export function initialize(data) { self = data.self; }
export async function resolve(specifier, context, next) {
  if (specifier === "agent-host") return { url: self, shortCircuit: true };
  if (specifier === "agent-host/testing" || specifier === "agent-host/kit" || specifier === "agent-host/embed") return { url: new URL("./" + specifier.slice(11) + ".js", self).href, shortCircuit: true };
  return next(specifier, context);
}`;
    register(`data:text/javascript,${encodeURIComponent(hook)}`, { data: { self } });
    if (process.env.AGENT_DEBUG === "1") process.stderr.write(`[agent:plugins] agent-host resolution hook registered for ${file}\n`);
  })();
  return selfResolution;
}

/**
 * Import a module file (a plugin's) with its `agent-host` imports resolved to the running host; TypeScript
 * through jiti. The loader hook is registered only if the file's import graph may reach agent-host: on
 * Node 20 it puts every later import through a loader thread (~0.3 s of CPU for `agent -p`).
 */
export async function importResolvingSelf(file: string): Promise<unknown> {
  if (TS_EXT.test(file)) {
    const { createJiti } = await import("jiti");
    const jiti = createJiti(import.meta.url, { moduleCache: false, fsCache: false, interopDefault: false, alias: selfAliases() });
    return jiti.import(file);
  }
  const self = selfEntry();
  if (!selfResolution && self) {
    // Loaded lazily: the lexer compiles its WebAssembly when imported.
    const { mayImportAgentHost } = await import("./agent-host-imports.js");
    if (await mayImportAgentHost(file, path.dirname(fileURLToPath(self)))) await ensureSelfResolution(file);
  }
  await selfResolution;
  return import(pathToFileURL(file).href);
}

/** What a module exports as its plugin: its default export, or the module itself; a CJS double default (`module.exports = { default: plugin }`) unwrapped. */
export function defaultExport(mod: unknown): unknown {
  const exported = (mod as { default?: unknown })?.default ?? mod;
  if (exported && typeof exported === "object" && "default" in exported && !("name" in exported)) return (exported as { default: unknown }).default;
  return exported;
}
