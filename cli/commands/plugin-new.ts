/**
 * `agent plugin new <name>`: scaffold a plugin package from templates/plugin/ that builds, tests and
 * publishes as generated. Its dev tools get the versions agent-host's own lock has, and its
 * package-lock.json is cut from that lock, so `npm install` needs no registry (the npm cache will do).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { hostVersion } from "../../kit/index.js";
import { closureLock, readLockfile, type Lockfile } from "../npm-lock.js";
import { defineAppCommand } from "./_define.js";

const WORD = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const NAME_RULE =
  "a plugin name is lowercase letters and digits, words joined by single hyphens (hello, my-tool), optionally with a scope (@acme/hello)";
/** Template files whose real name npm would not publish or would rename (`.gitignore`). */
const RENAMED: Record<string, string> = { gitignore: ".gitignore" };
/** Where `npm run build` leaves the lock a packed agent-host ships (npm never packs package-lock.json). */
const TEMPLATE_LOCK = "dist/plugin-template-lock.json";

interface Names {
  /** The plugin's name, as users write it in `plugins`: `hello` or `@acme/hello`. */
  name: string;
  /** Without the scope: names the skill and the slash command. */
  bare: string;
  pkg: string;
  tool: string;
}

interface PackageJson {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  engines?: Record<string, string>;
  [key: string]: unknown;
}

/** The names a package gets, or why `input` cannot be one. */
function pluginNames(input: string): Names | string {
  const m = /^(?:@([^/]+)\/)?([^/]+)$/.exec(input);
  if (!m || (m[1] !== undefined && !WORD.test(m[1])) || !WORD.test(m[2])) return `"${input}" is not a valid plugin name: ${NAME_RULE}.`;
  const [, scope, bare] = m;
  if (bare.startsWith("agent-plugin-")) return `give the name without "agent-plugin-" (the package gets it): agent plugin new ${input.replace("agent-plugin-", "")}`;
  if (bare.length > 50) return `"${input}" is too long: at most 50 characters after the scope (tool names are at most 64).`;
  return {
    name: input,
    bare,
    pkg: scope ? `@${scope}/agent-plugin-${bare}` : `agent-plugin-${bare}`,
    tool: `${bare.replaceAll("-", "_")}_greet`,
  };
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch {
    return undefined;
  }
}

/** agent-host's package folder: this module is in cli/commands/ from source and a chunk of dist/ when built. */
function hostRoot(from = fileURLToPath(import.meta.url)): string {
  for (let dir = path.dirname(from); ; dir = path.dirname(dir)) {
    if (readJson<PackageJson>(path.join(dir, "package.json"))?.name === "agent-host") return dir;
    if (path.dirname(dir) === dir) throw new Error(`agent-host's package.json was not found above ${from}; reinstall agent-host`);
  }
}

/** The lock to take versions from: the clone's own, else the one the build wrote for packed installs. */
function sourceLock(root: string): { lock: Lockfile; file: string } | undefined {
  for (const rel of ["package-lock.json", TEMPLATE_LOCK]) {
    const file = path.join(root, rel);
    const lock = readLockfile(file);
    if (lock) return { lock, file };
  }
  return undefined;
}

/** Every file of the template, as paths relative to `dir`. */
function listFiles(dir: string, rel = ""): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const child = rel ? `${rel}/${e.name}` : e.name;
    return e.isDirectory() ? listFiles(dir, child) : [child];
  });
}

function substitute(text: string, values: Record<string, string>): string {
  return text.replace(/__([A-Z]+(?:_[A-Z]+)*)__/g, (whole, key: string) => values[key] ?? whole);
}

/** `^<major>.<minor>.0` of the running host: plugins built against it work with its later minors. */
function hostRange(version: string): string {
  const [major = "0", minor = "0"] = version.split(".");
  return `^${major}.${minor}.0`;
}

/** The version agent-host's lock pins for `name` (else its package.json's spec). */
function pinnedVersion(name: string, lock: Lockfile | undefined, own: PackageJson): string {
  return lock?.packages[`node_modules/${name}`]?.version ?? own.devDependencies?.[name] ?? own.dependencies?.[name] ?? "latest";
}

/** The scaffold's package.json: `__LOCKED__` dev tools pinned, agent-host from `hostSpec`. */
function fillPackageJson(pkg: PackageJson, hostSpec: string, lock: Lockfile | undefined, own: PackageJson): PackageJson {
  const dev = { ...pkg.devDependencies };
  for (const [name, spec] of Object.entries(dev)) {
    if (name === "agent-host") dev[name] = hostSpec;
    else if (spec === "__LOCKED__") dev[name] = pinnedVersion(name, lock, own);
  }
  return { ...pkg, peerDependencies: { ...pkg.peerDependencies, "agent-host": hostRange(hostVersion()) }, devDependencies: dev };
}

/**
 * The scaffold's lock: the dev tools' closure in agent-host's lock. With `link` (the folder the scaffold
 * is written to), it also links `node_modules/agent-host` to this agent-host, as npm writes a `file:`
 * dependency: package.json keeps a registry range for agent-host (what the published manifest carries),
 * and the lock, which npm never packs, points npm at this copy, so `npm install` needs no agent-host on
 * the registry and no author's path goes out with the package.
 */
function scaffoldLock(pkg: PackageJson, lock: Lockfile, own: PackageJson, root: string, link: string | undefined): Lockfile | undefined {
  const { "agent-host": _host, ...tools } = pkg.devDependencies ?? {};
  const out = closureLock(lock, { name: pkg.name!, version: pkg.version!, devDependencies: tools });
  if (!out) return undefined;
  // The root entry as npm writes it: the same dependencies as package.json, so npm sees nothing stale.
  const { name, version, engines, devDependencies, peerDependencies, peerDependenciesMeta } = pkg;
  out.packages[""] = { name, version, devDependencies, peerDependencies, peerDependenciesMeta, engines } as Lockfile["packages"][string];
  if (link !== undefined) {
    const target = path.relative(link, root).split(path.sep).join("/");
    out.packages["node_modules/agent-host"] = { resolved: target, link: true } as Lockfile["packages"][string];
    const { license, dependencies, bin } = own;
    out.packages[target] = { version: own.version, dev: true, license, dependencies, bin, engines: own.engines } as Lockfile["packages"][string];
  }
  return out;
}

/** The files to write, path relative to the package → content. Nothing is written here. */
function render(names: Names, hostSpec: string | undefined, root: string, dir: string): { files: Map<string, string>; lockNote: string; hostNote: string } {
  const templates = path.join(root, "templates", "plugin");
  if (!existsSync(templates)) throw new Error(`the plugin template is missing (${templates}); reinstall agent-host`);
  const values = { NAME: names.name, BARE: names.bare, PACKAGE: names.pkg, TOOL: names.tool, COMMAND: names.bare };
  const own = readJson<PackageJson>(path.join(root, "package.json")) ?? {};
  const source = sourceLock(root);
  const range = hostRange(hostVersion());
  // No --host: a registry range in package.json, linked to this agent-host by the lock (without a lock, a file: link).
  const link = hostSpec === undefined && source ? dir : undefined;
  const spec = hostSpec ?? (link ? range : `file:${root}`);
  const files = new Map<string, string>();
  for (const rel of listFiles(templates).sort()) {
    const target = substitute(RENAMED[rel] ?? rel, values);
    let text = substitute(readFileSync(path.join(templates, rel), "utf8"), values);
    if (rel === "package.json") text = `${JSON.stringify(fillPackageJson(JSON.parse(text) as PackageJson, spec, source?.lock, own), null, 2)}\n`;
    const left = /__[A-Z]+(?:_[A-Z]+)*__/.exec(text);
    if (left) throw new Error(`template ${rel} has an unknown placeholder ${left[0]}`);
    files.set(target, text);
  }
  const pkg = JSON.parse(files.get("package.json")!) as PackageJson;
  const lock = source && scaffoldLock(pkg, source.lock, own, root, link);
  if (lock) files.set("package-lock.json", `${JSON.stringify(lock, null, 2)}\n`);
  const count = lock ? Object.entries(lock.packages).filter(([key, e]) => key.startsWith("node_modules/") && !e.link).length : 0;
  const lockNote = lock
    ? `package-lock.json pins ${count} packages at the versions agent-host uses (from ${source.file}), so npm install needs no registry for them.`
    : `No package-lock.json: ${source ? `${source.file} lacks some of the dev tools` : "agent-host has no lock to copy"}; npm install will resolve them from the registry.`;
  const hostNote = link && lock
    ? `agent-host (dev dependency): ${spec}, which package-lock.json links to ${root} (npm never publishes the lock, so the package carries only the range).`
    : `agent-host (dev dependency): ${spec}${spec.startsWith("file:") ? " (a link to this agent-host, kept in package.json: change it before publishing)" : " (npm fetches it from the registry)"}`;
  return { files, lockNote, hostNote };
}

/** A path as a shell word. */
function quote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** `dir` as the user would type it from `cwd`: relative when inside it. */
function shown(dir: string, cwd: string): string {
  const rel = path.relative(cwd, dir);
  return quote(rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : dir);
}

export default defineAppCommand({
  name: "new",
  description: "scaffold a plugin package: agent-plugin-<name>",
  usage: "<name> [--dir <folder>] [--host <npm spec>]",
  options: {
    dir: { type: "string", valueName: "<folder>", description: "where to create it (default ./agent-plugin-<name>); must be empty or absent" },
    host: { type: "string", valueName: "<spec>", description: "the agent-host dev dependency (default: the running host's range, linked to this agent-host by package-lock.json), e.g. a tarball" },
  },
  details: [
    "The package has a tool, a slash command, a skill and a beforeToolCall policy, with tests that run",
    "them in a real host. Its dev tools are pinned to the versions agent-host was built with, and its",
    "package-lock.json comes from agent-host's, so npm install works offline once the npm cache has them.",
  ].join("\n"),
  run(ctx) {
    if (ctx.positionals.length !== 1) {
      ctx.usageError(`agent plugin new takes one name${ctx.positionals.length ? `, got ${ctx.positionals.length}` : ""}: agent plugin new <name> (${NAME_RULE})`);
    }
    const names = pluginNames(ctx.positionals[0]);
    if (typeof names === "string") return ctx.usageError(names);
    const dir = path.resolve(ctx.cwd, ctx.values.dir ?? `agent-plugin-${names.bare}`);
    if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
      ctx.usageError(`${dir} already exists and is ${statSync(dir).isDirectory() ? "not empty" : "not a folder"}; pick another with --dir <folder>`);
    }
    if (ctx.values.host === "") ctx.usageError("--host needs an npm spec for agent-host, e.g. --host ^0.1.0");
    const root = hostRoot();
    const { files, lockNote, hostNote } = render(names, ctx.values.host, root, dir);
    for (const [rel, text] of files) {
      const file = path.join(dir, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
    const where = shown(dir, ctx.cwd);
    ctx.print(`Created ${names.pkg} (plugin "${names.name}", for agent-host ${hostRange(hostVersion())}) in ${where}:`);
    for (const rel of [...files.keys()].sort()) ctx.print(`  ${rel}`);
    ctx.print(
      [
        "",
        lockNote,
        hostNote,
        "",
        "Next steps:",
        `  cd ${where} && npm install && npm run build && npm test`,
        "Then, in a project:",
        `  agent plugin add ${quote(dir)}`,
        `  (or, once ${names.pkg} is installed there, "plugins": ["${names.name}"] in its .agentrc.json)`,
      ].join("\n"),
    );
    return 0;
  },
});
