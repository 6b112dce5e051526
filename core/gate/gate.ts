/**
 * The call gate: the one path every tool call takes, whatever its source.
 * find → validate → permission → beforeToolCall → run (signal + timeout) → cap → afterToolCall → cap → audit → events.
 * Tool failures become results; nothing here throws at the caller. The gate works on its own copy of
 * the input: what was permitted is exactly what runs, whatever the caller or a plugin does meanwhile.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import type { AuditRecord } from "./audit.js";
import { errorMessage } from "../../kit/errors.js";
import { plainCopy } from "../../kit/freeze.js";
import { isThenable } from "../../kit/thenable.js";
import { capOutput, type Capped } from "../../kit/text/output.js";
import { Permissions, sameSubjects, type Permit, type PermitDeps } from "./permit.js";
import { CallState, CONTEXT_ACCESSORS, expireCall, RUN, RunningCall } from "./running-call.js";
import { validateInput, validatorOf, type ToolEntry } from "../registry/registry.js";
import { nearestToolNames } from "../../kit/text/suggest.js";
import type { AgentEvent, AgentEventType } from "../hooks/events.js";
import type { ToolUnavailable } from "../registry/tool-sources.js";
import { modeDefault } from "./permissions.js";
import type {
  CallAgent,
  CallAgentInfo,
  Risk,
  CallOptions,
  CallOutcome,
  Logger,
  CommandSandbox,
  PermissionMode,
  ProcessTracker,
  ToolCallContext,
  ToolResult,
  ToolReturn,
} from "../types.js";

/** What the gate needs besides what its permission step does. */
export interface GateDeps extends PermitDeps {
  tools: Map<string, ToolEntry>;
  processes: ProcessTracker;
  /** The logger of the plugin that registered a tool. */
  logFor(plugin: string): Logger;
  /** False when an event would reach nobody: the gate then skips building it. */
  listening?(type?: AgentEventType): boolean;
  defaults: { timeoutMs: number; maxOutputBytes: number };
  /** Config `env`: what tools add to the environment of the processes they start. */
  env: Readonly<Record<string, string>>;
  /** The OS sandbox for the processes tools start (config `sandbox`). */
  sandbox: CommandSandbox;
  /**
   * The tool sources: for a name no tool has, `resolve` loads those that may provide it (true if there was
   * one); for a name still unknown after that, `unavailable` says why (a login needed, a failed start).
   */
  sources?: { resolve(name: string): Promise<boolean>; unavailable(name: string): ToolUnavailable | undefined };
  /** A running call's trace context (`PluginContext.traceCalls`): `ToolCallContext.traceContext`. */
  traceContext?(callId: string): Readonly<Record<string, string>> | undefined;
}

/** What a call's audit record and tool_end event need besides the result. */
interface CallRecord {
  tool: ToolEntry | undefined;
  name: string;
  input: unknown;
  started: number;
  decision?: "allow" | "deny";
  by?: string;
  caller: string | undefined;
  /** The subagent the call is made for. */
  agent?: CallAgentInfo;
}

/**
 * How many calls may be running inside one another: a tool's `run` (or a hook the gate runs for its
 * call) that calls a tool through `host.tools.call` is one level deeper. A call deeper than this is
 * refused (`E_TOOL_DEPTH`), so a tool that calls itself, or two that call each other, end with an
 * error instead of recursing until the process runs out of memory.
 */
export const MAX_CALL_DEPTH = 8;

/**
 * The depth of the call being run, carried by the async context: a call started from inside another
 * call's run sees that call's depth, and a call from anywhere else (the agent loop, the CLI, a timer
 * of a plugin's own) none, so independent callers, parallel ones included, never share a count.
 */
const callDepth = new AsyncLocalStorage<number>();
/** Calls in flight whose depth `callDepth` carries, across gates. */
let tracked = 0;
/** Calls in flight of `callsTools: false` tools, across gates, and how many there may be. */
let untracked = 0;
export const MAX_UNTRACKED_IN_FLIGHT = 4096;
let idleTimer: NodeJS.Timeout | undefined;

/**
 * With no tracked call in flight for a while, the storage is switched off: its hooks slow every promise
 * in the process. Not at once: switching them on again costs more than a call, and calls come in runs.
 */
function switchOffWhenIdle(): void {
  if (idleTimer) return;
  idleTimer = setTimeout(() => {
    idleTimer = undefined;
    if (tracked === 0) callDepth.disable();
  }, 1000);
  idleTimer.unref();
}

export class Gate {
  /** The permission step: the host asks it for grants and questions (`requestGrant`, `askInput`) and sets its asker. */
  readonly permissions: Permissions;

  /** Call ids are unique per gate (a random prefix and a count): a UUID per call costs more than the rest of the id's uses. */
  private readonly idPrefix = `${randomBytes(4).toString("hex")}_`;
  private calls = 0;

  constructor(private readonly deps: GateDeps) {
    this.permissions = new Permissions(deps); // not a copy: `sessionId` is the host's getter (a copy kept the first id)
  }

  /** The plugin that traces calls (`PluginContext.traceCalls`): each running call's trace context, `ctx.traceContext`. */
  traceCalls(context: (callId: string) => Readonly<Record<string, string>> | undefined): void {
    this.deps.traceContext = context;
  }

  get mode(): PermissionMode {
    return this.permissions.verdicts.mode;
  }
  set mode(mode: PermissionMode) {
    this.permissions.verdicts.mode = mode;
  }

  /** Never rejects: a failure anywhere (a plugin's hook, a tool, the gate itself) becomes an error result. */
  async call(name: string, input: unknown, options: CallOptions = {}): Promise<ToolResult> {
    const callId = options.callId ?? `call_${this.idPrefix}${(++this.calls).toString(36)}`;
    const rec: CallRecord = { tool: this.deps.tools.get(name), name, input, started: performance.now(), caller: options.caller };
    const agent = options.agent;
    if (agent) {
      rec.agent = agentInfo(agent);
      // Named in the permission step's views and question (removed when the call finishes).
      this.permissions.agents.set(callId, rec.agent);
      if (agent.tools && !agent.tools.includes(name)) return this.deny(rec, callId, `agent:${agent.name}`, `Tool ${name} is not available to the ${agent.name} agent; its tools are: ${agent.tools.join(", ") || "(none)"}.`);
    }
    const depth = callDepth.getStore() ?? 0;
    try {
      if (depth >= MAX_CALL_DEPTH) {
        return this.fail(rec, callId, "error", `Call to ${name} refused: it was made from inside ${depth} nested tool calls, the most there may be (a tool that calls itself, or tools that call each other, without end).`, "E_TOOL_DEPTH");
      }
      // A tool whose source (an MCP server) is not loaded yet: load it, then look again. Loaded in the
      // caller's context, not the call's: what the source keeps open (a server's pipes) is not "inside" it.
      if (!rec.tool && this.deps.sources && (await this.deps.sources.resolve(name))) rec.tool = this.deps.tools.get(name);
      if (!this.tracksDepth(rec.tool)) return await this.runUntracked(rec, callId, input, options);
      tracked++;
      try {
        return await callDepth.run(depth + 1, () => this.run(rec, callId, input, options));
      } finally {
        if (--tracked === 0) switchOffWhenIdle();
      }
    } catch (err) {
      return this.fail(rec, callId, "error", `Call to ${name} failed inside the host: ${errorMessage(err)}`, "E_TOOL_FAILED");
    }
  }

  /**
   * A call of a `callsTools: false` tool: no depth follows it, so a tool that says so and calls tools
   * anyway (itself, without end) is stopped by how many such calls are in flight at once instead.
   */
  private async runUntracked(rec: CallRecord, callId: string, input: unknown, options: CallOptions): Promise<ToolResult> {
    if (untracked >= MAX_UNTRACKED_IN_FLIGHT) {
      return this.fail(rec, callId, "error", `Call to ${rec.name} refused: ${MAX_UNTRACKED_IN_FLIGHT} calls of tools that declare callsTools: false are in flight, more than parallel work makes (a tool that says it calls no tools calling tools without end).`, "E_TOOL_DEPTH");
    }
    untracked++;
    try {
      return await this.run(rec, callId, input, options);
    } finally {
      untracked--;
    }
  }

  /** A call to a name no tool has: why its source cannot provide it, else "Unknown tool" with the nearest names. */
  private unknown(rec: CallRecord, callId: string): ToolResult {
    const { name } = rec;
    const unavailable = this.deps.sources?.unavailable(name);
    if (unavailable) return this.fail(rec, callId, "error", unavailable.reason, unavailable.kind === "auth" ? "E_TOOL_NEEDS_AUTH" : "E_TOOL_UNAVAILABLE");
    const near = nearestToolNames(name, [...this.deps.tools.keys()]);
    return this.fail(rec, callId, "error", `Unknown tool "${name}".${near.length ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : ""}`, "E_TOOL_NOT_FOUND");
  }

  private async run(rec: CallRecord, callId: string, input: unknown, options: CallOptions): Promise<ToolResult> {
    const { deps } = this;
    const { name, tool } = rec;

    if (!tool) return this.unknown(rec, callId);

    // No record, no call: a log that cannot be written (a full disk) refuses calls unless audit.onError is "warn".
    const unrecorded = deps.audit.refusal();
    if (unrecorded) return this.fail(rec, callId, "error", unrecorded, "E_AUDIT_UNAVAILABLE");

    if (this.listening("tool_start")) deps.emit(startEvent(rec, tool, callId, input));

    // 1. Validate: a bad field goes back to the caller and nothing runs. (Awaited only while a JSON
    // Schema is still being compiled: each await costs every call a trip through the microtask queue.)
    let validate = validatorOf(tool);
    if (validate instanceof Promise) validate = await validate;
    const validated = validate(input === undefined ? {} : input);
    if (!validated.ok) {
      return this.fail(rec, callId, "invalid", `Invalid input for ${name}:\n${validated.issues.map((i) => `- ${i}`).join("\n")}`, "E_TOOL_INVALID_INPUT");
    }
    // The gate's own copy: the caller's object (or a listener holding it) can no longer change the call.
    let args = plainCopy(validated.value);

    // 2. Permission: rules and mode, `permission` votes (which may rewrite the input), then the
    // question if any (awaited only when a handler or the user is asked).
    let perm: Permit | Promise<Permit> = this.permissions.permit(tool, args, callId, options.signal);
    if (perm instanceof Promise) {
      perm = await perm;
      // The call's duration leaves out the time the user (or a permission hook) took to answer.
      rec.started = performance.now();
    }
    if (perm.input !== undefined) rec.input = args = perm.input;
    if (perm.decision === "invalid") return this.fail(rec, callId, "invalid", perm.message ?? "", "E_TOOL_INVALID_INPUT");
    rec.decision = perm.decision;
    rec.by = perm.by;
    if (perm.decision === "deny") return this.fail(rec, callId, "denied", perm.message ?? "", "E_TOOL_DENIED");
    if (options.agent?.mode && narrowerModeDenies(options.agent.mode, this.mode, tool.risk, perm.by)) return this.modeDenial(rec, callId, options.agent, tool);

    // 3. beforeToolCall: a plugin may deny, or rewrite (later handlers see the rewrite; it is validated
    // and decided again). Handlers are handed frozen copies, never the input that will run.
    let state: CallState | undefined; // built only for the hooks
    if (deps.hooks.beforeToolCall.isUsed()) {
      state = new CallState(tool, args, callId, deps.sessionId, rec.agent);
      // A call stopped here is recorded with who denied it, or (an invalid rewrite) with no decision.
      rec.decision = undefined;
      rec.by = undefined;
      const decision = await deps.hooks.beforeToolCall.promise(state);
      if (decision) {
        rec.decision = "deny";
        rec.by = `plugin:${decision.plugin}`;
        return this.fail(rec, callId, "denied", `Denied by a plugin: ${decision.deny}`, "E_TOOL_DENIED");
      }
      if (state.rewrittenBy) {
        const again = await validateInput(tool, state.input);
        if (!again.ok) {
          return this.fail(rec, callId, "invalid", `Input rewritten by plugin ${state.rewrittenBy} is invalid for ${name}:\n${again.issues.map((i) => `- ${i}`).join("\n")}`, "E_TOOL_INVALID_INPUT");
        }
        const rewritten = plainCopy(again.value);
        // The rules' decision depends only on the permission subjects, `permission` handlers' on the
        // whole input: when the rewrite changes what they judge, it gets the full permission decision
        // again (an "ask" is asked again, or denied headless).
        let final = rewritten;
        const p = this.permissions;
        // A tool that says what it writes may write another thing under the same subject (the content of
        // package.json's `agent` key): judged again too.
        if (deps.hooks.permission.isUsed() || tool.definition.writes !== undefined || !sameSubjects(await p.verdicts.subjects(tool, args), await p.verdicts.subjects(tool, rewritten))) {
          const recheck = await p.permit(tool, rewritten, callId, options.signal);
          if (recheck.input !== undefined) final = recheck.input;
          if (recheck.decision !== "allow") {
            rec.decision = recheck.decision === "deny" ? "deny" : undefined;
            rec.by = recheck.by;
            rec.input = final;
            if (recheck.decision === "invalid") return this.fail(rec, callId, "invalid", recheck.message ?? "", "E_TOOL_INVALID_INPUT");
            return this.fail(rec, callId, "denied", `Input rewritten by plugin ${state.rewrittenBy} was denied: ${recheck.message}`, "E_TOOL_DENIED");
          }
        }
        args = final;
        state.settle(args);
      }
      rec.decision = "allow";
      rec.by = perm.by;
    }
    rec.input = args;

    // Write-ahead: the call (tool, decision, redacted input) is on disk before the tool has it; a host
    // killed mid-call leaves this record with no outcome. The starts of one tick share one write.
    const written = deps.audit.begin(callRecord(rec, callId, "start", "started"));
    if (written) {
      const refused = await written;
      rec.started = performance.now();
      if (refused) return this.fail(rec, callId, "error", refused, "E_AUDIT_UNAVAILABLE");
    }

    // 4. Run with a signal and a timeout.
    const timeoutMs = tool.timeoutMs ?? deps.defaults.timeoutMs;
    const outer = options.signal;
    if (outer?.aborted) return this.fail(rec, callId, "aborted", `Call to ${name} was cancelled before it started.`, "E_TOOL_ABORTED");
    const run = new RunningCall(timeoutMs, outer, deps, name);
    outer?.addEventListener("abort", run, { once: true });
    // No closure per call: the timer gets the call as its argument.
    const timer = setTimeout(expireCall, timeoutMs, run);
    const ctx = {
      callId,
      sessionId: deps.sessionId,
      cwd: deps.workspace.root,
      workspace: deps.workspace,
      log: deps.logFor(tool.plugin),
      processes: deps.processes,
      env: deps.env,
      sandbox: deps.sandbox,
      onAbort: (listener: (reason: unknown) => void) => run.onAbort(listener),
      progress: (p: { progress: number; total?: number; message?: string }) => {
        if (this.listening("tool_progress")) deps.emit({ type: "tool_progress", callId, name, ...p });
      },
      wantsProgress: this.listening("tool_progress"),
      [RUN]: run,
    } as unknown as ToolCallContext;
    Object.defineProperties(ctx, CONTEXT_ACCESSORS);

    let raw: ToolReturn;
    try {
      raw = await new Promise<ToolReturn>((resolve, reject) => {
        run.reject = reject;
        // A synchronous throw rejects this promise. A promise is followed with then() rather than
        // resolve(promise), which would lock this one to it and make stop() powerless.
        const out = tool.definition.run(args, ctx);
        if (isThenable(out)) out.then(resolve, reject);
        else resolve(out);
      });
    } catch (err) {
      if (run.aborted && !run.timedOut) return this.fail(rec, callId, "aborted", `Call to ${name} was cancelled.`, "E_TOOL_ABORTED");
      // A tool that threw or timed out still ran: afterToolCall sees the failure (a cancelled one not).
      const [outcome, output, code] = run.timedOut
        ? (["timeout", `Tool ${name} timed out after ${timeoutMs} ms and was cancelled.`, "E_TOOL_TIMEOUT"] as const)
        : ([thrownOutcome(err), `Tool ${name} failed: ${errorMessage(err)}`, errorCode(err)] as const);
      const failed: ToolResult = { ok: false, outcome, output, durationMs: 0, callId, error: { code, message: output } };
      return this.after(rec, tool, args, state, failed, Buffer.byteLength(output));
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener("abort", run);
    }

    // 5. Normalize and cap.
    let text: string;
    let isError = false;
    let structured: unknown;
    if (typeof raw === "string") text = raw;
    else if (raw && typeof raw === "object" && typeof (raw as { output?: unknown }).output === "string") {
      text = raw.output;
      isError = raw.isError === true;
      structured = raw.structured;
    } else {
      return this.fail(rec, callId, "error", `Tool ${name} returned an invalid result (${raw === null ? "null" : typeof raw}); expected a string or { output: string }.`, "E_TOOL_FAILED");
    }
    const capped = capOutput(text, tool.maxOutputBytes ?? deps.defaults.maxOutputBytes);
    const result = resultOf(callId, isError ? "error" : "ok", capped, "E_TOOL_FAILED", structured, false, performance.now() - rec.started);
    return this.after(rec, tool, args, state, result, capped.bytes);
  }

  /** 6. afterToolCall may transform the result (a promise only when someone tapped it). */
  private after(rec: CallRecord, tool: ToolEntry, args: unknown, state: CallState | undefined, result: ToolResult, outputBytes: number): ToolResult | Promise<ToolResult> {
    if (!this.deps.hooks.afterToolCall.isUsed()) return this.finish(rec, result, outputBytes);
    return this.afterHooks(rec, tool, state ?? new CallState(tool, args, result.callId, this.deps.sessionId, rec.agent), result, outputBytes);
  }

  /** The cap holds after the last handler too. */
  private async afterHooks(rec: CallRecord, tool: ToolEntry, state: CallState, result: ToolResult, outputBytes: number): Promise<ToolResult> {
    const { deps } = this;
    const callId = result.callId;
    const after = await deps.hooks.afterToolCall.promise(result, state);
    if (after !== result) {
      const recapped = capOutput(after.output, tool.maxOutputBytes ?? deps.defaults.maxOutputBytes);
      outputBytes = Math.max(outputBytes, recapped.bytes);
      // Rebuilt as finish() always did: ok follows the outcome, an error carries the output.
      const code = typeof after.error?.code === "string" ? after.error.code : "E_TOOL_FAILED";
      result = resultOf(callId, after.outcome, recapped, code, after.structured, !!after.truncated, 0);
    }
    return this.finish(rec, result, outputBytes);
  }

  /** A call refused by the gate itself (a subagent's tools or mode), recorded as denied by `by`. */
  private deny(rec: CallRecord, callId: string, by: string, message: string): ToolResult {
    rec.decision = "deny";
    rec.by = by;
    return this.fail(rec, callId, "denied", message, "E_TOOL_DENIED");
  }

  /** A subagent's call its narrower mode does not allow. */
  private modeDenial(rec: CallRecord, callId: string, agent: CallAgent, tool: ToolEntry): ToolResult {
    return this.deny(rec, callId, `mode:${agent.mode}`, `Permission denied: ${rec.name} (risk: ${tool.risk}) was not run because the ${agent.name} agent runs in ${agent.mode} mode, which does not allow it.`);
  }

  /** A call that ended without a result from the tool. */
  private fail(rec: CallRecord, callId: string, outcome: CallOutcome, output: string, code: string): ToolResult {
    return this.finish(rec, { ok: false, outcome, output, durationMs: 0, callId, error: { code, message: output } }, Buffer.byteLength(output));
  }

  /** Stamp the duration, audit, emit tool_end, hand the result back. */
  private finish(rec: CallRecord, result: ToolResult, outputBytes: number): ToolResult {
    const durationMs = performance.now() - rec.started;
    result.durationMs = durationMs;
    if (rec.agent) this.permissions.agents.delete(result.callId);
    const ok = result.ok;
    const truncated = result.truncated === true;
    // Queued: written (with other calls of this tick) by a microtask that runs before the caller sees `result`.
    const record = callRecord(rec, result.callId, "call", result.outcome);
    record.durationMs = durationMs;
    record.outputBytes = outputBytes;
    record.truncated = truncated;
    if (!ok) record.error = result.output;
    this.deps.audit.queue(record);
    if (this.listening("tool_end")) {
      const end: AgentEvent = { type: "tool_end", callId: result.callId, name: rec.name, outcome: result.outcome, durationMs, outputBytes, truncated };
      if (!ok) end.error = result.output;
      if (rec.decision) end.decision = rec.decision;
      if (rec.by) end.by = rec.by;
      if (rec.agent) end.agent = rec.agent;
      this.deps.emit(end);
    }
    return result;
  }

  /** False when an event would reach nobody (then it is not built). */
  private listening(type: AgentEventType): boolean {
    return this.deps.listening?.(type) ?? true;
  }

  /** Whether a call's depth must follow it: its tool may call tools, or a hook that taps the call might. */
  private tracksDepth(tool: ToolEntry | undefined): boolean {
    const { hooks } = this.deps;
    return tool?.callsTools !== false || hooks.beforeToolCall.isUsed() || hooks.afterToolCall.isUsed() || hooks.permission.isUsed();
  }
}

function startEvent(rec: CallRecord, tool: ToolEntry, callId: string, input: unknown): AgentEvent {
  const start: AgentEvent = { type: "tool_start", callId, name: rec.name, input, risk: tool.risk, source: tool.source };
  if (rec.caller !== undefined) start.caller = rec.caller;
  if (rec.agent) start.agent = rec.agent;
  return start;
}

/** A call's audit record; start and outcome records share one shape (every field present), so writing them stays monomorphic. */
function callRecord(rec: CallRecord, callId: string, kind: "start" | "call", outcome: string): AuditRecord {
  return {
    kind,
    source: rec.tool?.source ?? "unknown",
    name: rec.name,
    callId,
    args: rec.input,
    decision: rec.decision,
    by: rec.by,
    outcome,
    durationMs: undefined,
    outputBytes: undefined,
    truncated: undefined,
    error: undefined,
    caller: rec.caller,
    agent: rec.agent?.name,
    parentCallId: rec.agent?.parentCallId,
  };
}

/** A result of a tool's (capped) output: ok follows the outcome, an error carries the output. */
function resultOf(callId: string, outcome: CallOutcome, capped: Capped, code: string, structured: unknown, truncated: boolean, durationMs: number): ToolResult {
  const ok = outcome === "ok";
  const result: ToolResult = { ok, outcome, output: capped.text, durationMs, callId };
  if (!ok) result.error = { code, message: capped.text };
  if (truncated || capped.truncated) result.truncated = true;
  if (structured !== undefined) result.structured = structured;
  return result;
}

function agentInfo(agent: CallAgent): CallAgentInfo {
  return Object.freeze(agent.parentCallId ? { name: agent.name, parentCallId: agent.parentCallId } : { name: agent.name });
}

const MODE_WIDTH: Record<PermissionMode, number> = { plan: 0, default: 1, acceptEdits: 2, bypass: 3 };

/**
 * Whether a subagent's mode, narrower than the session's, refuses a call the session's mode allowed:
 * plan refuses every tool that is not read-only (as it does over allow rules); another narrower mode
 * refuses what only the session's mode allowed. Denied, not asked: a narrower mode never adds questions.
 */
function narrowerModeDenies(agentMode: PermissionMode, sessionMode: PermissionMode, risk: Risk, by: string): boolean {
  if (MODE_WIDTH[agentMode] >= MODE_WIDTH[sessionMode]) return false;
  if (agentMode === "plan") return risk !== "read";
  return by.startsWith("mode:") && modeDefault(agentMode, risk) !== "allow";
}

/** A path outside the workspace is refused by the workspace, not a failure of the tool: "denied". */
function thrownOutcome(err: unknown): CallOutcome {
  return errorCode(err) === "E_PATH_OUTSIDE_WORKSPACE" ? "denied" : "error";
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && code.startsWith("E_") ? code : "E_TOOL_FAILED";
}
