/**
 * The skills plugin: finds `SKILL.md` skills in every place they live (discover.ts), checks each against
 * the Agent Skills rules, and registers them through `ctx.skills.add`, the same registration gate every
 * source of skills passes. Clashes and invalid skills are reported with their paths, never silent.
 * Then every registered skill, whatever registered it, reaches the model (runtime.ts): a catalog in the
 * system prompt, the `skill` tool to load one, `/<name>` commands, and `skills.always`. `agent skills`
 * lists them with their state. Written only against the public plugin API (see README.md here).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { definePlugin, z, type PluginContext } from "../../core/index.js";
import { skillsCli } from "./cli.js";
import { discoverSkills, skillRoots } from "./discover.js";
import { skillsReport } from "./report.js";
import { SkillsRuntime } from "./runtime.js";

export { getSkillsReport } from "./report.js";

declare module "../../core/index.js" {
  interface PluginConfigSections {
    skills?: SkillsConfig;
  }
}

export const SkillsConfigSchema = z.strictObject({
  /** Skills hidden entirely: not in the catalog, no command, not loadable (and not registered when found on disk). */
  disabled: z.array(z.string()).optional(),
  /** Skills whose full bodies go into every request's system prompt (outside the catalog's budget). */
  always: z.array(z.string()).optional(),
  /** Characters the catalog section of the system prompt may take (default 8000). */
  budget: z.number().int().nonnegative().optional(),
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

/** Discovery's stage in registerSkills: added to `post`'s 100, still ahead of every plugin's own stage. */
const DISCOVER_STAGE = -1000;

export default definePlugin({
  name: "skills",
  // Every handler runs after the other plugins': the `/<skill>` commands lose any name clash, the
  // catalog sees every skill registered, and it is appended after others edited the system prompt.
  enforce: "post",
  // Which skills show and which go in every request: text, nothing that runs or widens.
  configSections: { skills: { schema: SkillsConfigSchema, trust: "inert" } },
  cli: [skillsCli],
  setup(ctx: PluginContext) {
    const runtime = new SkillsRuntime(ctx);
    const { disabled } = runtime.settings;
    skillsReport(ctx.host).disabled = disabled;
    // Found before anyone else's registerSkills (stage -1000 lands ahead of `pre` plugins' -100, though
    // this plugin is `post`), so a project's or the user's skill wins a name clash with a plugin's inline
    // one; in a register hook (not setup) so only plugins that set up fine count.
    ctx.hooks.registerSkills.tap({ name: "discover", stage: DISCOVER_STAGE }, async () => {
      const roots = skillRoots({
        projectRoot: ctx.workspace.root,
        userConfigDir: ctx.userConfigDir,
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
        // Loaded anyway, as Claude Code loads it; said in `agent skills` and `agent doctor`.
        for (const w of skill.warnings) ctx.report({ kind: "config", level: "warning", name: skill.file, message: `Skill ${skill.file}: ${w}` });
        if (disabled.includes(skill.name)) continue;
        ctx.skills.add({
          name: skill.name,
          description: skill.description,
          content: skill.body,
          path: skill.file,
          source: skill.root.label,
          meta: {
            scope: skill.root.scope,
            dir: skill.dir,
            // From the raw frontmatter: `Bash(git log:*)` is one entry, not two.
            allowedTools: skill.allowedTools,
            disableModelInvocation: skill.disableModelInvocation,
            ...(skill.license ? { license: skill.license } : {}),
            ...(skill.compatibility ? { compatibility: skill.compatibility } : {}),
            metadata: skill.metadata,
          },
        });
      }
    });
    // Last of the last phase: every skill is registered, every other command too (a clash is theirs).
    ctx.hooks.registerSkills.tap("catalog", () => {
      runtime.sync();
      runtime.reportUnknownNames();
    });
    ctx.hooks.beforeModelRequest.tap("catalog", (request) => runtime.beforeModelRequest(request));
    // A compacted conversation lost the skills the model loaded: they go back, into the system prompt.
    ctx.hooks.event.tap({ name: "reattach", types: ["compaction"] }, (e) => {
      if (e.type === "compaction" && e.summarized > 0) runtime.compacted();
    });
  },
});
