/**
 * One `SKILL.md` as the Agent Skills specification defines it (public, so every source of skills checks
 * them alike: folders, plugins, MCP servers): YAML frontmatter (parsed with the `yaml`
 * package) then the Markdown instructions. `name` (1-64, lowercase letters, digits, single hyphens, equal
 * to its folder's name) and `description` (1-1024) are required; `license`, `compatibility` (≤ 500),
 * `metadata` (string → string) and `allowed-tools` (space-separated) are optional; other fields are kept
 * and ignored, as clients do. CRLF files and folded (`>`) descriptions work.
 *
 * Files from folders are read leniently, as Claude Code and the Agent Skills client guide read them: a
 * `name` that is not an id (a display name such as "Agent Development"), or none, takes its folder's
 * name; a name that differs from its folder is kept; a description over 1024 characters is cut to 1024. Each
 * such departure is a warning on the skill (`agent skills`, `agent doctor`), not a refusal. A skill
 * fetched by address (`expectedName`) is held to the letter: its name is how it was asked for.
 */
import { parseFrontmatterYaml } from "./text/yaml.js";
import path from "node:path";
import { splitToolList } from "./tool-lists.js";

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
  /** Where the file departs from the specification but was loaded anyway (see above). */
  warnings: string[];
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
  const warnings: string[] = [];
  try {
    const read = parseFrontmatterYaml(parts.yaml);
    fm = read.value;
    if (read.quoted) {
      if (options.expectedName !== undefined) throw new Error("a value YAML misreads (quote it)");
      warnings.push("frontmatter is not valid YAML; values YAML misreads were read as plain text, as Claude Code does");
    }
  } catch (err) {
    return { ok: false, error: `frontmatter is not valid YAML: ${(err as Error).message.split("\n")[0]}` };
  }
  if (!fm || typeof fm !== "object" || Array.isArray(fm)) return { ok: false, error: "frontmatter must be a YAML mapping with name and description" };
  const f = fm as Record<string, unknown>;
  const dir = path.dirname(file);
  const strict = options.expectedName !== undefined;
  const named = skillName(f.name, options.expectedName ?? path.basename(dir), strict, warnings);
  if (!named.ok) return named;
  if (typeof f.description !== "string" || !f.description.trim()) return { ok: false, error: "frontmatter has no description" };
  let description = f.description.trim();
  if (description.length > 1024) {
    const problem = `description is ${description.length} characters; at most 1024 allowed`;
    if (strict) return { ok: false, error: problem };
    warnings.push(`${problem} (cut to 1024 for the catalog)`);
    description = `${description.slice(0, 1023)}…`;
  }
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
      name: named.name,
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
      warnings,
    },
  };
}

const ID_RULE = "1-64 lowercase letters, digits and single hyphens, not starting or ending with one";

/**
 * The skill's id: its `name` when that is an id. Leniently (a folder's file): a display name, or none,
 * gives way to the folder's name when that is an id; a name that differs from its folder is kept.
 */
function skillName(raw: unknown, folder: string, strict: boolean, warnings: string[]): { ok: true; name: string } | { ok: false; error: string } {
  const isId = (n: string) => n.length <= 64 && NAME_RE.test(n);
  const name = typeof raw === "string" ? raw.trim() : "";
  if (name && isId(name)) {
    if (name === folder) return { ok: true, name };
    const where = strict ? `the name its address gives, "${folder}"` : `its folder "${folder}"`;
    if (strict) return { ok: false, error: `name "${name}" differs from ${where}` };
    warnings.push(`name "${name}" differs from ${where} (loaded as "${name}")`);
    return { ok: true, name };
  }
  const problem = name ? `name "${name}" must be ${ID_RULE}` : "frontmatter has no name";
  if (strict || !isId(folder)) return { ok: false, error: problem };
  warnings.push(`${problem}; loaded as "${folder}", its folder's name`);
  return { ok: true, name: folder };
}

/**
 * A skill's Markdown body: its `content` text, or what its `content` function loads (a skill loaded on
 * use, an MCP server's). Rejects with the function's error; a function that gives no text is an error too.
 */
export async function skillBody(skill: { readonly name: string; readonly content: string | (() => Promise<string>) }): Promise<string> {
  if (typeof skill.content === "string") return skill.content;
  const body: unknown = await skill.content();
  if (typeof body !== "string") throw new Error(`skill ${skill.name}: its content function gave ${body === null ? "null" : typeof body}, not the Markdown body`);
  return body;
}
