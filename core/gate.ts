/**
 * The call gate: the one path every tool call takes, whatever its source.
 * find → validate → permission → beforeToolCall → run (signal + timeout) → cap → afterToolCall → cap → audit → events.
 * Tool failures become results; nothing here throws at the caller. The gate works on its own copy of
 * the input: what was permitted is exactly what runs, whatever the caller or a plugin does meanwhile.
 */
import { PermissionRuleSchema } from "./config-schema.js";
import { closestNames } from "./suggest.js";
import { randomBytes } from "node:crypto";
import nodePath from "node:path";
import type { AuditLog } from "./audit.js";
import { errorMessage } from "./errors.js";
import { freezeCopy, plainCopy } from "./freeze.js";
import type { RawHooks } from "./hooks.js";
import { capOutput } from "./output.js";
import { allowCoverage, decide, exactRule, parseRule, suggestRules, type ParsedRule, type PermissionRules } from "./permissions.js";
import type { AttributedDecision } from "./plugin-driver.js";
import { CallState, CONTEXT_ACCESSORS, expireCall, RUN, RunningCall } from "./running-call.js";
import type { ToolEntry } from "./registry.js";
import type { LazyValidator, Validation, Validator } from "./schema.js";
import type { AgentEvent } from "./events.js";
import type {
  CallOptions,
  CallOutcome,
  Logger,
  PermissionAsker,
  PermissionMode,
  ProcessTracker,
  ToolCallContext,
  ToolResult,
  ToolReturn,
  Workspace,
} from "./types.js";

export interface GateDeps {
  tools: Map<string, ToolEntry>;
  hooks: RawHooks;
  audit: AuditLog;
  workspace: Workspace;
  sessionId: string;
  processes: ProcessTracker;
  /** The logger of the plugin that registered a tool. */
  logFor(plugin: string): Logger;
  emit(event: AgentEvent): void;
  /** False when an event would reach nobody: the gate then skips building it. */
  listening?(): boolean;
  rules: PermissionRules;
  /** Where to tell the user to add a rule. */
  configFileHint: string;
  defaults: { timeoutMs: number; maxOutputBytes: number };
}

type Permit = { decision: "allow" | "deny"; by: string; message?: string };
type Verdict = { decision: "allow" | "deny" | "ask"; by: string };

/** What a call's audit record and tool_end event need besides the result. */
interface CallRecord {
  tool: ToolEntry | undefined;
  name: string;
  input: unknown;
  started: number;
  decision?: "allow" | "deny";
  by?: string;
}

export class Gate {
  mode: PermissionMode = "default";
  asker: PermissionAsker | undefined;
  /** Rules granted with "allow always for this session". */
  private readonly sessionAllow: ParsedRule[] = [];
  /**
   * Decisions for tools without a permission subject, which depend only on the rules, the mode, the
   * session grants and the tool (MCP tools are all like this): computed once, not on every call.
   */
  private readonly verdicts = new WeakMap<ToolEntry, { rules: PermissionRules; mode: PermissionMode; risk: string; grants: number; verdict: Verdict }>();

  /** Call ids are unique per gate (a random prefix and a count): a UUID per call costs more than the rest of the id's uses. */
  private readonly idPrefix = `${randomBytes(4).toString("hex")}_`;
  private calls = 0;

  constructor(private readonly deps: GateDeps) {}

  /**
   * A plugin asks to allow `rules` for the rest of the session. `policy` is config `permissions.grants`.
   * A grant only widens what would be asked: deny rules and plan mode still win. Audited either way.
   */
  async requestGrant(plugin: string, rules: readonly unknown[], reason: string, policy: "ask" | "allow" | "deny"): Promise<boolean> {
    const list = rules.filter((r): r is string => typeof r === "string" && PermissionRuleSchema.safeParse(r).success);
    if (!list.length || list.length !== rules.length) {
      this.deps.emit({ type: "notice", level: "warn", source: plugin, message: `Plugin ${plugin} asked to allow rules that are not valid permission rules: ${JSON.stringify(rules)}; refused.` });
      return false;
    }
    let decision: "allow" | "deny";
    let by: string;
    if (policy !== "ask") {
      decision = policy;
      by = "config:permissions.grants";
    } else if (!this.asker) {
      decision = "deny";
      by = "no terminal to ask (set permissions.grants to allow them headless)";
    } else {
      let answer: Awaited<ReturnType<PermissionAsker>> = "deny";
      try {
        answer = await this.asker({ kind: "grant", plugin, rules: list, reason });
      } catch (err) {
        this.deps.emit({ type: "notice", level: "warn", source: "permissions", message: `permission prompt failed: ${errorMessage(err)}` });
      }
      decision = answer === "deny" ? "deny" : "allow";
      by = "user";
    }
    if (decision === "allow") this.sessionAllow.push(...list.map(parseRule));
    this.deps.audit.write({ kind: "grant", source: plugin, name: list.join(", "), decision, by, outcome: decision === "allow" ? "granted" : "refused", detail: { reason } });
    this.deps.emit({ type: "permission_grant", plugin, rules: list, reason, decision, by });
    return decision === "allow";
  }

  /** Adopt new permission rules and defaults (after plugins adjusted the config). */
  reconfigure(update: Pick<GateDeps, "rules" | "defaults">): void {
    this.deps.rules = update.rules;
    this.deps.defaults = update.defaults;
  }

  /** Never rejects: a failure anywhere (a plugin's hook, a tool, the gate itself) becomes an error result. */
  async call(name: string, input: unknown, options: CallOptions = {}): Promise<ToolResult> {
    const callId = options.callId ?? `call_${this.idPrefix}${(++this.calls).toString(36)}`;
    const rec: CallRecord = { tool: this.deps.tools.get(name), name, input, started: performance.now() };
    try {
      return await this.run(rec, callId, input, options);
    } catch (err) {
      return this.fail(rec, callId, "error", `Call to ${name} failed inside the host: ${errorMessage(err)}`, "E_TOOL_FAILED");
    }
  }

  private async run(rec: CallRecord, callId: string, input: unknown, options: CallOptions): Promise<ToolResult> {
    const { deps } = this;
    const name = rec.name;
    const tool = rec.tool;

    if (!tool) {
      const near = nearestNames(name, [...deps.tools.keys()]);
      return this.fail(rec, callId, "error", `Unknown tool "${name}".${near.length ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : ""}`, "E_TOOL_NOT_FOUND");
    }

    if (this.listening()) deps.emit({ type: "tool_start", callId, name, input, risk: tool.risk, source: tool.source });

    // 1. Validate: a bad field goes back to the caller and nothing runs. (Awaited only while a JSON
    // Schema is still being compiled: each await costs every call a trip through the microtask queue.)
    let validate = this.validator(tool);
    if (validate instanceof Promise) validate = await validate;
    const validated = validate(input === undefined ? {} : input);
    if (!validated.ok) {
      return this.fail(rec, callId, "invalid", `Invalid input for ${name}:\n${validated.issues.map((i) => `- ${i}`).join("\n")}`, "E_TOOL_INVALID_INPUT");
    }
    // The gate's own copy: the caller's object (or a listener holding it) can no longer change the call.
    let args = plainCopy(validated.value);

    // 2. Permission (awaited only when someone must be asked).
    let perm = this.permit(tool, args, callId);
    if (perm instanceof Promise) {
      perm = await perm;
      // The call's duration leaves out the time the user took to answer.
      rec.started = performance.now();
    }
    rec.decision = perm.decision;
    rec.by = perm.by;
    if (perm.decision === "deny") return this.fail(rec, callId, "denied", perm.message ?? "", "E_TOOL_DENIED");

    // 3. beforeToolCall: a plugin may deny, or rewrite (later handlers see the rewrite; it is validated
    // and decided again). Handlers are handed frozen copies, never the input that will run.
    let state: CallState | undefined; // built only for the hooks
    if (deps.hooks.beforeToolCall.isUsed()) {
      state = new CallState(tool, args, callId, deps.sessionId);
      // A call stopped here is recorded with who denied it, or (an invalid rewrite) with no decision.
      rec.decision = undefined;
      rec.by = undefined;
      const decision = (await deps.hooks.beforeToolCall.promise(state as never)) as AttributedDecision | undefined;
      if (decision) {
        rec.decision = "deny";
        rec.by = `plugin:${decision.plugin}`;
        return this.fail(rec, callId, "denied", `Denied by a plugin: ${decision.deny}`, "E_TOOL_DENIED");
      }
      if (state.rewrittenBy) {
        const again = await this.validate(tool, state.input);
        if (!again.ok) {
          return this.fail(rec, callId, "invalid", `Input rewritten by plugin ${state.rewrittenBy} is invalid for ${name}:\n${again.issues.map((i) => `- ${i}`).join("\n")}`, "E_TOOL_INVALID_INPUT");
        }
        const rewritten = plainCopy(again.value);
        // The decision depends only on the permission subjects: when the rewrite changes them, it gets
        // the full permission decision again (an "ask" is asked again, or denied headless).
        if (!sameSubjects(await this.subjects(tool, args), await this.subjects(tool, rewritten))) {
          const recheck = await this.permit(tool, rewritten, callId);
          if (recheck.decision === "deny") {
            rec.decision = "deny";
            rec.by = recheck.by;
            rec.input = rewritten;
            return this.fail(rec, callId, "denied", `Input rewritten by plugin ${state.rewrittenBy} was denied: ${recheck.message}`, "E_TOOL_DENIED");
          }
        }
        args = rewritten;
        state.settle(args);
      }
      rec.decision = "allow";
      rec.by = perm.by;
    }
    rec.input = args;

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
      onAbort: (listener: (reason: unknown) => void) => run.onAbort(listener),
      progress: (p: { progress: number; total?: number; message?: string }) => {
        if (this.listening()) deps.emit({ type: "tool_progress", callId, name, ...p });
      },
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
      if (run.timedOut) return this.fail(rec, callId, "timeout", `Tool ${name} timed out after ${timeoutMs} ms and was cancelled.`, "E_TOOL_TIMEOUT");
      if (run.aborted) return this.fail(rec, callId, "aborted", `Call to ${name} was cancelled.`, "E_TOOL_ABORTED");
      return this.fail(rec, callId, "error", `Tool ${name} failed: ${errorMessage(err)}`, errorCode(err));
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
    let result: ToolResult = {
      ok: !isError,
      outcome: isError ? "error" : "ok",
      output: capped.text,
      durationMs: performance.now() - rec.started,
      callId,
    };
    if (isError) result.error = { code: "E_TOOL_FAILED", message: capped.text };
    if (capped.truncated) result.truncated = true;
    if (structured !== undefined) result.structured = structured;

    // 6. afterToolCall may transform the result; the cap holds after the last handler too.
    let outputBytes = capped.bytes;
    if (deps.hooks.afterToolCall.isUsed()) {
      state ??= new CallState(tool, args, callId, deps.sessionId);
      const after = (await deps.hooks.afterToolCall.promise(result, state as never)) as ToolResult;
      if (after !== result) {
        const ok = after.outcome === "ok";
        const recapped = capOutput(after.output, tool.maxOutputBytes ?? deps.defaults.maxOutputBytes);
        outputBytes = Math.max(outputBytes, recapped.bytes);
        // Rebuilt as finish() always did: ok follows the outcome, an error carries the output.
        result = { ok, outcome: after.outcome, output: recapped.text, durationMs: 0, callId };
        if (!ok) result.error = { code: typeof after.error?.code === "string" ? after.error.code : "E_TOOL_FAILED", message: recapped.text };
        if (after.truncated || recapped.truncated) result.truncated = true;
        if (after.structured !== undefined) result.structured = after.structured;
      }
    }
    return this.finish(rec, result, outputBytes);
  }

  /** A call that ended without a result from the tool. */
  private fail(rec: CallRecord, callId: string, outcome: CallOutcome, output: string, code: string): ToolResult {
    return this.finish(rec, { ok: false, outcome, output, durationMs: 0, callId, error: { code, message: output } }, Buffer.byteLength(output));
  }

  /** Stamp the duration, audit, emit tool_end, hand the result back. */
  private finish(rec: CallRecord, result: ToolResult, outputBytes: number): ToolResult {
    const durationMs = performance.now() - rec.started;
    result.durationMs = durationMs;
    const ok = result.ok;
    const truncated = result.truncated === true;
    // Queued: written (with other calls of this tick) by a microtask that runs before the caller sees `result`.
    this.deps.audit.queue({
      kind: "call",
      source: rec.tool?.source ?? "unknown",
      name: rec.name,
      callId: result.callId,
      args: rec.input,
      decision: rec.decision,
      by: rec.by,
      outcome: result.outcome,
      durationMs,
      outputBytes,
      truncated,
      error: ok ? undefined : result.output,
    });
    if (this.listening()) {
      const end: AgentEvent = { type: "tool_end", callId: result.callId, name: rec.name, outcome: result.outcome, durationMs, outputBytes, truncated };
      if (!ok) end.error = result.output;
      this.deps.emit(end);
    }
    return result;
  }

  /** False when an event would reach nobody (then it is not built). */
  private listening(): boolean {
    return this.deps.listening?.() ?? true;
  }

  /** The tool's validator; a JSON Schema one is a promise only until its first compilation. */
  private validator(tool: ToolEntry): Validator | Promise<Validator> {
    if (tool.zod) return tool.validator as Validator;
    const lazy = tool.validator as LazyValidator;
    return lazy.compiled ?? lazy();
  }

  private async validate(tool: ToolEntry, input: unknown): Promise<Validation> {
    let v = this.validator(tool);
    if (v instanceof Promise) v = await v;
    return v(input === undefined ? {} : input);
  }

  /** What pattern rules match for this call; a `SubjectFailure` when the tool's permissionSubject threw. */
  /** A promise only for tools whose permissionSubject is async (run_command parses the shell line). */
  private subjects(tool: ToolEntry, input: unknown): Subjects | Promise<Subjects> {
    const fn = tool.definition.permissionSubject;
    if (!fn) return undefined;
    const root = this.deps.workspace.root;
    const asPath = tool.definition.subjectKind === "path";
    const normalize = (s: unknown): Subjects => {
      if (s === undefined || s === null) return undefined;
      const list = Array.isArray(s) ? s.map(String) : [String(s)];
      return asPath ? list.map((p) => projectPath(root, p)) : list;
    };
    try {
      const s = fn(input) as unknown;
      if (isThenable(s)) return Promise.resolve(s).then(normalize, (err: unknown) => new SubjectFailure(errorMessage(err)));
      return normalize(s);
    } catch (err) {
      return new SubjectFailure(errorMessage(err));
    }
  }

  private verdict(tool: ToolEntry, subjects: string[] | undefined): Verdict {
    const kind = tool.definition.subjectKind === "path" ? "path" : "text";
    const v = decide(this.deps.rules, this.mode, tool.view, tool.risk, subjects, kind);
    if (v.decision === "ask" && this.sessionAllow.length) {
      // Answers of "always this session" combine with the config's allow rules to cover every part of a call.
      const granted = allowCoverage([...this.sessionAllow, ...this.deps.rules.allow], tool.view, subjects, kind);
      if (granted) return { decision: "allow", by: `session:${granted.map((r) => r.raw).join(", ")}` };
    }
    return v;
  }

  /** The verdict for a call; for a tool without a permission subject, the one computed for the same rules, mode and grants. */
  private cachedVerdict(tool: ToolEntry): Verdict {
    const { rules } = this.deps;
    const grants = this.sessionAllow.length;
    const c = this.verdicts.get(tool);
    if (c && c.rules === rules && c.mode === this.mode && c.risk === tool.risk && c.grants === grants) return c.verdict;
    const verdict = this.verdict(tool, undefined);
    this.verdicts.set(tool, { rules, mode: this.mode, risk: tool.risk, grants, verdict });
    return verdict;
  }

  /** The permission decision; a promise only when the user is asked. */
  private permit(tool: ToolEntry, input: unknown, callId: string): Permit | Promise<Permit> {
    const subjects = this.subjects(tool, input);
    if (subjects instanceof Promise) return subjects.then((s) => this.permitFor(tool, input, callId, s));
    return this.permitFor(tool, input, callId, subjects);
  }

  private permitFor(tool: ToolEntry, input: unknown, callId: string, subjects: Subjects): Permit | Promise<Permit> {
    // Without a subject no pattern rule can match, so a deny rule would not apply: fail closed.
    if (subjects instanceof SubjectFailure) {
      return { decision: "deny", by: "permissionSubject", message: `Permission denied: ${tool.name} was not run because its permission check failed (${subjects.message}).` };
    }
    const v = tool.definition.permissionSubject ? this.verdict(tool, subjects) : this.cachedVerdict(tool);
    if (v.decision === "allow") return v as Permit;
    const certain = subjects?.filter((s) => !s.startsWith("\u0000"));
    const what = certain?.length === 1 && certain.length === subjects!.length ? `${tool.name}(${certain[0]})` : tool.name;
    if (v.decision === "deny") {
      const why = v.by.startsWith("mode:")
        ? `${tool.risk} tools are not allowed in ${this.mode} mode`
        : `it matches the deny rule "${v.by}"`;
      return { decision: "deny", by: v.by, message: `Permission denied: ${what} was not run because ${why}.` };
    }
    return this.ask(tool, input, callId, { ...v, subjects }, what);
  }

  private async ask(tool: ToolEntry, input: unknown, callId: string, v: Verdict & { subjects: string[] | undefined }, what: string): Promise<Permit> {
    const suggestedRules = suggestRules(tool.name, v.subjects);
    const suggestedRule = suggestedRules.join(", ");
    if (!this.asker) {
      return {
        decision: "deny",
        by: v.by,
        message:
          `Permission denied: ${what} (risk: ${tool.risk}) needs approval and there is no terminal to ask. ` +
          `To allow it, add ${suggestedRules.map((r) => `"${r}"`).join(" and ")} to ${this.deps.configFileHint.endsWith("package.json") ? "agent.permissions.allow" : "permissions.allow"} in ${this.deps.configFileHint}, ` +
          `or run with --permission-mode ${tool.risk === "write" ? "acceptEdits" : "bypass"}.`,
      };
    }
    // One subject is shown as `tool(subject)`; several (a pipeline, a list) are shown as the input as written, with its parts.
    const parts = v.subjects?.filter((s) => !s.startsWith("\u0000"));
    const subject = v.subjects?.length === 1 && parts?.length === 1 ? parts[0] : undefined;
    this.deps.emit({ type: "permission_request", callId, name: tool.name, subject, suggestedRule });
    let answer: Awaited<ReturnType<PermissionAsker>>;
    try {
      answer = await this.asker({ tool: tool.view, input: freezeCopy(input), subject, parts: parts ?? [], uncertain: parts?.length !== v.subjects?.length, suggestedRule, suggestedRules, reason: v.by });
    } catch (err) {
      answer = "deny";
      this.deps.emit({ type: "notice", level: "warn", source: "permissions", message: `permission prompt failed: ${errorMessage(err)}` });
    }
    // "Always" grants exactly what was asked: each subject as text (a call no rule can describe is allowed once).
    if (answer === "allow_session" && suggestedRules.length) {
      this.sessionAllow.push(...(v.subjects ? v.subjects.map((s) => exactRule(tool.name, s)) : suggestedRules.map(parseRule)));
    } else if (answer === "allow_session") answer = "allow_once";
    const decision = answer === "deny" ? "deny" : "allow";
    this.deps.emit({ type: "permission_decision", callId, name: tool.name, decision, by: "user" });
    if (decision === "deny") return { decision, by: "user", message: `Permission denied by the user: ${what} was not run.` };
    return { decision, by: answer === "allow_session" ? `user:session:${suggestedRule}` : "user:once", message: "" };
  }
}

function isThenable<T>(v: T | PromiseLike<T>): v is PromiseLike<T> {
  return typeof (v as { then?: unknown } | null)?.then === "function";
}

type Subjects = string[] | undefined | SubjectFailure;

/** A path as rules see it: relative to the project root with `/` separators (`.` for the root); outside it, absolute. */
function projectPath(root: string, p: string): string {
  const abs = nodePath.resolve(root, p);
  const rel = nodePath.relative(root, abs);
  if (rel === "") return ".";
  if (rel === ".." || rel.startsWith(`..${nodePath.sep}`) || nodePath.isAbsolute(rel)) return abs;
  return rel.split(nodePath.sep).join("/");
}

/** A tool's permissionSubject threw: the call is denied (see permit). */
class SubjectFailure {
  constructor(readonly message: string) {}
}

function sameSubjects(a: string[] | undefined | SubjectFailure, b: string[] | undefined | SubjectFailure): boolean {
  if (a instanceof SubjectFailure || b instanceof SubjectFailure) return false;
  if (!a || !b) return a === b;
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && code.startsWith("E_") ? code : "E_TOOL_FAILED";
}

/** Up to two registered names close to a mistyped one; a name that ends with it after a `_` counts too (a namespaced tool called by its short name). */
function nearestNames(name: string, names: string[]): string[] {
  const near = closestNames(name, names);
  const byShortName = names.find((n) => n.endsWith(`_${name}`) && !near.includes(n));
  return byShortName ? [...near, byShortName].slice(0, 2) : near;
}
