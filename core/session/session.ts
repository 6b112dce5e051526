/**
 * The conversation a host keeps between runs, and what runs it; the loop updates it. What it commits goes
 * to the `transcript` hook (transcript.ts); it can be resumed or forked from a saved one (the `sessionLoad`
 * hook), and compacted on demand (compaction-run.ts). Kept apart from host.ts to keep that small.
 */
import { randomUUID } from "node:crypto";
import { replaceAll } from "../../kit/array-bulk.js";
import { AgentError } from "../../kit/errors.js";
import type { AgentConfig } from "../config/config-schema.js";
import { Compactions } from "./compaction-run.js";
import type { AgentEvent } from "../hooks/events.js";
import type { RawHooks } from "../hooks/hooks.js";
import type { AgentSession, PluginHost } from "../host-types.js";
import { resolveModel, systemPrompt } from "../loop/run-setup.js";
import type { CompactOutcome, ResumeResult } from "../hooks/hook-types.js";
import type { SessionLifecycle } from "./session-lifecycle.js";
import { Transcript } from "./transcript.js";
import type { JsonSchema, PermissionMode } from "../types.js";

/** What the host keeps for runs: the conversation's lifecycle, its transcript and compactions, and the run in progress (for `ctx.stopRun`). */
export interface RunControl {
  lifecycle: SessionLifecycle;
  transcript: Transcript;
  compactions: Compactions;
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
  /** The conversation goes on as another session (resume, fork): the host's id follows. */
  switchTo(id: string): Promise<void>;
  /** The host's id becomes `id` (a cleared conversation is a new session), nothing else. */
  rename(id: string): void;
}

/** The session object, and the transcript and compactions it shares with the runs. */
export function sessionParts(o: SessionPartsOptions): { session: AgentSession; control: RunControl } {
  let chosenModel: string | undefined;
  const transcript = new Transcript(o.hooks, () => ({ sessionId: o.id(), model: session.model }));
  const compactions = new Compactions(o.hooks, transcript, () => ({ sessionId: o.id(), mode: o.mode() }), o.emit);
  const session: AgentSession = {
    get id() {
      return o.id();
    },
    get model() {
      return chosenModel ?? (process.env.AGENT_MODEL || undefined) ?? o.config.model;
    },
    set model(ref: string | undefined) {
      chosenModel = ref;
    },
    messages: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    running: false,
    get transcriptPath() {
      return transcript.file;
    },
    clear() {
      session.messages.length = 0;
      // sessionEnd hears the old id (its info is taken now); the next run starts the new one.
      void o.lifecycle.end("clear");
      // What follows is a new session, its transcript written with its first message; the old one stays resumable.
      transcript.restart();
      o.rename(randomUUID());
    },
    async resume(idOrPrefix, options = {}): Promise<ResumeResult> {
      if (session.running) throw new AgentError("E_USAGE", "A run is in progress; resume a session once it is over.");
      const fork = options.fork === true;
      const forkId = fork ? randomUUID() : undefined;
      const answer = await transcript.load({ id: idOrPrefix, ...(forkId ? { forkId } : {}) });
      if (!answer) throw new AgentError("E_USAGE", "Sessions are not available in this host.");
      if ("error" in answer) throw new AgentError("E_USAGE", answer.error);
      const { id: from, messages, usage, damaged } = answer.session;
      const result: ResumeResult = { id: forkId ?? from, from, forked: fork, messages: messages.length, ...(damaged ? { damaged } : {}) };
      await o.switchTo(result.id);
      replaceAll(session.messages, messages);
      session.usage.inputTokens = usage.inputTokens;
      session.usage.outputTokens = usage.outputTokens;
      transcript.restart(fork ? [] : session.messages);
      // A fork writes its copy now, so it is listed (and resumable) from the start.
      if (fork) transcript.sync(session.messages, `forked from ${from}`);
      return result;
    },
    async compact(options = {}): Promise<CompactOutcome> {
      if (session.running) throw new AgentError("E_USAGE", "A run is in progress; compact once it is over.");
      const unavailable = () => new AgentError("E_USAGE", "Compaction is not available in this host.");
      if (!compactions.available) throw unavailable();
      const host = o.host();
      const { ref, provider, model } = resolveModel(host, options.model ?? session.model);
      const system = await systemPrompt(host, undefined, { userConfigDir: o.userConfigDir });
      const tools = host.tools.list().map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as JsonSchema }));
      // The plugin that manages the context (`compactAsked`) works out the figures and compacts.
      const asked = compactions.point(session, { provider, ref, request: { model, system, tools }, signal: options.signal }, options.instructions !== undefined ? { instructions: options.instructions } : {});
      await o.hooks.compactAsked.promise(asked.point);
      if (!asked.outcome) throw unavailable();
      return asked.outcome;
    },
  };
  return { session, control: { lifecycle: o.lifecycle, transcript, compactions, userConfigDir: o.userConfigDir } };
}
