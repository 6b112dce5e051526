/** What the `agent plugin` subcommands of cli.ts do. */
import { existsSync } from "node:fs";
import { AgentError, type CliContext } from "../../core/index.js";
import { defaultUserConfigDir } from "../../core/embed.js";
import { projectChoices, projectSettings } from "./enabled.js";
import { hashFolder } from "./hash.js";
import { additionsOf, commitPlugin, installedFrom, newlyAdded, preparePlugin, uninstallPlugin, type Additions, type Prepared } from "./install.js";
import { addMarketplace, describeSource, getMarketplace, removeMarketplace, updateMarketplace } from "./marketplace.js";
import { isPlainObject, readPackage, type PluginPackage } from "./package.js";
import { parseScope, setProjectChoice } from "./settings.js";
import { readLock, readMarketplaces, updateLock, type LockEntry } from "./store.js";

type Ctx = CliContext<Record<string, any>>;

const home = () => defaultUserConfigDir();
const canAsk = () => !!process.stdin.isTTY && !!process.stderr.isTTY && process.env.CI !== "true";

function onePositional(ctx: Ctx, what: string): string {
  const [value, extra] = ctx.positionals;
  if (!value) ctx.usageError(`give ${what}`);
  if (extra !== undefined) ctx.usageError(`one ${what} at a time (got "${extra}" too)`);
  return value;
}

async function project(ctx: Ctx): Promise<{ root: string; trusted: boolean }> {
  const prepared = await ctx.prepare();
  return { root: prepared.projectRoot, trusted: prepared.trust.state !== "untrusted" };
}

async function ask(question: string): Promise<string> {
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

export async function marketplaceAdd(ctx: Ctx): Promise<number> {
  const spec = onePositional(ctx, "a marketplace: a folder, a git URL or owner/repo");
  const added = await addMarketplace(home(), spec, ctx.cwd);
  const { market } = getMarketplace(home(), added.name);
  ctx.print(`Added marketplace ${added.name} (${market.plugins.length} plugin(s)) from ${describeSource(added.source)}.`);
  ctx.print(`Install one with: agent plugin install <plugin>@${added.name}`);
  return 0;
}

export async function marketplaceList(ctx: Ctx): Promise<number> {
  const all = Object.values(readMarketplaces(home()));
  const rows = all.map((m) => {
    let plugins: string;
    try {
      plugins = getMarketplace(home(), m.name).market.plugins.map((p) => p.name).join(", ");
    } catch (err) {
      plugins = `unreadable: ${(err as Error).message}`;
    }
    return { ...m, plugins };
  });
  if (ctx.values.json) ctx.printJson(rows);
  else if (!rows.length) ctx.print("No marketplaces. Add one with: agent plugin marketplace add <path | git URL | owner/repo>");
  else ctx.print(ctx.table(rows.map((r) => [r.name, describeSource(r.source), r.plugins]), ["MARKETPLACE", "SOURCE", "PLUGINS"]));
  return 0;
}

export async function marketplaceUpdate(ctx: Ctx): Promise<number> {
  const names = ctx.positionals.length ? ctx.positionals : Object.keys(readMarketplaces(home()));
  for (const name of names) {
    await updateMarketplace(home(), name);
    ctx.print(`Updated marketplace ${name}.`);
  }
  return 0;
}

export async function marketplaceRemove(ctx: Ctx): Promise<number> {
  const name = onePositional(ctx, "a marketplace name");
  getMarketplace(home(), name);
  for (const e of installedFrom(home(), name)) {
    uninstallPlugin(home(), e.id, false);
    ctx.print(`Uninstalled ${e.id}.`);
  }
  removeMarketplace(home(), name);
  ctx.print(`Removed marketplace ${name}.`);
  return 0;
}

function describeAdditions(a: Additions): string[] {
  const line = (label: string, list: string[]) => (list.length ? [`  ${label}: ${list.join(", ")}`] : []);
  return [
    ...line("commands", a.commands),
    ...line("skills", a.skills),
    ...line("agents (not supported yet: subagents)", a.agents),
    ...(a.hooks.length ? ["  hook commands (run on your machine):", ...a.hooks.map((h) => `    ${h}`)] : []),
    ...(a.servers.length ? ["  MCP servers (run on your machine):", ...a.servers.map((s) => `    ${s}`)] : []),
    ...line("not supported here", a.notSupported),
  ];
}

/** The plugin's `userConfig` values: `--config KEY=VALUE`, the previous install's, asked on a terminal, or the default. */
async function userConfigValues(ctx: Ctx, pkg: PluginPackage, previous: Record<string, string> | undefined): Promise<Record<string, string> | undefined> {
  const fields = pkg.userConfig;
  const given = new Map<string, string>();
  for (const pair of (ctx.values.config as string[] | undefined) ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0) ctx.usageError(`--config takes KEY=VALUE, not "${pair}"`);
    const key = pair.slice(0, eq);
    if (!(key in fields)) ctx.usageError(`--config ${key}: plugin ${pkg.name} asks for ${Object.keys(fields).join(", ") || "no values"}`);
    given.set(key, pair.slice(eq + 1));
  }
  const out: Record<string, string> = {};
  for (const [key, field] of Object.entries(fields)) {
    let value = given.get(key) ?? previous?.[key];
    if (value === undefined && canAsk()) {
      const label = field.title ?? key;
      const answer = await ask(`${label}${field.description ? ` (${field.description})` : ""}${field.default !== undefined ? ` [${String(field.default)}]` : ""}: `);
      value = answer || undefined;
    }
    value ??= field.default !== undefined ? String(field.default) : undefined;
    if (value === undefined && field.required) throw new AgentError("E_USAGE", `plugin ${pkg.name} needs ${key}${field.description ? ` (${field.description})` : ""}: pass --config ${key}=<value>`);
    if (value !== undefined) out[key] = value;
  }
  return Object.keys(out).length ? out : undefined;
}

export async function install(ctx: Ctx): Promise<number> {
  const id = onePositional(ctx, "<plugin>@<marketplace>");
  const scope = parseScope(ctx.values.scope);
  const where = scope === "user" ? undefined : await project(ctx);
  const p = await preparePlugin(home(), id);
  let userConfig: Record<string, string> | undefined;
  try {
    userConfig = await userConfigValues(ctx, p.pkg, p.previous?.userConfig);
  } catch (err) {
    p.discard();
    throw err;
  }
  ctx.print(`${p.previous ? "Reinstalling" : "Installing"} ${id}${p.pkg.version ? ` ${p.pkg.version}` : ""} from ${p.entry.source}. It adds:`);
  ctx.print(describeAdditions(p.additions).join("\n") || "  nothing agent-host loads");
  const entry = commitPlugin(home(), p, { enabled: scope === "user" ? true : (p.previous?.enabled ?? false), ...(userConfig ? { userConfig } : {}) });
  if (where) ctx.print(`Enabled in ${setProjectChoice(where.root, scope as "project" | "local", id, true)}.`);
  ctx.print(`Installed ${id} (sha256 ${entry.sha256}) in ${entry.path}.`);
  return 0;
}

export async function uninstall(ctx: Ctx): Promise<number> {
  const id = onePositional(ctx, "<plugin>@<marketplace>");
  uninstallPlugin(home(), id, ctx.values["keep-data"] === true);
  ctx.print(`Uninstalled ${id}.`);
  return 0;
}

export async function setEnabled(ctx: Ctx, on: boolean): Promise<number> {
  const id = onePositional(ctx, "<plugin>@<marketplace>");
  const scope = parseScope(ctx.values.scope);
  if (!readLock(home()).plugins[id]) throw new AgentError("E_USAGE", `plugin ${id} is not installed; install it with: agent plugin install ${id}`);
  if (scope === "user") {
    updateLock(home(), (lock) => {
      lock.plugins[id].enabled = on;
    });
    ctx.print(`${on ? "Enabled" : "Disabled"} ${id} for you (every project that does not say otherwise).`);
  } else {
    const file = setProjectChoice((await project(ctx)).root, scope, id, on);
    ctx.print(`${on ? "Enabled" : "Disabled"} ${id} in ${file}.`);
  }
  return 0;
}

function statusOf(e: LockEntry): string {
  if (!existsSync(e.path)) return "missing: install it again";
  try {
    return hashFolder(e.path) === e.sha256 ? "ok" : `changed since install: not loaded until agent plugin update ${e.id}`;
  } catch (err) {
    return `unreadable: ${(err as Error).message}`;
  }
}

function additionsAt(e: LockEntry): Additions | undefined {
  try {
    return additionsOf(readPackage(e.path));
  } catch {
    return undefined;
  }
}

/** What a trusted project lists that is not here yet: plugins to install, marketplaces to add. */
function offers(root: string): string[] {
  const lock = readLock(home());
  const known = readMarketplaces(home());
  const out: string[] = [];
  for (const [id, on] of projectChoices(root)) if (on && !lock.plugins[id]) out.push(`this project enables ${id}, not installed: agent plugin install ${id}`);
  for (const { file, data } of projectSettings(root)) {
    if (!isPlainObject(data.extraKnownMarketplaces)) continue;
    for (const [name, spec] of Object.entries(data.extraKnownMarketplaces)) {
      if (known[name]) continue;
      const src = isPlainObject(spec) && isPlainObject(spec.source) ? spec.source : {};
      const where = typeof src.repo === "string" ? src.repo : typeof src.url === "string" ? src.url : typeof src.path === "string" ? src.path : "<source>";
      out.push(`${file} names marketplace ${name}: agent plugin marketplace add ${where}`);
    }
  }
  return out;
}

export async function list(ctx: Ctx): Promise<number> {
  const { root, trusted } = await project(ctx);
  const choices = trusted ? projectChoices(root) : new Map<string, boolean>();
  const plugins = Object.values(readLock(home()).plugins).map((e) => ({
    ...e,
    userConfig: e.userConfig ? Object.keys(e.userConfig) : undefined,
    enabledHere: choices.get(e.id) ?? e.enabled,
    status: statusOf(e),
    adds: additionsAt(e),
  }));
  const offered = trusted ? offers(root) : [];
  if (ctx.values.json) {
    ctx.printJson({ plugins, offers: offered });
    return 0;
  }
  if (!plugins.length) ctx.print("No plugins installed. Add a marketplace (agent plugin marketplace add) and install from it (agent plugin install <plugin>@<marketplace>).");
  else ctx.print(ctx.table(plugins.map((p) => [p.id, p.version ?? "", p.enabledHere ? "enabled" : "disabled", p.status, p.sha256.slice(0, 16)]), ["PLUGIN", "VERSION", "HERE", "STATUS", "SHA256"]));
  for (const p of plugins) for (const n of p.adds?.notSupported ?? []) ctx.print(`${p.id}: not supported here: ${n}`);
  for (const o of offered) ctx.print(o);
  return 0;
}

async function confirmAdded(ctx: Ctx, p: Prepared, added: string[]): Promise<boolean> {
  if (ctx.values.yes === true) return true;
  const what = `${p.id} now adds:\n${added.map((a) => `  ${a}`).join("\n")}`;
  if (!canAsk()) throw new AgentError("E_USAGE", `${what}\nNot updated: run again with --yes to accept`);
  ctx.warn(what);
  return /^y(es)?$/i.test((await ask("Update and run these? [y/N] ")).trim());
}

export async function update(ctx: Ctx): Promise<number> {
  const lock = readLock(home());
  const ids = ctx.positionals.length ? ctx.positionals : Object.keys(lock.plugins);
  if (!ids.length) ctx.print("No plugins installed.");
  for (const id of ids) {
    const old = lock.plugins[id];
    if (!old) throw new AgentError("E_USAGE", `plugin ${id} is not installed`);
    const p = await preparePlugin(home(), id, { fetchMarketplace: true });
    if (p.entry.sha256 === old.sha256 && statusOf(old) === "ok") {
      p.discard();
      ctx.print(`${id} is up to date (sha256 ${old.sha256}).`);
      continue;
    }
    const added = newlyAdded(p);
    if (added.length && !(await confirmAdded(ctx, p, added))) {
      p.discard();
      ctx.print(`${id} not updated.`);
      continue;
    }
    const entry = commitPlugin(home(), p);
    ctx.print(`Updated ${id}${entry.version ? ` to ${entry.version}` : ""} (sha256 ${entry.sha256}).`);
  }
  return 0;
}
