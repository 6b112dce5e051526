/**
 * The host: loads config, applies plugins, runs the register hooks through the registration gate,
 * and exposes the call gate. The CLI is a thin layer over this; tests and embedders use it directly.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { AuditLog } from "./audit.js";
import { loadConfig, type LoadedConfig } from "./config.js";
import { AgentConfigSchema, type AgentConfig, type PluginEntry } from "./config-schema.js";
import { AgentError, errorMessage } from "./errors.js";
import type { AgentEvent } from "./events.js";
import { Gate } from "./gate.js";
import { createHooks, type HookName, type HookTable } from "./hooks.js";
import type { ModelProvider } from "./model.js";
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS } from "./output.js";
import { compileRules } from "./permissions.js";
import { specFromEntry, type PluginSpec } from "./plugin-loader.js";
import { handlerFallback, pluginHookView, tapPluginObject, withPluginScope } from "./plugin-driver.js";
import { killAllChildren } from "./processes.js";
import { forgetEnvSecrets } from "./redact.js";
import {
  checkCommand,
  checkProvider,
  checkSkill,
  checkTool,
  findOverride,
  makeToolEntry,
  type Rejection,
  type ToolEntry,
} from "./registry.js";
import type {
  AgentSession,
  CommandResult,
  Host,
  HostProblem,
  Logger,
  PermissionAsker,
  PermissionMode,
  Plugin,
  PluginContext,
  PluginStatus,
  RegisteredCommand,
  RegisteredSkill,
  ToolDefinition,
} from "./types.js";
import { createWorkspace } from "./workspace.js";

/** A built-in plugin, loaded lazily so `agent --version` imports nothing heavy. */
export interface BuiltinPlugin {
  name: string;
  load(): Promise<Plugin | ((options: Record<string, unknown>) => Plugin | Promise<Plugin>)>;
}

export interface CreateHostOptions {
  /** Project folder; default `process.cwd()`. */
  cwd?: string;
  /** Config merged over the files (highest precedence). */
  config?: AgentConfig;
  /** Read config files (project, user, `.mcp.json`); default true. */
  loadConfigFiles?: boolean;
  /** Folder of the user config, or false to skip it. */
  userConfigDir?: string | false;
  /** Overrides `permissions.mode` from config. */
  permissionMode?: PermissionMode;
  /** Extra plugins applied after the config's. */
  plugins?: PluginEntry[];
  /** Built-in plugins; default the bundled set (tools, mcp, providers, commands). */
  builtins?: BuiltinPlugin[];
  /** Answers "ask" permissions; without it, ask means deny (headless). */
  askPermission?: PermissionAsker;
  sessionId?: string;
  /** Audit log path (relative to the project root), or false to disable; overrides config. */
  audit?: string | false;
  /** Receives plugin log lines; default: warnings and errors become `notice` events, debug goes to stderr with AGENT_DEBUG=1. */
  logger?: Logger;
}

export async function createHost(options: CreateHostOptions = {}): Promise<Host> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const sessionId = options.sessionId ?? randomUUID();

  const loaded: LoadedConfig = await loadConfig({
    cwd,
    userConfigDir: options.userConfigDir,
    overrides: options.config,
    readFiles: options.loadConfigFiles !== false,
  });
  let config = loaded.config;

  const workspace = createWorkspace(loaded.projectRoot, config.workspace?.roots ?? []);
  const hooks = createHooks();
  const listeners = new Set<(e: AgentEvent) => void>();
  const problems: HostProblem[] = [];
  const pluginStatuses: PluginStatus[] = [];
  const tools = new Map<string, ToolEntry>();
  const commands = new Map<string, RegisteredCommand>();
  const skills = new Map<string, RegisteredSkill>();
  const providers = new Map<string, ModelProvider & { plugin?: string }>();
  let ready = false;
  let emitting = 0;

  const auditSetting = options.audit ?? (config.audit?.enabled === false ? false : (config.audit?.path ?? ".agent/audit.jsonl"));
  const audit = new AuditLog(auditSetting === false ? undefined : path.resolve(workspace.root, auditSetting), sessionId, (m) =>
    report({ kind: "config", message: m }),
  );

  const debug = process.env.AGENT_DEBUG === "1" || process.env.AGENT_DEBUG === "true";

  function emit(event: AgentEvent): void {
    // Guard against an event handler that emits in a loop.
    if (emitting > 8) return;
    emitting++;
    try {
      hooks.event.call(event);
    } finally {
      emitting--;
    }
  }
  /** Whether an event reaches anyone: a listener, another tap or an interceptor (the host's own tap only forwards to listeners). */
  function listening(): boolean {
    return listeners.size > 0 || hooks.event.taps.length > 1 || hooks.event.interceptors.length > 0;
  }
  hooks.event.tap({ name: "host:listeners", stage: 1000 }, (event) => {
    for (const l of listeners) {
      try {
        l(event);
      } catch (err) {
        if (debug) process.stderr.write(`[agent] event listener failed: ${errorMessage(err)}\n`);
      }
    }
  });

  function report(problem: HostProblem): void {
    problems.push(problem);
    audit.write({
      kind: problem.kind === "register" ? "register" : "plugin",
      source: problem.plugin ?? "host",
      name: problem.name ?? problem.plugin ?? problem.kind,
      outcome: problemOutcome(problem.kind),
      error: problem.message,
    });
    emit({ type: "notice", level: "warn", source: problem.plugin ?? problem.kind, message: problem.message });
  }

  const gate = new Gate({
    tools,
    hooks,
    audit,
    workspace,
    emit,
    listening,
    rules: compileRules(config.permissions),
    configFileHint:
      loaded.files.findLast((f) => !f.endsWith(".mcp.json")) ?? `a config file such as ${path.join(loaded.configDir, ".agentrc.json")}`,
    defaults: {
      timeoutMs: config.tools?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxOutputBytes: config.tools?.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    },
  });
  gate.mode = options.permissionMode ?? config.permissions?.mode ?? "default";
  gate.asker = options.askPermission;

  // Registrations made while starting up are audited as one record per plugin and phase.
  const pendingAudit = new Map<string, { plugin: string; kind: string; names: string[] }>();
  function auditRegistration(plugin: string, kind: string, name: string): void {
    if (ready) {
      audit.write({ kind: "register", source: plugin, name, outcome: "ok", detail: { kind } });
      return;
    }
    const key = `${plugin}\0${kind}`;
    const entry = pendingAudit.get(key) ?? { plugin, kind, names: [] };
    entry.names.push(name);
    pendingAudit.set(key, entry);
  }
  function flushRegistrationAudit(): void {
    for (const e of pendingAudit.values()) {
      audit.write({ kind: "register", source: e.plugin, name: e.plugin, outcome: "ok", detail: { kind: e.kind, count: e.names.length, names: e.names } });
    }
    pendingAudit.clear();
  }

  function reject(plugin: string, what: string, r: Rejection): false {
    report({ kind: "register", plugin, name: r.name, message: `Plugin ${plugin}: ${what} "${r.name}" rejected: ${r.reason}` });
    return false;
  }

  const failedPlugins = new Set<string>();

  function registrarsFor(plugin: string) {
    const count = (field: "tools" | "commands" | "skills" | "providers") => {
      const s = pluginStatuses.find((p) => p.name === plugin);
      if (s) s[field]++;
    };
    return {
      tools: {
        add(def: ToolDefinition): boolean {
          if (failedPlugins.has(plugin)) return false;
          const bad = checkTool(def, tools);
          if (bad) return reject(plugin, "tool", bad);
          const entry = makeToolEntry(def, plugin, findOverride(config.tools?.overrides, def.name));
          if (!("definition" in entry)) return reject(plugin, "tool", entry);
          tools.set(def.name, entry);
          count("tools");
          auditRegistration(entry.source, "tool", def.name);
          return true;
        },
        remove(name: string): boolean {
          const t = tools.get(name);
          if (!t || t.plugin !== plugin) return false;
          tools.delete(name);
          const s = pluginStatuses.find((p) => p.name === plugin);
          if (s) s.tools--;
          return true;
        },
      },
      commands: {
        add(def: Parameters<PluginContext["commands"]["add"]>[0]): boolean {
          if (failedPlugins.has(plugin)) return false;
          const bad = checkCommand(def, commands);
          if (bad) return reject(plugin, "command", bad);
          commands.set(def.name, {
            name: def.name,
            description: def.description,
            argumentHint: def.argumentHint,
            source: def.source ?? plugin,
            plugin,
            definition: def,
          });
          count("commands");
          auditRegistration(def.source ?? plugin, "command", def.name);
          return true;
        },
        remove(name: string): boolean {
          const c = commands.get(name);
          if (!c || c.plugin !== plugin) return false;
          return commands.delete(name);
        },
      },
      skills: {
        add(def: Parameters<PluginContext["skills"]["add"]>[0]): boolean {
          if (failedPlugins.has(plugin)) return false;
          const bad = checkSkill(def, skills);
          if (bad) return reject(plugin, "skill", bad);
          skills.set(def.name, { ...def, source: def.source ?? plugin, plugin });
          count("skills");
          auditRegistration(def.source ?? plugin, "skill", def.name);
          return true;
        },
        remove(name: string): boolean {
          const s = skills.get(name);
          if (!s || s.plugin !== plugin) return false;
          return skills.delete(name);
        },
      },
      providers: {
        add(p: ModelProvider): boolean {
          if (failedPlugins.has(plugin)) return false;
          const bad = checkProvider(p, providers);
          if (bad) return reject(plugin, "provider", bad);
          providers.set(p.name, Object.assign(Object.create(p) as ModelProvider, { plugin }));
          count("providers");
          auditRegistration(plugin, "provider", p.name);
          return true;
        },
      },
    };
  }

  // The registrars passed to register hooks; a plugin's tap receives the one scoped to it.
  const scoped = <T extends object>(pick: (r: ReturnType<typeof registrarsFor>) => T) =>
    withPluginScope(pick(registrarsFor("host")), (plugin) => pick(registrarsFor(plugin)));

  /** A plugin handler threw: report it with plugin and hook name; the host goes on with the hook's fallback. */
  function onHandlerError(plugin: string, hook: HookName, err: unknown): unknown {
    const message = `Plugin ${plugin} failed in ${hook}: ${errorMessage(err)}`;
    if (hook === "event") {
      // Reporting would emit an event: record it without one, and once (a renderer that throws on
      // every text delta must not grow the problem list for the whole session).
      if (!problems.some((p) => p.plugin === plugin && p.message === message)) {
        problems.push({ kind: "plugin", plugin, message });
        audit.write({ kind: "plugin", source: plugin, name: plugin, outcome: problemOutcome("plugin"), error: message });
        if (debug) process.stderr.write(`[agent] ${message}\n`);
      }
    } else report({ kind: "plugin", plugin, message });
    return handlerFallback(hook, plugin, err);
  }
  const hooksFor = (plugin: string, stage: number) => pluginHookView(hooks, plugin, stage, { isFailed: (p) => failedPlugins.has(p), onError: onHandlerError });

  const logger = (plugin: string): Logger => ({
    debug: (m) => options.logger?.debug(`[${plugin}] ${m}`) ?? (debug ? void process.stderr.write(`[agent:${plugin}] ${m}\n`) : undefined),
    info: (m) => (options.logger ? options.logger.info(`[${plugin}] ${m}`) : emit({ type: "notice", level: "info", source: plugin, message: m })),
    warn: (m) => (options.logger ? options.logger.warn(`[${plugin}] ${m}`) : emit({ type: "notice", level: "warn", source: plugin, message: m })),
    error: (m) => (options.logger ? options.logger.error(`[${plugin}] ${m}`) : emit({ type: "notice", level: "error", source: plugin, message: m })),
  });

  const toolRegistrar = scoped((r) => r.tools);
  const commandRegistrar = scoped((r) => r.commands);
  const skillRegistrar = scoped((r) => r.skills);
  const providerRegistrar = scoped((r) => r.providers);

  let closed: Promise<void> | undefined;

  // The conversation `host.run` continues; the loop (loaded on first run) updates it.
  let chosenModel: string | undefined;
  const session: AgentSession = {
    id: sessionId,
    get model() {
      return chosenModel ?? (process.env.AGENT_MODEL || undefined) ?? config.model;
    },
    set model(ref: string | undefined) {
      chosenModel = ref;
    },
    messages: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    running: false,
    clear() {
      session.messages.length = 0;
    },
  };

  const host: Host = {
    cwd,
    get config() {
      return config;
    },
    configFiles: loaded.files,
    sessionId,
    workspace,
    hooks,
    tools: {
      list: () => [...tools.values()],
      get: (name) => tools.get(name),
      call: (name, input, opts) => gate.call(name, input, opts),
    },
    commands: {
      list: () => [...commands.values()],
      get: (name) => commands.get(name),
      async run(line, opts = {}): Promise<CommandResult> {
        const m = /^\/?(\S+)\s*([\s\S]*)$/.exec(line.trim());
        const name = m?.[1] ?? "";
        const cmd = commands.get(name);
        if (!cmd) throw new AgentError("E_COMMAND_NOT_FOUND", `Unknown command /${name}. Type /help for the list.`);
        const started = performance.now();
        try {
          const out = await cmd.definition.run(m?.[2] ?? "", { host, signal: opts.signal ?? new AbortController().signal });
          audit.write({ kind: "command", source: cmd.source, name, args: m?.[2] || undefined, outcome: "ok", durationMs: performance.now() - started });
          if (typeof out === "string") return { output: out };
          return out ?? {};
        } catch (err) {
          audit.write({ kind: "command", source: cmd.source, name, outcome: "error", error: errorMessage(err), durationMs: performance.now() - started });
          return { output: `Command /${name} failed: ${errorMessage(err)}` };
        }
      },
    },
    skills: { list: () => [...skills.values()], get: (n) => skills.get(n) },
    providers: { list: () => [...providers.values()], get: (n) => providers.get(n) },
    plugins: pluginStatuses,
    problems,
    get permissionMode() {
      return gate.mode;
    },
    set permissionMode(m: PermissionMode) {
      gate.mode = m;
    },
    setPermissionAsker(asker) {
      gate.asker = asker;
    },
    on(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    emit,
    session,
    async run(prompt, runOptions) {
      const { runAgent } = await import("./loop.js");
      return runAgent(host, prompt, runOptions);
    },
    close() {
      closed ??= (async () => {
        const timeout = new Promise<void>((r) => setTimeout(r, 5000).unref());
        await Promise.race([hooks.shutdown.promise().catch(() => {}), timeout]);
        await killAllChildren();
        audit.close();
      })();
      return closed;
    },
  };

  // Load every plugin module in parallel, then apply them in order.
  const specs: PluginSpec[] = [
    ...(options.builtins ?? (await defaultBuiltins())).map(
      (b): PluginSpec => ({
        from: "builtin",
        options: {},
        load: async () => {
          const mod = await b.load();
          return typeof mod === "function" ? mod({}) : mod;
        },
      }),
    ),
    ...[...(config.plugins ?? []), ...(options.plugins ?? [])].map((e) => specFromEntry(e, loaded.pluginBaseDirs)),
  ];
  const loadedPlugins = await Promise.all(
    specs.map((s) =>
      s.load().then(
        (plugin) => ({ spec: s, plugin, error: undefined }),
        (error: unknown) => ({ spec: s, plugin: undefined, error }),
      ),
    ),
  );

  for (const { spec, plugin, error } of loadedPlugins) {
    if (!plugin) {
      const name = spec.from;
      pluginStatuses.push({ name, from: spec.from, status: "failed", error: errorMessage(error), tools: 0, commands: 0, skills: 0, providers: 0 });
      report({ kind: "plugin", plugin: name, message: `Plugin ${name} failed to load: ${errorMessage(error)}. Continuing without it.` });
      continue;
    }
    if (pluginStatuses.some((p) => p.name === plugin.name && p.status === "loaded")) {
      pluginStatuses.push({ name: plugin.name, from: spec.from, status: "failed", error: "a plugin with this name is already loaded", tools: 0, commands: 0, skills: 0, providers: 0 });
      report({ kind: "plugin", plugin: plugin.name, message: `Plugin ${plugin.name} (${spec.from}) skipped: a plugin with this name is already loaded.` });
      continue;
    }
    const status: PluginStatus = { name: plugin.name, from: spec.from, status: "loaded", tools: 0, commands: 0, skills: 0, providers: 0 };
    pluginStatuses.push(status);
    const stage = plugin.enforce === "pre" ? -100 : plugin.enforce === "post" ? 100 : 0;
    const pluginHooks = hooksFor(plugin.name, stage);
    const regs = registrarsFor(plugin.name);
    const ctx: PluginContext = {
      name: plugin.name,
      options: spec.options,
      get config() {
        return config;
      },
      configDir: loaded.configDir,
      workspace,
      hooks: pluginHooks,
      tools: regs.tools,
      commands: regs.commands,
      skills: regs.skills,
      providers: regs.providers,
      log: logger(plugin.name),
      emit,
      audit: (r) => audit.write({ kind: r.kind, source: plugin.name, name: r.name, outcome: r.outcome, detail: r.detail }),
      report: (p) => report({ kind: p.kind ?? "plugin", plugin: plugin.name, name: p.name, message: p.message }),
      host,
    };
    try {
      if (plugin.setup) await plugin.setup(ctx);
      tapPluginObject(plugin, pluginHooks);
    } catch (err) {
      failedPlugins.add(plugin.name);
      for (const [n, t] of tools) if (t.plugin === plugin.name) tools.delete(n);
      for (const [n, c] of commands) if (c.plugin === plugin.name) commands.delete(n);
      for (const [n, s] of skills) if (s.plugin === plugin.name) skills.delete(n);
      for (const [n, p] of providers) if (p.plugin === plugin.name) providers.delete(n);
      Object.assign(status, { status: "failed", error: errorMessage(err), tools: 0, commands: 0, skills: 0, providers: 0 });
      report({ kind: "plugin", plugin: plugin.name, message: `Plugin ${plugin.name} failed in setup: ${errorMessage(err)}. Continuing without it.` });
    }
  }

  // config waterfall: plugins may adjust; the result must still be a valid config.
  if (hooks.config.isUsed()) {
    const next = await hooks.config.promise(config);
    const parsed = AgentConfigSchema.safeParse(next);
    if (parsed.success) {
      config = parsed.data;
      // The gate was built from the files' config: adopt what the plugins changed.
      gate.reconfigure({
        rules: compileRules(config.permissions),
        defaults: {
          timeoutMs: config.tools?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          maxOutputBytes: config.tools?.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
        },
      });
      if (!options.permissionMode && config.permissions?.mode) gate.mode = config.permissions.mode;
    } else report({ kind: "config", message: `The config hook produced an invalid config; it was ignored: ${parsed.error.issues[0]?.message}` });
  }

  await hooks.registerProviders.promise(providerRegistrar);
  await hooks.registerTools.promise(toolRegistrar);
  await hooks.registerCommands.promise(commandRegistrar);
  await hooks.registerSkills.promise(skillRegistrar);
  ready = true;
  // Plugins may have put secrets in the environment while setting up: redact them from the first call on.
  forgetEnvSecrets();
  flushRegistrationAudit();
  return host;
}

async function defaultBuiltins(): Promise<BuiltinPlugin[]> {
  const { builtinPlugins } = await import("../plugins/builtins.js");
  return builtinPlugins;
}

/** A problem's audit outcome: a registration the gate refused, a config warning, or something that failed. */
function problemOutcome(kind: HostProblem["kind"]): "rejected" | "warning" | "failed" {
  return kind === "register" ? "rejected" : kind === "config" ? "warning" : "failed";
}
