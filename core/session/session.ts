/**
 * The conversation a host keeps between runs; the loop updates it. What it commits goes to the
 * `transcript` hook (transcript.ts); it can be resumed or forked from a saved one (the `sessionLoad`
 * hook), and compacted on demand.
 */
import { replaceAll } from "../../kit/array-bulk.js";
import { AgentError } from "../../kit/errors.js";
import type { Compactions } from "./compaction-run.js";
import type { AgentSession, PluginHost } from "../host-types.js";
import { resolveModel, systemPrompt } from "../loop/run-setup.js";
import type { CompactOutcome, ResumeResult } from "../hooks/hook-types.js";
import type { Transcript } from "./transcript.js";
import type { JsonSchema } from "../types.js";

export interface SessionDeps {
  id(): string;
  configModel(): string | undefined;
  onClear(): void;
  transcript?: Transcript;
  compactions?: Compactions;
  host?(): PluginHost;
  /** The conversation goes on as another session (resume, fork): the host's id follows. */
  switchTo?(id: string): Promise<void>;
  /** The host's id becomes `id` (a cleared conversation is a new session), nothing else. */
  rename?(id: string): void;
  newId?(): string;
  /** For the user-level instructions in the system prompt a compaction measures. */
  userConfigDir?: string;
}

export function createSession(deps: SessionDeps): AgentSession {
  let chosenModel: string | undefined;
  const session: AgentSession = {
    get id() {
      return deps.id();
    },
    get model() {
      return chosenModel ?? (process.env.AGENT_MODEL || undefined) ?? deps.configModel();
    },
    set model(ref: string | undefined) {
      chosenModel = ref;
    },
    messages: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    running: false,
    get transcriptPath() {
      return deps.transcript?.file;
    },
    clear() {
      session.messages.length = 0;
      // sessionEnd hears the old id (its info is taken now); the next run starts the new one.
      deps.onClear();
      if (deps.transcript && deps.newId && deps.rename) {
        // What follows is a new session, its transcript written with its first message; the old one stays resumable.
        deps.transcript.restart();
        deps.rename(deps.newId());
      } else deps.transcript?.sync(session.messages);
    },
    async resume(idOrPrefix, options = {}): Promise<ResumeResult> {
      if (session.running) throw new AgentError("E_USAGE", "A run is in progress; resume a session once it is over.");
      const fork = options.fork === true;
      const forkId = fork && deps.newId ? deps.newId() : undefined;
      const answer = deps.transcript && deps.switchTo && deps.newId ? await deps.transcript.load({ id: idOrPrefix, ...(forkId ? { forkId } : {}) }) : undefined;
      if (!answer) throw new AgentError("E_USAGE", "Sessions are not available in this host.");
      if ("error" in answer) throw new AgentError("E_USAGE", answer.error);
      const { id: from, messages, usage, damaged } = answer.session;
      const result: ResumeResult = { id: forkId ?? from, from, forked: fork, messages: messages.length, ...(damaged ? { damaged } : {}) };
      await deps.switchTo!(result.id);
      replaceAll(session.messages, messages);
      session.usage.inputTokens = usage.inputTokens;
      session.usage.outputTokens = usage.outputTokens;
      deps.transcript!.restart(fork ? [] : session.messages);
      // A fork writes its copy now, so it is listed (and resumable) from the start.
      if (fork) deps.transcript!.sync(session.messages, `forked from ${from}`);
      return result;
    },
    async compact(options = {}): Promise<CompactOutcome> {
      if (session.running) throw new AgentError("E_USAGE", "A run is in progress; compact once it is over.");
      const unavailable = () => new AgentError("E_USAGE", "Compaction is not available in this host.");
      if (!deps.compactions?.available || !deps.host) throw unavailable();
      const host = deps.host();
      const { ref, provider, model } = resolveModel(host, options.model ?? session.model);
      const system = await systemPrompt(host, undefined, { userConfigDir: deps.userConfigDir });
      const tools = host.tools.list().map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as JsonSchema }));
      // The plugin that manages the context (`compactAsked`) works out the figures and compacts.
      const asked = deps.compactions.point(session, { provider, ref, request: { model, system, tools }, signal: options.signal }, options.instructions !== undefined ? { instructions: options.instructions } : {});
      await deps.compactions.asked(asked.point);
      if (!asked.outcome) throw unavailable();
      return asked.outcome;
    },
  };
  return session;
}
