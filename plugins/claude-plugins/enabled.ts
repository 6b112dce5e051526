/**
 * Which installed plugins run in a project: the user's choice (`enabled` in the lock), then Claude
 * Code's `enabledPlugins` of the project's `.claude/settings.json` and `.claude/settings.local.json`
 * (local last), which count only once the folder is trusted. A project may list a plugin that is not
 * installed, or a marketplace to know (`extraKnownMarketplaces`): those are offered, never installed.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { isPlainObject } from "./package.js";
import { readLock, type LockEntry } from "./store.js";

export const PROJECT_SETTINGS = [".claude/settings.json", ".claude/settings.local.json"];

/** The project's settings files, parsed (unreadable ones skipped: core's settings reader reports them). */
export function projectSettings(projectRoot: string): { file: string; data: Record<string, unknown> }[] {
  const out: { file: string; data: Record<string, unknown> }[] = [];
  for (const rel of PROJECT_SETTINGS) {
    const file = path.join(projectRoot, rel);
    if (!existsSync(file)) continue;
    try {
      const data = JSON.parse(readFileSync(file, "utf8"));
      if (isPlainObject(data)) out.push({ file, data });
    } catch {
      // reported by the settings reader
    }
  }
  return out;
}

/** `enabledPlugins` of the project's settings, merged (local over shared): id → on or off. */
export function projectChoices(projectRoot: string): Map<string, boolean> {
  const choices = new Map<string, boolean>();
  for (const { data } of projectSettings(projectRoot)) {
    const listed = data.enabledPlugins;
    if (Array.isArray(listed)) for (const id of listed) if (typeof id === "string") choices.set(id, true);
    if (isPlainObject(listed)) for (const [id, on] of Object.entries(listed)) if (typeof on === "boolean") choices.set(id, on);
  }
  return choices;
}

export function enabledPlugins(home: string, projectRoot: string, trusted: boolean): LockEntry[] {
  const lock = readLock(home);
  const choices = trusted ? projectChoices(projectRoot) : new Map<string, boolean>();
  return Object.values(lock.plugins).filter((e) => choices.get(e.id) ?? e.enabled);
}
