/**
 * Which tools a request leaves out, how the left-out ones are named to the model, and how
 * `tool_search` finds them. Pure functions over registered tools, so the plugin stays a thin layer.
 */
import { type ModelTool, type RegisteredTool } from "../../core/index.js";
import { patternMatcher } from "../../kit/index.js";

export interface SearchSettings {
  mode: "off" | "auto" | "always";
  /** auto: defer once the deferrable tools' definitions pass this many bytes... */
  budgetBytes: number;
  /** ...or the request would carry more than this many tools (OpenAI-compatible APIs refuse more than 128). */
  maxTools: number;
  /** Tool names or globs that are never deferred. */
  alwaysLoad: string[];
  /** Bytes the listing of deferred tools in the system prompt may take with descriptions; past it, names only. */
  listingBytes: number;
}

/** What OpenAI-compatible APIs accept in one request: a request never carries more tools than this. */
export const API_TOOL_LIMIT = 128;
/** At most this many tools are loaded by one search (exact names included). */
export const MAX_LOAD = 20;

export const DEFAULTS: SearchSettings = { mode: "auto", budgetBytes: 20_000, maxTools: 100, alwaysLoad: [], listingBytes: 4_000 };

const definitionBytes = (t: ModelTool) => JSON.stringify(t).length;

/** Whether `alwaysLoad` keeps this tool in every request. */
export function alwaysLoaded(name: string, s: SearchSettings): boolean {
  return s.alwaysLoad.some((p) => patternMatcher(p)(name));
}

/** The request's tools that may be deferred: marked `deferLoading`, not kept by `alwaysLoad`, not loaded yet. */
export function deferrable(tools: readonly ModelTool[], registered: (name: string) => RegisteredTool | undefined, s: SearchSettings, loaded: ReadonlySet<string>): ModelTool[] {
  return tools.filter((t) => registered(t.name)?.deferLoading === true && !loaded.has(t.name) && !alwaysLoaded(t.name, s));
}

/** Whether to defer at all for this request. */
export function shouldDefer(all: readonly ModelTool[], candidates: readonly ModelTool[], s: SearchSettings): boolean {
  if (s.mode === "off" || candidates.length === 0) return false;
  if (s.mode === "always") return true;
  return all.length > s.maxTools || candidates.reduce((n, t) => n + definitionBytes(t), 0) > s.budgetBytes;
}

/** The longest start shared by all names, cut after a `__` or `_` so it reads as a prefix (`mcp__github__`). */
function sharedPrefix(names: string[]): string {
  if (names.length < 2) return "";
  let p = names[0];
  for (const n of names) while (!n.startsWith(p)) p = p.slice(0, -1);
  const cut = Math.max(p.lastIndexOf("__") + 2, p.lastIndexOf("_") + 1);
  return p.slice(0, cut);
}

const oneLine = (text: string, max: number) => {
  const t = text.replace(/^\[MCP:[^\]]*\]\s*/, "").replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/**
 * The system prompt's section naming the deferred tools, grouped by source: with a short description
 * each when that fits in `listingBytes`, otherwise names only, a group's shared prefix written once.
 */
export function listing(deferred: readonly ModelTool[], sourceOf: (name: string) => string, s: SearchSettings): string {
  const groups = new Map<string, ModelTool[]>();
  for (const t of deferred) {
    const src = sourceOf(t.name);
    groups.set(src, [...(groups.get(src) ?? []), t]);
  }
  const head =
    `## More tools (not loaded)\n` +
    `These ${deferred.length} tools exist but their definitions are not loaded. To use one, call tool_search with keywords ` +
    `(or a /regex/, or its exact names in "names"); the tools it returns can be called from your next turn.`;
  const detailed = [...groups].map(([src, tools]) => `${src}:\n${tools.map((t) => `- ${t.name}: ${oneLine(t.description, 70)}`).join("\n")}`);
  const text = `${head}\n${detailed.join("\n")}`;
  if (text.length <= s.listingBytes) return text;
  const brief = [...groups].map(([src, tools]) => {
    const names = tools.map((t) => t.name);
    const prefix = sharedPrefix(names);
    return prefix ? `${src}: ${prefix}{${names.map((n) => n.slice(prefix.length)).join(",")}}` : `${src}: ${names.join(", ")}`;
  });
  return `${head}\n${brief.join("\n")}`;
}

export interface SearchQuery {
  query?: string;
  names?: string[];
  limit?: number;
}

/** Tools matching the query: exact names first, then a /regex/ or keywords over names and descriptions (best first). */
export function search(tools: readonly RegisteredTool[], q: SearchQuery): RegisteredTool[] {
  const limit = Math.min(Math.max(q.limit ?? 5, 1), MAX_LOAD);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const out: RegisteredTool[] = [];
  for (const n of q.names ?? []) {
    const t = byName.get(n);
    if (out.length >= MAX_LOAD) break;
    if (t && !out.includes(t)) out.push(t);
  }
  const query = q.query?.trim();
  if (!query) return out;
  const rx = /^\/(.+)\/([imsu]*)$/.exec(query);
  let score: (t: RegisteredTool) => number;
  if (rx) {
    let re: RegExp;
    try {
      re = new RegExp(rx[1], rx[2].includes("i") ? rx[2] : `${rx[2]}i`);
    } catch (err) {
      throw new Error(`invalid regular expression ${query}: ${(err as Error).message}`);
    }
    score = (t) => (re.test(t.name) ? 2 : re.test(t.description) ? 1 : 0);
  } else {
    const words = query.toLowerCase().split(/[\s,]+/).filter(Boolean);
    score = (t) => {
      const name = t.name.toLowerCase();
      const desc = t.description.toLowerCase();
      return words.reduce((n, w) => n + (name.includes(w) ? 3 : 0) + (desc.includes(w) ? 1 : 0), 0);
    };
  }
  const ranked = tools
    .map((t) => ({ t, s: score(t) }))
    .filter((x) => x.s > 0 && !out.includes(x.t))
    .sort((a, b) => b.s - a.s || a.t.name.localeCompare(b.t.name));
  for (const { t } of ranked) {
    if (out.length >= limit) break;
    out.push(t);
  }
  return out;
}

/**
 * The loaded tools to leave out again so a request of `kept` tools stays within API_TOOL_LIMIT: the ones
 * loaded longest ago first (`loaded` is in loading order).
 */
export function overLimit(kept: readonly ModelTool[], loaded: ReadonlySet<string>, limit = API_TOOL_LIMIT): Set<string> {
  const drop = new Set<string>();
  let excess = kept.length - limit;
  if (excess <= 0) return drop;
  const keptNames = new Set(kept.map((t) => t.name));
  for (const name of loaded) {
    if (excess <= 0) break;
    if (!keptNames.has(name)) continue;
    drop.add(name);
    excess--;
  }
  return drop;
}
