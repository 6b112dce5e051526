/** `/skills`: the skills the model can load (`agent skills` shows where each lives and its state). */
import { defineCommand } from "../core/index.js";
import { columns, oneLine } from "./_format.js";

export default defineCommand({
  name: "skills",
  description: "List skills (load one with /<skill-name>)",
  run(_args, { host }) {
    const skills = host.skills.list().sort((a, b) => (a.name < b.name ? -1 : 1));
    if (!skills.length) return "No skills. Add one as .agent/skills/<name>/SKILL.md (or .claude/skills/<name>/SKILL.md).";
    const rows = skills.map((s) => [s.name, s.source, oneLine(s.description, 70)]);
    return [`${skills.length} skills:`, ...columns(rows), "", "Where each lives and whether it is in the model's catalog: agent skills"].join("\n");
  },
});
