/**
 * Turning config entries into plugin objects: npm names resolve from the config file's folder
 * (kit/plugin-resolve.ts), local paths relative to it; TypeScript plugins load through jiti (kit/self-package.ts). A package
 * whose `peerDependencies["agent-host"]` excludes the running version is not loaded; options are
 * checked against the plugin's schema before the plugin sees them.
 */
import { existsSync, statSync } from "node:fs";
import { parseOrConfigError } from "../../kit/schema.js";
import type { PluginEntry } from "../config/config-schema.js";
import type { Plugin, PluginFactory } from "../plugin-types.js";
import type { PluginPackageFormat } from "../contract.js";
import { candidates, findOwnPackageDir, isLocalPath, packageDirOf, readPackageJson, resolvePluginModule, type PackageJson } from "../../kit/plugin-resolve.js";
import { RAW_FACTORY } from "../define.js";
import { hostVersion } from "../../kit/version.js";
import { defaultExport, importResolvingSelf } from "../../kit/self-package.js";

export interface PluginSpec {
  /** How the plugin was named in config (`builtin` for built-ins, `inline:<name>` for objects). */
  from: string;
  /** The name, when it is known before loading (built-ins, inline objects). */
  name?: string;
  /** Plugin options from config. */
  options: Record<string, unknown>;
  /** The config file that listed it (for messages about its options). */
  origin?: string;
  /** Import the module: its default export and where it lives. */
  load(): Promise<LoadedModule>;
}

export interface LoadedModule {
  exported: unknown;
  /** The package folder (the nearest package.json's) for files and packages. */
  dir?: string;
  /** The module file it was loaded from. */
  file?: string;
  version?: string;
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

/** A package that names a range of agent-host it works with, which the running version is outside of. */
async function checkPeerRange(pkg: PackageJson, spec: string): Promise<void> {
  const range = pkg.peerDependencies?.["agent-host"];
  if (!range) return;
  const semver = await import("semver");
  const version = hostVersion();
  const valid = semver.validRange(range);
  if (!valid) throw new PluginLoadError(spec, `its peerDependencies name an invalid agent-host range "${range}"`);
  if (!semver.satisfies(version, valid, { includePrerelease: true })) {
    throw new PluginLoadError(spec, `it requires agent-host ${range}, and this is agent-host ${version}. Install a version of ${pkg.name ?? spec} made for ${version}`);
  }
}

/** The default export (or the module itself), called with validated options when it is a factory. */
export async function instantiate(
  mod: unknown,
  options: Record<string, unknown>,
  spec: string,
  origin?: string,
): Promise<{ plugin: Plugin<any>; options: unknown }> {
  const exported = defaultExport(mod);
  let plugin: unknown = exported;
  let opts: unknown = options;
  if (typeof exported === "function") {
    const factory = exported as PluginFactory;
    if (factory.options) opts = checkOptions(factory.options, options, spec, origin);
    const raw = (factory as unknown as Record<symbol, unknown>)[RAW_FACTORY];
    plugin = await (typeof raw === "function" && factory.options ? (raw as PluginFactory) : factory)(opts);
  }
  if (!plugin || typeof plugin !== "object" || typeof (plugin as Plugin).name !== "string" || !(plugin as Plugin).name) {
    throw new PluginLoadError(spec, "its default export is not a plugin: expected an object with a \"name\", or a function returning one (use definePlugin)");
  }
  const p = plugin as Plugin<any>;
  if (typeof exported !== "function" && p.options) opts = checkOptions(p.options, options, spec, origin);
  return { plugin: p, options: opts };
}

/** Options that do not fit the plugin's schema are a config error naming the plugin and the option. */
function checkOptions(schema: unknown, options: Record<string, unknown>, spec: string, origin: string | undefined): unknown {
  return parseOrConfigError(schema, options, origin, `plugins[${spec}] options`);
}

/** The format that claims a folder entry; undefined for a file. A folder no format claims is an error saying so. */
function formatOf(name: string, file: string, formats: readonly PluginPackageFormat[]): PluginPackageFormat | undefined {
  if (!statSync(file, { throwIfNoEntry: false })?.isDirectory()) return undefined;
  const format = formats.find((f) => f.claims(file));
  if (!format) throw new PluginLoadError(name, `${file} is a folder, not a plugin module${formats.length ? ` nor a ${formats.map((f) => f.name).join(" or ")} plugin` : ""}`);
  return format;
}

export function specFromEntry(entry: PluginEntry, baseDirs: string[], origins?: Map<string, string>, formats: readonly PluginPackageFormat[] = []): PluginSpec {
  if (typeof entry === "object" && !Array.isArray(entry)) {
    const plugin = entry as Plugin;
    return { from: `inline:${plugin.name}`, name: plugin.name, options: {}, load: async () => ({ exported: plugin }) };
  }
  const [name, options] = typeof entry === "string" ? [entry, {}] : entry;
  return {
    from: name,
    options,
    origin: origins?.get(name),
    load: async () => {
      let file: string | undefined;
      if (isLocalPath(name)) {
        file = name;
        if (!existsSync(file)) throw new PluginLoadError(name, `file not found: ${file}`);
        const format = formatOf(name, file, formats);
        if (format) {
          const plugin = await format.load(file);
          return { exported: plugin, dir: file, version: plugin.version };
        }
      } else {
        file = resolvePluginModule(name, baseDirs);
        if (!file) throw new PluginLoadError(name, `package ${candidates(name).join(" or ")} is not installed (looked in node_modules from ${baseDirs[0]}). Install it with: agent plugin add ${name}`);
      }
      // The package's folder (what skillDirs are relative to), also for a file inside a package.
      const dir = isLocalPath(name) ? packageDirOf(file) : (findOwnPackageDir(name, baseDirs) ?? packageDirOf(file));
      const pkg = readPackageJson(dir);
      await checkPeerRange(pkg, name);
      let exported: unknown;
      try {
        exported = await importResolvingSelf(file);
      } catch (err) {
        throw new PluginLoadError(name, `failed to import ${file}: ${(err as Error).message?.split("\n")[0]}`);
      }
      return { exported, dir, file, version: pkg.version };
    },
  };
}
