/** What every subcommand gets: the global flags and a way to open the host with CLI conventions. */
import { createHost, type CreateHostOptions } from "../host.js";
import type { Host, PermissionAsker, PermissionMode } from "../types.js";

declare const __AGENT_VERSION__: string;

export function version(): string {
  return typeof __AGENT_VERSION__ === "string" ? __AGENT_VERSION__ : "dev";
}

export interface OpenHostOptions extends Partial<CreateHostOptions> {
  /** Ask permission questions on the terminal when there is one (default true). */
  interactive?: boolean;
  /** Do not print startup problems and notices to stderr. */
  quiet?: boolean;
  /**
   * `exit` (default): Ctrl-C closes the host and exits. `caller`: once the host is open, Ctrl-C is the
   * caller's (e.g. the first one cancels a run); while it opens, Ctrl-C still exits.
   */
  ctrlC?: "exit" | "caller";
}

export interface CliContext {
  cwd: string;
  permissionMode?: PermissionMode;
  debug: boolean;
  /** Open the host; notices go to stderr; Ctrl-C and SIGTERM close it (stopping child processes). */
  openHost(options?: OpenHostOptions): Promise<Host>;
}

/** True when a person can answer a permission prompt. */
export function canPrompt(): boolean {
  return !!process.stdin.isTTY && !!process.stderr.isTTY && process.env.CI !== "true";
}

export function createCliContext(flags: { cwd?: string; permissionMode?: PermissionMode; debug: boolean }): CliContext {
  const cwd = flags.cwd ?? process.cwd();
  return {
    cwd,
    permissionMode: flags.permissionMode,
    debug: flags.debug,
    async openHost(options = {}) {
      const { interactive, quiet, ctrlC = "exit", ...rest } = options;
      // Handle signals from the start: while the host opens, MCP servers may already be running in
      // process groups of their own, which a terminal's Ctrl-C does not reach.
      const signals = installSignalHandlers();
      const host = await createHost({
        cwd,
        permissionMode: flags.permissionMode,
        // The prompt (and node:readline) loads on the first question only.
        askPermission: interactive !== false && canPrompt() ? askOnTerminal() : undefined,
        ...rest,
      });
      if (!quiet) {
        for (const p of host.problems) process.stderr.write(`agent: ${p.message}\n`);
        host.on((e) => {
          if (e.type === "notice" && e.level !== "info") process.stderr.write(`agent: ${e.message}\n`);
        });
      }
      signals.attach(host, ctrlC === "exit");
      return host;
    },
  };
}

/** The terminal permission prompt; its module (and node:readline) loads on the first question only. */
function askOnTerminal(): PermissionAsker {
  let asker: PermissionAsker | undefined;
  return async (req) => {
    if (!asker) {
      const { askOnStdin, createPermissionAsker } = await import("../render/permission-prompt.js");
      asker = createPermissionAsker({ ask: askOnStdin(), output: process.stderr });
    }
    return asker(req);
  };
}

function installSignalHandlers(): { attach(host: Host, keepSigint: boolean): void } {
  let host: Host | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    const code = sig === "SIGINT" ? 130 : 143;
    // Before the host exists, exiting is enough: the exit handler kills every child started so far.
    void (host?.close() ?? Promise.resolve()).finally(() => process.exit(code));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  process.once("SIGHUP", onSignal);
  return {
    attach(h, keepSigint) {
      host = h;
      if (!keepSigint) process.off("SIGINT", onSignal);
    },
  };
}
