/**
 * One Markdown command file: optional YAML frontmatter (`description`, `argument-hint`, `model`,
 * `allowed-tools`, `arguments`; anything else is ignored), then the prompt body. Claude Code command
 * files often hold values strict YAML refuses (`argument-hint: [pr] [priority]`), and Claude Code reads
 * them by quoting such values and parsing again; so do we, and only a file that still fails is invalid.
 */
import { parseFrontmatterYaml, splitToolList } from "../../kit/index.js";

export interface CommandFile {
  /** From the frontmatter, else the body's first non-empty line (shortened). */
  description: string;
  argumentHint?: string;
  model?: string;
  /** As written (Claude Code or our tool names); mapped when the command runs. */
  allowedTools: string[];
  /** Named arguments (`arguments: [issue, branch]` makes `$issue` the first argument). */
  argumentNames: string[];
  /** The prompt template, trimmed. */
  body: string;
}

export type ParsedCommandFile = { ok: true; file: CommandFile } | { ok: false; error: string };

const MAX_DESCRIPTION = 100;
/** Characters that make an unquoted YAML value something else than a plain string (Claude Code's list). */

function split(text: string): { yaml?: string; body: string } {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const m = /^---[ \t]*\n([\s\S]*?)\n?---[ \t]*(?:\n|$)/.exec(normalized);
  return m ? { yaml: m[1], body: normalized.slice(m[0].length) } : { body: normalized };
}

function parseYaml(yaml: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: parseFrontmatterYaml(yaml).value };
  } catch (err) {
    return { ok: false, error: `frontmatter is not valid YAML: ${(err as Error).message.split("\n")[0]}` };
  }
}

/** The value as written on its `key:` line, for hints YAML turned into a list (`argument-hint: [file]`). */
function rawValue(yaml: string, key: string): string | undefined {
  for (const line of yaml.split("\n")) {
    const m = /^([A-Za-z_-]+):[ \t]*(.*)$/.exec(line);
    if (m?.[1] === key && m[2].trim()) return m[2].trim();
  }
  return undefined;
}


function firstLine(body: string): string | undefined {
  const line = body
    .split("\n")
    .map((l) => l.replace(/^#+\s*/, "").trim())
    .find(Boolean);
  if (!line) return undefined;
  return line.length > MAX_DESCRIPTION ? `${line.slice(0, MAX_DESCRIPTION - 1)}…` : line;
}

function text(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  const s = (typeof v === "string" ? v : String(v)).trim();
  return s || undefined;
}

/** Parse a command file; `fallbackDescription` is used when neither frontmatter nor body gives one. */
export async function parseCommandFile(source: string, fallbackDescription: string): Promise<ParsedCommandFile> {
  const { yaml, body: rawBody } = split(source);
  const body = rawBody.trim();
  let fm: Record<string, unknown> = {};
  if (yaml !== undefined && yaml.trim()) {
    const parsed = parseYaml(yaml);
    if (!parsed.ok) return parsed;
    if (parsed.value !== null && (typeof parsed.value !== "object" || Array.isArray(parsed.value))) {
      return { ok: false, error: "frontmatter must be a YAML mapping (key: value lines)" };
    }
    fm = (parsed.value ?? {}) as Record<string, unknown>;
  }
  const hint = fm["argument-hint"];
  const names = fm.arguments;
  return {
    ok: true,
    file: {
      description: text(fm.description) ?? firstLine(body) ?? fallbackDescription,
      argumentHint: typeof hint === "string" || hint === undefined || hint === null ? text(hint) : rawValue(yaml ?? "", "argument-hint"),
      model: text(fm.model),
      allowedTools: splitToolList(fm["allowed-tools"]),
      // Numeric names would clash with $0, $1 (Claude Code drops them too).
      argumentNames: (Array.isArray(names) ? names.map(String) : typeof names === "string" ? names.split(/\s+/) : []).filter((n) => /^[A-Za-z_][\w-]*$/.test(n)),
      body,
    },
  };
}
