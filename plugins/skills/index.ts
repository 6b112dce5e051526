/**
 * The skills plugin: finds `SKILL.md` skills in every place they live (discover.ts), checks each against
 * the Agent Skills rules, and registers them through `ctx.skills.add`, the same registration gate every
 * source of skills passes. Clashes and invalid skills are reported with their paths, never silent.
 * `agent skills` lists them with their state. Written only against the public plugin API.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { definePlugin, z, type PluginContext } from "../../core/index.js";
import { skillsCli } from "./cli.js";
import { discoverSkills, skillRoots } from "./discover.js";
import { skillsReport } from "./report.js";

export { getSkillsReport } from "./report.js";

declare module "../../core/index.js" {
  interface PluginConfigSections {
    skills?: SkillsConfig;
  }
}

export const SkillsConfigSchema = z.strictObject({
  /** Skills kept out of the catalog and not registered at all. */
  disabled: z.array(z.string()).optional(),
});
export type SkillsConfig = z.infer<typeof SkillsConfigSchema>;

/** The `skills/` folder bundled with agent-host: found from this module, in the sources or the build. */
function bundledSkillsDir(): string | undefined {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) {
      const skills = path.join(dir, "skills");
      return existsSync(skills) ? skills : undefined;
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

export default definePlugin({
  name: "skills",
  configSections: { skills: { schema: SkillsConfigSchema } },
  cli: [skillsCli],
  setup(ctx: PluginContext) {
    const config = (ctx.config.skills ?? {}) as SkillsConfig;
    const disabled = config.disabled ?? [];
    skillsReport(ctx.host).disabled = disabled;
    ctx.hooks.registerSkills.tap("discover", async (registrar) => {
      const roots = skillRoots({
        projectRoot: ctx.workspace.root,
        userConfigDir: ctx.userConfigDir ?? path.join(ctx.workspace.root, ".agent", "no-user-config"),
        plugins: ctx.host.plugins.filter((p) => p.status === "loaded"),
        bundledDir: bundledSkillsDir(),
      });
      const found = await discoverSkills(roots);
      skillsReport(ctx.host).discovery = found;
      for (const p of found.problems) ctx.report({ kind: "config", name: p.path, message: `Skill ${p.path} skipped: ${p.message}` });
      for (const s of found.shadowed) {
        ctx.report({ kind: "config", name: s.name, message: `Skill "${s.name}": ${s.winner} is used; ${s.loser} (${s.loserSource}) is shadowed by it` });
      }
      for (const skill of found.skills) {
        if (disabled.includes(skill.name)) continue;
        registrar.add({
          name: skill.name,
          description: skill.description,
          content: skill.body,
          path: skill.file,
          source: skill.root.label,
          meta: { scope: skill.root.scope, dir: skill.dir, allowedTools: skill.allowedTools, disableModelInvocation: skill.disableModelInvocation, ...(skill.license ? { license: skill.license } : {}), ...(skill.compatibility ? { compatibility: skill.compatibility } : {}), metadata: skill.metadata },
        });
      }
    });
  },
});
