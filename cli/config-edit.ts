/**
 * Editing the `plugins` list of a project config file for `agent plugin add/remove`: JSON files
 * (`.agentrc`, `.agentrc.json`, `package.json#agent`) keep their other keys, order and indentation;
 * YAML files keep their comments (the `yaml` package's document API); a JS/TS config is code, so it is
 * not rewritten: the caller gets the exact line to add or remove. Writes are atomic.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { AgentError } from "../core/index.js";

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

function atomicWrite(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

function isYaml(file: string): boolean {
  return /\.ya?ml$/.test(file) || (path.basename(file) === ".agentrc" && !/^\s*[{[]/.test(readFileSync(file, "utf8")));
}

function editJson(file: string, change: Change, inPackageJson: boolean): boolean {
  const text = readFileSync(file, "utf8");
  let data: Record<string, unknown>;
  try {
    data = text.trim() ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch (err) {
    throw new AgentError("E_CONFIG", `${file} is not valid JSON (${(err as Error).message}); fix it by hand first.`);
  }
  const holder = (inPackageJson ? ((data.agent ??= {}) as Record<string, unknown>) : data) as Record<string, unknown>;
  const next = change(Array.isArray(holder.plugins) ? [...(holder.plugins as PluginList)] : []);
  if (!next) return false;
  holder.plugins = next;
  const indent = /^([ \t]+)"/m.exec(text)?.[1] ?? "  ";
  atomicWrite(file, `${JSON.stringify(data, null, indent)}\n`);
  return true;
}

async function editYaml(file: string, change: Change): Promise<boolean> {
  const { parseDocument } = await import("yaml");
  const doc = parseDocument(readFileSync(file, "utf8"));
  if (doc.errors.length) throw new AgentError("E_CONFIG", `${file} is not valid YAML (${doc.errors[0].message}); fix it by hand first.`);
  const current = doc.get("plugins", false) as { toJSON?: () => unknown } | undefined;
  const list = current && typeof current.toJSON === "function" ? (current.toJSON() as unknown) : undefined;
  const next = change(Array.isArray(list) ? [...list] : []);
  if (!next) return false;
  doc.set("plugins", doc.createNode(next));
  atomicWrite(file, doc.toString());
  return true;
}

/** Apply `change` to the file's plugins; undefined from `change` means nothing to do. */
export async function editPlugins(file: string, change: Change, manual: string): Promise<EditResult | "nochange"> {
  const base = path.basename(file);
  if (/^agent\.config\.(c|m)?(t|j)s$/.test(base)) return { kind: "manual", file, instruction: manual };
  const changed = isYaml(file) ? await editYaml(file, change) : editJson(file, change, base === "package.json");
  return changed ? { kind: "edited", file } : "nochange";
}

/** A new `.agentrc.json` holding just this list. */
export function createConfig(projectRoot: string, plugins: PluginList): EditResult {
  const file = path.join(projectRoot, ".agentrc.json");
  atomicWrite(file, `${JSON.stringify({ plugins }, null, 2)}\n`);
  return { kind: "edited", file };
}
