/**
 * The conversation as plugins hear of it: `sessionStart` before the first run of a session (and the
 * first after a clear), `sessionEnd` when it is cleared or the host closes; `userPromptSubmit` and
 * `stop` around each run. What handlers answer is gathered here (collectors) and checked: a prompt
 * screener that fails blocks the prompt (to be safe); a start or stop handler that fails is skipped.
 */
import { freezeCopy } from "../../kit/freeze.js";
import type { SessionEndInfo, SessionStartInfo, StopInfo, UserPromptInfo } from "../hooks/hook-types.js";
import type { RawHooks } from "../hooks/hooks.js";
import { describeValue } from "../hooks/hook-adapters.js";
import type { Collector, FailingCollector } from "../hooks/hook-types.js";
import type { PermissionMode } from "../types.js";

/** Text a plugin put into the conversation, and which plugin. */
export interface ContextEntry {
  plugin: string;
  text: string;
}

/** How context reaches the model: marked as coming from a plugin, so it is not read as the user's words. */
export function contextBlocks(entries: readonly ContextEntry[]): string {
  return entries.map((e) => `<context from="${e.plugin}">\n${e.text}\n</context>`).join("\n\n");
}

/** A collector that takes `{ [key]: string }` from each handler (blank text is dropped). */
export class TextCollector<V> implements Collector<V> {
  readonly taken: ContextEntry[] = [];
  constructor(
    private readonly info: V,
    private readonly key: string,
  ) {}
  view(): V {
    return this.info;
  }
  take(plugin: string, out: unknown): string | undefined {
    const text = typeof out === "object" ? (out as Record<string, unknown>)[this.key] : undefined;
    if (typeof text !== "string") return `returned ${describeValue(out)} instead of { ${this.key}: string }; ignored`;
    if (text.trim()) this.taken.push({ plugin, text });
    return undefined;
  }
}

/**
 * `{ block }` or `{ [key]: text }` from each handler: a block wins; texts add up (blank dropped). Anything else
 * is skipped, or, for a screener (`screens`: its hook's name, `userPromptSubmit`), blocks: it must not fail open.
 */
export class BlockCollector<V> implements FailingCollector<V> {
  blocked: { plugin: string; reason: string } | undefined;
  readonly taken: ContextEntry[] = [];
  constructor(
    private readonly info: V,
    private readonly key: string,
    private readonly screens?: string,
  ) {}
  view(): V {
    return this.info;
  }
  take(plugin: string, out: unknown): string | undefined {
    const o = (typeof out === "object" ? out : {}) as Record<string, unknown>;
    const text = o[this.key];
    if (typeof o.block === "string") this.blocked ??= { plugin, reason: o.block };
    else if (typeof text === "string") {
      if (text.trim()) this.taken.push({ plugin, text });
    } else if (!this.screens) return `returned ${describeValue(out)} instead of { block } or { ${this.key} }; ignored`;
    else {
      this.fail(plugin, `it returned ${describeValue(out)} instead of { block } or { ${this.key} }`);
      return `returned ${describeValue(out)} instead of { block: string } or { ${this.key}: string }; the prompt was blocked to be safe`;
    }
    return undefined;
  }
  /** Only a screener's hook counts a failure (its policy); the others skip the handler. */
  fail(plugin: string, message: string): void {
    this.blocked ??= { plugin, reason: `plugin ${plugin} failed in ${this.screens} (${message}); the prompt was blocked to be safe` };
  }
}

type Info = () => { sessionId: string; cwd: string; mode: PermissionMode };

export class SessionLifecycle {
  private started = false;
  private cleared = false;
  private resumed = false;
  private context: ContextEntry[] = [];
  private ending: Promise<void> | undefined;

  constructor(
    private readonly hooks: RawHooks,
    private readonly info: Info,
  ) {}

  /** Before a run: start the conversation if it has not started. Returns the context for the system prompt. */
  async begin(model: string, signal?: AbortSignal): Promise<readonly ContextEntry[]> {
    await this.ending;
    if (this.started) return this.context;
    this.started = true;
    if (this.hooks.sessionStart.isUsed()) {
      const info: SessionStartInfo = freezeCopy({ ...this.info(), source: this.resumed ? "resume" : this.cleared ? "clear" : "startup", model, ...(signal ? { signal } : {}) });
      const c = new TextCollector(info, "context");
      await this.hooks.sessionStart.promise(c);
      this.context = c.taken;
    }
    this.resumed = false;
    return this.context;
  }

  /** A saved session replaces the conversation: the current one ends, the next run starts it as `resume`. */
  async resume(): Promise<void> {
    await this.end("clear");
    this.resumed = true;
  }

  /** The conversation ends: cleared (the next run starts a new one) or the host closes. Never rejects. */
  end(reason: SessionEndInfo["reason"]): Promise<void> {
    if (!this.started) return this.ending ?? Promise.resolve();
    this.started = false;
    this.context = [];
    if (reason === "clear") this.cleared = true;
    if (!this.hooks.sessionEnd.isUsed()) return Promise.resolve();
    const info: SessionEndInfo = freezeCopy({ ...this.info(), reason });
    const previous = this.ending;
    return (this.ending = (async () => {
      await previous;
      await this.hooks.sessionEnd.promise(info).catch(() => {});
    })());
  }

  /** `userPromptSubmit`: the text to send (the prompt, then any context), or who blocked it. */
  async submit(prompt: string, signal?: AbortSignal): Promise<{ content: string } | { blocked: { plugin: string; reason: string } }> {
    if (!this.hooks.userPromptSubmit.isUsed()) return { content: prompt };
    const c = new BlockCollector<UserPromptInfo>(freezeCopy({ ...this.info(), prompt, ...(signal ? { signal } : {}) }), "context", "userPromptSubmit");
    await this.hooks.userPromptSubmit.promise(c);
    if (c.blocked) return { blocked: c.blocked };
    return { content: c.taken.length ? `${prompt}\n\n${contextBlocks(c.taken)}` : prompt };
  }

  /** `stop`: the message that makes the run go on, or undefined to stop. */
  async stop(info: Omit<StopInfo, "sessionId" | "mode">): Promise<string | undefined> {
    if (!this.hooks.stop.isUsed()) return undefined;
    const { sessionId, mode } = this.info();
    const c = new TextCollector<StopInfo>(freezeCopy({ ...info, sessionId, mode }), "continue");
    await this.hooks.stop.promise(c);
    return c.taken.length ? contextBlocks(c.taken) : undefined;
  }
}
