/**
 * Editing the `plugins` list of a project config file for `agent plugin add/remove`: JSON files
 * (`.agentrc`, `.agentrc.json`, `package.json#agent`) keep their other keys, order and indentation;
 * YAML files keep their comments (the `yaml` package's document API); a JS/TS config is code, so it is
 * not rewritten: the caller gets the exact line to add or remove. Each edit runs under the file's lock
 * on what is on disk then (parallel `agent plugin add` keep every entry), written atomically.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { AgentError } from "../core/index.js";
import { updateFileLocked } from "../kit/index.js";

export type EditResult =
  | { kind: "edited"; file: string }
  | { kind: "unchanged"; file: string; reason: string }
  /** A JS/TS config: the user edits it by hand. */
  | { kind: "manual"; file: string; instruction: string };

type PluginList = unknown[];
type Change = (plugins: PluginList) => PluginList | undefined;

/** The plugin name of a `plugins` entry (`"name"`, `["name", options]`, or an inline object). */
export function entryName(entry: unknown): string | undefined {
  if (typeof entry === "string") return entry;
  if (Array.isArray(entry) && typeof entry[0] === "string") return entry[0];
  if (entry && typeof entry === "object" && typeof (entry as { name?: unknown }).name === "string") return (entry as { name: string }).name;
  return undefined;
}

function isYaml(file: string): boolean {
  return /\.ya?ml$/.test(file) || (path.basename(file) === ".agentrc" && !/^\s*[{[]/.test(readFileSync(file, "utf8")));
}

/** The new text of a JSON config (undefined: nothing to do); a missing file is an empty one. */
function editJson(file: string, text: string | undefined, change: Change, inPackageJson: boolean): string | undefined {
  const raw = text ?? "";
  let data: Record<string, unknown>;
  try {
    data = raw.trim() ? (JSON.parse(raw) as Record<string, unknown>) : {};
  } catch (err) {
    throw new AgentError("E_CONFIG", `${file} is not valid JSON (${(err as Error).message}); fix it by hand first.`);
  }
  const holder = (inPackageJson ? ((data.agent ??= {}) as Record<string, unknown>) : data) as Record<string, unknown>;
  const next = change(Array.isArray(holder.plugins) ? [...(holder.plugins as PluginList)] : []);
  if (!next) return undefined;
  holder.plugins = next;
  const indent = /^([ \t]+)"/m.exec(raw)?.[1] ?? "  ";
  return `${JSON.stringify(data, null, indent)}\n`;
}

type Yaml = typeof import("yaml");

function editYaml(yaml: Yaml, file: string, text: string | undefined, change: Change): string | undefined {
  const doc = yaml.parseDocument(text ?? "");
  if (doc.errors.length) throw new AgentError("E_CONFIG", `${file} is not valid YAML (${doc.errors[0].message}); fix it by hand first.`);
  const current = doc.get("plugins", false) as { toJSON?: () => unknown } | undefined;
  const list = current && typeof current.toJSON === "function" ? (current.toJSON() as unknown) : undefined;
  const next = change(Array.isArray(list) ? [...list] : []);
  if (!next) return undefined;
  doc.set("plugins", doc.createNode(next));
  return doc.toString();
}

/** Apply `change` to the file's plugins; undefined from `change` means nothing to do. */
export async function editPlugins(file: string, change: Change, manual: string): Promise<EditResult | "nochange"> {
  const base = path.basename(file);
  if (/^agent\.config\.(c|m)?(t|j)s$/.test(base)) return { kind: "manual", file, instruction: manual };
  // Loaded before the lock: the edit runs under it and must not await.
  const yaml = isYaml(file) ? await import("yaml") : undefined;
  const { written } = updateFileLocked(file, (text) => (yaml ? editYaml(yaml, file, text, change) : editJson(file, text, change, base === "package.json")));
  return written ? { kind: "edited", file } : "nochange";
}

/**
 * A new `.agentrc.json` with `change` applied to an empty list; when a parallel `agent plugin add`
 * created it meanwhile, `change` is applied to its list instead.
 */
export function createConfig(projectRoot: string, change: Change): EditResult | "nochange" {
  const file = path.join(projectRoot, ".agentrc.json");
  const { written } = updateFileLocked(file, (text) => editJson(file, text, change, false));
  return written ? { kind: "edited", file } : "nochange";
}
