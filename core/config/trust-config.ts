/**
 * What a folder's own config files may do before the folder is trusted: everything that narrows (deny
 * and ask rules, plan mode, the model, instructions) applies; every part that runs code or widens (allow
 * rules, a wider mode, grants, env for commands, plugins, extra roots, the audit, risk overrides, provider
 * endpoints, plugin sections that are not inert, a wider sandbox) is one trust item, kept only when
 * `FolderTrust` admits it.
 */
import type { AgentConfig } from "./config-schema.js";
import type { PluginConfigSection } from "../plugin-types.js";
import type { FolderTrust } from "./trust.js";
import { fileDigest } from "../../kit/fs/trust-store.js";
import { isPlainObject, keepEntries as keep } from "../../kit/text/plain-object.js";
import { pluginEntrySpec } from "../../kit/config/plugin-entries.js";
import { narrowSandbox } from "./sandbox-narrow.js";
import type { PermissionMode } from "../types.js";

const MODE_RANK: Record<PermissionMode, number> = { plan: 0, default: 1, acceptEdits: 2, bypass: 3 };

/**
 * Core's keys of one folder file with every widening part the trust does not admit left out.
 * `userMode`: the mode the user's own files chose, which a folder may only narrow; `userSandbox`: their
 * `sandbox` setting, likewise.
 */
export function narrowFolderConfig(core: AgentConfig, file: string, trust: FolderTrust, userMode: PermissionMode | undefined, userSandbox?: AgentConfig["sandbox"]): AgentConfig {
  const admit = (kind: string, name: string, value: unknown, detail?: string) => trust.admit({ kind, name, file, value, ...(detail !== undefined ? { detail } : {}) });
  const out: AgentConfig = { ...core };
  if (core.permissions) out.permissions = narrowPermissions(core.permissions, admit, userMode);
  if (core.env) out.env = keep(core.env, (name, value) => admit("environment variable", name, value, `${name} for the commands tools and hooks run`));
  if (core.plugins) {
    out.plugins = core.plugins.filter((entry) => {
      const { name, options } = pluginEntrySpec(entry);
      const local = name.startsWith(".") || name.startsWith("/");
      return admit("plugin", name, { options, code: local ? fileDigest(name) : undefined }, local ? `runs ${name} in the agent's process` : `runs the npm package ${name}`);
    });
  }
  if (core.disabledPlugins && !admit("disabled plugins", core.disabledPlugins.join(", "), core.disabledPlugins)) delete out.disabledPlugins;
  if (core.workspace?.roots) out.workspace = { ...core.workspace, roots: core.workspace.roots.filter((r) => admit("workspace root", r, r, `tools may read and write in ${r}`)) };
  if (core.audit && !admit("audit setting", JSON.stringify(core.audit), core.audit)) delete out.audit;
  const compat = core.compat && keep(core.compat, (name, on) => on || admit("compat setting", `${name}: false`, false, `ignores the ${name} config source's files, your own included`));
  if (compat && !Object.keys(compat).length) delete out.compat;
  else if (compat) out.compat = compat;
  if (core.providers) out.providers = keep(core.providers, (name, value) => admit("provider settings", name, value, `sends model requests (and your API key) as ${name} settings say`));
  if (core.tools?.overrides) out.tools = { ...core.tools, overrides: narrowRiskOverrides(core.tools.overrides, admit) };
  if (core.sandbox) out.sandbox = narrowSandbox(core.sandbox, userSandbox, admit);
  return out;
}

type Admit = (kind: string, name: string, value: unknown, detail?: string) => boolean;

function narrowPermissions(p: NonNullable<AgentConfig["permissions"]>, admit: Admit, userMode: PermissionMode | undefined): NonNullable<AgentConfig["permissions"]> {
  const out = { ...p };
  if (p.allow) out.allow = p.allow.filter((rule) => admit("allow rule", rule, rule));
  if (p.mode && MODE_RANK[p.mode] > MODE_RANK[userMode ?? "default"] && !admit("permission mode", p.mode, p.mode)) delete out.mode;
  if (p.grants === "allow" && !admit("grants", "allow", "allow", "a skill's allowed-tools are granted without asking")) delete out.grants;
  return out;
}

function narrowRiskOverrides(overrides: NonNullable<NonNullable<AgentConfig["tools"]>["overrides"]>, admit: Admit): typeof overrides {
  const out: typeof overrides = {};
  for (const [name, o] of Object.entries(overrides)) {
    if (o.risk === undefined || admit("risk override", name, o.risk, `${name} is treated as ${o.risk}`)) out[name] = o;
    else {
      const { risk: _risk, ...rest } = o;
      out[name] = rest;
    }
  }
  return out;
}

/** A section as a file gave it (core/config/config.ts `RawSection`); `folder`: from a file of the folder, not the user's. */
interface FileSection {
  file: string;
  key: string;
  value: unknown;
  folder?: boolean;
}

/**
 * Plugin sections from a folder's files: an inert one applies as it is; any other is kept only as far as
 * the trust admits it (the whole value, or entry by entry). A section no loaded plugin owns is one part.
 */
export function admitFolderSections<S extends FileSection>(raw: S[], sectionOf: (key: string) => PluginConfigSection | undefined, trust: FolderTrust): S[] {
  const out: S[] = [];
  for (const s of raw) {
    if (!s.folder) {
      out.push(s);
      continue;
    }
    const rule = sectionOf(s.key)?.trust;
    if (rule === "inert") out.push(s);
    else if (rule && isPlainObject(s.value)) {
      const kept = keep(s.value, (name, value) => trust.admit({ kind: rule.entries, name, file: s.file, value, ...describe(rule, value, name) }));
      if (Object.keys(kept).length) out.push({ ...s, value: kept });
    } else if (trust.admit({ kind: "config section", name: s.key, file: s.file, value: s.value })) out.push(s);
  }
  return out;
}

function describe(rule: { describe?(entry: unknown, key: string): string | undefined }, value: unknown, name: string): { detail?: string } {
  try {
    const detail = rule.describe?.(value, name);
    return typeof detail === "string" && detail ? { detail } : {};
  } catch {
    return {};
  }
}
