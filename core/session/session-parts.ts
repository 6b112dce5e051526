/**
 * A host's conversation and what runs it: the session object, what it commits (the transcript hook), the
 * compactions a context plugin asks for, and the lifecycle. Kept apart from host.ts to keep that small.
 */
import { randomUUID } from "node:crypto";
import type { AgentConfig } from "../config/config-schema.js";
import { Compactions } from "./compaction-run.js";
import type { AgentEvent } from "../hooks/events.js";
import type { RawHooks } from "../hooks/hooks.js";
import type { AgentSession, PluginHost } from "../host-types.js";
import { createSession } from "./session.js";
import type { SessionLifecycle } from "./session-lifecycle.js";
import { Transcript } from "./transcript.js";
import type { PermissionMode } from "../types.js";

/** What the host keeps for runs: the conversation's lifecycle, its transcript and compactions, and the run in progress (for `ctx.stopRun`). */
export interface RunControl {
  lifecycle: SessionLifecycle;
  transcript?: Transcript;
  compactions?: Compactions;
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
  const compactions = new Compactions(o.hooks, transcript, () => ({ sessionId: o.id(), mode: o.mode() }), o.emit);
  session = createSession({
    id: o.id,
    configModel: () => o.config.model,
    onClear: () => void o.lifecycle.end("clear"),
    transcript,
    compactions,
    host: o.host,
    switchTo: o.switchTo,
    rename: o.rename,
    newId: () => randomUUID(),
    userConfigDir: o.userConfigDir,
  });
  return { session, control: { lifecycle: o.lifecycle, transcript, compactions, userConfigDir: o.userConfigDir } };
}
