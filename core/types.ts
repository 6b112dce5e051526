/**
 * Public types of the registry and the gate: tools, calls, permissions, commands, skills, the workspace.
 * Everything here is part of the product: keep it small, documented and stable.
 * (Plugin types are in plugin-types.ts, the host's in host-types.ts.)
 */
import type { z } from "zod";
import type { ContractSlots } from "./contract-slots.js";

/** The host as plugins see it, declared above the definitions it lists (contract-slots.ts). */
type PluginHost = ContractSlots["pluginHost"];

/** What a tool may do to the world. Permission modes are defined in terms of risk. */
export type Risk = "read" | "write" | "execute" | "network";
export const RISKS: readonly Risk[] = ["read", "write", "execute", "network"];

/** `default`: read allowed, others ask. `plan`: read only. `acceptEdits`: read + write. `bypass`: all (still audited). */
export type PermissionMode = "default" | "plan" | "acceptEdits" | "bypass";
export const PERMISSION_MODES: readonly PermissionMode[] = ["default", "plan", "acceptEdits", "bypass"];

export type { JsonSchema } from "../kit/schema.js";
import type { JsonSchema } from "../kit/schema.js";

/** A value that cannot be changed, all the way down (what hooks are handed). */
export type DeepReadonly<T> = T extends (...args: any[]) => unknown
  ? T
  : T extends readonly (infer U)[]
    ? readonly DeepReadonly<U>[]
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;

/** What a tool's `run` may return: plain text, or a richer result. */
export type ToolReturn =
  | string
  | {
      /** Text for the model. */
      output: string;
      /** Marks the result as a failure the model should see as an error. */
      isError?: boolean;
      /** Machine-readable result (kept beside the text, e.g. MCP `structuredContent`). */
      structured?: unknown;
    };

export type { TrackableProcess, ProcessTracker } from "../kit/processes.js";
import type { ProcessTracker } from "../kit/processes.js";
import type { DeclaredWrite } from "../kit/fs/protected-paths.js";

/** Passed to a tool's `run`. */
export interface ToolCallContext {
  /**
   * Fires on timeout, on Ctrl-C and when the caller aborts. Long-running tools must honour it.
   * Created the first time it is read (an `AbortSignal` costs a few microseconds on Node 20); a tool
   * that reads it after the call was stopped gets an already-aborted signal.
   */
  readonly signal: AbortSignal;
  /** True once the call was stopped (timeout, Ctrl-C, caller abort); reading it does not create `signal`. */
  readonly aborted: boolean;
  /**
   * Run `listener` once when the call is stopped, with the reason (at once, if it already was). Returns a
   * function that removes it. The cheap alternative to `signal.addEventListener("abort", …)` for tools on
   * a hot path; a listener that throws is reported as a notice, never as the call's failure.
   */
  onAbort(listener: (reason: unknown) => void): () => void;
  /** Unique id of this call (also in the audit record and events). */
  readonly callId: string;
  /** The session the call belongs to. */
  readonly sessionId: string;
  /** The project root (same as `workspace.root`). */
  readonly cwd: string;
  /** The workspace: project root, extra roots, and a path resolver that refuses escapes. */
  readonly workspace: Workspace;
  /** Log lines, under the name of the plugin that registered the tool. */
  readonly log: Logger;
  /** Child processes the tool starts: track them so none outlives the host. */
  readonly processes: ProcessTracker;
  /**
   * Variables to add to the environment of processes the tool starts: config `env` (which also takes
   * Claude Code's settings `env`). Spawn with `{ ...process.env, ...ctx.env }`; empty when none are set.
   */
  readonly env: Readonly<Record<string, string>>;
  /** Report progress; becomes a `tool_progress` event. */
  progress(update: { progress: number; total?: number; message?: string }): void;
  /**
   * Whether anyone hears progress (a terminal, stream-json, an event listener) when the call starts. A
   * tool may skip asking for it otherwise: the MCP plugin then sends no `progressToken`.
   */
  readonly wantsProgress: boolean;
  /**
   * The call's W3C trace context (`traceparent`, and `tracestate` when there is one) when a plugin traces
   * this host's calls (`PluginContext.traceCalls`: the telemetry plugin's `execute_tool` span). A tool that
   * calls a server passes it on, so the server's spans join the trace (the MCP plugin: the request's
   * `_meta`, SEP-414). Undefined when nothing traces calls. Computed when read.
   */
  readonly traceContext?: Readonly<Record<string, string>>;
  /**
   * The OS sandbox for processes the tool starts (config `sandbox`): pass the spawn through
   * `await ctx.sandbox.wrap({ file, args, cwd, env })` and spawn what it returns. See `CommandSandbox`.
   */
  readonly sandbox: CommandSandbox;
}

/** Which OS sandbox wraps commands on this machine, or why none does. */
export interface SandboxStatus {
  /** `bwrap` (Linux bubblewrap), `seatbelt` (macOS sandbox-exec), or `none`. */
  readonly kind: "bwrap" | "seatbelt" | "none";
  /** Why `none`: switched off (`sandbox.enabled: false`), or what detection found (bwrap missing or failing). */
  readonly reason?: string;
  /** Config `sandbox.required`: with `none`, `wrap` refuses instead of running the command unsandboxed. */
  readonly required: boolean;
  /** `bwrap`: whether commands are kept from Unix sockets (a seccomp filter) when the network is `none`. */
  readonly unixSockets?: "closed" | "open";
}

/** A process to start, as a tool would spawn it. */
export interface SandboxSpawnSpec {
  /** The program (`/bin/bash`), found as `spawn` finds it. */
  readonly file: string;
  readonly args: readonly string[];
  /** Absolute folder to run in. */
  readonly cwd: string;
  /** Its whole environment (`{ ...process.env, ...ctx.env }`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Protected files the gate let this call write (it asked, and was allowed): writable for this command
   * although the sandbox keeps protected files read-only. Absolute; paths outside the workspace are ignored.
   */
  readonly approvedWrites?: readonly string[];
}

/** What to spawn instead: the same process inside the sandbox (or the spec unchanged where none is in use). */
export interface SandboxedSpawn {
  readonly file: string;
  readonly args: string[];
  readonly cwd: string;
  readonly env: Record<string, string | undefined>;
  /** The sandbox it runs in (`none`: it runs unsandboxed). */
  readonly kind: SandboxStatus["kind"];
  /** Said once per host, at the first wrap with no sandbox: tell the model and the user (append it to the output). */
  readonly notice?: string;
  /**
   * After the process ended: what the sandbox refused (a write outside, a connection), naming the config
   * key that would allow it, for the model to ask the user rather than retry; undefined when nothing was.
   */
  explain(result: { stdout: string; stderr: string; exitCode: number | null }): string | undefined;
  /** Free what the wrap set up (the network proxy of a host list); call it once the process has ended. */
  dispose(): void;
}

/** The OS sandbox commands run in (`ctx.sandbox` of a tool call and of a plugin's setup). */
export interface CommandSandbox {
  /** Which sandbox is in use (detected once per process, on first use). */
  status(): Promise<SandboxStatus>;
  /** The policy in a few words, e.g. `writes: the workspace, /tmp (private); network: none; credentials hidden`. */
  describe(): string;
  /** Config `sandbox.hooks`: command hooks run in the sandbox too. */
  readonly hooks: boolean;
  /**
   * The spawn to run instead of `spec`. Throws an `AgentError` (`E_SANDBOX_UNAVAILABLE`) when config
   * `sandbox.required` is set and no sandbox works here. Spawn the result `detached` and stop its group
   * as before: stopping the sandbox stops everything inside it.
   */
  wrap(spec: SandboxSpawnSpec): Promise<SandboxedSpawn>;
}

/**
 * A tool definition. Give exactly one of `input` (a zod object schema, for local tools)
 * or `inputSchema` (a JSON Schema object, for remote tools such as MCP).
 */
export interface ToolDefinition<I = any> {
  /** `^[a-zA-Z0-9_-]{1,64}$`, unique across the host. */
  name: string;
  /** What the tool does, for the model. Required. */
  description: string;
  input?: z.ZodType<I>;
  inputSchema?: JsonSchema;
  /**
   * The JSON Schema dialect of an `inputSchema` that declares no `$schema` (one that declares it is read
   * as it says): default `draft-07`; MCP tools are `2020-12` (the MCP spec's default since 2025-11-25).
   */
  schemaDialect?: "draft-07" | "2019-09" | "2020-12";
  /** Default `execute` when not given: unknown tools are treated as dangerous. */
  risk?: Risk;
  /** Per-tool timeout in ms (config overrides win). */
  timeoutMs?: number;
  /** Per-tool output cap in bytes (config overrides win). */
  maxOutputBytes?: number;
  /**
   * The string that `permissions` rules with a parenthesised pattern match against,
   * e.g. the command for `run_command(npm test:*)` or the path for `write_file(src/*)`. Return several
   * (e.g. each part of `a && b`): allow rules must match all of them, deny and ask rules any. A subject
   * that begins with a NUL byte is a mark the gate reads (`shellSubjects` returns them where a command line
   * cannot be judged by its text), never shown or matched as text.
   */
  permissionSubject?(input: I, ctx: WritesContext): string | string[] | undefined | Promise<string | string[] | undefined>;
  /**
   * `path`: the subjects are file paths. The gate makes them relative to the project root before rules
   * see them, and rule patterns match them as .gitignore patterns do (`*.txt` in any folder, `/x` at
   * the root, `build/` and everything under it). Default `text`: globs over the whole subject.
   */
  subjectKind?: "path" | "text";
  /**
   * Whether a call of this tool only reads, judged from its permission subjects (run_command's `git status`,
   * `git log | head`): such a call is judged as a `read` call (no question in default and plan modes), its
   * rules applying as to any other call (deny first). Return true only when sure; a throw counts as false.
   */
  readOnly?(subjects: readonly string[]): boolean;
  /**
   * The files a call would write (or remove), for the gate's protected-path check: a write to a file
   * that decides what the agent may do (its config, `.agent/`, `.claude/`, `.mcp.json`, `.git/`, the
   * user's config folders) is asked in every permission mode, and only an allow rule naming exactly that
   * call allows it without asking; the audit log and session transcripts are never written by tools.
   * Paths are judged where they lead (symlinks followed). Plain strings are paths relative to the project
   * root. Without this, a `write` tool whose `subjectKind` is `path` is taken to write its subjects. If it
   * throws, the call is denied.
   */
  writes?(input: I, ctx: WritesContext): readonly (string | FileWrite)[] | undefined | Promise<readonly (string | FileWrite)[] | undefined>;
  /** Shown in `agent tools` and the audit log instead of the plugin name (e.g. `mcp:github`). */
  source?: string;
  /** Free-form data for plugins (e.g. the original MCP tool name). Never sent to the model. */
  meta?: Record<string, unknown>;
  /**
   * Other names people know this tool by (Claude Code's `Bash` for `run_command`): not callable, but a
   * permission rule may name the tool by one (`Bash(rm:*)` denies `run_command` `rm …`; exact names
   * only, globs match real names), and tool lists written for Claude Code are mapped through them.
   * A name or alias already held by another tool is refused at registration.
   */
  aliases?: string[];
  /**
   * May be left out of model requests until the model asks for it: when a host has many tools, the
   * tool-search plugin sends only the names of such tools plus a `tool_search` tool that loads them
   * (MCP servers' tools set it). Calls still pass the gate like any other.
   */
  deferLoading?: boolean;
  /**
   * `false`: the tool's `run` never calls tools itself (through `host.tools.call`), as an MCP server's
   * tools do not, so the gate need not carry the call's depth through its async work for `E_TOOL_DEPTH`.
   * That tracking (an AsyncLocalStorage) slows every promise in the process while a tracked call is in
   * flight. Hooks that tap the call are tracked anyway. Default: tracked.
   */
  callsTools?: boolean;
  run(input: I, ctx: ToolCallContext): Promise<ToolReturn> | ToolReturn;
}

/** What a tool's `writes` gets besides the input: where relative paths lead and how they resolve. */
export interface WritesContext {
  readonly workspace: Workspace;
}

/** A file a call would write, as a tool tells the gate (see `ToolDefinition.writes`); its fields are kit's `DeclaredWrite`. */
export interface FileWrite extends DeclaredWrite {}

/**
 * A definition as the registry shows it: its data, read-only (lists too), with `source` always set and the
 * plugin that registered it.
 */
type Registered<D, Data = Omit<D, "source">> = { readonly [K in keyof Data]: Data[K] extends readonly string[] | undefined ? readonly string[] : Data[K] } & {
  /** Plugin name, or the definition's `source`. */
  readonly source: string;
  /** The plugin that registered it. */
  readonly plugin: string;
};

/** A tool as the registry shows it, after the gate accepted it: a frozen description, with no way to run it but `tools.call`. */
export interface RegisteredTool extends Registered<Pick<ToolDefinition, "name" | "description" | "timeoutMs" | "maxOutputBytes" | "meta" | "aliases" | "deferLoading">> {
  /** The definition's, or `execute` (the config's `tools.overrides` may set it). */
  readonly risk: Risk;
  /** JSON Schema of the input (converted from zod for local tools). */
  readonly inputSchema: JsonSchema;
}

export type CallOutcome = "ok" | "error" | "denied" | "timeout" | "invalid" | "aborted";

/** The result of every call through the gate. */
export interface ToolResult {
  ok: boolean;
  outcome: CallOutcome;
  /** Text for the model (on failure: the error message the model should act on). */
  output: string;
  /** Machine code on failure, e.g. `E_TOOL_DENIED`. */
  error?: { code: string; message: string };
  structured?: unknown;
  /** True when the output was cut to the cap. */
  truncated?: boolean;
  durationMs: number;
  callId: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Override the call id (for correlating with a model's tool call id). */
  callId?: string;
  /**
   * Who asked for the call when it is not this host's own loop or CLI (e.g. `claude-code`, the
   * client of `agent mcp serve`): written to the call's audit records and carried by `tool_start`.
   */
  caller?: string;
  /** The subagent the call is made for (a `task` tool's run): its tools and mode bound the call. */
  agent?: CallAgent;
}

/**
 * A subagent making a call. The gate refuses a tool outside `tools`, applies `mode` when it is narrower
 * than the session's (a call the narrower mode would not allow is denied, never asked), and names the
 * agent in the audit record, the tool events, the hooks' views and the permission question.
 */
export interface CallAgent {
  /** The agent's name (its `subagent_type`). */
  readonly name: string;
  /** The call id of the tool call that started the agent (the `task` call). */
  readonly parentCallId?: string;
  /** The only tools it may call; absent: any. */
  readonly tools?: readonly string[];
  /** Its permission mode; only a narrower one than the session's has an effect. */
  readonly mode?: PermissionMode;
}

/** Who a call is made for, as audit records, events and hooks' views name it. */
export type CallAgentInfo = Pick<CallAgent, "name" | "parentCallId">;

/**
 * Answer to a permission question. `allow_project`: as `allow_session`, said by an asker that also wrote
 * `projectRules` where the next sessions read them. A deny may carry a message for the model.
 * `unanswered`: the asker had nobody to put this question to (e.g. a client that cannot be asked); the
 * call is denied as with no asker at all, the message naming the rule that would allow it.
 */
export type PermissionAnswer = "allow_once" | "allow_session" | "allow_project" | "deny" | "unanswered" | { decision: "deny"; message: string } | { decision: "answer"; text: string };

/**
 * Rules allowed for the rest of this session: an answer "always this session" (`by: "user:session"`),
 * "always for this project" (`user:project`, also saved to the local settings), or a plugin's granted
 * request (`plugin:<name>`). Listed by `/permissions`, revoked with `/permissions revoke N`.
 */
export interface SessionGrant {
  readonly rules: readonly string[];
  readonly by: string;
  /** The tool asked about, for an answer. */
  readonly tool?: string;
  /** Why a plugin asked. */
  readonly reason?: string;
}

export interface PermissionRequest {
  /** Absent or `call`: one tool call. */
  kind?: "call";
  tool: RegisteredTool;
  input: unknown;
  /** The call asked about (`CallOptions.callId` when the caller gave one). */
  callId?: string;
  /** What rules match, when the call has exactly one subject (e.g. a path, a simple command). */
  subject?: string;
  /** Every part rules match (each command of a pipeline or list, each file a redirection writes). */
  parts: string[];
  /** True when part of the call cannot be judged by its text (a command substitution, a syntax error). */
  uncertain: boolean;
  /** The rules to add that would allow exactly this without asking, e.g. `run_command(npm test:*)` (one per part of a compound command). */
  suggestedRules: string[];
  /** `suggestedRules` joined with ", ", for display; empty when no rule can describe the call (answer once or no). */
  suggestedRule: string;
  /**
   * The same rules written so that, read back from a config file, they match exactly what was asked and
   * nothing more (glob characters escaped, paths anchored); empty when that cannot be written.
   */
  projectRules: string[];
  reason: string;
  /**
   * The files the call would write that decide what the agent may do or what runs on its next start
   * (`path` relative to the project root, or absolute; `why` says what the file is). Such a call is asked
   * in every mode; absent or empty for other calls.
   */
  protectedWrites?: readonly ProtectedWriteInfo[];
  /** The subagent that makes the call, when one does. */
  agent?: CallAgentInfo;
}

/** A protected file a call would write (see `PermissionRequest.protectedWrites`). */
export interface ProtectedWriteInfo {
  readonly path: string;
  readonly why: string;
}

/** A plugin asks to allow rules for the rest of the session (e.g. a skill's `allowed-tools`). Any allow answer grants them. */
export interface GrantRequest {
  kind: "grant";
  /** Who asks. */
  plugin: string;
  /** The rules, in config syntax (`run_command(git:*)`, `read_file`). */
  rules: string[];
  /** Why, for the person answering (e.g. `skill pdf-forms lists allowed-tools`). */
  reason: string;
}

/**
 * A plugin asks the user one line of text (`ctx.askUser`), e.g. a field of an MCP server's form. The
 * asker answers `{ decision: "answer", text }`; anything else (a deny, Ctrl-C) means no answer.
 */
export interface InputRequest {
  kind: "input";
  plugin: string;
  /** Shown as is: what is asked, and how to answer (the last line is the prompt). */
  question: string;
}

/** Decides "ask" permissions and grant requests, and puts plugins' questions. Absent (headless): ask means deny, questions get no answer. */
export type PermissionAsker = (req: PermissionRequest | GrantRequest | InputRequest) => Promise<PermissionAnswer>;

/** A slash command. */
export interface CommandDefinition {
  /** Invoked as `/name`. Letters, digits, `_`, `-`, `:`, `.`; unique. */
  name: string;
  description: string;
  /** Hint shown in `/help`, e.g. `<file>`. */
  argumentHint?: string;
  source?: string;
  run(args: string, ctx: CommandContext): Promise<CommandResult | string | void> | CommandResult | string | void;
}

export interface CommandResult {
  /** Text to print to the user. */
  output?: string;
  /** A prompt to send to the model as the user's next message. */
  prompt?: string;
  /** `provider:model` for the turn that prompt starts (a Markdown command's `model:`); the session's model is unchanged. */
  model?: string;
  /** Ask the interactive session to end. */
  exit?: boolean;
}

export interface CommandContext {
  /** The host, as plugins see it (it cannot change the permission mode). */
  host: PluginHost;
  signal: AbortSignal;
  /** True when the user typed the command (the interactive session), false when code ran it. */
  readonly byUser: boolean;
  /**
   * Change the permission mode, on the user's behalf: only while a command the user typed runs
   * (`byUser`); otherwise it throws. The change is audited and announced with the command's name.
   */
  setPermissionMode(mode: PermissionMode): void;
  /**
   * Take back session grant `n` (1-based, as `host.permissionGrants` lists them); only narrows what is
   * allowed, so any command may. Audited. Returns the grant, or undefined when there is no such one.
   */
  revokeGrant(n: number): SessionGrant | undefined;
}

/** A slash command as the registry shows it: a frozen copy of its definition. */
export type RegisteredCommand = Registered<Omit<CommandDefinition, "run">>;

/** A skill: Markdown instructions the model can pull into its context. Follows the SKILL.md rules. */
export interface SkillDefinition {
  /** Lowercase letters, digits and hyphens, at most 64 characters. */
  name: string;
  /** When to use it; at most 1024 characters. */
  description: string;
  /** The Markdown body, or a function that loads it on each use (an MCP server's; its rejection is that use's error). */
  content: string | (() => Promise<string>);
  /** Where it came from (a file path, for skills loaded from disk). */
  path?: string;
  source?: string;
  /** Free-form data for plugins (e.g. frontmatter fields). */
  meta?: Record<string, unknown>;
}

/** A skill as the registry shows it: a frozen copy of its definition (read its body with kit's `skillBody`). */
export type RegisteredSkill = Registered<SkillDefinition>;

/**
 * A subagent: a prompt and a narrower set of tools for a loop of its own (Claude Code's subagent format,
 * `.claude/agents/*.md`: the frontmatter's fields, the body as `prompt`). Registered as the `agents` kind;
 * running one is a plugin's `task` tool.
 */
export interface AgentDefinition {
  /** Lowercase letters, digits and single hyphens, at most 64 characters; unique. */
  name: string;
  /** When to use it: the model reads it to pick the agent. Required. */
  description: string;
  /** The tools it may use (Claude Code's names too: `Read`, `Bash`); omitted: the parent's tools. */
  tools?: string[];
  /** Tools it may never use, even when `tools` is omitted. */
  disallowedTools?: string[];
  /** A model alias, a `provider:model`, or `inherit` (the default): the parent's model. */
  model?: string;
  /** May narrow the parent's permission mode, never widen it. */
  permissionMode?: PermissionMode;
  /** Model requests allowed in one run of it. */
  maxTurns?: number;
  /** Skills whose bodies are preloaded into its context. */
  skills?: string[];
  /** Its system prompt (the Markdown body). */
  prompt: string;
  /** Shown in listings instead of the plugin name (e.g. `project`, `user`). */
  source?: string;
  /** The file it was read from, for agents loaded from disk. */
  path?: string;
  /** Free-form data for plugins (e.g. frontmatter keys agent-host does not know). */
  meta?: Record<string, unknown>;
}

/** An agent as the registry shows it: a frozen copy of its definition. */
export type RegisteredAgent = Registered<AgentDefinition>;

/** The workspace a tool may touch. */
export interface Workspace {
  /** The project root (real path). */
  readonly root: string;
  /** The root plus any extra folders from config (real paths). */
  readonly roots: readonly string[];
  /**
   * Folders outside the roots that may be read but never written (e.g. a skill's folder), granted by
   * plugins with `ctx.addReadRoot`.
   */
  readonly readRoots: readonly string[];
  /**
   * Resolve a user- or model-supplied path against the root and make sure it stays inside a root,
   * following symlinks. Throws an `AgentError` with code `E_PATH_OUTSIDE_WORKSPACE` otherwise. With
   * `{ access: "read" }` (tools that only read), the read-only roots count too.
   */
  resolve(p: string, options?: { access?: "read" | "write" }): string;
  /** Path relative to the root, for display. */
  relative(abs: string): string;
}

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/** `start`: a call's write-ahead record, on disk before the tool has the call; its `call` record follows with the outcome. */
export type AuditKind = "register" | "call" | "start" | "command" | "skill" | "plugin" | "mode" | "grant" | "hook";

