/**
 * The Claude Code features a project (and the user's Claude Code setup) uses that agent-host does not
 * support, for `agent doctor`: settings keys read and ignored (from the config origins), and folders
 * Claude Code reads that nothing here does. Each is named with where it is, never silently passed over.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { PluginHost } from "../core/index.js";

/** What a folder of `.claude/` is for in Claude Code, when nothing here reads it. */
const CLAUDE_FOLDERS: Record<string, string> = {
  "output-styles": "output styles: agent-host has no output styles",
};

/** Why a settings key means nothing here, where there is more to say than "not supported". */
const KEY_NOTES: Record<string, string> = {
  model: "choose the model in agent-host's config (model) or with --model",
  statusLine: "agent-host has no status line command",
  includeCoAuthoredBy: "agent-host writes no commit trailers of its own",
  outputStyle: "agent-host has no output styles",
  apiKeyHelper: "providers read their keys from the environment or config providers.<name>.apiKey",
};

export interface UnsupportedFeature {
  feature: string;
  where: string;
  note: string;
}

export function unsupportedClaudeFeatures(host: PluginHost): UnsupportedFeature[] {
  const out: UnsupportedFeature[] = [];
  for (const o of host.configOrigins) {
    // Only Claude Code's settings files leave keys "ignored" (agent-host's own reject unknown keys).
    if (!o.note?.startsWith("ignored") || o.key.startsWith("$")) continue;
    out.push({ feature: `setting ${o.key}`, where: o.file, note: KEY_NOTES[o.key] ?? "not supported in agent-host; ignored" });
  }
  const dotClaude = path.join(host.workspace.root, ".claude");
  for (const [folder, note] of Object.entries(CLAUDE_FOLDERS)) {
    const dir = path.join(dotClaude, folder);
    const n = countMarkdown(dir);
    if (n > 0) out.push({ feature: `${folder}/ (${n} file${n === 1 ? "" : "s"})`, where: dir, note });
  }
  return out;
}

function countMarkdown(dir: string): number {
  try {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return 0;
    return readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith(".md")).length;
  } catch {
    return 0;
  }
}
