/**
 * Finding a plugin package the way Node would, from the config file's folder: `foo` also finds
 * `agent-plugin-foo`, and `@acme/foo` finds `@acme/agent-plugin-foo`. Only the package's ESM entry is
 * resolved (the `exports` conditions import, node, module, default, require, in that order).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** Package names a plugin entry may mean, most literal first. */
export function candidates(name: string): string[] {
  if (name.startsWith("@")) {
    const [scope, pkg] = name.split("/");
    if (!pkg) return [name];
    return pkg.startsWith("agent-plugin-") ? [name] : [name, `${scope}/agent-plugin-${pkg}`];
  }
  return name.startsWith("agent-plugin-") ? [name] : [name, `agent-plugin-${name}`];
}

/** Find `<dir>/node_modules/<pkg>` walking up from `base`, as Node does; split off a subpath. */
export function findPackageDir(spec: string, base: string): { dir: string; subpath: string } | undefined {
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


/** The installed package a plugin entry names (`foo` finds `foo` or `agent-plugin-foo`), from `base` up. */
export function findPluginPackage(entry: string, base: string): { name: string; dir: string } | undefined {
  for (const name of candidates(entry)) {
    const found = findPackageDir(name, base);
    if (found && !found.subpath) return { name, dir: found.dir };
  }
  return undefined;
}

/** A plugin entry that is a path (relative to its config file, or absolute), not a package name. */
export function isLocalPath(spec: string): boolean {
  return spec.startsWith("./") || spec.startsWith("../") || spec === "." || spec === ".." || path.isAbsolute(spec);
}

/** The folder holding the nearest package.json at or above `file`'s folder. */
export function packageDirOf(file: string): string {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) return path.dirname(file);
  }
}

export interface PackageJson {
  name?: string;
  version?: string;
  peerDependencies?: Record<string, string>;
}

/** A package's package.json; empty when it cannot be read. */
export function readPackageJson(dir: string): PackageJson {
  try {
    return JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as PackageJson;
  } catch {
    return {};
  }
}

/** The module file a plugin's npm name resolves to (any of its candidate names), from the first base folder that has it. */
export function resolvePluginModule(name: string, baseDirs: readonly string[]): string | undefined {
  for (const base of baseDirs) {
    for (const c of candidates(name)) {
      const file = resolvePackage(c, base);
      if (file) return file;
    }
  }
  return undefined;
}

/** The folder of the package a plugin entry names (any of its candidate names), from the first base that has it. */
export function findOwnPackageDir(name: string, baseDirs: readonly string[]): string | undefined {
  for (const base of baseDirs) {
    for (const c of candidates(name)) {
      const found = findPackageDir(c, base);
      if (found) return found.dir;
    }
  }
  return undefined;
}

/** A plugin's folders (`skillDirs`, `commandDirs`), absolute: relative ones from its package folder (dropped without one). */
export function pluginFolders(base: string | undefined, dirs: readonly string[] | undefined): readonly string[] {
  if (!Array.isArray(dirs)) return Object.freeze([]);
  return Object.freeze(dirs.filter((d) => typeof d === "string" && (base || path.isAbsolute(d))).map((d) => (base ? path.resolve(base, d) : d)));
}
