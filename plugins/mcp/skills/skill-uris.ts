/**
 * The pure parts of skills served by MCP servers (the Skills Over MCP Working Group's convention,
 * SEP-2640): recognizing a skill's `SKILL.md` URI (`skill://<skill-path>/SKILL.md`, the last segment of
 * the path being the skill's name), gathering a skill's other files, checking a `skills/list` entry,
 * the registry name a skill gets (`<server>-<name>`), and the digests entries carry.
 */
import { createHash } from "node:crypto";
import { isRecord } from "../config/values.js";

/** The extension identifier servers declare in `capabilities.extensions` (SEP-2133 negotiation). */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";
const SKILL_FILE = "/SKILL.md";
/** The Agent Skills name rule (core checks registered skills against the same). */
const NAME_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const MAX_SKILL_NAME = 64;
const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;

export interface SkillLocation {
  /** The `SKILL.md` URI. */
  uri: string;
  /** The skill's root: the URI without `/SKILL.md`. */
  base: string;
  /** The segments of the skill path; the last one is the skill's name, the others an organizational prefix. */
  segments: string[];
}

export interface SkillCandidate extends SkillLocation {
  /** The skill's other files (URIs under its root), sorted. */
  files: string[];
  /** From `skills/list`: the digest (`sha256:<hex>`) of every file, `SKILL.md` included. */
  digests?: Map<string, string>;
  /** From `skills/list`: the byte size of files whose entry gives one (a read of another size is refused). */
  sizes?: Map<string, number>;
  /** From `skills/list`: the frontmatter the listing promises (the `SKILL.md` must carry the same). */
  frontmatter?: Record<string, unknown>;
  /** From `resources/list`: the `SKILL.md` resource's description (the catalog's, until it is read). */
  description?: string;
}

export interface SkillProblem {
  uri: string;
  message: string;
}

/** `<scheme>://<skill-path>/SKILL.md` → its parts; undefined for any other URI. */
export function skillLocation(uri: string): SkillLocation | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^?#]+)\/SKILL\.md$/i.exec(uri);
  if (!m) return undefined;
  const segments = m[1].split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) return undefined;
  return { uri, base: uri.slice(0, -SKILL_FILE.length), segments };
}

/** The name a skill must carry: the last segment of its path. */
export function expectedName(loc: SkillLocation): string {
  return loc.segments[loc.segments.length - 1];
}

/**
 * The `resources/list` way (servers that do not declare the extension): every listed
 * `skill://…/SKILL.md` is a skill, and its files are the other listed URIs under its root. At most
 * `max` skills, in listing order; `total` says how many were listed.
 */
export function skillsFromResources(uris: readonly string[], max: number, descriptions?: ReadonlyMap<string, string>): { skills: SkillCandidate[]; total: number } {
  const unique = [...new Set(uris)];
  const locations = unique.filter((u) => /^skill:\/\//i.test(u)).map(skillLocation).filter((l): l is SkillLocation => !!l);
  const skills = locations.slice(0, max).map((loc) => {
    const description = descriptions?.get(loc.uri);
    return { ...loc, files: unique.filter((u) => u !== loc.uri && u.startsWith(`${loc.base}/`)).sort(), ...(description ? { description } : {}) };
  });
  return { skills, total: locations.length };
}


/**
 * The `skills/list` way: each entry names its `SKILL.md` (`uri`), its frontmatter and, normally, every
 * file with its digest (`resources`). A malformed entry is a problem; the others load.
 */
export function skillsFromListing(entries: readonly unknown[]): { skills: SkillCandidate[]; problems: SkillProblem[] } {
  const skills: SkillCandidate[] = [];
  const problems: SkillProblem[] = [];
  const seen = new Set<string>();
  for (const [i, e] of entries.entries()) {
    const uri = isRecord(e) && typeof e.uri === "string" ? e.uri : undefined;
    const bad = (message: string) => void problems.push({ uri: uri ?? `skills/list entry ${i + 1}`, message });
    if (!isRecord(e) || !uri) {
      bad("the skills/list entry has no uri");
      continue;
    }
    const loc = skillLocation(uri);
    if (!loc) {
      bad("its uri does not have the form <scheme>://<skill-path>/SKILL.md");
      continue;
    }
    if (seen.has(uri)) continue;
    seen.add(uri);
    if (!isRecord(e.frontmatter)) {
      bad("the skills/list entry has no frontmatter object");
      continue;
    }
    if (e.resources === undefined || e.resources === "dynamic") {
      // Allowed for generated skills: nothing to verify against, files unknown.
      skills.push({ ...loc, files: [], frontmatter: e.frontmatter });
      continue;
    }
    if (!Array.isArray(e.resources)) {
      bad("its resources are not an array");
      continue;
    }
    const digests = new Map<string, string>();
    const sizes = new Map<string, number>();
    let problem: string | undefined;
    for (const r of e.resources) {
      const fileUri = isRecord(r) && typeof r.uri === "string" ? r.uri : undefined;
      const digest = isRecord(r) && typeof r.digest === "string" ? r.digest : undefined;
      const size = isRecord(r) ? r.size : undefined;
      if (!fileUri || !digest || !DIGEST_RE.test(digest)) problem ??= `its resources hold an entry without a uri and a sha256:<64 hex> digest (${JSON.stringify(r)?.slice(0, 120)})`;
      else if (fileUri !== uri && !fileUri.startsWith(`${loc.base}/`)) problem ??= `its resources list ${fileUri}, which is outside the skill`;
      else if (size !== undefined && !(Number.isSafeInteger(size) && (size as number) >= 0)) problem ??= `its resources give ${fileUri} a size that is not a byte count (${JSON.stringify(size)})`;
      else {
        digests.set(fileUri, digest);
        if (size !== undefined) sizes.set(fileUri, size as number);
      }
    }
    if (!problem && !digests.has(uri)) problem = "its resources do not list the SKILL.md itself";
    if (problem) {
      bad(problem);
      continue;
    }
    skills.push({ ...loc, files: [...digests.keys()].filter((u) => u !== uri).sort(), digests, sizes, frontmatter: e.frontmatter });
  }
  return { skills, problems };
}

/** A server's part of its skills' names: lowercased, every run of characters other than a-z and 0-9 one `-`. */
export function skillServerPart(server: string): string {
  return server
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * Registry names for one server's skills, by `SKILL.md` URI: `<server>-<name>`. Skills of the server
 * that share a name (`skill://a/x/SKILL.md`, `skill://b/x/SKILL.md`) get their path prefix too
 * (`<server>-a-x`, `<server>-b-x`), none is preferred. A name that is not valid (over 64 characters,
 * a last segment that breaks the naming rules) or that is still taken is an error instead.
 */
export function skillRegistryNames(server: string, skills: readonly SkillLocation[]): Map<string, { name: string } | { error: string }> {
  const out = new Map<string, { name: string } | { error: string }>();
  const part = skillServerPart(server);
  const byName = new Map<string, number>();
  for (const s of skills) byName.set(expectedName(s), (byName.get(expectedName(s)) ?? 0) + 1);
  const taken = new Map<string, string>();
  for (const s of skills) {
    const name = expectedName(s);
    if (!part) {
      out.set(s.uri, { error: `the server name "${server}" has no letter or digit to make a skill name from` });
      continue;
    }
    if (!NAME_RE.test(name) || name.length > MAX_SKILL_NAME) {
      out.set(s.uri, { error: `"${name}", the last segment of its path and so its name, is not a valid skill name (1-64 lowercase letters, digits and single hyphens)` });
      continue;
    }
    const words = byName.get(name)! > 1 ? [...s.segments.slice(0, -1).map(skillServerPart).filter(Boolean), name] : [name];
    const full = `${part}-${words.join("-")}`;
    if (full.length > MAX_SKILL_NAME) {
      out.set(s.uri, { error: `its name in the registry, "${full}", would be over ${MAX_SKILL_NAME} characters` });
      continue;
    }
    const other = taken.get(full);
    if (other) {
      out.set(s.uri, { error: `its name in the registry, "${full}", is already that of ${other}` });
      continue;
    }
    taken.set(full, s.uri);
    out.set(s.uri, { name: full });
  }
  return out;
}

type Contents = { uri?: string; text?: string; blob?: string };

/** `sha256:<hex>` of a read resource's raw bytes (text as UTF-8, blob decoded); undefined without content. */
export function digestOf(contents: readonly Contents[] | undefined, uri: string): string | undefined {
  const list = contents ?? [];
  const c = list.find((x) => x.uri === uri) ?? list[0];
  if (!c) return undefined;
  const bytes = typeof c.text === "string" ? Buffer.from(c.text, "utf8") : typeof c.blob === "string" ? Buffer.from(c.blob, "base64") : undefined;
  return bytes && `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** The byte length of a read resource's content (text as UTF-8, blob decoded); undefined without content. */
export function byteLength(contents: readonly Contents[] | undefined, uri: string): number | undefined {
  const list = contents ?? [];
  const c = list.find((x) => x.uri === uri) ?? list[0];
  if (!c) return undefined;
  return typeof c.text === "string" ? Buffer.byteLength(c.text, "utf8") : typeof c.blob === "string" ? Buffer.from(c.blob, "base64").length : undefined;
}

/** JSON with sorted keys, to compare frontmatter field by field whatever the order. */
export function canonical(v: unknown): string {
  // Dates (YAML timestamps) are already strings here: JSON.stringify calls toJSON before the replacer.
  return JSON.stringify(v, (_k, x: unknown) => (isRecord(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x)) ?? "null";
}

/** The fields whose values differ between two frontmatter objects. */
export function differingFields(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.filter((k) => canonical(a[k] ?? null) !== canonical(b[k] ?? null));
}
