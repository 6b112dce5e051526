/**
 * Tool sources: plugins whose tools cost something to get (an MCP server to start, a list to fetch)
 * register a source instead of, or besides, their tools, and the host loads it when the tools are
 * needed: a call to a name the source provides, a model request, or a command that lists everything.
 * So `agent call read_file` starts no server, and a first model request is not held by one.
 */
import { errorMessage } from "../../kit/errors.js";

export interface ToolSource {
  /** Named in messages and status, e.g. `mcp:github`. */
  name: string;
  /** Whether a tool of this name may come from this source: a call to such a name loads the source first. */
  provides(toolName: string): boolean;
  /**
   * Register the source's tools (start the server, list its tools). Called once; later changes are the
   * source's own business (it adds and removes through its registrar). Problems are the source's to report.
   */
  load(signal?: AbortSignal): Promise<void>;
  /**
   * Asked when a model request is about to go out: true when the source's tools can serve it without
   * `load` (the source may register cached tools at this moment), so the request does not wait.
   */
  ready?(): boolean;
  /**
   * Asked after `load` for a name of this source that is still not registered: why its tools cannot be had
   * (a server that needs a login, one that failed to start). The call then fails with this reason instead of
   * "Unknown tool". Undefined: nothing to say (the name is simply unknown).
   */
  unavailable?(toolName: string): ToolUnavailable | undefined;
}

/** Why a source's tool cannot be called now. */
export interface ToolUnavailable {
  /** For the caller and the model, e.g. ``the MCP server 'srv' needs a login: run `agent mcp login srv` ``. */
  reason: string;
  /** `auth`: the user must log in first (the CLI exits with `ExitCode.AUTH`); `failed` (default): the source failed. */
  kind?: "auth" | "failed";
}

export interface ToolLoadOptions {
  /** Load only the sources that provide these tool names. */
  names?: readonly string[];
  /** Wait at most this long; the sources still loading go on in the background (and are listed as pending). */
  waitMs?: number;
  /** Leave sources that are `ready()` alone (their cached tools serve meanwhile): neither start nor wait for them. */
  skipReady?: boolean;
}

export interface ToolLoadResult {
  /** Sources loaded by the time the call returned. */
  loaded: string[];
  /** Sources still loading (only with `waitMs`). */
  pending: string[];
}

interface Held {
  plugin: string;
  source: ToolSource;
  loading?: Promise<void>;
  done: boolean;
}

export class ToolSources {
  private readonly held = new Map<string, Held>();

  constructor(private readonly onError: (plugin: string, message: string) => void) {}

  /** Refused (with the reason) when the source is malformed or its name is taken. */
  add(plugin: string, source: unknown): string | undefined {
    const s = source as Partial<ToolSource> | null;
    if (!s || typeof s !== "object") return "a tool source must be an object { name, provides, load }";
    if (typeof s.name !== "string" || !s.name.trim()) return "a tool source needs a name";
    if (typeof s.provides !== "function" || typeof s.load !== "function") return `tool source ${s.name}: provides and load must be functions`;
    if (this.held.has(s.name)) return `tool source ${s.name} is already registered`;
    // The host's own copy of the functions: the plugin cannot swap them later.
    const { name, provides, load, ready, unavailable } = s as ToolSource;
    const frozen: ToolSource = Object.freeze({
      name,
      provides: provides.bind(s),
      load: load.bind(s),
      ...(typeof ready === "function" ? { ready: ready.bind(s) } : {}),
      ...(typeof unavailable === "function" ? { unavailable: unavailable.bind(s) } : {}),
    });
    this.held.set(name, { plugin, source: frozen, done: false });
    return undefined;
  }

  remove(plugin: string, name: string): boolean {
    const h = this.held.get(name);
    if (!h || h.plugin !== plugin) return false;
    return this.held.delete(name);
  }

  removeAll(plugin: string): void {
    for (const [n, h] of this.held) if (h.plugin === plugin) this.held.delete(n);
  }

  get size(): number {
    return this.held.size;
  }

  /** Names of the sources not loaded yet (or still loading). */
  pending(): string[] {
    return [...this.held.values()].filter((h) => !h.done).map((h) => h.source.name);
  }

  private start(h: Held, signal?: AbortSignal): Promise<void> {
    h.loading ??= (async () => {
      try {
        await h.source.load(signal);
      } catch (err) {
        this.onError(h.plugin, `tool source ${h.source.name} failed to load: ${errorMessage(err)}`);
      } finally {
        h.done = true;
      }
    })();
    return h.loading;
  }

  private provides(h: Held, name: string): boolean {
    return answersTrue(() => h.source.provides(name));
  }

  /** Load the sources (all, or those providing `names`), waiting at most `waitMs`. Never rejects. */
  async load(options: ToolLoadOptions = {}): Promise<ToolLoadResult> {
    const chosen = [...this.held.values()].filter(
      (h) => (!options.names || options.names.some((n) => this.provides(h, n))) && !(options.skipReady && answersTrue(() => h.source.ready?.())),
    );
    const waited = chosen.filter((h) => (this.start(h), !h.done));
    if (waited.length) {
      const all = Promise.all(waited.map((h) => h.loading));
      if (options.waitMs === undefined) await all;
      else {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([all, new Promise((r) => (timer = setTimeout(r, options.waitMs)))]);
        clearTimeout(timer);
      }
    }
    return {
      loaded: chosen.filter((h) => h.done).map((h) => h.source.name),
      pending: chosen.filter((h) => !h.done).map((h) => h.source.name),
    };
  }

  /** For a name still unknown after `resolve`: the first reason a source providing it gives (see `ToolSource.unavailable`). */
  unavailable(name: string): ToolUnavailable | undefined {
    for (const h of this.held.values()) {
      if (!this.provides(h, name)) continue;
      try {
        const u = h.source.unavailable?.(name);
        if (u && typeof u.reason === "string" && u.reason) return { reason: u.reason, kind: u.kind === "auth" ? "auth" : "failed" };
      } catch {
        /* a source that throws here has nothing to say */
      }
    }
    return undefined;
  }

  /** For a call to an unknown name: load every source that may provide it. True if there was one. */
  async resolve(name: string): Promise<boolean> {
    const owners = [...this.held.values()].filter((h) => this.provides(h, name));
    if (!owners.length) return false;
    await Promise.all(owners.map((h) => this.start(h)));
    return true;
  }
}

/** Whether a source's answer is `true`; one that throws says no. */
function answersTrue(ask: () => unknown): boolean {
  try {
    return ask() === true;
  } catch {
    return false;
  }
}
