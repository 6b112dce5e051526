/**
 * Reading one of Claude Code's settings files: only what means something here is read: permission rules
 * (translated, see `translateRule`), `defaultMode`, `additionalDirectories`, `hooks`, `disableAllHooks`,
 * `env` and `sandbox`; every other key is recorded as ignored.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { AgentConfig } from "../../core/index.js";
import type { ConfigOrigin } from "../../core/embed.js";
import { ConfigError, errorMessage, parseJson, ruleProblem } from "../../kit/index.js";

export interface ClaudeSettings {
  file: string;
  /** Core keys, ready to merge. */
  core: AgentConfig;
  /** Keys plugins own (`hooks`, `hooksConfig`), checked by their owners' schemas. */
  extra: Record<string, unknown>;
  origins: ConfigOrigin[];
  /** Parts that were deliberately not applied (reported as warnings). */
  warnings: string[];
  /** `allowManagedPermissionRulesOnly`: meaningful in the managed file only (allow rules of other files are dropped). */
  managedRulesOnly?: boolean;
}

/** Claude Code's tools whose rule patterns are paths. */
const PATH_TOOLS = new Set(["Read", "Edit", "Write", "MultiEdit", "Glob", "Grep", "LS", "NotebookEdit", "NotebookRead"]);
/**
 * Claude Code applies `Read` rules to every tool that reads files and `Edit` rules to every tool that
 * edits one; here those are separate tools, so such a rule becomes one rule per tool.
 */
const ALSO_FOR: Record<string, string[]> = { Read: ["Read", "Grep", "Glob"], Edit: ["Edit", "Write"] };
const MODES: Record<string, "default" | "acceptEdits" | "plan"> = { default: "default", acceptEdits: "acceptEdits", plan: "plan" };

/**
 * A rule of Claude Code's as rules of this host. Tool names stay Claude Code's (`Bash`, `Read`…): the
 * built-in tools answer to them as aliases, so `Bash(npm test:*)` applies to `run_command`. Path
 * patterns are made relative to the project root: `./x` and `/x` (from the folder holding `.claude/`)
 * become `/x`, `//abs` and `~/x` an absolute path (relative when inside the project). `mcp__server`
 * (a whole server in Claude Code) becomes `mcp__server__*`.
 */
export function translateRule(rule: string, root: string, projectRoot: string, home = homedir()): string[] {
  const open = rule.indexOf("(");
  const tool = (open < 0 ? rule : rule.slice(0, open)).trim();
  if (open < 0) {
    if (tool.startsWith("mcp__") && !tool.slice(5).includes("__")) return [`${tool}__*`];
    return [rule];
  }
  let pattern = rule.slice(open + 1, rule.endsWith(")") ? -1 : undefined);
  if (PATH_TOOLS.has(tool)) pattern = pathPattern(pattern, root, projectRoot, home);
  return (ALSO_FOR[tool] ?? [tool]).map((t) => `${t}(${pattern})`);
}

function pathPattern(p: string, root: string, projectRoot: string, home: string): string {
  let abs: string | undefined;
  if (p.startsWith("//")) abs = p.slice(1);
  else if (p === "~" || p.startsWith("~/")) abs = path.join(home, p.slice(1));
  else if (p.startsWith("/")) abs = path.join(root, p);
  else if (p.startsWith("./")) abs = path.join(projectRoot, p.slice(2));
  if (abs === undefined) return p;
  // A trailing slash means "this folder" in a gitignore pattern: keep it.
  const slash = p.endsWith("/") ? "/" : "";
  abs = abs.replace(/\/+$/, "") || "/";
  const rel = path.relative(projectRoot, abs);
  if (rel === "") return "/";
  if (!rel.startsWith("..") && !path.isAbsolute(rel)) return `/${rel.split(path.sep).join("/")}${slash}`;
  return `/${abs}${abs === "/" ? "" : slash}`;
}

/** Read one settings file; errors name the file and the key, as for agent-host's own files. */
export async function readClaudeSettings(file: string, root: string, projectRoot: string): Promise<ClaudeSettings> {
  let raw: unknown;
  try {
    raw = await parseJson(readFileSync(file, "utf8"));
  } catch (err) {
    throw new ConfigError(file, [{ path: "", message: `could not be read: ${errorMessage(err)}` }]);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new ConfigError(file, [{ path: "", message: "expected an object" }]);
  const out: ClaudeSettings = { file, core: {}, extra: {}, origins: [], warnings: [] };
  const bad = (key: string, message: string): never => {
    throw new ConfigError(file, [{ path: key, message }]);
  };
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (key === "permissions") readPermissions(value, out, root, projectRoot, bad);
    else if (key === "hooks") {
      out.extra.hooks = value;
      for (const event of typeof value === "object" && value ? Object.keys(value) : []) out.origins.push({ key: `hooks.${event}`, file });
    } else if (key === "disableAllHooks") {
      if (typeof value !== "boolean") bad(key, "expected true or false");
      out.extra.hooksConfig = { disabled: value };
      out.origins.push({ key: "hooksConfig.disabled", file, value: String(value), written: `disableAllHooks: ${value}` });
    } else if (key === "env") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) bad(key, "expected an object of variable names and values");
      const env: Record<string, string> = {};
      for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) bad(`env.${name}`, "expected an environment variable name (letters, digits, _)");
        if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") bad(`env.${name}`, "expected a string");
        env[name] = String(v);
        out.origins.push({ key: `env.${name}`, file });
      }
      out.core.env = env;
    } else if (key === "sandbox") readSandbox(value, out, root, bad);
    else if (key === "allowManagedPermissionRulesOnly" && value === true) {
      out.managedRulesOnly = true;
      out.origins.push({ key, file, note: "applies in the managed settings file only" });
    }
    else if (key === "enabledPlugins" || key === "extraKnownMarketplaces") out.origins.push({ key, file, note: "read by agent plugin (Claude Code plugins)" });
    else out.origins.push({ key, file, note: "ignored: it means nothing to agent-host" });
  }
  return out;
}

function restrictive(v: unknown): boolean {
  return v === false || v === null || (Array.isArray(v) && v.length === 0);
}

/** A list of non-empty strings, or a ConfigError naming the key. */
function stringList(value: unknown, where: string, bad: (key: string, message: string) => never): string[] {
  if (value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || !v)) bad(where, "expected a list of non-empty strings");
  return value as string[];
}

/** `~/x` from the home folder, a relative path from the folder holding `.claude/`. */
function settingsPath(p: string, root: string, home = homedir()): string {
  if (p === "~" || p.startsWith("~/")) return path.join(home, p.slice(1));
  return path.resolve(root, p);
}

/**
 * Claude Code's `sandbox` onto agent-host's: network.allowedDomains → `sandbox.network`, filesystem
 * allowWrite / denyRead → `sandbox.allowWrite` / `denyRead`. agent-host's sandbox is on by default and
 * commands never leave it on the model's say, so `enabled` and the escape hatches are warned about, not applied.
 */
function readSandbox(value: unknown, out: ClaudeSettings, root: string, bad: (key: string, message: string) => never): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) bad("sandbox", "expected an object");
  const sandbox: NonNullable<AgentConfig["sandbox"]> = {};
  const notApplied = (key: string, why: string, v?: unknown) => {
    // A value that asks for no more than agent-host's sandbox already does (false, [], null) needs no warning.
    if (restrictive(v)) return void out.origins.push({ key: `sandbox.${key}`, file: out.file, note: "agent-host's sandbox already behaves so" });
    out.warnings.push(`${out.file}: sandbox.${key} was not applied: ${why}.`);
    out.origins.push({ key: `sandbox.${key}`, file: out.file, note: "not applied" });
  };
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key === "network" && v && typeof v === "object" && !Array.isArray(v)) {
      for (const [nk, nv] of Object.entries(v as Record<string, unknown>)) {
        if (nk === "allowedDomains") {
          const hosts = stringList(nv, "sandbox.network.allowedDomains", bad);
          // No hosts is agent-host's default (no network): nothing to add.
          if (hosts.length) sandbox.network = hosts;
          out.origins.push({ key: "sandbox.network", file: out.file, value: hosts.join(", ") || "none", written: "sandbox.network.allowedDomains" });
        } else notApplied(`network.${nk}`, "agent-host's sandbox allows hosts by name only (sandbox.network)", nv);
      }
    } else if (key === "filesystem" && v && typeof v === "object" && !Array.isArray(v)) {
      for (const [fk, fv] of Object.entries(v as Record<string, unknown>)) {
        if (fk === "allowWrite" || fk === "denyRead") {
          const paths = stringList(fv, `sandbox.filesystem.${fk}`, bad).map((p) => settingsPath(p, root));
          if (paths.length) sandbox[fk] = paths;
          out.origins.push({ key: `sandbox.${fk}`, file: out.file, value: paths.join(", "), written: `sandbox.filesystem.${fk}` });
        } else notApplied(`filesystem.${fk}`, "it has no equivalent here (sandbox.allowWrite and sandbox.denyRead do)", fv);
      }
    } else if (key === "enabled") {
      if (v !== true) notApplied("enabled", "agent-host's sandbox is on unless agent-host's own config says sandbox.enabled: false");
      else out.origins.push({ key: "sandbox.enabled", file: out.file, value: "true", note: "agent-host's sandbox is on by default" });
    } else notApplied(key, "commands run in agent-host's sandbox by its own rules; there is no way out of it for a command", v);
  }
  if (Object.keys(sandbox).length) out.core.sandbox = sandbox;
}

function readPermissions(value: unknown, out: ClaudeSettings, root: string, projectRoot: string, bad: (key: string, message: string) => never): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) bad("permissions", "expected an object");
  const perms: NonNullable<AgentConfig["permissions"]> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const where = `permissions.${key}`;
    if (key === "allow" || key === "ask" || key === "deny") {
      if (!Array.isArray(v)) bad(where, "expected a list of rules");
      const list: string[] = [];
      (v as unknown[]).forEach((rule, i) => {
        if (typeof rule !== "string") bad(`${where}[${i}]`, "expected a rule (a string)");
        const problem = ruleProblem(rule);
        if (problem) bad(`${where}[${i}]`, `invalid rule ${JSON.stringify(rule)}: ${problem}`);
        const rules = translateRule(rule, root, projectRoot);
        for (const r of rules) {
          const p = ruleProblem(r);
          if (p) bad(`${where}[${i}]`, `rule ${JSON.stringify(rule)} cannot be read here: ${p}`);
          if (!list.includes(r)) list.push(r);
          out.origins.push({ key: where, file: out.file, value: r, ...(rules.length > 1 || r !== rule ? { written: rule } : {}) });
        }
      });
      perms[key] = list;
    } else if (key === "defaultMode") {
      const mode = typeof v === "string" ? MODES[v] : undefined;
      if (mode) {
        perms.mode = mode;
        out.origins.push({ key: "permissions.mode", file: out.file, value: mode, written: `defaultMode: ${v}` });
      } else {
        const why =
          v === "bypassPermissions"
            ? "bypass mode is only ever chosen in agent-host's own config or with --permission-mode bypass"
            : "it has no equivalent here (modes: default, plan, acceptEdits, bypass)";
        out.warnings.push(`${out.file}: permissions.defaultMode ${JSON.stringify(v)} was not applied: ${why}.`);
        out.origins.push({ key: "permissions.mode", file: out.file, written: `defaultMode: ${String(v)}`, note: "not applied" });
      }
    } else if (key === "additionalDirectories") {
      const roots = stringList(v, where, bad).map((p) => settingsPath(p, root));
      out.core.workspace = { roots };
      for (const r of roots) out.origins.push({ key: "workspace.roots", file: out.file, value: r, written: `permissions.additionalDirectories` });
    } else if (key === "disableBypassPermissionsMode") {
      if (v !== "disable") bad(where, 'expected "disable"');
      perms.disableBypass = true;
      out.origins.push({ key: "permissions.disableBypass", file: out.file, value: "true", written: `disableBypassPermissionsMode: "disable"` });
    } else out.origins.push({ key: where, file: out.file, note: "ignored: it means nothing to agent-host" });
  }
  if (Object.keys(perms).length) out.core.permissions = perms;
}
