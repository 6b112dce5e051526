/**
 * Turning config entries into plugin objects: npm names resolve from the config file's folder
 * (its node_modules), local paths relative to it; TypeScript plugins load through jiti.
 * `foo` also finds `agent-plugin-foo`, and `@acme/foo` finds `@acme/agent-plugin-foo`.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isLocalPath } from "./config.js";
import type { PluginEntry } from "./config-schema.js";
import type { Plugin } from "./types.js";

export interface PluginSpec {
  /** How the plugin was named in config (`builtin:<name>` for built-ins). */
  from: string;
  /** Load the module and produce the plugin object. */
  load(): Promise<Plugin>;
  /** Plugin options from config. */
  options: Record<string, unknown>;
}

export class PluginLoadError extends Error {
  constructor(
    readonly spec: string,
    message: string,
  ) {
    super(message);
    this.name = "PluginLoadError";
  }
}

const TS_EXT = /\.(c|m)?tsx?$/;

/** The running host's own public entry (dist/index.js when built), or undefined when running from source. */
function selfEntry(): string | undefined {
  if (!import.meta.url.endsWith(".js")) return undefined;
  const url = new URL("./index.js", import.meta.url);
  return existsSync(url) ? url.href : undefined;
}

let selfResolution: Promise<void> | undefined;
/**
 * Make `import "agent-host"` inside plugins resolve to the running host, wherever the plugin lives:
 * a plugin in a project works with a globally installed `agent`, and host and plugins share one zod.
 */
function ensureSelfResolution(): Promise<void> {
  selfResolution ??= (async () => {
    const self = selfEntry();
    if (!self) return;
    const { register } = await import("node:module");
    const hook = `let self;
export function initialize(data) { self = data.self; }
export async function resolve(specifier, context, next) {
  if (specifier === "agent-host") return { url: self, shortCircuit: true };
  return next(specifier, context);
}`;
    register(`data:text/javascript,${encodeURIComponent(hook)}`, { data: { self } });
  })();
  return selfResolution;
}

async function importFile(file: string): Promise<unknown> {
  if (TS_EXT.test(file)) {
    const { createJiti } = await import("jiti");
    const self = selfEntry();
    const jiti = createJiti(import.meta.url, {
      moduleCache: false,
      fsCache: false,
      interopDefault: false,
      alias: self ? { "agent-host": fileURLToPath(self) } : undefined,
    });
    return jiti.import(file);
  }
  await ensureSelfResolution();
  return import(pathToFileURL(file).href);
}

function candidates(name: string): string[] {
  if (name.startsWith("@")) {
    const [scope, pkg] = name.split("/");
    if (!pkg) return [name];
    return pkg.startsWith("agent-plugin-") ? [name] : [name, `${scope}/agent-plugin-${pkg}`];
  }
  return name.startsWith("agent-plugin-") ? [name] : [name, `agent-plugin-${name}`];
}

/** Find `<dir>/node_modules/<pkg>` walking up from `base`, as Node does; split off a subpath. */
function findPackageDir(spec: string, base: string): { dir: string; subpath: string } | undefined {
  const parts = spec.split("/");
  const pkgName = spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  const subpath = parts.slice(spec.startsWith("@") ? 2 : 1).join("/");
  for (let dir = path.resolve(base); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", pkgName);
    if (existsSync(path.join(candidate, "package.json"))) return { dir: candidate, subpath };
    if (path.dirname(dir) === dir) return undefined;
  }
}

type ExportsField = string | { [k: string]: ExportsField } | null;

function pickExport(exp: ExportsField, key: string): string | undefined {
  if (typeof exp === "string") return key === "." ? exp : undefined;
  if (!exp || typeof exp !== "object") return undefined;
  const keys = Object.keys(exp);
  const isConditions = keys.length > 0 && keys.every((k) => !k.startsWith("."));
  const target: ExportsField = isConditions ? (key === "." ? exp : null) : (exp[key] ?? null);
  return resolveConditions(target);
}

function resolveConditions(t: ExportsField): string | undefined {
  if (typeof t === "string") return t;
  if (!t || typeof t !== "object") return undefined;
  for (const cond of ["import", "node", "module", "default", "require"]) {
    if (cond in t) {
      const r = resolveConditions(t[cond]);
      if (r) return r;
    }
  }
  return undefined;
}

/** Resolve a package name to its ESM entry file from `base`. */
export function resolvePackage(spec: string, base: string): string | undefined {
  const found = findPackageDir(spec, base);
  if (!found) return undefined;
  const pkg = JSON.parse(readFileSync(path.join(found.dir, "package.json"), "utf8")) as {
    exports?: ExportsField;
    module?: string;
    main?: string;
  };
  const key = found.subpath ? `./${found.subpath}` : ".";
  let rel: string | undefined;
  if (pkg.exports !== undefined) rel = pickExport(pkg.exports, key);
  else if (found.subpath) rel = found.subpath;
  else rel = pkg.module ?? pkg.main ?? "index.js";
  if (!rel) return undefined;
  const file = path.resolve(found.dir, rel);
  for (const f of [file, `${file}.js`, path.join(file, "index.js")]) if (existsSync(f) && !f.endsWith("/")) return f;
  return undefined;
}

/** The default export (or the module itself), called with options when it is a factory. */
export async function instantiate(mod: unknown, options: Record<string, unknown>, spec: string): Promise<Plugin> {
  let exported = (mod as { default?: unknown })?.default ?? mod;
  // Double default from CJS interop (`module.exports = { default: plugin }`).
  if (exported && typeof exported === "object" && "default" in exported && !("name" in exported)) exported = (exported as { default: unknown }).default;
  let plugin: unknown = exported;
  if (typeof exported === "function") plugin = await (exported as (o: unknown) => unknown)(options);
  if (!plugin || typeof plugin !== "object" || typeof (plugin as Plugin).name !== "string" || !(plugin as Plugin).name) {
    throw new PluginLoadError(spec, "its default export is not a plugin: expected an object with a \"name\", or a function returning one (use definePlugin)");
  }
  return plugin as Plugin;
}

export function specFromEntry(entry: PluginEntry, baseDirs: string[]): PluginSpec {
  if (typeof entry === "object" && !Array.isArray(entry)) {
    const plugin = entry as Plugin;
    return { from: `inline:${plugin.name}`, options: {}, load: async () => plugin };
  }
  const [name, options] = typeof entry === "string" ? [entry, {}] : entry;
  return {
    from: name,
    options,
    load: async () => {
      let file: string | undefined;
      if (isLocalPath(name)) {
        file = name;
        if (!existsSync(file)) throw new PluginLoadError(name, `file not found: ${file}`);
      } else {
        for (const base of baseDirs) {
          for (const c of candidates(name)) {
            file = resolvePackage(c, base);
            if (file) break;
          }
          if (file) break;
        }
        if (!file) {
          const tried = candidates(name).join(" or ");
          throw new PluginLoadError(name, `package ${tried} is not installed (looked in node_modules from ${baseDirs[0]}). Install it with: npm install --save-dev ${candidates(name).at(-1)}`);
        }
      }
      let mod: unknown;
      try {
        mod = await importFile(file);
      } catch (err) {
        throw new PluginLoadError(name, `failed to import ${file}: ${(err as Error).message?.split("\n")[0]}`);
      }
      return instantiate(mod, options, name);
    },
  };
}
