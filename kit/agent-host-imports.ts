/**
 * Whether a plugin module may import `agent-host`, read from its static import graph without running it.
 * The loader hook that sends `agent-host` to the running host costs every later import a round trip to
 * a loader thread (Node 20), so it is registered only for a plugin that may need it. Any doubt (a file
 * that cannot be read or lexed, a computed `import()`, CommonJS, a package that cannot be found, a graph
 * too big) answers yes: a plugin that needs the host's copy must always get it.
 */
import { readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ImportType, init, parse } from "es-module-lexer";

/** Past this many files the scan stops and answers yes. */
const SCAN_CAP = 200;
const LEXED = /\.m?js$/;
const NO_IMPORTS = /\.json$/;
const DEPENDENCY_FIELDS = ["dependencies", "peerDependencies", "optionalDependencies"] as const;

/** The package a bare specifier names: `pkg` or `@scope/pkg`. */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** Whether the package `name`, as `from` would find it in a node_modules at or above it, names agent-host (or is missing). */
function packageMayImportAgentHost(name: string, from: string, verdicts: Map<string, boolean>): boolean {
  for (let d = path.dirname(from); ; d = path.dirname(d)) {
    const manifest = path.join(d, "node_modules", name, "package.json");
    const known = verdicts.get(manifest);
    if (known !== undefined) return known;
    let text: string | undefined;
    try {
      text = readFileSync(manifest, "utf8");
    } catch {
      if (path.dirname(d) === d) return true;
      continue;
    }
    let verdict = true;
    try {
      const pkg = JSON.parse(text) as Record<string, unknown>;
      verdict = pkg.name === "agent-host" || DEPENDENCY_FIELDS.some((f) => Object.hasOwn((pkg[f] ?? {}) as object, "agent-host"));
    } catch {
      /* an unreadable manifest: yes */
    }
    verdicts.set(manifest, verdict);
    return verdict;
  }
}

/**
 * Whether importing `entry` (a .js or .mjs file) may import `agent-host`: through its relative imports,
 * a computed `import()`, or a package that depends on agent-host. Files under `hostDir` (the running
 * host's dist/) are not followed: they are the host's copy already.
 */
export async function mayImportAgentHost(entry: string, hostDir?: string): Promise<boolean> {
  await init;
  const seen = new Set<string>();
  const queue = [path.resolve(entry)];
  const verdicts = new Map<string, boolean>();
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file) || (hostDir && file.startsWith(hostDir + path.sep)) || NO_IMPORTS.test(file)) continue;
    if (seen.size >= SCAN_CAP || !LEXED.test(file)) return true;
    seen.add(file);
    let source: string;
    let imports: ReturnType<typeof parse>[0];
    try {
      source = readFileSync(file, "utf8");
      [imports] = parse(source, file);
    } catch {
      return true;
    }
    // CommonJS (or createRequire) loads modules the lexer does not see.
    if (/\brequire\s*\(/.test(source)) return true;
    for (const { n: specifier, t: type } of imports) {
      if (type === ImportType.ImportMeta) continue;
      if (specifier === undefined) return true;
      if (specifier === "agent-host" || specifier.startsWith("agent-host/")) return true;
      if (isBuiltin(specifier)) continue;
      if (/^\.{0,2}\//.test(specifier) || specifier.startsWith("file:")) {
        const url = new URL(specifier, pathToFileURL(file));
        url.search = "";
        url.hash = "";
        queue.push(fileURLToPath(url));
        continue;
      }
      // `#imports`, `data:`, `http:`: not worth reading; a bare name: its package's manifest says.
      if (/^[#]|^[a-z][a-z0-9+.-]*:/i.test(specifier)) return true;
      if (packageMayImportAgentHost(packageName(specifier), file, verdicts)) return true;
    }
  }
  return false;
}
