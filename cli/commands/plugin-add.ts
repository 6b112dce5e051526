/**
 * `agent plugin add <npm name | path | tarball>` installs a plugin into the project (npm, as a dev
 * dependency) and lists it in the project's config; `agent plugin remove <name>` undoes both.
 * npm's own settings apply (`npm_config_*`, `.npmrc`), so `npm_config_offline=true` works offline.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { AgentError } from "../../core/index.js";
import { locateProjectConfig } from "../../core/embed.js";
import { findPluginPackage, pluginPackageNames, withFileLockAsync } from "../../kit/index.js";
import { createConfig, editPlugins, entryName, type EditResult } from "../config-edit.js";
import { defineAppCommand } from "./_define.js";
import { canPrompt } from "../context.js";
import { trustAddedPlugin } from "../trust-question.js";

/** A yes/no question on the terminal (the prompt module loads only when asked). */
async function confirmOnTerminal(question: string): Promise<boolean> {
  const { askOnStdin } = await import("../render/permission-prompt.js");
  const answer = await askOnStdin()(question, { oneKey: true });
  return /^y(es)?$/i.test(answer?.trim() ?? "");
}

interface NpmResult {
  code: number;
  output: string;
}

function npm(args: string[], cwd: string): Promise<NpmResult> {
  return new Promise((resolve) => {
    const child = spawn(process.platform === "win32" ? "npm.cmd" : "npm", [...args, "--no-audit", "--no-fund"], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (b: Buffer) => (output += b.toString()));
    child.stderr.on("data", (b: Buffer) => (output += b.toString()));
    child.on("error", (err) => resolve({ code: 1, output: `could not run npm: ${err.message}` }));
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

/** npm's cause, not its tail: the `npm error code X` line's code and the first error line after it. */
export function npmCause(output: string): { code?: string; line: string; missing?: string } {
  const errors = output.split("\n").map((l) => /^npm (?:error|ERR!) ?(.*)$/.exec(l.trim())?.[1]?.trim()).filter((l): l is string => !!l);
  const code = errors.map((l) => /^code (\S+)/.exec(l)?.[1]).find(Boolean);
  const line = errors.find((l) => !/^code \S+$/.test(l)) ?? output.trim().split("\n")[0] ?? "";
  // `404 Not Found - GET https://registry/<name> - Not found`: which package the registry lacks.
  const missing = /404 Not Found - GET \S+?\/((?:@[^/\s]+(?:\/|%2[fF]))?[^/\s]+) /.exec(line)?.[1]?.replace(/%2[fF]/, "/");
  return { code, line, ...(missing ? { missing } : {}) };
}

/** The message for an install that failed: npm's cause and code, and for a missing agent-host peer what to do. */
function installFailure(candidate: string, cause: ReturnType<typeof npmCause>): string {
  const said = `npm install ${candidate} failed${cause.code ? ` (${cause.code})` : ""}: ${cause.line}`;
  if (cause.missing !== "agent-host") return said;
  return [
    said,
    `${candidate} names agent-host as a peer dependency, and this registry has no agent-host package (it is not published).`,
    "Your agent provides agent-host to its plugins, so the peer need not be installed: either",
    `  agent plugin add ${candidate} --legacy-peer-deps     (npm installs it without its peers), or`,
    "  npm install --save-dev <agent-host tarball>         first (npm pack in an agent-host checkout), then agent plugin add again.",
  ].join("\n");
}

/**
 * Run `fn` (an npm install or uninstall) holding the lock on the project's package.json: npm rewrites
 * it whole, so parallel `agent plugin add` would lose each other's dependencies. An install can take
 * minutes, so the wait is long (`AGENT_LOCK_WAIT_MS` still bounds it).
 */
function withPackageJson<T>(projectRoot: string, fn: () => Promise<T>): Promise<T> {
  const waitMs = process.env.AGENT_LOCK_WAIT_MS ? undefined : 10 * 60_000;
  return withFileLockAsync(path.join(projectRoot, "package.json"), fn, { waitMs });
}

function readDeps(projectRoot: string): Record<string, string> {
  try {
    const pkg = JSON.parse(readFileSync(path.join(projectRoot, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
    return { ...pkg.dependencies, ...pkg.devDependencies };
  } catch {
    return {};
  }
}

const isPathSpec = (spec: string) => spec.startsWith(".") || path.isAbsolute(spec) || /\.(tgz|tar\.gz)$/.test(spec);

/** The npm name and version range part of `name@range` (a scope's `@` is not a separator). */
function splitVersion(spec: string): { name: string; range?: string } {
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0);
  return at > 0 ? { name: spec.slice(0, at), range: spec.slice(at + 1) } : { name: spec };
}

interface InstallContext {
  print(t: string): void;
  /** npm options the user chose (`--legacy-peer-deps`). */
  npmFlags: string[];
  /** Ask a yes/no question on the terminal; undefined when there is none. */
  confirm?(question: string): Promise<boolean>;
}

/** Install `spec` unless it is already there; returns the package name it installed as. */
async function install(spec: string, projectRoot: string, ctx: InstallContext): Promise<string> {
  if (isPathSpec(spec)) {
    const before = readDeps(projectRoot);
    const r = await npm(["install", "--save-dev", ...ctx.npmFlags, spec], projectRoot);
    if (r.code !== 0) throw new AgentError("E_USAGE", `npm install ${spec} failed:\n${r.output.trim()}`);
    const after = readDeps(projectRoot);
    const added = Object.keys(after).find((k) => before[k] !== after[k]) ?? Object.keys(after).find((k) => after[k].includes(path.basename(spec)));
    if (!added) throw new AgentError("E_USAGE", `npm installed ${spec}, but no new dependency appeared in ${path.join(projectRoot, "package.json")}`);
    ctx.print(`Installed ${added} from ${spec}.`);
    return added;
  }
  const { name, range } = splitVersion(spec);
  const present = range === undefined ? findPluginPackage(name, projectRoot) : undefined;
  if (present) {
    ctx.print(`${present.name} is already installed (${path.relative(projectRoot, present.dir) || present.dir}).`);
    return present.name;
  }
  // The convention first (`foo` is published as `agent-plugin-foo`), then the name as given.
  const names = pluginPackageNames(name).reverse();
  const failures: string[] = [];
  for (const candidate of names) {
    const wanted = range ? `${candidate}@${range}` : candidate;
    let flags = ctx.npmFlags;
    let r = await npm(["install", "--save-dev", ...flags, wanted], projectRoot);
    let cause = r.code === 0 ? undefined : npmCause(r.output);
    // The plugin exists; only its agent-host peer is not on the registry: with consent, install without peers.
    if (cause?.missing === "agent-host" && !flags.includes("--legacy-peer-deps") && ctx.confirm) {
      ctx.print(installFailure(candidate, cause));
      if (await ctx.confirm(`Install ${candidate} with --legacy-peer-deps now? [y/N] `)) {
        flags = [...flags, "--legacy-peer-deps"];
        r = await npm(["install", "--save-dev", ...flags, wanted], projectRoot);
        cause = r.code === 0 ? undefined : npmCause(r.output);
      }
    }
    if (!cause) {
      ctx.print(`Installed ${candidate} (npm install --save-dev ${[...flags, wanted].join(" ")}).`);
      return candidate;
    }
    failures.push(installFailure(candidate, cause));
    // Only "no such package" for this very name tries the next one (`foo`, then `agent-plugin-foo`).
    if (cause.code !== "E404" || (cause.missing && cause.missing !== candidate)) break;
  }
  throw new AgentError("E_USAGE", `could not install ${names.join(" or ")}:\n${failures.join("\n")}`);
}

/** Whether a plugins entry and a name mean the same package (`b`, `agent-plugin-b`). */
function sameEntry(entry: unknown, pkg: string): boolean {
  const name = entryName(entry);
  if (!name) return false;
  const wanted = pluginPackageNames(pkg);
  return name === pkg || pluginPackageNames(name).some((n) => wanted.includes(n));
}

function report(ctx: { print(t: string): void }, r: EditResult | "nochange", what: string): void {
  if (r === "nochange") return;
  if (r.kind === "manual") ctx.print(`${path.basename(r.file)} is code, so it was not changed: ${r.instruction}`);
  else if (r.kind === "edited") ctx.print(`${what} ${r.file}.`);
}

const add = defineAppCommand({
  name: "add",
  description: "install a plugin (npm name, folder or tarball) and add it to the project's config",
  usage: "<npm name | path | tarball> [--no-install] [--legacy-peer-deps]",
  options: {
    "no-install": { type: "boolean", description: "only add it to the config (the package is installed some other way)" },
    "legacy-peer-deps": { type: "boolean", description: "let npm install it without its peers (agent-host is not on the registry; your agent provides it)" },
  },
  async run(ctx) {
    const [spec, ...extra] = ctx.positionals;
    if (!spec || extra.length) ctx.usageError("Usage: agent plugin add <npm name | path | tarball>");
    const { projectRoot, configFile } = locateProjectConfig(ctx.cwd);
    if (!existsSync(path.join(projectRoot, "package.json")) && !ctx.values["no-install"]) {
      ctx.usageError(`${projectRoot} has no package.json to install the plugin into. Run npm init -y there first.`);
    }
    const how: InstallContext = { print: ctx.print, npmFlags: ctx.values["legacy-peer-deps"] ? ["--legacy-peer-deps"] : [], confirm: canPrompt() ? confirmOnTerminal : undefined };
    const pkg = ctx.values["no-install"] ? (isPathSpec(spec) ? spec : splitVersion(spec).name) : await withPackageJson(projectRoot, () => install(spec, projectRoot, how));
    const line = `add "${pkg}" to plugins: plugins: ["${pkg}"]`;
    const addTo = (plugins: unknown[]) => (plugins.some((e) => sameEntry(e, pkg)) ? undefined : [...plugins, pkg]);
    const result = configFile ? await editPlugins(configFile, addTo, line) : createConfig(projectRoot, addTo);
    if (result === "nochange") ctx.print(`${pkg} is already in the plugins of ${configFile ?? path.join(projectRoot, ".agentrc.json")}.`);
    else report(ctx, result, `Added "${pkg}" to the plugins in`);
    const trust = await trustAddedPlugin(projectRoot, pkg);
    if (trust) ctx.print(trust);
    ctx.print("Check it with: agent plugins");
    return 0;
  },
});

const remove = defineAppCommand({
  name: "remove",
  aliases: ["rm"],
  description: "remove a plugin from the project's config and uninstall its package",
  usage: "<name> [--keep-package]",
  options: { "keep-package": { type: "boolean", description: "leave the npm package installed" } },
  async run(ctx) {
    const [name, ...extra] = ctx.positionals;
    if (!name || extra.length) ctx.usageError("Usage: agent plugin remove <name>");
    const { projectRoot, configFile } = locateProjectConfig(ctx.cwd);
    const installed = findPluginPackage(name, projectRoot);
    const pkg = installed?.name ?? name;
    let found = false;
    if (configFile) {
      const r = await editPlugins(
        configFile,
        (plugins) => {
          const kept = plugins.filter((e) => !sameEntry(e, pkg) && !sameEntry(e, name));
          found = kept.length !== plugins.length;
          return found ? kept : undefined;
        },
        `remove the "${name}" entry from plugins`,
      );
      if (r !== "nochange") found = true;
      report(ctx, r, `Removed "${name}" from the plugins in`);
    }
    const deps = readDeps(projectRoot);
    if (!ctx.values["keep-package"] && deps[pkg]) {
      const r = await withPackageJson(projectRoot, () => npm(["uninstall", pkg], projectRoot));
      if (r.code !== 0) throw new AgentError("E_USAGE", `npm uninstall ${pkg} failed:\n${r.output.trim()}`);
      ctx.print(`Uninstalled ${pkg}.`);
      found = true;
    }
    if (!found) ctx.usageError(`no plugin "${name}" in ${configFile ?? "the project (it has no config file)"} nor in its package.json.`);
    return 0;
  },
});

export { add, remove };
