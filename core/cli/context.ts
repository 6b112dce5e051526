/** What every subcommand gets: the global flags and a way to open the host with CLI conventions. */
import { createHost, type CreateHostOptions } from "../host.js";
import type { Host, PermissionMode } from "../types.js";

declare const __AGENT_VERSION__: string;

export function version(): string {
  return typeof __AGENT_VERSION__ === "string" ? __AGENT_VERSION__ : "dev";
}

export interface CliContext {
  cwd: string;
  permissionMode?: PermissionMode;
  debug: boolean;
  /** Open the host; notices go to stderr; Ctrl-C and SIGTERM close it (stopping child processes). */
  openHost(options?: Partial<CreateHostOptions> & { interactive?: boolean; quiet?: boolean }): Promise<Host>;
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
      const { interactive, quiet, ...rest } = options;
      // Handle signals from the start: while the host opens, MCP servers may already be running in
      // process groups of their own, which a terminal's Ctrl-C does not reach.
      const signals = installSignalHandlers();
      const host = await createHost({
        cwd,
        permissionMode: flags.permissionMode,
        // The prompt (and node:readline) loads on the first question only.
        askPermission: interactive !== false && canPrompt() ? async (req) => (await import("./prompt.js")).askOnTerminal(req) : undefined,
        ...rest,
      });
      if (!quiet) {
        for (const p of host.problems) process.stderr.write(`agent: ${p.message}\n`);
        host.on((e) => {
          if (e.type === "notice" && e.level !== "info") process.stderr.write(`agent: ${e.message}\n`);
        });
      }
      signals.attach(host);
      return host;
    },
  };
}

function installSignalHandlers(): { attach(host: Host): void } {
  let host: Host | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    const code = sig === "SIGINT" ? 130 : 143;
    // Before the host exists, exiting is enough: the exit handler kills every child started so far.
    void (host?.close() ?? Promise.resolve()).finally(() => process.exit(code));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  process.once("SIGHUP", onSignal);
  return { attach: (h) => void (host = h) };
}
