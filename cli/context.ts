/**
 * What every command gets: the global flags, the prepared host (config and plugins, read once), and a
 * way to open the host with CLI conventions (notices to stderr, a terminal permission prompt when
 * asked for, Ctrl-C and SIGTERM close it so no child process outlives us).
 */
import { constants } from "node:os";
import { AgentError, type Host, type PermissionAsker, type PermissionMode } from "../core/index.js";
import { prepareHost, trustPreparedFolder, type TrustReport, type PreparedHost } from "../core/embed.js";
import { hostVersion } from "../kit/index.js";
import { type CliSessionHost } from "../core/index.js";
import { pluginView, type CliOpenHostOptions, type CliSessionHostOptions } from "../core/embed.js";
import type { BaseContext } from "./args.js";
import { trustNotice as trustNoticeLine } from "./trust-text.js";
import { builtinPlugins, configSources, createCommandSandbox, packageFormats } from "./builtins.js";
import { flagConfig, flagPlugins, unmatchedFlagRules, type RunFlags } from "./flags.js";
import { claudeOnlyRulesLine } from "./rule-check.js";
import { printJson, table } from "./format.js";
import { printableFor } from "./render/_style.js";
import { redactString } from "../kit/index.js";

export function version(): string {
  return hostVersion();
}

export interface CliOpenOptions extends CliOpenHostOptions {
  /**
   * `exit` (default): Ctrl-C closes the host and exits. `caller`: once the host is open, Ctrl-C is the
   * caller's (e.g. the first one cancels a run); while it opens, Ctrl-C still exits.
   */
  ctrlC?: "exit" | "caller";
  /** Hold the notices that come after the host opened until `releaseNotices` (e.g. `agent call`: until the call's own error is known). */
  holdNotices?: boolean;
}

/** The CLI's context: the public `CliContext` base, plus what the built-in commands need beyond it. */
export interface AppContext extends BaseContext {
  openHost(options?: CliOpenOptions): Promise<Host>;
  /** The host opened by the running command, if any (closed by the CLI when the command returns). */
  readonly opened: Host | undefined;
  /** The prepared host, if preparing already happened. */
  readonly preparedSoFar: PreparedHost | undefined;
  /** Do not print the one line about what of an untrusted folder was not loaded (`agent doctor` shows it whole). */
  quietTrust(): void;
  /** The user trusts the folder: recorded with every part it has now, and the host is prepared again, trusted. */
  trustFolder(): Promise<{ file: string; report: TrustReport }>;
  /** Close the hosts `openSessionHost` opened that are still open (the CLI does, when the command returns). */
  closeSessionHosts(): Promise<void>;
  /** Aborted by SIGINT (when it is not the caller's), SIGTERM or SIGHUP, before the host closes: pass it to calls. */
  readonly interrupted: AbortSignal;
  /** Print the notices `holdNotices` held (those `keep` accepts; the rest are dropped), and print later ones as they come. */
  releaseNotices(keep?: (message: string) => boolean): void;
}

/** True when a person can answer a permission prompt. */
export function canPrompt(): boolean {
  return !!process.stdin.isTTY && !!process.stderr.isTTY && process.env.CI !== "true";
}

export function createAppContext(flags: { cwd?: string; permissionMode?: PermissionMode; neverAsk?: boolean; debug: boolean; flags?: RunFlags }): AppContext {
  const cwd = flags.cwd ?? process.cwd();
  let prepared: Promise<PreparedHost> | undefined;
  let preparedValue: PreparedHost | undefined;
  let opened: Host | undefined;
  const interrupt = new AbortController();
  const sessionHosts = new Set<Host>();
  let trustNotice = true;
  const load = (trust?: boolean) =>
    prepareHost({ cwd, permissionMode: flags.permissionMode, builtins: builtinPlugins, configSources, sandbox: createCommandSandbox, packageFormats, config: flags.flags && flagConfig(flags.flags), plugins: flags.flags && flagPlugins(flags.flags), trust }).then((p) => {
      preparedValue = p;
      // Once per run, whatever the command: what of the folder was not loaded, and how to trust it.
      const notice = trustNotice ? trustNoticeLine(p.trust, cwd) : undefined;
      trustNotice = false;
      if (notice) process.stderr.write(`${printableFor(process.stderr, notice)}\n`);
      return p;
    });
  const prepare = () => (prepared ??= load());
  const write = (stream: NodeJS.WriteStream, text: string) => stream.write(text.endsWith("\n") ? text : `${text}\n`);
  /** Notices held by `openHost({ holdNotices })` until `releaseNotices`, and how they are printed. */
  let held: string[] | undefined;
  let sayNotice: ((m: string) => void) | undefined;
  return {
    cwd,
    permissionMode: flags.permissionMode,
    debug: flags.debug,
    prepare,
    quietTrust() {
      trustNotice = false;
    },
    async trustFolder() {
      if (opened) throw new AgentError("E_USAGE", "the host is already open: trust the folder before opening it");
      const next = load(true);
      prepared = next;
      const p = await next;
      return { file: trustPreparedFolder(p), report: p.trust };
    },
    get opened() {
      return opened;
    },
    get preparedSoFar() {
      return preparedValue;
    },
    interrupted: interrupt.signal,
    releaseNotices(keep = () => true) {
      const list = held ?? [];
      held = undefined;
      for (const m of list) if (keep(m)) sayNotice?.(m);
    },
    async openHost(options: CliOpenOptions = {}) {
      if (opened) throw new AgentError("E_USAGE", "the host is already open for this command");
      const { interactive, quiet, listing, ctrlC = "exit", holdNotices, ...rest } = options;
      // Handle signals from the start: while the host opens, servers may already be running in
      // process groups of their own, which a terminal's Ctrl-C does not reach.
      const signals = installSignalHandlers(interrupt, () => [...sessionHosts]);
      const opening = prepare().then((p) =>
        p.open({
          permissionMode: flags.permissionMode,
          signal: interrupt.signal,
          // Servers start when their tools are needed (a call, a run); listing commands pass false.
          lazyTools: true,
          // The prompt (and node:readline) loads on the first question only.
          // --permission-mode dontAsk: what would ask is denied, as in a headless run.
          askPermission: interactive === true && canPrompt() && !flags.neverAsk ? askOnTerminal(() => opened) : undefined,
          ...(listing && !keepsAudit(p) ? { audit: false as const } : {}),
          ...rest,
        }),
      );
      signals.opening(opening);
      const host = await opening;
      opened = host;
      if (!quiet) {
        // Warnings (a setting not applied, a hook event that never fires) are for `agent doctor`.
        // What plugins, servers and hooks say may hold escape sequences (shown, not obeyed, on a terminal)
        // and secrets (redacted as in the audit log, piped or not).
        const say = (m: string) => process.stderr.write(`agent: ${printableFor(process.stderr, redactString(m))}\n`);
        for (const p of host.problems) if (p.level !== "warning") say(p.message);
        if (flags.flags) for (const w of unmatchedFlagRules(host, flags.flags)) say(w);
        const claudeOnly = claudeOnlyRulesLine(host);
        if (claudeOnly) say(claudeOnly);
        if (holdNotices) held = [];
        sayNotice = say;
        host.on((e) => {
          if (e.type === "notice" && e.level !== "info") (held ? held.push(e.message) : say(e.message));
        });
      }
      signals.attach(host, ctrlC === "exit");
      return host;
    },
    async openSessionHost(options: CliSessionHostOptions = {}) {
      const { cwd: folder, config, plugins = [], quiet = true, ...rest } = options;
      const merged = { ...(flags.flags && flagConfig(flags.flags)), ...config };
      const extra = [...(flags.flags ? flagPlugins(flags.flags) : []), ...plugins];
      const p = await prepareHost({ cwd: folder ?? cwd, permissionMode: flags.permissionMode, builtins: builtinPlugins, configSources, sandbox: createCommandSandbox, config: merged, plugins: extra });
      const host = await p.open({ permissionMode: flags.permissionMode, signal: interrupt.signal, lazyTools: true, ...rest });
      sessionHosts.add(host);
      if (!quiet) for (const problem of host.problems) if (problem.level !== "warning") process.stderr.write(`agent: ${printableFor(process.stderr, redactString(problem.message))}\n`);
      return sessionHostView(host, () => sessionHosts.delete(host));
    },
    async closeSessionHosts() {
      const open = [...sessionHosts];
      sessionHosts.clear();
      await Promise.all(open.map((h) => h.close()));
    },
    // What commands print comes from servers and plugins too: on a terminal it is shown, not obeyed
    // (plugins' subcommands get this with the context); piped, stdout is exactly what was written.
    // stderr is the CLI's own diagnostics: redacted as the audit log is, piped or not.
    print: (text) => void write(process.stdout, printableFor(process.stdout, text)),
    printJson,
    warn: (text) => void write(process.stderr, printableFor(process.stderr, redactString(text))),
    table,
    usageError(message: string): never {
      throw new AgentError("E_USAGE", message);
    },
  };
}

/**
 * Whether a listing writes the audit log: only when the config names a log of its own (the user asked for one).
 * Otherwise a listing's registrations are not audited, `.agent/` or not: it runs no tool, it leaves no `.agent/`
 * behind, and the listing cache may answer the next one (a hit would skip the records).
 */
function keepsAudit(p: PreparedHost): boolean {
  return p.config.audit?.path !== undefined;
}

/** The terminal permission prompt; its module (and node:readline) loads on the first question only. */
function askOnTerminal(getHost: () => Host | undefined): PermissionAsker {
  let asker: PermissionAsker | undefined;
  return async (req) => {
    if (!asker) {
      const { askOnStdin, createPermissionAsker, hostAware } = await import("./render/permission-prompt.js");
      asker = createPermissionAsker({ ask: askOnStdin(), output: process.stderr, ...hostAware(getHost) });
    }
    return asker(req);
  };
}

/** A session host as plugins see it, plus what its command may do for the user: change the mode, close it. */
function sessionHostView(host: Host, forget: () => void): CliSessionHost {
  // The view's getters (session id, mode, problems) stay getters: its properties are copied as they are.
  const view = Object.defineProperties({}, Object.getOwnPropertyDescriptors(pluginView(host)));
  return Object.freeze(
    Object.assign(view, {
      setPermissionMode: (mode: PermissionMode, options?: { by?: string }) => host.setPermissionMode(mode, options),
      close: async () => {
        forget();
        await host.close();
      },
    }),
  ) as CliSessionHost;
}

function installSignalHandlers(interrupt: AbortController, sessions: () => Host[] = () => []): { opening(p: Promise<Host>): void; attach(host: Host, keepSigint: boolean): void } {
  let host: Host | undefined;
  let opening: Promise<unknown> | undefined;
  // Loaded now, used on a signal: the watchdog must start even if the event loop no longer turns by then.
  let threads: typeof import("node:worker_threads") | undefined;
  void import("node:worker_threads").then((m) => void (threads = m), () => {});
  const onSignal = (sig: NodeJS.Signals) => {
    // The shell convention, 128 + the signal number: SIGHUP 129, SIGINT 130, SIGTERM 143.
    const code = 128 + (constants.signals[sig] ?? 15);
    // From here on, a signal ends the process at once (its default action: exit 128+n), however busy
    // the event loop is and whoever listens: every listener goes, a plugin's too, before anything else
    // runs (a tool's abort listener below may never return).
    for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.removeAllListeners(s);
    // The 5 s bound below is a timer: a plugin that floods the microtask queue or loops never lets it
    // fire. A thread of its own sends the signal again a little later (the default action now), then SIGKILL.
    try {
      const w = threads && new threads.Worker(
        `const { workerData: d } = require("node:worker_threads"); const t = new Int32Array(new SharedArrayBuffer(4));
         Atomics.wait(t, 0, 0, d.ms); try { process.kill(d.pid, d.sig); } catch {}
         Atomics.wait(t, 0, 0, 2000); try { process.kill(d.pid, "SIGKILL"); } catch {}`,
        { eval: true, workerData: { pid: process.pid, sig, ms: 5500 } },
      );
      w?.unref();
    } catch {
      /* no thread: the timer and a second signal remain */
    }
    // Running calls are cancelled first (they end "aborted", a server hears notifications/cancelled); a
    // turn of the event loop lets them settle and be audited. Then the host closes; while it opens, the
    // aborted signal closes what is open so far (servers stopped in order: stdin, SIGTERM, SIGKILL).
    interrupt.abort(Object.assign(new Error(`interrupted by ${sig}`), { exitCode: code }));
    const closing = new Promise((r) => setImmediate(r)).then(() => Promise.all([host ? host.close() : opening, ...sessions().map((h) => h.close())]));
    const bound = new Promise((r) => setTimeout(r, 5000).unref());
    void Promise.race([closing.catch(() => {}), bound]).finally(() => process.exit(code));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  process.once("SIGHUP", onSignal);
  return {
    opening(p) {
      opening = p;
    },
    attach(h, keepSigint) {
      host = h;
      if (!keepSigint) process.off("SIGINT", onSignal);
    },
  };
}
