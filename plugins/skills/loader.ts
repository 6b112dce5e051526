/**
 * Loading a skill into the conversation, whoever asks: the model (`skill` tool), the user (`/<name>`)
 * or config (`skills.always`). Every load opens the skill's folder to the read-only tools, asks once per
 * session for its allowed-tools, and is emitted (`skill_loaded`) and audited. A skill loads once per
 * conversation: a second load says so instead of repeating the body, until the conversation is cleared.
 */
import type { PluginContext, RegisteredSkill } from "../../core/index.js";
import { skillBody, splitToolList, toolRules } from "../../kit/index.js";
import { listSkillFiles, skillDir } from "./files.js";

export type LoadedBy = "model" | "user" | "always";

type Grant = "granted" | "refused" | "pending";

export const ALREADY_LOADED = "already loaded earlier in this conversation";

export class SkillLoader {
  private readonly loaded = new Set<string>();
  /** Loaded before a compaction summarised them away: re-attached to every request of the conversation. */
  private readonly reattached = new Set<string>();
  /** The first message of the conversation the loads belong to (undefined: it has not started yet). */
  private anchor: unknown;
  private readonly grants = new Map<string, { promise: Promise<boolean>; state: Grant }>();
  /** Bodies of skills loaded on use, by the registered skill they were loaded for. */
  private readonly bodies = new WeakMap<RegisteredSkill, string>();

  constructor(private readonly ctx: PluginContext) {}

  /**
   * `/clear` empties `session.messages` and the next prompt starts a new array head: a first message
   * other than the one seen at the last load means a new conversation, whose context holds no skill.
   */
  private followConversation(): void {
    const first = this.ctx.host.session.messages[0];
    if (this.anchor !== undefined && first !== this.anchor) {
      this.loaded.clear();
      this.reattached.clear();
    }
    this.anchor = first;
  }

  /** The conversation was compacted (its first message is now the summary): what was loaded stays loaded, re-attached. */
  compacted(): void {
    for (const name of this.loaded) this.reattached.add(name);
    this.anchor = this.ctx.host.session.messages[0];
  }

  /** The skills to re-attach to this request (loaded earlier, summarised away since). */
  reattachedNames(): string[] {
    this.followConversation();
    return [...this.reattached];
  }

  isLoaded(name: string): boolean {
    this.followConversation();
    return this.loaded.has(name);
  }

  /**
   * Load `skill`: its block of instructions, or undefined when it is already in this conversation.
   * `args` (from `/<name> args`) replace `$ARGUMENTS` in the body. `waitMs` bounds the wait for the
   * user's answer to the allowed-tools question (hooks have a time limit; the question stays open).
   * A skill whose source loads it on use (an MCP server's) is fetched now; if that fails it is not
   * loaded, and the error (`Skill "x" could not be loaded: …`) is thrown for the caller to show.
   */
  async load(skill: RegisteredSkill, by: LoadedBy, options: { args?: string; waitMs?: number } = {}): Promise<string | undefined> {
    if (this.isLoaded(skill.name)) return undefined;
    this.loaded.add(skill.name); // before any await: two calls in one turn load it once
    let body: string;
    try {
      body = await this.bodyOf(skill);
    } catch (err) {
      this.loaded.delete(skill.name);
      const message = errorText(err);
      this.ctx.audit({ kind: "skill", name: skill.name, outcome: "failed", detail: { by, source: skill.source }, error: message });
      throw new Error(`Skill "${skill.name}" could not be loaded: ${message}`);
    }
    this.openFolder(skill);
    const block = await this.withNote(skill, this.render(skill, body, options.args), options.waitMs);
    this.ctx.emit({ type: "skill_loaded", name: skill.name, source: skill.source, by, ...(skill.path ? { path: skill.path } : {}) });
    this.ctx.audit({ kind: "skill", name: skill.name, outcome: "loaded", detail: { by, source: skill.source } });
    return block;
  }

  /**
   * The skill's Markdown body: its text, or what its source loads on use, kept for that registered
   * skill (a skill registered again, changed, is loaded again).
   */
  async bodyOf(skill: RegisteredSkill): Promise<string> {
    if (typeof skill.content === "string") return skill.content;
    const known = this.bodies.get(skill);
    if (known !== undefined) return known;
    const body = await skillBody(skill);
    this.bodies.set(skill, body);
    return body;
  }

  /** `block` followed by what became of the skill's allowed-tools (asked on the first call only; `waitMs` as in `load`). */
  async withNote(skill: RegisteredSkill, block: string, waitMs?: number): Promise<string> {
    const note = await this.allowedToolsNote(skill, waitMs);
    return note ? `${block}\n${note}` : block;
  }

  /** Read access to the skill's folder when it is outside the workspace (never write access). */
  private openFolder(skill: RegisteredSkill): void {
    const dir = skillDir(skill);
    if (!dir) return;
    try {
      this.ctx.workspace.resolve(dir, { access: "read" });
    } catch {
      try {
        this.ctx.addReadRoot(dir, `skill ${skill.name}`);
      } catch (err) {
        this.ctx.log.warn(`could not open skill ${skill.name}'s folder ${dir} to read_file: ${(err as Error).message}`);
      }
    }
  }

  /** The skill as the model gets it: where it lives, its body (from `bodyOf`), its other files. */
  render(skill: RegisteredSkill, content: string, args?: string): string {
    const dir = skillDir(skill);
    const { files, more } = listSkillFiles(skill);
    let body = content.trim();
    if (args !== undefined && body.includes("$ARGUMENTS")) body = body.replaceAll("$ARGUMENTS", args);
    const out = [`<skill name="${skill.name}" source="${skill.source}">`];
    if (dir) out.push(`Folder: ${dir} (relative paths in these instructions start here; read_file can read its files)`, "");
    out.push(body);
    if (files.length) {
      out.push(
        "",
        dir
          ? "Other files of this skill (read one with read_file when the instructions call for it; run scripts as they say):"
          : `Resources of this skill (served by ${skill.source}; read one when the instructions call for it):`,
        ...files.map((f) => `- ${f}`),
      );
      if (more) out.push(more > 0 ? `- … and ${more} more (list the folder with list_files)` : "- … and more (list the folder with list_files)");
    }
    out.push("</skill>");
    return out.join("\n");
  }

  /**
   * allowed-tools never widen permissions silently: the mapped rules are asked for (once per skill per
   * session, through the host, which asks the user or follows `permissions.grants`), and the outcome is
   * said to the model, and to the user when refused.
   */
  private async allowedToolsNote(skill: RegisteredSkill, waitMs?: number): Promise<string> {
    const listed = splitToolList(skill.meta?.allowedTools ?? skill.meta?.["allowed-tools"]);
    if (!listed.length) return "";
    const mapped = toolRules(listed, this.ctx.host.tools.list());
    const lines = [`This skill lists allowed-tools: ${listed.join(" ")}.`];
    if (mapped.dropped.length) lines.push(`Ignored (no such tool here): ${mapped.dropped.join(", ")}.`);
    if (!mapped.rules.length) return lines.join("\n");
    // A skill of a folder the user has not trusted is text: it grants nothing.
    if (skill.meta?.scope === "project" && !this.ctx.trust.trusted) {
      lines.push("They were not granted: this project folder is not trusted, so calls to them need permission as usual.");
      return lines.join("\n");
    }
    const rules = mapped.rules.join(", ");
    let grant = this.grants.get(skill.name);
    const asked = grant !== undefined;
    if (!grant) {
      const g: { promise: Promise<boolean>; state: Grant } = { state: "pending", promise: Promise.resolve(false) };
      g.promise = this.ctx
        .requestGrant({ rules: mapped.rules, reason: `skill ${skill.name} lists allowed-tools` })
        .catch(() => false)
        .then((ok) => {
          g.state = ok ? "granted" : "refused";
          if (!ok) this.ctx.log.warn(`skill ${skill.name} lists allowed-tools ${rules}; not granted, so those calls need permission as usual`);
          return ok;
        });
      this.grants.set(skill.name, (grant = g));
    }
    if (grant.state === "pending") await wait(grant.promise, waitMs);
    const when = asked ? "earlier in this session" : "for this session";
    if (grant.state === "granted") lines.push(`The user allowed ${rules} ${when}.`);
    else if (grant.state === "refused") lines.push(`They were not granted (${rules}): calls to them still need permission as usual.`);
    else lines.push(`The user was asked to allow ${rules} and has not answered yet: calls to them need permission as usual.`);
    return lines.join("\n");
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function wait(p: Promise<unknown>, ms: number | undefined): Promise<unknown> {
  if (ms === undefined) return p;
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise((resolve) => (timer = setTimeout(resolve, ms)).unref())]).finally(() => clearTimeout(timer));
}
