/**
 * Lockfiles made from agent-host's own: the packages a new project needs (a plugin scaffold's dev
 * tools, agent-host's own dependencies) at exactly the versions agent-host was built and tested with.
 * With such a lock, `npm install` needs no registry metadata, so it works offline from the npm cache.
 */
import { existsSync, readFileSync } from "node:fs";

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  [key: string]: unknown;
}

export interface Lockfile {
  name?: string;
  version?: string;
  lockfileVersion: number;
  requires?: boolean;
  packages: Record<string, LockEntry>;
}

export function readLockfile(file: string): Lockfile | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const lock = JSON.parse(readFileSync(file, "utf8")) as Lockfile;
    return lock && typeof lock.packages === "object" && lock.lockfileVersion >= 2 ? lock : undefined;
  } catch {
    return undefined;
  }
}

/** Where Node would find `name` from the package at lock path `from` (walking up the nested node_modules). */
function resolveIn(packages: Lockfile["packages"], from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const p = `${base ? `${base}/` : ""}node_modules/${name}`;
    if (packages[p]) return p;
    if (!base) return undefined;
    const i = base.lastIndexOf("/node_modules/");
    base = i < 0 ? "" : base.slice(0, i);
  }
}

/**
 * A lockfile for a project named `name` whose `dependencies` / `devDependencies` are taken from
 * `source` (the versions there win): every package they need, at the place it has in `source`. Returns
 * undefined when `source` lacks one of them (then let npm resolve as usual).
 */
export function closureLock(
  source: Lockfile,
  project: { name: string; version: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> },
): Lockfile | undefined {
  const packages = source.packages;
  const keep = new Map<string, boolean>(); // path -> dev
  const visit = (p: string, dev: boolean) => {
    const seen = keep.get(p);
    if (seen === false || (seen === true && dev)) return;
    keep.set(p, dev);
    const e = packages[p];
    const optionalPeers = new Set(Object.entries(e.peerDependenciesMeta ?? {}).filter(([, m]) => m.optional).map(([n]) => n));
    const deps = { ...e.dependencies, ...e.optionalDependencies, ...e.peerDependencies };
    for (const d of Object.keys(deps)) {
      const r = resolveIn(packages, p, d);
      if (r) visit(r, dev);
      else if (!(d in (e.optionalDependencies ?? {})) && !optionalPeers.has(d)) return;
    }
  };
  for (const [deps, dev] of [
    [project.dependencies ?? {}, false],
    [project.devDependencies ?? {}, true],
  ] as const) {
    for (const name of Object.keys(deps)) {
      const p = `node_modules/${name}`;
      if (!packages[p]) return undefined;
      visit(p, dev);
    }
  }
  const out: Lockfile = {
    name: project.name,
    version: project.version,
    lockfileVersion: 3,
    requires: true,
    packages: { "": { name: project.name, version: project.version, ...pick(project, "dependencies"), ...pick(project, "devDependencies") } },
  };
  for (const [p, dev] of [...keep].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const { dev: _d, devOptional: _o, ...entry } = packages[p];
    out.packages[p] = dev ? { ...entry, dev: true } : entry;
  }
  return out;
}

function pick<T extends object, K extends keyof T>(o: T, k: K): Partial<T> {
  return o[k] && Object.keys(o[k] as object).length ? ({ [k]: o[k] } as Partial<T>) : {};
}
