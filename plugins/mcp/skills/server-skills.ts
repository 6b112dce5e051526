/**
 * Skills served by MCP servers (the Skills Over MCP extension, SEP-2640), registered through core's
 * skill registrar like any other source of skills. A server that declares the
 * `io.modelcontextprotocol/skills` extension is asked with `skills/list` (entries with frontmatter,
 * digests and sizes); any other server with resources contributes every listed `skill://<path>/SKILL.md`.
 * Each is registered from its listing alone as `<server>-<name>` (bounded in count); as SEP-2640 asks,
 * no `SKILL.md` is read ahead of need: it is fetched when the skill is used (the model's `skill` tool,
 * `/<name>`) and checked then (size, digest, `parseSkillFile`, frontmatter against the listing); a skill
 * that fails is that use's error, naming server and skill, and the server's tools are never affected.
 * Kept in step on reconnects and `notifications/resources/list_changed`.
 */
import { z, type PluginContext, type SkillDefinition, type SkillRegistrar } from "../../../core/index.js";
import { parseSkillFile, splitToolList, type SkillFile } from "../../../kit/index.js";
import type { ReadResourceResult } from "@modelcontextprotocol/client";
import { NO_SDK_TIMEOUT, type McpConnection } from "../connection.js";
import { formatBytes } from "../content.js";
import { isRecord } from "../config/values.js";
import { describeError } from "../errors.js";
import {
  SKILLS_EXTENSION,
  byteLength,
  canonical,
  differingFields,
  digestOf,
  expectedName,
  skillRegistryNames,
  skillsFromListing,
  skillsFromResources,
  type SkillCandidate,
  type SkillProblem,
} from "./skill-uris.js";

/** At most this many skills per server are listed; the rest are reported. */
export const MAX_SKILLS_PER_SERVER = 100;
/** A `SKILL.md` over the server's `maxOutputBytes` (else the host's output cap, else this) is skipped. */
export const DEFAULT_MAX_SKILL_BYTES = 64 * 1024;
/** Listing one server's skills gets its connectTimeout, at most this long; fetching a SKILL.md its toolTimeout, else this. */
export const MAX_SKILLS_LOAD_MS = 30_000;
const MAX_LIST_PAGES = 100;
const MAX_LISTED_RESOURCES = 10_000;

const SkillsListResult = z.looseObject({ skills: z.array(z.unknown()).optional(), nextCursor: z.string().optional() });

interface ServerSkills {
  readonly conn: McpConnection;
  /** What the last complete read found, registry name → definition (without `meta.readTool`). */
  desired: Map<string, SkillDefinition> | undefined;
  /** What is registered, registry name → signature. */
  registered: Map<string, string>;
  /** Definitions the registry refused (reported once), name → signature. */
  refused: Map<string, string>;
  /** Files of skills whose entry carried digests: every read of them is checked. */
  digests: Map<string, string>;
  /** Sizes those entries gave: a read of another size is refused like a digest mismatch. */
  sizes: Map<string, number>;
  /** What fetched `SKILL.md`s of skills listed without frontmatter said of their use, by URI (see `learn`). */
  learned: Map<string, Record<string, unknown>>;
  /** Roots of those skills: a read under one of them of a file not listed is refused. */
  roots: string[];
  loading: Promise<void> | undefined;
  dirty: boolean;
  /** Problems already reported, so a re-read after a list change does not repeat them. */
  reported: Set<string>;
}

/** What tells a listed skill from its earlier listing (its body is fetched on use: its digest is in `meta`). */
function signatureOf(def: SkillDefinition): string {
  return JSON.stringify([def.description, typeof def.content === "string" ? def.content : undefined, def.path, def.meta]);
}

export class McpSkills {
  private registrar: SkillRegistrar | undefined;
  private readonly servers = new Map<string, ServerSkills>();

  /**
   * `connections` in config order (skills are first registered in that order, so of two servers
   * whose skills would get the same name the first one's wins, and the clash is reported). `readTool`:
   * the registry name of the tool that reads a server's resources, if it has one.
   */
  constructor(
    private readonly ctx: PluginContext,
    connections: readonly McpConnection[],
    private readonly readTool: (c: McpConnection) => string | undefined,
  ) {
    for (const c of connections) this.state(c);
  }

  /**
   * Take the registrar, wait for the reads under way (each bounded; the wait too, for a server that
   * keeps changing its list), register what they found in config order. Later reads register on their own.
   */
  async register(registrar: SkillRegistrar): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, 2 * MAX_SKILLS_LOAD_MS)));
    await Promise.race([Promise.all([...this.servers.values()].map((s) => s.loading)), cap]);
    clearTimeout(timer);
    // Only now: reads that finish meanwhile must not register in the order they happen to finish.
    this.registrar = registrar;
    for (const s of this.servers.values()) this.apply(s);
  }

  /** Registered skills of a server. */
  count(c: McpConnection): number {
    return this.servers.get(c.name)?.registered.size ?? 0;
  }

  /**
   * (Re)read a server's skills and bring the registry in line. Never throws; a call while a read is
   * under way makes one more read after it.
   */
  refresh(c: McpConnection): Promise<void> {
    const s = this.state(c);
    if (s.loading) {
      s.dirty = true;
      return s.loading;
    }
    s.loading = (async () => {
      try {
        do {
          s.dirty = false;
          const found = await this.read(c, s).catch((err: unknown) => {
            this.problem(c, s, `MCP server ${c.name}: its skills could not be read: ${describeError(err)}. Its tools are not affected.`);
            return undefined;
          });
          if (found) {
            Object.assign(s, found);
            this.apply(s);
          }
        } while (s.dirty);
      } finally {
        s.loading = undefined;
      }
    })();
    return s.loading;
  }

  /** Register again when the name of the server's resources tool may have changed (its tool list did). */
  reapply(c: McpConnection): void {
    const s = this.servers.get(c.name);
    if (s) this.apply(s);
  }

  /**
   * Read a resource for the model (`mcp__<server>__resources`). As the convention asks, a file of a
   * skill whose entry carried digests must match its digest (else it is refused and the server's skills
   * are read again), and a file under such a skill's root that the entry did not list is not read.
   */
  async readResource(c: McpConnection, uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    const s = this.servers.get(c.name);
    const want = s?.digests.get(uri);
    const root = want ? undefined : s?.roots.find((r) => uri.startsWith(`${r}/`));
    if (s && root) {
      throw new Error(`${uri} is inside the skill ${root}/SKILL.md, but not one of the files MCP server ${c.name} listed for it in skills/list; it was not read.`);
    }
    const result = await c.readResource(uri, signal);
    if (s && want) {
      const got = digestOf(result.contents, uri);
      const size = s.sizes.get(uri);
      const bytes = size === undefined ? undefined : byteLength(result.contents, uri);
      if (size !== undefined && bytes !== size) {
        void this.refresh(c);
        throw new Error(`${uri} is not what MCP server ${c.name} listed for its skill (it is ${bytes ?? "no"} bytes, skills/list said ${size}); the content was not used. The server's skills are being read again.`);
      }
      if (got !== want) {
        void this.refresh(c);
        throw new Error(
          `${uri} is not what MCP server ${c.name} listed for its skill (its digest is ${got ?? "missing"}, skills/list said ${want}); the content was not used. The server's skills are being read again.`,
        );
      }
    }
    return result;
  }

  private state(c: McpConnection): ServerSkills {
    let s = this.servers.get(c.name);
    if (!s) {
      s = { conn: c, desired: undefined, registered: new Map(), refused: new Map(), digests: new Map(), sizes: new Map(), learned: new Map(), roots: [], loading: undefined, dirty: false, reported: new Set() };
      this.servers.set(c.name, s);
    }
    return s;
  }

  private problem(c: McpConnection, s: ServerSkills, message: string): void {
    if (s.reported.has(message)) return;
    s.reported.add(message);
    this.ctx.report({ kind: "server", name: c.name, message });
  }

  private skipped(c: McpConnection, s: ServerSkills, p: SkillProblem): void {
    this.problem(c, s, `MCP server ${c.name}: skill ${p.uri} skipped: ${p.message}.`);
  }

  /** The server after `s` in config order that holds the skill `name`, if any. */
  private laterHolder(s: ServerSkills, name: string): ServerSkills | undefined {
    const order = [...this.servers.values()];
    return order.slice(order.indexOf(s) + 1).find((o) => o.registered.has(name));
  }

  /** Bring the registry in line with `desired`: remove what changed or went away, add what is new. */
  private apply(s: ServerSkills): void {
    const registrar = this.registrar;
    if (!registrar || !s.desired) return;
    const readTool = this.readTool(s.conn);
    const desired = new Map<string, SkillDefinition>();
    for (const [name, def] of s.desired) desired.set(name, readTool ? { ...def, meta: { ...def.meta, readTool } } : def);
    for (const [name, sig] of s.registered) {
      const next = desired.get(name);
      if (!next || signatureOf(next) !== sig) {
        registrar.remove(name);
        s.registered.delete(name);
      }
    }
    for (const [name, def] of desired) {
      const sig = signatureOf(def);
      if (s.registered.has(name)) continue;
      // Servers connect in any order: of two whose skills get the same name, the first in config order
      // wins whichever read first; the later one's is taken back and tried again (the registry reports it).
      const later = this.laterHolder(s, name);
      if (later) {
        registrar.remove(name);
        later.registered.delete(name);
        s.refused.delete(name);
        if (registrar.add(def)) s.registered.set(name, sig);
        const theirs = later.desired?.get(name);
        if (theirs && !registrar.add(theirs)) later.refused.set(name, signatureOf(theirs));
        continue;
      }
      if (s.refused.get(name) === sig) continue;
      // A refusal (a name another source holds) is reported by the registry; not retried until the skill changes.
      if (registrar.add(def)) {
        s.registered.set(name, sig);
        s.refused.delete(name);
      } else s.refused.set(name, sig);
    }
  }

  /**
   * One complete read of a server's skill listing (no `SKILL.md` is read: each is fetched when the skill
   * is used); undefined when the server is not there to ask (keep what we have).
   */
  private async read(c: McpConnection, s: ServerSkills): Promise<Pick<ServerSkills, "desired" | "digests" | "sizes" | "roots"> | undefined> {
    if (c.status !== "connected") return undefined;
    const none = { desired: new Map(), digests: new Map(), sizes: new Map(), learned: new Map(), roots: [] };
    if (c.config.skills === false || !c.capabilities?.resources) return none;
    const ms = Math.min(c.config.connectTimeout, MAX_SKILLS_LOAD_MS);
    // One signal per request, all ending at the same deadline (the SDK never removes its abort listener,
    // so a shared signal would collect one per request).
    const deadline = performance.now() + ms;
    const signal = () => AbortSignal.timeout(Math.max(1, Math.round(deadline - performance.now())));
    const extension = c.capabilities.extensions?.[SKILLS_EXTENSION] !== undefined;

    let candidates: SkillCandidate[];
    let total: number;
    try {
      if (extension) {
        const { skills, problems } = skillsFromListing(await this.listEntries(c, signal));
        for (const p of problems) this.skipped(c, s, p);
        candidates = skills.slice(0, MAX_SKILLS_PER_SERVER);
        total = skills.length;
      } else {
        const listed = await this.listResourceEntries(c, signal);
        if (!listed) return undefined;
        ({ skills: candidates, total } = skillsFromResources(listed.uris, MAX_SKILLS_PER_SERVER, listed.descriptions));
      }
    } catch (err) {
      if (c.status !== "connected") return undefined;
      throw (err as Error)?.name === "TimeoutError" || performance.now() >= deadline ? new Error(`no answer within ${ms} ms`) : err;
    }
    if (total > candidates.length) {
      const more = extension && total > MAX_SKILLS_PER_SERVER ? `more than ${MAX_SKILLS_PER_SERVER}` : String(total);
      this.problem(c, s, `MCP server ${c.name} offers ${more} skills; only the first ${MAX_SKILLS_PER_SERVER} are listed.`);
    }

    const names = skillRegistryNames(c.name, candidates);
    const found = { desired: new Map<string, SkillDefinition>(), digests: new Map<string, string>(), sizes: new Map<string, number>(), roots: [] as string[] };
    // Registration order follows the server's listing.
    for (const cand of candidates) {
      const named = names.get(cand.uri)!;
      const def = "error" in named ? named.error : this.listed(c, cand, named.name, s.learned.get(cand.uri));
      if (typeof def === "string") {
        this.skipped(c, s, { uri: cand.uri, message: def });
        continue;
      }
      found.desired.set(def.name, def);
      if (cand.digests) {
        for (const [u, d] of cand.digests) found.digests.set(u, d);
        for (const [u, n] of cand.sizes ?? []) found.sizes.set(u, n);
        found.roots.push(cand.base);
      }
    }
    return found;
  }

  /**
   * A skill as its listing gives it: name, description and the frontmatter fields that steer the host
   * (`skills/list`'s frontmatter; a `resources/list` entry gives only a description). Its body is fetched
   * on use (`fetchSkill`). A string says why it is skipped.
   */
  private listed(c: McpConnection, cand: SkillCandidate, name: string, learned?: Record<string, unknown>): SkillDefinition | string {
    const fm = cand.frontmatter;
    const own = expectedName(cand);
    if (fm && fm.name !== own) return `its skills/list frontmatter names it ${JSON.stringify(fm.name ?? null)}, but the last segment of its path, its name, is "${own}"`;
    if (fm && (typeof fm.description !== "string" || !fm.description.trim())) return "its skills/list frontmatter has no description";
    const description = (typeof fm?.description === "string" ? fm.description : cand.description)?.trim() || `Skill ${own} of MCP server ${c.name} (its listing gives no description).`;
    const digest = cand.digests?.get(cand.uri);
    const text = (k: string) => (typeof fm?.[k] === "string" ? { [k]: fm[k] } : {});
    return {
      name,
      description,
      content: () => this.fetchSkill(c, cand, name),
      path: cand.uri,
      source: `mcp:${c.name}`,
      meta: {
        scope: "mcp",
        server: c.name,
        skillName: own,
        base: cand.base,
        files: cand.files,
        verified: !!digest,
        ...(digest ? { digest } : {}),
        allowedTools: splitToolList(fm?.["allowed-tools"]),
        disableModelInvocation: fm?.["disable-model-invocation"] === true,
        ...text("license"),
        ...text("compatibility"),
        ...(isRecord(fm?.metadata) ? { metadata: fm.metadata } : {}),
        ...learned,
      },
    };
  }

  /**
   * Fetch a skill's `SKILL.md` because it is being used, and check it as the convention asks: within the
   * size cap, of the size and digest `skills/list` gave (a mismatch reads the listing again), a valid
   * `SKILL.md` whose name is the skill's and whose frontmatter is the listing's, field by field.
   * Rejects with an error naming the server and the skill; the body is never used unchecked.
   */
  private async fetchSkill(c: McpConnection, cand: SkillCandidate, name: string): Promise<string> {
    const fail = (why: string) => new Error(`MCP server ${c.name}: skill ${name} (${cand.uri}) ${why}.`);
    const maxBytes = c.config.maxOutputBytes ?? this.ctx.config.tools?.maxOutputBytes ?? DEFAULT_MAX_SKILL_BYTES;
    const listedSize = cand.sizes?.get(cand.uri);
    if (listedSize !== undefined && listedSize > maxBytes) throw fail(`was not read: skills/list gives its SKILL.md as ${formatBytes(listedSize)}; at most ${formatBytes(maxBytes)} are read (maxOutputBytes)`);
    const ms = c.config.toolTimeout ?? MAX_SKILLS_LOAD_MS;
    let result: ReadResourceResult;
    const signal = AbortSignal.timeout(ms);
    try {
      result = await c.readResource(cand.uri, signal);
    } catch (err) {
      throw fail(`could not be read: ${signal.aborted ? `no answer within ${ms} ms` : describeError(err)}`);
    }
    const checked = await checkSkillFile(cand, result, maxBytes);
    if ("problem" in checked) {
      if (checked.tampered) void this.refresh(c);
      throw fail(`was not loaded: ${checked.problem}`);
    }
    if (!cand.frontmatter) this.learn(c, cand, checked);
    return checked.body;
  }

  /**
   * A skill listed without frontmatter (`resources/list`): what its `SKILL.md` says of how the host may use
   * it (`allowed-tools`, `disable-model-invocation`) is known once fetched; it is registered again with
   * it, and kept for the listings after. This use goes on; from the next, the catalog and grants follow it.
   */
  private learn(c: McpConnection, cand: SkillCandidate, file: SkillFile): void {
    const s = this.servers.get(c.name);
    const steer = { allowedTools: file.allowedTools, disableModelInvocation: file.disableModelInvocation };
    if (!s || canonical(s.learned.get(cand.uri)) === canonical(steer)) return;
    s.learned.set(cand.uri, steer);
    const def = [...(s.desired?.values() ?? [])].find((d) => d.path === cand.uri);
    if (!def) return;
    s.desired!.set(def.name, { ...def, meta: { ...def.meta, ...steer } });
    this.apply(s);
  }

  /** Every `skills/list` entry (bounded pages); the extension's listing may be partial or empty. */
  private async listEntries(c: McpConnection, signalFor: () => AbortSignal): Promise<unknown[]> {
    const all: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES && all.length <= MAX_SKILLS_PER_SERVER; page++) {
      const params = cursor ? { cursor } : {};
      const signal = signalFor();
      const r = await c.request(signal, (client) => client.request({ method: "skills/list", params }, SkillsListResult, { signal, timeout: NO_SDK_TIMEOUT }));
      all.push(...(r.skills ?? []));
      if (!r.nextCursor || r.nextCursor === cursor) break;
      cursor = r.nextCursor;
    }
    return all;
  }

  /** Every listed resource URI and the descriptions given (bounded pages and count); undefined when the server went away meanwhile. */
  private async listResourceEntries(c: McpConnection, signal: () => AbortSignal): Promise<{ uris: string[]; descriptions: Map<string, string> } | undefined> {
    const uris: string[] = [];
    const descriptions = new Map<string, string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES && uris.length < MAX_LISTED_RESOURCES; page++) {
      if (c.status !== "connected") return undefined;
      const r = await c.listResources(cursor, signal());
      for (const res of r.resources) {
        if (typeof res.uri !== "string") continue;
        uris.push(res.uri);
        if (typeof res.description === "string" && res.description.trim()) descriptions.set(res.uri, res.description);
      }
      if (!r.nextCursor || r.nextCursor === cursor) break;
      cursor = r.nextCursor;
    }
    return { uris: uris.slice(0, MAX_LISTED_RESOURCES), descriptions };
  }
}

/**
 * The checks of a fetched `SKILL.md` (see `fetchSkill`): its body, or the problem (`tampered`: it is
 * not what `skills/list` gave, by size or digest).
 */
async function checkSkillFile(cand: SkillCandidate, result: ReadResourceResult, maxBytes: number): Promise<SkillFile | { problem: string; tampered?: boolean }> {
  const contents = (result.contents ?? []) as { uri?: string; text?: unknown; blob?: unknown }[];
  const entry = contents.find((x) => x.uri === cand.uri) ?? contents[0];
  if (!entry) return { problem: "the server returned no content for it" };
  if (typeof entry.text !== "string") return { problem: "the server returned it as binary data, not text" };
  const bytes = Buffer.byteLength(entry.text);
  if (bytes > maxBytes) return { problem: `it is ${formatBytes(bytes)}; at most ${formatBytes(maxBytes)} are read (maxOutputBytes)` };
  const size = cand.sizes?.get(cand.uri);
  if (size !== undefined && bytes !== size) return { problem: `it is ${bytes} bytes, but skills/list gave its size as ${size}; the content was not used`, tampered: true };
  const want = cand.digests?.get(cand.uri);
  const got = want && digestOf(result.contents, cand.uri);
  if (want && got !== want) return { problem: `its content does not match the digest skills/list gave for it (${got} instead of ${want}); the content was not used`, tampered: true };
  const parsed = await parseSkillFile(cand.uri, entry.text, { expectedName: expectedName(cand) });
  if (!parsed.ok) return { problem: `its SKILL.md is not valid: ${parsed.error}` };
  if (cand.frontmatter) {
    const differ = differingFields(parsed.skill.frontmatter, cand.frontmatter);
    if (differ.length) return { problem: `its frontmatter differs from what skills/list gave for it (${differ.join(", ")})` };
  }
  return parsed.skill;
}
