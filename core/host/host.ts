/**
 * The host: the second half of the lifecycle. After `prepareHost` (config, plugins loaded, `config`
 * hook), `open` sets each plugin up in order, runs the register hooks through the registration gate,
 * and exposes the call gate. The CLI is a thin layer over this; tests and embedders use it directly.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { AuditLog } from "../gate/audit.js";
import { AgentError, errorMessage, sentence } from "../../kit/errors.js";
import { EventStream } from "../hooks/events.js";
import { freezeCopy } from "../../kit/freeze.js";
import { definedOnly } from "../../kit/text/plain-object.js";
import { Gate } from "../gate/gate.js";
import { runCommand } from "./host-commands.js";
import type { CreateHostOptions, Host, OpenHostOptions, PreparedHost } from "../host-types.js";
import { pluginConfigView, pluginHostView } from "./host-view.js";
import { serveSystemPrompt } from "../loop/run-setup.js";
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS } from "../../kit/text/output.js";
import { compileRules } from "../../kit/rules/parse.js";
import { pluginHookView, tapPluginObject, withPluginScope } from "../plugins/plugin-driver.js";
import type { HostProblem, Plugin, PluginAuditRecord, PluginContext } from "../plugin-types.js";
import { prepareHost as prepare, statusOf, type PreparedPlugin, type PreparedState } from "../plugins/prepare.js";
import { ProcessScope } from "../../kit/processes.js";
import { withTimeout } from "../../kit/timeout.js";
import { noCommandSandbox } from "./no-sandbox.js";
import { configuredModelError } from "../../kit/provider/model-aliases.js";
import { addSecret, forgetEnvSecrets } from "../../kit/text/redact.js";
import { createRegistrars } from "./host-registrars.js";
import { createRegistries, KIND_NAMES, KINDS, kindCounts, kindListings, pluralOf, registerHookOf, type RegisterHookName, type Registries } from "../registry/kinds.js";
import { sessionParts } from "../session/session.js";
import { ToolSources } from "../registry/tool-sources.js";
import { SessionLifecycle } from "../session/session-lifecycle.js";
import { PERMISSION_MODES, type Logger, type PermissionMode } from "../types.js";
import { createWorkspaceHandle } from "./workspace.js";
import type { TrustItemInput } from "../config/trust.js";
import type { AgentConfig } from "../config/config-schema.js";

/** Read config and load plugins without setting anything up; `open()` finishes the job. */
export function prepareHost(options: CreateHostOptions = {}): Promise<PreparedHost> {
  return prepare(options, openHost);
}

export async function createHost(options: CreateHostOptions = {}): Promise<Host> {
  return (await prepareHost(options)).open();
}

const debugOn = () => process.env.AGENT_DEBUG === "1" || process.env.AGENT_DEBUG === "true";

async function openHost(state: PreparedState, openOptions: OpenHostOptions): Promise<Host> {
  const options = { ...state.options, ...definedOnly(openOptions) };
  const { loaded, hooks, problems, failed } = state;
  const config = freezeCopy(state.config);
  let sessionId = options.sessionId ?? randomUUID();
  const workspaceHandle = createWorkspaceHandle(loaded.projectRoot, config.workspace?.roots ?? []);
  const workspace = workspaceHandle.workspace;
  const processes = new ProcessScope();
  const sandbox = options.sandbox ? options.sandbox(config.sandbox, workspace) : noCommandSandbox(config.sandbox);
  const debug = debugOn();
  let ready = false;

  const audit = openAuditLog(options, config, workspace.root, sessionId, (m) => report({ kind: "config", message: m }));
  const events = new EventStream(hooks.event, debug);
  const { emit, listening } = events;

  function record(problem: HostProblem): void {
    audit.write({
      kind: problem.kind === "register" ? "register" : "plugin",
      source: problem.plugin ?? "host",
      name: problem.name ?? problem.plugin ?? problem.kind,
      outcome: problem.kind === "register" ? "rejected" : problem.kind === "config" ? "warning" : "failed",
      error: problem.message,
    });
  }
  function report(problem: HostProblem): void {
    problems.push(problem);
    record(problem);
    emit({ type: "notice", level: "warn", source: problem.plugin ?? problem.kind, message: problem.message });
  }
  // What preparing found is recorded now that there is an audit log; from here on, problems are reported live.
  for (const p of problems) record(p);
  state.onProblem = (p) => {
    // An event handler that throws is reported once (a renderer that throws on every text delta must
    // not grow the problem list for the whole session); the notice's own failure is that same message.
    if (p.hook === "event" && problems.some((q) => q.hook === "event" && q.message === p.message)) return;
    report(p);
  };

  const logger = (plugin: string): Logger => ({
    debug: (m) => options.logger?.debug(`[${plugin}] ${m}`) ?? (debug ? void process.stderr.write(`[agent:${plugin}] ${m}\n`) : undefined),
    info: (m) => (options.logger ? options.logger.info(`[${plugin}] ${m}`) : emit({ type: "notice", level: "info", source: plugin, message: m })),
    warn: (m) => (options.logger ? options.logger.warn(`[${plugin}] ${m}`) : emit({ type: "notice", level: "warn", source: plugin, message: m })),
    error: (m) => (options.logger ? options.logger.error(`[${plugin}] ${m}`) : emit({ type: "notice", level: "error", source: plugin, message: m })),
  });
  const loggers = new Map<string, Logger>();
  const logFor = (plugin: string) => loggers.get(plugin) ?? loggers.set(plugin, logger(plugin)).get(plugin)!;

  const registries = createRegistries({ config });

  // Reported like a plugin's failure: a source that throws costs its own tools, nothing else.
  const sources = new ToolSources((plugin, message) => report({ kind: "plugin", plugin, message: `Plugin ${plugin}: ${message}` }));

  const gate = new Gate({
    tools: registries.tools.entries,
    sources,
    hooks,
    audit,
    workspace,
    get sessionId() {
      return sessionId;
    },
    processes,
    logFor,
    emit,
    listening,
    rules: compileRules(config.permissions),
    configFileHint: loaded.files.at(-1) ?? `a config file such as ${path.join(loaded.configDir, ".agentrc.json")}`,
    defaults: {
      timeoutMs: config.tools?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxOutputBytes: config.tools?.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    },
    env: Object.freeze({ ...config.env }),
    sandbox,
  });
  const permissions = gate.permissions;
  gate.mode = allowedMode(options.permissionMode ?? config.permissions?.mode ?? "default", config, loaded.origins);
  permissions.asker = options.askPermission;

  const registrars = createRegistrars({
    registries,
    sources,
    failed,
    isReady: () => ready,
    audit,
    reject: (plugin, what, r) => report({ kind: "register", plugin, name: r.name, message: `Plugin ${plugin}: ${what} "${r.name}" rejected: ${r.reason}`, ...(KINDS[what].clashIsWarning && r.reason.startsWith("duplicate") ? { level: "warning" as const } : {}) }),
  });
  const counts = (plugin: string) => kindCounts(registries, plugin);
  const listings = kindListings(registries);

  function setPermissionMode(mode: PermissionMode, by: string): void {
    if (!PERMISSION_MODES.includes(mode)) throw new AgentError("E_USAGE", `permission mode must be one of ${PERMISSION_MODES.join(", ")}; got ${JSON.stringify(mode)}`);
    const from = gate.mode;
    gate.mode = allowedMode(mode, config, loaded.origins);
    audit.write({ kind: "mode", source: by, name: mode, outcome: "ok", detail: { from, to: mode } });
    if (from !== mode) emit({ type: "notice", level: "info", source: "permissions", message: `Permission mode: ${from} → ${mode} (changed by ${by})` });
  }

  let closed: Promise<void> | undefined;
  const lifecycle = new SessionLifecycle(hooks, () => ({ sessionId, cwd: workspace.root, mode: gate.mode }));
  const { session, control } = sessionParts({
    config,
    userConfigDir: loaded.userConfigDir,
    hooks,
    lifecycle,
    id: () => sessionId,
    mode: () => gate.mode,
    emit,
    host: () => host,
    rename: (id) => void ((sessionId = id), audit.setSession(id)),
    switchTo: async (id) => {
      await lifecycle.resume();
      sessionId = id;
      audit.setSession(id);
    },
  });

  const host: Host = {
    cwd: state.cwd,
    config,
    configFiles: Object.freeze([...state.files]),
    configOrigins: Object.freeze(state.loaded.origins.map((o) => Object.freeze({ ...o }))),
    get sessionId() {
      return sessionId;
    },
    workspace,
    hooks: pluginHookView(hooks, "host", 0, state.driver),
    // Every kind's list and get; tools are called through the gate, commands run.
    ...listings,
    // The gate's own call, bound: the loop's calls go straight to the gate, not back through the host.
    tools: { ...listings.tools, call: gate.call.bind(gate), load: (opts) => sources.load(opts) },
    commands: {
      ...listings.commands,
      run: (line, opts = {}) => runCommand({ commands: registries.commands, audit, pluginHost: () => view, setPermissionMode, revokeGrant: (i, by) => permissions.revokeSessionGrant(i, by) }, line, opts),
    },
    get plugins() {
      return state.plugins.map((p) => statusOf(p, counts));
    },
    problems,
    get permissionMode() {
      return gate.mode;
    },
    get permissionGrants() {
      return permissions.verdicts.listSessionGrants();
    },
    set permissionMode(m: PermissionMode) {
      setPermissionMode(m, "host");
    },
    setPermissionMode(mode, opts) {
      setPermissionMode(mode, opts?.by ?? "host");
    },
    setPermissionAsker(asker) {
      permissions.asker = asker;
    },
    on(listener) {
      return events.on(listener);
    },
    emit,
    session,
    async run(prompt, runOptions) {
      const { runAgent } = await import("../loop/loop.js");
      try {
        return await runAgent(host, hooks, control, prompt, runOptions);
      } finally {
        // A turn's grants (a trusted folder's command's allowed-tools) end with the run they were for.
        permissions.verdicts.endTurn();
      }
    },
    runDetached: async (detached) => (await import("../loop/detached-run.js")).runDetached({ host, hooks }, detached),
    close() {
      closed ??= (async () => {
        // The conversation ends while plugins and their processes are still up.
        await lifecycle.end("close");
        await hooks.shutdown.promise().catch(() => {});
        await processes.dispose();
        audit.close();
      })();
      return closed;
    },
  };
  const view = serveSystemPrompt(pluginHostView(host), hooks.systemPrompt);
  // Interrupted while opening: close what is open (plugins stop their servers as on any close).
  const stopOpening = () => void host.close();
  openOptions.signal?.addEventListener("abort", stopOpening, { once: true });

  const parts: SetupParts = {
    view,
    state,
    registrars,
    logFor,
    processes,
    sandbox,
    report,
    emit,
    audit,
    workspace,
    config,
    registries,
    sources,
    addReadRoot: (plugin, dir, reason) => {
      const real = workspaceHandle.addReadRoot(dir);
      audit.write({ kind: "grant", source: plugin, name: real, outcome: "read-only", detail: { reason } });
      return real;
    },
    requestGrant: (plugin, rules, reason, part) => {
      // A part of a folder the user trusted (and as it was when trusted) applies for its turn, as in Claude Code.
      if (part && state.loaded.trust.covers(part)) return Promise.resolve(permissions.grantForTurn(plugin, rules.filter((r): r is string => typeof r === "string"), reason, `trusted folder: ${part.file}`));
      return permissions.requestGrant(plugin, rules, reason, config.permissions?.grants ?? "ask");
    },
    gate,
    stopRun: (plugin, reason) => {
      if (!control.current) return false;
      control.current.requestStop(plugin, reason);
      return true;
    },
  };
  for (const p of state.plugins) if (p.status === "loaded") await setUp(p, parts);

  await runRegisterHooks(state, registrars);
  openOptions.signal?.removeEventListener("abort", stopOpening);
  const refused = openOptions.signal?.aborted ? new AgentError("E_USAGE", "interrupted while the host was opening") : configuredModelError(config, state.loaded.origins, host.providers.list());
  if (refused) return host.close().then(() => Promise.reject(refused));
  // Eager (the default for embedders): open resolves with every source's tools registered.
  if (!options.lazyTools && sources.size) await sources.load();
  ready = true;
  // Plugins may have put secrets in the environment while setting up: redact them from the first call on.
  forgetEnvSecrets();
  registrars.flushAudit();
  return host;
}

/** Each kind's register hook, in the kinds' order; each plugin's handlers get that plugin's registrar. */
async function runRegisterHooks(state: PreparedState, registrars: ReturnType<typeof createRegistrars>): Promise<void> {
  // A register hook is handed its kind's registrar: the one under the same kind, for the host and per plugin.
  const raw: Readonly<Record<RegisterHookName, { promise(registrar: object): Promise<unknown> }>> = state.hooks;
  for (const kind of KIND_NAMES) {
    const plural = pluralOf(kind);
    await raw[registerHookOf(kind)].promise(withPluginScope<object>(registrars("host")[plural], (p) => registrars(p)[plural]));
  }
}

/** What setting a plugin up needs from the host being opened (what its context hands on as it is, typed as the context has it). */
interface SetupParts extends Pick<PluginContext<any>, "processes" | "sandbox" | "emit" | "workspace" | "config"> {
  view: ReturnType<typeof pluginHostView>;
  state: PreparedState;
  registrars: ReturnType<typeof createRegistrars>;
  logFor(plugin: string): Logger;
  report(p: HostProblem): void;
  audit: AuditLog;
  registries: Registries;
  sources: ToolSources;
  /** The call gate: its permissions ask the user, and it traces calls. */
  gate: Gate;
  addReadRoot(plugin: string, dir: string, reason: string): string;
  requestGrant(plugin: string, rules: readonly unknown[], reason: string, part?: TrustItemInput): Promise<boolean>;
  stopRun(plugin: string, reason: string): boolean;
}

/** One plugin's `setup` (bounded), then its object's handlers tapped. A failure removes all it registered. */
async function setUp(p: PreparedPlugin, parts: SetupParts): Promise<void> {
  const { view, state, registrars, logFor, processes, sandbox, report, emit, audit, workspace, config, registries } = parts;
  const requestGrant = (r: { rules: string[]; reason: string; part?: TrustItemInput }) => {
    const rules: unknown = r && typeof r === "object" ? r.rules : undefined;
    const part = r && typeof r === "object" && r.part && typeof r.part === "object" ? r.part : undefined;
    return parts.requestGrant(p.name, Array.isArray(rules) ? rules : [], String(r?.reason ?? ""), part);
  };
  const plugin = p.plugin as Plugin<any>;
  const regs = registrars(p.name);
  const ctx: PluginContext<any> = Object.freeze({
    name: p.name,
    options: p.options ?? {},
    config: pluginConfigView(config),
    configDir: state.loaded.configDir,
    pluginDir: p.dir,
    userConfigDir: state.loaded.userConfigDir,
    trust: Object.freeze({ trusted: state.loaded.trust.trusted, folder: state.loaded.trust.folder }),
    workspace,
    hooks: p.hooks!,
    ...regs,
    log: logFor(p.name),
    processes,
    sandbox,
    addReadRoot: (dir: string, reason: string) => parts.addReadRoot(p.name, String(dir), String(reason)),
    addSecret: (value: string, label: string) => addSecret(value, String(label)),
    requestGrant,
    askUser: (question: string) => parts.gate.permissions.askInput(p.name, String(question)),
    canAskUser: () => parts.gate.permissions.canAsk(),
    stopRun: (reason: string) => parts.stopRun(p.name, String(reason)),
    emit,
    traceCalls: (context: (callId: string) => Readonly<Record<string, string>> | undefined) => {
      if (typeof context === "function") parts.gate.traceCalls(context);
    },
    audit: (r: PluginAuditRecord) =>
      audit.write({
        kind: r.kind,
        source: p.name,
        name: r.name,
        outcome: r.outcome,
        detail: r.detail,
        ...(typeof r.durationMs === "number" ? { durationMs: r.durationMs } : {}),
        ...(typeof r.callId === "string" ? { callId: r.callId } : {}),
        ...(typeof r.error === "string" ? { error: r.error } : {}),
      }),
    report: (r: { kind?: HostProblem["kind"]; name?: string; message: string; level?: HostProblem["level"] }) =>
      report({ kind: r.kind ?? "plugin", plugin: p.name, name: r.name, message: r.message, ...(r.level === "warning" ? { level: "warning" as const } : {}) }),
    host: view,
  });
  try {
    if (typeof plugin.setup === "function") await withTimeout(plugin.setup(ctx), state.setupMs, () => new Error(`setup did not settle within ${state.setupMs} ms (pluginTimeouts.startupMs raises it)`));
    tapPluginObject(plugin, p.hooks!, "setup");
  } catch (err) {
    state.failed.add(p.name);
    for (const r of Object.values(registries)) r.removeAll(p.name);
    parts.sources.removeAll(p.name);
    p.status = "failed";
    p.error = errorMessage(err);
    report({ kind: "plugin", plugin: p.name, message: `Plugin ${p.name} failed in setup: ${sentence(errorMessage(err))} Continuing without it.` });
  }
}

/** Bypass mode where a settings file disabled it (Claude Code's `disableBypassPermissionsMode`): refused, naming the file. */
function allowedMode(mode: PermissionMode, config: { permissions?: { disableBypass?: boolean } }, origins: readonly { key: string; file: string; value?: string }[]): PermissionMode {
  if (mode !== "bypass" || config.permissions?.disableBypass !== true) return mode;
  const from = origins.find((o) => o.key === "permissions.disableBypass" && o.value === "true")?.file ?? "the config";
  throw new AgentError("E_USAGE", `bypass mode is disabled by ${from} (permissions.disableBypass); use another permission mode`);
}

/** The host's audit log: `options.audit` (false: none), else config `audit`, else `.agent/audit.jsonl`; in `options.auditSink`, else the JSONL file. */
function openAuditLog(options: CreateHostOptions, config: { audit?: AgentConfig["audit"] }, root: string, sessionId: string, onError: (message: string) => void): AuditLog {
  const setting = options.audit ?? (config.audit?.enabled === false ? false : (config.audit?.path ?? ".agent/audit.jsonl"));
  const file = setting === false ? undefined : path.resolve(root, setting);
  const sink = file && options.auditSink ? options.auditSink(file, config.audit) : file;
  return new AuditLog(sink, sessionId, onError, { failClosed: config.audit?.onError !== "warn", maxBytes: config.audit?.maxBytes, keep: config.audit?.keep });
}
