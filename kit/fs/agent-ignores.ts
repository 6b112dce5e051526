/** The project's `.agent/.gitignore`: what the host writes there that is this machine's own stays out of git. */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * What the host writes under `.agent/` that is this machine's own (the rest, `skills/` and `commands/`,
 * is the project's, to share): listed in `.agent/.gitignore` as soon as any of it is written.
 */
export const MACHINE_LOCAL_ENTRIES: readonly string[] = ["settings.local.json", "sessions/", "audit.jsonl", "logs/", "cache/", "transcripts/"];

/**
 * Make `.agent/.gitignore` (in `agentDir`, the project's `.agent` folder) list `entry` (a file name, or a
 * folder as `name/`) and every other machine-local entry, whatever the project's own .gitignore says.
 * Lines the user added stay; an entry already there (in any of its spellings) is not added again.
 */
export function ensureAgentIgnores(agentDir: string, entry: string): void {
  const gitignore = path.join(agentDir, ".gitignore");
  const text = existsSync(gitignore) ? readFileSync(gitignore, "utf8") : "";
  const lines = new Set(text.split(/\r?\n/).map((l) => l.trim()));
  const listed = (e: string) => {
    const bare = e.replace(/\/$/, "");
    return [bare, `/${bare}`, `${bare}/`, `/${bare}/`].some((l) => lines.has(l));
  };
  const missing = [entry, ...MACHINE_LOCAL_ENTRIES.filter((e) => e !== entry)].filter((e) => !listed(e));
  if (!missing.length) return;
  const head = text ? (text.endsWith("\n") ? "" : "\n") : "# Written by agent-host: this machine's own settings, sessions, logs and caches, not shared.\n";
  writeFileSync(gitignore, `${text}${head}${missing.join("\n")}\n`);
}
