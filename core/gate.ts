/**
 * The call gate: the one path every tool call takes, whatever its source.
 * find → validate → permission → beforeToolCall → run (signal + timeout) → cap → afterToolCall → audit → events.
 * Tool failures become results; nothing here throws at the caller.
 */
import { randomUUID } from "node:crypto";
import type { AuditLog } from "./audit.js";
import { errorMessage } from "./errors.js";
import type { HookTable } from "./hooks.js";
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, capOutput } from "./output.js";
import { allowCoverage, decide, parseRule, suggestRules, type ParsedRule, type PermissionRules } from "./permissions.js";
import type { ToolEntry } from "./registry.js";
import type { Validator } from "./schema.js";
import type { AgentEvent } from "./events.js";
import type {
  CallOptions,
  CallOutcome,
  PermissionAsker,
  PermissionMode,
  ToolCallInfo,
  ToolResult,
  ToolReturn,
  Workspace,
} from "./types.js";

export interface GateDeps {
  tools: Map<string, ToolEntry>;
  hooks: HookTable;
  audit: AuditLog;
  workspace: Workspace;
  emit(event: AgentEvent): void;
  rules: PermissionRules;
  /** Where to tell the user to add a rule. */
  configFileHint: string;
  defaults: { timeoutMs: number; maxOutputBytes: number };
}

export class Gate {
  mode: PermissionMode = "default";
  asker: PermissionAsker | undefined;
  /** Rules granted with "allow always for this session". */
  private readonly sessionAllow: ParsedRule[] = [];

  constructor(private readonly deps: GateDeps) {}

  /** Adopt new permission rules and defaults (after plugins adjusted the config). */
  reconfigure(update: Pick<GateDeps, "rules" | "defaults">): void {
    this.deps.rules = update.rules;
    this.deps.defaults = update.defaults;
  }

  async call(name: string, input: unknown, options: CallOptions = {}): Promise<ToolResult> {
    const started = performance.now();
    const callId = options.callId ?? randomUUID();
    const { deps } = this;
    const tool = deps.tools.get(name);

    const finish = (
      outcome: CallOutcome,
      output: string,
      extra: { code?: string; truncated?: boolean; structured?: unknown; bytes?: number; decision?: "allow" | "deny"; by?: string; args?: unknown } = {},
    ): ToolResult => {
      const durationMs = performance.now() - started;
      const ok = outcome === "ok";
      const result: ToolResult = { ok, outcome, output, durationMs, callId };
      if (!ok) result.error = { code: extra.code ?? "E_TOOL_FAILED", message: output };
      if (extra.truncated) result.truncated = true;
      if (extra.structured !== undefined) result.structured = extra.structured;
      const outputBytes = extra.bytes ?? Buffer.byteLength(output);
      deps.audit.write({
        kind: "call",
        source: tool?.source ?? "unknown",
        name,
        callId,
        args: extra.args ?? input,
        decision: extra.decision,
        by: extra.by,
        outcome,
        durationMs,
        outputBytes,
        truncated: !!extra.truncated,
        error: ok ? undefined : output,
      });
      deps.emit({
        type: "tool_end",
        callId,
        name,
        outcome,
        durationMs,
        outputBytes,
        truncated: !!extra.truncated,
        ...(ok ? {} : { error: output }),
      });
      return result;
    };

    if (!tool) {
      const near = nearestNames(name, [...deps.tools.keys()]);
      return finish("error", `Unknown tool "${name}".${near.length ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : ""}`, {
        code: "E_TOOL_NOT_FOUND",
      });
    }

    deps.emit({ type: "tool_start", callId, name, input, risk: tool.risk, source: tool.source });

    // 1. Validate: a bad field goes back to the caller and nothing runs.
    const validated = await this.validate(tool, input);
    if (!validated.ok) {
      return finish("invalid", `Invalid input for ${name}:\n${validated.issues.map((i) => `- ${i}`).join("\n")}`, { code: "E_TOOL_INVALID_INPUT" });
    }
    let args = validated.value;

    // 2. Permission.
    const perm = await this.permit(tool, args, callId);
    if (perm.decision === "deny") return finish("denied", perm.message, { code: "E_TOOL_DENIED", decision: "deny", by: perm.by });

    // 3. beforeToolCall: a plugin may deny or rewrite (the rewrite is validated and permission-checked again).
    const info: ToolCallInfo = { tool, input: args, callId };
    if (deps.hooks.beforeToolCall.isUsed()) {
      const decision = await deps.hooks.beforeToolCall.promise(info);
      if (decision !== undefined && decision !== null && (typeof decision !== "object" || !("deny" in decision || "input" in decision))) {
        // A plugin returned something that is neither a denial nor a rewrite: fail closed, as for a throw.
        return finish("denied", `Denied: a beforeToolCall handler returned ${describeValue(decision)} instead of { deny } or { input }.`, {
          code: "E_TOOL_DENIED",
          decision: "deny",
          by: "beforeToolCall",
        });
      }
      if (decision && "deny" in decision) {
        return finish("denied", `Denied by a plugin: ${decision.deny}`, { code: "E_TOOL_DENIED", decision: "deny", by: "beforeToolCall" });
      }
      if (decision && "input" in decision) {
        const again = await this.validate(tool, decision.input);
        if (!again.ok) {
          return finish("invalid", `Input rewritten by a plugin is invalid for ${name}:\n${again.issues.map((i) => `- ${i}`).join("\n")}`, {
            code: "E_TOOL_INVALID_INPUT",
          });
        }
        // The decision depends only on the permission subjects: when the rewrite changes them, it gets
        // the full permission decision again (an "ask" is asked again, or denied headless).
        if (!sameSubjects(this.subjects(tool, args), this.subjects(tool, again.value))) {
          const recheck = await this.permit(tool, again.value, callId);
          if (recheck.decision === "deny") {
            return finish("denied", `Input rewritten by a plugin was denied: ${recheck.message}`, {
              code: "E_TOOL_DENIED",
              decision: "deny",
              by: recheck.by,
              args: again.value,
            });
          }
        }
        args = again.value;
        info.input = args;
      }
    }

    // 4. Run with a signal and a timeout.
    const timeoutMs = tool.timeoutMs ?? deps.defaults.timeoutMs;
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(options.signal?.reason ?? new Error("aborted"));
    if (options.signal?.aborted) return finish("aborted", `Call to ${name} was cancelled before it started.`, { code: "E_TOOL_ABORTED", decision: "allow", by: perm.by, args });
    options.signal?.addEventListener("abort", onOuterAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);

    let raw: ToolReturn;
    try {
      raw = await runAbortable(
        () =>
          tool.definition.run(args, {
            signal: controller.signal,
            callId,
            workspace: deps.workspace,
            progress: (p) => deps.emit({ type: "tool_progress", callId, name, ...p }),
          }),
        controller.signal,
      );
    } catch (err) {
      if (timedOut) {
        return finish("timeout", `Tool ${name} timed out after ${timeoutMs} ms and was cancelled.`, { code: "E_TOOL_TIMEOUT", decision: "allow", by: perm.by, args });
      }
      if (controller.signal.aborted) return finish("aborted", `Call to ${name} was cancelled.`, { code: "E_TOOL_ABORTED", decision: "allow", by: perm.by, args });
      return finish("error", `Tool ${name} failed: ${errorMessage(err)}`, { code: errorCode(err), decision: "allow", by: perm.by, args });
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onOuterAbort);
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
      return finish("error", `Tool ${name} returned an invalid result (${raw === null ? "null" : typeof raw}); expected a string or { output: string }.`, {
        code: "E_TOOL_FAILED",
        decision: "allow",
        by: perm.by,
        args,
      });
    }
    const capped = capOutput(text, tool.maxOutputBytes ?? deps.defaults.maxOutputBytes);
    let result: ToolResult = {
      ok: !isError,
      outcome: isError ? "error" : "ok",
      output: capped.text,
      durationMs: performance.now() - started,
      callId,
    };
    if (isError) result.error = { code: "E_TOOL_FAILED", message: capped.text };
    if (capped.truncated) result.truncated = true;
    if (structured !== undefined) result.structured = structured;

    // 6. afterToolCall may transform the result.
    if (deps.hooks.afterToolCall.isUsed()) {
      const after: unknown = await deps.hooks.afterToolCall.promise(result, info);
      if (isToolResult(after)) result = after;
      else if (after !== undefined) {
        deps.emit({ type: "notice", level: "warn", source: "afterToolCall", message: `afterToolCall returned ${describeValue(after)} instead of a tool result; it was ignored.` });
      }
    }
    return finish(result.outcome, result.output, {
      code: result.error?.code,
      truncated: result.truncated,
      structured: result.structured,
      bytes: capped.bytes,
      decision: "allow",
      by: perm.by,
      args,
    });
  }

  private async validate(tool: ToolEntry, input: unknown): Promise<{ ok: true; value: unknown } | { ok: false; issues: string[] }> {
    let v: Validator;
    if (tool.zod) v = tool.validator as Validator;
    else v = await (tool.validator as () => Promise<Validator>)();
    return v(input === undefined ? {} : input);
  }

  private subjects(tool: ToolEntry, input: unknown): string[] | undefined {
    const fn = tool.definition.permissionSubject;
    if (!fn) return undefined;
    try {
      const s = fn(input) as unknown;
      if (s === undefined || s === null) return undefined;
      return Array.isArray(s) ? s.map(String) : [String(s)];
    } catch {
      return undefined;
    }
  }

  private verdict(tool: ToolEntry, input: unknown) {
    const subjects = this.subjects(tool, input);
    const v = decide(this.deps.rules, this.mode, tool.name, tool.risk, subjects);
    if (v.decision === "ask" && this.sessionAllow.length) {
      // Answers of "always this session" combine with the config's allow rules to cover every part of a call.
      const granted = allowCoverage([...this.sessionAllow, ...this.deps.rules.allow], tool.name, subjects);
      if (granted) return { decision: "allow" as const, by: `session:${granted.map((r) => r.raw).join(", ")}`, subjects };
    }
    return { ...v, subjects };
  }

  private async permit(tool: ToolEntry, input: unknown, callId: string): Promise<{ decision: "allow" | "deny"; by: string; message: string }> {
    const v = this.verdict(tool, input);
    const what = v.subjects?.length === 1 ? `${tool.name}(${v.subjects[0]})` : tool.name;
    if (v.decision === "allow") return { decision: "allow", by: v.by, message: "" };
    if (v.decision === "deny") {
      const why = v.by.startsWith("mode:")
        ? `${tool.risk} tools are not allowed in ${this.mode} mode`
        : `it matches the deny rule "${v.by}"`;
      return { decision: "deny", by: v.by, message: `Permission denied: ${what} was not run because ${why}.` };
    }
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
    this.deps.emit({ type: "permission_request", callId, name: tool.name, subject: v.subjects?.join(" && "), suggestedRule });
    let answer: Awaited<ReturnType<PermissionAsker>>;
    try {
      answer = await this.asker({ tool, input, subject: v.subjects?.join(" && "), suggestedRule, suggestedRules, reason: v.by });
    } catch (err) {
      answer = "deny";
      this.deps.emit({ type: "notice", level: "warn", source: "permissions", message: `permission prompt failed: ${errorMessage(err)}` });
    }
    if (answer === "allow_session") this.sessionAllow.push(...suggestedRules.map(parseRule));
    const decision = answer === "deny" ? "deny" : "allow";
    this.deps.emit({ type: "permission_decision", callId, name: tool.name, decision, by: "user" });
    if (decision === "deny") return { decision, by: "user", message: `Permission denied by the user: ${what} was not run.` };
    return { decision, by: answer === "allow_session" ? `user:session:${suggestedRule}` : "user:once", message: "" };
  }
}

/** Resolve with the tool's result, or reject as soon as the signal aborts (a tool that ignores its signal cannot hold the caller). */
function runAbortable<T>(fn: () => Promise<T> | T, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve()
      .then(fn)
      .then(
        (v) => {
          signal.removeEventListener("abort", onAbort);
          resolve(v);
        },
        (e) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        },
      );
  });
}

function isToolResult(v: unknown): v is ToolResult {
  const r = v as Partial<ToolResult> | null;
  return typeof r === "object" && r !== null && typeof r.ok === "boolean" && typeof r.output === "string" && typeof r.outcome === "string";
}

function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  return `a ${typeof v}`;
}

function sameSubjects(a: string[] | undefined, b: string[] | undefined): boolean {
  if (!a || !b) return a === b;
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && code.startsWith("E_") ? code : "E_TOOL_FAILED";
}

/** Up to two registered names close to a mistyped one. */
function nearestNames(name: string, names: string[]): string[] {
  const scored = names
    .map((n) => ({ n, d: distance(name.toLowerCase(), n.toLowerCase()) }))
    .filter((x) => x.d <= Math.max(2, Math.floor(name.length / 3)) || x.n.endsWith(`__${name}`))
    .sort((a, b) => a.d - b.d);
  return scored.slice(0, 2).map((x) => x.n);
}

function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 8) return 99;
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}
