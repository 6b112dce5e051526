/**
 * `agent-host/testing`: what a plugin author needs to test a plugin for real. A host with only the given
 * plugins, in a temporary project, whose tools are called through the real gate, whose commands run,
 * and whose agent loop talks to a scripted model.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHost, type AgentConfig, type CommandResult, type Host, type ModelProvider, type ModelRequest, type ModelStreamEvent, type PermissionAsker, type PermissionMode, type ToolResult } from "../core/index.js";
import type { CreateHostOptions, PluginEntry, RunOptions, RunResult } from "../core/embed.js";

/** One answer of the scripted model: text, tool calls, or a function of the request it answers. */
export type ScriptedTurn =
  | { text?: string; toolCalls?: { name: string; input: unknown; id?: string }[] }
  | ((request: ModelRequest) => { text?: string; toolCalls?: { name: string; input: unknown; id?: string }[] });

export interface ScriptedProvider extends ModelProvider {
  /** Every request the loop sent, in order (system prompt, messages, tools). */
  readonly requests: ModelRequest[];
}

/**
 * A model provider that answers from a script, one turn per request; past the end it answers "done".
 * Use it as `scripted:<anything>` (or give it another name).
 */
export function scriptedProvider(turns: ScriptedTurn[], name = "scripted"): ScriptedProvider {
  const requests: ModelRequest[] = [];
  let i = 0;
  return {
    name,
    description: "a scripted model for tests",
    requests,
    async *stream(request): AsyncIterable<ModelStreamEvent> {
      requests.push(structuredClone(request));
      const step = turns[i++] ?? { text: "done" };
      const turn = typeof step === "function" ? step(request) : step;
      if (turn.text) yield { type: "text_delta", text: turn.text };
      const calls = turn.toolCalls ?? [];
      for (const [k, c] of calls.entries()) yield { type: "tool_call", call: { id: c.id ?? `call_${i}_${k}`, name: c.name, input: c.input } };
      yield { type: "usage", usage: { inputTokens: 10, outputTokens: 5 } };
      yield { type: "stop", reason: calls.length ? "tool_use" : "end_turn" };
    },
  };
}

export interface TestHostOptions {
  /** The plugins under test (objects, factories' results, `[name, options]` entries, paths). */
  plugins?: PluginEntry[];
  /** Config, as a config file would give it. */
  config?: AgentConfig;
  /** Files to create in the temporary project, relative path → content (objects are written as JSON). */
  files?: Record<string, string | object>;
  /** Use this folder as the project instead of a temporary one (it is not removed). */
  cwd?: string;
  /** Read the project's config files too (default false: only `config` counts). */
  loadConfigFiles?: boolean;
  /** Trust the project folder (its plugins, hooks, servers and widening settings load); default true. */
  trust?: boolean;
  permissionMode?: PermissionMode;
  /** Answers "ask" permissions; without it, ask means deny, as in CI. */
  askPermission?: PermissionAsker;
  /** A scripted model for `run`: registered as provider `scripted`, and the session's model. */
  model?: ScriptedTurn[];
  /** The OS sandbox for commands (`createCommandSandbox` of `agent-host/builtins`); default none, as `createHost`. */
  sandbox?: CreateHostOptions["sandbox"];
}

export interface TestHost {
  host: Host;
  /** The project folder. */
  dir: string;
  /** The scripted model, when `model` was given. */
  model: ScriptedProvider | undefined;
  /** Call a tool through the full gate. */
  call(name: string, input?: unknown): Promise<ToolResult>;
  /** Run a slash command as the user typed it. */
  command(line: string): Promise<CommandResult>;
  /** Run the agent loop on a prompt (with the scripted model when `model` was given). */
  run(prompt: string, options?: RunOptions): Promise<RunResult>;
  /** Audit records written so far. */
  audit(): Record<string, unknown>[];
  /** Close the host and remove the temporary project. */
  close(): Promise<void>;
}

/** A host with only the given plugins (no built-ins, no user config), in a temporary project. */
export async function createTestHost(options: TestHostOptions = {}): Promise<TestHost> {
  const temp = options.cwd ? undefined : realpathSync(mkdtempSync(path.join(os.tmpdir(), "agent-plugin-test-")));
  const dir = options.cwd ?? path.join(temp!, "project");
  mkdirSync(dir, { recursive: true });
  if (temp) writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "test-project", private: true }));
  for (const [rel, content] of Object.entries(options.files ?? {})) {
    const file = path.resolve(dir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
  const model = options.model ? scriptedProvider(options.model) : undefined;
  const plugins: PluginEntry[] = [...(options.plugins ?? [])];
  if (model) plugins.push({ name: "testing:model", providers: [model] });
  let host: Host;
  try {
    host = await createHost({
      cwd: dir,
      config: { ...(model ? { model: `${model.name}:test` } : {}), ...options.config },
      loadConfigFiles: options.loadConfigFiles ?? false,
      userConfigDir: false,
      // A test project is the author's own: trusted unless the test says otherwise.
      trust: options.trust ?? true,
      plugins,
      permissionMode: options.permissionMode,
      askPermission: options.askPermission,
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    });
  } catch (err) {
    // A config error (bad options, say) is what some tests expect: leave no temporary project behind.
    if (temp) rmSync(temp, { recursive: true, force: true });
    throw err;
  }
  const auditFile = path.join(host.workspace.root, (host.config.audit?.path as string | undefined) ?? ".agent/audit.jsonl");
  return {
    host,
    dir,
    model,
    call: (name, input = {}) => host.tools.call(name, input),
    command: (line) => host.commands.run(line, { asUser: true }),
    run: (prompt, runOptions) => host.run(prompt, runOptions),
    audit: () =>
      existsSync(auditFile)
        ? readFileSync(auditFile, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Record<string, unknown>)
        : [],
    async close() {
      await host.close();
      if (temp) rmSync(temp, { recursive: true, force: true });
    },
  };
}
