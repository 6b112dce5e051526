/**
 * One `SKILL.md` as the Agent Skills specification defines it (public, so every source of skills checks
 * them alike: folders, plugins, MCP servers): YAML frontmatter (parsed with the `yaml`
 * package) then the Markdown instructions. `name` (1-64, lowercase letters, digits, single hyphens, equal
 * to its folder's name) and `description` (1-1024) are required; `license`, `compatibility` (≤ 500),
 * `metadata` (string → string) and `allowed-tools` (space-separated) are optional; other fields are kept
 * and ignored, as clients do. CRLF files and folded (`>`) descriptions work.
 */
import { parseYaml } from "./yaml.js";
import path from "node:path";
import { splitToolList } from "./tool-names.js";

export interface SkillFile {
  name: string;
  description: string;
  body: string;
  /** The SKILL.md file. */
  file: string;
  /** Its folder (where scripts/, references/ and assets/ live). */
  dir: string;
  license?: string;
  compatibility?: string;
  metadata: Record<string, string>;
  allowedTools: string[];
  /** Claude Code's field: out of the model's catalog, still a /command for the user. */
  disableModelInvocation: boolean;
  /** Every frontmatter field, unknown ones included. */
  frontmatter: Record<string, unknown>;
}

export type ParsedSkill = { ok: true; skill: SkillFile } | { ok: false; error: string };

const NAME_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

function splitFrontmatter(text: string): { yaml: string; body: string } | undefined {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const m = /^---[ \t]*\n([\s\S]*?)\n?---[ \t]*(?:\n|$)/.exec(normalized);
  if (!m) return undefined;
  return { yaml: m[1], body: normalized.slice(m[0].length) };
}

/**
 * Parse a SKILL.md. `file` names it in messages and gives its folder, whose name `name` must equal;
 * `expectedName` overrides that (a skill served by an MCP server as `skill://<name>/SKILL.md`).
 */
export async function parseSkillFile(file: string, text: string, options: { expectedName?: string } = {}): Promise<ParsedSkill> {
  const parts = splitFrontmatter(text);
  if (!parts) return { ok: false, error: "no YAML frontmatter (the file must start with --- and a name and description)" };
  let fm: unknown;
  try {
    fm = parseYaml(parts.yaml);
  } catch (err) {
    return { ok: false, error: `frontmatter is not valid YAML: ${(err as Error).message.split("\n")[0]}` };
  }
  if (!fm || typeof fm !== "object" || Array.isArray(fm)) return { ok: false, error: "frontmatter must be a YAML mapping with name and description" };
  const f = fm as Record<string, unknown>;
  const dir = path.dirname(file);
  const folder = options.expectedName ?? path.basename(dir);
  if (typeof f.name !== "string" || !f.name) return { ok: false, error: "frontmatter has no name" };
  if (f.name.length > 64 || !NAME_RE.test(f.name)) return { ok: false, error: `name "${f.name}" must be 1-64 lowercase letters, digits and single hyphens, not starting or ending with one` };
  if (f.name !== folder) {
    const where = options.expectedName !== undefined ? `the name its address gives, "${folder}"` : `its folder "${folder}"`;
    return { ok: false, error: `name "${f.name}" differs from ${where}` };
  }
  if (typeof f.description !== "string" || !f.description.trim()) return { ok: false, error: "frontmatter has no description" };
  const description = f.description.trim();
  if (description.length > 1024) return { ok: false, error: `description is ${description.length} characters; at most 1024 allowed` };
  if (f.compatibility !== undefined && (typeof f.compatibility !== "string" || f.compatibility.length > 500)) {
    return { ok: false, error: "compatibility must be a string of at most 500 characters" };
  }
  if (f.license !== undefined && typeof f.license !== "string") return { ok: false, error: "license must be a string" };
  const metadata: Record<string, string> = {};
  if (f.metadata !== undefined) {
    if (!f.metadata || typeof f.metadata !== "object" || Array.isArray(f.metadata)) return { ok: false, error: "metadata must be a mapping of strings" };
    for (const [k, v] of Object.entries(f.metadata)) metadata[k] = String(v);
  }
  const tools = f["allowed-tools"];
  if (tools !== undefined && typeof tools !== "string" && !Array.isArray(tools)) return { ok: false, error: "allowed-tools must be a space-separated string" };
  const allowedTools = splitToolList(tools);
  return {
    ok: true,
    skill: {
      name: f.name,
      description,
      body: parts.body.trim(),
      file,
      dir,
      license: f.license as string | undefined,
      compatibility: f.compatibility as string | undefined,
      metadata,
      allowedTools,
      disableModelInvocation: f["disable-model-invocation"] === true,
      frontmatter: f,
    },
  };
}
