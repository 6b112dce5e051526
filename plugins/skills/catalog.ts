/**
 * The skill catalog: the section of the system prompt that tells the model which skills it may load
 * (progressive disclosure: names, descriptions and where they live; bodies come with the `skill` tool).
 * Pure functions of the registered skills and the `skills` config, shared by the runtime, `agent skills`
 * and (through the tool's meta) `agent doctor`, so all three agree on what was cut.
 *
 * Budget (`skills.budget`, characters of the whole section): when the full catalog does not fit, every
 * description is cut to one common length (never below MIN_DESCRIPTION, ending with "…"); when even
 * that does not fit, skills are left out, lowest precedence first (bundled, plugin, user, project;
 * later-registered first within a scope), and the rest get the longest descriptions that fit.
 */
import os from "node:os";
import path from "node:path";
import type { RegisteredSkill } from "../../core/index.js";

export const DEFAULT_BUDGET = 8000;
/** Descriptions are never cut shorter than this (characters, "…" included) before skills are left out. */
export const MIN_DESCRIPTION = 100;

export type CatalogState = "listed" | "shortened" | "left out" | "always" | "user-only" | "disabled";

export interface SkillsSettings {
  budget: number;
  always: string[];
  disabled: string[];
}

export function settingsOf(config: { budget?: number; always?: string[]; disabled?: string[] } | undefined): SkillsSettings {
  return { budget: config?.budget ?? DEFAULT_BUDGET, always: config?.always ?? [], disabled: config?.disabled ?? [] };
}

export interface CatalogLine {
  name: string;
  description: string;
  location: string;
}

export interface Catalog {
  budget: number;
  /** Skills in the catalog, in catalog order (what the `skill` tool accepts). */
  lines: CatalogLine[];
  shortened: string[];
  leftOut: string[];
  /** The section for the system prompt; "" when no skill is listed. */
  text: string;
  /** The state of every registered skill. */
  states: Map<string, CatalogState>;
  /** Skills whose full bodies go into every request (`skills.always`), in config order. */
  always: RegisteredSkill[];
}

/** What `agent doctor` reads from the `skill` tool's meta: the skills by state. */
export interface CatalogSummary {
  budget: number;
  listed: string[];
  shortened: string[];
  leftOut: string[];
  always: string[];
  userOnly: string[];
  disabled: string[];
}

export const HEADER = [
  "# Skills",
  "",
  "Skills are instructions, often with scripts and reference files, for particular kinds of task. When the task at hand " +
    "matches a skill's description below, load that skill with the `skill` tool before you start (once per conversation is " +
    "enough), then follow its instructions. Do not load skills that do not fit the task.",
  "",
].join("\n");

const SCOPE_RANK: Record<string, number> = { project: 0, user: 1, plugin: 2, bundled: 3 };
/** Precedence for leaving out: `meta.scope` where a skill has one; any other source counts as a plugin's. */
export function scopeRank(s: RegisteredSkill): number {
  const scope = s.meta?.scope;
  return typeof scope === "string" && scope in SCOPE_RANK ? SCOPE_RANK[scope] : SCOPE_RANK.plugin;
}

/** Where a skill lives, short: relative to the project, `~/…` under the home folder, else its source. */
export function locationOf(s: RegisteredSkill, root: string): string {
  if (!s.path) return s.source;
  if (!path.isAbsolute(s.path)) return s.path; // a URI (skill://…) or a name
  const rel = path.relative(root, s.path);
  if (rel && !rel.startsWith("..") && !path.isAbsolute(rel)) return rel;
  const home = os.homedir();
  const fromHome = path.relative(home, s.path);
  if (fromHome && !fromHome.startsWith("..") && !path.isAbsolute(fromHome)) return `~/${fromHome}`;
  return s.path;
}

export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** `text` cut to at most `max` characters, ending with "…" when cut. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, Math.max(1, max - 1)).replace(/[\s.,;:]+$/, "")}…`;
}

const line = (l: CatalogLine, max: number) => `- ${l.name}: ${shorten(l.description, max)} (${l.location})`;
const footer = (n: number) => `(${n} more skill${n === 1 ? "" : "s"} left out to fit the catalog's size; the user can still run them as /<name>.)`;

function render(lines: CatalogLine[], max: number, leftOut: number): string {
  const parts = [HEADER, ...lines.map((l) => line(l, max))];
  if (leftOut) parts.push(footer(leftOut));
  return parts.join("\n");
}

function sizeOf(lines: CatalogLine[], max: number, leftOut: number): number {
  let n = HEADER.length + (leftOut ? footer(leftOut).length + 1 : 0);
  for (const l of lines) n += line(l, max).length + 1;
  return n;
}

/** The skills a user can reach at all (not disabled): the ones that get a `/<name>` command. */
export function enabledSkills(skills: readonly RegisteredSkill[], settings: SkillsSettings): RegisteredSkill[] {
  return skills.filter((s) => !settings.disabled.includes(s.name));
}

export function buildCatalog(skills: readonly RegisteredSkill[], settings: SkillsSettings, root: string): Catalog {
  const states = new Map<string, CatalogState>();
  const always: RegisteredSkill[] = [];
  const candidates: { skill: RegisteredSkill; index: number }[] = [];
  skills.forEach((s, index) => {
    if (settings.disabled.includes(s.name)) states.set(s.name, "disabled");
    else if (settings.always.includes(s.name)) states.set(s.name, "always");
    else if (s.meta?.disableModelInvocation === true) states.set(s.name, "user-only");
    else candidates.push({ skill: s, index });
  });
  for (const name of settings.always) {
    const s = skills.find((k) => k.name === name);
    if (s && states.get(name) === "always") always.push(s);
  }
  candidates.sort((a, b) => scopeRank(a.skill) - scopeRank(b.skill) || a.index - b.index);
  const all: CatalogLine[] = candidates.map(({ skill }) => ({ name: skill.name, description: oneLine(skill.description), location: locationOf(skill, root) }));

  const { budget } = settings;
  let kept = all;
  let max = Infinity;
  if (sizeOf(all, Infinity, 0) > budget) {
    kept = [];
    for (let n = all.length; n > 0; n--) {
      const left = all.length - n;
      if (sizeOf(all.slice(0, n), MIN_DESCRIPTION, left) <= budget) {
        kept = all.slice(0, n);
        break;
      }
    }
    // The longest common description length that fits (size grows with it).
    let lo = MIN_DESCRIPTION;
    let hi = Math.max(MIN_DESCRIPTION, ...kept.map((l) => l.description.length));
    const left = all.length - kept.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (sizeOf(kept, mid, left) <= budget) lo = mid;
      else hi = mid - 1;
    }
    max = lo;
  }
  const shortened = kept.filter((l) => l.description.length > max).map((l) => l.name);
  const leftOut = all.slice(kept.length).map((l) => l.name);
  for (const l of kept) states.set(l.name, shortened.includes(l.name) ? "shortened" : "listed");
  for (const n of leftOut) states.set(n, "left out");
  return { budget, lines: kept, shortened, leftOut, text: kept.length ? render(kept, max, leftOut.length) : "", states, always };
}

/** `disabledFound`: skills found on disk and not registered because config disables them. */
export function summaryOf(c: Catalog, disabledFound: string[] = []): CatalogSummary {
  const having = (state: CatalogState) => [...c.states].filter(([, s]) => s === state).map(([n]) => n);
  return {
    budget: c.budget,
    listed: c.lines.map((l) => l.name).filter((n) => !c.shortened.includes(n)),
    shortened: c.shortened,
    leftOut: c.leftOut,
    always: c.always.map((s) => s.name),
    userOnly: having("user-only"),
    disabled: [...new Set([...having("disabled"), ...disabledFound])],
  };
}
