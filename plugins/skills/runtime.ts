/**
 * What makes skills reach the model, per host: the `skill` tool (its input an enum of the catalog's
 * names), one `/<name>` command per skill, and the `beforeModelRequest` step that appends the always-on
 * skills and the catalog to the system prompt. Skills can come and go after startup (an MCP server
 * connecting), so `sync()` reconciles the tool and the commands with the registry whenever it runs:
 * at the end of startup and before every model request.
 */
import { defineCommand, defineTool, z, type ModelRequest, type PluginContext, type RegisteredSkill } from "../../core/index.js";
import { closestNames } from "../../kit/index.js";
import { buildCatalog, enabledSkills, oneLine, settingsOf, shorten, summaryOf, type Catalog, type SkillsSettings } from "./catalog.js";
import { ALREADY_LOADED, SkillLoader } from "./loader.js";
import { skillsReport } from "./report.js";

export const SKILL_TOOL = "skill";

export class SkillsRuntime {
  readonly settings: SkillsSettings;
  private readonly loader: SkillLoader;
  private catalog: Catalog | undefined;
  private toolKey: string | undefined;
  private ownsTool = false;
  /** Another plugin holds the name `skill`: the host reported it once; no catalog is offered then. */
  private toolTaken = false;
  /** Commands tried once per skill name: a clash the host rejected is not retried (nor reported again). */
  private readonly commands = new Map<string, boolean>();
  /** The cut last announced with `skills_trimmed` (none at first: only a cut is news). */
  private announced = JSON.stringify([[], []]);

  constructor(private readonly ctx: PluginContext) {
    this.settings = settingsOf(ctx.config.skills as Parameters<typeof settingsOf>[0]);
    this.loader = new SkillLoader(ctx);
  }

  private enabled(name: string): RegisteredSkill | undefined {
    const s = this.ctx.host.skills.get(name);
    return s && !this.settings.disabled.includes(name) ? s : undefined;
  }

  /** Bring the tool and the commands in line with the registered skills; returns the catalog. */
  sync(): Catalog {
    const catalog = this.syncTool();
    this.syncCommands();
    return catalog;
  }

  /** The `skill` tool, registered again (a new enum, new meta) whenever the catalog changed. */
  syncTool(): Catalog {
    const catalog = buildCatalog(this.ctx.host.skills.list(), this.settings, this.ctx.workspace.root);
    this.catalog = catalog;
    const found = skillsReport(this.ctx.host).discovery?.skills ?? [];
    const summary = summaryOf(catalog, found.filter((s) => this.settings.disabled.includes(s.name)).map((s) => s.name));
    const key = JSON.stringify([catalog.lines.map((l) => l.name), summary]);
    if (key !== this.toolKey) {
      this.toolKey = key;
      if (this.ownsTool) this.ctx.tools.remove(SKILL_TOOL);
      this.ownsTool = false;
      if (catalog.lines.length && !this.toolTaken) {
        this.ownsTool = this.ctx.tools.add(this.tool(catalog.lines.map((l) => l.name) as [string, ...string[]], summary));
        this.toolTaken = !this.ownsTool;
      }
    }
    return catalog;
  }

  /** One `/<name>` per enabled skill (user-only ones too); gone or disabled skills lose theirs. */
  syncCommands(): void {
    const enabled = enabledSkills(this.ctx.host.skills.list(), this.settings);
    for (const s of enabled) if (!this.commands.has(s.name)) this.commands.set(s.name, this.ctx.commands.add(this.command(s)));
    for (const [name, added] of this.commands) {
      if (enabled.some((s) => s.name === name)) continue;
      if (added) this.ctx.commands.remove(name);
      this.commands.delete(name);
    }
  }

  private tool(names: [string, ...string[]], summary: ReturnType<typeof summaryOf>) {
    return defineTool({
      name: SKILL_TOOL,
      description:
        "Load a skill from the Skills list in the system prompt: returns its instructions and the paths of its other files " +
        "(scripts, references, assets), which read_file can then read. Load a skill when the task matches its description, " +
        "before starting the task; once per conversation is enough.",
      risk: "read",
      // Claude Code's name for this tool: `Skill(name)` rules in its settings name a skill here too.
      aliases: ["Skill"],
      // The model sees the catalog's names as an enum; any name is taken, so a skill registered since the
      // catalog was built (an MCP server's, connected later) is found on the call (see `resolve`).
      input: z.object({ name: z.string().meta({ enum: names, description: "The skill's name, as listed" }) }),
      permissionSubject: ({ name }) => name,
      // The user may be asked about the skill's allowed-tools while it loads.
      timeoutMs: 600_000,
      // Read by `agent doctor` (free-form data, never sent to the model).
      meta: { catalog: summary },
      run: async ({ name }) => {
        const skill = await this.resolve(name);
        if (!skill) {
          const near = closestNames(name, this.catalog?.lines.map((l) => l.name) ?? []);
          return { output: `Skill "${name}" is not available now.${near.length ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : ""}`, isError: true };
        }
        let block: string | undefined;
        try {
          block = await this.loader.load(skill, "model");
        } catch (err) {
          return { output: (err as Error).message, isError: true };
        }
        if (block === undefined) return `Skill "${name}" is ${ALREADY_LOADED}: its instructions are above. Follow them; there is no need to load it again.`;
        return `Skill "${name}" loaded. Follow its instructions for the task.\n\n${block}`;
      },
    });
  }

  /**
   * The enabled skill of that name in the catalog. A name the catalog does not have yet may be a skill
   * of a tool source not loaded so far (an MCP server, `agent call skill`): the sources load, the catalog
   * is built again, and the name is looked up once more.
   */
  private async resolve(name: string): Promise<RegisteredSkill | undefined> {
    const listed = () => (this.catalog?.lines.some((l) => l.name === name) ? this.enabled(name) : undefined);
    if (listed()) return listed();
    if (!this.ctx.host.skills.get(name)) await this.ctx.host.tools.load();
    this.sync();
    return listed();
  }

  private command(skill: RegisteredSkill) {
    const name = skill.name;
    return defineCommand({
      name,
      description: shorten(oneLine(skill.description), 160),
      argumentHint: "[args]",
      source: skill.source,
      run: async (args) => {
        const current = this.enabled(name);
        if (!current) return `Skill "${name}" is not available now.`;
        const task = args.trim();
        // A skill that cannot be loaded (an MCP server's that fails its checks) throws: the command fails with its message.
        const block = await this.loader.load(current, "user", { args: task });
        if (block === undefined) {
          if (!task) return `Skill "${name}" is ${ALREADY_LOADED}.`;
          return { prompt: `Use the skill "${name}" (${ALREADY_LOADED}) for this:\n\n${task}` };
        }
        const tail = task && !(await this.loader.bodyOf(current)).includes("$ARGUMENTS") ? `\n\nARGUMENTS: ${task}` : "";
        return { prompt: `The user ran /${name}${task ? ` ${task}` : ""}. Follow the skill "${name}" below.\n\n${block}${tail}` };
      },
    });
  }

  /** The conversation was compacted: the skills loaded so far are re-attached from now on. */
  compacted(): void {
    this.loader.compacted();
  }

  /** `beforeModelRequest`: always-on skills and the catalog go at the end of the system prompt. */
  async beforeModelRequest(request: ModelRequest): Promise<ModelRequest> {
    const hadTool = this.ownsTool;
    const catalog = this.sync();
    this.announce(catalog);
    this.fixTools(request, hadTool);
    const parts: string[] = [];
    const waitMs = Math.floor((this.ctx.config.pluginTimeouts?.callMs ?? 30_000) / 2);
    for (const skill of catalog.always) {
      // The first request of a conversation loads it (event, audit, grant); every request carries it.
      // One that cannot be loaded (an MCP server's) is said in its place; the next request tries again.
      const block = await this.loader
        .load(skill, "always", { waitMs })
        .then(async (b) => b ?? (await this.loader.withNote(skill, this.loader.render(skill, await this.loader.bodyOf(skill)), 0)))
        .catch((err: unknown) => `(${(err as Error).message})`);
      parts.push(`# Skill "${skill.name}" (always loaded)\n\n${block}`);
    }
    for (const name of this.loader.reattachedNames()) {
      const skill = this.enabled(name);
      if (!skill || catalog.always.some((a) => a.name === name)) continue;
      const body = await this.loader.bodyOf(skill).then(
        (b) => this.loader.render(skill, b),
        (err: unknown) => `(It could not be loaded again: ${(err as Error).message})`,
      );
      parts.push(`# Skill "${name}" (loaded earlier in this conversation; re-attached after it was compacted)\n\n${body}`);
    }
    if (catalog.text && request.tools.some((t) => t.name === SKILL_TOOL) && this.ownsTool) parts.push(catalog.text);
    if (parts.length) request.system = `${request.system}\n\n${parts.join("\n\n")}`;
    return request;
  }

  /**
   * The request was built from the tools of before this `sync()`: give it the current `skill` tool (a
   * new enum), or drop it when there is none. A request that had no `skill` tool (another plugin took it
   * out) gets one only if the tool has just appeared.
   */
  private fixTools(request: ModelRequest, hadTool: boolean): void {
    const tool = this.ownsTool ? this.ctx.host.tools.get(SKILL_TOOL) : undefined;
    const fresh = tool && { name: tool.name, description: tool.description, inputSchema: structuredClone(tool.inputSchema) as ModelRequest["tools"][number]["inputSchema"] };
    const i = request.tools.findIndex((t) => t.name === SKILL_TOOL);
    if (i >= 0 && hadTool) {
      if (fresh) request.tools[i] = fresh;
      else request.tools.splice(i, 1);
    } else if (i < 0 && !hadTool && fresh) request.tools.push(fresh);
  }

  /** `skills_trimmed` when the cut changes (and once more when it is gone), never on every request. */
  private announce(c: Catalog): void {
    const key = JSON.stringify([c.shortened, c.leftOut]);
    if (key === this.announced) return;
    this.announced = key;
    this.ctx.emit({ type: "skills_trimmed", budget: c.budget, listed: c.lines.length, shortened: c.shortened, leftOut: c.leftOut });
  }

  /** Names in `skills.always` / `skills.disabled` that no skill has: reported once, at startup. */
  reportUnknownNames(): void {
    const known = new Set([...this.ctx.host.skills.list().map((s) => s.name), ...(skillsReport(this.ctx.host).discovery?.skills.map((s) => s.name) ?? [])]);
    for (const key of ["always", "disabled"] as const) {
      for (const name of new Set(this.settings[key])) {
        if (known.has(name)) continue;
        const near = closestNames(name, known);
        this.ctx.report({
          kind: "config",
          name,
          message: `skills.${key} names "${name}", but no skill has that name${near.length ? ` (did you mean ${near.map((n) => `"${n}"`).join(" or ")}?)` : ""}; it is ignored.`,
        });
      }
    }
  }
}
