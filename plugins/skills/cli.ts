/** `agent skills [--json]`: every skill found, with where it lives and its state. */
import { defineCliCommand, type RegisteredSkill } from "../../core/index.js";
import { buildCatalog, settingsOf, type CatalogState } from "./catalog.js";
import type { FoundSkill } from "./discover.js";
import { getSkillsReport } from "./report.js";

export interface SkillRow {
  name: string;
  description: string;
  source: string;
  plugin?: string;
  path?: string;
  /**
   * `listed`: in the model's catalog. `shortened`: listed with its description cut to fit `skills.budget`.
   * `left out`: not listed, to fit the budget (still a /command). `always`: its body is in every request
   * (`skills.always`). `user-only`: a /command only (disable-model-invocation). `disabled`: by config.
   * `shadowed`: another skill of the same name won. `invalid`: skipped.
   */
  state: CatalogState | "shadowed" | "invalid";
  /** Why it is shadowed or invalid. */
  problem?: string;
  /** Where its SKILL.md departs from the specification though it loaded (a display name as `name`…). */
  warnings?: string[];
}

function warningsOf(found: readonly FoundSkill[] | undefined, name: string): { warnings?: string[] } {
  const w = found?.find((s) => s.name === name)?.warnings ?? [];
  return w.length ? { warnings: w } : {};
}

export const skillsCli = defineCliCommand({
  name: "skills",
  description: "list skills: name, source, path, state [--json]",
  usage: "[--json]",
  options: { json: { type: "boolean", description: "print the skills as JSON" } },
  positionals: false,
  async run(ctx) {
    const host = await ctx.openHost({ quiet: true, lazyTools: false, listing: true });
    const report = getSkillsReport(host);
    const catalog = buildCatalog(host.skills.list(), settingsOf(host.config.skills), host.workspace.root);
    const rows: SkillRow[] = host.skills.list().map((s: RegisteredSkill) => ({
      name: s.name,
      description: s.description,
      source: s.source,
      plugin: s.plugin,
      ...(s.path ? { path: s.path } : {}),
      state: catalog.states.get(s.name) ?? "listed",
      ...warningsOf(report.discovery?.skills, s.name),
    }));
    for (const s of report.discovery?.skills ?? []) {
      if (report.disabled.includes(s.name)) rows.push({ name: s.name, description: s.description, source: s.root.label, path: s.file, state: "disabled" });
    }
    for (const s of report.discovery?.shadowed ?? []) rows.push({ name: s.name, description: "", source: s.loserSource, path: s.loser, state: "shadowed", problem: `shadowed by ${s.winner}` });
    for (const p of report.discovery?.problems ?? []) rows.push({ name: p.path.split(/[\\/]/).at(-2) ?? p.path, description: "", source: "", path: p.path, state: "invalid", problem: p.message });
    if (ctx.values.json) {
      ctx.printJson(rows);
      return 0;
    }
    if (!rows.length) {
      ctx.print("No skills. Add one as .agent/skills/<name>/SKILL.md (or .claude/skills/<name>/SKILL.md).");
      return 0;
    }
    ctx.print(ctx.table(rows.map((r) => [r.name, r.state, r.source, r.problem ?? (r.warnings ? `${r.path ?? ""} (warning: ${r.warnings.join("; ")})` : (r.path ?? ""))]), ["NAME", "STATE", "SOURCE", "PATH / PROBLEM"]));
    const cut = catalog.shortened.length || catalog.leftOut.length ? `; ${catalog.shortened.length} shortened, ${catalog.leftOut.length} left out to fit` : "";
    ctx.print(`\nCatalog: ${catalog.lines.length} skill${catalog.lines.length === 1 ? "" : "s"}, ${catalog.text.length} of ${catalog.budget} characters (skills.budget)${cut}.`);
    return 0;
  },
});
