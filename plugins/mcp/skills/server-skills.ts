/**
 * Skills served by MCP servers (the Skills Over MCP Working Group's convention, SEP-2640), registered
 * through core's skill registrar like any other source of skills. A server that declares the
 * `io.modelcontextprotocol/skills` extension is asked with `skills/list` (entries with digests, which
 * are checked); any other server with resources contributes every listed `skill://<path>/SKILL.md`.
 * Each `SKILL.md` is read (bounded in count, size and time), checked by core's `parseSkillFile` and
 * registered as `<server>-<name>`; a bad one is reported and skipped, the others load, and the
 * server's tools are never affected. Kept in step on reconnects and `notifications/resources/list_changed`.
 */
import { z, type PluginContext, type SkillDefinition, type SkillRegistrar } from "../../../core/index.js";
import { parseSkillFile } from "../../../kit/index.js";
import type { ReadResourceResult } from "@modelcontextprotocol/client";
import { NO_SDK_TIMEOUT, type McpConnection } from "../connection.js";
import { formatBytes } from "../content.js";
import { describeError } from "../errors.js";
import {
  SKILLS_EXTENSION,
  differingFields,
  digestOf,
  expectedName,
  skillRegistryNames,
  skillsFromListing,
  skillsFromResources,
  type SkillCandidate,
  type SkillProblem,
} from "./skill-uris.js";

/** At most this many skills per server are read; the rest are reported. */
export const MAX_SKILLS_PER_SERVER = 100;
/** A `SKILL.md` over the server's `maxOutputBytes` (else the host's output cap, else this) is skipped. */
export const DEFAULT_MAX_SKILL_BYTES = 64 * 1024;
/** Reading one server's skills gets its connectTimeout, at most this long. */
export const MAX_SKILLS_LOAD_MS = 30_000;
const MAX_LIST_PAGES = 100;
const MAX_LISTED_RESOURCES = 10_000;
const READ_CONCURRENCY = 8;

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
  /** Roots of those skills: a read under one of them of a file not listed is refused. */
  roots: string[];
  loading: Promise<void> | undefined;
  dirty: boolean;
  /** Problems already reported, so a re-read after a list change does not repeat them. */
  reported: Set<string>;
}

function signatureOf(def: SkillDefinition): string {
  return JSON.stringify([def.description, def.content, def.path, def.meta]);
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
      s = { conn: c, desired: undefined, registered: new Map(), refused: new Map(), digests: new Map(), roots: [], loading: undefined, dirty: false, reported: new Set() };
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

  /** One complete read of a server's skills; undefined when the server is not there to ask (keep what we have). */
  private async read(c: McpConnection, s: ServerSkills): Promise<Pick<ServerSkills, "desired" | "digests" | "roots"> | undefined> {
    if (c.status !== "connected") return undefined;
    const none = { desired: new Map(), digests: new Map(), roots: [] };
    if (c.config.skills === false || !c.capabilities?.resources) return none;
    const ms = Math.min(c.config.connectTimeout, MAX_SKILLS_LOAD_MS);
    // One signal per request, all ending at the same deadline (the SDK never removes its abort listener,
    // so a shared signal would collect one per request).
    const deadline = performance.now() + ms;
    const signal = () => AbortSignal.timeout(Math.max(1, Math.round(deadline - performance.now())));
    const late = (err: unknown) => ((err as Error)?.name === "TimeoutError" || performance.now() >= deadline ? new Error(`no answer within ${ms} ms`) : err);
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
        const uris = await this.listUris(c, signal);
        if (!uris) return undefined;
        ({ skills: candidates, total } = skillsFromResources(uris, MAX_SKILLS_PER_SERVER));
      }
    } catch (err) {
      if (c.status !== "connected") return undefined;
      throw late(err);
    }
    if (total > candidates.length) {
      const more = extension && total > MAX_SKILLS_PER_SERVER ? `more than ${MAX_SKILLS_PER_SERVER}` : String(total);
      this.problem(c, s, `MCP server ${c.name} offers ${more} skills; only the first ${MAX_SKILLS_PER_SERVER} are read.`);
    }

    const names = skillRegistryNames(c.name, candidates);
    const maxBytes = c.config.maxOutputBytes ?? this.ctx.config.tools?.maxOutputBytes ?? DEFAULT_MAX_SKILL_BYTES;
    const found = new Map<string, SkillDefinition>();
    const digests = new Map<string, string>();
    const roots: string[] = [];
    const queue = [...candidates];
    let gone = false;
    const keep = (cand: SkillCandidate, def: SkillDefinition) => {
      found.set(cand.uri, def);
      if (cand.digests) {
        for (const [u, d] of cand.digests) digests.set(u, d);
        roots.push(cand.base);
      }
    };
    const worker = async () => {
      for (let cand = queue.shift(); cand && !gone; cand = queue.shift()) {
        const named = names.get(cand.uri)!;
        if ("error" in named) {
          this.skipped(c, s, { uri: cand.uri, message: named.error });
          continue;
        }
        if (c.status !== "connected") {
          gone = true;
          return;
        }
        try {
          const def = await this.readSkill(c, cand, named.name, maxBytes, signal);
          if (typeof def === "string") this.skipped(c, s, { uri: cand.uri, message: def });
          else keep(cand, def);
        } catch (err) {
          if (c.status !== "connected") gone = true;
          else {
            this.skipped(c, s, { uri: cand.uri, message: `it could not be read: ${describeError(late(err))}` });
            // A read that failed (not a bad SKILL.md) keeps what an earlier read found, if anything.
            const before = [...(s.desired?.values() ?? [])].find((d) => d.path === cand.uri && d.name === named.name);
            if (before) keep(cand, before);
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, queue.length) }, worker));
    if (gone) return undefined;
    // Registration order follows the server's listing, whatever order the reads finished in.
    const desired = new Map<string, SkillDefinition>();
    for (const cand of candidates) {
      const def = found.get(cand.uri);
      if (def) desired.set(def.name, def);
    }
    return { desired, digests, roots };
  }

  /** Read, check and turn one `SKILL.md` into a definition; a string says why it is skipped. */
  private async readSkill(c: McpConnection, cand: SkillCandidate, name: string, maxBytes: number, signal: () => AbortSignal): Promise<SkillDefinition | string> {
    const result = await c.readResource(cand.uri, signal());
    const contents = (result.contents ?? []) as { uri?: string; text?: unknown; blob?: unknown }[];
    const entry = contents.find((x) => x.uri === cand.uri) ?? contents[0];
    if (!entry) return "the server returned no content for it";
    if (typeof entry.text !== "string") return "the server returned it as binary data, not text";
    const bytes = Buffer.byteLength(entry.text);
    if (bytes > maxBytes) return `it is ${formatBytes(bytes)}; at most ${formatBytes(maxBytes)} are read (maxOutputBytes)`;
    const want = cand.digests?.get(cand.uri);
    if (want) {
      const got = digestOf(result.contents, cand.uri);
      if (got !== want) return `its content does not match the digest skills/list gave for it (${got} instead of ${want})`;
    }
    const parsed = await parseSkillFile(cand.uri, entry.text, { expectedName: expectedName(cand) });
    if (!parsed.ok) return parsed.error;
    const skill = parsed.skill;
    if (cand.frontmatter) {
      const differ = differingFields(skill.frontmatter, cand.frontmatter);
      if (differ.length) return `its frontmatter differs from what skills/list gave for it (${differ.join(", ")})`;
    }
    return {
      name,
      description: skill.description,
      content: skill.body,
      path: cand.uri,
      source: `mcp:${c.name}`,
      meta: {
        scope: "mcp",
        server: c.name,
        skillName: skill.name,
        base: cand.base,
        files: cand.files,
        verified: !!want,
        allowedTools: skill.allowedTools,
        disableModelInvocation: skill.disableModelInvocation,
        ...(skill.license ? { license: skill.license } : {}),
        ...(skill.compatibility ? { compatibility: skill.compatibility } : {}),
        metadata: skill.metadata,
      },
    };
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

  /** Every listed resource URI (bounded pages and count); undefined when the server went away meanwhile. */
  private async listUris(c: McpConnection, signal: () => AbortSignal): Promise<string[] | undefined> {
    const uris: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES && uris.length < MAX_LISTED_RESOURCES; page++) {
      if (c.status !== "connected") return undefined;
      const r = await c.listResources(cursor, signal());
      for (const res of r.resources) if (typeof res.uri === "string") uris.push(res.uri);
      if (!r.nextCursor || r.nextCursor === cursor) break;
      cursor = r.nextCursor;
    }
    return uris.slice(0, MAX_LISTED_RESOURCES);
  }
}
