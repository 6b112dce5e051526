/**
 * Skills tests: a temp project with SKILL.md folders (and a user skill outside it), and a real host
 * with the built-in tools, openai, commands and skills plugins, the openai provider pointed at the
 * fake OpenAI server, so what reaches the model is read off the wire.
 */
import path from "node:path";
import { type AgentConfig, type AgentEvent, type Host } from "../../../core/index.js";
import { createHost } from "../../helpers/host.js";
import { type CreateHostOptions } from "../../../core/embed.js";
import { builtinPlugins } from "../../../cli/builtins.js";
import { startFake, type FakeServer, type Turn } from "../../core/loop-helpers.js";
import { readAudit } from "../../helpers/host.js";
import { tempDir, tempProject, writeFile, type TempProject } from "../../helpers/project.js";

export const skillMd = (name: string, description: string, extra = "", body = `# ${name}\n\nInstructions of ${name}.`) =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n${body}\n`;

/** Skills everywhere they can live: the project (.agent, .claude), the user's config folder, and bundled. */
export function skillsProject(files: Record<string, string | object> = {}): TempProject & { userSkill(rel: string): string } {
  const p = tempProject({
    ".agent/skills/pdf-forms/SKILL.md": skillMd("pdf-forms", "Fill in PDF forms. Use when the user asks to fill a form."),
    ".agent/skills/pdf-forms/scripts/fill.py": "print('fill')\n",
    ".agent/skills/pdf-forms/references/fields.md": "# Fields\n",
    ".agent/skills/house-style/SKILL.md": skillMd("house-style", "The house style for prose.", "", "Always write British English."),
    ".agent/skills/hidden-one/SKILL.md": skillMd("hidden-one", "A skill the config disables."),
    ".agent/skills/echo-helper/SKILL.md": skillMd("echo-helper", "Echo things back.", "allowed-tools: Bash(echo:*) Read WebFetch\n"),
    ".claude/skills/secret-handshake/SKILL.md": skillMd("secret-handshake", "A handshake only the user starts.", "disable-model-invocation: true\n"),
    ...files,
  });
  const userSkill = (rel: string) => path.join(p.configHome, "skills/release-notes", rel);
  writeFile(userSkill("SKILL.md"), skillMd("release-notes", "Write release notes. Use for changelog entries.", "", "Start from templates/entry.md."));
  writeFile(userSkill("templates/entry.md"), "## vX.Y.Z\n");
  return Object.assign(p, { userSkill });
}

export const BASE_SKILLS_CONFIG = { disabled: ["hidden-one"], always: ["house-style"] };

export interface SkillsHost {
  host: Host;
  srv: FakeServer;
  events: AgentEvent[];
  audit(): Record<string, any>[];
  /** Events of one type. */
  of<T extends AgentEvent["type"]>(type: T): Extract<AgentEvent, { type: T }>[];
}

const open: SkillsHost[] = [];

export async function skillsHost(
  p: TempProject,
  script: Turn[] = [],
  options: { config?: AgentConfig } & Omit<CreateHostOptions, "config" | "cwd"> = {},
): Promise<SkillsHost> {
  const srv = await startFake("openai", script);
  const { config, ...rest } = options;
  const host = await createHost({
    cwd: p.dir,
    userConfigDir: p.configHome,
    builtins: builtinPlugins.filter((b) => ["tools", "openai", "commands", "skills"].includes(b.name)),
    ...rest,
    config: {
      model: "openai:test-model",
      providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } },
      skills: BASE_SKILLS_CONFIG,
      ...config,
    },
  });
  const events: AgentEvent[] = [];
  host.on((e) => events.push(e));
  const h: SkillsHost = {
    host,
    srv,
    events,
    audit: () => readAudit(p.auditFile),
    of: (type) => events.filter((e) => e.type === type) as never,
  };
  open.push(h);
  return h;
}

export async function closeAll(): Promise<void> {
  await Promise.all(open.splice(0).map(async (h) => (await h.host.close(), await h.srv.close())));
}

/** os.homedir() follows $HOME: point it at an empty folder so ~/.claude/skills of whoever runs the tests stays out. */
export function isolateHome(): () => void {
  const saved = process.env.HOME;
  process.env.HOME = tempDir("agent-home-");
  return () => {
    if (saved === undefined) delete process.env.HOME;
    else process.env.HOME = saved;
  };
}

/** The catalog section: the end of the system prompt, from its heading. */
export function catalogOf(system: string): string {
  const i = system.indexOf("# Skills\n");
  return i < 0 ? "" : system.slice(i);
}

/** The `skill` tool's enum in a recorded OpenAI request. */
export function skillEnum(body: { tools?: { function: { name: string; parameters: any } }[] }): string[] | undefined {
  return body.tools?.find((t) => t.function.name === "skill")?.function.parameters.properties.name.enum;
}
