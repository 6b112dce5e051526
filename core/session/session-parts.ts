/**
 * A host's conversation and what runs it: the session object, what it commits (the transcript hook), its context
 * manager (window, estimate, compaction), and the lifecycle. Kept apart from host.ts to keep that small.
 */
import { randomUUID } from "node:crypto";
import type { AgentConfig } from "../config/config-schema.js";
import { ContextManager } from "./context-manager.js";
import type { AgentEvent } from "../hooks/events.js";
import type { RawHooks } from "../hooks/hooks.js";
import type { AgentSession, PluginHost } from "../host-types.js";
import { createSession } from "./session.js";
import type { SessionLifecycle } from "./session-lifecycle.js";
import { Transcript } from "./transcript.js";
import type { PermissionMode } from "../types.js";

/** What the host keeps for runs: the conversation's lifecycle, its transcript and context, and the run in progress (for `ctx.stopRun`). */
export interface RunControl {
  lifecycle: SessionLifecycle;
  transcript?: Transcript;
  context?: ContextManager;
  /** The user config folder (user-level instructions), when user config is on. */
  userConfigDir?: string;
  current?: { requestStop(plugin: string, reason: string): void };
}

export interface SessionPartsOptions {
  config: Readonly<AgentConfig>;
  userConfigDir: string | undefined;
  hooks: RawHooks;
  lifecycle: SessionLifecycle;
  id(): string;
  mode(): PermissionMode;
  emit(e: AgentEvent): void;
  host(): PluginHost;
  switchTo(id: string): Promise<void>;
  rename(id: string): void;
}

export function sessionParts(o: SessionPartsOptions): { session: AgentSession; control: RunControl } {
  let session: AgentSession | undefined;
  const transcript = new Transcript(o.hooks, () => ({ sessionId: o.id(), model: session?.model }));
  const context = new ContextManager(o.config, o.hooks, transcript, () => ({ sessionId: o.id(), mode: o.mode(), providers: o.host().providers.list() }), o.emit);
  session = createSession({
    id: o.id,
    configModel: () => o.config.model,
    onClear: () => void o.lifecycle.end("clear"),
    transcript,
    context,
    host: o.host,
    switchTo: o.switchTo,
    rename: o.rename,
    newId: () => randomUUID(),
    userConfigDir: o.userConfigDir,
  });
  return { session, control: { lifecycle: o.lifecycle, transcript, context, userConfigDir: o.userConfigDir } };
}
